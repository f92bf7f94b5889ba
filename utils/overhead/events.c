/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The events papi_overhead measures: libpfm4's generic perf:: names, which
 * every PAPI build on Linux knows, with the perf_event attributes the raw
 * floor opens for them (in the user domain, whatever a name's modifiers
 * say: what a read costs does not depend on them).  A set of k events is
 * the first k of a pool that the machine can count together.  And how
 * papi_overhead opens a perf_event descriptor, for every meter and floor.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lope_arch.h"

#include "overhead.h"

/* Versions 14 and 19 of clang-format lay out a macro that is a braced
 * initialiser differently (test_format.sh checks with both). */
/* clang-format off */
#define HW(name, cfg) { "perf::" name, PERF_HW(cfg) }
#define SW(name, cfg) { "perf::" name, PERF_SW(cfg) }
#define CACHE(name, c, res)                                             \
	{ "perf::" name, PERF_TYPE_HW_CACHE,                            \
	  PERF_COUNT_HW_CACHE_##c | PERF_COUNT_HW_CACHE_OP_READ << 8 |  \
		  PERF_COUNT_HW_CACHE_RESULT_##res << 16 }
/* clang-format on */

const struct ev_def hw_pool[] = {
	HW("INSTRUCTIONS", INSTRUCTIONS),
	HW("CYCLES", CPU_CYCLES),
	HW("BRANCH-INSTRUCTIONS", BRANCH_INSTRUCTIONS),
	HW("BRANCH-MISSES", BRANCH_MISSES),
	HW("CACHE-REFERENCES", CACHE_REFERENCES),
	HW("CACHE-MISSES", CACHE_MISSES),
	HW("STALLED-CYCLES-FRONTEND", STALLED_CYCLES_FRONTEND),
	HW("STALLED-CYCLES-BACKEND", STALLED_CYCLES_BACKEND),
	HW("REF-CYCLES", REF_CPU_CYCLES),
	HW("BUS-CYCLES", BUS_CYCLES),
	CACHE("L1-DCACHE-LOADS", L1D, ACCESS),
	CACHE("L1-DCACHE-LOAD-MISSES", L1D, MISS),
	CACHE("L1-ICACHE-LOAD-MISSES", L1I, MISS),
	CACHE("DTLB-LOAD-MISSES", DTLB, MISS),
	CACHE("ITLB-LOAD-MISSES", ITLB, MISS),
	CACHE("BRANCH-LOADS", BPU, ACCESS),
	/* the same counter with a domain modifier is another event to PAPI
	 * and the kernel: where the PMU counts few events (QEMU's counts
	 * instructions and cycles only), sets still grow to its counters */
	HW("INSTRUCTIONS:u", INSTRUCTIONS),
	HW("CYCLES:u", CPU_CYCLES),
	HW("INSTRUCTIONS:k", INSTRUCTIONS),
	HW("CYCLES:k", CPU_CYCLES),
	HW("INSTRUCTIONS:u:k", INSTRUCTIONS),
	HW("CYCLES:u:k", CPU_CYCLES),
};
const size_t hw_pool_len = ARRAY_SIZE(hw_pool);

const struct ev_def sw_pool[] = {
	SW("TASK-CLOCK", TASK_CLOCK),
	SW("PAGE-FAULTS", PAGE_FAULTS),
	SW("CONTEXT-SWITCHES", CONTEXT_SWITCHES),
	SW("CPU-MIGRATIONS", CPU_MIGRATIONS),
	SW("MINOR-FAULTS", PAGE_FAULTS_MIN),
	SW("MAJOR-FAULTS", PAGE_FAULTS_MAJ),
	SW("CPU-CLOCK", CPU_CLOCK),
	SW("CGROUP-SWITCHES", CGROUP_SWITCHES),
};
const size_t sw_pool_len = ARRAY_SIZE(sw_pool);

/* Does @name, modifiers aside, name @def's event? */
static int same_event(const char *name, const struct ev_def *def)
{
	size_t l = strcspn(def->name + 6, ":") + 6;

	return !strncmp(name, def->name, l) && (name[l] == 0 || name[l] == ':');
}

const struct ev_def *ev_find(const char *name)
{
	size_t i;

	for (i = 0; i < hw_pool_len; i++)
		if (same_event(name, &hw_pool[i]))
			return &hw_pool[i];
	for (i = 0; i < sw_pool_len; i++)
		if (same_event(name, &sw_pool[i]))
			return &sw_pool[i];
	return NULL;
}

int perf_open(struct perf_event_attr *a, int group)
{
	int fd;

	do
		fd = (int)syscall(SYS_perf_event_open, a, 0, -1, group,
				  PERF_FLAG_FD_CLOEXEC);
	while (fd < 0 && errno == EOPNOTSUPP && lopelib_arch_relax_attr(a));
	return fd;
}

/* The id of tracepoint @name ("raw_syscalls/sys_enter"), or -1. */
static long tracepoint_id(const char *name)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing",
		"/sys/kernel/debug/tracing",
	};
	char path[256];
	unsigned i;
	long id;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(roots); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/id", roots[i], name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%ld", &id) != 1)
			id = -1;
		fclose(f);
		if (id >= 0)
			return id;
	}
	return -1;
}

int syscall_counter_open(char *why, size_t len)
{
	long id = tracepoint_id("raw_syscalls/sys_enter");
	struct perf_event_attr a = { .size = sizeof(a),
				     .type = PERF_TYPE_TRACEPOINT,
				     .config = (uint64_t)id };
	int fd;

	if (id < 0) {
		snprintf(
			why, len,
			"tracefs not mounted or raw_syscalls/sys_enter missing");
		return -1;
	}
	fd = perf_open(&a, -1);
	if (fd < 0)
		snprintf(why, len,
			 "perf_event_open(raw_syscalls:sys_enter): %s",
			 strerror(errno));
	return fd;
}
