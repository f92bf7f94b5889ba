/* SPDX-License-Identifier: BSD-3-Clause */
/* papi_stat's options. */
#define _GNU_SOURCE
#include <string.h>

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

/* -d's @s as PAPI's domain, or exit 2. */
static int domain_arg(const char *s)
{
	if (strcmp(s, "user") == 0)
		return PAPI_DOM_USER;
	if (strcmp(s, "kernel") == 0)
		return PAPI_DOM_KERNEL;
	if (strcmp(s, "all") == 0)
		return PAPI_DOM_USER | PAPI_DOM_KERNEL;
	die(EX_USAGE, "-d wants user, kernel or all, not '%s'", s);
}

static const struct option longopts[] = {
	{ "job-dir", required_argument, NULL, 'J' },
	{ "merge", required_argument, NULL, 'M' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void parse_opts(int argc, char **argv, struct opts *o)
{
	int c, counting = 0;
	size_t k;
	/* the options that keep their argument */
	const struct {
		int c;
		const char **to;
	} keep[] = { { 'e', &o->events },
		     { 'o', &o->out },
		     { 'x', &o->sep },
		     { 'J', &o->job_dir },
		     { 'M', &o->merge } };

	memset(o, 0, sizeof(*o));
	o->runs = 1;
	o->inherit = 1;
	while ((c = tool_getopt(argc, argv, "+:e:r:o:x:d:ih", longopts, usage,
				1)) != -1) {
		counting |= strchr("erdi", c) != NULL;
		for (k = 0; k < ARRAY_SIZE(keep); k++)
			if (c == keep[k].c)
				*keep[k].to = optarg;
		if (c == 'r')
			o->runs = (int)count_arg("-r", optarg, MAX_RUNS);
		else if (c == 'd')
			o->domain = domain_arg(optarg);
		else if (c == 'i')
			o->inherit = 0;
	}
	/* with --merge, only -o and -x mean something, and no command */
	if (o->merge && (counting || o->job_dir))
		die(EX_USAGE, "--merge takes only -o and -x");
	if (o->merge && optind < argc)
		die(EX_USAGE, "--merge runs no command");
	if (!o->merge && optind >= argc) {
		usage(stderr);
		die(EX_USAGE, "no command given");
	}
	o->argv = argv + optind;
}
