/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table of cases, and the one loop that measures each of them with
 * any meter.  A step calls through its target's table (struct api), so the
 * loop of a case is the same code for PAPI, for the raw floor and for the
 * empty functions, and the difference of two counts is exactly the
 * difference of the callees.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "papi.h"

#include "../papi_common.h"
#include "overhead.h"

/* A step of one call through the target's table. */
#define STEP(name, call)                                            \
	static int name(struct target *t, const struct case_def *c) \
	{                                                           \
		(void)c;                                            \
		return t->api->call;                                \
	}

STEP(st_start, start(t->set))
STEP(st_stop, stop(t->set, t->v))
STEP(st_read, read(t->set, t->v))
STEP(st_accum, accum(t->set, t->v))
STEP(st_reset, reset(t->set))

#define SPIN_ITERS 100000L

volatile sig_atomic_t samples;

const char *const loop_calls[] = { "loop", NULL };
const char *const sample_calls[] = { "sample", NULL };

/* Arithmetic the compiler must keep: about 3 instructions an iteration. */
static __attribute__((noinline)) void spin(long n)
{
	volatile long acc = 0;

	while (n-- > 0)
		acc += n;
}

/* sampling.c's step: the spin. */
static int st_spin(struct target *t, const struct case_def *c)
{
	(void)t;
	(void)c;
	spin(SPIN_ITERS);
	return 0;
}

/* TAU's and Caliper's pair: the values, then zero. */
static int st_read_reset(struct target *t, const struct case_def *c)
{
	int rc = st_read(t, c);

	return rc ? rc : st_reset(t, c);
}

/*
 * Before the k-th read after a start, and before a call on a new set
 * (CASE_NEW: its pages and code paths untouched): the set stopped (or a
 * new one), started if @c runs on a started set, then @c->nth reads.
 */
static int st_again(struct target *t, const struct case_def *c)
{
	char why[256];
	int rc, i;

	if (c->flags & CASE_NEW) {
		drop_set(&t->set);
		rc = worker_set_new(&t->set, t->names, t->nev, why,
				    sizeof(why));
	} else {
		rc = st_stop(t, c);
	}
	if (!rc && c->running)
		rc = st_start(t, c);
	for (i = 0; i < c->nth && !rc; i++)
		rc = st_read(t, c);
	return rc;
}

/* Versions 14 and 19 of clang-format lay out a macro that is a braced
 * initialiser differently (test_format.sh checks with both). */
/* clang-format off */
#define CALL(id, label, floor, before, measured, after, running)	\
	{ id, label, floor, id, before, measured, after, running, 0, 0 }
#define AGAIN(id, label, floor, measured, after, running, flags, nth) \
	{ id, label, floor, floor, st_again, measured, after, running,  \
	  CASE_SET3 | (flags), nth }
#define NEW(id, label, nth) AGAIN(id, label, "read", st_read, NULL, 1, \
				  CASE_NEW | CASE_FAULTS, nth)
#define NTH(k) AGAIN("read" #k, "PAPI_read/" #k, "read", st_read, NULL, 1, \
		     0, k - 1)
/* clang-format on */

/*
 * start and stop alternate, each counted in its own case; the others run
 * on a started set.  Then, on the set of SET3 events only: PAPI_start on a
 * new set and its first two reads (cold: the set is new), and the k-th
 * read after a start.
 */
const struct case_def cases[] = {
	CALL("start", "PAPI_start", "start", NULL, st_start, st_stop, 0),
	CALL("stop", "PAPI_stop", "stop", st_start, st_stop, NULL, 0),
	CALL("read", "PAPI_read", "read", NULL, st_read, NULL, 1),
	CALL("accum", "PAPI_accum", "read", NULL, st_accum, NULL, 1),
	CALL("reset", "PAPI_reset", "reset", NULL, st_reset, NULL, 1),
	CALL("read_reset", "PAPI_read+reset", "read", NULL, st_read_reset, NULL,
	     1),
	AGAIN("new_start", "PAPI_start/new", "start", st_start, st_stop, 0,
	      CASE_NEW | CASE_FAULTS, 0),
	NEW("new_read1", "PAPI_read/new1", 0),
	NEW("new_read2", "PAPI_read/new2", 1),
	NTH(1),
	NTH(2),
	NTH(3),
	NTH(4),
	NTH(5),
	NTH(6),
	NTH(7),
	NTH(8),
	/* sampling.c's: a spin on the started set, less the empty target's
	 * spin; the floor's is a bare sampling group's */
	{ "loop", "spin", "loop", "loop", NULL, st_spin, NULL, 1, CASE_SAMPLES,
	  0 },
	{ "sample", "spin, sampled", "sample", "loop", NULL, st_spin, NULL, 1,
	  CASE_SAMPLES, 0 },
};
const int ncases = ARRAY_SIZE(cases);

const struct case_def *case_find(const char *call)
{
	int i;

	for (i = 0; i < ncases; i++)
		if (!strcmp(cases[i].call, call))
			return &cases[i];
	return NULL;
}

/* The empty functions: what a call costs that does nothing. */
static int null_set(int set)
{
	(void)set;
	return 0;
}

static int null_vals(int set, long long *v)
{
	(void)set;
	(void)v;
	return 0;
}

static const struct api null_api = { null_set, null_vals, null_vals, null_vals,
				     null_set };
const struct api papi_api = { PAPI_start, PAPI_stop, PAPI_read, PAPI_accum,
			      PAPI_reset };

static void nop_meter(struct meter *m)
{
	(void)m;
}

/* For the warm-up: counts nothing. */
static struct meter warm_meter = { .on = nop_meter, .off = nop_meter };

/* Bring @t to the state @c needs; 0 or the failing call's error. */
static int set_state(struct target *t, const struct case_def *c)
{
	int rc = 0;

	if (c->running && !t->running)
		rc = t->api->start(t->set);
	else if (!c->running && t->running)
		rc = t->api->stop(t->set, t->v);
	if (!rc)
		t->running = c->running;
	return rc;
}

static long minflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_minflt;
}

/* One iteration of @c on @t, the measured step between @m's on and off;
 * the minor faults around it (getrusage, outside the window) or the
 * samples in it, if asked. */
static int iteration(const struct case_def *c, struct target *t,
		     struct meter *m)
{
	long f0 = 0;
	uint64_t s0;
	int rc;

	if (c->before && (rc = c->before(t, c)))
		return rc;
	if (c->flags & CASE_FAULTS)
		f0 = minflt();
	s0 = (uint64_t)samples;
	m->on(m);
	rc = c->measured(t, c);
	m->off(m);
	if (c->flags & CASE_FAULTS)
		meter_extra(m, (uint64_t)(minflt() - f0));
	if (c->flags & CASE_SAMPLES)
		meter_extra(m, (uint64_t)samples - s0);
	if (!rc && c->after)
		rc = c->after(t, c);
	return rc;
}

/*
 * @n counted iterations of @c on @t, with an exact meter each after an
 * uncounted one: what the meter does after a call (callgrind writes a
 * dump, the counter reads its counters) leaves caches cold, and the
 * engine decides by the clock whether a sample is fresh enough to reuse;
 * the uncounted call brings both back to what a loop of calls has.
 */
static int loop(const struct case_def *c, struct target *t, struct meter *m,
		long n)
{
	long i;
	int rc = 0;

	for (i = 0; i < n && !rc; i++) {
		if (m->interleave)
			rc = iteration(c, t, &warm_meter);
		if (!rc)
			rc = iteration(c, t, m);
	}
	return rc;
}

/* @n calls of @c on @t counted by @m, its system calls by m->apart in
 * at most SYS_N more. */
static int run_case(const struct case_def *c, struct target *t, struct meter *m,
		    long n, int nev)
{
	char label[64];
	int rc = set_state(t, c);

	if (rc) {
		emit("err %s %s %d setting the set up failed (%d)", t->name,
		     c->call, nev, rc);
		return -1;
	}
	if ((c->flags & CASE_SET3) && n > NEW_SET_N)
		n = NEW_SET_N;
	if ((c->flags & CASE_SAMPLES) && n > SAMPLE_N)
		n = SAMPLE_N;
	snprintf(label, sizeof(label), "%s %s %d", t->name, c->call, nev);
	rc = loop(c, t, &warm_meter, WARMUP);
	if (!rc) {
		meter_begin(m, label, n);
		rc = loop(c, t, m, n);
	}
	if (!rc && m->apart) {
		meter_begin(m->apart, label, n < SYS_N ? n : SYS_N);
		rc = loop(c, t, m->apart, n < SYS_N ? n : SYS_N);
	}
	if (rc) {
		emit("err %s %s %d %s failed (%d)", t->name, c->call, nev,
		     c->call, rc);
		return -1;
	}
	meter_end(m);
	return 0;
}

/* Is case @c one of @calls (NULL: every case but the sampling ones)? */
static int wanted(const struct case_def *c, const char *const *calls)
{
	if (!calls)
		return !(c->flags & CASE_SAMPLES);
	for (; *calls; calls++)
		if (!strcmp(*calls, c->call))
			return 1;
	return 0;
}

int run_cases(struct target *t, struct meter *m, long n, int nev, int set3,
	      const char *const *calls)
{
	const struct case_def *c;
	int rc = 0;

	for (c = cases; c < cases + ncases; c++)
		if (wanted(c, calls) &&
		    (!(c->flags & CASE_SET3) ||
		     (set3 && !strcmp(t->name, "papi"))) &&
		    run_case(c, t, m, n, nev))
			rc = -1;
	return rc;
}

int run_null(struct meter *m, long n)
{
	long long v[MAX_EVENTS];
	struct target t = { .name = "null", .api = &null_api, .v = v };

	return run_cases(&t, m, n, 0, 0, NULL) |
	       run_cases(&t, m, n, 0, 0, loop_calls);
}

void cases_err(const char *target, int nev, const char *why)
{
	char line[512];
	int i;

	oneline(line, sizeof(line), why);
	for (i = 0; i < NCALLS; i++)
		emit("err %s %s %d %s", target, cases[i].call, nev, line);
}
