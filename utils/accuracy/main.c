/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_accuracy's options and the parent: one worker per path (ours-rdpmc,
 * ours-read, stock), then the report from their lines.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "accuracy.h"

/* "1000,10000" -> @ns; the count, or -1. */
static int parse_ns(const char *s, long *ns)
{
	char buf[256], *item[MAX_NS];
	int i, n = -1;

	if (snprintf(buf, sizeof(buf), "%s", s) < (int)sizeof(buf))
		n = split_list(buf, item, MAX_NS);
	for (i = 0; i < n; i++)
		if (parse_long(item[i], 1, MAX_LOOP_N, &ns[i]))
			return -1;
	return n >= 2 ? n : -1;
}

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

/* The worker paths papi_accuracy measures: all but the floor. */
enum {
	W_RDPMC = WORKER_RDPMC,
	W_READ = WORKER_READ,
	W_STOCK = WORKER_STOCK,
	W_MAX
};

/* A path of the report: one worker and what it measured. */
struct path {
	struct worker w;
	char nopmu[512];
	char na[NDOMAINS][256]; /* why a domain cannot be counted */
	struct res *res;
	int nres;
};

struct opts {
	long reps;         /* -n */
	const char *event; /* -e */
	const char *nlist; /* -N */
	long ns[MAX_NS];
	int nns;
	struct libdirs dirs;
};

/* The parent: the options, the paths and what they measured. */
struct acc {
	struct opts o;
	struct path p[W_MAX];
	int cpu;       /* the CPU the workers are pinned to */
	char pmu[256]; /* the core PMU in sysfs, or its absence */
};

/* A "res" or "err" line into @r; 0, or -1 if it does not parse. */
static int res_parse(struct res *r, const char *line)
{
	int off = 0;

	if (line[0] == 'r')
		return sscanf(line + 4,
			      "%15s %15s %ld %ld %" SCNd64 " %" SCNd64
			      " %" SCNd64 " %" SCNd64 " %" SCNd64,
			      r->dom, r->pat, &r->n, &r->reps, &r->med, &r->p10,
			      &r->p90, &r->min, &r->max) == 9 ?
			       0 :
			       -1;
	if (sscanf(line + 4, "%15s %15s %ld %n", r->dom, r->pat, &r->n, &off) <
	    3)
		return -1;
	r->err = 1;
	snprintf(r->msg, sizeof(r->msg), "%s", line + 4 + off);
	return 0;
}

/* "na DOMAIN WHY": the domain cannot be counted. */
static void path_na(struct path *p, const char *rest)
{
	size_t l;
	int d;

	for (d = 0; d < NDOMAINS; d++) {
		l = strlen(domains[d].name);
		if (!strncmp(rest, domains[d].name, l) && rest[l] == ' ')
			scopy(p->na[d], sizeof(p->na[d]), rest + l + 1);
	}
}

/* One line of path @arg's worker. */
static void path_line(void *arg, char *line)
{
	struct path *p = arg;
	struct res *r;

	if (!strncmp(line, "nopmu ", 6))
		scopy(p->nopmu, sizeof(p->nopmu), line + 6);
	else if (!strncmp(line, "na ", 3))
		path_na(p, line + 3);
	if (strncmp(line, "res ", 4) && strncmp(line, "err ", 4))
		return;
	p->res = xrealloc(p->res, (size_t)p->nres + 1, sizeof(*p->res));
	r = &p->res[p->nres];
	memset(r, 0, sizeof(*r));
	if (!res_parse(r, line))
		p->nres++;
}

/* Run path @p's worker: PROG --_worker FD CPU REPS NLIST EVENT. */
static void path_run(const struct acc *a, struct path *p)
{
	char rbuf[32];
	const char *args[] = { rbuf, a->o.nlist, a->o.event, NULL };

	snprintf(rbuf, sizeof(rbuf), "%ld", a->o.reps);
	worker_run(&p->w, "--_worker", a->cpu, args, path_line, p);
}

static const struct res *find_res(const struct path *p, const char *dom,
				  const char *pat, long n)
{
	int i;

	for (i = 0; i < p->nres; i++)
		if (p->res[i].n == n && !strcmp(p->res[i].dom, dom) &&
		    !strcmp(p->res[i].pat, pat))
			return &p->res[i];
	return NULL;
}

/* Is path @i shown?  Else why not in @why. */
static int path_ok(const struct acc *a, int i, char *why, size_t len)
{
	const struct path *p = &a->p[i];
	const struct worker *w = &p->w;

	if (!w->active) {
		snprintf(why, len, "not measured");
		return 0;
	}
	if (w->fatal[0] || w->signo || (w->exit_code && !p->nres)) {
		snprintf(why, len, "worker failed: %s",
			 w->fatal[0] ? w->fatal :
			 w->signo    ? strsignal(w->signo) :
				       "non-zero exit");
		return 0;
	}
	if (p->nopmu[0]) {
		snprintf(why, len, "cannot count here: %.400s", p->nopmu);
		return 0;
	}
	if (i == W_RDPMC && !w->fcr) {
		snprintf(why, len,
			 "the component reports fast_counter_read=0; the same "
			 "as ours-read");
		return 0;
	}
	return 1;
}

/* Least-squares slope of the median error over N (per iteration). */
static int slope(const struct path *p, const char *dom, const char *pat,
		 const long *ns, int nns, double *out)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	int k, m = 0;

	for (k = 0; k < nns; k++) {
		const struct res *r = find_res(p, dom, pat, ns[k]);

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

/* The null benchmark's row of path @p, domain @d, pattern @pat. */
static void print_null_row(const struct path *p, int d, const char *pat)
{
	const struct res *r = find_res(p, domains[d].name, pat, 0);

	printf("%-11s %-12s %-11s ", p->w.name, domains[d].name, pat);
	if (!r)
		printf("?\n");
	else if (r->err)
		printf("error: %s\n", r->msg);
	else
		printf("%8" PRId64 " %8" PRId64 " %8" PRId64 " %8" PRId64
		       " %8" PRId64 "\n",
		       r->med, r->p10, r->p90, r->min, r->max);
}

static void print_null(const struct acc *a)
{
	int i, d, p;
	char why[512];

	printf("\nnull benchmark (nothing between the calls): error = "
	       "measured - 0 instructions\n");
	printf("%-11s %-12s %-11s %8s %8s %8s %8s %8s\n", "path", "domain",
	       "pattern", "median", "p10", "p90", "min", "max");
	for (i = 0; i < W_MAX; i++) {
		if (!path_ok(a, i, why, sizeof(why)))
			continue;
		for (d = 0; d < NDOMAINS; d++) {
			if (a->p[i].na[d][0]) {
				printf("%-11s %-12s n/a: %s\n", a->p[i].w.name,
				       domains[d].name, a->p[i].na[d]);
				continue;
			}
			for (p = 0; p < NPATTERNS; p++)
				print_null_row(&a->p[i], d, patterns[p].name);
		}
	}
}

/* The loop benchmark's row of path @p, domain @dn, pattern @pn. */
static void print_loop_row(const struct acc *a, const struct path *p,
			   const char *dn, const char *pn)
{
	const struct res *z = find_res(p, dn, pn, 0), *r = NULL;
	double s;
	int k;

	printf("%-11s %-12s %-11s", p->w.name, dn, pn);
	for (k = 0; k < a->o.nns; k++) {
		r = find_res(p, dn, pn, a->o.ns[k]);
		if (r && !r->err)
			printf(" %9" PRId64, r->med);
		else
			printf(" %9s", r ? "error" : "?");
	}
	if (r && z && !r->err && !z->err)
		printf(" %9" PRId64, r->med - z->med);
	else
		printf(" %9s", "-");
	if (!slope(p, dn, pn, a->o.ns, a->o.nns, &s))
		printf(" %11.6f %9.0f\n", s, s * 1e6);
	else
		printf(" %11s %9s\n", "-", "-");
}

static void print_loop(const struct acc *a)
{
	int i, d, p, k;
	char why[512], h[24];

	printf("\nloop benchmark (1+3N instructions): median error = measured "
	       "- (1+3N);\nloop-null: median error at the largest N less the "
	       "null benchmark's; growth: least-squares\nslope of the median "
	       "error over N, instructions per iteration and per million\n");
	printf("%-11s %-12s %-11s", "path", "domain", "pattern");
	for (k = 0; k < a->o.nns; k++) {
		snprintf(h, sizeof(h), "N=%ld", a->o.ns[k]);
		printf(" %9s", h);
	}
	printf(" %9s %11s %9s\n", "loop-null", "growth/it", "per 1e6");
	for (i = 0; i < W_MAX; i++) {
		if (!path_ok(a, i, why, sizeof(why)))
			continue;
		for (d = 0; d < NDOMAINS; d++) {
			if (a->p[i].na[d][0])
				continue;
			for (p = 0; p < NPATTERNS; p++)
				print_loop_row(a, &a->p[i], domains[d].name,
					       patterns[p].name);
		}
	}
}

/*
 * The hardware check of the loop: in the user domain the smallest count
 * of N iterations is exact, so min(N_last) - min(N_first) must be
 * 3 (N_last - N_first).  1 if every shown path agrees, 0 if one does not,
 * -1 if none could be checked.
 */
static int print_hw_check(const struct acc *a)
{
	const long *ns = a->o.ns, n0 = ns[0], n1 = ns[a->o.nns - 1];
	int64_t got, want = 3 * (int64_t)(n1 - n0);
	const struct res *r0, *r1;
	int i, ok = -1;
	char why[512];

	for (i = 0; i < W_MAX; i++) {
		if (!path_ok(a, i, why, sizeof(why)))
			continue;
		r0 = find_res(&a->p[i], "user", "read-read", n0);
		r1 = find_res(&a->p[i], "user", "read-read", n1);
		if (!r0 || !r1 || r0->err || r1->err)
			continue;
		/* min error + expected = min count */
		got = (r1->min + 1 + 3 * (int64_t)n1) -
		      (r0->min + 1 + 3 * (int64_t)n0);
		printf("  %-11s user read-read: min count(N=%ld) - min "
		       "count(N=%ld) = %" PRId64 ", 3 x %ld = %" PRId64
		       ": %s\n",
		       a->p[i].w.name, n1, n0, got, n1 - n0, want,
		       got == want ? "ok" : "WRONG");
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

/* A worker: argv = PROG --_worker FD CPU REPS NLIST EVENT. */
static int worker_main(char **argv)
{
	char **arg = worker_start(argv, WORKER_TIMEOUT);
	long ns[MAX_NS], reps;
	int nns;

	if (parse_long(arg[0], 1, MAX_REPS, &reps) ||
	    (nns = parse_ns(arg[1], ns)) < 0)
		return EX_USAGE;
	return acc_worker(arg[2], reps, ns, nns);
}

enum { OPT_CHECK_LOOP = OPT_TOOL };

static const struct option long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	LIBDIRS_OPTIONS,
	{ "check-loop", no_argument, NULL, OPT_CHECK_LOOP },
	{ NULL, 0, NULL, 0 },
};

/* Option @c with getopt's optarg into @o; dies on bad input. */
static void parse_opt(int c, struct opts *o)
{
	switch (c) {
	case 'n':
		o->reps = count_arg("-n", optarg, MAX_REPS);
		break;
	case 'e':
		if (!*optarg || strchr(optarg, ' ') || strlen(optarg) > 200)
			die(EX_USAGE, "-e: '%s' is not an event name", optarg);
		o->event = optarg;
		break;
	case 'N':
		if (parse_ns(optarg, o->ns) < 0)
			die(EX_USAGE,
			    "-N: '%s': give 2 to %d comma-separated "
			    "iteration counts from 1 to %ld",
			    optarg, MAX_NS, MAX_LOOP_N);
		o->nlist = optarg;
		break;
	}
}

/* The options into @o; 1 if --check-loop asks for that alone. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	o->reps = 300;
	o->event = DEFAULT_EVENT;
	o->nlist = "100,1000,10000,100000,1000000";
	while ((c = libdirs_getopt(argc, argv, "+:n:N:e:h", long_opts, usage,
				   &o->dirs)) != -1) {
		if (c == OPT_CHECK_LOOP)
			return 1;
		parse_opt(c, o);
	}
	o->nns = parse_ns(o->nlist, o->ns);
	return 0;
}

/* Run every path's worker; EX_SKIP (said why) if none can count. */
static int acc_measure(struct acc *a)
{
	struct path *p = a->p;
	int i;

	libdirs_default(&a->o.dirs);
	a->cpu = sched_getcpu();
	for (i = 0; i < W_MAX; i++)
		worker_init(&p[i].w, i, &a->o.dirs);
	sysfs_pmu(a->pmu, sizeof(a->pmu));
	path_run(a, &p[W_RDPMC]);
	if (p[W_RDPMC].w.exit_code == EX_SKIP && p[W_RDPMC].nopmu[0]) {
		msg("needs a core PMU to count instructions, and this machine "
		    "has none usable: %s; %s. Skipped.",
		    a->pmu, p[W_RDPMC].nopmu);
		return EX_SKIP;
	}
	for (i = W_READ; i < W_MAX; i++)
		if (p[i].w.active)
			path_run(a, &p[i]);
	return EX_OK;
}

static void print_header(const struct acc *a)
{
	const struct worker *w;
	struct utsname un;
	char why[512];
	int i, ok;

	if (uname(&un))
		memset(&un, 0, sizeof(un));
	printf(PROG ": error of %s measurements through PAPI, in "
		    "instructions (after Zaparanuks et al.)\n",
	       a->o.event);
	printf("%-10s: %s %s, %ld CPUs online, workers pinned to cpu %d; %s\n",
	       "machine", un.sysname, un.release, sysconf(_SC_NPROCESSORS_ONLN),
	       a->cpu, a->pmu);
	printf("%-10s: null (no instruction) and loop (mov; N x {dec; nop; "
	       "jnz}: 1+3N), %ld repetitions each\n",
	       "benchmarks", a->o.reps);
	for (i = 0; i < W_MAX; i++) {
		w = &a->p[i].w;
		if (!w->active)
			continue;
		ok = path_ok(a, i, why, sizeof(why));
		printf("%-10s: %s, fast_counter_read=%d%s%s\n", w->name,
		       w->lib[0] ? w->lib : "(library unknown)", w->fcr,
		       ok ? "" : "; not shown: ", ok ? "" : why);
	}
}

/* The report; EX_FAIL if a worker or a measurement failed. */
static int acc_report(const struct acc *a)
{
	const struct worker *w;
	const struct res *r;
	int i, j, hw, rc = EX_OK;

	print_header(a);
	print_null(a);
	print_loop(a);
	printf("\nloop check (hardware): the loop's instructions per "
	       "iteration:\n");
	hw = print_hw_check(a);
	printf("loop check (hardware): %s\n", hw < 0 ? "not measured" :
					      hw     ? "ok" :
						       "WRONG");
	for (i = 0; i < W_MAX; i++) {
		w = &a->p[i].w;
		if (w->active && ((w->exit_code && w->exit_code != EX_SKIP) ||
				  w->signo || w->fatal[0]))
			rc = EX_FAIL;
		for (j = 0; j < a->p[i].nres; j++) {
			r = &a->p[i].res[j];
			if (!r->err)
				continue;
			msg("%s %s %s N=%ld: %s", w->name, r->dom, r->pat, r->n,
			    r->msg);
			rc = EX_FAIL;
		}
	}
	return rc;
}

int main(int argc, char **argv)
{
	static struct acc a;
	int i, rc;

	tool_prog = PROG;
	if (argc == 7 && !strcmp(argv[1], "--_worker"))
		return worker_main(argv);
	if (parse_opts(argc, argv, &a.o))
		return check_loop();
	if (!HAVE_LOOP) {
		msg("the loop benchmark is implemented for x86-64 only; "
		    "skipped");
		return EX_SKIP;
	}
	rc = acc_measure(&a);
	if (rc == EX_OK)
		rc = acc_report(&a);
	for (i = 0; i < W_MAX; i++)
		free(a.p[i].res);
	return rc;
}
