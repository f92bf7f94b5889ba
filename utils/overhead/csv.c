/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --csv: one line per case and column ("case": per call, less the empty
 * function's, whose own lines give what was taken off), one per path the
 * calls of a case took with an exact meter ("path", by the system calls
 * they made), one per goal ("goal"); 18 fields on every line.
 */
#include <stdio.h>
#include <string.h>

#include "overhead.h"

#define CSV_HEADER                                                           \
	"kind,meter,column,target,call,events,n,value,mean,min,max,p10,p25," \
	"p75,p90,syscalls,extra,detail"

/* @v with @fmt, or nothing if < 0; then a comma. */
static void csv_num(const char *fmt, double v)
{
	if (v >= 0)
		printf(fmt, v);
	putchar(',');
}

/* The "path" lines of case @r: each path, less the empty function's
 * count and system calls. */
static void csv_paths(const struct ovh *o, const struct col *c,
		      const struct res *r)
{
	const struct res *z =
		find_res(c, "null", case_find(r->call)->base, 0, 0);
	const struct path *p;
	int i;

	if (!z || !z->npaths || !strcmp(r->target, "null"))
		return;
	for (i = 0; i < r->npaths; i++) {
		p = &r->path[i];
		printf("path,%s,%s,%s,%s,%d,%ld,%.0f,,%.0f,%.0f,,,,,%ld,,\"\"\n",
		       o->meter, c->w.name, r->target, r->call, r->nev,
		       p->calls, p->min - z->path[0].min,
		       p->min - z->path[0].min, p->max - z->path[0].min,
		       p->sys - z->path[0].sys);
	}
}

/* The figures of case @r of column @c (the empty function's: its own). */
static void csv_figures(const struct ovh *o, const struct col *c,
			const struct res *r)
{
	static const enum quantity q[] = { Q_VAL, Q_MEAN, Q_MIN, Q_MAX,
					   Q_P10, Q_P25,  Q_P75, Q_P90 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(q); i++)
		if (strcmp(r->target, "null"))
			csv_num("%.2f", per_call(o, c, r->target, r->call,
						 r->nev, q[i]));
		else if (r->val.ok)
			csv_num("%.2f",
				r->val.s[q[i]] /
					(q[i] == Q_MEAN ? r->val.s[S_N] : 1));
		else
			putchar(',');
	csv_num("%.3f", per_call(o, c, r->target, r->call, r->nev, Q_SYS));
	csv_num("%.3f", per_call(o, c, r->target, r->call, r->nev, Q_EXTRA));
}

static void csv_col(const struct ovh *o, const struct col *c)
{
	const struct res *r;
	int i;

	for (i = 0; i < c->nres; i++) {
		r = &c->res[i];
		if (r->round)
			continue;
		printf("case,%s,%s,%s,%s,%d,%.0f,", o->meter, c->w.name,
		       r->target, r->call, r->nev, r->val.s[S_N]);
		csv_figures(o, c, r);
		csv_str(r->kind ? r->msg : c->w.lib);
		putchar('\n');
		if (o->exact)
			csv_paths(o, c, r);
	}
}

void print_csv(const struct ovh *o)
{
	int k;

	printf(CSV_HEADER "\n");
	for (k = 0; k < WORKER_PATHS; k++)
		if (o->col[k].w.active && (k != WORKER_RDPMC || rdpmc_ok(o)))
			csv_col(o, &o->col[k]);
	print_goals(o, 1);
}
