/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Proves that lopelib_mmap__read() and lopelib_mmap__read_enabled() never
 * execute the counter-read instruction (rdpmc on x86, mrs pmevcntr on
 * arm64) when the page forbids it or says the event is off the PMU.  It
 * uses the engine's REAL reader (lopelib_hw_reader: lopelib_arch_rdpmc /
 * lopelib_arch_cycles) on simulated pages, each case in a forked child: on
 * a machine where user space may not read counters the instruction
 * faults (SIGSEGV on x86, SIGILL on arm64), so a child that returns
 * normally, with -EOPNOTSUPP or a descheduled event's count, shows the
 * instruction was not reached.
 *
 * The positive control reads a page that allows the read: the child is
 * expected to die of the fault, which shows the guard cases are
 * meaningful.  Then, where such a read can fault even when the page
 * allows it (riscv64), the fault guard's cases (test_guard()).  Where user-space reads really work (e.g. x86 with
 * /sys/bus/event_source/devices/cpu/rdpmc = 2) the control cannot fault
 * and the cases are reported as SKIP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmap_read.h"
#include "report.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct page_case {
	int line;
	const char *what;
	unsigned int cap_user_rdpmc;
	uint32_t index;
	unsigned int width;
	uint64_t ena, run;
	unsigned int cap_user_time;
	int enabled; /* read with lopelib_mmap__read_enabled() */
} cases[] = {
	{ __LINE__, "all-zero page (no PMU)", 0, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "cap_user_rdpmc=0", 0, 1, 48, 10, 10, 0, 0 },
	{ __LINE__, "cap_user_rdpmc=0 index=3 width=64", 0, 3, 64, 10, 10, 0,
	  0 },
	{ __LINE__, "cap_user_rdpmc=1 index=0", 1, 0, 48, 10, 10, 0, 0 },
	{ __LINE__, "cap_user_rdpmc=1 index=0 multiplexed", 1, 0, 48, 10, 5, 1,
	  0 },
	{ __LINE__, "cap_user_rdpmc=1 index=1 width=0", 1, 1, 0, 10, 10, 0, 0 },
	{ __LINE__, "cap_user_rdpmc=1 index=1 width=65", 1, 1, 65, 10, 10, 0,
	  0 },
	{ __LINE__, "multiplexed without cap_user_time", 1, 1, 48, 10, 5, 0,
	  0 },
	{ __LINE__, "enabled, index=0 (descheduled)", 1, 0, 48, 10, 5, 1, 1 },
	{ __LINE__, "enabled, index=0, never ran", 1, 0, 48, 10, 0, 1, 1 },
	{ __LINE__, "enabled, cap_user_rdpmc=0 index=0", 0, 0, 48, 10, 5, 1,
	  1 },
	{ __LINE__, "enabled, index=0 without cap_user_time", 1, 0, 48, 10, 5,
	  0, 1 },
};

/* The positive control: everything allows the read. */
static const struct page_case control = {
	__LINE__, "cap_user_rdpmc=1 index=1 width=48", 1, 1, 48, 10, 10, 0, 0
};

static void fill(struct perf_event_mmap_page *pc, const struct page_case *c)
{
	memset(pc, 0, sizeof(*pc));
	pc->lock = 2;
	pc->cap_user_rdpmc = c->cap_user_rdpmc;
	pc->index = c->index;
	pc->pmc_width = (uint16_t)c->width;
	pc->time_enabled = c->ena;
	pc->time_running = c->run;
	pc->cap_user_time = c->cap_user_time;
	pc->time_mult = 1;
}

/*
 * The fault guard (src/guard.c), where a read the page allows can still
 * fault (LOPE_ARCH_READ_SIGNAL: riscv64).  Each case in a child, after
 * the positive control showed that the read faults here:
 *   GUARDED_READ   the guard set, the control's read: skipped, so the
 *                  read falls back (exit 0), never a signal;
 *   CHAIN_RAISE    the program's handler set first, then the guard, then
 *                  a SIGILL sent: the program's handler runs (exit 3);
 *   DEFAULT_RAISE  the guard alone, a SIGILL sent: the default action;
 *   CHAIN_FAULT    as CHAIN_RAISE with a counter read not the engine's
 *                  (a program's own csrr): its handler runs;
 *   DEFAULT_FAULT  the guard alone, a program's own faulting csrr: the
 *                  default action, not a loop.
 */
enum guard_case {
	NO_GUARD, /* the page cases: nothing set */
	GUARDED_READ,
	CHAIN_RAISE,
	DEFAULT_RAISE,
	CHAIN_FAULT,
	DEFAULT_FAULT
};

static void programs_handler(int sig)
{
	(void)sig;
	_exit(3);
}

/* A counter read that is not the engine's: the cycle CSR, unguarded. */
static void own_counter_read(void)
{
#if defined(__riscv)
	uint64_t v;

	__asm__ __volatile__("csrr %0, cycle" : "=r"(v));
	(void)v;
#endif
}

/* What a child does before its read (see enum guard_case). */
static void before_read(enum guard_case what)
{
	if (what == NO_GUARD)
		return;
	if (what == CHAIN_RAISE || what == CHAIN_FAULT)
		(void)signal(SIGILL, programs_handler);
	if (lopelib_guard__install() != 0)
		_exit(4);
	if (what == CHAIN_RAISE || what == DEFAULT_RAISE)
		(void)raise(SIGILL);
	if (what == CHAIN_FAULT || what == DEFAULT_FAULT)
		own_counter_read();
	if (what != GUARDED_READ)
		_exit(5); /* nothing stopped the program */
}

/*
 * Run one read of page @c in a child, after @what.  Returns the child's
 * wait status; the child exits 0 when the read did not read a counter
 * (-EOPNOTSUPP, or a descheduled event's count), 1 when it read one, 2 on
 * anything else.
 */
static int read_in_child(const struct page_case *c, enum guard_case what)
{
	static struct perf_event_mmap_page page __attribute__((aligned(4096)));
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };
		struct lope_counts out;
		int rc;

		(void)setrlimit(RLIMIT_CORE, &no_core);
		before_read(what);
		fill(&page, c);
		rc = c->enabled ? lopelib_mmap__read_enabled(&page,
							     &lopelib_hw_reader,
							     &out, NULL) :
				  lopelib_mmap__read(&page, &lopelib_hw_reader,
						     &out, NULL);
		_exit(rc == -EOPNOTSUPP || rc == 1 ? 0 : rc == 0 ? 1 : 2);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

static int faulted(int status)
{
	return WIFSIGNALED(status) &&
	       (WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGILL ||
		WTERMSIG(status) == SIGBUS);
}

static void describe(int status, char *buf, size_t len)
{
	if (status < 0)
		snprintf(buf, len, "fork/wait failed: %s", strerror(errno));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status))
		snprintf(buf, len, "exit %d (%s)", WEXITSTATUS(status),
			 WEXITSTATUS(status) == 0 ? "no counter read" :
			 WEXITSTATUS(status) == 1 ? "read succeeded" :
						    "unexpected rc");
	else
		snprintf(buf, len, "wait status %#x", status);
}

/* What the machine says about user-space reads, for the SKIP reason. */
static void rdpmc_switch(char *buf, size_t len)
{
	FILE *f = fopen(LOPE_ARCH_RDPMC_SWITCH, "r");
	int v;

	if (!f) {
		snprintf(buf, len, "%s not present", LOPE_ARCH_RDPMC_SWITCH);
		return;
	}
	if (fscanf(f, "%d", &v) == 1)
		snprintf(buf, len, "%s = %d", LOPE_ARCH_RDPMC_SWITCH, v);
	else
		snprintf(buf, len, "%s unreadable", LOPE_ARCH_RDPMC_SWITCH);
	fclose(f);
}

static void test_guard(int meaningful, const char *sw)
{
	static const struct {
		enum guard_case what;
		const char *name;
		int exits; /* the exit status wanted, or -1: killed by SIGILL */
	} rows[] = {
		{ GUARDED_READ, "fault_guard_a_faulting_read_falls_back", 0 },
		{ CHAIN_RAISE,
		  "fault_guard_a_sent_sigill_reaches_the_programs_handler", 3 },
		{ DEFAULT_RAISE,
		  "fault_guard_a_sent_sigill_takes_the_default_action", -1 },
		{ CHAIN_FAULT,
		  "fault_guard_the_programs_own_faulting_read_reaches_its_handler",
		  3 },
		{ DEFAULT_FAULT,
		  "fault_guard_the_programs_own_faulting_read_takes_the_default_action",
		  -1 },
	};
	char why[256];
	unsigned int i;
	int status;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		if (!LOPE_ARCH_READ_SIGNAL) {
			lope_skip(rows[i].name,
				  "on %s a read the page allows cannot fault: "
				  "no guard is set",
				  LOPE_ARCH_NAME);
			continue;
		}
		if (!meaningful) {
			lope_skip(rows[i].name,
				  "the counter read does not fault here (%s): "
				  "nothing for the guard to catch",
				  sw);
			continue;
		}
		status = read_in_child(&control, rows[i].what);
		describe(status, why, sizeof(why));
		if (rows[i].exits >= 0 ?
			    status >= 0 && WIFEXITED(status) &&
				    WEXITSTATUS(status) == rows[i].exits :
			    status >= 0 && WIFSIGNALED(status) &&
				    WTERMSIG(status) == SIGILL)
			lope_pass(rows[i].name);
		else
			lope_fail(rows[i].name, "child %s; want %s%d", why,
				  rows[i].exits >= 0 ? "exit " : "signal ",
				  rows[i].exits >= 0 ? rows[i].exits : SIGILL);
	}
}

int main(void)
{
	char why[256], sw[256], name[160];
	int status, meaningful;
	unsigned int i;

	rdpmc_switch(sw, sizeof(sw));
	lope_info("arch %s; %s", LOPE_ARCH_NAME, sw);

	/* Positive control first: does the instruction fault here at all? */
	status = read_in_child(&control, NO_GUARD);
	describe(status, why, sizeof(why));
	meaningful = status >= 0 && faulted(status);
	lope_info("rdpmc guard: positive control: %s", control.what);
	lope_name(name, sizeof(name), "rdpmc_guard_positive_control_faults");
	if (meaningful)
		lope_pass(name);
	else if (status >= 0 && WIFEXITED(status))
		lope_skip(name,
			  "the counter read did not fault (%s; %s): "
			  "user-space reads are allowed on this machine, so "
			  "a fault cannot prove the guard",
			  why, sw);
	else
		lope_fail(name, "%s", why);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct page_case *c = &cases[i];

		lope_name(name, sizeof(name), "rdpmc guard: %s", c->what);
		status = read_in_child(c, NO_GUARD);
		describe(status, why, sizeof(why));
		if (status >= 0 && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0) {
			if (meaningful)
				lope_pass(name);
			else
				lope_skip(
					name,
					"line %d: returned without a counter read, "
					"but the instruction does not fault "
					"here, so that proves nothing (%s)",
					c->line, sw);
		} else if (faulted(status)) {
			lope_fail(name,
				  "line %d: the counter was read although the "
				  "page forbids it: child %s",
				  c->line, why);
		} else {
			lope_fail(name,
				  "line %d: child %s, want no counter read",
				  c->line, why);
		}
	}
	test_guard(meaningful, sw);
	return lope_done();
}
