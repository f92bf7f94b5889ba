/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PAPI worker: every measured PAPI call, on sets of one event and of
 * all events; read, accum and reset on sets of 1..k events (scaling); the
 * first read after starting a new set against the second (cold/warm, with
 * the minor faults of each call); eight reads in a row after a start
 * (repeated reads).
 */
#include <stdio.h>
#include <string.h>

#include "papi.h"

#include "../tool.h"
#include "../worker.h"
#include "bench.h"

static const char *const sw_default_events[] = {
	"perf::TASK-CLOCK",
	"perf::PAGE-FAULTS",
	"perf::CONTEXT-SWITCHES",
};
static const char *const hw_default_events[] = {
	"PAPI_TOT_INS",
	"PAPI_TOT_CYC",
	"PAPI_BR_INS",
};

/*
 * Candidates that extend the chosen events for the scaling measurement,
 * in this order, each kept if the growing set can still be started:
 * software events up to SW_SCALE_MAX, presets up to the component's
 * num_cntrs (the counters the hardware has).
 */
static const char *const sw_scale_pool[] = {
	"perf::TASK-CLOCK",
	"perf::PAGE-FAULTS",
	"perf::CONTEXT-SWITCHES",
	"perf::CPU-MIGRATIONS",
	"perf::MINOR-FAULTS",
	"perf::MAJOR-FAULTS",
	"perf::CPU-CLOCK",
	/* libpfm4's aliases count as other events: the eighth and on */
	"perf::FAULTS",
	"perf::CS",
	"perf::MIGRATIONS",
};
static const char *const hw_scale_pool[] = {
	"PAPI_TOT_INS", "PAPI_TOT_CYC", "PAPI_BR_INS", "PAPI_BR_MSP",
	"PAPI_REF_CYC", "PAPI_LD_INS",  "PAPI_SR_INS", "PAPI_BR_CN",
	"PAPI_L1_DCM",  "PAPI_L2_TCM",  "PAPI_L3_TCM", "PAPI_BR_TKN",
};

struct papi_ctx {
	struct ctx c;
	int es;
	int nev;
	char **names; /* the set's events, for the cases that rebuild it */
	long long vals[MAX_EVENTS];
	long long acc[MAX_EVENTS];
};

/* A step of one PAPI call on the set; the call's error in c->err. */
#define PAPI_STEP(name, call)                                             \
	static int name(struct ctx *c)                                    \
	{                                                                 \
		struct papi_ctx *p = (struct papi_ctx *)c;                \
		int rc = (call);                                          \
		if (rc != PAPI_OK)                                        \
			snprintf(c->err, sizeof(c->err), "%s: %s", #call, \
				 PAPI_strerror(rc));                      \
		return rc != PAPI_OK;                                     \
	}

PAPI_STEP(st_start, PAPI_start(p->es))
PAPI_STEP(st_stop, PAPI_stop(p->es, p->vals))
PAPI_STEP(st_read, PAPI_read(p->es, p->vals))
PAPI_STEP(st_accum, PAPI_accum(p->es, p->acc))
PAPI_STEP(st_reset, PAPI_reset(p->es))

static int st_read_reset(struct ctx *c)
{
	return st_read(c) || st_reset(c);
}

/* prep: stop the set if it runs, then start it (untimed). */
static int prep_restart(struct ctx *c)
{
	struct papi_ctx *p = (struct papi_ctx *)c;
	int state = 0;

	if (PAPI_state(p->es, &state) == PAPI_OK && (state & PAPI_RUNNING) &&
	    st_stop(c))
		return 1;
	return st_start(c);
}

/* prep: a new event set of the same events, not started (untimed). */
static int prep_new_set(struct ctx *c)
{
	struct papi_ctx *p = (struct papi_ctx *)c;

	set_delete(&p->es);
	return worker_set_new(&p->es, p->names, p->nev, c->err,
			      sizeof(c->err)) != PAPI_OK;
}

/* The measured PAPI cases: {name, function} steps sharing bench_run(). */
struct papi_case {
	int running; /* the event set must be started first */
	struct bcase bc;
};

static const struct papi_case papi_cases[] = {
	{ 0,
	  { .nsteps = 2,
	    .steps = { { "start", st_start }, { "stop", st_stop } } } },
	{ 1, CASE1("read", st_read) },
	{ 1, CASE1("accum", st_accum) },
	{ 1, CASE1("reset", st_reset) },
	{ 1, CASE1("read_reset", st_read_reset) },
};

/* Scaling with the number of events: one set of each size. */
static const struct papi_case scale_cases[] = {
	{ 1, CASE1("s_read", st_read) },
	{ 1, CASE1("s_accum", st_accum) },
	{ 1, CASE1("s_reset", st_reset) },
};

/*
 * The first read after PAPI_start on a new event set (cold: the set's
 * pages and code paths are untouched) against the second (warm), with the
 * minor page faults of each step; and eight reads one after the other
 * after a restart (the seeds' "repeated calls").
 */
static const struct bcase cold_case = {
	.nsteps = 3,
	.steps = { { "c_start", st_start },
		   { "c_read1", st_read },
		   { "c_read2", st_read } },
	.prep = prep_new_set,
	.faults = 1,
	.max_n = COLD_N,
	.warmup = COLD_WARMUP,
};
static const struct bcase repeat_case = {
	.nsteps = NREPEAT,
	.steps = { { "rep1", st_read },
		   { "rep2", st_read },
		   { "rep3", st_read },
		   { "rep4", st_read },
		   { "rep5", st_read },
		   { "rep6", st_read },
		   { "rep7", st_read },
		   { "rep8", st_read } },
	.prep = prep_restart,
};

/* Can @names be added and started?  0 if yes, else why (naming the event,
 * or the set, whose start failed). */
static int try_events(char **names, int n, char *why, size_t len)
{
	return worker_set_try(names, n, n == 1 ? names[0] : "the set", why,
			      len);
}

/* The default events: presets if they can be added and started here. */
static int choose_events(char **out)
{
	char *hw[3], why[512], why2[512], line[1200];
	int i, nev;

	for (i = 0; i < 3; i++)
		hw[i] = (char *)hw_default_events[i];
	if (try_events(hw, 2, why, sizeof(why)) == PAPI_OK) {
		nev = try_events(hw, 3, why2, sizeof(why2)) == PAPI_OK ? 3 : 2;
		for (i = 0; i < nev; i++)
			out[i] = hw[i];
		snprintf(line, sizeof(line),
			 "hardware presets: they can be added and started%s%s",
			 nev == 2 ? "; third preset unusable: " : "",
			 nev == 2 ? why2 : "");
	} else {
		nev = 3;
		for (i = 0; i < nev; i++)
			out[i] = (char *)sw_default_events[i];
		snprintf(line, sizeof(line),
			 "software events: the hardware presets are unusable "
			 "(%s)",
			 why);
	}
	oneline(why, sizeof(why), line);
	emit("info choice %s", why);
	emit_list("events", out, nev);
	return nev;
}

/* Add to @out[0..n) the members of @pool that still start, up to @limit. */
static int grow_set(char **out, int n, const char *const *pool, int npool,
		    int limit)
{
	char why[512];
	int i, j, dup;

	for (i = 0; i < npool && n < limit; i++) {
		for (j = 0, dup = 0; j < n; j++)
			dup = dup || !strcmp(out[j], pool[i]);
		if (dup)
			continue;
		out[n] = (char *)pool[i];
		if (try_events(out, n + 1, why, sizeof(why)) == PAPI_OK)
			n++;
	}
	return n;
}

/*
 * The events of the scaling measurement: @names, then candidates from the
 * pool of their kind, each kept if the growing set still starts, up to
 * the counters available (software: SW_SCALE_MAX).  Returns the count.
 */
static int choose_scale(char **names, int nev, char **out, int cidx)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
	const char *const *pool = sw_scale_pool;
	int npool = ARRAY_SIZE(sw_scale_pool);
	int i, n, limit = SW_SCALE_MAX, sw = 1;

	for (i = 0; i < nev; i++)
		sw = sw && raw_is_software(names[i]);
	if (!sw) {
		pool = hw_scale_pool;
		npool = ARRAY_SIZE(hw_scale_pool);
		limit = ci && ci->num_cntrs > 0 ? ci->num_cntrs : nev;
	}
	if (limit > MAX_EVENTS)
		limit = MAX_EVENTS;
	if (limit < nev)
		limit = nev;
	for (n = 0; n < nev; n++)
		out[n] = names[n];
	n = grow_set(out, n, pool, npool, limit);
	if (sw)
		emit("info scale_why software events: up to %d, they need no "
		     "counter",
		     SW_SCALE_MAX);
	else
		emit("info scale_why hardware events: up to the %d counters "
		     "the component reports (num_cntrs)",
		     limit);
	emit_list("scale", out, n);
	return n;
}

/* Run the @ncases cases on one new set of @names[0..n). */
static void run_cases(const struct bench *b, const struct papi_case *cases,
		      int ncases, char **names, int n)
{
	struct papi_ctx p;
	char why[512];
	int c, state, rc;

	memset(&p, 0, sizeof(p));
	p.nev = n;
	p.names = names;
	rc = worker_set_new(&p.es, names, n, why, sizeof(why));
	for (c = 0; c < ncases && rc != PAPI_OK; c++)
		bench_case_err(&cases[c].bc, n, why);
	for (c = 0; c < ncases && rc == PAPI_OK; c++) {
		state = 0;
		PAPI_state(p.es, &state);
		if (cases[c].running && !(state & PAPI_RUNNING)) {
			int r = PAPI_start(p.es);

			if (r != PAPI_OK) {
				snprintf(why, sizeof(why), "PAPI_start: %s",
					 PAPI_strerror(r));
				bench_case_err(&cases[c].bc, n, why);
				continue;
			}
		} else if (!cases[c].running && (state & PAPI_RUNNING)) {
			PAPI_stop(p.es, p.vals);
		}
		bench_run(b, &cases[c].bc, &p.c, n);
	}
	if (rc == PAPI_OK)
		set_delete(&p.es);
}

/* Run one @bc that builds or restarts its set itself, on @names[0..n). */
static void run_first(const struct bench *b, const struct bcase *bc,
		      char **names, int n)
{
	struct papi_ctx p;

	memset(&p, 0, sizeof(p));
	p.nev = n;
	p.names = names;
	if (worker_set_new(&p.es, names, n, p.c.err, sizeof(p.c.err))) {
		bench_case_err(bc, n, p.c.err);
		return;
	}
	bench_run(b, bc, &p.c, n);
	set_delete(&p.es);
}

int papi_worker(long n, char **names, int nev, char **scale, int nscale)
{
	static char *auto_names[MAX_EVENTS], *auto_scale[MAX_EVENTS];
	int cidx, k, nsizes, sizes[MAX_SETS];
	struct bench b;
	char why[512];

	if (worker_hello(&cidx))
		return EX_FAIL;
	if (!nev) {
		nev = choose_events(auto_names);
		names = auto_names;
	} else if (try_events(names, nev, why, sizeof(why)) != PAPI_OK) {
		/* bad input is reported as such (exit 2) */
		emit("usage %s", why);
		return EX_USAGE;
	}
	if (!nscale) {
		nscale = choose_scale(names, nev, auto_scale, cidx);
		scale = auto_scale;
	}
	bench_open(&b, n);
	nsizes = set_sizes(nev, sizes);
	for (k = 0; k < nsizes; k++)
		run_cases(&b, papi_cases, ARRAY_SIZE(papi_cases), names,
			  sizes[k]);
	for (k = 1; k <= nscale; k++)
		run_cases(&b, scale_cases, ARRAY_SIZE(scale_cases), scale, k);
	run_first(&b, &cold_case, names, nev);
	run_first(&b, &repeat_case, names, nev);
	bench_close(&b);
	PAPI_shutdown();
	return EX_OK;
}
