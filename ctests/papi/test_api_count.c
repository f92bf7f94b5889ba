/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_api_count: counting through the PAPI API on software events (no
 * hardware PMU needed): start/read/accum/reset/stop/write semantics
 * checked against the kernel's own clock of this thread (below) and
 * against pages really touched (reset and accum make no ioctl: the interposer counts them,
 * ctests/lib/interpose.h), every member of a group counting again over
 * stop/start and reset cycles, events removed (the leader too), and two
 * sets on one thread.
 *
 * Every clock is held to a span (ctests/lib/span.h): the kernel's own
 * task-clock (cpu-clock) of this thread, read just before and just after
 * the calls that start and end the interval, so that whatever the host
 * steals is in both.  An interval that starts at a reset right after a
 * read, or at a start after a stop, may start at that read's sample (the
 * engine reuses it, or carries what the stop's disable adds over), so its
 * span starts before that read (span_carry()).
 *
 * Report protocol: ctests/lib/report.h.
 */
#include <linux/perf_event.h>

#include "interpose.h"
#include "papi_util.h"
#include "span.h"

enum { TC, PF, CS, MIG, NEV };

/* This thread's task-clock and cpu-clock, opened by main(). */
static struct span tcs, ccs;

/* The mark of both. */
static void mark(void)
{
	span_mark(&tcs);
	span_mark(&ccs);
}

/*
 * After a call that begins an interval of @set and returned @rc: mark
 * tcs for the call's end and again for the read's start, read @set into
 * @v, mark the read's end.  The read's result, or @rc.
 */
static int read_after(int rc, int set, long long *v)
{
	span_mark(&tcs);
	span_mark(&tcs);
	if (rc == PAPI_OK)
		rc = PAPI_read(set, v);
	span_mark(&tcs);
	return rc;
}

/* "@got ns, span [lo, hi]" of @s. */
static const char *in(char *buf, size_t len, long long got,
		      const struct span *s)
{
	snprintf(buf, len, "%lld ns, span [%lld, %lld]", got, span_lo(s),
		 span_hi(s));
	return buf;
}

static void test_counting(void)
{
	long long v[NEV], prev[NEV], first[NEV], v1[NEV], v2[NEV], acc[NEV];
	long long before, lo, hi;
	unsigned long nio, nio_acc;
	int set, rc, i, k, ok;
	int touched;
	const size_t npages = 512;
	char why[120];

	rc = make_named_set(&set, sw_events, NEV);
	if (!set_ok_or_drop("build_set_4_sw_events", rc, &set))
		return;
	rc = PAPI_start(set);
	if (!set_ok_or_drop("start", rc, &set))
		return;

	/* monotonic without reset */
	ok = 1;
	rc = PAPI_read(set, first);
	memcpy(prev, first, sizeof(prev));
	for (k = 0; k < 500 && ok && rc == PAPI_OK; k++) {
		busy_ns(20000);
		if (k % 50 == 0)
			(void)touch_pages(4);
		rc = PAPI_read(set, v);
		for (i = 0; i < NEV && rc == PAPI_OK; i++)
			if (v[i] < prev[i]) {
				ok = 0;
				lope_fail("read_monotonic",
					  "%s went %lld -> %lld at read %d",
					  sw_events[i], prev[i], v[i], k);
			}
		memcpy(prev, v, sizeof(prev));
	}
	if (rc != PAPI_OK)
		lope_fail("read_monotonic", "PAPI_read rc=%s", papi_err(rc));
	else if (ok)
		lope_check(prev[TC] > first[TC] && prev[PF] > first[PF],
			   "read_monotonic",
			   "500 reads over busy work did not move: task-clock "
			   "%lld -> %lld, page-faults %lld -> %lld",
			   first[TC], prev[TC], first[PF], prev[PF]);

	/* task-clock grows by the busy time: at least the 20 ms of CPU time
	 * spun (task-clock only runs ahead of it), within the span of the
	 * thread's own task-clock */
	span_clear(&tcs);
	span_mark(&tcs);
	PAPI_read(set, v1);
	span_mark(&tcs);
	busy_ns(20 * MS);
	span_mark(&tcs);
	rc = PAPI_read(set, v2);
	span_mark(&tcs);
	lope_check(rc == PAPI_OK && v2[TC] - v1[TC] >= 10 * MS &&
			   v2[TC] - v1[TC] <= span_hi(&tcs),
		   "task_clock_20ms_busy_in_10ms_1s", "rc=%s delta=%s",
		   papi_err(rc), in(why, sizeof(why), v2[TC] - v1[TC], &tcs));
	lope_check(span_holds(&tcs, v2[TC] - v1[TC]),
		   "task_clock_within_own_task_clock", "task-clock delta %s",
		   in(why, sizeof(why), v2[TC] - v1[TC], &tcs));

	/* page faults of touching N fresh pages */
	PAPI_read(set, v1);
	touched = touch_pages(npages) == 0;
	rc = PAPI_read(set, v2);
	lope_check(rc == PAPI_OK && touched &&
			   v2[PF] - v1[PF] >= (long long)(npages * 9 / 10) &&
			   v2[PF] - v1[PF] <= (long long)(npages * 3 / 2 + 64),
		   "page_faults_touch_512_pages",
		   "rc=%s page-faults delta=%lld for %zu pages", papi_err(rc),
		   v2[PF] - v1[PF], npages);

	/* reset: the interval starts in the read before it or in it */
	busy_ns(20 * MS);
	span_clear(&tcs);
	span_mark(&tcs);
	PAPI_read(set, v1);
	nio = lope_calls(LOPE_CALL_IOCTL);
	rc = PAPI_reset(set);
	nio = lope_calls(LOPE_CALL_IOCTL) - nio;
	span_mark(&tcs);
	span_mark(&tcs);
	if (rc == PAPI_OK)
		rc = PAPI_read(set, v2);
	span_mark(&tcs);
	lope_check(rc == PAPI_OK && nio == 0, "reset_makes_no_ioctl",
		   "rc=%s PAPI_reset made %lu ioctl calls", papi_err(rc), nio);
	lope_check(rc == PAPI_OK && span_holds(&tcs, v2[TC]) && v2[PF] >= 0 &&
			   v2[PF] <= 8,
		   "reset_then_read_near_zero",
		   "rc=%s before reset task-clock=%lld page-faults=%lld; "
		   "after task-clock=%s page-faults=%lld",
		   papi_err(rc), v1[TC], v1[PF],
		   in(why, sizeof(why), v2[TC], &tcs), v2[PF]);

	/*
	 * accum: adds into the array and resets, so each accum ends one
	 * interval and starts the next: each lies within the span from the
	 * call that started it to its own, and the sum within the sum of
	 * those spans.  The first starts at a reset right after a read.
	 */
	span_carry(&tcs);
	PAPI_reset(set);
	span_mark(&tcs);
	for (i = 0; i < NEV; i++)
		acc[i] = 1000000000000LL;
	rc = PAPI_OK;
	nio_acc = 0;
	lo = hi = 0;
	ok = 1;
	for (k = 0; k < 5 && rc == PAPI_OK; k++) {
		busy_ns(4 * MS);
		(void)touch_pages(40);
		before = acc[TC];
		nio = lope_calls(LOPE_CALL_IOCTL);
		span_mark(&tcs);
		rc = PAPI_accum(set, acc);
		span_mark(&tcs);
		nio_acc += lope_calls(LOPE_CALL_IOCTL) - nio;
		if (ok && !span_holds(&tcs, acc[TC] - before)) {
			ok = 0;
			snprintf(why, sizeof(why),
				 "accum %d: %lld ns, span "
				 "[%lld, %lld]",
				 k, acc[TC] - before, span_lo(&tcs),
				 span_hi(&tcs));
		}
		lo += span_lo(&tcs);
		hi += span_hi(&tcs);
		span_carry(&tcs);
		span_mark(&tcs);
	}
	lope_check(rc == PAPI_OK && nio_acc == 0, "accum_makes_no_ioctl",
		   "rc=%s 5 PAPI_accum calls made %lu ioctl calls",
		   papi_err(rc), nio_acc);
	for (i = 0; i < NEV; i++)
		acc[i] -= 1000000000000LL;
	lope_check(rc == PAPI_OK && ok && acc[TC] >= lo && acc[TC] <= hi,
		   "accum_sum_matches_unreset_time",
		   "rc=%s sum of 5 accums of task-clock=%lld ns, their spans "
		   "[%lld, %lld]; %s",
		   papi_err(rc), acc[TC], lo, hi,
		   ok ? "each in its span" : why);
	lope_check(acc[PF] >= 180 && acc[PF] <= 400, "accum_sum_page_faults",
		   "sum of accums of page-faults=%lld for 200 pages touched",
		   acc[PF]);
	span_mark(&tcs);
	rc = PAPI_read(set, v);
	span_mark(&tcs);
	lope_check(rc == PAPI_OK && span_holds(&tcs, v[TC]), "accum_resets",
		   "rc=%s task-clock just after accum=%s", papi_err(rc),
		   in(why, sizeof(why), v[TC], &tcs));

	/* stop returns final values: what the read before it had, and the
	 * span from that read to the stop more; a stopped set does not
	 * count; restart counts from zero (from the stop's own read, which
	 * it carries over: the span starts before the stop) */
	busy_ns(20 * MS);
	span_clear(&tcs);
	span_mark(&tcs);
	PAPI_read(set, v1);
	span_mark(&tcs);
	memset(v2, 0xff, sizeof(v2));
	span_mark(&tcs);
	rc = PAPI_stop(set, v2);
	span_mark(&tcs);
	lope_check(rc == PAPI_OK && span_holds(&tcs, v2[TC] - v1[TC]) &&
			   v2[PF] >= v1[PF],
		   "stop_returns_final_values",
		   "rc=%s last read task-clock=%lld, stop=%lld: %s",
		   papi_err(rc), v1[TC], v2[TC],
		   in(why, sizeof(why), v2[TC] - v1[TC], &tcs));
	span_carry(&tcs);
	busy_ns(5 * MS);
	rc = PAPI_read(set, v);
	lope_check(rc == PAPI_OK && memcmp(v, v2, sizeof(v)) == 0,
		   "read_after_stop_returns_stop_values",
		   "rc=%s task-clock read=%lld stop=%lld", papi_err(rc), v[TC],
		   v2[TC]);
	rc = read_after(PAPI_start(set), set, v);
	lope_check(rc == PAPI_OK && span_holds(&tcs, v[TC]),
		   "restart_counts_from_zero",
		   "rc=%s task-clock right after restart=%s (stopped at %lld)",
		   papi_err(rc), in(why, sizeof(why), v[TC], &tcs), v2[TC]);

	/* write */
	{
		long long w[NEV] = { 5000000000LL, 1000000LL, 100000LL,
				     10000LL };

		/* The written values, and the task-clock of the span from
		 * the write to the read more (the write samples anew). */
		span_clear(&tcs);
		span_mark(&tcs);
		rc = PAPI_write(set, w);
		span_mark(&tcs);
		lope_check(rc == PAPI_OK, "write_running_set",
			   "PAPI_write rc=%s (stock PAPI: not supported)",
			   papi_err(rc));
		if (rc == PAPI_OK) {
			span_mark(&tcs);
			rc = PAPI_read(set, v1);
			span_mark(&tcs);
			ok = rc == PAPI_OK && span_holds(&tcs, v1[TC] - w[TC]);
			for (i = 1; i < NEV && ok; i++)
				ok = v1[i] >= w[i] && v1[i] < w[i] + 1000 * MS;
			lope_check(ok, "write_then_read_returns_written",
				   "rc=%s wrote %lld/%lld/%lld/%lld read "
				   "%lld/%lld/%lld/%lld (task-clock %s)",
				   papi_err(rc), w[0], w[1], w[2], w[3], v1[0],
				   v1[1], v1[2], v1[3],
				   in(why, sizeof(why), v1[TC] - w[TC], &tcs));
			span_carry(&tcs);
			span_mark(&tcs);
			busy_ns(5 * MS);
			span_mark(&tcs);
			rc = PAPI_read(set, v2);
			span_mark(&tcs);
			lope_check(rc == PAPI_OK &&
					   span_holds(&tcs, v2[TC] - v1[TC]),
				   "write_then_keeps_counting",
				   "rc=%s task-clock %lld -> %lld over 5 ms "
				   "busy: %s",
				   papi_err(rc), v1[TC], v2[TC],
				   in(why, sizeof(why), v2[TC] - v1[TC], &tcs));
			span_carry(&tcs);
			rc = read_after(PAPI_reset(set), set, v);
			lope_check(rc == PAPI_OK && span_holds(&tcs, v[TC]),
				   "write_then_reset_to_zero",
				   "rc=%s task-clock after reset=%s",
				   papi_err(rc),
				   in(why, sizeof(why), v[TC], &tcs));

		} else {
			lope_fail("write_then_read_returns_written",
				  "PAPI_write failed");
		}
	}
	drop_set(&set);
}

/*
 * Every member of a group, not only its leader, counts again after each
 * stop/start and after a reset: three start/read/stop cycles of
 * TASK-CLOCK (leader), CPU-CLOCK and PAGE-FAULTS (members).  Each clock
 * lies within the span of the thread's own clock of its kind, page faults
 * follow the pages touched.
 */
static void test_cycles(void)
{
	static const char *const names[3] = { "perf::TASK-CLOCK",
					      "perf::CPU-CLOCK",
					      "perf::PAGE-FAULTS" };
	long long r[3], s[3], z[3];
	int set = PAPI_NULL, rc, i, cyc;
	char tn[64], wt[120], wc[120];

	rc = PAPI_create_eventset(&set);
	for (i = 0; i < 3 && rc == PAPI_OK; i++)
		rc = PAPI_add_named_event(set, names[i]);
	if (!lope_check(rc == PAPI_OK, "cycles_build_set", "rc=%s",
			papi_err(rc)))
		goto out;
	/* The first start; later ones begin in the stop before them. */
	span_clear(&tcs);
	span_clear(&ccs);
	mark();
	for (cyc = 0; cyc < 3; cyc++) {
		memset(r, 0, sizeof(r));
		memset(s, 0, sizeof(s));
		rc = PAPI_start(set);
		mark();
		busy_ns(3 * MS);
		(void)touch_pages(32);
		mark();
		if (rc == PAPI_OK)
			rc = PAPI_read(set, r);
		mark();
		snprintf(tn, sizeof(tn), "cycle%d_read_all_events_count", cyc);
		lope_check(rc == PAPI_OK && span_holds(&tcs, r[0]) &&
				   span_holds(&ccs, r[1]) && r[2] >= 29 &&
				   r[2] <= 32 * 3 / 2 + 64,
			   tn,
			   "rc=%s task-clock=%s cpu-clock=%s "
			   "page-faults=%lld (3 ms busy, 32 pages)",
			   papi_err(rc), in(wt, sizeof(wt), r[0], &tcs),
			   in(wc, sizeof(wc), r[1], &ccs), r[2]);
		span_carry(&tcs);
		span_carry(&ccs);
		if (cyc == 1) {
			/* the reset may reuse the read's sample */
			rc = PAPI_reset(set);
			mark();
			mark();
			if (rc == PAPI_OK)
				rc = PAPI_read(set, z);
			mark();
			lope_check(rc == PAPI_OK && span_holds(&tcs, z[0]) &&
					   span_holds(&ccs, z[1]) &&
					   z[2] >= 0 && z[2] <= 8,
				   "cycle1_reset_zeroes_all_events",
				   "rc=%s after reset %s, %s, %lld",
				   papi_err(rc), in(wt, sizeof(wt), z[0], &tcs),
				   in(wc, sizeof(wc), z[1], &ccs), z[2]);
			memcpy(r, z, sizeof(r));
			span_carry(&tcs);
			span_carry(&ccs);
		}
		/* from the last read to the stop */
		mark();
		busy_ns(3 * MS);
		(void)touch_pages(32);
		mark();
		rc = PAPI_stop(set, s);
		mark();
		snprintf(tn, sizeof(tn), "cycle%d_stop_all_events_count", cyc);
		lope_check(rc == PAPI_OK && span_holds(&tcs, s[0] - r[0]) &&
				   span_holds(&ccs, s[1] - r[1]) &&
				   s[2] >= r[2] + 29,
			   tn,
			   "rc=%s stop %lld %lld %lld after read %lld %lld "
			   "%lld (3 ms busy, 32 pages between): task-clock "
			   "%s, cpu-clock %s",
			   papi_err(rc), s[0], s[1], s[2], r[0], r[1], r[2],
			   in(wt, sizeof(wt), s[0] - r[0], &tcs),
			   in(wc, sizeof(wc), s[1] - r[1], &ccs));
		span_carry(&tcs);
		span_carry(&ccs);
	}
out:
	drop_set(&set);
}

/*
 * Removing an event closes its descriptor and the rest of the set (group
 * rebuilt without it) still counts; also when the removed one was the
 * group leader.
 */
static void test_remove(void)
{
	int set = PAPI_NULL, rc, fd0, fd1, n;
	long long v[NEV];
	char why[120];

	rc = make_named_set(&set, sw_events, NEV);
	if (!lope_check(rc == PAPI_OK, "remove_build_set", "rc=%s",
			papi_err(rc)))
		goto out;
	fd0 = fd_count();
	rc = PAPI_remove_named_event(set, "perf::CPU-MIGRATIONS");
	fd1 = fd_count();
	n = PAPI_num_events(set);
	lope_check(rc == PAPI_OK && n == NEV - 1 && fd1 == fd0 - 1,
		   "remove_event_closes_its_fd",
		   "rc=%s events %d (expected %d), descriptors %d -> %d",
		   papi_err(rc), n, NEV - 1, fd0, fd1);
	span_clear(&tcs);
	span_mark(&tcs);
	rc = PAPI_start(set);
	span_mark(&tcs);
	busy_ns(3 * MS);
	(void)touch_pages(32);
	span_mark(&tcs);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	span_mark(&tcs);
	lope_check(rc == PAPI_OK && span_holds(&tcs, v[TC]) && v[PF] >= 29,
		   "remove_event_rest_still_count",
		   "rc=%s task-clock=%s page-faults=%lld", papi_err(rc),
		   in(why, sizeof(why), v[TC], &tcs), v[PF]);

	/* now the leader: PAGE-FAULTS and CONTEXT-SWITCHES remain */
	fd0 = fd_count();
	rc = PAPI_remove_named_event(set, "perf::TASK-CLOCK");
	fd1 = fd_count();
	lope_check(rc == PAPI_OK && fd1 == fd0 - 1,
		   "remove_leader_closes_its_fd", "rc=%s descriptors %d -> %d",
		   papi_err(rc), fd0, fd1);
	rc = PAPI_start(set);
	(void)touch_pages(32);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	lope_check(rc == PAPI_OK && v[0] >= 29 && v[0] <= 32 * 3 / 2 + 64,
		   "remove_leader_rest_still_count",
		   "rc=%s page-faults=%lld for 32 pages", papi_err(rc), v[0]);
out:
	drop_set(&set);
}

static void test_two_sets(void)
{
	int a = PAPI_NULL, b = PAPI_NULL, rc;
	long long v[NEV];
	char why[120];

	if (make_named_set(&a, sw_events, 1) != PAPI_OK ||
	    make_named_set(&b, sw_events, 2) != PAPI_OK) {
		lope_fail("two_sets_build", "could not build two sets");
		goto out;
	}
	rc = PAPI_start(a);
	if (!lope_check(rc == PAPI_OK, "two_sets_start_first", "rc=%s",
			papi_err(rc)))
		goto out;
	rc = PAPI_start(b);
	lope_check(rc == PAPI_EISRUN, "two_sets_second_start_eisrun",
		   "PAPI_start of a second set while one runs returned %s",
		   papi_err(rc));
	if (rc == PAPI_OK)
		PAPI_stop(b, v);
	rc = PAPI_stop(a, v);
	span_clear(&tcs);
	rc = spin_between_marks(b, rc, 2 * MS, PAPI_read, v, &tcs);
	lope_check(rc == PAPI_OK && span_holds(&tcs, v[TC]),
		   "two_sets_second_starts_after_first_stops",
		   "rc=%s task-clock=%s", papi_err(rc),
		   in(why, sizeof(why), rc == PAPI_OK ? v[TC] : -1, &tcs));
out:
	drop_set(&a);
	drop_set(&b);
}

int main(void)
{
	papi_init_quiet_or_exit();
	if (span_open(&tcs, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0 ||
	    span_open(&ccs, PERF_COUNT_SW_CPU_CLOCK, 0, 0) < 0) {
		lope_fail("spans_open", "perf_event_open: %s", strerror(errno));
		return lope_done();
	}
	test_counting();
	test_cycles();
	test_two_sets();
	test_remove();
	span_close(&tcs);
	span_close(&ccs);
	PAPI_shutdown();
	return lope_done();
}
