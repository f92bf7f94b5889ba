/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fork_exec: PAPI across fork(2) and execve(2) on real software
 * events.
 *
 * The parent keeps a perf::TASK-CLOCK + perf::PAGE-FAULTS set running the
 * whole time.  Forked children then:
 *  - call PAPI_library_init again (PAPI re-initialises in a process whose
 *    pid differs from the one it was initialised in; no shutdown first)
 *    and count their own work with a set of their own;
 *  - read the set they inherited in their copy of PAPI's state: they see
 *    the parent's counts;
 *  - call PAPI_shutdown without re-initialising, as an inherited atexit
 *    handler would: PAPI stops the running set it inherited;
 *  - exec this program again in a helper mode, which checks that no perf
 *    descriptor and no perf mapping survived the exec (the component opens
 *    every event with O_CLOEXEC) and that PAPI works there.
 * After each, the parent's set must keep counting the parent's own work
 * and nothing else, without an error: its task-clock lies within the
 * kernel's own task-clock of the parent read around the two PAPI_reads
 * (span.h), as a child's count within the child's.
 *
 * Report protocol: ctests/lib/report.h (children report through exit codes).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>

#include "papi_util.h"
#include "span.h"

static const char *const names[] = { "perf::TASK-CLOCK", "perf::PAGE-FAULTS" };

static int pset = PAPI_NULL; /* the parent's running set */
static long long last[2];    /* its last read */
static struct span me;       /* the parent's own task-clock */

/* PAPI_read of the parent's set into @v between two marks of @s. */
static int read_marked(long long *v, struct span *s)
{
	int rc;

	(void)span_mark(s);
	rc = PAPI_read(pset, v);
	(void)span_mark(s);
	return rc;
}

/*
 * Spin @ns on our own CPU while the set runs and check it grew by our
 * own task-clock over that time, and by nothing else.
 */
static void check_parent_counts(const char *name, long long ns)
{
	long long v[2] = { 0, 0 }, own;
	int rc;

	span_clear(&me);
	rc = read_marked(last, &me);
	own = spin_ns(ns);
	if (rc == PAPI_OK)
		rc = read_marked(v, &me);
	lope_check(rc == PAPI_OK && span_holds(&me, v[0] - last[0]), name,
		   "rc=%s parent's task-clock grew %lld ns, its own "
		   "%lld..%lld ns (it spun %lld ns)",
		   papi_err(rc), v[0] - last[0], span_lo(&me), span_hi(&me),
		   own);
	memcpy(last, v, sizeof(last));
}

/* ------------------------------------------------------------ children */

/*
 * A child's own count: a set of names[0] over its spin of @ns.  PAPI_OK
 * when it lies within the child's own task-clock from PAPI_start to
 * PAPI_stop, PAPI_EMISC when not, or the first error.
 */
static int count_own_spin(long long ns)
{
	struct span s;
	long long v = 0;
	int set = PAPI_NULL, rc;

	if (span_open(&s, PERF_COUNT_SW_TASK_CLOCK, 0, 0))
		return PAPI_ESYS;
	rc = make_named_set(&set, names, 1);
	(void)span_mark(&s);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	(void)span_mark(&s);
	busy_ns(ns);
	(void)span_mark(&s);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, &v);
	(void)span_mark(&s);
	drop_set(&set);
	if (rc == PAPI_OK && !span_holds(&s, v))
		rc = PAPI_EMISC;
	span_close(&s);
	return rc;
}

/*
 * Child after fork: re-initialise PAPI, count 20 ms of our own CPU.
 * Exit bits: 1 init not PAPI_VER_CURRENT, 2 set calls failed, 4 count
 * wrong, 8 shutdown then init again failed.
 */
static int child_reinit(void)
{
	int rc, bits = 0;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return 1;
	rc = count_own_spin(20 * MS);
	if (rc == PAPI_EMISC)
		bits |= 4;
	else if (rc != PAPI_OK)
		bits |= 2;
	PAPI_shutdown();
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		bits |= 8;
	PAPI_shutdown();
	return bits;
}

/*
 * Helper mode, after execve: no perf descriptor, no perf mapping, and
 * PAPI works.  Exit bits: 1 perf descriptors left, 2 perf mappings
 * left, 4 init failed, 8 counting failed.
 */
static int exec_helper(void)
{
	int bits = 0;

	if (perf_fd_count() != 0)
		bits |= 1;
	if (perf_maps_count() != 0)
		bits |= 2;
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return bits | 4;
	if (count_own_spin(10 * MS) != PAPI_OK)
		bits |= 8;
	PAPI_shutdown();
	return bits;
}

/*
 * After a case that stopped the parent's counters behind its back, start
 * them again so the next case is judged on its own.
 */
static void rearm_parent(void)
{
	long long v[2];

	if (PAPI_stop(pset, v) == PAPI_OK && PAPI_start(pset) == PAPI_OK)
		(void)PAPI_read(pset, last);
}

/* --------------------------------------------------------------- cases */

static void test_child_reinit(void)
{
	long long v[2] = { 0, 0 }, t0, own;
	pid_t pid;
	int st, rc;

	span_clear(&me);
	rc = read_marked(last, &me);
	t0 = thread_ns();
	pid = fork();
	if (pid == 0)
		_exit(child_reinit());
	busy_ns(30 * MS); /* while the child works too */
	own = thread_ns() - t0;
	st = pid > 0 ? wait_child(pid) : -1;
	lope_check(st == 0, "child_library_init_counts_own_work",
		   "child exit %d (1: PAPI_library_init after fork failed, 2: "
		   "set calls failed, 4: task-clock not within its own "
		   "task-clock over a 20 ms spin, 8: init after shutdown "
		   "failed)",
		   st);
	if (rc == PAPI_OK)
		rc = read_marked(v, &me);
	lope_check(rc == PAPI_OK && span_holds(&me, v[0] - last[0]),
		   "parent_set_counts_parent_only_during_child",
		   "rc=%s parent's task-clock grew %lld ns, its own %lld..%lld "
		   "ns (it spun %lld ns, the child 20 ms)",
		   papi_err(rc), v[0] - last[0], span_lo(&me), span_hi(&me),
		   own);
	check_parent_counts("parent_set_undisturbed_by_child_init", 20 * MS);
}

/*
 * PAPI has no API to hand a set to another process, but a forked child
 * that does not re-initialise still has its copy of the parent's set,
 * naming the parent's counters: reading it must work (read(2), the engine
 * forgot the owner's tid) and show the parent's work, not the child's.
 * The child reads, sleeps 30 ms while the parent spins, reads again:
 * the growth lies within the parent's own task-clock around the two
 * reads (the child marks the span it inherited: a counter of the
 * parent's thread), the child's own being ~0.
 */
static void test_child_reads_parent(void)
{
	long long d[4] = { -1, -1, -1, -1 }; /* growth, rc, span lo, hi */
	int p[2], st = -1;
	pid_t pid;

	if (pipe(p) < 0) {
		lope_fail("child_reads_parent_set", "pipe: %s",
			  strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		long long a[2] = { 0, 0 }, b[2] = { 0, 0 }, r[4];
		int rc;

		span_clear(&me);
		rc = read_marked(a, &me);
		sleep_ns(30 * MS);
		if (rc == PAPI_OK)
			rc = read_marked(b, &me);
		r[0] = b[0] - a[0];
		r[1] = rc;
		r[2] = span_lo(&me);
		r[3] = span_hi(&me);
		_exit(pipe_put_buf(p[1], r, sizeof(r)) ? 1 : 0);
	}
	close(p[1]);
	busy_ns(60 * MS);
	if (pid > 0)
		st = wait_child(pid);
	if (pipe_get_buf(p[0], d, sizeof(d)))
		d[1] = PAPI_ESYS;
	close(p[0]);
	lope_check(st == 0 && d[1] == PAPI_OK && d[2] >= 0 && d[0] >= d[2] &&
			   d[0] <= d[3],
		   "child_reads_parent_set",
		   "child exit %d, PAPI_read %s, the parent's task-clock grew "
		   "%lld ns over the child's 30 ms sleep, the parent's own "
		   "%lld..%lld ns (it spun)",
		   st, papi_err((int)d[1]), d[0], d[2], d[3]);
	check_parent_counts("parent_set_undisturbed_by_child_read", 20 * MS);
}

/*
 * A child that shuts PAPI down without re-initialising: PAPI_shutdown
 * stops the set the child inherited in its copy of PAPI's state.  The
 * parent's counters must not stop.
 */
static void test_child_shutdown(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		PAPI_shutdown();
		_exit(0);
	}
	st = pid > 0 ? wait_child(pid) : -1;
	lope_check(st == 0, "child_shutdown_without_init_exits",
		   "child exit %d", st);
	check_parent_counts("parent_set_undisturbed_by_child_shutdown",
			    20 * MS);
}

/* A child that stops the inherited running set explicitly. */
static void test_child_stop(void)
{
	pid_t pid = fork();
	long long v[2];
	int st;

	if (pid == 0)
		_exit(PAPI_stop(pset, v) == PAPI_OK ? 0 : 1);
	st = pid > 0 ? wait_child(pid) : -1;
	lope_info("PAPI_stop of the inherited set in a forked child: exit %d",
		  st);
	check_parent_counts("parent_set_undisturbed_by_child_stop", 20 * MS);
}

static void test_exec(void)
{
	char *argv[] = { "test_fork_exec", "--exec-helper", NULL };
	int p[2], st, before = -1;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		lope_fail("exec_closes_perf_fds", "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		int n = perf_fd_count(); /* fork keeps them */

		close(p[0]);
		if (pipe_put_buf(p[1], &n, sizeof(n)))
			_exit(70);
		execv("/proc/self/exe", argv);
		_exit(71);
	}
	close(p[1]);
	if (pipe_get_buf(p[0], &before, sizeof(before)))
		before = -1;
	close(p[0]);
	st = pid > 0 ? wait_child(pid) : -1;
	lope_check(before >= 2, "forked_child_has_perf_fds",
		   "the forked child had %d perf descriptors before exec "
		   "(fork copies them; the parent's set has 2)",
		   before);
	lope_check(st >= 0 && st < 64 && !(st & 1), "exec_closes_perf_fds",
		   "helper exit %d (bit 0: perf descriptors left after exec)",
		   st);
	lope_check(st >= 0 && st < 64 && !(st & 2), "exec_leaves_no_perf_maps",
		   "helper exit %d (bit 1: perf mappings left after exec)", st);
	lope_check(st == 0, "exec_helper_papi_counts",
		   "helper exit %d (4: init failed, 8: counting failed, 71: "
		   "exec failed)",
		   st);
	check_parent_counts("parent_set_undisturbed_by_exec", 20 * MS);
}

/* Hardware variant: a forked child maps no perf page of the parent (where
 * the parent maps one: user-space reads). */
static void test_hw(void)
{
	static const char *const ins[] = { "perf::INSTRUCTIONS" };
	const PAPI_component_info_t *ci;
	int set = PAPI_NULL, rc, st = -1;
	pid_t pid;

	if (!lope_core_pmu()) {
		lope_skip("hw_forked_child_has_no_perf_maps",
			  LOPE_NO_CORE_PMU_REASON);
		return;
	}
	ci = PAPI_get_component_info(0);
	if (ci && !ci->fast_counter_read) {
		lope_skip("hw_forked_child_has_no_perf_maps",
			  "no user-space reads here, so no page to map: %s",
			  ci->description);
		return;
	}
	/* A separate, stopped set: the parent's running one stays. */
	rc = make_named_set(&set, ins, 1);
	if (rc == PAPI_OK) {
		pid = fork();
		if (pid == 0)
			_exit(perf_maps_count() == 0 ? 0 : 1);
		st = pid > 0 ? wait_child(pid) : -1;
	}
	lope_check(rc == PAPI_OK && perf_maps_count() > 0 && st == 0,
		   "hw_forked_child_has_no_perf_maps",
		   "rc=%s parent maps %d perf pages, child exit %d (1: the "
		   "child had perf mappings)",
		   papi_err(rc), perf_maps_count(), st);
	drop_set(&set);
}

int main(int argc, char **argv)
{
	long long v[2] = { 0, 0 };
	int rc, fds;

	if (argc > 1 && strcmp(argv[1], "--exec-helper") == 0)
		return exec_helper();
	setvbuf(stdout, NULL, _IOLBF, 0);
	papi_init_or_exit();
	span_open_self_or_exit(&me, "parent_span");
	fds = fd_count();
	rc = make_named_set(&pset, names, 2);
	if (rc == PAPI_OK)
		rc = PAPI_start(pset);
	if (!lope_check(rc == PAPI_OK, "parent_set_running", "rc=%s",
			papi_err(rc)))
		lope_exit();
	check_parent_counts("parent_set_counts", 20 * MS);
	test_child_reinit();
	test_child_reads_parent();
	test_exec();
	test_child_shutdown();
	rearm_parent();
	test_child_stop();
	rearm_parent();
	test_hw();
	rc = PAPI_stop(pset, v);
	lope_check(rc == PAPI_OK && v[0] >= last[0], "parent_set_stops",
		   "rc=%s stop %lld, last read %lld", papi_err(rc), v[0],
		   last[0]);
	drop_set(&pset);
	lope_check(fd_count() == fds, "no_fd_leak_over_whole_run",
		   "descriptors %d after init, %d at the end", fds, fd_count());
	span_close(&me);
	PAPI_shutdown();
	return lope_done();
}
