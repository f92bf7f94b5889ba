/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_hw_overflow: PAPI_overflow and PAPI_profil on PAPI_TOT_INS, user
 * domain, over a loop of known length (ctests/lib/work.h's loop2: 2 user
 * instructions an iteration).  Skipped (each case, with the reason) where
 * the machine has no core PMU (ctests/lib/core_pmu.h), and where the
 * kernel cannot sample instructions (PAPI_overflow refuses).
 *
 * The kernel arms the counter one period T below its overflow and rearms
 * it at each interrupt, so a run that counted v instructions takes
 * exactly floor(v / T) interrupts, each one a call of the handler, however
 * long the calls around the loop.  Cases, RUNS runs each:
 *  - overflow_handler_calls_exact: the handler's calls are floor(v / T),
 *    v what PAPI_stop returns, and v covers the loop;
 *  - overflow_handler_on_the_set: every call names the set and has a bit
 *    set in its overflow vector;
 *  - profil_samples_in_the_loop: PAPI_profil over loop2's code counts
 *    floor(v / T) samples less at most 2: those whose interrupt came in
 *    the calls before or after the loop (each shorter than T, so at most
 *    one each).
 * T is 1,000,003 instructions (a prime, so no multiple of the loop's
 * period lines up) and the loop 10^7 iterations: 19 or 20 interrupts, a
 * rate far below the kernel's sampling limits.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>

#include "core_pmu.h"
#include "papi_util.h"
#include "work.h"

#define T 1000003LL
#define N 10000000UL
#define RUNS 3
/* loop2's code: a few instructions; the buckets cover more */
#define PROFIL_BYTES 256

static const char *const cases[] = {
	"overflow_handler_calls_exact",
	"overflow_handler_on_the_set",
	"profil_samples_in_the_loop",
};

static volatile sig_atomic_t calls, strays;
static int the_set = PAPI_NULL;

static void handler(int set, void *address, long long vector, void *context)
{
	(void)address;
	(void)context;
	calls++;
	if (set != the_set || vector == 0)
		strays++;
}

/* A user-domain set of PAPI_TOT_INS alone, and the event's code. */
static int make_set(int *set, int *code)
{
	int rc = make_empty_set(set);

	if (rc == PAPI_OK)
		rc = set_domain(*set, PAPI_DOM_USER);
	if (rc == PAPI_OK)
		rc = PAPI_event_name_to_code("PAPI_TOT_INS", code);
	if (rc == PAPI_OK)
		rc = PAPI_add_event(*set, *code);
	return rc;
}

/* One run of the loop between PAPI_start and PAPI_stop: its count in *v. */
static int run(int set, long long *v)
{
	int rc;

	calls = strays = 0;
	rc = PAPI_start(set);
	if (rc != PAPI_OK)
		return rc;
	loop2(N);
	return PAPI_stop(set, v);
}

static void overflow_cases(int set, int code)
{
	long long v = 0;
	int r, rc, exact = 1, mine = 1;
	char why[256] = "";

	rc = PAPI_overflow(set, code, (int)T, 0, handler);
	if (rc != PAPI_OK) {
		snprintf(why, sizeof(why),
			 "PAPI_overflow on PAPI_TOT_INS: %s (no sampling of "
			 "instructions here)",
			 papi_err(rc));
		lope_skip(cases[0], why);
		lope_skip(cases[1], why);
		return;
	}
	for (r = 0; r < RUNS && exact; r++) {
		rc = run(set, &v);
		if (rc != PAPI_OK) {
			lope_fail(cases[0], "run %d: %s", r, papi_err(rc));
			lope_fail(cases[1], "run %d: %s", r, papi_err(rc));
			return;
		}
		lope_info("run %d: %lld instructions, %d handler calls "
			  "(period %lld)",
			  r, v, (int)calls, T);
		if (v < 2 * (long long)N || calls != v / T) {
			snprintf(why, sizeof(why),
				 "run %d: %d calls for %lld instructions, want "
				 "%lld (and at least %lu instructions)",
				 r, (int)calls, v, v / T, 2 * N);
			exact = 0;
		}
		mine &= strays == 0;
	}
	if (exact)
		lope_pass(cases[0]);
	else
		lope_fail(cases[0], "%s", why);
	lope_check(mine, cases[1], "%d calls of another set or vector",
		   (int)strays);
	rc = PAPI_overflow(set, code, 0, 0, handler);
	if (rc != PAPI_OK)
		lope_fail(cases[0], "turning overflow off: %s", papi_err(rc));
}

static void profil_case(int set, int code)
{
	static unsigned short buf[PROFIL_BYTES / 2];
	long long v = 0, sum;
	unsigned i;
	int r, rc;

	/* scale 65536: a bucket of 2 bytes, from loop2's first */
	rc = PAPI_profil(buf, sizeof(buf), (vptr_t)loop2, 65536, set, code,
			 (int)T, PAPI_PROFIL_POSIX);
	if (rc != PAPI_OK) {
		lope_skip(cases[2], papi_err(rc));
		return;
	}
	for (r = 0; r < RUNS; r++) {
		memset(buf, 0, sizeof(buf));
		rc = run(set, &v);
		if (rc != PAPI_OK) {
			lope_fail(cases[2], "run %d: %s", r, papi_err(rc));
			break;
		}
		for (sum = 0, i = 0; i < sizeof(buf) / sizeof(buf[0]); i++)
			sum += buf[i];
		lope_info("profil run %d: %lld instructions, %lld samples in "
			  "loop2's %d bytes",
			  r, v, sum, PROFIL_BYTES);
		if (sum > v / T || sum < v / T - 2) {
			lope_fail(cases[2],
				  "run %d: %lld samples in the loop for %lld "
				  "interrupts (%lld instructions)",
				  r, sum, v / T, v);
			break;
		}
	}
	if (r == RUNS)
		lope_pass(cases[2]);
	PAPI_profil(buf, sizeof(buf), (vptr_t)loop2, 65536, set, code, 0,
		    PAPI_PROFIL_POSIX);
}

int main(void)
{
	int code = 0, rc, i;

	if (!lope_core_pmu()) {
		for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++)
			lope_skip(cases[i], LOPE_NO_CORE_PMU_REASON);
		return lope_done();
	}
	papi_init_or_exit();
	rc = make_set(&the_set, &code);
	if (rc != PAPI_OK) {
		for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++)
			lope_skip(cases[i], papi_err(rc));
		drop_set(&the_set);
		return lope_done();
	}
	overflow_cases(the_set, code);
	profil_case(the_set, code);
	drop_set(&the_set);
	return lope_done();
}
