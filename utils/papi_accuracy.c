/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_accuracy: how many instructions a PAPI measurement gets wrong.
 *
 * After Zaparanuks, Jovic and Hauswirth, "Accuracy of performance counter
 * measurements": PAPI_TOT_INS is measured around two benchmarks whose
 * instruction count is known,
 *
 *   null   nothing between the two measurement calls (0 instructions),
 *   loop   inline assembly of exactly 1 + 3N instructions:
 *              mov N, %rcx; 1: dec %rcx; nop; jnz 1b
 *
 * with the four access patterns start-read, start-stop, read-read and
 * read-stop, in the user and the user+kernel domain, many times each.  The
 * error is the measured count minus the expected one; it is summarised per
 * pattern and path (median, p10, p90, min, max), and its growth per loop
 * iteration is the least-squares slope of the median error over N.
 *
 * Like papi_overhead, the parent re-executes itself (/proc/self/exe) as one
 * worker per path: ours-rdpmc (our libpapi, user-space reads allowed),
 * ours-read (LOPE_NO_RDPMC=1: the read() path) and stock (another libpapi),
 * and prints one report from the workers' lines.
 *
 * --check-loop counts the loop's instructions without any PMU: a child
 * runs the loop under ptrace(PTRACE_SINGLESTEP) and the parent counts the
 * steps inside it.
 *
 * Exit status: 0 done, 1 a measurement failed, 2 bad input, 77 no core PMU
 * (PAPI_TOT_INS cannot be counted here).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "papi.h"

#include "tool.h"

#define PROG "papi_accuracy"

const char *const tool_prog = PROG;
#define EX_OK 0
#define EX_FAIL 1
#define EX_USAGE 2
#define EX_SKIP 77

#define MAX_REPS 100000
#define MAX_LOOP_N 100000000L
#define MAX_NS 8
#define WARMUP 10
#define WORKER_TIMEOUT 300 /* seconds; a hung worker is killed */
#define DEFAULT_EVENT "PAPI_TOT_INS"

/* ------------------------------------------------------------------ */
/* The benchmarks                                                      */
/* ------------------------------------------------------------------ */

/*
 * The loop's iteration count lives in a global so that the asm reads it
 * with one instruction (a rip-relative mov): nothing else between the two
 * measurement calls depends on N.  N must be >= 1.
 */
static long loop_n = 1;

#if defined(__x86_64__)
#define HAVE_LOOP 1
/* 1 + 3N instructions: the mov, then N times dec, nop, jnz. */
#define LOOP_ASM            \
	"mov %[n], %%rcx\n" \
	"1:\n\t"            \
	"dec %%rcx\n\t"     \
	"nop\n\t"           \
	"jnz 1b\n"
#define BENCH_LOOP() \
	__asm__ __volatile__(LOOP_ASM ::[n] "m"(loop_n) : "rcx", "cc", "memory")
#else
#define HAVE_LOOP 0
#define BENCH_LOOP() __asm__ __volatile__("" ::: "memory")
#endif
#define BENCH_NULL() __asm__ __volatile__("" ::: "memory")

/* ------------------------------------------------------------------ */
/* Small helpers (the ones papi_overhead shares are in tool.c)         */
/* ------------------------------------------------------------------ */
/* "1000,10000" -> @ns; the count, or -1. */
static int parse_ns(const char *s, long *ns)
{
	char buf[256], *tok, *save = NULL;
	int n = 0;

	if (strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_NS || parse_long(tok, 1, MAX_LOOP_N, &ns[n]))
			return -1;
		n++;
	}
	return n >= 2 ? n : -1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------------ */
/* Worker: the four access patterns around each benchmark              */
/* ------------------------------------------------------------------ */

struct actx {
	int es;
	int rc[3];
	long long v0[1], v1[1], junk[1];
	long long count;
	char err[256];
};

static const char *opt_event = DEFAULT_EVENT;

/* 0 if the three calls of a pattern succeeded, else 1 with a->err set. */
static int acc_check(struct actx *a, const char *c0, const char *c1,
		     const char *c2)
{
	const char *names[3] = { c0, c1, c2 };
	int i;

	for (i = 0; i < 3; i++)
		if (names[i] && a->rc[i] != PAPI_OK) {
			snprintf(a->err, sizeof(a->err), "%s: %s", names[i],
				 PAPI_strerror(a->rc[i]));
			return 1;
		}
	return 0;
}

/*
 * The patterns, once per benchmark.  Only the benchmark lies between the
 * two measurement calls (and what the compiler needs to make the second
 * call: that is part of the error, as for any caller).  Not inlined, so
 * every pattern keeps one shape.
 */
#define ACC_PATTERNS(B, BENCH)                                               \
	static __attribute__((noinline)) int start_read_##B(struct actx *a)  \
	{                                                                    \
		a->rc[0] = PAPI_start(a->es);                                \
		BENCH;                                                       \
		a->rc[1] = PAPI_read(a->es, a->v1);                          \
		a->rc[2] = PAPI_stop(a->es, a->junk);                        \
		a->count = a->v1[0];                                         \
		return acc_check(a, "PAPI_start", "PAPI_read", "PAPI_stop"); \
	}                                                                    \
	static __attribute__((noinline)) int start_stop_##B(struct actx *a)  \
	{                                                                    \
		a->rc[0] = PAPI_start(a->es);                                \
		BENCH;                                                       \
		a->rc[1] = PAPI_stop(a->es, a->v1);                          \
		a->count = a->v1[0];                                         \
		return acc_check(a, "PAPI_start", "PAPI_stop", NULL);        \
	}                                                                    \
	static __attribute__((noinline)) int read_read_##B(struct actx *a)   \
	{                                                                    \
		a->rc[0] = PAPI_read(a->es, a->v0);                          \
		BENCH;                                                       \
		a->rc[1] = PAPI_read(a->es, a->v1);                          \
		a->count = a->v1[0] - a->v0[0];                              \
		return acc_check(a, "PAPI_read", "PAPI_read", NULL);         \
	}                                                                    \
	static __attribute__((noinline)) int read_stop_##B(struct actx *a)   \
	{                                                                    \
		a->rc[2] = PAPI_start(a->es);                                \
		if (a->rc[2] != PAPI_OK)                                     \
			return acc_check(a, NULL, NULL, "PAPI_start");       \
		a->rc[0] = PAPI_read(a->es, a->v0);                          \
		BENCH;                                                       \
		a->rc[1] = PAPI_stop(a->es, a->v1);                          \
		a->count = a->v1[0] - a->v0[0];                              \
		return acc_check(a, "PAPI_read", "PAPI_stop", NULL);         \
	}

ACC_PATTERNS(null, BENCH_NULL())
ACC_PATTERNS(loop, BENCH_LOOP())

typedef int (*pattern_fn)(struct actx *a);

/* The access patterns: {name, function per benchmark}. */
static const struct pattern {
	const char *name;
	int running; /* the set runs across the repetitions */
	pattern_fn null_fn, loop_fn;
} patterns[] = {
	{ "start-read", 0, start_read_null, start_read_loop },
	{ "start-stop", 0, start_stop_null, start_stop_loop },
	{ "read-read", 1, read_read_null, read_read_loop },
	{ "read-stop", 0, read_stop_null, read_stop_loop },
};
#define NPATTERNS ((int)(sizeof(patterns) / sizeof(patterns[0])))

static const struct domain {
	const char *name;
	int dom;
} domains[] = {
	{ "user", PAPI_DOM_USER },
	{ "user+kernel", PAPI_DOM_USER | PAPI_DOM_KERNEL },
};
#define NDOMAINS ((int)(sizeof(domains) / sizeof(domains[0])))

/* An event set of PAPI_TOT_INS counting in @dom; 0 or a PAPI error. */
static int acc_set(int cidx, int dom, int *es, char *why, size_t len)
{
	PAPI_option_t opt;
	int rc;

	*es = PAPI_NULL;
	rc = PAPI_create_eventset(es);
	if (rc != PAPI_OK) {
		snprintf(why, len, "PAPI_create_eventset: %s",
			 PAPI_strerror(rc));
		return rc;
	}
	rc = PAPI_assign_eventset_component(*es, cidx);
	if (rc == PAPI_OK) {
		memset(&opt, 0, sizeof(opt));
		opt.domain.eventset = *es;
		opt.domain.domain = dom;
		rc = PAPI_set_opt(PAPI_DOMAIN, &opt);
		if (rc != PAPI_OK)
			snprintf(why, len, "PAPI_set_opt(PAPI_DOMAIN): %s",
				 PAPI_strerror(rc));
	} else {
		snprintf(why, len, "PAPI_assign_eventset_component: %s",
			 PAPI_strerror(rc));
	}
	if (rc == PAPI_OK) {
		rc = PAPI_add_named_event(*es, opt_event);
		if (rc != PAPI_OK)
			snprintf(why, len, "%s: PAPI_add_event: %s", opt_event,
				 PAPI_strerror(rc));
	}
	if (rc != PAPI_OK) {
		PAPI_cleanup_eventset(*es);
		PAPI_destroy_eventset(es);
	}
	return rc;
}

/* Can the set be started and stopped?  0 or a PAPI error with @why. */
static int acc_try(int es, char *why, size_t len)
{
	long long v[1];
	int rc = PAPI_start(es);

	if (rc != PAPI_OK) {
		snprintf(why, len, "%s: PAPI_start: %s", opt_event,
			 PAPI_strerror(rc));
		return rc;
	}
	return PAPI_stop(es, v);
}

static long opt_reps = 300;

/*
 * The timing-and-statistics routine of every case: run @fn @opt_reps
 * times (after WARMUP), error = count - @expect, one "res" line.
 */
static void acc_case(struct actx *a, const struct pattern *p, int loop, long n,
		     const char *dom)
{
	pattern_fn fn = loop ? p->loop_fn : p->null_fn;
	int64_t expect = loop ? 1 + 3 * (int64_t)n : 0;
	int64_t *err = calloc((size_t)opt_reps, sizeof(*err));
	long i;

	if (!err) {
		emit("err %s %s %ld out of memory", dom, p->name, n);
		return;
	}
	loop_n = loop ? n : 1;
	if (p->running && PAPI_start(a->es) != PAPI_OK) {
		emit("err %s %s %ld PAPI_start failed", dom, p->name, n);
		free(err);
		return;
	}
	for (i = -WARMUP; i < opt_reps; i++) {
		if (fn(a)) {
			char msg[256];

			oneline(msg, sizeof(msg), a->err);
			emit("err %s %s %ld %s", dom, p->name, n, msg);
			break;
		}
		if (i >= 0)
			err[i] = (int64_t)a->count - expect;
	}
	if (p->running)
		PAPI_stop(a->es, a->junk);
	if (i == opt_reps) {
		qsort(err, (size_t)opt_reps, sizeof(*err), cmp_i64);
		emit("res %s %s %ld %ld %" PRId64 " %" PRId64 " %" PRId64
		     " %" PRId64 " %" PRId64,
		     dom, p->name, loop ? n : 0, opt_reps, err[opt_reps / 2],
		     err[opt_reps / 10], err[(opt_reps * 9) / 10], err[0],
		     err[opt_reps - 1]);
	}
	free(err);
}

static int acc_hello(int *cidx)
{
	const PAPI_component_info_t *ci;
	char line[512], real[PATH_MAX];
	Dl_info dli;
	int rc = PAPI_library_init(PAPI_VER_CURRENT);

	if (rc != PAPI_VER_CURRENT) {
		emit("fatal PAPI_library_init: %s",
		     rc > 0 ? "version mismatch" : PAPI_strerror(rc));
		return -1;
	}
	if (dladdr((void *)PAPI_library_init, &dli) && dli.dli_fname &&
	    realpath(dli.dli_fname, real))
		emit("info lib %s", real);
	*cidx = PAPI_get_component_index("perf_event");
	if (*cidx < 0)
		*cidx = 0;
	ci = PAPI_get_component_info(*cidx);
	if (ci) {
		oneline(line, sizeof(line), ci->description);
		emit("info fcr %d", ci->fast_counter_read ? 1 : 0);
		emit("info desc %s", line);
	}
	return 0;
}

static int acc_worker(const long *ns, int nns)
{
	struct actx a;
	char why[512];
	int cidx, d, p, k;

	if (acc_hello(&cidx))
		return EX_FAIL;
	memset(&a, 0, sizeof(a));
	/* no core PMU: say why and skip */
	if (acc_set(cidx, PAPI_DOM_USER, &a.es, why, sizeof(why)) ||
	    acc_try(a.es, why, sizeof(why))) {
		emit("nopmu %s", why);
		return EX_SKIP;
	}
	PAPI_cleanup_eventset(a.es);
	PAPI_destroy_eventset(&a.es);
	for (d = 0; d < NDOMAINS; d++) {
		const char *dn = domains[d].name;

		if (acc_set(cidx, domains[d].dom, &a.es, why, sizeof(why)) ||
		    acc_try(a.es, why, sizeof(why))) {
			emit("na %s %s", dn, why);
			continue;
		}
		for (p = 0; p < NPATTERNS; p++) {
			acc_case(&a, &patterns[p], 0, 0, dn);
			for (k = 0; k < nns; k++)
				acc_case(&a, &patterns[p], 1, ns[k], dn);
		}
		PAPI_cleanup_eventset(a.es);
		PAPI_destroy_eventset(&a.es);
	}
	PAPI_shutdown();
	return EX_OK;
}

/* ------------------------------------------------------------------ */
/* --check-loop: count the loop's instructions by single-stepping       */
/* ------------------------------------------------------------------ */

#if HAVE_LOOP
/* The loop between two labels, the same asm as the benchmark's. */
extern const char lope_acc_loop_begin[], lope_acc_loop_end[];
static __attribute__((noinline, noclone, used)) void loop_region(void)
{
	__asm__ __volatile__(".globl lope_acc_loop_begin\n"
			     "lope_acc_loop_begin:\n\t" LOOP_ASM
			     ".globl lope_acc_loop_end\n"
			     "lope_acc_loop_end:\n" ::[n] "m"(loop_n)
			     : "rcx", "cc", "memory");
}

/* Single-step @pid until it leaves the region; instructions inside it. */
static long step_count(pid_t pid, char *why, size_t len)
{
	uintptr_t b = (uintptr_t)lope_acc_loop_begin;
	uintptr_t e = (uintptr_t)lope_acc_loop_end;
	struct user_regs_struct regs;
	long count = 0, steps = 0;
	int st;

	for (;;) {
		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs)) {
			snprintf(why, len, "PTRACE_GETREGS: %s",
				 strerror(errno));
			return -1;
		}
		if (regs.rip == e)
			return count;
		if (regs.rip >= b && regs.rip < e)
			count++;
		if (++steps > 4 * MAX_LOOP_N) {
			snprintf(why, len, "the loop did not end");
			return -1;
		}
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) ||
		    waitpid(pid, &st, 0) != pid) {
			snprintf(why, len, "PTRACE_SINGLESTEP: %s",
				 strerror(errno));
			return -1;
		}
		if (!WIFSTOPPED(st)) {
			snprintf(why, len, "the child ended before the loop");
			return -1;
		}
	}
}

/* Instructions the loop executes for @n, by ptrace; -1 with @why. */
static long loop_instructions(long n, char *why, size_t len)
{
	pid_t pid;
	long count;
	int st;

	loop_n = n;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(3);
		raise(SIGSTOP);
		loop_region();
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		snprintf(why, len,
			 "ptrace is not allowed here (the child "
			 "did not stop)");
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -1;
	}
	count = step_count(pid, why, len);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return count;
}

static int check_loop(void)
{
	static const long ns[] = { 1, 2, 3, 10, 1000 };
	char why[512];
	unsigned i;
	int bad = 0;

	printf(PROG ": loop benchmark instructions, counted by single-stepping "
		    "it with ptrace:\n");
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		long c = loop_instructions(ns[i], why, sizeof(why));

		if (c < 0) {
			printf(PROG ": cannot single-step: %s\n", why);
			return EX_SKIP;
		}
		printf("  N=%-5ld %6ld instructions, 1+3N = %6ld: %s\n", ns[i],
		       c, 1 + 3 * ns[i], c == 1 + 3 * ns[i] ? "ok" : "WRONG");
		bad |= c != 1 + 3 * ns[i];
	}
	printf("loop check (ptrace): %s\n", bad ? "WRONG" : "ok");
	return bad ? EX_FAIL : EX_OK;
}
#else
static int check_loop(void)
{
	printf(PROG ": the loop benchmark is implemented for x86-64 only\n");
	return EX_SKIP;
}
#endif

/* ------------------------------------------------------------------ */
/* Parent                                                              */
/* ------------------------------------------------------------------ */

struct res {
	char dom[16];
	char pat[16];
	long n; /* 0: null */
	long reps;
	int64_t med, p10, p90, min, max;
	int err;
	char msg[256];
};

enum { W_RDPMC, W_READ, W_STOCK, W_MAX };

struct worker {
	const char *name;
	const char *libdir;
	int no_rdpmc;
	int active;
	int exit_code, signo, fcr;
	char lib[PATH_MAX];
	char desc[256];
	char nopmu[512];
	char fatal[256];
	char na[2][256]; /* per domain */
	struct res *res;
	int nres;
};

static struct worker W[W_MAX];
static int pin_target = -1;

static void parse_line(struct worker *w, char *line)
{
	struct res *r;
	int d, off = 0;

	if (!strncmp(line, "info lib ", 9))
		scopy(w->lib, sizeof(w->lib), line + 9);
	else if (!strncmp(line, "info fcr ", 9))
		w->fcr = atoi(line + 9);
	else if (!strncmp(line, "info desc ", 10))
		scopy(w->desc, sizeof(w->desc), line + 10);
	else if (!strncmp(line, "nopmu ", 6))
		scopy(w->nopmu, sizeof(w->nopmu), line + 6);
	else if (!strncmp(line, "fatal ", 6))
		scopy(w->fatal, sizeof(w->fatal), line + 6);
	if (!strncmp(line, "na ", 3))
		for (d = 0; d < NDOMAINS; d++) {
			size_t l = strlen(domains[d].name);

			if (!strncmp(line + 3, domains[d].name, l) &&
			    line[3 + l] == ' ')
				scopy(w->na[d], sizeof(w->na[d]), line + 4 + l);
		}
	if (strncmp(line, "res ", 4) && strncmp(line, "err ", 4))
		return;
	r = realloc(w->res, sizeof(*r) * (size_t)(w->nres + 1));
	if (!r)
		die(EX_FAIL, "out of memory");
	w->res = r;
	r = &w->res[w->nres];
	memset(r, 0, sizeof(*r));
	if (line[0] == 'r') {
		if (sscanf(line + 4,
			   "%15s %15s %ld %ld %" SCNd64 " %" SCNd64 " %" SCNd64
			   " %" SCNd64 " %" SCNd64,
			   r->dom, r->pat, &r->n, &r->reps, &r->med, &r->p10,
			   &r->p90, &r->min, &r->max) != 9)
			return;
	} else {
		if (sscanf(line + 4, "%15s %15s %ld %n", r->dom, r->pat, &r->n,
			   &off) < 3)
			return;
		r->err = 1;
		snprintf(r->msg, sizeof(r->msg), "%s", line + 4 + off);
	}
	w->nres++;
}

static void run_worker(struct worker *w, const char *nlist)
{
	char fdbuf[16], rbuf[32], cpubuf[16], buf[4096], line[1024];
	size_t used = 0;
	int pfd[2], st;
	ssize_t got;
	pid_t pid;

	if (pipe(pfd))
		die(EX_FAIL, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die(EX_FAIL, "fork: %s", strerror(errno));
	if (pid == 0) {
		const char *argv[9];
		const char *old = getenv("LD_LIBRARY_PATH");
		char *v;

		close(pfd[0]);
		dup2(STDERR_FILENO, STDOUT_FILENO);
		if (w->libdir &&
		    asprintf(&v, "%s%s%s", w->libdir, old && *old ? ":" : "",
			     old && *old ? old : "") >= 0)
			setenv("LD_LIBRARY_PATH", v, 1);
		if (w->no_rdpmc)
			setenv("LOPE_NO_RDPMC", "1", 1);
		else
			unsetenv("LOPE_NO_RDPMC");
		snprintf(fdbuf, sizeof(fdbuf), "%d", pfd[1]);
		snprintf(rbuf, sizeof(rbuf), "%ld", opt_reps);
		snprintf(cpubuf, sizeof(cpubuf), "%d", pin_target);
		argv[0] = PROG;
		argv[1] = "--_worker";
		argv[2] = fdbuf;
		argv[3] = rbuf;
		argv[4] = cpubuf;
		argv[5] = nlist;
		argv[6] = opt_event;
		argv[7] = NULL;
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
			used = 0;
	}
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die(EX_FAIL, "waitpid: %s", strerror(errno));
	w->exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : EX_FAIL;
	w->signo = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

static const struct res *find_res(const struct worker *w, const char *dom,
				  const char *pat, long n)
{
	int i;

	for (i = 0; i < w->nres; i++)
		if (w->res[i].n == n && !strcmp(w->res[i].dom, dom) &&
		    !strcmp(w->res[i].pat, pat))
			return &w->res[i];
	return NULL;
}

/* Is column @w shown?  Else why not in @why. */
static int col_ok(const struct worker *w, char *why, size_t len)
{
	if (!w->active) {
		snprintf(why, len, "not measured");
		return 0;
	}
	if (w->fatal[0] || w->signo || (w->exit_code && !w->nres)) {
		snprintf(why, len, "worker failed: %s",
			 w->fatal[0] ? w->fatal :
			 w->signo    ? strsignal(w->signo) :
				       "non-zero exit");
		return 0;
	}
	if (w->nopmu[0]) {
		snprintf(why, len, "cannot count here: %.400s", w->nopmu);
		return 0;
	}
	if (w == &W[W_RDPMC] && !w->fcr) {
		snprintf(why, len,
			 "the component reports fast_counter_read=0; the same "
			 "as ours-read");
		return 0;
	}
	return 1;
}

/* Least-squares slope of the median error over N (per iteration). */
static int slope(const struct worker *w, const char *dom, const char *pat,
		 const long *ns, int nns, double *out)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	int k, m = 0;

	for (k = 0; k < nns; k++) {
		const struct res *r = find_res(w, dom, pat, ns[k]);

		if (!r || r->err)
			continue;
		sx += (double)ns[k];
		sy += (double)r->med;
		sxx += (double)ns[k] * (double)ns[k];
		sxy += (double)ns[k] * (double)r->med;
		m++;
	}
	if (m < 2 || m * sxx - sx * sx == 0)
		return -1;
	*out = (m * sxy - sx * sy) / (m * sxx - sx * sx);
	return 0;
}

static void print_null(void)
{
	int i, d, p;
	char why[512];

	printf("\nnull benchmark (nothing between the calls): error = "
	       "measured - 0 instructions\n");
	printf("%-11s %-12s %-11s %8s %8s %8s %8s %8s\n", "path", "domain",
	       "pattern", "median", "p10", "p90", "min", "max");
	for (i = 0; i < W_MAX; i++) {
		if (!col_ok(&W[i], why, sizeof(why)))
			continue;
		for (d = 0; d < NDOMAINS; d++) {
			if (W[i].na[d][0]) {
				printf("%-11s %-12s n/a: %s\n", W[i].name,
				       domains[d].name, W[i].na[d]);
				continue;
			}
			for (p = 0; p < NPATTERNS; p++) {
				const struct res *r =
					find_res(&W[i], domains[d].name,
						 patterns[p].name, 0);

				printf("%-11s %-12s %-11s ", W[i].name,
				       domains[d].name, patterns[p].name);
				if (!r)
					printf("?\n");
				else if (r->err)
					printf("error: %s\n", r->msg);
				else
					printf("%8" PRId64 " %8" PRId64
					       " %8" PRId64 " %8" PRId64
					       " %8" PRId64 "\n",
					       r->med, r->p10, r->p90, r->min,
					       r->max);
			}
		}
	}
}

static void print_loop(const long *ns, int nns)
{
	int i, d, p, k;
	char why[512];

	printf("\nloop benchmark (1+3N instructions): median error = measured "
	       "- (1+3N);\nloop-null: median error at the largest N less the "
	       "null benchmark's; growth: least-squares\nslope of the median "
	       "error over N, instructions per iteration and per million\n");
	printf("%-11s %-12s %-11s", "path", "domain", "pattern");
	for (k = 0; k < nns; k++) {
		char h[24];

		snprintf(h, sizeof(h), "N=%ld", ns[k]);
		printf(" %9s", h);
	}
	printf(" %9s %11s %9s\n", "loop-null", "growth/it", "per 1e6");
	for (i = 0; i < W_MAX; i++) {
		if (!col_ok(&W[i], why, sizeof(why)))
			continue;
		for (d = 0; d < NDOMAINS; d++) {
			if (W[i].na[d][0])
				continue;
			for (p = 0; p < NPATTERNS; p++) {
				const char *dn = domains[d].name;
				const char *pn = patterns[p].name;
				const struct res *z =
					find_res(&W[i], dn, pn, 0);
				const struct res *r = NULL;
				double s;

				printf("%-11s %-12s %-11s", W[i].name, dn, pn);
				for (k = 0; k < nns; k++) {
					r = find_res(&W[i], dn, pn, ns[k]);
					if (r && !r->err)
						printf(" %9" PRId64, r->med);
					else
						printf(" %9s",
						       r ? "error" : "?");
				}
				if (r && z && !r->err && !z->err)
					printf(" %9" PRId64, r->med - z->med);
				else
					printf(" %9s", "-");
				if (!slope(&W[i], dn, pn, ns, nns, &s))
					printf(" %11.6f %9.0f\n", s, s * 1e6);
				else
					printf(" %11s %9s\n", "-", "-");
			}
		}
	}
}

/*
 * The hardware check of the loop: in the user domain the smallest count
 * of N iterations is exact, so min(N_last) - min(N_first) must be
 * 3 (N_last - N_first).  1 if every shown path agrees, 0 if one does not,
 * -1 if none could be checked.
 */
static int print_hw_check(const long *ns, int nns)
{
	int i, ok = -1;
	char why[512];

	for (i = 0; i < W_MAX; i++) {
		const struct res *a, *b;
		int64_t got, want = 3 * (int64_t)(ns[nns - 1] - ns[0]);

		if (!col_ok(&W[i], why, sizeof(why)))
			continue;
		a = find_res(&W[i], "user", "read-read", ns[0]);
		b = find_res(&W[i], "user", "read-read", ns[nns - 1]);
		if (!a || !b || a->err || b->err)
			continue;
		/* min error + expected = min count */
		got = (b->min + 1 + 3 * (int64_t)ns[nns - 1]) -
		      (a->min + 1 + 3 * (int64_t)ns[0]);
		printf("  %-11s user read-read: min count(N=%ld) - min "
		       "count(N=%ld) = %" PRId64 ", 3 x %ld = %" PRId64
		       ": %s\n",
		       W[i].name, ns[nns - 1], ns[0], got, ns[nns - 1] - ns[0],
		       want, got == want ? "ok" : "WRONG");
		if (ok)
			ok = got == want;
	}
	return ok;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG
		" [-n REPS] [-N N1,N2,...] [-e EVENT] [--ours LIBDIR]\n"
		"                     [--compare LIBDIR | --no-compare] "
		"[--check-loop]\n"
		"Measurement error of instructions through PAPI: null and loop "
		"benchmarks,\n"
		"access patterns start-read, start-stop, read-read, read-stop, "
		"user and\n"
		"user+kernel, paths rdpmc and read().  See papi_accuracy(1).\n"
		"  -n REPS          repetitions per case (default 300)\n"
		"  -N N1,N2,...     loop iterations, 2 to %d values (default "
		"100,1000,10000,100000,1000000)\n"
		"  --ours LIBDIR    directory of our libpapi.so\n"
		"  --compare LIBDIR also measure the libpapi.so there (default: "
		"the stock build)\n"
		"  --no-compare     ours only\n"
		"  --check-loop     count the loop's instructions with ptrace "
		"(needs no PMU)\n"
		"  -e EVENT         the instructions event (default " DEFAULT_EVENT
		")\n"
		"Exit status 77: no core PMU, the event cannot be counted.\n",
		MAX_NS);
}

/* No core PMU in sysfs?  Then say so in @why. */
static int sysfs_pmu(char *why, size_t len)
{
	static const char *const dirs[] = {
		"/sys/bus/event_source/devices/cpu",
		"/sys/bus/event_source/devices/cpu_core",
	};
	struct stat sb;
	unsigned i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (!stat(dirs[i], &sb)) {
			snprintf(why, len, "%s exists", dirs[i]);
			return 1;
		}
	snprintf(why, len, "%s does not exist", dirs[0]);
	return 0;
}

static const char *pick_dir(const char *env, const char *builtin)
{
	const char *e = getenv(env);

	if (e && *e && dir_has_libpapi(e))
		return e;
	if (builtin && *builtin && dir_has_libpapi(builtin))
		return builtin;
	return NULL;
}

static int worker_main(char **argv)
{
	long ns[MAX_NS], cpu;
	int nns;
	cpu_set_t set;

	worker_fd = atoi(argv[2]);
	if (parse_long(argv[3], 1, MAX_REPS, &opt_reps) ||
	    (nns = parse_ns(argv[5], ns)) < 0)
		return EX_USAGE;
	opt_event = argv[6];
	alarm(WORKER_TIMEOUT);
	if (!parse_long(argv[4], 0, CPU_SETSIZE - 1, &cpu)) {
		CPU_ZERO(&set);
		CPU_SET((int)cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	return acc_worker(ns, nns);
}

#ifndef LOPE_OURS_LIBDIR
#define LOPE_OURS_LIBDIR NULL
#endif
#ifndef LOPE_STOCK_LIBDIR
#define LOPE_STOCK_LIBDIR NULL
#endif

int main(int argc, char **argv)
{
	const char *ours = NULL, *stock = NULL, *nlist = NULL;
	long ns[MAX_NS];
	int nns, i, no_compare = 0, rc = EX_OK, hw;
	char pmu[256], why[512];
	struct utsname un;

	if (argc == 7 && !strcmp(argv[1], "--_worker"))
		return worker_main(argv);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return EX_OK;
		} else if (!strcmp(a, "--check-loop")) {
			return check_loop();
		} else if (!strcmp(a, "--no-compare")) {
			no_compare = 1;
		} else if (!v && (!strcmp(a, "-n") || !strcmp(a, "-N") ||
				  !strcmp(a, "-e") || !strcmp(a, "--ours") ||
				  !strcmp(a, "--compare"))) {
			die(EX_USAGE, "option %s needs an argument", a);
		} else if (!strcmp(a, "-n")) {
			if (parse_long(v, 1, MAX_REPS, &opt_reps))
				die(EX_USAGE,
				    "-n: '%s' is not a count between 1 and %d",
				    v, MAX_REPS);
			i++;
		} else if (!strcmp(a, "-e")) {
			if (!*v || strchr(v, ' ') || strlen(v) > 200)
				die(EX_USAGE, "-e: '%s' is not an event name",
				    v);
			opt_event = v;
			i++;
		} else if (!strcmp(a, "-N")) {
			nlist = v;
			if (parse_ns(v, ns) < 0)
				die(EX_USAGE,
				    "-N: '%s': give 2 to %d comma-separated "
				    "iteration counts from 1 to %ld",
				    v, MAX_NS, MAX_LOOP_N);
			i++;
		} else if (!strcmp(a, "--ours") || !strcmp(a, "--compare")) {
			if (!dir_has_libpapi(v))
				die(EX_USAGE,
				    "%s %s: no libpapi.so* in that "
				    "directory",
				    a, v);
			*(a[2] == 'o' ? &ours : &stock) = v;
			i++;
		} else {
			usage(stderr);
			die(EX_USAGE, "unknown option '%s'", a);
		}
	}
	if (!nlist)
		nlist = "100,1000,10000,100000,1000000";
	nns = parse_ns(nlist, ns);
	if (!HAVE_LOOP) {
		fprintf(stderr, PROG ": the loop benchmark is implemented for "
				     "x86-64 only; skipped\n");
		return EX_SKIP;
	}
	if (!ours)
		ours = pick_dir("LOPE_OURS_LIBDIR", LOPE_OURS_LIBDIR);
	if (!stock && !no_compare)
		stock = pick_dir("LOPE_STOCK_LIBDIR", LOPE_STOCK_LIBDIR);
	pin_target = sched_getcpu();
	W[W_RDPMC] = (struct worker){ .name = "ours-rdpmc",
				      .libdir = ours,
				      .active = 1 };
	W[W_READ] = (struct worker){
		.name = "ours-read", .libdir = ours, .no_rdpmc = 1, .active = 1
	};
	W[W_STOCK] = (struct worker){ .name = "stock",
				      .libdir = stock,
				      .active = stock && !no_compare };

	sysfs_pmu(pmu, sizeof(pmu));
	run_worker(&W[W_RDPMC], nlist);
	if (W[W_RDPMC].exit_code == EX_SKIP && W[W_RDPMC].nopmu[0]) {
		fprintf(stderr,
			PROG ": needs a core PMU to count instructions, and "
			     "this machine has none usable: %s; %s. Skipped.\n",
			pmu, W[W_RDPMC].nopmu);
		return EX_SKIP;
	}
	for (i = W_READ; i < W_MAX; i++)
		if (W[i].active)
			run_worker(&W[i], nlist);

	if (uname(&un))
		memset(&un, 0, sizeof(un));
	printf(PROG ": error of %s measurements through PAPI, in "
		    "instructions (after Zaparanuks et al.)\n",
	       opt_event);
	printf("%-10s: %s %s, %ld CPUs online, workers pinned to cpu %d; %s\n",
	       "machine", un.sysname, un.release, sysconf(_SC_NPROCESSORS_ONLN),
	       pin_target, pmu);
	printf("%-10s: null (no instruction) and loop (mov; N x {dec; nop; "
	       "jnz}: 1+3N), %ld repetitions each\n",
	       "benchmarks", opt_reps);
	for (i = 0; i < W_MAX; i++) {
		if (!W[i].active)
			continue;
		printf("%-10s: %s, fast_counter_read=%d%s%s\n", W[i].name,
		       W[i].lib[0] ? W[i].lib : "(library unknown)", W[i].fcr,
		       col_ok(&W[i], why, sizeof(why)) ? "" : "; not shown: ",
		       col_ok(&W[i], why, sizeof(why)) ? "" : why);
		if ((W[i].exit_code && W[i].exit_code != EX_SKIP) ||
		    W[i].signo || W[i].fatal[0])
			rc = EX_FAIL;
	}
	print_null();
	print_loop(ns, nns);
	printf("\nloop check (hardware): the loop's instructions per "
	       "iteration:\n");
	hw = print_hw_check(ns, nns);
	printf("loop check (hardware): %s\n", hw < 0 ? "not measured" :
					      hw     ? "ok" :
						       "WRONG");
	for (i = 0; i < W_MAX; i++) {
		int j;

		for (j = 0; j < W[i].nres; j++)
			if (W[i].res[j].err) {
				fprintf(stderr, PROG ": %s %s %s N=%ld: %s\n",
					W[i].name, W[i].res[j].dom,
					W[i].res[j].pat, W[i].res[j].n,
					W[i].res[j].msg);
				rc = EX_FAIL;
			}
		free(W[i].res);
	}
	return rc;
}
