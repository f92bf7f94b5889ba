/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An event group's measured calls: enable/disable, read in user space or
 * with read(2) (the common cases here; the general sample and values in
 * sample.c), and per-event bases that make reset, write and restart free
 * of system calls.  What lope_group__read() and lope_group__reset() do is
 * chosen when the group changes (lopelib_group__choose()): a common case
 * of its own for each way of sampling, and one slow path for everything
 * else.  The whole story is doc/read-path.md.  Building and opening the
 * group is in open.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/perf_event.h>

#include "group.h"
#include "mmap_read.h"
#include "overflow.h"
#include "park.h"
#include "sample.h"
#include "sys.h"

static int settle(struct lope_group *g);
static int read_cold(struct lope_group *g, int64_t *values);

/*
 * The test that ends a measured call's loop over the group's events:
 * taken with probability 0.8, 5 turns expected.  GCC aligns the head of a
 * loop it expects to turn many times, and the padding before the head is
 * an instruction run at every call (one nop of the 185 of an x86
 * PAPI_read, one of an arm64 PAPI_accum): GCC 12 pads again from 0.9 on.
 * At 0.7 and below it no longer hoists arm64's jump table of counter
 * reads out of the user-space read's loop: 2 instructions more an event
 * (doc/read-path.md).
 */
#define MORE_EVENTS(cond) __builtin_expect_with_probability((cond), 1, 0.8)

/* A measured call's common path starts on 16 bytes, as every x86-64
 * function does: arm64's padding inside it then no longer depends on the
 * code before it in this file (doc/read-path.md). */
#define MEASURED __attribute__((aligned(16)))

/*
 * A group read(2)'s values, bases and the caller's values are walked down
 * in bytes, which every target adds to an address as it is (an index
 * would cost riscv64 a shift an event), and two events at a time: a
 * vector of two where the target has one (SSE2, NEON), two registers
 * where it does not (riscv64 without V).  AT() is the element @off bytes
 * into the array at @p, PAIR() the two from there; the bases are
 * 16-aligned (open.c's reserve()), so x86 subtracts them from memory.
 */
typedef uint64_t lope_pair
	__attribute__((vector_size(16), aligned(8), may_alias));
typedef uint64_t lope_pair16 __attribute__((vector_size(16), may_alias));
#define AT(p, off) (*(__typeof__(p))((uintptr_t)(p) + (uintptr_t)(off)))
#define PAIR(p, off) (*(lope_pair *)((uintptr_t)(p) + (uintptr_t)(off)))
#define PAIR16(p, off) (*(lope_pair16 *)((uintptr_t)(p) + (uintptr_t)(off)))

/*
 * Not ready (g->head.read is read_cold()): closed, split (its parts are open,
 * not itself), parked (stopped lazily), or stopped in the kernel or
 * demoted with its bases still to take (settle()).  Each verb tests the
 * first three from the fields, in that branch alone, and settles the last.
 */
static inline bool unready(const struct lope_group *g)
{
	return __builtin_expect(g->head.read == read_cold, 0);
}

static inline bool parked(const struct lope_group *g)
{
	return g->stop == LOPE_STOP_PARKED;
}

int lope_group__read_raw(struct lope_group *g, struct lope_counts *c)
{
	int err = 0;

	if (!g || !c)
		return -EINVAL;
	if (unready(g)) {
		if (parked(g)) { /* the stop's counts stand */
			lopelib_group__copy_sample(g, c);
			return 0;
		}
		if (!g->opened)
			return g->parts ? g->split->counts(g, c, false) :
					  -EBADF;
		err = settle(g);
	}
	if (!err)
		err = lopelib_group__sample(g, true);
	if (!err)
		lopelib_group__copy_sample(g, c);
	return err;
}

/* The one slow path of lope_group__read(): any state, any sample. */
static __attribute__((noinline)) int read_slow(struct lope_group *g,
					       int64_t *values)
{
	int err = lopelib_group__sample(g, true);

	if (!err)
		lopelib_group__values(g, values);
	return err;
}

/* Not ready: closed, split, parked, or with its bases still to take. */
static __attribute__((noinline)) int read_cold(struct lope_group *g,
					       int64_t *values)
{
	int err;

	if (parked(g)) {
		/* what was written, as it was */
		lopelib_group__values(g, values);
		return 0;
	}
	if (!g->opened)
		return g->parts ? g->split->read(g, values) : -EBADF;
	err = settle(g);
	return err ? err : g->head.read(g, values); /* settle() chose anew */
}

/*
 * A user-space group's common case, in one pass: every event on its
 * counter and its enabled time equal to its running time.  An event's
 * enabled time less its running time never shrinks, so such an event had
 * them equal at its base too, and its value is its count less its base,
 * unscaled.  Anything else goes to the slow path, which samples again
 * (each sample may be half rewritten).
 *
 * In a function of its own that calls nothing (the slow path is a tail
 * call), so that it saves no register.  The clock is stamped for the
 * reset rule before the pages are read, so that nothing stays live across
 * them: the rule's window is a system call, a few dozen instructions an
 * event are nothing to it.  A thread whose id is not cached yet (0) takes
 * the slow path, which caches it.
 */
static __attribute__((noinline)) MEASURED LOPE_SCALAR_STORES int
read_user_values(struct lope_group *g, int64_t *values)
{
	struct lope_event *e = g->ev;

	if (__builtin_expect(lopelib_cached_tid != g->owner, 0))
		return read_slow(g, values);
	lopelib_arch_cycles_to(&g->read_end);
	g->last = LOPE_PATH_RDPMC;
	do { /* an open group has an event */
		if (__builtin_expect(!lopelib_mmap__read_plain(
					     e->page, &lopelib_hw_reader,
					     &e->sample),
				     0))
			/* @values from where it is now: one register less */
			return read_slow(g, values - (e - g->ev));
		*values++ = (int64_t)(e->sample.val - e->base.val);
	} while (MORE_EVENTS(++e <= g->sysread_last_ev));
	return 0;
}

/* read_kernel()'s read(2) returned @n, not sysread_len: EINTR,
 * or fail. */
static __attribute__((noinline)) int
read_kernel_failed(struct lope_group *g, int64_t *values, ssize_t n)
{
	int err = lopelib_group__read_again(g->leader_fd, g->sysread_buf,
					    g->sysread_len, n);

	lopelib_group__forget_read(g); /* retried: not stamped */
	if (err) {
		g->last = LOPE_PATH_NONE;
		return err;
	}
	g->last = LOPE_PATH_READ;
	lopelib_group__values(g, values);
	return 0;
}

/*
 * A read(2) group's common case: one read(2), of the leader with
 * PERF_FORMAT_GROUP (@one false) or of the one event (@one), stamped for
 * the reset rule; and when the kernel did not multiplex the events (one
 * enabled less running time for all, as at the bases), a few
 * instructions an event: the top one alone if their number is odd, then
 * two at a time down to the first (g->sysread_pairs_off).
 */
static inline __attribute__((always_inline)) int
read_kernel(struct lope_group *g, int64_t *values, bool one)
{
	const uint64_t *b, *v, *base;
	ssize_t n;
	long off;

	n = lopelib_sys->read(g->leader_fd, g->sysread_buf, g->sysread_len);
	/* Everything else is loaded after the call: kept in registers
	 * across it, it would cost saving and restoring them. */
	__asm__ __volatile__("" ::: "memory");
	if (__builtin_expect((size_t)n != g->sysread_len, 0))
		return read_kernel_failed(g, values, n);
	lopelib_arch_cycles_to(&g->read_end);
	g->last = LOPE_PATH_READ;
	b = g->sysread_buf;
	if (__builtin_expect(b[1] - b[2] != g->leader_base_gap, 0)) {
		lopelib_group__values(g, values);
		return 0;
	}
	if (one) {
		values[0] = (int64_t)(g->ev[0].sample.val - g->ev[0].base.val);
		return 0;
	}
	v = b + 3;
	base = g->bases;
	if (g->nr & 1) {
		off = g->sysread_last_off;
		AT(values, off) = (int64_t)(AT(v, off) - AT(base, off));
	}
	off = g->sysread_pairs_off;
	do /* a group read(2) has two events or more */
		PAIR(values, off) = PAIR(v, off) - PAIR16(base, off);
	while (MORE_EVENTS((off -= 16) >= 0));
	return 0;
}

static __attribute__((noinline)) MEASURED int
read_kernel_values(struct lope_group *g, int64_t *values)
{
	return read_kernel(g, values, false);
}

static __attribute__((noinline)) MEASURED int
read_one_value(struct lope_group *g, int64_t *values)
{
	return read_kernel(g, values, true);
}

static inline __attribute__((always_inline)) void choose(struct lope_group *g,
							 bool ready)
{
	if (!ready)
		g->head.read = read_cold;
	else if (g->written)
		g->head.read = read_slow;
	else
		g->head.read = g->ready_read;
}

/*
 * Only a test and a tail call, so that no path pays for another's stack
 * frame (the user-space read's least of all).
 */
MEASURED int lope_group__read(struct lope_group *g, int64_t *values)
{
	if (__builtin_expect(!g || !values, 0))
		return -EINVAL;
	return g->head.read(g, values);
}

/* @wr (NULL: none) added to the values from now on. */
static __attribute__((noinline)) void write_offsets(struct lope_group *g,
						    const int64_t *wr)
{
	int i;

	g->written = false;
	for (i = 0; i < g->nr; i++) {
		g->ev[i].offset = wr ? wr[i] : 0;
		g->written |= g->ev[i].offset != 0;
	}
	choose(g, true);
}

/*
 * The latest sample as every event's base: the group read(2)'s buffer
 * copied to g->bases (@sampler LOPE_SAMPLE_GROUP), or each event's
 * sample to its base.  g->sampler, or a constant where the caller knows
 * it.
 */
static inline __attribute__((always_inline)) void
take_bases(struct lope_group *g, enum lope_sampler sampler)
{
	struct lope_event *e = g->ev;
	const struct lope_event *last = g->sysread_last_ev;

	if (sampler == LOPE_SAMPLE_GROUP) {
		const uint64_t *b = g->sysread_buf, *v = b + 3;
		uint64_t *base = g->bases;
		long off = g->sysread_last_off;

		e->base.ena = b[1];
		e->base.run = b[2];
		if (g->nr & 1)
			AT(base, off) = AT(v, off);
		off = g->sysread_pairs_off;
		do
			PAIR16(base, off) = PAIR(v, off);
		while (MORE_EVENTS((off -= 16) >= 0));
	} else {
		do
			e->base = e->sample;
		while (MORE_EVENTS(++e <= last));
	}
	g->leader_base_gap = g->ev[0].base.ena - g->ev[0].base.run;
}

/* Take the latest sample as every event's base, with @wr on top;
 * @sampler as take_bases()'s. */
static inline __attribute__((always_inline)) void
set_bases_of(struct lope_group *g, enum lope_sampler sampler, const int64_t *wr)
{
	take_bases(g, sampler);
	if (__builtin_expect(wr || g->written, 0))
		write_offsets(g, wr);
}

static inline __attribute__((always_inline)) void
set_bases(struct lope_group *g, const int64_t *wr)
{
	set_bases_of(g, g->sampler, wr);
}

/* Take the latest sample as every event's base; what was written stays.
 * Out of line: its callers' common cases take no such copy. */
static __attribute__((noinline)) void rebase(struct lope_group *g)
{
	take_bases(g, g->sampler);
}

/*
 * Ready @g, open and stopped in the kernel or demoted: the sample a
 * disable left as the bases is copied to them, once, when something first
 * needs them or samples again (a demoted group samples again).  The
 * disable that left it costs no copy.  0 or -errno.
 */
static __attribute__((noinline)) MEASURED int settle(struct lope_group *g)
{
	int err;

	lopelib_group__forget_read(g); /* the stop came between */
	if (g->stop == LOPE_STOP_DEMOTED) {
		/* Its counts went on until the demotion: sampled now that
		 * they stand still, what was written while parked kept. */
		err = lopelib_group__sample(g, false);
		if (err)
			return err;
		rebase(g);
		g->stop = LOPE_STOP_NONE;
	} else {
		set_bases(g, NULL);
	}
	choose(g, true);
	LOPE_CHECK(g);
	return 0;
}

/*
 * A user-space group's new sample taken as its bases, in the common case
 * (a reset's, and a parked group's start): each page's counts (the plain
 * read's, so enabled equals running time) straight into the event's
 * sample and base.  false: anything else, for lopelib_group__sample()
 * (each event's base still equals its sample, and a new sample then
 * takes them all anew).
 */
static inline __attribute__((always_inline)) bool
rebase_user_plain(struct lope_group *g)
{
	struct lope_event *e = g->ev;
	const struct lope_event *last = g->sysread_last_ev;
	struct lope_counts c;

	/* the thread's id as cached: not cached yet (0) takes the general
	 * sample, which caches it */
	if (__builtin_expect(lopelib_cached_tid != g->owner, 0))
		return false;
	do { /* an open group has an event */
		if (!lopelib_mmap__read_plain(e->page, &lopelib_hw_reader, &c))
			return false;
		e->sample = c;
		e->base = c;
	} while (MORE_EVENTS(++e <= last));
	g->leader_base_gap = 0;
	g->last = LOPE_PATH_RDPMC;
	return true;
}

/*
 * The reset rule: the latest read came just before, with no verb in
 * between (other verbs forget it), and ended less than one system call
 * of this group ago: its leader's perf_event_open (lope_group__open()),
 * timed once so that no read or start pays for a window of its own.  A
 * new sample within that would be no closer to the present; and a
 * user-space read, a few dozen instructions, is less than PAPI's own code
 * between the read and the reset of a PAPI_accum.
 */
static inline bool reusable(const struct lope_group *g)
{
	uint64_t end = g->read_end;

	return end && lopelib_arch_cycles() - end < g->window;
}

/* Any ready group's reset but the common cases: a new sample unless
 * @reuse (reusable()), then the bases and what was written. */
static __attribute__((noinline)) int reset_any(struct lope_group *g, bool reuse)
{
	int err = reuse ? 0 : lopelib_group__sample(g, false);

	if (__builtin_expect(err, 0))
		return err;
	lopelib_group__forget_read(g); /* a sample serves one reset */
	set_bases(g, NULL);
	return 0;
}

/* A read(2) group's reset whose read(2) returned @n, not sysread_len:
 * EINTR (read again, then the bases), or fail. */
static __attribute__((noinline)) int reset_failed(struct lope_group *g,
						  ssize_t n)
{
	int err = lopelib_group__read_again(g->leader_fd, g->sysread_buf,
					    g->sysread_len, n);

	if (__builtin_expect(err, 0)) {
		g->last = LOPE_PATH_NONE;
		return err;
	}
	g->last = LOPE_PATH_READ;
	lopelib_group__forget_read(g);
	set_bases(g, NULL);
	return 0;
}

/* A ready read(2) group's reset without a read to reuse: its one
 * read(2) (g->sysread_len), then the bases. */
static __attribute__((noinline)) MEASURED int reset_kernel(struct lope_group *g)
{
	ssize_t n;

	n = lopelib_sys->read(g->leader_fd, g->sysread_buf, g->sysread_len);
	if (__builtin_expect((size_t)n != g->sysread_len, 0))
		return reset_failed(g, n);
	g->last = LOPE_PATH_READ;
	lopelib_group__forget_read(g);
	set_bases(g, NULL);
	return 0;
}

/* Not ready (unready()): parked, closed, split, or to settle first. */
static __attribute__((noinline)) int reset_cold(struct lope_group *g)
{
	int err;

	if (parked(g)) {
		set_bases(g, NULL); /* the stop's sample: values 0 */
		choose(g, false);
		return 0;
	}
	if (!g->opened)
		return g->parts ? g->split->reset(g) : -EBADF;
	err = settle(g); /* ready now, its read forgotten */
	return err ? err : lope_group__reset(g);
}

/*
 * Zero the values by taking the current counts as bases: no system call
 * in user space, one read(2) of the group otherwise whatever the number
 * of events (PERF_EVENT_IOC_RESET is one call per event, and keeps the
 * enabled/running totals that multiplex scaling needs), and none when the
 * reset rule lets it take the latest read's sample (reusable()).  Each way
 * of sampling has a common case of its own, a ready group's with nothing
 * written (below; lope_group__reset() tells it by the read chosen), and
 * this one takes every other state.  The common cases with nothing
 * written call nothing, so that they save no register; the rest are tail
 * calls.
 */
static __attribute__((noinline)) int reset_any_state(struct lope_group *g)
{
	if (unready(g))
		return reset_cold(g);
	if (reusable(g)) {
		if (__builtin_expect(g->written, 0))
			return reset_any(g, true);
		lopelib_group__forget_read(g);
		set_bases(g, NULL);
		return 0;
	}
	if (g->sampler != LOPE_SAMPLE_USER)
		return g->sysread_len ? reset_kernel(g) : reset_any(g, false);
	if (__builtin_expect(!g->written, 1) && rebase_user_plain(g))
		return 0;
	return reset_any(g, false);
}

/*
 * The common cases: a ready group with nothing written, so that no
 * offset is to be kept.  A read(2) group of several events, read at
 * once:
 */
static MEASURED int reset_kernel_ready(struct lope_group *g)
{
	if (reusable(g)) {
		lopelib_group__forget_read(g);
		take_bases(g, LOPE_SAMPLE_GROUP);
		return 0;
	}
	return reset_kernel(g);
}

/*
 * A ready read(2) group of one event: its read(2) straight into the
 * event's sample, then copied to its base, with no loop (PAPI_reset of
 * one event below stock's, doc/read-path.md).
 */
static MEASURED int reset_one_ready(struct lope_group *g)
{
	struct lope_event *e = g->ev;
	ssize_t n;

	if (reusable(g)) {
		lopelib_group__forget_read(g);
		e->base = e->sample;
		g->leader_base_gap = e->base.ena - e->base.run;
		return 0;
	}
	n = lopelib_sys->read(g->leader_fd, &e->sample, sizeof(e->sample));
	/* Loaded again after the call, as read_kernel() does. */
	__asm__ __volatile__("" ::: "memory");
	if (__builtin_expect(n != (ssize_t)sizeof(e->sample), 0))
		return reset_failed(g, n);
	g->last = LOPE_PATH_READ;
	lopelib_group__forget_read(g);
	e = g->ev;
	e->base = e->sample;
	g->leader_base_gap = e->base.ena - e->base.run;
	return 0;
}

/* A ready user-space group: the pages straight into the bases. */
static MEASURED int reset_user_ready(struct lope_group *g)
{
	if (reusable(g)) {
		lopelib_group__forget_read(g);
		take_bases(g, LOPE_SAMPLE_USER);
		return 0;
	}
	if (rebase_user_plain(g))
		return 0;
	return reset_any(g, false);
}

/*
 * A ready group with nothing written reads with g->ready_read, and resets
 * with g->ready_reset; any other state takes reset_any_state().  Only
 * tests and a tail call, as lope_group__read().
 */
MEASURED int lope_group__reset(struct lope_group *g)
{
	if (__builtin_expect(!g, 0))
		return -EINVAL;
	if (__builtin_expect(g->head.read == g->ready_read, 1))
		return g->ready_reset(g);
	return reset_any_state(g);
}

/* open.c's: g->ready_read and g->ready_reset follow from how the group
 * samples, then the choice. */
void lopelib_group__choose(struct lope_group *g, bool ready)
{
	if (g->sampler == LOPE_SAMPLE_USER) {
		g->ready_read = read_user_values;
		g->ready_reset = reset_user_ready;
	} else if (!g->sysread_len) {
		g->ready_read = read_slow;
		g->ready_reset = reset_any_state;
	} else {
		g->ready_read = g->grouped ? read_kernel_values :
					     read_one_value;
		g->ready_reset = g->grouped ? reset_kernel_ready :
					      reset_one_ready;
	}
	choose(g, ready);
}

int lope_group__write(struct lope_group *g, const int64_t *values)
{
	int err = 0;

	if (!g || !values)
		return -EINVAL;
	if (unready(g)) {
		if (parked(g)) {
			set_bases(g, values); /* on the stop's sample, kept */
			choose(g, false);
			return 0;
		}
		if (!g->opened)
			return g->parts ? g->split->write(g, values) : -EBADF;
		err = settle(g);
	}
	err = err ? err : lopelib_group__sample(g, false);
	if (!err)
		set_bases(g, values);
	return err;
}

/*
 * The start of a parked group: its counters never stopped, so its bases
 * come from the pages now (as a reset's in the common case,
 * rebase_user_plain(); read(2) where they refuse), and what was written
 * while it was stopped stays.  A failed sample leaves it parked with the
 * values it had: every sample back to its base, which it equalled.
 */
static __attribute__((noinline)) MEASURED int unpark(struct lope_group *g)
{
	int i, err;

	/* An event off its counter reads as enabled. */
	lopelib_set_running(g, true);
	if (g->sampler != LOPE_SAMPLE_USER || !rebase_user_plain(g)) {
		err = lopelib_group__sample(g, false);
		if (__builtin_expect(err, 0)) {
			lopelib_set_running(g, false);
			for (i = 0; i < g->nr; i++)
				g->ev[i].sample = g->ev[i].base;
			return err;
		}
		rebase(g);
	}
	g->stop = LOPE_STOP_NONE;
	g->last = LOPE_PATH_NONE;
	choose(g, true);
	LOPE_CHECK(g);
	return 0;
}

MEASURED int lope_group__enable(struct lope_group *g)
{
	int err;

	if (__builtin_expect(!g, 0))
		return -EINVAL;
	if (unready(g)) {
		if (parked(g))
			return unpark(g);
		if (!g->opened)
			return g->parts ? g->split->enable(g) : -EBADF;
		err = settle(g);
		if (err)
			return err;
	}
	lopelib_set_running(g, true);
	/* A forked child must not refresh (and so enable) the parent's. */
	err = g->nr_overflow && !lopelib_group__forked(g) ?
		      lopelib_overflow__arm(g) :
		      0;
	/* Parked groups of this thread give up their counters first. */
	if (!err && __atomic_load_n(&lopelib_park_nr, __ATOMIC_RELAXED) &&
	    !lopelib_group__forked(g))
		err = lopelib_park__make_room(g);
	if (!err)
		err = lopelib_ioctl_leaders(g, PERF_EVENT_IOC_ENABLE);
	if (__builtin_expect(err, 0)) {
		lopelib_set_running(g, false);
		return err;
	}
	if (g->lazy && !g->listed && !lopelib_group__forked(g))
		lopelib_park__list(g);
	lopelib_group__forget_read(g);
	g->last = LOPE_PATH_NONE;
	LOPE_CHECK(g);
	return 0;
}

/* Stop counting; the caller checked @g. */
static inline __attribute__((always_inline)) int
stop_leaders(struct lope_group *g)
{
	int err;

	lopelib_set_running(g, false);
	err = lopelib_ioctl_leaders(g, PERF_EVENT_IOC_DISABLE);
	/* Still counting: overflow must keep renewing its budget. */
	if (__builtin_expect(err, 0))
		lopelib_set_running(g, true);
	return err;
}

/* Stopped: the latest sample is the bases, copied when next needed. */
static inline void stopped(struct lope_group *g)
{
	choose(g, false); /* settle() forgets the read */
}

/*
 * A lazy stop, after the sample that ends the interval: the counters stay
 * enabled in the kernel, and the group's values stand still from here.
 */
static MEASURED void park(struct lope_group *g)
{
	lopelib_set_running(g, false);
	g->stop = LOPE_STOP_PARKED;
	lopelib_group__forget_read(g);
	/* As settle() after a stop in the kernel; a lazy group samples in
	 * user space, and the constant spares its stop a group read(2)'s
	 * copy, whose registers would cost it a stack frame. */
	set_bases_of(g, LOPE_SAMPLE_USER, NULL);
	choose(g, false);
	LOPE_CHECK(g);
}

MEASURED int lope_group__disable(struct lope_group *g, int64_t *values)
{
	int err;

	if (__builtin_expect(!g, 0))
		return -EINVAL;
	if (unready(g)) {
		if (parked(g)) { /* stopped already */
			if (values)
				lopelib_group__values(g, values);
			return 0;
		}
		if (!g->opened)
			return g->parts ? g->split->disable(g, values, false) :
					  -EBADF;
		err = settle(g);
		if (err)
			return err;
	}
	/* Listed: lazy, and enabled in the kernel; sampled as it runs. */
	err = g->listed ? 0 : stop_leaders(g);
	if (!err)
		err = lopelib_group__sample(g, false);
	if (err)
		return err;
	if (values)
		lopelib_group__values(g, values);
	if (g->listed)
		park(g);
	else
		stopped(g);
	LOPE_CHECK(g);
	return 0;
}

MEASURED int lope_group__disable_after_read(struct lope_group *g)
{
	int err;

	/* No sample since the enable (always so when closed or split). */
	if (__builtin_expect(!g || g->last == LOPE_PATH_NONE, 0))
		return g && g->parts ? g->split->disable(g, NULL, true) :
				       lope_group__disable(g, NULL);
	if (g->listed) {
		if (g->stop == LOPE_STOP_NONE)
			park(g);
		return 0;
	}
	err = stop_leaders(g);
	if (__builtin_expect(err, 0))
		return err;
	stopped(g);
	LOPE_CHECK(g);
	return 0;
}

/* On a broken invariant: which one, on stderr, and abort. */
void lopelib_group__check(const struct lope_group *g)
{
	bool ready = g->head.read != read_cold;
	const char *bad = NULL;

	if (ready && (!g->opened || g->parts || g->stop != LOPE_STOP_NONE))
		bad = "ready, but closed, split or stopped lazily";
	else if (g->listed && (!g->lazy || !g->opened))
		bad = "listed, but not lazy and open";
	else if (g->stop == LOPE_STOP_PARKED && (!g->listed || g->running))
		bad = "parked, but not listed or running";
	else if (g->stop == LOPE_STOP_DEMOTED && (g->listed || g->running))
		bad = "demoted, but listed or running";
	else if (g->running && g->stop != LOPE_STOP_NONE)
		bad = "running, but stopped";
	else if (!g->opened && !g->parts &&
		 (g->listed || g->stop != LOPE_STOP_NONE || g->running))
		bad = "closed, but listed, stopped or running";
	if (!bad)
		return;
	fprintf(stderr,
		"lope: group %p: %s (opened %d, split %d, ready %d, "
		"lazy %d, stop %d, listed %d, running %d)\n",
		(const void *)g, bad, g->opened, g->parts != NULL, ready,
		g->lazy, (int)g->stop, g->listed, (int)g->running);
	abort();
}
