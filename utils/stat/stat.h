/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_stat's parts: the events and their PAPI event sets (sets.c), the
 * report (report.c), the options and the runs (main.c), a rank of a
 * parallel job (job.h).
 */
#ifndef LOPE_STAT_STAT_H
#define LOPE_STAT_STAT_H

#include <stdio.h>
#include <sys/types.h>

#include "papi.h"

#include "job.h"

#define PROG "papi_stat"

/* Running mean and sum of squared deviations (Welford). */
struct stats {
	int n;
	double mean, m2;
};

struct event {
	char name[PAPI_HUGE_STR_LEN]; /* as given */
	char units[PAPI_MIN_STR_LEN];
	int code;
	int cidx;
	int set; /* index in struct stat_run.sets */
	struct stats st;
};

/* One PAPI event set per component: a set holds one component's events. */
struct cset {
	int cidx;
	int es;
	int attach; /* the component can attach to a process */
	int nev;
	int ev[MAX_EVENTS];
};

struct opts {
	const char *events; /* -e, NULL: the default list */
	int runs;
	const char *out;
	const char *sep; /* -x, NULL: human-readable */
	int domain;      /* -d, 0: user and kernel where allowed */
	int inherit;
	const char *job_dir; /* --job-dir: each rank's file goes there */
	const char *merge;   /* --merge: the job directory to merge */
	char **argv;
};

struct stat_run {
	struct opts o;
	struct event ev[MAX_EVENTS];
	int nev;
	struct cset sets[MAX_EVENTS];
	int nsets;
	char note[1024]; /* which default events were chosen, and why */
	struct stats elapsed;
	int runs;
	FILE *out;
	struct job job; /* rank -1: not in a job */
};

void stats_add(struct stats *s, double x);
/* The command line, its words separated by blanks, into @buf. */
void command_text(const struct stat_run *r, char *buf, size_t len);
/* Print the counts of r->runs runs, as perf stat does, to @out: CSV
 * with separator @sep if not NULL. */
void report(const struct stat_run *r, FILE *out, const char *sep);

/* The events of -e's @list into @r: 0, or -1 (said why). */
int events_parse(struct stat_run *r, const char *list);
/* The default events that can be counted here into @r: 0, or -1. */
int events_default(struct stat_run *r);
/* Group the events by component, one set each (not created yet). */
void sets_plan(struct stat_run *r);
/*
 * Create every set, attached to @pid (0: on ourselves, to check the
 * events), and add the events.  On failure *bad is the event (or -1) and
 * nothing stays open.
 */
int sets_build(struct stat_run *r, pid_t pid, int *bad);
/* Attached sets first: they only arm (enable at exec); then the others. */
int sets_start(struct stat_run *r);
/* Stop every set and add its counts to the statistics. */
void sets_stop(struct stat_run *r);
/* Delete every set built so far (the others are PAPI_NULL). */
void sets_delete(struct stat_run *r);

/*
 * After the runs of a rank with --job-dir: write its file there.  1 if
 * this rank is the one to print the merged report, else 0; -1 if the
 * file could not be written (said why).
 */
int job_finish(const struct stat_run *r);

#endif /* LOPE_STAT_STAT_H */
