#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# peer-ctests.sh: run PAPI's own tests (the list PAPI's run_tests.sh
# builds: validation_tests, ctests, ftests, components/*/tests, minus
# run_tests_exclude.txt) in our PAPI tree and in the stock one, one after
# the other, and print a side-by-side table: test | ours | stock.
#
# Usage: scripts/peer-ctests.sh [options]
#   --ours DIR       our PAPI src tree   (default: <top>/papi/ours/src)
#   --stock DIR      stock PAPI src tree (default: <top>/papi/stock/src)
#   --timeout S      seconds per test (default 60; TIMEOUT counts as FAILED)
#   --only REGEX     run only the tests whose path matches REGEX (grep -E)
#   --md FILE        also write the table as markdown to FILE
#   --update-doc F   replace the part of F between the lines
#                    "<!-- peer-ctests: begin -->" and
#                    "<!-- peer-ctests: end -->" with the markdown table
#   --keep DIR       keep every test's output in DIR/{ours,stock}/
#
# Each test runs from the root of its tree, as run_tests.sh runs it
# (TESTS_QUIET set, LD_LIBRARY_PATH starting with ".", PATH starting with
# ./ctests for attach_target, the sde libraries for sde tests), under
# `timeout`.  Its verdict is the last of PASSED / SKIPPED / FAILED that it
# printed (PAPI's testlib prints exactly one); without one, exit status 0
# is PASSED? (no verdict printed) and anything else FAILED(rc).  A test
# killed by a signal is CRASHED, one that ran out of time TIMEOUT.
#
# Exit status: 1 when ours fails (FAILED, FAILED(rc), CRASHED, TIMEOUT) a
# test that stock passes, 2 on a usage or setup error, else 0.
# The two trees are never run at the same time: on a 2-cpu machine the
# timing-sensitive tests would fail for no reason of their own.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
ours=$top/papi/ours/src
stock=$top/papi/stock/src
timeout_s=60
only=
md=
doc=
keep=

while [ $# -gt 0 ]; do
	case $1 in
	--ours) ours=$2; shift 2 ;;
	--stock) stock=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--md) md=$2; shift 2 ;;
	--update-doc) doc=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	-h | --help) sed -n '4,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "peer-ctests.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

for t in "$ours" "$stock"; do
	if [ ! -x "$t/ctests/zero" ] || [ ! -f "$t/run_tests_exclude.txt" ]; then
		echo "peer-ctests.sh: $t has no built PAPI tests (run make first)" >&2
		exit 2
	fi
done
command -v timeout >/dev/null 2>&1 || {
	echo "peer-ctests.sh: needs timeout(1)" >&2
	exit 2
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/peer-ctests.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# The list run_tests.sh builds, in its order, minus its exclusions.
list_tests() {
	(
		cd "$1" || exit 1
		{
			find validation_tests/* -prune -perm -u+x -type f ! -name "*.[c|h]"
			find ctests/* -prune -perm -u+x -type f ! -name "*.[c|h]"
			find ftests -perm -u+x -type f ! -name "*.[c|h|F]"
			find components/*/tests -perm -u+x -type f \
				! \( -name "*.[c|h]" -o -name "*.cu" -o -name "*.so" \)
		} 2>/dev/null | grep -vxF -f <(grep -v -e '^#' -e '^$' run_tests_exclude.txt)
	)
}

# verdict OUTFILE RC
verdict() {
	local v
	v=$(sed 's/\x1b\[[0-9;]*m//g' "$1" |
		grep -oE 'PASSED|SKIPPED|FAILED' | tail -n 1)
	if [ "$2" -eq 124 ] || [ "$2" -eq 137 ]; then
		echo TIMEOUT
	elif [ "$2" -gt 128 ]; then
		echo CRASHED
	elif [ -n "$v" ]; then
		echo "$v"
	elif [ "$2" -eq 0 ]; then
		echo "PASSED?"
	else
		echo "FAILED($2)"
	fi
}

# run_tree NAME DIR: one line "test<TAB>verdict<TAB>seconds" per test.
run_tree() {
	local name=$1 dir=$2 t out rc s0 s1 ld
	local res=$tmp/$name.tsv
	: >"$res"
	mkdir -p "$tmp/$name"
	while read -r t; do
		[ -n "$t" ] || continue
		if [ -n "$only" ] && ! echo "$t" | grep -qE "$only"; then
			continue
		fi
		out=$tmp/$name/$(echo "$t" | tr / _).out
		ld=.:./libpfm-3.y/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		case $t in
		components/sde/*)
			ld=$ld:$dir/components/sde/sde_lib:$dir/components/sde/tests/lib ;;
		esac
		s0=$(date +%s.%N)
		(
			cd "$dir" &&
				TESTS_QUIET=TESTS_QUIET LD_LIBRARY_PATH=$ld \
					PATH=./ctests:$PATH \
					timeout -k 5 "$timeout_s" "./$t" TESTS_QUIET \
					</dev/null >"$out" 2>&1
		)
		rc=$?
		s1=$(date +%s.%N)
		# High-level tests leave their output directory behind.
		case $t in *_hl*) rm -rf "$dir/papi_hl_output" ;; esac
		printf '%s\t%s\t%s\n' "$t" "$(verdict "$out" "$rc")" \
			"$(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.1f", b - a }')" \
			>>"$res"
		printf '  %-55s %s\n' "$t" "$(cut -f2 <"$res" | tail -n 1)" >&2
	done < <(list_tests "$dir")
	if [ -n "$keep" ]; then
		mkdir -p "$keep/$name"
		cp "$tmp/$name"/*.out "$keep/$name/" 2>/dev/null
	fi
}

echo "== ours:  $ours" >&2
run_tree ours "$ours"
echo "== stock: $stock" >&2
run_tree stock "$stock"

# Join on the test name (a test missing in one tree shows "-").
join -t "$(printf '\t')" -a 1 -a 2 -e - -o 0,1.2,2.2,1.3,2.3 \
	<(sort -t "$(printf '\t')" -k1,1 "$tmp/ours.tsv") \
	<(sort -t "$(printf '\t')" -k1,1 "$tmp/stock.tsv") >"$tmp/joined.tsv"

failed_word() {
	case $1 in FAILED* | CRASHED | TIMEOUT) return 0 ;; esac
	return 1
}

count() { # count FIELD PATTERN
	cut -f"$1" "$tmp/joined.tsv" | grep -cE "$2"
}

summary() { # summary FIELD
	echo "$(count "$1" '^PASSED')" passed, \
		"$(count "$1" '^SKIPPED')" skipped, \
		"$(count "$1" '^(FAILED|CRASHED|TIMEOUT)')" failed
}

ndiff=0
nregress=0
: >"$tmp/diffs"
while IFS="$(printf '\t')" read -r t o s to ts; do
	if [ "$o" != "$s" ]; then
		ndiff=$((ndiff + 1))
		echo "$t|$o|$s" >>"$tmp/diffs"
		if failed_word "$o" && [ "${s%\?}" = PASSED ]; then
			nregress=$((nregress + 1))
		fi
	fi
done <"$tmp/joined.tsv"

# Plain table on stdout.
printf '%-55s %-12s %-12s\n' test ours stock
printf '%-55s %-12s %-12s\n' ---- ---- -----
while IFS="$(printf '\t')" read -r t o s to ts; do
	mark=
	[ "$o" != "$s" ] && mark='  <-- differs'
	printf '%-55s %-12s %-12s%s\n' "$t" "$o" "$s" "$mark"
done <"$tmp/joined.tsv"
echo
echo "ours:  $(summary 2)"
echo "stock: $(summary 3)"
echo "$ndiff tests differ; ours fails $nregress that stock passes"

markdown() {
	echo "| test | ours | stock |"
	echo "| --- | --- | --- |"
	while IFS="$(printf '\t')" read -r t o s to ts; do
		if [ "$o" != "$s" ]; then
			echo "| **$t** | **$o** | **$s** |"
		else
			echo "| $t | $o | $s |"
		fi
	done <"$tmp/joined.tsv"
	echo
	echo "ours: $(summary 2); stock: $(summary 3)."
	echo "$ndiff tests differ (in bold); ours fails $nregress that stock passes."
	echo "Ours built from commit" \
		"$(git -C "$ours" rev-parse --short HEAD 2>/dev/null || echo unknown);" \
		"per-test timeout ${timeout_s} s; kernel $(uname -r);" \
		"$(grep -c ^processor /proc/cpuinfo) cpus;" \
		"core PMU: $([ -e /sys/bus/event_source/devices/cpu ] && echo yes || echo none);" \
		"perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)."
}

if [ -n "$md" ]; then
	markdown >"$md"
fi
if [ -n "$doc" ]; then
	if ! grep -q '^<!-- peer-ctests: begin -->$' "$doc" ||
		! grep -q '^<!-- peer-ctests: end -->$' "$doc"; then
		echo "peer-ctests.sh: $doc lacks the peer-ctests markers" >&2
		exit 2
	fi
	markdown >"$tmp/table.md"
	awk -v table="$tmp/table.md" '
		/^<!-- peer-ctests: begin -->$/ {
			print; while ((getline l < table) > 0) print l; skip = 1; next
		}
		/^<!-- peer-ctests: end -->$/ { skip = 0 }
		!skip' "$doc" >"$tmp/doc.new" && cat "$tmp/doc.new" >"$doc"
fi

[ "$nregress" -eq 0 ]
