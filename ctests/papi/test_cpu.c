/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cpu: cpu-wide counting with PAPI_CPU_ATTACH and system-wide
 * granularity (PAPI_set_opt(PAPI_GRANUL) per set, PAPI_set_granularity
 * for new sets) on real software events.
 *
 * This process pins itself to cpu 1 (when there is one) and sleeps while a
 * target pinned to cpu 0 spins, touches pages and sleeps in short steps.
 * A set attached to cpu 0 must count that target's work: its CPU time,
 * its page faults, its context switches, none of which are ours.  Its
 * clocks lie within the kernel's own clocks of cpu 0 read just before and
 * just after PAPI_start and PAPI_stop (span.h); a set counting one task
 * would be short of them.  Only lower bounds are asserted on the other
 * counts: other processes may run on cpu 0.
 * An invalid cpu is an error without a descriptor leak; an unprivileged
 * process (a child that dropped to uid 65534) gets PAPI_EPERM when
 * perf_event_paranoid forbids cpu-wide counting.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <sched.h>

#include "papi_interpose.h"
#include "papi_util.h"
#include "span.h"

enum { TC, CC, CS, PF, NEV };
static const char *const names[NEV] = {
	"perf::TASK-CLOCK",
	"perf::CPU-CLOCK",
	"perf::CONTEXT-SWITCHES",
	"perf::PAGE-FAULTS",
};

#define NPAGES 500
#define NSLEEPS 200

static int ncpus;
static cpu_set_t orig_affinity;
static struct span me; /* our thread's own task-clock */

static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * The software context-switch event fires in the scheduler, in kernel
 * mode: with exclude_kernel (PAPI_DOM_USER, the default) the kernel never
 * counts it.  Cpu-wide sets here count every domain: a set of names[]
 * counting every domain.
 */
static int make_cpu_set(int *set)
{
	int rc = make_named_set(set, names, NEV);

	return rc == PAPI_OK ? set_domain(*set, PAPI_DOM_ALL) : rc;
}

/*
 * What a target on cpu 0 did while the set ran, and cpu 0's own
 * task-clock and cpu-clock around PAPI_start and PAPI_stop.
 */
struct work {
	long long spun, switches, wall;
	int pages_ok;
	struct span tc, cc;
};

/* Mark both of @wk's spans: around a call, once before, once after. */
static void mark_cpu0(struct work *wk)
{
	(void)span_mark(&wk->tc);
	(void)span_mark(&wk->cc);
}

/*
 * Start @set, have a target pinned to cpu 0 spin 100 ms, touch NPAGES
 * pages and sleep NSLEEPS times, then read @set and stop it into @v.
 */
static int run_target_on_cpu0(int set, long long *v, struct work *wk)
{
	struct target w;
	long long t0;
	int rc;

	memset(wk, 0, sizeof(*wk));
	if (span_open_cpu(&wk->tc, PERF_COUNT_SW_TASK_CLOCK, 0) ||
	    span_open_cpu(&wk->cc, PERF_COUNT_SW_CPU_CLOCK, 0)) {
		lope_info("cpu 0's own clocks: %s", strerror(errno));
		span_close(&wk->tc);
		return PAPI_ESYS;
	}
	rc = target_spawn(&w, 0) < 0 ? PAPI_ESYS : PAPI_OK;
	/* The target pins itself first: a no-op command makes sure. */
	if (rc == PAPI_OK && target_do(&w, 'b', 0) == LLONG_MIN) {
		target_finish(&w);
		rc = PAPI_ESYS;
	}
	if (rc != PAPI_OK) {
		span_close(&wk->tc);
		span_close(&wk->cc);
		return rc;
	}
	mark_cpu0(wk);
	rc = PAPI_start(set);
	mark_cpu0(wk);
	t0 = wall_ns();
	if (rc == PAPI_OK) {
		wk->spun = target_do(&w, 'b', 100 * MS);
		wk->pages_ok = target_do(&w, 'p', NPAGES) == 0;
		wk->switches = target_do(&w, 's', NSLEEPS);
		rc = PAPI_read(set, v);
	}
	wk->wall = wall_ns() - t0;
	mark_cpu0(wk);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	else
		(void)PAPI_stop(set, v); /* if it started */
	mark_cpu0(wk);
	target_finish(&w);
	span_close(&wk->tc);
	span_close(&wk->cc);
	return rc;
}

/* The four checks every cpu-wide run of the target must pass. */
static void check_cpu_wide(const char *pfx, int rc, const long long *v,
			   const struct work *wk)
{
	char n[96];
	int i;

	for (i = 0; i < 2; i++) {
		const struct span *sp = i ? &wk->cc : &wk->tc;
		const char *clock = i ? "cpu" : "task";
		long long got = v[i ? CC : TC];

		snprintf(n, sizeof(n), "%s_%s_clock_includes_other_process",
			 pfx, clock);
		lope_check(rc == PAPI_OK && span_holds(sp, got), n,
			   "rc=%s %s-clock %lld ns, cpu 0's own %lld..%lld ns; "
			   "target on cpu 0 spun %lld ns; wall %lld ns",
			   papi_err(rc), clock, got, span_lo(sp), span_hi(sp),
			   wk->spun, wk->wall);
	}
	snprintf(n, sizeof(n), "%s_page_faults_include_other_process", pfx);
	lope_check(rc == PAPI_OK && wk->pages_ok && v[PF] >= NPAGES * 9 / 10, n,
		   "rc=%s page-faults %lld; the target touched %d pages",
		   papi_err(rc), v[PF], NPAGES);
	snprintf(n, sizeof(n), "%s_context_switches_include_other_process",
		 pfx);
	lope_check(rc == PAPI_OK && wk->switches >= NSLEEPS / 2 &&
			   v[CS] >= wk->switches,
		   n,
		   "rc=%s context-switches %lld; the target slept %d times, "
		   "%lld voluntary switches",
		   papi_err(rc), v[CS], NSLEEPS, wk->switches);
}

/*
 * The case @name: @set, started when @rc is PAPI_OK (the result of what
 * came before), counts the task-clock of the caller spinning 20 ms: our
 * own task-clock from PAPI_start to PAPI_stop.
 */
static void check_counts_caller(const char *name, int set, int rc)
{
	long long v[NEV] = { 0 }, own;

	span_clear(&me);
	(void)span_mark(&me);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	(void)span_mark(&me);
	own = spin_ns(20 * MS);
	(void)span_mark(&me);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	(void)span_mark(&me);
	lope_check(rc == PAPI_OK && span_holds(&me, v[TC]), name,
		   "rc=%s task-clock %lld ns, our own %lld..%lld ns (we spun "
		   "%lld ns)",
		   papi_err(rc), v[TC], span_lo(&me), span_hi(&me), own);
}

static void test_cmpinfo(void)
{
	const PAPI_component_info_t *ci = cmpinfo_or_exit();

	lope_check(ci->cpu == 1, "cmpinfo_cpu", "cpu=%d", ci->cpu);
	lope_check(ci->available_granularities & PAPI_GRN_SYS,
		   "cmpinfo_granularity_sys", "available_granularities=%#x",
		   ci->available_granularities);
	lope_info("available_granularities=%#x default_granularity=%#x",
		  ci->available_granularities, ci->default_granularity);
}

static void test_cpu_attach(void)
{
	PAPI_option_t opt;
	long long v[NEV] = { 0 };
	struct work wk;
	int set = PAPI_NULL, rc, fds = fd_count();

	rc = make_cpu_set(&set);
	if (rc == PAPI_OK)
		rc = set_cpu_attach(set, 0);
	if (!set_ok_or_drop("cpu_attach_cpu0", rc, &set))
		return;
	memset(&opt, 0, sizeof(opt));
	opt.cpu.eventset = set;
	rc = PAPI_get_opt(PAPI_CPU_ATTACH, &opt);
	lope_check(rc == 1 && opt.cpu.cpu_num == 0, "get_opt_cpu_attach",
		   "PAPI_get_opt(PAPI_CPU_ATTACH)=%d cpu_num=%u", rc,
		   opt.cpu.cpu_num);

	rc = run_target_on_cpu0(set, v, &wk);
	check_cpu_wide("cpu_attach", rc, v, &wk);
	lope_info("cpu 0 over %lld ns: task-clock %lld cpu-clock %lld "
		  "context-switches %lld page-faults %lld",
		  wk.wall, v[TC], v[CC], v[CS], v[PF]);

	/* cpu-wide events are read with read(2), one per kernel group. */
	rc = PAPI_start(set);
	rc = papi_read_makes_reads("cpu_attach_read_uses_read_syscall", set, rc,
				   v, 1);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);

	/* PAPI refuses a process attach on a cpu-attached set. */
	rc = PAPI_attach(set, (unsigned long)getpid());
	lope_check(rc == PAPI_ECMP, "attach_on_cpu_attached_set_ecmp",
		   "rc=%s, expected PAPI_ECMP", papi_err(rc));
	drop_set(&set);
	lope_check(fd_count() == fds, "cpu_attach_no_fd_leak",
		   "descriptors %d -> %d", fds, fd_count());
}

/* PAPI_CPU_ATTACH on a set without events: checked when they are added. */
static void test_cpu_attach_before_add(void)
{
	long long v[NEV] = { 0 };
	struct work wk;
	int set = PAPI_NULL, rc, i;

	rc = make_empty_set(&set);
	if (rc == PAPI_OK)
		rc = set_domain(set, PAPI_DOM_ALL);
	if (rc == PAPI_OK)
		rc = set_cpu_attach(set, 0);
	for (i = 0; rc == PAPI_OK && i < NEV; i++)
		rc = PAPI_add_named_event(set, names[i]);
	if (!set_ok_or_drop("cpu_attach_before_add", rc, &set))
		return;
	rc = run_target_on_cpu0(set, v, &wk);
	check_cpu_wide("cpu_attach_before_add", rc, v, &wk);
	drop_set(&set);
}

/* Per-set PAPI_GRN_SYS: the cpu we are on when it is set. */
static void test_granul_sys(void)
{
	long long v[NEV] = { 0 };
	struct work wk;
	int set = PAPI_NULL, rc;

	if (pin_self(0) < 0) {
		lope_fail("granul_sys_set", "sched_setaffinity: %s",
			  strerror(errno));
		return;
	}
	rc = make_cpu_set(&set);
	if (rc == PAPI_OK)
		rc = set_granularity(set, PAPI_GRN_SYS);
	lope_check(rc == PAPI_OK, "granul_sys_set", "rc=%s", papi_err(rc));
	/* Leave cpu 0 to the target; the set stays on cpu 0. */
	if (ncpus > 1)
		(void)pin_self(1);
	if (rc == PAPI_OK) {
		rc = run_target_on_cpu0(set, v, &wk);
		check_cpu_wide("granul_sys", rc, v, &wk);
	}

	/* Back to per-thread: our own time only. */
	check_counts_caller("granul_thr_after_sys_counts_caller", set,
			    set_granularity(set, PAPI_GRN_THR));
	drop_set(&set);

	rc = make_named_set(&set, names, NEV);
	if (rc == PAPI_OK)
		rc = set_granularity(set, PAPI_GRN_PROC);
	lope_check(rc < PAPI_OK, "granul_proc_refused",
		   "rc=%s (available_granularities has no PAPI_GRN_PROC)",
		   papi_err(rc));
	drop_set(&set);
}

/* PAPI_set_granularity: the default for sets created afterwards. */
static void test_default_granularity(void)
{
	long long v[NEV] = { 0 };
	struct work wk;
	int set = PAPI_NULL, rc, rc_def;

	if (pin_self(0) < 0) {
		lope_fail("set_granularity_sys", "sched_setaffinity: %s",
			  strerror(errno));
		return;
	}
	rc_def = PAPI_set_granularity(PAPI_GRN_SYS);
	lope_check(rc_def == PAPI_OK, "set_granularity_sys", "rc=%s",
		   papi_err(rc_def));
	rc = rc_def;
	if (rc == PAPI_OK)
		rc = make_cpu_set(&set);
	lope_check(rc == PAPI_OK, "default_granularity_sys_set_adds_events",
		   "rc=%s: a set created after PAPI_set_granularity("
		   "PAPI_GRN_SYS) cannot take events",
		   papi_err(rc));
	if (ncpus > 1)
		(void)pin_self(1);
	if (rc == PAPI_OK) {
		rc = run_target_on_cpu0(set, v, &wk);
		check_cpu_wide("default_granularity_sys", rc, v, &wk);
	}
	drop_set(&set);
	if (rc_def == PAPI_OK)
		(void)PAPI_set_granularity(PAPI_GRN_THR);
	rc = PAPI_get_opt(PAPI_DEFGRN, NULL);
	lope_check(rc == PAPI_GRN_THR, "set_granularity_thr_restored",
		   "PAPI_get_opt(PAPI_DEFGRN)=%d", rc);
}

/* A cpu that does not exist: an error, no leak, the set still counts us. */
static void test_bad_cpu(void)
{
	static const unsigned int bad[] = { 100000, 4096, (unsigned int)-1 };
	char n[64];
	int set = PAPI_NULL, rc, fds, i;

	rc = make_named_set(&set, names, NEV);
	if (!lope_check(rc == PAPI_OK, "bad_cpu_setup", "rc=%s", papi_err(rc)))
		return;
	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
		fds = fd_count();
		rc = set_cpu_attach(set, bad[i]);
		snprintf(n, sizeof(n), "cpu_attach_invalid_cpu_%u", bad[i]);
		lope_check(rc < PAPI_OK && fd_count() == fds, n,
			   "PAPI_CPU_ATTACH to cpu %u (of %d): %s, "
			   "descriptors %d -> %d",
			   bad[i], ncpus, papi_err(rc), fds, fd_count());
		lope_info("PAPI_CPU_ATTACH cpu %u: %s", bad[i], papi_err(rc));
	}
	check_counts_caller("set_counts_caller_after_bad_cpu", set, PAPI_OK);
	drop_set(&set);
}

/*
 * Unprivileged cpu-wide counting: a child drops to uid 65534 (losing every
 * capability), re-initialises PAPI and tries PAPI_CPU_ATTACH and
 * PAPI_GRN_SYS.  Exit status: bit 0 set when the attach was not
 * PAPI_EPERM, bit 1 when the granularity was not, 64 when setuid failed.
 */
static void test_eperm(void)
{
	int level = read_int("/proc/sys/kernel/perf_event_paranoid"), st;
	pid_t pid;

	if (level < 1) {
		lope_skip("unprivileged_cpu_attach_eperm",
			  "perf_event_paranoid is %d: cpu-wide counting is "
			  "allowed to everyone",
			  level);
		lope_skip("unprivileged_granul_sys_eperm",
			  "perf_event_paranoid is %d", level);
		return;
	}
	pid = fork();
	if (pid == 0) {
		int set = PAPI_NULL, rc, bits = 0;

		if (drop_to_nobody())
			_exit(64);
		if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
			_exit(65);
		rc = make_named_set(&set, names, 1);
		if (rc != PAPI_OK)
			_exit(66);
		if (set_cpu_attach(set, 0) != PAPI_EPERM)
			bits |= 1;
		drop_set(&set);
		rc = make_named_set(&set, names, 1);
		if (rc != PAPI_OK)
			_exit(66);
		if (set_granularity(set, PAPI_GRN_SYS) != PAPI_EPERM)
			bits |= 2;
		_exit(bits);
	}
	st = pid > 0 ? wait_child(pid) : -1;
	if (st == 64) {
		lope_skip("unprivileged_cpu_attach_eperm",
			  "cannot drop privileges to uid 65534");
		lope_skip("unprivileged_granul_sys_eperm",
			  "cannot drop privileges to uid 65534");
		return;
	}
	lope_check(st >= 0 && st < 64 && !(st & 1),
		   "unprivileged_cpu_attach_eperm",
		   "paranoid %d, uid 65534: child status %d (bit 0: "
		   "PAPI_CPU_ATTACH was not PAPI_EPERM; 65: init, 66: add "
		   "failed)",
		   level, st);
	lope_check(st >= 0 && st < 64 && !(st & 2),
		   "unprivileged_granul_sys_eperm",
		   "paranoid %d, uid 65534: child status %d (bit 1: "
		   "PAPI_GRN_SYS was not PAPI_EPERM)",
		   level, st);
}

/* Hardware variant: cpu-wide instructions include the target's. */
static void test_hw(void)
{
	static const char *const ins[] = { "perf::INSTRUCTIONS" };
	struct target w;
	long long v = 0, spun = 0;
	int set = PAPI_NULL, rc;

	if (!lope_core_pmu()) {
		lope_skip("hw_cpu_attach_counts_other_process",
			  LOPE_NO_CORE_PMU_REASON);
		return;
	}
	if (target_spawn(&w, 0) < 0) {
		lope_fail("hw_cpu_attach_counts_other_process", "fork");
		return;
	}
	rc = make_named_set(&set, ins, 1);
	if (rc == PAPI_OK)
		rc = set_cpu_attach(set, 0);
	rc = count_target_spin(set, rc, &w, 50 * MS, &v, &spun, NULL);
	lope_check(rc == PAPI_OK && v > 1000000,
		   "hw_cpu_attach_counts_other_process",
		   "rc=%s instructions on cpu 0: %lld while the target spun "
		   "%lld ns there",
		   papi_err(rc), v, spun);
	drop_set(&set);
	target_finish(&w);
}

int main(void)
{
	static void (*const tests[])(void) = {
		test_cmpinfo,
		test_cpu_attach,
		test_cpu_attach_before_add,
		test_granul_sys,
		test_default_granularity,
		test_bad_cpu,
		test_eperm,
		test_hw,
	};
	int rc;

	ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	sched_getaffinity(0, sizeof(orig_affinity), &orig_affinity);
	lope_info("%d cpus online; the target runs on cpu 0, we on cpu %d",
		  ncpus, ncpus > 1 ? 1 : 0);
	if (ncpus > 1 && pin_self(1) < 0)
		lope_info("cannot pin to cpu 1: %s", strerror(errno));
	span_open_self_or_exit(&me, "span");
	rc = papi_run_tests(tests, sizeof(tests) / sizeof(tests[0]));
	span_close(&me);
	sched_setaffinity(0, sizeof(orig_affinity), &orig_affinity);
	return rc;
}
