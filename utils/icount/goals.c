/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The goals of issue 11, judged from this run's counts.
 */
#include <stdio.h>
#include <string.h>

#include "icount.h"

const char *const goal_names[NGOALS] = {
	"read(2) path, 1 and 3 events: every call at most stock's",
	"read(2) path: our component+engine share of PAPI_read at most "
	"stock's",
	"user-space path: PAPI_read of 1 event at most framework floor + "
	"1.5x the bare loop's 1-event cost",
	"user-space path: each further event adds at most 1.2x the bare "
	"loop's per-event cost",
	"user-space path: PAPI_reset and PAPI_accum make no system call, and "
	"each event adds at most 20 instructions more to them than to "
	"PAPI_read",
};
const char *const goal_ids[NGOALS] = {
	"goal_read2_calls",    "goal_read2_share",      "goal_user_read1",
	"goal_user_per_event", "goal_user_reset_accum",
};

/* One comparison @v <= @limit, said if it fails or @always. */
static void check(struct goal *g, double v, double limit, int always,
		  const char *what)
{
	int met = goal_part(g, v <= limit + 1e-9);

	if (always || !met)
		goal_say(g, "%s %.1f %s %.1f", what, v, met ? "<=" : ">",
			 limit);
}

/* Goal 0: every call of ours-read against stock, 1 and 3 events. */
static void goal_calls(const struct ic *ic, struct goal *g)
{
	const struct col *o = &ic->col[WORKER_READ],
			 *s = &ic->col[WORKER_STOCK];
	static const int sizes[] = { 1, 3 };
	int i, k, within = 0, all = 0;
	char what[64];
	double a, b;

	for (k = 0; k < 2 && sizes[k] <= ic->nev; k++)
		for (i = 0; i < ncalls; i++) {
			a = per_call(o, "papi", calls[i].call, sizes[k], Q_INS);
			b = per_call(s, "papi", calls[i].call, sizes[k], Q_INS);
			if (a < 0 || b < 0)
				continue;
			snprintf(what, sizeof(what), "%d ev %s", sizes[k],
				 calls[i].label);
			check(g, a, b, 0, what);
			within += a <= b + 1e-9;
			all++;
		}
	if (all)
		goal_say(g, "%d of %d calls at most stock's", within, all);
}

/* Goal 1: PAPI_read less the framework floor, ours-read and stock. */
static void goal_share(const struct ic *ic, struct goal *g)
{
	const struct col *o = &ic->col[WORKER_READ],
			 *s = &ic->col[WORKER_STOCK];
	double a, b, fa, fb;
	char what[64];
	int k;

	for (k = 1; k <= 3 && k <= ic->nev; k += 2) {
		a = per_call(o, "papi", "read", k, Q_INS);
		fa = per_call(o, "fw", "read", k, Q_INS);
		b = per_call(s, "papi", "read", k, Q_INS);
		fb = per_call(s, "fw", "read", k, Q_INS);
		if (a < 0 || fa < 0 || b < 0 || fb < 0)
			continue;
		snprintf(what, sizeof(what), "%d ev: ours", k);
		check(g, a - fa, b - fb, 1, what);
	}
}

/* Goals 2 and 3: ours-rdpmc's PAPI_read against the bare loop. */
static void goal_user_read(const struct ic *ic, struct goal *g)
{
	const struct col *o = &ic->col[WORKER_RDPMC],
			 *f = &ic->col[WORKER_FLOOR];
	double r1 = per_call(o, "papi", "read", 1, Q_INS);
	double fw = per_call(o, "fw", "read", 1, Q_INS);
	double b1 = per_call(f, "user", "read", 1, Q_INS), rk, bk, fk;
	char what[96];
	int k;

	if (r1 < 0 || fw < 0 || b1 < 0)
		return;
	snprintf(what, sizeof(what), "1 ev: %.0f = framework %.0f +", r1, fw);
	check(&g[0], r1 - fw, 1.5 * b1, 1, what);
	for (k = 2; k <= ic->nev; k++) {
		rk = per_call(o, "papi", "read", k, Q_INS);
		bk = per_call(f, "user", "read", k, Q_INS);
		fk = per_call(o, "fw", "read", k, Q_INS);
		if (rk < 0 || bk < 0)
			continue;
		snprintf(what, sizeof(what), "1->%d ev: PAPI_read +", k);
		check(&g[1], rk - r1, 1.2 * (bk - b1), k == ic->nev, what);
		/* where the events' instructions go: PAPI's or ours */
		if (k == ic->nev && fk >= 0)
			goal_say(&g[1],
				 "of which framework %+.0f, component and "
				 "engine %+.0f",
				 fk - fw, rk - r1 - (fk - fw));
	}
}

/*
 * Goal 4: no system call, and each event adds at most 20 instructions
 * more to PAPI_reset and PAPI_accum than to PAPI_read (a reset reads every
 * counter, unless it reuses the read's sample as in PAPI_accum).  What
 * they cost over PAPI_read with one event is said, PAPI's framework and
 * ours apart.
 */
static void goal_user_reset(const struct ic *ic, struct goal *g)
{
	static const char *const which[] = { "reset", "accum" };
	const struct col *o = &ic->col[WORKER_RDPMC];
	double r1 = per_call(o, "papi", "read", 1, Q_INS);
	double f1 = per_call(o, "fw", "read", 1, Q_INS);
	double r, x, x1, fx, sys;
	char what[96];
	int k, i;

	for (i = 0; i < 2; i++) {
		x1 = per_call(o, "papi", which[i], 1, Q_INS);
		for (k = 1; k <= ic->nev; k++) {
			r = per_call(o, "papi", "read", k, Q_INS);
			x = per_call(o, "papi", which[i], k, Q_INS);
			sys = per_call(o, "papi", which[i], k, Q_SYS_MAX);
			snprintf(what, sizeof(what),
				 "1->%d ev PAPI_%s: + over PAPI_read's +", k,
				 which[i]);
			if (k > 1 && r >= 0 && x >= 0 && r1 >= 0 && x1 >= 0)
				check(g, (x - x1) - (r - r1), 20.0 * (k - 1),
				      k == ic->nev, what);
			snprintf(what, sizeof(what), "%d ev PAPI_%s: syscalls",
				 k, which[i]);
			if (sys >= 0)
				check(g, sys, 0, k == ic->nev, what);
		}
		fx = per_call(o, "fw", which[i], 1, Q_INS);
		if (x1 >= 0 && r1 >= 0 && fx >= 0 && f1 >= 0)
			goal_say(g,
				 "1 ev PAPI_%s over PAPI_read: %.0f (framework "
				 "%+.0f, component and engine %+.0f)",
				 which[i], x1 - r1, fx - f1,
				 (x1 - r1) - (fx - f1));
	}
	if (g->evaluated && per_call(o, "papi", "reset", 1, Q_SYS) < 0)
		goal_say(g, "system calls not counted: %s", o->sys_why);
}

/* Why a goal could not be judged. */
static void not_judged(const struct ic *ic, int i, struct goal *g)
{
	const struct col *c = ic->col;
	const struct res *u = find_res(&c[WORKER_FLOOR], "user", "read", 1);
	char why[512] = "not measured in this run";

	if (i < 2 && !c[WORKER_STOCK].w.active)
		snprintf(why, sizeof(why), "no stock build to compare with");
	else if (i < 2)
		col_failed(&c[WORKER_STOCK], why, sizeof(why));
	else if (!rdpmc_ok(ic) && c[WORKER_RDPMC].skipped)
		snprintf(why, sizeof(why), "no user-space read here: %s",
			 c[WORKER_RDPMC].skip_why);
	else if (u && u->kind == RES_NA)
		snprintf(why, sizeof(why), "no bare user-space loop: %s",
			 u->msg);
	scopy(g->text, sizeof(g->text), why);
}

void eval_goals(const struct ic *ic, struct goal *g)
{
	int i;

	memset(g, 0, sizeof(*g) * NGOALS);
	if (!strcmp(ic->method, "counter"))
		for (i = 0; i < 2; i++)
			goal_say(&g[i], "user and kernel instructions");
	goal_calls(ic, &g[0]);
	goal_share(ic, &g[1]);
	if (rdpmc_ok(ic)) {
		goal_user_read(ic, &g[2]);
		goal_user_reset(ic, &g[4]);
	}
	for (i = 0; i < NGOALS; i++)
		if (!g[i].evaluated)
			not_judged(ic, i, &g[i]);
}

void print_goals(const struct ic *ic)
{
	struct goal g[NGOALS];
	int i;

	eval_goals(ic, g);
	printf("\ngoals (issue 11; instructions from this run):\n");
	for (i = 0; i < NGOALS; i++)
		printf("  %-4s  %s\n        %s\n",
		       goal_verdict(&g[i], GOAL_MET, GOAL_MISSED),
		       goal_names[i], g[i].text);
}
