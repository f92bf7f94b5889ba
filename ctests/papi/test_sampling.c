/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_sampling: every sample delivered, as profilers sample (HPCToolkit's
 * hpcrun, TAU's event-based sampling): each overflowing event's handler
 * runs once per period of its own count, whatever else the set holds.
 *
 * Software events of the default (user) domain, several sampling in one
 * set with different periods, the handler counting its calls per event
 * (PAPI_get_overflow_event_index):
 *  - perf::TASK-CLOCK every 1 ms and perf::CPU-CLOCK every 2 ms: a whole
 *    ratio, where the kernel drops the later clock's sample whenever its
 *    timer fires while the kernel delivers the other's signal (it drops
 *    any user-domain clock expiry that comes while the thread is in the
 *    kernel; doc/sampling.md); quiet, and with a busy loop on every CPU;
 *  - the same with perf::PAGE-FAULTS and perf::CONTEXT-SWITCHES counted
 *    beside, not sampled;
 *  - four sampling events: the two clocks, perf::PAGE-FAULTS every 64
 *    faults and perf::MINOR-FAULTS every 96, over work that faults;
 *  - two threads at once, each its own set of the two clocks;
 *  - a forked child, PAPI initialised again there, its own set.
 * In every run, each sampling event's calls are floor(count / period)
 * of the run's count (PAPI_stop's), less two at most (the multiple the
 * stop's own system call may hide, and the latest, which the next run's
 * samples show) and more by two at most (the previous run's, and the one
 * nearest the count when its sample came early); over all runs, less two
 * and more by one.  LOPE_SAMPLING_RUNS sets the runs of each case (20),
 * LOPE_SAMPLING_MS the CPU time of each (100 ms): doc/sampling.md ran 100
 * of 800 ms.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "papi_util.h"
#include "target.h"

#define MAXEV 4

static __thread long calls[MAXEV]; /* per event index, this thread's */
static __thread long bad_index;

static void handler(int set, void *address, long long vector, void *ctx)
{
	int idx[MAXEV], n = MAXEV, i;

	(void)address;
	(void)ctx;
	if (PAPI_get_overflow_event_index(set, vector, idx, &n) != PAPI_OK)
		bad_index++;
	else
		for (i = 0; i < n; i++)
			calls[idx[i] % MAXEV]++;
}

/* A set: its events, each sampling at period[i] (0: counted only). */
struct plan {
	const char *name;
	int n;
	const char *names[MAXEV];
	long long period[MAXEV];
	int faults; /* the work touches fresh pages */
};

static const struct plan two_clocks = {
	"two_clocks_1_ms_2_ms", 2, { "perf::TASK-CLOCK", "perf::CPU-CLOCK" },
	{ MS, 2 * MS },         0,
};

static const struct plan beside_counted = {
	"two_clocks_with_two_events_counted",
	4,
	{ "perf::PAGE-FAULTS", "perf::TASK-CLOCK", "perf::CONTEXT-SWITCHES",
	  "perf::CPU-CLOCK" },
	{ 0, MS, 0, 2 * MS },
	1,
};

static const struct plan four = {
	"four_sampling_events",
	4,
	{ "perf::TASK-CLOCK", "perf::CPU-CLOCK", "perf::PAGE-FAULTS",
	  "perf::MINOR-FAULTS" },
	{ MS, 2 * MS, 64, 96 },
	1,
};

/* What the runs of a plan gave: the worst run, and the sums. */
struct result {
	int rc, runs, bad_runs;
	long long count[MAXEV], calls[MAXEV];
	double worst[MAXEV]; /* the lowest calls / floor(count / period) */
	char why[240];       /* the first bad run */
};

/* @ns of this thread's CPU time; with @faults, 64 fresh pages a ms. */
static void work(long long ns, int faults)
{
	long long end = thread_ns() + ns;

	while (thread_ns() < end) {
		if (faults)
			(void)touch_pages(64);
		busy_ns(MS);
	}
}

/* An environment variable's positive value, else @def. */
static long long env_or(const char *name, long long def)
{
	const char *s = getenv(name);
	long long n = s ? atoll(s) : 0;

	return n > 0 ? n : def;
}

static int runs_wanted(void)
{
	return (int)env_or("LOPE_SAMPLING_RUNS", 20);
}

/* One run's calls @c for @count at period @p: within two periods. */
static int run_ok(long long c, long long count, long long p)
{
	return c >= count / p - 2 && c <= count / p + 2;
}

static int make_plan_set(const struct plan *pl, int *set)
{
	int rc = make_named_set(set, pl->names, pl->n), i;

	for (i = 0; rc == PAPI_OK && i < pl->n; i++)
		if (pl->period[i])
			rc = PAPI_overflow(*set, code_of(pl->names[i]),
					   (int)pl->period[i], 0, handler);
	return rc;
}

/* Run @pl's set @runs times on this thread into @r. */
static void run_plan(const struct plan *pl, int runs, struct result *r)
{
	long long v[MAXEV], before[MAXEV];
	int set, i, k;

	memset(r, 0, sizeof(*r));
	memset(calls, 0, sizeof(calls));
	for (i = 0; i < MAXEV; i++)
		r->worst[i] = 1e9;
	r->rc = make_plan_set(pl, &set);
	for (k = 0; r->rc == PAPI_OK && k < runs; k++) {
		memcpy(before, calls, sizeof(before));
		r->rc = PAPI_start(set);
		if (r->rc == PAPI_OK)
			work(env_or("LOPE_SAMPLING_MS", 100) * MS, pl->faults);
		if (r->rc == PAPI_OK)
			r->rc = PAPI_stop(set, v);
		for (i = 0; r->rc == PAPI_OK && i < pl->n; i++) {
			long long c = calls[i] - before[i], p = pl->period[i];

			r->count[i] += v[i];
			if (!p)
				continue;
			if (v[i] / p > 0 &&
			    (double)c / (double)(v[i] / p) < r->worst[i])
				r->worst[i] = (double)c / (double)(v[i] / p);
			if (run_ok(c, v[i], p))
				continue;
			if (!r->bad_runs++)
				snprintf(
					r->why, sizeof(r->why),
					"run %d: %s: %lld calls for %lld / %lld",
					k + 1, pl->names[i], c, v[i], p);
		}
		r->runs++;
	}
	memcpy(r->calls, calls, sizeof(r->calls));
	r->rc = r->rc == PAPI_OK && bad_index ? PAPI_EBUG : r->rc;
	drop_set(&set);
}

/* The events of @pl that sample. */
static int sampling_events(const struct plan *pl)
{
	int i, n = 0;

	for (i = 0; i < pl->n; i++)
		n += pl->period[i] != 0;
	return n;
}

/* The checks of @r: every run, and all the runs together. */
static void report(const struct plan *pl, const char *how,
		   const struct result *r)
{
	char name[160], line[400] = "";
	int i, total_ok = r->rc == PAPI_OK && r->runs > 0;

	for (i = 0; i < pl->n; i++) {
		long long p = pl->period[i], want;

		if (!p)
			continue;
		want = r->count[i] / p;
		total_ok = total_ok && r->calls[i] >= want - 2 &&
			   r->calls[i] <= want + 1;
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "%s%s %lld calls for %lld periods (worst run %.1f %%)",
			 *line ? "; " : "", pl->names[i],
			 (long long)r->calls[i], want, 100 * r->worst[i]);
	}
	lope_info("%s%s: %d runs: %s", pl->name, how, r->runs, line);
	lope_name(name, sizeof(name), "%s%s every run once a period", pl->name,
		  how);
	lope_check(r->rc == PAPI_OK && r->runs > 0 && !r->bad_runs, name,
		   "rc %s, %d of %d runs of a sampling event outside the "
		   "bounds, the first: %s",
		   papi_err(r->rc), r->bad_runs, r->runs * sampling_events(pl),
		   r->why);
	lope_name(name, sizeof(name), "%s%s all runs once a period", pl->name,
		  how);
	lope_check(total_ok, name, "rc %s: %s", papi_err(r->rc), line);
}

static void test_plan(const struct plan *pl)
{
	struct result r;

	run_plan(pl, runs_wanted(), &r);
	report(pl, "", &r);
}

/* A busy loop on every CPU while the runs go on, then none. */
static void test_busy(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), i, n = 0;
	pid_t pids[64];
	struct result r;

	for (i = 0; i < ncpu && i < 64; i++) {
		pid_t pid = fork();

		if (pid == 0)
			for (;;)
				busy_ns(MS);
		if (pid > 0)
			pids[n++] = pid;
	}
	run_plan(&two_clocks, runs_wanted(), &r);
	for (i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		(void)waitpid(pids[i], NULL, 0);
	}
	if (n < ncpu)
		lope_info("%ld busy loops of %ld", n, ncpu);
	report(&two_clocks, "_busy_loop_on_every_cpu", &r);
}

static void *thread_main(void *arg)
{
	run_plan(&two_clocks, runs_wanted() / 2 + 1, arg);
	(void)PAPI_unregister_thread();
	return NULL;
}

static void test_threads(void)
{
	struct result r[2];
	pthread_t t[2];
	int i, made[2];

	/* PAPI keeps its state per thread only once told how to tell them */
	thread_init_or_exit("thread_init", pthread_self);
	for (i = 0; i < 2; i++)
		made[i] = pthread_create(&t[i], NULL, thread_main, &r[i]) == 0;
	for (i = 0; i < 2; i++) {
		if (made[i])
			(void)pthread_join(t[i], NULL);
		else
			r[i].rc = PAPI_ESYS;
		report(&two_clocks, i ? "_thread_2" : "_thread_1", &r[i]);
	}
}

/* A forked child initialises PAPI again and runs its own set. */
static void test_fork(void)
{
	struct result r;
	int p[2], st = -1;
	pid_t pid;

	memset(&r, 0, sizeof(r));
	r.rc = PAPI_ESYS;
	if (pipe(p) < 0) {
		report(&two_clocks, "_forked_child", &r);
		return;
	}
	pid = fork();
	if (pid == 0) {
		int rc = PAPI_library_init(PAPI_VER_CURRENT);

		if (rc == PAPI_VER_CURRENT)
			run_plan(&two_clocks, runs_wanted() / 2 + 1, &r);
		else
			r.rc = rc;
		_exit(pipe_put_buf(p[1], &r, sizeof(r)) ? 1 : 0);
	}
	close(p[1]);
	if (pid > 0)
		st = wait_child(pid);
	if (st != 0 || pipe_get_buf(p[0], &r, sizeof(r)))
		r.rc = PAPI_ESYS;
	close(p[0]);
	report(&two_clocks, "_forked_child", &r);
}

static void test_two_clocks(void)
{
	test_plan(&two_clocks);
}

static void test_beside_counted(void)
{
	test_plan(&beside_counted);
}

static void test_four(void)
{
	test_plan(&four);
}

int main(void)
{
	static void (*const tests[])(void) = {
		test_two_clocks, test_busy,    test_beside_counted,
		test_four,       test_threads, test_fork,
	};

	return papi_run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
