#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_icount.sh: utils/papi_overhead's exact meters (-m exact: callgrind,
# else the hardware instructions counter) do what its man page says.
#   - it runs (exit 0) and prints the per-call table: every call for sets
#     of 1..K events, ours-read, floor and framework as counts, stock as a
#     count or "disabled" (stock's component disabled on this CPU),
#     ours-rdpmc a count or n/a; the rows on new sets and of the k-th read
#     after a start; the raw floor table; seven goals, each met, missed or
#     n/a;
#   - exactness: two more runs (--csv) count the same instructions for
#     every path a call took in both (a path: the calls of a case that made
#     the same system calls; which path a call takes may depend on the
#     clock, as the engine's reuse of a fresh sample does);
#   - --csv: the same number of fields on every line, every call, goals;
#   - -m counter: counts where a hardware instructions counter opens, else
#     exit 77 with the reason;
#   - bad input: exit 2 and a message naming it;
#   - its sources compile for aarch64 (-Werror; SKIP without the cross
#     compiler; ctests/engine/test_format.sh checks their layout).
# Without valgrind the callgrind checks SKIP (the counter meter is
# checked wherever it can count).
#
# Report protocol: ctests/lib/report.h (PASS:/FAIL:/SKIP: lines, "# " info).
set -u

# shellcheck source=../report.sh
. "$(dirname "$0")/../report.sh"

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
ic=$top_builddir/utils/papi_overhead

use_papi_ours
if [ ! -x "$ic" ]; then
	fail setup "$ic is not built"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-icount.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# Few calls per case: every call is counted on its own, exactly.
N=20

# The per-call table of $1: from its header to the footnote.
table() {
	awk '/^call +ev +ours-rdpmc +ours-read +stock +floor +framework/ { on = 1; next }
		/^\(instructions per call/ { on = 0 } on && NF' "$1"
}

# ---- -m exact --------------------------------------------------------------

start=$(date +%s)
timeout -k 5 600 "$ic" -m exact -n $N >"$tmp/run1.out" 2>"$tmp/run1.err"
rc=$?
info "papi_overhead -m exact -n $N: exit $rc in $(($(date +%s) - start)) s; $(grep -m1 'meter' "$tmp/run1.out")"
if [ "$rc" -eq 77 ]; then
	skip icount_runs "no exact meter can count here: $(head -c 300 "$tmp/run1.err")"
	method=none
elif [ "$rc" -ne 0 ]; then
	fail icount_runs "exit $rc: $(head -c 300 "$tmp/run1.err")"
	method=none
else
	pass icount_runs
	method=$(sed -n '1s/.*meter \([a-z]*\).*/\1/p' "$tmp/run1.out")
fi

if [ "$method" != none ]; then
	table "$tmp/run1.out" >"$tmp/t1"
	nev=$(awk '$1 == "PAPI_read" { n++ } END { print n + 0 }' "$tmp/t1")
	if [ "$nev" -ge 1 ]; then
		pass icount_table
	else
		fail icount_table "no PAPI_read row: $(head -3 "$tmp/run1.out" | tr '\n' '|')"
	fi
	# ours-rdpmc: count or n/a; ours-read, floor, framework: counts;
	# stock: a count, or disabled (its component off on this CPU)
	for call in PAPI_start PAPI_stop PAPI_read PAPI_accum PAPI_reset PAPI_read+reset; do
		c=${call,,}
		c=${c//+/_}
		rows=$(awk -v c="$call" '$1 == c && $2 ~ /^[0-9]+$/ &&
			($3 ~ /^[0-9]+\*?$/ || $3 == "n/a") && $4 ~ /^[0-9]+\*?$/ &&
			($5 ~ /^[0-9]+\*?$/ || $5 == "disabled") &&
			$6 ~ /^[0-9]+$/ && $7 ~ /^[0-9]+\*?$/' "$tmp/t1" | wc -l)
		if [ "$rows" -eq "$nev" ]; then
			pass "icount_row_$c"
		else
			fail "icount_row_$c" "$rows of $nev rows complete: $(grep -F "$call " "$tmp/t1" | sed -n 1,2p | tr '\n' '|')"
		fi
	done
	if grep -q '^stock *: not measured: component' "$tmp/run1.out"; then
		info "stock: $(grep -m1 '^stock *: not measured' "$tmp/run1.out")"
	fi
	floor_rows=$(awk '/^raw floor/ { on = 1; next } on && !NF { exit }
		on && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+$/ { n++ }
		END { print n + 0 }' "$tmp/run1.out")
	if [ "$floor_rows" -eq "$nev" ]; then
		pass icount_floor_table
	else
		fail icount_floor_table "$floor_rows of $nev raw floor rows"
	fi
	# the cases on new sets and the k-th read after a start: counts
	rows=$(awk '$1 ~ /^PAPI_(start\/new|read\/(new[12]|[1-8]))$/ &&
		$2 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+\*?$/' "$tmp/t1" | wc -l)
	if [ "$rows" -eq 11 ]; then
		pass icount_rows_new_set_and_kth_read
	else
		fail icount_rows_new_set_and_kth_read "$rows of 11 rows complete"
	fi
	goals=$(grep -Ec '^  (met|missed|n/a) ' "$tmp/run1.out")
	if [ "$goals" -eq 7 ]; then
		pass icount_goals
	else
		fail icount_goals "$goals goal verdicts (want 7)"
	fi

	# ---- exactness: the same counts again -------------------------------
	# A call whose path depends on the clock (the engine's reuse of a
	# fresh sample) takes one path or another from run to run; each path,
	# known by the system calls its calls made, must count the same
	# instructions every time.  --csv has one line per path.

	# (--fair-sched=yes: valgrind's lock reads no pipe, so the system
	# calls that tell the paths apart are the program's alone)
	VALGRIND_OPTS="${VALGRIND_OPTS:+$VALGRIND_OPTS }--fair-sched=yes" \
		"$ic" -m exact -n $N --csv >"$tmp/a.csv" 2>"$tmp/a.err"
	rc_a=$?
	VALGRIND_OPTS="${VALGRIND_OPTS:+$VALGRIND_OPTS }--fair-sched=yes" \
		"$ic" -m exact -n $N --csv >"$tmp/b.csv" 2>"$tmp/b.err"
	rc_b=$?
	# path,METER,COLUMN,TARGET,CALL,EVENTS,CALLS,VALUE,,MIN,MAX,,,,,SYSCALLS
	# -> key MIN MAX
	paths() { awk -F, '$1 == "path" { print $3 "/" $4 "/" $5 "/" $6 "/" $16, $10, $11 }' "$1" | sort; }
	paths "$tmp/a.csv" >"$tmp/pa"
	paths "$tmp/b.csv" >"$tmp/pb"
	join "$tmp/pa" "$tmp/pb" >"$tmp/pj"
	differ=$(awk '$2 != $4 || $3 != $5' "$tmp/pj")
	ncases=$(awk -F, '$1 == "case" && $4 != "null" && $8 != ""' "$tmp/a.csv" | wc -l)
	nsame=$(cut -d/ -f1-4 "$tmp/pj" | sort -u | wc -l)
	info "exactness: $(wc -l <"$tmp/pj") paths of $nsame cases seen in both runs (of $ncases measured); $(awk '$2 != $3' "$tmp/pa" | wc -l) paths whose calls differed"
	if [ "$rc_a" -ne 0 ] || [ "$rc_b" -ne 0 ]; then
		fail icount_exact "--csv runs: exit $rc_a, $rc_b: $(head -c 150 "$tmp/a.err") $(head -c 150 "$tmp/b.err")"
	elif [ "$method" != callgrind ]; then
		skip icount_exact "meter $method: exact only where the machine is (the icount guest)"
	elif [ "$nsame" -lt $((ncases * 9 / 10)) ]; then
		fail icount_exact "only $nsame of $ncases cases took a same path in both runs"
	elif [ -n "$differ" ]; then
		fail icount_exact "the same path counted differently: $(echo "$differ" | sed -n 1,3p | tr '\n' '|')"
	else
		pass icount_exact
	fi
fi

# ---- --csv ----------------------------------------------------------------

if [ "$method" != none ]; then
	fields=$(csv_field_counts "$tmp/a.csv")
	calls=$(awk -F, '$1 == "case" && $4 == "papi" { print $5 }' "$tmp/a.csv" | sort -u | wc -l)
	ngoals=$(grep -c '^goal,' "$tmp/a.csv")
	npaths=$(grep -c '^path,' "$tmp/a.csv")
	info "csv: $(wc -l <"$tmp/a.csv") lines ($npaths paths), fields per line: $fields"
	if [ "${fields% }" != 18 ]; then
		fail icount_csv "fields per line differ: $fields (want 18 on every line)"
	elif [ "$calls" -ne 19 ] || [ "$ngoals" -ne 7 ] || [ "$npaths" -lt 1 ]; then
		fail icount_csv "$calls calls, $ngoals goals, $npaths paths (want 19, 7, some)"
	else
		pass icount_csv
	fi
fi

# ---- the counter method -----------------------------------------------------

"$ic" -m counter -n 3 -k 2 >"$tmp/cnt.out" 2>"$tmp/cnt.err"
rc=$?
if [ "$rc" -eq 77 ] && grep -q 'meter counter cannot count here' "$tmp/cnt.err"; then
	info "$(head -c 300 "$tmp/cnt.err")"
	pass icount_counter_refused
elif [ "$rc" -eq 0 ] && table "$tmp/cnt.out" | grep '^PAPI_read ' >/dev/null; then
	pass icount_counter_counts
else
	fail icount_counter "want exit 0 with a table, or 77 with the reason; exit $rc: $(head -c 300 "$tmp/cnt.err")"
fi

# ---- bad input ------------------------------------------------------------

mkdir -p "$tmp/nolib"
# name | arguments | text the message must contain
expect_bad_inputs "$ic" icount "$tmp" <<EOF
n_zero|-n 0|-n: '0'
k_nine|-k 9|-k: '9'
method|-m bogus|-m 'bogus'
empty_event|-e perf::TASK-CLOCK,,|-e 'perf::TASK-CLOCK,,'
compare_no_libpapi|--compare $tmp/nolib|no libpapi
keep_missing|--keep $tmp/no/such/dir|--keep
operand|stray|unknown option 'stray'
EOF
if [ "$method" != none ]; then
	"$ic" -m exact -n 3 -e LOPE_NO_SUCH_EVENT >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	if [ "$rc" -eq 2 ] && grep -qF LOPE_NO_SUCH_EVENT "$tmp/bad.err"; then
		pass icount_bad_unknown_event
	else
		fail icount_bad_unknown_event "want exit 2 naming the event, got exit $rc: $(head -c 200 "$tmp/bad.err")"
	fi
fi

# ---- the arm64 build --------------------------------------------------------

# It runs in the emulated arm64 machine (counter meter, mrs reads): it
# must compile there, warnings as errors, against the same PAPI headers.
xcc=${LOPE_CROSS_CC:-aarch64-linux-gnu-gcc}
if ! command -v "$xcc" >/dev/null 2>&1; then
	skip icount_cross_aarch64 "cross compiler not installed ($xcc)"
elif (cd "$top_srcdir" && for f in utils/overhead/*.c; do
	"$xcc" -std=gnu11 -O2 -Wall -Wextra -Werror -I"$PAPI_OURS_BUILDDIR" \
		-Isrc -Isrc/arch/aarch64 -DOSLOCK='"linux-lock.h"' \
		-DOSCONTEXT='"linux-context.h"' -DPAPI_NUM_COMP=3 \
		-c "$f" -o "$tmp/x.o" || exit 1
done) >"$tmp/xcc.err" 2>&1; then
	pass icount_cross_aarch64
else
	fail icount_cross_aarch64 "$(grep -m1 -E 'error|warning' "$tmp/xcc.err")"
fi

exit $((nfail > 0))
