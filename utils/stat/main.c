/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_stat: count a whole command with PAPI, as perf stat does.
 *
 *   papi_stat [-e EVENT[,EVENT...]] [-r N] [-o FILE] [-x SEP] [-d DOMAIN]
 *             [-i] [--job-dir DIR] -- COMMAND [ARGS...]
 *   papi_stat --merge DIR [-o FILE] [-x SEP]
 *
 * Counting starts at the exec of COMMAND and ends at its exit, and nothing
 * of the launcher is counted (the perf stat patch of Paul Mackerras, 2009):
 *
 *   1. fork; the child does a dummy execvp("") so that resolving execvp's
 *      PLT entry happens now, says "ready" on a pipe and blocks reading a
 *      second pipe;
 *   2. the parent builds one PAPI event set per component, attaches it to
 *      the child (PAPI_attach) with LOPE_ENABLE_ON_EXEC=1 in its own
 *      environment, which asks our perf_event component to open the
 *      counters with enable_on_exec, and starts it: such a set is left to
 *      the kernel, which enables it at the child's next exec;
 *   3. the parent writes "go"; the child execs COMMAND.  If that fails the
 *      child sends errno over the first pipe (close-on-exec, so a
 *      successful exec closes it instead) and exits 127;
 *   4. the parent waits for the child, stops the sets (the counts of an
 *      exited task stay readable) and prints them.
 *
 * With a component that ignores LOPE_ENABLE_ON_EXEC (stock PAPI) the
 * counters start at PAPI_start instead, and the child's wake-up and exec
 * are counted too, as with the 2009 patch.  Components that cannot attach
 * to a process count over the command's wall time, and say so.
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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Attach and start the counters while the child waits; -1: abandon it. */
static int arm(struct stat_run *r, pid_t pid)
{
	int bad, ret;

	ret = sets_build(r, pid, &bad);
	if (ret == PAPI_OK)
		ret = sets_start(r);
	if (ret != PAPI_OK) {
		msg("cannot count %s on the command: %s",
		    bad >= 0 ? r->ev[bad].name : "the events",
		    PAPI_strerror(ret));
		sets_delete(r);
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
	int err, ret, wst = 0;
	double t0;

	*status = EX_FAIL;
	if (command_start(&c, r->o.argv))
		return -1;
	ret = command_ready(&c);
	if (ret == 0 && !r->job.cpus[0]) /* what the command starts with */
		job_cpus(c.pid, r->job.cpus, sizeof(r->job.cpus));
	if (ret || arm(r, c.pid)) {
		command_abandon(&c);
		if (command_interrupted)
			*status = 128 + command_interrupted;
		return -1;
	}
	t0 = now();
	err = command_finish(&c, &wst);
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
	*status = command_status(wst);
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
		msg("event '%s' cannot be counted here: %s",
		    bad >= 0 ? r->ev[bad].name : "?", PAPI_strerror(ret));
		return EX_USAGE;
	}
	sets_delete(r);
	return 0;
}

static int open_output(struct stat_run *r)
{
	r->out = stderr;
	if (!r->o.out)
		return 0;
	/* close-on-exec: the command does not inherit the report file */
	r->out = fopen(r->o.out, "we");
	if (!r->out) {
		msg("cannot open %s: %s", r->o.out, strerror(errno));
		return -1;
	}
	return 0;
}

/* papi_stat --merge DIR: the report to stdout or -o FILE. */
static int merge_main(const struct opts *o)
{
	FILE *out = stdout;
	int ret;

	if (o->out) {
		out = fopen(o->out, "we");
		if (!out) {
			msg("cannot open %s: %s", o->out, strerror(errno));
			return EX_USAGE;
		}
	}
	ret = merge_dir(o->merge, out, o->sep);
	if (out != stdout ? fclose(out) : fflush(out)) {
		msg("writing %s: %s", o->out ? o->out : "the report",
		    strerror(errno));
		return EX_FAIL;
	}
	return ret;
}

/* The rank, and with --job-dir its directory: 0, or -1 (said why). */
static int job_setup(struct stat_run *r)
{
	if (job_detect(&r->job))
		return -1;
	if (!r->o.job_dir)
		return 0;
	if (r->job.rank < 0)
		job_single(&r->job);
	return job_dir_prepare(r->o.job_dir);
}

/* The report, or with --job-dir the rank's file: 0, or an exit status. */
static int finish(struct stat_run *r)
{
	if (r->o.job_dir)
		return job_finish(r);
	report(r, r->out, r->o.sep);
	if (r->out != stderr && fclose(r->out)) {
		msg("writing %s: %s", r->o.out, strerror(errno));
		return EX_FAIL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct stat_run r;
	int i, status = 0, ret;

	tool_prog = PROG;
	parse_opts(argc, argv, &r.o);
	if (r.o.merge)
		return merge_main(&r.o);
	ret = setup(&r);
	if (ret)
		return ret;
	if (job_setup(&r))
		return EX_USAGE;
	/* with --job-dir, only the rank that prints the merge opens -o */
	if (!r.o.job_dir && open_output(&r))
		return EX_USAGE;
	command_signals();
	for (i = 0; i < r.o.runs && !command_interrupted; i++) {
		if (run_once(&r, &status)) {
			if (status == EX_NOEXEC)
				return status;
			break;
		}
	}
	ret = finish(&r);
	if (ret && (ret == EX_FAIL || status == 0))
		status = ret;
	PAPI_shutdown();
	return status;
}
