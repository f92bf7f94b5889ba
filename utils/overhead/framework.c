/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAPI's framework floor: what PAPI itself executes around a component
 * call.  The component's start, stop, read and reset in PAPI's vector
 * (papi_vector_t, PAPI's internal header) are swapped for functions that
 * do nothing (read hands back the values the real read last returned),
 * and the cases run again through the PAPI API.  The vector is found
 * from PAPI_get_component_info(), which returns its first member: the
 * vector itself is not exported.  The same PAPI source builds ours and
 * stock, so the layout is the one compiled in here.
 */
#include <stddef.h>
#include <stdio.h>

#include "papi.h"
/* PAPI's config.h defines what our build passes with -D. */
#undef PACKAGE_BUGREPORT
#undef PACKAGE_NAME
#undef PACKAGE_STRING
#undef PACKAGE_TARNAME
#undef PACKAGE_URL
#undef PACKAGE_VERSION
#include "papi_internal.h"
#include "papi_vector.h"

#include "overhead.h"

static papi_vector_t saved; /* the component's own functions */
static long long *last;     /* the values its read last returned */

static int capture_read(hwd_context_t *ctx, hwd_control_state_t *ctl,
			long long **events, int flags)
{
	int rc = saved.read(ctx, ctl, events, flags);

	if (rc == PAPI_OK)
		last = *events;
	return rc;
}

static int empty_read(hwd_context_t *ctx, hwd_control_state_t *ctl,
		      long long **events, int flags)
{
	(void)ctx;
	(void)ctl;
	(void)flags;
	*events = last;
	return PAPI_OK;
}

static int empty_call(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	(void)ctx;
	(void)ctl;
	return PAPI_OK;
}

/* The vector of event set @es's component, or NULL. */
static papi_vector_t *vector_of(int es)
{
	const PAPI_component_info_t *ci =
		PAPI_get_component_info(PAPI_get_eventset_component(es));

	return ci ? (papi_vector_t *)((char *)ci -
				      offsetof(papi_vector_t, cmp_info)) :
		    NULL;
}

/* The real values once, through capture_read(), then stop for real. */
static int capture(papi_vector_t *vec, int es, long long *v)
{
	int rc;

	last = NULL;
	vec->read = capture_read;
	rc = PAPI_read(es, v);
	if (rc == PAPI_OK)
		rc = PAPI_stop(es, v);
	vec->read = saved.read;
	return rc != PAPI_OK ? rc : last ? PAPI_OK : PAPI_EBUG;
}

int framework_cases(int es, long long *v, struct meter *m, long n, int nev)
{
	struct target t = { .name = "fw", .api = &papi_api, .set = es, .v = v };
	papi_vector_t *vec = vector_of(es);
	int rc;

	if (!vec) {
		cases_err("fw", nev, "no component vector for the set");
		return -1;
	}
	saved = *vec;
	rc = capture(vec, es, v);
	if (rc != PAPI_OK) {
		cases_err("fw", nev, PAPI_strerror(rc));
		return -1;
	}
	vec->start = empty_call;
	vec->stop = empty_call;
	vec->read = empty_read;
	vec->reset = empty_call;
	rc = run_cases(&t, m, n, nev, 0, NULL);
	if (t.running)
		PAPI_stop(es, v); /* PAPI's state; the counters are stopped */
	*vec = saved;
	return rc;
}
