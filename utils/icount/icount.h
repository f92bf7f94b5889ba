/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_icount: the instructions one PAPI call executes, counted by a
 * method that gives the same number on every run.
 *
 *   callgrind  the worker runs under valgrind --tool=callgrind
 *              --collect-atstart=no and switches collection on around
 *              each measured call with a client request; one dump per
 *              case, whose total the parent reads: user-space
 *              instructions, exact.
 *   counter    the worker counts with its own perf_event hardware
 *              instructions counter (user and kernel) read around each
 *              call: exact where the machine is (the icount guest).
 *
 * A case is one call repeated N times on one event set (cases.c); the
 * same loop through an empty function of the same signature is measured
 * too, and a result is (total - empty total) / N: the instructions of the
 * call beyond those of an empty function.  Where the raw_syscalls:sys_enter
 * tracepoint can be counted, a run outside valgrind counts the system
 * calls of each case the same way.
 *
 * The parent re-executes this program (../worker.h) per column: ours with
 * user-space reads (ours-rdpmc), ours with LOPE_NO_RDPMC=1 (ours-read),
 * stock, and the floor (the same events opened with perf_event_open).
 * Each PAPI worker also measures PAPI's framework floor: the same calls
 * with the component's start, stop, read and reset replaced by functions
 * that do nothing (framework.c).
 *
 *   main.c         options; parent or worker
 *   method.c       parent: which method counts here
 *   events.c       the events: PAPI names and their perf_event attributes
 *   cases.c        worker: the calls, the cases, the measuring loop
 *   meter.c        worker: the counters (and the parent's probe)
 *   meter_cg.c     worker: callgrind's client requests
 *   papi_worker.c  worker: PAPI event sets, ours or stock
 *   framework.c    worker: PAPI's framework with an empty component
 *   floor_worker.c worker: the raw perf_event floor
 *   parent.c       parent: columns, runs, callgrind dumps
 *   report.c       parent: the tables
 *   goals.c        parent: the goals (a goal's parts: ../goal.c)
 *   csv.c          parent: --csv
 *
 * Exit status: 0 done, 1 a measurement failed, 2 bad input, 77 the
 * method cannot count on this machine (said why).
 */
#ifndef LOPE_ICOUNT_H
#define LOPE_ICOUNT_H

#include <stddef.h>
#include <stdint.h>

#include "../goal.h"
#include "../tool.h"
#include "../worker.h"

#define PROG "papi_icount"
#define MAX_EVENTS 8
_Static_assert(MAX_EVENTS <= WORKER_MAX_EVENTS, "worker_set_*() take our sets");
#define MAX_N 100000
#define DEFAULT_N 50
#define WARMUP 20
#define WORKER_TIMEOUT 600 /* seconds; valgrind is slow */

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

/* ------------------------------------------------------------------ */
/* Worker: calls, cases, meters (cases.c, meter.c)                     */
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
	int running; /* started by the harness */
};

/*
 * How a case's measured calls are counted, each on its own: its
 * instructions, and its system calls (with callgrind: its read-family
 * system calls, from /proc/self/io), by which the parent tells the paths
 * of a call apart when they differ.
 */
struct meter {
	void (*on)(struct meter *m);  /* just before the measured call */
	void (*off)(struct meter *m); /* just after it: meter_record() */
	int ins_counted, sys_counted;
	const char *no_user; /* why user-space counter reads cannot run */
	uint64_t *ins, *sys; /* per call of the case */
	long n, cap;
	int failed;
	char label[64]; /* the case: "TARGET CALL NEV" */
	/* the counter method's */
	int ins_fd, sys_fd;
	void *ins_page;
	uint64_t i0, s0;
	/* callgrind's: where its dumps go, the last one's number, the
	 * process's I/O counters */
	const char *dumps;
	int keep;
	long dumpno;
	int io_fd;
};

/* Start counting the case @label of @n calls. */
void meter_begin(struct meter *m, const char *label, long n);
/* One call's counts. */
void meter_record(struct meter *m, uint64_t ins, uint64_t sys);
/*
 * Emit the case's lines: "case TARGET CALL NEV N INS SYS", each of INS
 * and SYS "sum,min,nmin,max" or "-", then where instructions are counted
 * one "path TARGET CALL NEV SYS CALLS MIN MAX" per number of system calls
 * the calls made.
 */
void meter_end(struct meter *m);

/* The callgrind meter, or NULL with why (not under valgrind ...). */
struct meter *meter_callgrind(char *why, size_t len);
/* Was this program built with callgrind's client requests? */
int have_callgrind(void);
/* The counter meter: instructions if @ins (else none), system calls
 * where they can be counted; "info" lines say what it counts.  NULL with
 * why if @ins and the instructions counter cannot be opened. */
struct meter *meter_counter(int ins, char *why, size_t len);
/* The meter of method @method ("callgrind", "counter", "sys"), or NULL
 * after a "fatal" line (exit EX_SKIP). */
struct meter *meter_for(const char *method);
/* Is the meter's instruction counter a hardware counter (one fewer for
 * the measured events)? */
int meter_uses_counter(const struct meter *m);

extern const struct api null_api;
extern const struct api papi_api;
/* Parent: can the counter method count here?  1, or 0 with why. */
int counter_probe(char *why, size_t len);
/* Measure every case on @t (a set of @nev events), or those of @calls
 * (NULL-terminated; NULL: all), @n calls each after WARMUP ones.  0, or
 * -1 after an "err" line. */
int run_cases(struct target *t, struct meter *m, long n, int nev,
	      const char *const *calls);
/* Every case on the empty functions (the "null" target, 0 events). */
int run_null(struct meter *m, long n);
/* "err TARGET CALL NEV WHY" for every case of @t. */
void cases_err(const char *target, int nev, const char *why);

/* ------------------------------------------------------------------ */
/* Workers (papi_worker.c, framework.c, floor_worker.c)                */
/* ------------------------------------------------------------------ */

/* Worker arguments, as the parent passes them. */
struct wargs {
	const char *method;
	long n;
	int maxev;
	char *names[MAX_EVENTS]; /* none: the worker chooses */
	int nev;
};

int papi_worker(const struct wargs *a);
int floor_worker(const struct wargs *a);
/*
 * The framework floor of the started set @es (component @cidx): every
 * case again with the component's start, stop, read and reset swapped
 * for empty ones, under target "fw".  The set ends stopped.
 */
int framework_cases(int es, long long *v, struct meter *m, long n, int nev);

/* ------------------------------------------------------------------ */
/* Parent (parent.c, report.c, goals.c)                                */
/* ------------------------------------------------------------------ */

enum { RES_OK, RES_NA, RES_ERR };

/* A tally as the parent received it; ok: counted. */
struct count {
	double sum, min, max;
	long nmin;
	int ok;
};

#define MAX_PATHS 8

/* The calls of a case that made @sys system calls (read-family ones
 * under callgrind): how many, their least and most instructions. */
struct path {
	long sys;
	long calls;
	double min, max;
};

/* One case of one column: @n calls, each counted. */
struct res {
	char target[8];
	char call[12];
	int nev;
	long n;
	struct count ins, sys;
	struct path path[MAX_PATHS]; /* by system calls, fewest first */
	int npaths;
	int kind;
	char msg[200];
};

struct col {
	struct worker w;  /* the native run */
	struct worker vw; /* the run under valgrind */
	int disabled;     /* stock's component is disabled here */
	int skipped;      /* not measured (why in skip_why) */
	char skip_why[256];
	char ins_why[256]; /* the native run's instruction counter */
	char sys_why[256]; /* its system-call counter */
	char user_why[256];
	char events[1024];
	char choice[512];
	char usage[512];
	struct res *res;
	int nres;
};

struct opts {
	long n;
	int maxev;
	int csv;
	const char *method; /* auto, callgrind, counter */
	const char *events;
	const char *keep; /* keep callgrind's dumps here */
	struct libdirs dirs;
};

struct ic {
	struct opts o;
	const char *method; /* the one used */
	char method_desc[256];
	const char *sys_name; /* what the paths' system calls are */
	const char *valgrind_path;
	char valgrind[256]; /* valgrind's version */
	struct col col[WORKER_PATHS];
	int cpu;
	char events[1024];
	int nev; /* sets of 1..nev events */
};

/* Choose the method (-m); exit 77 if it cannot count here. */
void pick_method(struct ic *ic);
int ic_measure(struct ic *ic);
void ic_free(struct ic *ic);
/* What per_call() gives, per call, less the empty function's. */
enum quantity {
	Q_INS,      /* instructions of the cheapest calls (all, if exact) */
	Q_INS_MAX,  /* of the dearest */
	Q_INS_MEAN, /* the mean */
	Q_SYS,      /* system calls, the mean */
	Q_SYS_MAX,  /* the most one call made */
};
/* @q of @target @call on @nev events in column @c; < 0 if not measured. */
double per_call(const struct col *c, const char *target, const char *call,
		int nev, enum quantity q);
/* Did the calls of that case differ in instructions (a path that
 * depends on time)?  Its paths are then in find_res()'s path[]. */
int varies(const struct col *c, const char *target, const char *call, int nev);
const struct res *find_res(const struct col *c, const char *target,
			   const char *call, int nev);
int col_failed(const struct col *c, char *why, size_t len);
int rdpmc_ok(const struct ic *ic);
const struct col *ours_best(const struct ic *ic);

struct call_def {
	const char *call;  /* "read" */
	const char *label; /* "PAPI_read" */
	const char *floor; /* the raw call it is compared with */
};
extern const struct call_def calls[];
extern const int ncalls;
void cell(char *buf, size_t len, const struct col *c, const char *target,
	  const char *call, int nev);
void print_report(const struct ic *ic);

#define NGOALS 5
/* A goal's verdict (goal_verdict()): met, missed. */
#define GOAL_MET "pass"
#define GOAL_MISSED "miss"
extern const char *const goal_names[NGOALS];
extern const char *const goal_ids[NGOALS];
void eval_goals(const struct ic *ic, struct goal *g);
void print_goals(const struct ic *ic);
void print_csv(const struct ic *ic);

#endif /* LOPE_ICOUNT_H */
