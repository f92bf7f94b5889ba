/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The measured cases: {call, steps} rows sharing one loop.  A step calls
 * through its target's table (struct api), so the loop of a case is the
 * same code for PAPI, for the raw floor and for the empty functions, and
 * the difference of two totals is exactly the difference of the callees.
 */
#include <stdio.h>
#include <string.h>

#include "icount.h"

typedef int (*step_fn)(struct target *t);

static int st_start(struct target *t)
{
	return t->api->start(t->set);
}

static int st_stop(struct target *t)
{
	return t->api->stop(t->set, t->v);
}

static int st_read(struct target *t)
{
	return t->api->read(t->set, t->v);
}

static int st_accum(struct target *t)
{
	return t->api->accum(t->set, t->v);
}

static int st_reset(struct target *t)
{
	return t->api->reset(t->set);
}

/* TAU's and Caliper's pair: the values, then zero. */
static int st_read_reset(struct target *t)
{
	int rc = t->api->read(t->set, t->v);

	return rc ? rc : t->api->reset(t->set);
}

/*
 * One case: per iteration @before (uncounted), @measured (counted),
 * @after (uncounted).  start and stop alternate, each counted in its own
 * case; the others run on a started set.
 */
struct case_def {
	const char *call;
	step_fn before, measured, after;
	int running;
};

static const struct case_def cases[] = {
	{ "start", NULL, st_start, st_stop, 0 },
	{ "stop", st_start, st_stop, NULL, 0 },
	{ "read", NULL, st_read, NULL, 1 },
	{ "accum", NULL, st_accum, NULL, 1 },
	{ "reset", NULL, st_reset, NULL, 1 },
	{ "read_reset", NULL, st_read_reset, NULL, 1 },
};

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

const struct api null_api = {
	.start = null_set,
	.stop = null_vals,
	.read = null_vals,
	.accum = null_vals,
	.reset = null_set,
};

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

/* One iteration of @c on @t, the measured step between @m's on and off. */
static int iteration(const struct case_def *c, struct target *t,
		     struct meter *m)
{
	int rc;

	if (c->before && (rc = c->before(t)))
		return rc;
	m->on(m);
	rc = c->measured(t);
	m->off(m);
	if (rc || (c->after && (rc = c->after(t))))
		return rc;
	return 0;
}

/*
 * @n counted iterations of @c on @t, each after an uncounted one: what
 * the meter does after a call (callgrind writes a dump) leaves caches
 * cold, and the engine decides by the clock whether a sample is fresh
 * enough to reuse; the uncounted call brings both back to what a loop of
 * calls has.
 */
static int loop(const struct case_def *c, struct target *t, struct meter *m,
		long n)
{
	long i;
	int rc = 0;

	for (i = 0; i < n && !rc; i++) {
		rc = iteration(c, t, &warm_meter);
		if (!rc)
			rc = iteration(c, t, m);
	}
	return rc;
}

static void emit_err(const char *target, const char *call, int nev,
		     const char *what, int rc)
{
	emit("err %s %s %d %s failed (%d)", target, call, nev, what, rc);
}

static int run_case(const struct case_def *c, struct target *t, struct meter *m,
		    long n, int nev)
{
	char label[64];
	int rc = set_state(t, c);

	if (rc) {
		emit_err(t->name, c->call, nev, "setting the set up", rc);
		return -1;
	}
	snprintf(label, sizeof(label), "%s %s %d", t->name, c->call, nev);
	rc = loop(c, t, &warm_meter, WARMUP);
	if (!rc) {
		meter_begin(m, label, n);
		rc = loop(c, t, m, n);
	}
	if (rc) {
		emit_err(t->name, c->call, nev, c->call, rc);
		return -1;
	}
	meter_end(m);
	return 0;
}

/* Is @call one of @calls (NULL: all are)? */
static int wanted(const char *call, const char *const *calls)
{
	if (!calls)
		return 1;
	for (; *calls; calls++)
		if (!strcmp(*calls, call))
			return 1;
	return 0;
}

int run_cases(struct target *t, struct meter *m, long n, int nev,
	      const char *const *calls)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (wanted(cases[i].call, calls) &&
		    run_case(&cases[i], t, m, n, nev))
			rc = -1;
	return rc;
}

int run_null(struct meter *m, long n)
{
	long long v[MAX_EVENTS];
	struct target t = { .name = "null", .api = &null_api, .v = v };

	return run_cases(&t, m, n, 0, NULL);
}

void cases_err(const char *target, int nev, const char *why)
{
	char line[512];
	size_t i;

	oneline(line, sizeof(line), why);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		emit("err %s %s %d %s", target, cases[i].call, nev, line);
}
