/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A reset right after a read reuses that read's sample (one system call
 * for PAPI_accum and the read-then-reset pair), an older sample is never
 * reused, a sample serves one reset only, and no count is lost between
 * the intervals.  Counted on real software events through a counting
 * system-call table.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>

#include "attrs.h"
#include "clock.h"
#include "lope.h"
#include "sys.h"
#include "report.h"

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

/* Reads (system calls) one reset makes after the given preparation. */
static unsigned long reads_of_reset(struct lope_group *g, int read_first,
				    long pause_ms, int resets)
{
	int64_t v[3];
	unsigned long before;
	int i;

	if (read_first && lope_group__read(g, v))
		return ~0ul;
	if (pause_ms)
		sleep_ns(pause_ms * MS);
	for (i = 0; i < resets - 1; i++)
		if (lope_group__reset(g))
			return ~0ul;
	before = nr_reads;
	if (lope_group__reset(g))
		return ~0ul;
	return nr_reads - before;
}

static const struct {
	int line;
	const char *name;
	int read_first;
	long pause_ms;
	int resets;
	unsigned long expect_reads;
} rows[] = {
	{ __LINE__, "reset_right_after_a_read_reuses_it", 1, 0, 1, 0 },
	{ __LINE__, "reset_20_ms_after_a_read_samples_again", 1, 20, 1, 1 },
	{ __LINE__, "second_reset_after_one_read_samples_again", 1, 0, 2, 1 },
	{ __LINE__, "reset_without_a_read_samples", 0, 0, 1, 1 },
};

/*
 * Reuse depends on time: a preemption between the read and the reset makes
 * the sample too old, and the reset then (rightly) samples again.  So a row
 * that expects reuse passes if one of a few tries reuses; a row that
 * expects a new sample must get one every time: reusing an old sample
 * would be the error.
 */
static void table(struct lope_group *g)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned long got = ~0ul;
		int try, tries = rows[i].expect_reads ? 3 : 5;

		for (try = 0; try < tries; try++) {
			/* start each try with no recent sample */
			if (lope_group__reset(g))
				break;
			sleep_ns(5 * MS);
			got = reads_of_reset(g, rows[i].read_first,
					     rows[i].pause_ms, rows[i].resets);
			if (rows[i].expect_reads ? got != rows[i].expect_reads :
						   got == 0)
				break;
		}
		lope_check(got == rows[i].expect_reads, rows[i].name,
			   "row %d: %lu read(2) calls, expected %lu (try %d)",
			   rows[i].line, got, rows[i].expect_reads, try + 1);
	}
}

/* read+reset intervals add up to the raw count: nothing falls between. */
static void continuity(struct lope_group *g)
{
	struct lope_counts c0[3], c1[3];
	int64_t v[3];
	int64_t sum = 0;
	unsigned long before;
	int i, ok = 1;

	/* a reset right after this sample starts the chain from it */
	if (lope_group__read_raw(g, c0) || lope_group__reset(g)) {
		lope_fail("continuity", "setup failed");
		return;
	}
	before = nr_reads;
	for (i = 0; i < 50; i++) {
		busy_ns(MS);
		if (lope_group__read(g, v) || lope_group__reset(g)) {
			ok = 0;
			break;
		}
		sum += v[0];
	}
	if (!ok || lope_group__read_raw(g, c1)) {
		lope_fail("continuity", "read failed");
		return;
	}
	lope_info("continuity: 50 read+reset pairs made %lu read(2) calls",
		  nr_reads - before - 1);
	/* a preempted pair samples twice, rightly: most must not */
	lope_check(nr_reads - before - 1 < 75,
		   "read_reset_pair_is_one_system_call",
		   "%lu calls for 50 pairs", nr_reads - before - 1);
	/* the sum runs from c0 to the last read; c1 is one read later */
	lope_check(sum > 0 && (uint64_t)sum <= c1[0].val - c0[0].val &&
			   c1[0].val - c0[0].val - (uint64_t)sum < 1000000,
		   "read_reset_intervals_lose_no_count",
		   "sum %lld, raw delta %llu", (long long)sum,
		   (unsigned long long)(c1[0].val - c0[0].val));
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
