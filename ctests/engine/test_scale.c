/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of lope_scale(val, ena, run): floor(val * ena / run) computed
 * exactly with a 128-bit intermediate, val itself when ena == run, never
 * wrapping (a result above 2^64-1 saturates).  Expected values are written
 * by hand and cross-checked against an independent 128-bit reference.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "lope.h"
#include "report.h"
#include "rows.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define U64MAX UINT64_MAX

/* The reference: exact floor, clamped to 64 bits; only for run != 0. */
static uint64_t ref_scale(uint64_t val, uint64_t ena, uint64_t run)
{
	unsigned __int128 q = (unsigned __int128)val * ena / run;

	return q > (unsigned __int128)U64MAX ? U64MAX : (uint64_t)q;
}

static const struct scale_row {
	int line;
	uint64_t val, ena, run;
	uint64_t want;
} rows[] = {
	/* never ran: nothing to scale */
	{ __LINE__, 0, 0, 0, 0 },
	{ __LINE__, 0, 100, 0, 0 },
	/* not multiplexed: exact identity, even at the extremes */
	{ __LINE__, 12345, 100, 100, 12345 },
	{ __LINE__, U64MAX, 5, 5, U64MAX },
	{ __LINE__, U64MAX, U64MAX, U64MAX, U64MAX },
	{ __LINE__, 123456789, 987654321987ull, 987654321987ull, 123456789 },
	{ __LINE__, 0, 7, 3, 0 },
	/* plain multiplexing */
	{ __LINE__, 1000, 200, 100, 2000 },
	{ __LINE__, 1000, 300, 200, 1500 },
	{ __LINE__, 10, 2, 3, 6 },  /* 6.67 rounds down */
	{ __LINE__, 7, 10, 3, 23 }, /* 23.33 */
	/* ena < run cannot happen, but the result is still the floor */
	{ __LINE__, 1000, 1, 3, 333 },
	{ __LINE__, 999, 1, U64MAX, 0 },
	/* val * ena overflows 64 bits; the 128-bit intermediate is exact */
	{ __LINE__, 1ull << 62, 1ull << 40, 1ull << 39, 1ull << 63 },
	{ __LINE__, 0x7FFFFFFFFFFFFFFFull, 3000000000ull, 4000000000ull,
	  0x5FFFFFFFFFFFFFFFull },
	{ __LINE__, 1000000000000000000ull, 1000000000000ull, 999999999999ull,
	  1000000000001000000ull },
	{ __LINE__, U64MAX, U64MAX - 1, U64MAX, U64MAX - 1 },
	{ __LINE__, 1, U64MAX, 1, U64MAX },
	{ __LINE__, 3, U64MAX, 3, U64MAX },
	{ __LINE__, 5000000000ull, 10000000000ull, 7000000000ull,
	  7142857142ull },
	{ __LINE__, 1ull << 63, 3, 2, 0xC000000000000000ull },
	/* the true result exceeds 2^64-1: saturate, never wrap */
	{ __LINE__, U64MAX, 2, 1, U64MAX },
	{ __LINE__, 1ull << 63, 5, 2, U64MAX },
	{ __LINE__, 3, U64MAX, 2, U64MAX },
};

static void test_table(void)
{
	unsigned int i, bad = 0;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct scale_row *r = &rows[i];
		uint64_t got;

		if (r->run != 0 && r->ena != r->run &&
		    !row_agrees("scale_table", r->line, r->want,
				ref_scale(r->val, r->ena, r->run))) {
			bad++;
			continue;
		}
		got = lope_scale(r->val, r->ena, r->run);
		if (got != r->want) {
			lope_fail("scale",
				  "row line %d: lope_scale(%" PRIu64
				  ", %" PRIu64 ", %" PRIu64 ") = %" PRIu64
				  ", want %" PRIu64,
				  r->line, r->val, r->ena, r->run, got,
				  r->want);
			bad++;
		}
	}
	if (!bad)
		lope_pass(
			"scale_table_of_exact_overflowing_and_saturating_cases");
}

/* xorshift64*: deterministic, so a failure can be reproduced. */
static uint64_t rnd_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545F4914F6CDD1Dull;
}

/* A random number of random magnitude (1 to 64 bits). */
static uint64_t rnd_mag(void)
{
	unsigned int bits = (unsigned int)(rnd() % 64) + 1;

	return bits == 64 ? rnd() : rnd() & ((1ull << bits) - 1);
}

static void test_random(void)
{
	unsigned int i, n = 1000000;

	for (i = 0; i < n; i++) {
		uint64_t val = rnd_mag(), run = rnd_mag(), ena, got, want;

		/* mostly realistic ena >= run, sometimes anything */
		ena = (i & 7) ? run + (rnd_mag() >> (rnd() % 64)) : rnd_mag();
		if (ena < run && (i & 7))
			ena = run; /* the addition wrapped */
		if (run == 0)
			run = 1;
		got = lope_scale(val, ena, run);
		want = ena == run ? val : ref_scale(val, ena, run);
		if (got != want) {
			lope_fail("scale_random",
				  "case %u: lope_scale(%" PRIu64 ", %" PRIu64
				  ", %" PRIu64 ") = %" PRIu64 ", want %" PRIu64,
				  i, val, ena, run, got, want);
			return;
		}
		if (ena >= run && got < val) {
			lope_fail("scale_random",
				  "case %u: scaling up gave %" PRIu64
				  " < val %" PRIu64 " (wrapped?)",
				  i, got, val);
			return;
		}
	}
	lope_pass(
		"scale_1000000_random_cases_agree_with_the_128_bit_reference_and_never_wrap");
}

int main(void)
{
	test_table();
	test_random();
	return lope_done();
}
