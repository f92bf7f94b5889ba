/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_frontend_scorep: PAPI used the way Score-P uses it (its PAPI
 * metric source and its PAPI-based sampling).
 *
 * - Metrics are "strictly synchronous, accumulated": each location (a
 *   thread; here the main thread and two more) starts its event set once
 *   and calls PAPI_read, never PAPI_reset, at every region enter and exit
 *   (three levels of nested regions, 2004 reads a phase, 6012 in all).  Every value
 *   of every read is >= the previous one; the last read of a phase equals
 *   what counters the thread opened itself with perf_event_open(2)
 *   counted over that phase (task-clock within what that counter moved
 *   from around the start to around the read, span.h; page faults within
 *   2); PAPI_stop's values are >= the last read.
 * - Sampling on the same set: perf::TASK-CLOCK overflows every 1 ms.  At
 *   a pause Score-P stops the set and switches the overflow off
 *   (PAPI_overflow threshold 0 on the stopped set), later on again
 *   (threshold > 0) and restarts: three phases, on / off / on.  Off: the
 *   set is no longer PAPI_OVERFLOWING, counts on, and no handler runs.
 *   On: the handler runs, on the location's own thread and set, at most
 *   once per ms of the thread's task-clock from around the start to
 *   around the stop, plus one (samples.h); in the user domain, which
 *   Score-P uses, the kernel drops every expiry that comes while the
 *   thread is in the kernel and nothing bounds how many, so at least
 *   once.  At the end, as Score-P's
 *   finalisation: stop, overflow off, cleanup, destroy; no descriptor or
 *   perf mapping left.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <pthread.h>

#include "papi_util.h"
#include "samples.h"
#include "sw_counter.h"

#define NLOC 3
#define NEV 3
#define THRESHOLD 1000000
#define OUTER 501                       /* regions of depth 1, 2, 3 in turn */
#define READS (OUTER / 3 * (2 + 4 + 6)) /* an enter and an exit each */

static const char *const names[NEV] = {
	"perf::TASK-CLOCK",
	"perf::PAGE-FAULTS",
	"perf::CPU-CLOCK",
};
static int codes[NEV];

struct phase {
	long reads, went_down, read_errors, calls, wrong;
	long long last[NEV], stopv[NEV];
	long long raw_clock, raw_faults;
	/* The separate task-clock before and after PAPI_start, the last read
	 * and PAPI_stop: the spans of the last read and of the stop. */
	long long c0, c1, last_before, last_after, stop_after;
	int state_overflowing;
};

struct location {
	int set;
	pid_t tid;
	const char *failed;
	int rc;
	struct phase ph[3];
	struct phase *cur;
	int fc, ff;
};

static struct location loc[NLOC];
static __thread struct location *me;

static void handler(int set, void *address, long long vector, void *ctx)
{
	(void)address;
	(void)vector;
	(void)ctx;
	if (!me || !me->cur)
		return;
	me->cur->calls++;
	if (set != me->set || (pid_t)syscall(SYS_gettid) != me->tid)
		me->cur->wrong++;
}

static void fail_at(struct location *l, const char *what, int rc)
{
	if (!l->failed) {
		l->failed = what;
		l->rc = rc;
	}
}

/* Score-P's enter/exit hook: read the metrics, no reset. */
static void metrics(struct location *l)
{
	struct phase *p = l->cur;
	long long v[NEV];
	int down, last = ++p->reads == READS;

	if (last)
		p->last_before = sw_counter_read(l->fc);
	down = read_went_down(l->set, v, p->last, NEV);
	if (last)
		p->last_after = sw_counter_read(l->fc);
	if (down < 0)
		p->read_errors++;
	else
		p->went_down += down;
}

static void region(struct location *l, int depth)
{
	metrics(l); /* enter */
	busy_ns(40 * 1000);
	if (depth > 1)
		region(l, depth - 1);
	metrics(l); /* exit */
}

static void run_phase(struct location *l, struct phase *p)
{
	long long f0;
	int i, rc, state = 0;

	l->cur = p;
	if (PAPI_state(l->set, &state) == PAPI_OK)
		p->state_overflowing = !!(state & PAPI_OVERFLOWING);
	f0 = sw_counter_read(l->ff);
	p->c0 = sw_counter_read(l->fc);
	rc = PAPI_start(l->set);
	p->c1 = sw_counter_read(l->fc);
	if (rc != PAPI_OK)
		fail_at(l, "PAPI_start", rc);
	for (i = 0; i < OUTER; i++) {
		if (i % 25 == 0 && touch_pages(8) != 0)
			fail_at(l, "touch_pages", PAPI_ENOMEM);
		region(l, 1 + i % 3);
	}
	p->raw_faults = sw_counter_read(l->ff) - f0;
	p->raw_clock = sw_counter_read(l->fc) - p->c0;
	rc = PAPI_stop(l->set, p->stopv);
	p->stop_after = sw_counter_read(l->fc);
	l->cur = NULL;
	if (rc != PAPI_OK)
		fail_at(l, "PAPI_stop", rc);
}

static void overflow(struct location *l, int threshold, const char *what)
{
	int rc = PAPI_overflow(l->set, codes[0], threshold, 0,
			       threshold ? handler : NULL);

	if (rc != PAPI_OK)
		fail_at(l, what, rc);
}

static void *location_main(void *arg)
{
	struct location *l = arg;
	const char *call;
	int rc;

	me = l;
	l->tid = (pid_t)syscall(SYS_gettid);
	rc = register_with_set(&l->set, codes, NEV, &call);
	if (rc != PAPI_OK)
		fail_at(l, call, rc);
	l->fc = sw_counter_open(PERF_COUNT_SW_TASK_CLOCK, 1);
	l->ff = sw_counter_open(PERF_COUNT_SW_PAGE_FAULTS, 1);
	if (l->fc < 0 || l->ff < 0)
		fail_at(l, "perf_event_open of the separate counters",
			PAPI_ESYS);

	overflow(l, THRESHOLD, "PAPI_overflow on");
	run_phase(l, &l->ph[0]);
	overflow(l, 0, "PAPI_overflow off (threshold 0, stopped set)");
	run_phase(l, &l->ph[1]);
	overflow(l, THRESHOLD, "PAPI_overflow on again");
	run_phase(l, &l->ph[2]);

	/* Score-P's finalisation. */
	overflow(l, 0, "PAPI_overflow off at the end");
	rc = PAPI_cleanup_eventset(l->set);
	if (rc == PAPI_OK)
		rc = PAPI_destroy_eventset(&l->set);
	if (rc != PAPI_OK)
		fail_at(l, "cleanup + destroy", rc);
	if (l->fc >= 0)
		close(l->fc);
	if (l->ff >= 0)
		close(l->ff);
	if (l != &loc[0]) {
		rc = PAPI_unregister_thread();
		if (rc != PAPI_OK)
			fail_at(l, "PAPI_unregister_thread", rc);
	}
	me = NULL;
	return NULL;
}

/* The most handler calls the phase can have seen (samples.h). */
static long long most(const struct phase *p)
{
	return samples_most(p->stop_after - p->c0, THRESHOLD, 1);
}

static void report(int n)
{
	static const char *const what[3] = { "on", "off", "on again" };
	struct location *l = &loc[n];
	char name[120];
	int i, e, ok;

	lope_name(name, sizeof(name), "location %d: every PAPI call ok", n);
	lope_check(!l->failed, name, "%s: %s", l->failed, papi_err(l->rc));
	for (i = 0; i < 3; i++) {
		struct phase *p = &l->ph[i];

		lope_info(
			"location %d, overflow %s: %ld reads, %ld handler calls, last read %lld ns %lld faults, separately %lld ns %lld faults",
			n, what[i], p->reads, p->calls, p->last[0], p->last[1],
			p->raw_clock, p->raw_faults);
		lope_name(
			name, sizeof(name),
			"location %d, overflow %s: reads without reset never go down",
			n, what[i]);
		lope_check(p->reads == READS && !p->read_errors &&
				   !p->went_down,
			   name, "%ld reads, %ld errors, %ld went down",
			   p->reads, p->read_errors, p->went_down);
		lope_name(
			name, sizeof(name),
			"location %d, overflow %s: last read = separate count",
			n, what[i]);
		lope_check(
			p->last[0] >= p->last_before - p->c1 &&
				p->last[0] <= p->last_after - p->c0 &&
				near(p->last[1], p->raw_faults, 0, 2),
			name,
			"task-clock %lld ns (separately %lld to %lld), faults %lld (%lld)",
			p->last[0], p->last_before - p->c1,
			p->last_after - p->c0, p->last[1], p->raw_faults);
		for (e = 0, ok = 1; e < NEV; e++)
			ok &= p->stopv[e] >= p->last[e];
		lope_name(name, sizeof(name),
			  "location %d, overflow %s: PAPI_stop >= last read", n,
			  what[i]);
		lope_check(ok, name, "stop %lld %lld %lld, last %lld %lld %lld",
			   p->stopv[0], p->stopv[1], p->stopv[2], p->last[0],
			   p->last[1], p->last[2]);
		lope_name(name, sizeof(name),
			  "location %d, overflow %s: PAPI_OVERFLOWING %s", n,
			  what[i], i == 1 ? "off" : "on");
		lope_check(p->state_overflowing == (i != 1), name,
			   "PAPI_state says %d", p->state_overflowing);
		lope_name(name, sizeof(name),
			  "location %d, overflow %s: handler %s", n, what[i],
			  i == 1 ? "never runs" :
				   "at the rate, own thread and set");
		if (i == 1)
			lope_check(p->calls == 0, name, "%ld calls", p->calls);
		else
			lope_check(p->calls >= 1 && p->calls <= most(p) &&
					   !p->wrong,
				   name,
				   "%ld calls, at most %lld, %ld misrouted",
				   p->calls, most(p), p->wrong);
	}
}

int main(void)
{
	pthread_t th[NLOC];
	int fds, maps, rc, t;

	papi_init_or_exit();
	fds = fd_count();
	maps = perf_maps_count();
	thread_init_or_exit("papi_thread_init", pthread_self);
	for (t = 0, rc = PAPI_OK; rc == PAPI_OK && t < NEV; t++)
		rc = PAPI_event_name_to_code(names[t], &codes[t]);
	if (!lope_check(rc == PAPI_OK, "event_names_resolve", "%s",
			papi_err(rc)))
		return lope_done();
	/* location 0 is this thread */
	start_threads_or_exit("threads", th + 1, NLOC - 1, location_main,
			      loc + 1, sizeof(loc[0]));
	location_main(&loc[0]);
	for (t = 1; t < NLOC; t++)
		pthread_join(th[t], NULL);
	for (t = 0; t < NLOC; t++)
		report(t);
	lope_check(fd_count() == fds && perf_maps_count() == maps,
		   "no_descriptor_or_perf_mapping_left",
		   "%d descriptors (%d before), %d perf mappings (%d before)",
		   fd_count(), fds, perf_maps_count(), maps);
	return lope_done();
}
