/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's group lifecycle on real kernel software events of the
 * calling thread (sw_group.h): open, enable, read, reset, write,
 * disable, close and reopen, for several flag combinations and sizes, and
 * the stop right after a read (PAPI_stop) whose sample becomes the bases.
 * Software events are never readable in user space, so every read here
 * takes the read(2) path.
 *
 * Time is checked against a span (span.h): the kernel's own task-clock of
 * the same thread, read just before and just after the call that starts
 * an interval and the call that ends it.  The group's task-clock over the
 * interval must lie between the inner and the outer difference, exactly:
 * no margin, and the time the host steals is in both.  The thread's CPU
 * time (CLOCK_THREAD_CPUTIME_ID) is not that clock: task-clock runs ahead
 * of it by what the host takes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lope.h"
#include "proc.h"
#include "report.h"
#include "span.h"
#include "sw_group.h"

/* ------------------------------------------------------------------ */
/* The lifecycle, for several flag combinations and sizes              */

static const struct config {
	int line;
	const char *name;
	unsigned int flags;
	int nev;
} configs[] = {
	{ __LINE__, "group_of_4", 0, 4 },
	{ __LINE__, "group_of_1", 0, 1 },
	{ __LINE__, "no_rdpmc_group_of_4", LOPE_NO_RDPMC, 4 },
	{ __LINE__, "separate_4", LOPE_SEPARATE, 4 },
	{ __LINE__, "separate_1", LOPE_SEPARATE, 1 },
	{ __LINE__, "separate_no_rdpmc_4", LOPE_SEPARATE | LOPE_NO_RDPMC, 4 },
};

#define CASE(fmt, ...) \
	lope_name(name, sizeof(name), "%s_" fmt, c->name, ##__VA_ARGS__)

#define UNBOUNDED (-1) /* bounds(): no maximum */

/*
 * What check_within() holds each of @n values to: at least @base[i] (0
 * without @base), at most that plus @slack.
 */
static void bounds(int64_t *lo, int64_t *hi, int n, const int64_t *base,
		   int64_t slack)
{
	int i;

	for (i = 0; i < n; i++) {
		lo[i] = base ? base[i] : 0;
		hi[i] = slack == UNBOUNDED ? INT64_MAX : lo[i] + slack;
	}
}

/* PASS @name when @rc is 0 and every value @v[i] is in [@lo[i], @hi[i]]. */
static void check_within(const char *name, int rc, const int64_t *v,
			 const int64_t *lo, const int64_t *hi, int n)
{
	int i;

	if (rc) {
		lope_fail(name, "rc %d", rc);
		return;
	}
	for (i = 0; i < n; i++) {
		if (v[i] < lo[i] || v[i] > hi[i]) {
			lope_fail(name,
				  "%s = %" PRId64 " not in [%" PRId64
				  ", %" PRId64 "]",
				  sw_name[i], v[i], lo[i], hi[i]);
			return;
		}
	}
	lope_pass(name);
}

/* The verbs that start an interval in spanned_read(). */
enum verb { RESET, WRITE, ENABLE };

/*
 * clk's span from just before verb @v (WRITE: of @w) to just after a
 * read into @v2, @ms of busy work between (0: none): the verb's and the
 * read's rc together.
 */
static int spanned_read(struct lope_group *g, enum verb v, const int64_t *w,
			int ms, int64_t *v2)
{
	int rc;

	span_clear(&clk);
	span_mark(&clk);
	if (v == RESET)
		rc = lope_group__reset(g);
	else if (v == WRITE)
		rc = lope_group__write(g, w);
	else
		rc = lope_group__enable(g);
	span_mark(&clk);
	if (ms)
		busy(ms);
	span_mark(&clk);
	rc |= lope_group__read(g, v2);
	span_mark(&clk);
	return rc;
}

/* Task-clock's bounds over clk's span, from @base. */
static void clock_bounds(int64_t *lo, int64_t *hi, int64_t base)
{
	lo[EV_TASK_CLOCK] = base + span_lo(&clk);
	hi[EV_TASK_CLOCK] = base + span_hi(&clk);
}

static void lifecycle(const struct config *c)
{
	struct lope_group *g;
	char name[200], vs[300];
	int64_t v0[NEV], v1[NEV], v2[NEV], w[NEV], lo[NEV], hi[NEV];
	int fds_before = fd_count(), fds_open;
	int i, j, rc, n = c->nev, ok;

	rc = make_group(&g, 0, c->flags, n);
	if (!lope_check(rc == 0, CASE("new_add_open"), "rc %d (%s)", rc,
			strerror(-rc)))
		return;
	fds_open = fd_count();
	lope_check(lope_group__nr(g) == n && fds_open == fds_before + n,
		   CASE("one_descriptor_per_event"),
		   "nr %d, %d new descriptors", lope_group__nr(g),
		   fds_open - fds_before);
	/* doc/design.md: software events are never mapped */
	lope_check(lope_group__nr_mapped(g) == 0,
		   CASE("software_events_not_mapped"), "nr_mapped %d, want 0",
		   lope_group__nr_mapped(g));

	ok = 1;
	for (i = 0; i < n && ok; i++) {
		if (lope_group__fd(g, i) < 0)
			ok = 0;
		for (j = 0; j < i; j++)
			if (lope_group__fd(g, i) == lope_group__fd(g, j))
				ok = 0;
	}
	lope_check(ok, CASE("descriptors_valid_and_distinct"), "fd(%d) = %d",
		   i - 1, lope_group__fd(g, i - 1));

	/* enable, work, read: everything grows, task-clock by its span */
	rc = lope_group__enable(g);
	lope_check(rc == 0, CASE("enable"), "rc %d", rc);
	span_clear(&clk);
	span_mark(&clk);
	rc = lope_group__read(g, v0);
	span_mark(&clk);
	busy(30);
	span_mark(&clk);
	rc |= lope_group__read(g, v1);
	span_mark(&clk);
	fmt_vals(vs, sizeof(vs), v1, n);
	lope_info("%s: after 30 ms busy: %s", c->name, vs);
	bounds(lo, hi, n, v0, UNBOUNDED);
	lo[EV_TASK_CLOCK] = v0[EV_TASK_CLOCK] + span_lo(&clk);
	hi[EV_TASK_CLOCK] = v0[EV_TASK_CLOCK] + span_hi(&clk);
	if (n > EV_PAGE_FAULTS)
		lo[EV_PAGE_FAULTS] = v0[EV_PAGE_FAULTS] + TOUCH_PAGES;
	if (n > EV_CTX_SWITCHES && !excl_kernel)
		lo[EV_CTX_SWITCHES] = v0[EV_CTX_SWITCHES] + SLEEPS;
	check_within(CASE("read_grows_by_busy_work"), rc, v1, lo, hi, n);
	check_read_path(CASE("software_events_read_with_read2"), g);

	/* monotonic without reset */
	ok = 1;
	memcpy(v0, v1, sizeof(v0));
	for (j = 0; j < 20 && ok; j++) {
		burn_ms(1);
		rc = lope_group__read(g, v2);
		for (i = 0; i < n; i++)
			if (rc || v2[i] < v0[i])
				ok = 0;
		memcpy(v0, v2, sizeof(v0));
	}
	lope_check(ok, CASE("reads_monotonic"),
		   "read %d: rc %d or a value went down", j, rc);

	/* reset: values restart near 0.  A reset right after a read may
	 * take that read's sample, from before the span: the reset measured
	 * follows another reset, so it samples anew (test_reset_reuse). */
	rc = lope_group__reset(g);
	rc |= spanned_read(g, RESET, NULL, 0, v2);
	bounds(lo, hi, n, NULL, 2); /* a page fault or a switch may slip in */
	clock_bounds(lo, hi, 0);
	check_within(CASE("reset_restarts_near_0"), rc, v2, lo, hi, n);
	check_read_path(CASE("reset_last_path_read"), g);

	/* write: values read back from the written ones */
	for (i = 0; i < n; i++)
		w[i] = 1000000 * (i + 1);
	rc = spanned_read(g, WRITE, w, 0, v2);
	bounds(lo, hi, n, w, 2);
	clock_bounds(lo, hi, w[EV_TASK_CLOCK]);
	check_within(CASE("write_continues_from_written"), rc, v2, lo, hi, n);

	/* disable: values returned, the stopped counters do not move */
	burn_ms(5);
	rc = lope_group__read(g, v0);
	rc |= lope_group__disable(g, v1);
	ok = rc == 0;
	for (i = 0; i < n; i++)
		if (v1[i] < v0[i])
			ok = 0;
	fmt_vals(vs, sizeof(vs), v1, n);
	lope_check(ok, CASE("disable_returns_stop_values"), "rc %d; %s", rc,
		   vs);
	rc = lope_group__read(g, v0);
	busy(20);
	rc |= lope_group__read(g, v2);
	ok = rc == 0;
	for (i = 0; i < n; i++)
		if (v0[i] != v2[i] || v0[i] != 0)
			ok = 0;
	fmt_vals(vs, sizeof(vs), v2, n);
	lope_check(ok, CASE("disabled_counters_do_not_move"),
		   "rc %d; after 20 ms busy: %s", rc, vs);

	/* enable again: counting restarts from 0, not from the old values
	 * (the disable sampled after stopping: nothing to carry over) */
	rc = spanned_read(g, ENABLE, NULL, 30, v2);
	bounds(lo, hi, n, NULL, UNBOUNDED);
	clock_bounds(lo, hi, 0);
	if (n > EV_PAGE_FAULTS) {
		lo[EV_PAGE_FAULTS] = TOUCH_PAGES;
		hi[EV_PAGE_FAULTS] = TOUCH_PAGES + 20;
	}
	check_within(CASE("reenable_counts_from_0"), rc, v2, lo, hi, n);
	rc = lope_group__disable(g, NULL);
	lope_check(rc == 0, CASE("disable_null_values"), "rc %d", rc);

	/* close keeps the attributes; reopen works */
	lope_group__close(g);
	lope_check(lope_group__nr(g) == n && fd_count() == fds_before,
		   CASE("close_keeps_attributes"),
		   "nr %d, %d descriptors (before open %d)", lope_group__nr(g),
		   fd_count(), fds_before);
	rc = lope_group__open(g);
	if (rc == 0)
		rc = spanned_read(g, ENABLE, NULL, 10, v2);
	lope_check(rc == 0 && span_holds(&clk, v2[EV_TASK_CLOCK]) &&
			   fd_count() == fds_before + n,
		   CASE("reopen_after_close_counts"),
		   "rc %d, task-clock %" PRId64 " (span [%lld, %lld]), %d "
		   "descriptors",
		   rc, rc ? 0 : v2[EV_TASK_CLOCK], span_lo(&clk), span_hi(&clk),
		   fd_count());
	lope_group__delete(g);
	lope_check(fd_count() == fds_before, CASE("delete_closes_everything"),
		   "%d descriptors, %d before", fd_count(), fds_before);
}

/* Every one of @n values is @want[i] (NULL: 0); else says which is not. */
static int all_equal(const int64_t *v, const int64_t *want, int n, char *why,
		     size_t len)
{
	int i;

	for (i = 0; i < n; i++) {
		int64_t w = want ? want[i] : 0;

		if (v[i] != w) {
			snprintf(why, len, "%s = %" PRId64 ", not %" PRId64,
				 sw_name[i], v[i], w);
			return 0;
		}
	}
	return 1;
}

/*
 * The stop after a read (PAPI_stop): the read's sample becomes the bases,
 * copied only when a later call needs them.  Every call after such a stop
 * must see what it would if they had been copied at once: the values
 * count from that read.
 */
static void stop_after_read(const struct config *c)
{
	struct lope_group *g;
	struct lope_counts stop[NEV], raw[NEV];
	struct span tail;
	char name[200], why[400] = "";
	int64_t v0[NEV], v1[NEV], v2[NEV], w[NEV], carried;
	int i, rc, n = c->nev;

	rc = make_group(&g, 0, c->flags, n);
	if (!lope_check(rc == 0, CASE("stop_after_read_open"), "rc %d (%s)", rc,
			strerror(-rc)))
		return;
	rc = lope_group__disable_after_read(g);
	lope_check(rc == 0, CASE("stop_after_read_no_read_since_open"), "rc %d",
		   rc);

	/* What the counters add between the read and the disable (the
	 * stop's own system call) is not in the read: it is counted from
	 * the read's sample, the bases, and goes to the next interval.
	 * Spans: clk from the enable to the read, tail from the read to the
	 * disable (what the values show after it). */
	if (span_open(&tail, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0) {
		lope_fail(CASE("stop_after_read_span"), "%s", strerror(errno));
		lope_group__delete(g);
		return;
	}
	span_clear(&clk);
	span_mark(&clk);
	rc = lope_group__enable(g);
	span_mark(&clk);
	busy(10);
	span_mark(&clk);
	span_mark(&tail);
	rc |= lope_group__read(g, v0);
	span_mark(&tail);
	span_mark(&clk);
	span_mark(&tail);
	rc |= lope_group__disable_after_read(g);
	span_mark(&tail);
	rc |= lope_group__disable_after_read(g); /* the same sample: a no-op */
	rc |= lope_group__last_counts(g, stop);
	rc |= lope_group__read(g, v1);
	busy(10);
	rc |= lope_group__read(g, v2);
	lope_check(rc == 0 && span_holds(&clk, v0[EV_TASK_CLOCK]) &&
			   all_equal(v2, v1, n, why, sizeof(why)) &&
			   span_holds(&tail, v1[EV_TASK_CLOCK]),
		   CASE("stop_after_read_values_do_not_move"),
		   "rc %d, task-clock %" PRId64 " before the stop (span "
		   "[%lld, %lld]), %" PRId64 " after (span [%lld, %lld]); %s",
		   rc, v0[EV_TASK_CLOCK], span_lo(&clk), span_hi(&clk),
		   v1[EV_TASK_CLOCK], span_lo(&tail), span_hi(&tail), why);
	span_close(&tail);
	carried = v1[EV_TASK_CLOCK];
	rc = lope_group__read_raw(g, raw);
	for (i = 0; i < n && rc == 0; i++)
		if ((int64_t)(raw[i].val - stop[i].val) != v1[i])
			rc = -ERANGE;
	lope_check(rc == 0, CASE("stop_after_read_counts_from_the_read"),
		   "rc %d: %s is not its count less the read's", rc,
		   i ? sw_name[i - 1] : "-");
	/* The next interval: what the stop carried over, then the span
	 * from the enable to the read; not the values before the stop. */
	rc = spanned_read(g, ENABLE, NULL, 10, v1);
	lope_check(rc == 0 && span_holds(&clk, v1[EV_TASK_CLOCK] - carried),
		   CASE("stop_after_read_next_enable_from_0"),
		   "rc %d, task-clock %" PRId64 ": %" PRId64
		   " carried over and the span [%lld, %lld]",
		   rc, v1[EV_TASK_CLOCK], carried, span_lo(&clk),
		   span_hi(&clk));

	for (i = 0; i < n; i++)
		w[i] = 1000 + i;
	rc = lope_group__read(g, v0);
	rc |= lope_group__disable_after_read(g);
	rc |= lope_group__write(g, w);
	rc |= lope_group__read(g, v1);
	lope_check(rc == 0 && all_equal(v1, w, n, why, sizeof(why)),
		   CASE("stop_after_read_write_read_back"), "rc %d; %s", rc,
		   why);
	rc = lope_group__reset(g);
	rc |= lope_group__read(g, v1);
	lope_check(rc == 0 && all_equal(v1, NULL, n, why, sizeof(why)),
		   CASE("stop_after_read_reset_gives_0"), "rc %d; %s", rc, why);
	rc = lope_group__disable(g, v1);
	lope_check(rc == 0 && all_equal(v1, NULL, n, why, sizeof(why)),
		   CASE("stop_after_read_disable_gives_0"), "rc %d; %s", rc,
		   why);

	lope_group__close(g);
	lope_check(lope_group__disable_after_read(g) == -EBADF &&
			   lope_group__read(g, v1) == -EBADF &&
			   lope_group__reset(g) == -EBADF &&
			   lope_group__write(g, w) == -EBADF &&
			   lope_group__enable(g) == -EBADF,
		   CASE("stop_after_read_closed_is_ebadf"),
		   "a call was accepted");
	lope_group__delete(g);
}

/* Every configuration's lifecycle and stop after a read. */
static void all_configs(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
		lifecycle(&configs[i]);
		stop_after_read(&configs[i]);
	}
}

int main(void)
{
	static void (*const tests[])(void) = { all_configs };

	return sw_group_run(tests, 1);
}
