/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A group's sample: its counts now, from the events' pages in user space
 * or by read(2), into each event's sample (or the group's buffer); and
 * the values from any sample, scaled (lope_scale()).  The measured calls'
 * common cases, in group.c, read and subtract for themselves, inline, and
 * come here for everything else; the bases are group.c's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>

#include "group_layout.h"
#include "mmap_read.h"
#include "sample.h"
#include "sys.h"

/* A read(2) that did not return @len bytes: retry on EINTR, else fail. */
__attribute__((noinline)) int lopelib_group__read_again(int fd, void *buf,
							size_t len, ssize_t n)
{
	while (n < 0 && errno == EINTR)
		n = lopelib_sys->read(fd, buf, len);
	if (n < 0)
		return errno ? -errno : -EIO;
	return (size_t)n == len ? 0 : -EIO;
}

/* One read(2) of exactly @len bytes: 0 or -errno. */
static inline int read_exact(int fd, void *buf, size_t len)
{
	ssize_t n = lopelib_sys->read(fd, buf, len);

	if (__builtin_expect((size_t)n == len, 1))
		return 0;
	return lopelib_group__read_again(fd, buf, len, n);
}

/*
 * One read(2) of the leader with PERF_FORMAT_GROUP into g->buf; a
 * user-space group's sample is per event, so it goes on to each sample.
 */
static int read_grouped(struct lope_group *g)
{
	int i, err = read_exact(g->ev[0].fd, g->buf,
				(size_t)(3 + g->nr) * sizeof(uint64_t));

	if (err || g->sampler == LOPE_SAMPLE_GROUP)
		return err;
	for (i = 0; i < g->nr; i++) {
		g->ev[i].sample.val = g->buf[3 + i];
		g->ev[i].sample.ena = g->buf[1];
		g->ev[i].sample.run = g->buf[2];
	}
	return 0;
}

/* One read(2) per event into its sample: value, ena, run. */
static int read_each(struct lope_group *g)
{
	int i, err;

	for (i = 0; i < g->nr; i++) {
		err = read_exact(g->ev[i].fd, &g->ev[i].sample,
				 sizeof(g->ev[i].sample));
		if (err)
			return err;
	}
	return 0;
}

static int read_kernel(struct lope_group *g)
{
	return g->grouped ? read_grouped(g) : read_each(g);
}

/*
 * Every event in user space, or none: the values stay one sample.  While
 * the set runs, an event the kernel multiplexed off the PMU is read from
 * its page too; but if none is on a counter, nothing says the kernel
 * still lets us read them (an Arm perf_user_access turned off while the
 * set counts also gives index 0), and read(2) decides.
 */
static int read_user(struct lope_group *g)
{
	int i, r, on = 0;
	bool running = g->running;

	if (lopelib_gettid() != g->owner)
		return -EOPNOTSUPP;
	for (i = 0; i < g->nr; i++) {
		struct lope_event *e = &g->ev[i];

		r = running ? lopelib_mmap__read_enabled(e->page,
							 &lopelib_hw_reader,
							 &e->sample, NULL) :
			      lopelib_mmap__read(e->page, &lopelib_hw_reader,
						 &e->sample, NULL);
		if (r < 0)
			return -EOPNOTSUPP;
		on += r == 0;
	}
	/* A core type's part while the thread is on another: the kernel
	 * took them all off their counters as it left. */
	if (!on && !(g->split && g->split->off(g)))
		return -EOPNOTSUPP;
	return 0;
}

/*
 * A new sample: in user space where it works, else read(2).  @timed: a
 * read's, which a reset right after may take as its bases (the reset
 * rule, lope_group__reset()): a read(2) group's read(2) is stamped by the
 * clock when it returns.  Only the user-space common case stamps its read
 * (read_user_values()); a user-space sample here is not stamped.
 */
int lopelib_group__sample(struct lope_group *g, bool timed)
{
	int err;

	lopelib_group__forget_read(g);
	if (g->sampler == LOPE_SAMPLE_USER) {
		if (read_user(g) == 0) {
			g->last = LOPE_PATH_RDPMC;
			return 0;
		}
		timed = false;
	}
	err = read_kernel(g);
	if (__builtin_expect(err, 0)) {
		/* It may have left half a sample behind: none. */
		g->last = LOPE_PATH_NONE;
		return err;
	}
	if (timed)
		lopelib_arch_cycles_to(&g->read_end);
	g->last = LOPE_PATH_READ;
	return 0;
}

uint64_t lope_scale(uint64_t val, uint64_t ena, uint64_t run)
{
	unsigned __int128 q;

	if (run == 0 || ena == run)
		return val;
	q = (unsigned __int128)val * ena / run;
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* Any value: each event's own interval, scaled where the kernel multiplexed. */
void lopelib_group__values(const struct lope_group *g, int64_t *values)
{
	int i;

	for (i = 0; i < g->nr; i++) {
		struct lope_counts c = lopelib_group__sample_of(g, i),
				   b = lopelib_group__base_of(g, i);

		values[i] = (int64_t)lopelib_scaled(c.val - b.val,
						    c.ena - b.ena,
						    c.run - b.run) +
			    g->ev[i].offset;
	}
}
