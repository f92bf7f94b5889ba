/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of hybrid CPUs in the engine (lope_cores, split groups) on
 * fake /sys/bus/event_source/devices trees written into a temporary
 * directory, as the kernels write them:
 *  - an Intel hybrid (cpu_core type 4 on cpus 0-15, cpu_atom on 16-23):
 *    both listed with their cpus; a raw event is cpu_core's (the kernel
 *    registers it as PERF_TYPE_RAW); with the extended type a generic
 *    event becomes one per PMU with the PMU's type in config bits 32-63,
 *    without it each PMU's sysfs event of that meaning, and one that a
 *    PMU lacks cannot count everywhere (-ENOENT); an event of one PMU, by
 *    its type or its extended type, stays there; software and other PMUs
 *    count everywhere;
 *  - Arm big.LITTLE (armv8_cortex_a57 type 8 on cpu 0, a53 type 9 on 1):
 *    a raw common event both name alike is split, one only the a57 (the
 *    kernel's default: the first registered) names stays there;
 *  - Apple (apple_firestorm_pmu, apple_icestorm_pmu): generic events by
 *    the sysfs names the driver gives;
 *  - one core PMU (x86 "cpu", not listed: it has no cpus file; Arm
 *    "armv8_pmuv3_0"): nothing is split, and a group given it is an
 *    ordinary group;
 *  - a split group on real events: two fake core PMUs whose instructions
 *    event is the software task-clock, so a generic instructions event
 *    becomes two task-clock parts the kernel counts here: the value is
 *    their sum, within the task's own task-clock read around the calls
 *    (span.h), twice; the task-clock added beside it counts once (here it
 *    is fake_big's own event: the fake PMUs borrow the software type); reset,
 *    write, stop and restart, lope_group__fd, lope_group__find_fd of
 *    either part, and a reopen with lope_group__replace.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cores.h"
#include "group_layout.h"
#include "split.h"
#include "report.h"
#include "span.h"
#include "tree.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct file_row {
	const char *path, *text;
};

static const struct file_row intel[] = {
	{ "cpu_core/type", "4\n" },
	{ "cpu_core/cpus", "0-15\n" },
	{ "cpu_core/format/event", "config:0-7\n" },
	{ "cpu_core/format/umask", "config:8-15\n" },
	{ "cpu_core/events/instructions", "event=0xc0\n" },
	{ "cpu_core/events/cpu-cycles", "event=0x3c\n" },
	{ "cpu_core/events/ref-cycles", "event=0x00,umask=0x03\n" },
	{ "cpu_atom/type", "10\n" },
	{ "cpu_atom/cpus", "16-23\n" },
	{ "cpu_atom/format/event", "config:0-7\n" },
	{ "cpu_atom/format/umask", "config:8-15\n" },
	{ "cpu_atom/events/instructions", "event=0xc0\n" },
	{ "cpu_atom/events/cpu-cycles", "event=0x3c\n" },
	{ "software/type", "1\n" },
	{ "msr/type", "9\n" },
	{ "msr/format/event", "config:0-63\n" },
	{ "msr/events/tsc", "event=0x00\n" },
};

static const struct file_row arm[] = {
	{ "armv8_cortex_a57/type", "8\n" },
	{ "armv8_cortex_a57/cpus", "0\n" },
	{ "armv8_cortex_a57/format/event", "config:0-15\n" },
	{ "armv8_cortex_a57/events/inst_retired", "event=0x0008\n" },
	{ "armv8_cortex_a57/events/cpu_cycles", "event=0x0011\n" },
	{ "armv8_cortex_a57/events/l1d_cache_rd", "event=0x0040\n" },
	{ "armv8_cortex_a53/type", "9\n" },
	{ "armv8_cortex_a53/cpus", "1\n" },
	{ "armv8_cortex_a53/format/event", "config:0-15\n" },
	{ "armv8_cortex_a53/events/inst_retired", "event=0x0008\n" },
	{ "armv8_cortex_a53/events/cpu_cycles", "event=0x0011\n" },
};

static const struct file_row apple[] = {
	{ "apple_firestorm_pmu/type", "10\n" },
	{ "apple_firestorm_pmu/cpus", "4-7\n" },
	{ "apple_firestorm_pmu/format/event", "config:0-7\n" },
	{ "apple_firestorm_pmu/events/instructions", "event=0x8c\n" },
	{ "apple_firestorm_pmu/events/cycles", "event=0x02\n" },
	{ "apple_icestorm_pmu/type", "11\n" },
	{ "apple_icestorm_pmu/cpus", "0-3\n" },
	{ "apple_icestorm_pmu/format/event", "config:0-7\n" },
	{ "apple_icestorm_pmu/events/instructions", "event=0x8c\n" },
	{ "apple_icestorm_pmu/events/cycles", "event=0x02\n" },
};

static const struct file_row one_x86[] = {
	{ "cpu/type", "4\n" },
	{ "cpu/format/event", "config:0-7\n" },
	{ "cpu/events/instructions", "event=0xc0\n" },
};

static const struct file_row one_arm[] = {
	{ "armv8_pmuv3_0/type", "8\n" },
	{ "armv8_pmuv3_0/cpus", "0-3\n" },
	{ "armv8_pmuv3_0/format/event", "config:0-15\n" },
	{ "armv8_pmuv3_0/events/inst_retired", "event=0x0008\n" },
};

/* Two core PMUs whose "instructions" is the software task-clock. */
static const struct file_row fake_sw[] = {
	{ "fake_big/type", "1\n" },
	{ "fake_big/cpus", "0\n" },
	{ "fake_big/format/event", "config:0-63\n" },
	{ "fake_big/events/instructions", "event=0x1\n" },
	{ "fake_little/type", "1\n" },
	{ "fake_little/cpus", "1\n" },
	{ "fake_little/format/event", "config:0-63\n" },
	{ "fake_little/events/instructions", "event=0x1\n" },
};

static char root[PATH_MAX];

/* The tree @rows, read into a new lope_cores; NULL after a FAIL of @name. */
static struct lope_cores *cores_of(const char *name,
				   const struct file_row *rows, size_t n)
{
	struct lope_cores *c = NULL;
	size_t i;
	int err;

	if (tree_make(root, sizeof(root), "cores")) {
		lope_fail(name, "cannot make a scratch tree");
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (tree_put(root, rows[i].path, rows[i].text)) {
			lope_fail(name, "cannot write %s", rows[i].path);
			(void)tree_remove(root);
			return NULL;
		}
	err = lope_cores__new(&c, root);
	(void)tree_remove(root);
	if (err)
		lope_fail(name, "lope_cores__new: %s", strerror(-err));
	/* Whether the extended type works was asked of this machine's
	 * kernel about whatever PMUs have the fake tree's types: the cases
	 * say which they mean. */
	if (c)
		c->ext = false;
	return c;
}

static struct perf_event_attr attr_of(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.exclude_kernel = 1;
	return a;
}

/*
 * Does @c split (@type, @config) into @want parts, part k being
 * (@types[k], @configs[k]) on core PMU @pmus[k]?  -errno @want: that error.
 */
static int split_is(const struct lope_cores *c, uint32_t type, uint64_t config,
		    int want, const uint32_t *types, const uint64_t *configs,
		    const int *pmus, char *why, size_t len)
{
	struct perf_event_attr a = attr_of(type, config), p[LOPE_CORES_MAX];
	int pmu[LOPE_CORES_MAX], n, k;

	n = lope_cores__split(c, &a, p, pmu, LOPE_CORES_MAX);
	if (n != want) {
		snprintf(why, len, "type %u config %#llx: %d parts, want %d",
			 type, (unsigned long long)config, n, want);
		return 0;
	}
	for (k = 0; k < n; k++)
		if (p[k].type != types[k] || p[k].config != configs[k] ||
		    pmu[k] != pmus[k] || !p[k].exclude_kernel) {
			snprintf(why, len,
				 "type %u config %#llx: part %d is type %u "
				 "config %#llx on PMU %d, want %u %#llx on %d",
				 type, (unsigned long long)config, k, p[k].type,
				 (unsigned long long)p[k].config, pmu[k],
				 types[k], (unsigned long long)configs[k],
				 pmus[k]);
			return 0;
		}
	return 1;
}

/*
 * The generic instructions and cycles events split in two, one part on
 * each PMU (event types @t0 and @t1), each the sysfs event of that PMU:
 * @ins and @cyc.
 */
static int generic_on_both(const struct lope_cores *c, uint32_t t0, uint32_t t1,
			   uint64_t ins, uint64_t cyc, char *why, size_t len)
{
	static const int both[] = { 0, 1 };
	const uint32_t types[] = { t0, t1 };

	return split_is(c, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 2,
			types, (const uint64_t[]){ ins, ins }, both, why,
			len) &&
	       split_is(c, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 2,
			types, (const uint64_t[]){ cyc, cyc }, both, why, len);
}

static void intel_hybrid(void)
{
	const char *name = "intel_hybrid_lists_cpu_atom_and_cpu_core";
	struct lope_cores *c = cores_of(name, intel, ARRAY_SIZE(intel));
	const uint64_t ext_ins[] = { 1 | 10ull << 32, 1 | 4ull << 32 };
	const int both[] = { 0, 1 }, atom[] = { 0 }, core[] = { 1 };
	const int none[] = { -1 };
	char why[256];
	int ok;

	if (!c)
		return;
	lope_check(lope_cores__nr(c) == 2 &&
			   !strcmp(lope_cores__name(c, 0), "cpu_atom") &&
			   !strcmp(lope_cores__cpus(c, 0), "16-23") &&
			   lope_cores__type(c, 0) == 10 &&
			   !strcmp(lope_cores__name(c, 1), "cpu_core") &&
			   !strcmp(lope_cores__cpus(c, 1), "0-15") &&
			   lope_cores__type(c, 1) == 4,
		   name, "%d core PMUs: %s (%s) %s (%s)", lope_cores__nr(c),
		   lope_cores__name(c, 0), lope_cores__cpus(c, 0),
		   lope_cores__name(c, 1), lope_cores__cpus(c, 1));

	ok = split_is(c, PERF_TYPE_RAW, 0x5300c0, 1, (const uint32_t[]){ 4 },
		      (const uint64_t[]){ 0x5300c0 }, core, why, sizeof(why));
	lope_check(ok, "intel_hybrid_raw_event_is_cpu_core_s", "%s", why);

	c->ext = true;
	ok = split_is(c, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 2,
		      (const uint32_t[]){ 0, 0 }, ext_ins, both, why,
		      sizeof(why)) &&
	     split_is(c, PERF_TYPE_HW_CACHE, 0x10000, 2,
		      (const uint32_t[]){ 3, 3 },
		      (const uint64_t[]){ 0x10000 | 10ull << 32,
					  0x10000 | 4ull << 32 },
		      both, why, sizeof(why));
	lope_check(ok, "intel_hybrid_extended_type_on_each_pmu", "%s", why);

	c->ext = false;
	ok = generic_on_both(c, 10, 4, 0xc0, 0x3c, why, sizeof(why)) &&
	     /* cpu_atom has no ref-cycles here, and no cache events */
	     split_is(c, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES,
		      -ENOENT, NULL, NULL, NULL, why, sizeof(why)) &&
	     split_is(c, PERF_TYPE_HW_CACHE, 0x10000, -ENOENT, NULL, NULL, NULL,
		      why, sizeof(why));
	lope_check(ok, "intel_hybrid_without_extended_type_sysfs_events", "%s",
		   why);

	ok = split_is(c, 10, 0x5300c0, 1, (const uint32_t[]){ 10 },
		      (const uint64_t[]){ 0x5300c0 }, atom, why, sizeof(why)) &&
	     split_is(c, PERF_TYPE_HARDWARE, 1 | 10ull << 32, 1,
		      (const uint32_t[]){ 0 },
		      (const uint64_t[]){ 1 | 10ull << 32 }, atom, why,
		      sizeof(why)) &&
	     split_is(c, PERF_TYPE_HARDWARE, 1 | 77ull << 32, -ENOENT, NULL,
		      NULL, NULL, why, sizeof(why));
	lope_check(ok, "intel_hybrid_event_of_one_pmu_stays_there", "%s", why);

	ok = split_is(c, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1,
		      (const uint32_t[]){ 1 },
		      (const uint64_t[]){ PERF_COUNT_SW_TASK_CLOCK }, none, why,
		      sizeof(why)) &&
	     split_is(c, 9, 0, 1, (const uint32_t[]){ 9 },
		      (const uint64_t[]){ 0 }, none, why, sizeof(why));
	lope_check(ok, "intel_hybrid_software_and_msr_count_everywhere", "%s",
		   why);
	lope_cores__delete(c);
}

static void arm_big_little(void)
{
	const char *name = "arm_big_little_lists_both";
	struct lope_cores *c = cores_of(name, arm, ARRAY_SIZE(arm));
	const int both[] = { 0, 1 }, a57[] = { 1 };
	char why[256];
	int ok;

	if (!c)
		return;
	lope_check(lope_cores__nr(c) == 2 &&
			   !strcmp(lope_cores__name(c, 0),
				   "armv8_cortex_a53") &&
			   !strcmp(lope_cores__cpus(c, 1), "0"),
		   name, "%d core PMUs: %s, %s (%s)", lope_cores__nr(c),
		   lope_cores__name(c, 0), lope_cores__name(c, 1),
		   lope_cores__cpus(c, 1));
	ok = split_is(c, PERF_TYPE_RAW, 0x08, 2, (const uint32_t[]){ 9, 8 },
		      (const uint64_t[]){ 0x08, 0x08 }, both, why, sizeof(why));
	lope_check(ok, "arm_common_raw_event_on_both", "%s", why);
	ok = split_is(c, PERF_TYPE_RAW, 0x40, 1, (const uint32_t[]){ 8 },
		      (const uint64_t[]){ 0x40 }, a57, why, sizeof(why)) &&
	     split_is(c, PERF_TYPE_RAW, 0x1234, 1, (const uint32_t[]){ 8 },
		      (const uint64_t[]){ 0x1234 }, a57, why, sizeof(why));
	lope_check(ok, "arm_raw_event_only_the_default_pmu_names_stays_there",
		   "%s", why);
	ok = generic_on_both(c, 9, 8, 0x08, 0x11, why, sizeof(why)) &&
	     split_is(c, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
		      -ENOENT, NULL, NULL, NULL, why, sizeof(why));
	lope_check(ok, "arm_generic_events_by_sysfs_name", "%s", why);
	lope_cores__delete(c);
}

static void apple_silicon(void)
{
	const char *name = "apple_generic_events_by_sysfs_name";
	struct lope_cores *c = cores_of(name, apple, ARRAY_SIZE(apple));
	char why[256];
	int ok;

	if (!c)
		return;
	ok = lope_cores__nr(c) == 2;
	snprintf(why, sizeof(why), "%d core PMUs", lope_cores__nr(c));
	ok = ok && generic_on_both(c, 10, 11, 0x8c, 0x02, why, sizeof(why));
	lope_check(ok, name, "%s", why);
	lope_cores__delete(c);
}

static void one_pmu(const char *name, const struct file_row *rows, size_t n,
		    int listed)
{
	struct lope_cores *c = cores_of(name, rows, n);
	struct lope_group *g = NULL;
	const int none[] = { -1 };
	char why[256];
	int ok;

	if (!c)
		return;
	ok = lope_cores__nr(c) == listed;
	snprintf(why, sizeof(why), "%d core PMUs listed, want %d",
		 lope_cores__nr(c), listed);
	ok = ok &&
	     split_is(c, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1,
		      (const uint32_t[]){ 0 },
		      (const uint64_t[]){ PERF_COUNT_HW_INSTRUCTIONS }, none,
		      why, sizeof(why)) &&
	     split_is(c, PERF_TYPE_RAW, 0x08, 1, (const uint32_t[]){ 4 },
		      (const uint64_t[]){ 0x08 }, none, why, sizeof(why));
	if (ok && (lope_group__new(&g, 0, -1, 0) ||
		   lope_group__set_cores(g, c) || g->cores)) {
		snprintf(why, sizeof(why), "a group given them is split");
		ok = 0;
	}
	lope_check(ok, name, "%s", why);
	lope_group__delete(g);
	lope_cores__delete(c);
}

/* A few milliseconds of this thread's CPU. */
static void spin(void)
{
	int k;

	for (k = 0; k < 2000000; k++)
		__asm__ volatile("" ::: "memory");
}

/* The split group's values, read once; 0 or a FAIL of @name. */
static int read_ok(const char *name, struct lope_group *g, int64_t *v)
{
	int err = lope_group__read(g, v);

	if (err)
		lope_fail(name, "lope_group__read: %s", strerror(-err));
	return err;
}

/*
 * @begin (enable, reset) @g, spin(), then unless @begin failed @end it
 * (read, disable) into @v, each call between two marks of @s: its
 * bounds then hold what a task-clock counted from @begin to @end.
 * 0 or -errno.
 */
static int spin_between(struct lope_group *g, int (*begin)(struct lope_group *),
			int (*end)(struct lope_group *, int64_t *), int64_t *v,
			struct span *s)
{
	int err;

	span_mark(s);
	err = begin(g);
	span_mark(s);
	spin();
	span_mark(s);
	if (!err)
		err = end(g, v);
	span_mark(s);
	return err;
}

/*
 * The split group on real software events: value 0 is a generic
 * instructions event (two task-clock parts), value 1 the task-clock
 * itself (counted everywhere, not split).
 */
static void split_group(void)
{
	const char *name = "split_group_sums_its_parts";
	struct lope_cores *c = cores_of(name, fake_sw, ARRAY_SIZE(fake_sw));
	struct perf_event_attr ins =
		attr_of(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	struct perf_event_attr tc =
		attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	struct lope_group *g = NULL, *h = NULL;
	struct span s;
	int64_t v[2], w[2] = { 1000000000, 0 };
	int err, fd0;

	if (!c)
		return;
	if (span_open(&s, PERF_COUNT_SW_TASK_CLOCK, 0, 0)) {
		lope_fail(name, "cannot open the span's task-clock");
		lope_cores__delete(c);
		return;
	}
	err = lope_group__new(&g, 0, -1, 0);
	if (!err)
		err = lope_group__set_cores(g, c);
	if (!err &&
	    (lope_group__add(g, &ins) != 0 || lope_group__add(g, &tc) != 1))
		err = -EINVAL;
	if (!err)
		err = lope_group__open(g);
	if (err || !g->parts) {
		lope_fail(name, "open: %s, split %d", strerror(-err),
			  g && g->parts);
		goto out;
	}
	err = spin_between(g, lope_group__enable, lope_group__read, v, &s);
	lope_check(!err && v[0] >= 2 * span_lo(&s) && v[0] <= 2 * span_hi(&s) &&
			   span_holds(&s, v[1]),
		   name,
		   "err %d: the two parts %lld ns (want twice %lld..%lld), "
		   "the software event %lld ns",
		   err, (long long)v[0], span_lo(&s), span_hi(&s),
		   (long long)v[1]);

	fd0 = lope_group__fd(g, 0);
	/* One owner per descriptor: the parts; the split group has none. */
	lope_check(g->ev[0].fd == -1 && g->ev[1].fd == -1,
		   "split_group_owns_no_descriptor", "its events' fds %d, %d",
		   g->ev[0].fd, g->ev[1].fd);
	lope_check(fd0 >= 0 && lope_group__find_fd(g, fd0) == 0 &&
			   lope_group__find_fd(g, g->parts->g[1]->ev[0].fd) ==
				   0 &&
			   lope_group__find_fd(g, lope_group__fd(g, 1)) == 1,
		   "split_group_fds_name_their_value",
		   "fd %d of value 0; find_fd: %d %d, value 1's: %d", fd0,
		   lope_group__find_fd(g, fd0),
		   lope_group__find_fd(g, g->parts->g[1]->ev[0].fd),
		   lope_group__find_fd(g, lope_group__fd(g, 1)));

	err = lope_group__write(g, w);
	if (!err && !read_ok(name, g, v))
		lope_check(v[0] >= w[0] && v[0] < w[0] + 2 * span_hi(&s) &&
				   v[1] >= 0 && v[1] < span_hi(&s),
			   "split_group_write_goes_to_one_part",
			   "wrote %lld, %lld; read %lld, %lld", (long long)w[0],
			   (long long)w[1], (long long)v[0], (long long)v[1]);
	/* The read above is older than a read(2) when the reset comes: it
	 * samples anew, and the interval starts inside it. */
	span_clear(&s);
	spin();
	err = spin_between(g, lope_group__reset, lope_group__disable, v, &s);
	lope_check(!err && v[0] <= 2 * span_hi(&s) && span_holds(&s, v[1]),
		   "split_group_reset_then_stop",
		   "err %d: %lld (at most %lld), %lld (%lld..%lld)", err,
		   (long long)v[0], 2 * span_hi(&s), (long long)v[1],
		   span_lo(&s), span_hi(&s));

	err = lope_group__new(&h, 0, -1, 0);
	if (!err)
		err = lope_group__set_cores(h, c);
	if (!err &&
	    (lope_group__add(h, &ins) < 0 || lope_group__add(h, &tc) < 0))
		err = -EINVAL;
	if (!err)
		err = lope_group__replace(g, h);
	if (!err)
		err = lope_group__read(h, v);
	lope_check(!err && h->parts && !g->opened && !g->parts,
		   "split_group_replaced_by_another",
		   "err %d: new split %d, old open %d", err, h && h->parts,
		   g->opened);
out:
	lope_group__delete(g);
	lope_group__delete(h);
	span_close(&s);
	lope_cores__delete(c);
}

int main(void)
{
	intel_hybrid();
	arm_big_little();
	apple_silicon();
	/* x86's "cpu" has no cpus file: it is no core type of a hybrid. */
	one_pmu("one_x86_core_pmu_splits_nothing", one_x86, ARRAY_SIZE(one_x86),
		0);
	one_pmu("one_arm_core_pmu_splits_nothing", one_arm, ARRAY_SIZE(one_arm),
		1);
	split_group();
	return lope_done();
}
