/* SPDX-License-Identifier: BSD-3-Clause */
/* papi_accuracy's options and the parent (accuracy.h says how it works). */
#define _GNU_SOURCE
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "accuracy.h"

#define WORKER_TIMEOUT 300 /* seconds; a hung worker is killed */
#define DEFAULT_EVENT "PAPI_TOT_INS"
#define PMU_DIR "/sys/bus/event_source/devices/"

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

/* The worker paths papi_accuracy measures: all but the floor. */
#define NPATHS WORKER_FLOOR

/* A path of the report: one worker and the rows it sent. */
struct path {
	struct worker w;
	char nopmu[512];   /* why it cannot count here */
	char (*rows)[512]; /* "null ...", "loop ..." and "hw ..." */
	int nrows;
	int errs;  /* "err" lines: measurements that failed */
	int shown; /* its rows are printed, else why not in @why */
	char why[512];
};

/* The parent: the options, the paths and what they measured. */
struct acc {
	long reps;         /* -n */
	const char *event; /* -e */
	const char *nlist; /* -N */
	long ns[MAX_NS];
	int nns;
	struct libdirs dirs;
	struct path p[NPATHS];
	int cpu;         /* the CPU the workers are pinned to */
	const char *pmu; /* the core PMU in sysfs, or its absence */
};

/* One line of path @arg's worker. */
static void path_line(void *arg, char *line)
{
	struct path *p = arg;

	if (!strncmp(line, "nopmu ", 6)) {
		scopy(p->nopmu, sizeof(p->nopmu), line + 6);
	} else if (!strncmp(line, "err ", 4)) {
		msg("%s %s", p->w.name, line + 4);
		p->errs++;
	} else { /* a row: "null ...", "loop ..." or "hw ..." */
		p->rows = xrealloc(p->rows, (size_t)p->nrows + 1,
				   sizeof(*p->rows));
		scopy(p->rows[p->nrows++], sizeof(*p->rows), line);
	}
}

/* Is path @p shown?  Else why not in p->why. */
static void path_check(struct path *p)
{
	const struct worker *w = &p->w;

	if (w->fatal[0] || w->signo || (w->exit_code && !p->nrows))
		snprintf(p->why, sizeof(p->why), "worker failed: %s",
			 w->fatal[0] ? w->fatal :
			 w->signo    ? strsignal(w->signo) :
				       "non-zero exit");
	else if (p->nopmu[0])
		snprintf(p->why, sizeof(p->why), "cannot count here: %.400s",
			 p->nopmu);
	else if (w->path == WORKER_RDPMC && !w->fcr)
		snprintf(p->why, sizeof(p->why),
			 "the component reports fast_counter_read=0; the same "
			 "as ours-read");
	else
		p->shown = 1;
}

/*
 * The rows that start with @key of every shown path, printed as @fmt of
 * the path's name and the row's text: -1 if there was none, 0 if one
 * says WRONG, else 1.
 */
static int print_rows(const struct acc *a, const char *key, const char *fmt)
{
	size_t l = strlen(key);
	const char *r;
	int i, j, ok = -1;

	for (i = 0; i < NPATHS; i++)
		for (j = 0; a->p[i].shown && j < a->p[i].nrows; j++) {
			r = a->p[i].rows[j];
			if (strncmp(r, key, l))
				continue;
			printf(fmt, a->p[i].w.name, r + l);
			ok = ok && !strstr(r, "WRONG");
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
		"  --check-loop     count the loop's instructions with ptrace "
		"(needs no PMU)\n"
		"  -e EVENT         the instructions event (default " DEFAULT_EVENT
		")\n" LIBDIRS_USAGE
		"Exit status 77: no core PMU, the event cannot be counted.\n",
		MAX_NS);
}

/* A worker: argv = PROG --_worker FD CPU LIBDIR REPS NLIST EVENT. */
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

/* The options into @a; 1 if --check-loop asks for that alone. */
static int parse_opts(int argc, char **argv, struct acc *a)
{
	int c;

	a->reps = 300;
	a->event = DEFAULT_EVENT;
	a->nlist = "100,1000,10000,100000,1000000";
	a->nns = parse_ns(a->nlist, a->ns);
	while ((c = libdirs_getopt(argc, argv, "+:n:N:e:h", long_opts, usage,
				   &a->dirs)) != -1) {
		if (c == OPT_CHECK_LOOP)
			return 1;
		if (c == 'e' && (!is_word(optarg) || strlen(optarg) > 200))
			die(EX_USAGE, "-e: '%s' is not an event name", optarg);
		if (c == 'N' && (a->nns = parse_ns(optarg, a->ns)) < 0)
			die(EX_USAGE,
			    "-N: '%s': give 2 to %d comma-separated iteration "
			    "counts from 1 to %ld",
			    optarg, MAX_NS, MAX_LOOP_N);
		if (c == 'n')
			a->reps = count_arg("-n", optarg, MAX_REPS);
		else if (c == 'e')
			a->event = optarg;
		else if (c == 'N')
			a->nlist = optarg;
	}
	return 0;
}

/* The core PMU in sysfs, or its absence, as the report says it. */
static const char *sysfs_pmu(void)
{
	if (!access(PMU_DIR "cpu", F_OK))
		return PMU_DIR "cpu exists";
	if (!access(PMU_DIR "cpu_core", F_OK))
		return PMU_DIR "cpu_core exists";
	return PMU_DIR "cpu does not exist";
}

/* Run every path's worker (worker_main()'s argv); EX_SKIP (said why) if
 * none can count. */
static int acc_measure(struct acc *a)
{
	struct path *p = a->p;
	char reps[32];
	const char *args[] = { reps, a->nlist, a->event, NULL };
	int i;

	snprintf(reps, sizeof(reps), "%ld", a->reps);
	libdirs_default(&a->dirs);
	a->cpu = sched_getcpu();
	a->pmu = sysfs_pmu();
	/* ours-rdpmc, always active, runs first: can this machine count? */
	for (i = 0; i < NPATHS; i++) {
		worker_init(&p[i].w, i, &a->dirs);
		if (p[i].w.active) {
			worker_run(&p[i].w, "--_worker", a->cpu, args,
				   path_line, &p[i]);
			path_check(&p[i]);
		}
		if (p[i].w.exit_code == EX_SKIP && p[i].nopmu[0] &&
		    i == WORKER_RDPMC) {
			msg("needs a core PMU to count instructions, and this "
			    "machine has none usable: %s; %s. Skipped.",
			    a->pmu, p[i].nopmu);
			return EX_SKIP;
		}
	}
	return EX_OK;
}

static void print_header(const struct acc *a)
{
	const struct path *p;
	struct utsname un = { 0 };

	uname(&un); /* no name if it fails */
	printf(PROG ": error of %s measurements through PAPI, in "
		    "instructions (after Zaparanuks et al.)\n",
	       a->event);
	printf("%-10s: %s %s, %ld CPUs online, workers pinned to cpu %d; %s\n",
	       "machine", un.sysname, un.release, sysconf(_SC_NPROCESSORS_ONLN),
	       a->cpu, a->pmu);
	printf("%-10s: null (no instruction) and loop (mov; N x {dec; nop; "
	       "jnz}: 1+3N), %ld repetitions each\n",
	       "benchmarks", a->reps);
	for (p = a->p; p < a->p + NPATHS; p++)
		if (p->w.active)
			printf("%-10s: %s, fast_counter_read=%d%s%s\n",
			       p->w.name,
			       p->w.lib[0] ? p->w.lib : "(library unknown)",
			       p->w.fcr, p->shown ? "" : "; not shown: ",
			       p->shown ? "" : p->why);
}

/* The report; EX_FAIL if a worker or a measurement failed. */
static int acc_report(const struct acc *a)
{
	const struct path *p;
	int k, hw, rc = EX_OK;
	char h[24];

	print_header(a);
	printf("\nnull benchmark (nothing between the calls): error = "
	       "measured - 0 instructions\n");
	printf("%-11s %-12s %-11s %8s %8s %8s %8s %8s\n", "path", "domain",
	       "pattern", "median", "p10", "p90", "min", "max");
	print_rows(a, "null ", "%-11s %s\n");
	printf("\nloop benchmark (1+3N instructions): median error = measured "
	       "- (1+3N);\nloop-null: median error at the largest N less the "
	       "null benchmark's; growth: least-squares\nslope of the median "
	       "error over N, instructions per iteration and per million\n");
	printf("%-11s %-12s %-11s", "path", "domain", "pattern");
	for (k = 0; k < a->nns; k++) {
		snprintf(h, sizeof(h), "N=%ld", a->ns[k]);
		printf(" %9s", h);
	}
	printf(" %9s %11s %9s\n", "loop-null", "growth/it", "per 1e6");
	print_rows(a, "loop ", "%-11s %s\n");
	printf("\nloop check (hardware): the loop's instructions per "
	       "iteration:\n");
	hw = print_rows(a, "hw ", "  %-11s %s\n");
	printf("loop check (hardware): %s\n", hw < 0 ? "not measured" :
					      hw     ? "ok" :
						       "WRONG");
	/* a path not active never ran: no exit code, signal nor message */
	for (p = a->p; p < a->p + NPATHS; p++)
		if (p->errs || (p->w.exit_code && p->w.exit_code != EX_SKIP) ||
		    p->w.signo || p->w.fatal[0])
			rc = EX_FAIL;
	return rc;
}

int main(int argc, char **argv)
{
	static struct acc a;

	tool_prog = PROG;
	if (argc == 8 && !strcmp(argv[1], "--_worker"))
		return worker_main(argv);
	if (parse_opts(argc, argv, &a))
		return check_loop();
	if (!HAVE_LOOP) {
		msg("the loop benchmark is implemented for x86-64 only; "
		    "skipped");
		return EX_SKIP;
	}
	/* the rows are freed as the process exits */
	return acc_measure(&a) == EX_SKIP ? EX_SKIP : acc_report(&a);
}
