#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_papi_stat.sh: utils/papi_stat (doc/papi_stat.1).
#
#  - Against Debian's perf stat (linux-perf), same commands, the least of
#    three runs of each compared (SKIP without perf):
#      page-faults      dd touching a 32 MiB buffer   5 % or 50 faults
#                       the same dd as a child of sh  5 % or 50 faults
#  - Against the command's own view of itself, in the same run (a program
#    built by the test; SKIP without a C compiler): task-clock at least the
#    command's own task-clock over 300 ms of spinning, at most that plus
#    the rest of the elapsed time; context switches at least the
#    command's own over 300 short sleeps, at most what perf stat counts
#    for papi_stat and the command together (SKIP without perf).
#  - Counting starts at the exec: a static 3-instruction program
#    (assembly below, needs a C compiler) takes exactly 1 user-mode page
#    fault for both tools, and with the kernel's the two agree within 2;
#    with a core PMU (SKIP without one, ctests/core_pmu.sh),
#    PAPI_TOT_INS in the user domain is exactly 3.  (That the launcher's
#    CPU time before the exec is left out is proven by
#    test_enable_on_exec.)
#  - Exit status passed through (exit 3 -> 3, SIGTERM -> 143); a command
#    that cannot be executed -> 127, a message naming it, no report, no
#    perf_event descriptor open and no child left when papi_stat exits (an
#    LD_PRELOAD destructor reads /proc/self; SKIP without a C compiler); an
#    unknown event -> 2, a message naming it, and the command never runs;
#    SIGINT after 0.3 s of `sleep` -> the report is still printed, 130.
#  - -i leaves the children out: sh running that dd, < 4000 faults.
#  - An event of a component that cannot attach (msr::tsc of the uncore
#    component; SKIP without it) counts over the wall time, marked so.
#  - Output: the default events and the note saying which were chosen;
#    -r 3 prints "(3 runs)" and a +- spread on every line; -x SEP prints
#    value SEP unit SEP event SEP spread; -o FILE writes the report there
#    and nothing of it to stderr, the command's own output untouched.
#
# Report protocol: ctests/lib/report.h (PASS:/FAIL:/SKIP: lines, "# " info).
set -u

# shellcheck source=../report.sh
. "$(dirname "$0")/../report.sh"
check() { # name condition-status reason
	if [ "$2" -eq 0 ]; then pass "$1"; else fail "$1" "$3"; fi
}

top=$(cd "$(dirname "$0")/../.." && pwd)
ps=${top_builddir:-$top}/utils/papi_stat
if [ ! -x "$ps" ]; then
	fail setup "$ps was not built"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-papi-stat.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# shellcheck source=../core_pmu.sh
. "$top/ctests/core_pmu.sh"
have_pmu=0
core_pmu >/dev/null && have_pmu=1
have_perf=0
if command -v perf >/dev/null 2>&1 &&
	perf stat -x, -e task-clock true >/dev/null 2>&1; then
	have_perf=1
fi
cc=${CC:-cc}
have_cc=0
command -v "$cc" >/dev/null 2>&1 && have_cc=1
info "papi_stat: $ps; core PMU: $have_pmu; perf: $have_perf; cc: $have_cc"

# The value of event $1 in papi_stat's CSV (value,unit,event,spread).
ps_val() { awk -F, -v e="$1" '$3 == e { print $1 }' "$2"; }
# The value of event $1 in perf stat's CSV (value,unit,event,...).
perf_val() { awk -F, -v e="$1" '$3 == e { print $1 }' "$2"; }
# within A B REL ABS: |A - B| <= max(REL * B, ABS)
within() {
	awk -v a="$1" -v b="$2" -v r="$3" -v t="$4" 'BEGIN {
		d = a - b; if (d < 0) d = -d
		m = r * b; if (m < t) m = t
		exit !(a != "" && b != "" && d <= m) }'
}

# ---------------------------------------------------------------------
# Default events.

"$ps" -x, -- true 2>def.out
rc=$?
check default_exit0 "$rc" "papi_stat -- true exited $rc: $(head -c 300 def.out)"
missing=
for e in perf::TASK-CLOCK perf::CONTEXT-SWITCHES perf::CPU-MIGRATIONS \
	perf::PAGE-FAULTS; do
	v=$(ps_val "$e" def.out)
	case $v in '' | *[!0-9]*) missing="$missing $e='$v'" ;; esac
done
check default_software_events "$([ -z "$missing" ]; echo $?)" \
	"not counted:$missing"
note=$(grep -m1 '^# default events:' def.out)
info "${note#\# }"
if [ "$have_pmu" = 0 ]; then
	grep -q 'software only' <<<"$note"
	check default_note_says_software_only $? \
		"no core PMU, expected 'software only' in '$note'"
else
	[ -n "$note" ]
	check default_note_present $? "no '# default events:' line"
fi

# ---------------------------------------------------------------------
# Against perf stat.

# The smallest of 3 runs of each tool, alternating: a busy machine only
# adds preemptions and CPU time, so the minimum is the command's own.
min_of() { sort -g | awk 'NF { print; exit }'; }
compare() { # name perf-event papi-event scale rel abs -- command...
	local name=$1 pe=$2 qe=$3 scale=$4 rel=$5 abs=$6 a b
	shift 7
	: >a.vals
	: >b.vals
	for _ in 1 2 3; do
		perf stat -x, -o perf.out -e "$pe" -- "$@" >/dev/null 2>&1
		perf_val "$pe" perf.out >>b.vals
		"$ps" -x, -o ps.out -e "$qe" -- "$@" >/dev/null 2>&1
		ps_val "$qe" ps.out >>a.vals
	done
	b=$(min_of <b.vals)
	a=$(min_of <a.vals)
	a=$(awk -v a="$a" -v s="$scale" 'BEGIN { if (a != "") print a * s }')
	info "$name: papi_stat $a, perf stat $b, least of 3 (tolerance ${rel} or $abs)"
	within "$a" "$b" "$rel" "$abs"
	check "$name" $? "papi_stat $qe=${a:-none}, perf stat $pe=${b:-none}: beyond ${rel}/$abs"
}

dd32='dd if=/dev/zero of=/dev/null bs=32M count=1 2>/dev/null; true'
# Page faults do not depend on scheduling: the two tools agree within a
# few of dd's 8000-odd.  5 %, so that a count 10 % off fails (a tolerance
# of 10 % let it through).
if [ "$have_perf" = 1 ]; then
	compare perf_page_faults page-faults perf::PAGE-FAULTS 1 0.05 50 -- \
		dd if=/dev/zero of=/dev/null bs=32M count=1
	# dd is a child of sh here: counted with it, as perf stat does
	compare perf_page_faults_children page-faults perf::PAGE-FAULTS \
		1 0.05 50 -- sh -c "$dd32"
else
	for c in perf_page_faults perf_page_faults_children; do
		skip "$c" "perf stat not usable (Debian package linux-perf)"
	done
fi

# ---------------------------------------------------------------------
# Against the command's own view of itself, in the same run.
#
# selfspan MS N sleeps 100 us N times, then spins until its own
# task-clock (a counter it opens on itself) has grown MS ms; it prints
# its task-clock over all that, the wall time within it (read inside the
# task-clock's reads) and its own context switches over it (getrusage).
# papi_stat counts the whole process from its exec to its exit, so:
#  - its task-clock is at least the command's own over that part (the
#    same kernel clock of the same task: time the host steals is in
#    both), and at most that plus papi_stat's elapsed time (from the
#    release of the child to its reaping) outside the part: a single
#    task's clock does not outrun the wall clock;
#  - its context switches are at least the command's own over that part,
#    and at most what perf stat, running papi_stat, counts in the same
#    run for papi_stat and the command together.
# Counting another task, a count 10 % off or a lost one falls outside:
# the slack is the exec and the exit (a few ms of 300) and papi_stat's
# own switches (about 10 of 300 and more).
selfspan=
if [ "$have_cc" = 1 ]; then
	cat >selfspan.c <<'EOF'
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long task_clock(int fd)
{
	long long v = -1;

	return read(fd, &v, sizeof(v)) == sizeof(v) ? v : -1;
}

static long long switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

int main(int argc, char **argv)
{
	struct timespec nap = { 0, 100000 };
	struct perf_event_attr a;
	long long want, n, i, t0, t1, w0, w1, c0, c1;
	int fd;

	if (argc != 3)
		return 2;
	want = atoll(argv[1]) * 1000000LL;
	n = atoll(argv[2]);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		return 1;
	}
	c0 = switches();
	t0 = task_clock(fd);
	w0 = mono();
	for (i = 0; i < n; i++)
		nanosleep(&nap, NULL);
	do
		t1 = task_clock(fd);
	while (t1 >= 0 && t1 - t0 < want);
	w1 = mono();
	t1 = task_clock(fd);
	c1 = switches();
	if (t0 < 0 || t1 < 0)
		return 1;
	printf("%lld %lld %lld\n", t1 - t0, w1 - w0, c1 - c0);
	return 0;
}
EOF
	if "$cc" -O2 -o selfspan selfspan.c 2>cc.err; then
		selfspan=$tmp/selfspan
	else
		info "selfspan.c not built: $(head -c 200 cc.err)"
	fi
fi

if [ -z "$selfspan" ]; then
	for c in task_clock_within_command_span perf_context_switches; do
		skip "$c" "needs a C compiler ($cc)"
	done
else
	counted=("-x," -o ps.out -e "perf::TASK-CLOCK,perf::CONTEXT-SWITCHES"
		-- "$selfspan" 300 300)
	if [ "$have_perf" = 1 ]; then
		perf stat -x, -o perf.out -e context-switches -- \
			"$ps" "${counted[@]}" >self.out
	else
		"$ps" "${counted[@]}" >self.out
	fi
	read -r tc wall cs <self.out
	a=$(ps_val perf::TASK-CLOCK ps.out)
	el=$(ps_val time-elapsed ps.out)
	hi=$(awk -v t="$tc" -v w="$wall" -v e="$el" 'BEGIN {
		if (t != "" && e != "") printf "%.0f", t + e * 1e9 - w }')
	info "selfspan: papi_stat task-clock ${a:-none} ns over ${el:-none} s; the command's own ${tc:-none} ns within ${wall:-none} ns of wall time"
	awk -v a="$a" -v lo="$tc" -v hi="$hi" 'BEGIN {
		exit !(a != "" && lo != "" && hi != "" && a >= lo && a <= hi) }'
	check task_clock_within_command_span $? \
		"papi_stat perf::TASK-CLOCK=${a:-none} ns, the command's own task-clock ${tc:-none}..${hi:-none} ns"
	if [ "$have_perf" = 1 ]; then
		a=$(ps_val perf::CONTEXT-SWITCHES ps.out)
		b=$(perf_val context-switches perf.out)
		info "selfspan: papi_stat context switches ${a:-none}; the command's own ${cs:-none}, perf stat's of papi_stat and the command ${b:-none}"
		awk -v a="$a" -v lo="$cs" -v hi="$b" 'BEGIN {
			exit !(a != "" && lo != "" && hi != "" &&
				a >= lo && a <= hi) }'
		check perf_context_switches $? \
			"papi_stat perf::CONTEXT-SWITCHES=${a:-none}, the command's own ${cs:-none}, perf stat of both ${b:-none}"
	else
		skip perf_context_switches \
			"perf stat not usable (Debian package linux-perf)"
	fi
fi

# -i: the children are not counted (sh alone takes well under 4000 of
# dd's 8000-odd faults).
"$ps" -i -x, -o noinh.out -e perf::PAGE-FAULTS -- sh -c "$dd32"
a=$(ps_val perf::PAGE-FAULTS noinh.out)
info "-i, sh running dd: ${a:-none} page faults"
awk -v a="$a" 'BEGIN { exit !(a != "" && a > 0 && a < 4000) }'
check no_inherit_leaves_children_out $? "${a:-none} page faults with -i"

# ---------------------------------------------------------------------
# Counting starts at the exec: a static 3-instruction program.

three=
if [ "$have_cc" = 1 ]; then
	cat >three.s <<'EOF'
	.globl _start
	.text
_start:
	mov $60, %eax
	xor %edi, %edi
	syscall
EOF
	if [ "$(uname -m)" = x86_64 ] &&
		"$cc" -nostdlib -static -o three three.s 2>cc.err; then
		three=$tmp/three
	else
		info "three.s not built: $(head -c 200 cc.err 2>/dev/null)"
	fi
fi

# In the user domain the program takes exactly one fault (its text page)
# for both tools.  With the kernel's, exec's own faults on the new stack
# vary from 1 to 3 from run to run, for perf stat as for papi_stat.
if [ -n "$three" ] && [ "$have_perf" = 1 ]; then
	for d in user all; do
		pe=page-faults
		[ "$d" = user ] && pe=page-faults:u
		perf stat -x, -o perf.out -e "$pe" -- "$three"
		"$ps" -d "$d" -x, -o ps.out -e perf::PAGE-FAULTS -- "$three"
		a=$(ps_val perf::PAGE-FAULTS ps.out)
		b=$(perf_val "$pe" perf.out)
		info "three, $d domain: page faults papi_stat $a, perf stat $b"
		if [ "$d" = user ]; then
			[ "$a" = 1 ] && [ "$b" = 1 ]
		else
			within "$a" "$b" 0 2
		fi
		check "three_page_faults_like_perf_$d" $? \
			"papi_stat ${a:-none}, perf stat ${b:-none}"
	done
else
	for d in user all; do
		skip "three_page_faults_like_perf_$d" \
			"needs x86-64, a C compiler ($cc) and perf"
	done
fi

if [ "$have_pmu" = 0 ]; then
	skip three_instructions_exactly_3 \
		"$NO_CORE_PMU_REASON"
elif [ -z "$three" ]; then
	skip three_instructions_exactly_3 "needs x86-64 and a C compiler ($cc)"
else
	"$ps" -d user -x, -o ps.out -e PAPI_TOT_INS -- "$three"
	a=$(ps_val PAPI_TOT_INS ps.out)
	[ "$a" = 3 ]
	check three_instructions_exactly_3 $? \
		"PAPI_TOT_INS in the user domain: ${a:-none} ($(tr '\n' ' ' <ps.out))"
fi

# ---------------------------------------------------------------------
# Exit statuses and errors.

"$ps" -x, -- sh -c 'exit 3' 2>/dev/null
rc=$?
check exit_status_3 "$([ "$rc" = 3 ]; echo $?)" "exit 3 gave $rc"

"$ps" -x, -- sh -c 'kill -TERM $$' 2>sig.out
rc=$?
check killed_by_sigterm_143 "$([ "$rc" = 143 ]; echo $?)" "gave $rc"
grep -q ',time-elapsed,' sig.out
check killed_by_sigterm_report $? "no report: $(head -c 300 sig.out)"

"$ps" -r 3 -x, -- ./no-such-command-lope 2>noexec.err >noexec.out
rc=$?
check nonexistent_exit_127 "$([ "$rc" = 127 ]; echo $?)" "gave $rc"
grep -q "no-such-command-lope" noexec.err
check nonexistent_message "$?" "stderr: $(head -c 300 noexec.err)"
[ "$(grep -c 'no-such-command-lope' noexec.err)" = 1 ] &&
	! grep -q 'time-elapsed' noexec.err
check nonexistent_no_report_one_try $? \
	"expected one message and no report: $(head -c 300 noexec.err)"

# No perf_event descriptor left open at exit, and no child left unreaped:
# an LD_PRELOAD destructor in papi_stat's process writes "FDS CHILDREN",
# from /proc/self/fd and /proc/self/task/PID/children (-1: no such file).
cat >fdcheck.c <<'EOF'
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
__attribute__((destructor)) static void fdcheck(void)
{
	char path[512], link[256], out[512];
	const char *dir = getenv("FDCHECK_DIR");
	struct dirent *d;
	DIR *fds;
	FILE *f;
	int n = 0, kids = -1, c, prev = ' ';
	ssize_t len;

	if (!dir || !(fds = opendir("/proc/self/fd")))
		return;
	while ((d = readdir(fds))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", d->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len > 0) {
			link[len] = '\0';
			n += strstr(link, "perf_event") != NULL;
		}
	}
	closedir(fds);
	snprintf(path, sizeof(path), "/proc/self/task/%d/children",
		 (int)getpid());
	if ((f = fopen(path, "r"))) {
		for (kids = 0; (c = fgetc(f)) != EOF; prev = c)
			kids += c != ' ' && prev == ' ';
		fclose(f);
	}
	snprintf(out, sizeof(out), "%s/%d", dir, (int)getpid());
	if ((f = fopen(out, "w"))) {
		fprintf(f, "%d %d\n", n, kids);
		fclose(f);
	}
}
EOF
# fds_at_exit CASE COMMAND: papi_stat -- COMMAND under the checker; the
# case: no perf_event descriptor open when papi_stat exits (n); kids: the
# children it left, as the checker found them.
fds_at_exit() {
	local pid
	FDCHECK_DIR=$tmp/fds LD_PRELOAD=$tmp/fdcheck.so "$ps" -- "$2" 2>/dev/null &
	pid=$!
	wait "$pid"
	read -r n kids <"fds/$pid" 2>/dev/null
	[ "${n:-}" = 0 ]
	check "$1" $? \
		"papi_stat had ${n:-unknown (destructor did not run)} perf_event fds open at exit"
}
if [ "$have_cc" = 1 ] && "$cc" -shared -fPIC -o fdcheck.so fdcheck.c 2>cc.err; then
	mkdir -p fds
	fds_at_exit nonexistent_no_perf_fd_at_exit ./no-such-command-lope
	if [ "${kids:--1}" = -1 ]; then
		skip nonexistent_child_reaped "no /proc/PID/task/TID/children here"
	else
		[ "$kids" = 0 ]
		check nonexistent_child_reaped $? \
			"papi_stat exited with $kids child(ren) not reaped"
	fi
	fds_at_exit success_no_perf_fd_at_exit true
else
	for c in nonexistent_no_perf_fd_at_exit nonexistent_child_reaped \
		success_no_perf_fd_at_exit; do
		skip "$c" "no C compiler ($cc) for the LD_PRELOAD checker"
	done
fi

rm -f marker
"$ps" -e perf::PAGE-FAULTS,perf::NO-SUCH-EVENT -- touch marker 2>unk.err
rc=$?
check unknown_event_exit_2 "$([ "$rc" = 2 ]; echo $?)" "gave $rc"
grep -q 'perf::NO-SUCH-EVENT' unk.err
check unknown_event_named "$?" "stderr: $(head -c 300 unk.err)"
[ ! -e marker ]
check unknown_event_command_not_run $? "the command ran (marker created)"

"$ps" -x, -- 2>usage.err
rc=$?
check no_command_exit_2 "$([ "$rc" = 2 ]; echo $?)" "gave $rc"
"$ps" -r 0 -- true 2>usage.err
rc=$?
check bad_repeat_exit_2 "$([ "$rc" = 2 ]; echo $?)" "gave $rc"

# SIGINT: the command is stopped and what was counted is printed.  A
# script's background job starts with SIGINT ignored, which papi_stat
# respects (as nohup needs): env gives it the default back.  The signal
# comes 0.3 s after the command was seen running (papi_stat's child named
# sleep: other runs of this test may have theirs), however long papi_stat
# took to start it, so the elapsed time is at least 0.3 s; it is under
# the 7.31 s the sleep would have lasted had it not been stopped.
env --default-signal=INT "$ps" -x, -o int.out -- sleep 7.31 &
pid=$!
child=
for _ in $(seq 200); do
	child=$(pgrep -P "$pid" -x sleep) && break
	sleep 0.05
done
sleep 0.3
kill -INT "$pid"
wait "$pid"
rc=$?
check sigint_exit_130 "$([ "$rc" = 130 ]; echo $?)" "gave $rc"
el=$(ps_val time-elapsed int.out)
awk -v e="$el" 'BEGIN { exit !(e != "" && e >= 0.3 && e < 7.31) }'
check sigint_report_printed $? \
	"elapsed '${el}' (want 0.3..7.31 s; sleep seen running: ${child:-no}): $(tr '\n' ' ' <int.out 2>/dev/null | cut -c1-300)"
[ -n "$(ps_val perf::TASK-CLOCK int.out)" ]
check sigint_report_has_counts $? "no perf::TASK-CLOCK line"
[ -n "$child" ] && ! kill -0 "$child" 2>/dev/null
check sigint_command_stopped $? \
	"papi_stat's sleep (pid ${child:-never seen}) still runs"

# An event of a component that cannot attach (the uncore component's
# msr::tsc, system-wide) counts over the command's wall time: its rate is
# a plausible TSC frequency, and the line says it is not per process.
if "$ps" -x, -o tsc.out -e msr::tsc -- sleep 0.1 2>tsc.err; then
	t=$(ps_val msr::tsc tsc.out)
	el=$(ps_val time-elapsed tsc.out)
	info "msr::tsc over sleep 0.1: $t ticks in $el s"
	awk -v t="$t" -v e="$el" 'BEGIN {
		exit !(t != "" && e > 0 && t / e > 1e8 && t / e < 1e10) }'
	check not_attachable_counts_wall_time $? \
		"msr::tsc ${t:-none} in ${el:-none} s is not 0.1 to 10 GHz"
	"$ps" -e msr::tsc -- true 2>tsc.human
	grep -q 'msr::tsc .*# not per process' tsc.human
	check not_attachable_marked $? "$(tr '\n' ' ' <tsc.human | cut -c1-300)"
else
	for c in not_attachable_counts_wall_time not_attachable_marked; do
		skip "$c" "msr::tsc not available: $(head -c 200 tsc.err)"
	done
fi

# ---------------------------------------------------------------------
# Output forms.

"$ps" -r 3 -- true 2>rep.out
lines=$(grep -cE '^ +[0-9]+ +perf::[A-Z-]+ .*\( \+- +[0-9.]+% \)$' rep.out)
grep -q "Performance counter stats for 'true' (3 runs):" rep.out &&
	[ "$lines" = 4 ] &&
	grep -qE 'seconds time elapsed +\( \+- +[0-9.]+% \)$' rep.out
check repeat_mean_and_spread $? \
	"expected a (3 runs) header and +- on 4 events and the time: $(head -c 600 rep.out)"

"$ps" -r 3 -x ';' -e perf::PAGE-FAULTS,perf::TASK-CLOCK -- true 2>csv.out
bad=$(grep -v '^#' csv.out | awk -F';' '
	NF != 4 || $1 !~ /^[0-9.]+$/ || $4 !~ /^[0-9.]+%$/ { print }')
[ -z "$bad" ] && [ "$(grep -vc '^#' csv.out)" = 3 ] &&
	grep -q '^[0-9]*;;perf::PAGE-FAULTS;' csv.out &&
	grep -q '^[0-9]*;ns;perf::TASK-CLOCK;' csv.out &&
	grep -q '^[0-9.]*;s;time-elapsed;' csv.out
check csv_fields $? "$(tr '\n' '|' <csv.out)"

"$ps" -o file.out -- echo hello >cmd.out 2>cmd.err
rc=$?
[ "$rc" = 0 ] && grep -q 'Performance counter stats for' file.out &&
	! grep -q 'Performance counter stats' cmd.err &&
	[ "$(cat cmd.out)" = hello ]
check output_file $? "rc $rc, file: $(head -c 200 file.out), stderr: $(head -c 200 cmd.err), stdout: $(head -c 100 cmd.out)"

[ "$nfail" -eq 0 ]
