#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_soak.sh: scripts/soak.sh on a repository of its own whose
# scripts/test.sh fails known cases in known runs, as the real one prints
# them: the table counts each case in the runs it failed in, the busy runs
# have one loop per CPU and the others none, no loop outlives the soak,
# the exit status says whether a run failed, a soak in parts (--only)
# numbers and loads its runs as the whole one would, bad arguments are
# refused.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/ctests/report.sh"

need_tool soak_command git "soak.sh clones; Debian: apt-get install git"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ncpu=$(getconf _NPROCESSORS_ONLN)

# The fake suite: run k fails test_a's case_x in runs 1 and 3 and the
# unknown-CPU case_y in run 3; it records the soak's busy loops it sees
# (children of the soak.sh it runs under) and their pids.
repo=$tmp/repo
mkdir -p "$repo/scripts"
cat >"$repo/scripts/test.sh" <<'FAKE'
#!/usr/bin/env bash
state=$SOAK_FAKE_STATE
n=$(($(cat "$state/runs" 2>/dev/null || echo 0) + 1))
echo "$n" >"$state/runs"
pid=$$ soak=
while [ "$pid" -gt 1 ]; do
	pid=$(awk '{ print $4 }' "/proc/$pid/stat")
	if tr '\0' ' ' <"/proc/$pid/cmdline" | grep 'soak\.sh' >/dev/null; then
		soak=$pid
		break
	fi
done
for p in /proc/[0-9]*; do
	[ "$(awk '{ print $4 }' "$p/stat" 2>/dev/null)" = "$soak" ] &&
		[ "$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)" = "sh -c while :; do :; done " ] &&
		echo "${p#/proc/}"
done >"$state/loops.$n"
# In a busy run, wait for the busy command's first record (10 s at most).
if [ -s "$state/loops.$n" ]; then
	for _ in $(seq 100); do
		[ -s "$state/nice" ] && break
		sleep 0.1
	done
fi
f=0
echo "## ctests/papi/test_a"
echo "PASS: one"
case $n in 1 | 3) echo "FAIL: case_x: reason of run $n"; f=$((f + 1)) ;; esac
echo "## ctests/papi/test_b [LIBPFM_FORCE_PMU=perf]"
[ "$n" != 3 ] || { echo "FAIL: [unknown CPU] case_y: bad"; f=$((f + 1)); }
echo
echo "1 passed, $f failed, 0 skipped"
[ "$f" -eq 0 ]
FAKE
chmod +x "$repo/scripts/test.sh"
git -C "$repo" init -q
git -C "$repo" add scripts/test.sh
git -C "$repo" -c user.name=t -c user.email=t@t commit -qm fake

state=$tmp/state
mkdir "$state"
export SOAK_FAKE_STATE=$state
out=$tmp/out
# check NAME REASON CMD...: PASS NAME when CMD succeeds, else FAIL it.
check() {
	local name=$1 why=$2
	shift 2
	if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}
has() { grep -qx -- "$1" "$out"; }

rc=0
# The busy command records its nice value and its autogroup's (where the
# kernel has autogroups), as a compile beside the loops would run.
# shellcheck disable=SC2016 # expanded by the busy command's shell
busy_cmd='echo "$(nice) $(cat /proc/self/autogroup 2>/dev/null)" >>"$SOAK_FAKE_STATE/nice"; sleep 0.1'
"$top/scripts/soak.sh" -n 4 --busy 2,3 --busy-cmd "$busy_cmd" --from "$repo" --work "$tmp/work" >"$out" 2>&1 || rc=$?
sed 's/^/# /' "$out"
check failed_runs_exit_1 "exit $rc, expected 1" [ "$rc" -eq 1 ]
check case_counted_in_its_runs "no line '2/4  ctests/papi/test_a: case_x  (runs 1,3)'" \
	has '2/4  ctests/papi/test_a: case_x  (runs 1,3)'
check unknown_cpu_case_counted "no line for test_b's [unknown CPU] case_y in run 3" \
	has '1/4  ctests/papi/test_b: \[unknown CPU\] case_y  (runs 3)'
check a_line_a_run "expected 4 'run k/4' lines, run 2 busy and passing" \
	grep -q "^run 2/4, busy ($ncpu loops) and: nice .*: 1 passed, 0 failed, 0 skipped in " "$out"
check last_line "last line: $(tail -n 1 "$out")" has 'soak: 4 runs, 2 with failures'
loops=$(for k in 1 2 3 4; do printf '%s ' "$(wc -l <"$state/loops.$k")"; done)
check busy_loops_only_in_busy_runs \
	"loops seen in runs 1-4: $loops, expected 0 $ncpu $ncpu 0" [ "$loops" = "0 $ncpu $ncpu 0 " ]
# niced: every record says nice 10 and, with autogroups, "... nice 10".
niced() {
	[ -s "$state/nice" ] || return 1
	if [ -e /proc/self/autogroup ]; then
		! grep -qv '^10 /autogroup-[0-9]* nice 10$' "$state/nice"
	else
		! grep -qvx '10 ' "$state/nice"
	fi
}
check busy_command_niced "records: $(sort -u "$state/nice" 2>/dev/null | tr '\n' '|')" niced
left=
while read -r p; do
	! kill -0 "$p" 2>/dev/null || left="$left $p"
done < <(cat "$state/loops.2" "$state/loops.3")
check no_loop_outlives_the_soak "still running:$left" [ -z "$left" ]
kept=$(cd "$tmp/work" && printf "%s " *)
check clones_removed_logs_kept "work dir has: $kept" \
	[ "$kept" = "busy-cmd-2.log busy-cmd-3.log failures run-1.log run-2.log run-3.log run-4.log " ]

# Every run passing: exit 0 and no table.
echo 3 >"$state/runs" # the next runs are 4 and 5: no failure
rc=0
"$top/scripts/soak.sh" -n 2 --from "$repo" --work "$tmp/work2" >"$out" 2>&1 || rc=$?
# shellcheck disable=SC2016 # expanded by the eval, when the check runs
check clean_soak_exit_0 "exit $rc: $(tr '\n' '|' <"$out")" \
	eval '[ "$rc" -eq 0 ] && ! grep -q "^failed cases" "$out" && has "soak: 2 runs, 0 with failures"'

# A soak in parts: runs 3 and 4 of 4, numbered and loaded as in the whole
# soak (run 3 busy, run 4 quiet), counted out of the two runs done.
echo 0 >"$state/runs" # the fake's runs 1 (case_x fails) and 2 (none)
rc=0
"$top/scripts/soak.sh" -n 4 --busy 2,3 --only 4,03 --from "$repo" --work "$tmp/work3" >"$out" 2>&1 || rc=$?
sed 's/^/# /' "$out"
part_run_lines() {
	grep -q "^run 3/4, busy ($ncpu loops): 1 passed, 1 failed, 0 skipped in " "$out" &&
		grep -q "^run 4/4, quiet: 1 passed, 0 failed, 0 skipped in " "$out"
}
check part_runs_numbered_as_in_the_whole \
	"expected 'run 3/4, busy ($ncpu loops)' then 'run 4/4, quiet'" part_run_lines
check part_counts_out_of_its_runs "no line '1/2  ctests/papi/test_a: case_x  (runs 3)'" \
	has '1/2  ctests/papi/test_a: case_x  (runs 3)'
check part_exit_1 "exit $rc, expected 1" [ "$rc" -eq 1 ]
check part_last_line "last line: $(tail -n 1 "$out")" \
	has 'soak: runs 3,4 of 4, 1 with failures'
loops="$(wc -l <"$state/loops.1") $(wc -l <"$state/loops.2")"
check part_busy_as_in_the_whole "loops seen in runs 3 and 4: $loops, expected $ncpu 0" \
	[ "$loops" = "$ncpu 0" ]

expect_bad_inputs "$top/scripts/soak.sh" soak "$tmp" <<'BAD'
n_0|-n 0|-n wants a positive number
n_x|-n x|-n wants a positive number
busy_word|--busy some|--busy wants run numbers
busy_empty_item|--busy 1,,2|--busy wants run numbers
only_word|--only last|--only wants run numbers
only_beyond_n|-n 2 --only 2,3|--only: run 3 is not one of the 2 runs
only_0|--only 0|--only: run 0 is not one of the 5 runs
rev|--rev nosuchrev|no commit nosuchrev in
papi_src|--papi-src /nonexistent|no PAPI source at /nonexistent
option|--what|unknown argument: --what
BAD
[ "$nfail" -eq 0 ]
