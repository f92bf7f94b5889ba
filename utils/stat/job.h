/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_stat in a parallel job (doc/cluster.md): the rank (job.c), its
 * file in the job directory, read back by --merge (merge.c) for the
 * merged report (report.c).  No MPI library: the ranks meet only in the
 * directory the user names.
 */
#ifndef LOPE_STAT_JOB_H
#define LOPE_STAT_JOB_H

#include <dirent.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * A rank's file in the job directory, JOB_FILE_PREFIX RANK.HOST.PID,
 * written under a name starting with '.' and renamed when complete, is
 * the report of papi_stat -x JOB_FILE_SEP (report.c) after four comment
 * lines of its own:
 *
 *   # papi_stat rank file 2
 *   # command: ./prog arg
 *   # job: 1234.0                      the launcher's name, may be empty
 *   # runs: 3
 *   # rank 1 of 4, host node01, CPUs 0-3,8 (SLURM_PROCID, ...)
 *   # default events: ...              optional
 *   VALUE,UNIT,NAME,SPREAD             one per event, in -e's order
 *   SECONDS,s,time-elapsed,SPREAD      the last line
 *
 * The "# rank" line is job_label()'s; VALUE is the mean over the runs, a
 * whole number or "<not counted>"; SPREAD "1.23%", empty for one run.
 */
#define JOB_FILE_MAGIC "# papi_stat rank file 2"
#define JOB_FILE_SEP ","
#define JOB_HEAD_COMMAND "# command: "
#define JOB_HEAD_ID "# job: "
#define JOB_HEAD_RUNS "# runs: "
#define JOB_FILE_PREFIX "rank-"
/* Created (O_EXCL) by the one rank that prints the merged report. */
#define JOB_PRINTED ".printed"

/* The most events of -e and runs of -r, and so of a rank file. */
#define MAX_EVENTS 64
#define MAX_RUNS 100000

#define JOB_HOST_LEN 256
#define JOB_CPUS_LEN 1024
#define JOB_ID_LEN 256
#define JOB_FROM_LEN 64
#define JOB_LABEL_LEN (JOB_HOST_LEN + JOB_CPUS_LEN + JOB_FROM_LEN + 64)

/* This process's place in a job. */
struct job {
	int rank;                /* -1: not in a job */
	int size;                /* ranks in the job, 0: not known */
	char from[JOB_FROM_LEN]; /* the variables read, "SLURM_PROCID ..." */
	char id[JOB_ID_LEN];     /* the launcher's name of the job, or "" */
	char host[JOB_HOST_LEN];
	char cpus[JOB_CPUS_LEN]; /* the command's CPUs, "0-3,8" */
};

/*
 * The rank and size from the launcher's environment into *@j, and the
 * host name; outside a job, rank -1, or rank 0 of 1 if @alone (a job
 * directory without a launcher).  0, or -1 when a variable holds no valid
 * rank or size (said why).
 */
int job_detect(struct job *j, int alone);
/* The CPUs process @pid may run on, as "0-3,8", into @buf. */
void job_cpus(pid_t pid, char *buf, size_t len);
/* "rank 1 of 4, host h, CPUs 0-3 (SLURM_PROCID, SLURM_NTASKS)", or
 * "rank 5 (job size unknown), host ...": merge.c reads it back. */
void job_label(const struct job *j, char *buf, size_t len);
/* Create the job directory @dir if needed; 0, or -1 (said why). */
int job_dir_prepare(const char *dir);
/*
 * The rank files in @dir (JOB_FILE_PREFIX ...), sorted by the rank in
 * their names, into *@list if not NULL (scandir(3)'s: the caller frees
 * each and the array): their count, or -1 (said why).
 */
int job_dir_files(const char *dir, struct dirent ***list);
/* The rank in a rank file's name, RANK of JOB_FILE_PREFIX RANK.HOST.PID,
 * or -1. */
long job_file_rank(const char *name);

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
	int size; /* ranks in the job, 0: not known */
	int runs; /* the most runs of a rank */
	int runs_differ, commands_differ;
	char missing[4096]; /* the ranks that wrote no file, "1,3-5" */
	int nmissing;
};

/* The merged report of @m to @out, CSV with separator @sep if not NULL. */
void merge_report(const struct merge *m, FILE *out, const char *sep);

/*
 * Merge the rank files of @dir and print the report to @out, CSV when
 * @sep is not NULL.  The exit status: 0, 1 when ranks are missing (the
 * report names them), 2 for bad input (said why, no report).
 */
int merge_dir(const char *dir, FILE *out, const char *sep);

#endif /* LOPE_STAT_JOB_H */
