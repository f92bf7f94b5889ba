/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_modes: the perf_event component on any CPU (doc/every-cpu.md).
 *
 * Cases:
 *  - component 0 is active and its description says its mode: libpfm4's
 *    table for this CPU, the same without a PAPI preset section, or a CPU
 *    libpfm4 does not know (LIBPFM_FORCE_PMU=perf makes any CPU one), and
 *    why user-space reads work or not;
 *  - perf::TASK-CLOCK counts in every mode, within the span of the
 *    thread's own task-clock read around the start and the stop
 *    (ctests/lib/span.h), and the component says it has counters (tools
 *    size their sets by it);
 *  - every preset listed as available (papi_avail's Avail column: it has
 *    native events) can be added to a set, whatever table defined it;
 *  - the generic presets (components/perf_event/lope_presets.csv), where
 *    PAPI's table has no section: each is listed exactly when the kernel
 *    opens its generic event here, is that one native event, and counts
 *    as it does in one set;
 *  - where libpfm4 does not know the CPU and the machine has a core PMU,
 *    that PMU's own sysfs event for instructions (cpu::instructions on
 *    x86, armv8_pmuv3_0::inst_retired on Arm) counts as
 *    perf::INSTRUCTIONS in one set, and raw terms for it too;
 *  - in a re-exec'd child that sees a fake sysfs tree (LOPE_SYSFS_ROOT)
 *    whose core PMUs borrow the software PMU's type: with libpfm4 limited
 *    to its generic PMU, the core PMUs' events are native events that
 *    count (cpu::task-clock), raw terms count too (cpu::event=0x2, in
 *    both spellings), the same raw name gets the same code, bad terms are
 *    refused; where libpfm4 knows the CPU, the fake core PMUs are not
 *    offered.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <sys/stat.h>

#include <stdint.h>

#include "papi_util.h"
#include "span.h"
#include "sw_counter.h"
#include "tree.h"

#define CHILD_ARG "--fake-sysfs"

/*
 * The generic presets, as lope_presets.csv defines them: a hardware event
 * HW(PERF_COUNT_HW_*) or a cache one HWC(PERF_COUNT_HW_CACHE_*, op, result).
 */
static const struct generic {
	const char *preset, *native;
	uint32_t type;
	uint64_t config;
} generic[] = {
#define HW(c) PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c
#define HWC(c, op, r)                                             \
	PERF_TYPE_HW_CACHE, (PERF_COUNT_HW_CACHE_##c |            \
			     (PERF_COUNT_HW_CACHE_OP_##op << 8) | \
			     (PERF_COUNT_HW_CACHE_RESULT_##r << 16))
	{ "PAPI_TOT_INS", "perf::INSTRUCTIONS", HW(INSTRUCTIONS) },
	{ "PAPI_TOT_CYC", "perf::CYCLES", HW(CPU_CYCLES) },
	{ "PAPI_REF_CYC", "perf::REF-CYCLES", HW(REF_CPU_CYCLES) },
	{ "PAPI_BR_INS", "perf::BRANCH-INSTRUCTIONS", HW(BRANCH_INSTRUCTIONS) },
	{ "PAPI_BR_MSP", "perf::BRANCH-MISSES", HW(BRANCH_MISSES) },
	{ "PAPI_L1_DCR", "perf::L1-DCACHE-LOADS", HWC(L1D, READ, ACCESS) },
	{ "PAPI_L1_DCW", "perf::L1-DCACHE-STORES", HWC(L1D, WRITE, ACCESS) },
	{ "PAPI_L1_LDM", "perf::L1-DCACHE-LOAD-MISSES", HWC(L1D, READ, MISS) },
	{ "PAPI_L1_STM", "perf::L1-DCACHE-STORE-MISSES",
	  HWC(L1D, WRITE, MISS) },
	{ "PAPI_L1_ICR", "perf::L1-ICACHE-LOADS", HWC(L1I, READ, ACCESS) },
	{ "PAPI_L1_ICA", "perf::L1-ICACHE-LOADS", HWC(L1I, READ, ACCESS) },
	{ "PAPI_L1_ICM", "perf::L1-ICACHE-LOAD-MISSES", HWC(L1I, READ, MISS) },
	{ "PAPI_TLB_IM", "perf::ITLB-LOAD-MISSES", HWC(ITLB, READ, MISS) },
#undef HWC
#undef HW
};

static char tree[PATH_MAX];

static const PAPI_component_info_t *cpu_component(void)
{
	return PAPI_get_component_info(0);
}

/* Which mode the description names: 'T'able, 'G'eneric presets, 'U'nknown. */
static char mode_of(const char *descr)
{
	if (strstr(descr, "generic and sysfs events"))
		return 'U';
	if (strstr(descr, "generic presets"))
		return 'G';
	return 'T';
}

static void test_mode(void)
{
	const PAPI_component_info_t *ci = cpu_component();
	const char *forced = getenv("LIBPFM_FORCE_PMU");
	char mode;

	if (!lope_check(ci && !ci->disabled && !strcmp(ci->name, "perf_event"),
			"component_0_perf_event_active", "%s: %s",
			ci ? ci->name : "?", ci ? ci->disabled_reason : "?"))
		lope_exit();
	lope_info("perf_event: %s", ci->description);
	mode = mode_of(ci->description);
	lope_check(!strncmp(ci->description, "lope; ", 6) &&
			   strstr(ci->description, "; rdpmc: "),
		   "description_says_mode_and_rdpmc", "'%s'", ci->description);
	if (forced && *forced)
		lope_check(mode == 'U' && strstr(ci->description, forced),
			   "forced_pmu_is_unknown_cpu_mode",
			   "LIBPFM_FORCE_PMU=%s: '%s'", forced,
			   ci->description);
	lope_check(ci->num_cntrs > 0, "component_has_counters", "num_cntrs %d",
		   ci->num_cntrs);
}

/*
 * Count @name (a task-clock) over 20 ms of spinning into *@v, and the span
 * of this thread's own task-clock around the start and the stop (span.h),
 * where it must lie, into [*@lo, *@hi]: PAPI_OK or the first error.
 */
static int count_task_clock(const char *name, long long *v, long long *lo,
			    long long *hi)
{
	struct span sp;
	int set, rc;

	*v = *lo = *hi = -1;
	if (span_open(&sp, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0)
		return PAPI_ESYS;
	rc = make_named_set(&set, &name, 1);
	rc = spin_between_marks(set, rc, 20 * MS, PAPI_stop, v, &sp);
	drop_set(&set);
	*lo = span_lo(&sp);
	*hi = span_hi(&sp);
	span_close(&sp);
	return rc;
}

static void test_task_clock(void)
{
	long long v, lo, hi;
	int rc = count_task_clock("perf::TASK-CLOCK", &v, &lo, &hi);

	lope_check(rc == PAPI_OK && v >= lo && v <= hi,
		   "task_clock_counts_in_every_mode",
		   "rc %s: %lld ns counted, the thread's task-clock span "
		   "[%lld, %lld] ns",
		   papi_err(rc), v, lo, hi);
}

/*
 * @a and @b (named events or presets) in one set over @ns of work: their
 * values in @v; PAPI_OK or the first error.
 */
static int count_two(const char *a, const char *b, long long ns, long long v[2])
{
	const char *const names[] = { a, b };
	int set, rc = make_named_set(&set, names, 2);

	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	busy_ns(ns);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	drop_set(&set);
	return rc;
}

/* The preset and its generic event in one set count as one counter. */
static void count_both(const struct generic *g)
{
	char name[160];
	long long v[2] = { 0, 0 };
	int rc = count_two(g->preset, g->native, 5 * MS, v);

	lope_name(name, sizeof(name), "%s counts as %s in one set", g->preset,
		  g->native);
	lope_check(rc == PAPI_OK && v[0] == v[1], name, "rc %s: %lld and %lld",
		   papi_err(rc), v[0], v[1]);
}

static void test_generic_presets(void)
{
	const PAPI_component_info_t *ci = cpu_component();
	size_t i;

	if (mode_of(ci->description) == 'T') {
		lope_skip("generic_presets",
			  "PAPI's preset table has a section for this CPU");
		return;
	}
	for (i = 0; i < sizeof(generic) / sizeof(generic[0]); i++) {
		const struct generic *g = &generic[i];
		PAPI_event_info_t info;
		char name[160];
		int code, listed, opens = perf_opens(g->type, g->config, 1);

		listed = PAPI_event_name_to_code(g->preset, &code) == PAPI_OK &&
			 PAPI_query_event(code) == PAPI_OK;
		lope_name(name, sizeof(name),
			  "%s listed iff the kernel opens %s", g->preset,
			  g->native);
		lope_check(listed == opens, name, "listed %d, kernel opens %d",
			   listed, opens);
		if (!listed)
			continue;
		lope_name(name, sizeof(name), "%s is %s, not derived",
			  g->preset, g->native);
		lope_check(PAPI_get_event_info(code, &info) == PAPI_OK &&
				   info.count == 1 &&
				   !strcmp(info.name[0], g->native),
			   name, "%u terms, first '%s'", info.count,
			   info.count ? info.name[0] : "");
		count_both(g);
	}
}

/*
 * Two instructions events in one set over the same work: the same count,
 * but for the instructions between their two reads (in user space the
 * second is read after the first, some 70 instructions later in the arm64
 * guest; never more than 1000).
 */
static void same_count(const char *name, const char *a, const char *b)
{
	long long v[2] = { 0, 0 };
	int rc = count_two(a, b, 2 * MS, v);

	lope_check(rc == PAPI_OK && v[0] > 0 && v[1] >= v[0] &&
			   v[1] - v[0] < 1000,
		   name, "rc %s: %s %lld, %s %lld", papi_err(rc), a, v[0], b,
		   v[1]);
}

/* The real core PMU's instructions event, from its own sysfs files. */
static void test_real_core_pmu(void)
{
	static const char *const instructions[] = { "instructions",
						    "inst_retired" };
	const char *pmu = lope_core_pmu();
	char path[512], name[PAPI_MAX_STR_LEN], terms[PAPI_MAX_STR_LEN];
	const char *what = "core_pmu_sysfs_event_counts_as_the_generic_one";
	size_t i;
	FILE *f = NULL;

	if (mode_of(cpu_component()->description) != 'U') {
		lope_skip(what, "libpfm4 knows this CPU: its own names serve");
		return;
	}
	if (!pmu) {
		lope_skip(what, "%s", LOPE_NO_CORE_PMU_REASON);
		return;
	}
	for (i = 0; !f && i < sizeof(instructions) / sizeof(*instructions);
	     i++) {
		snprintf(path, sizeof(path), LOPE_PMU_DEVICES "/%s/events/%s",
			 pmu, instructions[i]);
		f = fopen(path, "r");
		snprintf(name, sizeof(name), "%s::%s", pmu, instructions[i]);
	}
	if (!f) {
		lope_skip(what, "%s has no instructions event in sysfs", pmu);
		return;
	}
	if (!fgets(terms, sizeof(terms), f))
		terms[0] = '\0';
	fclose(f);
	terms[strcspn(terms, "\n")] = '\0';
	same_count(what, name, "perf::INSTRUCTIONS");
	snprintf(name, sizeof(name), "%s::%s", pmu, terms);
	same_count("core_pmu_raw_terms_count_as_the_generic_one", name,
		   "perf::INSTRUCTIONS");
}

/* A listed preset must be one a set can take (upstream issue #336). */
static void test_listed_presets_add(void)
{
	char refused[256] = "";
	int code = PAPI_PRESET_MASK, listed = 0, bad = 0, set, rc;
	PAPI_event_info_t info;

	if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK) {
		lope_fail("listed_presets_can_be_added", "no preset at all");
		return;
	}
	do {
		if (PAPI_get_event_info(code, &info) != PAPI_OK ||
		    info.count == 0)
			continue;
		listed++;
		set = PAPI_NULL;
		rc = PAPI_create_eventset(&set);
		if (rc == PAPI_OK)
			rc = PAPI_add_event(set, code);
		drop_set(&set);
		if (rc != PAPI_OK && bad++ < 4)
			snprintf(refused + strlen(refused),
				 sizeof(refused) - strlen(refused),
				 " %.20s: %.30s", info.symbol, papi_err(rc));
	} while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
	lope_info("%d presets listed as available", listed);
	lope_check(!bad, "listed_presets_can_be_added", "%d of %d refused:%s",
		   bad, listed, refused);
}

/* ------------------------------------------------ the fake sysfs tree */

/* Core PMUs, x86- and Arm-named, on the software PMU's type (1). */
static int make_tree(void)
{
	static const struct tree_file files[] = {
		{ "cpu/type", "1\n" },
		{ "cpu/format/event", "config:0-7\n" },
		{ "cpu/format/umask", "config:8-15\n" },
		{ "cpu/events/task-clock", "event=0x01\n" },
		{ "armv8_pmuv3_0/type", "1\n" },
		{ "armv8_pmuv3_0/cpus", "0\n" },
		{ "armv8_pmuv3_0/format/event", "config:0-15\n" },
		{ "armv8_pmuv3_0/events/page_faults", "event=0x0002\n" },
	};

	if (tree_make(tree, sizeof(tree), "modes"))
		return -1;
	return tree_put_all(tree, files, sizeof(files) / sizeof(files[0]));
}

/* Case @label: count @name over some work: 'c' task-clock (within its
 * span, count_task_clock()), or 'p'age faults. */
static void count_named(const char *label, const char *name, char what)
{
	long long v = 0, want, lo, hi;
	int set, rc;

	if (what == 'c') {
		rc = count_task_clock(name, &v, &lo, &hi);
		lope_check(rc == PAPI_OK && v >= lo && v <= hi, label,
			   "rc %s: %lld ns, span [%lld, %lld] ns", papi_err(rc),
			   v, lo, hi);
		return;
	}
	rc = make_named_set(&set, &name, 1);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	want = touch_pages(64) == 0 ? 64 : -1;
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, &v);
	drop_set(&set);
	lope_check(rc == PAPI_OK && v >= want && v <= want + 16, label,
		   "rc %s: %lld, want %lld", papi_err(rc), v, want);
}

/* Is @name among component 0's enumerated events? */
static int enumerated(const char *name)
{
	PAPI_event_info_t info;
	int code = PAPI_NATIVE_MASK;

	if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, 0) != PAPI_OK)
		return 0;
	do {
		if (PAPI_get_event_info(code, &info) == PAPI_OK &&
		    !strcmp(info.symbol, name))
			return 1;
	} while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, 0) == PAPI_OK);
	return 0;
}

static void fake_unknown_cpu(void)
{
	char back[PAPI_MAX_STR_LEN];
	int a = code_of("cpu::event=0x2"), b = code_of("cpu::event=0x2");

	lope_check(enumerated("cpu::task-clock") &&
			   enumerated("armv8_pmuv3_0::page_faults"),
		   "sysfs_core_events_enumerated", "not listed");
	count_named("sysfs_cpu_task_clock_counts", "cpu::task-clock", 'c');
	count_named("sysfs_armv8_pmuv3_0_page_faults_counts",
		    "armv8_pmuv3_0::page_faults", 'p');
	count_named("sysfs_cpu_event_0x2_counts", "cpu::event=0x2", 'p');
	count_named("sysfs_cpu_event_0x2_colon_umask_0x0_counts",
		    "cpu::event=0x2:umask=0x0", 'p');
	count_named("sysfs_cpu_event_0x2_comma_umask_0x0_counts",
		    "cpu::event=0x2,umask=0x0", 'p');
	count_named("sysfs_armv8_pmuv3_0_event_0x1_counts",
		    "armv8_pmuv3_0::event=0x1", 'c');
	lope_check(a && a == b && PAPI_event_code_to_name(a, back) == PAPI_OK &&
			   !strcmp(back, "cpu::event=0x2"),
		   "sysfs_raw_name_one_code_named_back", "%#x %#x '%s'", a, b,
		   a ? back : "");
	lope_check(code_of("cpu::nosuch=1") == 0 &&
			   code_of("cpu::event=0x100") == 0 &&
			   code_of("cpu::nosuchevent") == 0 &&
			   code_of("nosuchpmu::event=1") == 0,
		   "sysfs_bad_names_and_terms_refused", "a code was given");
}

static void fake_known_cpu(void)
{
	const char *what =
		"sysfs_core_events_not_offered_where_libpfm4_knows_the_cpu";

	if (mode_of(cpu_component()->description) == 'U') {
		lope_skip(what, "libpfm4 does not know this CPU: %s",
			  cpu_component()->description);
		return;
	}
	lope_check(code_of("cpu::task-clock") == 0 &&
			   code_of("cpu::event=0x1") == 0,
		   what, "cpu::task-clock has a code");
}

/* The child: "unknown" (libpfm4 limited to perf) or "known" (as it is). */
static int fake_child(const char *scenario)
{
	int rc = PAPI_library_init(PAPI_VER_CURRENT);
	char name[64];

	lope_name(name, sizeof(name), "fake_sysfs_%s_cpu_library_init",
		  scenario);
	if (!lope_check(rc == PAPI_VER_CURRENT, name, "%s CPU: %s", scenario,
			papi_err(rc)))
		return lope_done();
	if (!strcmp(scenario, "unknown"))
		fake_unknown_cpu();
	else
		fake_known_cpu();
	PAPI_shutdown();
	return lope_done();
}

/* Run this program on the fake tree, libpfm4 limited to @force or not. */
static void run_fake(const char *self, const char *force)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		setenv("LOPE_SYSFS_ROOT", tree, 1);
		if (force)
			setenv("LIBPFM_FORCE_PMU", force, 1);
		execl(self, self, CHILD_ARG, force ? "unknown" : "known",
		      (char *)NULL);
		_exit(127);
	}
	st = pid < 0 ? -1 : wait_child(pid);
	if (st != 0)
		lope_fail(force ? "fake_sysfs_unknown_cpu" : "fake_sysfs",
			  "the child finished with status %d", st);
}

static void test_fake_sysfs(const char *self)
{
	const char *forced = getenv("LIBPFM_FORCE_PMU");

	if (make_tree() != 0) {
		lope_fail("fake_sysfs_tree", "cannot write %s", tree);
	} else {
		run_fake(self, "perf");
		if (forced && *forced)
			lope_skip(
				"sysfs_core_events_not_offered_where_libpfm4_knows_the_cpu",
				"LIBPFM_FORCE_PMU=%s for the whole run",
				forced);
		else
			run_fake(self, NULL);
	}
	(void)tree_remove(tree);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];

	if (argc > 2 && !strcmp(argv[1], CHILD_ARG))
		return fake_child(argv[2]);
	if (self_exe_or_fail(self, sizeof(self)))
		return lope_done();
	test_fake_sysfs(self);
	papi_init_or_exit();
	test_mode();
	test_task_clock();
	test_generic_presets();
	test_listed_presets_add();
	test_real_core_pmu();
	PAPI_shutdown();
	return lope_done();
}
