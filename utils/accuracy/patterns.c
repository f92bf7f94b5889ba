/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker: PAPI_TOT_INS (-e) around the null and the loop benchmark,
 * in each access pattern and domain, with one "res" line per case.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"

#include "../papi_common.h"
#include "accuracy.h"

long loop_n = 1;

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------------ */
/* Worker: the four access patterns around each benchmark              */
/* ------------------------------------------------------------------ */

struct actx {
	const char *event; /* the instructions event (-e) */
	long reps;         /* repetitions per case (-n) */
	int es;
	int rc[3];
	long long v0[1], v1[1], junk[1];
	long long count;
	char err[256];
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
		a->rc[2] = PAPI_start(a->es);                                \
		if (a->rc[2] != PAPI_OK)                                     \
			return acc_check(a, NULL, NULL, "PAPI_start");       \
		a->rc[0] = PAPI_read(a->es, a->v0);                          \
		BENCH;                                                       \
		a->rc[1] = PAPI_stop(a->es, a->v1);                          \
		a->count = a->v1[0] - a->v0[0];                              \
		return acc_check(a, "PAPI_read", "PAPI_stop", NULL);         \
	}

ACC_PATTERNS(null, BENCH_NULL())
ACC_PATTERNS(loop, BENCH_LOOP())

const struct pattern patterns[NPATTERNS] = {
	{ "start-read", 0, start_read_null, start_read_loop },
	{ "start-stop", 0, start_stop_null, start_stop_loop },
	{ "read-read", 1, read_read_null, read_read_loop },
	{ "read-stop", 0, read_stop_null, read_stop_loop },
};

const struct domain domains[NDOMAINS] = {
	{ "user", PAPI_DOM_USER },
	{ "user+kernel", PAPI_DOM_USER | PAPI_DOM_KERNEL },
};

/* An event set a->es of a->event counting in @dom; 0 or a PAPI error. */
static int acc_set(struct actx *a, int cidx, int dom, char *why, size_t len)
{
	int *es = &a->es, rc;

	*es = PAPI_NULL;
	rc = PAPI_create_eventset(es);
	if (rc != PAPI_OK) {
		snprintf(why, len, "PAPI_create_eventset: %s",
			 PAPI_strerror(rc));
		return rc;
	}
	rc = PAPI_assign_eventset_component(*es, cidx);
	if (rc == PAPI_OK) {
		rc = set_domain(*es, dom);
		if (rc != PAPI_OK)
			snprintf(why, len, "PAPI_set_opt(PAPI_DOMAIN): %s",
				 PAPI_strerror(rc));
	} else {
		snprintf(why, len, "PAPI_assign_eventset_component: %s",
			 PAPI_strerror(rc));
	}
	if (rc == PAPI_OK) {
		rc = PAPI_add_named_event(*es, a->event);
		if (rc != PAPI_OK)
			snprintf(why, len, "%s: PAPI_add_event: %s", a->event,
				 PAPI_strerror(rc));
	}
	if (rc != PAPI_OK)
		drop_set(es);
	return rc;
}

/* Can a->es be started and stopped?  0 or a PAPI error with @why. */
static int acc_try(struct actx *a, char *why, size_t len)
{
	long long v[1];
	int rc = PAPI_start(a->es);

	if (rc != PAPI_OK) {
		snprintf(why, len, "%s: PAPI_start: %s", a->event,
			 PAPI_strerror(rc));
		return rc;
	}
	return PAPI_stop(a->es, v);
}

/*
 * The timing-and-statistics routine of every case: run @fn a->reps
 * times (after WARMUP), error = count - @expect, one "res" line.
 */
static void acc_case(struct actx *a, const struct pattern *p, int loop, long n,
		     const char *dom)
{
	pattern_fn fn = loop ? p->loop_fn : p->null_fn;
	int64_t expect = loop ? 1 + 3 * (int64_t)n : 0;
	int64_t *err = calloc((size_t)a->reps, sizeof(*err));
	long i;

	if (!err) {
		emit("err %s %s %ld out of memory", dom, p->name, n);
		return;
	}
	loop_n = loop ? n : 1;
	if (p->running && PAPI_start(a->es) != PAPI_OK) {
		emit("err %s %s %ld PAPI_start failed", dom, p->name, n);
		free(err);
		return;
	}
	for (i = -WARMUP; i < a->reps; i++) {
		if (fn(a)) {
			char msg[256];

			oneline(msg, sizeof(msg), a->err);
			emit("err %s %s %ld %s", dom, p->name, n, msg);
			break;
		}
		if (i >= 0)
			err[i] = (int64_t)a->count - expect;
	}
	if (p->running)
		PAPI_stop(a->es, a->junk);
	if (i == a->reps) {
		qsort(err, (size_t)a->reps, sizeof(*err), cmp_i64);
		emit("res %s %s %ld %ld %" PRId64 " %" PRId64 " %" PRId64
		     " %" PRId64 " %" PRId64,
		     dom, p->name, loop ? n : 0, a->reps,
		     err[quantile_at(a->reps, 0.5)],
		     err[quantile_at(a->reps, 0.1)],
		     err[quantile_at(a->reps, 0.9)], err[0], err[a->reps - 1]);
	}
	free(err);
}

int acc_worker(const char *event, long reps, const long *ns, int nns)
{
	struct actx a;
	char why[512];
	int cidx, d, p, k;

	if (worker_hello(&cidx))
		return EX_FAIL;
	memset(&a, 0, sizeof(a));
	a.event = event;
	a.reps = reps;
	/* no core PMU: say why and skip */
	if (acc_set(&a, cidx, PAPI_DOM_USER, why, sizeof(why)) ||
	    acc_try(&a, why, sizeof(why))) {
		emit("nopmu %s", why);
		return EX_SKIP;
	}
	drop_set(&a.es);
	for (d = 0; d < NDOMAINS; d++) {
		const char *dn = domains[d].name;

		if (acc_set(&a, cidx, domains[d].dom, why, sizeof(why)) ||
		    acc_try(&a, why, sizeof(why))) {
			emit("na %s %s", dn, why);
			continue;
		}
		for (p = 0; p < NPATTERNS; p++) {
			acc_case(&a, &patterns[p], 0, 0, dn);
			for (k = 0; k < nns; k++)
				acc_case(&a, &patterns[p], 1, ns[k], dn);
		}
		drop_set(&a.es);
	}
	PAPI_shutdown();
	return EX_OK;
}
