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
# exits 77 without printing any case line counts as one SKIP.  The last line
# printed is always "N passed, N failed, N skipped"; the exit status is 1
# when anything failed, else 0.
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

# run_one PROG [PREFIX [VAR=VALUE]]: run one program, count its cases.
# With PREFIX, its case lines are shown and counted as "TAG: PREFIX name".
run_one() {
	local prog=$1 prefix=${2:-} setenv=${3:-} name path out p f s rc why limit
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
		sed -u "s/^\(PASS\|FAIL\|SKIP\): /\1: $prefix/" | tee "$out"
	rc=${PIPESTATUS[0]}

	p=$(grep -c '^PASS: ' "$out")
	f=$(grep -c '^FAIL: ' "$out")
	s=$(grep -c '^SKIP: ' "$out")
	grep '^SKIP: ' "$out" >>"$skipped"

	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		if [ "$rc" -eq 77 ] && [ "$p" -eq 0 ] && [ "$s" -eq 0 ]; then
			line="SKIP: $prefix$name: program exited 77 (skipped) without a reason"
			echo "$line"
			echo "$line" >>"$skipped"
			s=1
		elif [ "$rc" -eq 77 ]; then
			: # reported its own cases, then exited "skipped"
		else
			if [ "$have_timeout" = 1 ] && [ "$rc" -eq 124 ]; then
				why="timed out after ${limit} s"
			elif [ "$rc" -gt 128 ]; then
				sig=$((rc - 128))
				signame=$(kill -l "$sig" 2>/dev/null || echo "$sig")
				why="killed by signal $sig (SIG$signame)"
			else
				why="exited with status $rc without a FAIL line"
			fi
			echo "FAIL: $prefix$name: $why"
			f=1
		fi
	fi
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
echo
echo "$npass passed, $nfail failed, $nskip skipped"
[ "$nfail" -eq 0 ]
