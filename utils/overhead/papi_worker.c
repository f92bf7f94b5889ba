/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PAPI worker: on event sets of 1 to k events, every case through
 * PAPI (target "papi"), then the same with PAPI's framework alone
 * (target "fw", framework.c), then the sampling cases (sampling.c).  The events: the ones given, or the first
 * worker's choice: generic hardware events where they can be added and
 * started, else software events.
 */
#include <stdio.h>
#include <string.h>

#include "papi.h"

#include "../papi_common.h"
#include "overhead.h"

/* Fill @out with the members of @pool that still start, up to @limit. */
static int grow(char **out, const struct ev_def *pool, size_t npool, int limit)
{
	char why[256];
	size_t i;
	int n = 0;

	for (i = 0; i < npool && n < limit; i++) {
		out[n] = (char *)pool[i].name;
		if (worker_set_try(out, n + 1, why, sizeof(why)) == PAPI_OK)
			n++;
	}
	return n;
}

/* The hardware counters the measured set may take. */
static int hw_limit(int cidx, const struct meter *m, int maxev)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
	int limit = ci && ci->num_cntrs > 0 ? ci->num_cntrs : maxev;

	limit -= meter_uses_counter(m); /* pinned: it keeps its counter */
	return limit < maxev ? limit : maxev;
}

/* Choose the events: hardware ones where they work, else software. */
static int choose(char **out, int cidx, const struct meter *m, int maxev)
{
	int n = grow(out, hw_pool, hw_pool_len, hw_limit(cidx, m, maxev));

	if (n > 0) {
		emit("info choice generic hardware events: they can be added "
		     "and started here (up to %d counters)",
		     hw_limit(cidx, m, maxev));
		return n;
	}
	n = grow(out, sw_pool, sw_pool_len, maxev);
	emit("info choice software events: no generic hardware event can "
	     "be added and started here");
	return n;
}

/* Every case on a set of @names[0..k), through PAPI then its framework
 * (@set3: the set of the cases on one set size). */
static void measure_set(char **names, int k, int set3, struct meter *m, long n)
{
	long long v[MAX_EVENTS];
	struct target t = { .name = "papi",
			    .api = &papi_api,
			    .v = v,
			    .names = names,
			    .nev = k };
	char why[256];
	int rc;

	if (worker_set_new(&t.set, names, k, why, sizeof(why)) != PAPI_OK) {
		cases_err("papi", k, why);
		cases_err("fw", k, why);
		return;
	}
	run_cases(&t, m, n, k, set3, NULL);
	rc = t.running ? PAPI_OK : PAPI_start(t.set);
	if (rc == PAPI_OK)
		framework_cases(t.set, v, m, n, k);
	else
		cases_err("fw", k, PAPI_strerror(rc));
	t.running = 0; /* framework_cases() stopped it */
	sampling_papi(&t, m, n);
	drop_set(&t.set);
}

/* The events given, if they start together; else choose them. */
static int events(const struct wargs *a, char **names, int cidx,
		  const struct meter *m)
{
	char why[256];

	memcpy(names, a->names, sizeof(a->names));
	if (a->nev && worker_set_try(names, a->nev, why, sizeof(why))) {
		emit("usage -e: %s", why);
		return -1;
	}
	return a->nev ? a->nev : choose(names, cidx, m, a->maxev);
}

int papi_worker(const struct wargs *a)
{
	const PAPI_component_info_t *ci;
	char *names[MAX_EVENTS];
	struct meter *m;
	int cidx, nev, k;

	if (worker_hello(&cidx))
		return EX_FAIL;
	ci = PAPI_get_component_info(cidx);
	if (ci && ci->disabled)
		return EX_OK; /* said by the hello: nothing to measure */
	m = meter_for(a->meter);
	if (!m)
		return EX_SKIP;
	nev = events(a, names, cidx, m);
	if (nev < 0)
		return EX_USAGE;
	if (nev == 0) {
		emit("fatal no event of either pool can be added and started");
		return EX_FAIL;
	}
	emit_list("events", names, nev);
	run_null(m, a->n);
	for (k = 1; k <= nev; k++)
		measure_set(names, k, k == SET3_OF(nev), m, a->n);
	PAPI_shutdown();
	return EX_OK;
}
