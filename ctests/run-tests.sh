#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-tests.sh [PROG...] : run test programs (or executable scripts) that
# follow the report protocol of ctests/lib/report.h and sum up their results;
# without PROG, every test of ctests/tests.list, in its order.  Run from
# the top build directory, as `make check` does:
#
#	ctests/run-tests.sh ctests/papi/test_threads
#
# runs one test as `make check TESTS=ctests/papi/test_threads` does, once
# it is built (make does that first).
#
# Each program's stdout lines "PASS: name", "FAIL: name: reason" and
# "SKIP: name: reason" are counted; "# ..." lines are information.  A
# program that dies of a signal, times out, or exits non-zero without
# printing a FAIL line counts as one FAIL named after the program; one that
# exits 77 without printing any case line counts as one SKIP, and one that
# exits 0 without any as one FAIL.
#
# No case may vanish: a program that runs others (the emulated machines'
# scripts) announces each of them first with a line "PLAN: unit", and a
# unit that then reports no case of its own ("unit" itself, or
# "unit.anything") counts as one FAIL, "FAIL: unit: planned, never
# reported", with how the program ended: a machine that never booted, a
# plan error or the script's timeout fails every unit it had planned.
# The count of units (one a program, or its PLAN lines) is checked against
# the units that reported, and printed before the summary.
#
# The last line printed is always "N passed, N failed, N skipped"; the
# exit status is 1 when anything failed, else 0.
#
# The PROGs that have the attribute "generic" in ctests/tests.list run
# again with LIBPFM_FORCE_PMU=perf, as on a CPU libpfm4 does not know,
# their cases named "[unknown CPU] name" (not when the caller set
# LIBPFM_FORCE_PMU already: then the whole run is so).
#
# A script that needs longer than the default names its own limit in a
# comment line of its first 30 lines: "# run-tests.sh: timeout SECONDS".
#
# Environment (make check sets the first four; by hand they default to
# the build directory's, so that our libpapi is tested, not one installed):
#   top_builddir        the top build directory (default: the current one)
#   top_srcdir          the top source directory (default: LOPE_SRCDIR)
#   PAPI_OURS_BUILDDIR  our PAPI build (default
#                       $top_builddir/papi/ours/src), prepended to
#                       LD_LIBRARY_PATH
#   PAPI_STOCK_BUILDDIR the stock one (default $top_builddir/papi/stock/src)
#   LOPE_TEST_TIMEOUT   seconds per program (default 300)
#   LOPE_SRCDIR         the source tree, where ctests/tests.list is and
#                       where a PROG not found as given is looked for
#                       (VPATH builds list scripts relative to the source
#                       tree); defaults to the directory above this script
set -u

timeout_s=${LOPE_TEST_TIMEOUT:-300}
here=$(cd "$(dirname "$0")" && pwd)
srcdir=${LOPE_SRCDIR:-$(dirname "$here")}

export top_builddir=${top_builddir:-$PWD}
export top_srcdir=${top_srcdir:-$srcdir}
export PAPI_OURS_BUILDDIR=${PAPI_OURS_BUILDDIR:-$top_builddir/papi/ours/src}
export PAPI_STOCK_BUILDDIR=${PAPI_STOCK_BUILDDIR:-$top_builddir/papi/stock/src}
export LD_LIBRARY_PATH="$PAPI_OURS_BUILDDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

list=$srcdir/ctests/tests.list
if ! generic=$(sh "$srcdir/scripts/lists.sh" tests "$list" generic) ||
	! all=$(sh "$srcdir/scripts/lists.sh" tests "$list"); then
	echo "FAIL: run-tests.sh: cannot read $list"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
# shellcheck disable=SC2086 # one word a test
[ $# -gt 0 ] || set -- $all

have_timeout=0
command -v timeout >/dev/null 2>&1 && have_timeout=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-run-tests.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
skipped="$tmp/skipped"
: >"$skipped"

npass=0
nfail=0
nskip=0
nunits=0 # planned units (see unreported)

# own_timeout PATH: the limit a script declares for itself, else the default.
own_timeout() {
	local t=
	case $1 in
	*.sh)
		t=$(head -n 30 "$1" |
			sed -n 's/^# run-tests\.sh: timeout \([0-9][0-9]*\)$/\1/p' |
			sed -n 1p)
		;;
	esac
	echo "${t:-$timeout_s}"
}

# unreported OUT WHY: a FAIL line for each unit OUT planned ("PLAN: unit")
# and reported no case of ("unit" itself, or "unit.anything").
unreported() {
	awk -v why="$2" '
	/^PLAN: / { plan[++n] = substr($0, 7); next }
	/^(PASS|FAIL|SKIP): / {
		c = substr($0, 7)
		i = index(c, ": ")
		if (i) c = substr(c, 1, i - 1)
		seen[c] = 1
		for (i = length(c); i > 0; i--)
			if (substr(c, i, 1) == ".") seen[substr(c, 1, i - 1)] = 1
	}
	END {
		for (i = 1; i <= n; i++)
			if (!(plan[i] in seen))
				printf "FAIL: %s: planned, never reported (the program: %s)\n", plan[i], why
	}' "$1"
}

# planned_units OUT: the units of one program: its PLAN lines, or 1.
planned_units() {
	awk '/^PLAN: / { n++ } END { print n ? n : 1 }' "$1"
}

# run_one PROG [PREFIX [VAR=VALUE]]: run one program, count its cases.
# With PREFIX, its case lines are shown and counted as "TAG: PREFIX name".
run_one() {
	local prog=$1 prefix=${2:-} setenv=${3:-} name path out p f s rc why limit sig line
	local run
	name=$(basename "$prog")
	out="$tmp/out"
	path=$prog
	if [ ! -e "$path" ] && [ -e "$srcdir/$prog" ]; then
		path=$srcdir/$prog
	fi
	case $path in
	*/*) ;;
	*) path=./$path ;;
	esac

	echo "## $name${setenv:+ [$setenv]}"
	if [ ! -e "$path" ]; then
		echo "FAIL: $prefix$name: program not found: $prog"
		nfail=$((nfail + 1))
		return
	fi
	# Scripts may lose their x bit on the way (VPATH, tarballs).
	run=("$path")
	if [ ! -x "$path" ]; then
		case $path in
		*.sh) run=(bash "$path") ;;
		*)
			echo "FAIL: $prefix$name: not executable: $path"
			nfail=$((nfail + 1))
			return
			;;
		esac
	fi
	limit=$(own_timeout "$path")
	if [ "$have_timeout" = 1 ]; then
		run=(timeout -k 10 "$limit" "${run[@]}")
	fi
	[ -n "$setenv" ] && run=(env "$setenv" "${run[@]}")

	# stdout and stderr both shown, in order; case lines come from stdout.
	"${run[@]}" </dev/null 2>&1 |
		sed -u "s/^\(PASS\|FAIL\|SKIP\|PLAN\): /\1: $prefix/" | tee "$out"
	rc=${PIPESTATUS[0]}

	p=$(grep -c '^PASS: ' "$out")
	f=$(grep -c '^FAIL: ' "$out")
	s=$(grep -c '^SKIP: ' "$out")
	grep '^SKIP: ' "$out" >>"$skipped"

	if [ "$have_timeout" = 1 ] && [ "$rc" -eq 124 ]; then
		why="timed out after ${limit} s"
	elif [ "$rc" -gt 128 ]; then
		sig=$((rc - 128))
		why="killed by signal $sig (SIG$(kill -l "$sig" 2>/dev/null || echo "$sig"))"
	else
		why="exited with status $rc"
	fi
	if [ "$rc" -eq 77 ] && [ $((p + f + s)) -eq 0 ]; then
		line="SKIP: $prefix$name: program exited 77 (skipped) without a reason"
		echo "$line"
		echo "$line" >>"$skipped"
		s=1
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ "$f" -eq 0 ]; then
		case $why in
		exited*) echo "FAIL: $prefix$name: $why without a FAIL line" ;;
		*) echo "FAIL: $prefix$name: $why" ;;
		esac
		f=1
	elif [ "$rc" -eq 0 ] && [ $((p + f + s)) -eq 0 ]; then
		echo "FAIL: $prefix$name: exited 0 without reporting any case"
		f=1
	fi
	unreported "$out" "$why" >"$tmp/missing"
	cat "$tmp/missing"
	f=$((f + $(grep -c '^FAIL: ' "$tmp/missing")))
	nunits=$((nunits + $(planned_units "$out")))
	npass=$((npass + p))
	nfail=$((nfail + f))
	nskip=$((nskip + s))
}

for prog in "$@"; do
	run_one "$prog"
done

# The tests that depend on what libpfm4 knows of this CPU run again as on
# a CPU it does not know (its generic PMU alone), unless the whole run
# is already so.
if [ -z "${LIBPFM_FORCE_PMU:-}" ]; then
	for prog in $generic; do
		case " $* " in
		*" $prog "*) run_one "$prog" "[unknown CPU] " LIBPFM_FORCE_PMU=perf ;;
		esac
	done
fi

if [ -s "$skipped" ]; then
	echo
	echo "Skipped cases:"
	sed 's/^SKIP: /  /' "$skipped"
fi
# Every planned unit reported at least one case or was counted as failed:
# there are at least as many cases.
echo
if [ $((npass + nfail + nskip)) -lt "$nunits" ]; then
	echo "FAIL: run-tests.sh: $((npass + nfail + nskip)) cases for $nunits planned units"
	nfail=$((nfail + 1))
else
	echo "# $nunits planned units (programs, and what they planned), all reported: $((npass + nfail + nskip)) cases"
fi
echo "$npass passed, $nfail failed, $nskip skipped"
[ "$nfail" -eq 0 ]
