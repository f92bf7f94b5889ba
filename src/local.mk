# SPDX-License-Identifier: BSD-3-Clause
# The engine.  Its files are listed once, in src/sources.mk; it is
# compiled once, inside PAPI's tree (components/perf_event/Rules.perf_event,
# with PAPI's flags and ours), into libpapi and into liblope.a, which the
# engine's unit tests link: they test the objects PAPI ships.
include src/sources.mk
LOPE_ENGINE_LIB = $(PAPI_OURS_BUILDDIR)/liblope.a
EXTRA_DIST += src/sources.mk
noinst_HEADERS += $(addprefix src/,$(LOPE_ENGINE_HDRS)) \
	src/arch/x86_64/lope_arch.h src/arch/aarch64/lope_arch.h \
	src/arch/riscv64/lope_arch.h
EXTRA_DIST += $(addprefix src/,$(LOPE_ENGINE_SRCS))
# Every arch header is shipped; the build includes the host's one.
LOPE_CPPFLAGS = -I$(srcdir)/src -I$(srcdir)/src/arch/$(LOPE_ARCH)
