/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --csv: one line per case and column ("case"), one per path a case's
 * calls took ("path", by the system calls they made), one per goal
 * ("goal"); 11 fields on every line.
 */
#include <stdio.h>
#include <string.h>

#include "icount.h"

/* @v with @fmt, or nothing if < 0; then a comma. */
static void csv_num(const char *fmt, double v)
{
	if (v >= 0)
		printf(fmt, v);
	putchar(',');
}

/* @r's raw counts per call: the empty function's, which the others less. */
static void csv_raw(const struct res *r)
{
	csv_num("%.0f", r->ins.ok ? r->ins.min : -1);
	csv_num("%.0f", r->ins.ok ? r->ins.max : -1);
	csv_num("%.2f", r->ins.ok ? r->ins.sum / (double)r->n : -1);
	csv_num("%.3f", r->sys.ok ? r->sys.sum / (double)r->n : -1);
}

/* The "path" lines of case @r: each path, less the empty function's
 * instructions and system calls. */
static void csv_paths(const struct col *c, const struct res *r)
{
	const struct res *z = find_res(c, "null", r->call, 0);
	const struct path *p;
	int i;

	if (!z || !z->npaths || !strcmp(r->target, "null"))
		return;
	for (i = 0; i < r->npaths; i++) {
		p = &r->path[i];
		printf("path,%s,%s,%s,%d,%ld,%.0f,%.0f,,%ld,\"\"\n", c->w.name,
		       r->target, r->call, r->nev, p->calls,
		       p->min - z->path[0].min, p->max - z->path[0].min,
		       p->sys - z->path[0].sys);
	}
}

/* One line per case of column @c: per call, less the empty function
 * (whose own lines give what was taken off), then its paths. */
static void csv_col(const struct col *c)
{
	const struct res *r;
	int i;

	for (i = 0; i < c->nres; i++) {
		r = &c->res[i];
		printf("case,%s,%s,%s,%d,%ld,", c->w.name, r->target, r->call,
		       r->nev, r->n);
		if (!strcmp(r->target, "null") && r->n > 0) {
			csv_raw(r);
		} else {
			csv_num("%.0f",
				per_call(c, r->target, r->call, r->nev, Q_INS));
			csv_num("%.0f", per_call(c, r->target, r->call, r->nev,
						 Q_INS_MAX));
			csv_num("%.2f", per_call(c, r->target, r->call, r->nev,
						 Q_INS_MEAN));
			csv_num("%.3f",
				per_call(c, r->target, r->call, r->nev, Q_SYS));
		}
		csv_str(r->kind ? r->msg : c->w.lib);
		putchar('\n');
		csv_paths(c, r);
	}
}

void print_csv(const struct ic *ic)
{
	struct goal g[NGOALS];
	char d[800];
	int k, i;

	printf("kind,path,target,call,events,n,instructions,max,mean,syscalls,"
	       "detail\n");
	for (k = 0; k < WORKER_PATHS; k++)
		if (ic->col[k].w.active && (k != WORKER_RDPMC || rdpmc_ok(ic)))
			csv_col(&ic->col[k]);
	eval_goals(ic, g);
	for (i = 0; i < NGOALS; i++) {
		printf("goal,%s,,%s,,,,,,,", ic->method, goal_ids[i]);
		snprintf(d, sizeof(d), "%s: %s: %s",
			 goal_verdict(&g[i], GOAL_MET, GOAL_MISSED),
			 goal_names[i], g[i].text);
		csv_str(d);
		putchar('\n');
	}
}
