/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_api_errors: what the PAPI API refuses, and what it leaves behind,
 * on software events: bad inputs (each checked not to leak a
 * descriptor), a set of as many software events as PAPI takes (at most
 * 200), cleanup + destroy closing every descriptor and unmapping every
 * perf page, and no descriptor left over the whole run.
 *
 * Report protocol: ctests/lib/report.h.
 */
#include "papi_util.h"

enum { TC, PF, CS, MIG, NEV };

static void test_bad_inputs(void)
{
	int set = PAPI_NULL, empty = PAPI_NULL, bad = 123456, code, fd0, rc, i;
	long long v[NEV];
	char name[PAPI_MAX_STR_LEN];

	fd0 = fd_count();
	rc = PAPI_event_name_to_code("perf::NO-SUCH-EVENT-LOPE", &code);
	expect_rc("bad_name_to_code_unknown_perf_event", rc, PAPI_ENOEVNT, fd0);
	fd0 = fd_count();
	rc = PAPI_event_name_to_code("nosuchpmu::NOTHING", &code);
	expect_rc("bad_name_to_code_unknown_pmu", rc, PAPI_ENOEVNT, fd0);
	fd0 = fd_count();
	rc = PAPI_event_name_to_code(NULL, &code);
	expect_rc("bad_name_to_code_null_name", rc, PAPI_EINVAL, fd0);
	fd0 = fd_count();
	rc = PAPI_event_name_to_code("perf::TASK-CLOCK", NULL);
	expect_rc("bad_name_to_code_null_code", rc, PAPI_EINVAL, fd0);
	fd0 = fd_count();
	rc = PAPI_event_code_to_name(PAPI_NATIVE_MASK | 0x0fffff00, name);
	expect_rc("bad_code_to_name_unknown_native_code", rc, PAPI_ENOEVNT,
		  fd0);

	if (make_named_set(&set, sw_events, NEV) != PAPI_OK ||
	    PAPI_create_eventset(&empty) != PAPI_OK) {
		lope_fail("bad_inputs_setup", "could not build sets");
		goto out;
	}

	fd0 = fd_count();
	rc = PAPI_add_named_event(set, "perf::NO-SUCH-EVENT-LOPE");
	expect_rc("bad_add_named_event_unknown", rc, PAPI_ENOEVNT, fd0);
	fd0 = fd_count();
	rc = PAPI_add_named_event(set, "perf::TASK-CLOCK");
	expect_rc("bad_add_named_event_duplicate", rc, PAPI_ECNFLCT, fd0);
	fd0 = fd_count();
	/* (not on an empty set: PAPI 7's core dereferences the unassigned
	 * component index there and crashes, whatever the component) */
	rc = PAPI_remove_named_event(set, "perf::CPU-CLOCK");
	expect_rc("bad_remove_named_event_not_in_set", rc, PAPI_EINVAL, fd0);

	/* never started: PAPI 7 copies the (zeroed) stop values, PAPI_OK */
	fd0 = fd_count();
	memset(v, 0x55, sizeof(v));
	rc = PAPI_read(set, v);
	{
		int zero = 1;

		for (i = 0; i < NEV; i++)
			zero &= v[i] == 0;
		lope_check(rc == PAPI_OK && zero && fd_count() == fd0,
			   "read_never_started_ok_zeros",
			   "rc=%s values %lld %lld %lld %lld", papi_err(rc),
			   v[0], v[1], v[2], v[3]);
	}

	fd0 = fd_count();
	rc = PAPI_start(empty);
	/* an empty set has no component yet: PAPI 7 says so first */
	expect_rc("bad_start_empty_set", rc, PAPI_ENOCMP, fd0);
	fd0 = fd_count();
	rc = PAPI_stop(set, v);
	expect_rc("bad_stop_never_started_set", rc, PAPI_ENOTRUN, fd0);

	fd0 = fd_count();
	rc = PAPI_read(bad, v);
	expect_rc("bad_read_invalid_set_id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_start(bad);
	expect_rc("bad_start_invalid_set_id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_stop(bad, v);
	expect_rc("bad_stop_invalid_set_id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_reset(bad);
	expect_rc("bad_reset_invalid_set_id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_accum(bad, v);
	expect_rc("bad_accum_invalid_set_id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_write(bad, v);
	expect_rc("bad_write_invalid_set_id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_add_named_event(bad, "perf::TASK-CLOCK");
	expect_rc("bad_add_invalid_set_id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_cleanup_eventset(bad);
	expect_rc("bad_cleanup_invalid_set_id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	{
		int b2 = bad;

		rc = PAPI_destroy_eventset(&b2);
	}
	expect_rc("bad_destroy_invalid_set_id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_destroy_eventset(&set);
	expect_rc("bad_destroy_non_empty_set", rc, PAPI_EINVAL, fd0);

	rc = PAPI_start(set);
	if (!lope_check(rc == PAPI_OK, "bad_inputs_start", "rc=%s",
			papi_err(rc)))
		goto out;
	fd0 = fd_count();
	rc = PAPI_read(set, NULL);
	expect_rc("bad_read_null_values", rc, PAPI_EINVAL, fd0);
	fd0 = fd_count();
	rc = PAPI_accum(set, NULL);
	expect_rc("bad_accum_null_values", rc, PAPI_EINVAL, fd0);
	fd0 = fd_count();
	rc = PAPI_write(set, NULL);
	expect_rc("bad_write_null_values", rc, PAPI_EINVAL, fd0);
	fd0 = fd_count();
	rc = PAPI_start(set);
	expect_rc("bad_double_start", rc, PAPI_EISRUN, fd0);
	fd0 = fd_count();
	rc = PAPI_add_named_event(set, "perf::CPU-CLOCK");
	expect_rc("bad_add_while_running", rc, PAPI_EISRUN, fd0);
	fd0 = fd_count();
	rc = PAPI_cleanup_eventset(set);
	expect_rc("bad_cleanup_while_running", rc, PAPI_EISRUN, fd0);
	/* the set survived all of that */
	busy_ns(2 * MS);
	rc = PAPI_read(set, v);
	lope_check(rc == PAPI_OK && v[TC] >= 1 * MS,
		   "set_still_counts_after_bad_calls", "rc=%s task-clock=%lld",
		   papi_err(rc), v[TC]);
	rc = PAPI_stop(set, v);
	fd0 = fd_count();
	rc = PAPI_stop(set, v);
	expect_rc("bad_stop_of_stopped_set", rc, PAPI_ENOTRUN, fd0);
out:
	drop_set(&set);
	drop_set(&empty);
}

/* Software events with modifiers: distinct names PAPI gives distinct
 * codes to. */
static int many_name(int idx, char *buf, size_t len)
{
	static const char *const base[] = {
		"TASK-CLOCK",
		"CPU-CLOCK",
		"PAGE-FAULTS",
		"CONTEXT-SWITCHES",
		"CPU-MIGRATIONS",
		"MINOR-FAULTS",
		"MAJOR-FAULTS",
		"ALIGNMENT-FAULTS",
		"EMULATION-FAULTS",
		"PERF_COUNT_SW_CPU_CLOCK",
		"PERF_COUNT_SW_TASK_CLOCK",
		"PERF_COUNT_SW_PAGE_FAULTS",
		"PERF_COUNT_SW_CONTEXT_SWITCHES",
		"PERF_COUNT_SW_CPU_MIGRATIONS",
		"FAULTS",
		"CS",
		"MIGRATIONS",
	};
	static const char *const mod[] = {
		"",         ":u",     ":k",       ":u:k",     ":k:u",
		":u=1",     ":k=1",   ":u=1:k=1", ":k=1:u=1", ":u=1:k=0",
		":u=0:k=1", ":u:k=1", ":u=1:k",   ":k:u=1",   ":k=1:u",
	};
	const int nb = sizeof(base) / sizeof(base[0]);
	const int nm = sizeof(mod) / sizeof(mod[0]);

	if (idx >= nb * nm)
		return 0;
	snprintf(buf, len, "perf::%s%s", base[idx % nb], mod[idx / nb]);
	return 1;
}

static void test_many_events(int fd_base)
{
	int set = PAPI_NULL, rc, idx, nadd = 0, nfail = 0, bad_rc = 0;
	int first_fail = 0, n, fd_full;
	char name[128], first_fail_name[128] = "";
	long long *v;

	if (PAPI_create_eventset(&set) != PAPI_OK) {
		lope_fail("many_events", "create failed");
		return;
	}
	for (idx = 0; nadd < 200 && many_name(idx, name, sizeof(name)); idx++) {
		rc = PAPI_add_named_event(set, name);
		if (rc == PAPI_OK) {
			nadd++;
			continue;
		}
		nfail++;
		if (!first_fail) {
			first_fail = rc;
			snprintf(first_fail_name, sizeof(first_fail_name), "%s",
				 name);
		}
		if (rc >= 0 || rc <= -PAPI_NUM_ERRORS)
			bad_rc = rc;
	}
	n = PAPI_num_events(set);
	fd_full = fd_count();
	lope_info("many events: %d added, %d refused (first: %s on %s); "
		  "%d descriptors open with the set",
		  nadd, nfail, first_fail ? papi_err(first_fail) : "none",
		  first_fail_name, fd_full);
	lope_check(bad_rc == 0 && n == nadd && nadd >= 1,
		   "many_events_add_clean",
		   "added %d, PAPI_num_events=%d, unexpected return %d", nadd,
		   n, bad_rc);
	v = calloc((size_t)(nadd > 0 ? nadd : 1), sizeof(*v));
	rc = PAPI_start(set);
	if (rc == PAPI_OK) {
		busy_ns(2 * MS);
		rc = PAPI_read(set, v);
		lope_check(rc == PAPI_OK && v[0] >= 1 * MS,
			   "many_events_set_counts",
			   "%d events: rc=%s first (task-clock)=%lld", nadd,
			   papi_err(rc), v[0]);
		rc = PAPI_stop(set, v);
		lope_check(rc == PAPI_OK, "many_events_stop", "rc=%s",
			   papi_err(rc));
	} else {
		lope_check(rc < 0 && rc > -PAPI_NUM_ERRORS,
			   "many_events_start_fails_cleanly",
			   "PAPI_start of %d events returned %d", nadd, rc);
	}
	free(v);
	rc = PAPI_cleanup_eventset(set);
	if (rc == PAPI_OK)
		rc = PAPI_destroy_eventset(&set);
	n = fd_count();
	lope_check(rc == PAPI_OK && n == fd_base, "many_events_no_fd_leak",
		   "rc=%s descriptors: baseline %d, with set %d, after "
		   "cleanup+destroy %d",
		   papi_err(rc), fd_base, fd_full, n);
}

static void test_cleanup_baseline(void)
{
	int set = PAPI_NULL, rc, fd_with, maps_with, perf_with, fd_after;
	int maps_after, perf_after, fd_base, maps_base, perf_base;
	long long v[NEV];

	fd_base = fd_count();
	maps_base = maps_count(&perf_base);
	rc = make_named_set(&set, sw_events, NEV);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	if (rc == PAPI_OK)
		rc = PAPI_read(set, v);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	fd_with = fd_count();
	maps_with = maps_count(&perf_with);
	lope_info("descriptors: baseline %d, with a 4-event set %d; perf "
		  "mappings: baseline %d, with the set %d",
		  fd_base, fd_with, perf_base, perf_with);
	if (rc == PAPI_OK)
		rc = PAPI_cleanup_eventset(set);
	if (rc == PAPI_OK)
		rc = PAPI_destroy_eventset(&set);
	fd_after = fd_count();
	maps_after = maps_count(&perf_after);
	lope_check(rc == PAPI_OK && fd_after == fd_base,
		   "cleanup_destroy_closes_fds",
		   "rc=%s descriptors baseline %d, with set %d, after %d",
		   papi_err(rc), fd_base, fd_with, fd_after);
	lope_check(perf_after == perf_base && maps_after == maps_base,
		   "cleanup_destroy_unmaps_pages",
		   "/proc/self/maps lines baseline %d, with set %d, after %d; "
		   "perf_event lines baseline %d, with set %d, after %d",
		   maps_base, maps_with, maps_after, perf_base, perf_with,
		   perf_after);
}

int main(void)
{
	int fd_base, fd_end, set = PAPI_NULL;
	long long v[NEV];

	papi_init_quiet_or_exit();
	/* Warm PAPI's lazily allocated state, then take the baselines. */
	if (make_named_set(&set, sw_events, NEV) == PAPI_OK &&
	    PAPI_start(set) == PAPI_OK)
		PAPI_read(set, v);
	drop_set(&set);
	fd_base = fd_count();

	test_bad_inputs();
	test_many_events(fd_base);
	test_cleanup_baseline();
	fd_end = fd_count();
	lope_check(fd_end == fd_base, "no_fd_leak_over_whole_run",
		   "descriptors after warm-up %d, at the end %d", fd_base,
		   fd_end);
	PAPI_shutdown();
	return lope_done();
}
