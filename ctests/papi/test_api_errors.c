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

/* One bad call: its PAPI code is want, and it leaked no descriptor (the
 * count is taken before the call, hence a statement of its own). */
#define EXPECT_CALL(name, call, want)                     \
	do {                                              \
		int fd_before = fd_count();               \
		expect_rc(name, (call), want, fd_before); \
	} while (0)

static void test_bad_inputs(void)
{
	int set = PAPI_NULL, empty = PAPI_NULL, bad = 123456, b2 = bad, code;
	int fd0, rc, i;
	long long v[NEV];
	char name[PAPI_MAX_STR_LEN];

	EXPECT_CALL("bad_name_to_code_unknown_perf_event",
		    PAPI_event_name_to_code("perf::NO-SUCH-EVENT-LOPE", &code),
		    PAPI_ENOEVNT);
	EXPECT_CALL("bad_name_to_code_unknown_pmu",
		    PAPI_event_name_to_code("nosuchpmu::NOTHING", &code),
		    PAPI_ENOEVNT);
	EXPECT_CALL("bad_name_to_code_null_name",
		    PAPI_event_name_to_code(NULL, &code), PAPI_EINVAL);
	EXPECT_CALL("bad_name_to_code_null_code",
		    PAPI_event_name_to_code("perf::TASK-CLOCK", NULL),
		    PAPI_EINVAL);
	EXPECT_CALL("bad_code_to_name_unknown_native_code",
		    PAPI_event_code_to_name(PAPI_NATIVE_MASK | 0x0fffff00,
					    name),
		    PAPI_ENOEVNT);

	if (make_named_set(&set, sw_events, NEV) != PAPI_OK ||
	    PAPI_create_eventset(&empty) != PAPI_OK) {
		lope_fail("bad_inputs_setup", "could not build sets");
		goto out;
	}

	EXPECT_CALL("bad_add_named_event_unknown",
		    PAPI_add_named_event(set, "perf::NO-SUCH-EVENT-LOPE"),
		    PAPI_ENOEVNT);
	EXPECT_CALL("bad_add_named_event_duplicate",
		    PAPI_add_named_event(set, "perf::TASK-CLOCK"),
		    PAPI_ECNFLCT);
	/* (not on an empty set: PAPI 7's core dereferences the unassigned
	 * component index there and crashes, whatever the component) */
	EXPECT_CALL("bad_remove_named_event_not_in_set",
		    PAPI_remove_named_event(set, "perf::CPU-CLOCK"),
		    PAPI_EINVAL);

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

	/* an empty set has no component yet: PAPI 7 says so first */
	EXPECT_CALL("bad_start_empty_set", PAPI_start(empty), PAPI_ENOCMP);
	EXPECT_CALL("bad_stop_never_started_set", PAPI_stop(set, v),
		    PAPI_ENOTRUN);

	EXPECT_CALL("bad_read_invalid_set_id", PAPI_read(bad, v), PAPI_ENOEVST);
	EXPECT_CALL("bad_start_invalid_set_id", PAPI_start(bad), PAPI_ENOEVST);
	EXPECT_CALL("bad_stop_invalid_set_id", PAPI_stop(bad, v), PAPI_ENOEVST);
	EXPECT_CALL("bad_reset_invalid_set_id", PAPI_reset(bad), PAPI_ENOEVST);
	EXPECT_CALL("bad_accum_invalid_set_id", PAPI_accum(bad, v),
		    PAPI_ENOEVST);
	EXPECT_CALL("bad_write_invalid_set_id", PAPI_write(bad, v),
		    PAPI_ENOEVST);
	EXPECT_CALL("bad_add_invalid_set_id",
		    PAPI_add_named_event(bad, "perf::TASK-CLOCK"),
		    PAPI_ENOEVST);
	EXPECT_CALL("bad_cleanup_invalid_set_id", PAPI_cleanup_eventset(bad),
		    PAPI_ENOEVST);
	EXPECT_CALL("bad_destroy_invalid_set_id", PAPI_destroy_eventset(&b2),
		    PAPI_ENOEVST);
	EXPECT_CALL("bad_destroy_non_empty_set", PAPI_destroy_eventset(&set),
		    PAPI_EINVAL);

	rc = PAPI_start(set);
	if (!lope_check(rc == PAPI_OK, "bad_inputs_start", "rc=%s",
			papi_err(rc)))
		goto out;
	EXPECT_CALL("bad_read_null_values", PAPI_read(set, NULL), PAPI_EINVAL);
	EXPECT_CALL("bad_accum_null_values", PAPI_accum(set, NULL),
		    PAPI_EINVAL);
	EXPECT_CALL("bad_write_null_values", PAPI_write(set, NULL),
		    PAPI_EINVAL);
	EXPECT_CALL("bad_double_start", PAPI_start(set), PAPI_EISRUN);
	EXPECT_CALL("bad_add_while_running",
		    PAPI_add_named_event(set, "perf::CPU-CLOCK"), PAPI_EISRUN);
	EXPECT_CALL("bad_cleanup_while_running", PAPI_cleanup_eventset(set),
		    PAPI_EISRUN);
	/* the set survived all of that */
	busy_ns(2 * MS);
	rc = PAPI_read(set, v);
	lope_check(rc == PAPI_OK && v[TC] >= 1 * MS,
		   "set_still_counts_after_bad_calls", "rc=%s task-clock=%lld",
		   papi_err(rc), v[TC]);
	rc = PAPI_stop(set, v);
	EXPECT_CALL("bad_stop_of_stopped_set", PAPI_stop(set, v), PAPI_ENOTRUN);
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
	rc = start_read_stop(set, rc, v);
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
