# SPDX-License-Identifier: BSD-3-Clause
#
# guest.mk: everything an emulated machine runs, cross-built on the host
# into $(O) (ctests/guest/test_arm64.sh, test_riscv64.sh and
# test_x86_64.sh run this with GNU make -j2).  GUEST is arm64, riscv64 or
# x86_64 (the host's own compiler, PAPI configured as for the host).
#
#   $(O)/sysroot/        the Debian packages the guest needs, unpacked
#                        (fetch.sh; the .debs are cached in $(O)/cache):
#                        arm64: the kernel and libpfm4; riscv64: the
#                        kernel, and the QEMU and OpenSBI that boot it
#   $(O)/papi/ours/      PAPI from $(PAPI_SRC) with our components
#                        (scripts/papi-overlay.sh, as for the host build)
#   $(O)/papi/stock/     the same PAPI, untouched (riscv64: both given what
#                        PAPI's Linux layer lacks before 7.2,
#                        papi-riscv64.sh, and PAPI's own libpfm4, which
#                        knows no RISC-V PMU but the kernel's generic
#                        events)
#   $(O)/testlib/        the test library (ctests/lib/sources.mk), as
#                        ctests/local.mk builds it on the host
#   $(O)/bin/            our engine tests (static), PAPI-level tests and
#                        utilities (linked against our libpapi.so, as on
#                        the host), the static /init
#   $(O)/initrd.cpio.gz  the guest's whole file system: /init, bin/, the
#                        PAPI trees' libraries and test programs, and the
#                        shared libraries they need
#   $(O)/kernel          the kernel Image
#
# Both PAPI trees are built shared, as on the host: papi_overhead and
# papi_accuracy choose ours or stock through LD_LIBRARY_PATH, and
# test_faults_change and test_faults_run interpose libc calls under
# libpapi.so.  There is no cross Fortran compiler here, so PAPI's Fortran
# tests are not built.
#
# Variables: srcdir (our source tree), PAPI_SRC (a PAPI source tree),
# O (the output directory), GUEST.  Nothing here depends on the host build.

GUEST ?= arm64
ifeq ($(GUEST),arm64)
LOPE_ARCH := aarch64
CROSS ?= aarch64-linux-gnu-
PAPI_ARCH := --with-arch=aarch64 --with-CPU=arm
KERNEL_FILES := $(O)/sysroot/boot/vmlinuz-*
else ifeq ($(GUEST),riscv64)
LOPE_ARCH := riscv64
CROSS ?= riscv64-linux-gnu-
PAPI_ARCH := --with-arch=riscv64 --with-CPU=riscv64
KERNEL_FILES := $(O)/sysroot/boot/vmlinux-*
else ifeq ($(GUEST),x86_64)
LOPE_ARCH := x86_64
CROSS ?= x86_64-linux-gnu-
KERNEL_FILES := $(O)/sysroot/boot/vmlinuz-*
else
$(error GUEST is arm64, riscv64 or x86_64, not $(GUEST))
endif
# The host's own libraries, where the guest's architecture is the host's.
NATIVE_LIBDIRS := $(if $(filter x86_64,$(GUEST)),/lib/x86_64-linux-gnu \
	/usr/lib/x86_64-linux-gnu)
CC := $(CROSS)gcc
STRIP := $(CROSS)strip
READELF := $(CROSS)readelf
CFLAGS ?= -g -O2
WARN := -Wall -Wextra

ifeq ($(srcdir),)
$(error srcdir is not set)
endif
ifeq ($(PAPI_SRC),)
$(error PAPI_SRC is not set)
endif
ifeq ($(O),)
$(error O is not set)
endif

SYSROOT := $(O)/sysroot
# libpfm4: arm64 Debian's; riscv64 the one in ours' PAPI tree (PAPI's
# configure builds its own when given none).
ifneq ($(filter arm64 x86_64,$(GUEST)),)
PFM_INC := $(SYSROOT)/usr/include
PFM_LIB := $(SYSROOT)/usr/lib/$(LOPE_ARCH)-linux-gnu
PAPI_PFM := --with-pfm-incdir=$(PFM_INC) --with-pfm-libdir=$(PFM_LIB)
else
PFM_LIB := $(O)/papi/ours/src/libpfm4/lib
PAPI_PFM :=
# PAPI's `make shared` does not build its libpfm4 first: built here, for
# an architecture it knows only by the kernel's generic events, without
# its -Werror (DBG=).
PAPI_PFM_BUILD = $(PAPI_MAKE) -C libpfm4 lib ARCH=$(LOPE_ARCH) CC=$(CC) DBG= &&
endif
# The cross linker must find libpfm.so.4, which libpapi.so needs.
XLDFLAGS := -L$(PFM_LIB) -Wl,-rpath-link,$(PFM_LIB)
# Where the PAPI trees are in the guest (papi_overhead's defaults).
GUEST_OURS := /papi/ours
GUEST_STOCK := /papi/stock

# PAPI's configure cannot run test programs when cross-compiling: the
# answers it would probe for are given (clock_realtime_hr does not build
# for arm64 nor riscv64).  From 7.2 it also asks AC_CHECK_FILE, which refuses to
# cross-compile, whether each component has a papi_NAME_presets.h: the
# tree is here to look.
comma := ,
PAPI_COMPONENTS := $(notdir $(patsubst %/,%,$(wildcard $(PAPI_SRC)/src/components/*/)))
PAPI_XPRESETS := $(foreach c,$(PAPI_COMPONENTS),$(subst -,_,ac_cv_file_components_$(c)_papi_$(c)_presets_h)=$(if \
	$(wildcard $(PAPI_SRC)/src/components/$(c)/papi_$(c)_presets.h),yes,no))
PAPI_COMMON := --with-tls=__thread --with-perf-events --with-static-lib=no \
	--with-shared-lib=yes --with-shlib-tools --with-components= \
	--with-tests=ctests $(PAPI_PFM) CC=$(CC) AR=$(CROSS)ar \
	LDFLAGS="$(XLDFLAGS)"
ifeq ($(GUEST),x86_64)
# The host's own architecture: PAPI's configure probes as on the host.
PAPI_XCONFIGURE := $(PAPI_COMMON)
else
PAPI_XCONFIGURE := --host=$(patsubst %-,%,$(CROSS)) $(PAPI_ARCH) \
	--with-ffsll --with-walltimer=clock_realtime \
	--with-virtualtimer=clock_thread_cputime_id $(PAPI_COMMON) \
	$(PAPI_XPRESETS)
endif
# Our `make -j2` must reach PAPI's make, the variables of the caller not.
PAPI_MAKE = MAKEFLAGS="$$(echo "$$MAKEFLAGS" | sed 's/\(^\| \)-- .*//')" $(MAKE)
# PAPI's library, utilities, C tests and component tests, none in Fortran
# (there is no cross Fortran compiler here): F77=: turns the component
# tests' Fortran recipes into no-ops, and TESTLIBOBJS keeps the Fortran
# helper out of the test library, which PAPI 7.0 would otherwise archive
# as soon as F77 is set, whether it built it or not (a host with the
# host's gfortran had hidden it).
# Ours also archives the engine's objects (liblope.a, Rules.perf_event),
# which the engine's tests link, as on the host.
PAPI_NO_FORTRAN = TESTLIBOBJS=test_utils.o
PAPI_BUILD = $(PAPI_PFM_BUILD) \
	$(PAPI_MAKE) shared utils ctests $(1) $(PAPI_NO_FORTRAN) && \
	$(PAPI_MAKE) comp_tests F77=: $(PAPI_NO_FORTRAN)

include $(srcdir)/src/sources.mk
LOPE_COMPONENT_FILES := $(wildcard $(srcdir)/components/perf_event/*) \
	$(wildcard $(srcdir)/components/perf_event_uncore/*)
LOPE_ENGINE_FILES := $(addprefix $(srcdir)/src/,$(LOPE_ENGINE_SRCS) \
	$(LOPE_ENGINE_HDRS) sources.mk) $(srcdir)/src/arch/$(LOPE_ARCH)/lope_arch.h
LOPE_ENGINE_LIB := $(O)/papi/ours/src/liblope.a

# Our tests: the C tests of ctests/tests.list with the attribute guest.
TEST_LIST := $(srcdir)/ctests/tests.list
GUEST_TESTS := $(filter-out %.sh,$(shell sh $(srcdir)/scripts/lists.sh \
	tests $(TEST_LIST) guest))
ifeq ($(GUEST_TESTS),)
$(error no C test of $(TEST_LIST) has the attribute guest)
endif
ENGINE_TESTS := $(notdir $(filter ctests/engine/%,$(GUEST_TESTS)))
PAPI_TESTS := $(notdir $(filter ctests/papi/%,$(GUEST_TESTS)))
INTERPOSE_TESTS := $(notdir $(shell sh $(srcdir)/scripts/lists.sh tests \
	$(TEST_LIST) interpose))
UTILS := papi_overhead papi_accuracy papi_stat
BIN := $(O)/bin
# x86_64: the emulated PMU's own check (ctests/guest/x86pmu-check.c).
PMU_CHECK := $(if $(filter x86_64,$(GUEST)),x86pmu-check)
# x86_64 with HPCTOOLKIT, the prefix of ctests/hpctoolkit's build: hpcrun's
# runtime in /hpc, the program it profiles and hpcrun's stand-in
# (ctests/hpctoolkit/hpc_count.c, hpcguest.c).
HPCTOOLKIT ?=
HPC_PROGRAMS := $(if $(and $(filter x86_64,$(GUEST)),$(HPCTOOLKIT)),hpc_count \
	hpcguest)
PROGRAMS := $(addprefix $(BIN)/,$(ENGINE_TESTS) $(PAPI_TESTS) $(UTILS) \
	three init $(PMU_CHECK) $(HPC_PROGRAMS))

all: $(O)/initrd.cpio.gz $(O)/kernel
.PHONY: all
.DELETE_ON_ERROR:

# ---------------------------------------------------------------------------
# Debian's packages.

$(O)/sysroot.stamp: $(srcdir)/ctests/guest/fetch.sh
	@echo "# guest: fetching and unpacking Debian's packages for the $(GUEST) machine"
	@bash $< $(GUEST) $(O)/cache $(SYSROOT)
	@touch $@

$(O)/kernel: $(O)/sysroot.stamp
	@cp $$(ls $(KERNEL_FILES) | sort -V | tail -n 1) $@

# ---------------------------------------------------------------------------
# PAPI, twice, from the same source.

# Ours binds every symbol at load (-z now), as the host build's does.
$(O)/papi/%.configured: $(O)/sysroot.stamp \
		$(srcdir)/ctests/guest/papi-riscv64.sh
	@echo "# guest: configuring papi/$* for $(LOPE_ARCH)"
	@rm -rf $(O)/papi/$* && mkdir -p $(O)/papi/$* && \
		cp -a "$(PAPI_SRC)/." $(O)/papi/$*/
	@$(if $(filter riscv64,$(GUEST)),sh $(srcdir)/ctests/guest/papi-riscv64.sh $(O)/papi/$*)
	@cd $(O)/papi/$*/src && ./configure $(PAPI_XCONFIGURE) \
		$(if $(filter ours,$*),LDFLAGS="$(XLDFLAGS) -Wl$(comma)-z$(comma)now") \
		>../configure.log 2>&1 || \
		{ tail -n 20 ../configure.log; \
		  echo "PAPI configure failed: see $(O)/papi/$*/configure.log"; \
		  exit 1; }
	@touch $@

$(O)/papi/ours.built: $(O)/papi/ours.configured $(LOPE_COMPONENT_FILES) \
		$(LOPE_ENGINE_FILES) $(srcdir)/scripts/papi-overlay.sh
	@echo "# guest: building papi/ours for $(LOPE_ARCH)"
	@sh $(srcdir)/scripts/papi-overlay.sh $(srcdir) $(O)/papi/ours $(LOPE_ARCH) \
		"$(PAPI_SRC)"
	@cd $(O)/papi/ours/src && { $(call PAPI_BUILD,liblope.a); } \
		>../make.log 2>&1 || \
		{ grep -m 5 -B 2 -E 'error|Error' ../make.log; \
		  echo "PAPI make failed: see $(O)/papi/ours/make.log"; exit 1; }
	@touch $@

$(O)/papi/stock.built: $(O)/papi/stock.configured
	@echo "# guest: building papi/stock for $(LOPE_ARCH)"
	@cd $(O)/papi/stock/src && { $(call PAPI_BUILD); } \
		>../make.log 2>&1 || \
		{ grep -m 5 -B 2 -E 'error|Error' ../make.log; \
		  echo "PAPI make failed: see $(O)/papi/stock/make.log"; exit 1; }
	@touch $@

# ---------------------------------------------------------------------------
# Our programs.

OURS_INC := -I$(O)/papi/ours/src -I$(srcdir)/ctests/lib
OURS_SO := $(O)/papi/ours/src/libpapi.so

# The test library: its PAPI helpers need our papi.h.
include $(srcdir)/ctests/lib/sources.mk
# papi_util.h includes what the utilities share with it.
TESTLIB_HDRS := $(addprefix $(srcdir)/ctests/lib/,$(LOPE_TESTLIB_HDRS)) \
	$(srcdir)/utils/papi_common.h
TESTLIB := $(O)/testlib/liblopetest.a
TESTLIB_OBJS := $(addprefix $(O)/testlib/,$(LOPE_TESTLIB_SRCS:.c=.o))
INTERPOSE_OBJ := $(O)/testlib/$(LOPE_TESTLIB_INTERPOSE:.c=.o)
$(O)/testlib/%.o: $(srcdir)/ctests/lib/%.c $(TESTLIB_HDRS) \
		$(O)/papi/ours.built
	@mkdir -p $(@D)
	@echo "  XCC      guest/testlib/$*.o"
	@$(CC) $(CFLAGS) $(WARN) $(OURS_INC) -c $< -o $@
$(TESTLIB): $(TESTLIB_OBJS)
	@rm -f $@ && $(CROSS)ar crs $@ $^

# The engine's tests: static, with the engine as libpapi has it.
$(addprefix $(BIN)/,$(ENGINE_TESTS)): $(BIN)/%: $(srcdir)/ctests/engine/%.c \
		$(O)/papi/ours.built $(TESTLIB) $(TESTLIB_HDRS)
	@mkdir -p $(BIN)
	@echo "  XCC      guest/$*"
	@$(CC) $(CFLAGS) $(WARN) -static -I$(srcdir)/src \
		-I$(srcdir)/src/arch/$(LOPE_ARCH) -I$(srcdir)/ctests/lib $< \
		$(TESTLIB) $(LOPE_ENGINE_LIB) -o $@ -lpthread -lm

# The PAPI-level tests; those with the attribute interpose add its object.
$(addprefix $(BIN)/,$(filter $(INTERPOSE_TESTS),$(PAPI_TESTS))): \
	$(INTERPOSE_OBJ)
$(addprefix $(BIN)/,$(PAPI_TESTS)): $(BIN)/%: $(srcdir)/ctests/papi/%.c \
		$(TESTLIB) $(TESTLIB_HDRS) $(O)/papi/ours.built
	@mkdir -p $(BIN)
	@echo "  XCC      guest/$*"
	@$(CC) $(CFLAGS) $(WARN) $(OURS_INC) $< $(filter %.o,$^) $(TESTLIB) \
		$(OURS_SO) -o $@ $(XLDFLAGS) -lpthread -ldl -lm

# The utilities, from their folders as utils/local.mk builds them.
OVERHEAD_SRCS := $(wildcard $(srcdir)/utils/overhead/*.c) $(srcdir)/src/guard.c
ACCURACY_SRCS := $(addprefix $(srcdir)/utils/accuracy/,main.c patterns.c \
	check_loop.c)
STAT_SRCS := $(wildcard $(srcdir)/utils/stat/*.c)
# papi_overhead reads PAPI's vector and the engine's arch header.
OVERHEAD_FLAGS := -I$(srcdir)/src -I$(srcdir)/src/arch/$(LOPE_ARCH) \
	-DOSLOCK='"linux-lock.h"' -DOSCONTEXT='"linux-context.h"' \
	-DPAPI_NUM_COMP=3
WORKER_SRCS := $(srcdir)/utils/worker.c $(srcdir)/utils/tool.c \
	$(srcdir)/utils/line.c
UTILS_HDRS := $(wildcard $(srcdir)/utils/*.h $(srcdir)/utils/*/*.h)
# papi_overhead and papi_accuracy: their defaults are the guest's trees.
WORKER_FLAGS := -DLOPE_OURS_LIBDIR='"$(GUEST_OURS)"' \
	-DLOPE_STOCK_LIBDIR='"$(GUEST_STOCK)"'

# worker_util NAME,SRCS[,FLAGS]: utility NAME from SRCS and utils/worker.c.
define worker_util
$(BIN)/$(1): $(2) $(WORKER_SRCS) $(UTILS_HDRS) $(O)/papi/ours.built
	@mkdir -p $(BIN)
	@echo "  XCC      guest/$(1)"
	@$(CC) $(CFLAGS) $(WARN) $(OURS_INC) $(WORKER_FLAGS) $(3) $(2) \
		$(WORKER_SRCS) $(OURS_SO) -o $$@ $(XLDFLAGS) -ldl -lm
endef
# papi_overhead: the guest has no valgrind; its counter meter counts
# exact instructions under icount, user and kernel.
$(eval $(call worker_util,papi_overhead,$(OVERHEAD_SRCS),$(OVERHEAD_FLAGS)))
$(eval $(call worker_util,papi_accuracy,$(ACCURACY_SRCS)))
# papi_stat: against our libpapi.so (the host links it statically; here
# the guest's LD_LIBRARY_PATH names ours).
TOOL_SRCS := $(srcdir)/utils/tool.c
$(BIN)/papi_stat: $(STAT_SRCS) $(TOOL_SRCS) $(UTILS_HDRS) \
		$(O)/papi/ours.built
	@mkdir -p $(BIN)
	@echo "  XCC      guest/papi_stat"
	@$(CC) $(CFLAGS) $(WARN) $(OURS_INC) $(STAT_SRCS) $(TOOL_SRCS) \
		$(OURS_SO) -o $@ $(XLDFLAGS) -lm

# Three instructions and no libc: exit(0) (papi_stat's exact count).
$(BIN)/three: $(srcdir)/ctests/guest/three-$(GUEST).S
	@mkdir -p $(BIN)
	@$(CC) -nostdlib -static $< -o $@

$(addprefix $(BIN)/,$(HPC_PROGRAMS)): $(BIN)/%: $(srcdir)/ctests/hpctoolkit/%.c
	@mkdir -p $(BIN)
	@echo "  CC       guest/$*"
	@$(CC) $(CFLAGS) $(WARN) $< -o $@

$(BIN)/x86pmu-check: $(srcdir)/ctests/guest/x86pmu-check.c
	@mkdir -p $(BIN)
	@echo "  CC       guest/x86pmu-check"
	@$(CC) $(CFLAGS) $(WARN) -static $< -o $@

# /init writes its lines as the utilities' workers do (utils/line.c).
$(BIN)/init: $(srcdir)/ctests/guest/init.c $(srcdir)/utils/line.c \
		$(srcdir)/utils/line.h
	@mkdir -p $(BIN)
	@echo "  XCC      guest/init"
	@$(CC) $(CFLAGS) $(WARN) -static $(filter %.c,$^) -o $@

# ---------------------------------------------------------------------------
# The initramfs: a gzip'd newc cpio of $(O)/root.

# The guest's programs of a built PAPI tree: its utilities and the tests (those
# scripts/peer-ctests.sh runs from), relative to its src/.
papi_progs = cd $(1)/src && find utils validation_tests ctests components/*/tests \
	-type f -perm -u+x ! -name '*.[ch]' ! -name '*.cu' 2>/dev/null | \
	while read -r f; do \
		[ "$$(head -c 4 "$$f" | od -An -c | tr -d ' ')" = 177ELF ] && \
			echo "$$f"; \
	done

# hpc_runtime DIR: what hpcrun's script preloads (libhpcrun.so,
# libmonitor.so), the auditor and the libraries libhpcrun.so loads itself
# (lib/hpctoolkit's), and hpcfnbounds, laid out in DIR as hpcguest
# expects; their libraries come with everyone's (libs.sh).
hpc_runtime = mkdir -p $(1)/lib/hpctoolkit $(1)/libexec/hpctoolkit && \
	cp -P $(HPCTOOLKIT)/lib/hpctoolkit/*.so* $(1)/lib/hpctoolkit/ && \
	cp -P $(HPCTOOLKIT)/deps/libmonitor/lib/libmonitor.so* $(1)/lib/ && \
	cp $(HPCTOOLKIT)/libexec/hpctoolkit/hpcfnbounds \
		$(1)/libexec/hpctoolkit/ && \
	find $(1) -type f -exec $(STRIP) --strip-debug {} +

$(O)/root.stamp: $(PROGRAMS) $(O)/papi/ours.built $(O)/papi/stock.built \
		$(srcdir)/ctests/guest/guest.mk $(TEST_LIST) \
		$(if $(HPC_PROGRAMS),$(HPCTOOLKIT)/BUILT)
	@echo "# guest: assembling the initramfs"
	@rm -rf $(O)/root && mkdir -p $(O)/root/bin $(O)/root/lib \
		$(O)/root/proc $(O)/root/sys $(O)/root/dev $(O)/root/tmp
	@$(STRIP) --strip-debug -o $(O)/root/init $(BIN)/init
	@for p in $(filter-out init,$(notdir $(PROGRAMS))); do \
		$(STRIP) --strip-debug -o $(O)/root/bin/$$p $(BIN)/$$p || exit 1; \
	done
	@for t in ours stock; do \
		d=$(O)/root/papi/$$t; mkdir -p $$d || exit 1; \
		cp -P $(O)/papi/$$t/src/libpapi.so* \
			$(O)/papi/$$t/src/run_tests_exclude.txt $$d/ || exit 1; \
		for p in $$($(call papi_progs,$(O)/papi/$$t)); do \
			mkdir -p $$d/$$(dirname $$p) && \
			$(STRIP) --strip-debug -o $$d/$$p \
				$(O)/papi/$$t/src/$$p || exit 1; \
		done; \
	done
	@$(if $(HPC_PROGRAMS),$(call hpc_runtime,$(O)/root/hpc))
	@bash $(srcdir)/ctests/guest/libs.sh "$(READELF)" $(O)/root \
		$(PFM_LIB) $$($(CC) -print-sysroot)/lib \
		$(if $(HPC_PROGRAMS),$(HPCTOOLKIT)/deps/libmonitor/lib) \
		/usr/$(patsubst %-,%,$(CROSS))/lib $(NATIVE_LIBDIRS)
	@touch $@

$(O)/initrd.cpio.gz: $(O)/root.stamp
	@cd $(O)/root && find . | LC_ALL=C sort | \
		cpio -o -H newc --quiet -R 0:0 | gzip -1 >$@.tmp && mv $@.tmp $@
