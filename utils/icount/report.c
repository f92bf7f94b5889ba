/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The text report: what each column really loaded, the per-call table
 * (ours against stock, the raw floor and PAPI's framework floor), the raw
 * floor of every set size, then the goals.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "icount.h"

const struct call_def calls[] = {
	{ "start", "PAPI_start", "start" },
	{ "stop", "PAPI_stop", "stop" },
	{ "read", "PAPI_read", "read" },
	{ "accum", "PAPI_accum", "read" },
	{ "reset", "PAPI_reset", "reset" },
	{ "read_reset", "PAPI_read+reset", "read" },
};
const int ncalls = ARRAY_SIZE(calls);

/* The raw floor's calls, as the floor table labels them. */
static const struct {
	const char *target, *call, *label;
} floors[] = {
	{ "raw", "start", "ioctl(ENABLE)" },
	{ "raw", "stop", "ioctl(DISABLE)" },
	{ "raw", "read", "read(group)" },
	{ "raw", "reset", "ioctl(RESET)" },
	{ "untimed", "read", "read(no times)" },
	{ "user", "read", "user loop" },
};

/* @v as a count; "-" if < 0. */
static void num(char *buf, size_t len, double v)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f", v);
}

/* System calls per call, a mean. */
static void sys(char *buf, size_t len, double v)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3g", v);
}

void cell(char *buf, size_t len, const struct col *c, const char *target,
	  const char *call, int nev)
{
	const struct res *r = find_res(c, target, call, nev);
	double v = per_call(c, target, call, nev, Q_INS);
	char why[512];

	if (!c->w.active)
		snprintf(buf, len, "-");
	else if (c->disabled)
		snprintf(buf, len, "disabled");
	else if (c->skipped || (r && r->kind == RES_NA))
		snprintf(buf, len, "n/a");
	else if (r && r->kind == RES_ERR)
		snprintf(buf, len, "error");
	else if (v < 0)
		snprintf(buf, len, "%s",
			 col_failed(c, why, sizeof(why)) ? "failed" : "?");
	else
		snprintf(buf, len, "%.0f%s", v,
			 varies(c, target, call, nev) ? "*" : "");
}

static void ratio(char *buf, size_t len, double a, double b)
{
	if (a < 0 || b <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", a / b);
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

	if (!w->active)
		return;
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

static void print_header(const struct ic *ic)
{
	const struct col *c = ic->col;
	struct utsname un;
	char model[256];

	printf(PROG ": instructions per call, method %s;\n"
		    "%ld calls per case (after %d uncounted), less an empty "
		    "function's; sets of 1 to %d events\n",
	       ic->method_desc, ic->o.n, WARMUP, ic->nev);
	uname(&un);
	cpu_model(model, sizeof(model));
	printf("machine   : %s, %s %s, %ld CPUs online, workers pinned to cpu "
	       "%d\n",
	       model, un.sysname, un.release, sysconf(_SC_NPROCESSORS_ONLN),
	       ic->cpu);
	printf("events    : %s\n            (%s)\n", ic->events,
	       c[WORKER_RDPMC].choice[0] ? c[WORKER_RDPMC].choice :
					   "given with -e");
	print_col("ours", &c[WORKER_RDPMC]);
	if (!rdpmc_ok(ic))
		printf("%-10s  ours-rdpmc: n/a (%s)\n", "",
		       c[WORKER_RDPMC].skipped ?
			       c[WORKER_RDPMC].skip_why :
			       "no user-space reads measured");
	print_col("ours-read", &c[WORKER_READ]);
	if (c[WORKER_STOCK].w.active)
		print_col("stock", &c[WORKER_STOCK]);
	else
		printf("%-10s: not measured (%s)\n", "stock",
		       ic->o.dirs.no_compare ? "--no-compare" :
					       "no stock build found");
	printf("counted   : instructions: %s\n"
	       "            system calls: %s\n",
	       c[WORKER_READ].ins_why[0] ? c[WORKER_READ].ins_why : "?",
	       c[WORKER_READ].sys_why[0] ? c[WORKER_READ].sys_why : "?");
}

/* One row of the main table: @d on @nev events. */
static void print_row(const struct ic *ic, const struct call_def *d, int nev)
{
	const struct col *c = ic->col, *ob = ours_best(ic);
	const struct col *st = &c[WORKER_STOCK], *fl = &c[WORKER_FLOOR];
	double o = per_call(ob, "papi", d->call, nev, Q_INS);
	double s = per_call(st, "papi", d->call, nev, Q_INS);
	double f = per_call(fl, "raw", d->floor, nev, Q_INS);
	char b[10][32];

	if (rdpmc_ok(ic))
		cell(b[0], 32, &c[WORKER_RDPMC], "papi", d->call, nev);
	else
		snprintf(b[0], 32, "n/a");
	cell(b[1], 32, &c[WORKER_READ], "papi", d->call, nev);
	cell(b[2], 32, st, "papi", d->call, nev);
	cell(b[3], 32, fl, "raw", d->floor, nev);
	cell(b[4], 32, ob, "fw", d->call, nev);
	ratio(b[5], 32, o, s);
	ratio(b[6], 32, o, f);
	num(b[7], 32, minus(o, per_call(ob, "fw", d->call, nev, Q_INS)));
	num(b[8], 32, minus(s, per_call(st, "fw", d->call, nev, Q_INS)));
	sys(b[9], 16, per_call(ob, "papi", d->call, nev, Q_SYS));
	sys(b[9] + 16, 16, per_call(st, "papi", d->call, nev, Q_SYS));
	printf("%-16s %2d %10s %10s %10s %10s %10s %10s %10s %10s %10s "
	       "%5s / %s\n",
	       d->label, nev, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
	       b[8], b[9], b[9] + 16);
}

static void print_table(const struct ic *ic)
{
	int i, k;

	printf("\n%-16s %2s %10s %10s %10s %10s %10s %10s %10s %10s %10s %s\n",
	       "call", "ev", "ours-rdpmc", "ours-read", "stock", "floor",
	       "framework", "ours/stock", "ours/floor", "share:ours",
	       "share:stock", "syscalls ours/stock");
	for (i = 0; i < ncalls; i++)
		for (k = 1; k <= ic->nev; k++)
			print_row(ic, &calls[i], k);
	printf("(ours = %s; floor: start ioctl(ENABLE), stop ioctl(DISABLE), "
	       "reset ioctl(RESET),\n the others read(group); framework: "
	       "PAPI's own instructions around an empty component;\n"
	       " share: the call less the framework, the component's and "
	       "engine's share)\n",
	       rdpmc_ok(ic) ? "ours-rdpmc" : "ours-read");
}

#define MAX_VARIES 24

/* Paths @r->path[@i..] that count as @r->path[@i] does, as "562 in 48 of
 * 50 calls (+2, +3 syscr)" less @base instructions and @sys system calls
 * (the empty function's); @done marks them. */
static void path_str(char *buf, size_t len, const struct res *r, int i,
		     int *done, double base, long sys, const char *sys_name)
{
	const struct path *p = &r->path[i];
	char max[32] = "", keys[96] = "";
	long calls = 0;
	int j;

	for (j = i; j < r->npaths; j++) {
		if (r->path[j].min != p->min || r->path[j].max != p->max)
			continue;
		done[j] = 1;
		calls += r->path[j].calls;
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys),
			 "%s+%ld", j > i ? ", " : "", r->path[j].sys - sys);
	}
	if (p->max > p->min)
		snprintf(max, sizeof(max), " to %.0f", p->max - base);
	snprintf(buf, len, "%.0f%s in %ld of %ld calls (%s %s)", p->min - base,
		 max, calls, r->n, keys, sys_name);
}

/* One case whose calls took paths of different lengths, the first time
 * with the note's header; at most MAX_VARIES. */
static void print_vary(const struct ic *ic, const struct col *c,
		       const struct res *r, int *seen)
{
	const struct res *z = find_res(c, "null", r->call, 0);
	double base = z && z->npaths ? z->path[0].min : 0;
	long sys = z && z->npaths ? z->path[0].sys : 0;
	int i, done[MAX_PATHS] = { 0 }, n = 0;
	char buf[200];

	if (++*seen == 1)
		printf("* not every call counted the same (a path that depends "
		       "on the clock, or the\n  kernel's own variation): the "
		       "least count of the calls with the fewest %s\n",
		       ic->sys_name);
	if (*seen > MAX_VARIES)
		return;
	printf("  %-10s %-4s %-10s %d ev:", c->w.name, r->target, r->call,
	       r->nev);
	for (i = 0; i < r->npaths; i++) {
		if (done[i])
			continue;
		path_str(buf, sizeof(buf), r, i, done, base, sys, ic->sys_name);
		printf("%s %s", n++ ? ";" : "", buf);
	}
	printf("\n");
}

/* The cases of the columns shown whose calls differed. */
static void print_varies(const struct ic *ic)
{
	const struct res *r;
	const struct col *c;
	int k, i, seen = 0;

	for (k = 0; k < WORKER_PATHS; k++) {
		c = &ic->col[k];
		if (c->skipped || c->disabled ||
		    (k == WORKER_RDPMC && !rdpmc_ok(ic)))
			continue;
		for (i = 0; i < c->nres; i++) {
			r = &c->res[i];
			if (strcmp(r->target, "null") &&
			    varies(c, r->target, r->call, r->nev))
				print_vary(ic, c, r, &seen);
		}
	}
	if (seen > MAX_VARIES)
		printf("  ... and %d more (--csv has them all)\n",
		       seen - MAX_VARIES);
}

static void print_floor(const struct ic *ic)
{
	const struct col *fl = &ic->col[WORKER_FLOOR];
	const struct res *r = find_res(fl, "user", "read", 1);
	char b[32];
	size_t i;
	int k;

	printf("\nraw floor (perf_event_open, the same events as one group, "
	       "user domain):\n%3s",
	       "ev");
	for (i = 0; i < ARRAY_SIZE(floors); i++)
		printf(" %14s", floors[i].label);
	printf("\n");
	for (k = 1; k <= ic->nev; k++) {
		printf("%3d", k);
		for (i = 0; i < ARRAY_SIZE(floors); i++) {
			cell(b, sizeof(b), fl, floors[i].target, floors[i].call,
			     k);
			printf(" %14s", b);
		}
		printf("\n");
	}
	if (r && r->kind == RES_NA)
		printf("user loop: n/a: %s\n", r->msg);
}

void print_report(const struct ic *ic)
{
	print_header(ic);
	print_table(ic);
	print_varies(ic);
	print_floor(ic);
	print_goals(ic);
}
