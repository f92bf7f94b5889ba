/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_stat's statistics and reports: a run's, in perf stat's layout
 * (labelled with its rank in a job), and a job's merged one (job.h), each
 * through one table printer, aligned or CSV.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../tool.h"
#include "job.h"
#include "stat.h"

/* The columns of the merged report's table of ranks. */
#define MAX_COLS (3 + MAX_ROWS)
#define NUM_W 15 /* a count's column in the merged report */

void stats_add(struct stats *s, double x)
{
	double d = x - s->mean;

	s->n++;
	s->mean += d / s->n;
	s->m2 += d * (x - s->mean);
}

/* perf stat's spread: the standard error of the mean, in % of the mean. */
static double stats_spread(const struct stats *s)
{
	double sd;

	if (s->n < 2 || s->mean == 0)
		return 0;
	sd = sqrt(s->m2 / (s->n - 1) / s->n);
	return 100 * sd / fabs(s->mean);
}

static int is_clock(const char *name)
{
	const char *p = strstr(name, "::");
	size_t n;

	p = p ? p + 2 : name;
	n = strcspn(p, ":");
	return (n == 10 && strncasecmp(p, "TASK-CLOCK", n) == 0) ||
	       (n == 9 && strncasecmp(p, "CPU-CLOCK", n) == 0);
}

/* The unit of @e: PAPI's, "ns" for the clock events, or "". */
static const char *event_units(const struct event *e)
{
	return e->units[0] ? e->units : is_clock(e->name) ? "ns" : "";
}

void command_text(const struct stat_run *r, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; r->o.argv[i]; i++)
		append(buf, len, &n, "%s%s", i ? " " : "", r->o.argv[i]);
}

void job_label(const struct job *j, char *buf, size_t len)
{
	size_t n = 0;

	append(buf, len, &n, "rank %d", j->rank);
	if (j->size)
		append(buf, len, &n, " of %d", j->size);
	else
		append(buf, len, &n, " (job size unknown)");
	append(buf, len, &n, ", host %s, CPUs %s (%s)", j->host,
	       j->cpus[0] ? j->cpus : "unknown", j->from);
}

/* A column of a table. */
struct col {
	const char *head; /* its header aligned, NULL: not in that form */
	const char *csv;  /* its header in CSV, NULL: not in CSV */
	int width;        /* the least, aligned */
	int left;         /* left-aligned */
	int gap;          /* the blanks before it, aligned */
};

/*
 * A table printed aligned or, with @sep, as CSV: rows of text cells, one
 * per column.  The aligned form leaves out the empty cells at the end of
 * a row.
 */
struct table {
	FILE *out;
	const char *sep; /* NULL: aligned */
	/* the merged report's: a header line, the widths fitted to the cells
	 * in a first pass, CSV fields holding @sep quoted; else none of
	 * these, as perf stat prints */
	int head;
	const struct col *col;
	int ncol;
	int w[MAX_COLS];
	int fit; /* the first pass */
};

/* @s as a CSV field: quoted, its quotes doubled, if it holds @sep (NULL:
 * never). */
static void field(FILE *out, const char *s, const char *sep)
{
	if (!sep || ((!*sep || !strstr(s, sep)) && !strchr(s, '"') &&
		     !strchr(s, '\n'))) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void table_row(struct table *t, const char *const *cell)
{
	int c, last = t->ncol - 1, first = 1, n;

	while (!t->sep && last > 0 && (!t->col[last].head || !*cell[last]))
		last--;
	for (c = 0; c <= last; c++) {
		const struct col *k = &t->col[c];

		if (!(t->sep ? k->csv : k->head))
			continue;
		n = (int)strlen(cell[c]);
		if (t->fit)
			t->w[c] = n > t->w[c] ? n : t->w[c];
		else if (!t->sep)
			fprintf(t->out, "%*s%*s", k->gap, "",
				!k->left ? t->w[c] :
				c < last ? -t->w[c] :
					   0,
				cell[c]);
		else {
			fputs(first ? "" : t->sep, t->out);
			field(t->out, cell[c], t->head ? t->sep : NULL);
		}
		first = 0;
	}
	if (!t->fit)
		fputc('\n', t->out);
}

typedef void row_fn(struct table *t, const void *arg, int i);

/* Rows 0 to @n - 1 of @t, each from @row(@t, @arg, i), after the header. */
static void table_print(struct table *t, int n, row_fn *row, const void *arg)
{
	const char *head[MAX_COLS];
	int c, i;

	for (c = 0; c < t->ncol; c++) {
		t->w[c] = t->col[c].width;
		head[c] = t->sep ? t->col[c].csv : t->col[c].head;
	}
	for (t->fit = !t->sep && t->head; t->fit >= 0; t->fit--) {
		if (t->head)
			table_row(t, head);
		for (i = 0; i < n; i++)
			row(t, arg, i);
	}
}

/* A value as text into @buf: a count whole, seconds (@secs) to the ns. */
static char *num(double v, int secs, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "<not counted>");
	else
		snprintf(buf, len, secs ? "%.9f" : "%.0f", v);
	return buf;
}

/* A run's columns: value, unit, event, comment, spread (perf stat's). */
static const struct col run_cols[] = {
	{ "", "", 18, 0, 0 },   { NULL, "", 0, 0, 0 }, { "", "", 30, 1, 6 },
	{ "", NULL, 26, 1, 1 }, { "", "", 0, 1, 1 },
};

/* Event @i of a run, or its elapsed time (i == nev, CSV only). */
static void run_row(struct table *t, const void *arg, int i)
{
	const struct stat_run *r = arg;
	const struct event *e = i < r->nev ? &r->ev[i] : NULL;
	const struct stats *s = e ? &e->st : &r->elapsed;
	char val[32], comment[64] = "", spread[32] = "";
	const char *cell[] = { num(s->n ? s->mean : NAN, !e, val, sizeof(val)),
			       e ? event_units(e) : "s", e ? e->name : ELAPSED,
			       comment, spread };

	if (s->n && r->runs > 1)
		snprintf(spread, sizeof(spread),
			 t->sep ? "%.2f%%" : "( +- %5.2f%% )", stats_spread(s));
	if (e && s->n && is_clock(e->name) && r->elapsed.mean > 0)
		snprintf(comment, sizeof(comment), "# %8.3f CPUs utilized",
			 e->st.mean / 1e9 / r->elapsed.mean);
	else if (e && s->n && !r->sets[e->set].attach)
		snprintf(comment, sizeof(comment), "# not per process");
	table_row(t, cell);
}

void report(const struct stat_run *r, FILE *out, const char *sep)
{
	struct table t = { .out = out, .sep = sep, .col = run_cols };
	const char *lead = sep ? "# " : " # ";
	char text[JOB_LABEL_LEN];

	if (r->runs == 0)
		return;
	t.ncol = ARRAY_SIZE(run_cols);
	if (!sep) {
		command_text(r, text, sizeof(text));
		fprintf(out, "\n Performance counter stats for '%s'", text);
		if (r->runs > 1)
			fprintf(out, " (%d runs)", r->runs);
		fprintf(out, ":\n");
	}
	if (r->job.rank >= 0) {
		job_label(&r->job, text, sizeof(text));
		fprintf(out, "%s%s\n", lead, text);
	}
	if (r->note[0])
		fprintf(out, "%s%s\n", lead, r->note);
	if (!sep)
		fputc('\n', out);
	table_print(&t, r->nev + !!sep, run_row, r);
	if (!sep) {
		fprintf(out, "\n%18.9f seconds time elapsed", r->elapsed.mean);
		if (r->runs > 1)
			fprintf(out, "%43s( +- %5.2f%% )", "",
				stats_spread(&r->elapsed));
		fprintf(out, "\n\n");
	}
	fflush(out);
}

/* One event (or the elapsed time) over the ranks. */
struct summary {
	int n; /* ranks that counted it */
	double sum, min, max, mean, imbalance;
	double spread; /* the largest of the ranks' spreads, NAN: one run */
	int min_rank, max_rank;
};

/* Ties go to the lowest rank.  All zero is balanced (imbalance 1). */
static void summarize(const struct merge *m, int i, struct summary *s)
{
	const struct rank_file *rf;
	double v, sp;
	int k;

	*s = (struct summary){ .spread = NAN };
	for (k = 0; k < m->n; k++) {
		rf = &m->rk[k];
		v = rf->val[i];
		if (isnan(v))
			continue;
		if (!s->n || v < s->min) {
			s->min = v;
			s->min_rank = rf->rank;
		}
		if (!s->n || v > s->max) {
			s->max = v;
			s->max_rank = rf->rank;
		}
		s->sum += v;
		s->n++;
		sp = rf->spread[i];
		if (!isnan(sp) && (isnan(s->spread) || sp > s->spread))
			s->spread = sp;
	}
	if (s->n) {
		s->mean = s->sum / s->n;
		s->imbalance = s->mean > 0 ? s->max / s->mean : 1;
	}
}

/* The comment lines: what was merged, from where, what is missing. */
static void comments(const struct merge *m, FILE *out, const char *lead)
{
	const struct rank_file *a = &m->rk[0];
	struct summary s;
	int i;

	fprintf(out, "%sjob %s; rank and size from %s\n", lead,
		a->id[0] ? a->id : "(no id)", a->from[0] ? a->from : "?");
	if (m->runs > 1)
		fprintf(out, "%seach rank's value is its mean over its runs\n",
			lead);
	if (a->note[0])
		fprintf(out, "%s%s\n", lead, a->note);
	if (m->commands_differ)
		fprintf(out, "%sthe ranks ran different commands\n", lead);
	for (i = 0; i < m->nrow; i++) {
		summarize(m, i, &s);
		if (s.n < m->n)
			fprintf(out, "%s%s: counted on %d of %d ranks\n", lead,
				m->name[i], s.n, m->n);
	}
	if (m->nmissing)
		fprintf(out, "%smissing: rank%s %s", lead,
			m->nmissing > 1 ? "s" : "", m->missing);
	if (m->nmissing && m->size)
		fprintf(out, " of %d\n", m->size);
	else if (m->nmissing)
		fprintf(out, " (job size unknown)\n");
}

static void title(const struct merge *m, FILE *out)
{
	fprintf(out, "\n Performance counter stats for '%s', merged: ",
		m->rk[0].command);
	if (m->size)
		fprintf(out, "%d of %d ranks", m->n, m->size);
	else
		fprintf(out, "%d ranks, job size unknown", m->n);
	if (m->runs_differ)
		fprintf(out, " (up to %d runs each)", m->runs);
	else if (m->rk[0].runs > 1)
		fprintf(out, " (%d runs each)", m->rk[0].runs);
	fprintf(out, ":\n");
}

/* The summary: per row, over the ranks. */
static const struct col sum_cols[] = {
	{ "event", "event", 0, 1, 1 },
	{ NULL, "unit", 0, 0, 0 },
	{ "sum", "sum", NUM_W, 0, 1 },
	{ "min", "min", NUM_W, 0, 1 },
	{ "rank", "min_rank", 5, 0, 1 },
	{ "max", "max", NUM_W, 0, 1 },
	{ "rank", "max_rank", 5, 0, 1 },
	{ "mean", "mean", NUM_W, 0, 1 },
	{ "max/mean", "imbalance", 9, 0, 1 },
	{ "rank +-", "rank_spread", 7, 0, 2 }, /* the last */
};

static void sum_row(struct table *t, const void *arg, int i)
{
	const struct merge *m = arg;
	char b[8][32] = { "" };
	const char *cell[] = { m->name[i], m->unit[i], b[0], b[1], b[2],
			       b[3],       b[4],       b[5], b[6], b[7] };
	int secs = i == m->nrow - 1;
	struct summary s;

	summarize(m, i, &s);
	num(s.n ? s.sum : NAN, secs, b[0], sizeof(b[0]));
	if (s.n) {
		num(s.min, secs, b[1], sizeof(b[1]));
		snprintf(b[2], sizeof(b[2]), "%d", s.min_rank);
		num(s.max, secs, b[3], sizeof(b[3]));
		snprintf(b[4], sizeof(b[4]), "%d", s.max_rank);
		snprintf(b[5], sizeof(b[5]),
			 secs   ? "%.9f" :
			 t->sep ? "%.3f" :
				  "%.0f",
			 s.mean);
		snprintf(b[6], sizeof(b[6]), "%.3f", s.imbalance);
	}
	if (s.n && !isnan(s.spread))
		snprintf(b[7], sizeof(b[7]), "%.2f%%", s.spread);
	table_row(t, cell);
}

/* Rank @k's row: rank, host, CPUs and its values. */
static void rank_row(struct table *t, const void *arg, int k)
{
	const struct merge *m = arg;
	const struct rank_file *rf = &m->rk[k];
	char b[MAX_COLS][32];
	const char *cell[MAX_COLS] = { b[0], rf->host, rf->cpus };
	int i;

	snprintf(b[0], sizeof(b[0]), "%d", rf->rank);
	for (i = 0; i < m->nrow; i++)
		cell[i + 3] = num(rf->val[i], i == m->nrow - 1, b[i + 1],
				  sizeof(b[i + 1]));
	table_row(t, cell);
}

void merge_report(const struct merge *m, FILE *out, const char *sep)
{
	struct col cols[MAX_COLS] = { { "rank", "rank", 5, 0, 1 },
				      { "host", "host", 4, 1, 2 },
				      { "CPUs", "cpus", 4, 1, 2 } };
	struct table t = { .out = out, .sep = sep, .head = 1, .col = sum_cols };
	int i;

	t.ncol = ARRAY_SIZE(sum_cols);
	if (sep) {
		fprintf(out, "# merged: %d of ", m->n);
		if (m->size)
			fprintf(out, "%d ranks", m->size);
		else
			fprintf(out, "? ranks (job size unknown)");
		fprintf(out, ", command '%s'\n", m->rk[0].command);
	} else {
		title(m, out);
		t.ncol -= m->runs < 2; /* no spreads: no column */
	}
	comments(m, out, sep ? "# " : " # ");
	fputs(sep ? "" : "\n", out);
	table_print(&t, m->nrow, sum_row, m);
	for (i = 0; i < m->nrow; i++)
		cols[i + 3] =
			(struct col){ m->name[i], m->name[i], NUM_W, 0, 1 };
	t.col = cols;
	t.ncol = m->nrow + 3;
	fputs(sep ? "" : "\n", out);
	table_print(&t, m->n, rank_row, m);
	fputs(sep ? "" : "\n", out);
}
