/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_multiplex: PAPI_multiplex_init / PAPI_set_multiplex on real
 * software events (the component multiplexes in the kernel:
 * kernel_multiplex == 1, one kernel group per event).
 *
 * Software events always fit, so the kernel never actually deschedules
 * them here (time_enabled == time_running, the scale is 1): these cases
 * prove the multiplexed path of the API (one descriptor and one read(2)
 * per event, bases per event) gives sane values, never negative, that a
 * PAPI_reset of a running multiplexed set really starts from zero (stock
 * PAPI's sdsc2-mpx/sdsc4-mpx ctests fail there), and that 20 events work.
 * Scaling itself (enabled != running) is unit-tested on simulated pages in
 * ctests/engine; the hardware variant, with more events than counters,
 * is skipped without a core PMU.
 *
 * Every clock is held to a span (ctests/lib/span.h) of the same thread's
 * own task-clock or cpu-clock, read around the call that starts the
 * interval and the call that ends it: exact bounds, whatever the host
 * steals, where the thread's CPU time would not do (task-clock runs ahead
 * of it by what the host takes).
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>

#include "papi_interpose.h"
#include "papi_util.h"
#include "span.h"

/* What an event counts, for the checks: TCLOCK task-clock, CCLOCK
 * cpu-clock.  Software events every kernel of doc/kernels.md has (not
 * CGROUP-SWITCHES, from Linux 5.13: 5.10 refuses it). */
enum kind { TCLOCK, CCLOCK, FAULTS, ANY };

static const struct {
	const char *name;
	enum kind kind;
} events[] = {
	{ "perf::TASK-CLOCK", TCLOCK },
	{ "perf::CPU-CLOCK", CCLOCK },
	{ "perf::PAGE-FAULTS", FAULTS },
	{ "perf::CONTEXT-SWITCHES", ANY },
	{ "perf::CPU-MIGRATIONS", ANY },
	{ "perf::MINOR-FAULTS", FAULTS },
	{ "perf::MAJOR-FAULTS", ANY },
	{ "perf::CONTEXT-SWITCHES:u=1", ANY },
	{ "perf::PERF_COUNT_SW_CPU_CLOCK", CCLOCK },
	{ "perf::PERF_COUNT_SW_TASK_CLOCK", TCLOCK },
	{ "perf::PERF_COUNT_SW_PAGE_FAULTS", FAULTS },
	{ "perf::PERF_COUNT_SW_CONTEXT_SWITCHES", ANY },
	{ "perf::PERF_COUNT_SW_CPU_MIGRATIONS", ANY },
	{ "perf::PERF_COUNT_SW_PAGE_FAULTS_MIN", FAULTS },
	{ "perf::PERF_COUNT_SW_PAGE_FAULTS_MAJ", ANY },
	{ "perf::FAULTS", FAULTS },
	{ "perf::CS", ANY },
	{ "perf::MIGRATIONS", ANY },
	{ "perf::TASK-CLOCK:u=1", TCLOCK },
	{ "perf::PAGE-FAULTS:u=1", FAULTS },
};
#define NALL ((int)(sizeof(events) / sizeof(events[0])))
#define NSMALL 4 /* TASK-CLOCK, CPU-CLOCK, PAGE-FAULTS, CONTEXT-SWITCHES */
#define NPAGES 300

/* A multiplexed set of the first @n events, made multiplexed first. */
static int mpx_set(int *set, int n)
{
	int rc, i;

	rc = make_empty_set(set);
	if (rc == PAPI_OK)
		rc = PAPI_set_multiplex(*set);
	for (i = 0; rc == PAPI_OK && i < n; i++)
		rc = PAPI_add_named_event(*set, events[i].name);
	return rc;
}

/* This thread's task-clock and cpu-clock around one interval (span.h). */
struct clocks {
	struct span task, cpu;
};

/* Open both; a FAIL @name and -1 when the kernel refuses. */
static int clocks_open(struct clocks *c, const char *name)
{
	if (span_open(&c->task, PERF_COUNT_SW_TASK_CLOCK, 0, 0) == 0 &&
	    span_open(&c->cpu, PERF_COUNT_SW_CPU_CLOCK, 0, 0) == 0)
		return 0;
	lope_fail(name, "no span: perf_event_open: %s", strerror(errno));
	span_close(&c->task);
	return -1;
}

/* @f (span_clear, span_again, span_carry, span_close) on both spans. */
static void clocks_do(struct clocks *c, void (*f)(struct span *))
{
	f(&c->task);
	f(&c->cpu);
}

static void clocks_mark(struct clocks *c)
{
	span_mark(&c->task);
	span_mark(&c->cpu);
}

/*
 * When @rc is PAPI_OK: reset @set and read it into @v.  The reset may
 * reuse the sample of the read just before it (test_reset_reuse), so the
 * spans of @c start at their last mark before that read.  The read's
 * result, or @rc.
 */
static int reset_then_read(int rc, int set, long long *v, struct clocks *c)
{
	clocks_do(c, span_carry);
	if (rc == PAPI_OK)
		rc = PAPI_reset(set);
	clocks_mark(c);
	clocks_mark(c);
	if (rc == PAPI_OK)
		rc = PAPI_read(set, v);
	clocks_mark(c);
	return rc;
}

/* The span of the clock an event of @kind counts. */
static const struct span *span_of(const struct clocks *c, enum kind kind)
{
	return kind == TCLOCK ? &c->task : &c->cpu;
}

/*
 * Check @v (values of the first @n events over an interval measured by
 * @c, with NPAGES touched pages, @pages = 0 if none): clocks within their
 * spans, faults at least 90 % of the pages, nothing negative.  Returns the
 * index of the first bad event, or -1.
 */
static int bad_value(const long long *v, int n, const struct clocks *c,
		     int pages)
{
	int i;

	for (i = 0; i < n; i++) {
		if (v[i] < 0)
			return i;
		if ((events[i].kind == TCLOCK || events[i].kind == CCLOCK) &&
		    !span_holds(span_of(c, events[i].kind), v[i]))
			return i;
		if (events[i].kind == FAULTS && v[i] < pages * 9 / 10)
			return i;
	}
	return -1;
}

static void test_cmpinfo(void)
{
	const PAPI_component_info_t *ci = cmpinfo_or_exit();
	int rc;

	lope_check(ci->kernel_multiplex == 1, "cmpinfo_kernel_multiplex",
		   "kernel_multiplex=%d", ci->kernel_multiplex);
	lope_check(ci->num_mpx_cntrs >= NALL, "cmpinfo_num_mpx_cntrs",
		   "num_mpx_cntrs=%d, need %d", ci->num_mpx_cntrs, NALL);
	rc = PAPI_multiplex_init();
	if (!lope_check(rc == PAPI_OK, "multiplex_init", "rc=%s", papi_err(rc)))
		lope_exit();
}

/*
 * The load every value check measures: start @set, spin for @ns, touch
 * NPAGES fresh pages, then read the set into @v (stop it, when @stop).
 * @c: the clocks around the start and the read or stop.  PAPI_OK or the
 * first error (PAPI_ESYS when the pages cannot be mapped).
 */
static int load(int set, long long ns, int stop, long long *v, struct clocks *c)
{
	int rc;

	clocks_do(c, span_clear);
	clocks_mark(c);
	rc = PAPI_start(set);
	clocks_mark(c);
	busy_ns(ns);
	if (touch_pages(NPAGES) < 0)
		rc = PAPI_ESYS;
	clocks_mark(c);
	if (rc == PAPI_OK)
		rc = stop ? PAPI_stop(set, v) : PAPI_read(set, v);
	clocks_mark(c);
	return rc;
}

/* "task-clock %lld [lo, hi] cpu-clock %lld [lo, hi]" of @v[0], @v[1]. */
static const char *two_clocks(char *buf, size_t len, const long long *v,
			      const struct clocks *c)
{
	snprintf(buf, len,
		 "task-clock %lld ns, span [%lld, %lld]; cpu-clock %lld ns, "
		 "span [%lld, %lld]",
		 v[0], span_lo(&c->task), span_hi(&c->task), v[1],
		 span_lo(&c->cpu), span_hi(&c->cpu));
	return buf;
}

static void test_small(void)
{
	long long v[NSMALL] = { 0 }, prev[NSMALL] = { 0 }, sum = 0, lo = 0,
		  hi = 0;
	int set = PAPI_NULL, rc, bad, i, j, mono = 1, accums_ok = 1;
	struct clocks c;
	char why[200], first_bad[220];

	if (clocks_open(&c, "mpx_clocks"))
		return;
	rc = mpx_set(&set, NSMALL);
	if (!set_ok_or_drop("set_multiplex_then_add", rc, &set)) {
		clocks_do(&c, span_close);
		return;
	}
	rc = PAPI_get_multiplex(set);
	lope_check(rc == 1, "get_multiplex_true", "PAPI_get_multiplex=%d", rc);
	rc = PAPI_set_multiplex(set);
	lope_check(rc == PAPI_EINVAL, "set_multiplex_twice_einval",
		   "rc=%s, expected PAPI_EINVAL", papi_err(rc));

	rc = load(set, 30 * MS, 0, v, &c);
	bad = bad_value(v, NSMALL, &c, NPAGES);
	lope_check(rc == PAPI_OK && bad < 0, "mpx_values_sane",
		   "rc=%s first bad: %s; %s; page-faults %lld (%d pages), "
		   "switches %lld",
		   papi_err(rc), bad < 0 ? "none" : events[bad].name,
		   two_clocks(why, sizeof(why), v, &c), v[2], NPAGES, v[3]);

	/* Reset while running: the next read starts from zero. */
	rc = reset_then_read(rc, set, v, &c);
	lope_check(rc == PAPI_OK && span_holds(&c.task, v[0]) &&
			   span_holds(&c.cpu, v[1]) && v[2] >= 0 && v[2] < 16,
		   "mpx_reset_near_zero",
		   "rc=%s after reset: %s; page-faults %lld", papi_err(rc),
		   two_clocks(why, sizeof(why), v, &c), v[2]);
	clocks_do(&c, span_again);
	busy_ns(20 * MS);
	clocks_mark(&c);
	if (rc == PAPI_OK)
		rc = PAPI_read(set, v);
	clocks_mark(&c);
	lope_check(rc == PAPI_OK && span_holds(&c.task, v[0]) &&
			   span_holds(&c.cpu, v[1]),
		   "mpx_counts_interval_after_reset",
		   "rc=%s 20 ms spun after the reset: %s", papi_err(rc),
		   two_clocks(why, sizeof(why), v, &c));

	/* Many reads: never backwards, never negative. */
	for (i = 0; rc == PAPI_OK && i < 200; i++) {
		memcpy(prev, v, sizeof(v));
		busy_ns(50000);
		rc = PAPI_read(set, v);
		for (j = 0; j < NSMALL; j++)
			if (v[j] < 0 || v[j] < prev[j])
				mono = 0;
	}
	lope_check(rc == PAPI_OK && mono, "mpx_reads_monotonic_never_negative",
		   "rc=%s; 200 reads, monotonic %d", papi_err(rc), mono);

	/* One kernel group per event: one read(2) per event. */
	rc = papi_read_makes_reads("mpx_read_reads_each_event", set, rc, v,
				   NSMALL);

	/*
	 * Accum: each accum reads and resets, so it ends one interval and
	 * starts the next: each lies within the span from the call that
	 * started it to its own, and their sum within the sum of the spans.
	 * The first interval starts at a reset, which may reuse the sample
	 * of the read before it: the span starts before that read.
	 */
	clocks_do(&c, span_clear);
	clocks_mark(&c);
	if (rc == PAPI_OK)
		rc = PAPI_read(set, v);
	if (rc == PAPI_OK)
		rc = PAPI_reset(set);
	clocks_mark(&c);
	for (i = 0; rc == PAPI_OK && i < 5; i++) {
		memset(v, 0, sizeof(v));
		busy_ns(4 * MS);
		clocks_mark(&c);
		rc = PAPI_accum(set, v);
		clocks_mark(&c);
		if (accums_ok &&
		    (!span_holds(&c.task, v[0]) || !span_holds(&c.cpu, v[1]))) {
			accums_ok = 0;
			snprintf(first_bad, sizeof(first_bad), "accum %d: %s",
				 i, two_clocks(why, sizeof(why), v, &c));
		}
		sum += v[0];
		lo += span_lo(&c.task);
		hi += span_hi(&c.task);
		clocks_do(&c, span_carry);
		clocks_mark(&c);
	}
	lope_check(rc == PAPI_OK && accums_ok && sum >= lo && sum <= hi,
		   "mpx_accum_sums_to_span",
		   "rc=%s sum of 5 accums' task-clock %lld ns, spans [%lld, "
		   "%lld]; %s",
		   papi_err(rc), sum, lo, hi,
		   accums_ok ? "each in its span" : first_bad);

	/* The stop: the interval from the last accum. */
	rc = PAPI_set_multiplex(set);
	lope_check(rc == PAPI_EISRUN || rc == PAPI_EINVAL,
		   "set_multiplex_running_refused", "rc=%s", papi_err(rc));
	clocks_mark(&c);
	if (rc != PAPI_OK)
		rc = PAPI_stop(set, v);
	clocks_mark(&c);
	lope_check(rc == PAPI_OK && bad_value(v, NSMALL, &c, 0) < 0, "mpx_stop",
		   "rc=%s; %s", papi_err(rc),
		   two_clocks(why, sizeof(why), v, &c));
	drop_set(&set);
	clocks_do(&c, span_close);
}

/* An existing set converted to multiplexing keeps counting. */
static void test_convert(void)
{
	const char *n[NSMALL];
	long long v[NSMALL] = { 0 };
	int set = PAPI_NULL, rc, i, bad;
	struct clocks c;
	char why[200];

	if (clocks_open(&c, "converted_set_clocks"))
		return;
	for (i = 0; i < NSMALL; i++)
		n[i] = events[i].name;
	rc = make_named_set(&set, n, NSMALL);
	if (rc == PAPI_OK)
		rc = PAPI_set_multiplex(set);
	lope_check(rc == PAPI_OK && PAPI_get_multiplex(set) == 1,
		   "set_multiplex_after_add", "rc=%s", papi_err(rc));
	if (rc == PAPI_OK)
		rc = load(set, 20 * MS, 1, v, &c);
	bad = bad_value(v, NSMALL, &c, NPAGES);
	lope_check(rc == PAPI_OK && bad < 0, "converted_set_values_sane",
		   "rc=%s first bad: %s (%s)", papi_err(rc),
		   bad < 0 ? "none" : events[bad].name,
		   two_clocks(why, sizeof(why), v, &c));
	drop_set(&set);
	clocks_do(&c, span_close);
}

/* Twenty software events, multiplexed. */
static void test_twenty(void)
{
	long long v[NALL];
	int set = PAPI_NULL, rc, bad, i, nonzero = 1, pf0, pf1, fds;
	struct clocks c;
	char why[200];

	if (clocks_open(&c, "mpx20_clocks"))
		return;
	pf0 = perf_fd_count();
	fds = fd_count();
	rc = mpx_set(&set, NALL);
	pf1 = perf_fd_count();
	lope_check(rc == PAPI_OK, "mpx20_add_all", "rc=%s", papi_err(rc));
	lope_check(rc == PAPI_OK && pf1 - pf0 == NALL, "mpx20_one_fd_per_event",
		   "perf descriptors %d -> %d for %d events", pf0, pf1, NALL);
	if (rc != PAPI_OK) {
		drop_set(&set);
		clocks_do(&c, span_close);
		return;
	}
	memset(v, 0xff, sizeof(v)); /* -1 everywhere: must be overwritten */
	rc = load(set, 30 * MS, 0, v, &c);
	bad = bad_value(v, NALL, &c, NPAGES);
	lope_check(rc == PAPI_OK && bad < 0, "mpx20_values_sane",
		   "rc=%s first bad: %s = %lld (%d pages; %s)", papi_err(rc),
		   bad < 0 ? "none" : events[bad].name, bad < 0 ? 0 : v[bad],
		   NPAGES, two_clocks(why, sizeof(why), v, &c));
	for (i = 0; i < NALL; i++)
		if (events[i].kind != ANY && v[i] <= 0)
			nonzero = 0;
	lope_check(rc == PAPI_OK && nonzero, "mpx20_every_event_counts",
		   "rc=%s: a clock or fault event read 0", papi_err(rc));
	for (i = 0; i < NALL; i++)
		lope_info("%-40s %lld", events[i].name, v[i]);

	rc = reset_then_read(rc, set, v, &c);
	bad = bad_value(v, NALL, &c, 0);
	for (i = 0; rc == PAPI_OK && bad < 0 && i < NALL; i++)
		if (events[i].kind == FAULTS && v[i] >= 16)
			bad = i;
	lope_check(rc == PAPI_OK && bad < 0, "mpx20_reset_near_zero",
		   "rc=%s first bad: %s = %lld (%s)", papi_err(rc),
		   bad < 0 ? "none" : events[bad].name, bad < 0 ? 0 : v[bad],
		   two_clocks(why, sizeof(why), v, &c));
	clocks_do(&c, span_again);
	clocks_mark(&c);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	clocks_mark(&c);
	bad = bad_value(v, NALL, &c, 0);
	lope_check(rc == PAPI_OK && bad < 0, "mpx20_stop",
		   "rc=%s first bad: %s = %lld (%s)", papi_err(rc),
		   bad < 0 ? "none" : events[bad].name, bad < 0 ? 0 : v[bad],
		   two_clocks(why, sizeof(why), v, &c));
	drop_set(&set);
	lope_check(fd_count() == fds && perf_fd_count() == pf0,
		   "mpx20_no_fd_leak", "descriptors %d -> %d, perf %d -> %d",
		   fds, fd_count(), pf0, perf_fd_count());
	clocks_do(&c, span_close);
}

/*
 * PAPI's own software multiplexing (PAPI_MULTIPLEX_FORCE_SW): PAPI
 * rotates the events itself on a timer and estimates.  Only sanity is
 * asserted: no error, nothing negative, the task-clock estimate within a
 * factor 2 of the span of the thread's own task-clock over the set's run.
 * PAPI pairs every event with PAPI_TOT_CYC to scale it (sw_multiplex.c,
 * SCALE_EVENT), so without a core PMU every add fails: skipped.
 */
static void test_force_sw(void)
{
	PAPI_option_t opt;
	long long v[NSMALL] = { 0 };
	int set = PAPI_NULL, rc, i;
	struct span sp;

	if (!lope_core_pmu()) {
		lope_skip("sw_multiplex_values_sane", LOPE_NO_CORE_PMU_REASON
			  " (PAPI's software multiplexing pairs "
			  "each event with PAPI_TOT_CYC)");
		return;
	}
	rc = make_empty_set(&set);
	if (rc == PAPI_OK) {
		memset(&opt, 0, sizeof(opt));
		opt.multiplex.eventset = set;
		opt.multiplex.ns = 0;
		opt.multiplex.flags = PAPI_MULTIPLEX_FORCE_SW;
		rc = PAPI_set_opt(PAPI_MULTIPLEX, &opt);
	}
	for (i = 0; rc == PAPI_OK && i < NSMALL; i++)
		rc = PAPI_add_named_event(set, events[i].name);
	lope_check(rc == PAPI_OK, "sw_multiplex_set", "rc=%s", papi_err(rc));
	if (span_open(&sp, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0)
		rc = PAPI_ESYS;
	rc = spin_between_marks(set, rc, 200 * MS, PAPI_stop, v, &sp);
	lope_check(rc == PAPI_OK && v[0] >= span_lo(&sp) / 2 &&
			   v[0] <= span_hi(&sp) * 2 && v[1] >= 0 && v[2] >= 0 &&
			   v[3] >= 0,
		   "sw_multiplex_values_sane",
		   "rc=%s task-clock %lld cpu-clock %lld faults %lld switches "
		   "%lld (span [%lld, %lld] ns)",
		   papi_err(rc), v[0], v[1], v[2], v[3], span_lo(&sp),
		   span_hi(&sp));
	span_close(&sp);
	drop_set(&set);
}

/*
 * Hardware variant: more events than counters, really multiplexed.  The
 * names not known here are left out; an emulated PMU may count only
 * instructions and cycles (QEMU's Arm one) or those and three TLB events
 * (its RISC-V one, 17 counters), so they also come with other privilege
 * levels, under their Arm names and as the core PMU's sysfs events and
 * raw terms (each a distinct kernel event).
 */
static void test_hw(void)
{
	static const char *const hw[] = {
		"perf::INSTRUCTIONS",
		"perf::CYCLES",
		"perf::BRANCHES",
		"perf::BRANCH-MISSES",
		"perf::CACHE-REFERENCES",
		"perf::CACHE-MISSES",
		"perf::REF-CYCLES",
		"perf::BUS-CYCLES",
		"perf::INSTRUCTIONS:u=1",
		"perf::CYCLES:u=1",
		"perf::BRANCHES:u=1",
		"perf::BRANCH-MISSES:u=1",
		"perf::INSTRUCTIONS:k=1",
		"perf::CYCLES:k=1",
		"perf::INSTRUCTIONS:u=1:k=1",
		"perf::CYCLES:u=1:k=1",
		"perf::DTLB-LOAD-MISSES",
		"perf::DTLB-LOAD-MISSES:u=1",
		"perf::DTLB-LOAD-MISSES:k=1",
		"perf::DTLB-STORE-MISSES",
		"perf::DTLB-STORE-MISSES:u=1",
		"perf::DTLB-STORE-MISSES:k=1",
		"perf::ITLB-LOAD-MISSES",
		"perf::ITLB-LOAD-MISSES:u=1",
		"perf::ITLB-LOAD-MISSES:k=1",
		"INST_RETIRED",
		"CPU_CYCLES",
		"INST_RETIRED:u",
		"CPU_CYCLES:u",
	};
	static const char *const sysfs[] = { "inst_retired", "cpu_cycles",
					     "event=0x8", "event=0x11" };
	enum {
		NHW = sizeof(hw) / sizeof(hw[0]),
		NSYSFS = sizeof(sysfs) / sizeof(sysfs[0])
	};
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);
	char names[NHW + NSYSFS][PAPI_MAX_STR_LEN];
	long long v[NHW + NSYSFS] = { 0 };
	int set = PAPI_NULL, rc, i, n = 0, added = 0, neg = 0, counters;
	int reads = 0;
	const char *pmu = lope_core_pmu();

	if (!pmu) {
		lope_skip("hw_mpx_more_events_than_counters",
			  LOPE_NO_CORE_PMU_REASON);
		return;
	}
	for (i = 0; i < NHW; i++)
		snprintf(names[n++], sizeof(names[0]), "%s", hw[i]);
	for (i = 0; i < NSYSFS; i++)
		snprintf(names[n++], sizeof(names[0]), "%.64s::%s", pmu,
			 sysfs[i]);
	/* more than the counters the component reports, at least 8 */
	counters = ci && ci->num_cntrs > 7 ? ci->num_cntrs : 7;
	rc = make_empty_set(&set);
	if (rc == PAPI_OK)
		rc = PAPI_set_multiplex(set);
	for (i = 0; rc == PAPI_OK && i < n; i++)
		if (PAPI_add_named_event(set, names[i]) == PAPI_OK)
			added++;
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	/* Read all along, every 100 us: the events on the PMU are read in
	 * user space, those off it (index 0) from their pages, and a read
	 * racing a rotation falls back (riscv64: under the fault guard). */
	for (reads = 0; rc == PAPI_OK && reads < 2000; reads++) {
		busy_ns(100000);
		rc = PAPI_read(set, v);
		for (i = 0; rc == PAPI_OK && i < added; i++)
			if (v[i] < 0)
				neg = 1;
	}
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	for (i = 0; i < added; i++)
		if (v[i] < 0)
			neg = 1;
	lope_info("hw multiplex: %d events added, %d counters", added,
		  ci ? ci->num_cntrs : -1);
	lope_check(rc == PAPI_OK && added > counters && !neg &&
			   v[0] > 1000000 && reads == 2000,
		   "hw_mpx_more_events_than_counters",
		   "rc=%s %d events added (want more than %d), first %lld, "
		   "negative %d, %d of 2000 reads while multiplexed",
		   papi_err(rc), added, counters, v[0], neg, reads);
	drop_set(&set);
}

int main(void)
{
	static void (*const tests[])(void) = {
		test_cmpinfo, test_small,    test_convert,
		test_twenty,  test_force_sw, test_hw,
	};

	return papi_run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
