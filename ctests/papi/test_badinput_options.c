/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_badinput_options: bad input over the public PAPI API: limits and
 * thresholds, invalid options and attach targets, the uncore component.
 *
 * The rows, the checks after each and the reference run on stock PAPI:
 * ctests/lib/badinput.h.  Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "badinput.h"

/* ------------------------------------------------ compound bad calls */

/*
 * An option naming a bad target on an *empty* set (PAPI_CPU_ATTACH's cpu
 * with @cpu_wide, else PAPI_attach's tid) may be accepted and refused
 * when the first event is added (the component checks options by
 * opening the events: doc/design.md, "Options without a hardware probe"),
 * or refused at once.  Either way the caller gets @want: this returns the
 * first error of (option, first add).
 */
static int empty_then_add(int cpu_wide, unsigned long target)
{
	int set = empty_cmp0(), rc;

	rc = cpu_wide ? set_cpu_attach(set, (unsigned int)target) :
			PAPI_attach(set, target);
	if (rc == PAPI_OK)
		rc = PAPI_add_event(set, tc);
	return rc;
}

/*
 * PAPI_attach to tid 0: perf_event_open(2) reads pid 0 as the calling
 * thread, and PAPI passes the number through (stock PAPI too), so the set
 * counts the caller.  Returns the attach's code, or PAPI_EBUG if the set
 * did not count our own 5 ms.
 */
static int attach_zero_counts_self(void)
{
	int set = stopped(), rc;
	long long v = 0;

	rc = PAPI_attach(set, 0);
	if (rc != PAPI_OK)
		return rc;
	if (PAPI_start(set) != PAPI_OK)
		return PAPI_EBUG;
	busy_ns(5 * MS);
	if (PAPI_stop(set, &v) != PAPI_OK || v < 4 * MS)
		return PAPI_EBUG;
	return PAPI_OK;
}

static int cpu_attached(void)
{
	int set = stopped(), rc;

	rc = set_cpu_attach(set, 0);
	if (rc != PAPI_OK)
		setup_fail("PAPI_CPU_ATTACH cpu 0", rc);
	return set;
}

/* Names of distinct software events: spellings x harmless modifiers. */
static const char *const many_bases[] = {
	"perf::TASK-CLOCK",
	"perf::PERF_COUNT_SW_TASK_CLOCK",
	"perf::CPU-CLOCK",
	"perf::PERF_COUNT_SW_CPU_CLOCK",
	"perf::PAGE-FAULTS",
	"perf::FAULTS",
	"perf::PERF_COUNT_SW_PAGE_FAULTS",
	"perf::CONTEXT-SWITCHES",
	"perf::CS",
	"perf::PERF_COUNT_SW_CONTEXT_SWITCHES",
	"perf::CPU-MIGRATIONS",
	"perf::MIGRATIONS",
	"perf::PERF_COUNT_SW_CPU_MIGRATIONS",
	"perf::MINOR-FAULTS",
	"perf::PERF_COUNT_SW_PAGE_FAULTS_MIN",
	"perf::MAJOR-FAULTS",
	"perf::PERF_COUNT_SW_PAGE_FAULTS_MAJ",
	"perf::CGROUP-SWITCHES",
	"perf::PERF_COUNT_SW_CGROUP_SWITCHES",
};

static int many_added;

/*
 * Add distinct events until PAPI refuses one (at most 1000 tries): the
 * refusal's code.  The set that results must still start, read and stop
 * (setup error otherwise); dropping it must give every descriptor back
 * (the row's leak check).
 */
static int add_until_failure(int multiplex)
{
	static const char *const u[] = { "", ":u=0", ":u=1" };
	static const char *const k[] = { "", ":k=0", ":k=1" };
	static const char *const x[] = { "", ":excl=0", ":pinned=0" };
	const size_t nb = sizeof(many_bases) / sizeof(many_bases[0]);
	char name[160];
	size_t i;
	int set, rc = PAPI_OK, tries = 0;

	set = multiplex ? multiplexed() : with(empty(), task_clock);
	many_added = 1;
	for (i = 0; rc == PAPI_OK && i < nb * 27 && tries < 1000; i++) {
		snprintf(name, sizeof(name), "%s%s%s%s", many_bases[i / 27],
			 u[i / 9 % 3], k[i / 3 % 3], x[i % 3]);
		if (i == 0)
			continue; /* perf::TASK-CLOCK is in already */
		tries++;
		rc = PAPI_add_named_event(set, name);
		if (rc == PAPI_OK)
			many_added++;
	}
	if (rc == PAPI_OK)
		return PAPI_OK; /* ran out of names: the row fails */
	if (PAPI_num_events(set) != many_added)
		setup_fail("PAPI_num_events after the refusal",
			   PAPI_num_events(set));
	stop(start(set));
	return rc;
}

/* Huge threshold: accepted, never reached in 2 ms, then switched off. */
static int huge_threshold(void)
{
	int set = stopped(), rc;

	rc = PAPI_overflow(set, tc, INT_MAX, 0, handler);
	if (rc != PAPI_OK)
		return rc;
	stop(start(set));
	return PAPI_overflow(set, tc, 0, 0, NULL);
}

/* msr::tsc (perf_event_uncore), when this machine has it. */
static int tsc_code;

static int uncore(void)
{
	return with(empty(), "msr::tsc");
}

/* The counters the uncore component says it has. */
static int uncore_counters(void)
{
	const PAPI_component_info_t *ci =
		PAPI_get_component_info(PAPI_get_event_component(tsc_code));

	return ci ? ci->num_cntrs : 0;
}

static int uncore_add_task_clock(void)
{
	return PAPI_add_event(uncore(), tc);
}

static void rows_limits_and_thresholds(void)
{
	/* PE_MAX_EVENTS (384) per set: the next add is a resource limit. */
	ROW(PAPI_ECNFLCT, DOC, "too many events: add until refused",
	    add_until_failure(0));
	lope_info("a set took %d events before PAPI_ECNFLCT", many_added);
	ROW(PAPI_ECNFLCT, DOC,
	    "too many events, multiplexed: add until refused",
	    add_until_failure(1));
	lope_info("a multiplexed set took %d events", many_added);
	ROW(PAPI_EINVAL, DOC, "PAPI_overflow threshold minus 1",
	    PAPI_overflow(stopped(), tc, -1, 0, handler));
	ROW(PAPI_EINVAL, DOC, "PAPI_overflow threshold INT_MIN",
	    PAPI_overflow(stopped(), tc, INT_MIN, 0, handler));
	ROW(PAPI_OK, DOC, "PAPI_overflow threshold INT_MAX: runs, then off",
	    huge_threshold());
	ROW(PAPI_EINVAL, DOC, "PAPI_profil threshold minus 5",
	    do_profil(stopped(), tc, 65536, -5));
	ROW(PAPI_EINVAL, DOC, "PAPI_profil scale 0",
	    do_profil(stopped(), tc, 0, 1000000));
	ROW(PAPI_EINVAL, DOC, "PAPI_profil scale 65537",
	    do_profil(stopped(), tc, 65537, 1000000));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_profil event not in the set",
	    do_profil(stopped(), pf, 65536, 1000000));
	/* Not made: PAPI_profil with invalid flags.  PAPI 7's
	 * PAPI_sprofil() records the region in the set before it checks the
	 * flags, then PAPI_profil() frees it on the error: the set keeps a
	 * dangling pointer, freed again by the next PAPI_profil() of that
	 * event (glibc: "double free detected"), whatever the component. */
}

static void rows_options(void)
{
	const unsigned int ncpu = (unsigned int)sysconf(_SC_NPROCESSORS_CONF);
	pid_t gone = dead_pid();
	static PAPI_option_t any; /* zeroed */

	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(9999)", PAPI_set_opt(9999, &any));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(minus 1)", PAPI_set_opt(-1, &any));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(0)", PAPI_set_opt(0, &any));
	ROW(PAPI_EINVAL, DOC, "PAPI_get_opt(9999)", PAPI_get_opt(9999, &any));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_domain(0)", PAPI_set_domain(0));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_domain(0x1000)",
	    PAPI_set_domain(0x1000));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_domain(minus 1)", PAPI_set_domain(-1));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_granularity(1234)",
	    PAPI_set_granularity(1234));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_granularity(0)",
	    PAPI_set_granularity(0));
	ROW(PAPI_ENOCMP, DOC, "PAPI_set_cmp_domain(component 99)",
	    PAPI_set_cmp_domain(PAPI_DOM_USER, 99));
	ROW(PAPI_ENOCMP, DOC, "PAPI_set_cmp_granularity(component 99)",
	    PAPI_set_cmp_granularity(PAPI_GRN_THR, 99));
	ROW(PAPI_EINVAL_DOM, DOC, "PAPI_set_opt(PAPI_DOMAIN, domain 0)",
	    set_domain(stopped(), 0));
	ROW(PAPI_EINVAL_DOM, DOC, "PAPI_set_opt(PAPI_DOMAIN, domain 0x1000)",
	    set_domain(stopped(), 0x1000));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(PAPI_GRANUL, 1234)",
	    set_granularity(stopped(), 1234));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(PAPI_GRANUL, PAPI_GRN_PROC)",
	    set_granularity(stopped(), PAPI_GRN_PROC));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(PAPI_DEF_MPX_NS, minus 1)",
	    set_multiplex_ns(PAPI_DEF_MPX_NS, 0, -1));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(PAPI_MULTIPLEX, ns minus 1)",
	    set_multiplex_ns(PAPI_MULTIPLEX, stopped(), -1));
	ROW(PAPI_EINVAL, DOC, "PAPI_CPU_ATTACH cpu minus 1",
	    set_cpu_attach(stopped(), (unsigned)-1));
	ROW(PAPI_EINVAL, DOC, "PAPI_CPU_ATTACH cpu 9999",
	    set_cpu_attach(stopped(), 9999));
	ROW(PAPI_EINVAL, DOC, "PAPI_CPU_ATTACH cpu = number of cpus",
	    set_cpu_attach(stopped(), ncpu));
	ROW(PAPI_EINVAL, DOC, "PAPI_CPU_ATTACH cpu minus 1, empty set",
	    empty_then_add(1, (unsigned)-1));
	ROW(PAPI_EINVAL, DOC,
	    "PAPI_CPU_ATTACH cpu 9999, empty set (then the first add)",
	    empty_then_add(1, 9999));
	ROW(PAPI_EINVAL, DOC, "PAPI_CPU_ATTACH on an attached set",
	    set_cpu_attach(attached(), 0));
	/* pid 0 is the caller for perf_event_open(2); PAPI passes it on. */
	ROW(PAPI_OK, P7, "PAPI_attach(tid 0) counts the caller",
	    attach_zero_counts_self());
	/* pid -1 with cpu -1 is refused by the kernel (EINVAL). */
	ROW(PAPI_EINVAL, DOC, "PAPI_attach(tid minus 1)",
	    PAPI_attach(stopped(), (unsigned long)-1));
	/* The kernel answers ESRCH, for which PAPI has no code of its own:
	 * PAPI_ESYS, "a system call failed" (stock the same). */
	ROW(PAPI_ESYS, P7, "PAPI_attach(tid minus 5)",
	    PAPI_attach(stopped(), (unsigned long)-5));
	ROW(PAPI_ESYS, P7, "PAPI_attach(a pid that exited)",
	    PAPI_attach(stopped(), (unsigned long)gone));
	ROW(PAPI_ESYS, P7, "PAPI_attach(pid 2^31-1)",
	    PAPI_attach(stopped(), 0x7fffffffUL));
	ROW(PAPI_ESYS, P7, "PAPI_attach(a pid that exited), empty set",
	    empty_then_add(0, (unsigned long)gone));
	/* Attach is refused on a cpu-attached set by PAPI's core. */
	ROW(PAPI_ECMP, DOC, "PAPI_attach of a cpu-attached set",
	    PAPI_attach(cpu_attached(), (unsigned long)getpid()));
	ROW(PAPI_EINVAL, DOC, "PAPI_library_init(wrong version)",
	    PAPI_library_init(0x12345));
}

static void rows_uncore(void)
{
	if (PAPI_event_name_to_code("msr::tsc", &tsc_code) != PAPI_OK) {
		lope_skip("uncore_rows", "no msr::tsc on this machine");
		return;
	}
	/* PAPI's core refuses an event of another component. */
	ROW(PAPI_EINVAL, CORE,
	    "mixing components: perf::TASK-CLOCK into an msr::tsc set",
	    uncore_add_task_clock());
	ROW(PAPI_EINVAL, CORE,
	    "mixing components: msr::tsc into a perf_event set",
	    PAPI_add_event(stopped(), tsc_code));
	ROW(PAPI_ECMP, DOC, "PAPI_attach of an uncore set",
	    PAPI_attach(uncore(), (unsigned long)getpid()));
	/*
	 * The uncore component has no overflow interrupt.  PAPI's framework
	 * refuses overflow on a component without counters (a resource
	 * conflict) and emulates it in software on one with counters, which
	 * it has where libpfm4 knows an uncore PMU here.
	 */
	ROW(uncore_counters() ? PAPI_OK : PAPI_ECNFLCT, DOC,
	    "PAPI_overflow on msr::tsc",
	    PAPI_overflow(uncore(), tsc_code, 1000000, 0, handler));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(PAPI_DOMAIN) kernel-only, uncore",
	    set_domain(uncore(), PAPI_DOM_KERNEL));
	ROW(PAPI_EINVAL, DOC, "PAPI_CPU_ATTACH cpu 9999, uncore",
	    set_cpu_attach(uncore(), 9999));
	if (tsc_set != PAPI_NULL)
		ROW(PAPI_EISRUN, DOC, "PAPI_start of the running msr::tsc set",
		    PAPI_start(tsc_set));
}

int main(void)
{
	static const struct sweep_group groups[] = {
		{ "limits and thresholds", rows_limits_and_thresholds },
		{ "invalid options", rows_options },
		{ "uncore", rows_uncore },
	};

	return sweep_main(groups, sizeof(groups) / sizeof(groups[0]));
}
