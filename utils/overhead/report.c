/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The text report: what each column really loaded, the table of cases
 * (ours against stock, the raw floor and PAPI's framework floor), the
 * paths of the calls that counted differently, the raw floor of every set
 * size, each case's distribution (-v), then the goals.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "overhead.h"

/* The raw floor's calls, as the floor table labels them. */
static const char *const floors[][3] = {
	{ "raw", "start", "ioctl(ENABLE)" },
	{ "raw", "stop", "ioctl(DISABLE)" },
	{ "raw", "read", "read(group)" },
	{ "raw", "reset", "ioctl(RESET)" },
	{ "untimed", "read", "read(no times)" },
	{ "user", "read", "user loop" },
};

/* @sep, then @v with @fmt ("-" if < 0) right-aligned in @w. */
static void num(const char *sep, int w, const char *fmt, double v)
{
	char b[32] = "-";

	if (v >= 0)
		snprintf(b, sizeof(b), fmt, v);
	printf("%s%*s", sep, w, b);
}

/* Did the calls of case @r count differently (exact meters)? */
static int varies(const struct res *r)
{
	return r && !r->kind && r->val.ok && r->val.s[S_MIN] != r->val.s[S_MAX];
}

/* A blank, then the value of @call of @target on @nev events in column
 * @c, or why none, right-aligned in @w. */
static void cell(int w, const struct ovh *o, const struct col *c,
		 const char *target, const char *call, int nev)
{
	const struct res *r = find_res(c, target, call, nev, 0);
	double v = per_call(o, c, target, call, nev, Q_VAL);
	int kind = r ? r->kind : RES_OK;
	const char *s = !c->w.active                  ? "-" :
			c->disabled                   ? "disabled" :
			c->skip_why || kind == RES_NA ? "n/a" :
			kind == RES_ERR               ? "error" :
			v >= 0                        ? NULL :
			col_failed(c, NULL, 0)        ? "failed" :
							"?";
	char b[32];

	snprintf(b, sizeof(b), "%.0f%s", v, o->exact && varies(r) ? "*" : "");
	printf(" %*s", w, s ? s : b);
}

/* @a / @b, or -1 if either is missing or @b is 0. */
static double over(double a, double b)
{
	return a < 0 || b <= 0 ? -1 : a / b;
}

/* @a - @b, or -1 if either is missing. */
static double minus(double a, double b)
{
	return a < 0 || b < 0 ? -1 : a - b;
}

static void print_col(const char *tag, const struct col *c)
{
	const struct worker *w = &c->w;
	char why[512];

	if (col_failed(c, why, sizeof(why)))
		printf("%-10s: %s: %s\n", tag,
		       c->disabled ? "not measured" : "FAILED", why);
	if (!w->lib[0])
		return;
	printf("%-10s: %s\n", tag, w->lib);
	printf("%-10s  component %s, fast_counter_read=%d%s%s%s\n", "",
	       w->comp[0] ? w->comp : "?", w->fcr, w->desc[0] ? " (" : "",
	       w->desc, w->desc[0] ? ")" : "");
}

static void print_header(const struct ovh *o)
{
	const struct col *c = o->col;
	struct utsname un;

	printf(PROG ": %s per call, meter %s;\n"
		    "%s of %ld calls per case (after %d uncounted), less an "
		    "empty function's; sets of 1 to %d events\n",
	       o->unit, o->meter_desc,
	       o->o.rounds > 1 ? "the median over rounds of the median" :
	       o->exact        ? "the cheapest" :
				 "the median",
	       o->o.n, WARMUP, o->nev);
	if (o->o.rounds > 1)
		printf("rounds    : %ld, each worker once per round\n",
		       o->o.rounds);
	if (uname(&un))
		memset(&un, 0, sizeof(un));
	printf("machine   : %s, %s %s, %ld CPUs online, workers pinned to cpu "
	       "%d\n",
	       o->model, un.sysname, un.release, sysconf(_SC_NPROCESSORS_ONLN),
	       o->cpu);
	printf("events    : %s\n            (%s)\n", c[WORKER_RDPMC].events,
	       c[WORKER_RDPMC].choice[0] ? c[WORKER_RDPMC].choice :
					   "given with -e");
	print_col("ours", &c[WORKER_RDPMC]);
	if (!rdpmc_ok(o))
		printf("%-10s  ours-rdpmc: n/a (%s)\n", "",
		       c[WORKER_RDPMC].skip_why ?:
						  "no user-space reads measured");
	print_col("ours-read", &c[WORKER_READ]);
	if (c[WORKER_STOCK].w.active)
		print_col("stock", &c[WORKER_STOCK]);
	else
		printf("%-10s: not measured (%s)\n", "stock",
		       o->o.dirs.no_compare ? "--no-compare" :
					      "no stock build found");
	print_col("floor", &c[WORKER_FLOOR]);
	printf("counted   : %s: %s\n            system calls: %s\n", o->unit,
	       c[WORKER_READ].val_why[0] ? c[WORKER_READ].val_why : "?",
	       c[WORKER_READ].sys_why[0] ? c[WORKER_READ].sys_why : "?");
}

/* One row of the table: @d on @nev events. */
static void print_row(const struct ovh *o, const struct case_def *d, int nev)
{
	const struct col *c = o->col, *ob = ours_best(o);
	const struct col *st = &c[WORKER_STOCK], *fl = &c[WORKER_FLOOR];
	double v = per_call(o, ob, "papi", d->call, nev, Q_VAL);
	double s = per_call(o, st, "papi", d->call, nev, Q_VAL);
	double f = per_call(o, fl, "raw", d->floor, nev, Q_VAL);

	printf("%-16s %2d", d->label, nev);
	if (rdpmc_ok(o))
		cell(10, o, &c[WORKER_RDPMC], "papi", d->call, nev);
	else
		printf(" %10s", "n/a");
	cell(10, o, &c[WORKER_READ], "papi", d->call, nev);
	cell(10, o, st, "papi", d->call, nev);
	cell(10, o, fl, "raw", d->floor, nev);
	cell(10, o, ob, "fw", d->base, nev);
	num(" ", 10, "%.2f", over(v, s));
	num(" ", 10, "%.2f", over(v, f));
	num(" ", 10, "%.0f",
	    minus(v, per_call(o, ob, "fw", d->base, nev, Q_VAL)));
	num(" ", 10, "%.0f",
	    minus(s, per_call(o, st, "fw", d->base, nev, Q_VAL)));
	num(" ", 5, "%.3g", per_call(o, ob, "papi", d->call, nev, Q_SYS));
	num(" / ", 0, "%.3g", per_call(o, st, "papi", d->call, nev, Q_SYS));
	printf("\n");
}

/* The minor faults per call of the cases on new sets, per column. */
static void print_faults(const struct ovh *o)
{
	const struct col *c;
	int k, i, j;

	printf("faults    : minor faults per call on new sets (start, read "
	       "#1, read #2):");
	for (k = 0; k < WORKER_FLOOR; k++) {
		c = &o->col[k];
		if (!c->w.active || (k == WORKER_RDPMC && !rdpmc_ok(o)))
			continue;
		printf(" %s", c->w.name);
		for (i = j = 0; i < ncases; i++)
			if (cases[i].flags & CASE_FAULTS)
				num(j++ ? "/" : " ", 0, "%.2f",
				    per_call(o, c, "papi", cases[i].call,
					     SET3_OF(o->nev), Q_EXTRA));
		printf("%s", k < WORKER_STOCK ? ";" : "");
	}
	printf("\n");
}

static void print_table(const struct ovh *o)
{
	int i, k;

	printf("\n%-16s %2s %10s %10s %10s %10s %10s %10s %10s %10s %10s %s\n",
	       "call", "ev", "ours-rdpmc", "ours-read", "stock", "floor",
	       "framework", "ours/stock", "ours/floor", "share:ours",
	       "share:stock", "syscalls ours/stock");
	for (i = 0; i < NCALLS; i++)
		for (k = 1; k <= o->nev; k++)
			print_row(o, &cases[i], k);
	for (i = NCALLS; i < ncases; i++)
		if (!(cases[i].flags & CASE_SAMPLES))
			print_row(o, &cases[i], SET3_OF(o->nev));
	printf("(%s per call; ours = %s; floor: start ioctl(ENABLE), stop "
	       "ioctl(DISABLE),\n reset ioctl(RESET), the others read(group); "
	       "framework: PAPI's own around an empty\n component; share: the "
	       "call less the framework, the component's and engine's share;\n"
	       " /new: on a new set, its first call; /k: the k-th read after "
	       "a start)\n",
	       o->unit, ours_best(o)->w.name);
	print_faults(o);
}

#define MAX_VARIES 24

/*
 * One case whose calls took paths of different lengths, the first time
 * with the note's header; at most MAX_VARIES.  The paths that count
 * alike are one, as "562 in 48 of 50 calls (+2, +3 syscr)", less the
 * count and the system calls of the empty function's cheapest path.
 */
static void print_vary(const struct ovh *o, const struct col *c,
		       const struct res *r, int *seen)
{
	const struct res *z =
		find_res(c, "null", case_find(r->call)->base, 0, 0);
	double base = z && z->npaths ? z->path[0].min : 0;
	long sys = z && z->npaths ? z->path[0].sys : 0, calls;
	int i, j, done[MAX_PATHS] = { 0 };
	const struct path *p;
	char keys[96];
	size_t n;

	if (++*seen == 1)
		printf("* not every call counted the same (a path that depends "
		       "on the clock, or the\n  kernel's own variation): the "
		       "least count of the calls with the fewest %s\n",
		       o->sys_name);
	if (*seen > MAX_VARIES)
		return;
	printf("  %-10s %-4s %-10s %d ev:", c->w.name, r->target, r->call,
	       r->nev);
	for (i = 0; i < r->npaths; i++) {
		if (done[i])
			continue;
		p = &r->path[i];
		for (j = i, calls = 0, n = 0; j < r->npaths; j++) {
			if (r->path[j].min != p->min ||
			    r->path[j].max != p->max)
				continue;
			done[j] = 1;
			calls += r->path[j].calls;
			append(keys, sizeof(keys), &n, "%s+%ld",
			       j > i ? ", " : "", r->path[j].sys - sys);
		}
		printf("%s %.0f", i ? ";" : "", p->min - base);
		if (p->max > p->min)
			printf(" to %.0f", p->max - base);
		printf(" in %ld of %.0f calls (%s %s)", calls, r->val.s[S_N],
		       keys, o->sys_name);
	}
	printf("\n");
}

/* The cases of the columns shown whose calls differed (exact meters). */
static void print_varies(const struct ovh *o)
{
	const struct res *r;
	const struct col *c;
	int k, i, seen = 0;

	for (k = 0; o->exact && k < WORKER_PATHS; k++) {
		c = &o->col[k];
		if (c->disabled || (k == WORKER_RDPMC && !rdpmc_ok(o)))
			continue;
		for (i = 0; i < c->nres; i++) {
			r = &c->res[i];
			if (!r->round && strcmp(r->target, "null") && varies(r))
				print_vary(o, c, r, &seen);
		}
	}
	if (seen > MAX_VARIES)
		printf("  ... and %d more (--csv has them all)\n",
		       seen - MAX_VARIES);
}

/*
 * @q of a sample in column @c (@target on @nev events): the sampled
 * spin's less the bare spin's, over its samples; < 0 if not measured.
 * The value is the means' difference with an exact meter (the calls
 * differ by the samples they took), the medians' with the timer.
 */
static double per_sample(const struct ovh *o, const struct col *c,
			 const char *target, int nev, enum quantity q)
{
	if (q == Q_VAL && o->exact)
		q = Q_MEAN;
	return over(per_call(o, c, target, "sample", nev, q),
		    per_call(o, c, target, "sample", nev, Q_EXTRA));
}

/*
 * The sampling table: per sample, ours, stock and the floor, every event
 * of the set sampling; the samples a spin took, and the system calls a
 * sample made.
 */
static void print_sampling(const struct ovh *o)
{
	const struct col *col[] = { ours_best(o), &o->col[WORKER_STOCK],
				    &o->col[WORKER_FLOOR] };
	const struct col *ob = col[0], *st = col[1];
	double v[3];
	int k, j;

	printf("\nsampling (%s per sample: a spin, %ld calls, every event of "
	       "the set overflowing\nevery %d (the clocks every %d ns), "
	       "less the bare spin, over the spin's samples;\nours = %s):\n"
	       "%3s %10s %10s %10s %10s %10s %12s %s\n",
	       o->unit, o->o.n < SAMPLE_N ? o->o.n : SAMPLE_N, SAMPLE_PERIOD,
	       CLOCK_PERIOD, ob->w.name, "ev", "ours", "stock", "floor",
	       "ours/stock", "ours/floor", "samples/spin",
	       "syscalls/sample ours/stock");
	for (k = 1; k <= o->nev; k++) {
		printf("%3d", k);
		for (j = 0; j < 3; j++) {
			v[j] = per_sample(o, col[j], j < 2 ? "papi" : "raw", k,
					  Q_VAL);
			if (v[j] < 0)
				cell(10, o, col[j], j < 2 ? "papi" : "raw",
				     "sample", k);
			else
				printf(" %10.0f", v[j]);
		}
		num(" ", 10, "%.2f", over(v[0], v[1]));
		num(" ", 10, "%.2f", over(v[0], v[2]));
		num(" ", 12, "%.1f",
		    per_call(o, ob, "papi", "sample", k, Q_EXTRA));
		num(" ", 5, "%.2f", per_sample(o, ob, "papi", k, Q_SYS));
		num(" / ", 0, "%.2f", per_sample(o, st, "papi", k, Q_SYS));
		printf("\n");
	}
	for (k = 1; k <= o->nev; k++) {
		const struct res *r = find_res(ob, "papi", "sample", k, 0);

		if (r && r->kind == RES_NA) {
			printf("%d ev and more: n/a: %s\n", k, r->msg);
			break;
		}
	}
}

static void print_floor(const struct ovh *o)
{
	const struct col *fl = &o->col[WORKER_FLOOR];
	const struct res *r = find_res(fl, "user", "read", 1, 0);
	size_t i;
	int k;

	printf("\nraw floor (perf_event_open, the same events as one group, "
	       "user domain; %s):\n%3s",
	       o->unit, "ev");
	for (i = 0; i < ARRAY_SIZE(floors); i++)
		printf(" %14s", floors[i][2]);
	printf("\n");
	for (k = 1; k <= o->nev; k++) {
		printf("%3d", k);
		for (i = 0; i < ARRAY_SIZE(floors); i++)
			cell(14, o, fl, floors[i][0], floors[i][1], k);
		printf("\n");
	}
	if (r && r->kind == RES_NA)
		printf("user loop: n/a: %s\n", r->msg);
}

/* -v: every case of every column shown, its statistics per call. */
static void print_dist(const struct ovh *o)
{
	static const enum quantity q[] = { Q_VAL, Q_MEAN, Q_P10, Q_P25,
					   Q_P75, Q_P90,  Q_MIN, Q_MAX };
	const struct col *c;
	const struct res *r;
	size_t j;
	int k, i;

	printf("\ndistribution (%s per call, less the empty function's):\n"
	       "%-10s %-7s %-10s %2s %8s %8s %8s %8s %8s %8s %8s %8s %6s\n",
	       o->unit, "column", "target", "call", "ev", "value", "mean",
	       "p10", "p25", "p75", "p90", "min", "max", "sysc");
	for (k = 0; k < WORKER_PATHS; k++)
		for (c = &o->col[k], i = 0; i < c->nres; i++) {
			r = &c->res[i];
			if (r->round || !strcmp(r->target, "null") ||
			    (k == WORKER_RDPMC && !rdpmc_ok(o)))
				continue;
			printf("%-10s %-7s %-10s %2d", c->w.name, r->target,
			       r->call, r->nev);
			for (j = 0; j < ARRAY_SIZE(q); j++)
				num(" ", 8, "%.0f",
				    per_call(o, c, r->target, r->call, r->nev,
					     q[j]));
			num(" ", 6, "%.3g",
			    per_call(o, c, r->target, r->call, r->nev, Q_SYS));
			printf("\n");
		}
}

/* Every failed call, on stderr. */
static void print_errors(const struct ovh *o)
{
	const struct res *r;
	int k, i;

	for (k = 0; k < WORKER_PATHS; k++)
		for (i = 0; i < o->col[k].nres; i++) {
			r = &o->col[k].res[i];
			if (r->kind == RES_ERR && !r->round)
				msg("%s %s %s (%d ev): %s", o->col[k].w.name,
				    r->target, r->call, r->nev, r->msg);
		}
}

void print_report(const struct ovh *o)
{
	print_header(o);
	print_table(o);
	print_varies(o);
	print_floor(o);
	print_sampling(o);
	if (o->o.verbose)
		print_dist(o);
	print_goals(o, 0);
	print_errors(o);
}
