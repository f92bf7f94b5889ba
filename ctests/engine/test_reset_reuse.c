/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A reset right after a read reuses that read's sample (one system call
 * for PAPI_accum and the read-then-reset pair), an older sample is never
 * reused, a sample serves one reset only, and no count is lost between
 * the intervals.  Counted on real software events through a counting
 * system-call table.
 *
 * The engine's rule (group.c, fresh()): a reset reuses the latest sample
 * when it is younger than g->read_cost ticks of lope_arch_cycles() (the
 * least of a few read(2) at open).  Whether a sample is that young depends
 * on the scheduler, so every try measures it with the same clock: the
 * sample's time (g->snap_at, read before the reset) and the clock just
 * before and just after the reset.  A try that expects reuse counts only
 * when the sample was still younger than read_cost just after the reset
 * (fresh() looked in between, so it must have reused); a try that expects
 * a new sample, only when it was at least read_cost old just before (or
 * there was no timed sample at all).  Both outcomes are then certain, and
 * a wrong one is the engine's error.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "attrs.h"
#include "clock.h"
#include "group.h"
#include "lope.h"
#include "lope_arch.h"
#include "report.h"
#include "sys.h"

/* Tries a row expecting reuse makes to find CLEAN ones (see try_row()). */
#define CLEAN 3
#define TRIES 1000

static unsigned long nr_reads;

static ssize_t counting_read(int fd, void *buf, size_t len)
{
	nr_reads++;
	return lope_sys_kernel.read(fd, buf, len);
}

static struct lope_sys counting;

/* The software events, opened and counting. */
static struct lope_group *open_group(void)
{
	struct perf_event_attr attr[SW_ATTRS];
	struct lope_group *g;
	int i;

	sw_attrs(attr, SW_ATTRS);
	if (lope_group__new(&g, 0, -1, 0))
		return NULL;
	for (i = 0; i < SW_ATTRS; i++)
		if (lope_group__add(g, &attr[i]) < 0)
			goto fail;
	if (lope_group__open(g) == 0 && lope_group__enable(g) == 0)
		return g;
fail:
	lope_group__delete(g);
	return NULL;
}

/* One reset and how old the latest sample was around it. */
struct attempt {
	unsigned long reads; /* read(2) calls the reset made; ~0: failed */
	uint64_t snap_at;    /* g->snap_at before the reset: 0, none timed */
	uint64_t before;     /* its age just before the reset */
	uint64_t after;      /* and just after */
};

/* The last of @resets resets, timed, after the given preparation. */
static struct attempt reset_after(struct lope_group *g, int read_first,
				  long pause_ms, int resets)
{
	struct attempt t = { ~0ul, 0, 0, 0 };
	uint64_t t0, t1;
	unsigned long before;
	int64_t v[SW_ATTRS];
	int i;

	if (read_first && lope_group__read(g, v))
		return t;
	if (pause_ms)
		sleep_ns(pause_ms * MS);
	for (i = 0; i < resets - 1; i++)
		if (lope_group__reset(g))
			return t;
	before = nr_reads;
	t.snap_at = g->snap_at;
	t0 = lope_arch_cycles();
	if (lope_group__reset(g))
		return t;
	t1 = lope_arch_cycles();
	t.reads = nr_reads - before;
	t.before = t0 - t.snap_at;
	t.after = t1 - t.snap_at;
	return t;
}

/* Must @t have reused the sample (1), taken a new one (0), or either? */
static int must_reuse(const struct attempt *t, uint64_t read_cost)
{
	if (t->snap_at && t->after < read_cost)
		return 1;
	if (!t->snap_at || t->before >= read_cost)
		return 0;
	return -1;
}

static const struct {
	int line;
	const char *name;
	int read_first;
	long pause_ms;
	int resets;
	int reuse;
} rows[] = {
	{ __LINE__, "reset_right_after_a_read_reuses_it", 1, 0, 1, 1 },
	{ __LINE__, "reset_20_ms_after_a_read_samples_again", 1, 20, 1, 0 },
	{ __LINE__, "second_reset_after_one_read_samples_again", 1, 0, 2, 0 },
	{ __LINE__, "reset_without_a_read_samples", 0, 0, 1, 0 },
};

/*
 * A row expecting reuse needs CLEAN tries whose sample was younger than
 * read_cost just after the reset, each with no read(2); a try preempted
 * or stolen from in between proves nothing either way and is taken again,
 * up to TRIES.  Fewer clean tries than CLEAN is a FAIL, not a SKIP: from
 * the read's time stamp to the end of the reset the engine makes no system
 * call, some hundred instructions against the read(2) that read_cost
 * measured, so a correct engine gets them on any machine; never getting
 * one means the sample is not stamped or read_cost is wrong.  A row
 * expecting a new sample takes 3 tries, and every one must sample: the
 * sample it starts from is at least read_cost old (or untimed) by then.
 * In every try of every row, a sample younger than read_cost after the
 * reset must have been reused, one at least read_cost old before it must
 * not have been.
 */
static void table(struct lope_group *g)
{
	static const char *const why[] = { "it had to sample again",
					   "it had to reuse the sample",
					   "the row's premise failed",
					   "a call failed" };
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct attempt t = { ~0ul, 0, 0, 0 },
			       least = { ~0ul, 0, 0, ~0ull };
		int try, m = -1, clean = 0, bad = 0;
		int tries = rows[i].reuse ? TRIES : 3;
		int want = rows[i].reuse ? CLEAN : 3;

		for (try = 0; try < tries && clean < want && !bad; try++) {
			/* start each try with no timed sample (a reset
			 * leaves none); no pause: the engine's code stays
			 * in the caches, as in a program's accum loop */
			if (lope_group__reset(g))
				break;
			t = reset_after(g, rows[i].read_first, rows[i].pause_ms,
					rows[i].resets);
			m = must_reuse(&t, g->read_cost);
			if (t.reads == ~0ul) {
				bad = 1;
				m = 3;
			} else if (t.reads > 1 || (m == 1 && t.reads != 0) ||
				   (m == 0 && t.reads != 1)) {
				bad = 1;
			} else if (!rows[i].reuse && m != 0) {
				bad = 1;
				m = 2;
			} else if (m == rows[i].reuse) {
				clean++;
			}
			if (t.snap_at && t.after < least.after)
				least = t;
		}
		if (least.snap_at)
			lope_info("%s: %d clean tries of %d; youngest sample "
				  "%llu ticks old after the reset, read_cost "
				  "%llu",
				  rows[i].name, clean, try,
				  (unsigned long long)least.after,
				  (unsigned long long)g->read_cost);
		if (bad)
			lope_fail(rows[i].name,
				  "row %d, try %d: %lu read(2) calls, but %s: "
				  "the sample was %llu ticks old before the "
				  "reset, %llu after (snap_at %llu), "
				  "read_cost %llu",
				  rows[i].line, try, t.reads,
				  m < 0 ? "-" : why[m],
				  (unsigned long long)t.before,
				  (unsigned long long)t.after,
				  (unsigned long long)t.snap_at,
				  (unsigned long long)g->read_cost);
		else
			lope_check(clean >= want, rows[i].name,
				   "row %d: %d clean tries of %d (want %d); "
				   "the youngest sample was %llu ticks old "
				   "after the reset, read_cost %llu",
				   rows[i].line, clean, try, want,
				   (unsigned long long)least.after,
				   (unsigned long long)g->read_cost);
	}
}

/*
 * read+reset intervals add up to the raw count: nothing falls between.
 * Each pair's value runs from the base the previous reset took to the
 * read's sample (lope_group__last_counts() after each call gives both, raw,
 * from the same kernel counter).  A pair whose sample was still younger
 * than read_cost just after its reset reused it: one read(2) for the pair,
 * and the next interval starts at the read's sample, so nothing falls
 * between.  A pair preempted or stolen from in between may sample again
 * (two read(2)); what then falls between its read and its reset is
 * measured, not bounded by a guess: the values and those gaps add up to
 * the raw count from the first base to the last, exactly.
 */
static void continuity(struct lope_group *g)
{
	struct lope_counts prev[SW_ATTRS], snap[SW_ATTRS], base[SW_ATTRS];
	int64_t v[SW_ATTRS], sum = 0, gaps = 0;
	uint64_t first, at, t1, calls = 0;
	unsigned long before, reads;
	char why[200] = "";
	int i, clean = 0, pairs = 0;

	/* a reset right after this sample starts the chain from it */
	if (lope_group__read_raw(g, snap) || lope_group__reset(g) ||
	    lope_group__last_counts(g, prev)) {
		lope_fail("continuity", "setup failed");
		return;
	}
	first = prev[0].val;
	for (i = 0; i < 50 && !why[0]; i++) {
		busy_ns(MS);
		before = nr_reads;
		if (lope_group__read(g, v) || lope_group__last_counts(g, snap))
			break;
		at = g->snap_at;
		if (lope_group__reset(g))
			break;
		t1 = lope_arch_cycles();
		reads = nr_reads - before;
		if (lope_group__last_counts(g, base))
			break;
		pairs++;
		calls += reads;
		if (v[0] != (int64_t)(snap[0].val - prev[0].val))
			snprintf(why, sizeof(why),
				 "pair %d: value %lld, its sample less the "
				 "base %lld",
				 i, (long long)v[0],
				 (long long)(snap[0].val - prev[0].val));
		if (at && t1 - at < g->read_cost) {
			clean++;
			if (reads != 1 || base[0].val != snap[0].val)
				snprintf(
					why, sizeof(why),
					"pair %d: sample %llu ticks old after "
					"the reset (read_cost %llu), yet %lu "
					"read(2) and the base %lld past it",
					i, (unsigned long long)(t1 - at),
					(unsigned long long)g->read_cost, reads,
					(long long)(base[0].val - snap[0].val));
		} else if (reads < 1 || reads > 2) {
			snprintf(why, sizeof(why), "pair %d: %lu read(2)", i,
				 reads);
		}
		gaps += (int64_t)(base[0].val - snap[0].val);
		sum += v[0];
		memcpy(prev, base, sizeof(prev));
	}
	if (pairs < 50 && !why[0])
		snprintf(why, sizeof(why), "pair %d: a call failed", pairs);
	lope_info("continuity: 50 read+reset pairs made %llu read(2) calls, "
		  "%d pairs clean, %lld ns between the intervals of the others",
		  (unsigned long long)calls, clean, (long long)gaps);
	lope_check(!why[0] && clean >= CLEAN,
		   "read_reset_pair_is_one_system_call",
		   "%s; %d clean pairs of %d, want %d",
		   why[0] ? why : "each pair as sampled", clean, pairs, CLEAN);
	lope_check(!why[0] && sum > 0 &&
			   (uint64_t)(sum + gaps) == prev[0].val - first,
		   "read_reset_intervals_lose_no_count",
		   "%s; sum %lld and %lld between the intervals, raw delta "
		   "%llu from the first base to the last",
		   why[0] ? why : "each pair as sampled", (long long)sum,
		   (long long)gaps, (unsigned long long)(prev[0].val - first));
}

int main(void)
{
	struct lope_group *g;

	counting = lope_sys_kernel;
	counting.read = counting_read;
	lope_sys__set(&counting);
	g = open_group();
	if (!g) {
		lope_fail("open", "cannot open three software events");
		return lope_done();
	}
	table(g);
	continuity(g);
	lope_group__delete(g);
	lope_sys__set(NULL);
	return lope_done();
}
