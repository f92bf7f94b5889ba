/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_threads2: threads identified the way TAU identifies them.
 *
 * PAPI_thread_init gets a function returning small integers (0 for the
 * main thread, 1..8 for the others), not OS thread ids.  Eight threads
 * (four registered with PAPI_register_thread, four implicitly by their
 * first PAPI call) each build their own set, wait until all sets exist,
 * then run 20 start/read/stop cycles concurrently, each with a different
 * amount of work; every read must lie within that thread's own task-clock
 * read around the start and the read (ctests/lib/span.h), and count its
 * pages.  PAPI_list_threads sees all nine threads, then only the main
 * one after PAPI_unregister_thread; an id freed by unregistering can be
 * used again by a new thread.  The main thread also reads thread 1's
 * running set: it must see that thread's work, not its own.
 *
 * The kernel's task-clock of a thread runs ahead of its CPU time
 * (CLOCK_THREAD_CPUTIME_ID) by whatever the host steals while it runs, so
 * every count is held to a span of the same thread's task-clock, never to
 * its CPU time.
 *
 * The event names are turned into codes once, in the main thread, as TAU
 * does at start-up: PAPI 7.0's framework looks a name up in its native
 * event table without a lock while another thread may be growing it
 * (_papi_hwi_find_native_event against _papi_hwi_add_native_event), so
 * concurrent first lookups fail now and then, stock and ours alike
 * (1 run in 30 of this test on an AMD EPYC KVM guest).
 *
 * Report protocol: ctests/lib/report.h (only the main thread reports).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <pthread.h>

#include "papi_util.h"
#include "span.h"

#define NTHREADS 8
#define NCYCLES 20

static __thread unsigned long my_id; /* 0 in the main thread */

/* TAU-style: a small integer per thread, not an OS id. */
static unsigned long small_id(void)
{
	return my_id;
}

static const char *const names[] = { "perf::TASK-CLOCK", "perf::PAGE-FAULTS" };
static int codes[2]; /* resolved by the main thread */

/* A new event set with the events of codes[]; PAPI_OK or the first error. */
static int make_set(int *set)
{
	int i, rc;

	*set = PAPI_NULL;
	rc = PAPI_create_eventset(set);
	for (i = 0; rc == PAPI_OK && i < 2; i++)
		rc = PAPI_add_event(*set, codes[i]);
	return rc;
}

struct result {
	int idx;
	pid_t tid; /* for the main thread's span of thread 1 */
	unsigned long papi_tid;
	int rc_reg, rc_set, rc_loop, rc_unreg;
	int cycles_ok;       /* cycles whose read matched the thread's work */
	char first_bad[200]; /* what the first bad cycle saw */
	long long sum_tc, sum_lo, sum_hi; /* the reads and their spans */
	int set; /* for the main thread's cross-thread read */
};

static pthread_barrier_t all_sets_exist, main_read_done, all_stopped, listed;
static struct result res[NTHREADS];

/*
 * One start/read/stop cycle, its read held to the span @sp of this
 * thread's task-clock taken around the start and the read.  The span's
 * first mark is already taken, before the start of a set never started,
 * else before the stop that ended its last cycle: a PAPI_stop reads the
 * counters and then disables them, and what they add in between is
 * carried into the next interval (the engine's bases are that read's
 * sample), so the interval starts inside that stop.  This cycle takes the
 * next cycle's first mark before its own stop.
 */
static void one_cycle(struct result *r, struct span *sp, int cycle)
{
	long long v[2] = { 0, 0 }, s[2] = { 0, 0 }, lo, hi;
	int pages = (r->idx + 1) * 8, rc, in_span, marks;

	rc = PAPI_start(r->set);
	span_mark(sp);
	busy_ns((r->idx + 1) * 500000LL); /* 0.5 ms per thread index */
	if (rc == PAPI_OK && touch_pages((size_t)pages) < 0)
		rc = PAPI_ESYS;
	span_mark(sp);
	if (rc == PAPI_OK)
		rc = PAPI_read(r->set, v);
	span_mark(sp);
	r->sum_tc += v[0];
	lo = span_lo(sp);
	hi = span_hi(sp);
	r->sum_lo += lo;
	r->sum_hi += hi;
	in_span = span_holds(sp, v[0]);
	marks = sp->n;
	span_clear(sp);
	span_mark(sp); /* the next cycle's first */
	if (rc == PAPI_OK)
		rc = PAPI_stop(r->set, s);
	if (rc != PAPI_OK && r->rc_loop == PAPI_OK)
		r->rc_loop = rc;
	if (rc == PAPI_OK && in_span && v[1] >= pages &&
	    v[1] <= pages * 3 / 2 + 16 && s[0] >= v[0] && s[1] >= v[1]) {
		r->cycles_ok++;
	} else if (!r->first_bad[0]) {
		snprintf(r->first_bad, sizeof(r->first_bad),
			 "cycle %d: rc=%d task-clock %lld, its span [%lld, "
			 "%lld] (%d marks); faults %lld (%d pages) stop "
			 "%lld/%lld",
			 cycle, rc, v[0], lo, hi, marks, v[1], pages, s[0],
			 s[1]);
	}
}

static void *thread_main(void *arg)
{
	struct result *r = arg;
	struct span sp;
	long long v[2];
	int i, rc;

	my_id = (unsigned long)r->idx + 1;
	r->tid = (pid_t)syscall(SYS_gettid);
	if (span_open(&sp, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0)
		snprintf(r->first_bad, sizeof(r->first_bad),
			 "no span: perf_event_open(task-clock): %s",
			 strerror(errno));
	/* Half register explicitly; the others are registered by PAPI on
	 * their first call. */
	r->rc_reg = r->idx % 2 == 0 ? PAPI_register_thread() : PAPI_OK;
	r->papi_tid = PAPI_thread_id();
	r->set = PAPI_NULL;
	r->rc_set = make_set(&r->set);

	pthread_barrier_wait(&all_sets_exist);
	/* Thread 1 keeps its set running while the main thread reads it. */
	if (r->idx == 0 && r->rc_set == PAPI_OK) {
		rc = PAPI_start(r->set);
		busy_ns(30 * MS);
		pthread_barrier_wait(&main_read_done);
		span_mark(&sp); /* before the stop: one_cycle() says why */
		if (rc == PAPI_OK)
			(void)PAPI_stop(r->set, v);
	} else {
		pthread_barrier_wait(&main_read_done);
		span_mark(&sp);
	}
	for (i = 0; r->rc_set == PAPI_OK && sp.fd >= 0 && i < NCYCLES; i++)
		one_cycle(r, &sp, i);
	span_close(&sp);
	pthread_barrier_wait(&all_stopped);
	pthread_barrier_wait(&listed);
	drop_set(&r->set);
	r->rc_unreg = PAPI_unregister_thread();
	return NULL;
}

#define REUSE_WHY 160 /* what went wrong in reuser(), "" if nothing */

/*
 * A thread reusing the small id 3 after its first owner unregistered:
 * it registers, counts 10 ms of its own (held to its span), unregisters.
 */
static void *reuser(void *arg)
{
	char *why = arg;
	int set = PAPI_NULL, rc;
	long long v[2] = { 0, 0 };
	struct span sp;

	my_id = 3;
	if (span_open(&sp, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0) {
		snprintf(why, REUSE_WHY, "no span: %s", strerror(errno));
		return NULL;
	}
	rc = PAPI_register_thread();
	if (rc == PAPI_OK && PAPI_thread_id() != 3)
		rc = PAPI_EBUG;
	if (rc == PAPI_OK)
		rc = make_set(&set);
	rc = spin_between_marks(set, rc, 10 * MS, PAPI_stop, v, &sp);
	drop_set(&set);
	if (rc == PAPI_OK)
		rc = PAPI_unregister_thread();
	if (rc != PAPI_OK || !span_holds(&sp, v[0]))
		snprintf(why, REUSE_WHY,
			 "rc=%s: task-clock %lld ns, its span [%lld, %lld]",
			 papi_err(rc), v[0], span_lo(&sp), span_hi(&sp));
	span_close(&sp);
	return NULL;
}

static int nthreads_listed(void)
{
	unsigned long ids[2 * NTHREADS + 2];
	int n = 2 * NTHREADS + 2, rc;

	rc = PAPI_list_threads(ids, &n);
	return rc == PAPI_OK ? n : rc;
}

/*
 * The main thread reads thread 1's running set while it spins itself: the
 * difference of two reads shows that thread's time, not ours, however much
 * of the CPU that thread gets on a loaded machine.  It must lie within the
 * span of its own task-clock (opened from here on its thread id)
 * read around each of the two reads: that thread's clock between the end
 * of the first read and the start of the second, at least, and between
 * the start of the first and the end of the second, at most.
 */
static void cross_read(void)
{
	long long a[2] = { 0 }, b[2] = { 0 }, t0, own;
	struct span sp;
	int rc;

	if (span_open(&sp, PERF_COUNT_SW_TASK_CLOCK, res[0].tid, 0) < 0) {
		lope_fail("main_reads_thread_set_sees_thread_time",
			  "no span: perf_event_open(task-clock of tid %d): %s",
			  (int)res[0].tid, strerror(errno));
		return;
	}
	sleep_ns(5 * MS); /* thread 1 is spinning */
	span_mark(&sp);
	rc = PAPI_read(res[0].set, a);
	span_mark(&sp);
	t0 = thread_ns();
	busy_ns(10 * MS); /* ours: must not show */
	own = thread_ns() - t0;
	sleep_ns(10 * MS); /* thread 1's: must show */
	span_mark(&sp);
	if (rc == PAPI_OK)
		rc = PAPI_read(res[0].set, b);
	span_mark(&sp);
	lope_check(rc == PAPI_OK && span_holds(&sp, b[0] - a[0]),
		   "main_reads_thread_set_sees_thread_time",
		   "rc=%s thread 1's task-clock %lld -> %lld ns, its span "
		   "[%lld, %lld] ns; we spun %lld ns",
		   papi_err(rc), a[0], b[0], span_lo(&sp), span_hi(&sp), own);
	span_close(&sp);
}

int main(void)
{
	pthread_t th[NTHREADS], t;
	char n[64], reuse_why[REUSE_WHY] = "";
	int rc, i, n_all, n_after, ordered;
	double ratio, lo, hi;

	setvbuf(stdout, NULL, _IOLBF, 0);
	papi_init_or_exit();
	thread_init_or_exit("thread_init_small_ids", small_id);
	lope_check(PAPI_thread_id() == 0, "main_thread_id_0",
		   "PAPI_thread_id()=%lu", PAPI_thread_id());
	for (i = 0, rc = PAPI_OK; i < 2 && rc == PAPI_OK; i++)
		rc = PAPI_event_name_to_code(names[i], &codes[i]);
	if (!lope_check(rc == PAPI_OK, "event_codes_resolved", "%s: %s",
			names[i - 1], papi_err(rc)))
		return lope_done();

	pthread_barrier_init(&all_sets_exist, NULL, NTHREADS + 1);
	pthread_barrier_init(&main_read_done, NULL, NTHREADS + 1);
	pthread_barrier_init(&all_stopped, NULL, NTHREADS + 1);
	pthread_barrier_init(&listed, NULL, NTHREADS + 1);
	memset(res, 0, sizeof(res));
	for (i = 0; i < NTHREADS; i++)
		res[i].idx = i;
	start_threads_or_exit("pthread_create", th, NTHREADS, thread_main, res,
			      sizeof(res[0]));
	pthread_barrier_wait(&all_sets_exist);
	if (res[0].rc_set == PAPI_OK)
		cross_read();
	else
		lope_fail("main_reads_thread_set_sees_thread_time",
			  "thread 1 has no set: %s", papi_err(res[0].rc_set));
	pthread_barrier_wait(&main_read_done);
	pthread_barrier_wait(&all_stopped);
	n_all = nthreads_listed();
	pthread_barrier_wait(&listed);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	n_after = nthreads_listed();

	lope_check(n_all == NTHREADS + 1, "list_threads_all_registered",
		   "PAPI_list_threads: %d, expected %d", n_all, NTHREADS + 1);
	lope_check(n_after == 1, "list_threads_after_unregister",
		   "PAPI_list_threads: %d, expected 1", n_after);
	for (i = 0; i < NTHREADS; i++) {
		struct result *r = &res[i];

		snprintf(n, sizeof(n), "thread%d_papi_calls_ok", i + 1);
		lope_check(r->rc_reg == PAPI_OK && r->rc_set == PAPI_OK &&
				   r->rc_loop == PAPI_OK &&
				   r->rc_unreg == PAPI_OK,
			   n, "register %s set %s loop %s unregister %s",
			   papi_err(r->rc_reg), papi_err(r->rc_set),
			   papi_err(r->rc_loop), papi_err(r->rc_unreg));
		snprintf(n, sizeof(n), "thread%d_thread_id_is_small_id", i + 1);
		lope_check(r->papi_tid == (unsigned long)i + 1, n,
			   "PAPI_thread_id()=%lu, expected %d", r->papi_tid,
			   i + 1);
		snprintf(n, sizeof(n), "thread%d_every_cycle_counts_own_work",
			 i + 1);
		lope_check(r->cycles_ok == NCYCLES, n, "%d of %d cycles; %s",
			   r->cycles_ok, NCYCLES, r->first_bad);
		lope_info("thread %d: task-clock sum %lld ns, spans [%lld, "
			  "%lld] ns",
			  i + 1, r->sum_tc, r->sum_lo, r->sum_hi);
	}
	/*
	 * Thread 8 was asked to work 8x thread 1; what each really ran is in
	 * its spans (an emulated guest overshoots short spins).  The ratio of
	 * their totals must lie between the ratios of their spans' bounds; a
	 * count shared between the threads would not.
	 */
	ratio = res[0].sum_tc > 0 ?
			(double)res[NTHREADS - 1].sum_tc / res[0].sum_tc :
			0;
	lo = res[0].sum_hi > 0 ?
		     (double)res[NTHREADS - 1].sum_lo / res[0].sum_hi :
		     0;
	hi = res[0].sum_lo > 0 ?
		     (double)res[NTHREADS - 1].sum_hi / res[0].sum_lo :
		     0;
	ordered = ratio > 0 && ratio >= lo && ratio <= hi;
	lope_check(ordered, "threads_counted_separately",
		   "thread 1 %lld ns, thread %d %lld ns: ratio %.3f, their "
		   "spans allow [%.3f, %.3f]",
		   res[0].sum_tc, NTHREADS, res[NTHREADS - 1].sum_tc, ratio, lo,
		   hi);

	if (pthread_create(&t, NULL, reuser, reuse_why) == 0)
		pthread_join(t, NULL);
	else
		snprintf(reuse_why, sizeof(reuse_why), "pthread_create failed");
	lope_check(!reuse_why[0], "reused_id_after_unregister",
		   "a new thread with id 3 could not register, count and "
		   "unregister: %s",
		   reuse_why);
	lope_check(nthreads_listed() == 1, "list_threads_after_reuse",
		   "PAPI_list_threads: %d", nthreads_listed());

	pthread_barrier_destroy(&all_sets_exist);
	pthread_barrier_destroy(&main_read_done);
	pthread_barrier_destroy(&all_stopped);
	pthread_barrier_destroy(&listed);
	PAPI_shutdown();
	return lope_done();
}
