/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_reinit: PAPI_library_init again after PAPI_shutdown, round after
 * round, in this process and in a forked child.
 *
 * PAPI_shutdown shuts every component down; the next PAPI_library_init
 * initialises component 0 first and, while it loads presets, looks up
 * in every component a name component 0 does not know, in the uncore one
 * too, which is not initialised again yet.  A component that kept the
 * name table PAPI's libpfm4 layer had freed wrote into freed memory
 * there.  Which names those are depends on the CPU and PAPI's table (the
 * presets of its section for the CPU that component 0 refuses; none
 * where it has no section), so that a run on one machine could miss it
 * and the same run under valgrind, which shows the CPU as a Haswell,
 * find it.  The test makes one on every CPU: its own preset table
 * (PAPI_CSV_EVENT_FILE) with a preset of a name no component knows.  (Not
 * a user event, PAPI_USER_EVENTS_FILE: PAPI 7.2 indexes its preset array
 * with a user event's code while loading one, and crashes.)
 *
 * A round: PAPI_library_init; every component as in the first round
 * (enabled or not, as many native events and presets); each event of the
 * table named, coded and named back, on its component, and a set of it
 * counting a spin (task-clock within the span of the thread's own
 * task-clock read around the start and the stop, ctests/lib/span.h;
 * msr::tsc something);
 * PAPI_shutdown; no descriptor or perf mapping left.  Three rounds here,
 * then three in a forked child, which reports its own cases and must
 * exit 0.
 *
 * Report protocol: ctests/lib/report.h.
 */
#include <linux/perf_event.h>

#include "papi_util.h"
#include "span.h"
#include "tree.h"

#define ROUNDS 3
#define SPIN_NS (5 * MS)
#define DEVICES "/sys/bus/event_source/devices"
#define MAX_COMPONENTS 32
/* Our preset section (components/perf_event/perf_event.c), loaded where
 * no preset of PAPI's section counts or PAPI has none for the CPU. */
#define GENERIC_SECTION "lope_generic"

/* The events of a round: one of each of our components. */
static const struct event {
	const char *name;
	const char *component; /* the component PAPI must give it to */
	const char *pmu;       /* the sysfs PMU it needs; NULL: any kernel */
	int clock;             /* counts the thread's task-clock, else grows */
} events[] = {
	{ "perf::TASK-CLOCK", "perf_event", NULL, 1 },
	{ "msr::tsc", "perf_event_uncore", "msr", 0 },
};

#define NEVENTS (sizeof(events) / sizeof(events[0]))

static char probe_dir[PATH_MAX];

/*
 * The preset table, in probe_dir/presets.csv: one section for every PMU of
 * component 0 and our generic section (PAPI reads the one of the PMU it
 * loads presets for), with a preset of a name no component knows.  0, or
 * -1 with errno set.
 */
static int write_probe(void)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);
	char text[PAPI_PMU_MAX * (PAPI_MIN_STR_LEN + 8)];
	size_t n;
	int i;

	n = (size_t)snprintf(text, sizeof(text), "CPU,%s\n", GENERIC_SECTION);
	for (i = 0; ci && i < PAPI_PMU_MAX && ci->pmu_names[i]; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "CPU,%.*s\n",
				      PAPI_MIN_STR_LEN, ci->pmu_names[i]);
	snprintf(text + n, sizeof(text) - n,
		 "PRESET,PAPI_TOT_INS,NOT_DERIVED,lope_no_such_event\n");
	return tree_put(probe_dir, "presets.csv", text);
}

/*
 * PAPI initialised once, for component 0's PMUs, to write the probe: in
 * a child, so that every round of this process loads the same preset
 * table.  (PAPI_shutdown frees a preset's event names but keeps their
 * count, and the next shutdown frees them again unless the next init
 * loaded that preset anew: with the built-in table first and this one
 * after, PAPI_TOT_INS and the rest of an arm64 CPU's presets were freed
 * twice.)
 */
static void probe_or_exit(void)
{
	char path[PATH_MAX] = "";
	int st = -1;
	pid_t pid;

	if (tree_make(probe_dir, sizeof(probe_dir), "reinit") == 0 &&
	    snprintf(path, sizeof(path), "%s/presets.csv", probe_dir) <
		    (int)sizeof(path)) {
		pid = fork();
		if (pid == 0) {
			papi_init_or_exit();
			_exit(write_probe() == 0 ? 0 : 1);
		}
		st = pid > 0 ? wait_child(pid) : -1;
	}
	if (!lope_check(st == 0 && setenv("PAPI_CSV_EVENT_FILE", path, 1) == 0,
			"preset_table_probe",
			"writing %s: the child exited %d (1: its write failed)",
			path, st))
		lope_exit();
	lope_info("PAPI_CSV_EVENT_FILE=%s", path);
}

/* What a component's init decided, to compare with the first round's. */
struct component_state {
	int disabled, natives, presets;
};

static struct component_state first[MAX_COMPONENTS];
static int nfirst = -1; /* components in the first round; -1: none yet */

/* The states of the components, into @s; how many there are. */
static int component_states(struct component_state *s)
{
	const PAPI_component_info_t *ci;
	int i, n = PAPI_num_components();

	if (n > MAX_COMPONENTS)
		n = MAX_COMPONENTS;
	for (i = 0; i < n; i++) {
		ci = PAPI_get_component_info(i);
		s[i] = ci ? (struct component_state){ ci->disabled,
						      ci->num_native_events,
						      ci->num_preset_events } :
			    (struct component_state){ -1, -1, -1 };
	}
	return n;
}

/* The case that every component is as it was in the first round. */
static void same_components(const char *round)
{
	struct component_state now[MAX_COMPONENTS];
	char name[96], why[160] = "";
	int i, n = component_states(now);

	if (nfirst < 0) {
		memcpy(first, now, (size_t)n * sizeof(now[0]));
		nfirst = n;
	}
	for (i = 0; i < n && !why[0]; i++)
		if (memcmp(&now[i], &first[i], sizeof(now[i])))
			snprintf(why, sizeof(why),
				 "component %d: disabled %d, %d native events, "
				 "%d presets; first round %d, %d, %d",
				 i, now[i].disabled, now[i].natives,
				 now[i].presets, first[i].disabled,
				 first[i].natives, first[i].presets);
	if (n != nfirst)
		snprintf(why, sizeof(why), "%d components, first round %d", n,
			 nfirst);
	lope_check(!why[0],
		   lope_name(name, sizeof(name), "%s_components_as_first_round",
			     round),
		   "%s", why);
}

/* Why @e cannot be counted here, into @why; 0 when it can. */
static int missing(const struct event *e, char *why, size_t len)
{
	const PAPI_component_info_t *ci;
	char path[PATH_MAX];

	if (!e->pmu)
		return 0;
	snprintf(path, sizeof(path), DEVICES "/%s", e->pmu);
	if (access(path, F_OK) != 0) {
		snprintf(why, len, "no %s PMU in " DEVICES, e->pmu);
		return 1;
	}
	ci = PAPI_get_component_info(PAPI_get_component_index(e->component));
	if (ci && ci->disabled) {
		snprintf(why, len, "%s disabled: %.128s", e->component,
			 ci->disabled_reason);
		return 1;
	}
	return 0;
}

/* @e's name to a code of its component, the code to a name, to the code. */
static void lookup(const char *round, const struct event *e)
{
	char name[96], back[PAPI_MAX_STR_LEN] = "";
	int code = 0, code2 = 0, cidx = -1, rc;

	rc = PAPI_event_name_to_code(e->name, &code);
	if (rc == PAPI_OK)
		rc = PAPI_event_code_to_name(code, back);
	if (rc == PAPI_OK)
		rc = PAPI_event_name_to_code(back, &code2);
	if (rc == PAPI_OK)
		cidx = PAPI_get_event_component(code);
	lope_check(rc == PAPI_OK && code2 == code &&
			   cidx == PAPI_get_component_index(e->component),
		   lope_name(name, sizeof(name), "%s_%s_name_code_name", round,
			     e->name),
		   "rc=%s: %#x, \"%s\", %#x, component %d", papi_err(rc), code,
		   back, code2, cidx);
}

/*
 * A set of @e counts a spin: a clock within the span of the thread's own
 * task-clock around the start and the stop, anything else more than
 * nothing.
 */
static void count(const char *round, const struct event *e)
{
	long long v = 0;
	int set = PAPI_NULL, rc;
	struct span sp;
	char name[96];

	rc = make_named_set(&set, &e->name, 1);
	if (span_open(&sp, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0 && rc == PAPI_OK)
		rc = PAPI_ESYS;
	rc = spin_between_marks(set, rc, SPIN_NS, PAPI_stop, &v, &sp);
	drop_set(&set);
	lope_check(rc == PAPI_OK && (e->clock ? span_holds(&sp, v) : v > 0),
		   lope_name(name, sizeof(name), "%s_%s_counts", round,
			     e->name),
		   "rc=%s, %lld over a spin; the thread's task-clock span "
		   "[%lld, %lld] ns",
		   papi_err(rc), v, span_lo(&sp), span_hi(&sp));
	span_close(&sp);
}

/* One round: init, the components, every event, shutdown, nothing left. */
static void one_round(const char *who, int r)
{
	char round[32], name[96], why[PAPI_MAX_STR_LEN + 64];
	int fds = fd_count(), maps = perf_maps_count(), rc;
	size_t i;

	snprintf(round, sizeof(round), "%s_round_%d", who, r);
	rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (!lope_check(rc == PAPI_VER_CURRENT,
			lope_name(name, sizeof(name), "%s_library_init", round),
			"returned %s", papi_err(rc)))
		return;
	same_components(round);
	for (i = 0; i < NEVENTS; i++) {
		if (missing(&events[i], why, sizeof(why))) {
			lope_skip(lope_name(name, sizeof(name), "%s_%s", round,
					    events[i].name),
				  "%s", why);
			continue;
		}
		lookup(round, &events[i]);
		count(round, &events[i]);
	}
	PAPI_shutdown();
	lope_check(fd_count() == fds && perf_maps_count() == maps,
		   lope_name(name, sizeof(name), "%s_shutdown_leaves_nothing",
			     round),
		   "descriptors %d -> %d, perf mappings %d -> %d", fds,
		   fd_count(), maps, perf_maps_count());
}

/*
 * The rounds in a forked child.  It is forked after PAPI_shutdown: in a
 * child forked while PAPI is initialised PAPI_library_init starts over
 * without a shutdown, and PAPI's core leaks the parent's thread and event
 * set tables, which valgrind would report here.  The child leaves with
 * exit(), not _exit(), so that LeakSanitizer checks it too.
 */
static void child_rounds(void)
{
	pid_t pid = fork();
	int r, st;

	if (pid == 0) {
		for (r = 1; r <= ROUNDS; r++)
			one_round("child", r);
		exit(lope_done());
	}
	st = pid > 0 ? wait_child(pid) : -1;
	lope_check(st == 0, "child_exits_0",
		   "exit %d (1: its FAIL lines above; 128+N: signal N; -1: "
		   "no fork)",
		   st);
}

int main(void)
{
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	probe_or_exit();
	for (r = 1; r <= ROUNDS; r++)
		one_round("parent", r);
	child_rounds();
	(void)tree_remove(probe_dir);
	return lope_done();
}
