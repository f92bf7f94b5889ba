/* SPDX-License-Identifier: BSD-3-Clause */
/* Layout of struct lope_group: private to the engine and its tests. */
#ifndef LOPE_GROUP_H
#define LOPE_GROUP_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "lope.h"

struct lope_event {
	struct perf_event_attr attr;
	int fd;
	struct perf_event_mmap_page *page; /* NULL: read(2) only */
	struct lope_counts base;           /* raw counts at reset/start */
	int64_t wr;                        /* added after scaling (write) */
};

struct lope_group {
	pid_t pid;
	int cpu;
	unsigned int flags;
	int nr, cap;
	struct lope_event *ev;
	bool opened;
	bool user_read; /* every event mapped and possibly rdpmc-readable */
	uint64_t snap_at; /* clock when read(2) filled g->cur; 0: not since enable */
	uint64_t read_cost; /* clock ticks one read(2) of this group takes */
	pid_t owner;        /* the only thread that may read in user space */
	int nr_mapped;
	enum lope_path last;
	size_t page_size;
	struct lope_counts *cur; /* scratch: the latest raw counts */
	uint64_t *buf;           /* read(2) buffer: 3 + cap words */
};

#endif /* LOPE_GROUP_H */
