/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_overhead's options, and which side of the pipe this process is:
 * the parent (no --_papi/--_floor) or a worker it re-executed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "overhead.h"

const char *const tool_prog = PROG;

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
		"  --plot FILE.png  also draw boxplots with gnuplot\n" LIBDIRS_USAGE,
		WARMUP, SW_SCALE_MAX);
}

int set_sizes(int nev, int *sizes)
{
	sizes[0] = 1;
	if (nev > 1) {
		sizes[1] = nev;
		return 2;
	}
	return 1;
}

enum { OPT_CSV = OPT_TOOL, OPT_PLOT };

static const struct option long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "plot", required_argument, NULL, OPT_PLOT },
	LIBDIRS_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

/* Option @c with getopt's optarg into @o; dies on bad input. */
static void parse_opt(int c, struct opts *o)
{
	switch (c) {
	case 'n':
		o->n = count_arg("-n", optarg, MAX_N);
		break;
	case 'r':
		o->rounds = count_arg("-r", optarg, MAX_ROUNDS);
		break;
	case 'e':
		o->events = optarg;
		break;
	case 'v':
		o->verbose = 1;
		break;
	case OPT_CSV:
		o->csv = 1;
		break;
	case OPT_PLOT:
		o->plot = optarg;
		break;
	}
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	o->n = 1000;
	o->rounds = 5;
	while ((c = libdirs_getopt(argc, argv, "+:n:r:e:vh", long_opts, usage,
				   &o->dirs)) != -1)
		parse_opt(c, o);
	if (o->plot)
		plot_check(o->plot);
	if (o->events)
		events_arg(o->events, MAX_EVENTS);
	libdirs_default(&o->dirs);
}

/* A worker: argv = PROG --_papi|--_floor FD CPU N EVENTS SCALE. */
static int worker_main(char **argv)
{
	static char evbuf[1024], scbuf[1024];
	char *names[MAX_EVENTS], *scale[MAX_EVENTS];
	char **arg = worker_start(argv, WORKER_TIMEOUT);
	int nev = 0, nscale = 0;
	long n;

	if (parse_long(arg[0], 1, MAX_N, &n))
		return EX_USAGE;
	snprintf(evbuf, sizeof(evbuf), "%s", arg[1]);
	snprintf(scbuf, sizeof(scbuf), "%s", arg[2]);
	if (evbuf[0] && (nev = split_events(evbuf, names, MAX_EVENTS)) < 1) {
		emit("usage bad event list");
		return EX_USAGE;
	}
	if (scbuf[0] && (nscale = split_events(scbuf, scale, MAX_EVENTS)) < 1) {
		emit("usage bad scaling event list");
		return EX_USAGE;
	}
	if (!strcmp(argv[1], "--_floor"))
		return nev ? floor_worker(n, names, nev, scale, nscale) :
			     EX_USAGE;
	return papi_worker(n, names, nev, scale, nscale);
}

int main(int argc, char **argv)
{
	static struct ovh o;
	int rc;

	if (argc == 7 &&
	    (!strcmp(argv[1], "--_papi") || !strcmp(argv[1], "--_floor")))
		return worker_main(argv);
	parse_opts(argc, argv, &o.o);
	rc = ovh_measure(&o);
	cpu_model(o.model, sizeof(o.model));
	if (o.o.csv)
		print_csv(&o);
	else
		print_report(&o);
	if (o.o.plot && plot(&o))
		rc = EX_FAIL;
	else if (o.o.plot && !o.o.csv)
		printf("\nplot: %s\n", o.o.plot);
	ovh_free(&o);
	return rc;
}
