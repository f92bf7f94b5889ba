#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_utils.sh: the measurement utilities utils/papi_overhead and
# utils/papi_accuracy do what their man pages say.
#   papi_overhead (its timer meter; test_icount.sh checks the exact
#     ones): no arguments -> exit 0 within 60 s, every call row (start,
#     stop, read, accum, reset, read+reset) for each set of 1 to K >= 2
#     events (the scaling) with the ours-rdpmc / ours-read / stock / floor
#     columns, the rows on new sets (start, first and second read, with
#     their minor faults) and of the k-th read after a start, the
#     sampling table (a cost per sample for each set size), the goals;
#     --plot writes a PNG (signature checked); --compare the stock build
#     prints ours/stock ratios; --csv has the same number of fields on
#     every line and every kind of case; each bad input (unknown event,
#     an event name with a line break, -n 0, an unwritable --plot path, a
#     --compare directory without libpapi, an --ours or --compare
#     libpapi for another machine, which the loader passes over) gives a
#     message and a non-zero exit.
#   papi_accuracy: without a core PMU it exits 77 and says why; with one
#     it prints its tables and the hardware check of the loop benchmark
#     (min count(N2) - min count(N1) = 3 (N2 - N1)) says ok (else SKIP);
#     --check-loop single-steps the loop with ptrace: 1+3N instructions
#     (needs no PMU); bad input exits 2 with a message (an --ours
#     libpapi for another machine: the path fails, saying so).
#   Both tools' sources (utils/overhead/, utils/accuracy/) are
#   clang-format clean (SKIP without clang-format).
#
# Report protocol: ctests/lib/report.h (PASS:/FAIL:/SKIP: lines, "# " info).
set -u

# shellcheck source=../report.sh
. "$(dirname "$0")/../report.sh"

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
ovh=$top_builddir/utils/papi_overhead
acc=$top_builddir/utils/papi_accuracy

use_papi_ours
for p in "$ovh" "$acc"; do
	if [ ! -x "$p" ]; then
		fail setup "$p is not built"
		exit 1
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-utils.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=../core_pmu.sh
. "$(dirname "$0")/../core_pmu.sh"
if core_pmu >/dev/null; then
	have_pmu=1
else
	have_pmu=0
fi

# ---- papi_overhead, no arguments ----------------------------------------

# 5 to 9 s on a quiet 2-core machine, over 60 s with its cores busy:
# the limit only catches a hang.
start=$(date +%s)
timeout -k 5 600 "$ovh" >"$tmp/default.out" 2>"$tmp/default.err"
rc=$?
elapsed=$(($(date +%s) - start))
info "papi_overhead (no arguments): exit $rc in ${elapsed}s"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	fail overhead_default_runs "killed after 600 s"
elif [ "$rc" -ne 0 ]; then
	fail overhead_default_runs "exit $rc: $(head -c 300 "$tmp/default.err")"
else
	pass overhead_default_runs
fi

# The per-call table: from its header to the raw floor section.
awk '/^call +ev +ours-rdpmc +ours-read +stock +floor/ { on = 1; next }
	/^raw floor/ { on = 0 } on && NF' "$tmp/default.out" >"$tmp/table"
if grep -Eq '^call +ev +ours-rdpmc +ours-read +stock +floor' "$tmp/default.out"; then
	pass overhead_default_columns
else
	fail overhead_default_columns "no header with ours-rdpmc, ours-read, stock, floor"
fi
# Every call, for each set of 1 to K events: rdpmc is a number or n/a,
# ours-read and floor numbers.
for call in PAPI_start PAPI_stop PAPI_read PAPI_accum PAPI_reset PAPI_read+reset; do
	c=${call,,}
	c=${c//+/_}
	rows=$(awk -v c="$call" '$1 == c && $2 ~ /^[0-9]+$/ &&
		($3 ~ /^[0-9]+$/ || $3 == "n/a") && $4 ~ /^[0-9]+$/ &&
		$6 ~ /^[0-9]+$/' "$tmp/table" | wc -l)
	if [ "$rows" -ge 2 ]; then
		pass "overhead_default_row_$c"
	else
		fail "overhead_default_row_$c" "$rows complete row(s) (want one per set size): $(grep -F "$call " "$tmp/table" | sed -n 1,2p | tr '\n' '|')"
	fi
done
# The rows on new sets (first read) and of the k-th read after a start
# (repeated reads): a number in the ours-read column; then the goals.
# name ; rows (awk pattern on the label) ; how many
while IFS=';' read -r name pat want; do
	rows=$(awk -v p="$pat" '$1 ~ p && $2 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+$/' "$tmp/table" | wc -l)
	if [ "$rows" -eq "$want" ]; then
		pass "overhead_default_section_$name"
	else
		fail "overhead_default_section_$name" "$rows of $want rows /$pat/ complete"
	fi
done <<'EOF2'
first;^PAPI_(start/new|read/new[12])$;3
repeated;^PAPI_read/[1-8]$;8
EOF2
# The sampling table: a row per set size, ours counted.
nsample=$(awk '/^sampling \(/ { on = 1; next } /^goals/ { on = 0 }
	on && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { n++ } END { print n + 0 }' \
	"$tmp/default.out")
if [ "$nsample" -ge 2 ]; then
	pass overhead_default_section_sampling
else
	fail overhead_default_section_sampling "$nsample set sizes with a cost per sample: $(grep -A6 '^sampling (' "$tmp/default.out" | tr '\n' ' ' | cut -c1-300)"
fi
if grep -Eq '^goals' "$tmp/default.out"; then
	pass overhead_default_section_goals
else
	fail overhead_default_section_goals "no line matching '^goals'"
fi
# Scaling: PAPI_read rows of sets of 1..k, k >= 2.
nscale=$(awk '$1 == "PAPI_read" && $2 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+$/' "$tmp/table" | wc -l)
if [ "$nscale" -ge 2 ]; then
	pass overhead_default_scaling_rows
else
	fail overhead_default_scaling_rows "$nscale set sizes measured"
fi
# ours, and stock unless its component is disabled here ("-")
if grep -Eq '^faults +: minor faults per call on new sets .*ours-read [0-9.]+/[0-9.]+/[0-9.]+' "$tmp/default.out"; then
	pass overhead_default_cold_faults
else
	fail overhead_default_cold_faults "no page-fault count for the cold read: $(grep -F 'faults' "$tmp/default.out" | sed -n 1,1p)"
fi

# ---- --plot ---------------------------------------------------------------

if ! command -v gnuplot >/dev/null 2>&1; then
	skip overhead_plot_png "gnuplot not installed (Debian: gnuplot-nox)"
else
	"$ovh" -n 200 -r 1 --plot "$tmp/o.png" >"$tmp/plot.out" 2>"$tmp/plot.err"
	rc=$?
	sig=$(head -c 8 "$tmp/o.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
	if [ "$rc" -ne 0 ]; then
		fail overhead_plot_png "exit $rc: $(head -c 300 "$tmp/plot.err")"
	elif [ ! -s "$tmp/o.png" ]; then
		fail overhead_plot_png "$tmp/o.png missing or empty"
	elif [ "$sig" != 89504e470d0a1a0a ]; then
		fail overhead_plot_png "not a PNG (first bytes $sig)"
	else
		info "plot: $(wc -c <"$tmp/o.png") bytes"
		pass overhead_plot_png
	fi
fi

# ---- --compare ----------------------------------------------------------

if [ -z "${PAPI_STOCK_BUILDDIR:-}" ] || [ ! -d "$PAPI_STOCK_BUILDDIR" ]; then
	skip overhead_compare_ratios "PAPI_STOCK_BUILDDIR not set: no stock build"
else
	"$ovh" -n 200 -r 1 --compare "$PAPI_STOCK_BUILDDIR" >"$tmp/cmp.out" 2>"$tmp/cmp.err"
	rc=$?
	# ours/stock is the 8th field of a PAPI_read row of the table
	ratios=$(awk '/^call +ev/ { on = 1; next } /^raw floor/ { on = 0 }
		on && $1 == "PAPI_read" && $5 ~ /^[0-9]+$/ &&
		$8 ~ /^[0-9]+\.[0-9]+$/ { n++ } END { print n + 0 }' "$tmp/cmp.out")
	disabled=$(awk '/^call +ev/ { on = 1; next } /^raw floor/ { on = 0 }
		on && $1 == "PAPI_read" && $5 == "disabled" { n++ }
		END { print n + 0 }' "$tmp/cmp.out")
	if [ "$rc" -ne 0 ]; then
		fail overhead_compare_ratios "exit $rc: $(head -c 300 "$tmp/cmp.err")"
	elif grep -q '^stock *: not measured: component perf_event disabled' "$tmp/cmp.out"; then
		# Stock's libpfm4 does not know this CPU: it says so, no ratio.
		if [ "$ratios" -eq 0 ] && [ "$disabled" -ge 2 ]; then
			info "stock: $(grep -m1 '^stock *: not measured' "$tmp/cmp.out")"
			pass overhead_compare_stock_disabled_said
		else
			fail overhead_compare_stock_disabled_said "$ratios ratios, $disabled PAPI_read rows say disabled"
		fi
	elif ! grep -q "^stock *: $(cd "$PAPI_STOCK_BUILDDIR" && pwd -P)/libpapi" "$tmp/cmp.out"; then
		fail overhead_compare_ratios "the stock worker did not load $PAPI_STOCK_BUILDDIR/libpapi: $(grep '^stock' "$tmp/cmp.out" | sed -n 1,1p)"
	elif [ "$ratios" -lt 2 ]; then
		fail overhead_compare_ratios "no ours/stock ratio on the PAPI_read rows"
	else
		pass overhead_compare_ratios
	fi
fi

# ---- --csv --------------------------------------------------------------

"$ovh" -n 200 -r 1 --csv >"$tmp/o.csv" 2>"$tmp/csv.err"
rc=$?
# Fields per line, commas inside double quotes not counted.
fields=$(csv_field_counts "$tmp/o.csv")
calls=$(awk -F, '$1 == "case" && $4 == "papi" { print $5 }' "$tmp/o.csv" | sort -u | wc -l)
# the kinds of case: PAPI's calls on sets of 1 and 2 events (the
# scaling), the framework, the floor, the empty function, the first calls
# on new sets, the repeated reads, and the goals
kinds=$(awk -F, '$1 == "goal" { print "goal"; next } $1 != "case" { next }
	{ print $4 } $4 == "papi" { print "ev" $6 }
	$5 ~ /^new_/ { print "first" } $5 ~ /^read[1-8]$/ { print "repeat" }' \
	"$tmp/o.csv" | sort -u | tr '\n' ' ')
info "csv: $(wc -l <"$tmp/o.csv") lines, fields per line: $fields; kinds: $kinds"
if [ "$rc" -ne 0 ]; then
	fail overhead_csv "exit $rc: $(head -c 300 "$tmp/csv.err")"
elif [ "${fields% }" != 18 ]; then
	fail overhead_csv "fields per line differ: $fields (want 18 on every line)"
elif [ "$calls" -ne 19 ]; then
	fail overhead_csv "$calls calls in the case lines (want 19)"
else
	missing=
	for k in papi ev1 ev2 fw raw null first repeat goal; do
		case " $kinds " in
		*" $k "*) ;;
		*) missing="$missing $k" ;;
		esac
	done
	if [ -n "$missing" ]; then
		fail overhead_csv "no line of kind:$missing"
	else
		pass overhead_csv
	fi
fi

# ---- the floor's sampling when the kernel cannot queue its signal -------
# With RLIMIT_SIGPENDING 0 (as when a user's other processes hold every
# queued signal) the kernel sends SIGIO instead of the ring's real-time
# signal: the floor takes every ring then, and measures its samples.  Our
# and stock's workers die of that SIGIO, as a PAPI program would.

(
	ulimit -i 0 &&
		exec "$ovh" -n 20 -r 1 -k 1 --no-compare --csv
) >"$tmp/sigio.csv" 2>"$tmp/sigio.err"
rc=$?
row=$(awk -F, '$1 == "case" && $3 == "floor" && $5 == "sample" { print $8, $17 }' "$tmp/sigio.csv")
info "RLIMIT_SIGPENDING 0: exit $rc; floor sample (value, samples a spin): ${row:-none}"
if awk -v r="$row" 'BEGIN { split(r, f, " "); exit !(f[1] > 0 && f[2] > 0) }'; then
	pass overhead_floor_sampling_on_sigio
else
	fail overhead_floor_sampling_on_sigio "no floor sample with samples counted: $(head -c 300 "$tmp/sigio.err")"
fi
# --csv has no line for a failed column: standard error says which and why.
if [ "$rc" -eq 0 ]; then
	skip overhead_csv_failure_says_why "no worker failed without RLIMIT_SIGPENDING here"
elif grep -Eq '^papi_overhead: (ours-rdpmc|ours-read|stock|floor): .' "$tmp/sigio.err"; then
	pass overhead_csv_failure_says_why
else
	fail overhead_csv_failure_says_why "exit $rc, but standard error names no failed column: $(head -c 300 "$tmp/sigio.err")"
fi

# ---- bad input ------------------------------------------------------------

mkdir -p "$tmp/nolib" "$tmp/foreign"
# Our libpapi.so* for another machine (e_machine 2, SPARC): the loader
# passes over it and maps the next one it finds (ours, from
# LD_LIBRARY_PATH), which the tools must not take for it.
for f in "$PAPI_OURS_BUILDDIR"/libpapi.so*; do
	cp -L "$f" "$tmp/foreign/" &&
		printf '\002\000' | dd of="$tmp/foreign/${f##*/}" bs=1 seek=18 conv=notrunc status=none
done
# name | arguments | text the message must contain
while IFS='|' read -r name args want; do
	# shellcheck disable=SC2086
	"$ovh" $args >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		fail "overhead_bad_$name" "exit 0 for '$args'"
	elif ! grep -qF -- "$want" "$tmp/bad.err"; then
		fail "overhead_bad_$name" "exit $rc but no message with '$want': $(head -c 200 "$tmp/bad.err")"
	else
		pass "overhead_bad_$name"
	fi
done <<EOF
unknown_event|-e LOPE_NO_SUCH_EVENT|LOPE_NO_SUCH_EVENT
n_zero|-n 0|-n: '0'
plot_unwritable|--plot $tmp/no/such/dir/x.png|--plot
compare_no_libpapi|--compare $tmp/nolib|no libpapi
ours_foreign_libpapi|--ours $tmp/foreign|not the libpapi.so of $tmp/foreign
compare_foreign_libpapi|--csv --compare $tmp/foreign -e perf::TASK-CLOCK -n 20|not the libpapi.so of $tmp/foreign
EOF
# A directory whose libpapi.so* link to ours elsewhere names ours.
mkdir -p "$tmp/links"
for f in "$PAPI_OURS_BUILDDIR"/libpapi.so*; do
	ln -s "$(readlink -f "$f")" "$tmp/links/${f##*/}"
done
"$ovh" --ours "$tmp/links" --no-compare -n 20 -e perf::TASK-CLOCK >"$tmp/links.out" 2>"$tmp/links.err"
rc=$?
if [ "$rc" -eq 0 ] && grep -q "^ours *: $(readlink -f "$PAPI_OURS_BUILDDIR")/libpapi.so" "$tmp/links.out"; then
	pass overhead_ours_links_elsewhere
else
	fail overhead_ours_links_elsewhere "exit $rc: $(head -c 300 "$tmp/links.err")"
fi
# A name with a line break would break the workers' lines:
# bad_line_break PREFIX PROG EVENTS TEXT, exit 2 with TEXT.
bad_line_break() {
	local rc
	"$2" -e "$3" >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	if [ "$rc" -eq 2 ] && grep -qF -- "$4" "$tmp/bad.err"; then
		pass "$1_bad_event_line_break"
	else
		fail "$1_bad_event_line_break" "want exit 2 and '$4', got exit $rc: $(head -c 200 "$tmp/bad.err")"
	fi
}
bad_line_break overhead "$ovh" "$(printf 'perf::TASK-CLOCK\nperf::CPU-CLOCK')" \
	"comma-separated event names"

# ---- papi_accuracy --------------------------------------------------------

"$acc" -n 50 -N 1000,100000 >"$tmp/acc.out" 2>"$tmp/acc.err"
rc=$?
info "papi_accuracy: exit $rc; $(head -c 300 "$tmp/acc.err" | tr '\n' ' ')"
if [ "$have_pmu" = 0 ]; then
	if [ "$rc" -eq 77 ] && grep -q "PMU" "$tmp/acc.err"; then
		pass accuracy_no_pmu_exit77
	else
		fail accuracy_no_pmu_exit77 "no core PMU here: want exit 77 and a reason naming the PMU, got exit $rc: $(head -c 200 "$tmp/acc.err")"
	fi
	skip accuracy_loop_hardware "$NO_CORE_PMU_REASON"
elif [ "$rc" -eq 77 ]; then
	# a PMU in sysfs that PAPI cannot use (e.g. paranoid settings)
	skip accuracy_runs "exit 77: $(head -c 200 "$tmp/acc.err")"
	skip accuracy_loop_hardware "papi_accuracy could not count instructions"
else
	if [ "$rc" -eq 0 ] && grep -q '^null benchmark' "$tmp/acc.out" &&
		grep -q '^loop benchmark' "$tmp/acc.out"; then
		pass accuracy_runs
	else
		fail accuracy_runs "exit $rc: $(head -c 200 "$tmp/acc.err")"
	fi
	if grep -q '^loop check (hardware): ok' "$tmp/acc.out"; then
		pass accuracy_loop_hardware
	else
		fail accuracy_loop_hardware "$(grep -A3 '^loop check (hardware):' "$tmp/acc.out" | tr '\n' ' ')"
	fi
fi

"$acc" --check-loop >"$tmp/ptrace.out" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
	skip accuracy_loop_ptrace "$(tail -n 1 "$tmp/ptrace.out")"
elif [ "$rc" -eq 0 ] && grep -q '^loop check (ptrace): ok' "$tmp/ptrace.out"; then
	pass accuracy_loop_ptrace
else
	fail accuracy_loop_ptrace "exit $rc: $(tr '\n' ' ' <"$tmp/ptrace.out" | cut -c1-300)"
fi

expect_bad_inputs "$acc" accuracy "$tmp" <<EOF
n_zero|-n 0|-n: '0'
one_n|-N 5|-N: '5'
compare_no_libpapi|--compare $tmp/nolib|no libpapi
EOF
bad_line_break accuracy "$acc" "$(printf 'PAPI_TOT_INS\nx')" "is not an event name"
"$acc" --ours "$tmp/foreign" -n 5 -N 10,100 >"$tmp/bad.out" 2>"$tmp/bad.err"
rc=$?
if [ "$rc" -ne 0 ] && grep -qF -- "not the libpapi.so of $tmp/foreign" "$tmp/bad.out"; then
	pass accuracy_bad_ours_foreign_libpapi
else
	fail accuracy_bad_ours_foreign_libpapi "want a failure naming $tmp/foreign, got exit $rc: $(head -c 300 "$tmp/bad.out")"
fi

# ---- format ---------------------------------------------------------------

cf=${CLANG_FORMAT:-clang-format}
# case | sources (globs, expanded in $top_srcdir)
# shellcheck disable=SC2086
while IFS='|' read -r name f; do
	if ! command -v "$cf" >/dev/null 2>&1; then
		skip "$name" "clang-format not installed"
	elif (cd "$top_srcdir" && "$cf" --style=file --dry-run --Werror $f >/dev/null 2>&1); then
		pass "$name"
	else
		fail "$name" "$f differs from .clang-format (clang-format -i $f)"
	fi
done <<'EOF'
format_papi_overhead|utils/overhead/*.[ch]
format_papi_accuracy|utils/accuracy/*.[ch]
EOF

exit $((nfail > 0))
