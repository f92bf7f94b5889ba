/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of lopelib_mmap__read(), lopelib_mmap__read_enabled() and
 * lopelib_mmap__read_plain(): the
 * user-space read of one counter from its self-monitoring page, driven
 * with simulated pages and fake counter and clock readers.  Every expected value is computed independently of
 * the engine (by hand in the tables, cross-checked with 128-bit arithmetic
 * in ref_value()/ref_delta()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mmap_read.h"
#include "report.h"
#include "rows.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* Simulated pages and fake readers                                    */

static struct perf_event_mmap_page *page_new(void)
{
	long sz = sysconf(_SC_PAGESIZE);
	void *p;

	if (sz <= 0)
		sz = 4096;
	p = aligned_alloc((size_t)sz, (size_t)sz);
	if (!p) {
		lope_fail("page_new", "aligned_alloc: %s", strerror(errno));
		lope_exit();
	}
	memset(p, 0, (size_t)sz);
	return p;
}

/* A fake counter and clock, read through rd. */
struct fake {
	struct lope_reader rd;
	uint64_t pmc_val;
	uint64_t cyc_val;
	unsigned int pmc_calls;
	unsigned int cyc_calls;
	uint32_t last_counter;
	/* optional: called inside pmc(), before it returns */
	void (*hook)(struct fake *f);
	struct perf_event_mmap_page *pc;
	int hook_left;
	bool fault; /* the read faults (riscv64's guarded csrr) */
};

static bool fake_pmc(void *arg, uint32_t counter, uint64_t *val)
{
	struct fake *f = arg;

	f->pmc_calls++;
	f->last_counter = counter;
	if (f->hook && f->hook_left > 0) {
		f->hook_left--;
		f->hook(f);
	}
	*val = f->pmc_val;
	return !f->fault;
}

static uint64_t fake_cycles(void *arg)
{
	struct fake *f = arg;

	f->cyc_calls++;
	return f->cyc_val;
}

/* A readable page: rdpmc allowed, index 1, width 48, ena == run. */
static void page_readable(struct perf_event_mmap_page *pc)
{
	pc->lock = 2;
	pc->cap_user_rdpmc = 1;
	pc->index = 1;
	pc->pmc_width = 48;
	pc->offset = 0;
	pc->time_enabled = 1000;
	pc->time_running = 1000;
}

/* @f: a counter of @pmc_val, not read yet, no hook; @pc made readable. */
static void fake_init(struct fake *f, struct perf_event_mmap_page *pc,
		      uint64_t pmc_val)
{
	memset(f, 0, sizeof(*f));
	f->rd.pmc = fake_pmc;
	f->rd.cycles = fake_cycles;
	f->rd.arg = f;
	f->pmc_val = pmc_val;
	f->pc = pc;
	page_readable(pc);
}

/*
 * FAIL @name's row (and return 1) when the read gave @rc instead of
 * @want_rc, or refused after reading the counter or the clock.
 */
static int wrong_rc(const char *name, int line, int rc, int want_rc,
		    const struct fake *f)
{
	if (rc != want_rc)
		lope_fail(name, "row line %d: rc %d, want %d", line, rc,
			  want_rc);
	else if (rc != 0 && (f->pmc_calls || f->cyc_calls))
		lope_fail(name,
			  "row line %d: refused after reading the counter %u "
			  "and the clock %u times",
			  line, f->pmc_calls, f->cyc_calls);
	else
		return 0;
	return 1;
}

/*
 * A table of alike rows, one case: @name passes when none of its @n rows
 * fails.  @row_fails(pc, f, i) sets up row @i on the readable page @pc,
 * reads it with the fake @f, and FAILs the row (returning 1) or gives 0.
 */
struct table {
	const char *name;
	int (*row_fails)(struct perf_event_mmap_page *pc, struct fake *f,
			 unsigned int i);
	unsigned int n;
};

/* Each row reads the same page, made readable again, with a new fake. */
static void run_rows(const struct table *t)
{
	struct perf_event_mmap_page *pc = page_new();
	unsigned int i, bad = 0;
	struct fake f;

	for (i = 0; i < t->n; i++) {
		fake_init(&f, pc, 0);
		bad += t->row_fails(pc, &f, i);
	}
	free(pc);
	if (!bad)
		lope_pass(t->name);
}

/* Independent reference: offset + (low @width bits of @pmc, signed). */
static uint64_t ref_value(int64_t offset, uint64_t pmc, unsigned int width)
{
	__int128 v, m;

	m = (__int128)1 << width;
	v = (__int128)(pmc & (uint64_t)(m - 1));
	if (v >= m / 2)
		v -= m;
	return (uint64_t)((__int128)offset + v);
}

/* Independent reference for the time delta (see perf_event.h). */
static uint64_t ref_delta(uint64_t time_offset, uint32_t mult, uint16_t shift,
			  int is_short, uint64_t time_cycles,
			  uint64_t time_mask, uint64_t cyc)
{
	unsigned __int128 c = cyc;

	if (is_short) {
		/* time_mask is 2^k - 1: "& mask" is "mod 2^k" */
		unsigned __int128 mod = (unsigned __int128)time_mask + 1;
		unsigned __int128 d =
			((unsigned __int128)cyc + ((unsigned __int128)1 << 64) -
			 time_cycles) %
			mod;
		c = (uint64_t)(time_cycles + (uint64_t)d);
	}
	return (uint64_t)(time_offset + (uint64_t)((c * mult) >> shift));
}

/* ------------------------------------------------------------------ */
/* a. counter width and sign extension                                 */

static const struct width_row {
	int line;
	unsigned int width;
	int64_t offset;
	uint64_t pmc;
	int want_rc;
	uint64_t want;
} width_rows[] = {
	{ __LINE__, 48, 1000, 0xFFFFFFFFFFFFull, 0, 999 },
	{ __LINE__, 48, 1000, 0xFFFFFFFFFFFFFFFFull, 0, 999 },
	{ __LINE__, 48, 1000, 0xDEAD000000000005ull, 0, 1005 },
	{ __LINE__, 48, 0, 0x7FFFFFFFFFFFull, 0, 0x7FFFFFFFFFFFull },
	{ __LINE__, 48, 0, 0x800000000000ull, 0, 0xFFFF800000000000ull },
	{ __LINE__, 48, 0x800000000000ll, 0x800000000000ull, 0, 0 },
	{ __LINE__, 48, -5, 0x10, 0, 11 },
	{ __LINE__, 48, -0x7FFFFFFFFFF0ll, 0xFFFF7FFFFFFFFFFFull, 0, 15 },
	{ __LINE__, 32, 0, 0xFFFFFFFFull, 0, 0xFFFFFFFFFFFFFFFFull },
	{ __LINE__, 32, 100, 0x1234567880000000ull, 0, 0xFFFFFFFF80000064ull },
	{ __LINE__, 32, 100, 0x7FFFFFFFull, 0, 0x80000063ull },
	{ __LINE__, 32, 0x100000000ll, 0xFFFFFFFFull, 0, 0xFFFFFFFFull },
	{ __LINE__, 40, 10, 0xFFFFFFFFFEull, 0, 8 },
	{ __LINE__, 40, 10, 0xAB7FFFFFFFFFull, 0, 0x8000000009ull },
	{ __LINE__, 40, 0, 0x8000000000ull, 0, 0xFFFFFF8000000000ull },
	{ __LINE__, 64, 1, 0xFFFFFFFFFFFFFFFFull, 0, 0 },
	{ __LINE__, 64, 0, 0x8000000000000000ull, 0, 0x8000000000000000ull },
	{ __LINE__, 64, 0x123, 0x1000, 0, 0x1123 },
	{ __LINE__, 63, 0, 0x4000000000000000ull, 0, 0xC000000000000000ull },
	{ __LINE__, 1, 0, 1, 0, 0xFFFFFFFFFFFFFFFFull },
	{ __LINE__, 1, 5, 0xFE, 0, 5 },
	{ __LINE__, 0, 1000, 5, -EOPNOTSUPP, 0 },
	{ __LINE__, 65, 1000, 5, -EOPNOTSUPP, 0 },
	{ __LINE__, 128, 1000, 5, -EOPNOTSUPP, 0 },
	{ __LINE__, 0xFFFF, 1000, 5, -EOPNOTSUPP, 0 },
};

static int width_row(struct perf_event_mmap_page *pc, struct fake *f,
		     unsigned int i)
{
	const struct width_row *r = &width_rows[i];
	struct lope_counts out = { 0, 0, 0 };
	int rc;

	f->pmc_val = r->pmc;
	pc->pmc_width = (uint16_t)r->width;
	pc->offset = r->offset;
	rc = lopelib_mmap__read(pc, &f->rd, &out, NULL);

	if (r->want_rc == 0 &&
	    !row_agrees("width_table", r->line, r->want,
			ref_value(r->offset, r->pmc, r->width)))
		return 1;
	if (wrong_rc("width", r->line, rc, r->want_rc, f))
		return 1;
	if (rc == 0 && out.val != r->want)
		lope_fail("width",
			  "row line %d: value %#" PRIx64 ", want %#" PRIx64,
			  r->line, out.val, r->want);
	else if (rc == 0 && (out.ena != 1000 || out.run != 1000))
		lope_fail("width",
			  "row line %d: ena/run %" PRIu64 "/%" PRIu64
			  ", want 1000/1000",
			  r->line, out.ena, out.run);
	else if (rc == 0 && (f->pmc_calls != 1 || f->last_counter != 0))
		lope_fail("width",
			  "row line %d: pmc called %u times "
			  "(counter %u), want once for counter 0",
			  r->line, f->pmc_calls, f->last_counter);
	else if (f->cyc_calls != 0)
		lope_fail("width",
			  "row line %d: clock read although "
			  "enabled == running",
			  r->line);
	else
		return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* b. the guards before rdpmc: cap_user_rdpmc and index                */

static const struct guard_row {
	int line;
	unsigned int cap_user_rdpmc;
	uint32_t index;
	unsigned int width;
	int want_rc;
	uint32_t want_counter;
} guard_rows[] = {
	{ __LINE__, 0, 1, 48, -EOPNOTSUPP, 0 },
	{ __LINE__, 1, 0, 48, -EOPNOTSUPP, 0 },
	{ __LINE__, 0, 0, 48, -EOPNOTSUPP, 0 },
	{ __LINE__, 0, 0, 0, -EOPNOTSUPP, 0 },
	{ __LINE__, 1, 0, 0, -EOPNOTSUPP, 0 },
	{ __LINE__, 0, 7, 64, -EOPNOTSUPP, 0 },
	{ __LINE__, 1, 1, 48, 0, 0 },
	{ __LINE__, 1, 2, 48, 0, 1 },
	{ __LINE__, 1, 32, 48, 0, 31 },
	{ __LINE__, 1, 0x40000001, 48, 0, 0x40000000 },
};

static int guard_row(struct perf_event_mmap_page *pc, struct fake *f,
		     unsigned int i)
{
	const struct guard_row *r = &guard_rows[i];
	struct lope_counts out = { 0, 0, 0 };
	unsigned long retries = 0;
	int rc;

	f->pmc_val = 7;
	pc->cap_user_rdpmc = r->cap_user_rdpmc;
	pc->index = r->index;
	pc->pmc_width = (uint16_t)r->width;
	pc->offset = 100;
	/* multiplexed, to show the clock is not read either */
	pc->time_running = 500;
	pc->cap_user_time = 1;
	pc->time_mult = 1;
	rc = lopelib_mmap__read(pc, &f->rd, &out, &retries);
	if (wrong_rc("guards", r->line, rc, r->want_rc, f))
		return 1;
	if (rc == 0 && (f->pmc_calls != 1 ||
			f->last_counter != r->want_counter || out.val != 107))
		lope_fail("guards",
			  "row line %d: pmc calls %u counter "
			  "%u value %" PRIu64 ", want 1 call, counter %u, "
			  "value 107",
			  r->line, f->pmc_calls, f->last_counter, out.val,
			  r->want_counter);
	else if (retries != 0)
		lope_fail("guards",
			  "row line %d: %lu retries on a "
			  "quiet page",
			  r->line, retries);
	else
		return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* c. enabled != running: the time conversion                          */

static const struct time_row {
	int line;
	uint64_t ena, run;
	unsigned int cap_time, cap_short;
	uint64_t time_offset;
	uint32_t mult;
	uint16_t shift;
	uint64_t time_cycles, time_mask;
	uint64_t cyc;
	int want_rc;
	int hand; /* want_delta below was computed by hand */
	uint64_t want_delta;
} time_rows[] = {
	/* enabled == running: the clock must not be read */
	{ __LINE__, 1000, 1000, 1, 0, 5, 1, 0, 0, 0, 77, 0, 1, 0 },
	{ __LINE__, 1000, 1000, 0, 0, 5, 1, 0, 0, 0, 77, 0, 1, 0 },
	{ __LINE__, 0, 0, 0, 0, 0, 0, 0, 0, 0, 77, 0, 1, 0 },
	/* multiplexed without cap_user_time: refused */
	{ __LINE__, 100, 50, 0, 0, 0, 1, 0, 0, 0, 1000, -EOPNOTSUPP, 1, 0 },
	{ __LINE__, 100, 50, 0, 1, 0, 1, 0, 0, ~0ull, 1000, -EOPNOTSUPP, 1, 0 },
	/* by hand */
	{ __LINE__, 100, 50, 1, 0, 0, 1, 0, 0, 0, 1000, 0, 1, 1000 },
	/* quot 3 rem 1: 7 + 3*3 + (1*3 >> 1) = 17 */
	{ __LINE__, 100, 50, 1, 0, 7, 3, 1, 0, 0, 7, 0, 1, 17 },
	/* mult 2^31 shift 31 is the identity */
	{ __LINE__, 100, 50, 1, 0, 0, 0x80000000u, 31, 0, 0, 12345, 0, 1,
	  12345 },
	/* time_offset is negative in practice: -1000 + 5000 */
	{ __LINE__, 100, 50, 1, 0, (uint64_t)-1000, 0x80000000u, 31, 0, 0, 5000,
	  0, 1, 4000 },
	/* cyc * mult overflows 64 bits (2^71): quot/rem split keeps it exact */
	{ __LINE__, 100, 50, 1, 0, 0, 0x80000000u, 31, 0, 0, 1ull << 40, 0, 1,
	  1ull << 40 },
	{ __LINE__, 100, 50, 1, 0, 0, 1, 1, 0, 0, ~0ull, 0, 1,
	  0x7FFFFFFFFFFFFFFFull },
	/* 0.4 ns per cycle (2.5 GHz TSC) */
	{ __LINE__, 100, 50, 1, 0, 0, 858993459u, 31, 0, 0, 2500000000ull, 0, 1,
	  999999999 },
	/* cap_user_time_short: 0xFFFFFFF0 + ((cyc - 0xFFFFFFF0) & 2^32-1) */
	{ __LINE__, 100, 50, 1, 1, 0, 1, 0, 0xFFFFFFF0ull, 0xFFFFFFFFull,
	  0xAB00000010ull, 0, 1, 0x100000010ull },
	{ __LINE__, 100, 50, 1, 1, 10, 1, 0, 1000, 0xFFull, 0x1000 + 1000, 0, 1,
	  10 + 1000 + 0 },
	{ __LINE__, 100, 50, 1, 1, 10, 1, 0, 1000, 0xFFull, 1000 + 0x1FF, 0, 1,
	  10 + 1000 + 0xFF },
	/* short with an all-ones mask is the plain conversion */
	{ __LINE__, 100, 50, 1, 1, 3, 3, 1, 99, ~0ull, 7, 0, 1, 13 },
	/* reference-computed rows */
	{ __LINE__, 7777, 1234, 1, 0, (uint64_t)-0x0123456789ll, 0x33333333u,
	  31, 0, 0, 0x0123456789ABCDEFull, 0, 0, 0 },
	{ __LINE__, 1ull << 62, 1ull << 61, 1, 0, 0x1000, 0xFFFFFFFFu, 32, 0, 0,
	  0xFFFFFFFFFFFFFFFFull, 0, 0, 0 },
	{ __LINE__, 5, 4, 1, 0, 0, 0x9D89D89Du, 30, 0, 0, 0x00FF00FF00FF00FFull,
	  0, 0, 0 },
	{ __LINE__, 5, 4, 1, 1, 12, 0x9D89D89Du, 30, 0x00FFFFFFFFFFFF00ull,
	  0x00FFFFFFFFFFFFFFull, 0x0100000000000123ull, 0, 0, 0 },
	{ __LINE__, 5, 4, 1, 1, 0, 0x41234567u, 29, 0x123456789ull,
	  0x0000FFFFFFFFFFFFull, 0x5555000012345678ull, 0, 0, 0 },
};

static int time_row(struct perf_event_mmap_page *pc, struct fake *f,
		    unsigned int i)
{
	const struct time_row *r = &time_rows[i];
	struct lope_counts out = { 0, 0, 0 };
	uint64_t ref, want_delta;
	int muxed = r->ena != r->run;
	int rc;

	f->pmc_val = 8;
	f->cyc_val = r->cyc;
	pc->offset = 42;
	pc->time_enabled = r->ena;
	pc->time_running = r->run;
	pc->cap_user_time = r->cap_time;
	pc->cap_user_time_short = r->cap_short;
	pc->time_offset = r->time_offset;
	pc->time_mult = r->mult;
	pc->time_shift = r->shift;
	pc->time_cycles = r->time_cycles;
	pc->time_mask = r->time_mask;

	ref = ref_delta(r->time_offset, r->mult, r->shift, r->cap_short,
			r->time_cycles, r->time_mask, r->cyc);
	want_delta = r->hand ? r->want_delta : ref;
	if (muxed && r->want_rc == 0 &&
	    !row_agrees("time_table", r->line, want_delta, ref))
		return 1;
	if (!muxed)
		want_delta = 0;

	rc = lopelib_mmap__read(pc, &f->rd, &out, NULL);
	if (wrong_rc("time", r->line, rc, r->want_rc, f))
		return 1;
	if (rc == 0 && f->cyc_calls != (unsigned int)muxed)
		lope_fail("time", "row line %d: clock read %u times, want %d",
			  r->line, f->cyc_calls, muxed);
	else if (rc == 0 && (out.ena != r->ena + want_delta ||
			     out.run != r->run + want_delta || out.val != 50))
		lope_fail("time",
			  "row line %d: got val/ena/run %" PRIu64 "/%#" PRIx64
			  "/%#" PRIx64 ", want 50/%#" PRIx64 "/%#" PRIx64,
			  r->line, out.val, out.ena, out.run,
			  r->ena + want_delta, r->run + want_delta);
	else
		return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* d. the seqlock, single-threaded: a writer that strikes mid-read      */

/* Simulates a complete kernel update between the reader's two lock loads. */
static void hook_update(struct fake *f)
{
	f->pc->offset += 100;
	f->pc->lock += 2;
}

/* The counter is scheduled out (index 0) while we read it. */
static void hook_deschedule(struct fake *f)
{
	f->pc->index = 0;
	f->pc->lock += 2;
}

/* A read of @pc (made readable) whose counter read sets off @hook @times. */
static int read_hooked(struct fake *f, struct perf_event_mmap_page *pc,
		       void (*hook)(struct fake *f), int times,
		       struct lope_counts *out, unsigned long *retries)
{
	fake_init(f, pc, 5);
	f->hook = hook;
	f->hook_left = times;
	return lopelib_mmap__read(pc, &f->rd, out, retries);
}

static void test_seqlock_single(void)
{
	struct perf_event_mmap_page *pc = page_new();
	struct fake f;
	struct lope_counts out = { 0, 0, 0 };
	unsigned long retries = 0;
	int rc;

	rc = read_hooked(&f, pc, hook_update, 3, &out, &retries);
	lope_check(
		rc == 0 && retries == 3 && f.pmc_calls == 4 && out.val == 305,
		"seqlock_a_read_overlapping_3_updates_retries_3_times_and_returns_the_last_consistent_value",
		"rc %d retries %lu pmc calls %u value %" PRIu64
		" (want 0, 3, 4, 305)",
		rc, retries, f.pmc_calls, out.val);

	/* NULL retries is accepted */
	rc = read_hooked(&f, pc, hook_update, 1, &out, NULL);
	lope_check(rc == 0 && f.pmc_calls == 2 && out.val == 105,
		   "seqlock_retries_pointer_may_be_null",
		   "rc %d pmc calls %u value %" PRIu64, rc, f.pmc_calls,
		   out.val);

	retries = 0;
	rc = read_hooked(&f, pc, hook_deschedule, 1, &out, &retries);
	lope_check(
		rc == -EOPNOTSUPP && f.pmc_calls == 1 && retries == 1,
		"seqlock_counter_descheduled_mid_read_falls_back_eopnotsupp_on_the_retry",
		"rc %d pmc calls %u retries %lu", rc, f.pmc_calls, retries);
	free(pc);
}

/*
 * A counter read that faults (riscv64: the kernel took the counter away
 * between the index and the csrr, and the guard skipped it) is no sample:
 * each read falls back at once, without a retry that would fault again.
 */
static void test_faulting_read(void)
{
	struct perf_event_mmap_page *pc = page_new();
	struct fake f;
	struct lope_counts out = { 7, 7, 7 };
	unsigned long retries = 0;
	int rc, rc_enabled;
	bool plain;

	fake_init(&f, pc, 100);
	f.fault = true;
	rc = lopelib_mmap__read(pc, &f.rd, &out, &retries);
	rc_enabled = lopelib_mmap__read_enabled(pc, &f.rd, &out, &retries);
	plain = lopelib_mmap__read_plain(pc, &f.rd, &out);
	lope_check(
		rc == -EOPNOTSUPP && rc_enabled == -EOPNOTSUPP && !plain &&
			f.pmc_calls == 3 && retries == 0 && out.val == 7,
		"a_faulting_counter_read_falls_back_at_once_in_each_read_no_retry_no_value",
		"rc %d, enabled %d, plain %d, %u counter reads, %lu retries, "
		"value %" PRIu64 " (want -EOPNOTSUPP twice, false, 3, 0, "
		"untouched 7)",
		rc, rc_enabled, plain, f.pmc_calls, retries, out.val);
	free(pc);
}

/* An odd lock (writer inside its critical section) makes the reader wait. */
struct odd_arg {
	struct perf_event_mmap_page *pc;
};

static void *odd_releaser(void *p)
{
	struct odd_arg *a = p;
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	a->pc->offset = 1000;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&a->pc->lock, 4, __ATOMIC_RELEASE);
	return NULL;
}

static void test_seqlock_odd(void)
{
	struct perf_event_mmap_page *pc = page_new();
	struct fake f;
	struct lope_counts out = { 0, 0, 0 };
	unsigned long retries = 0;
	struct odd_arg a = { pc };
	pthread_t t;
	int rc;

	fake_init(&f, pc, 5);
	pc->lock = 3;        /* writer in progress */
	pc->offset = 999999; /* half-written garbage */
	if (pthread_create(&t, NULL, odd_releaser, &a)) {
		lope_fail("seqlock_odd_lock", "pthread_create failed");
		free(pc);
		return;
	}
	rc = lopelib_mmap__read(pc, &f.rd, &out, &retries);
	pthread_join(t, NULL);
	lope_check(rc == 0 && retries > 0 && out.val == 1005 &&
			   f.pmc_calls == 1,
		   "seqlock_odd_lock_value_retries_until_the_writer_is_done",
		   "rc %d retries %lu value %" PRIu64 " pmc calls %u", rc,
		   retries, out.val, f.pmc_calls);
	lope_info("odd lock: %lu retries while the writer held it", retries);
	free(pc);
}

/* ------------------------------------------------------------------ */
/* e. the seqlock under a concurrent writer                            */

/*
 * The writer thread plays the kernel: generation g stores, under the
 * seqlock,
 *	index        = 1 + (g & 3)
 *	hw[g & 3]    = r(g) | garbage above bit 48   (the "hardware counter")
 *	offset       = (g << 20) - r(g)
 *	time_enabled = 5g + (g odd ? 1000 : 0), time_running = 5g
 *	time_offset  = 3g, time_mult = (g & 255) + 1  (time_shift 0)
 * with r(g) a pseudo-random 19-bit number.  The fake pmc returns
 * hw[counter] and the fake clock returns 1, so a consistent read gives
 *	val = g << 20 (low 20 bits zero),
 *	g even: ena = run = 5g,
 *	g odd:  ena = 8g + 1000 + (g & 255) + 1, run = 8g + (g & 255) + 1.
 * Any mix of two generations breaks one of these: index and hw from
 * different generations leave r bits in val's low 20 bits (r differs),
 * offset from another generation than ena/run/time_* changes g.
 */
struct conc {
	struct perf_event_mmap_page *pc;
	volatile uint64_t hw[4];
	int stop;       /* writer: stop writing */
	int readers_go; /* readers: keep reading */
	uint64_t gens;
	double seconds;
	int naive; /* readers use the unsynchronized read */
};

struct reader_res {
	struct conc *c;
	uint64_t reads, retries, torn, bad_rc;
	uint64_t plain; /* of the reads, those lopelib_mmap__read_plain() took */
	uint64_t ex_val, ex_ena, ex_run;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define wmb() __atomic_thread_fence(__ATOMIC_RELEASE)

static void *conc_writer(void *p)
{
	struct conc *c = p;
	volatile struct perf_event_mmap_page *pc = c->pc;
	double end = now_s() + c->seconds;
	uint64_t g = 0;

	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
		uint64_t m, r;

		g++;
		m = mix(g);
		r = m & 0x7FFFF;
		pc->lock++;
		wmb();
		pc->index = 1 + (uint32_t)(g & 3);
		c->hw[g & 3] = r | (m & 0xFFFF000000000000ull);
		pc->offset = (int64_t)(g << 20) - (int64_t)r;
		pc->time_enabled = 5 * g + ((g & 1) ? 1000 : 0);
		pc->time_running = 5 * g;
		pc->time_offset = 3 * g;
		pc->time_mult = (uint32_t)(g & 255) + 1;
		wmb();
		pc->lock++;
		if ((g & 1023) == 0 && now_s() >= end)
			break;
	}
	c->gens = g;
	__atomic_store_n(&c->readers_go, 0, __ATOMIC_RELEASE);
	return NULL;
}

static bool conc_pmc(void *arg, uint32_t counter, uint64_t *val)
{
	struct conc *c = arg;

	*val = c->hw[counter & 3];
	return true;
}

static uint64_t conc_cycles(void *arg)
{
	(void)arg;
	return 1;
}

static int conc_consistent(const struct lope_counts *o)
{
	uint64_t g = o->val >> 20;

	if (o->val & 0xFFFFF)
		return 0;
	if (g & 1)
		return o->ena == 8 * g + 1000 + (g & 255) + 1 &&
		       o->run == 8 * g + (g & 255) + 1;
	return o->ena == 5 * g && o->run == 5 * g;
}

/* The same field reads as lopelib_mmap__read() without the seqlock. */
static int naive_read(const volatile struct perf_event_mmap_page *pc,
		      const struct lope_reader *rd, struct lope_counts *out)
{
	uint64_t ena = pc->time_enabled, run = pc->time_running;
	uint32_t idx = pc->index;
	unsigned int width = pc->pmc_width;
	int64_t count;
	uint64_t pmc;

	if (ena != run) {
		uint64_t d = lopelib_mmap__time_delta(pc, rd->cycles(rd->arg));

		ena += d;
		run += d;
	}
	(void)rd->pmc(rd->arg, idx - 1, &pmc);
	count = pc->offset;
	count += lopelib_sign_extend(pmc, width);
	out->val = (uint64_t)count;
	out->ena = ena;
	out->run = run;
	return 0;
}

static void *conc_reader(void *p)
{
	struct reader_res *res = p;
	struct conc *c = res->c;
	struct lope_reader rd = { conc_pmc, conc_cycles, c };
	unsigned long retries = 0;

	while (__atomic_load_n(&c->readers_go, __ATOMIC_ACQUIRE)) {
		struct lope_counts o;
		int rc;

		/* Every other read tries the common case first. */
		if (c->naive)
			rc = naive_read(c->pc, &rd, &o);
		else if ((res->reads & 1) &&
			 lopelib_mmap__read_plain(c->pc, &rd, &o)) {
			rc = 0;
			res->plain++;
		} else
			rc = lopelib_mmap__read(c->pc, &rd, &o, &retries);
		res->reads++;
		if (rc) {
			res->bad_rc++;
			continue;
		}
		if (!conc_consistent(&o)) {
			if (!res->torn) {
				res->ex_val = o.val;
				res->ex_ena = o.ena;
				res->ex_run = o.run;
			}
			res->torn++;
		}
	}
	res->retries = retries;
	return NULL;
}

static int run_conc(int naive, int nreaders, double seconds,
		    struct reader_res *tot, uint64_t *gens)
{
	struct conc *c;
	struct reader_res res[2];
	pthread_t w, rt[2];
	int i;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -1;
	c->pc = page_new();
	page_readable(c->pc);
	/* generation 0 is consistent: val 0, ena = run = 0 */
	c->pc->time_enabled = 0;
	c->pc->time_running = 0;
	c->pc->cap_user_time = 1;
	c->pc->time_shift = 0;
	c->pc->time_mult = 1;
	c->readers_go = 1;
	c->seconds = seconds;
	c->naive = naive;
	memset(res, 0, sizeof(res));
	memset(tot, 0, sizeof(*tot));
	for (i = 0; i < nreaders; i++) {
		res[i].c = c;
		if (pthread_create(&rt[i], NULL, conc_reader, &res[i]))
			return -1;
	}
	if (pthread_create(&w, NULL, conc_writer, c))
		return -1;
	pthread_join(w, NULL);
	for (i = 0; i < nreaders; i++) {
		pthread_join(rt[i], NULL);
		tot->reads += res[i].reads;
		tot->retries += res[i].retries;
		tot->bad_rc += res[i].bad_rc;
		tot->plain += res[i].plain;
		if (res[i].torn && !tot->torn) {
			tot->ex_val = res[i].ex_val;
			tot->ex_ena = res[i].ex_ena;
			tot->ex_run = res[i].ex_run;
		}
		tot->torn += res[i].torn;
	}
	*gens = c->gens;
	free(c->pc);
	free(c);
	return 0;
}

static void test_seqlock_concurrent(void)
{
	struct reader_res r;
	uint64_t gens;
	int nreaders;

	for (nreaders = 1; nreaders <= 2; nreaders++) {
		char name[128];

		lope_name(
			name, sizeof(name),
			"seqlock: concurrent writer, %d reader%s, no torn read",
			nreaders, nreaders > 1 ? "s" : "");
		if (run_conc(0, nreaders, 1.0, &r, &gens)) {
			lope_fail(name, "could not start threads");
			continue;
		}
		lope_info("retries: %" PRIu64 " over %" PRIu64 " reads, "
			  "%" PRIu64 " of them plain (%d reader%s, %" PRIu64
			  " writer generations)",
			  r.retries, r.reads, r.plain, nreaders,
			  nreaders > 1 ? "s" : "", gens);
		if (r.reads == 0 || r.plain == 0 || gens < 1000)
			lope_fail(name,
				  "too little happened: %" PRIu64
				  " reads, %" PRIu64 " plain, %" PRIu64
				  " generations",
				  r.reads, r.plain, gens);
		else if (r.torn || r.bad_rc)
			lope_fail(name,
				  "%" PRIu64 " torn and %" PRIu64
				  " failed reads of %" PRIu64
				  "; e.g. val %#" PRIx64 " ena %" PRIu64
				  " run %" PRIu64,
				  r.torn, r.bad_rc, r.reads, r.ex_val, r.ex_ena,
				  r.ex_run);
		else
			lope_pass(name);
	}

	/* Negative control: the same reads without the seqlock tear. */
	if (run_conc(1, 1, 0.3, &r, &gens) == 0)
		lope_info("negative control: %" PRIu64 " of %" PRIu64
			  " unsynchronized reads were torn (the detector "
			  "%s)",
			  r.torn, r.reads,
			  r.torn ? "works" : "saw no tearing this time");
}

/* ------------------------------------------------------------------ */
/* e. an enabled event multiplexed off the PMU (index 0)                */

static const struct desched_row {
	int line;
	int enabled; /* lopelib_mmap__read_enabled() or not */
	uint32_t index;
	int cap_time, rdpmc;  /* cap_user_time, cap_user_rdpmc */
	uint64_t ena, run;    /* on the page */
	uint64_t time_offset; /* the clock's delta is time_offset + cycles */
	int want_rc;
	uint64_t want_val, want_ena, want_run;
	unsigned int want_pmc; /* counter reads */
} desched_rows[] = {
	/* descheduled: offset, enabled runs on, running does not */
	{ __LINE__, 1, 0, 1, 1, 1000, 1000, 0, 1, 777, 1500, 1000, 0 },
	{ __LINE__, 1, 0, 1, 1, 3000, 1000, 0, 1, 777, 3500, 1000, 0 },
	/* the clock's delta may be negative-offset: time_offset wraps */
	{ __LINE__, 1, 0, 1, 1, 3000, 1000, (uint64_t)-400, 1, 777, 3100, 1000,
	  0 },
	/* on a counter: read as always, both times run on */
	{ __LINE__, 1, 1, 1, 1, 3000, 1000, 0, 0, 777 + 5, 3500, 1500, 1 },
	/* not enabled, or no clock, or no user access: read(2) */
	{ __LINE__, 0, 0, 1, 1, 3000, 1000, 0, -EOPNOTSUPP, 0, 0, 0, 0 },
	{ __LINE__, 1, 0, 0, 1, 3000, 1000, 0, -EOPNOTSUPP, 0, 0, 0, 0 },
	{ __LINE__, 1, 0, 1, 0, 3000, 1000, 0, -EOPNOTSUPP, 0, 0, 0, 0 },
};

static int desched_row(struct perf_event_mmap_page *pc, struct fake *f,
		       unsigned int i)
{
	const struct desched_row *r = &desched_rows[i];
	struct lope_counts out = { 0, 0, 0 };
	int rc;

	f->pmc_val = 5;
	f->cyc_val = 500;
	pc->index = r->index;
	pc->cap_user_time = (uint64_t)r->cap_time;
	pc->cap_user_rdpmc = (uint64_t)r->rdpmc;
	pc->time_enabled = r->ena;
	pc->time_running = r->run;
	pc->offset = 777;
	/* delta = time_offset + cycles * 1 >> 0 */
	pc->time_offset = r->time_offset;
	pc->time_mult = 1;
	pc->time_shift = 0;
	rc = r->enabled ? lopelib_mmap__read_enabled(pc, &f->rd, &out, NULL) :
			  lopelib_mmap__read(pc, &f->rd, &out, NULL);
	if (rc == r->want_rc && f->pmc_calls == r->want_pmc &&
	    (rc < 0 || (out.val == r->want_val && out.ena == r->want_ena &&
			out.run == r->want_run)))
		return 0;
	lope_fail("descheduled",
		  "row line %d: rc %d (want %d), value %" PRIu64 " ena %" PRIu64
		  " run %" PRIu64 ", %u counter reads",
		  r->line, rc, r->want_rc, out.val, out.ena, out.run,
		  f->pmc_calls);
	return 1;
}

/* ------------------------------------------------------------------ */
/* f. lopelib_mmap__read_plain(): the common case alone                    */

static const struct plain_row {
	int line;
	const char *what;
	uint32_t lock, index;
	int rdpmc;
	unsigned int width;
	uint64_t ena, run;
	int writer; /* a kernel update between the two lock loads */
	int want;   /* true: read, as lopelib_mmap__read() reads */
	/* refused: the counter reads made first (the width is checked
	 * after the counter is read, where it is used) */
	unsigned int refused_pmc;
} plain_rows[] = {
	{ __LINE__, "readable", 2, 1, 1, 48, 1000, 1000, 0, 1, 0 },
	{ __LINE__, "counter 31, width 64", 2, 32, 1, 64, 1000, 1000, 0, 1, 0 },
	{ __LINE__, "width 1", 2, 3, 1, 1, 1000, 1000, 0, 1, 0 },
	{ __LINE__, "no user access", 2, 1, 0, 48, 1000, 1000, 0, 0, 0 },
	{ __LINE__, "off the PMU", 2, 0, 1, 48, 1000, 1000, 0, 0, 0 },
	{ __LINE__, "width 0", 2, 1, 1, 0, 1000, 1000, 0, 0, 1 },
	{ __LINE__, "width 65", 2, 1, 1, 65, 1000, 1000, 0, 0, 1 },
	{ __LINE__, "multiplexed", 2, 1, 1, 48, 1000, 999, 0, 0, 0 },
	{ __LINE__, "writer inside", 3, 1, 1, 48, 1000, 1000, 0, 0, 0 },
	{ __LINE__, "writer in between", 2, 1, 1, 48, 1000, 1000, 1, 0, 1 },
};

static int plain_row(struct perf_event_mmap_page *pc, struct fake *f,
		     unsigned int i)
{
	const struct plain_row *r = &plain_rows[i];
	struct fake g; /* the reference read's, without a hook */
	struct lope_counts out = { 1, 2, 3 }, ref = { 0, 0, 0 };
	bool ok;
	int rc = 0;

	f->pmc_val = 0xfffffffffff0;
	fake_init(&g, pc, f->pmc_val);
	pc->lock = r->lock;
	pc->index = r->index;
	pc->cap_user_rdpmc = (uint64_t)r->rdpmc;
	pc->pmc_width = (uint16_t)r->width;
	pc->offset = 1000000;
	pc->time_enabled = r->ena;
	pc->time_running = r->run;
	if (r->writer) {
		f->hook = hook_update;
		f->hook_left = 1;
	}
	ok = lopelib_mmap__read_plain(pc, &f->rd, &out);
	/* The reference: the general read of the same page. */
	if (r->want)
		rc = lopelib_mmap__read(pc, &g.rd, &ref, NULL);
	if (ok == (bool)r->want && f->cyc_calls == 0 &&
	    (!ok || (rc == 0 && out.val == ref.val && out.ena == ref.ena &&
		     out.run == ref.run && f->pmc_calls == 1 &&
		     f->last_counter == r->index - 1)) &&
	    (ok || f->pmc_calls == r->refused_pmc))
		return 0;
	lope_fail("plain",
		  "row line %d (%s): %s, value %" PRIu64 " ena %" PRIu64
		  " run %" PRIu64 " (reference rc %d: %" PRIu64 " %" PRIu64
		  " %" PRIu64 "), %u counter and %u clock reads",
		  r->line, r->what, ok ? "read" : "refused", out.val, out.ena,
		  out.run, rc, ref.val, ref.ena, ref.run, f->pmc_calls,
		  f->cyc_calls);
	return 1;
}

int main(void)
{
	static const struct table tables[] = {
		{ "width_sign_extension_at_widths_1_32_40_48_63_64_bad_widths_refused",
		  width_row, ARRAY_SIZE(width_rows) },
		{ "plain_reads_as_lope_mmap_read_where_the_counter_is_user_readable_on_the_pmu_and_never_multiplexed_refuses_anything_else_without_reading_the_counter_or_the_clock",
		  plain_row, ARRAY_SIZE(plain_rows) },
		{ "descheduled_an_enabled_event_off_the_pmu_reads_its_offset_its_enabled_time_runs_on",
		  desched_row, ARRAY_SIZE(desched_rows) },
		{ "guards_cap_user_rdpmc_0_index_0_width_0_never_read_the_counter_index_1_is_the_counter_number",
		  guard_row, ARRAY_SIZE(guard_rows) },
		{ "time_enabled_running_advanced_by_the_pages_clock_conversion_plain_and_cap_user_time_short",
		  time_row, ARRAY_SIZE(time_rows) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tables); i++)
		run_rows(&tables[i]);
	test_seqlock_single();
	test_seqlock_odd();
	test_seqlock_concurrent();
	test_faulting_read();
	return lope_done();
}
