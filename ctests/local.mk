# SPDX-License-Identifier: BSD-3-Clause
#
# The tests, from the one list ctests/tests.list (read with
# scripts/lists.sh, as the scripts read it).  Included from Makefile.am;
# paths are relative to the top directory.  GNU make: the list is read by
# $(shell ...) on every make, and the C tests are built by the pattern
# rules below, not as automake programs, so that a new test is its .c
# file and one line in the list.
#
#   make check                          builds and runs every test
#   make check TESTS=ctests/papi/test_x builds and runs that one
#   make check TESTS="ctests/papi/test_x ctests/papi/test_y.sh"
#                                       builds and runs those
#   make ctests/papi/test_x             builds one
#
# C tests: ctests/engine/X from X.c with the engine (liblope.a from PAPI's
# tree); ctests/papi/X from X.c against our libpapi.so.  Every one links
# the test library (ctests/lib, its files in ctests/lib/sources.mk:
# liblopetest.a) and, with the attribute interpose, its system-call
# interposer (ctests/lib/interpose.o).  Objects track their headers
# (-MMD -MP).  The libraries PAPI's make builds are
# order-only prerequisites of its stamp (Makefile.am), so nothing is
# rebuilt or relinked that did not change.

LOPE_TEST_LIST = $(srcdir)/ctests/tests.list
lope_tests_with = $(shell $(SHELL) $(srcdir)/scripts/lists.sh tests \
	$(LOPE_TEST_LIST) $(1))
LOPE_TESTS := $(call lope_tests_with)
LOPE_TESTS_VALGRIND := $(call lope_tests_with,valgrind)
LOPE_TESTS_INTERPOSE := $(call lope_tests_with,interpose)
LOPE_C_TESTS := $(filter-out %.sh,$(LOPE_TESTS))
LOPE_ENGINE_TESTS := $(filter ctests/engine/%,$(LOPE_C_TESTS))
LOPE_PAPI_TESTS := $(filter ctests/papi/%,$(LOPE_C_TESTS))
$(if $(filter-out $(LOPE_ENGINE_TESTS) $(LOPE_PAPI_TESTS),$(LOPE_C_TESTS)),\
	$(error ctests/tests.list: C tests outside ctests/engine and ctests/papi: \
	$(filter-out $(LOPE_ENGINE_TESTS) $(LOPE_PAPI_TESTS),$(LOPE_C_TESTS))))

include ctests/lib/sources.mk
LOPE_TESTLIB = ctests/lib/liblopetest.a
LOPE_TESTLIB_OBJS = $(addprefix ctests/lib/,$(LOPE_TESTLIB_SRCS:.c=.o))
LOPE_TESTLIB_INTERPOSE_OBJ = ctests/lib/$(LOPE_TESTLIB_INTERPOSE:.c=.o)
LOPE_TEST_CPPFLAGS = -I$(srcdir)/ctests/lib
LOPE_TEST_LIBS = -lpthread -lm -ldl
LOPE_TEST_OBJS = $(addsuffix .o,$(LOPE_C_TESTS)) $(LOPE_TESTLIB_OBJS) \
	$(LOPE_TESTLIB_INTERPOSE_OBJ)

# Compile: automake's $(COMPILE) (our warnings, the user's CFLAGS), with
# the engine's headers for its tests and papi.h of our PAPI build for the
# others and the library, which the stamp makes first.
ctests/lib/%.o: ctests/lib/%.c | papi-ours.stamp
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(COMPILE) $(PAPI_OURS_CPPFLAGS) $(LOPE_TEST_CPPFLAGS) \
		-MMD -MP -c -o $@ $<
$(LOPE_TESTLIB): $(LOPE_TESTLIB_OBJS)
	$(AM_V_GEN)rm -f $@ && $(AR) crs $@ $(LOPE_TESTLIB_OBJS)
ctests/engine/%.o: ctests/engine/%.c
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(COMPILE) $(LOPE_CPPFLAGS) $(LOPE_TEST_CPPFLAGS) \
		-MMD -MP -c -o $@ $<
ctests/papi/%.o: ctests/papi/%.c | papi-ours.stamp
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(COMPILE) $(PAPI_OURS_CPPFLAGS) $(LOPE_TEST_CPPFLAGS) \
		-MMD -MP -c -o $@ $<

$(LOPE_TESTS_INTERPOSE): $(LOPE_TESTLIB_INTERPOSE_OBJ)
$(LOPE_ENGINE_TESTS): %: %.o $(LOPE_TESTLIB) $(LOPE_ENGINE_LIB)
	$(AM_V_CCLD)$(LINK) $(filter %.o,$^) $(LOPE_TESTLIB) \
		$(LOPE_ENGINE_LIB) $(LOPE_TEST_LIBS)
$(LOPE_PAPI_TESTS): %: %.o $(LOPE_TESTLIB) $(PAPI_OURS_LIBSO)
	$(AM_V_CCLD)$(LINK) $(filter %.o,$^) $(LOPE_TESTLIB) \
		$(PAPI_OURS_LIBSO) $(LOPE_TEST_LIBS)

-include $(LOPE_TEST_OBJS:.o=.d)
CLEANFILES += $(LOPE_C_TESTS) $(LOPE_TEST_OBJS) \
	$(LOPE_TEST_OBJS:.o=.d) $(LOPE_TESTLIB)

# What `make check` runs (TESTS, else the whole list), and the programs it
# builds first: those it runs, and for test_valgrind.sh those it runs
# under memcheck (test_asan.sh and the guest build their own).
LOPE_CHECK = $(or $(TESTS),$(LOPE_TESTS))
LOPE_CHECK_BUILD = $(filter $(LOPE_C_TESTS),$(LOPE_CHECK) \
	$(if $(filter %/test_valgrind.sh,$(LOPE_CHECK)),$(LOPE_TESTS_VALGRIND)))
# test_layers.sh reads the test library's objects.
LOPE_CHECK_BUILD += $(if $(filter %/test_layers.sh,$(LOPE_CHECK)),\
	$(LOPE_TESTLIB) $(LOPE_TESTLIB_INTERPOSE_OBJ))

check-local: papi-ours.stamp papi-stock.stamp $(LOPE_CHECK_BUILD)
	@cd $(top_builddir) && \
	PAPI_OURS_BUILDDIR="$(PAPI_OURS_BUILDDIR)" \
	PAPI_STOCK_BUILDDIR="$(PAPI_STOCK_BUILDDIR)" \
	top_builddir="$(abs_top_builddir)" top_srcdir="$(abs_top_srcdir)" \
	LOPE_SRCDIR="$(abs_top_srcdir)" \
	bash "$(abs_top_srcdir)/ctests/run-tests.sh" $(LOPE_CHECK)

EXTRA_DIST += ctests/tests.list ctests/run-tests.sh ctests/core_pmu.sh ctests/report.sh \
	ctests/lib/sources.mk \
	$(addprefix ctests/lib/,$(LOPE_TESTLIB_SRCS) \
		$(LOPE_TESTLIB_INTERPOSE) $(LOPE_TESTLIB_HDRS)) \
	$(addsuffix .c,$(LOPE_C_TESTS)) $(filter %.sh,$(LOPE_TESTS)) \
	.clang-format \
	ctests/mpi/test_mpi_ranks.c ctests/mpi/mpi_ranks.sh \
	ctests/papi/job_report.sh \
	ctests/sanitize/asan.supp ctests/sanitize/lsan.supp \
	ctests/sanitize/valgrind.supp \
	ctests/fuzz/fuzz_mmap_read.c ctests/fuzz/fuzz_sysfs_pmu.c \
	ctests/fuzz/fuzz_sysfs_pmu.dict ctests/fuzz/corpus
