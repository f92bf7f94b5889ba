/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ranks' files of a job directory as merge.c reads them, for the
 * merged report of report.c.
 */
#ifndef LOPE_STAT_MERGE_H
#define LOPE_STAT_MERGE_H

#include <stdio.h>

#include "job.h"

/* The elapsed time's row in the reports and the rank files: the last. */
#define ELAPSED "time-elapsed"
/* A rank file's rows: its events, then the elapsed time. */
#define MAX_ROWS (MAX_EVENTS + 1)

/* One rank's file. */
struct rank_file {
	char *file; /* its name in the directory */
	int rank, size, runs;
	char from[JOB_FROM_LEN], id[JOB_ID_LEN];
	char host[JOB_HOST_LEN], cpus[JOB_CPUS_LEN];
	char command[512], note[1024];
	double val[MAX_ROWS];    /* per row; NAN: not counted */
	double spread[MAX_ROWS]; /* per row, in %; NAN: one run */
};

/* The job: the ranks that wrote, in rank order, and the rows. */
struct merge {
	const char *dir;
	int nrow;                              /* the events, then ELAPSED */
	char *name[MAX_ROWS], *unit[MAX_ROWS]; /* the first file's */
	struct rank_file *rk;
	int n;
	int size;     /* ranks in the job, 0: not known */
	int *missing; /* ranks that wrote no file */
	int nmissing;
};

/* The merged report of @m to @out, CSV with separator @sep if not NULL. */
void merge_report(const struct merge *m, FILE *out, const char *sep);

#endif /* LOPE_STAT_MERGE_H */
