/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_threads: four pthreads, each with its own event set of
 * perf::TASK-CLOCK, run start/read/stop at the same time.  Thread i spins
 * for (i+1)*20 ms of its own CPU time; each thread's read and stop must lie
 * within its own task-clock read around the start and around the read or
 * the stop (ctests/lib/span.h: the kernel's clock of the same thread, so
 * that time the host steals is in both), and therefore differ from the
 * others': counts are per thread, not per process.
 *
 * Threads record their results; the main thread reports them after the
 * join (report.h wants one reporting thread).
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <pthread.h>

#include "papi_util.h"
#include "span.h"

#define NTHREADS 4

struct result {
	int idx;
	int rc_reg, rc_create, rc_add, rc_start, rc_read, rc_stop;
	int rc_cleanup, rc_destroy, rc_unreg;
	unsigned long papi_tid, self;
	int rc_span;        /* 0, or the errno of a span that did not open  */
	long long busy_ns;  /* CPU time the thread spun, CLOCK_THREAD_CPUTIME */
	long long read_val; /* PAPI_read after the spin                      */
	long long stop_val; /* PAPI_stop                                     */
	/* The thread's task-clock around the start and the read (rd), and
	 * around the start and the stop (st). */
	struct span rd, st;
};

static pthread_barrier_t barrier;

static unsigned long self_id(void)
{
	return (unsigned long)pthread_self();
}

static void *thread_main(void *arg)
{
	struct result *r = arg;
	int set = PAPI_NULL;
	long long v = -1;

	r->self = self_id();
	r->rc_reg = PAPI_register_thread();
	r->papi_tid = PAPI_thread_id();
	r->rc_create = PAPI_create_eventset(&set);
	r->rc_add = PAPI_add_named_event(set, "perf::TASK-CLOCK");
	if (span_open(&r->rd, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0 ||
	    span_open(&r->st, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0)
		r->rc_span = errno;
	/* all four sets exist before any starts: they really overlap */
	pthread_barrier_wait(&barrier);
	span_mark(&r->rd);
	span_mark(&r->st);
	r->rc_start = PAPI_start(set);
	span_mark(&r->rd);
	span_mark(&r->st);
	r->busy_ns = spin_ns((r->idx + 1) * 20 * MS);
	span_mark(&r->rd);
	r->rc_read = PAPI_read(set, &v);
	span_mark(&r->rd);
	r->read_val = v;
	v = -1;
	span_mark(&r->st);
	r->rc_stop = PAPI_stop(set, &v);
	span_mark(&r->st);
	r->stop_val = v;
	span_close(&r->rd);
	span_close(&r->st);
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
	double ratio, lo, hi;
	int i;

	papi_init_or_exit();
	thread_init_or_exit("thread_init", self_id);

	pthread_barrier_init(&barrier, NULL, NTHREADS);
	memset(res, 0, sizeof(res));
	for (i = 0; i < NTHREADS; i++)
		res[i].idx = i;
	start_threads_or_exit("pthread_create", th, NTHREADS, thread_main, res,
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
		lope_check(
			span_holds(&r->rd, r->read_val), tn,
			"read %lld ns, the thread's task-clock over the start "
			"and the read: [%lld, %lld] ns (span: %s)",
			r->read_val, span_lo(&r->rd), span_hi(&r->rd),
			strerror(r->rc_span));

		snprintf(tn, sizeof(tn), "thread%d_stop_after_read", i);
		lope_check(r->stop_val >= r->read_val &&
				   span_holds(&r->st, r->stop_val),
			   tn,
			   "read %lld, stop %lld ns; the thread's task-clock "
			   "over the start and the stop: [%lld, %lld] ns",
			   r->read_val, r->stop_val, span_lo(&r->st),
			   span_hi(&r->st));
		lope_info(
			"thread %d: spun %lld ns, task-clock read %lld stop %lld",
			i, r->busy_ns, r->read_val, r->stop_val);
	}
	/*
	 * Thread 3 was asked to spin 4x thread 0; what they really ran is in
	 * their spans (an emulated guest overshoots short spins).  The ratio
	 * of their reads must lie between the ratios of their spans' bounds;
	 * a per-process count gives every thread the whole process's time.
	 */
	ratio = res[0].read_val > 0 ?
			(double)res[3].read_val / (double)res[0].read_val :
			0;
	lo = span_hi(&res[0].rd) > 0 ?
		     (double)span_lo(&res[3].rd) / (double)span_hi(&res[0].rd) :
		     0;
	hi = span_lo(&res[0].rd) > 0 ?
		     (double)span_hi(&res[3].rd) / (double)span_lo(&res[0].rd) :
		     0;
	lope_check(ratio > 0 && ratio >= lo && ratio <= hi,
		   "threads_counted_separately",
		   "thread 0 read %lld, thread 3 read %lld: ratio %.3f, their "
		   "spans allow [%.3f, %.3f]",
		   res[0].read_val, res[3].read_val, ratio, lo, hi);

	pthread_barrier_destroy(&barrier);
	PAPI_shutdown();
	return lope_done();
}
