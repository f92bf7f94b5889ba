#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# soak.sh [options]: run the README's test command (scripts/test.sh) N
# times, each time in a fresh clone, some runs with a busy loop on every
# core, and print each case that failed with how often (doc/reliability.md,
# "Soak").  A case that fails in one run of five is a bug of the suite or
# of the library: the suite must be as deterministic as what it tests.
#
#   -n N            runs (default 5)
#   --busy RUNS     the runs (1-based, comma-separated, or "all") during
#                   which one busy loop per online CPU spins at the soak's
#                   own priority (default: none)
#   --only RUNS     run only these of the N runs (1-based, comma-separated),
#                   numbered and loaded as in the whole soak: a soak
#                   longer than one sitting is run in parts ("-n 5 --busy
#                   3,4,5 --only 4,5" after "... --only 1,2,3")
#   --busy-cmd CMD  in the busy runs also run the shell command CMD over
#                   and over at nice 10 (its autogroup too, where the
#                   kernel has them), beside the loops (a large
#                   compile: "make -C DIR -j2 clean all"), and stop its
#                   whole process group at the run's end
#   --from REPO     the repository to clone (default: this checkout)
#   --rev REV       the commit to test (default: REPO's HEAD)
#   --papi-src DIR  give each clone this PAPI tree or tarball
#                   (scripts/get-papi-src.sh DIR) instead of letting
#                   scripts/test.sh download it
#   --work DIR      where the clones and logs go (default: a new directory
#                   under ${TMPDIR:-/var/tmp}); kept at the end
#   --keep          keep each clone (default: only its log)
#
# The environment goes to every run as it is: `CI=true scripts/soak.sh`
# soaks what .ci/run runs (warnings as errors, the release check).
# Output: one line a run ("run 2/5, busy: 4328 passed, 0 failed, 137
# skipped in 9 min 40 s"), then the failed cases, most frequent first
# ("3/5  ctests/papi/test_x: case_name  (runs 1,4,5)", out of the runs
# done), then "soak: N runs, K with failures" ("soak: runs 4,5 of 5, ..."
# with --only).  Exit status 1 when any run failed.
set -euo pipefail

die() {
	echo "soak.sh: $*" >&2
	exit 2
}

top=$(cd "$(dirname "$0")/.." && pwd)
runs=5 busy='' only='' busy_cmd='' from=$top rev='' papi_src='' work='' keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-n)
		runs=${2:?-n needs a number}
		shift 2
		;;
	--busy)
		busy=${2:?--busy needs run numbers or all}
		shift 2
		;;
	--only)
		only=${2:?--only needs run numbers}
		shift 2
		;;
	--busy-cmd)
		busy_cmd=${2:?--busy-cmd needs a command}
		shift 2
		;;
	--from)
		from=${2:?--from needs a repository}
		shift 2
		;;
	--rev)
		rev=${2:?--rev needs a commit}
		shift 2
		;;
	--papi-src)
		papi_src=$(realpath -m "${2:?--papi-src needs a tree or tarball}")
		shift 2
		;;
	--work)
		work=${2:?--work needs a directory}
		shift 2
		;;
	--keep)
		keep=1
		shift
		;;
	-h | --help)
		sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done
case $runs in
'' | *[!0-9]* | 0) die "-n wants a positive number, not '$runs'" ;;
esac
case $busy in
all | '') ;;
*[!0-9,]* | ,* | *, | *,,*) die "--busy wants run numbers (1,3) or all, not '$busy'" ;;
esac
if [ -n "$only" ]; then
	case $only in
	*[!0-9,]* | ,* | *, | *,,*) die "--only wants run numbers (4,5), not '$only'" ;;
	esac
	for k in ${only//,/ }; do
		if [ "$k" -lt 1 ] || [ "$k" -gt "$runs" ]; then
			die "--only: run $k is not one of the $runs runs"
		fi
	done
	only=$(tr , '\n' <<<"$only" | sed 's/^0*//' | sort -nu | paste -sd ,)
	which="runs $only of $runs"
else
	only=$(seq -s , 1 "$runs")
	which="$runs runs"
fi
ran=$(tr , '\n' <<<"$only" | wc -l)
[ -z "$papi_src" ] || [ -e "$papi_src" ] || die "no PAPI source at $papi_src"
commit=$(git -C "$from" rev-parse -q --verify "${rev:-HEAD}^{commit}") ||
	die "no commit ${rev:-HEAD} in $from"
rev=$commit
if [ -z "$work" ]; then
	work=$(mktemp -d "${TMPDIR:-/var/tmp}/lope-soak.XXXXXX")
else
	mkdir -p "$work"
	work=$(cd "$work" && pwd)
fi
ncpu=$(getconf _NPROCESSORS_ONLN)

loops=() # the busy loops' pids; the command's is its process group's
cmd_pid=
stop_busy() {
	[ ${#loops[@]} -eq 0 ] || kill "${loops[@]}" 2>/dev/null || true
	[ -z "$cmd_pid" ] || kill -- "-$cmd_pid" 2>/dev/null || true
	wait "${loops[@]}" $cmd_pid 2>/dev/null || true
	loops=() cmd_pid=
}
trap stop_busy EXIT
trap 'stop_busy; exit 130' INT TERM

in_list() { # in_list K LIST: K is one of LIST's comma-separated numbers
	case ,$2, in *,$1,*) true ;; *) false ;; esac
}
is_busy() {
	[ "$busy" = all ] || in_list "$1" "$busy"
}

echo "soak: scripts/test.sh, $which, on $(git -C "$from" log -1 --format='%h %s' "$rev" | cut -c1-60)"
echo "soak: from $from, logs in $work, $ncpu CPUs, busy runs: ${busy:-none}${busy_cmd:+, with: nice $busy_cmd}"
failures=$work/failures # "run<TAB>program: case" a line
: >"$failures"
bad_runs=0
for i in ${only//,/ }; do
	dir=$work/run-$i log=$work/run-$i.log
	rm -rf "$dir"
	git clone -q --no-checkout "$from" "$dir"
	git -C "$dir" checkout -q --detach "$rev"
	if [ -n "$papi_src" ]; then
		(cd "$dir" && scripts/get-papi-src.sh "$papi_src") >"$log" 2>&1 ||
			die "run $i: scripts/get-papi-src.sh $papi_src failed ($log)"
	fi
	what=quiet
	if is_busy "$i"; then
		what="busy ($ncpu loops)"
		for _ in $(seq 1 "$ncpu"); do
			sh -c 'while :; do :; done' &
			loops+=($!)
		done
		if [ -n "$busy_cmd" ]; then
			what="$what and: nice $busy_cmd"
			# Its own session, to stop it whole; setsid also gives it
			# its own autogroup where the kernel has them, whose CPU
			# share nice alone would not lower: nice the group as well.
			# shellcheck disable=SC2016 # $1 is expanded by that sh
			setsid sh -c 'echo 10 2>/dev/null >/proc/self/autogroup
				exec nice sh -c "$1"' sh "while :; do $busy_cmd; done" \
				>"$work/busy-cmd-$i.log" 2>&1 &
			cmd_pid=$!
		fi
	fi
	t0=$(date +%s)
	rc=0
	(cd "$dir" && scripts/test.sh) >>"$log" 2>&1 || rc=$?
	t=$(($(date +%s) - t0))
	stop_busy
	summary=$(tail -n 1 "$log")
	case $summary in
	*" passed, "*" failed, "*" skipped") ;;
	*) summary="no summary line (exit $rc)" ;;
	esac
	case $summary in *" 0 failed,"*) [ "$rc" -eq 0 ] ;; *) false ;; esac ||
		bad_runs=$((bad_runs + 1))
	printf 'run %d/%d, %s: %s in %d min %02d s\n' "$i" "$runs" "$what" \
		"$summary" $((t / 60)) $((t % 60))
	# "## program" heads each program's lines in the runner's output.
	awk -v run="$i" '
		/^## / { prog = substr($0, 4); sub(/ \[.*$/, "", prog) }
		/^FAIL: / {
			c = substr($0, 7); sub(/: .*/, "", c)
			print run "\t" (prog == "" ? "" : prog ": ") c
		}' "$log" >>"$failures"
	[ "$keep" = 1 ] || rm -rf "$dir"
done

if [ -s "$failures" ]; then
	echo
	echo "failed cases (runs failed in / runs):"
	awk -F '\t' -v n="$ran" '
		!seen[$1 FS $2]++ { count[$2]++; which[$2] = which[$2] (which[$2] == "" ? "" : ",") $1 }
		END { for (c in count) printf "%d/%d\t%s  (runs %s)\n", count[c], n, c, which[c] }' \
		"$failures" | sort -t '/' -k1,1nr -k2 | sed 's/\t/  /'
fi
echo "soak: $which, $bad_runs with failures"
[ "$bad_runs" -eq 0 ]
