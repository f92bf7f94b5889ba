# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# common.sh: what the peer suites' runners share (sourced).  A runner is
# run as "RUNNER NAME DIR": the tree DIR, NAME ours or stock; it appends
# one row a test (name, verdict, seconds, note) to $PEER_TMP/NAME.tsv and
# leaves each test's output in $PEER_TMP/NAME/.  The environment, set by
# scripts/peer-ctests.sh from its options: PEER_TMP, PEER_TIMEOUT
# (seconds per test), PEER_ONLY (a grep -E of the tests to run, or empty),
# PEER_RESULTS (the directory of --results, or empty).
set -u
export LC_ALL=C
: "${PEER_TMP:=}" "${PEER_TIMEOUT:=60}" "${PEER_ONLY:=}" "${PEER_RESULTS:=}"

selected() { # selected NAME: does NAME pass --only?
	[ -z "$PEER_ONLY" ] || grep -qE -- "$PEER_ONLY" <<<"$1"
}

# note_of OUTFILE: the line that says why a PAPI test did not pass (the
# "Line # N Error..." after FAILED, with the next line when the Fortran
# testlib prints the message there; else the last line that is neither a
# verdict, testlib's boilerplate nor stock's hw_instructions warning).
note_of() {
	sed 's/\x1b\[[0-9;]*m//g; s/^[[:space:]]*//; s/[[:space:]]*$//; s/[[:space:]][[:space:]]*/ /g' "$1" |
		grep -vE '^(PASSED|SKIPPED|FAILED!*)$|^$|^[^ ]+ (PASSED|SKIPPED|FAILED)$' |
		grep -vE "^(Some tests require special|or library versions|system without the particular)" |
		grep -v "^PAPI Error: Couldn't open hw_instructions in exclude_guest=0 test" |
		awk 'l && l ~ /^Line # [0-9]+$/ && !j { l = l ": " $0; j = 1 }
			/^Line #/ && !l { l = $0 }
			{ last = $0 }
			END { print (l ? l : last) }' |
		tr '\t|' '  ' | cut -c1-110
}

# verdict OUTFILE RC: of a PAPI test.
verdict() {
	local v
	v=$(sed 's/\x1b\[[0-9;]*m//g' "$1" |
		grep -oE 'PASSED|SKIPPED|FAILED' | tail -n 1)
	if [ "$2" -eq 124 ] || [ "$2" -eq 137 ]; then
		echo TIMEOUT
	elif [ "$2" -gt 128 ] && [ "$2" -le 192 ]; then
		echo CRASHED
	elif [ "$v" = PASSED ] && [ "$2" -ne 0 ]; then
		echo "FAILED($2)"
	elif [ -n "$v" ]; then
		echo "$v"
	elif [ "$2" -eq 0 ]; then
		echo "PASSED?"
	else
		echo "FAILED($2)"
	fi
}

# papi_errname RC: " = PAPI_ENOEVNT (-7)" when exit status RC is a PAPI
# error code passed to exit() (the utilities do exit(retval)).
# record RESFILE NAME VERDICT S0 S1 NOTE
record() {
	printf '%s\t%s\t%s\t%s\n' "$2" "$3" \
		"$(awk -v a="$4" -v b="$5" 'BEGIN { printf "%.1f", b - a }')" "$6" \
		>>"$1"
	printf '  %-55s %s\n' "$2" "$3" >&2
}

# run_papi_test RESFILE NAME OUTDIR ROOTDIR LD_LIBRARY_PATH PROGRAM [ARG...]
# Runs PROGRAM (relative to ROOTDIR) as run_tests.sh does.
run_papi_test() {
	local res=$1 name=$2 odir=$3 root=$4 ld=$5 prog=$6 out rc s0 s1 v n
	shift 6
	out=$odir/$(echo "$name" | tr '/ ' '__').out
	s0=$(date +%s.%N)
	if [ -n "$PEER_RESULTS" ]; then
		took_elsewhere "$odir" "$out"
		rc=$rc_elsewhere
		s1=$(awk -v a="$s0" -v b="$sec_elsewhere" 'BEGIN { printf "%.3f", a + b }')
	else
		(
			cd "$root" &&
				TESTS_QUIET=TESTS_QUIET LD_LIBRARY_PATH=$ld \
					PATH=./ctests:$PATH \
					timeout -k 5 "$PEER_TIMEOUT" "./$prog" TESTS_QUIET "$@" \
					</dev/null >"$out" 2>&1
		)
		rc=$?
		s1=$(date +%s.%N)
	fi
	v=$(verdict "$out" "$rc")
	n=
	case $v in
	PASSED) ;;
	PASSED\?) n="exit 0, no verdict printed" ;;
	*) n=$(note_of "$out") ;;
	esac
	record "$res" "$name" "$v" "$s0" "$s1" "$n"
}

# took_elsewhere ODIR OUT: with --results, copy the output of the test
# whose output file would be OUT from the tree's results directory (named
# as ODIR) and set rc_elsewhere and sec_elsewhere.  A test with no result
# there did not run (its machine stopped early): exit status 125.
took_elsewhere() {
	local f
	f=$PEER_RESULTS/$(basename "$1")/$(basename "$2" .out)
	rc_elsewhere=125
	sec_elsewhere=0
	if [ -f "$f.out" ] && [ -f "$f.rc" ]; then
		cp "$f.out" "$2"
		rc_elsewhere=$(cat "$f.rc")
		[ -f "$f.sec" ] && sec_elsewhere=$(cat "$f.sec")
	else
		echo "no result: the test did not run" >"$2"
	fi
	return 0
}
