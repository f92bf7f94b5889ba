/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_hw: hardware counter tests.  Skipped (each case, with the reason)
 * when the machine has no core PMU (ctests/lib/core_pmu.h: no cpu PMU, nor
 * one with a cpus file, in sysfs; a VM without a virtual PMU, like our CI
 * machine).
 *
 * Cases:
 *  - PAPI_TOT_INS, user domain, on an assembly loop of exactly 2 user
 *    instructions per iteration: count(2e6 iterations) - count(1e6) must be
 *    2e6 within 0.1% (the fixed start/stop overhead cancels out);
 *  - the same count is within a small bound of 2N in absolute terms;
 *  - PAPI_TOT_CYC counts the loop;
 *  - the user-space read path (rdpmc, when fast_counter_read is 1) and the
 *    read(2) path (forced with LOPE_NO_RDPMC=1 in a re-exec'd child) agree
 *    within 0.1%, and under LOPE_NO_RDPMC=1 the component reports
 *    fast_counter_read = 0;
 *  - PAPI_read makes no read(2) call when fast_counter_read is 1, at least
 *    one when it is 0 (read(2) is interposed and counted:
 *    ctests/lib/interpose.h);
 *  - where the component reads in user space, hardware events' perf pages
 *    are mapped when the events are added (a kernel without user-space
 *    access, arm64 before 5.17: a SKIP saying so), and PAPI_start + the
 *    first PAPI_read of a fresh set take no minor fault.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "interpose.h"
#include "papi_util.h"
#include "work.h"

#define REPS 7

static const char *const cases[] = {
	"tot_ins_loop_difference_2e6",
	"tot_ins_loop_absolute",
	"tot_cyc_counts_loop",
	"read_during_run_monotonic",
	"no_rdpmc_env_reports_no_fast_read",
	"rdpmc_and_read_paths_agree",
	"hw_event_pages_mapped_after_add",
	"hw_start_first_read_no_minflt",
	"read_syscalls_match_fast_counter_read",
};

static const char *tot_ins_name = "PAPI_TOT_INS";

/* A user-domain set of instructions (and cycles when @cyc). */
static int make_set(int *set, int cyc)
{
	int rc;

	rc = make_empty_set(set);
	if (rc == PAPI_OK) {
		rc = set_domain(*set, PAPI_DOM_USER);
	}
	if (rc == PAPI_OK) {
		rc = PAPI_add_named_event(*set, "PAPI_TOT_INS");
		if (rc != PAPI_OK) {
			tot_ins_name = "perf::INSTRUCTIONS";
			rc = PAPI_add_named_event(*set, tot_ins_name);
		}
	}
	if (rc == PAPI_OK && cyc) {
		rc = PAPI_add_named_event(*set, "PAPI_TOT_CYC");
		if (rc != PAPI_OK)
			rc = PAPI_add_named_event(*set, "perf::CYCLES");
	}
	return rc;
}

/* Smallest instruction count of REPS runs of loop2(@n); -rc on error. */
static long long measure(int set, unsigned long n, long long *cyc)
{
	long long best = -1, bestc = -1, v[2];
	int r, rc;

	for (r = 0; r < REPS; r++) {
		v[0] = v[1] = 0;
		rc = PAPI_start(set);
		if (rc != PAPI_OK)
			return rc;
		loop2(n);
		rc = PAPI_stop(set, v);
		if (rc != PAPI_OK)
			return rc;
		if (best < 0 || v[0] < best) {
			best = v[0];
			bestc = v[1];
		}
	}
	if (cyc)
		*cyc = bestc;
	return best;
}

/* Child mode: print "fcr=<0|1> ins=<count>" for a 2e6-iteration loop. */
static int child_measure(void)
{
	const PAPI_component_info_t *ci;
	long long c;
	int set;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return 3;
	ci = PAPI_get_component_info(0);
	if (!ci || make_set(&set, 0) != PAPI_OK)
		return 3;
	c = measure(set, 2000000UL, NULL);
	if (c < 0)
		return 3;
	printf("fcr=%u ins=%lld\n", ci->fast_counter_read, c);
	fflush(stdout);
	drop_set(&set);
	return 0;
}

/* Run ourselves with LOPE_NO_RDPMC=1 in child mode; parse its line. */
static int run_child(const char *self, int *fcr, long long *ins)
{
	char buf[256];
	int st = run_self(self, "LOPE_NO_RDPMC=1", "--child-measure", buf,
			  sizeof(buf));

	if (st < 0)
		return -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -2;
	if (sscanf(buf, "fcr=%d ins=%lld", fcr, ins) != 2)
		return -3;
	return 0;
}

int main(int argc, char **argv)
{
	const PAPI_component_info_t *ci;
	long long c1, c2, cyc2, diff, child_ins = -1, v[2], prev;
	unsigned long n1 = 1000000UL, n2 = 2000000UL;
	char self[PATH_MAX], rdpmc_attr[32] = "?";
	int rc, set = PAPI_NULL, set2 = PAPI_NULL, child_fcr = -1, i, ok;
	int maps0, maps1;
	unsigned long nreads;
	struct rusage ru0, ru1;
	const char *pmu = NULL;
	ssize_t sn;
	FILE *f;

	if (argc > 1 && strcmp(argv[1], "--child-measure") == 0)
		return child_measure();

	pmu = lope_core_pmu();
	if (!pmu) {
		for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++)
			lope_skip(cases[i], LOPE_NO_CORE_PMU_REASON);
		return lope_done();
	}

	sn = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[sn > 0 ? sn : 0] = 0;

	papi_init_or_exit();
	ci = PAPI_get_component_info(0);
	{
		char path[128];

		snprintf(path, sizeof(path),
			 "/sys/bus/event_source/devices/%s/rdpmc", pmu);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(rdpmc_attr, sizeof(rdpmc_attr), f))
				rdpmc_attr[0] = 0;
			rdpmc_attr[strcspn(rdpmc_attr, "\n")] = 0;
			fclose(f);
		}
	}
	lope_info("PMU %s; %s/rdpmc=%s; fast_counter_read=%u (%s)", pmu, pmu,
		  rdpmc_attr, ci ? ci->fast_counter_read : 0,
		  ci ? ci->description : "?");

	maps0 = perf_maps_count();
	rc = make_set(&set, 1);
	maps1 = perf_maps_count();
	if (rc != PAPI_OK) {
		lope_fail("build_set_tot_ins_tot_cyc", "rc=%d (%s)", rc,
			  PAPI_strerror(rc));
		lope_exit();
	}
	lope_info("instructions event: %s", tot_ins_name);
	/* events of the calling thread that user space can read: mapped when
	 * added (doc/design.md) */
	if (ci && !ci->fast_counter_read)
		lope_skip(cases[6],
			  "no user-space reads here, so no page to map: %s",
			  ci->description);
	else
		lope_check(maps1 - maps0 >= 2, cases[6],
			   "/proc/self/maps anon_inode:[perf_event] lines %d "
			   "before adding instructions + cycles, %d after",
			   maps0, maps1);

	loop2(n1); /* warm */
	c1 = measure(set, n1, NULL);
	c2 = measure(set, n2, &cyc2);
	if (c1 < 0 || c2 < 0) {
		lope_fail(cases[0], "measurement failed: %lld %lld", c1, c2);
		lope_exit();
	}
	diff = c2 - c1;
	lope_info("loop %lu: %lld instructions; loop %lu: %lld; cycles %lld",
		  n1, c1, n2, c2, cyc2);
	lope_check(llabs(diff - (long long)(2 * (n2 - n1))) <=
			   (long long)(2 * (n2 - n1)) / 1000,
		   cases[0],
		   "count(%lu) - count(%lu) = %lld, expected %lu within 0.1%%",
		   n2, n1, diff, 2 * (n2 - n1));
	lope_check(c1 >= (long long)(2 * n1) &&
			   c1 <= (long long)(2 * n1) + 200000,
		   cases[1],
		   "count(%lu)=%lld, expected 2N=%lu plus < 200000 "
		   "of start/stop overhead",
		   n1, c1, 2 * n1);
	lope_check(cyc2 >= (long long)(n2 / 4) && cyc2 <= (long long)n2 * 100,
		   cases[2], "cycles for %lu iterations = %lld", n2, cyc2);

	/* reads while running increase by the loop each time */
	ok = 1;
	rc = PAPI_start(set);
	prev = 0;
	for (i = 0; i < 10 && rc == PAPI_OK && ok; i++) {
		loop2(n1);
		rc = PAPI_read(set, v);
		ok = v[0] - prev >= (long long)(2 * n1);
		prev = v[0];
	}
	PAPI_stop(set, v);
	lope_check(rc == PAPI_OK && ok, cases[3],
		   "rc=%d read %d: %lld (each read should add >= %lu)", rc, i,
		   prev, 2 * n1);

	/* read(2) calls per PAPI_read: none on the rdpmc path, >= 1 on the
	 * read(2) path */
	rc = PAPI_start(set);
	nreads = lope_calls(LOPE_CALL_READ);
	for (i = 0; i < 100 && rc == PAPI_OK; i++)
		rc = PAPI_read(set, v);
	nreads = lope_calls(LOPE_CALL_READ) - nreads;
	PAPI_stop(set, v);
	if (ci && ci->fast_counter_read)
		lope_check(rc == PAPI_OK && nreads == 0, cases[8],
			   "fast_counter_read=1 but 100 PAPI_read calls made "
			   "%lu read(2) calls (rc=%d)",
			   nreads, rc);
	else
		lope_check(rc == PAPI_OK && nreads >= 100, cases[8],
			   "fast_counter_read=0 but 100 PAPI_read calls made "
			   "only %lu read(2) calls (rc=%d)",
			   nreads, rc);

	/* a fresh set never started: no minor fault on start + first read
	 * (its pages were pre-faulted when the events were added) */
	rc = make_set(&set2, 1);
	warm_stack();
	getrusage(RUSAGE_THREAD, &ru0);
	getrusage(RUSAGE_THREAD, &ru0);
	if (rc == PAPI_OK)
		rc = PAPI_start(set2);
	if (rc == PAPI_OK)
		rc = PAPI_read(set2, v);
	getrusage(RUSAGE_THREAD, &ru1);
	lope_check(rc == PAPI_OK && ru1.ru_minflt == ru0.ru_minflt, cases[7],
		   "rc=%d; ru_minflt grew by %ld across PAPI_start + first "
		   "PAPI_read of a hardware set",
		   rc, ru1.ru_minflt - ru0.ru_minflt);
	drop_set(&set2);

	rc = run_child(self, &child_fcr, &child_ins);
	if (rc != 0) {
		lope_fail(cases[4], "child with LOPE_NO_RDPMC=1 failed (%d)",
			  rc);
		lope_fail(cases[5], "child with LOPE_NO_RDPMC=1 failed (%d)",
			  rc);
	} else {
		lope_check(child_fcr == 0, cases[4],
			   "fast_counter_read=%d with LOPE_NO_RDPMC=1",
			   child_fcr);
		lope_info("read(2) path: %lld; this process (fast_counter_read"
			  "=%u): %lld",
			  child_ins, ci ? ci->fast_counter_read : 0, c2);
		lope_check(llabs(child_ins - c2) <= c2 / 1000, cases[5],
			   "2e6-iteration loop: %lld here, %lld with "
			   "LOPE_NO_RDPMC=1 (differ by more than 0.1%%)",
			   c2, child_ins);
	}

	drop_set(&set);
	PAPI_shutdown();
	return lope_done();
}
