/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_frontend_caliper: PAPI used the way Caliper's papi service uses it.
 *
 * - Its event list is resolved with PAPI_event_name_to_code (names that
 *   do not resolve are reported and skipped), grouped by
 *   PAPI_get_event_component, and each group goes into one event set of
 *   its component with PAPI_add_events.  PAPI 7's papi.c: PAPI_add_events
 *   adds one by one and, at the first failure, returns the failing add's
 *   error when it is the first event, otherwise the number of events
 *   added before it (which stay in the set); PAPI_OK when all were
 *   added.  Caliper then goes on with the events that were added.  Each
 *   case checks that number exactly, that exactly those events are in the
 *   set (PAPI_list_events), that the failed add left no descriptor behind
 *   (one per event added), and that the set counts.
 * - Caliper's snapshots: the sets of both components (perf_event and,
 *   with msr::tsc, perf_event_uncore) run at once in one thread; 200
 *   times PAPI_read then PAPI_reset; no value negative, the task-clock
 *   intervals sum to the thread's own task-clock from around the start to
 *   around the last read, less what ran between each read and its reset
 *   (the same clock read around them: span.h's reasoning), the TSC grows
 *   each time.
 * - Caliper stores each value by PAPI_get_event_info's data_type: for
 *   every event (and every modifier PAPI enumerates) of every active
 *   component, and every available preset, the type is
 *   PAPI_DATATYPE_INT64, UINT64 or FP64; a sysfs uncore event with a
 *   .scale other than 1 is FP64, one without is INT64.  This machine has
 *   no such event, so a re-exec'd child runs the same sweep on a fake
 *   sysfs tree (LOPE_SYSFS_ROOT) that gives the real msr PMU's type a
 *   .scale, and reads the FP64 event as Caliper does (a double).
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <sys/stat.h>

#include "papi_util.h"
#include "sw_counter.h"
#include "tree.h"

#define SYSFS "/sys/bus/event_source/devices"

static int tc, pf, cc, tsc, cpu9999; /* codes; tsc 0 without msr::tsc */
static const int unknown = (int)(PAPI_NATIVE_MASK | 0xabcdef);

/* ------------------------------------------------- PAPI_add_events */

/*
 * PAPI_add_events(@codes) on a new set (multiplexed if @mpx): must return
 * @want and leave the first @nadded codes in the set, one descriptor
 * each, and a set that counts (when it has events).
 */
static void add_events_case(const char *name, int *codes, int n, int mpx,
			    int want, int nadded)
{
	int set = PAPI_NULL, fds, rc, got, listed[8], nl = 8, i, ok = 1;
	long long v[8] = { 0 };

	fds = fd_count();
	rc = PAPI_create_eventset(&set);
	if (rc == PAPI_OK && mpx) {
		rc = PAPI_assign_eventset_component(set, 0);
		if (rc == PAPI_OK)
			rc = PAPI_set_multiplex(set);
	}
	if (rc != PAPI_OK) {
		lope_fail(name, "setup: %s", papi_err(rc));
		drop_set(&set);
		return;
	}
	got = PAPI_add_events(set, codes, n);
	if (PAPI_list_events(set, listed, &nl) != PAPI_OK)
		nl = -1;
	for (i = 0; i < nadded && i < nl; i++)
		ok &= listed[i] == codes[i];
	ok &= nl == nadded && fd_count() == fds + nadded;
	if (ok && nadded > 0) {
		rc = PAPI_start(set);
		busy_ns(2 * MS);
		if (rc == PAPI_OK)
			rc = PAPI_stop(set, v);
		ok &= rc == PAPI_OK && v[0] > MS;
	}
	lope_check(
		got == want && ok, name,
		"returned %s (want %d), %d events listed (want %d), %d new descriptors, counts %s, first value %lld",
		papi_err(got), want, nl, nadded, fd_count() - fds, papi_err(rc),
		v[0]);
	drop_set(&set);
}

static void test_add_events(void)
{
	int a[] = { tc, pf, unknown, cc };
	int b[] = { unknown, tc };
	int c[] = { tc, tc };
	int d[] = { tc, tsc };
	int e[] = { tc, pf, cc };
	int f[] = { tc, pf, cc, unknown };
	int g[] = { tc, cpu9999, pf };
	int set = PAPI_NULL, first_err;

	/* What PAPI_add_event says of the unknown code on its own. */
	first_err = PAPI_create_eventset(&set);
	if (first_err == PAPI_OK)
		first_err = PAPI_add_event(set, unknown);
	drop_set(&set);
	lope_info("PAPI_add_event(unknown code) alone: %s",
		  papi_err(first_err));

	add_events_case("add_events_invalid_third_of_four_returns_2", a, 4, 0,
			2, 2);
	add_events_case("add_events_invalid_first_returns_its_error", b, 2, 0,
			first_err, 0);
	add_events_case("add_events_duplicate_second_returns_1", c, 2, 0, 1, 1);
	if (tsc)
		add_events_case("add_events_other_components_second_returns_1",
				d, 2, 0, 1, 1);
	else
		lope_skip("add_events_other_components_second_returns_1",
			  "no msr::tsc on this machine");
	add_events_case("add_events_all_valid_returns_papi_ok", e, 3, 0,
			PAPI_OK, 3);
	add_events_case("add_events_multiplexed_invalid_fourth_returns_3", f, 4,
			1, 3, 3);
	/* Valid name, refused by the kernel when the component opens it. */
	add_events_case(
		"add_events_kernel_refuses_the_second_cpu_9999_returns_1", g, 3,
		0, 1, 1);
}

/* ------------------------------------------------------- snapshots */

static void test_snapshots(void)
{
	static const char *const config[] = {
		"perf::TASK-CLOCK", "perf::PAGE-FAULTS", "msr::tsc",
		"perf::NOT-AN-EVENT", /* a typo in the user's config */
	};
	int codes[2][4], n[2] = { 0, 0 }, set[2] = { PAPI_NULL, PAPI_NULL };
	int i, k, rc = PAPI_OK, cidx, skipped = 0, nsets;
	long long v[2][4], sum = 0, negative = 0, tsc_still = 0;
	/* This thread's task-clock: before and after the starts, before the
	 * last read and after its reset; the gaps from before each read to
	 * after its reset, summed. */
	long long t0, t1, t2 = 0, t3 = 0, before, gaps = 0;
	int own = sw_counter_open(PERF_COUNT_SW_TASK_CLOCK, 0);

	for (i = 0; i < 4; i++) {
		int code = code_of(config[i]);

		cidx = code ? PAPI_get_event_component(code) : -1;
		if (cidx < 0 || cidx > 1) {
			skipped++;
			continue;
		}
		codes[cidx][n[cidx]++] = code;
	}
	lope_check(skipped == (tsc ? 1 : 2) && n[0] == 2,
		   "snapshots_config_resolved_grouped_by_component",
		   "%d skipped, %d for component 0, %d for component 1",
		   skipped, n[0], n[1]);
	nsets = n[1] ? 2 : 1;
	for (k = 0; k < nsets && rc == PAPI_OK; k++) {
		rc = PAPI_create_eventset(&set[k]);
		if (rc == PAPI_OK)
			rc = PAPI_assign_eventset_component(set[k], k);
		if (rc == PAPI_OK)
			rc = PAPI_add_events(set[k], codes[k], n[k]);
	}
	t0 = sw_counter_read(own);
	for (k = 0; k < nsets && rc == PAPI_OK; k++)
		rc = PAPI_start(set[k]);
	t1 = sw_counter_read(own);
	if (!lope_check(rc == PAPI_OK,
			"snapshots_one_set_per_component_both_started", "%s",
			papi_err(rc)))
		goto out;
	for (i = 0; i < 200 && rc == PAPI_OK; i++) {
		busy_ns(100 * 1000);
		if (i % 20 == 0)
			(void)touch_pages(4);
		before = sw_counter_read(own);
		for (k = 0; k < nsets && rc == PAPI_OK; k++) {
			rc = PAPI_read(set[k], v[k]);
			if (rc == PAPI_OK)
				rc = PAPI_reset(set[k]);
		}
		t2 = before;
		t3 = sw_counter_read(own);
		gaps += t3 - before;
		negative += v[0][0] < 0 || v[0][1] < 0;
		sum += v[0][0];
		if (nsets == 2)
			tsc_still += v[1][0] <= 0;
	}
	lope_check(rc == PAPI_OK && !negative,
		   "snapshots_200_x_read_reset_no_negative_value",
		   "%s, %lld negative", papi_err(rc), negative);
	/* The last read's own gap is not lost: it counts up to that read. */
	gaps -= t3 - t2;
	lope_check(
		own >= 0 && sum >= t2 - t1 - gaps && sum <= t3 - t0,
		"snapshots_task_clock_intervals_sum_to_the_threads_task_clock",
		"%lld ns, the thread's task-clock %lld (less %lld between the reads and their resets) to %lld ns",
		sum, t2 - t1, gaps, t3 - t0);
	if (nsets == 2)
		lope_check(!tsc_still, "snapshots_msr_tsc_grows_every_time",
			   "%lld snapshots without", tsc_still);
	for (k = 0; k < nsets; k++) {
		rc = PAPI_stop(set[k], v[k]);
		if (rc != PAPI_OK)
			break;
	}
	lope_check(rc == PAPI_OK, "snapshots_both_sets_stop", "%s",
		   papi_err(rc));
out:
	drop_set(&set[0]);
	drop_set(&set[1]);
	if (own >= 0)
		close(own);
}

/* ------------------------------------------------------- data_type */

static const char *sysfs_root(void)
{
	const char *root = getenv("LOPE_SYSFS_ROOT");

	return root && *root ? root : SYSFS;
}

/*
 * For "pmu::event" of a sysfs PMU: 1 if its .scale is not 1, 0 if it has
 * none or 1, -1 if it is not a sysfs event at all.
 */
static int sysfs_scaled(const char *name)
{
	char pmu[128], path[PATH_MAX], buf[64];
	const char *sep = strstr(name, "::");
	FILE *f;
	double scale;

	if (!sep || (size_t)(sep - name) >= sizeof(pmu) || strchr(sep + 2, ':'))
		return -1;
	memcpy(pmu, name, (size_t)(sep - name));
	pmu[sep - name] = 0;
	snprintf(path, sizeof(path), "%s/%s/events/%s", sysfs_root(), pmu,
		 sep + 2);
	if (access(path, R_OK) != 0)
		return -1;
	strncat(path, ".scale", sizeof(path) - strlen(path) - 1);
	f = fopen(path, "re");
	if (!f)
		return 0;
	scale = fgets(buf, sizeof(buf), f) ? strtod(buf, NULL) : 1;
	fclose(f);
	return scale != 1;
}

struct sweep {
	int events, bad_type, info_errors, fp64_scaled, int64_plain;
	int scale_wrong;
	char first_bad[PAPI_MAX_STR_LEN + 64];
};

static void check_type(struct sweep *s, int code, int cidx)
{
	PAPI_event_info_t info;
	int rc, scaled;

	s->events++;
	memset(&info, 0, sizeof(info));
	rc = PAPI_get_event_info(code, &info);
	if (rc != PAPI_OK) {
		s->info_errors++;
		if (!s->first_bad[0])
			snprintf(s->first_bad, sizeof(s->first_bad),
				 "code %#x: info %s", (unsigned)code,
				 papi_err(rc));
		return;
	}
	if (info.data_type != PAPI_DATATYPE_INT64 &&
	    info.data_type != PAPI_DATATYPE_UINT64 &&
	    info.data_type != PAPI_DATATYPE_FP64) {
		s->bad_type++;
		if (!s->first_bad[0])
			snprintf(s->first_bad, sizeof(s->first_bad),
				 "%.100s: data_type %d", info.symbol,
				 info.data_type);
	}
	if (cidx != 1)
		return;
	scaled = sysfs_scaled(info.symbol);
	if (scaled == 1 && info.data_type == PAPI_DATATYPE_FP64)
		s->fp64_scaled++;
	else if (scaled == 0 && info.data_type == PAPI_DATATYPE_INT64)
		s->int64_plain++;
	else if (scaled >= 0) {
		s->scale_wrong++;
		if (!s->first_bad[0])
			snprintf(s->first_bad, sizeof(s->first_bad),
				 "%.100s: data_type %d, scaled %d", info.symbol,
				 info.data_type, scaled);
	}
}

static void sweep_types(const char *prefix, struct sweep *s)
{
	char name[128];
	int cidx, code, ucode, ncomp = PAPI_num_components();

	memset(s, 0, sizeof(*s));
	for (cidx = 0; cidx < ncomp; cidx++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);

		if (!ci || ci->disabled)
			continue;
		code = PAPI_NATIVE_MASK;
		if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) !=
		    PAPI_OK)
			continue;
		do {
			check_type(s, code, cidx);
			ucode = code;
			if (PAPI_enum_cmp_event(&ucode, PAPI_NTV_ENUM_UMASKS,
						cidx) == PAPI_OK)
				do
					check_type(s, ucode, cidx);
				while (PAPI_enum_cmp_event(&ucode,
							   PAPI_NTV_ENUM_UMASKS,
							   cidx) == PAPI_OK);
		} while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) ==
			 PAPI_OK);
	}
	code = PAPI_PRESET_MASK;
	if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) == PAPI_OK)
		do {
			if (PAPI_query_event(code) == PAPI_OK)
				check_type(s, code, 0);
		} while (PAPI_enum_event(&code, PAPI_PRESET_ENUM_AVAIL) ==
			 PAPI_OK);
	lope_info(
		"%s: %d events and modifiers, %d scaled sysfs FP64, %d plain sysfs INT64",
		prefix, s->events, s->fp64_scaled, s->int64_plain);
	lope_name(name, sizeof(name),
		  "%s: data_type of every event INT64/UINT64/FP64", prefix);
	lope_check(s->events > 0 && !s->bad_type && !s->info_errors, name,
		   "%d events, %d bad types, %d info errors, first: %s",
		   s->events, s->bad_type, s->info_errors, s->first_bad);
	lope_name(name, sizeof(name),
		  "%s: sysfs events FP64 exactly when .scale is not 1", prefix);
	lope_check(!s->scale_wrong, name, "%d wrong, first: %s", s->scale_wrong,
		   s->first_bad);
}

/* ------------------------------------------------ fake sysfs child */

static char tree[PATH_MAX];

/* The child: the sweep on the fake tree, and an FP64 value as a double. */
static int fake_child(void)
{
	struct sweep s;
	double d[2];
	long long v[2];
	int set = PAPI_NULL, code, rc;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		lope_fail("fake_sysfs_library_init", "failed");
		return 3;
	}
	sweep_types("fake sysfs", &s);
	lope_check(s.fp64_scaled == 1 && s.int64_plain == 1,
		   "fake_sysfs_fakemsr_tsc_scale_0_5_fp64_fakemsr_smi_int64",
		   "%d scaled FP64, %d plain INT64", s.fp64_scaled,
		   s.int64_plain);
	code = code_of("fakemsr::tsc");
	rc = code ? PAPI_create_eventset(&set) : PAPI_ENOEVNT;
	if (rc == PAPI_OK)
		rc = PAPI_add_events(set, &code, 1);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	if (rc == PAPI_OK)
		rc = PAPI_read(set, &v[0]);
	sleep_ns(20 * MS);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, &v[1]);
	memcpy(&d[0], &v[0], sizeof(d[0]));
	memcpy(&d[1], &v[1], sizeof(d[1]));
	lope_info("fakemsr::tsc as double: %.1f then %.1f", d[0], d[1]);
	lope_check(rc == PAPI_OK && isfinite(d[1]) && d[1] > d[0] &&
			   d[1] - d[0] > 1e5,
		   "fake_sysfs_the_fp64_value_reads_as_a_growing_double",
		   "%s, %g then %g", papi_err(rc), d[0], d[1]);
	drop_set(&set);
	/* 3, not 1: the parent tells a failed case from a failed start. */
	return lope_failures() ? 3 : 0;
}

static void test_fake_sysfs(void)
{
	static const struct tree_file files[] = {
		{ "fakemsr/format/event", "config:0-63\n" },
		{ "fakemsr/events/tsc", "event=0x00\n" },
		{ "fakemsr/events/tsc.scale", "0.5\n" },
		{ "fakemsr/events/tsc.unit", "halfticks\n" },
		{ "fakemsr/events/smi", "event=0x04\n" },
	};
	char type[32],
		*argv[] = { "test_frontend_caliper", "--fake-sysfs", NULL };
	FILE *f = fopen(SYSFS "/msr/type", "re");
	int st;
	pid_t pid;

	if (!f || !fgets(type, sizeof(type), f)) {
		if (f)
			fclose(f);
		lope_skip("fake_sysfs", "no msr PMU to borrow a type from");
		return;
	}
	fclose(f);
	if (tree_make(tree, sizeof(tree), "caliper")) {
		lope_fail("fake_sysfs", "mkdtemp failed");
		return;
	}
	if (tree_put(tree, "fakemsr/type", type) ||
	    tree_put_all(tree, files, sizeof(files) / sizeof(files[0]))) {
		lope_fail("fake_sysfs", "cannot write %s", tree);
	} else {
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			setenv("LOPE_SYSFS_ROOT", tree, 1);
			execv("/proc/self/exe", argv);
			_exit(127);
		}
		st = pid > 0 ? wait_child(pid) : -1;
		lope_check(st == 0 || st == 3, "fake_sysfs_child_finished",
			   "status %d (3: a case failed, see above)", st);
	}
	(void)tree_remove(tree);
}

int main(int argc, char **argv)
{
	struct sweep s;
	int fds, maps;

	if (argc > 1 && !strcmp(argv[1], "--fake-sysfs"))
		return fake_child();
	papi_init_or_exit();
	thread_init_or_exit("papi_thread_init", pthread_self);
	fds = fd_count();
	maps = perf_maps_count();
	tc = code_of("perf::TASK-CLOCK");
	pf = code_of("perf::PAGE-FAULTS");
	cc = code_of("perf::CPU-CLOCK");
	cpu9999 = code_of("perf::TASK-CLOCK:cpu=9999");
	tsc = code_of("msr::tsc");
	if (!lope_check(tc && pf && cc && cpu9999, "event_names_resolve",
			"%#x %#x %#x %#x", tc, pf, cc, cpu9999))
		return lope_done();
	test_add_events();
	test_snapshots();
	sweep_types("this machine", &s);
	lope_check(fd_count() == fds && perf_maps_count() == maps,
		   "no_descriptor_or_perf_mapping_left",
		   "%d descriptors (%d before), %d perf mappings (%d before)",
		   fd_count(), fds, perf_maps_count(), maps);
	test_fake_sysfs();
	return lope_done();
}
