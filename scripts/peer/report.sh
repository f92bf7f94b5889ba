#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# report.sh: the report of scripts/peer-ctests.sh, from the rows its suites'
# runners wrote to $PEER_TMP/ours.tsv and $PEER_TMP/stock.tsv (common.sh):
# one side-by-side table, test | ours | stock | note, with counts per
# suite, on stdout; with --md FILE also as markdown, with --tsv FILE as
# tab-separated test, ours, stock, note.  What the markdown says of the run comes
# from the environment: PEER_OURS (our tree), PEER_SUITES, PEER_TIMEOUT,
# PEER_RESULTS, PEER_MACHINE (the machine, when not this one) and
# PEER_ELAPSED (seconds; with PEER_RESULTS the tests' own time is summed).
#
# Exit status: 1 when ours fails (FAILED, FAILED(rc), CRASHED, TIMEOUT) a
# test that stock passes, 2 on a usage error, else 0.
set -u
export LC_ALL=C
: "${PEER_TMP:?}" "${PEER_OURS:?}" "${PEER_SUITES:=}" "${PEER_TIMEOUT:=60}"
: "${PEER_RESULTS:=}" "${PEER_MACHINE:=}" "${PEER_ELAPSED:=0}"
tmp=$PEER_TMP ours=$PEER_OURS suites=$PEER_SUITES timeout_s=$PEER_TIMEOUT
results=$PEER_RESULTS machine=$PEER_MACHINE elapsed=$PEER_ELAPSED
md='' tsv=''
while [ $# -gt 0 ]; do
	case $1 in
	--md) md=$2; shift 2 ;;
	--tsv) tsv=$2; shift 2 ;;
	*) echo "report.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
TAB=$(printf '\t')

# With --results the time is the tests' own, as measured where they ran.
if [ -n "$results" ]; then
	elapsed=$(cat "$tmp/ours.tsv" "$tmp/stock.tsv" |
		awk -F'\t' '{ s += $3 } END { printf "%d", s + 0.5 }')
fi

# Join on the test name (a test missing in one tree shows "-"): name,
# ours, stock, ours seconds, stock seconds, note.  The note is the reason
# either tree did not pass, once if both say the same.
awk -F'\t' -v OFS='\t' '
	FNR == 1 { f++ }
	f == 1 { o[$1] = $2; on[$1] = $4; ot[$1] = $3; k[$1] = 1 }
	f == 2 { s[$1] = $2; sn[$1] = $4; st[$1] = $3; k[$1] = 1 }
	END {
		for (t in k) {
			if (!(t in o)) { o[t] = "-"; ot[t] = "-" }
			if (!(t in s)) { s[t] = "-"; st[t] = "-" }
			if (on[t] == sn[t] || sn[t] == "") n = on[t]
			else if (on[t] == "") n = "stock: " sn[t]
			else n = "ours: " on[t] "; stock: " sn[t]
			print t, o[t], s[t], ot[t], st[t], n
		}
	}' "$tmp/ours.tsv" "$tmp/stock.tsv" | sort -t "$TAB" -k1,1 >"$tmp/joined.tsv"

failed_word() {
	case $1 in FAILED* | CRASHED | TIMEOUT) return 0 ;; esac
	return 1
}

suite_of() { # the suite column of a test name
	case $1 in
	papi-tools/*) echo papi-tools ;;
	papi-examples/*) echo papi-examples ;;
	components/*) echo components ;;
	*) echo "${1%%/*}" ;;
	esac
}

# counts: one line per suite and a total: suite, then passed / skipped /
# failed for ours and for stock.
counts() {
	while IFS="$TAB" read -r t o s _; do
		printf '%s\t%s\t%s\n' "$(suite_of "$t")" "$o" "$s"
	done <"$tmp/joined.tsv" | awk -F'\t' -v OFS='\t' '
		function cls(v) {
			if (v ~ /^PASSED/) return 1
			if (v ~ /^SKIPPED/) return 2
			if (v ~ /^(FAILED|CRASHED|TIMEOUT)/) return 3
			return 0
		}
		{
			if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
			c[$1, "o", cls($2)]++; c[$1, "s", cls($3)]++
			c["total", "o", cls($2)]++; c["total", "s", cls($3)]++
		}
		END {
			order[++n] = "total"
			for (i = 1; i <= n; i++) {
				u = order[i]
				print u, c[u, "o", 1] + 0, c[u, "o", 2] + 0, c[u, "o", 3] + 0, \
					c[u, "s", 1] + 0, c[u, "s", 2] + 0, c[u, "s", 3] + 0
			}
		}'
}

ndiff=0
nregress=0
: >"$tmp/diffs"
while IFS="$TAB" read -r t o s _ _ n; do
	if [ "$o" != "$s" ]; then
		ndiff=$((ndiff + 1))
		printf '%s\t%s\t%s\t%s\n' "$t" "$o" "$s" "$n" >>"$tmp/diffs"
		if failed_word "$o" && [ "${s%\?}" = PASSED ]; then
			nregress=$((nregress + 1))
		fi
	fi
done <"$tmp/joined.tsv"
counts >"$tmp/counts.tsv"

# Plain table on stdout.
printf '%-62s %-12s %-12s %s\n' test ours stock note
printf '%-62s %-12s %-12s %s\n' ---- ---- ----- ----
while IFS="$TAB" read -r t o s _ _ n; do
	mark=
	[ "$o" != "$s" ] && mark='<-- differs  '
	printf '%-62s %-12s %-12s %s%s\n' "$t" "$o" "$s" "$mark" "$n"
done <"$tmp/joined.tsv"
echo
printf '%-17s %-30s %s\n' suite "ours: passed/skipped/failed" "stock: passed/skipped/failed"
while IFS="$TAB" read -r u a b c d e f; do
	printf '%-17s %-30s %s\n' "$u" "$a / $b / $c" "$d / $e / $f"
done <"$tmp/counts.tsv"
echo "$ndiff tests differ; ours fails $nregress that stock passes"
echo "run time: $((elapsed / 60)) min $((elapsed % 60)) s"

papi_version() { # from the tree's papi.h: 7.0.0.0
	sed -n 's/^#define PAPI_VERSION[[:space:]]*PAPI_VERSION_NUMBER(\([0-9]*\),\([0-9]*\),\([0-9]*\),\([0-9]*\)).*/\1.\2.\3.\4/p' \
		"$1/papi.h"
}

markdown() {
	local pkgs virt took
	echo "| test | ours | stock | note |"
	echo "| --- | --- | --- | --- |"
	while IFS="$TAB" read -r t o s _ _ n; do
		if [ "$o" != "$s" ]; then
			echo "| **$t** | **$o** | **$s** | $n |"
		else
			echo "| $t | $o | $s | $n |"
		fi
	done <"$tmp/joined.tsv"
	echo
	echo "| suite | ours: passed / skipped / failed | stock: passed / skipped / failed |"
	echo "| --- | ---: | ---: |"
	while IFS="$TAB" read -r u a b c d e f; do
		[ "$u" = total ] && u="**total**"
		echo "| $u | $a / $b / $c | $d / $e / $f |"
	done <"$tmp/counts.tsv"
	echo
	echo "$ndiff tests differ (in bold); ours fails $nregress that stock passes."
	if [ -s "$tmp/diffs" ]; then
		echo "The differences, with what each tree printed (explained below the table):"
		echo
		while IFS="$TAB" read -r t o s n; do
			echo "- \`$t\`: ours $o, stock $s${n:+ ($n)}"
		done <"$tmp/diffs"
	fi
	echo
	pkgs=$(dpkg-query -W -f='${Package} ${Version}, ' papi-tools papi-examples \
		libpapi7.0 2>/dev/null | sed 's/, $//')
	[ -z "$pkgs" ] || pkgs="; Debian's $pkgs"
	virt=$(systemd-detect-virt --vm 2>/dev/null || true)
	took="in $((elapsed / 60)) min $((elapsed % 60)) s"
	# With --results: the tests' own clock, where they ran.
	[ -z "$results" ] || { pkgs=; took="$took of the tests' own time"; }
	echo "Run on $(date -u +%Y-%m-%d) $took" \
		"(suites: $suites; per-test timeout ${timeout_s} s)." \
		"PAPI $(papi_version "$ours") in both trees$pkgs." \
		"Ours built from commit" \
		"$(git -C "$ours" rev-parse --short HEAD 2>/dev/null || echo unknown)." \
		"Machine: ${machine:-$(this_machine)}"
}

this_machine() {
	echo "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sed -n 1p)," \
		"$(grep -c ^processor /proc/cpuinfo) cpus${virt:+, $virt guest};" \
		"kernel $(uname -r);" \
		"core PMU: $([ -e /sys/bus/event_source/devices/cpu ] && echo yes || echo none);" \
		"perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)."
}

if [ -n "$md" ]; then
	markdown >"$md"
fi
if [ -n "$tsv" ]; then
	cut -f1,2,3,6 "$tmp/joined.tsv" >"$tsv"
fi
[ "$nregress" -eq 0 ]
