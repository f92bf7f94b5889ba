/* SPDX-License-Identifier: BSD-3-Clause */
/* papi_stat's options. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tool.h"
#include "stat.h"

#define MAX_RUNS 100000

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [-e EVENT[,EVENT...]] [-r N] [-o FILE] "
		"[-x SEP] [-d DOMAIN] [-i]\n"
		"                 [--job-dir DIR] -- COMMAND [ARGS...]\n"
		"       " PROG " --merge DIR [-o FILE] [-x SEP]\n"
		"  -e EVENTS  PAPI event names, comma separated (default: "
		"software events,\n"
		"             plus hardware presets where they can be counted)\n"
		"  -r N       run COMMAND N times: mean and relative spread\n"
		"  -o FILE    write the report to FILE (default: stderr; "
		"--merge: stdout)\n"
		"  -x SEP     CSV: value, unit, event, spread separated by "
		"SEP\n"
		"  -d DOMAIN  user, kernel or all (default: user and kernel "
		"where allowed)\n"
		"  -i         do not count the command's children\n"
		"  --job-dir DIR  in a parallel job: each rank writes its "
		"counts into DIR,\n"
		"             the last one to finish prints the merged report\n"
		"  --merge DIR    print the merged report of the ranks' files "
		"in DIR\n");
}

static int parse_domain(const char *s, int *domain)
{
	if (strcmp(s, "user") == 0)
		*domain = PAPI_DOM_USER;
	else if (strcmp(s, "kernel") == 0)
		*domain = PAPI_DOM_KERNEL;
	else if (strcmp(s, "all") == 0)
		*domain = PAPI_DOM_USER | PAPI_DOM_KERNEL;
	else
		return -1;
	return 0;
}

static int parse_runs(const char *s, int *runs)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > MAX_RUNS)
		return -1;
	*runs = (int)v;
	return 0;
}

static const struct option longopts[] = {
	{ "job-dir", required_argument, NULL, 'J' },
	{ "merge", required_argument, NULL, 'M' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* With --merge, only -o and -x mean something, and there is no command. */
static int check_merge(const struct opts *o, int counting, int argc)
{
	if (counting || o->job_dir) {
		msg("--merge takes only -o and -x");
		return -1;
	}
	if (optind < argc) {
		msg("--merge runs no command");
		return -1;
	}
	return 0;
}

int parse_opts(int argc, char **argv, struct opts *o)
{
	int c, counting = 0;

	memset(o, 0, sizeof(*o));
	o->runs = 1;
	o->inherit = 1;
	while ((c = getopt_long(argc, argv, "+e:r:o:x:d:ih", longopts, NULL)) !=
	       -1) {
		counting |= c > 0 && strchr("erdi", c) != NULL;
		switch (c) {
		case 'e':
			o->events = optarg;
			break;
		case 'r':
			if (parse_runs(optarg, &o->runs)) {
				msg("-r wants a number of runs from 1 to %d, "
				    "not '%s'",
				    MAX_RUNS, optarg);
				return -1;
			}
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'x':
			o->sep = optarg;
			break;
		case 'd':
			if (parse_domain(optarg, &o->domain)) {
				msg("-d wants user, kernel or all, not '%s'",
				    optarg);
				return -1;
			}
			break;
		case 'i':
			o->inherit = 0;
			break;
		case 'J':
			o->job_dir = optarg;
			break;
		case 'M':
			o->merge = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (o->merge)
		return check_merge(o, counting, argc);
	if (optind >= argc) {
		msg("no command given");
		usage(stderr);
		return -1;
	}
	o->argv = argv + optind;
	return 0;
}
