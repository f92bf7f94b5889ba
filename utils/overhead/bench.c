/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../tool.h"
#include "../worker.h"
#include "bench.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t pct(const uint64_t *s, int n, double q)
{
	return s[(size_t)((n - 1) * q + 0.5)];
}

/* Sort @v (@n samples) and summarise it. */
static void summarise(uint64_t *v, long n, struct stats *st)
{
	qsort(v, (size_t)n, sizeof(uint64_t), cmp_u64);
	st->n = (int)n;
	st->min = v[0];
	st->max = v[n - 1];
	st->med = pct(v, (int)n, 0.5);
	st->p10 = pct(v, (int)n, 0.1);
	st->p25 = pct(v, (int)n, 0.25);
	st->p75 = pct(v, (int)n, 0.75);
	st->p90 = pct(v, (int)n, 0.9);
	st->sys = -1;
	st->flt = -1;
}

/* ------------------------------------------------------------------ */
/* Exact syscall counting through the raw_syscalls:sys_enter tracepoint */
/* ------------------------------------------------------------------ */

static uint64_t sc_read(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return v;
}

void bench_close(struct bench *b)
{
	int i;

	for (i = 0; i < MAX_STEPS; i++)
		if (b->sc_fd[i] >= 0) {
			close(b->sc_fd[i]);
			b->sc_fd[i] = -1;
		}
}

static void sc_setup(struct bench *b)
{
	int i;

	for (i = 0; i < MAX_STEPS; i++) {
		b->sc_fd[i] =
			syscall_counter_open(1, b->sc_why, sizeof(b->sc_why));
		if (b->sc_fd[i] < 0) {
			bench_close(b);
			return;
		}
	}
	/* calibrate: the DISABLE ioctl's own entry is normally counted */
	ioctl(b->sc_fd[0], PERF_EVENT_IOC_RESET, 0);
	for (i = 0; i < SYSCALL_REPS; i++) {
		ioctl(b->sc_fd[0], PERF_EVENT_IOC_ENABLE, 0);
		ioctl(b->sc_fd[0], PERF_EVENT_IOC_DISABLE, 0);
	}
	b->sc_base = (double)sc_read(b->sc_fd[0]) / SYSCALL_REPS;
	snprintf(b->sc_why, sizeof(b->sc_why), "ok");
}

/* ------------------------------------------------------------------ */
/* The timing routine                                                  */
/* ------------------------------------------------------------------ */

static long minflt(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return ru.ru_minflt;
}

/* Run @bc's prep, if any; 0, or 1 with ctx->err set. */
static int bench_prep(const struct bcase *bc, struct ctx *ctx)
{
	return bc->prep ? bc->prep(ctx) : 0;
}

/* Count the system calls each step of @bc makes into @st. */
static void bench_syscalls(const struct bench *b, const struct bcase *bc,
			   struct ctx *ctx, struct stats *st)
{
	int s, reps = SYSCALL_REPS;
	long i;

	if (b->sc_base < 0)
		return;
	if (bc->max_n && bc->max_n < reps)
		reps = (int)bc->max_n;
	for (s = 0; s < bc->nsteps; s++)
		ioctl(b->sc_fd[s], PERF_EVENT_IOC_RESET, 0);
	for (i = 0; i < reps; i++) {
		if (bench_prep(bc, ctx))
			return;
		/* each step bracketed by its own counter's enable/disable */
		for (s = 0; s < bc->nsteps; s++) {
			int rc;

			ioctl(b->sc_fd[s], PERF_EVENT_IOC_ENABLE, 0);
			rc = bc->steps[s].fn(ctx);
			ioctl(b->sc_fd[s], PERF_EVENT_IOC_DISABLE, 0);
			if (rc)
				return;
		}
	}
	for (s = 0; s < bc->nsteps; s++) {
		double v = (double)sc_read(b->sc_fd[s]) / reps - b->sc_base;

		st[s].sys = v < 0 ? 0 : v;
	}
}

/*
 * The timed loop of @bc: @n samples per step into @samples, the minor
 * faults into @faults.  0, or 1 with ctx->err set.
 */
static int bench_loop(const struct bcase *bc, struct ctx *ctx, long n,
		      uint64_t **samples, long *faults)
{
	long i, warmup = bc->warmup ? bc->warmup : WARMUP;
	int s;

	ctx->err[0] = 0;
	for (i = -warmup; i < n; i++) {
		if (bench_prep(bc, ctx))
			return 1;
		for (s = 0; s < bc->nsteps; s++) {
			uint64_t t0, t1;
			long f0 = bc->faults ? minflt() : 0;

			t0 = now();
			if (bc->steps[s].fn(ctx))
				return 1;
			t1 = now();
			if (i < 0)
				continue;
			samples[s][i] = t1 - t0;
			if (bc->faults)
				faults[s] += minflt() - f0;
		}
	}
	return 0;
}

int bench_run(const struct bench *b, const struct bcase *bc, struct ctx *ctx,
	      int nev)
{
	uint64_t *samples[MAX_STEPS];
	long faults[MAX_STEPS] = { 0 };
	struct stats st[MAX_STEPS];
	long n = bc->max_n && bc->max_n < b->n ? bc->max_n : b->n;
	int s, failed;

	for (s = 0; s < bc->nsteps; s++)
		samples[s] = xcalloc((size_t)n, sizeof(uint64_t));
	failed = bench_loop(bc, ctx, n, samples, faults);
	for (s = 0; s < bc->nsteps; s++) {
		if (!failed)
			summarise(samples[s], n, &st[s]);
		free(samples[s]);
	}
	if (failed) {
		bench_case_err(bc, nev, ctx->err);
		return -1;
	}
	bench_syscalls(b, bc, ctx, st);
	for (s = 0; s < bc->nsteps; s++) {
		char sys[32] = "-", flt[32] = "-";

		if (st[s].sys >= 0)
			snprintf(sys, sizeof(sys), "%.2f", st[s].sys);
		if (bc->faults)
			snprintf(flt, sizeof(flt), "%.3f",
				 (double)faults[s] / (double)n);
		emit("res %s %d %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		     " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s %s",
		     bc->steps[s].id, nev, st[s].n, st[s].med, st[s].p10,
		     st[s].p25, st[s].p75, st[s].p90, st[s].min, st[s].max, sys,
		     flt);
	}
	return 0;
}

void bench_case_err(const struct bcase *bc, int nev, const char *why)
{
	char line[512];
	int i;

	oneline(line, sizeof(line), why);
	for (i = 0; i < bc->nsteps; i++)
		emit("err %s %d %s", bc->steps[i].id, nev, line);
}

static int step_empty(struct ctx *ctx)
{
	(void)ctx;
	return 0;
}

void bench_open(struct bench *b, long n)
{
	static const struct bcase timer = CASE1("timer", step_empty);
	struct ctx ctx;
	int i;

	b->n = n;
	b->sc_base = -1;
	for (i = 0; i < MAX_STEPS; i++)
		b->sc_fd[i] = -1;
	sc_setup(b);
	emit("info syscalls %s", b->sc_why);
	/* the timer's own cost: the same bracket around an empty call */
	bench_run(b, &timer, &ctx, 0);
}
