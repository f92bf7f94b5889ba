/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reset rule: a reset takes the sample of the read just before it
 * (one system call for PAPI_accum and the read-then-reset pair) only when
 * no other verb came between them and the reset comes within one system
 * call of the group after it (its window); an older sample is never
 * reused, a sample serves one reset only, the first read after open
 * qualifies like any other, and no count is lost between the intervals.
 * Counted on real software events through a counting system-call table.
 *
 * The engine (group.c, reusable()) stamps the end of each read with
 * lopelib_arch_cycles() (g->read_end), times the leader's open
 * (g->window), and reuses when its own clock, read in the reset, is less
 * than the window past read_end.  Whether it is depends on the scheduler,
 * so every try measures it with the same clock: the read's stamp, the
 * window and the clock just before and just after the reset.  A try that
 * expects reuse counts only when even the clock just after the reset was
 * within the window (the engine looked in between, so it must have
 * reused); a try that expects a new sample, only when the clock just
 * before the reset was already past it, or a verb came between.  Both
 * outcomes are then certain, and a wrong one is the engine's error.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "attrs.h"
#include "clock.h"
#include "group_layout.h"
#include "lope.h"
#include "lope_arch.h"
#include "report.h"
#include "sys.h"

/* Tries a row expecting reuse makes to find CLEAN ones (see table()). */
#define CLEAN 3
#define TRIES 1000
/* Groups opened to find CLEAN first reads that qualify (first_read()). */
#define OPENS 200

static unsigned long nr_reads;

static ssize_t counting_read(int fd, void *buf, size_t len)
{
	nr_reads++;
	return lopelib_sys_kernel.read(fd, buf, len);
}

static struct lopelib_sys counting;

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

/* What may come between the read and the reset. */
enum between { NOTHING, RESET, WRITE, RESTART };

static int verb_between(struct lope_group *g, enum between b, const int64_t *v)
{
	switch (b) {
	case RESET:
		return lope_group__reset(g);
	case WRITE:
		return lope_group__write(g, v);
	case RESTART:
		return lope_group__disable_after_read(g) ||
		       lope_group__enable(g);
	case NOTHING:
		break;
	}
	return 0;
}

/* One reset and the clock around it and around the read before it. */
struct attempt {
	unsigned long reads; /* read(2) calls the reset made; ~0: failed */
	int read;            /* a read came before (and these are its) */
	uint64_t end, win;   /* g->read_end after the read, g->window */
	uint64_t before;     /* the clock just before the reset */
	uint64_t after;      /* and just after */
};

/* The reset, timed, after @read_first, @pause_ms and the verb @b. */
static struct attempt reset_after(struct lope_group *g, int read_first,
				  long pause_ms, enum between b)
{
	struct attempt t = { ~0ul, read_first, 0, 0, 0, 0 };
	unsigned long before;
	int64_t v[SW_ATTRS];

	if (read_first && lope_group__read(g, v))
		return t;
	t.end = g->read_end;
	t.win = g->window;
	if (pause_ms)
		sleep_ns(pause_ms * MS);
	if (verb_between(g, b, v))
		return t;
	before = nr_reads;
	t.before = lopelib_arch_cycles();
	if (lope_group__reset(g))
		return t;
	t.after = lopelib_arch_cycles();
	t.reads = nr_reads - before;
	return t;
}

/* The window after the read, by the engine's clock; 0: none to reuse. */
static uint64_t window(const struct attempt *t)
{
	return t->read && t->end ? t->win : 0;
}

/*
 * Must @t have reused the sample (1), taken a new one (0), or either?
 * @order: no verb came between the read and the reset.
 */
static int must_reuse(const struct attempt *t, int order)
{
	uint64_t len = window(t);

	if (!order || !len)
		return 0;
	if (t->after - t->end < len)
		return 1;
	if (t->before - t->end >= len)
		return 0;
	return -1;
}

static const struct {
	int line;
	const char *name;
	int read_first;
	long pause_ms;
	enum between between;
	int reuse;
} rows[] = {
	{ __LINE__, "reset_right_after_a_read_reuses_it", 1, 0, NOTHING, 1 },
	{ __LINE__, "reset_20_ms_after_a_read_samples_again", 1, 20, NOTHING,
	  0 },
	{ __LINE__, "second_reset_after_one_read_samples_again", 1, 0, RESET,
	  0 },
	{ __LINE__, "reset_after_a_read_and_a_write_samples_again", 1, 0, WRITE,
	  0 },
	{ __LINE__, "reset_after_a_read_a_stop_and_a_start_samples_again", 1, 0,
	  RESTART, 0 },
	{ __LINE__, "reset_without_a_read_samples", 0, 0, NOTHING, 0 },
};

static const char *const why[] = { "it had to sample again",
				   "it had to reuse the sample",
				   "the row's premise failed",
				   "a call failed" };

/*
 * Judge try @t of a row wanting @reuse with @order; 1: clean (counts
 * towards the row), 0: proves nothing, -1: wrong, *@m then says why.
 */
static int judge(const struct attempt *t, int order, int reuse, int *m)
{
	*m = must_reuse(t, order);
	if (t->reads == ~0ul) {
		*m = 3;
		return -1;
	}
	if (t->reads > 1 || (*m == 1 && t->reads != 0) ||
	    (*m == 0 && t->reads != 1))
		return -1;
	if (!reuse && *m != 0) {
		*m = 2;
		return -1;
	}
	return *m == reuse;
}

static void report_row(int line, const char *name, const struct attempt *t,
		       int m, int bad, int clean, int tries, int want)
{
	if (bad)
		lope_fail(name,
			  "row %d, try %d: %lu read(2) calls, but %s: the "
			  "window is %llu ticks, the reset began %llu and "
			  "ended %llu ticks after the read",
			  line, tries, t->reads, m < 0 ? "-" : why[m],
			  (unsigned long long)window(t),
			  (unsigned long long)(t->before - t->end),
			  (unsigned long long)(t->after - t->end));
	else
		lope_check(clean >= want, name,
			   "row %d: %d clean tries of %d (want %d); the "
			   "window is %llu ticks, the last reset ended %llu "
			   "after its read",
			   line, clean, tries, want,
			   (unsigned long long)window(t),
			   (unsigned long long)(t->after - t->end));
}

/*
 * A row expecting reuse needs CLEAN tries that ended the reset within the
 * window, each with no read(2); a try preempted or stolen from in between
 * proves nothing either way and is taken again, up to TRIES.  Fewer clean
 * tries than CLEAN is a FAIL, not a SKIP: from the read's end to the end
 * of the reset the engine makes no system call, some hundred instructions
 * against the open it timed, so a correct engine gets them on any
 * machine; never getting one means the read is not stamped or the rule is
 * wrong.  A row expecting a new sample takes 3 tries, and every one must
 * sample: a verb came between, or the reset began after the window had
 * passed.  In every try of every row, a reset that ended within the
 * window with nothing between must have reused, one that began after it
 * must not have.
 */
static void table(struct lope_group *g)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct attempt t = { ~0ul, 0, 0, 0, 0, 0 };
		int try, m = -1, clean = 0, bad = 0, r;
		int tries = rows[i].reuse ? TRIES : 3;
		int want = rows[i].reuse ? CLEAN : 3;

		for (try = 0; try < tries && clean < want && !bad; try++) {
			/* start each try with no read to reuse (a reset
			 * forgets it); no pause: the engine's code stays
			 * in the caches, as in a program's accum loop */
			if (lope_group__reset(g))
				break;
			t = reset_after(g, rows[i].read_first, rows[i].pause_ms,
					rows[i].between);
			r = judge(&t, rows[i].between == NOTHING, rows[i].reuse,
				  &m);
			bad = r < 0;
			clean += r > 0;
		}
		report_row(rows[i].line, rows[i].name, &t, m, bad, clean, try,
			   want);
	}
}

/*
 * The first read after open qualifies like any other: no warm-up, and
 * no system call of its own to time.  Each try opens and enables a group,
 * reads once and resets; CLEAN of them must end the reset within the
 * window, and every such one must have reused it.
 */
static void first_read(void)
{
	struct attempt t = { ~0ul, 0, 0, 0, 0, 0 };
	int try, m = -1, clean = 0, bad = 0, r;
	unsigned long at_open, open_reads = 0;

	for (try = 0; try < OPENS && clean < CLEAN && !bad; try++) {
		struct lope_group *g;

		at_open = nr_reads;
		g = open_group();
		open_reads += nr_reads - at_open;
		if (!g) {
			t.reads = ~0ul;
			bad = 1;
			m = 3;
			break;
		}
		t = reset_after(g, 1, 0, NOTHING);
		r = judge(&t, 1, 1, &m);
		bad = r < 0;
		clean += r > 0;
		lope_group__delete(g);
	}
	lope_check(open_reads == 0, "open_and_enable_make_no_read",
		   "%lu read(2) calls in %d opens and enables", open_reads,
		   try);
	report_row(__LINE__, "first_read_after_open_qualifies", &t, m, bad,
		   clean, try, CLEAN);
}

/*
 * read+reset intervals add up to the raw count: nothing falls between.
 * Each pair's value runs from the base the previous reset took to the
 * read's sample (lope_group__last_counts() after each call gives both, raw,
 * from the same kernel counter).  A pair whose reset ended within the
 * window after its read reused the read's sample: one read(2) for the pair,
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
	uint64_t first, end, t1, calls = 0;
	unsigned long before, reads;
	char why_not[200] = "";
	int i, clean = 0, pairs = 0;

	/* a reset right after this sample starts the chain from it */
	if (lope_group__read_raw(g, snap) || lope_group__reset(g) ||
	    lope_group__last_counts(g, prev)) {
		lope_fail("continuity", "setup failed");
		return;
	}
	first = prev[0].val;
	for (i = 0; i < 50 && !why_not[0]; i++) {
		busy_ns(MS);
		before = nr_reads;
		if (lope_group__read(g, v) || lope_group__last_counts(g, snap))
			break;
		end = g->read_end;
		if (lope_group__reset(g))
			break;
		t1 = lopelib_arch_cycles();
		reads = nr_reads - before;
		if (lope_group__last_counts(g, base))
			break;
		pairs++;
		calls += reads;
		if (v[0] != (int64_t)(snap[0].val - prev[0].val))
			snprintf(why_not, sizeof(why_not),
				 "pair %d: value %lld, its sample less the "
				 "base %lld",
				 i, (long long)v[0],
				 (long long)(snap[0].val - prev[0].val));
		if (end && t1 - end < g->window) {
			clean++;
			if (reads != 1 || base[0].val != snap[0].val)
				snprintf(
					why_not, sizeof(why_not),
					"pair %d: the reset ended %llu ticks "
					"after the read, window %llu, yet %lu "
					"read(2) and the base %lld past it",
					i, (unsigned long long)(t1 - end),
					(unsigned long long)g->window, reads,
					(long long)(base[0].val - snap[0].val));
		} else if (reads < 1 || reads > 2) {
			snprintf(why_not, sizeof(why_not),
				 "pair %d: %lu read(2)", i, reads);
		}
		gaps += (int64_t)(base[0].val - snap[0].val);
		sum += v[0];
		memcpy(prev, base, sizeof(prev));
	}
	if (pairs < 50 && !why_not[0])
		snprintf(why_not, sizeof(why_not), "pair %d: a call failed",
			 pairs);
	lope_info("continuity: 50 read+reset pairs made %llu read(2) calls, "
		  "%d pairs clean, %lld ns between the intervals of the others",
		  (unsigned long long)calls, clean, (long long)gaps);
	lope_check(!why_not[0] && clean >= CLEAN,
		   "read_reset_pair_is_one_system_call",
		   "%s; %d clean pairs of %d, want %d",
		   why_not[0] ? why_not : "each pair as sampled", clean, pairs,
		   CLEAN);
	lope_check(!why_not[0] && sum > 0 &&
			   (uint64_t)(sum + gaps) == prev[0].val - first,
		   "read_reset_intervals_lose_no_count",
		   "%s; sum %lld and %lld between the intervals, raw delta "
		   "%llu from the first base to the last",
		   why_not[0] ? why_not : "each pair as sampled",
		   (long long)sum, (long long)gaps,
		   (unsigned long long)(prev[0].val - first));
}

/*
 * A user-space group (hardware instructions, read with rdpmc or mrs):
 * its reads make no system call, and its window is its leader's open too
 * (g->window).  Whether a reset reused the read's sample
 * shows in the base: the read's count then, a later count otherwise (the
 * counter counts this thread's instructions in between).  As above, a
 * try counts only when the clock makes its outcome certain: the reset
 * ended within the window (it must have reused) or began after it (it
 * must not have); and never a system call.
 */
/*
 * Must a user-space group's reset at @before..@after have reused the read
 * that ended at @end (1), sampled again (0), or either (-1)?  @order: no
 * verb came between.
 */
static int user_must(const struct lope_group *g, int order, uint64_t end,
		     uint64_t before, uint64_t after)
{
	uint64_t win = g->window;

	if (!order || !end)
		return 0;
	if (after - end < win)
		return 1;
	return before - end >= win ? 0 : -1;
}

static void user_rows(void)
{
	static const struct {
		const char *name;
		long pause_ms;
		enum between between;
		int reuse;
	} urows[] = {
		{ "user_reset_right_after_a_read_reuses_it", 0, NOTHING, 1 },
		{ "user_reset_20_ms_after_a_read_samples_again", 20, NOTHING,
		  0 },
		{ "user_second_reset_after_one_read_samples_again", 0, RESET,
		  0 },
	};
	struct perf_event_attr attr;
	struct lope_group *g = NULL;
	size_t i;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	if (lope_group__new(&g, 0, -1, 0) || lope_group__add(g, &attr) < 0 ||
	    lope_group__open(g) || lope_group__enable(g) ||
	    g->sampler != LOPE_SAMPLE_USER) {
		lope_skip("user_reset_rows",
			  "no user-space read of hardware instructions here");
		lope_group__delete(g);
		return;
	}
	for (i = 0; i < sizeof(urows) / sizeof(urows[0]); i++) {
		int try, clean = 0, bad = 0, tries = urows[i].reuse ? TRIES : 3;
		int want = urows[i].reuse ? CLEAN : 3, must = -1;
		uint64_t end = 0, before = 0, after = 0, at_read = 0, base = 0;
		unsigned long reads = 0;
		int64_t v[1];

		for (try = 0; try < tries && clean < want && !bad; try++) {
			unsigned long r0 = nr_reads;

			if (lope_group__reset(g) || lope_group__read(g, v))
				break;
			end = g->read_end;
			at_read = g->ev[0].sample.val;
			if (urows[i].pause_ms)
				sleep_ns(urows[i].pause_ms * MS);
			if (verb_between(g, urows[i].between, v))
				break;
			before = lopelib_arch_cycles();
			if (lope_group__reset(g))
				break;
			after = lopelib_arch_cycles();
			base = g->ev[0].base.val;
			reads = nr_reads - r0;
			must = user_must(g, urows[i].between == NOTHING, end,
					 before, after);
			bad = reads != 0 ||
			      (must >= 0 && (base == at_read) != must) ||
			      (!urows[i].reuse && must != 0);
			clean += !bad && must == urows[i].reuse;
		}
		lope_check(!bad && clean >= want, urows[i].name,
			   "%d clean tries of %d (want %d); the last: %lu "
			   "system calls, the base %s the read's count, the "
			   "reset began %llu and ended %llu ticks after the "
			   "read, the window %llu ticks",
			   clean, try, want, reads,
			   base == at_read ? "is" : "is not",
			   (unsigned long long)(before - end),
			   (unsigned long long)(after - end),
			   (unsigned long long)g->window);
	}
	lope_group__delete(g);
}

int main(void)
{
	struct lope_group *g;

	counting = lopelib_sys_kernel;
	counting.read = counting_read;
	lopelib_sys__set(&counting);
	g = open_group();
	if (!g) {
		lope_fail("open", "cannot open three software events");
		return lope_done();
	}
	table(g);
	continuity(g);
	lope_group__delete(g);
	first_read();
	user_rows();
	lopelib_sys__set(NULL);
	return lope_done();
}
