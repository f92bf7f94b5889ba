/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's one timing-and-statistics routine, shared by every case.
 *
 * A case is a table row of steps timed apart (start and stop alternate),
 * with an optional untimed prep before each iteration (a new event set, a
 * restart) and optional page-fault counting.  bench_run() times each step
 * on its own (lfence; rdtsc around a single call, see arch.h), many
 * times, and emits one "res" line per step with the median, p10, p25,
 * p75, p90, min and max, and where the raw_syscalls:sys_enter tracepoint
 * can be counted, the exact number of system calls per call.
 */
#ifndef LOPE_OVERHEAD_BENCH_H
#define LOPE_OVERHEAD_BENCH_H

#include "arch.h"
#include "overhead.h"

/* What a step works on; each worker embeds it first in its own context. */
struct ctx {
	char err[256];
};

typedef int (*step_fn)(struct ctx *ctx);

struct step {
	const char *id; /* result id, e.g. "read" */
	step_fn fn;     /* returns 0, or nonzero with ctx->err set */
};

/*
 * One measured case: its steps run in order in every iteration, each timed
 * on its own (so start and stop alternate).  @prep, if any, runs untimed
 * before each iteration (a new event set, a restart); @faults asks for the
 * minor page faults of each step (getrusage around it, outside the timed
 * window); @max_n caps the iterations (0: -n).
 */
struct bcase {
	int nsteps;
	struct step steps[MAX_STEPS];
	step_fn prep;
	int faults;
	long max_n;
	int warmup;
};

/* A case of one step. */
#define CASE1(id, fn)                                \
	{                                            \
		.nsteps = 1, .steps = { { id, fn } } \
	}

/* The timing routine's state in one worker. */
struct bench {
	long n;               /* timed calls per case (-n) */
	int sc_fd[MAX_STEPS]; /* raw_syscalls:sys_enter, one per step */
	double sc_base;       /* syscalls one enable/disable adds; < 0: none */
	char sc_why[160];     /* why system calls are not counted, or "ok" */
};

/*
 * Set up @b for @n calls per case: the system-call counters, an "info
 * syscalls" line, and the timer's own cost as the "timer" result.
 */
void bench_open(struct bench *b, long n);
void bench_close(struct bench *b);
/*
 * Time each step of @bc separately, after its warm-up iterations, and
 * emit one "res" line per step (or one "err" line per step when a call
 * fails: then -1).  @nev is the event-set size the results are filed
 * under.
 */
int bench_run(const struct bench *b, const struct bcase *bc, struct ctx *ctx,
	      int nev);
/* "err" lines for every step of @bc: its set could not be set up. */
void bench_case_err(const struct bcase *bc, int nev, const char *why);

#endif /* LOPE_OVERHEAD_BENCH_H */
