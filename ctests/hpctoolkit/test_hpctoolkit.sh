#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-tests.sh: timeout 3000
#
# test_hpctoolkit.sh: HPCToolkit 2024.01.1, built from its release
# tarballs (build-hpctoolkit.sh, against Debian's PAPI, cached), samples
# through our libpapi for real (doc/hpctoolkit.md):
#   - hpcrun -L with our libpapi preloaded lists our components' events:
#     perf_event's (perf::TASK-CLOCK), and where the kernel has the msr
#     PMU, msr::tsc, which our perf_event_uncore takes from sysfs;
#   - which libpapi hpcrun loads: hpcrun puts the PAPI it was configured
#     with first in LD_LIBRARY_PATH, so LD_LIBRARY_PATH=ours (and `module
#     load lope`) loads that one (checked: the program's own maps say so);
#     LD_PRELOAD of ours loads ours;
#   - sampling on software events, ours and stock side by side on the
#     same program (hpc_loop.c: each thread spins in one loop for 400 ms
#     of its CPU time): one event (perf::TASK-CLOCK every 1 ms), two
#     (and perf::CPU-CLOCK every 2 ms, a whole ratio: the kernel drops the
#     second clock's samples in the first one's signal delivery), two
#     threads; after hpcstruct and hpcprof, per thread and event, ours has
#     floor(loop / period) samples at least (less two) and floor(task-clock
#     / period) at most (plus two: the thread's own task-clock, which runs
#     ahead of its CPU time by what the host steals), on the loop's two
#     lines all but those of the thread's time outside the loop
#     (hpcdb_lines.py reads the database with HPCToolkit's own reader);
#     stock's are printed, not judged (doc/hpctoolkit.md has them).
# Where the tarballs are missing (build-hpctoolkit.sh exits 3), on
# another architecture than x86-64, or without python3-ruamel.yaml, every
# case is a SKIP saying why.  The build waits for one already running
# (scripts/test.sh starts it in the background).
#
# Environment: LOPE_HPCTOOLKIT_CACHE (default LOPE_QEMU_CACHE's value,
# /var/cache/lope), where the build is kept; LOPE_HPCTOOLKIT=PREFIX, an HPCToolkit to use as it
# is, or 0: none, every case a SKIP (scripts/test.sh then builds none).
#
# Report protocol: ctests/lib/report.h (PASS:/FAIL:/SKIP: lines, "# " info).
set -u

# shellcheck source=../report.sh
. "$(dirname "$0")/../report.sh"

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
here=$top_srcdir/ctests/hpctoolkit
ours=${PAPI_OURS_BUILDDIR:-$top_srcdir/papi/ours/src}/libpapi.so.7.0
stock=${PAPI_STOCK_BUILDDIR:-$top_srcdir/papi/stock/src}/libpapi.so.7.0
cases="hpcrun_list hpcrun_ld_library_path hpcrun_ld_preload
sampling_one_event sampling_two_events sampling_two_threads"
LOOP_MS=400
FIRST_LINE=$(grep -n 'hot_loop: begin' "$here/hpc_loop.c" | cut -d: -f1)
LAST_LINE=$(grep -n 'hot_loop: end' "$here/hpc_loop.c" | cut -d: -f1)

skip_all() {
	local c
	for c in $cases; do
		skip "$c" "$1"
	done
	exit 0
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "${LOPE_HPCTOOLKIT:-}" = 0 ]; then
	skip_all "LOPE_HPCTOOLKIT=0"
elif [ -n "${LOPE_HPCTOOLKIT:-}" ]; then
	prefix=$LOPE_HPCTOOLKIT
	info "HPCToolkit: $prefix (LOPE_HPCTOOLKIT)"
else
	t0=$(date +%s)
	prefix=$("$here/build-hpctoolkit.sh" \
		"${LOPE_HPCTOOLKIT_CACHE:-${LOPE_QEMU_CACHE:-/var/cache/lope}}" \
		2>"$tmp/build.err")
	rc=$?
	if [ "$rc" -eq 3 ]; then
		skip_all "$(tail -n 1 "$tmp/build.err")"
	elif [ "$rc" -ne 0 ] || [ ! -x "$prefix/bin/hpcrun" ]; then
		fail hpctoolkit_build "exit $rc: $(tail -n 5 "$tmp/build.err" | tr '\n' ' ' | cut -c1-400)"
		exit 1
	fi
	pass hpctoolkit_build "$prefix in $(($(date +%s) - t0)) s (built or waited for; built once, then cached)"
fi
pythonlib=$prefix/lib/python
if ! /usr/bin/python3 -c 'import ruamel.yaml' 2>/dev/null; then
	skip_all "hpcdb_lines.py needs ruamel.yaml (Debian: python3-ruamel.yaml; scripts/install-deps.sh installs it)"
fi
if [ ! -f "$pythonlib/hpctesttool/formats/__init__.py" ]; then
	fail setup "$pythonlib: no hpctesttool (HPCToolkit's database reader)"
	exit 1
fi
for lib in "$ours" "$stock"; do
	if [ ! -e "$lib" ]; then
		fail setup "$lib is not built"
		exit 1
	fi
done
if ! cc -O1 -g -pthread -I"$here/../lib" -o "$tmp/hpc_loop" "$here/hpc_loop.c" \
	"$here/../lib/span.c" "$here/../lib/report.c" 2>"$tmp/cc.err"; then
	fail setup "hpc_loop.c: $(head -c 300 "$tmp/cc.err")"
	exit 1
fi
ours_real=$(readlink -f "$ours")

# ---- hpcrun -L --------------------------------------------------------------

LD_PRELOAD=$ours "$prefix/bin/hpcrun" -L >"$tmp/L" 2>&1
rc=$?
want="perf::TASK-CLOCK"
if [ -e /sys/bus/event_source/devices/msr/events/tsc ]; then
	want="$want msr::tsc"
fi
missing=
for ev in $want; do
	grep -q "^$ev\\b" "$tmp/L" || missing="$missing $ev"
done
sections=$(grep -c '^Native events in component perf_event' "$tmp/L")
if [ "$rc" -eq 0 ] && [ -z "$missing" ] && [ "$sections" -ge 1 ]; then
	pass hpcrun_list "lists $want ($sections of our components' sections)"
else
	fail hpcrun_list "exit $rc, missing:${missing:- none}, $sections sections: $(head -c 300 "$tmp/L")"
fi

# ---- which libpapi hpcrun loads ---------------------------------------------

# run NAME EVENTS... -- hpc_loop ARGS: hpcrun into $tmp/NAME.m, the
# program's output into $tmp/NAME.out; the environment is the caller's.
run() {
	local name=$1 ev=()
	shift
	while [ "$1" != -- ]; do
		ev+=(-e "$1")
		shift
	done
	shift
	"$prefix/bin/hpcrun" "${ev[@]}" -o "$tmp/$name.m" \
		"$tmp/hpc_loop" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
}

# LD_LIBRARY_PATH names ours (run-tests.sh sets it so): hpcrun's own
# setting comes first.
run llp papi::perf::TASK-CLOCK@1000000 -- 1 20
rc=$?
got=$(sed -n 's/^libpapi //p' "$tmp/llp.out")
# hpcrun's configured PAPI is Debian's: where Debian's own PAPI tools
# cannot name the event either (its perf_event component disabled, as
# under LIBPFM_FORCE_PMU=perf), hpcrun stops before the program runs.
debian_has_event() {
	local out
	command -v papi_native_avail >/dev/null || return 0
	out=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD papi_native_avail \
		-e perf::TASK-CLOCK 2>&1)
	[ "$(grep -c '^Event name:' <<<"$out")" -gt 0 ]
}
# Debian's perf_event component's state, as its papi_component_avail says.
debian_perf_event() {
	local out
	out=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD papi_component_avail 2>&1)
	awk '$2 == "perf_event" { getline; sub(/^ *\\-> /, ""); print; exit }' <<<"$out"
}
if [ "$rc" -eq 0 ] && [ -n "$got" ] && [ "$(readlink -f "$got")" != "$ours_real" ]; then
	pass hpcrun_ld_library_path "LD_LIBRARY_PATH=$(dirname "$ours") loads $got: hpcrun puts its configured PAPI first"
elif [ "$rc" -ne 0 ] && [ -z "$got" ] && ! debian_has_event; then
	skip hpcrun_ld_library_path "hpcrun's configured PAPI (Debian's) does not know perf::TASK-CLOCK here: $(debian_perf_event)"
else
	fail hpcrun_ld_library_path "exit $rc, loaded ${got:-nothing} (ours is $ours_real): $(head -c 300 "$tmp/llp.err")"
fi
LD_PRELOAD=$ours run pre papi::perf::TASK-CLOCK@1000000 -- 1 20
rc=$?
got=$(sed -n 's/^libpapi //p' "$tmp/pre.out")
if [ "$rc" -eq 0 ] && [ "$(readlink -f "$got")" = "$ours_real" ]; then
	pass hpcrun_ld_preload "LD_PRELOAD=$ours loads it"
else
	fail hpcrun_ld_preload "exit $rc, loaded ${got:-nothing}: $(head -c 300 "$tmp/pre.err")"
fi

# ---- sampling ---------------------------------------------------------------

# profile NAME: hpcstruct and hpcprof on $tmp/NAME.m, then the database's
# per thread and event "thread T EVENT total V lines V" into $tmp/NAME.db.
profile() {
	"$prefix/bin/hpcstruct" "$tmp/$1.m" >"$tmp/$1.struct" 2>&1 &&
		"$prefix/bin/hpcprof" -o "$tmp/$1.d" "$tmp/$1.m" \
			>"$tmp/$1.prof" 2>&1 &&
		PYTHONPATH=$pythonlib /usr/bin/python3 "$here/hpcdb_lines.py" \
			"$tmp/$1.d" hpc_loop.c "$FIRST_LINE" "$LAST_LINE" \
			>"$tmp/$1.db" 2>"$tmp/$1.dberr"
}

# judge CASE NAME THREADS EVENT@PERIOD...: each thread's samples of each
# event against its loop and CPU time (hpc_loop's lines), all on the loop.
judge() {
	local case=$1 name=$2 threads=$3 why='' t spec ev p loop cpu clock v lines n
	shift 3
	for ((t = 0; t < threads; t++)); do
		read -r loop cpu clock < <(sed -n "s/^thread $t: loop \\([0-9]*\\) cpu \\([0-9]*\\) clock \\([0-9]*\\)$/\\1 \\2 \\3/p" "$tmp/$name.out")
		for spec in "$@"; do
			ev=${spec%@*}
			ev=${ev#papi::}
			p=${spec#*@}
			read -r v lines < <(awk -v t="$t" -v e="$ev" '$1 == "thread" && $2 == t && $3 == e { print $5, $7 }' "$tmp/$name.db")
			if [ -z "${v:-}" ] || [ -z "${clock:-}" ]; then
				why="$why thread $t $ev: no samples or no times;"
				continue
			fi
			n=$((v / p))
			info "$name thread $t $ev: $n samples ($((lines / p)) on the loop's lines) for $loop ns of the loop, $cpu ns of CPU, $clock ns of task-clock, period $p"
			# off the loop: at most the periods of the thread's
			# time outside it (hpcrun's start, the thread's own)
			if [ "$n" -lt $((loop / p - 2)) ] || [ "$n" -gt $((clock / p + 2)) ] ||
				[ $(((v - lines) / p)) -gt $(((cpu - loop) / p + 2)) ]; then
				why="$why thread $t $ev: $n samples, $((lines / p)) on the loop, want $((loop / p - 2)) to $((clock / p + 2)), all but $(((cpu - loop) / p + 2)) at most on the loop;"
			fi
		done
	done
	[ -z "$case" ] && return 0
	if [ -z "$why" ]; then
		pass "$case"
	else
		fail "$case" "$why"
	fi
}

sample_case() { # sample_case CASE THREADS EVENT@PERIOD...
	local case=$1 threads=$2 lib path rc
	shift 2
	for lib in ours stock; do
		path=$ours
		[ "$lib" = ours ] || path=$stock
		LD_PRELOAD=$path run "$case.$lib" "$@" -- "$threads" "$LOOP_MS"
		rc=$?
		if [ "$rc" -ne 0 ] || ! profile "$case.$lib"; then
			if [ "$lib" = ours ]; then
				fail "$case" "hpcrun exit $rc, or hpcstruct, hpcprof or the reader failed: $(cat "$tmp/$case.$lib.err" "$tmp/$case.$lib.struct" "$tmp/$case.$lib.prof" "$tmp/$case.$lib.dberr" 2>/dev/null | tail -n 5 | tr '\n' ' ' | cut -c1-400)"
				return
			fi
			info "stock: hpcrun exit $rc, or no database"
			continue
		fi
		if [ "$lib" = ours ]; then
			judge "$case" "$case.$lib" "$threads" "$@"
		else
			judge "" "$case.$lib" "$threads" "$@"
		fi
	done
}

sample_case sampling_one_event 1 papi::perf::TASK-CLOCK@1000000
sample_case sampling_two_events 1 papi::perf::TASK-CLOCK@1000000 \
	papi::perf::CPU-CLOCK@2000000
sample_case sampling_two_threads 2 papi::perf::TASK-CLOCK@1000000 \
	papi::perf::CPU-CLOCK@2000000
