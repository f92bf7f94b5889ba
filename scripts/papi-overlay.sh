#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# papi-overlay.sh SRCDIR TREE ARCH PAPI_SRC: turn the copy of PAPI's source
# PAPI_SRC at TREE into "ours": our components over PAPI's
# src/components/perf_event* (PAPI's other files there, such as
# pe_libpfm4_events.c, stay), the engine (the files src/sources.mk lists,
# that list, and ARCH's lope_arch.h: x86_64, aarch64, riscv64) in
# src/components/perf_event/lope/, and PAPI's preset table with our
# generic presets' section after it.  Makefile.am does this for
# the host build and ctests/guest/guest.mk for the arm64 one, so both
# build the same tree.
set -eu
[ $# -eq 4 ] || { echo "usage: $0 SRCDIR TREE ARCH PAPI_SRC" >&2; exit 2; }
src=$1 tree=$2 arch=$3 papi=$4
pe=$tree/src/components/perf_event

[ -f "$src/src/arch/$arch/lope_arch.h" ] || {
	echo "papi-overlay.sh: no $src/src/arch/$arch/lope_arch.h" >&2
	exit 1
}
if [ -d "$src/components/perf_event" ]; then
	cp -R "$src/components/perf_event/." "$pe/"
fi
if [ -d "$src/components/perf_event_uncore" ]; then
	cp -R "$src/components/perf_event_uncore/." \
		"$tree/src/components/perf_event_uncore/"
fi
rm -rf "$pe/lope"
mkdir -p "$pe/lope"
srcs=$(sh "$src/scripts/lists.sh" words "$src/src/sources.mk" LOPE_ENGINE_SRCS)
hdrs=$(sh "$src/scripts/lists.sh" words "$src/src/sources.mk" LOPE_ENGINE_HDRS)
# With their times, so that PAPI's make recompiles only what changed.
for f in $srcs $hdrs sources.mk; do
	cp -p "$src/src/$f" "$pe/lope/"
done
cp -p "$src/src/arch/$arch/lope_arch.h" "$pe/lope/"
# From PAPI's own table each time, so a second overlay adds nothing twice;
# an unchanged table keeps its time stamp (nothing is rebuilt for it).
csv=$tree/src/papi_events.csv
cat "$papi/src/papi_events.csv" "$src/components/perf_event/lope_presets.csv" >"$csv.new"
if cmp -s "$csv.new" "$csv"; then
	rm -f "$csv.new"
else
	mv "$csv.new" "$csv"
fi
