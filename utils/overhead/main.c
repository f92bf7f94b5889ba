/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_overhead's options, and which side of the pipe this process is:
 * the parent, or a worker it re-executed (--_papi, --_floor).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "overhead.h"
#include "timer.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [-m timer|exact|callgrind|counter] [-n N] "
		"[-r R] [-k K]\n"
		"                     [-e EV1,EV2,...] [-v] [--csv] [--plot "
		"FILE.png] [--keep DIR]\n"
		"                     [--ours LIBDIR] [--compare LIBDIR | "
		"--no-compare]\n"
		"What one PAPI_start/stop/read/accum/reset call costs, our "
		"libpapi (user-space\n"
		"reads and forced read(2)) against another libpapi, the raw "
		"perf_event floor\n"
		"and PAPI's framework floor.  See papi_overhead(1).\n"
		"  -m METER         timer (default: " TIMER_UNIT
		" around each call), callgrind\n"
		"                   (user-space instructions, under valgrind), "
		"counter (hardware\n"
		"                   instructions counter, user and kernel) or "
		"exact (callgrind\n"
		"                   if valgrind is installed, else counter)\n"
		"  -n N             calls per case (default: timer 1000, else "
		"50)\n"
		"  -r R             rounds, each worker once per round "
		"(default: timer 5, else 1)\n"
		"  -k K             sets of 1 to K events (default and at most "
		"%d)\n"
		"  -e LIST          the events (default: generic hardware "
		"events if usable,\n"
		"                   else software events); sets of the first "
		"1, 2, ... of them\n"
		"  -v               also print each case's distribution\n"
		"  --csv            machine-readable output\n"
		"  --plot FILE.png  also draw boxplots with gnuplot\n"
		"  --keep DIR       keep callgrind's dumps in DIR/COLUMN/ (for "
		"callgrind_annotate)\n" LIBDIRS_USAGE,
		MAX_EVENTS);
}

enum { OPT_CSV = OPT_TOOL, OPT_KEEP, OPT_PLOT };

static const struct option long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "meter", required_argument, NULL, 'm' },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "plot", required_argument, NULL, OPT_PLOT },
	LIBDIRS_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

static void parse_opt(int c, struct opts *o)
{
	static const char *const meters[] = { "timer", "exact", "callgrind",
					      "counter" };
	size_t i;

	switch (c) {
	case 'm':
		for (i = 0; i < ARRAY_SIZE(meters); i++)
			if (!strcmp(optarg, meters[i]))
				o->meter = meters[i];
		if (strcmp(o->meter, optarg))
			die(EX_USAGE,
			    "-m '%s': the meter is timer, exact, callgrind or "
			    "counter",
			    optarg);
		break;
	case 'n':
		o->n = count_arg("-n", optarg, MAX_N);
		break;
	case 'r':
		o->rounds = count_arg("-r", optarg, MAX_ROUNDS);
		break;
	case 'k':
		o->maxev = (int)count_arg("-k", optarg, MAX_EVENTS);
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
	case OPT_KEEP:
		o->keep = optarg;
		break;
	case OPT_PLOT:
		o->plot = optarg;
		break;
	}
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	int c, timer;

	o->maxev = MAX_EVENTS;
	o->meter = "timer";
	while ((c = libdirs_getopt(argc, argv, "+:m:n:r:k:e:vh", long_opts,
				   usage, &o->dirs)) != -1)
		parse_opt(c, o);
	timer = !strcmp(o->meter, "timer");
	if (!o->n)
		o->n = timer ? 1000 : 50;
	if (!o->rounds)
		o->rounds = timer ? 5 : 1;
	if (o->events)
		events_arg(o->events, MAX_EVENTS);
	if (o->keep && access(o->keep, W_OK))
		die(EX_USAGE, "--keep %s: not a writable directory", o->keep);
	if (o->plot)
		plot_check(o->plot);
	libdirs_default(&o->dirs);
}

/* A worker: argv = PROG --_papi|--_floor FD CPU LIBDIR METER N MAXEV EVENTS. */
static int worker_main(char **argv)
{
	char **arg = worker_start(argv, WORKER_TIMEOUT);
	struct wargs a = { .meter = arg[0] };
	long k;

	if (parse_long(arg[1], 1, MAX_N, &a.n) ||
	    parse_long(arg[2], 1, MAX_EVENTS, &k))
		return EX_USAGE;
	a.maxev = (int)k;
	if (arg[3][0]) {
		a.nev = split_list(arg[3], a.names, MAX_EVENTS);
		if (a.nev < 1) {
			emit("usage -e: 1 to %d events", MAX_EVENTS);
			return EX_USAGE;
		}
		a.nev = a.nev < a.maxev ? a.nev : a.maxev;
	}
	return strcmp(argv[1], "--_floor") ? papi_worker(&a) : floor_worker(&a);
}

int main(int argc, char **argv)
{
	static struct ovh o;
	int rc;

	tool_prog = PROG;
	if (argc == 9 &&
	    (!strcmp(argv[1], "--_papi") || !strcmp(argv[1], "--_floor")))
		return worker_main(argv);
	parse_opts(argc, argv, &o.o);
	pick_meter(&o);
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
	return rc;
}
