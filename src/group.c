/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An event group's measured calls: enable/disable, read with rdpmc or
 * read(2), and per-event bases that make reset, write and restart free of
 * system calls.  Building and opening the group is in open.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/perf_event.h>

#include "group.h"
#include "mmap_read.h"
#include "sys.h"

static int settle(struct lope_group *g);

/* A read(2) that did not return @len bytes: retry on EINTR, else fail. */
static __attribute__((noinline)) ssize_t read_again(int fd, void *buf,
						    size_t len, ssize_t n)
{
	while (n < 0 && errno == EINTR)
		n = lope_sys->read(fd, buf, len);
	if (n < 0)
		return errno ? -errno : -EIO;
	return (size_t)n == len ? 0 : -EIO;
}

/* One read(2) of exactly @len bytes: 0 or -errno. */
static inline int read_exact(int fd, void *buf, size_t len)
{
	ssize_t n = lope_sys->read(fd, buf, len);

	if (__builtin_expect((size_t)n == len, 1))
		return 0;
	return (int)read_again(fd, buf, len, n);
}

/* One read(2) of the leader with PERF_FORMAT_GROUP into g->buf. */
static inline __attribute__((always_inline)) int
read_grouped(struct lope_group *g)
{
	int err = read_exact(g->ev[0].fd, g->buf,
			     (size_t)(3 + g->nr) * sizeof(uint64_t));

	if (!err)
		g->snap = LOPE_SNAP_BUF;
	return err;
}

/* One read(2) per event into g->cur: value, ena, run. */
static int read_each(struct lope_group *g)
{
	int i, err;

	for (i = 0; i < g->nr; i++) {
		err = read_exact(g->ev[i].fd, &g->cur[i], sizeof(g->cur[i]));
		if (err)
			return err;
	}
	g->snap = LOPE_SNAP_CUR;
	return 0;
}

/*
 * Every event in user space, or none: the values stay one sample.  While
 * the set runs, an event the kernel multiplexed off the PMU is read from
 * its page too; but if none is on a counter, nothing says the kernel
 * still lets us read them (an Arm perf_user_access turned off while the
 * set counts also gives index 0), and read(2) decides.
 */
static inline __attribute__((always_inline)) int
read_user_into(struct lope_group *g, int64_t *restrict values, bool *slow)
{
	struct lope_counts *restrict c = g->cur;
	const uint64_t *restrict bval = g->bval;
	int i, r, on = 0, nr = g->nr;
	bool running = g->running;

	g->snap = LOPE_SNAP_NONE;
	if (lope_gettid() != g->owner)
		return -EOPNOTSUPP;
	for (i = 0; i < nr; i++) {
		r = running ? lope_mmap__read_enabled(g->ev[i].page,
						      &lope_hw_reader, &c[i],
						      NULL) :
			      lope_mmap__read(g->ev[i].page, &lope_hw_reader,
					      &c[i], NULL);
		if (r < 0)
			return -EOPNOTSUPP;
		on += r == 0;
		if (values) {
			*slow |= c[i].ena - g->bena[i] != c[i].run - g->brun[i];
			values[i] = (int64_t)(c[i].val - bval[i]);
		}
	}
	/* A core type's part while the thread is on another: the kernel
	 * took them all off their counters as it left. */
	if (!on && !lope_parts__off(g))
		return -EOPNOTSUPP;
	g->snap = LOPE_SNAP_CUR;
	return 0;
}

/*
 * The common case of a user-space read, in one pass: every event on its
 * counter and its enabled time equal to its running time, nothing
 * written.  An event's enabled time less its running time never shrinks,
 * so such an event had them equal at its base too: its value is its count
 * less its base, unscaled.  false: anything else, which read_user_into()
 * reads (it rewrites g->cur).
 */
static inline __attribute__((always_inline)) bool
read_user_plain(struct lope_group *g, int64_t *restrict values)
{
	const struct lope_event *e = g->ev, *end = e + g->nr;
	struct lope_counts *restrict c = g->cur;
	const uint64_t *restrict bval = g->bval;

	do { /* an open group has an event */
		if (!lope_mmap__read_plain(e->page, &lope_hw_reader, c))
			return false;
		*values = (int64_t)(c->val - *bval);
		e++, c++, bval++, values++;
	} while (e < end);
	return true;
}

/* A sample in user space into g->cur, or -EOPNOTSUPP. */
static int read_user(struct lope_group *g)
{
	return read_user_into(g, NULL, NULL);
}

static inline __attribute__((always_inline)) int
read_kernel(struct lope_group *g)
{
	return g->grouped ? read_grouped(g) : read_each(g);
}

/*
 * How long one read(2) of this group takes, at setup time where it costs
 * nothing measured: the shortest of a few, so a preempted one does not
 * count.  0 (never reuse a sample) if the clock or the reads fail.
 */
uint64_t lope_group__read_cost(struct lope_group *g)
{
	uint64_t best = 0, t0, t;
	int i;

	for (i = 0; i < 3; i++) {
		t0 = lope_arch_cycles();
		if (read_kernel(g))
			return 0;
		t = lope_arch_cycles() - t0;
		if (i == 0 || t < best)
			best = t;
	}
	g->snap = LOPE_SNAP_NONE; /* taken before any enable */
	return best;
}

/* A new sample: rdpmc where it works, else read(2).  Sets g->snap. */
static inline __attribute__((always_inline)) int sample(struct lope_group *g)
{
	int err;

	if (g->user_read && read_user(g) == 0) {
		g->last = LOPE_PATH_RDPMC;
	} else {
		err = read_kernel(g);
		if (__builtin_expect(err, 0)) {
			/* It may have left half a sample behind: none. */
			g->snap = LOPE_SNAP_NONE;
			g->snap_at = 0;
			return err;
		}
		g->last = LOPE_PATH_READ;
	}
	/* One clock read per sample: only sets that reset pay it (and
	 * until the first reset snap_at stays 0). */
	if (g->stamp_reads)
		g->snap_at = lope_arch_cycles();
	return 0;
}

/*
 * Is the latest sample recent enough for a reset to start its interval
 * there?  A read(2) samples the counters somewhere inside a system call
 * that lasts read_cost, so a sample less than that old is as close to now
 * as a new read(2) could give.  A reset that follows a read within that
 * time, on either path, continues where the read ended: PAPI_accum and
 * the read-then-reset pair (TAU, Caliper) take one sample, and what the
 * counters add between the two calls goes to the next interval instead
 * of nowhere.
 */
static bool fresh(const struct lope_group *g)
{
	return g->snap_at && lope_arch_cycles() - g->snap_at < g->read_cost;
}

static int check_open(const struct lope_group *g)
{
	if (!g)
		return -EINVAL;
	return lope_group__is_open(g) ? 0 : -EBADF;
}

/* check_open(), and the bases in place: before a new sample or their use. */
static inline __attribute__((always_inline)) int
check_ready(struct lope_group *g)
{
	if (__builtin_expect(!g, 0))
		return -EINVAL;
	return __builtin_expect(g->ready, 1) ? 0 : settle(g);
}

/* The latest sample's raw counts of event @i. */
static struct lope_counts snap_counts(const struct lope_group *g, int i)
{
	struct lope_counts c;

	if (g->snap == LOPE_SNAP_CUR)
		return g->cur[i];
	c.val = g->buf[3 + i];
	c.ena = g->buf[1];
	c.run = g->buf[2];
	return c;
}

static void copy_snap(const struct lope_group *g, struct lope_counts *c)
{
	int i;

	for (i = 0; i < g->nr; i++)
		c[i] = snap_counts(g, i);
}

int lope_group__read_raw(struct lope_group *g, struct lope_counts *c)
{
	int err = check_ready(g);

	if (!err && !c)
		err = -EINVAL;
	if (err == LOPE_SPLIT)
		return c ? lope_parts__counts(g, c, false) : -EINVAL;
	if (!err)
		err = sample(g);
	if (!err)
		copy_snap(g, c);
	return err;
}

int lope_group__last_counts(const struct lope_group *g, struct lope_counts *c)
{
	int err = check_open(g);

	if (!err && !c)
		err = -EINVAL;
	if (!err && g->parts)
		return lope_parts__counts((struct lope_group *)g, c, true);
	if (!err && g->snap == LOPE_SNAP_NONE)
		err = -ENODATA;
	if (!err)
		copy_snap(g, c);
	return err;
}

uint64_t lope_scale(uint64_t val, uint64_t ena, uint64_t run)
{
	unsigned __int128 q;

	if (run == 0 || ena == run)
		return val;
	q = (unsigned __int128)val * ena / run;
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* Scaling, and the guards that keep a value from going negative. */
static uint64_t scaled(uint64_t d, uint64_t ena, uint64_t run)
{
	if ((int64_t)d < 0) /* never report a negative count */
		d = 0;
	if (ena != run)
		d = lope_scale(d, ena, run);
	return d > INT64_MAX ? INT64_MAX : d; /* nor wrap a wild ratio */
}

/* Any value: each event's own interval, scaled where the kernel multiplexed. */
static __attribute__((noinline)) void values_slow(const struct lope_group *g,
						  int64_t *values)
{
	int i;

	for (i = 0; i < g->nr; i++) {
		struct lope_counts c = snap_counts(g, i);

		values[i] = (int64_t)scaled(c.val - g->bval[i],
					    c.ena - g->bena[i],
					    c.run - g->brun[i]) +
			    g->wr[i];
	}
}

/*
 * The values of the latest sample relative to the bases.  The common case
 * takes a few instructions an event: one group's read(2) that the kernel
 * did not multiplex (one enabled and running time for the group, exact
 * counts that never fall below their bases), or per-event counts that ran
 * all their interval; everything else, and a PAPI_write's offsets, go to
 * values_slow().  restrict: the stores to @values must not force reloads
 * of the bases.
 */
static inline __attribute__((always_inline)) void
values_of(const struct lope_group *g, int64_t *restrict values)
{
	const uint64_t *restrict bval = g->bval;
	const uint64_t *restrict b = g->buf;
	const struct lope_counts *restrict cur = g->cur;
	int i, nr = g->nr;
	int64_t d;

	if (__builtin_expect(g->written, 0))
		goto slow;
	if (g->snap == LOPE_SNAP_BUF) {
		if (__builtin_expect(b[1] - b[2] != g->bgap0, 0))
			goto slow;
		for (i = 0; i < nr; i++)
			values[i] = (int64_t)(b[3 + i] - bval[i]);
		return;
	}
	for (i = 0; i < nr; i++) {
		if (__builtin_expect(cur[i].ena - g->bena[i] !=
					     cur[i].run - g->brun[i],
				     0))
			goto slow;
		d = (int64_t)(cur[i].val - bval[i]);
		values[i] = d < 0 ? 0 : d;
	}
	return;
slow:
	values_slow(g, values);
}

/* lope_group__read() in general: any path, any values. */
static __attribute__((noinline)) int read_any(struct lope_group *g,
					      int64_t *values)
{
	int err = sample(g);

	if (!err)
		values_of(g, values);
	return err;
}

/* The bookkeeping of a sample read in user space. */
static inline __attribute__((always_inline)) void
took_user_sample(struct lope_group *g)
{
	g->snap = LOPE_SNAP_CUR;
	g->last = LOPE_PATH_RDPMC;
	if (g->stamp_reads)
		g->snap_at = lope_arch_cycles();
}

/*
 * The user-space path in general: each event's page read and its value
 * taken in one pass; where any was multiplexed, or a write added offsets,
 * the values are taken again with scaling.  If user space cannot read the
 * set now, read(2).
 */
static __attribute__((noinline)) int read_user_general(struct lope_group *g,
						       int64_t *values)
{
	bool slow = g->written;

	if (read_user_into(g, values, &slow) != 0)
		return read_any(g, values);
	if (__builtin_expect(slow, 0))
		values_slow(g, values);
	took_user_sample(g);
	return 0;
}

/*
 * The user-space path: its common case here, in a function of its own so
 * that it needs few registers; anything else in read_user_general().
 */
static __attribute__((noinline)) int read_user_values(struct lope_group *g,
						      int64_t *values)
{
	if (__builtin_expect(lope_gettid() == g->owner, 1) &&
	    __builtin_expect(read_user_plain(g, values), 1)) {
		took_user_sample(g);
		return 0;
	}
	return read_user_general(g, values);
}

/*
 * The bookkeeping of a sample read_fast() took; @stamp: time it, if the
 * set resets (a reset's own sample serves no other reset).
 */
static inline void took_fast_sample(struct lope_group *g, bool stamp)
{
	g->snap = g->fast_snap;
	g->last = LOPE_PATH_READ;
	if (stamp && g->stamp_reads)
		g->snap_at = lope_arch_cycles();
}

/*
 * read_fast()'s read(2) returned @n, not fast_len: retried on EINTR, else
 * an error and no sample.
 */
static __attribute__((noinline)) int read_fast_failed(struct lope_group *g,
						      ssize_t n, bool stamp)
{
	int err = (int)read_again(g->ev[0].fd, g->fast_buf, g->fast_len, n);

	if (err) {
		g->snap = LOPE_SNAP_NONE;
		g->snap_at = 0;
		return err;
	}
	took_fast_sample(g, stamp);
	return 0;
}

/* read_fast()'s one read(2); 0 or -errno. */
static inline __attribute__((always_inline)) int read_fast(struct lope_group *g,
							   bool stamp)
{
	ssize_t n = lope_sys->read(g->ev[0].fd, g->fast_buf, g->fast_len);

	/* Everything else is loaded after the call: kept in registers
	 * across it, it would cost saving and restoring them. */
	__asm__ __volatile__("" ::: "memory");
	if (__builtin_expect((size_t)n != g->fast_len, 0))
		return read_fast_failed(g, n, stamp);
	took_fast_sample(g, stamp);
	return 0;
}

/*
 * The values of read_fast()'s sample when the kernel did not multiplex the
 * events (g->hot: nothing was written): a few instructions an event.  Both
 * of its layouts have the enabled time at [1] and the running time at [2].
 */
static inline __attribute__((always_inline)) void
values_fast(const struct lope_group *g, int64_t *restrict values)
{
	const uint64_t *restrict b = g->fast_buf;
	const uint64_t *restrict v = g->fast_vals;
	const uint64_t *restrict bval = g->bval;
	int i = 0, nr = g->nr;

	if (__builtin_expect(b[1] - b[2] != g->bgap0, 0)) {
		values_slow(g, values);
		return;
	}
	do /* an open group has an event */
		values[i] = (int64_t)(v[i] - bval[i]);
	while (++i < nr);
}

/* lope_group__read() where g->hot says nothing: any state, any path. */
static __attribute__((noinline)) int read_cold(struct lope_group *g,
					       int64_t *values)
{
	int err = check_ready(g);

	if (err)
		return err == LOPE_SPLIT ? lope_parts__read(g, values) : err;
	return g->user_read ? read_user_general(g, values) :
			      read_any(g, values);
}

/* The read(2) path's common case: one read(2) and the values. */
static __attribute__((noinline)) int read_fast_values(struct lope_group *g,
						      int64_t *values)
{
	int err = read_fast(g, true);

	if (__builtin_expect(err, 0))
		return err;
	values_fast(g, values);
	return 0;
}

/*
 * Only tests and tail calls, so that no path pays for another's stack
 * frame (the user-space read's least of all).
 */
int lope_group__read(struct lope_group *g, int64_t *values)
{
	if (__builtin_expect(!g || !values, 0))
		return -EINVAL;
	if (__builtin_expect(g->hot == LOPE_HOT_FAST, 1))
		return read_fast_values(g, values);
	if (g->hot == LOPE_HOT_USER)
		return read_user_values(g, values);
	return read_cold(g, values);
}

/* @wr (NULL: none) added to the values from now on. */
static __attribute__((noinline)) void write_offsets(struct lope_group *g,
						    const int64_t *wr)
{
	int i;

	g->written = false;
	for (i = 0; i < g->nr; i++) {
		g->wr[i] = wr ? wr[i] : 0;
		g->written |= g->wr[i] != 0;
	}
	lope_group__heat(g);
}

/* Take the latest sample as every event's base, with @wr on top. */
static inline __attribute__((always_inline)) void
set_bases(struct lope_group *g, const int64_t *wr)
{
	const struct lope_counts *restrict cur = g->cur;
	const uint64_t *restrict b = g->buf;
	int i, nr = g->nr;

	if (g->snap == LOPE_SNAP_BUF) {
		for (i = 0; i < nr; i++) {
			g->bval[i] = b[3 + i];
			g->bena[i] = b[1];
			g->brun[i] = b[2];
		}
		g->bgap0 = b[1] - b[2];
	} else {
		for (i = 0; i < nr; i++) {
			g->bval[i] = cur[i].val;
			g->bena[i] = cur[i].ena;
			g->brun[i] = cur[i].run;
		}
		g->bgap0 = cur[0].ena - cur[0].run;
	}
	if (__builtin_expect(wr || g->written, 0))
		write_offsets(g, wr);
}

/*
 * Ready @g: -EBADF if it is not open; else the sample a disable left as
 * the bases is copied to them, once, when something first needs them or
 * samples again.  The disable that left it costs no copy.
 */
static __attribute__((noinline)) int settle(struct lope_group *g)
{
	if (!g->opened)
		return g->parts ? LOPE_SPLIT : -EBADF;
	set_bases(g, NULL);
	g->ready = true;
	lope_group__heat(g);
	return 0;
}

static int rebase(struct lope_group *g, const int64_t *wr)
{
	int err = g->fast ? read_fast(g, false) : sample(g);

	if (!err)
		set_bases(g, wr);
	return err;
}

/*
 * Zero the values by taking the current counts as bases: no system call
 * where rdpmc works, one read(2) of the group otherwise, whatever the
 * number of events (PERF_EVENT_IOC_RESET is one call per event, and
 * keeps the enabled/running totals that multiplex scaling needs).
 */
int lope_group__reset(struct lope_group *g)
{
	int err = check_ready(g);

	if (__builtin_expect(err, 0))
		return err == LOPE_SPLIT ? lope_parts__reset(g) : err;
	g->stamp_reads = true;
	if (!fresh(g)) {
		err = g->fast ? read_fast(g, false) : sample(g);
		if (__builtin_expect(err, 0))
			return err;
	}
	set_bases(g, NULL);
	/* One reset per sample: the next one samples anew. */
	g->snap_at = 0;
	return 0;
}

int lope_group__write(struct lope_group *g, const int64_t *values)
{
	int err = check_ready(g);

	if (!err && !values)
		err = -EINVAL;
	if (__builtin_expect(err, 0))
		return err == LOPE_SPLIT ?
			       (values ? lope_parts__write(g, values) :
					 -EINVAL) :
			       err;
	return rebase(g, values);
}

/* An ioctl failed: its error. */
static __attribute__((noinline)) int ioctl_error(void)
{
	return errno ? -errno : -EIO;
}

/* ioctl_leaders() of a set of several kernel groups, out of its way. */
static __attribute__((noinline)) int ioctl_each_leader(struct lope_group *g,
						       unsigned long request)
{
	int i;

	for (i = 0; i < g->nr_leaders; i++)
		if (lope_sys->ioctl(g->ev[i].fd, request, 0) < 0)
			return ioctl_error();
	return 0;
}

/*
 * Members are opened enabled and count whenever their leader is scheduled,
 * so enabling or disabling the leader alone switches the whole group: no
 * PERF_IOC_FLAG_GROUP, which would make the kernel visit every member
 * (doc/design.md).  The
 * caller checked @g.
 */
static inline __attribute__((always_inline)) int
ioctl_leaders(struct lope_group *g, unsigned long request)
{
	if (lope_group__forked(g))
		return 0; /* the parent's counters are not the child's to switch */
	if (__builtin_expect(g->nr_leaders == 1, 1))
		return lope_sys->ioctl(g->ev[0].fd, request, 0) < 0 ?
			       ioctl_error() :
			       0;
	return ioctl_each_leader(g, request);
}

/*
 * Running is set before the ioctls and cleared before the stop: an
 * overflow signal handled in between may renew its event's budget (an
 * ioctl that enables the event), one handled after the stop must leave
 * that to the next enable.
 */
static void set_running(struct lope_group *g, bool running)
{
	g->running = running;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

int lope_group__enable(struct lope_group *g)
{
	int err = check_ready(g);

	if (__builtin_expect(err, 0))
		return err == LOPE_SPLIT ? lope_parts__enable(g) : err;
	set_running(g, true);
	/* A forked child must not refresh (and so enable) the parent's. */
	err = g->nr_overflow && !lope_group__forked(g) ? lope_overflow__arm(g) :
							 0;
	if (!err)
		err = ioctl_leaders(g, PERF_EVENT_IOC_ENABLE);
	if (__builtin_expect(err, 0)) {
		set_running(g, false);
		return err;
	}
	g->snap_at = 0;
	g->snap = LOPE_SNAP_NONE;
	return 0;
}

/* Stop counting; the caller checked @g. */
static inline __attribute__((always_inline)) int
stop_leaders(struct lope_group *g)
{
	int err;

	set_running(g, false);
	err = ioctl_leaders(g, PERF_EVENT_IOC_DISABLE);
	/* Still counting: overflow must keep renewing its budget. */
	if (__builtin_expect(err, 0))
		set_running(g, true);
	return err;
}

int lope_group__disable(struct lope_group *g, int64_t *values)
{
	int err = check_ready(g);

	if (__builtin_expect(err, 0))
		return err == LOPE_SPLIT ?
			       lope_parts__disable(g, values, false) :
			       err;
	err = stop_leaders(g);
	if (!err)
		err = sample(g);
	if (err)
		return err;
	if (values)
		values_of(g, values);
	g->ready = false; /* this sample is the bases: settle() */
	g->hot = LOPE_HOT_NONE;
	return 0;
}

int lope_group__disable_after_read(struct lope_group *g)
{
	int err;

	/* No sample since the enable (always so when closed): read one. */
	if (__builtin_expect(!g || g->snap == LOPE_SNAP_NONE, 0))
		return g && g->parts ? lope_parts__disable(g, NULL, true) :
				       lope_group__disable(g, NULL);
	err = stop_leaders(g);
	if (__builtin_expect(err, 0))
		return err;
	g->ready = false; /* the read's sample is the bases: settle() */
	g->hot = LOPE_HOT_NONE;
	return 0;
}

enum lope_path lope_group__last_path(const struct lope_group *g)
{
	return g ? g->last : LOPE_PATH_NONE;
}

int lope_group__nr_mapped(const struct lope_group *g)
{
	return g ? g->nr_mapped : -EINVAL;
}
