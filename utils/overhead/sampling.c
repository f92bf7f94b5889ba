/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a sample costs.  A spin of SPIN_ITERS iterations (cases.c) is
 * measured on a started set as any call is: bare ("loop"), and with every
 * event of the set overflowing every SAMPLE_PERIOD ("sample"), each call's
 * samples its extra count.  A sample then costs the sampled spin's mean
 * less the empty target's spin (no set at all), over its mean samples: the
 * interrupt, the kernel's sample and signal, and the handler's path, user
 * and kernel where the meter counts both.
 *
 * SAMPLE_PERIOD is a count of events (about 3 samples of instructions a
 * spin); the software clocks, which count nanoseconds, overflow every
 * CLOCK_PERIOD, a few times a spin at some GHz.
 *
 * Here through PAPI (target "papi": PAPI_overflow with a handler that
 * counts its calls); the floor's bare sampling group is floor_worker.c's.
 */
#include <linux/perf_event.h>
#include <stdio.h>

#include "papi.h"

#include "overhead.h"

int period_of(const struct ev_def *ev)
{
	return ev && ev->type == PERF_TYPE_SOFTWARE &&
			       (ev->config == PERF_COUNT_SW_TASK_CLOCK ||
				ev->config == PERF_COUNT_SW_CPU_CLOCK) ?
		       CLOCK_PERIOD :
		       SAMPLE_PERIOD;
}

/* ------------------------------------------------------------------ */
/* Through PAPI                                                        */
/* ------------------------------------------------------------------ */

static void papi_handler(int set, void *address, long long vector, void *ctx)
{
	(void)set;
	(void)address;
	(void)vector;
	(void)ctx;
	samples++;
}

/* Overflow on every event of @t's stopped set (@on 0: off). */
static int papi_overflow_all(struct target *t, int on, char *why, size_t len)
{
	int i, code, period, rc = PAPI_OK;

	for (i = 0; i < t->nev && rc == PAPI_OK; i++) {
		period = on ? period_of(ev_find(t->names[i])) : 0;
		rc = PAPI_event_name_to_code(t->names[i], &code);
		if (rc == PAPI_OK)
			rc = PAPI_overflow(t->set, code, period, 0,
					   papi_handler);
		if (rc != PAPI_OK)
			snprintf(why, len, "PAPI_overflow(%s, %d): %s",
				 t->names[i], period, PAPI_strerror(rc));
	}
	return rc;
}

/* "na TARGET loop NEV WHY" and "na TARGET sample NEV WHY". */
static void sampling_na(const char *target, int nev, const char *why)
{
	emit("na %s loop %d %s", target, nev, why);
	emit("na %s sample %d %s", target, nev, why);
}

int can_sample(const struct meter *m, const char *target, int nev)
{
	if (m->no_sampling)
		sampling_na(target, nev, m->no_sampling);
	return !m->no_sampling;
}

/*
 * PAPI_overflow takes at most the component's num_cntrs events of a set
 * (papi.c: PAPI_ECNFLCT beyond).  1 if @t's set is within that, else 0
 * after its "na" lines.
 */
static int within_overflow_limit(const struct target *t)
{
	const PAPI_component_info_t *ci;
	char why[300];
	int code;

	if (PAPI_event_name_to_code(t->names[0], &code) != PAPI_OK)
		return 1; /* PAPI_overflow says why */
	ci = PAPI_get_component_info(PAPI_get_event_component(code));
	if (!ci || t->nev <= ci->num_cntrs)
		return 1;
	snprintf(why, sizeof(why),
		 "PAPI_overflow takes at most %d events of a set (num_cntrs "
		 "of %s)",
		 ci->num_cntrs, ci->name);
	sampling_na(t->name, t->nev, why);
	return 0;
}

int sampling_papi(struct target *t, struct meter *m, long n)
{
	char why[300];
	int rc;

	if (!can_sample(m, t->name, t->nev) || !within_overflow_limit(t))
		return 0;
	rc = run_cases(t, m, n, t->nev, 0, loop_calls);

	if (t->running && t->api->stop(t->set, t->v) == PAPI_OK)
		t->running = 0;
	if (t->running ||
	    papi_overflow_all(t, 1, why, sizeof(why)) != PAPI_OK) {
		emit("err %s sample %d %s", t->name, t->nev,
		     t->running ? "PAPI_stop failed" : why);
		return -1;
	}
	rc |= run_cases(t, m, n, t->nev, 0, sample_calls);
	if (t->running && t->api->stop(t->set, t->v) == PAPI_OK)
		t->running = 0;
	if (papi_overflow_all(t, 0, why, sizeof(why)) != PAPI_OK) {
		emit("err %s sample %d %s", t->name, t->nev, why);
		rc = -1;
	}
	return rc;
}
