/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The merged report of a job: per event the sum, min, max and mean over
 * the ranks that counted it, the imbalance max/mean and the ranks of the
 * min and the max; then one row per rank.  Each rank's value is its
 * file's: the mean over its runs, as its own report would print it.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../tool.h"
#include "merge.h"

#define NUM_W 15 /* a count's column */

/* One event (or the elapsed time) over the ranks. */
struct summary {
	int n; /* ranks that counted it */
	double sum, min, max, mean, imbalance;
	double spread; /* the largest of the ranks' spreads, NAN: one run */
	int min_rank, max_rank;
};

/* Event @i of @rf; i == nev: the elapsed seconds. */
static double value(const struct merge *m, const struct rank_file *rf, int i)
{
	return i == m->nev ? rf->elapsed : rf->val[i];
}

static double spread_of(const struct merge *m, const struct rank_file *rf,
			int i)
{
	return i == m->nev ? rf->elapsed_spread : rf->spread[i];
}

/* Ties go to the lowest rank.  All zero is balanced (imbalance 1). */
static void summarize(const struct merge *m, int i, struct summary *s)
{
	const struct rank_file *rf;
	double v, sp;
	int k;

	memset(s, 0, sizeof(*s));
	s->spread = NAN;
	for (k = 0; k < m->n; k++) {
		rf = &m->rk[k];
		v = value(m, rf, i);
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
		sp = spread_of(m, rf, i);
		if (!isnan(sp) && (isnan(s->spread) || sp > s->spread))
			s->spread = sp;
	}
	if (s->n) {
		s->mean = s->sum / s->n;
		s->imbalance = s->mean > 0 ? s->max / s->mean : 1;
	}
}

/* A value of row @i as text: counts whole, seconds to the ns. */
static const char *num(const struct merge *m, int i, double v, char *buf,
		       size_t len)
{
	if (isnan(v))
		return "<not counted>";
	snprintf(buf, len, i == m->nev ? "%.9f" : "%.0f", v);
	return buf;
}

static const char *row_name(const struct merge *m, int i)
{
	return i == m->nev ? ELAPSED : m->name[i];
}

static int runs_differ(const struct merge *m)
{
	int k;

	for (k = 1; k < m->n; k++)
		if (m->rk[k].runs != m->rk[0].runs)
			return 1;
	return 0;
}

static int max_runs(const struct merge *m)
{
	int k, r = 0;

	for (k = 0; k < m->n; k++)
		if (m->rk[k].runs > r)
			r = m->rk[k].runs;
	return r;
}

/* "missing: rank 3 of 4", "missing: ranks 1,3-5 of 8" */
static void missing_text(const struct merge *m, char *buf, size_t len)
{
	size_t n = 0;
	int i, j;

	append(buf, len, &n, "missing: rank%s ", m->nmissing > 1 ? "s" : "");
	for (i = 0; i < m->nmissing; i = j + 1) {
		for (j = i; j + 1 < m->nmissing &&
			    m->missing[j + 1] == m->missing[j] + 1;
		     j++)
			;
		append(buf, len, &n, "%s%d", i ? "," : "", m->missing[i]);
		if (j > i)
			append(buf, len, &n, "-%d", m->missing[j]);
	}
	if (m->size)
		append(buf, len, &n, " of %d", m->size);
	else
		append(buf, len, &n, " (job size unknown)");
}

/* The comment lines: what was merged, from where, what is missing. */
static void comments(const struct merge *m, FILE *out, const char *lead)
{
	const struct rank_file *a = &m->rk[0];
	char text[4096];
	struct summary s;
	int i;

	fprintf(out, "%sjob %s; rank and size from %s\n", lead,
		a->id[0] ? a->id : "(no id)", a->from[0] ? a->from : "?");
	if (max_runs(m) > 1)
		fprintf(out, "%seach rank's value is its mean over its runs\n",
			lead);
	if (a->note[0])
		fprintf(out, "%s%s\n", lead, a->note);
	for (i = 1; i < m->n; i++)
		if (strcmp(m->rk[i].command, a->command) != 0) {
			fprintf(out, "%sthe ranks ran different commands\n",
				lead);
			break;
		}
	for (i = 0; i < m->nev; i++) {
		summarize(m, i, &s);
		if (s.n < m->n)
			fprintf(out, "%s%s: counted on %d of %d ranks\n", lead,
				m->name[i], s.n, m->n);
	}
	if (m->nmissing) {
		missing_text(m, text, sizeof(text));
		fprintf(out, "%s%s\n", lead, text);
	}
}

static void title(const struct merge *m, FILE *out)
{
	fprintf(out, "\n Performance counter stats for '%s', merged: ",
		m->rk[0].command);
	if (m->size)
		fprintf(out, "%d of %d ranks", m->n, m->size);
	else
		fprintf(out, "%d ranks, job size unknown", m->n);
	if (runs_differ(m))
		fprintf(out, " (up to %d runs each)", max_runs(m));
	else if (m->rk[0].runs > 1)
		fprintf(out, " (%d runs each)", m->rk[0].runs);
	fprintf(out, ":\n");
}

static void human_summary(const struct merge *m, FILE *out, int w)
{
	char a[64], b[64], c[64], d[64];
	struct summary s;
	int i, spreads = max_runs(m) > 1;

	fprintf(out, "\n %-*s %*s %*s %5s %*s %5s %*s %9s%s\n", w, "event",
		NUM_W, "sum", NUM_W, "min", "rank", NUM_W, "max", "rank", NUM_W,
		"mean", "max/mean", spreads ? "  rank +-" : "");
	for (i = 0; i <= m->nev; i++) {
		summarize(m, i, &s);
		if (!s.n) {
			fprintf(out, " %-*s %*s\n", w, row_name(m, i), NUM_W,
				"<not counted>");
			continue;
		}
		fprintf(out, " %-*s %*s %*s %5d %*s %5d %*s %9.3f", w,
			row_name(m, i), NUM_W, num(m, i, s.sum, a, sizeof(a)),
			NUM_W, num(m, i, s.min, b, sizeof(b)), s.min_rank,
			NUM_W, num(m, i, s.max, c, sizeof(c)), s.max_rank,
			NUM_W, num(m, i, s.mean, d, sizeof(d)), s.imbalance);
		if (spreads && !isnan(s.spread))
			fprintf(out, "  %6.2f%%", s.spread);
		fprintf(out, "\n");
	}
}

static int col_width(const char *name)
{
	int n = (int)strlen(name);

	return n > NUM_W ? n : NUM_W;
}

static void human_ranks(const struct merge *m, FILE *out)
{
	int wh = 4, wc = 4, k, i, n;
	char buf[64];

	for (k = 0; k < m->n; k++) {
		n = (int)strlen(m->rk[k].host);
		wh = n > wh ? n : wh;
		n = (int)strlen(m->rk[k].cpus);
		wc = n > wc ? n : wc;
	}
	fprintf(out, "\n %5s  %-*s  %-*s", "rank", wh, "host", wc, "CPUs");
	for (i = 0; i <= m->nev; i++)
		fprintf(out, " %*s", col_width(row_name(m, i)), row_name(m, i));
	fprintf(out, "\n");
	for (k = 0; k < m->n; k++) {
		const struct rank_file *rf = &m->rk[k];

		fprintf(out, " %5d  %-*s  %-*s", rf->rank, wh, rf->host, wc,
			rf->cpus);
		for (i = 0; i <= m->nev; i++)
			fprintf(out, " %*s", col_width(row_name(m, i)),
				num(m, i, value(m, rf, i), buf, sizeof(buf)));
		fprintf(out, "\n");
	}
	fprintf(out, "\n");
}

static void human(const struct merge *m, FILE *out)
{
	int i, w = (int)strlen(ELAPSED);

	for (i = 0; i < m->nev; i++)
		if ((int)strlen(m->name[i]) > w)
			w = (int)strlen(m->name[i]);
	title(m, out);
	comments(m, out, " # ");
	human_summary(m, out, w);
	human_ranks(m, out);
}

/* @s as a CSV field: quoted, its quotes doubled, if it holds @sep. */
static void field(FILE *out, const char *s, const char *sep, int first)
{
	if (!first)
		fputs(sep, out);
	if ((!*sep || !strstr(s, sep)) && !strchr(s, '"') && !strchr(s, '\n')) {
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

static void csv_summary(const struct merge *m, FILE *out, const char *sep)
{
	char a[64], b[64];
	struct summary s;
	int i;

	fprintf(out,
		"event%sunit%ssum%smin%smin_rank%smax%smax_rank%smean%s"
		"imbalance%srank_spread\n",
		sep, sep, sep, sep, sep, sep, sep, sep, sep);
	for (i = 0; i <= m->nev; i++) {
		summarize(m, i, &s);
		field(out, row_name(m, i), sep, 1);
		field(out, i == m->nev ? "s" : m->unit[i], sep, 0);
		if (!s.n) {
			fprintf(out, "%s<not counted>%s%s%s%s%s%s%s\n", sep,
				sep, sep, sep, sep, sep, sep, sep);
			continue;
		}
		fprintf(out, "%s%s", sep, num(m, i, s.sum, a, sizeof(a)));
		fprintf(out, "%s%s%s%d", sep, num(m, i, s.min, a, sizeof(a)),
			sep, s.min_rank);
		fprintf(out, "%s%s%s%d", sep, num(m, i, s.max, a, sizeof(a)),
			sep, s.max_rank);
		snprintf(b, sizeof(b), i == m->nev ? "%.9f" : "%.3f", s.mean);
		fprintf(out, "%s%s%s%.3f%s", sep, b, sep, s.imbalance, sep);
		if (!isnan(s.spread))
			fprintf(out, "%.2f%%", s.spread);
		fprintf(out, "\n");
	}
}

static void csv_ranks(const struct merge *m, FILE *out, const char *sep)
{
	char buf[64];
	int i, k;

	fprintf(out, "rank%shost%scpus", sep, sep);
	for (i = 0; i <= m->nev; i++)
		field(out, row_name(m, i), sep, 0);
	fprintf(out, "\n");
	for (k = 0; k < m->n; k++) {
		const struct rank_file *rf = &m->rk[k];

		fprintf(out, "%d", rf->rank);
		field(out, rf->host, sep, 0);
		field(out, rf->cpus, sep, 0);
		for (i = 0; i <= m->nev; i++)
			field(out, num(m, i, value(m, rf, i), buf, sizeof(buf)),
			      sep, 0);
		fprintf(out, "\n");
	}
}

void merge_report(const struct merge *m, FILE *out, const char *sep)
{
	if (!sep) {
		human(m, out);
		return;
	}
	fprintf(out, "# merged: %d of ", m->n);
	if (m->size)
		fprintf(out, "%d ranks", m->size);
	else
		fprintf(out, "? ranks (job size unknown)");
	fprintf(out, ", command '%s'\n", m->rk[0].command);
	comments(m, out, "# ");
	csv_summary(m, out, sep);
	csv_ranks(m, out, sep);
}
