/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_icount's options, its counting method, and which side of the pipe
 * this process is: the parent, or a worker it re-executed (--_papi,
 * --_floor).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "icount.h"

const char *const tool_prog = PROG;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [-m auto|callgrind|counter] [-n N] [-k K] "
		"[-e EV1,EV2,...] [--csv]\n"
		"                   [--keep DIR] [--ours LIBDIR] [--compare "
		"LIBDIR | --no-compare]\n"
		"Instructions per PAPI_start/stop/read/accum/reset call, "
		"counted exactly, our\n"
		"libpapi (user-space reads and forced read(2)) against another "
		"libpapi, the\n"
		"raw perf_event floor and PAPI's framework floor.  See "
		"papi_icount(1).\n"
		"  -m METHOD        callgrind (user-space instructions, under "
		"valgrind) or\n"
		"                   counter (hardware instructions counter, "
		"user and kernel);\n"
		"                   auto (default): callgrind if valgrind is "
		"installed\n"
		"  -n N             calls per case (default %d, after %d "
		"uncounted ones)\n"
		"  -k K             sets of 1 to K events (default and at most "
		"%d)\n"
		"  -e LIST          the events (default: generic hardware "
		"events if usable,\n"
		"                   else software events); sets of the first "
		"1, 2, ... of them\n"
		"  --csv            machine-readable output\n"
		"  --keep DIR       keep callgrind's dumps in DIR/COLUMN/ (for "
		"callgrind_annotate)\n" LIBDIRS_USAGE,
		DEFAULT_N, WARMUP, MAX_EVENTS);
}

enum { OPT_CSV = OPT_TOOL, OPT_KEEP };

static const struct option long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "method", required_argument, NULL, 'm' },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "keep", required_argument, NULL, OPT_KEEP },
	LIBDIRS_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

static void parse_opt(int c, struct opts *o)
{
	switch (c) {
	case 'm':
		if (strcmp(optarg, "auto") && strcmp(optarg, "callgrind") &&
		    strcmp(optarg, "counter"))
			die(EX_USAGE,
			    "-m '%s': the method is auto, callgrind or counter",
			    optarg);
		o->method = optarg;
		break;
	case 'n':
		o->n = count_arg("-n", optarg, MAX_N);
		break;
	case 'k':
		o->maxev = (int)count_arg("-k", optarg, MAX_EVENTS);
		break;
	case 'e':
		o->events = optarg;
		break;
	case OPT_CSV:
		o->csv = 1;
		break;
	case OPT_KEEP:
		o->keep = optarg;
		break;
	}
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	o->n = DEFAULT_N;
	o->maxev = MAX_EVENTS;
	o->method = "auto";
	while ((c = libdirs_getopt(argc, argv, "+:m:n:k:e:h", long_opts, usage,
				   &o->dirs)) != -1)
		parse_opt(c, o);
	if (o->events)
		events_arg(o->events, MAX_EVENTS);
	if (o->keep && access(o->keep, W_OK))
		die(EX_USAGE, "--keep %s: not a writable directory", o->keep);
	libdirs_default(&o->dirs);
}

/* A worker: argv = PROG --_papi|--_floor FD CPU METHOD N MAXEV EVENTS. */
static int worker_main(char **argv)
{
	static char evbuf[1024];
	char **arg = worker_start(argv, WORKER_TIMEOUT);
	struct wargs a = { .method = arg[0] };
	long k;

	if (parse_long(arg[1], 1, MAX_N, &a.n) ||
	    parse_long(arg[2], 1, MAX_EVENTS, &k))
		return EX_USAGE;
	a.maxev = (int)k;
	scopy(evbuf, sizeof(evbuf), arg[3]);
	if (evbuf[0]) {
		a.nev = split_events(evbuf, a.names, MAX_EVENTS);
		if (a.nev < 1) {
			emit("usage -e: 1 to %d events", MAX_EVENTS);
			return EX_USAGE;
		}
		a.nev = a.nev < a.maxev ? a.nev : a.maxev;
	}
	if (!strcmp(argv[1], "--_floor"))
		return floor_worker(&a);
	return papi_worker(&a);
}

int main(int argc, char **argv)
{
	static struct ic ic;
	int rc;

	if (argc == 8 &&
	    (!strcmp(argv[1], "--_papi") || !strcmp(argv[1], "--_floor")))
		return worker_main(argv);
	parse_opts(argc, argv, &ic.o);
	pick_method(&ic);
	rc = ic_measure(&ic);
	if (ic.o.csv)
		print_csv(&ic);
	else
		print_report(&ic);
	ic_free(&ic);
	return rc;
}
