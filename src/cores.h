/* SPDX-License-Identifier: BSD-3-Clause */
/* Layout of struct lope_cores: private to the engine and its tests. */
#ifndef LOPE_CORES_H
#define LOPE_CORES_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <sched.h>
#include <stdbool.h>

#include "lope.h"

/* One sysfs event of a core PMU, decoded. */
struct lope_core_event {
	char *name;
	__u64 config, config1, config2;
};

struct lope_core {
	char name[64];
	uint32_t type;
	char cpus[256]; /* as sysfs says it: "0-3,8" */
	cpu_set_t set;
	int nr_ev;
	struct lope_core_event *ev;
};

struct lope_cores {
	int nr;
	bool ext; /* the kernel takes a PMU type in config bits 32-63 */
	int dflt; /* the PMU the kernel gives PERF_TYPE_RAW events to */
	struct lope_core pmu[LOPE_CORES_MAX];
};

/*
 * Is the calling thread on a cpu outside core PMU @pmu's right now?  false
 * when it cannot tell (sched_getcpu failed, the PMU's cpus unknown).  glibc
 * 2.35 and later answer from the thread's rseq area: no system call.
 */
bool lopelib_cores__off(const struct lope_cores *c, int pmu);

#endif /* LOPE_CORES_H */
