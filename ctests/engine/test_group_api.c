/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's groups and what they hold and promise, on real kernel
 * software events of the calling thread (sw_group.h): descriptors and
 * mappings on success and on failure, no page fault on the measuring
 * path, the bad inputs of the documented contract, lope_rdpmc_usable,
 * lope_probe and lope_group__last_counts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core_pmu.h"
#include "lope.h"
#include "proc.h"
#include "report.h"
#include "sw_group.h"
#include "work.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* Resources: descriptors and mappings, on success and on failure      */

static const struct fail_row {
	unsigned int flags;
	int bad_at; /* position of the invalid event among 4 */
} fail_rows[] = {
	{ 0, 0 },
	{ 0, 3 },
	{ LOPE_SEPARATE, 0 },
	{ LOPE_SEPARATE, 2 },
	{ LOPE_INHERIT, 3 },
};

static void cycle_once(void)
{
	struct perf_event_attr a[NEV + 1];
	struct lope_group *g;
	int64_t v[NEV + 1];
	int n = mixed_attrs(a, NEV);

	if (make_group_attrs(&g, 0, 0, a, n))
		return;
	lope_group__enable(g);
	lope_group__read(g, v);
	lope_group__disable(g, v);
	lope_group__close(g);
	lope_group__open(g);
	lope_group__delete(g);
}

static void test_leaks(void)
{
	int fds0, maps0, fds1, maps1;
	unsigned int r;

	cycle_once(); /* warm up malloc and friends */
	fds0 = fd_count();
	maps0 = maps_count(NULL);
	cycle_once();
	fds1 = fd_count();
	maps1 = maps_count(NULL);
	lope_check(fds0 == fds1 && maps0 == maps1,
		   have_tsc ? "resources_cycle_msr_tsc_leaves_nothing" :
			      "resources_cycle_leaves_no_descriptor",
		   "descriptors %d -> %d, maps lines %d -> %d", fds0, fds1,
		   maps0, maps1);

	for (r = 0; r < ARRAY_SIZE(fail_rows); r++) {
		const struct fail_row *f = &fail_rows[r];
		struct perf_event_attr a[NEV + 1];
		struct lope_group *g;
		char name[160];
		int i, n, rc, fds_after, maps_after;

		lope_name(name, sizeof(name),
			  "resources_failed_open_flags_%#x_bad_at_%d", f->flags,
			  f->bad_at);
		rc = lope_group__new(&g, 0, -1, f->flags);
		if (rc) {
			lope_fail(name, "new rc %d", rc);
			continue;
		}
		/* [msr/tsc,] software events: a mapped page to clean up */
		n = mixed_attrs(a, have_tsc ? NEV - 1 : NEV);
		a[f->bad_at].type = 0xdead;
		for (i = 0; i < n; i++)
			lope_group__add(g, &a[i]);
		fds0 = fd_count();
		maps0 = maps_count(NULL);
		rc = lope_group__open(g);
		fds_after = fd_count();
		maps_after = maps_count(NULL);
		if (rc >= 0)
			lope_fail(name, "open of type 0xdead succeeded (rc %d)",
				  rc);
		else if (fds_after != fds0 || maps_after != maps0)
			lope_fail(name,
				  "rc %d but descriptors %d -> %d, maps "
				  "%d -> %d",
				  rc, fds0, fds_after, maps0, maps_after);
		else
			lope_pass(name);
		lope_group__delete(g);
	}
	lope_info("resources: %d descriptors, %d maps lines at the end",
		  fd_count(), maps_count(NULL));
}

/* ------------------------------------------------------------------ */
/* No page fault on the measuring path                                 */

/*
 * Control for test_minflt: does touching a freshly mapped perf page (no
 * MAP_POPULATE) fault on this kernel?  Linux 6.15 and later insert the
 * pages at mmap time, so there the pre-faulting cannot be seen missing.
 * Returns the number of minor faults, or -1.
 */
static long first_touch_faults(void)
{
	struct perf_event_attr a;
	struct rusage ru0, ru1;
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	volatile struct perf_event_mmap_page *pc;
	int fd;

	sw_attr(&a, EV_TASK_CLOCK);
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	pc = mmap(NULL, ps, PROT_READ, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED) {
		close(fd);
		return -1;
	}
	getrusage(RUSAGE_THREAD, &ru0);
	getrusage(RUSAGE_THREAD, &ru0);
	(void)pc->lock;
	getrusage(RUSAGE_THREAD, &ru1);
	munmap((void *)pc, ps);
	close(fd);
	return ru1.ru_minflt - ru0.ru_minflt;
}

static void test_minflt(void)
{
	struct perf_event_attr a[NEV + 1];
	struct lope_group *g;
	struct rusage ru0, ru1;
	int64_t v[NEV + 1];
	long ctl;
	int rc, n;

	/*
	 * With only mappable events the read looks at every page (and falls
	 * back to read(2) because the page forbids rdpmc): a page that was
	 * not pre-faulted would fault right there.
	 */
	if (have_tsc) {
		a[0] = tsc_attr;
		a[1] = tsc_attr;
		n = 2;
	} else {
		n = mixed_attrs(a, NEV);
	}
	ctl = first_touch_faults();
	if (ctl == 0)
		lope_info("page faults: this kernel maps perf pages at mmap "
			  "time, so a missing pre-fault would go unnoticed");
	else
		lope_info("page faults: first touch of an unpopulated perf "
			  "page takes %ld fault(s) here",
			  ctl);
	/*
	 * The same calls on a first group run their code, and reach their
	 * stack depth, once: a code or stack page touched for the first
	 * time would fault in the count below whatever the engine
	 * pre-faults (an ASAN build's layout did), and the second group's
	 * perf pages are new anyway.
	 */
	rc = make_group_attrs(&g, 0, 0, a, n);
	if (!rc) {
		rc = lope_group__enable(g);
		if (!rc)
			rc = lope_group__read(g, v);
		lope_group__delete(g);
	}
	if (!rc)
		rc = make_group_attrs(&g, 0, 0, a, n);
	if (rc) {
		lope_fail("page_faults_enable_first_read_take_none",
			  "open, or the first group's start and read: rc %d",
			  rc);
		return;
	}
	memset(v, 0, sizeof(v));
	getrusage(RUSAGE_THREAD, &ru0); /* warm up */
	getrusage(RUSAGE_THREAD, &ru0);
	rc = lope_group__enable(g);
	rc |= lope_group__read(g, v);
	getrusage(RUSAGE_THREAD, &ru1);
	lope_check(rc == 0 && ru1.ru_minflt == ru0.ru_minflt &&
			   ru1.ru_majflt == ru0.ru_majflt,
		   have_tsc ? "page_faults_enable_first_read_take_none_tsc" :
			      "page_faults_enable_first_read_take_none",
		   "rc %d, %ld minor / %ld major faults", rc,
		   ru1.ru_minflt - ru0.ru_minflt,
		   ru1.ru_majflt - ru0.ru_majflt);
	lope_group__delete(g);
}

/* ------------------------------------------------------------------ */
/* Bad inputs (only the documented contract: negative errno, no crash) */

static void test_bad_inputs(void)
{
	struct perf_event_attr a;
	struct lope_group *g = NULL;
	int64_t v[NEV];
	int rc;

	lope_group__delete(NULL);
	lope_pass("bad_inputs_delete_null_accepted");

	rc = lope_group__new(&g, 0, -1, 0);
	if (!lope_check(rc == 0 && g, "bad_inputs_new", "rc %d", rc))
		return;
	sw_attr(&a, EV_TASK_CLOCK);
	lope_group__add(g, &a);
	rc = lope_group__enable(g);
	lope_check(rc < 0, "bad_inputs_enable_before_open", "rc %d", rc);
	rc = lope_group__read(g, v);
	lope_check(rc < 0, "bad_inputs_read_before_open", "rc %d", rc);
	rc = lope_group__open(g);
	if (!lope_check(rc == 0, "bad_inputs_open", "rc %d", rc)) {
		lope_group__delete(g);
		return;
	}
	rc = lope_group__add(g, &a);
	lope_check(rc < 0 && lope_group__nr(g) == 1,
		   "bad_inputs_add_on_open_group", "rc %d, nr %d", rc,
		   lope_group__nr(g));
	rc = lope_group__open(g);
	lope_check(rc < 0, "bad_inputs_open_twice", "rc %d", rc);
	rc = lope_group__read(NULL, v);
	lope_check(rc < 0, "bad_inputs_read_null_group", "rc %d", rc);
	rc = lope_group__read(g, NULL);
	lope_check(rc < 0, "bad_inputs_read_into_null", "rc %d", rc);
	rc = lope_group__write(g, NULL);
	lope_check(rc < 0, "bad_inputs_write_from_null", "rc %d", rc);
	lope_group__delete(g);
}

/* ------------------------------------------------------------------ */

static void test_rdpmc_usable(void)
{
	char why[256];
	int have_cpu_pmu, r;

	have_cpu_pmu = lope_core_pmu() != NULL;
	memset(why, 0, sizeof(why));
	r = lope_rdpmc_usable(why, sizeof(why));
	lope_info("lope_rdpmc_usable: %d (%s)", r, why);
	if (have_cpu_pmu)
		lope_check(r <= 0 && why[0], "rdpmc_usable_gives_a_reason",
			   "returned %d, reason \"%s\"", r, why);
	else
		lope_check(r == -ENODEV && why[0],
			   "rdpmc_usable_enodev_without_core_pmu",
			   "returned %d, reason \"%s\"", r, why);
	/* a tiny buffer is fine (the reason is truncated) */
	r = lope_rdpmc_usable(why, 4);
	lope_check(r <= 0 && strlen(why) < 4, "rdpmc_usable_reason_truncated",
		   "returned %d, reason length %zu", r, strlen(why));
}

/*
 * Does a group of @n copies of @a, opened by the engine on this thread, run
 * all the time (running equal to enabled time, and not 0) over a loop?
 */
static bool group_of_runs(const struct perf_event_attr *a, int n)
{
	struct lope_counts c[64];
	struct lope_group *g = NULL;
	int i, err = n <= 64 ? lope_group__new(&g, 0, -1, 0) : -EINVAL;
	bool runs = true;

	for (i = 0; !err && i < n; i++)
		err = lope_group__add(g, a) < 0 ? -EINVAL : 0;
	if (!err)
		err = lope_group__open(g);
	if (!err)
		err = lope_group__enable(g);
	if (!err)
		loop2(100000);
	if (!err)
		err = lope_group__read_raw(g, c);
	for (i = 0; !err && i < n; i++)
		runs &= c[i].run > 0 && c[i].run == c[i].ena;
	lope_group__delete(g);
	return !err && runs;
}

/* lope_probe and lope_probe_counters ask the kernel and leave nothing open. */
static void test_probe(void)
{
	struct perf_event_attr a;
	int fds = fd_count(), n, hw;

	sw_attr(&a, EV_TASK_CLOCK);
	lope_check(lope_probe(&a, 0, -1) == 0, "probe_task_clock_accepted",
		   "refused");
	a.type = 0x7fffffff;
	n = lope_probe(&a, 0, -1);
	lope_check(n < 0, "probe_unknown_pmu_type_refused", "returned %d", n);
	lope_check(lope_probe(NULL, 0, -1) == -EINVAL, "probe_null_attr_einval",
		   "accepted");
	sw_attr(&a, EV_TASK_CLOCK);
	n = lope_probe_counters(&a, 5);
	lope_check(n == 5, "probe_counters_software_need_none", "%d of 5", n);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.exclude_kernel = 1;
	hw = lope_probe_counters(&a, 64);
	lope_info("probe_counters: %d hardware cycles counters in one group",
		  hw);
	if (lope_core_pmu()) {
		lope_check(hw >= 1 && hw < 64,
			   "probe_counters_core_pmu_has_some", "%d", hw);
		/* As many as run together, not one more (an Arm kernel
		 * leaves a disabled leader out of its fit check).  With
		 * instructions: a cycles event read in user space takes the
		 * cycle counter alone on an Arm PMU without 64-bit event
		 * counters, so a group of them does not run as the probe's. */
		a.config = PERF_COUNT_HW_INSTRUCTIONS;
		n = lope_probe_counters(&a, 64);
		lope_info("probe_counters: %d hardware instructions counters "
			  "in one group",
			  n);
		lope_check(group_of_runs(&a, n) && !group_of_runs(&a, n + 1),
			   "probe_counters_is_the_largest_group_that_runs",
			   "a group of %d instructions %s, one of %d %s", n,
			   group_of_runs(&a, n) ? "runs" : "does not run",
			   n + 1,
			   group_of_runs(&a, n + 1) ? "runs" : "does not");
	} else {
		lope_check(hw == 0, "probe_counters_none_without_core_pmu",
			   "%d", hw);
	}
	lope_check(lope_probe_counters(&a, -1) == -EINVAL &&
			   lope_probe_counters(NULL, 4) == -EINVAL,
		   "probe_counters_bad_arguments_einval", "accepted");
	lope_check(fd_count() == fds, "probe_no_descriptor_left",
		   "%d before, %d after", fds, fd_count());
}

/* lope_group__last_counts: the read's own sample, no new one. */
static void test_last_counts(void)
{
	struct lope_counts raw[2], last[2];
	struct lope_group *g;
	int err;

	if (make_group(&g, 0, 0, 2)) {
		lope_fail("last_counts_open", "cannot open a group");
		return;
	}
	err = lope_group__enable(g);
	lope_check(!err && lope_group__last_counts(g, last) == -ENODATA,
		   "last_counts_none_since_enable", "err %d", err);
	busy(2);
	err = lope_group__read_raw(g, raw);
	busy(2);
	if (!err)
		err = lope_group__last_counts(g, last);
	lope_check(!err && !memcmp(raw, last, sizeof(raw)),
		   "last_counts_last_read_values", "err %d", err);
	lope_check(lope_group__last_counts(g, NULL) == -EINVAL &&
			   lope_group__last_counts(NULL, last) == -EINVAL,
		   "last_counts_bad_arguments_einval", "accepted");
	lope_group__close(g);
	lope_check(lope_group__last_counts(g, last) == -EBADF,
		   "last_counts_closed_is_ebadf", "not refused");
	lope_group__delete(g);
}

int main(void)
{
	static void (*const tests[])(void) = {
		test_rdpmc_usable, test_probe, test_last_counts,
		test_minflt,       test_leaks, test_bad_inputs,
	};

	return sw_group_run(tests, ARRAY_SIZE(tests));
}
