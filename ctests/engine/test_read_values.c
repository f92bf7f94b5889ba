/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The read(2) path's values, exactly, for groups of 1 to MAXEV software
 * events: group.c subtracts a group's bases two events at a time, the
 * last one alone when their number is odd, and one event's with no loop
 * (doc/read-path.md, "PAPI_read of many events below stock's").  A
 * system-call table whose read(2) gives chosen counts, in the kernel's
 * two layouts (PERF_FORMAT_GROUP's nr, enabled, running, values; one
 * event's value, enabled, running), checks that
 *   - after a reset, each value is its count less its base, a count that
 *     wrapped past 2^64 included, and nothing past the last event is
 *     written;
 *   - a stop's sample becomes the bases of the next start;
 *   - a read whose enabled less running time changed (multiplexed) is
 *     each event's interval scaled, as lope_scale() says.
 * The events themselves are opened, enabled and disabled by the kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

#include "attrs.h"
#include "lope.h"
#include "report.h"
#include "sys.h"

#define MAXEV 9
#define GUARD 0x5a5a5a5a5a5a5a5aLL /* in the value past the last event */

/* What the next read(2) of the group gives. */
static struct {
	int nr;
	uint64_t ena, run, val[MAXEV];
	int reads;
} k;

static ssize_t chosen_read(int fd, void *buf, size_t len)
{
	uint64_t *b = buf;

	(void)fd;
	k.reads++;
	if (k.nr > 1 && len == (3 + (size_t)k.nr) * sizeof(*b)) {
		b[0] = (uint64_t)k.nr;
		b[1] = k.ena;
		b[2] = k.run;
		memcpy(b + 3, k.val, (size_t)k.nr * sizeof(*b));
		return (ssize_t)len;
	}
	if (k.nr == 1 && len == 3 * sizeof(*b)) {
		b[0] = k.val[0];
		b[1] = k.ena;
		b[2] = k.run;
		return (ssize_t)len;
	}
	errno = EINVAL; /* not a read the engine makes */
	return -1;
}

/* The counts of the next read: event i's @base + (i + 1) * @step, the
 * enabled and running times @ena and @run. */
static void choose_counts(uint64_t base, uint64_t step, uint64_t ena,
			  uint64_t run)
{
	int i;

	for (i = 0; i < k.nr; i++)
		k.val[i] = base + (uint64_t)(i + 1) * step + (uint64_t)i;
	k.ena = ena;
	k.run = run;
}

/* Read @g and compare with @want[0 .. k.nr), the value past them kept. */
static void check_read(struct lope_group *g, const int64_t *want,
		       const char *what)
{
	int64_t v[MAXEV + 1];
	char name[96];
	int i, err, reads = k.reads;

	for (i = 0; i <= MAXEV; i++)
		v[i] = GUARD;
	err = lope_group__read(g, v);
	lope_name(name, sizeof(name), "%d_events_%s", k.nr, what);
	if (err || k.reads != reads + 1) {
		lope_fail(name, "read %d, %d read(2) (want 0, 1)", err,
			  k.reads - reads);
		return;
	}
	for (i = 0; i < k.nr; i++)
		if (v[i] != want[i]) {
			lope_fail(name, "event %d: %" PRId64 ", want %" PRId64,
				  i, v[i], want[i]);
			return;
		}
	for (i = k.nr; i <= MAXEV; i++)
		if (v[i] != GUARD) {
			lope_fail(name, "value %d past the last written", i);
			return;
		}
	lope_pass(name);
}

static void one_group(int nr)
{
	struct perf_event_attr a[SW_ATTRS];
	uint64_t base[MAXEV], stop[MAXEV];
	int64_t want[MAXEV], scratch[MAXEV];
	struct lope_group *g;
	char name[64];
	int i;

	sw_attrs(a, SW_ATTRS);
	lope_name(name, sizeof(name), "%d_events_open", nr);
	if (lope_group__new(&g, 0, -1, 0)) {
		lope_fail(name, "lope_group__new");
		return;
	}
	for (i = 0; i < nr; i++)
		if (lope_group__add(g, &a[i % SW_ATTRS]) < 0)
			break;
	if (i < nr || lope_group__open(g) || lope_group__enable(g)) {
		lope_fail(name, "cannot open and start %d software events", nr);
		lope_group__delete(g);
		return;
	}
	k.nr = nr;

	/* A reset's bases near 2^64, so that the next counts wrap. */
	choose_counts(UINT64_MAX - 100, 1, 1000, 1000);
	memcpy(base, k.val, sizeof(base));
	if (lope_group__reset(g)) {
		lope_fail(name, "reset");
		goto out;
	}
	choose_counts(UINT64_MAX - 100, 1000003, 2000, 2000);
	for (i = 0; i < nr; i++)
		want[i] = (int64_t)(k.val[i] - base[i]);
	check_read(g, want, "after_reset");
	choose_counts(5, 7777, 3000, 3000);
	for (i = 0; i < nr; i++)
		want[i] = (int64_t)(k.val[i] - base[i]);
	check_read(g, want, "counts_wrapped");

	/* The stop's sample, the bases of the next start. */
	choose_counts(1u << 20, 1u << 16, 4000, 4000);
	memcpy(stop, k.val, sizeof(stop));
	if (lope_group__disable(g, scratch) || lope_group__enable(g)) {
		lope_fail(name, "stop and start");
		goto out;
	}
	for (i = 0; i < nr && scratch[i] == (int64_t)(stop[i] - base[i]); i++)
		;
	lope_check(i == nr, lope_name(name, sizeof(name), "%d_events_stop", nr),
		   "event %d: %" PRId64 ", want %" PRId64, i,
		   i < nr ? scratch[i] : 0,
		   i < nr ? (int64_t)(stop[i] - base[i]) : 0);
	lope_name(name, sizeof(name), "%d_events_open", nr);
	choose_counts(1u << 21, 1u << 17, 4500, 4500);
	for (i = 0; i < nr; i++)
		want[i] = (int64_t)(k.val[i] - stop[i]);
	check_read(g, want, "after_restart");

	/* Enabled 1000 more, running 600: each interval scaled. */
	choose_counts(1u << 22, 3000, 5000, 4600);
	for (i = 0; i < nr; i++)
		want[i] = (int64_t)lope_scale(k.val[i] - stop[i], 1000, 600);
	check_read(g, want, "multiplexed");
	lope_pass(name);
out:
	lope_group__delete(g);
}

int main(void)
{
	struct lopelib_sys chosen = lopelib_sys_kernel;
	int nr;

	chosen.read = chosen_read;
	lopelib_sys__set(&chosen);
	for (nr = 1; nr <= MAXEV; nr++)
		one_group(nr);
	lopelib_sys__set(NULL);
	return lope_done();
}
