/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --plot: boxplots of the combined statistics with gnuplot, one panel per
 * call and one each for the scaling, the first read and the repeated
 * reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch.h"
#include "overhead.h"

#define PG_MAX 16 /* groups on the x axis of a panel */
#define PS_MAX 4  /* series (boxes) per group */

/* One panel of boxplots: r[group][series], NULL or not a result: n/a. */
struct panel {
	const char *title;
	int ng, ns;
	char glab[PG_MAX][24];
	const char *stitle[PS_MAX];
	const struct rec *r[PG_MAX][PS_MAX];
};

static const char *const plot_colors[PS_MAX] = {
	"#1b9e77",
	"#3b6fb6",
	"#d95f02",
	"#555555",
};

static int panel_has(const struct panel *p, int g, int s)
{
	return p->r[g][s] && p->r[g][s]->kind == REC_RES;
}

/* The series of @p with a result anywhere into @act; names of the others
 * into @na ("(n/a: ..."). */
static int panel_series(const struct panel *p, int *act, char *na, size_t len)
{
	int gi, si, any, nact = 0;

	na[0] = 0;
	for (si = 0; si < p->ns; si++) {
		for (gi = 0, any = 0; gi < p->ng; gi++)
			any = any || panel_has(p, gi, si);
		if (any)
			act[nact++] = si;
		else
			snprintf(na + strlen(na), len - strlen(na), "%s%s",
				 na[0] ? ", " : " (n/a: ", p->stitle[si]);
	}
	return nact;
}

/* Series @si of @p as datablock $P@id_@k, boxes at x offset by @k. */
static void plot_series(FILE *g, const struct panel *p, int id, int k, int nact,
			int si, double w)
{
	const struct rec *r;
	double x;
	int gi;

	fprintf(g, "$P%d_%d << EOD\n", id, k);
	for (gi = 0; gi < p->ng; gi++) {
		x = gi + 1 + (k - (nact - 1) / 2.0) * w;
		r = p->r[gi][si];
		if (!panel_has(p, gi, si)) {
			fprintf(g, "# n/a at %.3f\n", x);
			continue;
		}
		fprintf(g,
			"%.3f %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 "\n",
			x, r->st.p25, r->st.p10, r->st.p90, r->st.p75,
			r->st.med);
	}
	fprintf(g, "EOD\n");
	for (gi = 0; gi < p->ng; gi++)
		if (!panel_has(p, gi, si))
			fprintf(g,
				"set label \"n/a\" at %.3f, graph 0.04 "
				"center font \",7\"\n",
				gi + 1 + (k - (nact - 1) / 2.0) * w);
}

/*
 * Write one panel to gnuplot: each series a colour and a datablock, boxes
 * p25..p75, whiskers p10..p90, a line at the median (the seeds' figures,
 * from the combined statistics rather than the raw samples).  A series
 * without any result takes no room and is named n/a in the title.
 */
static void plot_panel(FILE *g, const struct panel *p, int id)
{
	int gi, k, act[PS_MAX], nact;
	char na[128];
	double w;

	nact = panel_series(p, act, na, sizeof(na));
	w = 0.8 / (nact ? nact : 1);
	fprintf(g, "unset label\nset title \"%s%s%s\"\n", p->title, na,
		na[0] ? ")" : "");
	fprintf(g, "set xrange [0.5:%d.5]\nset boxwidth %.3f\nset xtics (",
		p->ng, w * 0.8);
	for (gi = 0; gi < p->ng; gi++)
		fprintf(g, "%s\"%s\" %d", gi ? ", " : "", p->glab[gi], gi + 1);
	fprintf(g, ")\n");
	for (k = 0; k < nact; k++)
		plot_series(g, p, id, k, nact, act[k], w);
	fprintf(g, "plot ");
	for (k = 0; k < nact; k++)
		fprintf(g,
			"%s$P%d_%d using 1:2:3:4:5 with candlesticks "
			"whiskerbars lc rgb \"%s\" fs solid 0.35 title \"%s\", "
			"$P%d_%d using 1:6:6:6:6 with candlesticks "
			"lc rgb \"%s\" lw 2 notitle",
			k ? ", " : "", id, k, plot_colors[act[k]],
			p->stitle[act[k]], id, k, plot_colors[act[k]]);
	fprintf(g, "%s\n", nact ? "" : "NaN notitle");
}

/* The columns as series: ours-rdpmc, ours-read, stock, floor. */
static const int plot_cols[PS_MAX] = { WORKER_RDPMC, WORKER_READ, WORKER_STOCK,
				       WORKER_FLOOR };

static const struct rec *plot_rec(const struct ovh *o, int k, const char *id,
				  int nev)
{
	if (k == WORKER_RDPMC && !rdpmc_col_ok(o))
		return NULL;
	return find_rec(&o->col[k], id, nev);
}

static const char *size_title(int n)
{
	return n == 1 ? "1 event" :
	       n == 2 ? "2 events" :
	       n == 3 ? "3 events" :
			"all events";
}

/* One panel per call: the four columns, sets of 1 and of all events. */
static void plot_calls(FILE *g, const struct ovh *o, int *id)
{
	const struct call_def *call;
	struct panel p;
	int c, k, j, wi;

	for (c = 0; c < ncalls; c++) {
		call = &calls[c];
		memset(&p, 0, sizeof(p));
		p.title = call->label;
		p.ng = PS_MAX;
		p.ns = o->nsizes;
		for (k = 0; k < o->nsizes; k++)
			p.stitle[k] = size_title(o->sizes[k]);
		for (j = 0; j < PS_MAX; j++) {
			wi = plot_cols[j];
			snprintf(p.glab[j], sizeof(p.glab[j]), "%s",
				 wi == WORKER_FLOOR ? floor_label(call->floor) :
						      o->col[wi].w.name);
			for (k = 0; k < o->nsizes; k++)
				p.r[j][k] = plot_rec(o, wi,
						     wi == WORKER_FLOOR ?
							     call->floor :
							     call->id,
						     o->sizes[k]);
		}
		plot_panel(g, &p, (*id)++);
	}
}

/* A panel of groups of the PAPI columns (and the floor: @ns of them). */
struct groups {
	const char *title;
	int ng, ns;
	const char *const *glab; /* group labels; NULL: 1, 2, ... */
	const char *const *ids;  /* group gi's id; NULL: the scaling */
};

/* The record of group @gi of @gr in plot column @j. */
static const struct rec *group_rec(const struct ovh *o, const struct groups *gr,
				   int gi, int j)
{
	int wi = plot_cols[j];

	if (gr->ids)
		return plot_rec(o, wi, gr->ids[gi], o->nev);
	return plot_rec(o, wi, wi == WORKER_FLOOR ? "s_f_read" : "s_read",
			gi + 1);
}

static void plot_groups(FILE *g, const struct ovh *o, const struct groups *gr,
			int *id)
{
	struct panel p;
	int gi, j;

	memset(&p, 0, sizeof(p));
	p.title = gr->title;
	p.ng = gr->ng < PG_MAX ? gr->ng : PG_MAX;
	p.ns = gr->ns;
	for (j = 0; j < p.ns; j++)
		p.stitle[j] = o->col[plot_cols[j]].w.name;
	for (gi = 0; gi < p.ng; gi++) {
		if (gr->glab)
			snprintf(p.glab[gi], sizeof(p.glab[gi]), "%s",
				 gr->glab[gi]);
		else
			snprintf(p.glab[gi], sizeof(p.glab[gi]), "%d", gi + 1);
		for (j = 0; j < p.ns; j++)
			p.r[gi][j] = group_rec(o, gr, gi, j);
	}
	plot_panel(g, &p, (*id)++);
}

/* Scaling of PAPI_read, the cold/warm read, the repeated reads. */
static void plot_extra(FILE *g, const struct ovh *o, int *id)
{
	static const char *const first_ids[] = { "c_start", "c_read1",
						 "c_read2" };
	static const char *const first_lab[] = { "start (new set)",
						 "read #1 (cold)",
						 "read #2 (warm)" };
	static const char *const rep_ids[NREPEAT] = {
		"rep1", "rep2", "rep3", "rep4", "rep5", "rep6", "rep7", "rep8",
	};
	const struct groups gr[] = {
		{ "PAPI_read against the number of events", o->nscale, PS_MAX,
		  NULL, NULL },
		{ "first read after PAPI_start on a new set", 3, PS_MAX - 1,
		  first_lab, first_ids },
		{ "repeated reads: the k-th PAPI_read after PAPI_start",
		  NREPEAT, PS_MAX - 1, NULL, rep_ids },
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(gr); i++)
		plot_groups(g, o, &gr[i], id);
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
		"whiskers: p10-p90, line: median; timer overhead "
		"subtracted\" font \",10\"\n",
		head);
	fprintf(g, "set yrange [0:*]\nset offsets 0, 0, graph 0.25, 0\n"
		   "set ylabel \"" TIMER_UNIT "\"\nset grid ytics\n"
		   "set key top left font \",8\"\nset xtics font \",8\"\n");
	plot_calls(g, o, &id);
	plot_extra(g, o, &id);
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
	char head[512];
	struct stat sb;
	size_t i;
	int st;

	/* plot_check() refused paths with a quote or a backslash */
	snprintf(head, sizeof(head), PROG ": cost of one call, %s", o->model);
	for (i = 0; head[i]; i++)
		if (head[i] == '"' || head[i] == '\\')
			head[i] = ' ';
	st = plot_run(o, "pngcairo", head);
	if (st != 0 && st != 127)
		st = plot_run(o, "png", head);
	if (st == 127) {
		msg("--plot: gnuplot not found (Debian: apt-get install "
		    "gnuplot-nox)");
		return -1;
	}
	if (st != 0 || stat(o->o.plot, &sb) || sb.st_size == 0) {
		msg("--plot %s: gnuplot failed (status %d)", o->o.plot, st);
		return -1;
	}
	return 0;
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
	if (fstat(fd, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		close(fd);
		die(EX_USAGE, "--plot %s: not a regular file", path);
	}
	close(fd);
	if (created)
		unlink(path);
}
