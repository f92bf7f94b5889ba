/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_threads: four pthreads, each with its own event set of
 * perf::TASK-CLOCK, run start/read/stop at the same time.  Thread i spins
 * for (i+1)*20 ms of its own CPU time, so each thread's value must match
 * its own CPU clock (and therefore differ from the others'): counts are
 * per thread, not per process.
 *
 * Threads record their results; the main thread reports them after the
 * join (report.h wants one reporting thread).
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>

#include "papi_util.h"

#define NTHREADS 4

struct result {
	int idx;
	int rc_reg, rc_create, rc_add, rc_start, rc_read, rc_stop;
	int rc_cleanup, rc_destroy, rc_unreg;
	unsigned long papi_tid, self;
	long long busy_ns;  /* CPU time the thread spun, CLOCK_THREAD_CPUTIME */
	long long read_val; /* PAPI_read after the spin                      */
	long long stop_val; /* PAPI_stop                                     */
};

static pthread_barrier_t barrier;

/* a/b within 25 % of want_a/want_b (all positive) */
static int in_proportion(long long a, long long b, long long want_a,
			 long long want_b)
{
	double r, want;

	if (a <= 0 || b <= 0 || want_a <= 0 || want_b <= 0)
		return 0;
	r = (double)a / (double)b;
	want = (double)want_a / (double)want_b;
	return r > want * 0.75 && r < want * 1.25;
}

static unsigned long self_id(void)
{
	return (unsigned long)pthread_self();
}

static void *worker(void *arg)
{
	struct result *r = arg;
	int set = PAPI_NULL;
	long long v = -1;

	r->self = self_id();
	r->rc_reg = PAPI_register_thread();
	r->papi_tid = PAPI_thread_id();
	r->rc_create = PAPI_create_eventset(&set);
	r->rc_add = PAPI_add_named_event(set, "perf::TASK-CLOCK");
	/* all four sets exist before any starts: they really overlap */
	pthread_barrier_wait(&barrier);
	r->rc_start = PAPI_start(set);
	r->busy_ns = spin_ns((r->idx + 1) * 20 * MS);
	r->rc_read = PAPI_read(set, &v);
	r->read_val = v;
	v = -1;
	r->rc_stop = PAPI_stop(set, &v);
	r->stop_val = v;
	r->rc_cleanup = PAPI_cleanup_eventset(set);
	r->rc_destroy = PAPI_destroy_eventset(&set);
	pthread_barrier_wait(&barrier);
	r->rc_unreg = PAPI_unregister_thread();
	return NULL;
}

int main(void)
{
	struct result res[NTHREADS];
	pthread_t th[NTHREADS];
	char tn[64];
	int i, ok;

	papi_init_or_exit();
	thread_init_or_exit("thread_init", self_id);

	pthread_barrier_init(&barrier, NULL, NTHREADS);
	memset(res, 0, sizeof(res));
	for (i = 0; i < NTHREADS; i++)
		res[i].idx = i;
	start_threads_or_exit("pthread_create", th, NTHREADS, worker, res,
			      sizeof(res[0]));
	for (i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);

	for (i = 0; i < NTHREADS; i++) {
		struct result *r = &res[i];

		snprintf(tn, sizeof(tn), "thread%d_papi_calls_ok", i);
		lope_check(
			r->rc_reg == PAPI_OK && r->rc_create == PAPI_OK &&
				r->rc_add == PAPI_OK &&
				r->rc_start == PAPI_OK &&
				r->rc_read == PAPI_OK &&
				r->rc_stop == PAPI_OK &&
				r->rc_cleanup == PAPI_OK &&
				r->rc_destroy == PAPI_OK &&
				r->rc_unreg == PAPI_OK,
			tn,
			"register %d create %d add %d start %d read %d stop %d "
			"cleanup %d destroy %d unregister %d",
			r->rc_reg, r->rc_create, r->rc_add, r->rc_start,
			r->rc_read, r->rc_stop, r->rc_cleanup, r->rc_destroy,
			r->rc_unreg);

		snprintf(tn, sizeof(tn), "thread%d_thread_id", i);
		lope_check(r->papi_tid == r->self, tn,
			   "PAPI_thread_id()=%#lx, pthread_self()=%#lx",
			   r->papi_tid, r->self);

		snprintf(tn, sizeof(tn), "thread%d_task_clock_own_time", i);
		ok = r->read_val >= r->busy_ns - r->busy_ns / 10 - 2 * MS &&
		     r->read_val <= r->busy_ns + r->busy_ns / 10 + 2 * MS;
		lope_check(
			ok, tn,
			"read %lld ns, the thread's own CPU time over the spin "
			"%lld ns",
			r->read_val, r->busy_ns);

		snprintf(tn, sizeof(tn), "thread%d_stop_after_read", i);
		lope_check(r->stop_val >= r->read_val &&
				   r->stop_val - r->read_val < 20 * MS,
			   tn, "read %lld, stop %lld", r->read_val,
			   r->stop_val);
		lope_info(
			"thread %d: spun %lld ns, task-clock read %lld stop %lld",
			i, r->busy_ns, r->read_val, r->stop_val);
	}
	/*
	 * Thread 3 was asked to spin 4x thread 0; what they really spun comes
	 * from their own CPU clocks (an emulated guest overshoots short
	 * spins).  Per-thread counts stand in the proportion of those times;
	 * a per-process count gives every thread the whole process's time.
	 */
	lope_check(in_proportion(res[3].read_val, res[0].read_val,
				 res[3].busy_ns, res[0].busy_ns),
		   "threads_counted_separately",
		   "thread 0 read %lld, thread 3 read %lld; they spun %lld and "
		   "%lld ns (ratio expected within 25%%)",
		   res[0].read_val, res[3].read_val, res[0].busy_ns,
		   res[3].busy_ns);

	pthread_barrier_destroy(&barrier);
	PAPI_shutdown();
	return lope_done();
}
