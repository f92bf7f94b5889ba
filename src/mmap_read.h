/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The user-space read of one counter from its perf_event self-monitoring
 * page.  Private to the engine and its tests.
 *
 * lopelib_mmap__read() is a pure function of the page and a counter reader, so
 * the unit tests can drive it with simulated pages and fake counters while
 * the engine passes the real rdpmc/rdtsc (which the compiler inlines).
 */
#ifndef LOPE_MMAP_READ_H
#define LOPE_MMAP_READ_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "lope.h"
#include "lope_arch.h"

struct lope_reader {
	/* raw value of hardware counter @counter (the page's index - 1)
	 * into *@val; false if the read faulted (lopelib_guard__install()) */
	bool (*pmc)(void *arg, uint32_t counter, uint64_t *val);
	/* the clock the page's time_* fields convert (TSC on x86) */
	uint64_t (*cycles)(void *arg);
	void *arg;
};

/*
 * The real reader: this CPU's counter-read instruction and clock, for the
 * engine, its tests and papi_overhead alike.  Static, so each file has its
 * own copy and the reads inline it, however large the arch's counter
 * switch.
 */
static inline __attribute__((always_inline)) bool
lopelib_hw_pmc(void *arg, uint32_t counter, uint64_t *val)
{
	(void)arg;
	return lopelib_arch_rdpmc(counter, val);
}

static inline uint64_t lopelib_hw_cycles(void *arg)
{
	(void)arg;
	return lopelib_arch_cycles();
}

/*
 * Before the first user-space read of a process where a counter read can
 * fault (LOPE_ARCH_READ_SIGNAL: riscv64), the handler that turns the fault
 * into a failed read (src/guard.c).  0, or -errno: then read with read(2).
 */
int lopelib_guard__install(void);

/*
 * For a read path's function: GCC's SLP vectorizer makes a sample's two or
 * three adjacent stores one vector store, built by two or three more
 * instructions than the stores it replaces.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define LOPE_SCALAR_STORES __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define LOPE_SCALAR_STORES
#endif

static const struct lope_reader lopelib_hw_reader = { lopelib_hw_pmc,
						      lopelib_hw_cycles, NULL };

/* Sign-extend the low @width bits of @pmc; the kernel keeps the rest in offset. */
static inline int64_t lopelib_sign_extend(uint64_t pmc, unsigned int width)
{
	/* 64 - width for a width of 1 to 64, as one negation: the shift
	 * instructions of x86, arm64 and riscv64 take the count modulo 64
	 * (on x86 the subtraction from 64 costs a register and, on the
	 * read path, its saving: 7 instructions a PAPI_read). */
	unsigned int shift = -width & 63;

	return (int64_t)(pmc << shift) >> shift;
}

/* Nanoseconds elapsed since the page's last update, from the clock value. */
static inline uint64_t
lopelib_mmap__time_delta(const volatile struct perf_event_mmap_page *pc,
			 uint64_t cyc)
{
	/* lopelib_mmap__read() refuses a shift of 64 or more; a writer may
	 * change it under the seqlock, and the retry discards this result,
	 * but the shift itself must stay defined. */
	uint16_t shift = pc->time_shift & 63;
	uint32_t mult = pc->time_mult;
	uint64_t quot, rem;

	if (pc->cap_user_time_short)
		cyc = pc->time_cycles +
		      ((cyc - pc->time_cycles) & pc->time_mask);
	quot = cyc >> shift;
	rem = cyc & (((uint64_t)1 << shift) - 1);
	return pc->time_offset + quot * mult + ((rem * mult) >> shift);
}

/*
 * The body of lopelib_mmap__read() and lopelib_mmap__read_enabled(): with
 * @enabled, a counter the kernel has taken off the PMU (index 0) is read
 * as the self-monitoring protocol describes: its count is the page's
 * offset, its enabled time runs on with the clock, its running time does
 * not.  Returns 0 (read from the counter), 1 (descheduled) or -EOPNOTSUPP.
 */
static inline __attribute__((always_inline)) int
lopelib_mmap__read_body(const volatile struct perf_event_mmap_page *pc,
			const struct lope_reader *rd, struct lope_counts *out,
			unsigned long *retries, int enabled)
{
	uint32_t seq, idx;
	uint64_t ena, run, delta, count, pmc;
	unsigned int width;

	for (;;) {
		seq = pc->lock;
		lopelib_arch_rmb();
		if (seq & 1)
			goto retry;
		ena = pc->time_enabled;
		run = pc->time_running;
		idx = pc->index;
		width = pc->pmc_width;
		if (!pc->cap_user_rdpmc || width == 0 || width > 64)
			return -EOPNOTSUPP;
		if (idx == 0) {
			if (!enabled || !pc->cap_user_time ||
			    pc->time_shift >= 64)
				return -EOPNOTSUPP;
			ena += lopelib_mmap__time_delta(pc,
							rd->cycles(rd->arg));
			count = pc->offset;
		} else {
			if (ena != run) {
				if (!pc->cap_user_time || pc->time_shift >= 64)
					return -EOPNOTSUPP;
				delta = lopelib_mmap__time_delta(
					pc, rd->cycles(rd->arg));
				ena += delta;
				run += delta;
			}
			if (!rd->pmc(rd->arg, idx - 1, &pmc))
				return -EOPNOTSUPP;
			/* Unsigned: the kernel's 64-bit count wraps. */
			count = (uint64_t)pc->offset +
				(uint64_t)lopelib_sign_extend(pmc, width);
		}
		lopelib_arch_rmb();
		if (pc->lock == seq)
			break;
retry:
		if (retries)
			(*retries)++;
	}
	out->val = count;
	out->ena = ena;
	out->run = run;
	return idx == 0;
}

/*
 * Read one counter through its page.  Returns 0 with @out filled, or
 * -EOPNOTSUPP when the page says the counter cannot be read in user space
 * right now (cap_user_rdpmc clear, index 0, a bad width, or multiplexed
 * without cap_user_time or with a bad time_shift), or the counter read
 * faulted (riscv64: the kernel took the counter away after the index was
 * read; lopelib_guard__install()): the caller must then use read(2).  rdpmc
 * is executed only after those checks pass.  @retries,
 * if not NULL, is incremented once per seqlock retry.
 */
static inline __attribute__((always_inline)) int
lopelib_mmap__read(const volatile struct perf_event_mmap_page *pc,
		   const struct lope_reader *rd, struct lope_counts *out,
		   unsigned long *retries)
{
	return lopelib_mmap__read_body(pc, rd, out, retries, 0);
}

/*
 * The same for an event the caller knows to be enabled: index 0 then
 * means the kernel multiplexed it off the PMU, and it is read without a
 * counter (returns 1).  Only for enabled events: a disabled one's page
 * also says index 0, and its enabled time does not run on.
 */
static inline __attribute__((always_inline)) int
lopelib_mmap__read_enabled(const volatile struct perf_event_mmap_page *pc,
			   const struct lope_reader *rd,
			   struct lope_counts *out, unsigned long *retries)
{
	return lopelib_mmap__read_body(pc, rd, out, retries, 1);
}

/* The page's capabilities word with only cap_user_rdpmc set. */
static inline uint64_t lopelib_mmap__cap_rdpmc(void)
{
	struct perf_event_mmap_page p = { .capabilities = 0 };

	p.cap_user_rdpmc = 1;
	return p.capabilities;
}

/*
 * The common case alone, in one pass of the seqlock: user access granted,
 * the counter on the PMU, and enabled time equal to running time (never
 * multiplexed), so no clock is read.  Returns true with @out filled as
 * lopelib_mmap__read() would; false for anything else, a writer in the way
 * included, and the caller reads with lopelib_mmap__read() or
 * lopelib_mmap__read_enabled().
 */
static inline __attribute__((always_inline)) bool
lopelib_mmap__read_plain(const volatile struct perf_event_mmap_page *pc,
			 const struct lope_reader *rd, struct lope_counts *out)
{
	uint32_t seq = pc->lock, idx;
	uint64_t ena, pmc, count;
	unsigned int width;

	lopelib_arch_rmb();
	idx = pc->index;
	ena = pc->time_enabled;
	/* One branch a check, in an order the compiler keeps apart; each
	 * field loaded where it is used, so that few stay live. */
	if (__builtin_expect(seq & 1, 0))
		return false;
	if (__builtin_expect(ena != pc->time_running, 0))
		return false;
	if (__builtin_expect(idx == 0, 0))
		return false;
	if (__builtin_expect(!(pc->capabilities & lopelib_mmap__cap_rdpmc()),
			     0))
		return false;
	if (__builtin_expect(!rd->pmc(rd->arg, idx - 1, &pmc), 0))
		return false;
	width = pc->pmc_width;
	if (__builtin_expect(width - 1 > 63, 0))
		return false;
	count = (uint64_t)pc->offset +
		(uint64_t)lopelib_sign_extend(pmc, width);
	lopelib_arch_rmb();
	if (pc->lock != seq)
		return false;
	out->val = count;
	out->ena = ena;
	out->run = ena;
	return true;
}

#endif /* LOPE_MMAP_READ_H */
