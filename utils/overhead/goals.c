/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The project's cost goals, judged from this run: with the timer, ratios
 * of medians (ours: user-space reads where they work, else read(2));
 * with an exact meter, instruction counts.  Each goal is met, missed, or
 * n/a when nothing in the run could judge it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "overhead.h"

#define NGOALS 7

/* A goal judged from the run: parts, each a comparison said in @text;
 * met if every part judged is. */
struct goal {
	int evaluated; /* 0: nothing in this run could judge it */
	int met;
	char text[1024];
};

struct goal_def {
	const char *id, *text;
};

static const struct goal_def timer_goals[NGOALS] = {
	{ "goal_read",
	  "PAPI_read: ours/stock <= 1.05 and ours/read(group) <= 1.1" },
	{ "goal_reset",
	  "PAPI_reset <= 1.2 x one system call (ioctl(RESET) floor)" },
	{ "goal_accum", "PAPI_accum <= 0.7 x stock with 3 events" },
	{ "goal_start",
	  "PAPI_start ~ one syscall (<= 1.5 x ioctl(ENABLE), 1 if counted)" },
	{ "goal_every_call", "every call: ours/stock <= 1.05" },
	{ "goal_start_stop", "user-space path: PAPI_start+read+stop <= 0.1 x "
			     "stock (lazy stop)" },
	{ "goal_user_stock", "where stock reads in user space too, 1 event: "
			     "every call ours/stock <= 1.05, PAPI_start, "
			     "PAPI_stop, PAPI_reset <= 0.1 x, PAPI_accum, "
			     "read+reset <= 0.2 x stock" },
};

static const struct goal_def exact_goals[NGOALS] = {
	{ "goal_read2_calls", "read(2) path, each number of events: every "
			      "call at most stock's" },
	{ "goal_read2_share", "read(2) path, each number of events: our "
			      "component+engine share of PAPI_read at most "
			      "stock's" },
	{ "goal_user_read1", "user-space path: PAPI_read of 1 event at most "
			     "framework floor + 1.5x the bare loop's "
			     "1-event cost" },
	{ "goal_user_per_event",
	  "user-space path: each further event adds at most 1.2x the bare "
	  "loop's per-event cost to our share (PAPI_read less the framework)" },
	{ "goal_user_reset_accum",
	  "user-space path: PAPI_reset and PAPI_accum make no system call, "
	  "and each event adds at most 20 instructions more to them than to "
	  "PAPI_read" },
	{ "goal_user_start_stop",
	  "user-space path: PAPI_start and PAPI_stop make no system call, and "
	  "each, and a start+read+stop region, at most 0.1x stock's" },
	{ "goal_user_stock",
	  "where stock reads in user space too (x86 rdpmc), 1 event: every "
	  "call of ours-rdpmc at most stock's; PAPI_start, PAPI_stop and "
	  "PAPI_reset at most 0.1x, PAPI_accum and read+reset at most 0.2x "
	  "stock's" },
};

/* Append to @g's text, after "; " if it has some already. */
static void vsay(struct goal *g, const char *fmt, va_list ap)
{
	size_t l = strlen(g->text);

	if (l)
		snprintf(g->text + l, sizeof(g->text) - l, "; ");
	l = strlen(g->text);
	vsnprintf(g->text + l, sizeof(g->text) - l, fmt, ap);
}

static __attribute__((format(printf, 2, 3))) void say(struct goal *g,
						      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(g, fmt, ap);
	va_end(ap);
}

/* One part of @g: "WHAT @v <= @limit" (or ">"), said if it fails or
 * @always.  Is it met? */
static int __attribute__((format(printf, 5, 6)))
check(struct goal *g, double v, double limit, int always, const char *fmt, ...)
{
	int met = v <= limit + 1e-9;
	va_list ap;

	/* a part judged: the goal is met while every part is */
	g->met = (g->evaluated ? g->met : 1) && met;
	g->evaluated = 1;
	if (!always && met)
		return met;
	va_start(ap, fmt);
	vsay(g, fmt, ap);
	va_end(ap);
	/* counts as counts, ratios to three figures */
	snprintf(g->text + strlen(g->text), sizeof(g->text) - strlen(g->text),
		 limit >= 100 ? " %.0f %s %.0f" : " %.3g %s %.3g", v,
		 met ? "<=" : ">", limit);
	return met;
}

/* @call's value in column @c, on @nev events, target papi or @target. */
static double val(const struct ovh *o, const struct col *c, const char *target,
		  const char *call, int nev)
{
	return per_call(o, c, target, call, nev, Q_VAL);
}

/* ------------------------------------------------------------------ */
/* Timer goals                                                         */
/* ------------------------------------------------------------------ */

/* The read, reset, start and every-call goals on a set of @n events. */
static void timer_set(const struct ovh *o, int n, struct goal *g)
{
	const struct col *ob = ours_best(o), *st = &o->col[WORKER_STOCK];
	const struct col *fl = &o->col[WORKER_FLOOR];
	double v = val(o, ob, "papi", "read", n), s, f;
	int i;

	s = val(o, st, "papi", "read", n);
	f = val(o, fl, "raw", "read", n);
	if (v >= 0 && s > 0)
		check(&g[0], v / s, 1.05, 1, "%d ev: ours/stock", n);
	if (v >= 0 && f > 0)
		check(&g[0], v / f, 1.1, 1, "%d ev: ours/floor", n);
	v = val(o, ob, "papi", "reset", n);
	f = val(o, fl, "raw", "reset", n);
	if (v >= 0 && f > 0)
		check(&g[1], v / f, 1.2, 1, "%d ev: ours/ioctl", n);
	v = val(o, ob, "papi", "start", n);
	f = val(o, fl, "raw", "start", n);
	if (v >= 0 && f > 0) {
		check(&g[3], v / f, 1.5, 1, "%d ev: ours/ioctl", n);
		/* counted exactly: it must be one system call */
		v = per_call(o, ob, "papi", "start", n, Q_SYS);
		if (v >= 0)
			check(&g[3], v, 1.0, 1, "%d ev: syscalls", n);
	}
	for (i = 0; i < NCALLS; i++) {
		v = val(o, ob, "papi", cases[i].call, n);
		s = val(o, st, "papi", cases[i].call, n);
		if (v >= 0 && s > 0)
			check(&g[4], v / s, 1.05, 1, "%d ev %s", n,
			      cases[i].label);
	}
}

/*
 * The lazy stop's goal on 1 event (doc/lazy-stop.md), ours-rdpmc against
 * stock: PAPI_start and PAPI_stop (@each: exact counts, each call on its
 * own, with no system call where they are counted) and the region of a
 * start, a read and a stop, at most 0.1x.
 */
static void start_stop_goal(const struct ovh *o, struct goal *g, int each)
{
	static const char *const which[] = { "start", "read", "stop" };
	const struct col *c = &o->col[WORKER_RDPMC], *s = &o->col[WORKER_STOCK];
	double v, x, sum = 0, ssum = 0, sys;
	int i, all = 1;

	for (i = 0; i < 3; i++) {
		v = val(o, c, "papi", which[i], 1);
		x = val(o, s, "papi", which[i], 1);
		if (v < 0 || x <= 0) {
			all = 0;
			continue;
		}
		sum += v;
		ssum += x;
		if (!each || i == 1)
			continue;
		check(g, v / x, 0.1, 1, "1 ev PAPI_%s: ours/stock", which[i]);
		sys = per_call(o, c, "papi", which[i], 1, Q_SYS_MAX);
		if (sys >= 0)
			check(g, sys, 0, 1, "syscalls");
	}
	if (all)
		check(g, sum / ssum, 0.1, 1,
		      "1 ev start+read+stop %.0f/%.0f:", sum, ssum);
}

/*
 * Does stock read in user space here, as stock PAPI does on x86 with
 * rdpmc?  Its component says fast_counter_read, and where system calls
 * are counted its PAPI_read of 1 event makes none.  If not, why in @why.
 */
static int stock_reads_user(const struct ovh *o, char *why, size_t len)
{
	const struct col *s = &o->col[WORKER_STOCK];
	double sys = per_call(o, s, "papi", "read", 1, Q_SYS_MAX);

	if (!s->w.active)
		snprintf(why, len, "no stock build to compare with");
	else if (col_failed(s, why, len))
		return 0;
	else if (!s->w.fcr)
		snprintf(why, len,
			 "stock reads with read(2) here "
			 "(fast_counter_read=0)");
	else if (sys > 0)
		snprintf(why, len,
			 "stock's PAPI_read makes %.0f system calls here", sys);
	else
		return 1;
	return 0;
}

/*
 * Where stock reads in user space too (x86), ours-rdpmc against stock on
 * 1 event: every call at most stock's (@every: 1, exact; 1.05 by the
 * timer), the calls stock makes system calls in at most 0.1x (start,
 * stop, reset) or 0.2x (accum, read+reset: a read beside them).  Where
 * one is missed, what it cannot go below here: PAPI's framework around
 * it, plus a bare user-space read of the counter for a call that must
 * read it (all but start).
 */
static void user_stock_goal(const struct ovh *o, struct goal *g, double every)
{
	static const struct {
		const char *call;
		double max;
	} lim[] = { { "start", 0.1 },
		    { "stop", 0.1 },
		    { "reset", 0.1 },
		    { "accum", 0.2 },
		    { "read_reset", 0.2 } };
	const struct col *c = &o->col[WORKER_RDPMC], *s = &o->col[WORKER_STOCK];
	double v, x, fw, b = val(o, &o->col[WORKER_FLOOR], "user", "read", 1);
	char why[512];
	int i, met;

	if (!rdpmc_ok(o) || !stock_reads_user(o, why, sizeof(why)))
		return;
	for (i = 0; i < NCALLS; i++) {
		v = val(o, c, "papi", cases[i].call, 1);
		x = val(o, s, "papi", cases[i].call, 1);
		if (v >= 0 && x > 0)
			check(g, v / x, every, 0, "1 ev %s: ours/stock",
			      cases[i].label);
	}
	for (i = 0; i < (int)ARRAY_SIZE(lim); i++) {
		v = val(o, c, "papi", lim[i].call, 1);
		x = val(o, s, "papi", lim[i].call, 1);
		if (v < 0 || x <= 0)
			continue;
		met = check(g, v / x, lim[i].max, 1, "1 ev %s: ours/stock",
			    case_find(lim[i].call)->label);
		fw = val(o, c, "fw", lim[i].call, 1);
		if (met || fw < 0 || (strcmp(lim[i].call, "start") && b < 0))
			continue;
		if (!strcmp(lim[i].call, "start"))
			say(g, "its floor here: the framework's %.0f = %.3gx",
			    fw, fw / x);
		else
			say(g,
			    "its floor here: the framework's %.0f + a bare "
			    "read's %.0f = %.3gx",
			    fw, b, (fw + b) / x);
	}
}

/* ------------------------------------------------------------------ */
/* Instruction goals                                                   */
/* ------------------------------------------------------------------ */

/* Goals 0 and 1: ours-read against stock, every call and PAPI_read's
 * share, each set of the run (1 to o->nev events); the share is said for
 * the first and the last, and wherever it is missed. */
static void read2_goals(const struct ovh *o, struct goal *g)
{
	const struct col *r = &o->col[WORKER_READ], *s = &o->col[WORKER_STOCK];
	int i, k, within = 0, all = 0;
	double a, b, fa, fb;

	for (k = 1; k <= o->nev; k++) {
		for (i = 0; i < NCALLS; i++) {
			a = val(o, r, "papi", cases[i].call, k);
			b = val(o, s, "papi", cases[i].call, k);
			if (a < 0 || b < 0)
				continue;
			within += check(&g[0], a, b, 0, "%d ev %s", k,
					cases[i].label);
			all++;
		}
		a = val(o, r, "papi", "read", k);
		fa = val(o, r, "fw", "read", k);
		b = val(o, s, "papi", "read", k);
		fb = val(o, s, "fw", "read", k);
		if (a >= 0 && fa >= 0 && b >= 0 && fb >= 0)
			check(&g[1], a - fa, b - fb, k == 1 || k == o->nev,
			      "%d ev: ours", k);
	}
	if (all)
		say(&g[0], "%d of %d calls at most stock's", within, all);
}

/* Goals 2 and 3: ours-rdpmc's PAPI_read against the bare loop. */
static void user_read_goals(const struct ovh *o, struct goal *g)
{
	const struct col *c = &o->col[WORKER_RDPMC], *f = &o->col[WORKER_FLOOR];
	double r1 = val(o, c, "papi", "read", 1),
	       fw = val(o, c, "fw", "read", 1);
	double b1 = val(o, f, "user", "read", 1), rk, bk, fk;
	int k;

	if (r1 < 0 || fw < 0 || b1 < 0)
		return;
	check(&g[0], r1 - fw, 1.5 * b1, 1, "1 ev: %.0f = framework %.0f +", r1,
	      fw);
	/* what each event adds to our share, as for 1 event: PAPI's
	 * framework adds its own per event, which no component changes */
	for (k = 2; k <= o->nev; k++) {
		rk = val(o, c, "papi", "read", k);
		bk = val(o, f, "user", "read", k);
		fk = val(o, c, "fw", "read", k);
		if (rk < 0 || bk < 0 || fk < 0)
			continue;
		check(&g[1], (rk - fk) - (r1 - fw), 1.2 * (bk - b1),
		      k == o->nev, "1->%d ev: our share +", k);
		if (k == o->nev)
			say(&g[1], "PAPI_read %+.0f, of which framework %+.0f",
			    rk - r1, fk - fw);
	}
}

/*
 * Goal 4: no system call, and each event adds at most 20 instructions
 * more to PAPI_reset and PAPI_accum than to PAPI_read (a reset reads every
 * counter, unless it reuses the read's sample as in PAPI_accum).  What
 * they cost over PAPI_read with one event is said, PAPI's framework and
 * ours apart.
 */
static void user_reset_goal(const struct ovh *o, struct goal *g)
{
	static const char *const which[] = { "reset", "accum" };
	const struct col *c = &o->col[WORKER_RDPMC];
	double r1 = val(o, c, "papi", "read", 1),
	       f1 = val(o, c, "fw", "read", 1);
	double r, x, x1, fx, sys;
	int k, i;

	for (i = 0; i < 2; i++) {
		x1 = val(o, c, "papi", which[i], 1);
		for (k = 1; k <= o->nev; k++) {
			r = val(o, c, "papi", "read", k);
			x = val(o, c, "papi", which[i], k);
			sys = per_call(o, c, "papi", which[i], k, Q_SYS_MAX);
			if (k > 1 && r >= 0 && x >= 0 && r1 >= 0 && x1 >= 0)
				check(g, (x - x1) - (r - r1), 20.0 * (k - 1),
				      k == o->nev,
				      "1->%d ev PAPI_%s: + over PAPI_read's +",
				      k, which[i]);
			if (sys >= 0)
				check(g, sys, 0, k == o->nev,
				      "%d ev PAPI_%s: syscalls", k, which[i]);
		}
		fx = val(o, c, "fw", which[i], 1);
		if (x1 >= 0 && r1 >= 0 && fx >= 0 && f1 >= 0)
			say(g,
			    "1 ev PAPI_%s over PAPI_read: %.0f (framework "
			    "%+.0f, component and engine %+.0f)",
			    which[i], x1 - r1, fx - f1, (x1 - r1) - (fx - f1));
	}
	if (g->evaluated && per_call(o, c, "papi", "reset", 1, Q_SYS) < 0)
		say(g, "system calls not counted: %s", c->sys_why);
}

/* Why goal @i could not be judged. */
static void not_judged(const struct ovh *o, int i, struct goal *g)
{
	const struct col *c = o->col;
	const struct res *u = find_res(&c[WORKER_FLOOR], "user", "read", 1, 0);
	char why[512] = "not measured in this run", sw[512];
	int su = stock_reads_user(o, sw, sizeof(sw));

	/* The x86 goal needs a stock that reads in user space, then ours;
	 * the read(2) path's goals one that does not. */
	if (i == 6 && !su)
		scopy(why, sizeof(why), sw);
	else if (o->exact && i < 2 && su)
		snprintf(why, sizeof(why),
			 "stock reads in user space here: ours-rdpmc is "
			 "compared with it by the last goal");
	/* The lazy stop's goal needs user-space reads, then stock. */
	else if ((i == 5 || i == 6) && !rdpmc_ok(o))
		snprintf(why, sizeof(why), "no user-space read here%s%s",
			 c[WORKER_RDPMC].skip_why ? ": " : "",
			 c[WORKER_RDPMC].skip_why ?: "");
	else if ((!o->exact || i < 2 || i == 5) && !c[WORKER_STOCK].w.active)
		snprintf(why, sizeof(why), "no stock build to compare with");
	else if (!o->exact || i < 2 || i == 5)
		col_failed(&c[WORKER_STOCK], why, sizeof(why));
	else if (!rdpmc_ok(o) && c[WORKER_RDPMC].skip_why)
		snprintf(why, sizeof(why), "no user-space read here: %s",
			 c[WORKER_RDPMC].skip_why);
	else if (u && u->kind == RES_NA)
		snprintf(why, sizeof(why), "no bare user-space loop: %s",
			 u->msg);
	scopy(g->text, sizeof(g->text), why);
}

static void eval_goals(const struct ovh *o, struct goal *g)
{
	int i, k = SET3_OF(o->nev);
	char why[512];
	double v, s;

	memset(g, 0, sizeof(*g) * NGOALS);
	if (!o->exact) {
		timer_set(o, 1, g);
		if (o->nev > 1)
			timer_set(o, o->nev, g);
		v = val(o, ours_best(o), "papi", "accum", k);
		s = val(o, &o->col[WORKER_STOCK], "papi", "accum", k);
		if (v >= 0 && s > 0)
			check(&g[2], v / s, 0.7, 1, "%d ev: ours/stock", k);
	} else {
		if (!strcmp(o->meter, "counter"))
			for (i = 0; i < 2; i++)
				say(&g[i], "user and kernel instructions");
		if (!stock_reads_user(o, why, sizeof(why)))
			read2_goals(o, g);
		if (rdpmc_ok(o)) {
			user_read_goals(o, &g[2]);
			user_reset_goal(o, &g[4]);
		}
	}
	if (rdpmc_ok(o))
		start_stop_goal(o, &g[5], o->exact);
	user_stock_goal(o, &g[6], o->exact ? 1.0 : 1.05);
	for (i = 0; i < NGOALS; i++)
		if (!g[i].evaluated)
			not_judged(o, i, &g[i]);
}

void print_goals(const struct ovh *o, int csv)
{
	const struct goal_def *d = o->exact ? exact_goals : timer_goals;
	const char *ours = ours_best(o)->w.name, *verdict;
	struct goal g[NGOALS];
	char text[1400];
	int i;

	eval_goals(o, g);
	if (!csv)
		printf("\ngoals (%s from this run, ours = %s):\n", o->unit,
		       ours);
	for (i = 0; i < NGOALS; i++) {
		verdict = !g[i].evaluated ? "n/a" : g[i].met ? "met" : "missed";
		if (!csv) {
			printf("  %-7s %s\n          %s\n", verdict, d[i].text,
			       g[i].text);
			continue;
		}
		printf("goal,%s,%s,,%s,,,,,,,,,,,,,", o->meter, ours, d[i].id);
		snprintf(text, sizeof(text), "%s: %s: %s", verdict, d[i].text,
			 g[i].text);
		csv_str(text);
		putchar('\n');
	}
}
