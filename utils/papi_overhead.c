/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_overhead: the cost of one PAPI call, in TSC cycles.
 *
 * Each measured call is timed on its own (lfence; rdtsc around a single
 * call), many times, and summarised by median, p10, p25, p75, p90, min and
 * max.  All cases share one timing-and-statistics routine, bench(); a case
 * is a table row of steps timed apart (start and stop alternate), with an
 * optional untimed prep before each iteration (a new event set, a restart)
 * and optional page-fault counting.  The cases: every call on a set of one
 * event and of all events; read, accum and reset on sets of 1..k events
 * (scaling); the first read after starting a new set against the second
 * (cold/warm, with the minor faults of each call); eight reads in a row
 * after a start (repeated reads).
 *
 * The parent process measures nothing itself: it re-executes this program
 * (/proc/self/exe) as one worker per column, each with its own
 * LD_LIBRARY_PATH (and LOPE_NO_RDPMC where the column asks for it), reads
 * the workers' results from a pipe and prints one combined table:
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
 * Exit status: 0 done, 1 a measurement failed, 2 bad input.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"

#include "tool.h"

#define PROG "papi_overhead"

const char *const tool_prog = PROG;
#define MAX_EVENTS 16
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

/* Exit codes */
#define EX_OK 0
#define EX_FAIL 1
#define EX_USAGE 2

static const char *const sw_default_events[] = {
	"perf::TASK-CLOCK",
	"perf::PAGE-FAULTS",
	"perf::CONTEXT-SWITCHES",
};
static const char *const hw_default_events[] = {
	"PAPI_TOT_INS",
	"PAPI_TOT_CYC",
	"PAPI_BR_INS",
};

/*
 * Candidates that extend the chosen events for the scaling measurement,
 * in this order, each kept if the growing set can still be started:
 * software events up to SW_SCALE_MAX, presets up to the component's
 * num_cntrs (the counters the hardware has).
 */
static const char *const sw_scale_pool[] = {
	"perf::TASK-CLOCK",
	"perf::PAGE-FAULTS",
	"perf::CONTEXT-SWITCHES",
	"perf::CPU-MIGRATIONS",
	"perf::MINOR-FAULTS",
	"perf::MAJOR-FAULTS",
	"perf::CPU-CLOCK",
	/* libpfm4's aliases count as other events: the eighth and on */
	"perf::FAULTS",
	"perf::CS",
	"perf::MIGRATIONS",
};
static const char *const hw_scale_pool[] = {
	"PAPI_TOT_INS", "PAPI_TOT_CYC", "PAPI_BR_INS", "PAPI_BR_MSP",
	"PAPI_REF_CYC", "PAPI_LD_INS",  "PAPI_SR_INS", "PAPI_BR_CN",
	"PAPI_L1_DCM",  "PAPI_L2_TCM",  "PAPI_L3_TCM", "PAPI_BR_TKN",
};

/* ------------------------------------------------------------------ */
/* Timer                                                               */
/* ------------------------------------------------------------------ */

#if defined(__x86_64__) || defined(__i386__)
#define TIMER_UNIT "cycles"
#define TIMER_NAME "lfence;rdtsc;lfence"
static inline __attribute__((always_inline)) uint64_t now(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence"
			     : "=a"(lo), "=d"(hi)::"memory");
	return (uint64_t)hi << 32 | lo;
}
#elif defined(__aarch64__)
#define TIMER_UNIT "ticks"
#define TIMER_NAME "isb;mrs cntvct_el0"
static inline __attribute__((always_inline)) uint64_t now(void)
{
	uint64_t v;

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb"
			     : "=r"(v)::"memory");
	return v;
}
#else
#define TIMER_UNIT "ns"
#define TIMER_NAME "clock_gettime(CLOCK_MONOTONIC_RAW)"
static inline uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

/* ------------------------------------------------------------------ */
/* ------------------------------------------------------------------ */
/* Small helpers (the ones papi_accuracy shares are in tool.c)         */
/* ------------------------------------------------------------------ */

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n, sz);

	if (!p)
		die(EX_FAIL, "out of memory");
	return p;
}

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
				int cpu, int group_fd, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int parse_count(const char *s, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > MAX_N)
		return -1;
	*out = v;
	return 0;
}

/* Split a comma-separated list in place; returns the count or -1. */
static int split_events(char *list, char **names, int max)
{
	int n = 0;
	char *p = list, *comma;

	for (;;) {
		comma = strchr(p, ',');
		if (comma)
			*comma = 0;
		while (isspace((unsigned char)*p))
			p++;
		{
			size_t l = strlen(p);

			while (l > 0 && isspace((unsigned char)p[l - 1]))
				p[--l] = 0;
		}
		if (!*p || n == max)
			return -1;
		names[n++] = p;
		if (!comma)
			break;
		p = comma + 1;
	}
	return n;
}

/* The event-set sizes measured: the first event alone, then all of them. */
static int set_sizes(int nev, int *sizes)
{
	sizes[0] = 1;
	if (nev > 1) {
		sizes[1] = nev;
		return 2;
	}
	return 1;
}

/* ------------------------------------------------------------------ */
/* Worker side: one timing-and-statistics routine for every case       */
/* ------------------------------------------------------------------ */

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

struct stats {
	int n;
	uint64_t med, p10, p25, p75, p90, min, max;
	double sys; /* system calls per call, < 0 if not counted */
	double flt; /* minor page faults per call, < 0 if not counted */
};

static long opt_n = 1000;

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

/* Exact syscall counting through the raw_syscalls:sys_enter tracepoint. */
static int sc_fd[MAX_STEPS] = { -1, -1, -1, -1, -1, -1, -1, -1 };
static double sc_base = -1; /* syscalls one enable/disable bracket adds */
static char sc_why[160] = "not tried";

static long tracepoint_id(const char *name)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing",
		"/sys/kernel/debug/tracing",
	};
	char path[256];
	unsigned i;
	long id;
	FILE *f;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/id", roots[i], name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%ld", &id) != 1)
			id = -1;
		fclose(f);
		if (id >= 0)
			return id;
	}
	return -1;
}

static uint64_t sc_read(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return v;
}

static void sc_teardown(void)
{
	int i;

	for (i = 0; i < MAX_STEPS; i++)
		if (sc_fd[i] >= 0) {
			close(sc_fd[i]);
			sc_fd[i] = -1;
		}
}

static void sc_setup(void)
{
	struct perf_event_attr a;
	long id = tracepoint_id("raw_syscalls/sys_enter");
	int i;

	if (id < 0) {
		snprintf(
			sc_why, sizeof(sc_why),
			"tracefs not mounted or raw_syscalls/sys_enter missing");
		return;
	}
	for (i = 0; i < MAX_STEPS; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = (uint64_t)id;
		a.disabled = 1;
		sc_fd[i] = (int)sys_perf_event_open(&a, 0, -1, -1,
						    PERF_FLAG_FD_CLOEXEC);
		if (sc_fd[i] < 0) {
			snprintf(sc_why, sizeof(sc_why),
				 "perf_event_open(raw_syscalls:sys_enter): %s",
				 strerror(errno));
			sc_teardown();
			return;
		}
	}
	/* calibrate: the DISABLE ioctl's own entry is normally counted */
	ioctl(sc_fd[0], PERF_EVENT_IOC_RESET, 0);
	for (i = 0; i < SYSCALL_REPS; i++) {
		ioctl(sc_fd[0], PERF_EVENT_IOC_ENABLE, 0);
		ioctl(sc_fd[0], PERF_EVENT_IOC_DISABLE, 0);
	}
	sc_base = (double)sc_read(sc_fd[0]) / SYSCALL_REPS;
	snprintf(sc_why, sizeof(sc_why), "ok");
}

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
static void bench_syscalls(const struct bcase *bc, struct ctx *ctx,
			   struct stats *st)
{
	int s, reps = SYSCALL_REPS;
	long i;

	if (sc_base < 0)
		return;
	if (bc->max_n && bc->max_n < reps)
		reps = (int)bc->max_n;
	for (s = 0; s < bc->nsteps; s++)
		ioctl(sc_fd[s], PERF_EVENT_IOC_RESET, 0);
	for (i = 0; i < reps; i++) {
		if (bench_prep(bc, ctx))
			return;
		/* each step bracketed by its own counter's enable/disable */
		for (s = 0; s < bc->nsteps; s++) {
			int rc;

			ioctl(sc_fd[s], PERF_EVENT_IOC_ENABLE, 0);
			rc = bc->steps[s].fn(ctx);
			ioctl(sc_fd[s], PERF_EVENT_IOC_DISABLE, 0);
			if (rc)
				return;
		}
	}
	for (s = 0; s < bc->nsteps; s++) {
		double v = (double)sc_read(sc_fd[s]) / reps - sc_base;

		st[s].sys = v < 0 ? 0 : v;
	}
}

/*
 * The timing-and-statistics routine of every case: time each step of @bc
 * separately, after its warm-up iterations, and emit one "res" line per
 * step (or one "err" line per step when a call fails).  @nev is the
 * event-set size the results are filed under.
 */
static int bench(const struct bcase *bc, struct ctx *ctx, int nev)
{
	uint64_t *samples[MAX_STEPS];
	long faults[MAX_STEPS] = { 0 };
	struct stats st[MAX_STEPS];
	long i, n = bc->max_n && bc->max_n < opt_n ? bc->max_n : opt_n;
	long warmup = bc->warmup ? bc->warmup : WARMUP;
	int s, failed = 0;

	for (s = 0; s < bc->nsteps; s++)
		samples[s] = xcalloc((size_t)n, sizeof(uint64_t));
	ctx->err[0] = 0;
	for (i = -warmup; i < n && !failed; i++) {
		if (bench_prep(bc, ctx)) {
			failed = 1;
			break;
		}
		for (s = 0; s < bc->nsteps; s++) {
			uint64_t t0, t1;
			long f0 = bc->faults ? minflt() : 0;

			t0 = now();
			failed = bc->steps[s].fn(ctx);
			t1 = now();
			if (failed)
				break;
			if (i < 0)
				continue;
			samples[s][i] = t1 - t0;
			if (bc->faults)
				faults[s] += minflt() - f0;
		}
	}
	for (s = 0; s < bc->nsteps; s++) {
		if (!failed)
			summarise(samples[s], n, &st[s]);
		free(samples[s]);
	}
	if (failed) {
		char msg[256];

		oneline(msg, sizeof(msg), ctx->err);
		for (s = 0; s < bc->nsteps; s++)
			emit("err %s %d %s", bc->steps[s].id, nev, msg);
		return -1;
	}
	bench_syscalls(bc, ctx, st);
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

static int step_empty(struct ctx *ctx)
{
	(void)ctx;
	return 0;
}

/* The timer's own cost: the same bracket around an empty call. */
static void bench_timer(void)
{
	static const struct bcase timer = CASE1("timer", step_empty);
	struct ctx ctx;

	bench(&timer, &ctx, 0);
}

static void pin_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		emit("info pin failed: %s", strerror(errno));
}

/* ------------------------------------------------------------------ */
/* Worker: PAPI calls                                                  */
/* ------------------------------------------------------------------ */

struct papi_ctx {
	struct ctx c;
	int es;
	int nev;
	char **names; /* the set's events, for the cases that rebuild it */
	long long vals[MAX_EVENTS];
	long long acc[MAX_EVENTS];
};

#define PAPI_STEP(name, call)                                             \
	static int name(struct ctx *c)                                    \
	{                                                                 \
		struct papi_ctx *p = (struct papi_ctx *)c;                \
		int rc = (call);                                          \
		if (rc != PAPI_OK)                                        \
			snprintf(c->err, sizeof(c->err), "%s: %s", #call, \
				 PAPI_strerror(rc));                      \
		return rc != PAPI_OK;                                     \
	}

PAPI_STEP(st_start, PAPI_start(p->es))
PAPI_STEP(st_stop, PAPI_stop(p->es, p->vals))
PAPI_STEP(st_read, PAPI_read(p->es, p->vals))
PAPI_STEP(st_accum, PAPI_accum(p->es, p->acc))
PAPI_STEP(st_reset, PAPI_reset(p->es))

static int st_read_reset(struct ctx *c)
{
	return st_read(c) || st_reset(c);
}

static int make_set(int *es, char **names, int n, char *why, size_t len,
		    int *bad);
static void drop_set(int *es);

/* prep: stop the set if it runs, then start it (untimed). */
static int prep_restart(struct ctx *c)
{
	struct papi_ctx *p = (struct papi_ctx *)c;
	int state = 0;

	if (PAPI_state(p->es, &state) == PAPI_OK && (state & PAPI_RUNNING) &&
	    st_stop(c))
		return 1;
	return st_start(c);
}

/* prep: a new event set of the same events, not started (untimed). */
static int prep_new_set(struct ctx *c)
{
	struct papi_ctx *p = (struct papi_ctx *)c;
	int bad;

	drop_set(&p->es);
	return make_set(&p->es, p->names, p->nev, c->err, sizeof(c->err),
			&bad) != PAPI_OK;
}

/* The measured PAPI cases: {name, function} steps sharing bench(). */
static const struct papi_case {
	int running; /* the event set must be started first */
	struct bcase bc;
} papi_cases[] = {
	{ 0,
	  { .nsteps = 2,
	    .steps = { { "start", st_start }, { "stop", st_stop } } } },
	{ 1, CASE1("read", st_read) },
	{ 1, CASE1("accum", st_accum) },
	{ 1, CASE1("reset", st_reset) },
	{ 1, CASE1("read_reset", st_read_reset) },
};

/* Scaling with the number of events: one set of each size. */
static const struct papi_case scale_cases[] = {
	{ 1, CASE1("s_read", st_read) },
	{ 1, CASE1("s_accum", st_accum) },
	{ 1, CASE1("s_reset", st_reset) },
};

/*
 * The first read after PAPI_start on a new event set (cold: the set's
 * pages and code paths are untouched) against the second (warm), with the
 * minor page faults of each step; and eight reads one after the other
 * after a restart (the seeds' "repeated calls").
 */
static const struct bcase cold_case = {
	.nsteps = 3,
	.steps = { { "c_start", st_start },
		   { "c_read1", st_read },
		   { "c_read2", st_read } },
	.prep = prep_new_set,
	.faults = 1,
	.max_n = COLD_N,
	.warmup = COLD_WARMUP,
};
static const struct bcase repeat_case = {
	.nsteps = NREPEAT,
	.steps = { { "rep1", st_read },
		   { "rep2", st_read },
		   { "rep3", st_read },
		   { "rep4", st_read },
		   { "rep5", st_read },
		   { "rep6", st_read },
		   { "rep7", st_read },
		   { "rep8", st_read } },
	.prep = prep_restart,
};

/* Build an event set of @names; 0, or a PAPI error with @why filled. */
static int make_set(int *es, char **names, int n, char *why, size_t len,
		    int *bad)
{
	int i, rc, code;

	*es = PAPI_NULL;
	*bad = -1;
	rc = PAPI_create_eventset(es);
	if (rc != PAPI_OK) {
		snprintf(why, len, "PAPI_create_eventset: %s",
			 PAPI_strerror(rc));
		return rc;
	}
	for (i = 0; i < n; i++) {
		rc = PAPI_event_name_to_code(names[i], &code);
		if (rc != PAPI_OK) {
			snprintf(why, len, "%s: unknown event (%s)", names[i],
				 PAPI_strerror(rc));
			*bad = i;
			goto fail;
		}
		rc = PAPI_add_event(*es, code);
		if (rc != PAPI_OK) {
			snprintf(why, len, "%s: PAPI_add_event: %s", names[i],
				 PAPI_strerror(rc));
			*bad = i;
			goto fail;
		}
	}
	return PAPI_OK;
fail:
	PAPI_cleanup_eventset(*es);
	PAPI_destroy_eventset(es);
	return rc ? rc : PAPI_EINVAL;
}

static void drop_set(int *es)
{
	long long v[MAX_EVENTS];
	int state = 0;

	if (PAPI_state(*es, &state) == PAPI_OK && (state & PAPI_RUNNING))
		PAPI_stop(*es, v);
	PAPI_cleanup_eventset(*es);
	PAPI_destroy_eventset(es);
}

/* Can @names be added and started?  0 if yes, else why. */
static int try_events(char **names, int n, char *why, size_t len)
{
	long long v[MAX_EVENTS];
	int es, bad, rc;

	rc = make_set(&es, names, n, why, len, &bad);
	if (rc != PAPI_OK)
		return rc;
	rc = PAPI_start(es);
	if (rc != PAPI_OK)
		snprintf(why, len, "%s: PAPI_start: %s",
			 n == 1 ? names[0] : "the set", PAPI_strerror(rc));
	else
		PAPI_stop(es, v);
	drop_set(&es);
	return rc;
}

/* Emit "info @key A,B,C" for @names[0..n). */
static void emit_list(const char *key, char **names, int n)
{
	char line[1024];
	int i;

	line[0] = 0;
	for (i = 0; i < n; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "%s%s", i ? "," : "", names[i]);
	emit("info %s %s", key, line);
}

/* The default events: presets if they can be added and started here. */
static int choose_events(char **out)
{
	char *hw[3], why[512], why2[512], line[1200];
	int i, nev;

	for (i = 0; i < 3; i++)
		hw[i] = (char *)hw_default_events[i];
	if (try_events(hw, 2, why, sizeof(why)) == PAPI_OK) {
		nev = try_events(hw, 3, why2, sizeof(why2)) == PAPI_OK ? 3 : 2;
		for (i = 0; i < nev; i++)
			out[i] = hw[i];
		snprintf(line, sizeof(line),
			 "hardware presets: they can be added and started%s%s",
			 nev == 2 ? "; third preset unusable: " : "",
			 nev == 2 ? why2 : "");
	} else {
		nev = 3;
		for (i = 0; i < nev; i++)
			out[i] = (char *)sw_default_events[i];
		snprintf(line, sizeof(line),
			 "software events: the hardware presets are unusable "
			 "(%s)",
			 why);
	}
	oneline(why, sizeof(why), line);
	emit("info choice %s", why);
	emit_list("events", out, nev);
	return nev;
}

static int raw_is_software(const char *name);

/*
 * The events of the scaling measurement: @names, then candidates from the
 * pool of their kind, each kept if the growing set still starts, up to
 * the counters available (software: SW_SCALE_MAX).  Returns the count.
 */
static int choose_scale(char **names, int nev, char **out, int cidx)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
	const char *const *pool = sw_scale_pool;
	int npool = (int)(sizeof(sw_scale_pool) / sizeof(sw_scale_pool[0]));
	int i, j, n, limit = SW_SCALE_MAX, sw = 1;
	char why[512];

	for (i = 0; i < nev; i++)
		sw = sw && raw_is_software(names[i]);
	if (!sw) {
		pool = hw_scale_pool;
		npool = (int)(sizeof(hw_scale_pool) / sizeof(hw_scale_pool[0]));
		limit = ci && ci->num_cntrs > 0 ? ci->num_cntrs : nev;
	}
	if (limit > MAX_EVENTS)
		limit = MAX_EVENTS;
	if (limit < nev)
		limit = nev;
	for (n = 0; n < nev; n++)
		out[n] = names[n];
	for (i = 0; i < npool && n < limit; i++) {
		int dup = 0;

		for (j = 0; j < n; j++)
			dup = dup || !strcmp(out[j], pool[i]);
		if (dup)
			continue;
		out[n] = (char *)pool[i];
		if (try_events(out, n + 1, why, sizeof(why)) == PAPI_OK)
			n++;
	}
	if (sw)
		emit("info scale_why software events: up to %d, they need no "
		     "counter",
		     SW_SCALE_MAX);
	else
		emit("info scale_why hardware events: up to the %d counters "
		     "the component reports (num_cntrs)",
		     limit);
	emit_list("scale", out, n);
	return n;
}

/* Error lines for every step of @bc (the set could not be set up). */
static void emit_case_err(const struct bcase *bc, int nev, const char *why)
{
	char msg[512];
	int i;

	oneline(msg, sizeof(msg), why);
	for (i = 0; i < bc->nsteps; i++)
		emit("err %s %d %s", bc->steps[i].id, nev, msg);
}

/* Run the @ncases cases on one new set of @names[0..n). */
static void run_cases(const struct papi_case *cases, int ncases, char **names,
		      int n)
{
	struct papi_ctx p;
	char why[512];
	int c, bad, rc;

	memset(&p, 0, sizeof(p));
	p.nev = n;
	p.names = names;
	rc = make_set(&p.es, names, n, why, sizeof(why), &bad);
	for (c = 0; c < ncases && rc != PAPI_OK; c++)
		emit_case_err(&cases[c].bc, n, why);
	for (c = 0; c < ncases && rc == PAPI_OK; c++) {
		int state = 0;

		PAPI_state(p.es, &state);
		if (cases[c].running && !(state & PAPI_RUNNING)) {
			int r = PAPI_start(p.es);

			if (r != PAPI_OK) {
				snprintf(why, sizeof(why), "PAPI_start: %s",
					 PAPI_strerror(r));
				emit_case_err(&cases[c].bc, n, why);
				continue;
			}
		} else if (!cases[c].running && (state & PAPI_RUNNING)) {
			PAPI_stop(p.es, p.vals);
		}
		bench(&cases[c].bc, &p.c, n);
	}
	if (rc == PAPI_OK)
		drop_set(&p.es);
}

/* Run one @bc that builds or restarts its set itself, on @names[0..n). */
static void run_first(const struct bcase *bc, char **names, int n)
{
	struct papi_ctx p;
	int bad;

	memset(&p, 0, sizeof(p));
	p.nev = n;
	p.names = names;
	if (make_set(&p.es, names, n, p.c.err, sizeof(p.c.err), &bad)) {
		emit_case_err(bc, n, p.c.err);
		return;
	}
	bench(bc, &p.c, n);
	drop_set(&p.es);
}

/* Say which library and component this worker really uses. */
static int papi_hello(int *cidx)
{
	const PAPI_component_info_t *ci;
	char line[1024], real[PATH_MAX];
	Dl_info dli;
	int rc = PAPI_library_init(PAPI_VER_CURRENT);

	if (rc != PAPI_VER_CURRENT) {
		emit("fatal PAPI_library_init: %s",
		     rc > 0 ? "version mismatch" : PAPI_strerror(rc));
		return -1;
	}
	if (dladdr((void *)PAPI_library_init, &dli) && dli.dli_fname) {
		if (!realpath(dli.dli_fname, real))
			snprintf(real, sizeof(real), "%s", dli.dli_fname);
		emit("info lib %s", real);
	} else {
		emit("info lib (unknown: dladdr failed)");
	}
	*cidx = PAPI_get_component_index("perf_event");
	if (*cidx < 0)
		*cidx = 0;
	ci = PAPI_get_component_info(*cidx);
	if (!ci)
		return 0;
	oneline(line, sizeof(line), ci->description);
	emit("info comp %s", ci->name);
	emit("info desc %s", line);
	emit("info fcr %d", ci->fast_counter_read ? 1 : 0);
	if (ci->disabled) {
		oneline(line, sizeof(line), ci->disabled_reason);
		emit("info disabled %s", line);
	}
	return 0;
}

/*
 * A PAPI worker.  @names: the events (none: choose them and the scaling
 * events, as the first worker does); @scale: the scaling events.
 */
static int papi_worker(char **names, int nev, char **scale, int nscale)
{
	static char *auto_names[MAX_EVENTS], *auto_scale[MAX_EVENTS];
	int cidx, k, nsizes, sizes[MAX_SETS];
	char why[512];

	if (papi_hello(&cidx))
		return EX_FAIL;
	if (!nev) {
		nev = choose_events(auto_names);
		names = auto_names;
	} else if (try_events(names, nev, why, sizeof(why)) != PAPI_OK) {
		/* bad input is reported as such (exit 2) */
		emit("usage %s", why);
		return EX_USAGE;
	}
	if (!nscale) {
		nscale = choose_scale(names, nev, auto_scale, cidx);
		scale = auto_scale;
	}

	sc_setup();
	emit("info syscalls %s", sc_why);
	bench_timer();

	nsizes = set_sizes(nev, sizes);
	for (k = 0; k < nsizes; k++)
		run_cases(papi_cases,
			  sizeof(papi_cases) / sizeof(papi_cases[0]), names,
			  sizes[k]);
	for (k = 1; k <= nscale; k++)
		run_cases(scale_cases,
			  sizeof(scale_cases) / sizeof(scale_cases[0]), scale,
			  k);
	run_first(&cold_case, names, nev);
	run_first(&repeat_case, names, nev);
	sc_teardown();
	PAPI_shutdown();
	return EX_OK;
}

/* ------------------------------------------------------------------ */
/* Worker: the raw perf_event floor                                     */
/* ------------------------------------------------------------------ */

struct raw_ev {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct raw_ev raw_table[] = {
	{ "TASK-CLOCK", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "CPU-CLOCK", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "PAGE-FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "CONTEXT-SWITCHES", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "CS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "CPU-MIGRATIONS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "MIGRATIONS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "MINOR-FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "MAJOR-FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "ALIGNMENT-FAULTS", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "EMULATION-FAULTS", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_EMULATION_FAULTS },
	{ "INSTRUCTIONS", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "PAPI_TOT_INS", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "CPU-CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "PAPI_TOT_CYC", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "BRANCHES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "BRANCH-INSTRUCTIONS", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "PAPI_BR_INS", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "BRANCH-MISSES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "PAPI_BR_MSP", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "CACHE-REFERENCES", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "CACHE-MISSES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "REF-CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "PAPI_REF_CYC", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

/*
 * The generic perf event a PAPI name stands for ("perf::TASK-CLOCK:u" ->
 * software task-clock).  Names we cannot map get a stand-in of the same
 * kind as the set's first mapped event (hardware instructions by default).
 */
static int raw_lookup(const char *name, struct raw_ev *out)
{
	char base[128];
	char *colon;
	unsigned i;

	if (strncasecmp(name, "perf::", 6) == 0)
		name += 6;
	else if (strncasecmp(name, "perf_raw::", 10) == 0)
		return -1;
	snprintf(base, sizeof(base), "%s", name);
	colon = strchr(base, ':');
	if (colon)
		*colon = 0;
	for (i = 0; i < sizeof(raw_table) / sizeof(raw_table[0]); i++)
		if (strcasecmp(base, raw_table[i].name) == 0) {
			*out = raw_table[i];
			out->name = name;
			return 0;
		}
	return -1;
}

/* Does @name stand for a software perf event? */
static int raw_is_software(const char *name)
{
	struct raw_ev ev;

	return !raw_lookup(name, &ev) && ev.type == PERF_TYPE_SOFTWARE;
}

struct raw_ctx {
	struct ctx c;
	int fd[MAX_EVENTS];
	int nev;
	struct perf_event_mmap_page *page[MAX_EVENTS];
	size_t pagesz;
	uint64_t buf[3 + MAX_EVENTS];
	uint64_t sink;
};

static int raw_err(struct ctx *c, const char *what)
{
	snprintf(c->err, sizeof(c->err), "%s: %s", what, strerror(errno));
	return 1;
}

static int rst_read(struct ctx *c)
{
	struct raw_ctx *r = (struct raw_ctx *)c;
	ssize_t want = (ssize_t)((3 + (size_t)r->nev) * sizeof(uint64_t));

	if (read(r->fd[0], r->buf, (size_t)want) != want)
		return raw_err(c, "read(group)");
	return 0;
}

#define RAW_IOCTL(name, req)                                   \
	static int name(struct ctx *c)                         \
	{                                                      \
		struct raw_ctx *r = (struct raw_ctx *)c;       \
		if (ioctl(r->fd[0], req, PERF_IOC_FLAG_GROUP)) \
			return raw_err(c, "ioctl(" #req ")");  \
		return 0;                                      \
	}

RAW_IOCTL(rst_reset, PERF_EVENT_IOC_RESET)
RAW_IOCTL(rst_enable, PERF_EVENT_IOC_ENABLE)
RAW_IOCTL(rst_disable, PERF_EVENT_IOC_DISABLE)

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_RAW_RDPMC 1
static inline uint64_t x86_rdpmc(uint32_t counter)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}

/* The seqlock + rdpmc read of every event (checked usable beforehand). */
static int rst_rdpmc(struct ctx *c)
{
	struct raw_ctx *r = (struct raw_ctx *)c;
	int i;

	for (i = 0; i < r->nev; i++) {
		volatile struct perf_event_mmap_page *pc = r->page[i];
		uint32_t seq, idx;
		uint64_t ena, run;
		int64_t count;
		unsigned width;

		do {
			seq = pc->lock;
			__asm__ __volatile__("" ::: "memory");
			ena = pc->time_enabled;
			run = pc->time_running;
			idx = pc->index;
			width = pc->pmc_width;
			if (!pc->cap_user_rdpmc || !idx || !width ||
			    width > 64) {
				snprintf(c->err, sizeof(c->err),
					 "event %d lost user-space access", i);
				return 1;
			}
			count = pc->offset;
			count +=
				(int64_t)(x86_rdpmc(idx - 1) << (64 - width)) >>
				(64 - width);
			__asm__ __volatile__("" ::: "memory");
		} while (pc->lock != seq || (seq & 1));
		r->sink += (uint64_t)count + ena + run;
	}
	return 0;
}
#endif

static void raw_close(struct raw_ctx *r)
{
	int i;

	for (i = 0; i < r->nev; i++) {
		if (r->page[i])
			munmap(r->page[i], r->pagesz);
		if (r->fd[i] >= 0)
			close(r->fd[i]);
		r->page[i] = NULL;
		r->fd[i] = -1;
	}
}

/* Open @ev[0..n) as one disabled group, read format like the component. */
static int raw_open(struct raw_ctx *r, const struct raw_ev *ev, int n,
		    char *why, size_t len)
{
	struct perf_event_attr a;
	int i;

	memset(r, 0, sizeof(*r));
	r->nev = n;
	r->pagesz = (size_t)sysconf(_SC_PAGESIZE);
	for (i = 0; i < MAX_EVENTS; i++)
		r->fd[i] = -1;
	for (i = 0; i < n; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = ev[i].type;
		a.config = ev[i].config;
		a.read_format = PERF_FORMAT_GROUP |
				PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.disabled = i == 0;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		r->fd[i] = (int)sys_perf_event_open(
			&a, 0, -1, i ? r->fd[0] : -1, PERF_FLAG_FD_CLOEXEC);
		if (r->fd[i] < 0) {
			snprintf(why, len, "perf_event_open(%s): %s",
				 ev[i].name, strerror(errno));
			raw_close(r);
			return -1;
		}
		r->page[i] = mmap(NULL, r->pagesz, PROT_READ, MAP_SHARED,
				  r->fd[i], 0);
		if (r->page[i] == MAP_FAILED)
			r->page[i] = NULL;
	}
	return 0;
}

/* Are all events of the (enabled) group readable in user space? */
static int raw_rdpmc_ok(struct raw_ctx *r, char *why, size_t len)
{
	int i;

#ifndef HAVE_RAW_RDPMC
	(void)r;
	snprintf(why, len, "raw rdpmc floor implemented on x86 only");
	return 0;
#else
	for (i = 0; i < r->nev; i++) {
		volatile struct perf_event_mmap_page *pc = r->page[i];

		if (!pc) {
			snprintf(why, len, "mmap of the event page failed");
			return 0;
		}
		if (!pc->cap_user_rdpmc) {
			snprintf(why, len, "cap_user_rdpmc=0 on event %d", i);
			return 0;
		}
		if (!pc->index) {
			snprintf(why, len, "index=0 on event %d", i);
			return 0;
		}
	}
	return 1;
#endif
}

/* Why can this machine not read hardware counters in user space? */
static void hw_rdpmc_probe(char *why, size_t len)
{
	struct raw_ctx r;
	struct raw_ev ins = { "hardware instructions", PERF_TYPE_HARDWARE,
			      PERF_COUNT_HW_INSTRUCTIONS };
	char w[160];

	if (raw_open(&r, &ins, 1, w, sizeof(w))) {
		snprintf(why, len, "%s%s", w,
			 errno == ENOENT || errno == EOPNOTSUPP ?
				 " - no hardware PMU" :
				 "");
		return;
	}
	ioctl(r.fd[0], PERF_EVENT_IOC_ENABLE, 0);
	if (raw_rdpmc_ok(&r, w, sizeof(w)))
		snprintf(why, len, "hardware counters are readable");
	else
		snprintf(why, len, "hardware instructions event: %s", w);
	raw_close(&r);
}

/* The generic perf events of @names, stand-ins where a name has none. */
static int raw_events(char **names, int n, struct raw_ev *ev, int say)
{
	int i, sw_only = 1;

	for (i = 0; i < n; i++) {
		if (raw_lookup(names[i], &ev[i])) {
			ev[i].name = "hardware instructions (stand-in)";
			ev[i].type = PERF_TYPE_HARDWARE;
			ev[i].config = PERF_COUNT_HW_INSTRUCTIONS;
			if (say)
				emit("info standin %s -> hardware instructions",
				     names[i]);
		}
		if (ev[i].type != PERF_TYPE_SOFTWARE)
			sw_only = 0;
	}
	return sw_only;
}

static const struct bcase f_read_case = CASE1("f_read", rst_read);
static const struct bcase f_reset_case = CASE1("f_reset", rst_reset);
static const struct bcase f_ed_case = {
	.nsteps = 2,
	.steps = { { "f_enable", rst_enable }, { "f_disable", rst_disable } },
};
static const struct bcase fs_read_case = CASE1("s_f_read", rst_read);
static const struct bcase fs_reset_case = CASE1("s_f_reset", rst_reset);
#ifdef HAVE_RAW_RDPMC
static const struct bcase f_rdpmc_case = CASE1("f_rdpmc", rst_rdpmc);
#endif

/* The floor of one set of @ev[0..n): enable/disable, read, reset, rdpmc. */
static void floor_set(const struct raw_ev *ev, int n, int sw_only,
		      const char *hwwhy)
{
	struct raw_ctx r;
	char why[512];

	if (raw_open(&r, ev, n, why, sizeof(why))) {
		emit_case_err(&f_ed_case, n, why);
		emit_case_err(&f_read_case, n, why);
		emit_case_err(&f_reset_case, n, why);
		emit("na f_rdpmc %d %s", n, why);
		return;
	}
	bench(&f_ed_case, &r.c, n); /* ends disabled */
	ioctl(r.fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	bench(&f_read_case, &r.c, n);
	bench(&f_reset_case, &r.c, n);
	if (raw_rdpmc_ok(&r, why, sizeof(why))) {
#ifdef HAVE_RAW_RDPMC
		bench(&f_rdpmc_case, &r.c, n);
#endif
	} else {
		if (sw_only)
			snprintf(why, sizeof(why),
				 "software events have no hardware counter "
				 "(page index=0); %s",
				 hwwhy);
		emit("na f_rdpmc %d %s", n, why);
	}
	raw_close(&r);
}

/* The scaling floor: a group read and a group reset of @ev[0..n). */
static void floor_scale(const struct raw_ev *ev, int n)
{
	struct raw_ctx r;
	char why[256];

	if (raw_open(&r, ev, n, why, sizeof(why))) {
		emit_case_err(&fs_read_case, n, why);
		emit_case_err(&fs_reset_case, n, why);
		return;
	}
	ioctl(r.fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	bench(&fs_read_case, &r.c, n);
	bench(&fs_reset_case, &r.c, n);
	raw_close(&r);
}

static int floor_worker(char **names, int nev, char **scale, int nscale)
{
	struct raw_ev ev[MAX_EVENTS], sev[MAX_EVENTS];
	int k, nsizes, sizes[MAX_SETS], sw_only;
	char hwwhy[256];

	sw_only = raw_events(names, nev, ev, 1);
	raw_events(scale, nscale, sev, 0);
	sc_setup();
	emit("info syscalls %s", sc_why);
	bench_timer();

	hwwhy[0] = 0;
	if (sw_only)
		hw_rdpmc_probe(hwwhy, sizeof(hwwhy));
	nsizes = set_sizes(nev, sizes);
	for (k = 0; k < nsizes; k++)
		floor_set(ev, sizes[k], sw_only, hwwhy);
	for (k = 1; k <= nscale; k++)
		floor_scale(sev, k);
	sc_teardown();
	return EX_OK;
}

/* ------------------------------------------------------------------ */
/* Parent: spawn workers, collect, print                               */
/* ------------------------------------------------------------------ */

struct rec {
	char id[16];
	int nev;
	int round;
	int kind; /* 0 result, 1 error, 2 not applicable */
	struct stats st;
	char msg[256];
};

enum { W_OURS, W_OURS_READ, W_STOCK, W_FLOOR, W_MAX };

struct worker {
	const char *name;   /* column name */
	const char *libdir; /* LD_LIBRARY_PATH to set, NULL: inherit */
	int no_rdpmc;       /* set LOPE_NO_RDPMC=1 (else unset it) */
	int floor;          /* the raw perf_event floor worker */
	int active;
	/* collected */
	int ran, exit_code, signo;
	char lib[PATH_MAX];
	char comp[64];
	char desc[256];
	char disabled[256];
	int fcr;
	char syscalls[160];
	char fatal[256];
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
};

static struct worker W[W_MAX];

static struct rec *find_rec(const struct worker *w, const char *id, int nev)
{
	int i;

	if (!w->active || !w->ran)
		return NULL;
	for (i = 0; i < w->nrec; i++)
		if (w->recs[i].nev == nev && strcmp(w->recs[i].id, id) == 0)
			return &w->recs[i];
	return NULL;
}

static void parse_line(struct worker *w, char *line)
{
	char *rest;
	struct rec *r;

	if (strncmp(line, "info ", 5) == 0) {
		rest = line + 5;
		if (strncmp(rest, "lib ", 4) == 0)
			scopy(w->lib, sizeof(w->lib), rest + 4);
		else if (strncmp(rest, "comp ", 5) == 0)
			scopy(w->comp, sizeof(w->comp), rest + 5);
		else if (strncmp(rest, "desc ", 5) == 0)
			scopy(w->desc, sizeof(w->desc), rest + 5);
		else if (strncmp(rest, "disabled ", 9) == 0)
			scopy(w->disabled, sizeof(w->disabled), rest + 9);
		else if (strncmp(rest, "fcr ", 4) == 0)
			w->fcr = atoi(rest + 4);
		else if (strncmp(rest, "syscalls ", 9) == 0)
			scopy(w->syscalls, sizeof(w->syscalls), rest + 9);
		else if (strncmp(rest, "events ", 7) == 0)
			scopy(w->events, sizeof(w->events), rest + 7);
		else if (strncmp(rest, "choice ", 7) == 0)
			scopy(w->choice, sizeof(w->choice), rest + 7);
		else if (strncmp(rest, "scale ", 6) == 0)
			scopy(w->scale, sizeof(w->scale), rest + 6);
		else if (strncmp(rest, "scale_why ", 10) == 0)
			scopy(w->scale_why, sizeof(w->scale_why), rest + 10);
		else if (strncmp(rest, "standin ", 8) == 0) {
			size_t l = strlen(w->standin);

			snprintf(w->standin + l, sizeof(w->standin) - l, "%s%s",
				 l ? "; " : "", rest + 8);
		}
		return;
	}
	if (strncmp(line, "fatal ", 6) == 0) {
		scopy(w->fatal, sizeof(w->fatal), line + 6);
		return;
	}
	if (strncmp(line, "usage ", 6) == 0) {
		scopy(w->usage, sizeof(w->usage), line + 6);
		return;
	}
	if (strncmp(line, "res ", 4) && strncmp(line, "err ", 4) &&
	    strncmp(line, "na ", 3))
		return;
	w->raw = realloc(w->raw, sizeof(*w->raw) * (size_t)(w->nraw + 1));
	if (!w->raw)
		die(EX_FAIL, "out of memory");
	r = &w->raw[w->nraw];
	memset(r, 0, sizeof(*r));
	r->round = w->round;
	if (line[0] == 'r') {
		char sys[32], flt[32];

		if (sscanf(line + 4,
			   "%15s %d %d %" SCNu64 " %" SCNu64 " %" SCNu64
			   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			   " %31s %31s",
			   r->id, &r->nev, &r->st.n, &r->st.med, &r->st.p10,
			   &r->st.p25, &r->st.p75, &r->st.p90, &r->st.min,
			   &r->st.max, sys, flt) != 12)
			return;
		r->st.sys = strcmp(sys, "-") ? atof(sys) : -1;
		r->st.flt = strcmp(flt, "-") ? atof(flt) : -1;
		r->kind = 0;
	} else {
		int off = 0;

		r->kind = line[0] == 'e' ? 1 : 2;
		rest = strchr(line, ' ') + 1;
		if (sscanf(rest, "%15s %d %n", r->id, &r->nev, &off) < 2)
			return;
		snprintf(r->msg, sizeof(r->msg), "%s", rest + off);
	}
	w->nraw++;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_dbl(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define CLAMP0(x) ((x) < 0 ? 0 : (uint64_t)((x) + 0.5))

/*
 * Combine the rounds of record @r (the first of its id and size in
 * w->raw) into @c: each statistic is the median over the rounds of that
 * round's value less that round's timer overhead (min and max: the
 * extreme over the rounds).  An error or n/a in any round wins.
 */
static void combine_one(const struct worker *w, int first, const double *timers,
			struct rec *c)
{
	enum { MED, P10, P25, P75, P90, SYS, FLT, NV };
	const struct rec *r = &w->raw[first];
	double v[NV][MAX_ROUNDS];
	uint64_t mn = UINT64_MAX, mx = 0;
	int j, q, k = 0, is_timer = !strcmp(r->id, "timer");
	long n = 0;

	*c = *r;
	if (r->kind)
		return;
	for (j = first; j < w->nraw && k < MAX_ROUNDS; j++) {
		const struct rec *x = &w->raw[j];
		double t;

		if (x->nev != r->nev || strcmp(x->id, r->id))
			continue;
		if (x->kind) {
			*c = *x;
			return;
		}
		t = is_timer || x->round >= MAX_ROUNDS ? 0 : timers[x->round];
		v[MED][k] = (double)x->st.med - t;
		v[P10][k] = (double)x->st.p10 - t;
		v[P25][k] = (double)x->st.p25 - t;
		v[P75][k] = (double)x->st.p75 - t;
		v[P90][k] = (double)x->st.p90 - t;
		v[SYS][k] = x->st.sys;
		v[FLT][k] = x->st.flt;
		mn = x->st.min < mn ? x->st.min : mn;
		mx = x->st.max > mx ? x->st.max : mx;
		n += x->st.n;
		k++;
	}
	if (!k)
		return;
	for (q = 0; q < NV; q++)
		v[q][0] = median_dbl(v[q], k);
	c->st.n = (int)(n > INT_MAX ? INT_MAX : n);
	c->st.med = CLAMP0(v[MED][0]);
	c->st.p10 = CLAMP0(v[P10][0]);
	c->st.p25 = CLAMP0(v[P25][0]);
	c->st.p75 = CLAMP0(v[P75][0]);
	c->st.p90 = CLAMP0(v[P90][0]);
	c->st.min = is_timer ? mn : CLAMP0((double)mn - w->timer);
	c->st.max = is_timer ? mx : CLAMP0((double)mx - w->timer);
	c->st.sys = v[SYS][0] < 0 ? -1 : v[SYS][0];
	c->st.flt = v[FLT][0] < 0 ? -1 : v[FLT][0];
}

/* Combine the rounds of every record of @w into w->recs. */
static void combine(struct worker *w)
{
	double timers[MAX_ROUNDS] = { 0 }, t[MAX_ROUNDS];
	int i, j, n = 0;

	for (i = 0; i < w->nraw; i++) {
		const struct rec *r = &w->raw[i];

		if (strcmp(r->id, "timer") || r->kind || r->round >= MAX_ROUNDS)
			continue;
		timers[r->round] = (double)r->st.med;
		t[n++] = (double)r->st.med;
	}
	w->timer = n ? median_dbl(t, n) : 0;
	w->recs = xcalloc((size_t)w->nraw + 1, sizeof(*w->recs));
	w->nrec = 0;
	for (i = 0; i < w->nraw; i++) {
		int dup = 0;

		for (j = 0; j < w->nrec && !dup; j++)
			dup = w->recs[j].nev == w->raw[i].nev &&
			      !strcmp(w->recs[j].id, w->raw[i].id);
		if (!dup)
			combine_one(w, i, timers, &w->recs[w->nrec++]);
	}
}

static int pin_target = -1;

/*
 * Run worker @w with the given event list and scaling list (NULL: the
 * worker chooses them).
 */
static void run_worker(struct worker *w, const char *events, const char *scale)
{
	int pfd[2];
	pid_t pid;
	char fdbuf[16], nbuf[32], cpubuf[16];
	char buf[8192], line[4096];
	size_t used = 0;
	ssize_t got;
	int status;

	if (pipe(pfd))
		die(EX_FAIL, "pipe: %s", strerror(errno));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		die(EX_FAIL, "fork: %s", strerror(errno));
	if (pid == 0) {
		const char *argv[16];
		int a = 0;

		close(pfd[0]);
		/* worker chatter (PAPI warnings ...) must not mix into stdout */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		if (w->libdir) {
			const char *old = getenv("LD_LIBRARY_PATH");
			char *v;

			if (asprintf(&v, "%s%s%s", w->libdir,
				     old && *old ? ":" : "",
				     old && *old ? old : "") < 0)
				_exit(EX_FAIL);
			setenv("LD_LIBRARY_PATH", v, 1);
		}
		if (w->no_rdpmc)
			setenv("LOPE_NO_RDPMC", "1", 1);
		else
			unsetenv("LOPE_NO_RDPMC");
		snprintf(fdbuf, sizeof(fdbuf), "%d", pfd[1]);
		snprintf(nbuf, sizeof(nbuf), "%ld", opt_n);
		snprintf(cpubuf, sizeof(cpubuf), "%d", pin_target);
		argv[a++] = PROG;
		argv[a++] = w->floor ? "--_floor" : "--_papi";
		argv[a++] = fdbuf;
		argv[a++] = nbuf;
		argv[a++] = cpubuf;
		argv[a++] = events ? events : "";
		argv[a++] = scale ? scale : "";
		argv[a] = NULL;
		execv("/proc/self/exe", (char *const *)argv);
		fprintf(stderr, PROG ": exec /proc/self/exe: %s\n",
			strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		char *nl;

		got = read(pfd[0], buf + used, sizeof(buf) - 1 - used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		used += (size_t)got;
		buf[used] = 0;
		while ((nl = memchr(buf, '\n', used)) != NULL) {
			size_t l = (size_t)(nl - buf);

			if (l >= sizeof(line))
				l = sizeof(line) - 1;
			memcpy(line, buf, l);
			line[l] = 0;
			parse_line(w, line);
			used -= (size_t)(nl - buf) + 1;
			memmove(buf, nl + 1, used);
		}
		if (used == sizeof(buf) - 1)
			used = 0; /* overlong line: drop */
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die(EX_FAIL, "waitpid: %s", strerror(errno));
	w->ran = 1;
	if (WIFEXITED(status))
		w->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status)) {
		w->signo = WTERMSIG(status);
		w->exit_code = EX_FAIL;
	}
}

/* ---- formatting ---- */

static int opt_verbose, opt_csv;
static long opt_rounds = 5;

static const struct call_def {
	const char *id;
	const char *label;
	const char *floor; /* floor id the call is compared with */
} calls[] = {
	{ "start", "PAPI_start", "f_enable" },
	{ "stop", "PAPI_stop", "f_disable" },
	{ "read", "PAPI_read", "f_read" },
	{ "accum", "PAPI_accum", "f_read" },
	{ "reset", "PAPI_reset", "f_reset" },
	{ "read_reset", "PAPI_read+reset", "f_read" },
};
#define NCALLS ((int)(sizeof(calls) / sizeof(calls[0])))

static const struct floor_def {
	const char *id;
	const char *label;
} floors[] = {
	{ "f_read", "read(group)" },     { "f_reset", "ioctl(RESET)" },
	{ "f_enable", "ioctl(ENABLE)" }, { "f_disable", "ioctl(DISABLE)" },
	{ "f_rdpmc", "rdpmc loop" },
};
#define NFLOORS ((int)(sizeof(floors) / sizeof(floors[0])))

static const char *floor_label(const char *id)
{
	int i;

	for (i = 0; i < NFLOORS; i++)
		if (strcmp(floors[i].id, id) == 0)
			return floors[i].label;
	return id;
}

/* Every other measurement's id: its CSV kind and its label. */
static const struct id_def {
	const char *id;
	const char *kind;
	const char *label;
} other_ids[] = {
	{ "s_read", "scale", "PAPI_read" },
	{ "s_accum", "scale", "PAPI_accum" },
	{ "s_reset", "scale", "PAPI_reset" },
	{ "s_f_read", "scale", "read(group)" },
	{ "s_f_reset", "scale", "ioctl(RESET)" },
	{ "c_start", "first", "PAPI_start (new set)" },
	{ "c_read1", "first", "PAPI_read #1 (cold)" },
	{ "c_read2", "first", "PAPI_read #2 (warm)" },
	{ "rep1", "repeat", "PAPI_read #1" },
	{ "rep2", "repeat", "PAPI_read #2" },
	{ "rep3", "repeat", "PAPI_read #3" },
	{ "rep4", "repeat", "PAPI_read #4" },
	{ "rep5", "repeat", "PAPI_read #5" },
	{ "rep6", "repeat", "PAPI_read #6" },
	{ "rep7", "repeat", "PAPI_read #7" },
	{ "rep8", "repeat", "PAPI_read #8" },
	{ "timer", "timer", "timer (raw)" },
};

/* The label and CSV kind of measurement @id (kind: measure or floor). */
static const char *id_label(const char *id, const char **kind)
{
	unsigned i;

	for (i = 0; i < sizeof(other_ids) / sizeof(other_ids[0]); i++)
		if (!strcmp(other_ids[i].id, id)) {
			*kind = other_ids[i].kind;
			return other_ids[i].label;
		}
	*kind = "measure";
	for (i = 0; i < NCALLS; i++)
		if (!strcmp(calls[i].id, id))
			return calls[i].label;
	*kind = "floor";
	return floor_label(id);
}

/* A combined value (timer overhead already taken off); < 0 if none. */
static double net(const struct worker *w, const struct rec *r, uint64_t v)
{
	(void)w;
	if (!r || r->kind != 0)
		return -1;
	return (double)v;
}

static double med_of(const struct worker *w, const char *id, int nev)
{
	const struct rec *r = find_rec(w, id, nev);

	return r ? net(w, r, r->st.med) : -1;
}

/* Did worker @w fail?  If so, say how in @why. */
static int worker_failed(const struct worker *w, char *why, size_t len)
{
	if (!w->ran)
		snprintf(why, len, "worker not run");
	else if (w->fatal[0])
		snprintf(why, len, "%s", w->fatal);
	else if (w->signo)
		snprintf(why, len, "worker killed by signal %d (%s)", w->signo,
			 strsignal(w->signo));
	else if (w->exit_code)
		snprintf(why, len, "worker exited with status %d%s",
			 w->exit_code,
			 w->exit_code == 127 ?
				 " (library or program not loadable?)" :
				 "");
	else
		return 0;
	return 1;
}

static int rdpmc_col_ok(void)
{
	char why[512];

	return W[W_OURS].active && W[W_OURS].fcr &&
	       !worker_failed(&W[W_OURS], why, sizeof(why));
}

/* The "ours" the ratios and goals use: rdpmc where possible, else read(). */
static const struct worker *ours_best(void)
{
	if (rdpmc_col_ok())
		return &W[W_OURS];
	return &W[W_OURS_READ];
}

static void cell(char *buf, size_t len, const struct worker *w, const char *id,
		 int nev)
{
	const struct rec *r = find_rec(w, id, nev);
	char why[512];

	if (!w->active)
		snprintf(buf, len, "-");
	else if (!r)
		snprintf(buf, len,
			 worker_failed(w, why, sizeof(why)) ? "failed" : "?");
	else if (r->kind == 1)
		snprintf(buf, len, "error");
	else if (r->kind == 2)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.0f", net(w, r, r->st.med));
}

static void ratio(char *buf, size_t len, double a, double b)
{
	if (a < 0 || b <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", a / b);
}

static void sysc(char *buf, size_t len, const struct worker *w, const char *id,
		 int nev)
{
	const struct rec *r = find_rec(w, id, nev);

	if (!r || r->kind || r->st.sys < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3g", r->st.sys);
}

static void print_worker_header(const char *tag, const struct worker *w)
{
	char why[512];

	if (!w->active)
		return;
	if (worker_failed(w, why, sizeof(why))) {
		printf("%-10s: FAILED: %s\n", tag, why);
		if (!w->lib[0])
			return;
	}
	printf("%-10s: %s\n", tag, w->lib[0] ? w->lib : "(library unknown)");
	if (w->libdir && w->lib[0]) {
		char want[PATH_MAX];
		size_t l;

		if (!realpath(w->libdir, want))
			scopy(want, sizeof(want), w->libdir);
		l = strlen(want);
		if (strncmp(w->lib, want, l) || w->lib[l] != '/')
			printf("%-10s  WARNING: asked for %s, the dynamic linker "
			       "loaded another library\n",
			       "", w->libdir);
	}
	printf("%-10s  component %s, fast_counter_read=%d%s%s%s%s\n", "",
	       w->comp[0] ? w->comp : "?", w->fcr, w->desc[0] ? " (" : "",
	       w->desc, w->desc[0] ? ")" : "",
	       w->disabled[0] ? " DISABLED" : "");
}

static void print_table(int nsizes, const int *sizes)
{
	const struct worker *ob = ours_best();
	const struct worker *fl = &W[W_FLOOR];
	int c, k;
	char a[32], b[32], s[32], f[32], r1[16], r2[16], sy[32];

	printf("\n%-16s %3s %10s %10s %10s %10s %-14s %10s %10s %s\n", "call",
	       "ev", "ours-rdpmc", "ours-read", "stock", "floor", "(floor is)",
	       "ours/stock", "ours/floor", "syscalls ours/stock");
	for (k = 0; k < nsizes; k++)
		for (c = 0; c < NCALLS; c++) {
			int n = sizes[k];
			double o = med_of(ob, calls[c].id, n);
			char sy2[16];

			if (rdpmc_col_ok())
				cell(a, sizeof(a), &W[W_OURS], calls[c].id, n);
			else
				snprintf(a, sizeof(a), "n/a");
			cell(b, sizeof(b), &W[W_OURS_READ], calls[c].id, n);
			cell(s, sizeof(s), &W[W_STOCK], calls[c].id, n);
			cell(f, sizeof(f), fl, calls[c].floor, n);
			ratio(r1, sizeof(r1), o,
			      W[W_STOCK].active ?
				      med_of(&W[W_STOCK], calls[c].id, n) :
				      -1);
			ratio(r2, sizeof(r2), o, med_of(fl, calls[c].floor, n));
			sysc(sy, sizeof(sy), ob, calls[c].id, n);
			sysc(sy2, sizeof(sy2), &W[W_STOCK], calls[c].id, n);
			if (strcmp(sy, "-") || strcmp(sy2, "-")) {
				size_t l = strlen(sy);

				snprintf(sy + l, sizeof(sy) - l, " / %s", sy2);
			} else {
				sy[0] = 0;
			}
			printf("%-16s %3d %10s %10s %10s %10s %-14s %10s %10s %s\n",
			       calls[c].label, n, a, b, s, f,
			       floor_label(calls[c].floor), r1, r2, sy);
		}

	printf("\nraw floor (perf_event_open, same events as one group, "
	       "PERF_FORMAT_GROUP|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING):\n");
	for (k = 0; k < nsizes; k++)
		for (c = 0; c < NFLOORS; c++) {
			const struct rec *r =
				find_rec(fl, floors[c].id, sizes[k]);

			printf("  %-16s %3d  ", floors[c].label, sizes[k]);
			if (!r)
				printf("?\n");
			else if (r->kind == 0)
				printf("%10.0f\n", net(fl, r, r->st.med));
			else if (r->kind == 1)
				printf("error: %s\n", r->msg);
			else
				printf("n/a (no user-space counter access: %s)\n",
				       r->msg);
		}
}

static void print_dist(void)
{
	static const int order[] = { W_OURS, W_OURS_READ, W_STOCK, W_FLOOR };
	unsigned o;
	int i;

	printf("\ndistribution (" TIMER_UNIT ", timer overhead subtracted; "
	       "faults: minor page faults per call):\n");
	printf("%-10s %-7s %-20s %3s %6s %7s %7s %7s %7s %7s %7s %8s %6s "
	       "%6s\n",
	       "path", "kind", "call", "ev", "n", "median", "p10", "p25", "p75",
	       "p90", "min", "max", "sysc", "faults");
	for (o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
		const struct worker *w = &W[order[o]];

		if (!w->active || !w->ran)
			continue;
		if (order[o] == W_OURS && !rdpmc_col_ok())
			continue;
		for (i = 0; i < w->nrec; i++) {
			const struct rec *r = &w->recs[i];
			const char *kind, *lab = id_label(r->id, &kind);
			char sy[16], fl[16] = "-";

			if (r->kind) {
				printf("%-10s %-7s %-20s %3d %s\n", w->name,
				       kind, lab, r->nev,
				       r->kind == 1 ? "error" : "n/a");
				continue;
			}
			sysc(sy, sizeof(sy), w, r->id, r->nev);
			if (r->st.flt >= 0)
				snprintf(fl, sizeof(fl), "%.2f", r->st.flt);
			printf("%-10s %-7s %-20s %3d %6d %7" PRIu64 " %7" PRIu64
			       " %7" PRIu64 " %7" PRIu64 " %7" PRIu64
			       " %7" PRIu64 " %8" PRIu64 " %6s %6s\n",
			       w->name, kind, lab, r->nev, r->st.n, r->st.med,
			       r->st.p10, r->st.p25, r->st.p75, r->st.p90,
			       r->st.min, r->st.max, sy, fl);
		}
	}
}

/* The PAPI columns of the extra tables: ours-rdpmc (if any), read, stock. */
static int papi_cols(const struct worker **cols)
{
	int n = 0;

	if (rdpmc_col_ok())
		cols[n++] = &W[W_OURS];
	cols[n++] = &W[W_OURS_READ];
	if (W[W_STOCK].active)
		cols[n++] = &W[W_STOCK];
	return n;
}

/* Scaling: median per call against the number of events. */
static void print_scale(int nscale)
{
	static const char *const ids[] = { "s_read", "s_accum", "s_reset" };
	static const char *const fids[] = { "s_f_read", "s_f_reset" };
	const struct worker *cols[3];
	int ncol = papi_cols(cols), k, c, j;
	char v[32];

	printf("\nscaling with the number of events (median " TIMER_UNIT
	       " per call; a set of the first k of: %s)\n",
	       W[W_OURS].scale[0] ? W[W_OURS].scale : "?");
	if (W[W_OURS].scale_why[0])
		printf("  (%s)\n", W[W_OURS].scale_why);
	printf("%3s", "ev");
	for (c = 0; c < 3; c++)
		for (j = 0; j < ncol; j++) {
			char h[40];

			snprintf(h, sizeof(h), "%s:%s", ids[c] + 2,
				 cols[j] == &W[W_OURS]      ? "rdpmc" :
				 cols[j] == &W[W_OURS_READ] ? "read()" :
							      "stock");
			printf(" %12s", h);
		}
	printf(" %12s %12s", "floor:read", "floor:reset");
	if (W[W_STOCK].active)
		printf(" %12s", "read:o/s");
	printf("\n");
	for (k = 1; k <= nscale; k++) {
		printf("%3d", k);
		for (c = 0; c < 3; c++)
			for (j = 0; j < ncol; j++) {
				cell(v, sizeof(v), cols[j], ids[c], k);
				printf(" %12s", v);
			}
		for (c = 0; c < 2; c++) {
			cell(v, sizeof(v), &W[W_FLOOR], fids[c], k);
			printf(" %12s", v);
		}
		if (W[W_STOCK].active) {
			ratio(v, sizeof(v), med_of(ours_best(), "s_read", k),
			      med_of(&W[W_STOCK], "s_read", k));
			printf(" %12s", v);
		}
		printf("\n");
	}
}

/* Faults per call of @id in @w as text. */
static void faultc(char *buf, size_t len, const struct worker *w,
		   const char *id, int nev)
{
	const struct rec *r = find_rec(w, id, nev);

	if (!r || r->kind || r->st.flt < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", r->st.flt);
}

/* The first read after a start on a new set, and repeated reads. */
static void print_first(int nev)
{
	static const char *const ids[] = { "c_start", "c_read1", "c_read2" };
	const struct worker *cols[3];
	int ncol = papi_cols(cols), i, j;
	char v[32];

	printf("\nfirst read after PAPI_start on a new event set of %d event%s "
	       "(%d sets per round;\nminor page faults per set from getrusage "
	       "around each call; median " TIMER_UNIT "):\n",
	       nev, nev == 1 ? "" : "s", COLD_N);
	printf("%-28s", "");
	for (j = 0; j < ncol; j++)
		printf(" %10s", cols[j]->name);
	printf("\n");
	for (i = 0; i < 3; i++) {
		const char *kind;

		printf("%-28s", id_label(ids[i], &kind));
		for (j = 0; j < ncol; j++) {
			cell(v, sizeof(v), cols[j], ids[i], nev);
			printf(" %10s", v);
		}
		printf("\n");
	}
	printf("%-28s", "cold/warm");
	for (j = 0; j < ncol; j++) {
		ratio(v, sizeof(v), med_of(cols[j], "c_read1", nev),
		      med_of(cols[j], "c_read2", nev));
		printf(" %10s", v);
	}
	printf("\n");
	printf("%-28s", "faults: start + read #1");
	for (j = 0; j < ncol; j++) {
		const struct rec *a = find_rec(cols[j], "c_start", nev);
		const struct rec *b = find_rec(cols[j], "c_read1", nev);

		if (a && b && !a->kind && !b->kind && a->st.flt >= 0 &&
		    b->st.flt >= 0)
			snprintf(v, sizeof(v), "%.2f", a->st.flt + b->st.flt);
		else
			snprintf(v, sizeof(v), "-");
		printf(" %10s", v);
	}
	printf("\n%-28s", "faults: read #2");
	for (j = 0; j < ncol; j++) {
		faultc(v, sizeof(v), cols[j], "c_read2", nev);
		printf(" %10s", v);
	}
	printf("\n");

	printf("\nrepeated reads: the k-th PAPI_read after PAPI_start, %d "
	       "event%s (median " TIMER_UNIT "):\n%-28s",
	       nev, nev == 1 ? "" : "s", "k");
	for (j = 0; j < ncol; j++)
		printf(" %10s", cols[j]->name);
	printf("\n");
	for (i = 1; i <= NREPEAT; i++) {
		char id[16];

		snprintf(id, sizeof(id), "rep%d", i);
		printf("%-28d", i);
		for (j = 0; j < ncol; j++) {
			cell(v, sizeof(v), cols[j], id, nev);
			printf(" %10s", v);
		}
		printf("\n");
	}
}

/* ---- goals ---- */

struct goal_out {
	int evaluated; /* 0: could not be evaluated */
	int met;
	char text[512];
};

/* One part of a goal: "@what @value <= @limit" (or "> @limit"). */
static void goal_add(struct goal_out *g, double value, double limit,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void goal_add(struct goal_out *g, double value, double limit,
		     const char *fmt, ...)
{
	size_t l = strlen(g->text);
	int met = value <= limit;
	va_list ap;

	if (l)
		snprintf(g->text + l, sizeof(g->text) - l, "; ");
	l = strlen(g->text);
	va_start(ap, fmt);
	vsnprintf(g->text + l, sizeof(g->text) - l, fmt, ap);
	va_end(ap);
	l = strlen(g->text);
	snprintf(g->text + l, sizeof(g->text) - l, " %.3f %s %g", value,
		 met ? "<=" : ">", limit);
	if (!g->evaluated) {
		g->evaluated = 1;
		g->met = 1;
	}
	if (!met)
		g->met = 0;
}

#define NGOALS 4
static const char *const goal_names[NGOALS] = {
	"PAPI_read: ours/stock <= 1.05 and ours/read(group) <= 1.1",
	"PAPI_reset <= 1.2 x one system call (ioctl(RESET) floor)",
	"PAPI_accum <= 0.7 x stock with 3 events",
	"PAPI_start ~ one syscall (<= 1.5 x ioctl(ENABLE), 1 if counted)",
};
static const char *const goal_ids[NGOALS] = {
	"goal_read",
	"goal_reset",
	"goal_accum",
	"goal_start",
};

static void eval_goals(int nsizes, const int *sizes, struct goal_out *g)
{
	const struct worker *ob = ours_best();
	const struct worker *st = &W[W_STOCK];
	const struct worker *fl = &W[W_FLOOR];
	int k, acc_set = -1;

	memset(g, 0, sizeof(*g) * NGOALS);
	for (k = 0; k < nsizes; k++) {
		int n = sizes[k];
		double o, s, f;

		/* read */
		o = med_of(ob, "read", n);
		s = st->active ? med_of(st, "read", n) : -1;
		f = med_of(fl, "f_read", n);
		if (o >= 0 && s > 0)
			goal_add(&g[0], o / s, 1.05, "%d ev: ours/stock", n);
		if (o >= 0 && f > 0)
			goal_add(&g[0], o / f, 1.1, "%d ev: ours/floor", n);
		/* reset */
		o = med_of(ob, "reset", n);
		f = med_of(fl, "f_reset", n);
		if (o >= 0 && f > 0)
			goal_add(&g[1], o / f, 1.2, "%d ev: ours/ioctl", n);
		/* start */
		o = med_of(ob, "start", n);
		f = med_of(fl, "f_enable", n);
		if (o >= 0 && f > 0) {
			const struct rec *r = find_rec(ob, "start", n);

			goal_add(&g[3], o / f, 1.5, "%d ev: ours/ioctl", n);
			/* counted exactly: it must be one system call */
			if (r && r->st.sys >= 0)
				goal_add(&g[3], r->st.sys, 1.0,
					 "%d ev: syscalls", n);
		}
		if (n == 3 || (acc_set < 0 && k == nsizes - 1))
			acc_set = n;
	}
	if (acc_set > 0) {
		double o = med_of(ob, "accum", acc_set);
		double s = st->active ? med_of(st, "accum", acc_set) : -1;

		if (o >= 0 && s > 0)
			goal_add(&g[2], o / s, 0.7, "%d ev: ours/stock",
				 acc_set);
	}
}

static void print_goals(int nsizes, const int *sizes)
{
	struct goal_out g[NGOALS];
	int i;

	eval_goals(nsizes, sizes, g);
	printf("\ngoals (from this run's medians, ours = %s%s):\n",
	       rdpmc_col_ok() ? "ours-rdpmc" : "ours-read",
	       med_of(&W[W_STOCK], "read", sizes[0]) < 0 ?
		       "; no stock measurement, ours/stock not evaluated" :
		       "");
	for (i = 0; i < NGOALS; i++)
		printf("  %-64s %-8s %s\n", goal_names[i],
		       !g[i].evaluated ? "n/a" :
		       g[i].met        ? "met" :
					 "NOT met",
		       !g[i].evaluated ? "(not measured in this run)" :
					 g[i].text);
}

/* ---- CSV ---- */

static void csv_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

#define CSV_HEADER                                                         \
	"kind,path,call,id,events,n,median,p10,p25,p75,p90,min,max,timer," \
	"syscalls,faults,detail"

/* One CSV line of record @r of worker @w (every line: 17 fields). */
static void csv_rec(const struct worker *w, const struct rec *r)
{
	const char *kind, *lab = id_label(r->id, &kind);

	printf("%s,%s,", kind, w->name);
	csv_str(lab);
	printf(",%s,%d,", r->id, r->nev);
	if (r->kind) {
		printf(",,,,,,,,%.0f,,,", w->timer);
		csv_str(r->kind == 1 ? r->msg : "n/a");
		putchar('\n');
		return;
	}
	printf("%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
	       ",%" PRIu64 ",%" PRIu64 ",%.0f,",
	       r->st.n, r->st.med, r->st.p10, r->st.p25, r->st.p75, r->st.p90,
	       r->st.min, r->st.max, w->timer);
	if (r->st.sys >= 0)
		printf("%.3f", r->st.sys);
	putchar(',');
	if (r->st.flt >= 0)
		printf("%.3f", r->st.flt);
	putchar(',');
	csv_str(w->lib);
	putchar('\n');
}

static void print_csv(int nsizes, const int *sizes)
{
	static const int order[] = { W_OURS, W_OURS_READ, W_STOCK, W_FLOOR };
	struct goal_out g[NGOALS];
	char d[700];
	unsigned o;
	int i;

	printf(CSV_HEADER "\n");
	for (o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
		const struct worker *w = &W[order[o]];

		if (!w->active || !w->ran)
			continue;
		if (order[o] == W_OURS && !rdpmc_col_ok())
			continue;
		for (i = 0; i < w->nrec; i++)
			csv_rec(w, &w->recs[i]);
	}
	eval_goals(nsizes, sizes, g);
	for (i = 0; i < NGOALS; i++) {
		printf("goal,%s,%s,%s,,,,,,,,,,,,,",
		       rdpmc_col_ok() ? "ours-rdpmc" : "ours-read", goal_ids[i],
		       goal_ids[i]);
		snprintf(d, sizeof(d), "%s: %s",
			 !g[i].evaluated ? "n/a" :
			 g[i].met        ? "met" :
					   "NOT met",
			 g[i].text);
		csv_str(d);
		putchar('\n');
	}
}

/* ---- plot ---- */

#define PG_MAX 16 /* groups on the x axis of a panel */
#define PS_MAX 4  /* series (boxes) per group */

/* One panel of boxplots: r[group][series], NULL or not a result: n/a. */
struct panel {
	const char *title;
	int ng, ns;
	char glab[PG_MAX][24];
	const char *stitle[PS_MAX];
	const struct rec *r[PG_MAX][PS_MAX];
};

static const char *const plot_colors[PS_MAX] = {
	"#1b9e77",
	"#3b6fb6",
	"#d95f02",
	"#555555",
};

static int panel_has(const struct panel *p, int g, int s)
{
	return p->r[g][s] && p->r[g][s]->kind == 0;
}

/*
 * Write one panel to gnuplot: each series a colour and a datablock, boxes
 * p25..p75, whiskers p10..p90, a line at the median (the seeds' figures,
 * from the combined statistics rather than the raw samples).  A series
 * without any result takes no room and is named n/a in the title.
 */
static void plot_panel(FILE *g, const struct panel *p, int id)
{
	int gi, si, k, nact = 0, act[PS_MAX];
	char na[128] = "";
	double w;

	for (si = 0; si < p->ns; si++) {
		int any = 0;

		for (gi = 0; gi < p->ng; gi++)
			any = any || panel_has(p, gi, si);
		if (any)
			act[nact++] = si;
		else
			snprintf(na + strlen(na), sizeof(na) - strlen(na),
				 "%s%s",
				 na[0] ? ", " : " (n/a: ", p->stitle[si]);
	}
	w = 0.8 / (nact ? nact : 1);
	fprintf(g, "unset label\nset title \"%s%s%s\"\n", p->title, na,
		na[0] ? ")" : "");
	fprintf(g, "set xrange [0.5:%d.5]\nset boxwidth %.3f\nset xtics (",
		p->ng, w * 0.8);
	for (gi = 0; gi < p->ng; gi++)
		fprintf(g, "%s\"%s\" %d", gi ? ", " : "", p->glab[gi], gi + 1);
	fprintf(g, ")\n");
	for (k = 0; k < nact; k++) {
		si = act[k];
		fprintf(g, "$P%d_%d << EOD\n", id, k);
		for (gi = 0; gi < p->ng; gi++) {
			double x = gi + 1 + (k - (nact - 1) / 2.0) * w;
			const struct rec *r = p->r[gi][si];

			if (!panel_has(p, gi, si)) {
				fprintf(g, "# n/a at %.3f\n", x);
				continue;
			}
			fprintf(g,
				"%.3f %" PRIu64 " %" PRIu64 " %" PRIu64
				" %" PRIu64 " %" PRIu64 "\n",
				x, r->st.p25, r->st.p10, r->st.p90, r->st.p75,
				r->st.med);
		}
		fprintf(g, "EOD\n");
		for (gi = 0; gi < p->ng; gi++)
			if (!panel_has(p, gi, si))
				fprintf(g,
					"set label \"n/a\" at %.3f, graph 0.04 "
					"center font \",7\"\n",
					gi + 1 + (k - (nact - 1) / 2.0) * w);
	}
	fprintf(g, "plot ");
	for (k = 0; k < nact; k++)
		fprintf(g,
			"%s$P%d_%d using 1:2:3:4:5 with candlesticks "
			"whiskerbars lc rgb \"%s\" fs solid 0.35 title \"%s\", "
			"$P%d_%d using 1:6:6:6:6 with candlesticks "
			"lc rgb \"%s\" lw 2 notitle",
			k ? ", " : "", id, k, plot_colors[act[k]],
			p->stitle[act[k]], id, k, plot_colors[act[k]]);
	fprintf(g, "%s\n", nact ? "" : "NaN notitle");
}

/* The columns as series: ours-rdpmc, ours-read, stock, floor. */
static const int plot_workers[PS_MAX] = { W_OURS, W_OURS_READ, W_STOCK,
					  W_FLOOR };

static const struct rec *plot_rec(int wi, const char *id, int nev)
{
	if (wi == W_OURS && !rdpmc_col_ok())
		return NULL;
	return find_rec(&W[wi], id, nev);
}

/* One panel per call: the four columns, sets of 1 and of all events. */
static void plot_calls(FILE *g, int nsizes, const int *sizes, int *id)
{
	int c, k, j;

	for (c = 0; c < NCALLS; c++) {
		struct panel p;

		memset(&p, 0, sizeof(p));
		p.title = calls[c].label;
		p.ng = PS_MAX;
		p.ns = nsizes;
		for (k = 0; k < nsizes; k++)
			p.stitle[k] = sizes[k] == 1 ? "1 event" :
				      sizes[k] == 2 ? "2 events" :
				      sizes[k] == 3 ? "3 events" :
						      "all events";
		for (j = 0; j < PS_MAX; j++) {
			int wi = plot_workers[j];

			snprintf(p.glab[j], sizeof(p.glab[j]), "%s",
				 wi == W_FLOOR ? floor_label(calls[c].floor) :
						 W[wi].name);
			for (k = 0; k < nsizes; k++)
				p.r[j][k] = plot_rec(wi,
						     wi == W_FLOOR ?
							     calls[c].floor :
							     calls[c].id,
						     sizes[k]);
		}
		plot_panel(g, &p, (*id)++);
	}
}

/* Scaling of PAPI_read, the cold/warm read, the repeated reads. */
static void plot_extra(FILE *g, int nev, int nscale, int *id)
{
	static const char *const first_ids[] = { "c_start", "c_read1",
						 "c_read2" };
	static const char *const first_lab[] = { "start (new set)",
						 "read #1 (cold)",
						 "read #2 (warm)" };
	struct panel p;
	int gi, j;

	memset(&p, 0, sizeof(p));
	p.title = "PAPI_read against the number of events";
	p.ng = nscale < PG_MAX ? nscale : PG_MAX;
	p.ns = PS_MAX;
	for (j = 0; j < PS_MAX; j++)
		p.stitle[j] = W[plot_workers[j]].name;
	for (gi = 0; gi < p.ng; gi++) {
		snprintf(p.glab[gi], sizeof(p.glab[gi]), "%d", gi + 1);
		for (j = 0; j < PS_MAX; j++)
			p.r[gi][j] = plot_rec(plot_workers[j],
					      plot_workers[j] == W_FLOOR ?
						      "s_f_read" :
						      "s_read",
					      gi + 1);
	}
	plot_panel(g, &p, (*id)++);

	memset(&p, 0, sizeof(p));
	p.title = "first read after PAPI_start on a new set";
	p.ng = 3;
	p.ns = PS_MAX - 1;
	for (j = 0; j < p.ns; j++)
		p.stitle[j] = W[plot_workers[j]].name;
	for (gi = 0; gi < p.ng; gi++) {
		snprintf(p.glab[gi], sizeof(p.glab[gi]), "%s", first_lab[gi]);
		for (j = 0; j < p.ns; j++)
			p.r[gi][j] =
				plot_rec(plot_workers[j], first_ids[gi], nev);
	}
	plot_panel(g, &p, (*id)++);

	memset(&p, 0, sizeof(p));
	p.title = "repeated reads: the k-th PAPI_read after PAPI_start";
	p.ng = NREPEAT;
	p.ns = PS_MAX - 1;
	for (j = 0; j < p.ns; j++)
		p.stitle[j] = W[plot_workers[j]].name;
	for (gi = 0; gi < p.ng; gi++) {
		char rid[16];

		snprintf(p.glab[gi], sizeof(p.glab[gi]), "%d", gi + 1);
		snprintf(rid, sizeof(rid), "rep%d", gi + 1);
		for (j = 0; j < p.ns; j++)
			p.r[gi][j] = plot_rec(plot_workers[j], rid, nev);
	}
	plot_panel(g, &p, (*id)++);
}

/* Run gnuplot once with @term; its exit status. */
static int plot_run(const char *path, const char *term, const char *head,
		    int nsizes, const int *sizes, int nev, int nscale)
{
	FILE *g;
	int id = 0, st;

	fflush(stdout);
	fflush(stderr);
	g = popen("gnuplot", "w");
	if (!g)
		return -1;
	fprintf(g, "set terminal %s noenhanced size 1500,1150 font \",9\"\n",
		term);
	fprintf(g, "set output \"%s\"\n", path);
	fprintf(g,
		"set multiplot layout 3,3 title \"%s\\nbox: p25-p75, "
		"whiskers: p10-p90, line: median; timer overhead "
		"subtracted\" font \",10\"\n",
		head);
	fprintf(g, "set yrange [0:*]\nset offsets 0, 0, graph 0.25, 0\n"
		   "set ylabel \"" TIMER_UNIT "\"\nset grid ytics\n"
		   "set key top left font \",8\"\nset xtics font \",8\"\n");
	plot_calls(g, nsizes, sizes, &id);
	plot_extra(g, nev, nscale, &id);
	fprintf(g, "unset multiplot\nset output\n");
	st = pclose(g);
	return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * Draw the boxplots into @path with gnuplot (pngcairo, else png).
 * 0, or -1 with the reason printed.
 */
static int plot(const char *path, int nsizes, const int *sizes, int nev,
		int nscale, const char *model)
{
	char head[512];
	struct stat sb;
	size_t i;
	int st;

	/* plot_check() refused paths with a quote or a backslash */
	snprintf(head, sizeof(head), PROG ": cost of one call, %s", model);
	for (i = 0; head[i]; i++)
		if (head[i] == '"' || head[i] == '\\')
			head[i] = ' ';
	st = plot_run(path, "pngcairo", head, nsizes, sizes, nev, nscale);
	if (st != 0 && st != 127)
		st = plot_run(path, "png", head, nsizes, sizes, nev, nscale);
	if (st == 127) {
		fprintf(stderr, PROG ": --plot: gnuplot not found (Debian: "
				     "apt-get install gnuplot-nox)\n");
		return -1;
	}
	if (st != 0 || stat(path, &sb) || sb.st_size == 0) {
		fprintf(stderr,
			PROG ": --plot %s: gnuplot failed (status %d)\n", path,
			st);
		return -1;
	}
	return 0;
}

/* ---- machine ---- */

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown CPU");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (!c)
			continue;
		if (strncmp(line, "model name", 10) == 0 ||
		    strncmp(line, "Processor", 9) == 0 ||
		    strncmp(line, "cpu model", 9) == 0) {
			c++;
			while (*c == ' ' || *c == '\t')
				c++;
			oneline(buf, len, c);
			break;
		}
	}
	fclose(f);
}

/* Fail early (exit 2) if the plot cannot be written at @path. */
static void plot_check(const char *path)
{
	int created = 1, fd;
	struct stat sb;

	if (strpbrk(path, "\"\\"))
		die(EX_USAGE,
		    "--plot %s: a path with \" or \\ is not supported", path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST) {
		created = 0;
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	}
	if (fd < 0)
		die(EX_USAGE, "--plot %s: cannot write there: %s", path,
		    strerror(errno));
	if (fstat(fd, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		close(fd);
		die(EX_USAGE, "--plot %s: not a regular file", path);
	}
	close(fd);
	if (created)
		unlink(path);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [-n N] [-r R] [-e EV1,EV2,...] [-v] [--csv] "
		"[--plot FILE.png]\n"
		"                     [--ours LIBDIR] [--compare LIBDIR | "
		"--no-compare]\n"
		"Per-call cost of PAPI_start/stop/read/accum/reset in " TIMER_UNIT
		", our\n"
		"libpapi (rdpmc and forced read()) against another libpapi and "
		"the raw\n"
		"perf_event floor.  See papi_overhead(1).\n"
		"  -n N             timed calls per case and round (default "
		"1000, after %d\n"
		"                   warm-up calls)\n"
		"  -r R             rounds, each worker once per round "
		"(default 5)\n"
		"  -e LIST          events (default: PAPI_TOT_INS,PAPI_TOT_CYC,"
		"PAPI_BR_INS\n"
		"                   if usable, else perf::TASK-CLOCK,"
		"perf::PAGE-FAULTS,\n"
		"                   perf::CONTEXT-SWITCHES); sets of 1 and of all "
		"events;\n"
		"                   scaling: these, then more of their kind, up "
		"to the\n"
		"                   counters available (software: %d)\n"
		"  -v               also print p10/p90/min/max\n"
		"  --csv            machine-readable output\n"
		"  --plot FILE.png  also draw boxplots with gnuplot\n"
		"  --ours LIBDIR    directory of our libpapi.so\n"
		"  --compare LIBDIR directory of the libpapi.so to compare with\n"
		"  --no-compare     measure ours only\n",
		WARMUP, SW_SCALE_MAX);
}

/*
 * The first of: $@env (which must hold libpapi.so*), $@env2 and the
 * compiled-in @builtin (each where it holds libpapi.so*).  NULL if none.
 */
static const char *pick_dir(const char *env, const char *env2,
			    const char *builtin, const char **src)
{
	const char *e = getenv(env);

	if (e && *e) {
		if (!dir_has_libpapi(e))
			die(EX_USAGE, "%s=%s: no libpapi.so* in that directory",
			    env, e);
		*src = env;
		return e;
	}
	e = getenv(env2);
	if (e && *e && dir_has_libpapi(e)) {
		*src = env2;
		return e;
	}
	if (builtin && *builtin && dir_has_libpapi(builtin)) {
		*src = "built-in default";
		return builtin;
	}
	return NULL;
}

/* A worker: argv = PROG --_papi|--_floor FD N CPU EVENTS SCALE. */
static int worker_main(char **argv)
{
	static char evbuf[1024], scbuf[1024];
	char *names[MAX_EVENTS], *scale[MAX_EVENTS];
	int nev = 0, nscale = 0;

	worker_fd = atoi(argv[2]);
	opt_n = atol(argv[3]);
	if (opt_n <= 0 || opt_n > MAX_N)
		return EX_USAGE;
	alarm(WORKER_TIMEOUT);
	pin_cpu(atoi(argv[4]));
	snprintf(evbuf, sizeof(evbuf), "%s", argv[5]);
	snprintf(scbuf, sizeof(scbuf), "%s", argv[6]);
	if (evbuf[0] && (nev = split_events(evbuf, names, MAX_EVENTS)) < 1) {
		emit("usage bad event list");
		return EX_USAGE;
	}
	if (scbuf[0] && (nscale = split_events(scbuf, scale, MAX_EVENTS)) < 1) {
		emit("usage bad scaling event list");
		return EX_USAGE;
	}
	if (argv[1][3] == 'f')
		return nev ? floor_worker(names, nev, scale, nscale) : EX_USAGE;
	return papi_worker(names, nev, scale, nscale);
}

int main(int argc, char **argv)
{
	const char *ours_dir = NULL, *stock_dir = NULL, *events_arg = NULL;
	const char *stock_src = NULL, *ours_src = "--ours", *scale_arg;
	const char *plot_path = NULL;
	int no_compare = 0, i, r, nev = 0, nsizes, sizes[MAX_SETS], nscale;
	char *names[MAX_EVENTS], *scale[MAX_EVENTS], evbuf[1024], scbuf[1024];
	char model[256], why[512];
	struct utsname un;
	int rc = EX_OK;

	/* worker modes: PROG --_papi|--_floor FD N CPU EVENTS SCALE */
	if (argc == 7 && (strcmp(argv[1], "--_papi") == 0 ||
			  strcmp(argv[1], "--_floor") == 0))
		return worker_main(argv);

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

#define NEED_ARG()                                                       \
	do {                                                             \
		if (i + 1 >= argc)                                       \
			die(EX_USAGE, "option %s needs an argument", a); \
	} while (0)
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return EX_OK;
		} else if (!strcmp(a, "-n")) {
			NEED_ARG();
			if (parse_count(argv[++i], &opt_n))
				die(EX_USAGE,
				    "-n: '%s' is not a count between 1 and %d",
				    argv[i], MAX_N);
		} else if (!strncmp(a, "-n", 2) && a[2]) {
			if (parse_count(a + 2, &opt_n))
				die(EX_USAGE,
				    "-n: '%s' is not a count between 1 and %d",
				    a + 2, MAX_N);
		} else if (!strcmp(a, "-r")) {
			NEED_ARG();
			if (parse_count(argv[++i], &opt_rounds) ||
			    opt_rounds > MAX_ROUNDS)
				die(EX_USAGE,
				    "-r: '%s' is not a count between 1 and %d",
				    argv[i], MAX_ROUNDS);
		} else if (!strcmp(a, "-e")) {
			NEED_ARG();
			events_arg = argv[++i];
		} else if (!strcmp(a, "-v")) {
			opt_verbose = 1;
		} else if (!strcmp(a, "--csv")) {
			opt_csv = 1;
		} else if (!strcmp(a, "--plot")) {
			NEED_ARG();
			plot_path = argv[++i];
		} else if (!strcmp(a, "--ours")) {
			NEED_ARG();
			ours_dir = argv[++i];
			if (!dir_has_libpapi(ours_dir))
				die(EX_USAGE,
				    "--ours %s: no libpapi.so* in "
				    "that directory",
				    ours_dir);
		} else if (!strcmp(a, "--compare")) {
			NEED_ARG();
			stock_dir = argv[++i];
			stock_src = "--compare";
			no_compare = 0;
			if (!dir_has_libpapi(stock_dir))
				die(EX_USAGE,
				    "--compare %s: no libpapi.so* in "
				    "that directory",
				    stock_dir);
		} else if (!strcmp(a, "--no-compare")) {
			no_compare = 1;
			stock_dir = NULL;
		} else {
			usage(stderr);
			die(EX_USAGE, "unknown option '%s'", a);
		}
	}
	if (plot_path)
		plot_check(plot_path);
	if (events_arg) {
		snprintf(evbuf, sizeof(evbuf), "%s", events_arg);
		if (strlen(events_arg) >= sizeof(evbuf) ||
		    (nev = split_events(evbuf, names, MAX_EVENTS)) < 1)
			die(EX_USAGE,
			    "-e '%s': give 1 to %d comma-separated "
			    "event names",
			    events_arg, MAX_EVENTS);
	}

	/* where ours and stock live */
	if (!ours_dir)
		ours_dir = pick_dir("LOPE_OURS_LIBDIR", "PAPI_OURS_BUILDDIR",
#ifdef LOPE_OURS_LIBDIR
				    LOPE_OURS_LIBDIR,
#else
				    NULL,
#endif
				    &ours_src);
	if (!stock_dir && !no_compare)
		stock_dir = pick_dir("LOPE_STOCK_LIBDIR", "PAPI_STOCK_BUILDDIR",
#ifdef LOPE_STOCK_LIBDIR
				     LOPE_STOCK_LIBDIR,
#else
				     NULL,
#endif
				     &stock_src);

	pin_target = sched_getcpu();
	signal(SIGPIPE, SIG_IGN);

	W[W_OURS] = (struct worker){ .name = "ours-rdpmc",
				     .libdir = ours_dir,
				     .active = 1 };
	W[W_OURS_READ] = (struct worker){ .name = "ours-read",
					  .libdir = ours_dir,
					  .no_rdpmc = 1,
					  .active = 1 };
	W[W_STOCK] = (struct worker){ .name = "stock",
				      .libdir = stock_dir,
				      .active = stock_dir != NULL };
	W[W_FLOOR] =
		(struct worker){ .name = "floor", .floor = 1, .active = 1 };

	/* ours first: it chooses the events for everybody */
	run_worker(&W[W_OURS], events_arg, NULL);
	if (W[W_OURS].usage[0])
		die(EX_USAGE, "%s", W[W_OURS].usage);
	if (W[W_OURS].exit_code == EX_USAGE)
		die(EX_USAGE, "bad input (see above)");
	if (!events_arg) {
		if (!W[W_OURS].events[0])
			die(EX_FAIL, "the worker for our libpapi failed%s%s%s",
			    W[W_OURS].fatal[0] ? ": " : "", W[W_OURS].fatal,
			    W[W_OURS].signo ? " (killed by a signal)" : "");
		snprintf(evbuf, sizeof(evbuf), "%s", W[W_OURS].events);
		events_arg = W[W_OURS].events;
		nev = split_events(evbuf, names, MAX_EVENTS);
	}
	scale_arg = W[W_OURS].scale[0] ? W[W_OURS].scale : events_arg;
	/* the rounds interleave the workers, each round in another order */
	for (r = 0; r < opt_rounds; r++) {
		int j;

		for (j = 0; j < W_MAX; j++) {
			struct worker *w = &W[(j + r) % W_MAX];

			if (!w->active || (r == 0 && w == &W[W_OURS]))
				continue;
			if (r > 0 && (w->fatal[0] || w->usage[0] || w->signo ||
				      w->exit_code))
				continue; /* failed once: do not insist */
			w->round = r;
			run_worker(w, events_arg, scale_arg);
		}
	}
	for (i = 0; i < W_MAX; i++) {
		if (W[i].usage[0] && !W[i].fatal[0])
			scopy(W[i].fatal, sizeof(W[i].fatal), W[i].usage);
		combine(&W[i]);
	}

	nsizes = set_sizes(nev, sizes);
	snprintf(scbuf, sizeof(scbuf), "%s", scale_arg);
	nscale = split_events(scbuf, scale, MAX_EVENTS);
	if (nscale < 1)
		nscale = 0;
	for (i = 0; i < W_MAX; i++)
		if (W[i].active &&
		    (W[i].exit_code || W[i].fatal[0] || !W[i].ran))
			rc = EX_FAIL;

	cpu_model(model, sizeof(model));
	if (uname(&un))
		memset(&un, 0, sizeof(un));
	if (opt_csv) {
		print_csv(nsizes, sizes);
		goto out;
	}

	printf(PROG
	       ": cost of one call in " TIMER_UNIT ": median over %ld "
	       "rounds of the median of %ld calls\n(after %d warm-up calls), "
	       "less the timer overhead (" TIMER_NAME " pair)\n",
	       opt_rounds, opt_n, WARMUP);
	printf("%-10s: %s, %s %s, %ld CPUs online, workers pinned to cpu %d\n",
	       "machine", model, un.sysname, un.release,
	       sysconf(_SC_NPROCESSORS_ONLN), pin_target);
	printf("%-10s: %s\n", "events", events_arg);
	if (W[W_OURS].choice[0])
		printf("%-10s  (%s)\n", "", W[W_OURS].choice);
	print_worker_header("ours", &W[W_OURS]);
	printf("%-10s  (%s%s)\n", "", ours_dir ? "directory from " : "",
	       ours_dir ? ours_src :
			  "no --ours, LOPE_OURS_LIBDIR, PAPI_OURS_BUILDDIR or "
			  "built-in build found: the dynamic linker's choice");
	if (!rdpmc_col_ok())
		printf("%-10s  ours-rdpmc: n/a (%s)\n", "",
		       worker_failed(&W[W_OURS], why, sizeof(why)) ?
			       "worker failed" :
			       "the component reports fast_counter_read=0");
	print_worker_header("ours-read", &W[W_OURS_READ]);
	if (W[W_OURS_READ].lib[0] && strcmp(W[W_OURS_READ].lib, W[W_OURS].lib))
		printf("%-10s  WARNING: not the same library as ours\n", "");
	if (W[W_STOCK].active) {
		print_worker_header("stock", &W[W_STOCK]);
		printf("%-10s  (directory from %s)\n", "", stock_src);
	} else {
		printf("%-10s: not measured (%s)\n", "stock",
		       no_compare ? "--no-compare" :
				    "no --compare, LOPE_STOCK_LIBDIR, "
				    "PAPI_STOCK_BUILDDIR or built-in stock "
				    "build found");
	}
	if (W[W_FLOOR].standin[0])
		printf("%-10s: stand-ins for the raw floor: %s\n", "floor",
		       W[W_FLOOR].standin);
	printf("%-10s:", "timer");
	for (i = 0, r = 0; i < W_MAX; i++)
		if (W[i].active && W[i].timer > 0)
			printf("%s %s %.0f", r++ ? "," : "", W[i].name,
			       W[i].timer);
	printf(" " TIMER_UNIT " (" TIMER_NAME " pair, subtracted)\n");
	printf("%-10s: %s\n", "syscalls",
	       !strcmp(W[W_OURS_READ].syscalls, "ok") ?
		       "counted exactly with the raw_syscalls:sys_enter "
		       "tracepoint" :
	       W[W_OURS_READ].syscalls[0] ? W[W_OURS_READ].syscalls :
					    "not counted");

	print_table(nsizes, sizes);
	print_scale(nscale);
	print_first(nev);
	if (opt_verbose)
		print_dist();
	print_goals(nsizes, sizes);
	for (i = 0; i < W_MAX; i++) {
		int j;

		if (!W[i].active)
			continue;
		if (worker_failed(&W[i], why, sizeof(why)))
			fprintf(stderr, PROG ": %s: %s\n", W[i].name, why);
		for (j = 0; j < W[i].nrec; j++)
			if (W[i].recs[j].kind == 1)
				fprintf(stderr, PROG ": %s %s (%d ev): %s\n",
					W[i].name, W[i].recs[j].id,
					W[i].recs[j].nev, W[i].recs[j].msg);
	}
out:
	if (plot_path) {
		if (plot(plot_path, nsizes, sizes, nev, nscale, model))
			rc = EX_FAIL;
		else if (!opt_csv)
			printf("\nplot: %s\n", plot_path);
	}
	for (i = 0; i < W_MAX; i++) {
		free(W[i].recs);
		free(W[i].raw);
	}
	return rc;
}
