/* SPDX-License-Identifier: BSD-3-Clause */
/* papi_stat's events and their PAPI event sets, one set per component. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "../papi_common.h"
#include "../tool.h"
#include "stat.h"

/* Read by our perf_event component when a set is attached. */
#define ENV_ENABLE_ON_EXEC "LOPE_ENABLE_ON_EXEC"

/* The default events: the software ones (any Linux), then presets. */
static const char *const defaults[] = {
	"perf::TASK-CLOCK",     "perf::CONTEXT-SWITCHES",
	"perf::CPU-MIGRATIONS", "perf::PAGE-FAULTS",
	"PAPI_TOT_CYC",         "PAPI_TOT_INS",
	"PAPI_BR_INS",          "PAPI_BR_MSP",
};
#define NR_SW 4 /* the software ones */

/*
 * The domain for a set of component @cidx: -d, else user and kernel where
 * the component's default leaves the kernel out (perf_event: user only)
 * and allows it; 0 keeps the component's default (uncore PMUs refuse
 * exclusion bits).
 */
static int domain_for(const struct opts *o, int cidx)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
	int want;

	if (o->domain)
		return o->domain;
	if (!ci || (ci->default_domain & PAPI_DOM_KERNEL))
		return 0;
	want = ci->available_domains & (PAPI_DOM_USER | PAPI_DOM_KERNEL);
	return want == ci->default_domain ? 0 : want;
}

/*
 * Attach @es to @pid with LOPE_ENABLE_ON_EXEC set for the call only (the
 * command was forked before, so it never sees the variable).
 */
static int attach_on_exec(int es, pid_t pid)
{
	const char *old = getenv(ENV_ENABLE_ON_EXEC);
	char *saved = old ? strdup(old) : NULL;
	int ret;

	if (setenv(ENV_ENABLE_ON_EXEC, "1", 1))
		ret = PAPI_ENOMEM;
	else
		ret = PAPI_attach(es, (unsigned long)pid);
	if (saved)
		(void)setenv(ENV_ENABLE_ON_EXEC, saved, 1);
	else
		(void)unsetenv(ENV_ENABLE_ON_EXEC);
	free(saved);
	return ret;
}

/*
 * A new set for component @cidx with papi_stat's options: one kernel group
 * per event where the component multiplexes in the kernel (the events are
 * independent, as in perf stat), children counted unless -i, the domain,
 * and attached to @pid (0: not attached, counts the caller).
 */
static int set_new(const struct opts *o, int cidx, pid_t pid, int *out)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
	int es = PAPI_NULL, ret, dom = domain_for(o, cidx);

	ret = PAPI_create_eventset(&es);
	if (ret == PAPI_OK)
		ret = PAPI_assign_eventset_component(es, cidx);
	if (ret == PAPI_OK && ci && ci->kernel_multiplex)
		(void)PAPI_set_multiplex(es); /* else one group: fine too */
	if (ret == PAPI_OK && o->inherit && ci && ci->inherit)
		ret = set_inherit(es, 1);
	/* A component without domains is fine unless -d asked for one. */
	if (ret == PAPI_OK && dom && set_domain(es, dom) != PAPI_OK &&
	    o->domain)
		ret = PAPI_EINVAL_DOM;
	if (ret == PAPI_OK && pid > 0 && ci && ci->attach)
		ret = attach_on_exec(es, pid);
	if (ret != PAPI_OK)
		drop_set(&es);
	*out = es;
	return ret;
}

void sets_delete(struct stat_run *r)
{
	int i;

	for (i = 0; i < r->nsets; i++)
		drop_set(&r->sets[i].es);
}

void sets_plan(struct stat_run *r)
{
	const PAPI_component_info_t *ci;
	int i, j;

	r->nsets = 0;
	for (i = 0; i < r->nev; i++) {
		struct event *e = &r->ev[i];

		for (j = 0; j < r->nsets && r->sets[j].cidx != e->cidx; j++)
			;
		if (j == r->nsets) {
			ci = PAPI_get_component_info(e->cidx);
			r->sets[r->nsets++] =
				(struct cset){ .cidx = e->cidx,
					       .es = PAPI_NULL,
					       .attach = ci && ci->attach };
		}
		e->set = j;
		r->sets[j].ev[r->sets[j].nev++] = i;
	}
}

int sets_build(struct stat_run *r, pid_t pid, int *bad)
{
	int i, j, ret;

	*bad = -1;
	for (i = 0; i < r->nsets; i++) {
		struct cset *s = &r->sets[i];

		ret = set_new(&r->o, s->cidx, pid, &s->es);
		for (j = 0; ret == PAPI_OK && j < s->nev; j++)
			ret = PAPI_add_event(s->es, r->ev[s->ev[j]].code);
		if (ret != PAPI_OK) {
			/* the event not added, or the first if no set */
			*bad = s->ev[j ? j - 1 : 0];
			sets_delete(r);
			return ret;
		}
	}
	return PAPI_OK;
}

int sets_start(struct stat_run *r)
{
	int pass, i, ret = PAPI_OK;

	for (pass = 1; pass >= 0; pass--)
		for (i = 0; i < r->nsets && ret == PAPI_OK; i++)
			if (r->sets[i].attach == pass)
				ret = PAPI_start(r->sets[i].es);
	return ret;
}

void sets_stop(struct stat_run *r)
{
	long long v[MAX_EVENTS];
	int i, j;

	for (i = 0; i < r->nsets; i++) {
		struct cset *s = &r->sets[i];
		int ret = PAPI_stop(s->es, v);

		for (j = 0; ret == PAPI_OK && j < s->nev; j++)
			stats_add(&r->ev[s->ev[j]].st, (double)v[j]);
		if (ret != PAPI_OK)
			msg("reading %s: %s", r->ev[s->ev[0]].name,
			    PAPI_strerror(ret));
	}
}

static int event_add(struct stat_run *r, const char *name)
{
	struct event *e = &r->ev[r->nev];
	PAPI_event_info_t info;

	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	if (PAPI_event_name_to_code(name, &e->code) != PAPI_OK) {
		msg("unknown event '%s' (see papi_avail and "
		    "papi_native_avail)",
		    name);
		return -1;
	}
	e->cidx = PAPI_get_event_component(e->code);
	if (e->cidx < 0) {
		msg("event '%s' belongs to no active component", name);
		return -1;
	}
	if (PAPI_get_event_info(e->code, &info) == PAPI_OK)
		snprintf(e->units, sizeof(e->units), "%s", info.units);
	r->nev++;
	return 0;
}

int events_parse(struct stat_run *r, const char *list)
{
	char *copy = strdup(list), *names[MAX_EVENTS];
	int i, n = copy ? split_list(copy, names, MAX_EVENTS) : -1;

	if (n < 0)
		msg("-e '%s': give 1 to %d comma-separated event names", list,
		    MAX_EVENTS);
	for (i = 0; i < n && event_add(r, names[i]) == 0; i++)
		;
	free(copy);
	return n < 0 || i < n ? -1 : 0;
}

/* Can @name be added to a set on ourselves and started?  A PAPI error. */
static int probe(const struct opts *o, const char *name)
{
	int code, es, ret = PAPI_event_name_to_code(name, &code);

	if (ret != PAPI_OK)
		return ret;
	ret = set_new(o, PAPI_get_event_component(code), 0, &es);
	if (ret == PAPI_OK)
		ret = PAPI_add_event(es, code);
	if (ret == PAPI_OK)
		ret = PAPI_start(es);
	drop_set(&es);
	return ret;
}

/*
 * "A, B: error; C: other error": the defaults whose @err is not PAPI_OK,
 * those with the same error together.
 */
static void missing_text(const int *err, char *buf, size_t len)
{
	size_t n = 0, i, j;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(defaults); i++) {
		for (j = 0; j < i && err[j] != err[i]; j++)
			;
		if (err[i] == PAPI_OK || j < i)
			continue; /* listed with the first of its error */
		append(buf, len, &n, "%s", n ? "; " : "");
		for (j = i; j < ARRAY_SIZE(defaults); j++)
			if (err[j] == err[i])
				append(buf, len, &n, "%s%s", j > i ? ", " : "",
				       defaults[j]);
		append(buf, len, &n, ": %s", PAPI_strerror(err[i]));
	}
}

int events_default(struct stat_run *r)
{
	int err[ARRAY_SIZE(defaults)], nsw = 0, nhw = 0;
	char text[768];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(defaults); i++) {
		err[i] = probe(&r->o, defaults[i]);
		if (err[i] == PAPI_OK && event_add(r, defaults[i]) == 0)
			*(i < NR_SW ? &nsw : &nhw) += 1;
	}
	missing_text(err, text, sizeof(text));
	snprintf(r->note, sizeof(r->note), "default events: %s%s%s%s",
		 nhw ? (nsw ? "software and hardware" : "hardware only") :
		       "software only",
		 text[0] ? " (not counted here: " : "", text,
		 text[0] ? ")" : "");
	if (r->nev == 0) {
		msg("none of the default events can be counted here: %s", text);
		return -1;
	}
	return 0;
}
