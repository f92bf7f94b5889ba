/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The text report: which libraries the columns really loaded, the per-call
 * table against stock and the floor, the raw floor, the distribution
 * (-v), the scaling, the first and the repeated reads.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "arch.h"
#include "overhead.h"

const struct call_def calls[] = {
	{ "start", "PAPI_start", "f_enable" },
	{ "stop", "PAPI_stop", "f_disable" },
	{ "read", "PAPI_read", "f_read" },
	{ "accum", "PAPI_accum", "f_read" },
	{ "reset", "PAPI_reset", "f_reset" },
	{ "read_reset", "PAPI_read+reset", "f_read" },
};
const int ncalls = ARRAY_SIZE(calls);

static const struct floor_def {
	const char *id;
	const char *label;
} floors[] = {
	{ "f_read", "read(group)" },     { "f_reset", "ioctl(RESET)" },
	{ "f_enable", "ioctl(ENABLE)" }, { "f_disable", "ioctl(DISABLE)" },
	{ "f_rdpmc", "rdpmc loop" },
};

const char *floor_label(const char *id)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(floors); i++)
		if (strcmp(floors[i].id, id) == 0)
			return floors[i].label;
	return id;
}

/* Every other measurement's id: its CSV kind and its label. */
static const struct id_def {
	const char *id;
	const char *kind;
	const char *label;
} other_ids[] = {
	{ "s_read", "scale", "PAPI_read" },
	{ "s_accum", "scale", "PAPI_accum" },
	{ "s_reset", "scale", "PAPI_reset" },
	{ "s_f_read", "scale", "read(group)" },
	{ "s_f_reset", "scale", "ioctl(RESET)" },
	{ "c_start", "first", "PAPI_start (new set)" },
	{ "c_read1", "first", "PAPI_read #1 (cold)" },
	{ "c_read2", "first", "PAPI_read #2 (warm)" },
	{ "rep1", "repeat", "PAPI_read #1" },
	{ "rep2", "repeat", "PAPI_read #2" },
	{ "rep3", "repeat", "PAPI_read #3" },
	{ "rep4", "repeat", "PAPI_read #4" },
	{ "rep5", "repeat", "PAPI_read #5" },
	{ "rep6", "repeat", "PAPI_read #6" },
	{ "rep7", "repeat", "PAPI_read #7" },
	{ "rep8", "repeat", "PAPI_read #8" },
	{ "timer", "timer", "timer (raw)" },
};

/* The label and CSV kind of measurement @id (kind: measure or floor). */
const char *id_label(const char *id, const char **kind)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(other_ids); i++)
		if (!strcmp(other_ids[i].id, id)) {
			*kind = other_ids[i].kind;
			return other_ids[i].label;
		}
	*kind = "measure";
	for (i = 0; i < ARRAY_SIZE(calls); i++)
		if (!strcmp(calls[i].id, id))
			return calls[i].label;
	*kind = "floor";
	return floor_label(id);
}

/* The median of @id in column @c as a table cell. */
static void cell(char *buf, size_t len, const struct col *c, const char *id,
		 int nev)
{
	const struct rec *r = find_rec(c, id, nev);
	char why[512];

	if (!c->w.active)
		snprintf(buf, len, "-");
	else if (!r && c->disabled)
		snprintf(buf, len, "disabled");
	else if (!r)
		snprintf(buf, len,
			 col_failed(c, why, sizeof(why)) ? "failed" : "?");
	else if (r->kind == REC_ERR)
		snprintf(buf, len, "error");
	else if (r->kind == REC_NA)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.0f", (double)r->st.med);
}

static void ratio(char *buf, size_t len, double a, double b)
{
	if (a < 0 || b <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", a / b);
}

/* System calls (sys) or minor faults (!sys) per call of @id in @c. */
static void per_call(char *buf, size_t len, const struct col *c, const char *id,
		     int nev, int sys)
{
	const struct rec *r = find_rec(c, id, nev);
	double v = r && !r->kind ? (sys ? r->st.sys : r->st.flt) : -1;

	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, sys ? "%.3g" : "%.2f", v);
}

static void print_col_header(const char *tag, const struct col *c)
{
	const struct worker *w = &c->w;
	char why[512], want[PATH_MAX];
	size_t l;

	if (!w->active)
		return;
	if (col_failed(c, why, sizeof(why))) {
		printf("%-10s: %s: %s\n", tag,
		       c->disabled ? "not measured" : "FAILED", why);
		if (!w->lib[0])
			return;
	}
	printf("%-10s: %s\n", tag, w->lib[0] ? w->lib : "(library unknown)");
	if (w->libdir && w->lib[0]) {
		if (!realpath(w->libdir, want))
			scopy(want, sizeof(want), w->libdir);
		l = strlen(want);
		if (strncmp(w->lib, want, l) || w->lib[l] != '/')
			printf("%-10s  WARNING: asked for %s, the dynamic linker "
			       "loaded another library\n",
			       "", w->libdir);
	}
	printf("%-10s  component %s, fast_counter_read=%d%s%s%s%s\n", "",
	       w->comp[0] ? w->comp : "?", w->fcr, w->desc[0] ? " (" : "",
	       w->desc, w->desc[0] ? ")" : "",
	       w->disabled[0] ? " DISABLED" : "");
}

/* The libraries: the ours, ours-read and stock columns' headers. */
static void print_libs(const struct ovh *o)
{
	const struct col *c = o->col;
	char why[512];

	print_col_header("ours", &c[WORKER_RDPMC]);
	printf("%-10s  (%s%s)\n", "", o->o.dirs.ours ? "directory from " : "",
	       o->o.dirs.ours ?
		       o->o.dirs.ours_src :
		       "no --ours, LOPE_OURS_LIBDIR, PAPI_OURS_BUILDDIR or "
		       "built-in build found: the dynamic linker's choice");
	if (!rdpmc_col_ok(o))
		printf("%-10s  ours-rdpmc: n/a (%s)\n", "",
		       col_failed(&c[WORKER_RDPMC], why, sizeof(why)) ?
			       "worker failed" :
			       "the component reports fast_counter_read=0");
	print_col_header("ours-read", &c[WORKER_READ]);
	if (c[WORKER_READ].w.lib[0] &&
	    strcmp(c[WORKER_READ].w.lib, c[WORKER_RDPMC].w.lib))
		printf("%-10s  WARNING: not the same library as ours\n", "");
	if (c[WORKER_STOCK].w.active) {
		print_col_header("stock", &c[WORKER_STOCK]);
		printf("%-10s  (directory from %s)\n", "", o->o.dirs.stock_src);
	} else {
		printf("%-10s: not measured (%s)\n", "stock",
		       o->o.dirs.no_compare ?
			       "--no-compare" :
			       "no --compare, LOPE_STOCK_LIBDIR, "
			       "PAPI_STOCK_BUILDDIR or built-in stock "
			       "build found");
	}
}

static void print_header(const struct ovh *o)
{
	const struct col *c = o->col;
	struct utsname un;
	int i, n = 0;

	if (uname(&un))
		memset(&un, 0, sizeof(un));
	printf(PROG ": cost of one call in " TIMER_UNIT ": median over %ld "
		    "rounds of the median of %ld calls\n(after %d warm-up "
		    "calls), less the timer overhead (" TIMER_NAME " pair)\n",
	       o->o.rounds, o->o.n, WARMUP);
	printf("%-10s: %s, %s %s, %ld CPUs online, workers pinned to cpu %d\n",
	       "machine", o->model, un.sysname, un.release,
	       sysconf(_SC_NPROCESSORS_ONLN), o->cpu);
	printf("%-10s: %s\n", "events", o->events);
	if (c[WORKER_RDPMC].choice[0])
		printf("%-10s  (%s)\n", "", c[WORKER_RDPMC].choice);
	print_libs(o);
	if (c[WORKER_FLOOR].standin[0])
		printf("%-10s: stand-ins for the raw floor: %s\n", "floor",
		       c[WORKER_FLOOR].standin);
	printf("%-10s:", "timer");
	for (i = 0; i < WORKER_PATHS; i++)
		if (c[i].w.active && c[i].timer > 0)
			printf("%s %s %.0f", n++ ? "," : "", c[i].w.name,
			       c[i].timer);
	printf(" " TIMER_UNIT " (" TIMER_NAME " pair, subtracted)\n");
	printf("%-10s: %s\n", "syscalls",
	       !strcmp(c[WORKER_READ].syscalls, "ok") ?
		       "counted exactly with the raw_syscalls:sys_enter "
		       "tracepoint" :
	       c[WORKER_READ].syscalls[0] ? c[WORKER_READ].syscalls :
					    "not counted");
}

/* One row of the per-call table: call @k on a set of @n events. */
static void print_call(const struct ovh *o, const struct call_def *k, int n)
{
	const struct col *ob = ours_best(o), *c = o->col;
	char a[32], b[32], s[32], f[32], r1[16], r2[16], sy[32], sy2[16];
	double v = med_of(ob, k->id, n);
	size_t l;

	if (rdpmc_col_ok(o))
		cell(a, sizeof(a), &c[WORKER_RDPMC], k->id, n);
	else
		snprintf(a, sizeof(a), "n/a");
	cell(b, sizeof(b), &c[WORKER_READ], k->id, n);
	cell(s, sizeof(s), &c[WORKER_STOCK], k->id, n);
	cell(f, sizeof(f), &c[WORKER_FLOOR], k->floor, n);
	ratio(r1, sizeof(r1), v,
	      c[WORKER_STOCK].w.active ? med_of(&c[WORKER_STOCK], k->id, n) :
					 -1);
	ratio(r2, sizeof(r2), v, med_of(&c[WORKER_FLOOR], k->floor, n));
	per_call(sy, sizeof(sy), ob, k->id, n, 1);
	per_call(sy2, sizeof(sy2), &c[WORKER_STOCK], k->id, n, 1);
	if (strcmp(sy, "-") || strcmp(sy2, "-")) {
		l = strlen(sy);
		snprintf(sy + l, sizeof(sy) - l, " / %s", sy2);
	} else {
		sy[0] = 0;
	}
	printf("%-16s %3d %10s %10s %10s %10s %-14s %10s %10s %s\n", k->label,
	       n, a, b, s, f, floor_label(k->floor), r1, r2, sy);
}

static void print_table(const struct ovh *o)
{
	const struct col *fl = &o->col[WORKER_FLOOR];
	const struct rec *r;
	unsigned f;
	int c, k;

	printf("\n%-16s %3s %10s %10s %10s %10s %-14s %10s %10s %s\n", "call",
	       "ev", "ours-rdpmc", "ours-read", "stock", "floor", "(floor is)",
	       "ours/stock", "ours/floor", "syscalls ours/stock");
	for (k = 0; k < o->nsizes; k++)
		for (c = 0; c < ncalls; c++)
			print_call(o, &calls[c], o->sizes[k]);

	printf("\nraw floor (perf_event_open, same events as one group, "
	       "PERF_FORMAT_GROUP|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING):\n");
	for (k = 0; k < o->nsizes; k++)
		for (f = 0; f < ARRAY_SIZE(floors); f++) {
			r = find_rec(fl, floors[f].id, o->sizes[k]);
			printf("  %-16s %3d  ", floors[f].label, o->sizes[k]);
			if (!r)
				printf("?\n");
			else if (r->kind == REC_RES)
				printf("%10.0f\n", (double)r->st.med);
			else if (r->kind == REC_ERR)
				printf("error: %s\n", r->msg);
			else
				printf("n/a (no user-space counter access: %s)\n",
				       r->msg);
		}
}

/* One line of the distribution: record @r of column @c. */
static void print_dist_rec(const struct col *c, const struct rec *r)
{
	const char *kind, *lab = id_label(r->id, &kind);
	char sy[16], fl[16];

	if (r->kind) {
		printf("%-10s %-7s %-20s %3d %s\n", c->w.name, kind, lab,
		       r->nev, r->kind == REC_ERR ? "error" : "n/a");
		return;
	}
	per_call(sy, sizeof(sy), c, r->id, r->nev, 1);
	per_call(fl, sizeof(fl), c, r->id, r->nev, 0);
	printf("%-10s %-7s %-20s %3d %6d %7" PRIu64 " %7" PRIu64 " %7" PRIu64
	       " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %8" PRIu64 " %6s %6s\n",
	       c->w.name, kind, lab, r->nev, r->st.n, r->st.med, r->st.p10,
	       r->st.p25, r->st.p75, r->st.p90, r->st.min, r->st.max, sy, fl);
}

static void print_dist(const struct ovh *o)
{
	const struct col *c;
	int k, i;

	printf("\ndistribution (" TIMER_UNIT ", timer overhead subtracted; "
	       "faults: minor page faults per call):\n");
	printf("%-10s %-7s %-20s %3s %6s %7s %7s %7s %7s %7s %7s %8s %6s "
	       "%6s\n",
	       "path", "kind", "call", "ev", "n", "median", "p10", "p25", "p75",
	       "p90", "min", "max", "sysc", "faults");
	for (k = 0; k < WORKER_PATHS; k++)
		for (c = col_shown(o, k), i = 0; c && i < c->nrec; i++)
			print_dist_rec(c, &c->recs[i]);
}

/* The PAPI columns of the extra tables: ours-rdpmc (if any), read, stock. */
static int papi_cols(const struct ovh *o, const struct col **cols)
{
	int n = 0;

	if (rdpmc_col_ok(o))
		cols[n++] = &o->col[WORKER_RDPMC];
	cols[n++] = &o->col[WORKER_READ];
	if (o->col[WORKER_STOCK].w.active)
		cols[n++] = &o->col[WORKER_STOCK];
	return n;
}

/* The scaling table's header line. */
static void print_scale_head(const struct ovh *o, const char *const *ids,
			     const struct col **cols, int ncol)
{
	const struct col *c = o->col;
	char h[40];
	int i, j;

	printf("%3s", "ev");
	for (i = 0; i < 3; i++)
		for (j = 0; j < ncol; j++) {
			snprintf(h, sizeof(h), "%s:%s", ids[i] + 2,
				 cols[j] == &c[WORKER_RDPMC] ? "rdpmc" :
				 cols[j] == &c[WORKER_READ]  ? "read()" :
							       "stock");
			printf(" %12s", h);
		}
	printf(" %12s %12s", "floor:read", "floor:reset");
	if (c[WORKER_STOCK].w.active)
		printf(" %12s", "read:o/s");
	printf("\n");
}

/* Scaling: median per call against the number of events. */
static void print_scale(const struct ovh *o)
{
	static const char *const ids[] = { "s_read", "s_accum", "s_reset" };
	static const char *const fids[] = { "s_f_read", "s_f_reset" };
	const struct col *cols[3], *c = o->col;
	int ncol = papi_cols(o, cols), k, i, j;
	char v[32];

	printf("\nscaling with the number of events (median " TIMER_UNIT
	       " per call; a set of the first k of: %s)\n",
	       c[WORKER_RDPMC].scale[0] ? c[WORKER_RDPMC].scale : "?");
	if (c[WORKER_RDPMC].scale_why[0])
		printf("  (%s)\n", c[WORKER_RDPMC].scale_why);
	print_scale_head(o, ids, cols, ncol);
	for (k = 1; k <= o->nscale; k++) {
		printf("%3d", k);
		for (i = 0; i < 3; i++)
			for (j = 0; j < ncol; j++) {
				cell(v, sizeof(v), cols[j], ids[i], k);
				printf(" %12s", v);
			}
		for (i = 0; i < 2; i++) {
			cell(v, sizeof(v), &c[WORKER_FLOOR], fids[i], k);
			printf(" %12s", v);
		}
		if (c[WORKER_STOCK].w.active) {
			ratio(v, sizeof(v), med_of(ours_best(o), "s_read", k),
			      med_of(&c[WORKER_STOCK], "s_read", k));
			printf(" %12s", v);
		}
		printf("\n");
	}
}

/* A row of @label then one cell of @id per column of @cols. */
static void print_row(const char *label, const struct col **cols, int ncol,
		      const char *id, int nev)
{
	char v[32];
	int j;

	printf("%-28s", label);
	for (j = 0; j < ncol; j++) {
		cell(v, sizeof(v), cols[j], id, nev);
		printf(" %10s", v);
	}
	printf("\n");
}

/* The faults of the cold start and read, and of the warm read. */
static void print_faults(const struct col **cols, int ncol, int nev)
{
	const struct rec *a, *b;
	char v[32];
	int j;

	printf("%-28s", "faults: start + read #1");
	for (j = 0; j < ncol; j++) {
		a = find_rec(cols[j], "c_start", nev);
		b = find_rec(cols[j], "c_read1", nev);
		if (a && b && !a->kind && !b->kind && a->st.flt >= 0 &&
		    b->st.flt >= 0)
			snprintf(v, sizeof(v), "%.2f", a->st.flt + b->st.flt);
		else
			snprintf(v, sizeof(v), "-");
		printf(" %10s", v);
	}
	printf("\n%-28s", "faults: read #2");
	for (j = 0; j < ncol; j++) {
		per_call(v, sizeof(v), cols[j], "c_read2", nev, 0);
		printf(" %10s", v);
	}
	printf("\n");
}

/* The first read after a start on a new set, and repeated reads. */
static void print_first(const struct ovh *o)
{
	static const char *const ids[] = { "c_start", "c_read1", "c_read2" };
	const struct col *cols[3];
	int ncol = papi_cols(o, cols), nev = o->nev, i, j;
	const char *kind;
	char v[32], id[16];

	printf("\nfirst read after PAPI_start on a new event set of %d event%s "
	       "(%d sets per round;\nminor page faults per set from getrusage "
	       "around each call; median " TIMER_UNIT "):\n",
	       nev, nev == 1 ? "" : "s", COLD_N);
	printf("%-28s", "");
	for (j = 0; j < ncol; j++)
		printf(" %10s", cols[j]->w.name);
	printf("\n");
	for (i = 0; i < 3; i++)
		print_row(id_label(ids[i], &kind), cols, ncol, ids[i], nev);
	printf("%-28s", "cold/warm");
	for (j = 0; j < ncol; j++) {
		ratio(v, sizeof(v), med_of(cols[j], "c_read1", nev),
		      med_of(cols[j], "c_read2", nev));
		printf(" %10s", v);
	}
	printf("\n");
	print_faults(cols, ncol, nev);

	printf("\nrepeated reads: the k-th PAPI_read after PAPI_start, %d "
	       "event%s (median " TIMER_UNIT "):\n%-28s",
	       nev, nev == 1 ? "" : "s", "k");
	for (j = 0; j < ncol; j++)
		printf(" %10s", cols[j]->w.name);
	printf("\n");
	for (i = 1; i <= NREPEAT; i++) {
		snprintf(v, sizeof(v), "%d", i);
		snprintf(id, sizeof(id), "rep%d", i);
		print_row(v, cols, ncol, id, nev);
	}
}

/* Every failed worker and every failed call, on stderr. */
static void print_errors(const struct ovh *o)
{
	const struct col *c;
	char why[512];
	int i, j;

	for (i = 0; i < WORKER_PATHS; i++) {
		c = &o->col[i];
		if (!c->w.active)
			continue;
		if (!c->disabled && col_failed(c, why, sizeof(why)))
			msg("%s: %s", c->w.name, why);
		for (j = 0; j < c->nrec; j++)
			if (c->recs[j].kind == REC_ERR)
				msg("%s %s (%d ev): %s", c->w.name,
				    c->recs[j].id, c->recs[j].nev,
				    c->recs[j].msg);
	}
}

void print_report(const struct ovh *o)
{
	print_header(o);
	print_table(o);
	print_scale(o);
	print_first(o);
	if (o->o.verbose)
		print_dist(o);
	print_goals(o);
	print_errors(o);
}
