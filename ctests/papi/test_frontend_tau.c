/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_frontend_tau: PAPI used the way TAU's PapiLayer uses it.
 *
 * - PAPI_thread_init with TAU's own thread ids: small integers handed out
 *   in order of arrival (the main thread 0, then 1, 2, ...), not OS ids;
 *   every thread calls PAPI_register_thread.  PAPI_thread_id() must give
 *   that small integer back, and PAPI_list_threads must list exactly them.
 * - Event names resolved once at initialisation (TAU adds its counters
 *   when it reads TAU_METRICS, in the first thread), one event set per
 *   thread on component 0 with the codes.
 * - Multiplexing only when PAPI_get_component_info(0)->kernel_multiplex
 *   says so (then PAPI_multiplex_init, PAPI_assign_eventset_component and
 *   PAPI_set_multiplex, as TAU does for the perf_event component), and
 *   PAPI_get_multiplex agrees.
 * - The hot loop: a little work, PAPI_read, then PAPI_reset, thousands of
 *   times, in four threads at once.  Every interval value is >= 0, and
 *   the sum of the intervals equals what was counted separately by
 *   counters the thread opened itself with perf_event_open(2): page
 *   faults within 2 over the whole loop; task-clock within what that
 *   counter moved from around PAPI_start to around the last PAPI_read
 *   (span.h's reasoning), less at most what it moved from before each
 *   earlier PAPI_read to after its PAPI_reset.  The component chains the
 *   intervals when it can (a reset right after a read takes that read as
 *   its base: the reset rule, doc/read-path.md), but a reset that comes
 *   later (the thread preempted or the host stealing between the two
 *   calls) starts anew, and what ran between them is in no interval.
 * - Stop, cleanup, destroy, unregister: no descriptor or perf mapping
 *   left.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/ioctl.h>

#include "papi_util.h"
#include "sw_counter.h"

#define NTHREADS 4 /* the main thread and three more */
#define NEV 3
#define ITERS 3000

static const char *const names[NEV] = {
	"perf::TASK-CLOCK",
	"perf::PAGE-FAULTS",
	"perf::CPU-CLOCK",
};
static int codes[NEV];
static int use_mpx;

/* TAU's thread ids. */
static int next_id;
static __thread int my_id = -1;

static unsigned long tau_thread_id(void)
{
	if (my_id < 0)
		my_id = __atomic_fetch_add(&next_id, 1, __ATOMIC_SEQ_CST);
	return (unsigned long)my_id;
}

struct result {
	int id;
	unsigned long papi_id;
	int mpx;
	const char *failed;
	int rc;
	long negative;
	long long sum[NEV];
	long long raw_faults;
	/* The separate task-clock from after PAPI_start to before the last
	 * PAPI_read (lo), from before PAPI_start to after the last reset
	 * (hi), and from before each earlier read to after its reset, summed
	 * (gaps). */
	long long raw_lo, raw_hi, gaps;
};

static struct result res[NTHREADS];
static pthread_barrier_t barrier;

/* A counter of this thread, read(2) gives its value. */
static void fail_at(struct result *r, const char *what, int rc)
{
	if (!r->failed) {
		r->failed = what;
		r->rc = rc;
	}
}

static void measure(struct result *r)
{
	long long v[NEV], c[4] = { 0, 0, 0, 0 }, f0, f1;
	int set = PAPI_NULL, i, e, rc, fc, ff;

	r->id = (int)tau_thread_id();
	rc = PAPI_register_thread();
	if (rc != PAPI_OK)
		fail_at(r, "PAPI_register_thread", rc);
	r->papi_id = PAPI_thread_id();
	rc = PAPI_create_eventset(&set);
	if (rc != PAPI_OK)
		fail_at(r, "PAPI_create_eventset", rc);
	if (use_mpx) {
		rc = PAPI_assign_eventset_component(set, 0);
		if (rc == PAPI_OK)
			rc = PAPI_set_multiplex(set);
		if (rc != PAPI_OK)
			fail_at(r, "assign component 0 + PAPI_set_multiplex",
				rc);
	}
	for (e = 0; e < NEV; e++) {
		rc = PAPI_add_event(set, codes[e]);
		if (rc != PAPI_OK)
			fail_at(r, "PAPI_add_event", rc);
	}
	r->mpx = PAPI_get_multiplex(set);
	fc = sw_counter_open(PERF_COUNT_SW_TASK_CLOCK, 1);
	ff = sw_counter_open(PERF_COUNT_SW_PAGE_FAULTS, 1);
	if (fc < 0 || ff < 0)
		fail_at(r, "perf_event_open of the separate counters",
			PAPI_ESYS);
	pthread_barrier_wait(&barrier);

	f0 = sw_counter_read(ff);
	c[0] = sw_counter_read(fc);
	rc = PAPI_start(set);
	c[1] = sw_counter_read(fc);
	if (rc != PAPI_OK)
		fail_at(r, "PAPI_start", rc);
	for (i = 0; i < ITERS && !r->failed; i++) {
		busy_ns(20 * 1000);
		if (i % 16 == 0 && touch_pages(4) != 0)
			fail_at(r, "touch_pages", PAPI_ENOMEM);
		if (i > 0)
			r->gaps += c[3] - c[2];
		c[2] = sw_counter_read(fc);
		rc = PAPI_read(set, v);
		if (rc != PAPI_OK) {
			fail_at(r, "PAPI_read", rc);
			break;
		}
		for (e = 0; e < NEV; e++) {
			if (v[e] < 0)
				r->negative++;
			r->sum[e] += v[e];
		}
		rc = PAPI_reset(set);
		c[3] = sw_counter_read(fc);
		if (rc != PAPI_OK)
			fail_at(r, "PAPI_reset", rc);
	}
	f1 = sw_counter_read(ff);
	r->raw_lo = c[2] - c[1] - r->gaps;
	r->raw_hi = c[3] - c[0];
	r->raw_faults = f1 - f0;

	rc = PAPI_stop(set, v);
	if (rc != PAPI_OK)
		fail_at(r, "PAPI_stop", rc);
	rc = PAPI_cleanup_eventset(set);
	if (rc == PAPI_OK)
		rc = PAPI_destroy_eventset(&set);
	if (rc != PAPI_OK)
		fail_at(r, "cleanup + destroy", rc);
	if (fc >= 0)
		close(fc);
	if (ff >= 0)
		close(ff);
}

static void *thread_main(void *arg)
{
	int rc;

	measure(arg);
	rc = PAPI_unregister_thread();
	if (rc != PAPI_OK)
		fail_at(arg, "PAPI_unregister_thread", rc);
	return NULL;
}

static void report(void)
{
	char name[96];
	int t, seen[NTHREADS] = { 0 }, ids_ok = 1;

	for (t = 0; t < NTHREADS; t++) {
		struct result *r = &res[t];

		if (r->id < 0 || r->id >= NTHREADS || seen[r->id]++ ||
		    r->papi_id != (unsigned long)r->id)
			ids_ok = 0;
	}
	lope_check(ids_ok, "papi_thread_id_is_taus_id_0_3_each_once",
		   "ids %d/%lu %d/%lu %d/%lu %d/%lu", res[0].id, res[0].papi_id,
		   res[1].id, res[1].papi_id, res[2].id, res[2].papi_id,
		   res[3].id, res[3].papi_id);
	for (t = 0; t < NTHREADS; t++) {
		struct result *r = &res[t];

		lope_info(
			"thread %d: intervals sum %lld ns, %lld faults, %lld ns cpu-clock; separately %lld to %lld ns (%lld ns from the reads to their resets), %lld faults",
			r->id, r->sum[0], r->sum[1], r->sum[2], r->raw_lo,
			r->raw_hi, r->gaps, r->raw_faults);
		lope_name(name, sizeof(name), "thread %d: every PAPI call ok",
			  r->id);
		lope_check(!r->failed, name, "%s: %s", r->failed,
			   papi_err(r->rc));
		lope_name(name, sizeof(name),
			  "thread %d: multiplexing as asked", r->id);
		lope_check(r->mpx == use_mpx, name,
			   "PAPI_get_multiplex %d, asked %d", r->mpx, use_mpx);
		lope_name(name, sizeof(name),
			  "thread %d: %d read+reset intervals, none negative",
			  r->id, ITERS);
		lope_check(!r->negative, name, "%ld negative values",
			   r->negative);
		lope_name(
			name, sizeof(name),
			"thread %d: task-clock intervals sum to the separate count",
			r->id);
		lope_check(r->raw_lo > 0 && r->sum[0] >= r->raw_lo &&
				   r->sum[0] <= r->raw_hi,
			   name, "sum %lld ns, separately %lld to %lld ns",
			   r->sum[0], r->raw_lo, r->raw_hi);
		lope_name(
			name, sizeof(name),
			"thread %d: page-fault intervals sum to the separate count",
			r->id);
		lope_check(r->raw_faults >= ITERS / 16 * 4 &&
				   near(r->sum[1], r->raw_faults, 0, 2),
			   name, "sum %lld, separately %lld", r->sum[1],
			   r->raw_faults);
		lope_name(
			name, sizeof(name),
			"thread %d: cpu-clock intervals close to task-clock's",
			r->id);
		lope_check(near(r->sum[2], r->sum[0], 0.02, 200 * 1000), name,
			   "cpu-clock %lld ns, task-clock %lld ns", r->sum[2],
			   r->sum[0]);
	}
}

int main(void)
{
	const PAPI_component_info_t *ci;
	pthread_t th[NTHREADS];
	unsigned long ids[NTHREADS + 4];
	int fds, maps, rc, t, n;

	papi_init_or_exit();
	fds = fd_count();
	maps = perf_maps_count();
	thread_init_or_exit("papi_thread_init_taus_ids", tau_thread_id);
	ci = PAPI_get_component_info(0);
	if (!lope_check(ci != NULL, "component_0_info", "NULL"))
		return lope_done();
	use_mpx = ci->kernel_multiplex != 0;
	lope_info("component 0 %s: kernel_multiplex %d, so %s", ci->name,
		  ci->kernel_multiplex,
		  use_mpx ? "multiplexed sets" : "plain sets");
	if (use_mpx) {
		rc = PAPI_multiplex_init();
		lope_check(rc == PAPI_OK, "papi_multiplex_init", "%s",
			   papi_err(rc));
	}
	for (t = 0, rc = PAPI_OK; rc == PAPI_OK && t < NEV; t++)
		rc = PAPI_event_name_to_code(names[t], &codes[t]);
	if (!lope_check(rc == PAPI_OK, "event_names_resolve", "%s",
			papi_err(rc)))
		return lope_done();

	pthread_barrier_init(&barrier, NULL, NTHREADS);
	(void)tau_thread_id(); /* the main thread is TAU's thread 0 */
	start_threads_or_exit("threads", th + 1, NTHREADS - 1, thread_main,
			      res + 1, sizeof(res[0]));
	measure(&res[0]);
	for (t = 1; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	pthread_barrier_destroy(&barrier);

	/* Threads 1..3 unregistered; the main thread is still known. */
	n = NTHREADS + 4;
	rc = PAPI_list_threads(ids, &n);
	lope_check(rc == PAPI_OK && n == 1 && ids[0] == 0,
		   "papi_list_threads_only_taus_thread_0_left",
		   "%s, %d threads, first %lu", papi_err(rc), n,
		   n > 0 ? ids[0] : 0);
	report();
	lope_check(fd_count() == fds && perf_maps_count() == maps,
		   "no_descriptor_or_perf_mapping_left",
		   "%d descriptors (%d before), %d perf mappings (%d before)",
		   fd_count(), fds, perf_maps_count(), maps);
	return lope_done();
}
