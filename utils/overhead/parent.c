/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parent's side: one column per worker, each worker run once per
 * round (the rounds interleave the workers, each round in another order),
 * its lines collected, and every result combined over the rounds.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overhead.h"

/* "info KEY TEXT" lines a worker sends besides its hello. */
static const struct line_text col_text[] = {
	LINE_TEXT(struct col, "info syscalls ", syscalls),
	LINE_TEXT(struct col, "info events ", events),
	LINE_TEXT(struct col, "info choice ", choice),
	LINE_TEXT(struct col, "info scale ", scale),
	LINE_TEXT(struct col, "info scale_why ", scale_why),
	LINE_TEXT(struct col, "usage ", usage),
};

/* A "res", "err" or "na" line into @r; 0, or -1 if it does not parse. */
static int rec_parse(struct rec *r, char *line)
{
	char sys[32], flt[32], *rest;
	int off = 0;

	if (line[0] != 'r') {
		r->kind = line[0] == 'e' ? REC_ERR : REC_NA;
		rest = strchr(line, ' ') + 1;
		if (sscanf(rest, "%15s %d %n", r->id, &r->nev, &off) < 2)
			return -1;
		snprintf(r->msg, sizeof(r->msg), "%s", rest + off);
		return 0;
	}
	if (sscanf(line + 4,
		   "%15s %d %d %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %31s %31s",
		   r->id, &r->nev, &r->st.n, &r->st.med, &r->st.p10, &r->st.p25,
		   &r->st.p75, &r->st.p90, &r->st.min, &r->st.max, sys,
		   flt) != 12)
		return -1;
	r->st.sys = strcmp(sys, "-") ? atof(sys) : -1;
	r->st.flt = strcmp(flt, "-") ? atof(flt) : -1;
	r->kind = REC_RES;
	return 0;
}

/* One line of column @arg's worker. */
static void col_line(void *arg, char *line)
{
	struct col *c = arg;
	struct rec *r;

	if (line_text(c, col_text, ARRAY_SIZE(col_text), line))
		return;
	if (!strncmp(line, "info standin ", 13)) {
		size_t l = strlen(c->standin);

		snprintf(c->standin + l, sizeof(c->standin) - l, "%s%s",
			 l ? "; " : "", line + 13);
		return;
	}
	if (strncmp(line, "res ", 4) && strncmp(line, "err ", 4) &&
	    strncmp(line, "na ", 3))
		return;
	c->raw = xrealloc(c->raw, (size_t)c->nraw + 1, sizeof(*c->raw));
	r = &c->raw[c->nraw];
	memset(r, 0, sizeof(*r));
	r->round = c->round;
	if (!rec_parse(r, line))
		c->nraw++;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_dbl(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint64_t clamp0(double x)
{
	return x < 0 ? 0 : (uint64_t)(x + 0.5);
}

/*
 * Combine the rounds of record @first (the first of its id and size in
 * c->raw) into @out: each statistic is the median over the rounds of that
 * round's value less that round's timer overhead (min and max: the
 * extreme over the rounds).  An error or n/a in any round wins.
 */
static void combine_one(const struct col *c, int first, const double *timers,
			struct rec *out)
{
	enum { MED, P10, P25, P75, P90, SYS, FLT, NV };
	const struct rec *r = &c->raw[first];
	double v[NV][MAX_ROUNDS];
	uint64_t mn = UINT64_MAX, mx = 0;
	int j, q, k = 0, is_timer = !strcmp(r->id, "timer");
	long n = 0;

	*out = *r;
	if (r->kind)
		return;
	for (j = first; j < c->nraw && k < MAX_ROUNDS; j++) {
		const struct rec *x = &c->raw[j];
		double t;

		if (x->nev != r->nev || strcmp(x->id, r->id))
			continue;
		if (x->kind) {
			*out = *x;
			return;
		}
		t = is_timer || x->round >= MAX_ROUNDS ? 0 : timers[x->round];
		v[MED][k] = (double)x->st.med - t;
		v[P10][k] = (double)x->st.p10 - t;
		v[P25][k] = (double)x->st.p25 - t;
		v[P75][k] = (double)x->st.p75 - t;
		v[P90][k] = (double)x->st.p90 - t;
		v[SYS][k] = x->st.sys;
		v[FLT][k] = x->st.flt;
		mn = x->st.min < mn ? x->st.min : mn;
		mx = x->st.max > mx ? x->st.max : mx;
		n += x->st.n;
		k++;
	}
	if (!k)
		return;
	for (q = 0; q < NV; q++)
		v[q][0] = median_dbl(v[q], k);
	out->st.n = (int)(n > INT_MAX ? INT_MAX : n);
	out->st.med = clamp0(v[MED][0]);
	out->st.p10 = clamp0(v[P10][0]);
	out->st.p25 = clamp0(v[P25][0]);
	out->st.p75 = clamp0(v[P75][0]);
	out->st.p90 = clamp0(v[P90][0]);
	out->st.min = is_timer ? mn : clamp0((double)mn - c->timer);
	out->st.max = is_timer ? mx : clamp0((double)mx - c->timer);
	out->st.sys = v[SYS][0] < 0 ? -1 : v[SYS][0];
	out->st.flt = v[FLT][0] < 0 ? -1 : v[FLT][0];
}

/* Combine the rounds of every record of @c into c->recs. */
static void combine(struct col *c)
{
	double timers[MAX_ROUNDS] = { 0 }, t[MAX_ROUNDS];
	int i, j, n = 0, dup;

	for (i = 0; i < c->nraw; i++) {
		const struct rec *r = &c->raw[i];

		if (strcmp(r->id, "timer") || r->kind || r->round >= MAX_ROUNDS)
			continue;
		timers[r->round] = (double)r->st.med;
		t[n++] = (double)r->st.med;
	}
	c->timer = n ? median_dbl(t, n) : 0;
	c->recs = xcalloc((size_t)c->nraw + 1, sizeof(*c->recs));
	c->nrec = 0;
	for (i = 0; i < c->nraw; i++) {
		for (j = 0, dup = 0; j < c->nrec && !dup; j++)
			dup = c->recs[j].nev == c->raw[i].nev &&
			      !strcmp(c->recs[j].id, c->raw[i].id);
		if (!dup)
			combine_one(c, i, timers, &c->recs[c->nrec++]);
	}
}

/* Run column @c's worker once, on @events and @scale (NULL: it chooses). */
static void col_run(const struct ovh *o, struct col *c, const char *events,
		    const char *scale)
{
	char nbuf[32];
	const char *args[] = { nbuf, events ? events : "", scale ? scale : "",
			       NULL };

	snprintf(nbuf, sizeof(nbuf), "%ld", o->o.n);
	worker_run(&c->w, c->w.path == WORKER_FLOOR ? "--_floor" : "--_papi",
		   o->cpu, args, col_line, c);
}

/* Ours first: it chooses the events for everybody. */
static void run_first(struct ovh *o)
{
	struct col *ours = &o->col[WORKER_RDPMC];

	col_run(o, ours, o->o.events, NULL);
	if (ours->usage[0])
		die(EX_USAGE, "%s", ours->usage);
	if (ours->w.exit_code == EX_USAGE)
		die(EX_USAGE, "bad input (see above)");
	o->events = o->o.events;
	if (!o->events) {
		if (!ours->events[0])
			die(EX_FAIL, "the worker for our libpapi failed%s%s%s",
			    ours->w.fatal[0] ? ": " : "", ours->w.fatal,
			    ours->w.signo ? " (killed by a signal)" : "");
		o->events = ours->events;
	}
	o->scale = ours->scale[0] ? ours->scale : o->events;
}

/* The number of names in the list @s. */
static int count_events(const char *s)
{
	char buf[1024], *names[MAX_EVENTS];
	int n;

	snprintf(buf, sizeof(buf), "%s", s);
	n = split_events(buf, names, MAX_EVENTS);
	return n < 1 ? 0 : n;
}

/* Run every column for every round; EX_OK, or EX_FAIL if one failed. */
int ovh_measure(struct ovh *o)
{
	int r, j, rc = EX_OK;
	struct col *c;

	o->cpu = sched_getcpu();
	signal(SIGPIPE, SIG_IGN);
	for (j = 0; j < WORKER_PATHS; j++)
		worker_init(&o->col[j].w, j, &o->o.dirs);
	run_first(o);
	for (r = 0; r < o->o.rounds; r++)
		for (j = 0; j < WORKER_PATHS; j++) {
			c = &o->col[(j + r) % WORKER_PATHS];
			if (!c->w.active ||
			    (r == 0 && c == &o->col[WORKER_RDPMC]))
				continue;
			if (r > 0 && (c->w.fatal[0] || c->usage[0] ||
				      c->w.signo || c->w.exit_code))
				continue; /* failed once: do not insist */
			c->round = r;
			col_run(o, c, o->events, o->scale);
		}
	/* Stock PAPI disables its component on a CPU its libpfm4 does not
	 * know: nothing to compare with, and no failure of ours. */
	o->col[WORKER_STOCK].disabled = o->col[WORKER_STOCK].w.disabled[0] !=
					'\0';
	for (j = 0; j < WORKER_PATHS; j++) {
		c = &o->col[j];
		if (c->usage[0] && !c->w.fatal[0])
			scopy(c->w.fatal, sizeof(c->w.fatal), c->usage);
		combine(c);
		if (c->w.active && !c->disabled &&
		    (c->w.exit_code || c->w.fatal[0] || !c->w.ran))
			rc = EX_FAIL;
	}
	o->nev = count_events(o->events);
	o->nsizes = set_sizes(o->nev, o->sizes);
	o->nscale = count_events(o->scale);
	return rc;
}

void ovh_free(struct ovh *o)
{
	int i;

	for (i = 0; i < WORKER_PATHS; i++) {
		free(o->col[i].recs);
		free(o->col[i].raw);
	}
}

const struct rec *find_rec(const struct col *c, const char *id, int nev)
{
	int i;

	if (!c->w.active || !c->w.ran)
		return NULL;
	for (i = 0; i < c->nrec; i++)
		if (c->recs[i].nev == nev && strcmp(c->recs[i].id, id) == 0)
			return &c->recs[i];
	return NULL;
}

/* The combined median (timer overhead taken off) of @id; < 0 if none. */
double med_of(const struct col *c, const char *id, int nev)
{
	const struct rec *r = find_rec(c, id, nev);

	return r && r->kind == REC_RES ? (double)r->st.med : -1;
}

/* Did column @c's worker fail?  If so, say how in @why. */
int col_failed(const struct col *c, char *why, size_t len)
{
	const struct worker *w = &c->w;

	if (c->disabled)
		snprintf(why, len, "component %s disabled: %s",
			 w->comp[0] ? w->comp : "perf_event", w->disabled);
	else if (!w->ran)
		snprintf(why, len, "worker not run");
	else if (w->fatal[0])
		snprintf(why, len, "%s", w->fatal);
	else if (w->signo)
		snprintf(why, len, "worker killed by signal %d (%s)", w->signo,
			 strsignal(w->signo));
	else if (w->exit_code)
		snprintf(why, len, "worker exited with status %d%s",
			 w->exit_code,
			 w->exit_code == 127 ?
				 " (library or program not loadable?)" :
				 "");
	else
		return 0;
	return 1;
}

/* Is the ours-rdpmc column shown (the component reads in user space)? */
int rdpmc_col_ok(const struct ovh *o)
{
	const struct col *c = &o->col[WORKER_RDPMC];
	char why[512];

	return c->w.active && c->w.fcr && !col_failed(c, why, sizeof(why));
}

/* The "ours" the ratios and goals use: rdpmc where possible, else read(). */
const struct col *ours_best(const struct ovh *o)
{
	return &o->col[rdpmc_col_ok(o) ? WORKER_RDPMC : WORKER_READ];
}

/* Column @k (WORKER_RDPMC ...) if it has results to show, else NULL. */
const struct col *col_shown(const struct ovh *o, int k)
{
	const struct col *c = &o->col[k];

	if (!c->w.active || !c->w.ran)
		return NULL;
	if (k == WORKER_RDPMC && !rdpmc_col_ok(o))
		return NULL;
	return c;
}
