/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_api_count: counting through the PAPI API on software events (no
 * hardware PMU needed): start/read/accum/reset/stop/write semantics
 * checked against the thread's CPU clock and against pages really
 * touched (reset and accum make no ioctl: the interposer counts them,
 * ctests/lib/interpose.h), every member of a group counting again over
 * stop/start and reset cycles, events removed (the leader too), and two
 * sets on one thread.
 *
 * Report protocol: ctests/lib/report.h.
 */
#include "interpose.h"
#include "papi_util.h"

enum { TC, PF, CS, MIG, NEV };

static void test_counting(void)
{
	long long v[NEV], prev[NEV], first[NEV], v1[NEV], v2[NEV], acc[NEV];
	long long t0, t1, ref;
	unsigned long nio, nio_acc;
	int set, rc, i, k, ok;
	int touched;
	const size_t npages = 512;

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

	/* task-clock grows by the busy time */
	PAPI_read(set, v1);
	t0 = thread_ns();
	busy_ns(20 * MS);
	t1 = thread_ns();
	rc = PAPI_read(set, v2);
	ref = t1 - t0;
	lope_check(rc == PAPI_OK && v2[TC] - v1[TC] >= 10 * MS &&
			   v2[TC] - v1[TC] <= 1000 * MS,
		   "task_clock_20ms_busy_in_10ms_1s", "rc=%s delta=%lld ns",
		   papi_err(rc), v2[TC] - v1[TC]);
	lope_check(
		llabs((v2[TC] - v1[TC]) - ref) <= ref / 10 + 2 * MS,
		"task_clock_matches_thread_cputime",
		"task-clock delta %lld ns vs CLOCK_THREAD_CPUTIME_ID %lld ns",
		v2[TC] - v1[TC], ref);

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

	/* reset */
	busy_ns(20 * MS);
	PAPI_read(set, v1);
	nio = lope_calls(LOPE_CALL_IOCTL);
	rc = PAPI_reset(set);
	nio = lope_calls(LOPE_CALL_IOCTL) - nio;
	if (rc == PAPI_OK)
		rc = PAPI_read(set, v2);
	lope_check(rc == PAPI_OK && nio == 0, "reset_makes_no_ioctl",
		   "rc=%s PAPI_reset made %lu ioctl calls", papi_err(rc), nio);
	lope_check(rc == PAPI_OK && v2[TC] < v1[TC] && v2[TC] < 2 * MS &&
			   v2[TC] >= 0 && v2[PF] >= 0 && v2[PF] <= 8,
		   "reset_then_read_near_zero",
		   "rc=%s before reset task-clock=%lld page-faults=%lld; "
		   "after task-clock=%lld page-faults=%lld",
		   papi_err(rc), v1[TC], v1[PF], v2[TC], v2[PF]);

	/* accum: adds into the array and resets */
	PAPI_reset(set);
	for (i = 0; i < NEV; i++)
		acc[i] = 1000000000000LL;
	t0 = thread_ns();
	rc = PAPI_OK;
	nio_acc = 0;
	for (k = 0; k < 5 && rc == PAPI_OK; k++) {
		busy_ns(4 * MS);
		(void)touch_pages(40);
		nio = lope_calls(LOPE_CALL_IOCTL);
		rc = PAPI_accum(set, acc);
		nio_acc += lope_calls(LOPE_CALL_IOCTL) - nio;
	}
	lope_check(rc == PAPI_OK && nio_acc == 0, "accum_makes_no_ioctl",
		   "rc=%s 5 PAPI_accum calls made %lu ioctl calls",
		   papi_err(rc), nio_acc);
	t1 = thread_ns();
	ref = t1 - t0;
	for (i = 0; i < NEV; i++)
		acc[i] -= 1000000000000LL;
	lope_check(rc == PAPI_OK && acc[TC] >= 15 * MS &&
			   llabs(acc[TC] - ref) <= ref / 10 + 2 * MS,
		   "accum_sum_matches_unreset_time",
		   "rc=%s sum of 5 accums of task-clock=%lld ns, thread "
		   "cputime over the same span=%lld ns",
		   papi_err(rc), acc[TC], ref);
	lope_check(acc[PF] >= 180 && acc[PF] <= 400, "accum_sum_page_faults",
		   "sum of accums of page-faults=%lld for 200 pages touched",
		   acc[PF]);
	rc = PAPI_read(set, v);
	lope_check(rc == PAPI_OK && v[TC] < 2 * MS, "accum_resets",
		   "rc=%s task-clock just after accum=%lld", papi_err(rc),
		   v[TC]);

	/* stop returns final values; a stopped set does not count; restart
	 * counts from zero */
	busy_ns(20 * MS);
	PAPI_read(set, v1);
	memset(v2, 0xff, sizeof(v2));
	rc = PAPI_stop(set, v2);
	lope_check(rc == PAPI_OK && v2[TC] >= v1[TC] &&
			   v2[TC] - v1[TC] < 50 * MS && v2[PF] >= v1[PF],
		   "stop_returns_final_values",
		   "rc=%s last read task-clock=%lld, stop=%lld", papi_err(rc),
		   v1[TC], v2[TC]);
	busy_ns(5 * MS);
	rc = PAPI_read(set, v);
	lope_check(rc == PAPI_OK && memcmp(v, v2, sizeof(v)) == 0,
		   "read_after_stop_returns_stop_values",
		   "rc=%s task-clock read=%lld stop=%lld", papi_err(rc), v[TC],
		   v2[TC]);
	rc = PAPI_start(set);
	if (rc == PAPI_OK)
		rc = PAPI_read(set, v);
	lope_check(
		rc == PAPI_OK && v[TC] >= 0 && v[TC] < 2 * MS && v[TC] < v2[TC],
		"restart_counts_from_zero",
		"rc=%s task-clock right after restart=%lld (stopped at %lld)",
		papi_err(rc), v[TC], v2[TC]);

	/* write */
	{
		long long w[NEV] = { 5000000000LL, 1000000LL, 100000LL,
				     10000LL };

		rc = PAPI_write(set, w);
		lope_check(rc == PAPI_OK, "write_running_set",
			   "PAPI_write rc=%s (stock PAPI: not supported)",
			   papi_err(rc));
		if (rc == PAPI_OK) {
			rc = PAPI_read(set, v1);
			ok = rc == PAPI_OK;
			for (i = 0; i < NEV && ok; i++)
				ok = v1[i] >= w[i] && v1[i] < w[i] + 1000 * MS;
			lope_check(ok, "write_then_read_returns_written",
				   "rc=%s wrote %lld/%lld/%lld/%lld read "
				   "%lld/%lld/%lld/%lld",
				   papi_err(rc), w[0], w[1], w[2], w[3], v1[0],
				   v1[1], v1[2], v1[3]);
			busy_ns(5 * MS);
			rc = PAPI_read(set, v2);
			lope_check(
				rc == PAPI_OK && v2[TC] - v1[TC] >= 3 * MS &&
					v2[TC] - v1[TC] < 1000 * MS,
				"write_then_keeps_counting",
				"rc=%s task-clock %lld -> %lld over 5 ms busy",
				papi_err(rc), v1[TC], v2[TC]);
			rc = PAPI_reset(set);
			if (rc == PAPI_OK)
				rc = PAPI_read(set, v);
			lope_check(rc == PAPI_OK && v[TC] >= 0 &&
					   v[TC] < 2 * MS,
				   "write_then_reset_to_zero",
				   "rc=%s task-clock after reset=%lld",
				   papi_err(rc), v[TC]);
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
 * TASK-CLOCK (leader), CPU-CLOCK and PAGE-FAULTS (members).  CPU-CLOCK
 * must follow TASK-CLOCK closely, page faults follow the pages touched.
 */
static void test_cycles(void)
{
	static const char *const names[3] = { "perf::TASK-CLOCK",
					      "perf::CPU-CLOCK",
					      "perf::PAGE-FAULTS" };
	long long r[3], s[3], z[3];
	int set = PAPI_NULL, rc, i, cyc;
	char tn[64];

	rc = PAPI_create_eventset(&set);
	for (i = 0; i < 3 && rc == PAPI_OK; i++)
		rc = PAPI_add_named_event(set, names[i]);
	if (!lope_check(rc == PAPI_OK, "cycles_build_set", "rc=%s",
			papi_err(rc)))
		goto out;
	for (cyc = 0; cyc < 3; cyc++) {
		memset(r, 0, sizeof(r));
		memset(s, 0, sizeof(s));
		rc = PAPI_start(set);
		busy_ns(3 * MS);
		(void)touch_pages(32);
		if (rc == PAPI_OK)
			rc = PAPI_read(set, r);
		snprintf(tn, sizeof(tn), "cycle%d_read_all_events_count", cyc);
		lope_check(rc == PAPI_OK && r[0] >= 2 * MS &&
				   r[0] < 1000 * MS &&
				   llabs(r[1] - r[0]) <= r[0] / 10 + 1 * MS &&
				   r[2] >= 29 && r[2] <= 32 * 3 / 2 + 64,
			   tn,
			   "rc=%s task-clock=%lld cpu-clock=%lld "
			   "page-faults=%lld (3 ms busy, 32 pages)",
			   papi_err(rc), r[0], r[1], r[2]);
		if (cyc == 1) {
			rc = PAPI_reset(set);
			if (rc == PAPI_OK)
				rc = PAPI_read(set, z);
			lope_check(rc == PAPI_OK && z[0] >= 0 &&
					   z[0] < 2 * MS && z[1] >= 0 &&
					   z[1] < 2 * MS && z[2] >= 0 &&
					   z[2] <= 8,
				   "cycle1_reset_zeroes_all_events",
				   "rc=%s after reset %lld %lld %lld",
				   papi_err(rc), z[0], z[1], z[2]);
			memcpy(r, z, sizeof(r));
		}
		busy_ns(3 * MS);
		(void)touch_pages(32);
		rc = PAPI_stop(set, s);
		snprintf(tn, sizeof(tn), "cycle%d_stop_all_events_count", cyc);
		lope_check(rc == PAPI_OK && s[0] >= r[0] + 2 * MS &&
				   s[1] >= r[1] + 2 * MS && s[2] >= r[2] + 29,
			   tn,
			   "rc=%s stop %lld %lld %lld after read %lld %lld "
			   "%lld (3 ms busy, 32 pages between)",
			   papi_err(rc), s[0], s[1], s[2], r[0], r[1], r[2]);
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
	rc = PAPI_start(set);
	busy_ns(3 * MS);
	(void)touch_pages(32);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	lope_check(rc == PAPI_OK && v[TC] >= 2 * MS && v[PF] >= 29,
		   "remove_event_rest_still_count",
		   "rc=%s task-clock=%lld page-faults=%lld", papi_err(rc),
		   v[TC], v[PF]);

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
	if (rc == PAPI_OK)
		rc = PAPI_start(b);
	busy_ns(2 * MS);
	if (rc == PAPI_OK)
		rc = PAPI_read(b, v);
	lope_check(rc == PAPI_OK && v[TC] >= 1 * MS,
		   "two_sets_second_starts_after_first_stops",
		   "rc=%s task-clock=%lld", papi_err(rc),
		   rc == PAPI_OK ? v[TC] : -1);
out:
	drop_set(&a);
	drop_set(&b);
}

int main(void)
{
	papi_init_quiet_or_exit();
	test_counting();
	test_cycles();
	test_two_sets();
	test_remove();
	PAPI_shutdown();
	return lope_done();
}
