/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_overhead (doc/papi_overhead.1): what one PAPI call costs, our
 * libpapi against another, the raw perf_event floor and PAPI's framework
 * floor, by one of three meters: the timer and the counter (meter.c),
 * callgrind (meter_cg.c).  One table of cases (cases.c) serves every
 * meter, a case calling through a target's table of functions: PAPI
 * ("papi"), PAPI with an empty component ("fw"), the bare system calls
 * ("raw", "untimed"), the user-space loop ("user") and empty functions
 * ("null"), whose count every other result is less.  The columns are
 * workers (../worker.h): ours with user-space reads, ours with
 * LOPE_NO_RDPMC=1, stock, and the raw floor.
 *
 *   main.c         options; parent or worker
 *   pick.c         parent: which meter counts here
 *   events.c       the events, their perf_event attributes and open
 *   cases.c        the table of cases and the loop every meter runs
 *   meter.c        worker: timer and counter meters, the case's lines
 *   meter_cg.c     worker: the callgrind meter; the meter by name
 *   papi_worker.c  worker: PAPI event sets, ours or stock
 *   framework.c    worker: PAPI's framework with an empty component
 *   floor_worker.c worker: the raw perf_event floor, sampling too
 *   sampling.c     worker: what a sample costs, through PAPI
 *   parent.c       parent: the meter, the columns, their rounds, results
 *   report.c       parent: the tables
 *   goals.c        parent: the goals
 *   csv.c, plot.c  parent: --csv and --plot
 *
 * Exit status: 0 done, 1 a measurement failed, 2 bad input, 77 the meter
 * cannot count on this machine (said why).
 */
#ifndef LOPE_OVERHEAD_H
#define LOPE_OVERHEAD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "../tool.h"
#include "../worker.h"

#define PROG "papi_overhead"
#define MAX_EVENTS 8
_Static_assert(MAX_EVENTS <= WORKER_MAX_EVENTS, "worker_set_*() take our sets");
#define MAX_N 1000000
#define MAX_ROUNDS 50
#define WARMUP 20     /* uncounted calls before a case's first */
#define NEW_SET_N 200 /* the most calls of a case on new sets */
#define SET3 3        /* the events of the cases on one set size */
#define SET3_OF(nev) ((nev) < SET3 ? (nev) : SET3)
#define SYS_N 200            /* timer: calls counted in system calls apart */
#define SAMPLE_N 50          /* the most calls of the sampling cases */
#define SAMPLE_PERIOD 100003 /* every sampled event's (a prime) ... */
#define CLOCK_PERIOD 20011   /* ... but the clocks', in ns */
#define WORKER_TIMEOUT 600   /* seconds; valgrind is slow */

/* ------------------------------------------------------------------ */
/* Events (events.c)                                                   */
/* ------------------------------------------------------------------ */

struct ev_def {
	const char *name; /* PAPI's name */
	uint32_t type;    /* its perf_event_attr */
	uint64_t config;
};

/* The pools events are chosen from, in order: hardware, software. */
extern const struct ev_def hw_pool[];
extern const size_t hw_pool_len;
extern const struct ev_def sw_pool[];
extern const size_t sw_pool_len;
/* The perf_event attributes of PAPI name @name, or NULL. */
const struct ev_def *ev_find(const char *name);

struct perf_event_attr;
/*
 * papi_overhead's one perf_event_open: @a on this thread, close-on-exec,
 * in the group of leader @group (-1: a leader), again without what the
 * architecture may drop if refused (lopelib_arch_relax_attr()).  The fd,
 * or -1 with errno set.
 */
int perf_open(struct perf_event_attr *a, int group);
/*
 * A counter of the raw_syscalls:sys_enter tracepoint on this thread:
 * every system call the thread enters, made exact by the kernel.  Its fd,
 * or -1 with why in @why (tracefs not mounted, no permission).
 */
int syscall_counter_open(char *why, size_t len);

/* ------------------------------------------------------------------ */
/* The cases (cases.c)                                                 */
/* ------------------------------------------------------------------ */

/* The calls a case makes, through one of these tables: PAPI's, the
 * empty one, or the raw floor's.  NULL: not available there. */
struct api {
	int (*start)(int set);
	int (*stop)(int set, long long *v);
	int (*read)(int set, long long *v);
	int (*accum)(int set, long long *v);
	int (*reset)(int set);
};

/* What a case runs on. */
struct target {
	const char *name; /* "papi", "fw", "null", "raw", "untimed", "user" */
	const struct api *api;
	int set;
	long long *v;
	int running;  /* started by the harness */
	char **names; /* papi: the set's events, for a new set */
	int nev;
};

struct case_def;
typedef int (*step_fn)(struct target *t, const struct case_def *c);

enum { CASE_SET3 = 1, CASE_NEW = 2, CASE_FAULTS = 4, CASE_SAMPLES = 8 };

/*
 * One row of the table: per iteration @before (uncounted), @measured
 * (counted), @after (uncounted), on a started set if @running.
 */
struct case_def {
	const char *call;  /* its id in the workers' lines: "read" */
	const char *label; /* its row: "PAPI_read" */
	const char *floor; /* the raw call it is compared with */
	const char *base;  /* the empty function's case it is less */
	step_fn before, measured, after;
	int running;
	int flags; /* CASE_SET3: papi on the set of SET3 events only;
		    * CASE_NEW: on a new set each time; CASE_FAULTS: minor
		    * faults counted too; CASE_SAMPLES: sampling.c's, its
		    * samples counted too, run only when asked for */
	int nth;   /* the reads after a start before the measured one */
};
extern const struct case_def cases[];
extern const int ncases;
/* The six calls of the goals: cases[0..NCALLS). */
#define NCALLS 6
const struct case_def *case_find(const char *call);

/* ------------------------------------------------------------------ */
/* Worker: meters (meter.c, meter_cg.c)                               */
/* ------------------------------------------------------------------ */

/*
 * How a case's measured calls are counted, each on its own: a value
 * (cycles or instructions) and the system calls (with callgrind: the
 * read-family ones, from /proc/self/io), by which the parent tells the
 * paths of a call apart; and in some cases an extra count: the minor
 * faults, or the overflow samples.
 */
enum { C_SYS, C_VAL, C_EXTRA, NCOUNTS }; /* a call's counts */
struct meter {
	void (*on)(struct meter *m);  /* just before the measured call */
	void (*off)(struct meter *m); /* just after it: meter_record() */
	int val_counted, sys_counted;
	int exact;           /* counts repeat: the calls' paths are told */
	int interleave;      /* an uncounted call before each counted one */
	struct meter *apart; /* counts the system calls in a pass of its own */
	const char *no_user; /* why user-space counter reads cannot run */
	const char *no_sampling;    /* why a sample cannot be counted */
	uint64_t (*calls)[NCOUNTS]; /* per call of the case */
	long n, cap;
	int failed;
	char label[64];  /* the case: "TARGET CALL NEV" */
	uint64_t v0, s0; /* the counts before the call */
};

/* Start counting the case @label of @n calls. */
void meter_begin(struct meter *m, const char *label, long n);
/* One call's counts. */
void meter_record(struct meter *m, uint64_t val, uint64_t sys);
/* The last call's extra count: its minor faults or its samples. */
void meter_extra(struct meter *m, uint64_t extra);
/*
 * Emit the case's lines: "case TARGET CALL NEV N VAL SYS EXTRA", each of
 * VAL, SYS and EXTRA "n,sum,min,max,p10,p25,p50,p75,p90" or "-", then for an
 * exact meter one "path TARGET CALL NEV SYS CALLS MIN MAX" per number of
 * system calls the calls made.
 */
void meter_end(struct meter *m);

/* The meter of @name: "counter" (instructions), "timer" (the clock, the
 * system calls counted in a pass of their own) or "sys" (none), each with
 * the system calls where they can be counted, and what it counts in @why;
 * NULL with why if the instructions counter cannot be opened. */
struct meter *meter_counter(const char *name, char *why, size_t len);
/* Was this program built with callgrind's client requests? */
int have_callgrind(void);
/* The meter of @name ("timer", "counter", "callgrind", "sys": system
 * calls only), or NULL after a "fatal" line (exit EX_SKIP): meter_cg.c,
 * which holds callgrind's. */
struct meter *meter_for(const char *name);
/* Is the meter's instruction counter a hardware counter (one fewer for
 * the measured events)? */
int meter_uses_counter(const struct meter *m);
/* Parent: can the counter meter count here?  1, or 0 with why. */
int counter_probe(char *why, size_t len);

/* ------------------------------------------------------------------ */
/* Worker: the runs (cases.c, the workers)                             */
/* ------------------------------------------------------------------ */

extern const struct api papi_api;
/* Measure every case of @t (a set of @nev events; @set3: SET3 of them) or
 * those of @calls (NULL-terminated; NULL: all), @n calls each.  0, or -1
 * after an "err" line. */
int run_cases(struct target *t, struct meter *m, long n, int nev, int set3,
	      const char *const *calls);
/* Every case on the empty functions (the "null" target, 0 events). */
int run_null(struct meter *m, long n);
/* "err TARGET CALL NEV WHY" for every case of @target. */
void cases_err(const char *target, int nev, const char *why);

/*
 * Sampling: the cases "loop" (a spin on the started set: loop_calls) and
 * "sample" (sample_calls: the spin with every event overflowing every
 * SAMPLE_PERIOD, the clocks every CLOCK_PERIOD: period_of()), whose extra
 * count is the growth of @samples over the call (the handlers count
 * there).  sampling_papi() (sampling.c): both through PAPI on @t's set
 * (of t->nev events, named t->names), which ends stopped, overflow off;
 * 0, or -1 after an "err" line.  can_sample(): can @m count a sample?  1,
 * or 0 after the "na" lines of @target on @nev events.  The floor's
 * (floor_worker.c) runs sample_calls only.
 */
extern volatile sig_atomic_t samples;
extern const char *const loop_calls[], *const sample_calls[];
int period_of(const struct ev_def *ev);
int can_sample(const struct meter *m, const char *target, int nev);
int sampling_papi(struct target *t, struct meter *m, long n);

/* Worker arguments, as the parent passes them. */
struct wargs {
	const char *meter;
	long n;
	int maxev;
	char *names[MAX_EVENTS]; /* none: the worker chooses */
	int nev;
};

int papi_worker(const struct wargs *a);
int floor_worker(const struct wargs *a);
/*
 * The framework floor of the started set @es: every case again with the
 * component's start, stop, read and reset swapped for empty ones, under
 * target "fw".  The set ends stopped.
 */
int framework_cases(int es, long long *v, struct meter *m, long n, int nev);

/* ------------------------------------------------------------------ */
/* Parent (parent.c)                                                   */
/* ------------------------------------------------------------------ */

enum { RES_OK, RES_NA, RES_ERR };

/* A worker's "n,sum,min,max,p10,p25,p50,p75,p90"; ok: counted. */
enum { S_N, S_SUM, S_MIN, S_MAX, S_P10, S_P25, S_P50, S_P75, S_P90, NSTAT };
struct count {
	double s[NSTAT];
	int ok;
};

#define MAX_PATHS 8

/* The calls of a case that made @sys system calls (read-family ones
 * under callgrind): how many, their least and most counts. */
struct path {
	long sys;
	long calls;
	double min, max;
};

/* One case of one column in one round. */
struct res {
	char target[8];
	char call[12];
	int nev;
	int round;
	struct count val, sys, extra;
	struct path path[MAX_PATHS]; /* by system calls, fewest first */
	int npaths;
	int kind;
	char msg[200];
};

struct col {
	struct worker w;      /* the native run */
	struct worker vw;     /* the run under valgrind */
	int disabled;         /* stock's component is disabled here */
	const char *skip_why; /* not measured: why (NULL: measured) */
	char val_why[256];    /* what counted the value */
	char sys_why[256];    /* the system-call counter */
	char events[1024];
	char choice[512];
	char usage[512];
	int round;
	struct res *res;
	int nres;
};

struct opts {
	long n, rounds;
	int maxev;
	int csv, verbose;
	const char *meter; /* timer, exact, callgrind, counter */
	const char *events;
	const char *keep; /* keep callgrind's dumps here */
	const char *plot; /* --plot FILE */
	struct libdirs dirs;
};

struct ovh {
	struct opts o;
	const char *meter; /* the one used */
	int exact;         /* it counts instructions */
	char meter_desc[256];
	const char *unit;     /* "cycles", "instructions" */
	const char *sys_name; /* what the paths' system calls are */
	const char *valgrind_path;
	char valgrind[256]; /* valgrind's version */
	struct col col[WORKER_PATHS];
	int cpu;
	int nev; /* sets of 1..nev events: ours-rdpmc's (the first run's) */
	char model[256];
};

/* Choose the meter (-m); exit 77 if it cannot count here. */
void pick_meter(struct ovh *o);
/* Measure; the results live until the process exits. */
int ovh_measure(struct ovh *o);

/* What per_call() gives, per call, less the empty function's; a
 * statistic of the calls is its index in struct count. */
enum quantity {
	Q_VAL = S_P50,  /* the table's: median, or exact cheapest path's */
	Q_MEAN = S_SUM, /* the mean */
	Q_MIN = S_MIN,
	Q_MAX = S_MAX,
	Q_P10 = S_P10,
	Q_P25 = S_P25,
	Q_P75 = S_P75,
	Q_P90 = S_P90,
	Q_SYS,     /* system calls, the mean */
	Q_SYS_MAX, /* the most one call made */
	Q_EXTRA,   /* the extra count (faults, samples), the mean, not less
		    * anything */
};
/* @q of @target @call on @nev events in column @c, the median over the
 * rounds; < 0 if not measured. */
double per_call(const struct ovh *o, const struct col *c, const char *target,
		const char *call, int nev, enum quantity q);
/* The result of that case in round @round, or NULL. */
struct res *find_res(const struct col *c, const char *target, const char *call,
		     int nev, int round);
/* Did column @c fail?  If so, why in @why (NULL: not said). */
int col_failed(const struct col *c, char *why, size_t len);
int rdpmc_ok(const struct ovh *o);
const struct col *ours_best(const struct ovh *o);

/* report.c, goals.c (the goals' lines; @csv: as --csv's), csv.c, plot.c */
void print_report(const struct ovh *o);
void print_goals(const struct ovh *o, int csv);
void print_csv(const struct ovh *o);
void plot_check(const char *path);
int plot(const struct ovh *o);

#endif /* LOPE_OVERHEAD_H */
