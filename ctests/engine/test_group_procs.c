/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's groups and other processes and pages, on real kernel
 * software events of the calling thread (sw_group.h): LOPE_INHERIT counts
 * the children forked after enable, a mappable event (the msr PMU's tsc)
 * is mapped, guarded and read with read(2), and a forked child reads with
 * read(2) without touching the parent's pages.  Times are checked against
 * spans of the kernel's own task-clock (span.h), exactly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lope.h"
#include "report.h"
#include "span.h"
#include "sw_group.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* LOPE_INHERIT: children forked after enable are counted              */

static pid_t fork_burner(int ms)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		burn_ms(ms);
		_exit(0);
	}
	return pid;
}

static int reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void test_inherit(void)
{
	static const struct {
		unsigned int flags;
		int nev;
		int counted;
	} rows[] = {
		{ LOPE_INHERIT, 1, 1 },
		{ LOPE_INHERIT, 4, 1 },
		{ LOPE_INHERIT | LOPE_SEPARATE, 4, 1 },
		{ 0, 4, 0 },
	};
	unsigned int r;

	for (r = 0; r < ARRAY_SIZE(rows); r++) {
		struct lope_group *g;
		struct span sp;
		int64_t v[NEV];
		char name[160];
		pid_t pid;
		int rc;

		lope_name(name, sizeof(name),
			  "inherit_flags_%#x_%d_events_busy_child_%s",
			  rows[r].flags, rows[r].nev,
			  rows[r].counted ? "counted" : "not_counted");
		rc = make_group(&g, 0, rows[r].flags, rows[r].nev);
		if (rc) {
			lope_fail(name, "open rc %d (%s)", rc, strerror(-rc));
			continue;
		}
		/* The reference: this thread's task-clock, with the child's
		 * when the row counts it (its count joins ours at its exit,
		 * before the reap). */
		if (span_open(&sp, PERF_COUNT_SW_TASK_CLOCK, 0,
			      rows[r].counted) < 0) {
			lope_fail(name, "span: %s", strerror(errno));
			lope_group__delete(g);
			continue;
		}
		span_mark(&sp);
		rc = lope_group__enable(g);
		span_mark(&sp);
		pid = fork_burner(200);
		if (pid < 0 || reap(pid) < 0) {
			lope_fail(name, "child failed");
			span_close(&sp);
			lope_group__delete(g);
			continue;
		}
		span_mark(&sp);
		rc |= lope_group__read(g, v);
		span_mark(&sp);
		if (rc)
			lope_fail(name, "rc %d", rc);
		else if (!span_holds(&sp, v[EV_TASK_CLOCK]))
			lope_fail(name,
				  "task-clock %" PRId64 " ns after a child "
				  "burned 200 ms; ours%s: [%lld, %lld] ns",
				  v[EV_TASK_CLOCK],
				  rows[r].counted ? " and the child's" : "",
				  span_lo(&sp), span_hi(&sp));
		else
			check_read_path(name, g);
		lope_info("inherit flags %#x: task-clock %" PRId64
			  " ns, nr_mapped %d",
			  rows[r].flags, v[EV_TASK_CLOCK],
			  lope_group__nr_mapped(g));
		span_close(&sp);
		lope_group__delete(g);
	}
}

/* ------------------------------------------------------------------ */
/* A mappable event (msr/tsc): mapped, guarded, read with read(2)      */

static void test_mappable(void)
{
	static const struct {
		unsigned int flags;
		int nsw;         /* software events after the tsc */
		int want_mapped; /* -1: not specified */
	} rows[] = {
		{ 0, 0, 1 },
		{ 0, 2, 1 },
		{ LOPE_SEPARATE, 2, 1 },
		/* never read in user space: not mapped, not asked for */
		{ LOPE_NO_RDPMC, 0, 0 },
		{ LOPE_NO_RDPMC, 2, 0 },
		{ LOPE_INHERIT, 0, 0 },
	};
	unsigned int r;

	if (!have_tsc) {
		lope_skip("mappable_event_msr_tsc", "%s", tsc_why);
		return;
	}
	for (r = 0; r < ARRAY_SIZE(rows); r++) {
		struct perf_event_attr a[NEV + 1];
		struct lope_group *g;
		int64_t v0[NEV + 1], v1[NEV + 1];
		char name[200];
		int rc, n = mixed_attrs(a, rows[r].nsw), mapped;

		lope_name(name, sizeof(name),
			  "mappable_event_msr_tsc_and_%d_software_flags_%#x",
			  rows[r].nsw, rows[r].flags);
		rc = make_group_attrs(&g, 0, rows[r].flags, a, n);
		if (rc) {
			lope_fail(name, "open rc %d (%s)", rc, strerror(-rc));
			continue;
		}
		mapped = lope_group__nr_mapped(g);
		rc = lope_group__enable(g);
		rc |= lope_group__read(g, v0);
		burn_ms(5);
		rc |= lope_group__read(g, v1);
		if (rc)
			lope_fail(name, "rc %d", rc);
		else if (rows[r].want_mapped >= 0 &&
			 mapped != rows[r].want_mapped)
			lope_fail(name, "nr_mapped %d, want %d", mapped,
				  rows[r].want_mapped);
		else if (v1[0] <= v0[0] || v0[0] < 0)
			lope_fail(name,
				  "tsc did not advance: %" PRId64
				  " then %" PRId64,
				  v0[0], v1[0]);
		else /* the page forbids rdpmc */
			check_read_path(name, g);
		lope_info("msr/tsc flags %#x: nr_mapped %d, tsc %" PRId64
			  " cycles over 5 ms busy",
			  rows[r].flags, mapped, v1[0] - v0[0]);
		lope_group__delete(g);
	}
}

/*
 * A forked child is another thread: lope.h says it reads with read(2).
 * The kernel does not copy perf mappings into the child, so a child that
 * touched the parent's page would die of SIGSEGV.
 */
static void test_fork_read(void)
{
	struct perf_event_attr a[NEV + 1];
	struct lope_group *g;
	int64_t v[NEV + 1];
	const char *name = "fork_child_reads_with_read2";
	pid_t pid;
	int rc, status, n;

	/* only mappable events, so that the owner would read the pages */
	if (have_tsc) {
		a[0] = tsc_attr;
		a[1] = tsc_attr;
		n = 2;
	} else {
		n = mixed_attrs(a, 2);
	}
	rc = make_group_attrs(&g, 0, 0, a, n);
	if (rc) {
		lope_fail(name, "open rc %d", rc);
		return;
	}
	rc = lope_group__enable(g);
	rc |= lope_group__read(g, v); /* the parent caches its tid */
	if (rc) {
		lope_fail(name, "parent rc %d", rc);
		lope_group__delete(g);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };

		(void)setrlimit(RLIMIT_CORE, &no_core);
		rc = lope_group__read(g, v);
		_exit(rc == 0 && lope_group__last_path(g) == LOPE_PATH_READ ?
			      0 :
			      1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		lope_fail(name, "fork/wait failed: %s", strerror(errno));
	else if (WIFSIGNALED(status))
		lope_fail(name, "child killed by signal %d (%s)",
			  WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (WEXITSTATUS(status) != 0)
		lope_fail(name, "child read failed or took the rdpmc path");
	else if (!have_tsc)
		lope_skip(name,
			  "no mappable event here (%s), so the child "
			  "had no page to touch",
			  tsc_why);
	else
		lope_pass(name);
	lope_group__delete(g);
}

int main(void)
{
	static void (*const tests[])(void) = {
		test_inherit,
		test_mappable,
		test_fork_read,
	};

	return sw_group_run(tests, ARRAY_SIZE(tests));
}
