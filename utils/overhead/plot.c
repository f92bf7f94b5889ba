/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --plot: boxplots of the per-call statistics with gnuplot, one panel per
 * call and one each for PAPI_read against the number of events, the first
 * calls on a new set and the repeated reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "overhead.h"

#define PG_MAX 16           /* groups on the x axis of a panel */
#define PS_MAX WORKER_PATHS /* series (boxes) per group: the columns */

/* A box: p10, p25, p75, p90 and the median; ok: measured. */
struct box {
	double q[5];
	int ok;
};

/* One panel of boxplots: b[group][series]. */
struct panel {
	const char *title;
	int ng, ns;
	char glab[PG_MAX][24];
	const char *stitle[PS_MAX];
	struct box b[PG_MAX][PS_MAX];
};

static const char *const plot_colors[PS_MAX] = {
	"#1b9e77",
	"#3b6fb6",
	"#d95f02",
	"#555555",
};

/* The x of series @k of @nact in group @gi, each box @w wide. */
static double box_x(int gi, int k, int nact, double w)
{
	return gi + 1 + (k - (nact - 1) / 2.0) * w;
}

/*
 * Write one panel to gnuplot: each series a colour and a datablock, boxes
 * p25..p75, whiskers p10..p90, a line at the median (from the per-call
 * statistics rather than the raw samples), "n/a" where a box is missing.
 * A series without any result takes no room and is named n/a in the
 * title; a panel without any, n/a.
 */
static void plot_panel(FILE *g, const struct panel *p, int id)
{
	int gi, si, k, act[PS_MAX], nact = 0;
	const struct box *b;
	char na[128] = "";
	size_t nl = 0;
	double w;

	for (si = 0; si < p->ns; si++) {
		for (gi = 0; gi < p->ng && !p->b[gi][si].ok; gi++)
			;
		if (gi < p->ng)
			act[nact++] = si;
		else
			append(na, sizeof(na), &nl, "%s%s",
			       nl ? ", " : " (n/a: ", p->stitle[si]);
	}
	w = 0.8 / (nact ? nact : 1);
	fprintf(g, "unset label\nset title \"%s%s%s\"\n", p->title, na,
		na[0] ? ")" : "");
	fprintf(g, "set xrange [0.5:%d.5]\nset boxwidth %.3f\nset xtics (",
		p->ng, w * 0.8);
	for (gi = 0; gi < p->ng; gi++)
		fprintf(g, "%s\"%s\" %d", gi ? ", " : "", p->glab[gi], gi + 1);
	fprintf(g, ")\n");
	for (k = 0; k < nact; k++) {
		fprintf(g, "$P%d_%d << EOD\n", id, k);
		for (gi = 0; gi < p->ng; gi++) {
			b = &p->b[gi][act[k]];
			if (b->ok)
				fprintf(g, "%.3f %.0f %.0f %.0f %.0f %.0f\n",
					box_x(gi, k, nact, w), b->q[1], b->q[0],
					b->q[3], b->q[2], b->q[4]);
		}
		fprintf(g, "EOD\n");
		for (gi = 0; gi < p->ng; gi++)
			if (!p->b[gi][act[k]].ok)
				fprintf(g,
					"set label \"n/a\" at %.3f, graph 0.04 "
					"center font \",7\"\n",
					box_x(gi, k, nact, w));
	}
	/* gnuplot fails a plot without one defined point: a panel with
	 * nothing measured says n/a in its middle, on a y range of its own */
	if (!nact) {
		fprintf(g, "set yrange [0:1]\nset label \"n/a\" at graph 0.5, "
			   "graph 0.5 center\nplot -1 notitle\n"
			   "set yrange [0:*]\n");
		return;
	}
	fprintf(g, "plot ");
	for (k = 0; k < nact; k++)
		fprintf(g,
			"%s$P%d_%d using 1:2:3:4:5 with candlesticks "
			"whiskerbars lc rgb \"%s\" fs solid 0.35 title \"%s\", "
			"$P%d_%d using 1:6:6:6:6 with candlesticks "
			"lc rgb \"%s\" lw 2 notitle",
			k ? ", " : "", id, k, plot_colors[act[k]],
			p->stitle[act[k]], id, k, plot_colors[act[k]]);
	fprintf(g, "\n");
}

/* The box of case @d on @nev events in column @k (the floor: its call). */
static void plot_box(struct box *b, const struct ovh *o, int k,
		     const struct case_def *d, int nev)
{
	static const enum quantity q[] = { Q_P10, Q_P25, Q_P75, Q_P90, Q_VAL };
	const char *target = k == WORKER_FLOOR ? "raw" : "papi";
	const char *call = k == WORKER_FLOOR ? d->floor : d->call;
	size_t i;

	b->ok = k != WORKER_RDPMC || rdpmc_ok(o);
	for (i = 0; b->ok && i < ARRAY_SIZE(q); i++) {
		b->q[i] = per_call(o, &o->col[k], target, call, nev, q[i]);
		b->ok = b->q[i] >= 0;
	}
}

/* One panel per call: the four columns, sets of 1 and of all events. */
static void plot_calls(FILE *g, const struct ovh *o, int *id)
{
	struct panel p = { .ng = PS_MAX,
			   .ns = o->nev > 1 ? 2 : 1,
			   .stitle = { "1 event", "all events" } };
	int c, k, j;

	for (j = 0; j < PS_MAX; j++)
		scopy(p.glab[j], sizeof(p.glab[j]), o->col[j].w.name);
	for (c = 0; c < NCALLS; c++) {
		p.title = cases[c].label;
		for (j = 0; j < PS_MAX; j++)
			for (k = 0; k < p.ns; k++)
				plot_box(&p.b[j][k], o, j, &cases[c],
					 k ? o->nev : 1);
		plot_panel(g, &p, (*id)++);
	}
}

/*
 * A panel of the columns as series: PAPI_read against the number of
 * events (@first < 0), else cases[@first..@first+@ng) on all events.
 */
static void plot_groups(FILE *g, const struct ovh *o, const char *title,
			int first, int ng, int *id)
{
	const struct case_def *d;
	struct panel p = { .title = title,
			   .ng = ng < PG_MAX ? ng : PG_MAX,
			   .ns = first < 0 ? PS_MAX : PS_MAX - 1 };
	int gi, j;

	for (j = 0; j < p.ns; j++)
		p.stitle[j] = o->col[j].w.name;
	for (gi = 0; gi < p.ng; gi++) {
		d = first < 0 ? case_find("read") : &cases[first + gi];
		if (first < 0)
			snprintf(p.glab[gi], sizeof(p.glab[gi]), "%d", gi + 1);
		else
			scopy(p.glab[gi], sizeof(p.glab[gi]), d->label + 5);
		for (j = 0; j < p.ns; j++)
			plot_box(&p.b[gi][j], o, j, d,
				 first < 0 ? gi + 1 : SET3_OF(o->nev));
	}
	plot_panel(g, &p, (*id)++);
}

/* Run gnuplot once with @term; its exit status. */
static int plot_run(const struct ovh *o, const char *term, const char *head)
{
	FILE *g;
	int id = 0, st;

	fflush(stdout);
	fflush(stderr);
	g = popen("gnuplot", "w");
	if (!g)
		return -1;
	fprintf(g, "set terminal %s noenhanced size 1500,1150 font \",9\"\n",
		term);
	fprintf(g, "set output \"%s\"\n", o->o.plot);
	fprintf(g,
		"set multiplot layout 3,3 title \"%s\\nbox: p25-p75, "
		"whiskers: p10-p90, line: median; the empty function's "
		"subtracted\" font \",10\"\n",
		head);
	fprintf(g,
		"set yrange [0:*]\nset offsets 0, 0, graph 0.25, 0\n"
		"set ylabel \"%s\"\nset grid ytics\n"
		"set key top left font \",8\"\nset xtics font \",8\"\n",
		o->unit);
	plot_calls(g, o, &id);
	plot_groups(g, o, "PAPI_read against the number of events", -1, o->nev,
		    &id);
	plot_groups(g, o, "on a new set: PAPI_start and the first reads",
		    NCALLS, 3, &id);
	/* the k-th reads: the cases up to the sampling ones */
	plot_groups(g, o, "repeated reads: the k-th PAPI_read after PAPI_start",
		    NCALLS + 3, (int)(case_find("loop") - cases) - NCALLS - 3,
		    &id);
	fprintf(g, "unset multiplot\nset output\n");
	st = pclose(g);
	return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * Draw the boxplots into --plot's file with gnuplot (pngcairo, else png).
 * 0, or -1 with the reason printed.
 */
int plot(const struct ovh *o)
{
	char head[512], *p = head;
	struct stat sb;
	int st;

	/* plot_check() refused paths with a quote or a backslash */
	snprintf(head, sizeof(head), PROG ": cost of one call, %s", o->model);
	while ((p = strpbrk(p, "\"\\")))
		*p = ' ';
	st = plot_run(o, "pngcairo", head);
	if (st != 0 && st != 127)
		st = plot_run(o, "png", head);
	if (st == 127)
		msg("--plot: gnuplot not found (Debian: apt-get install "
		    "gnuplot-nox)");
	else if (st != 0 || stat(o->o.plot, &sb) || sb.st_size == 0)
		msg("--plot %s: gnuplot failed (status %d)", o->o.plot, st);
	else
		return 0;
	return -1;
}

/* Fail early (exit 2) if the plot cannot be written at @path. */
void plot_check(const char *path)
{
	int created = 1, fd;
	struct stat sb;

	if (strpbrk(path, "\"\\"))
		die(EX_USAGE,
		    "--plot %s: a path with \" or \\ is not supported", path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST) {
		created = 0;
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	}
	if (fd < 0)
		die(EX_USAGE, "--plot %s: cannot write there: %s", path,
		    strerror(errno));
	if (fstat(fd, &sb) == 0 && !S_ISREG(sb.st_mode))
		die(EX_USAGE, "--plot %s: not a regular file", path);
	close(fd);
	if (created)
		unlink(path);
}
