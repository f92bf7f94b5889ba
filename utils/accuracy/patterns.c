/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker: PAPI_TOT_INS (-e) around the null and the loop benchmark,
 * in each access pattern and domain.  It sends its path's rows of the
 * report, "null", "loop" and "hw" (the parent puts the path's name
 * first), and an "err" line for each case that failed.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"

#include "../papi_common.h"
#include "accuracy.h"

#define WARMUP 10

long loop_n = 1;

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

struct actx {
	const char *event; /* the instructions event (-e) */
	long reps;         /* repetitions per case (-n) */
	int es;
	int rc[3];
	long long v0[1], v1[1], junk[1];
	long long count;
	char err[512];
	int64_t *diff; /* each repetition's error, a->reps of them */
};

/* 0 if the three calls of a pattern succeeded, else 1 with a->err set. */
static int acc_check(struct actx *a, const char *c0, const char *c1,
		     const char *c2)
{
	const char *names[3] = { c0, c1, c2 };
	int i;

	for (i = 0; i < 3; i++)
		if (names[i] && a->rc[i] != PAPI_OK) {
			snprintf(a->err, sizeof(a->err), "%s: %s", names[i],
				 PAPI_strerror(a->rc[i]));
			return 1;
		}
	return 0;
}

/*
 * The patterns, once per benchmark.  Only the benchmark lies between the
 * two measurement calls (and what the compiler needs to make the second
 * call: that is part of the error, as for any caller).  Not inlined, so
 * every pattern keeps one shape.
 */
#define ACC_PATTERNS(B, BENCH)                                               \
	static __attribute__((noinline)) int start_read_##B(struct actx *a)  \
	{                                                                    \
		a->rc[0] = PAPI_start(a->es);                                \
		BENCH;                                                       \
		a->rc[1] = PAPI_read(a->es, a->v1);                          \
		a->rc[2] = PAPI_stop(a->es, a->junk);                        \
		a->count = a->v1[0];                                         \
		return acc_check(a, "PAPI_start", "PAPI_read", "PAPI_stop"); \
	}                                                                    \
	static __attribute__((noinline)) int start_stop_##B(struct actx *a)  \
	{                                                                    \
		a->rc[0] = PAPI_start(a->es);                                \
		BENCH;                                                       \
		a->rc[1] = PAPI_stop(a->es, a->v1);                          \
		a->count = a->v1[0];                                         \
		return acc_check(a, "PAPI_start", "PAPI_stop", NULL);        \
	}                                                                    \
	static __attribute__((noinline)) int read_read_##B(struct actx *a)   \
	{                                                                    \
		a->rc[0] = PAPI_read(a->es, a->v0);                          \
		BENCH;                                                       \
		a->rc[1] = PAPI_read(a->es, a->v1);                          \
		a->count = a->v1[0] - a->v0[0];                              \
		return acc_check(a, "PAPI_read", "PAPI_read", NULL);         \
	}                                                                    \
	static __attribute__((noinline)) int read_stop_##B(struct actx *a)   \
	{                                                                    \
		a->rc[0] = PAPI_start(a->es);                                \
		a->rc[1] = PAPI_read(a->es, a->v0);                          \
		BENCH;                                                       \
		a->rc[2] = PAPI_stop(a->es, a->v1);                          \
		a->count = a->v1[0] - a->v0[0];                              \
		return acc_check(a, "PAPI_start", "PAPI_read", "PAPI_stop"); \
	}

ACC_PATTERNS(null, BENCH_NULL())
ACC_PATTERNS(loop, BENCH_LOOP())

/* The access patterns: {name, function per benchmark}. */
static const struct pattern {
	const char *name;
	int running;                  /* the set runs across the repetitions */
	int (*fn[2])(struct actx *a); /* around the null, the loop benchmark */
} patterns[] = {
	{ "start-read", 0, { start_read_null, start_read_loop } },
	{ "start-stop", 0, { start_stop_null, start_stop_loop } },
	{ "read-read", 1, { read_read_null, read_read_loop } },
	{ "read-stop", 0, { read_stop_null, read_stop_loop } },
};

static const struct domain {
	const char *name;
	int dom; /* PAPI_DOM_* */
} domains[] = {
	{ "user", PAPI_DOM_USER },
	{ "user+kernel", PAPI_DOM_USER | PAPI_DOM_KERNEL },
};

/*
 * An event set a->es of a->event counting in @dom, started and stopped
 * once: 0, or a PAPI error with why in a->err and no set.
 */
static int acc_set(struct actx *a, int cidx, int dom)
{
	const char *call;
	long long v[1];
	int rc;

	a->es = PAPI_NULL;
	if ((rc = PAPI_create_eventset(&a->es)) != PAPI_OK)
		call = "PAPI_create_eventset";
	else if ((rc = PAPI_assign_eventset_component(a->es, cidx)) != PAPI_OK)
		call = "PAPI_assign_eventset_component";
	else if ((rc = set_domain(a->es, dom)) != PAPI_OK)
		call = "PAPI_set_opt(PAPI_DOMAIN)";
	else if ((rc = PAPI_add_named_event(a->es, a->event)) != PAPI_OK)
		call = "PAPI_add_event";
	else if ((rc = PAPI_start(a->es)) != PAPI_OK)
		call = "PAPI_start";
	else if ((rc = PAPI_stop(a->es, v)) != PAPI_OK)
		call = "PAPI_stop";
	else
		return PAPI_OK;
	snprintf(a->err, sizeof(a->err), "%s: %s: %s", a->event, call,
		 PAPI_strerror(rc));
	drop_set(&a->es);
	return rc;
}

/* One case's error (count - expected) over the repetitions. */
struct stats {
	int64_t med, p10, p90, min, max;
};

/*
 * The timing-and-statistics routine of every case: run pattern @p
 * around the loop of @n iterations (0: the null benchmark) a->reps
 * times after WARMUP, into @s: 0, or -1 after an "err" line.
 */
static int acc_case(struct actx *a, const struct pattern *p, const char *dom,
		    long n, struct stats *s)
{
	int64_t expect = n ? 1 + 3 * (int64_t)n : 0, *e = a->diff;
	long i;
	int bad = 0;

	loop_n = n ? n : 1;
	if (p->running) {
		a->rc[0] = PAPI_start(a->es);
		bad = acc_check(a, "PAPI_start", NULL, NULL);
	}
	for (i = -WARMUP; !bad && i < a->reps; i++) {
		bad = p->fn[n > 0](a);
		if (i >= 0)
			e[i] = (int64_t)a->count - expect;
	}
	if (p->running)
		PAPI_stop(a->es, a->junk);
	if (bad) {
		emit("err %s %s N=%ld: %s", dom, p->name, n, a->err);
		return -1;
	}
	qsort(e, (size_t)a->reps, sizeof(*e), cmp_i64);
	*s = (struct stats){ e[quantile_at(a->reps, 0.5)],
			     e[quantile_at(a->reps, 0.1)],
			     e[quantile_at(a->reps, 0.9)], e[0],
			     e[a->reps - 1] };
	return 0;
}

/* Least-squares slope of the medians @s[k] over @ns[k] where @ok[k]. */
static int slope(const struct stats *s, const int *ok, const long *ns, int nns,
		 double *out)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	int k, m = 0;

	for (k = 0; k < nns; k++) {
		if (!ok[k])
			continue;
		sx += (double)ns[k];
		sy += (double)s[k].med;
		sxx += (double)ns[k] * (double)ns[k];
		sxy += (double)ns[k] * (double)s[k].med;
		m++;
	}
	if (m < 2 || m * sxx - sx * sx == 0)
		return -1;
	*out = (m * sxy - sx * sy) / (m * sxx - sx * sx);
	return 0;
}

/*
 * The loop's row of pattern @p in domain @dom from its cases @s[k] where
 * @ok[k] and the null benchmark's @z where @zok: the median error at each
 * N, loop-null and the growth.  Then, for read-read in the user domain,
 * the hardware check: the smallest count of N iterations is exact there,
 * so min count(N_last) - min count(N_first) must be 3 (N_last - N_first).
 */
static void loop_row(const struct pattern *p, const char *dom,
		     const struct stats *s, const int *ok, const long *ns,
		     int nns, const struct stats *z, int zok)
{
	const struct stats *s0 = &s[0], *s1 = &s[nns - 1];
	int64_t want = 3 * (int64_t)(ns[nns - 1] - ns[0]);
	char row[512];
	size_t l = 0;
	double g;
	int k;

	append(row, sizeof(row), &l, "%-12s %-11s", dom, p->name);
	for (k = 0; k < nns; k++)
		if (ok[k])
			append(row, sizeof(row), &l, " %9" PRId64, s[k].med);
		else
			append(row, sizeof(row), &l, " %9s", "error");
	if (ok[nns - 1] && zok)
		append(row, sizeof(row), &l, " %9" PRId64, s1->med - z->med);
	else
		append(row, sizeof(row), &l, " %9s", "-");
	if (!slope(s, ok, ns, nns, &g))
		emit("loop %s %11.6f %9.0f", row, g, g * 1e6);
	else
		emit("loop %s %11s %9s", row, "-", "-");
	if (strcmp(p->name, "read-read") || strcmp(dom, "user") || !ok[0] ||
	    !ok[nns - 1])
		return;
	/* min error + expected = min count */
	emit("hw user read-read: min count(N=%ld) - min count(N=%ld) = %" PRId64
	     ", 3 x %ld = %" PRId64 ": %s",
	     ns[nns - 1], ns[0], s1->min - s0->min + want, ns[nns - 1] - ns[0],
	     want, s1->min == s0->min ? "ok" : "WRONG");
}

/* Pattern @p in domain @dom: the null benchmark's row, then the loop's. */
static void acc_rows(struct actx *a, const struct pattern *p, const char *dom,
		     const long *ns, int nns)
{
	struct stats z, s[MAX_NS];
	int zok = !acc_case(a, p, dom, 0, &z), ok[MAX_NS], k;

	if (zok)
		emit("null %-12s %-11s %8" PRId64 " %8" PRId64 " %8" PRId64
		     " %8" PRId64 " %8" PRId64,
		     dom, p->name, z.med, z.p10, z.p90, z.min, z.max);
	else
		emit("null %-12s %-11s error: %s", dom, p->name, a->err);
	for (k = 0; k < nns; k++)
		ok[k] = !acc_case(a, p, dom, ns[k], &s[k]);
	loop_row(p, dom, s, ok, ns, nns, &z, zok);
}

int acc_worker(const char *event, long reps, const long *ns, int nns)
{
	struct actx a = { .event = event, .reps = reps };
	int cidx, d, p, rc = EX_OK;

	if (worker_hello(&cidx))
		return EX_FAIL;
	a.diff = xcalloc((size_t)reps, sizeof(*a.diff));
	for (d = 0; d < (int)ARRAY_SIZE(domains) && rc == EX_OK; d++) {
		if (!acc_set(&a, cidx, domains[d].dom)) {
			for (p = 0; p < (int)ARRAY_SIZE(patterns); p++)
				acc_rows(&a, &patterns[p], domains[d].name, ns,
					 nns);
			drop_set(&a.es);
		} else if (d == 0) {
			/* not even the user domain: no core PMU, skip */
			emit("nopmu %s", a.err);
			rc = EX_SKIP;
		} else {
			emit("null %-12s n/a: %s", domains[d].name, a.err);
		}
	}
	free(a.diff);
	PAPI_shutdown();
	return rc;
}
