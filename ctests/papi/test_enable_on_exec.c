/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_enable_on_exec: a set attached to a process while
 * LOPE_ENABLE_ON_EXEC=1 is in the environment (what utils/papi_stat does)
 * counts from the target's next exec, not from PAPI_start.
 *
 * The target is a forked child that waits on a pipe, then burns PRE_MS of
 * CPU, says so and waits again (the test reads the set then: before the
 * exec, whatever the load), then execs this program again as
 * "--busy POST_MS", which burns POST_MS and exits.  perf::TASK-CLOCK of the target must cover the
 * post-exec part only: exactly what the kernel's own task-clock of the
 * target armed for the same exec counted (span.h), which the PRE_MS
 * before the exec would exceed.  Without the variable the same run counts
 * both parts, within the target's task-clock read around PAPI_start and
 * PAPI_stop; a failed exec leaves the counters at 0; a set on the caller
 * itself ignores the variable and counts from PAPI_start.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <papi.h>

#include "proc.h"
#include "report.h"
#include "span.h"

#define ENV "LOPE_ENABLE_ON_EXEC"
#define PRE_MS 200
#define POST_MS 40
#define MS 1000000LL
#define STR(x) #x
#define XSTR(x) STR(x)

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void burn_ms(long long ms)
{
	long long end = cpu_ns() + ms * MS;
	volatile unsigned long x = 0;

	while (cpu_ns() < end)
		x++;
}

/*
 * What the target does after the fork: wait for a byte on @go, burn, say
 * so on @burnt, wait for another byte, exec @path.
 */
static _Noreturn void target(int go, int burnt, const char *path)
{
	char c;

	if (read(go, &c, 1) != 1)
		_exit(1);
	burn_ms(PRE_MS);
	if (write(burnt, "B", 1) != 1 || read(go, &c, 1) != 1)
		_exit(1);
	execl(path, path, "--busy", XSTR(POST_MS), (char *)NULL);
	_exit(127);
}

struct result {
	int ret;        /* PAPI error of the setup, or PAPI_OK */
	long long read; /* a read after the pre-exec burn, before the exec */
	long long stop; /* PAPI_stop after the target exited */
	int status;
	struct span from_exec;  /* the target's task-clock from its exec */
	struct span from_start; /* the same from the marks at PAPI_start */
};

/* Take the next mark of both of @r's spans: 0, or -1. */
static int mark(struct result *r)
{
	int a = span_mark(&r->from_exec), b = span_mark(&r->from_start);

	return a || b ? -1 : 0;
}

/*
 * Attach a TASK-CLOCK set to a waiting child, start, release, measure;
 * both spans marked around PAPI_start and around PAPI_stop, after the
 * target was reaped (they then read its final counts).
 */
static void measure(const char *exec_path, int env, struct result *r)
{
	int go[2], burnt[2], es = PAPI_NULL;
	pid_t pid;
	char c;

	memset(r, 0, sizeof(*r));
	r->from_exec.fd = r->from_start.fd = -1;
	if (pipe2(go, O_CLOEXEC)) {
		r->ret = PAPI_ESYS;
		return;
	}
	if (pipe2(burnt, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		r->ret = PAPI_ESYS;
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(burnt[0]);
		target(go[0], burnt[1], exec_path);
	}
	close(go[0]);
	close(burnt[1]);
	if (span_open_on_exec(&r->from_exec, PERF_COUNT_SW_TASK_CLOCK, pid) ||
	    span_open(&r->from_start, PERF_COUNT_SW_TASK_CLOCK, pid, 0))
		r->ret = PAPI_ESYS;
	if (r->ret == PAPI_OK)
		r->ret = PAPI_create_eventset(&es);
	if (r->ret == PAPI_OK)
		r->ret = PAPI_assign_eventset_component(es, 0);
	if (env)
		setenv(ENV, "1", 1);
	if (r->ret == PAPI_OK)
		r->ret = PAPI_attach(es, (unsigned long)pid);
	unsetenv(ENV);
	if (r->ret == PAPI_OK)
		r->ret = PAPI_add_named_event(es, "perf::TASK-CLOCK");
	if (r->ret == PAPI_OK && mark(r))
		r->ret = PAPI_ESYS;
	if (r->ret == PAPI_OK)
		r->ret = PAPI_start(es);
	if (r->ret == PAPI_OK && mark(r))
		r->ret = PAPI_ESYS;
	if (write(go[1], "G", 1) != 1 || read(burnt[0], &c, 1) != 1)
		r->ret = PAPI_ESYS;
	if (r->ret == PAPI_OK)
		r->ret = PAPI_read(es, &r->read);
	if (write(go[1], "E", 1) != 1)
		r->ret = PAPI_ESYS;
	close(go[1]);
	close(burnt[0]);
	waitpid(pid, &r->status, 0);
	if (r->ret == PAPI_OK && mark(r))
		r->ret = PAPI_ESYS;
	if (r->ret == PAPI_OK)
		r->ret = PAPI_stop(es, &r->stop);
	if (r->ret == PAPI_OK && mark(r))
		r->ret = PAPI_ESYS;
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	span_close(&r->from_exec);
	span_close(&r->from_start);
}

/*
 * measure() with the case @setup: the set attached, started and stopped.
 * 1 when it was, and the counts as information.
 */
static int measured(const char *setup, const char *exec_path, int env,
		    struct result *r)
{
	measure(exec_path, env, r);
	if (!lope_check(r->ret == PAPI_OK, setup, "%s", PAPI_strerror(r->ret)))
		return 0;
	lope_info("%s %s%s, exec %s: read before exec %lld ns, total %lld ns",
		  env ? "with" : "without", ENV, env ? "=1" : "", exec_path,
		  r->read, r->stop);
	return 1;
}

static void case_counts_from_exec(const char *self)
{
	struct result r;

	if (!measured("env_setup", self, 1, &r))
		return;
	lope_check(r.read == 0, "env_start_does_not_count_before_exec",
		   "read %lld ns while the target burnt CPU before its exec",
		   r.read);
	/*
	 * The kernel enabled the set's counter and the reference at the
	 * same exec and stopped both at the exit: the same count, to the
	 * nanosecond.  Counting from PAPI_start would add the PRE_MS burn.
	 */
	lope_check(span_holds(&r.from_exec, r.stop), "env_counts_from_exec",
		   "task-clock %lld ns; the target's own task-clock from its "
		   "exec %lld..%lld ns, from PAPI_start %lld..%lld ns (%d ms "
		   "burnt before the exec, %d after)",
		   r.stop, span_lo(&r.from_exec), span_hi(&r.from_exec),
		   span_lo(&r.from_start), span_hi(&r.from_start), PRE_MS,
		   POST_MS);
	lope_check(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		   "env_target_ran", "status 0x%x", r.status);
}

static void case_without_env(const char *self)
{
	struct result r;

	if (!measured("noenv_setup", self, 0, &r))
		return;
	lope_check(span_holds(&r.from_start, r.stop) &&
			   span_lo(&r.from_start) >
				   span_hi(&r.from_exec) + PRE_MS * MS / 2,
		   "noenv_counts_from_start",
		   "task-clock %lld ns; the target's own task-clock from "
		   "PAPI_start %lld..%lld ns, from its exec %lld ns: expected "
		   "the former, %d ms more",
		   r.stop, span_lo(&r.from_start), span_hi(&r.from_start),
		   span_hi(&r.from_exec), PRE_MS);
}

static void case_failed_exec(void)
{
	struct result r;

	if (!measured("failed_exec_setup", "/nonexistent/lope-test", 1, &r))
		return;
	lope_check(r.stop == 0, "failed_exec_counts_nothing",
		   "task-clock %lld ns: a failed exec must not enable", r.stop);
	lope_check(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127,
		   "failed_exec_status", "status 0x%x", r.status);
}

/* The variable only matters to attached sets. */
static void case_self_ignores_env(void)
{
	int es = PAPI_NULL, ret;
	long long v = 0;
	struct span s;

	if (span_open(&s, PERF_COUNT_SW_TASK_CLOCK, 0, 0)) {
		lope_fail("self_setup", "task-clock: %s", strerror(errno));
		return;
	}
	setenv(ENV, "1", 1);
	ret = PAPI_create_eventset(&es);
	if (ret == PAPI_OK)
		ret = PAPI_add_named_event(es, "perf::TASK-CLOCK");
	(void)span_mark(&s);
	if (ret == PAPI_OK)
		ret = PAPI_start(es);
	(void)span_mark(&s);
	burn_ms(20);
	(void)span_mark(&s);
	if (ret == PAPI_OK)
		ret = PAPI_stop(es, &v);
	(void)span_mark(&s);
	unsetenv(ENV);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	if (lope_check(ret == PAPI_OK, "self_setup", "%s", PAPI_strerror(ret)))
		lope_check(span_holds(&s, v), "self_set_ignores_env",
			   "task-clock %lld ns over 20 ms of CPU; ours from "
			   "PAPI_start to PAPI_stop %lld..%lld ns",
			   v, span_lo(&s), span_hi(&s));
	span_close(&s);
}

int main(int argc, char **argv)
{
	char self[4096];

	if (argc == 3 && strcmp(argv[1], "--busy") == 0) {
		burn_ms(atoll(argv[2]));
		return 0;
	}
	if (self_exe_or_fail(self, sizeof(self)))
		return lope_done();
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		lope_fail("library_init", "PAPI_library_init failed");
		return lope_done();
	}
	case_counts_from_exec(self);
	case_without_env(self);
	case_failed_exec();
	case_self_ignores_env();
	return lope_done();
}
