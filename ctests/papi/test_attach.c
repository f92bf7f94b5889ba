/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_attach: third-party counting with PAPI_attach / PAPI_detach /
 * PAPI_set_opt(PAPI_ATTACH) on real software events.
 *
 * A child process, the target (ctests/lib/target.h), is held on a pipe
 * until the counters exist, then told to spin or touch pages while this
 * process sleeps in read(2).
 * An attached perf::TASK-CLOCK must grow by the target's task-clock and
 * not by ours; detached, the same set counts us again.  Each count lies
 * within the kernel's own task-clock of the task it should count, read
 * just before and just after the calls that begin and end the interval
 * (span.h): never the target's CPU time, which the host's stolen time
 * leaves behind task-clock.  A target stopped under
 * ptrace (as PAPI's own attach ctests drive it) counts nothing until
 * PTRACE_CONT.  Bad targets (a pid
 * that does not exist, a process we may not trace) give a PAPI error and
 * leak no descriptor.  An attached set is never read in user space: every
 * PAPI_read of it makes read(2) calls (counted by the interposer,
 * ctests/lib/interpose.h).
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <linux/perf_event.h>
#include <sys/ptrace.h>

#include "interpose.h"
#include "papi_interpose.h"
#include "papi_util.h"
#include "span.h"

static const char *const tc_pf[] = { "perf::TASK-CLOCK", "perf::PAGE-FAULTS" };

/* @s: the task-clock of @pid (span.h), or the case @name fails: 0, -1. */
static int open_span(struct span *s, pid_t pid, const char *name)
{
	if (span_open(s, PERF_COUNT_SW_TASK_CLOCK, pid, 0) == 0)
		return 0;
	lope_fail(name, "the kernel's task-clock of %d: %s", (int)pid,
		  strerror(errno));
	return -1;
}

/*
 * The case @name: @rc is PAPI_OK and the set's task-clock grew from
 * @from to @to within @s, the target's own task-clock over that interval
 * (@when).
 */
static void check_target_grew(const char *name, int rc, long long from,
			      long long to, const struct span *s,
			      const char *when)
{
	lope_check(rc == PAPI_OK && span_holds(s, to - from), name,
		   "rc=%s task-clock %lld -> %lld ns %s; the target's own "
		   "grew %lld..%lld ns",
		   papi_err(rc), from, to, when, span_lo(s), span_hi(s));
}

/*
 * The case @name: @rc is PAPI_OK, the target exited with status 0 (@st)
 * and the set's task-clock @got (@what) lies within @s, the target's own.
 */
static void check_target_exited(const char *name, int rc, int st, long long got,
				const struct span *s, const char *what)
{
	lope_check(rc == PAPI_OK && st == 0 && span_holds(s, got), name,
		   "rc=%s exit %d task-clock %lld ns %s, the target's own "
		   "%lld..%lld ns",
		   papi_err(rc), st, got, what, span_lo(s), span_hi(s));
}

/* A set attached to @pid before its events are added (PAPI_attach). */
static int attached_set(int *set, pid_t pid, const char *const *names, int n)
{
	int rc, i;

	rc = make_empty_set(set);
	if (rc == PAPI_OK)
		rc = PAPI_attach(*set, (unsigned long)pid);
	for (i = 0; rc == PAPI_OK && i < n; i++)
		rc = PAPI_add_named_event(*set, names[i]);
	return rc;
}

static void test_cmpinfo(void)
{
	const PAPI_component_info_t *ci = cmpinfo_or_exit();

	lope_check(ci->attach == 1, "cmpinfo_attach", "attach=%d", ci->attach);
	lope_info("attach_must_ptrace=%d (PAPI's core never ptraces: the "
		  "flag tells tools the target should be stopped under "
		  "ptrace, as PAPI's attach ctests do)",
		  ci->attach_must_ptrace);
}

/* PAPI_get_opt(PAPI_ATTACH) of @set (1: attached, 0: not); the tid. */
static int get_attach(int set, unsigned long *tid)
{
	PAPI_option_t opt;
	int rc;

	memset(&opt, 0, sizeof(opt));
	opt.attach.eventset = set;
	rc = PAPI_get_opt(PAPI_ATTACH, &opt);
	*tid = opt.attach.tid;
	return rc;
}

/*
 * The main scenario: attach before add, count the target's spin and page
 * touching while we sleep, ignore our own spin, stop, detach, count us.
 * @s is the target's task-clock, @me ours.
 */
static void attach_detach(struct target *w, struct span *s, struct span *me)
{
	PAPI_option_t opt;
	long long v[2] = { 0, 0 }, v1[2], v2[2], vs[2], child, own = 0;
	int set = PAPI_NULL, rc;
	unsigned long tid;

	rc = attached_set(&set, w->pid, tc_pf, 2);
	if (!lope_check(rc == PAPI_OK, "attach_before_add", "rc=%s",
			papi_err(rc)))
		goto out;
	rc = get_attach(set, &tid);
	lope_check(rc == 1 && tid == (unsigned long)w->pid,
		   "get_opt_attach_reports_target",
		   "PAPI_get_opt(PAPI_ATTACH)=%d tid=%lu, target %d", rc, tid,
		   (int)w->pid);

	rc = call_marked(s, papi_start, set, NULL);
	if (!lope_check(rc == PAPI_OK, "attached_start", "rc=%s", papi_err(rc)))
		goto out;
	child = target_do(w, 'b', 100 * MS); /* we sleep in read(2) */
	rc = call_marked(s, PAPI_read, set, v1);
	lope_check(rc == PAPI_OK && span_holds(s, v1[0]),
		   "attached_counts_target_cpu",
		   "rc=%s task-clock %lld ns, the target's own %lld..%lld ns "
		   "(it spun %lld ns of CPU time)",
		   papi_err(rc), v1[0], span_lo(s), span_hi(s), child);

	/* Our own spin while the target sleeps must not show. */
	busy_ns(60 * MS);
	span_next(s);
	rc = call_marked(s, PAPI_read, set, v2);
	check_target_grew("attached_ignores_caller_cpu", rc, v1[0], v2[0], s,
			  "across our 60 ms spin");

	if (target_do(w, 'p', 400) != 0)
		lope_fail("attached_counts_target_page_faults",
			  "target could not touch pages");
	else {
		rc = PAPI_read(set, v);
		lope_check(rc == PAPI_OK && v[1] - v2[1] >= 360 &&
				   v[1] - v2[1] <= 400 * 3 / 2 + 64,
			   "attached_counts_target_page_faults",
			   "rc=%s page-faults +%lld for 400 pages touched by "
			   "the target",
			   papi_err(rc), v[1] - v2[1]);
	}

	/* An attached set is read with read(2), never in user space. */
	(void)papi_read_makes_reads("attached_read_uses_read_syscall", set,
				    PAPI_OK, v, 1);

	rc = PAPI_attach(set, (unsigned long)getpid());
	lope_check(rc == PAPI_EISRUN, "attach_while_running_eisrun",
		   "rc=%s, expected PAPI_EISRUN", papi_err(rc));
	rc = PAPI_detach(set);
	lope_check(rc == PAPI_EISRUN, "detach_while_running_eisrun",
		   "rc=%s, expected PAPI_EISRUN", papi_err(rc));

	span_clear(s);
	rc = call_marked(s, PAPI_read, set, v);
	if (rc == PAPI_OK)
		rc = call_marked(s, PAPI_stop, set, vs);
	check_target_grew("attached_stop", rc, v[0], vs[0], s,
			  "from a read to the stop");
	/* Stopped, the target's work is not counted: a restart reads ~0. */
	child = target_do(w, 'b', 30 * MS);
	span_clear(s);
	rc = call_marked(s, papi_start, set, NULL);
	if (rc == PAPI_OK)
		rc = call_marked(s, PAPI_read, set, v);
	lope_check(rc == PAPI_OK && span_holds(s, v[0]),
		   "attached_restart_excludes_time_stopped",
		   "rc=%s task-clock %lld ns right after restart, the "
		   "target's own %lld..%lld ns (it spun %lld ns while "
		   "stopped)",
		   papi_err(rc), v[0], span_lo(s), span_hi(s), child);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);

	rc = PAPI_detach(set);
	lope_check(rc == PAPI_OK, "detach", "rc=%s", papi_err(rc));
	rc = get_attach(set, &tid);
	lope_check(rc == 0, "get_opt_attach_after_detach",
		   "PAPI_get_opt(PAPI_ATTACH)=%d tid=%lu", rc, tid);
	rc = PAPI_detach(set);
	lope_check(rc == PAPI_EINVAL, "detach_twice_einval",
		   "rc=%s, expected PAPI_EINVAL", papi_err(rc));

	/*
	 * Detached: the set counts the caller, not the target.  We spin
	 * 40 ms, then sleep while the target spins 30 ms: ours is the
	 * count, the target's 30 ms are not in it.
	 */
	rc = call_marked(me, papi_start, set, NULL);
	if (rc == PAPI_OK) {
		own = spin_ns(40 * MS);
		child = target_do(w, 'b', 30 * MS);
		rc = call_marked(me, PAPI_read, set, v);
	}
	lope_check(rc == PAPI_OK && span_holds(me, v[0]),
		   "detached_counts_caller",
		   "rc=%s task-clock %lld ns, our own %lld..%lld ns (we spun "
		   "%lld ns, the target %lld ns)",
		   papi_err(rc), v[0], span_lo(me), span_hi(me), own, child);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);

	/* Attach again, now through PAPI_set_opt on a set with events. */
	memset(&opt, 0, sizeof(opt));
	opt.attach.eventset = set;
	opt.attach.tid = (unsigned long)w->pid;
	rc = PAPI_set_opt(PAPI_ATTACH, &opt);
	lope_check(rc == PAPI_OK, "set_opt_attach_after_add", "rc=%s",
		   papi_err(rc));
	span_clear(s);
	rc = count_target_spin(set, rc, w, 50 * MS, v, &child, s);
	lope_check(rc == PAPI_OK && span_holds(s, v[0]),
		   "reattached_counts_target",
		   "rc=%s task-clock %lld ns, the target's own %lld..%lld ns "
		   "(it spun %lld ns)",
		   papi_err(rc), v[0], span_lo(s), span_hi(s), child);
out:
	drop_set(&set);
}

static void test_attach_detach(void)
{
	struct target w;
	struct span s, me;
	int fds = fd_count();

	if (target_spawn(&w, -1) < 0) {
		lope_fail("attach_target", "fork: %s", strerror(errno));
		return;
	}
	if (open_span(&s, w.pid, "attach_target") == 0) {
		if (open_span(&me, 0, "attach_target") == 0) {
			attach_detach(&w, &s, &me);
			span_close(&me);
		}
		span_close(&s);
	}
	target_finish(&w);
	lope_check(fd_count() == fds, "attach_detach_no_fd_leak",
		   "descriptors %d before, %d after", fds, fd_count());
}

/* The target exits while attached: the final counts stay readable. */
static void test_target_exit(void)
{
	struct target w;
	struct span s;
	long long v[2] = { 0, 0 }, child;
	int set = PAPI_NULL, rc, st;
	char what[64];

	if (target_spawn(&w, -1) < 0) {
		lope_fail("read_after_target_exit", "fork: %s",
			  strerror(errno));
		return;
	}
	if (open_span(&s, w.pid, "read_after_target_exit")) {
		target_finish(&w);
		return;
	}
	rc = attached_set(&set, w.pid, tc_pf, 1);
	if (rc == PAPI_OK)
		rc = call_marked(&s, papi_start, set, NULL);
	child = rc == PAPI_OK ? target_do(&w, 'b', 50 * MS) : 0;
	st = target_finish(&w); /* exited and reaped */
	if (rc == PAPI_OK)
		rc = call_marked(&s, PAPI_read, set, v);
	snprintf(what, sizeof(what), "after it spun %lld ns", child);
	check_target_exited("read_after_target_exit", rc, st, v[0], &s, what);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	lope_check(rc == PAPI_OK, "stop_after_target_exit", "rc=%s",
		   papi_err(rc));
	drop_set(&set);
	span_close(&s);
}

/*
 * Two sets attached to two targets run at once; each counts its own
 * target's task-clock (30 and 90 ms of spinning: a mix-up shows).
 */
static void test_two_targets(void)
{
	struct target a, b;
	struct span spa, spb;
	long long va = 0, vb = 0, ca = 0, cb = 0;
	int sa = PAPI_NULL, sb = PAPI_NULL, rc;

	if (target_spawn(&a, -1) < 0 || target_spawn(&b, -1) < 0) {
		lope_fail("two_attached_sets", "fork: %s", strerror(errno));
		return;
	}
	spa.fd = spb.fd = -1;
	if (open_span(&spa, a.pid, "two_attached_sets") ||
	    open_span(&spb, b.pid, "two_attached_sets"))
		goto out;
	rc = attached_set(&sa, a.pid, tc_pf, 1);
	if (rc == PAPI_OK)
		rc = attached_set(&sb, b.pid, tc_pf, 1);
	if (rc == PAPI_OK)
		rc = call_marked(&spa, papi_start, sa, NULL);
	if (rc == PAPI_OK)
		rc = call_marked(&spb, papi_start, sb, NULL);
	lope_check(rc == PAPI_OK, "two_attached_sets_run_at_once", "rc=%s",
		   papi_err(rc));
	if (rc == PAPI_OK && target_send(&a, 'b', 30 * MS) == 0 &&
	    target_send(&b, 'b', 90 * MS) == 0) {
		ca = target_wait(&a);
		cb = target_wait(&b);
		rc = call_marked(&spa, PAPI_stop, sa, &va);
		if (rc == PAPI_OK)
			rc = call_marked(&spb, PAPI_stop, sb, &vb);
	}
	lope_check(rc == PAPI_OK && span_holds(&spa, va) &&
			   span_holds(&spb, vb),
		   "two_attached_sets_count_own_target",
		   "rc=%s set A %lld ns, target A's own %lld..%lld ns (it "
		   "spun %lld); set B %lld ns, target B's own %lld..%lld ns "
		   "(it spun %lld)",
		   papi_err(rc), va, span_lo(&spa), span_hi(&spa), ca, vb,
		   span_lo(&spb), span_hi(&spb), cb);
out:
	drop_set(&sa);
	drop_set(&sb);
	span_close(&spa);
	span_close(&spb);
	target_finish(&a);
	target_finish(&b);
}

/* Attach to another thread of this very process. */
struct spinner {
	pid_t tid;
	int go[2], done[2];
	long long spun;
};

static void *spinner_main(void *arg)
{
	struct spinner *s = arg;
	char c;

	s->tid = (pid_t)syscall(SYS_gettid);
	(void)pipe_put(s->done[1], 'r');
	if (pipe_get(s->go[0], &c) == 0) {
		s->spun = spin_ns(60 * MS);
		(void)pipe_put(s->done[1], 'd');
	}
	return NULL;
}

static void test_own_thread(void)
{
	struct spinner s;
	struct span sp;
	pthread_t th;
	long long v = 0, own = 0;
	int set = PAPI_NULL, rc = PAPI_OK;
	char c, note[64];

	memset(&s, 0, sizeof(s));
	if (pipe(s.go) < 0 || pipe(s.done) < 0 ||
	    pthread_create(&th, NULL, spinner_main, &s) != 0) {
		lope_fail("attach_to_sibling_thread", "setup: %s",
			  strerror(errno));
		return;
	}
	(void)pipe_get(s.done[0], &c); /* its tid is known */
	if (open_span(&sp, s.tid, "attach_to_sibling_thread"))
		rc = PAPI_ESYS;
	if (rc == PAPI_OK)
		rc = attached_set(&set, s.tid, tc_pf, 1);
	if (rc == PAPI_OK)
		rc = call_marked(&sp, papi_start, set, NULL);
	lope_check(rc == PAPI_OK, "attach_to_sibling_thread", "rc=%s tid %d",
		   papi_err(rc), (int)s.tid);
	/* We spin 30 ms while it spins 60 ms: the set sees its 60. */
	(void)pipe_put(s.go[1], 'g');
	own = spin_ns(30 * MS);
	(void)pipe_get(s.done[0], &c);
	if (rc == PAPI_OK)
		rc = call_marked(&sp, PAPI_stop, set, &v);
	snprintf(note, sizeof(note), "it spun %lld ns, we %lld ns", s.spun,
		 own);
	check_task_clock("sibling_thread_counts_that_thread", rc, v, &sp,
			 "the thread's", note);
	pthread_join(th, NULL);
	drop_set(&set);
	span_close(&sp);
	close(s.go[0]);
	close(s.go[1]);
	close(s.done[0]);
	close(s.done[1]);
}

/*
 * The way PAPI's own attach ctests drive a target (attach2, attach3; they
 * skip here for want of PAPI_TOT_CYC): the child stops itself under
 * ptrace, we attach and start while it is stopped, PTRACE_CONT it, it
 * spins 30 ms and exits.  Nothing counts while it is stopped (its own
 * task-clock does not move); its spin does, and the final count stays
 * readable after it exited: both within its own task-clock, one span
 * from PAPI_start to the read while stopped, one to PAPI_stop.
 */
static void test_ptrace_target(void)
{
	long long v[2] = { 0, 0 }, stopped[2] = { 0, 0 };
	int set = PAPI_NULL, rc = PAPI_OK, st = -1;
	struct span s1, s2;
	pid_t pid = fork();

	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(2);
		raise(SIGSTOP);
		busy_ns(30 * MS);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st)) {
		lope_fail("attach_ptrace_stopped_target",
			  "the child did not stop under ptrace (status %#x)",
			  st);
		if (pid > 0)
			(void)wait_child(pid);
		return;
	}
	s1.fd = s2.fd = -1;
	if (open_span(&s1, pid, "attach_ptrace_stopped_target") ||
	    open_span(&s2, pid, "attach_ptrace_stopped_target"))
		rc = PAPI_ESYS;
	if (rc == PAPI_OK)
		rc = attached_set(&set, pid, tc_pf, 1);
	(void)span_mark(&s2);
	if (rc == PAPI_OK)
		rc = call_marked(&s1, papi_start, set, NULL);
	(void)span_mark(&s2);
	sleep_ns(10 * MS);
	if (rc == PAPI_OK)
		rc = call_marked(&s1, PAPI_read, set, stopped);
	lope_check(rc == PAPI_OK && span_holds(&s1, stopped[0]),
		   "attach_ptrace_stopped_target",
		   "rc=%s task-clock %lld ns while the target is stopped, "
		   "its own %lld..%lld ns",
		   papi_err(rc), stopped[0], span_lo(&s1), span_hi(&s1));
	if (ptrace(PTRACE_CONT, pid, NULL, NULL) < 0)
		rc = rc == PAPI_OK ? PAPI_ESYS : rc;
	st = wait_child(pid);
	if (rc == PAPI_OK)
		rc = call_marked(&s2, PAPI_stop, set, v);
	check_target_exited("attach_ptrace_target_counts_after_cont", rc, st,
			    v[0], &s2, "for a 30 ms spin");
	drop_set(&set);
	span_close(&s1);
	span_close(&s2);
}

/* A target that does not exist: an error, no leak, the set still works. */
static void test_bad_target(void)
{
	static const char *const tc[] = { "perf::TASK-CLOCK" };
	unsigned long tid;
	pid_t gone = dead_pid();
	long long v = 0, own;
	int set = PAPI_NULL, rc, fds;
	char note[64];
	struct span me;

	rc = make_named_set(&set, tc, 1);
	if (!lope_check(rc == PAPI_OK && gone > 0, "bad_target_setup",
			"rc=%s pid %d", papi_err(rc), (int)gone))
		return;
	fds = fd_count();
	rc = PAPI_attach(set, (unsigned long)gone);
	/* ESRCH: stock PAPI says PAPI_ESYS; PAPI_EINVAL would do as well. */
	lope_check(rc == PAPI_ESYS || rc == PAPI_EINVAL,
		   "attach_nonexistent_pid_error",
		   "PAPI_attach(pid %d that exited) returned %s, expected "
		   "PAPI_ESYS or PAPI_EINVAL",
		   (int)gone, papi_err(rc));
	lope_info("attach to a pid that does not exist: %s", papi_err(rc));
	lope_check(fd_count() == fds, "attach_nonexistent_pid_no_fd_leak",
		   "descriptors %d -> %d", fds, fd_count());
	rc = get_attach(set, &tid);
	lope_check(rc == 0, "failed_attach_leaves_set_unattached",
		   "PAPI_get_opt(PAPI_ATTACH)=%d tid=%lu", rc, tid);
	rc = open_span(&me, 0, "set_counts_caller_after_failed_attach") ?
		     PAPI_ESYS :
		     call_marked(&me, papi_start, set, NULL);
	own = spin_ns(20 * MS);
	if (rc == PAPI_OK)
		rc = call_marked(&me, PAPI_stop, set, &v);
	snprintf(note, sizeof(note), "we spun %lld ns", own);
	check_task_clock("set_counts_caller_after_failed_attach", rc, v, &me,
			 "our", note);
	span_close(&me);
	drop_set(&set);

	/* Attached while empty: the error comes when events are added. */
	fds = fd_count();
	rc = attached_set(&set, gone, tc, 1);
	lope_check(rc < PAPI_OK, "attach_nonexistent_then_add_error",
		   "attach + add for pid %d returned %s", (int)gone,
		   papi_err(rc));
	drop_set(&set);
	lope_check(fd_count() == fds, "attach_nonexistent_then_add_no_fd_leak",
		   "descriptors %d -> %d", fds, fd_count());
}

/*
 * A process we may not trace (as nobody, attach to a root process): the
 * kernel says EACCES, PAPI must say PAPI_EPERM.  Run in a child that drops
 * its privileges; it re-initialises PAPI (a forked child may) and exits
 * with 0 on PAPI_EPERM, 10 + -rc on another error, 2 when attach worked.
 */
static void test_eperm(void)
{
	static const char *const tc[] = { "perf::TASK-CLOCK" };
	pid_t pid;
	int st;

	/* Unprivileged already, the child attaches as it is. */
	pid = fork();
	if (pid == 0) {
		int set = PAPI_NULL, rc;

		if (drop_to_nobody())
			_exit(3);
		if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
			_exit(4);
		rc = attached_set(&set, 1, tc, 1);
		_exit(rc == PAPI_EPERM ? 0 : rc == PAPI_OK ? 2 : 10 - rc);
	}
	st = pid > 0 ? wait_child(pid) : -1;
	if (st == 3) {
		lope_skip("attach_untraceable_target_eperm",
			  "cannot drop privileges to uid 65534");
		return;
	}
	lope_check(st == 0, "attach_untraceable_target_eperm",
		   "unprivileged attach to pid 1: child status %d (0: "
		   "PAPI_EPERM, 2: attached, 4: init failed, 10+n: error -n)",
		   st);
}

/* Hardware variant: the target's instructions, not ours. */
static void test_hw(void)
{
	static const char *const ins[] = { "perf::INSTRUCTIONS" };
	struct target w;
	long long v1 = 0, v2 = 0;
	int set = PAPI_NULL, rc;
	unsigned long nr = 0;

	if (!lope_core_pmu()) {
		lope_skip("hw_attached_counts_target_instructions",
			  LOPE_NO_CORE_PMU_REASON);
		lope_skip("hw_attached_read_uses_read_syscall",
			  LOPE_NO_CORE_PMU_REASON);
		return;
	}
	if (target_spawn(&w, -1) < 0) {
		lope_fail("hw_attached_counts_target_instructions", "fork");
		return;
	}
	rc = attached_set(&set, w.pid, ins, 1);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	if (rc == PAPI_OK) {
		(void)target_do(&w, 'b', 50 * MS);
		rc = PAPI_read(set, &v1);
	}
	if (rc == PAPI_OK) {
		busy_ns(50 * MS);
		nr = lope_calls(LOPE_CALL_READ);
		rc = PAPI_read(set, &v2);
		nr = lope_calls(LOPE_CALL_READ) - nr;
	}
	/* 50 ms of spinning is well over 10^6 instructions; ours add ~0. */
	lope_check(rc == PAPI_OK && v1 > 1000000 && v2 - v1 < v1 / 20,
		   "hw_attached_counts_target_instructions",
		   "rc=%s %lld after the target's spin, %lld after ours",
		   papi_err(rc), v1, v2);
	lope_check(rc == PAPI_OK && nr >= 1,
		   "hw_attached_read_uses_read_syscall",
		   "rc=%s, %lu read(2) calls in one PAPI_read", papi_err(rc),
		   nr);
	drop_set(&set);
	target_finish(&w);
}

int main(void)
{
	static void (*const tests[])(void) = {
		test_cmpinfo,     test_attach_detach, test_target_exit,
		test_two_targets, test_own_thread,    test_ptrace_target,
		test_bad_target,  test_eperm,         test_hw,
	};

	return papi_run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
