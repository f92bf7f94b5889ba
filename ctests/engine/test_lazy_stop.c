/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lazy stop (doc/lazy-stop.md) on real hardware counters: a group
 * read in user space stops and starts again with no system call, its
 * counters left enabled in the kernel while it is stopped.  Where no
 * machine here has a PMU, the emulated arm64 and riscv64 machines run it;
 * elsewhere each case SKIPs with the reason.  Counts are user-mode
 * instructions of loop2() (exactly 2 an iteration); N is 1e6 iterations.
 *
 *  - no system call: after the first enable, 100 stops and starts (with a
 *    read before each stop, as PAPI_stop) make no read(2) nor ioctl(2);
 *  - the gap: 10N iterations between a stop and the next start are not
 *    counted (both intervals count N within 0.1%), and the values of the
 *    stopped group stand still across them;
 *  - two groups alternating, 5 rounds: each gets its own loop, exactly;
 *    (a count is the least of 3 intervals, or the best of 3 tries, where
 *    another vCPU's instructions can only add: least());
 *  - a parked group makes no other multiplex: a group of as many events
 *    as the PMU schedules together (lope_probe_counters) runs all the
 *    time (running equals enabled time) after a parked one, which then
 *    counts exactly again;
 *  - a group multiplexed before its stop, beside groups of every counter
 *    (its enabled and running times differ for good, so its starts
 *    sample in full), counts exactly once it has the PMU to itself, and
 *    not the 10N iterations before each start;
 *  - reset and write while stopped, and the start after them;
 *  - overflow and LOPE_KERNEL_STOP groups stop in the kernel (an ioctl);
 *  - a closed parked group leaves nothing listed;
 *  - fork: the child counts its own loop exactly with a full group, the
 *    parent's parked group counts exactly after;
 *  - exec: a process that parked a group execs this program, which gets
 *    every counter (the descriptors were close-on-exec);
 *  - thread exit: a thread parks a group and exits; another thread's
 *    group of every counter runs, and closing the dead thread's group
 *    from that thread empties the registry.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "group.h"
#include "lope.h"
#include "park.h"
#include "report.h"
#include "sys.h"
#include "work.h"

#define N 1000000UL
#define MAXEV 64

/* The counters one group gets here, and this program, for the exec. */
static int nctr;
static char self[PATH_MAX];

static void ins_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_INSTRUCTIONS;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* A group of @n user instructions events of this thread, open. */
static int open_ins(struct lope_group **g, int n, unsigned int flags)
{
	struct perf_event_attr a;
	int i, err = lope_group__new(g, 0, -1, flags);

	ins_attr(&a);
	for (i = 0; !err && i < n; i++) {
		err = lope_group__add(*g, &a);
		err = err < 0 ? err : 0;
	}
	return err ? err : lope_group__open(*g);
}

/* PAPI_stop's way: read, then stop after the read. */
static int read_stop(struct lope_group *g, int64_t *v)
{
	int err = lope_group__read(g, v);

	return err ? err : lope_group__disable_after_read(g);
}

/*
 * One interval of @n iterations: enable, loop, read and stop into @v.
 * The group's invariants (group.h) are checked on either side of it
 * (lopelib_group__check() aborts on a broken one), never inside.
 */
static int interval(struct lope_group *g, unsigned long n, int64_t *v)
{
	int err;

	lopelib_group__check(g);
	err = lope_group__enable(g);
	if (!err)
		loop2(n);
	err = err ? err : read_stop(g, v);
	lopelib_group__check(g);
	return err;
}

/*
 * The least of 3 intervals: with two vCPUs QEMU's count of one can take
 * in a few thousand instructions of the other's (doc/hybrid.md), which
 * only ever adds.
 */
static int least(struct lope_group *g, unsigned long n, int64_t *v)
{
	int64_t x;
	int r, err = 0;

	for (r = 0; !err && r < 3; r++) {
		err = interval(g, n, &x);
		if (!err && (r == 0 || x < *v))
			*v = x;
	}
	return err;
}

/* Is @v twice @n iterations, within 0.1% and a call's few instructions? */
static bool exact(int64_t v, unsigned long n)
{
	int64_t want = 2 * (int64_t)n, d = v - want;

	return d >= -(want / 1000) && d <= want / 1000 + 1000;
}

/* System calls through the engine's table, counted. */
static unsigned long nr_reads, nr_ioctls, nr_disables;

static ssize_t counting_read(int fd, void *buf, size_t len)
{
	nr_reads++;
	return lopelib_sys_kernel.read(fd, buf, len);
}

static int counting_ioctl(int fd, unsigned long req, unsigned long arg)
{
	nr_ioctls++;
	nr_disables += req == PERF_EVENT_IOC_DISABLE;
	return lopelib_sys_kernel.ioctl(fd, req, arg);
}

static void count_calls(bool on)
{
	static struct lopelib_sys counting;

	counting = lopelib_sys_kernel;
	counting.read = counting_read;
	counting.ioctl = counting_ioctl;
	if (on)
		nr_reads = nr_ioctls = nr_disables = 0;
	lopelib_sys__set(on ? &counting : NULL);
}

static void test_no_syscall(const char *name)
{
	struct lope_group *g = NULL;
	int64_t v[1];
	int i, err = open_ins(&g, 1, 0);

	if (!err)
		err = interval(g, 1000,
			       v); /* the first start is the kernel's */
	count_calls(true);
	for (i = 0; !err && i < 100; i++)
		err = interval(g, 1000, v);
	count_calls(false);
	if (err)
		lope_fail(name, "interval %d: %s", i, strerror(-err));
	else
		lope_check(nr_reads + nr_ioctls == 0 && exact(v[0], 1000), name,
			   "100 starts and stops made %lu read(2) and %lu "
			   "ioctl(2); the last counted %" PRId64
			   " for 2000 instructions",
			   nr_reads, nr_ioctls, v[0]);
	lope_group__delete(g);
}

static void test_gap(const char *name)
{
	struct lope_group *g = NULL;
	int64_t v1[1] = { -1 }, v2[1] = { -1 }, s1[1] = { -1 }, s2[1] = { -1 };
	int err = open_ins(&g, 1, 0);

	int64_t x;
	int r;

	/* The least of 3 each, 10N iterations in each gap. */
	for (r = 0; !err && r < 3; r++) {
		err = interval(g, N, &x);
		if (!err && (r == 0 || x < v1[0]))
			v1[0] = x;
		if (!err)
			err = lope_group__read(g, s1);
		loop2(10 * N);
		if (!err)
			err = lope_group__read(g, s2);
		if (!err)
			err = interval(g, N, &x);
		if (!err && (r == 0 || x < v2[0]))
			v2[0] = x;
		if (!err && (s1[0] || s2[0]))
			break; /* a stopped group moved: no second try */
	}
	if (err)
		lope_fail(name, "%s", strerror(-err));
	else
		lope_check(exact(v1[0], N) && exact(v2[0], N) && s1[0] == 0 &&
				   s2[0] == 0,
			   name,
			   "before the gap %" PRId64 ", after %" PRId64
			   " (want 2e6 each, 2e7 in between); stopped, the "
			   "values read %" PRId64 " then %" PRId64 " (want 0)",
			   v1[0], v2[0], s1[0], s2[0]);
	lope_group__delete(g);
}

static void test_alternate(const char *name)
{
	struct lope_group *a = NULL, *b = NULL;
	int64_t va[1], vb[1];
	int r, err = open_ins(&a, 1, 0), bad = 0;
	char first[160] = "";

	if (!err)
		err = open_ins(&b, 1, 0);
	for (r = 0; !err && r < 5; r++) {
		err = least(a, N, va);
		if (!err)
			err = least(b, 2 * N, vb);
		lopelib_group__check(a); /* demoted by b's enable, or parked */
		if (!err && (!exact(va[0], N) || !exact(vb[0], 2 * N)) &&
		    !bad++)
			snprintf(first, sizeof(first),
				 "round %d: A %" PRId64
				 " (want 2e6), B %" PRId64 " (want 4e6)",
				 r, va[0], vb[0]);
	}
	if (err)
		lope_fail(name, "round %d: %s", r, strerror(-err));
	else
		lope_check(!bad, name, "%d of 5 rounds off: %s", bad, first);
	lope_group__delete(a);
	lope_group__delete(b);
}

/*
 * A group of @n events runs all the time and counts at least the loop: 0,
 * or -EBUSY (with @why) if not, or -errno.
 */
static int group_runs(int n, char *why, size_t len)
{
	struct lope_group *f = NULL;
	struct lope_counts c[MAXEV];
	int64_t v[MAXEV];
	int i, err = open_ins(&f, n, 0);

	if (!err)
		err = lope_group__enable(f);
	if (!err)
		loop2(N);
	if (!err)
		err = lope_group__read_raw(f, c);
	if (!err)
		err = lope_group__read(f, v);
	lope_group__delete(f);
	if (err) {
		snprintf(why, len, "the full group: %s", strerror(-err));
		return err;
	}
	for (i = 0; i < n; i++)
		if (c[i].run == 0 || c[i].run != c[i].ena ||
		    v[i] < 2 * (int64_t)N) {
			snprintf(why, len,
				 "event %d of %d: ran %" PRIu64 " of %" PRIu64
				 " ns, counted %" PRId64 " (want at least 2e6)",
				 i, n, c[i].run, c[i].ena, v[i]);
			return -EBUSY;
		}
	return 0;
}

/* A group of every counter (nctr) runs all the time. */
static int full_group_runs(char *why, size_t len)
{
	return group_runs(nctr, why, len);
}

static void test_no_multiplex(const char *name)
{
	struct lope_group *p = NULL;
	int64_t v[1] = { 0 };
	char why[200] = "";
	int err = open_ins(&p, 1, 0);

	if (!err)
		err = interval(p, 1000, v); /* now parked */
	if (err) {
		lope_fail(name, "the parked group: %s", strerror(-err));
	} else {
		err = full_group_runs(why, sizeof(why));
		if (!err)
			err = least(p, N, v);
		lope_check(!err && exact(v[0], N), name,
			   "%d counters, one of them parked: %s; the parked "
			   "group then counted %" PRId64 " (want 2e6)",
			   nctr, why[0] ? why : "the full group ran", v[0]);
	}
	lope_group__delete(p);
}

/*
 * The start of a parked group whose event was multiplexed: its enabled
 * and running times differ for good, so each start's plain read refuses
 * and it samples in full (unpark()'s sample() and rebase()).  Once it has
 * the PMU to itself again, it counts exactly.  Beside it, MAXEV events in
 * groups of every counter: more than the PMU has, where a machine lets
 * groups of one kind of event fill only some of its counters (riscv64's
 * instructions) too.
 */
static void test_start_multiplexed(const char *name)
{
	struct lope_group *a = NULL, *b[MAXEV] = { NULL };
	struct lope_counts c[1] = { { 0, 0, 0 } };
	int64_t x, v[1] = { -1 }, w[MAXEV];
	int i, r, nb = (MAXEV + nctr - 1) / nctr, err = open_ins(&a, 1, 0);

	for (i = 0; !err && i < nb; i++)
		err = open_ins(&b[i], nctr, 0);
	if (!err)
		err = lope_group__enable(a);
	for (i = 0; !err && i < nb; i++)
		err = lope_group__enable(b[i]);
	/* until the kernel's rotation has taken it off (its times differ),
	 * however long this machine's multiplexing interval */
	for (r = 0; !err && r < 100 && c[0].ena == c[0].run; r++) {
		loop2(10 * N);
		err = lope_group__read_raw(a, c);
	}
	for (i = 0; !err && i < nb; i++)
		err = read_stop(b[i], w);
	if (!err)
		err = read_stop(a, v);
	for (i = 0; i < nb; i++)
		lope_group__delete(b[i]);
	if (!err)
		err = lope_group__read_raw(a, c);
	/* Alone: on its counter after the kernel's next rotation.  Then
	 * the least of 3 intervals (least()), each after a gap that the
	 * start's new bases leave out. */
	if (!err)
		err = interval(a, 10 * N, v);
	for (r = 0; !err && r < 3; r++) {
		loop2(10 * N);
		err = interval(a, N, &x);
		if (!err && (r == 0 || x < v[0]))
			v[0] = x;
	}
	if (err)
		lope_fail(name, "%s", strerror(-err));
	else
		lope_check(c[0].ena != c[0].run && exact(v[0], N), name,
			   "beside %d groups of all %d counters, it ran "
			   "%" PRIu64 " of %" PRIu64 " ns (want less); alone, "
			   "it counted %" PRId64
			   " (want 2e6, 2e7 before each start)",
			   nb, nctr, c[0].run, c[0].ena, v[0]);
	lope_group__delete(a);
}

static void test_reset_write(const char *name)
{
	struct lope_group *g = NULL;
	int64_t v[1], w[1] = { 5000 }, r0[1] = { -1 }, r1[1] = { -1 };
	int64_t after_w[1] = { -1 }, after_r[1] = { -1 };
	int t, err = open_ins(&g, 1, 0);
	bool ok = false;

	/* Up to 3 tries: another vCPU's instructions only add (least()). */
	for (t = 0; !err && !ok && t < 3; t++) {
		err = interval(g, 1000, v);
		if (!err)
			err = lope_group__write(g, w);
		if (!err)
			err = lope_group__read(g, r0);
		if (!err)
			err = interval(g, N, after_w);
		if (!err)
			err = lope_group__reset(g);
		if (!err)
			err = lope_group__read(g, r1);
		if (!err)
			err = interval(g, N, after_r);
		ok = !err && r0[0] == 5000 && exact(after_w[0] - 5000, N) &&
		     r1[0] == 0 && exact(after_r[0], N);
	}
	/* Stopped lazily (interval() ends parked): bad input is refused. */
	if (!err)
		lope_check(lope_group__read_raw(g, NULL) == -EINVAL &&
				   lope_group__write(g, NULL) == -EINVAL,
			   "lazy_stop_parked_refuses_null_counts",
			   "read_raw %d, write %d (want -EINVAL)",
			   lope_group__read_raw(g, NULL),
			   lope_group__write(g, NULL));
	if (err)
		lope_fail(name, "%s", strerror(-err));
	else
		lope_check(ok, name,
			   "written 5000 while stopped: read %" PRId64
			   ", after an interval %" PRId64
			   " (want 5000 + 2e6); reset while stopped: read "
			   "%" PRId64 ", after an interval %" PRId64
			   " (want 2e6)",
			   r0[0], after_w[0], r1[0], after_r[0]);
	lope_group__delete(g);
}

static void on_signal(int sig)
{
	(void)sig;
}

/* A stop of @g after its first interval: how many ioctls and disables. */
static void kernel_stop(const char *name, struct lope_group *g, int err,
			const char *what)
{
	int64_t v[1];

	if (!err)
		err = interval(g, 1000, v);
	if (!err)
		err = lope_group__enable(g);
	count_calls(true);
	if (!err)
		err = read_stop(g, v);
	count_calls(false);
	if (err)
		lope_fail(name, "%s", strerror(-err));
	else
		lope_check(nr_disables == 1, name,
			   "%s: its stop made %lu ioctl(DISABLE), want 1", what,
			   nr_disables);
	lope_group__delete(g);
}

static void test_overflow(const char *name)
{
	struct lope_group *g = NULL;
	struct perf_event_attr a;
	int err = lope_group__new(&g, 0, -1, 0);

	signal(SIGUSR1, on_signal);
	ins_attr(&a);
	if (!err)
		err = lope_group__add(g, &a) < 0 ? -EINVAL : 0;
	if (!err) /* far beyond what it counts here */
		err = lope_group__set_overflow(g, 0, 1ull << 40, SIGUSR1);
	if (!err)
		err = lope_group__open(g);
	kernel_stop(name, g, err, "an overflow group");
}

static void test_kernel_stop_flag(const char *name)
{
	struct lope_group *g = NULL;
	int err = open_ins(&g, 1, LOPE_KERNEL_STOP);

	kernel_stop(name, g, err, "a LOPE_KERNEL_STOP group");
}

static void test_close_parked(const char *name)
{
	struct lope_group *a = NULL, *b = NULL;
	int64_t v[1];
	unsigned int one = 0, two = 0;
	int err = open_ins(&a, 1, 0);

	if (!err)
		err = open_ins(&b, 1, 0);
	if (!err)
		err = interval(a, 1000, v);
	one = lopelib_park_nr;
	if (!err) /* B's enable demotes A, which leaves the list */
		err = interval(b, 1000, v);
	two = lopelib_park_nr;
	lope_group__delete(a);
	lope_group__delete(b);
	if (err)
		lope_fail(name, "%s", strerror(-err));
	else
		lope_check(one == 1 && two == 1 && lopelib_park_nr == 0, name,
			   "groups listed: %u with A parked (want 1), %u with "
			   "B parked after it (want 1: A demoted), %u after "
			   "both closed (want 0)",
			   one, two, lopelib_park_nr);
}

static void test_fork(const char *name)
{
	struct lope_group *p = NULL;
	int64_t v[1] = { 0 };
	char why[200] = "";
	int err = open_ins(&p, 1, 0), st = 0;
	pid_t pid;

	if (!err)
		err = interval(p, 1000, v);
	if (err) {
		lope_fail(name, "%s", strerror(-err));
		lope_group__delete(p);
		return;
	}
	pid = fork();
	if (pid == 0) {
		/* The child's copy names the parent's counters: dropped, as
		 * PAPI_shutdown would. */
		lope_group__delete(p);
		_exit(full_group_runs(why, sizeof(why)) ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		err = -ECHILD;
	if (!err)
		err = least(p, N, v);
	lope_check(!err && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
			   exact(v[0], N),
		   name,
		   "child: %s (status %#x), its full group of %d %s; the "
		   "parent's parked group then counted %" PRId64 " (want 2e6)",
		   err ? strerror(-err) : "ran", st, nctr,
		   WIFEXITED(st) && !WEXITSTATUS(st) ? "ran all the time" :
						       "did not",
		   v[0]);
	lope_group__delete(p);
}

/* A thread's group, parked as the thread exits without closing it. */
static void *park_and_exit(void *arg)
{
	struct lope_group **g = arg;
	int64_t v[1];

	if (open_ins(g, 1, 0) || interval(*g, 1000, v)) {
		lope_group__delete(*g);
		*g = NULL;
	}
	return NULL;
}

static void test_thread_exit(const char *name)
{
	struct lope_group *t = NULL;
	pthread_t th;
	char why[200] = "";
	unsigned int listed = 0;
	int err = pthread_create(&th, NULL, park_and_exit, &t) ? -EAGAIN : 0;

	if (!err && (pthread_join(th, NULL) || !t))
		err = -ECHILD;
	if (!err)
		listed = lopelib_park_nr;
	if (!err)
		err = full_group_runs(why, sizeof(why));
	lope_group__delete(t); /* by another thread, its owner gone */
	lope_check(!err && listed == 1 && lopelib_park_nr == 0, name,
		   "%s; a thread parked a group and exited: %u listed (want "
		   "1), this thread's group of every counter %s, %u listed "
		   "after the close (want 0)",
		   err ? strerror(-err) : "ok", listed,
		   why[0] ? why : "ran all the time", lopelib_park_nr);
}

/* After the exec: every counter, in one group, all the time. */
static int after_exec(void)
{
	char why[200] = "";
	int err = full_group_runs(why, sizeof(why));

	if (err)
		fprintf(stderr, "after the exec: %s\n", why);
	return err ? 1 : 0;
}

static void test_exec(const char *name)
{
	char n[16];
	int st = 0;
	pid_t pid;

	snprintf(n, sizeof(n), "%d", nctr);
	pid = fork();
	if (pid == 0) {
		struct lope_group *p = NULL;
		int64_t v[1];

		if (open_ins(&p, 1, 0) || interval(p, 1000, v))
			_exit(3);
		execl(self, self, "--after-exec", n, (char *)NULL);
		_exit(4);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = -1;
	lope_check(WIFEXITED(st) && WEXITSTATUS(st) == 0, name,
		   "a process with a parked group exec'd this program, whose "
		   "group of all %d counters %s (status %#x)",
		   nctr,
		   WIFEXITED(st) && WEXITSTATUS(st) == 1 ? "did not run" :
							   "failed",
		   st);
}

static const struct {
	const char *name;
	void (*run)(const char *name);
} cases[] = {
	{ "lazy_stop_and_start_make_no_system_call", test_no_syscall },
	{ "lazy_stop_what_runs_while_stopped_is_not_counted", test_gap },
	{ "lazy_stop_two_groups_alternating_count_their_own", test_alternate },
	{ "lazy_stop_a_parked_group_makes_no_other_multiplex",
	  test_no_multiplex },
	{ "lazy_stop_start_after_multiplexing_counts_exactly",
	  test_start_multiplexed },
	{ "lazy_stop_reset_and_write_while_stopped", test_reset_write },
	{ "lazy_stop_an_overflow_group_stops_in_the_kernel", test_overflow },
	{ "lazy_stop_lope_kernel_stop_stops_in_the_kernel",
	  test_kernel_stop_flag },
	{ "lazy_stop_closed_parked_groups_are_unlisted", test_close_parked },
	{ "lazy_stop_fork_child_has_every_counter_parent_counts_on",
	  test_fork },
	{ "lazy_stop_exec_gets_every_counter", test_exec },
	{ "lazy_stop_thread_exit_leaves_its_parked_group_to_close",
	  test_thread_exit },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	char why[200];
	ssize_t sn;
	size_t i;

	if (argc == 3 && !strcmp(argv[1], "--after-exec")) {
		nctr = atoi(argv[2]);
		return after_exec();
	}
	sn = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[sn > 0 ? sn : 0] = 0;
	/* Every counter: the largest group that runs, nothing parked. */
	ins_attr(&a);
	while (nctr < MAXEV && group_runs(nctr + 1, why, sizeof(why)) == 0)
		nctr++;
	if (lope_rdpmc_usable(why, sizeof(why)) != 0 || nctr < 1) {
		if (nctr < 1)
			snprintf(why, sizeof(why),
				 "no group of hardware instructions runs here");
		for (i = 0; i < NCASES; i++)
			lope_skip(cases[i].name, "no user-space reads: %s",
				  why);
		return lope_done();
	}
	lope_info("%d counters in one group (lope_probe_counters: %d); "
		  "user-space reads: %s",
		  nctr, lope_probe_counters(&a, MAXEV), why);
	for (i = 0; i < NCASES; i++)
		cases[i].run(cases[i].name);
	return lope_done();
}
