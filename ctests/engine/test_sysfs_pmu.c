/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the sysfs PMU reader (lope_pmus__*) on a fake
 * /sys/bus/event_source/devices tree this test writes into a temporary
 * directory: which PMUs and events are listed (core and per-thread PMUs
 * are not, directories without a valid type are no PMU), how terms are
 * encoded through format bit ranges (one or several terms, split ranges,
 * config1/config2, flags without a value, config fields named directly),
 * scale, unit and snapshot files, cpumask parsing, and the error each
 * malformed or missing file gives.  Then the real sysfs, read-only: the
 * msr PMU's tsc event, when this machine has one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lope.h"
#include "report.h"
#include "tree.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static char root[PATH_MAX];

/* The fake tree: path under root, content (NULL: a directory). */
static const struct file_row {
	const char *path, *text;
} files[] = {
	/* as on this KVM guest: no cpumask, one 64-bit field */
	{ "msr/type", "9\n" },
	{ "msr/format/event", "config:0-63\n" },
	{ "msr/events/tsc", "event=0x00\n" },
	{ "msr/events/smi", "event=0x04\n" },
	/* RAPL as the kernel writes it */
	{ "power/type", "23\n" },
	{ "power/cpumask", "0\n" },
	{ "power/format/event", "config:0-7\n" },
	{ "power/events/energy-pkg", "event=0x02\n" },
	{ "power/events/energy-pkg.scale", "2.3283064365386962890625e-10\n" },
	{ "power/events/energy-pkg.unit", "Joules\n" },
	/* an uncore box with every kind of term */
	{ "unc/type", "30\n" },
	{ "unc/cpumask", "2,18\n" },
	{ "unc/format/event", "config:0-7\n" },
	{ "unc/format/umask", "config:8-15\n" },
	{ "unc/format/edge", "config:18\n" },
	{ "unc/format/filter", "config1:0-15\n" },
	{ "unc/format/ext", "config2:8-15\n" },
	{ "unc/format/c3", "config3:0-7\n" },
	{ "unc/format/nofield", "event:0-7\n" },
	{ "unc/format/backwards", "config:9-3\n" },
	{ "unc/format/toohigh", "config:60-64\n" },
	{ "unc/format/nocolon", "config\n" },
	{ "unc/events/two", "event=0x3c,umask=0x01\n" },
	{ "unc/events/flag", "event=0x1,edge\n" },
	{ "unc/events/f1", "event=0x2,filter=0xabcd\n" },
	{ "unc/events/f2", "ext=0xff" },
	{ "unc/events/direct", "config=0x1234,config1=5,config2=0x8\n" },
	{ "unc/events/dec", "event=010\n" },
	{ "unc/events/toowide", "umask=0x100\n" },
	{ "unc/events/huge", "event=0x1ffffffffffffffff\n" },
	{ "unc/events/unknown", "nosuch=1\n" },
	{ "unc/events/notnum", "event=zz\n" },
	{ "unc/events/sign", "event=-1\n" },
	{ "unc/events/empty", "\n" },
	{ "unc/events/emptyterm", "event=0x1,,umask=2\n" },
	{ "unc/events/ask", "event=0x1,umask=?\n" },
	{ "unc/events/cfg3", "c3=1\n" },
	{ "unc/events/cfg3direct", "config3=1\n" },
	{ "unc/events/badfield", "nofield=1\n" },
	{ "unc/events/badrange", "backwards=1\n" },
	{ "unc/events/badhigh", "toohigh=1\n" },
	{ "unc/events/badformat", "nocolon=1\n" },
	{ "unc/events/badscale", "event=1\n" },
	{ "unc/events/badscale.scale", "abc\n" },
	{ "unc/events/negscale", "event=1\n" },
	{ "unc/events/negscale.scale", "-1\n" },
	{ "unc/events/mib", "event=0x4,umask=0x3\n" },
	{ "unc/events/mib.scale", "6.103515625e-5\n" },
	{ "unc/events/mib.unit", "MiB\n" },
	{ "unc/events/mib.per-pkg", "1\n" },
	{ "unc/events/occ", "event=0x1\n" },
	{ "unc/events/occ.snapshot", "1\n" },
	{ "unc/events/longunit", "event=1\n" },
	{ "unc/events/longunit.unit",
	  "a unit name far longer than any the kernel uses\n" },
	/* split bit ranges, a malformed cpumask */
	{ "split/type", "31\n" },
	{ "split/cpumask", "x\n" },
	{ "split/format/event", "config:0-7,32-35\n" },
	{ "split/events/hi", "event=0xabc\n" },
	/* an empty cpumask: no cpu left to count on */
	{ "nocpu/type", "32\n" },
	{ "nocpu/cpumask", "\n" },
	{ "nocpu/format/event", "config:0-7\n" },
	{ "nocpu/events/e", "event=1\n" },
	/* per-thread and core PMUs: not listed */
	{ "cpu/type", "4\n" },
	{ "cpu/format/event", "config:0-7\n" },
	{ "cpu/events/cycles", "event=0x3c\n" },
	{ "cpu_core/type", "8\n" },
	{ "cpu_core/cpus", "0-3\n" },
	{ "cpu_core/events/x", "event=1\n" },
	/* an Arm core PMU: named after the CPU, says which cpus it covers */
	{ "armv8_pmuv3_0/type", "10\n" },
	{ "armv8_pmuv3_0/cpus", "0-1\n" },
	{ "armv8_pmuv3_0/format/event", "config:0-15\n" },
	{ "armv8_pmuv3_0/format/rdpmc", "config1:1\n" },
	{ "armv8_pmuv3_0/events/cpu_cycles", "event=0x0011\n" },
	{ "software/type", "1\n" },
	{ "uprobe/type", "7\n" },
	{ "uprobe/format/retprobe", "config:0\n" },
	/* not PMUs: no type, or a malformed one */
	{ "notapmu/events/e", "event=1\n" },
	{ "badtype/type", "xyz\n" },
	{ "badtype/events/e", "event=1\n" },
	{ "bigtype/type", "0x100000000\n" },
	{ "bigtype/events/e", "event=1\n" },
	/* a PMU without events: listed for its cpumask only */
	{ "noevents/type", "40\n" },
	{ "noevents/cpumask", "5\n" },
};

/* Listed events, in the order lope_pmus__name() must give them. */
static const char *const listed[] = {
	"msr/smi",        "msr/tsc",      "nocpu/e",      "power/energy-pkg",
	"split/hi",       "unc/ask",      "unc/badfield", "unc/badformat",
	"unc/badhigh",    "unc/badrange", "unc/badscale", "unc/cfg3",
	"unc/cfg3direct", "unc/dec",      "unc/direct",   "unc/empty",
	"unc/emptyterm",  "unc/f1",       "unc/f2",       "unc/flag",
	"unc/huge",       "unc/longunit", "unc/mib",      "unc/negscale",
	"unc/notnum",     "unc/occ",      "unc/sign",     "unc/toowide",
	"unc/two",        "unc/unknown",
};

/* Events that decode, and what into. */
static const struct event_row {
	int line;
	const char *pmu, *event;
	uint32_t type;
	uint64_t config, config1, config2;
	double scale;
	const char *unit;
	int cpu, snapshot;
} events[] = {
	{ __LINE__, "msr", "tsc", 9, 0, 0, 0, 1, "", -1, 0 },
	{ __LINE__, "msr", "smi", 9, 4, 0, 0, 1, "", -1, 0 },
	{ __LINE__, "power", "energy-pkg", 23, 2, 0, 0, 0x1p-32, "Joules", 0,
	  0 },
	{ __LINE__, "unc", "two", 30, 0x13c, 0, 0, 1, "", 2, 0 },
	{ __LINE__, "unc", "flag", 30, 0x40001, 0, 0, 1, "", 2, 0 },
	{ __LINE__, "unc", "f1", 30, 2, 0xabcd, 0, 1, "", 2, 0 },
	{ __LINE__, "unc", "f2", 30, 0, 0, 0xff00, 1, "", 2, 0 },
	{ __LINE__, "unc", "direct", 30, 0x1234, 5, 8, 1, "", 2, 0 },
	{ __LINE__, "unc", "dec", 30, 10, 0, 0, 1, "", 2, 0 },
	{ __LINE__, "unc", "mib", 30, 0x304, 0, 0, 6.103515625e-5, "MiB", 2,
	  0 },
	{ __LINE__, "unc", "occ", 30, 1, 0, 0, 1, "", 2, 1 },
};

/* Events that do not decode, and the error each gives. */
static const struct error_row {
	int line;
	const char *pmu, *event;
	int err;
} errors[] = {
	{ __LINE__, "split", "hi", -EINVAL }, /* cpumask "x" */
	{ __LINE__, "nocpu", "e", -ENODEV },
	{ __LINE__, "unc", "toowide", -ERANGE },
	{ __LINE__, "unc", "huge", -ERANGE },
	{ __LINE__, "unc", "unknown", -EINVAL },
	{ __LINE__, "unc", "notnum", -EINVAL },
	{ __LINE__, "unc", "sign", -EINVAL },
	{ __LINE__, "unc", "empty", -EINVAL },
	{ __LINE__, "unc", "emptyterm", -EINVAL },
	{ __LINE__, "unc", "ask", -EOPNOTSUPP },
	{ __LINE__, "unc", "cfg3", -EOPNOTSUPP },
	{ __LINE__, "unc", "cfg3direct", -EOPNOTSUPP },
	{ __LINE__, "unc", "badfield", -EINVAL },
	{ __LINE__, "unc", "badrange", -EINVAL },
	{ __LINE__, "unc", "badhigh", -EINVAL },
	{ __LINE__, "unc", "badformat", -EINVAL },
	{ __LINE__, "unc", "badscale", -EINVAL },
	{ __LINE__, "unc", "negscale", -EINVAL },
	{ __LINE__, "unc", "longunit", -EOVERFLOW },
};

static int make_tree(void)
{
	size_t i;

	if (tree_make(root, sizeof(root), "sysfs"))
		return -errno;
	for (i = 0; i < ARRAY_SIZE(files); i++)
		if (tree_put(root, files[i].path, files[i].text))
			return errno ? -errno : -EIO;
	return 0;
}

static void remove_tree(void)
{
	if (tree_remove(root) != 0)
		lope_info("could not remove %s: %s", root, strerror(errno));
}

static void test_listing(struct lope_pmus *p)
{
	char got[128] = "", want[128] = "";
	const char *pmu, *ev;
	int nr = lope_pmus__nr_events(p), i;

	if (!lope_check(nr == (int)ARRAY_SIZE(listed), "list_count",
			"%d events listed, want %zu", nr, ARRAY_SIZE(listed)))
		return;
	for (i = 0; i < nr; i++) {
		if (lope_pmus__name(p, i, &pmu, &ev) != 0) {
			snprintf(got, sizeof(got), "no name for %d", i);
			break;
		}
		snprintf(got, sizeof(got), "%s/%s", pmu, ev);
		if (strcmp(got, listed[i])) {
			snprintf(want, sizeof(want), "%s", listed[i]);
			break;
		}
	}
	lope_check(i == nr, "list_sorted_names", "at %d: got %s, want %s", i,
		   got, want);
	lope_check(lope_pmus__name(p, nr, &pmu, &ev) == -ENOENT &&
			   lope_pmus__name(p, -1, &pmu, &ev) == -ENOENT,
		   "name_out_of_range_enoent", "an index past the end named");
	lope_check(lope_pmus__find(p, "msr", "tsc") == 1 &&
			   lope_pmus__find(p, "unc", "two") ==
				   (int)ARRAY_SIZE(listed) - 2,
		   "find_gives_index", "msr/tsc at %d, unc/two at %d",
		   lope_pmus__find(p, "msr", "tsc"),
		   lope_pmus__find(p, "unc", "two"));
	lope_check(lope_pmus__find(p, "msr", "nosuch") == -ENOENT &&
			   lope_pmus__find(p, "nosuch", "tsc") == -ENOENT &&
			   lope_pmus__find(p, "unc", "mib.scale") == -ENOENT,
		   "find_unknown_enoent", "an unknown event was found");
	lope_check(lope_pmus__find(p, "cpu", "cycles") == -ENOENT &&
			   lope_pmus__find(p, "cpu_core", "x") == -ENOENT,
		   "core_pmus_not_listed", "a core PMU's event is listed");
	lope_check(lope_pmus__find(p, "notapmu", "e") == -ENOENT &&
			   lope_pmus__find(p, "badtype", "e") == -ENOENT &&
			   lope_pmus__find(p, "bigtype", "e") == -ENOENT,
		   "no_valid_type_no_pmu",
		   "a directory without a type is listed");
}

static int same_double(double a, double b)
{
	return fabs(a - b) <= 1e-15 * fabs(b);
}

/*
 * Decode @pmu/@event into @attr and @ev (-ENOENT when it is not listed);
 * the case's name goes in @name.
 */
static int decode(struct lope_pmus *p, const char *pmu, const char *event,
		  struct perf_event_attr *attr, struct lope_pmu_event *ev,
		  char *name, size_t len)
{
	int idx = lope_pmus__find(p, pmu, event);

	lope_name(name, len, "event_%s_%s", pmu, event);
	if (idx < 0)
		return idx;
	memset(attr, 0xa5, sizeof(*attr));
	return lope_pmus__event(p, idx, attr, ev);
}

static void test_event_row(struct lope_pmus *p, const struct event_row *r)
{
	struct perf_event_attr attr;
	struct lope_pmu_event ev;
	char name[96];
	int err = decode(p, r->pmu, r->event, &attr, &ev, name, sizeof(name));

	if (err) {
		lope_fail(name, "line %d: %s", r->line, strerror(-err));
		return;
	}
	lope_check(attr.size == sizeof(attr) && attr.type == r->type &&
			   attr.config == r->config &&
			   attr.config1 == r->config1 &&
			   attr.config2 == r->config2 &&
			   attr.sample_period == 0 && attr.read_format == 0 &&
			   !attr.exclude_kernel && !strcmp(ev.pmu, r->pmu) &&
			   !strcmp(ev.name, r->event) &&
			   same_double(ev.scale, r->scale) &&
			   !strcmp(ev.unit, r->unit) && ev.cpu == r->cpu &&
			   ev.snapshot == r->snapshot,
		   name,
		   "line %d: type %" PRIu32 " config %#" PRIx64
		   " config1 %#" PRIx64 " config2 %#" PRIx64
		   " scale %g unit '%s' cpu %d snapshot %d",
		   r->line, attr.type, (uint64_t)attr.config,
		   (uint64_t)attr.config1, (uint64_t)attr.config2, ev.scale,
		   ev.unit, ev.cpu, ev.snapshot);
}

static void test_error_row(struct lope_pmus *p, const struct error_row *r)
{
	struct perf_event_attr attr;
	struct lope_pmu_event ev;
	char name[96];
	int err = decode(p, r->pmu, r->event, &attr, &ev, name, sizeof(name));

	lope_check(err == r->err, name, "line %d: got %d (%s), want %s",
		   r->line, err, strerror(-err), strerror(-r->err));
}

static void test_split(void)
{
	struct perf_event_attr attr;
	struct lope_pmus *p;
	int err;

	/* The split PMU's cpumask is malformed; give it a good one. */
	if (tree_put(root, "split/cpumask", "3-5\n") ||
	    lope_pmus__new(&p, root, LOPE_PMUS_SYSTEM) != 0) {
		lope_fail("split_ranges_low_bits_first", "setup failed");
		return;
	}
	err = lope_pmus__event(p, lope_pmus__find(p, "split", "hi"), &attr,
			       NULL);
	lope_check(err == 0 && attr.config == (0xbcull | (0xaull << 32)),
		   "split_ranges_low_bits_first", "err %d, config %#" PRIx64,
		   err, (uint64_t)attr.config);
	lope_pmus__delete(p);
	(void)tree_put(root, "split/cpumask", "x\n");
}

static void test_hide_and_cpu(struct lope_pmus *p)
{
	int before = lope_pmus__nr_events(p), cpu = 99, err;

	err = lope_pmus__hide_type(p, 30);
	lope_check(err == 0 && lope_pmus__nr_events(p) == before - 25 &&
			   lope_pmus__find(p, "unc", "two") == -ENOENT &&
			   lope_pmus__find(p, "split", "hi") == 4,
		   "hide_type_drops_its_events", "err %d, %d events left", err,
		   lope_pmus__nr_events(p));
	lope_check(lope_pmus__hide_type(p, 12345) == -ENOENT,
		   "hide_unknown_type_enoent", "no error");
	err = lope_pmus__cpu(p, 30, &cpu);
	lope_check(err == 0 && cpu == 2, "cpu_of_hidden_pmu",
		   "err %d cpu %d, want cpu 2", err, cpu);
	err = lope_pmus__cpu(p, 40, &cpu);
	lope_check(err == 0 && cpu == 5, "cpu_of_pmu_without_events",
		   "err %d cpu %d, want 5", err, cpu);
	err = lope_pmus__cpu(p, 9, &cpu);
	lope_check(err == 0 && cpu == -1, "cpu_without_cpumask_is_minus1",
		   "err %d cpu %d", err, cpu);
	lope_check(lope_pmus__cpu(p, 12345, &cpu) == -ENOENT,
		   "cpu_unknown_type_enoent", "no error");
	lope_check(lope_pmus__cpu(p, 32, &cpu) == -ENODEV,
		   "cpu_empty_cpumask_enodev", "no error");
}

static void test_vanished(struct lope_pmus *p)
{
	struct perf_event_attr attr;
	char path[PATH_MAX * 2];
	int err;

	snprintf(path, sizeof(path), "%s/msr/events/smi", root);
	if (unlink(path) != 0) {
		lope_fail("event_file_gone_enoent", "unlink: %s",
			  strerror(errno));
		return;
	}
	err = lope_pmus__event(p, lope_pmus__find(p, "msr", "smi"), &attr,
			       NULL);
	lope_check(err == -ENOENT, "event_file_gone_enoent", "got %d", err);
	lope_check(lope_pmus__event(p, 9999, &attr, NULL) == -ENOENT &&
			   lope_pmus__event(p, 0, NULL, NULL) == -EINVAL,
		   "event_bad_args", "accepted");
}

/* A locale with a decimal comma must not change how scales are read. */
static void test_locale(struct lope_pmus *p)
{
	static const char *const commas[] = { "de_DE.UTF-8", "fr_FR.UTF-8",
					      "de_DE", "fr_FR" };
	struct perf_event_attr attr;
	struct lope_pmu_event ev;
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(commas); i++)
		if (setlocale(LC_NUMERIC, commas[i]))
			break;
	if (i == ARRAY_SIZE(commas)) {
		lope_skip("scale_ignores_locale",
			  "no locale with a decimal comma installed");
		return;
	}
	err = lope_pmus__event(p, lope_pmus__find(p, "power", "energy-pkg"),
			       &attr, &ev);
	(void)setlocale(LC_NUMERIC, "C");
	lope_check(err == 0 && same_double(ev.scale, 0x1p-32),
		   "scale_ignores_locale", "%s: err %d scale %g", commas[i],
		   err, ev.scale);
}

static void test_missing_root(void)
{
	struct lope_pmus *p = (struct lope_pmus *)&p;
	char path[PATH_MAX * 2];
	int err;

	snprintf(path, sizeof(path), "%s/nosuch", root);
	err = lope_pmus__new(&p, path, LOPE_PMUS_SYSTEM);
	lope_check(err == -ENOENT && p == NULL, "missing_root_enoent", "got %d",
		   err);
	snprintf(path, sizeof(path), "%s/msr/type", root);
	err = lope_pmus__new(&p, path, LOPE_PMUS_SYSTEM);
	lope_check(err == -ENOTDIR, "root_is_a_file_enotdir", "got %d", err);
	lope_check(lope_pmus__new(NULL, root, LOPE_PMUS_SYSTEM) == -EINVAL &&
			   lope_pmus__new(&p, NULL, LOPE_PMUS_SYSTEM) ==
				   -EINVAL,
		   "new_bad_args", "accepted");
	lope_pmus__delete(NULL);
	lope_pass("delete_null");
}

/* The real sysfs, read-only: msr/tsc is what the uncore tests count. */
static void test_real_sysfs(void)
{
	static const char *const devices = "/sys/bus/event_source/devices";
	struct perf_event_attr attr;
	struct lope_pmu_event ev;
	struct lope_pmus *p;
	int err, idx;

	err = lope_pmus__new(&p, devices, LOPE_PMUS_SYSTEM);
	if (err) {
		lope_skip("real_sysfs_msr_tsc", "%s: %s", devices,
			  strerror(-err));
		return;
	}
	lope_info("%s: %d events listed", devices, lope_pmus__nr_events(p));
	idx = lope_pmus__find(p, "msr", "tsc");
	if (idx < 0) {
		lope_skip("real_sysfs_msr_tsc", "no msr/tsc event here");
	} else {
		err = lope_pmus__event(p, idx, &attr, &ev);
		lope_check(err == 0 && attr.config == 0 && ev.scale == 1,
			   "real_sysfs_msr_tsc", "err %d config %#llx", err,
			   (unsigned long long)attr.config);
	}
	lope_check(lope_pmus__find(p, "software", "cpu-clock") == -ENOENT,
		   "real_sysfs_no_software_pmu", "software events listed");
	lope_pmus__delete(p);
}

/* A set of the core PMUs: their events, raw terms, nothing else. */
static void test_core_kind(void)
{
	static const char *const core[] = { "armv8_pmuv3_0/cpu_cycles",
					    "cpu/cycles", "cpu_core/x" };
	struct perf_event_attr attr;
	struct lope_pmus *p, *sys;
	const char *pmu, *ev;
	int err, i, ok = 1;

	if (lope_pmus__new(&p, root, LOPE_PMUS_CORE) != 0 ||
	    lope_pmus__new(&sys, root, LOPE_PMUS_SYSTEM) != 0) {
		lope_fail("core_kind", "lope_pmus__new failed");
		return;
	}
	for (i = 0; i < (int)ARRAY_SIZE(core); i++) {
		char got[128];

		ok &= lope_pmus__name(p, i, &pmu, &ev) == 0;
		snprintf(got, sizeof(got), "%s/%s", ok ? pmu : "",
			 ok ? ev : "");
		ok &= !strcmp(got, core[i]);
	}
	lope_check(ok && lope_pmus__nr_events(p) == (int)ARRAY_SIZE(core),
		   "core_kind_lists_core_pmus_only", "%d events",
		   lope_pmus__nr_events(p));
	lope_check(lope_pmus__nr_pmus(p) == 3 &&
			   !strcmp(lope_pmus__pmu_name(p, 0),
				   "armv8_pmuv3_0") &&
			   !strcmp(lope_pmus__pmu_name(p, 2), "cpu_core") &&
			   !lope_pmus__pmu_name(p, 3) &&
			   !lope_pmus__pmu_name(p, -1),
		   "core_kind_pmu_names", "%d PMUs", lope_pmus__nr_pmus(p));
	lope_check(lope_pmus__nr_pmus(sys) == 6 &&
			   lope_pmus__pmu_name(sys, 0) &&
			   !strcmp(lope_pmus__pmu_name(sys, 0), "msr"),
		   "system_kind_pmu_names", "%d PMUs", lope_pmus__nr_pmus(sys));
	err = lope_pmus__encode(p, "cpu", "event=0xc0", &attr);
	lope_check(err == 0 && attr.type == 4 && attr.config == 0xc0 &&
			   attr.size == sizeof(attr),
		   "encode_raw_terms", "err %d type %u config %#llx", err,
		   attr.type, (unsigned long long)attr.config);
	err = lope_pmus__encode(p, "armv8_pmuv3_0", "event=0x8,rdpmc", &attr);
	lope_check(err == 0 && attr.type == 10 && attr.config == 0x8 &&
			   attr.config1 == 2,
		   "encode_raw_terms_two_fields", "err %d config %#llx/%#llx",
		   err, (unsigned long long)attr.config,
		   (unsigned long long)attr.config1);
	lope_check(lope_pmus__encode(p, "cpu", "umask=1", &attr) == -EINVAL &&
			   lope_pmus__encode(p, "cpu", "event=0x100", &attr) ==
				   -ERANGE &&
			   lope_pmus__encode(p, "cpu", "", &attr) == -EINVAL,
		   "encode_bad_terms", "accepted");
	lope_check(
		lope_pmus__encode(p, "msr", "event=0", &attr) == -ENOENT &&
			lope_pmus__encode(sys, "cpu", "event=1", &attr) ==
				-ENOENT &&
			lope_pmus__encode(sys, "msr", "event=4", &attr) == 0 &&
			attr.type == 9 && attr.config == 4,
		"encode_only_listed_pmus", "a PMU of the other kind encoded");
	lope_check(
		lope_pmus__encode(NULL, "cpu", "event=1", &attr) == -EINVAL &&
			lope_pmus__encode(p, "cpu", NULL, &attr) == -EINVAL &&
			lope_pmus__new(&sys, root, 7) == -EINVAL,
		"encode_and_kind_bad_args", "accepted");
	lope_pmus__delete(p);
	lope_pmus__delete(sys);
}

int main(void)
{
	struct lope_pmus *p;
	size_t i;
	int err;

	err = make_tree();
	if (err) {
		lope_fail("fake_tree", "%s: %s", root, strerror(-err));
		remove_tree();
		return lope_done();
	}
	test_missing_root();
	test_core_kind();
	err = lope_pmus__new(&p, root, LOPE_PMUS_SYSTEM);
	if (!lope_check(err == 0, "new_on_fake_tree", "%s", strerror(-err))) {
		remove_tree();
		return lope_done();
	}
	test_listing(p);
	for (i = 0; i < ARRAY_SIZE(events); i++)
		test_event_row(p, &events[i]);
	for (i = 0; i < ARRAY_SIZE(errors); i++)
		test_error_row(p, &errors[i]);
	test_locale(p);
	test_split();
	test_vanished(p);
	test_hide_and_cpu(p);
	lope_pmus__delete(p);
	test_real_sysfs();
	remove_tree();
	return lope_done();
}
