# SPDX-License-Identifier: BSD-3-Clause
# The engine as a convenience library for the unit tests.  The same sources
# are also copied into PAPI's perf_event component (see Makefile.am).
noinst_LTLIBRARIES += src/liblope.la
src_liblope_la_SOURCES = \
	src/group.c \
	src/overflow.c \
	src/probe.c \
	src/sys.c \
	src/sysfs_pmu.c \
	src/group.h \
	src/lope.h \
	src/mmap_read.h \
	src/sys.h
# Both arch headers are shipped; the build includes the host's one.
noinst_HEADERS += src/arch/x86_64/lope_arch.h src/arch/aarch64/lope_arch.h
LOPE_CPPFLAGS = -I$(srcdir)/src -I$(srcdir)/src/arch/$(LOPE_ARCH)
src_liblope_la_CPPFLAGS = $(LOPE_CPPFLAGS)
src_liblope_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden -O2 -g
