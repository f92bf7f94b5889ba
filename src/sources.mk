# SPDX-License-Identifier: BSD-3-Clause
#
# The engine's files, the one list every build of the engine reads:
# components/perf_event/Rules.perf_event (the copy scripts/papi-overlay.sh
# puts next to it in PAPI's tree compiles libpapi's engine and liblope.a,
# which the unit tests link), src/local.mk, the arm64 guest's cross build
# (ctests/guest/guest.mk), and through scripts/lists.sh the sanitizer,
# fuzzing and cross-compile scripts.  Names are relative to src/; the
# per-arch header is src/arch/<arch>/lope_arch.h.
LOPE_ENGINE_SRCS = \
	change.c \
	cores.c \
	group.c \
	guard.c \
	open.c \
	overflow.c \
	park.c \
	probe.c \
	sample.c \
	split.c \
	sys.c \
	sysfs_pmu.c
LOPE_ENGINE_HDRS = \
	cores.h \
	group.h \
	group_layout.h \
	lope.h \
	mmap_read.h \
	overflow.h \
	park.h \
	sample.h \
	split.h \
	sys.h

# The engine's layers, lowest first, "/" between two (doc/design.md): a
# file calls only files of lower layers, never one of its own layer or a
# higher one.  A lower layer reaches up only through what a higher one
# installs: the split module's operations on a group (struct
# lope_split_ops, group_layout.h).  ctests/engine/test_layers.sh checks it
# on the symbols of liblope.a's objects.
LOPE_ENGINE_LAYERS = \
	sys.c guard.c sysfs_pmu.c / \
	cores.c overflow.c park.c sample.c / \
	group.c / \
	open.c / \
	split.c / \
	change.c probe.c
