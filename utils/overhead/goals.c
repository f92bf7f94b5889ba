/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The project's cost goals, judged from this run's medians: ratios of
 * ours (rdpmc where it works, else read()) against stock and the floor.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "overhead.h"

static const char *const goal_names[NGOALS] = {
	"PAPI_read: ours/stock <= 1.05 and ours/read(group) <= 1.1",
	"PAPI_reset <= 1.2 x one system call (ioctl(RESET) floor)",
	"PAPI_accum <= 0.7 x stock with 3 events",
	"PAPI_start ~ one syscall (<= 1.5 x ioctl(ENABLE), 1 if counted)",
	"every call: ours/stock <= 1.05",
};
const char *const goal_ids[NGOALS] = {
	"goal_read",  "goal_reset",      "goal_accum",
	"goal_start", "goal_every_call",
};

/* One part of a goal: "@what @value <= @limit" (or "> @limit"). */
static void __attribute__((format(printf, 4, 5)))
goal_add(struct goal *g, double value, double limit, const char *fmt, ...)
{
	int met = goal_part(g, value <= limit);
	va_list ap;
	size_t l;

	va_start(ap, fmt);
	goal_vsay(g, fmt, ap);
	va_end(ap);
	l = strlen(g->text);
	snprintf(g->text + l, sizeof(g->text) - l, " %.3f %s %g", value,
		 met ? "<=" : ">", limit);
}

/* The read, reset and start goals on a set of @n events. */
static void eval_set(const struct ovh *o, int n, struct goal *g)
{
	const struct col *ob = ours_best(o), *st = &o->col[WORKER_STOCK];
	const struct col *fl = &o->col[WORKER_FLOOR];
	const struct rec *r;
	double v, s, f;

	v = med_of(ob, "read", n);
	s = st->w.active ? med_of(st, "read", n) : -1;
	f = med_of(fl, "f_read", n);
	if (v >= 0 && s > 0)
		goal_add(&g[0], v / s, 1.05, "%d ev: ours/stock", n);
	if (v >= 0 && f > 0)
		goal_add(&g[0], v / f, 1.1, "%d ev: ours/floor", n);
	v = med_of(ob, "reset", n);
	f = med_of(fl, "f_reset", n);
	if (v >= 0 && f > 0)
		goal_add(&g[1], v / f, 1.2, "%d ev: ours/ioctl", n);
	v = med_of(ob, "start", n);
	f = med_of(fl, "f_enable", n);
	if (v < 0 || f <= 0)
		return;
	goal_add(&g[3], v / f, 1.5, "%d ev: ours/ioctl", n);
	/* counted exactly: it must be one system call */
	r = find_rec(ob, "start", n);
	if (r && r->st.sys >= 0)
		goal_add(&g[3], r->st.sys, 1.0, "%d ev: syscalls", n);
}

/* Every call of the main table on a set of @n events against stock's. */
static void eval_calls(const struct ovh *o, int n, struct goal *g)
{
	const struct col *ob = ours_best(o), *st = &o->col[WORKER_STOCK];
	double v, s;
	int i;

	if (!st->w.active)
		return;
	for (i = 0; i < ncalls; i++) {
		v = med_of(ob, calls[i].id, n);
		s = med_of(st, calls[i].id, n);
		if (v >= 0 && s > 0)
			goal_add(g, v / s, 1.05, "%d ev %s", n, calls[i].label);
	}
}

void eval_goals(const struct ovh *o, struct goal *g)
{
	const struct col *st = &o->col[WORKER_STOCK];
	int k, n, acc_set = -1;
	double v, s;

	memset(g, 0, sizeof(*g) * NGOALS);
	for (k = 0; k < o->nsizes; k++) {
		n = o->sizes[k];
		eval_set(o, n, g);
		eval_calls(o, n, &g[4]);
		if (n == 3 || (acc_set < 0 && k == o->nsizes - 1))
			acc_set = n;
	}
	if (acc_set <= 0)
		return;
	v = med_of(ours_best(o), "accum", acc_set);
	s = st->w.active ? med_of(st, "accum", acc_set) : -1;
	if (v >= 0 && s > 0)
		goal_add(&g[2], v / s, 0.7, "%d ev: ours/stock", acc_set);
}

void print_goals(const struct ovh *o)
{
	struct goal g[NGOALS];
	int i;

	eval_goals(o, g);
	printf("\ngoals (from this run's medians, ours = %s%s):\n",
	       rdpmc_col_ok(o) ? "ours-rdpmc" : "ours-read",
	       med_of(&o->col[WORKER_STOCK], "read", o->sizes[0]) < 0 ?
		       "; no stock measurement, ours/stock not evaluated" :
		       "");
	for (i = 0; i < NGOALS; i++)
		printf("  %-64s %-8s %s\n", goal_names[i],
		       goal_verdict(&g[i], GOAL_MET, GOAL_MISSED),
		       !g[i].evaluated ? "(not measured in this run)" :
					 g[i].text);
}
