/* SPDX-License-Identifier: BSD-3-Clause */
/* papi_stat's statistics and report, in perf stat's layout. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "stat.h"

void stats_add(struct stats *s, double x)
{
	double d = x - s->mean;

	s->n++;
	s->mean += d / s->n;
	s->m2 += d * (x - s->mean);
}

double stats_spread(const struct stats *s)
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

const char *event_units(const struct event *e)
{
	if (e->units[0])
		return e->units;
	return is_clock(e->name) ? "ns" : "";
}

void command_text(const struct stat_run *r, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; r->o.argv[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "",
				      r->o.argv[i]);
}

static void spread_text(const struct stats *s, int runs, char *buf, size_t len)
{
	if (runs > 1)
		snprintf(buf, len, "( +- %5.2f%% )", stats_spread(s));
	else
		buf[0] = '\0';
}

static void report_event_human(const struct stat_run *r, const struct event *e)
{
	char comment[64] = "", spread[32];

	if (e->st.n == 0) {
		fprintf(r->out, "%18s      %-30s\n", "<not counted>", e->name);
		return;
	}
	if (is_clock(e->name) && r->elapsed.mean > 0)
		snprintf(comment, sizeof(comment), "# %8.3f CPUs utilized",
			 e->st.mean / 1e9 / r->elapsed.mean);
	else if (!r->sets[e->set].attach)
		snprintf(comment, sizeof(comment), "# not per process");
	spread_text(&e->st, r->runs, spread, sizeof(spread));
	if (spread[0])
		fprintf(r->out, "%18.0f      %-30s %-26s %s\n", e->st.mean,
			e->name, comment, spread);
	else if (comment[0])
		fprintf(r->out, "%18.0f      %-30s %s\n", e->st.mean, e->name,
			comment);
	else
		fprintf(r->out, "%18.0f      %s\n", e->st.mean, e->name);
}

static void report_human(const struct stat_run *r)
{
	char cmd[512], spread[32], label[JOB_LABEL_LEN];
	int i;

	command_text(r, cmd, sizeof(cmd));
	fprintf(r->out, "\n Performance counter stats for '%s'", cmd);
	if (r->runs > 1)
		fprintf(r->out, " (%d runs)", r->runs);
	fprintf(r->out, ":\n");
	if (r->job.rank >= 0) {
		job_label(&r->job, label, sizeof(label));
		fprintf(r->out, " # %s\n", label);
	}
	if (r->note[0])
		fprintf(r->out, " # %s\n", r->note);
	fprintf(r->out, "\n");
	for (i = 0; i < r->nev; i++)
		report_event_human(r, &r->ev[i]);
	spread_text(&r->elapsed, r->runs, spread, sizeof(spread));
	fprintf(r->out, "\n%18.9f seconds time elapsed", r->elapsed.mean);
	if (spread[0])
		fprintf(r->out, "%43s%s", "", spread);
	fprintf(r->out, "\n\n");
}

/* value SEP unit SEP event SEP spread; '#' lines are comments. */
static void report_csv(const struct stat_run *r)
{
	const char *sep = r->o.sep;
	char spread[32], label[JOB_LABEL_LEN];
	int i;

	if (r->job.rank >= 0) {
		job_label(&r->job, label, sizeof(label));
		fprintf(r->out, "# %s\n", label);
	}
	if (r->note[0])
		fprintf(r->out, "# %s\n", r->note);
	for (i = 0; i < r->nev; i++) {
		const struct event *e = &r->ev[i];

		spread[0] = '\0';
		if (r->runs > 1)
			snprintf(spread, sizeof(spread), "%.2f%%",
				 stats_spread(&e->st));
		if (e->st.n == 0)
			fprintf(r->out, "<not counted>%s%s%s%s%s\n", sep,
				event_units(e), sep, e->name, sep);
		else
			fprintf(r->out, "%.0f%s%s%s%s%s%s\n", e->st.mean, sep,
				event_units(e), sep, e->name, sep, spread);
	}
	spread[0] = '\0';
	if (r->runs > 1)
		snprintf(spread, sizeof(spread), "%.2f%%",
			 stats_spread(&r->elapsed));
	fprintf(r->out, "%.9f%ss%stime-elapsed%s%s\n", r->elapsed.mean, sep,
		sep, sep, spread);
}

void report(const struct stat_run *r)
{
	if (r->runs == 0)
		return;
	if (r->o.sep)
		report_csv(r);
	else
		report_human(r);
	fflush(r->out);
}
