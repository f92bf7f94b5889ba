/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_stat: count a whole command with PAPI, as perf stat does.
 *
 * Counting starts at the exec of COMMAND and ends at its exit: the child
 * waits on a pipe (command.h) while the parent attaches one PAPI event set
 * per component to it with LOPE_ENABLE_ON_EXEC=1 (sets.c), which asks our
 * perf_event component to leave the start to the kernel, at the exec;
 * with stock PAPI, counting starts at PAPI_start instead.  The whole
 * protocol: doc/papi_stat.md.
 *
 * In a parallel job each rank labels its report with its rank, host and
 * CPUs, or with --job-dir writes it into a directory for a merged report
 * (job.h).
 *
 * Exit status: the command's (128 + signal if a signal killed it), 127 if
 * it could not be executed, 2 for bad input (nothing was run), 1 when
 * counting failed.  --merge: 0, 1 when ranks are missing, 2 bad input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "papi.h"

#include "../tool.h"
#include "command.h"
#include "stat.h"

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

/* Options into *@o, or exit 2 (said why, as tool_getopt()). */
static void parse_opts(int argc, char **argv, struct opts *o)
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

	*o = (struct opts){ .runs = 1, .inherit = 1 };
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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * The CPUs the command starts with, and its counters attached and started
 * while the child waits; -1: the child abandoned.
 */
static int arm(struct stat_run *r, struct command *c)
{
	int bad, ret;

	if (!r->job.cpus[0])
		job_cpus(c->pid, r->job.cpus, sizeof(r->job.cpus));
	ret = sets_build(r, c->pid, &bad);
	if (ret == PAPI_OK)
		ret = sets_start(r);
	if (ret != PAPI_OK) {
		msg("cannot count %s on the command: %s",
		    bad >= 0 ? r->ev[bad].name : "the events",
		    PAPI_strerror(ret));
		sets_delete(r);
		command_abandon(c);
		return -1;
	}
	return 0;
}

/*
 * One run: *status gets the command's shell status.  Returns 0 when the
 * command ran and was counted, -1 when papi_stat failed (*status is then
 * papi_stat's own exit code).
 */
static int run_once(struct stat_run *r, int *status)
{
	struct command c;
	int err;
	double t0;

	*status = EX_FAIL;
	if (command_start(&c, r->o.argv) || arm(r, &c)) {
		if (command_interrupted)
			*status = 128 + command_interrupted;
		return -1;
	}
	t0 = now();
	err = command_finish(&c, status);
	if (err) {
		sets_delete(r); /* no counter outlives a failed exec */
		msg("cannot run '%s': %s", r->o.argv[0], strerror(err));
		*status = EX_NOEXEC;
		return -1;
	}
	stats_add(&r->elapsed, now() - t0);
	sets_stop(r);
	sets_delete(r);
	r->runs++;
	return 0;
}

/* Library, events, and one trial build of the sets: all before any run. */
static int setup(struct stat_run *r)
{
	int ret, bad;

	ret = PAPI_library_init(PAPI_VER_CURRENT);
	if (ret != PAPI_VER_CURRENT) {
		msg("PAPI_library_init: %s",
		    ret > 0 ? "version mismatch" : PAPI_strerror(ret));
		return EX_FAIL;
	}
	(void)PAPI_multiplex_init();
	ret = r->o.events ? events_parse(r, r->o.events) : events_default(r);
	if (ret)
		return r->nev || r->o.events ? EX_USAGE : EX_FAIL;
	sets_plan(r);
	ret = sets_build(r, 0, &bad);
	if (ret != PAPI_OK) {
		msg("event '%s' cannot be counted here: %s", r->ev[bad].name,
		    PAPI_strerror(ret));
		return EX_USAGE;
	}
	sets_delete(r);
	return 0;
}

/* -o's file @path (close-on-exec: the command does not inherit it), or
 * @dflt: NULL if it cannot be opened (said why). */
static FILE *out_open(const char *path, FILE *dflt)
{
	FILE *f = path ? fopen(path, "we") : dflt;

	if (!f)
		msg("cannot open %s: %s", path, strerror(errno));
	return f;
}

/* Close @f, or flush @dflt: 0, or EX_FAIL (said why). */
static int out_close(FILE *f, FILE *dflt, const char *path)
{
	if (f != dflt ? fclose(f) : fflush(f)) {
		msg("writing %s: %s", path ? path : "the report",
		    strerror(errno));
		return EX_FAIL;
	}
	return 0;
}

/* The merged report of @dir to -o's file or @dflt: merge_dir()'s status,
 * @bad_open if -o cannot be opened, EX_FAIL if it cannot be written. */
static int merged(const struct opts *o, const char *dir, FILE *dflt,
		  int bad_open)
{
	FILE *out = out_open(o->out, dflt);
	int ret;

	if (!out)
		return bad_open;
	ret = merge_dir(dir, out, o->sep);
	return out_close(out, dflt, o->out) ? EX_FAIL : ret;
}

/* The report, or with --job-dir the rank's file (and the merged report
 * if this rank prints it): 0, or an exit status. */
static int finish(struct stat_run *r)
{
	int ret;

	if (!r->o.job_dir) {
		report(r, r->out, r->o.sep);
		return out_close(r->out, stderr, r->o.out);
	}
	ret = job_finish(r);
	if (ret <= 0)
		return ret ? EX_FAIL : 0;
	return merged(&r->o, r->o.job_dir, stderr, EX_FAIL);
}

int main(int argc, char **argv)
{
	static struct stat_run r;
	int i, status = 0, ret;

	tool_prog = PROG;
	parse_opts(argc, argv, &r.o);
	if (r.o.merge)
		return merged(&r.o, r.o.merge, stdout, EX_USAGE);
	ret = setup(&r);
	if (ret)
		return ret;
	/* the rank, and with --job-dir its directory */
	if (job_detect(&r.job, r.o.job_dir != NULL) ||
	    (r.o.job_dir && job_dir_prepare(r.o.job_dir)))
		return EX_USAGE;
	/* with --job-dir, only the rank that prints the merge opens -o */
	if (!r.o.job_dir && !(r.out = out_open(r.o.out, stderr)))
		return EX_USAGE;
	command_signals();
	for (i = 0; i < r.o.runs && !command_interrupted && !ret; i++)
		ret = run_once(&r, &status);
	if (ret && status == EX_NOEXEC)
		return status;
	ret = finish(&r);
	if (ret && (ret == EX_FAIL || status == 0))
		status = ret;
	PAPI_shutdown();
	return status;
}
