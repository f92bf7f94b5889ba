/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_overhead: the cost of one PAPI call, in TSC cycles.
 *
 * Each measured call is timed on its own (lfence; rdtsc around a single
 * call), many times, and summarised by median, p10, p25, p75, p90, min and
 * max (bench.h).  The cases: every call on a set of one event and of all
 * events; read, accum and reset on sets of 1..k events (scaling); the
 * first read after starting a new set against the second (cold/warm, with
 * the minor faults of each call); eight reads in a row after a start
 * (repeated reads).
 *
 * The parent process measures nothing itself: it re-executes this program
 * as one worker per column (../worker.h), reads the workers' results and
 * prints one combined table:
 *
 *   ours-rdpmc  our libpapi, user-space reads allowed (n/a where the
 *               component reports no fast_counter_read)
 *   ours-read   our libpapi with LOPE_NO_RDPMC=1 (read(2) path forced)
 *   stock       another libpapi (--compare DIR, default the stock build)
 *   floor       the same events opened directly with perf_event_open as one
 *               group: one read(), one ioctl(RESET/ENABLE/DISABLE), and where
 *               the counters are readable in user space a seqlock+rdpmc loop
 *
 * Where the syscall tracepoint (raw_syscalls:sys_enter) can be counted, the
 * number of system calls each PAPI call makes is counted exactly as well.
 * --plot draws boxplots of the results with gnuplot; --csv prints them all.
 *
 *   main.c          options; parent or worker
 *   bench.c         worker: the timing-and-statistics routine
 *   papi_worker.c   worker: the PAPI calls
 *   floor_worker.c  worker: the raw perf_event floor
 *   parent.c        parent: the columns, their rounds, their results
 *   tables.c        parent: the report's tables
 *   goals.c         parent: the goals, from the medians (../goal.c)
 *   csv.c, plot.c   parent: --csv and --plot
 *
 * Exit status: 0 done, 1 a measurement failed, 2 bad input.
 */
#ifndef LOPE_OVERHEAD_H
#define LOPE_OVERHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "../goal.h"
#include "../tool.h"
#include "../worker.h"

#define PROG "papi_overhead"
#define MAX_EVENTS 16
_Static_assert(MAX_EVENTS <= WORKER_MAX_EVENTS, "worker_set_*() take our sets");
#define MAX_SETS 2
#define MAX_STEPS 8
#define MAX_N 1000000
#define WARMUP 100
#define MAX_ROUNDS 50
#define SYSCALL_REPS 200
#define SW_SCALE_MAX 8 /* software events: scaling up to this many */
#define COLD_N 200     /* new event sets per round for the cold read */
#define COLD_WARMUP 5
#define NREPEAT 8          /* reads timed one after the other after a start */
#define WORKER_TIMEOUT 120 /* seconds; a hung worker is killed by SIGALRM */

/* One case's summary, as a worker sends it and the parent combines it. */
struct stats {
	int n;
	uint64_t med, p10, p25, p75, p90, min, max;
	double sys; /* system calls per call, < 0 if not counted */
	double flt; /* minor page faults per call, < 0 if not counted */
};

/* The event-set sizes measured: the first event alone, then all of them. */
int set_sizes(int nev, int *sizes);

/* ------------------------------------------------------------------ */
/* Workers                                                             */
/* ------------------------------------------------------------------ */

/*
 * Measure @n calls per case on @names[0..nev) (none: choose them) and
 * the scaling on @scale[0..nscale) (none: choose them); an exit code.
 */
int papi_worker(long n, char **names, int nev, char **scale, int nscale);
/* The same on the raw perf_event floor (@names must be given). */
int floor_worker(long n, char **names, int nev, char **scale, int nscale);
/* Does PAPI event @name stand for a software perf event? */
int raw_is_software(const char *name);

/* ------------------------------------------------------------------ */
/* Parent                                                              */
/* ------------------------------------------------------------------ */

enum { REC_RES, REC_ERR, REC_NA };

/* A worker's "res", "err" or "na" line, or those combined over rounds. */
struct rec {
	char id[16];
	int nev;
	int round;
	int kind; /* REC_RES, REC_ERR or REC_NA (msg says why) */
	struct stats st;
	char msg[256];
};

/* A column of the report: one worker, run once per round. */
struct col {
	struct worker w;
	/* what the worker said */
	char syscalls[160];
	char usage[512];
	char events[1024];
	char choice[1024];
	char scale[1024];
	char scale_why[256];
	char standin[512];
	struct rec *raw; /* as received, every round */
	int nraw;
	int round;
	struct rec *recs; /* combined over the rounds, timer subtracted */
	int nrec;
	double timer; /* median over the rounds */
	int disabled; /* stock's component is disabled here: not measured */
};

struct opts {
	long n;      /* -n */
	long rounds; /* -r */
	int verbose; /* -v */
	int csv;
	const char *events; /* -e; NULL: the first worker chooses */
	const char *plot;   /* --plot FILE */
	struct libdirs dirs;
};

/* The parent: the options, the columns and what they measured. */
struct ovh {
	struct opts o;
	struct col col[WORKER_PATHS];
	int cpu;            /* the CPU the workers are pinned to */
	const char *events; /* measured: -e or the first worker's choice */
	const char *scale;  /* the scaling events */
	int nev, nsizes, sizes[MAX_SETS], nscale;
	char model[256]; /* the CPU's model name */
};

/* parent.c */
int ovh_measure(struct ovh *o);
void ovh_free(struct ovh *o);
const struct rec *find_rec(const struct col *c, const char *id, int nev);
double med_of(const struct col *c, const char *id, int nev);
int col_failed(const struct col *c, char *why, size_t len);
int rdpmc_col_ok(const struct ovh *o);
const struct col *ours_best(const struct ovh *o);
const struct col *col_shown(const struct ovh *o, int k);

/* tables.c */
struct call_def {
	const char *id;
	const char *label;
	const char *floor; /* floor id the call is compared with */
};
extern const struct call_def calls[];
extern const int ncalls;
const char *floor_label(const char *id);
const char *id_label(const char *id, const char **kind);
void print_report(const struct ovh *o);

/* goals.c */
#define NGOALS 5
/* A goal's verdict (goal_verdict()): met, missed. */
#define GOAL_MET "met"
#define GOAL_MISSED "NOT met"
extern const char *const goal_ids[NGOALS];
void eval_goals(const struct ovh *o, struct goal *g);
void print_goals(const struct ovh *o);

/* csv.c, plot.c */
void print_csv(const struct ovh *o);
void plot_check(const char *path);
int plot(const struct ovh *o);

#endif /* LOPE_OVERHEAD_H */
