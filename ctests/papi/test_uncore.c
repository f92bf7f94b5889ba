/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_uncore: the perf_event_uncore component (component 1) through the
 * PAPI API.
 *
 * Cases:
 *  - component 1 is perf_event_uncore and is active (or disabled with a
 *    reason, when this machine has no uncore PMU at all: then SKIP);
 *  - msr::tsc (a sysfs PMU libpfm4 does not know) is listed, named, coded
 *    and enumerated like any native event, granularity PAPI_GRN_SYS;
 *  - it counts system-wide at the TSC's rate: across a 200 ms sleep the
 *    count grows as rdtsc does, within what rdtsc moved from around the
 *    first read to around the second (a per-thread counter would not
 *    count while this thread sleeps); PAPI_reset restarts it: the read
 *    right after it at most what rdtsc moved around the two;
 *  - PAPI_CPU_ATTACH to another cpu counts there; a cpu that does not
 *    exist is refused;
 *  - as an unprivileged user (a child that drops root) with
 *    perf_event_paranoid > 0, the kernel refuses system-wide counting:
 *    the component is disabled, its reason names the paranoid level and
 *    the remedies (CAP_PERFMON, the sysctl), and msr::tsc cannot be added;
 *  - on a fake sysfs tree (LOPE_SYSFS_ROOT, in a re-exec'd child) that
 *    gives the real msr and software PMU types new names: a .scale makes
 *    an event PAPI_DATATYPE_FP64 in its .unit, its value is the raw
 *    count times the scale, a .unit alone keeps it INT64, a malformed
 *    event is listed but refused with PAPI_EINVAL, and events of two PMUs
 *    count together in one set;
 *  - when this machine has a power PMU, power::energy-pkg reads in Joules;
 *  - no file descriptor is left open after cleanup and destroy.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <papi.h>

#include "../../utils/papi_common.h"
#include "nobody.h"
#include "proc.h"
#include "report.h"
#include "tree.h"

#define UNCORE_CIDX 1
#define DEVICES "/sys/bus/event_source/devices"

static char tree[PATH_MAX];

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A set on the uncore component with @name in it, optionally on @cpu. */
static int uncore_set(int *set, const char *name, int cpu)
{
	PAPI_option_t opt;
	int rc;

	*set = PAPI_NULL;
	rc = PAPI_create_eventset(set);
	if (rc == PAPI_OK)
		rc = PAPI_assign_eventset_component(*set, UNCORE_CIDX);
	if (rc == PAPI_OK && cpu >= 0) {
		memset(&opt, 0, sizeof(opt));
		opt.cpu.eventset = *set;
		opt.cpu.cpu_num = (unsigned int)cpu;
		rc = PAPI_set_opt(PAPI_CPU_ATTACH, &opt);
	}
	if (rc == PAPI_OK && name)
		rc = PAPI_add_named_event(*set, name);
	return rc;
}

/* ------------------------------------------------ unprivileged child */

/*
 * Fork, drop root (when we have it) and add msr::tsc.  Runs before this
 * process initialises PAPI, so the child starts from a clean library.
 */
static void test_eperm(void)
{
	const char *name = "unprivileged_disabled_with_remedy";
	int paranoid = read_int("/proc/sys/kernel/perf_event_paranoid");
	int status, set;
	pid_t pid;

	if (access(DEVICES "/msr/events/tsc", F_OK) != 0) {
		lope_skip(name, "no msr/tsc event on this machine");
		return;
	}
	if (paranoid != INT_MIN && paranoid <= 0) {
		lope_skip(name,
			  "perf_event_paranoid=%d lets anyone count "
			  "system-wide",
			  paranoid);
		return;
	}
	pid = fork();
	if (pid < 0) {
		lope_fail(name, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		const PAPI_component_info_t *ci;

		if (drop_to_nobody())
			_exit(3);
		if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
			_exit(4);
		ci = PAPI_get_component_info(UNCORE_CIDX);
		if (ci && !ci->disabled)
			_exit(2);
		if (!ci || !strstr(ci->disabled_reason, "CAP_PERFMON") ||
		    !strstr(ci->disabled_reason, "perf_event_paranoid"))
			_exit(5);
		status = uncore_set(&set, "msr::tsc", -1);
		_exit(status == PAPI_OK ? 6 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		lope_fail(name, "the child died (status %#x)", status);
		return;
	}
	switch (WEXITSTATUS(status)) {
	case 0:
		lope_pass(name);
		break;
	case 2:
		lope_skip(name, "the unprivileged child may count system-wide "
				"here (CAP_PERFMON?)");
		break;
	case 3:
		lope_skip(name, "the child could not drop root to uid %d",
			  NOBODY);
		break;
	case 4:
		lope_fail(name, "PAPI_library_init failed as uid %d", NOBODY);
		break;
	case 5:
		lope_fail(name,
			  "as uid %d (paranoid %d) the disabled reason names "
			  "no remedy",
			  NOBODY, paranoid);
		break;
	default:
		lope_fail(name,
			  "as uid %d (paranoid %d) the component is disabled "
			  "but msr::tsc could be added (exit %d)",
			  NOBODY, paranoid, WEXITSTATUS(status));
	}
}

/* ------------------------------------------------ fake sysfs child */

/* The real msr and software PMU types under made-up names. */
static int make_fake_tree(int msr_type)
{
	static const struct tree_file files[] = {
		{ "fakeenergy/format/event", "config:0-63\n" },
		{ "fakeenergy/events/joules", "event=0x00\n" },
		{ "fakeenergy/events/joules.scale", "0.5\n" },
		{ "fakeenergy/events/joules.unit", "Joules\n" },
		{ "fakeenergy/events/ticks", "event=0x00\n" },
		{ "fakeenergy/events/ticks.unit", "ticks\n" },
		{ "fakeenergy/events/broken", "event=0x00,nosuch=1\n" },
		{ "fakesw/type", "1\n" },
		{ "fakesw/cpumask", "0\n" },
		{ "fakesw/format/event", "config:0-63\n" },
		{ "fakesw/events/clock", "event=0x0\n" }, /* cpu-clock */
		{ "fakesw/events/clock.unit", "ns\n" },
	};
	char type[32];

	snprintf(type, sizeof(type), "%d\n", msr_type);
	if (tree_make(tree, sizeof(tree), "uncore") ||
	    tree_put(tree, "fakeenergy/type", type))
		return -1;
	return tree_put_all(tree, files, sizeof(files) / sizeof(files[0]));
}

static int event_info(const char *name, PAPI_event_info_t *info)
{
	int code, rc = PAPI_event_name_to_code(name, &code);

	if (rc == PAPI_OK)
		rc = PAPI_get_event_info(code, info);
	return rc;
}

static void fake_types(void)
{
	PAPI_event_info_t info;
	int rc;

	rc = event_info("fakeenergy::joules", &info);
	lope_check(rc == PAPI_OK && info.component_index == UNCORE_CIDX,
		   "fake_sysfs_event_listed", "rc %d, component %d", rc,
		   info.component_index);
	lope_check(rc == PAPI_OK && info.data_type == PAPI_DATATYPE_FP64 &&
			   !strcmp(info.units, "Joules"),
		   "fake_scaled_event_is_fp64_in_unit",
		   "rc %d data_type %d units '%s'", rc, info.data_type,
		   info.units);
	rc = event_info("fakeenergy::ticks", &info);
	lope_check(rc == PAPI_OK && info.data_type == PAPI_DATATYPE_INT64 &&
			   !strcmp(info.units, "ticks"),
		   "fake_unit_only_event_is_int64",
		   "rc %d data_type %d units '%s'", rc, info.data_type,
		   info.units);
}

/*
 * @a and @b in one uncore set across a sleep of @ms: their values in @v,
 * the wall time slept in *@ns.  PAPI_OK or the first error.
 */
static int count_across_sleep(const char *a, const char *b, long ms,
			      long long v[2], uint64_t *ns)
{
	uint64_t t0;
	int set, rc = uncore_set(&set, a, -1);

	if (rc == PAPI_OK)
		rc = PAPI_add_named_event(set, b);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	t0 = now_ns();
	sleep_ms(ms);
	*ns = now_ns() - t0;
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	drop_set(&set);
	return rc;
}

static void fake_scaled_value(void)
{
	long long v[2];
	uint64_t ns;
	double j;
	int rc = count_across_sleep("fakeenergy::joules", "fakeenergy::ticks",
				    50, v, &ns);

	if (rc != PAPI_OK) {
		lope_fail("fake_scaled_value_is_raw_times_scale", "%s",
			  PAPI_strerror(rc));
		return;
	}
	memcpy(&j, &v[0], sizeof(j));
	lope_info("fakeenergy::joules %.1f, fakeenergy::ticks %lld", j, v[1]);
	lope_check(v[1] > 0 && fabs(j - 0.5 * (double)v[1]) <= 0.01 * j,
		   "fake_scaled_value_is_raw_times_scale",
		   "%.1f Joules against %lld ticks at scale 0.5", j, v[1]);
}

static void fake_broken(void)
{
	PAPI_event_info_t info;
	int set, rc;

	rc = event_info("fakeenergy::broken", &info);
	lope_check(rc == PAPI_OK && strstr(info.long_descr, "unusable"),
		   "fake_malformed_event_listed_as_unusable", "rc %d, '%s'", rc,
		   rc == PAPI_OK ? info.long_descr : "");
	rc = uncore_set(&set, "fakeenergy::broken", -1);
	drop_set(&set);
	lope_check(rc == PAPI_EINVAL, "fake_malformed_event_refused_einval",
		   "PAPI_add_named_event returned %d (%s)", rc,
		   PAPI_strerror(rc));
}

/* Two PMUs cannot share a kernel group: each event is opened alone. */
static void fake_mixed(void)
{
	long long v[2];
	uint64_t ns;
	double ratio;
	int rc = count_across_sleep("fakeenergy::ticks", "fakesw::clock", 100,
				    v, &ns);

	if (rc != PAPI_OK) {
		lope_fail("fake_two_pmus_in_one_set", "%s", PAPI_strerror(rc));
		return;
	}
	ratio = (double)v[1] / (double)ns;
	lope_check(v[0] > 0 && ratio > 0.8 && ratio < 1.2,
		   "fake_two_pmus_in_one_set",
		   "ticks %lld, cpu-clock of cpu 0 %lld ns over %llu ns", v[0],
		   v[1], (unsigned long long)ns);
}

static int fake_child(void)
{
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		lope_fail("fake_sysfs_init", "PAPI_library_init failed");
		return lope_done();
	}
	fake_types();
	fake_scaled_value();
	fake_broken();
	fake_mixed();
	PAPI_shutdown();
	return lope_done();
}

static void test_fake_sysfs(const char *self)
{
	int msr_type = read_int(DEVICES "/msr/type"), status;
	pid_t pid;

	if (msr_type == INT_MIN) {
		lope_skip("fake_sysfs", "no msr PMU to borrow a type from");
		return;
	}
	if (make_fake_tree(msr_type) != 0) {
		lope_fail("fake_sysfs", "cannot write %s", tree);
		(void)tree_remove(tree);
		return;
	}
	pid = fork();
	if (pid == 0) {
		setenv("LOPE_SYSFS_ROOT", tree, 1);
		execl(self, self, "--fake-sysfs", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) > 1)
		lope_fail("fake_sysfs_child", "did not finish (status %#x)",
			  status);
	(void)tree_remove(tree);
}

/* ------------------------------------------------ the real machine */

static int component_active(void)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(UNCORE_CIDX);

	if (!lope_check(ci && !strcmp(ci->name, "perf_event_uncore"),
			"component_1_is_perf_event_uncore", "component 1 is %s",
			ci ? ci->name : "(none)"))
		return 0;
	lope_info("%s: %s", ci->name, ci->description);
	if (ci->disabled) {
		lope_check(ci->disabled_reason[0] != '\0',
			   "disabled_with_reason", "no reason given");
		lope_skip("uncore_component_active", "disabled: %s",
			  ci->disabled_reason);
		return 0;
	}
	lope_pass("uncore_component_active");
	return 1;
}

static void test_tsc_naming(void)
{
	PAPI_event_info_t info;
	char name[PAPI_MAX_STR_LEN] = "";
	int code = 0, ecode = PAPI_NATIVE_MASK, found = 0, rc;

	rc = PAPI_event_name_to_code("msr::tsc", &code);
	if (rc == PAPI_OK)
		rc = PAPI_event_code_to_name(code, name);
	if (rc == PAPI_OK)
		rc = PAPI_get_event_info(code, &info);
	lope_check(rc == PAPI_OK && !strcmp(name, "msr::tsc") &&
			   info.component_index == UNCORE_CIDX &&
			   info.data_type == PAPI_DATATYPE_INT64,
		   "msr_tsc_named_and_coded", "rc %d name '%s' component %d",
		   rc, name, rc == PAPI_OK ? info.component_index : -1);
	if (PAPI_enum_cmp_event(&ecode, PAPI_ENUM_FIRST, UNCORE_CIDX) ==
	    PAPI_OK) {
		do {
			found |= ecode == code;
		} while (PAPI_enum_cmp_event(&ecode, PAPI_ENUM_EVENTS,
					     UNCORE_CIDX) == PAPI_OK);
	}
	lope_check(found, "msr_tsc_enumerated",
		   "enumerating component 1 never gave code %#x", code);
}

/* Count msr::tsc (on @cpu, -1: the default) across a sleep. */
static void tsc_rate(const char *name, int cpu)
{
#if defined(__x86_64__)
	long long a, b, c;
	uint64_t t[5]; /* rdtsc around the first read, the second, the reset
			* and the read after it */
	PAPI_option_t opt;
	double ratio;
	int set, rc;

	rc = uncore_set(&set, "msr::tsc", cpu);
	memset(&opt, 0, sizeof(opt));
	opt.granularity.eventset = set;
	if (rc == PAPI_OK && cpu < 0) {
		int g = PAPI_get_opt(PAPI_GRANUL, &opt);

		lope_check(g == PAPI_OK &&
				   opt.granularity.granularity == PAPI_GRN_SYS,
			   "default_granularity_sys", "rc %d granularity %d", g,
			   opt.granularity.granularity);
	}
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	t[0] = __rdtsc();
	if (rc == PAPI_OK)
		rc = PAPI_read(set, &a);
	t[1] = __rdtsc();
	sleep_ms(200);
	t[2] = __rdtsc();
	if (rc == PAPI_OK)
		rc = PAPI_read(set, &b);
	t[3] = __rdtsc();
	if (rc == PAPI_OK)
		rc = PAPI_reset(set);
	if (rc == PAPI_OK)
		rc = PAPI_read(set, &c);
	t[4] = __rdtsc();
	drop_set(&set);
	if (rc != PAPI_OK) {
		lope_fail(name, "%s", PAPI_strerror(rc));
		return;
	}
	ratio = (double)(b - a) / (double)(t[2] - t[1]);
	lope_info("%s: msr::tsc %lld over rdtsc %llu: ratio %.4f", name, b - a,
		  (unsigned long long)(t[2] - t[1]), ratio);
	/* The counter read the same TSC (synchronised across the guest's
	 * cpus) at some time within each read's rdtsc pair. */
	lope_check((uint64_t)(b - a) >= t[2] - t[1] &&
			   (uint64_t)(b - a) <= t[3] - t[0],
		   name, "msr::tsc grew %lld while rdtsc grew %llu to %llu",
		   b - a, (unsigned long long)(t[2] - t[1]),
		   (unsigned long long)(t[3] - t[0]));
	/* The reset right after the read may take the read's sample as its
	 * base (doc/read-path.md, the reset rule): counted from within the
	 * read, after t[2]. */
	if (cpu < 0)
		lope_check(c >= 0 && (uint64_t)c <= t[4] - t[2],
			   "reset_restarts_count",
			   "%lld right after a reset, rdtsc moved %llu from "
			   "before the read before it",
			   c, (unsigned long long)(t[4] - t[2]));
#else
	(void)cpu;
	lope_skip(name, "rdtsc comparison is x86-64 only");
#endif
}

static void test_cpu_attach(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int set, rc;

	if (ncpu > 1)
		tsc_rate("cpu_attach_last_cpu_tsc_rate", (int)ncpu - 1);
	else
		lope_skip("cpu_attach_last_cpu_tsc_rate", "one cpu online");
	rc = uncore_set(&set, "msr::tsc", 100000);
	drop_set(&set);
	lope_check(rc != PAPI_OK, "cpu_attach_missing_cpu_refused",
		   "cpu 100000 accepted");
}

/* RAPL through sysfs, where libpfm4 does not know it as rapl::. */
static void test_power(void)
{
	const char *name = "power_energy_pkg_joules";
	PAPI_event_info_t info;
	long long v;
	double j;
	int set, rc;

	if (access(DEVICES "/power/events/energy-pkg", F_OK) != 0) {
		lope_skip(name, "no power PMU (RAPL) on this machine");
		return;
	}
	rc = event_info("power::energy-pkg", &info);
	if (rc == PAPI_ENOEVNT) {
		lope_skip(name, "power is libpfm4's rapl PMU here");
		return;
	}
	if (!lope_check(rc == PAPI_OK && info.data_type == PAPI_DATATYPE_FP64 &&
				!strcmp(info.units, "Joules"),
			name, "rc %d data_type %d units '%s'", rc,
			info.data_type, info.units))
		return;
	rc = uncore_set(&set, "power::energy-pkg", -1);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	sleep_ms(200);
	if (rc == PAPI_OK)
		rc = PAPI_read(set, &v);
	drop_set(&set);
	memcpy(&j, &v, sizeof(j));
	lope_check(rc == PAPI_OK && j > 0 && j < 1000, "power_energy_pkg_reads",
		   "rc %d: %g Joules in 200 ms", rc, rc == PAPI_OK ? j : 0.0);
}

/* msr::tsc and, where the msr PMU has one, another of its events. */
static int msr_events(char names[2][PAPI_MAX_STR_LEN])
{
	DIR *d = opendir(DEVICES "/msr/events");
	struct dirent *e;
	int n = 1;

	snprintf(names[0], PAPI_MAX_STR_LEN, "msr::tsc");
	while (d && n < 2 && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && strcmp(e->d_name, "tsc") &&
		    !strchr(e->d_name, '.'))
			snprintf(names[n++], PAPI_MAX_STR_LEN, "msr::%.*s",
				 PAPI_MAX_STR_LEN - 6, e->d_name);
	if (d)
		closedir(d);
	return n;
}

static void test_fd_leak(void)
{
	char names[2][PAPI_MAX_STR_LEN];
	int before = fd_count(), after, set, i, rc = PAPI_OK;
	int n = msr_events(names);

	lope_info("no_fd_left_after_cleanup: %d msr event(s)", n);
	for (i = 0; i < 3 && rc == PAPI_OK; i++) {
		rc = uncore_set(&set, names[0], -1);
		if (rc == PAPI_OK && n > 1)
			rc = PAPI_add_named_event(set, names[1]);
		if (rc == PAPI_OK)
			rc = PAPI_start(set);
		drop_set(&set);
	}
	after = fd_count();
	lope_check(rc == PAPI_OK && before == after, "no_fd_left_after_cleanup",
		   "rc %d, %d fds before, %d after", rc, before, after);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];

	if (argc > 1 && !strcmp(argv[1], "--fake-sysfs"))
		return fake_child();
	if (self_exe_or_fail(self, sizeof(self)))
		return lope_done();
	/* Children that start PAPI themselves go first. */
	test_eperm();
	test_fake_sysfs(self);
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		lope_fail("setup", "PAPI_library_init failed");
		return lope_done();
	}
	if (component_active()) {
		if (access(DEVICES "/msr/events/tsc", F_OK) == 0) {
			test_tsc_naming();
			tsc_rate("msr_tsc_system_wide_tsc_rate", -1);
			test_cpu_attach();
			test_fd_leak();
		} else {
			lope_skip("msr_tsc",
				  "no msr/tsc event on this machine");
		}
		test_power();
	}
	PAPI_shutdown();
	return lope_done();
}
