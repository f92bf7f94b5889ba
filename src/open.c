/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A group's life outside its measured calls: new, add, open (the kernel
 * groups, the attributes the engine owns, the pages mapped and touched),
 * close and delete.  The measured calls are in group.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "group.h"
#include "lope_arch.h"
#include "mmap_read.h"
#include "overflow.h"
#include "park.h"
#include "sys.h"

int lope_group__new(struct lope_group **out, pid_t pid, int cpu,
		    unsigned int flags)
{
	struct lope_group *g;

	if (!out || cpu < -1 || (pid == -1 && cpu == -1))
		return -EINVAL;
	if (lopelib_fork_watch())
		return -ENOMEM;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->pid = pid;
	g->cpu = cpu;
	g->flags = flags;
	g->core = -1;
	lopelib_group__choose(g, false);
	g->page_size = (size_t)sysconf(_SC_PAGESIZE);
	*out = g;
	return 0;
}

void lope_group__delete(struct lope_group *g)
{
	if (!g)
		return;
	lope_group__close(g);
	free(g->ev);
	free(g->buf);
	free(g->bases);
	free(g);
}

/* realloc *@p to @n elements of @size; 0 or -ENOMEM (*@p then kept). */
static int grow(void *p, size_t n, size_t size)
{
	void *q = realloc(*(void **)p, n * size);

	if (!q)
		return -ENOMEM;
	*(void **)p = q;
	return 0;
}

/* Grow the events and the group read(2) buffer to hold @nr events. */
static int reserve(struct lope_group *g, int nr)
{
	size_t cap = g->ev_cap ? (size_t)g->ev_cap : 4;
	void *bases;

	if (nr <= g->ev_cap)
		return 0;
	while (cap < (size_t)nr)
		cap *= 2;
	if (grow(&g->ev, cap, sizeof(*g->ev)) ||
	    grow(&g->buf, 3 + cap, sizeof(*g->buf)) ||
	    posix_memalign(&bases, 16, cap * sizeof(*g->bases)))
		return -ENOMEM;
	free(g->bases); /* set when the group opens (opened()) */
	g->bases = bases;
	g->ev_cap = (int)cap;
	return 0;
}

int lope_group__add(struct lope_group *g, const struct perf_event_attr *attr)
{
	struct lope_event *e;
	int err;

	if (!g || !attr)
		return -EINVAL;
	if (lopelib_group__is_open(g))
		return -EBUSY;
	err = reserve(g, g->nr + 1);
	if (err)
		return err;
	e = &g->ev[g->nr];
	memset(e, 0, sizeof(*e));
	memcpy(&e->attr, attr, sizeof(e->attr));
	e->attr.size = sizeof(e->attr);
	e->fd = -1;
	return g->nr++;
}

int lope_group__nr(const struct lope_group *g)
{
	return g ? g->nr : -EINVAL;
}

struct perf_event_attr *lope_group__attr(struct lope_group *g, int idx)
{
	if (!g || idx < 0 || idx >= g->nr)
		return NULL;
	return &g->ev[idx].attr;
}

int lope_group__fd(const struct lope_group *g, int idx)
{
	if (!g || idx < 0 || idx >= g->nr)
		return -EINVAL;
	if (g->parts) /* a split event's descriptors are its parts' */
		return g->split->fd(g, idx);
	return g->ev[idx].fd;
}

enum lope_path lope_group__last_path(const struct lope_group *g)
{
	if (!g)
		return LOPE_PATH_NONE;
	return g->parts ? g->split->last_path(g) : g->last;
}

int lope_group__last_counts(const struct lope_group *g, struct lope_counts *c)
{
	if (!g || !c)
		return -EINVAL;
	if (!lopelib_group__is_open(g))
		return -EBADF;
	if (g->parts)
		return g->split->counts((struct lope_group *)g, c, true);
	if (g->last == LOPE_PATH_NONE)
		return -ENODATA;
	lopelib_group__copy_sample(g, c);
	return 0;
}

int lope_group__nr_mapped(const struct lope_group *g)
{
	return g ? g->nr_mapped : -EINVAL;
}

/*
 * Kernel groups: one for the whole set, or one per event when separate
 * (multiplexing).  PERF_FORMAT_GROUP is not combined with inherit, which
 * older kernels refuse, so inherited sets read each event on its own.
 */
static bool one_kernel_group(const struct lope_group *g)
{
	return !(g->flags & LOPE_SEPARATE);
}

/*
 * A single event is read without PERF_FORMAT_GROUP: the kernel's group
 * read allocates a buffer on every call (doc/benchmarks.md).
 */
static bool group_read(const struct lope_group *g)
{
	return one_kernel_group(g) && !(g->flags & LOPE_INHERIT) && g->nr > 1;
}

static bool is_leader(const struct lope_group *g, int i)
{
	return i == 0 || !one_kernel_group(g);
}

/* Software-only PMU types whose counters are never user-readable. */
static bool never_user_readable(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_SOFTWARE ||
	       attr->type == PERF_TYPE_TRACEPOINT ||
	       attr->type == PERF_TYPE_BREAKPOINT;
}

/* Events on the calling thread alone can be read in user space. */
static bool self_monitoring(const struct lope_group *g)
{
	return (g->pid == 0 || g->pid == lopelib_gettid()) && g->cpu == -1 &&
	       !(g->flags & LOPE_INHERIT);
}

/*
 * Will this event be read in user space?  Only then does it ask the kernel
 * for user access and get its page mapped: LOPE_NO_RDPMC asks for neither.
 */
static bool user_readable(const struct lope_group *g,
			  const struct perf_event_attr *attr)
{
	return self_monitoring(g) && !(g->flags & LOPE_NO_RDPMC) &&
	       !never_user_readable(attr);
}

static void prepare_attr(const struct lope_group *g, int i,
			 struct perf_event_attr *attr)
{
	attr->size = sizeof(*attr);
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (group_read(g))
		attr->read_format |= PERF_FORMAT_GROUP;
	attr->disabled = is_leader(g, i);
	attr->enable_on_exec = attr->disabled &&
			       (g->flags & LOPE_ENABLE_ON_EXEC);
	attr->inherit = !!(g->flags & LOPE_INHERIT);
	/* A core type's multiplexed part: its first group runs whenever
	 * the thread is on that core type, the time the others scale by. */
	attr->pinned = lopelib_group__is_part(g) && !one_kernel_group(g) &&
		       i == 0;
	if (user_readable(g, attr))
		lopelib_arch_prepare_attr(attr);
}

/*
 * Open event @i with the fields the engine owns set for this group, on a
 * copy: the event keeps its caller's attribute, so a group rebuilt from it
 * with other options (a cpu, inherit) gets nothing this one asked for (an
 * Arm kernel refuses user access to cpu-wide events).  Where the kernel
 * refuses 64-bit counters the PMU lacks, it is opened without.
 */
static int open_event(struct lope_group *g, int i)
{
	struct lope_event *e = &g->ev[i];
	struct perf_event_attr k = e->attr;
	int leader = is_leader(g, i) ? -1 : g->ev[0].fd, fd;

	prepare_attr(g, i, &k);
	lopelib_overflow__prepare_attr(e, &k);
	fd = lopelib_sys__open(&k, g->pid, g->cpu, leader);
	e->fd = fd < 0 ? -1 : fd;
	return fd < 0 ? fd : 0;
}

/*
 * Map the event's page and touch it now, so the first read after start
 * takes no page fault.  Failure (e.g. perf_event_mlock_kb exhausted) only
 * means this event is read with read(2).
 */
static void map_page(struct lope_group *g, struct lope_event *e)
{
	void *p = e->ring; /* a ring buffer starts with the event's page */

	if (!p)
		p = lopelib_sys->mmap(g->page_size, PROT_READ,
				      MAP_SHARED | MAP_POPULATE, e->fd);
	if (p == MAP_FAILED)
		return;
	e->page = p;
	(void)*(volatile uint32_t *)&e->page->lock;
	g->nr_mapped++;
}

/*
 * How the open group samples, and where its read(2) goes: the leader's
 * PERF_FORMAT_GROUP read into g->buf, or one event's into its sample (the
 * kernel's two layouts; both have the enabled time at [1], the running
 * time at [2]).
 */
static void plan_reads(struct lope_group *g, bool user)
{
	g->grouped = group_read(g);
	if (user)
		g->sampler = LOPE_SAMPLE_USER;
	else
		g->sampler = g->grouped ? LOPE_SAMPLE_GROUP : LOPE_SAMPLE_EACH;
	g->leader_fd = g->ev[0].fd;
	g->sysread_buf = g->grouped ? g->buf : (uint64_t *)&g->ev[0].sample;
	g->sysread_last_off = (long)((g->nr - 1) * sizeof(*g->buf));
	g->sysread_pairs_off =
		(((long)g->nr - 2) & ~1L) * (long)sizeof(*g->buf);
	g->sysread_last_ev = &g->ev[g->nr - 1];
	if (g->sampler == LOPE_SAMPLE_USER || (!g->grouped && g->nr > 1))
		g->sysread_len = 0;
	else if (g->grouped)
		g->sysread_len = (size_t)(3 + g->nr) * sizeof(uint64_t);
	else
		g->sysread_len = sizeof(g->ev[0].sample);
}

/* Open and ready: every base 0, nothing written, no sample yet. */
static void opened(struct lope_group *g, bool user)
{
	int i;

	for (i = 0; i < g->nr; i++) {
		memset(&g->ev[i].base, 0, sizeof(g->ev[i].base));
		g->bases[i] = 0;
		g->ev[i].offset = 0;
	}
	g->leader_base_gap = 0;
	g->written = false;
	plan_reads(g, user);
	/* One kernel group: its leader, event 0; else every event leads. */
	g->nr_leaders = one_kernel_group(g) ? 1 : g->nr;
	g->read_end = 0;
	g->last = LOPE_PATH_NONE;
	/* A lazy stop needs user-space samples; overflow must stop in the
	 * kernel, and an exec enables in the kernel by itself. */
	g->lazy = user && !g->nr_overflow &&
		  !(g->flags & (LOPE_KERNEL_STOP | LOPE_ENABLE_ON_EXEC)) &&
		  lopelib_park__watch_fork() == 0;
	g->stop = LOPE_STOP_NONE;
	g->opened = true;
	lopelib_group__choose(g, true);
	LOPE_CHECK(g);
}

int lope_group__open(struct lope_group *g)
{
	uint64_t t0, window = 0;
	bool self, user;
	int i, err;

	if (!g)
		return -EINVAL;
	if (lopelib_group__is_open(g))
		return -EBUSY;
	if (g->nr == 0)
		return -ENOENT;
	if (g->split && g->split->needed(g))
		return g->split->open(g);
	self = self_monitoring(g);
	/* Before anything is mapped: a failed open unmaps what it mapped. */
	g->fork_gen = lopelib_fork_gen;
	t0 = lopelib_arch_cycles();
	for (i = 0; i < g->nr; i++) {
		struct lope_event *e = &g->ev[i];

		err = open_event(g, i);
		/* The leader's open: one system call of this group, the
		 * reset rule's window (group.c, reusable()). */
		if (i == 0)
			window = lopelib_arch_cycles() - t0;
		if (!err && e->period)
			err = lopelib_overflow__open(g, e);
		if (err) {
			g->opened = true; /* what close undoes */
			lope_group__close(g);
			return err;
		}
		/* The kernel rewrites a mapped page on every reset, enable
		 * and context switch, so pages that are never read are not
		 * mapped (doc/design.md). */
		if (user_readable(g, &e->attr))
			map_page(g, e);
	}
	/* Where a read can fault, only under the guard (src/guard.c). */
	user = self && !(g->flags & LOPE_NO_RDPMC) && g->nr_mapped == g->nr &&
	       lopelib_guard__install() == 0;
	g->owner = self ? lopelib_gettid() : 0;
	opened(g, user);
	g->window = window ?: 1;
	return 0;
}

void lope_group__close(struct lope_group *g)
{
	int i;

	if (g && g->parts)
		g->split->close(g);
	if (!g || !g->opened)
		return;
	lopelib_park__unlist(g); /* its counters go with the descriptors */
	g->stop = LOPE_STOP_NONE;
	/* Members before the leader, so the leader goes last. */
	for (i = g->nr - 1; i >= 0; i--) {
		struct lope_event *e = &g->ev[i];

		/* munmap of our own page and close cannot fail in a way
		 * the caller could act on: the resource is gone either way. */
		if (lopelib_group__forked(
			    g)) /* the child has no copy of the mappings */
			e->ring = NULL;
		if (e->ring)
			lopelib_overflow__close(g, e);
		else if (e->page && !lopelib_group__forked(g))
			(void)lopelib_sys->munmap(e->page, g->page_size);
		if (e->fd >= 0)
			(void)lopelib_sys->close(e->fd);
		e->page = NULL;
		e->fd = -1;
	}
	g->nr_mapped = 0;
	lopelib_set_running(g, false);
	g->opened = false;
	g->last = LOPE_PATH_NONE;
	lopelib_group__choose(g, false);
	LOPE_CHECK(g);
}
