# SPDX-License-Identifier: BSD-3-Clause
#
# The test library's files, the one list its three builds read:
# ctests/local.mk (the host's tests), ctests/guest/guest.mk (the arm64
# guest's) and, through scripts/lists.sh, ctests/sanitize/test_asan.sh.
# Names are relative to ctests/lib/.  LOPE_TESTLIB_SRCS are archived
# (liblopetest.a: every C test links it, the linker takes what a test
# uses); LOPE_TESTLIB_INTERPOSE is linked as an object only into the tests
# with the attribute interpose (interpose.h says why), and only those call
# the archive's members that need it (faults.c, papi_interpose.c).
LOPE_TESTLIB_SRCS = \
	attrs.c \
	badinput.c \
	clock.c \
	core_pmu.c \
	faults.c \
	nobody.c \
	papi_interpose.c \
	papi_util.c \
	proc.c \
	report.c \
	rows.c \
	samples.c \
	span.c \
	sw_counter.c \
	target.c \
	tree.c \
	witness.c \
	work.c
LOPE_TESTLIB_INTERPOSE = \
	interpose.c
LOPE_TESTLIB_HDRS = \
	attrs.h \
	badinput.h \
	clock.h \
	core_pmu.h \
	faults.h \
	interpose.h \
	nobody.h \
	papi_interpose.h \
	papi_util.h \
	proc.h \
	report.h \
	rows.h \
	samples.h \
	span.h \
	sw_counter.h \
	target.h \
	tree.h \
	witness.h \
	work.h

# The test library's layers, lowest first, "/" between two, as the
# engine's (src/sources.mk): a file calls only files of lower layers.  The
# interposer is at the bottom: what it defines for libc (read(), ioctl()
# ...) is not a call into it, and it calls nothing of the library; the
# PAPI cases on its counts sit above it and the PAPI helpers.
# ctests/engine/test_layers.sh checks it on the symbols of liblopetest.a
# and interpose.o.
LOPE_TESTLIB_LAYERS = \
	attrs.c clock.c core_pmu.c interpose.c report.c samples.c \
	sw_counter.c tree.c work.c / \
	proc.c rows.c span.c target.c / \
	papi_util.c / \
	nobody.c papi_interpose.c witness.c / \
	badinput.c faults.c
