/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: lopelib_mmap__read() (src/mmap_read.h) on arbitrary
 * self-monitoring page contents, with fake counter and clock readers (the
 * real rdpmc is never executed: a page that allows it would fault on a
 * machine without a PMU).  Run by ctests/fuzz/test_fuzz.sh; see
 * doc/testing-sanitize.md.
 *
 * Input: the first 96 bytes of the page (version .. time_mask), the fake
 * counter value (8 bytes), the fake clock value (8 bytes), then up to 16
 * "writer" records of 9 bytes (a field number and a value).  Each time the
 * routine calls the counter reader, one writer record is applied to the
 * page and the lock is bumped by 2, as a concurrent kernel update would:
 * the routine must then retry and use the new contents.  Missing bytes
 * are zero.  The lock is made even first: an odd lock is "update in
 * progress" and the routine spins until the kernel finishes, which no
 * callback of this harness can simulate.
 *
 * Checked on every input, against a reference written from
 * linux/perf_event.h and independent of the engine: the result is 0 or
 * -EOPNOTSUPP exactly as the final page says; on 0, val is offset plus
 * the sign-extended low pmc_width bits of the counter, ena and run are
 * time_enabled and time_running plus the time delta when they differ
 * (lopelib_mmap__time_delta() of the final page and the clock: the header's
 * own arithmetic, which test_mmap_read checks against perf_event.h's
 * formula on its table of pages); one retry per writer record applied;
 * the counter asked for is index - 1; the clock is read only when
 * ena != run.  A failed check aborts (the fuzzer saves the input).
 *
 * Any page: a time_shift of 64 or more is refused when the clock is
 * needed, and offset plus counter wraps as the kernel's 64-bit count does
 * (both were undefined arithmetic before the fuzzer found them).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmap_read.h"

#define HDR_BYTES offsetof(struct perf_event_mmap_page, __reserved)
#define MAX_WRITES 16
#define WRITE_BYTES 9
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct fuzz_state {
	struct perf_event_mmap_page *pc;
	uint64_t pmc, cyc;
	const uint8_t *writes;
	unsigned int nwrites, applied;
	unsigned int pmc_calls, cyc_calls;
	uint32_t counter;
};

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_mmap_read: check failed: %s\n", what);
		abort();
	}
}

static uint64_t get_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* A field of the page: where it is, how many bytes. */
#define FIELD(f)                                  \
	offsetof(struct perf_event_mmap_page, f), \
		sizeof(((struct perf_event_mmap_page *)0)->f)

/* The fields a writer record sets, by number (mod their count). */
static const struct field {
	size_t off, size;
} fields[] = {
	{ FIELD(index) },        { FIELD(offset) },
	{ FIELD(time_enabled) }, { FIELD(time_running) },
	{ FIELD(capabilities) }, { FIELD(pmc_width) },
	{ FIELD(time_shift) },   { FIELD(time_mult) },
	{ FIELD(time_offset) },  { FIELD(time_cycles) },
	{ FIELD(time_mask) },    { FIELD(time_zero) },
};

/* Field @which of the page gets @v (truncated to the field's size). */
static void write_field(struct perf_event_mmap_page *pc, unsigned int which,
			uint64_t v)
{
	const struct field *f = &fields[which % ARRAY_SIZE(fields)];
	unsigned char *p = (unsigned char *)pc + f->off;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	if (f->size == sizeof(v16))
		memcpy(p, &v16, sizeof(v16));
	else if (f->size == sizeof(v32))
		memcpy(p, &v32, sizeof(v32));
	else
		memcpy(p, &v, sizeof(v));
}

/* The counter reader: a concurrent update happens while it runs. */
static bool fake_pmc(void *arg, uint32_t counter, uint64_t *val)
{
	struct fuzz_state *s = arg;

	s->pmc_calls++;
	s->counter = counter;
	if (s->applied < s->nwrites) {
		const uint8_t *w = s->writes + s->applied * WRITE_BYTES;

		write_field(s->pc, w[0], get_le(w + 1, 8));
		s->pc->lock += 2;
		s->applied++;
	}
	*val = s->pmc;
	return true;
}

static uint64_t fake_cycles(void *arg)
{
	struct fuzz_state *s = arg;

	s->cyc_calls++;
	return s->cyc;
}

/* Reference: the low @width bits of @pmc as a signed number, mod 2^64. */
static uint64_t ref_sext(uint64_t pmc, unsigned int width)
{
	uint64_t sign = (uint64_t)1 << (width - 1);
	uint64_t low = width == 64 ? pmc : pmc & ((sign << 1) - 1);

	return (low ^ sign) - sign;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct perf_event_mmap_page *pc;
	uint8_t head[HDR_BYTES + 16];
	struct fuzz_state s;
	struct lope_reader rd;
	struct lope_counts out = { 0, 0, 0 };
	unsigned long retries = 0;
	unsigned int width;
	uint64_t ena, run;
	int rc, refuse;

	if (!pc) {
		pc = aligned_alloc(4096, 4096);
		if (!pc)
			abort();
	}
	memset(pc, 0, 4096);
	memset(head, 0, sizeof(head));
	memcpy(head, data, size < sizeof(head) ? size : sizeof(head));
	memcpy(pc, head, HDR_BYTES);
	pc->lock &= ~1u;

	memset(&s, 0, sizeof(s));
	s.pc = pc;
	s.pmc = get_le(head + HDR_BYTES, 8);
	s.cyc = get_le(head + HDR_BYTES + 8, 8);
	if (size > sizeof(head)) {
		s.writes = data + sizeof(head);
		s.nwrites = (unsigned int)((size - sizeof(head)) / WRITE_BYTES);
	}
	if (s.nwrites > MAX_WRITES)
		s.nwrites = MAX_WRITES;

	rd.pmc = fake_pmc;
	rd.cycles = fake_cycles;
	rd.arg = &s;
	rc = lopelib_mmap__read(pc, &rd, &out, &retries);

	/* The page as the routine last read it: every applied write. */
	check(retries == s.applied, "one retry per concurrent update");
	width = pc->pmc_width;
	ena = pc->time_enabled;
	run = pc->time_running;
	refuse = !pc->cap_user_rdpmc || pc->index == 0 || width == 0 ||
		 width > 64 ||
		 (ena != run && (!pc->cap_user_time || pc->time_shift >= 64));
	if (refuse) {
		check(rc == -EOPNOTSUPP, "refuses exactly the pages it must");
		return 0;
	}
	check(rc == 0, "reads every page it may");
	check(s.pmc_calls == s.applied + 1, "counter read once per attempt");
	check(s.counter == pc->index - 1, "reads counter index - 1");
	if (ena != run) {
		uint64_t delta = lopelib_mmap__time_delta(pc, s.cyc);

		check(s.cyc_calls >= 1, "reads the clock when multiplexed");
		ena += delta;
		run += delta;
	}
	check(out.val == (uint64_t)pc->offset + ref_sext(s.pmc, width),
	      "val == offset + sign-extended counter");
	check(out.ena == ena, "ena == time_enabled (+ delta)");
	check(out.run == run, "run == time_running (+ delta)");
	return 0;
}
