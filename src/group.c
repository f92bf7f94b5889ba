/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An event group: open, map, enable/disable, read with rdpmc or read(2),
 * and per-event bases that make reset, write and restart free of system
 * calls.
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
#include "mmap_read.h"
#include "sys.h"

static uint64_t hw_pmc(void *arg, uint32_t counter)
{
	(void)arg;
	return lope_arch_rdpmc(counter);
}

static uint64_t hw_cycles(void *arg)
{
	(void)arg;
	return lope_arch_cycles();
}

static const struct lope_reader hw_reader = {
	.pmc = hw_pmc,
	.cycles = hw_cycles,
};

static uint64_t measure_read_cost(struct lope_group *g);

int lope_group__new(struct lope_group **out, pid_t pid, int cpu,
		    unsigned int flags)
{
	struct lope_group *g;

	if (!out || cpu < -1 || (pid == -1 && cpu == -1))
		return -EINVAL;
	if (lope_fork_watch())
		return -ENOMEM;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->pid = pid;
	g->cpu = cpu;
	g->flags = flags;
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
	free(g->cur);
	free(g->buf);
	free(g);
}

/* Grow the event array and the read buffers to hold @nr events. */
static int reserve(struct lope_group *g, int nr)
{
	struct lope_event *ev;
	struct lope_counts *cur;
	uint64_t *buf;
	int cap = g->cap ? g->cap : 4;

	if (nr <= g->cap)
		return 0;
	while (cap < nr)
		cap *= 2;
	ev = realloc(g->ev, (size_t)cap * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	g->ev = ev;
	cur = realloc(g->cur, (size_t)cap * sizeof(*cur));
	if (!cur)
		return -ENOMEM;
	g->cur = cur;
	buf = realloc(g->buf, (size_t)(3 + cap) * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	g->buf = buf;
	g->cap = cap;
	return 0;
}

int lope_group__add(struct lope_group *g, const struct perf_event_attr *attr)
{
	struct lope_event *e;
	int err;

	if (!g || !attr)
		return -EINVAL;
	if (g->opened)
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
	return g->ev[idx].fd;
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
 * read allocates a buffer on every call (measured: 806 against 662 cycles).
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

/*
 * In a forked child, a group opened by the parent names the parent's
 * counters (the descriptors were copied) but not its pages (the kernel maps
 * them VM_DONTCOPY): the child may read, but never switches them or unmaps.
 */
static bool forked(const struct lope_group *g)
{
	return g->fork_gen != lope_fork_gen;
}

/* Events on the calling thread alone can be read in user space. */
static bool self_monitoring(const struct lope_group *g)
{
	return (g->pid == 0 || g->pid == lope_gettid()) && g->cpu == -1 &&
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
	if (user_readable(g, attr))
		lope_arch_prepare_attr(attr);
}

/* Open event @i; where it asked for 64-bit counters the PMU lacks, without. */
static int open_event(struct lope_group *g, int i)
{
	struct lope_event *e = &g->ev[i];
	int leader = is_leader(g, i) ? -1 : g->ev[0].fd;
	int fd = lope_sys__open(&e->attr, g->pid, g->cpu, leader);

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
		p = lope_sys->mmap(g->page_size, PROT_READ,
				   MAP_SHARED | MAP_POPULATE, e->fd);
	if (p == MAP_FAILED)
		return;
	e->page = p;
	(void)*(volatile uint32_t *)&e->page->lock;
	g->nr_mapped++;
}

int lope_group__open(struct lope_group *g)
{
	bool self;
	int i, err;

	if (!g)
		return -EINVAL;
	if (g->opened)
		return -EBUSY;
	if (g->nr == 0)
		return -ENOENT;
	self = self_monitoring(g);
	g->user_read = self && !(g->flags & LOPE_NO_RDPMC);
	/* Before anything is mapped: a failed open unmaps what it mapped. */
	g->fork_gen = lope_fork_gen;
	for (i = 0; i < g->nr; i++) {
		struct lope_event *e = &g->ev[i];

		prepare_attr(g, i, &e->attr);
		lope_overflow__prepare_attr(e);
		err = open_event(g, i);
		if (!err && e->period)
			err = lope_overflow__open(g, e);
		if (err) {
			g->opened = true;
			lope_group__close(g);
			return err;
		}
		memset(&e->base, 0, sizeof(e->base));
		e->wr = 0;
		/* The kernel rewrites a mapped page on every reset, enable
		 * and context switch (measured: +80 cycles per event on a
		 * reset), so pages that are never read are not mapped. */
		if (user_readable(g, &e->attr))
			map_page(g, e);
	}
	if (g->nr_mapped != g->nr)
		g->user_read = false;
	g->owner = self ? lope_gettid() : 0;
	g->snap_at = 0;
	g->have_snapshot = false;
	g->stamp_reads = false;
	g->opened = true;
	g->read_cost = measure_read_cost(g);
	g->last = LOPE_PATH_NONE;
	return 0;
}

void lope_group__close(struct lope_group *g)
{
	int i;

	if (!g || !g->opened)
		return;
	/* Members before the leader, so the leader goes last. */
	for (i = g->nr - 1; i >= 0; i--) {
		struct lope_event *e = &g->ev[i];

		/* munmap of our own page and close cannot fail in a way
		 * the caller could act on: the resource is gone either way. */
		if (forked(g)) /* the child has no copy of the mappings */
			e->ring = NULL;
		if (e->ring)
			lope_overflow__close(g, e);
		else if (e->page && !forked(g))
			(void)lope_sys->munmap(e->page, g->page_size);
		if (e->fd >= 0)
			(void)lope_sys->close(e->fd);
		e->page = NULL;
		e->fd = -1;
	}
	g->nr_mapped = 0;
	g->user_read = false;
	g->running = false;
	g->opened = false;
}

static ssize_t read_retry(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = lope_sys->read(fd, buf, len);
	while (__builtin_expect(n < 0, 0) && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* One read(2) of the leader with PERF_FORMAT_GROUP: nr, ena, run, values. */
static int read_grouped(struct lope_group *g, struct lope_counts *restrict c)
{
	const int nr = g->nr;
	const uint64_t *restrict b = g->buf;
	size_t len = (size_t)(3 + nr) * sizeof(uint64_t);
	ssize_t n = read_retry(g->ev[0].fd, g->buf, len);
	int i;

	if (n < 0)
		return (int)n;
	if ((size_t)n != len || b[0] != (uint64_t)nr)
		return -EIO;
	for (i = 0; i < nr; i++) {
		c[i].val = b[3 + i];
		c[i].ena = b[1];
		c[i].run = b[2];
	}
	return 0;
}

/* One read(2) per event: value, ena, run. */
static int read_each(struct lope_group *g, struct lope_counts *c)
{
	size_t len = 3 * sizeof(uint64_t);
	int i;

	for (i = 0; i < g->nr; i++) {
		ssize_t n = read_retry(g->ev[i].fd, g->buf, len);

		if (n < 0)
			return (int)n;
		if ((size_t)n != len)
			return -EIO;
		c[i].val = g->buf[0];
		c[i].ena = g->buf[1];
		c[i].run = g->buf[2];
	}
	return 0;
}

/*
 * Every event in user space, or none: the values stay one sample.  While
 * the set runs, an event the kernel multiplexed off the PMU is read from
 * its page too; but if none is on a counter, nothing says the kernel
 * still lets us read them (an Arm perf_user_access turned off while the
 * set counts also gives index 0), and read(2) decides.
 */
static int read_user(struct lope_group *g, struct lope_counts *c)
{
	int i, r, on = 0;

	if (lope_gettid() != g->owner)
		return -EOPNOTSUPP;
	for (i = 0; i < g->nr; i++) {
		r = g->running ?
			    lope_mmap__read_enabled(g->ev[i].page, &hw_reader,
						    &c[i], NULL) :
			    lope_mmap__read(g->ev[i].page, &hw_reader, &c[i],
					    NULL);
		if (r < 0)
			return -EOPNOTSUPP;
		on += r == 0;
	}
	return on ? 0 : -EOPNOTSUPP;
}

static int read_kernel(struct lope_group *g)
{
	return group_read(g) ? read_grouped(g, g->cur) : read_each(g, g->cur);
}

/*
 * How long one read(2) of this group takes, at setup time where it costs
 * nothing measured: the shortest of a few, so a preempted one does not
 * count.  0 (never reuse a sample) if the clock or the reads fail.
 */
static uint64_t measure_read_cost(struct lope_group *g)
{
	uint64_t best = 0, t0, t;
	int i;

	for (i = 0; i < 3; i++) {
		t0 = lope_arch_cycles();
		if (read_kernel(g))
			return 0;
		t = lope_arch_cycles() - t0;
		if (i == 0 || t < best)
			best = t;
	}
	return best;
}

/* The current raw counts into g->cur: rdpmc where it works, else read(2). */
static int sample(struct lope_group *g)
{
	int err;

	/* A failed read may leave g->cur half written: no snapshot then. */
	g->snap_at = 0;
	g->have_snapshot = false;
	if (g->user_read && read_user(g, g->cur) == 0) {
		g->last = LOPE_PATH_RDPMC;
	} else {
		err = read_kernel(g);
		if (err)
			return err;
		g->last = LOPE_PATH_READ;
	}
	g->have_snapshot = true;
	/* One clock read per sample: only sets that reset pay it. */
	if (g->stamp_reads)
		g->snap_at = lope_arch_cycles();
	return 0;
}

/*
 * Is g->cur recent enough for a reset to start its interval there?  A
 * read(2) samples the counters somewhere inside a system call that lasts
 * read_cost, so a sample less than that old is as close to now as a new
 * read(2) could give.  A reset that follows a read within that time, on
 * either path, continues where the read ended: PAPI_accum and the
 * read-then-reset pair (TAU, Caliper) take one sample, and what the
 * counters add between the two calls goes to the next interval instead
 * of nowhere.
 */
static bool fresh(const struct lope_group *g)
{
	return g->snap_at && lope_arch_cycles() - g->snap_at < g->read_cost;
}

static int check_open(const struct lope_group *g)
{
	if (!g)
		return -EINVAL;
	return g->opened ? 0 : -EBADF;
}

int lope_group__read_raw(struct lope_group *g, struct lope_counts *c)
{
	int i, err = check_open(g);

	if (!err && !c)
		err = -EINVAL;
	if (!err)
		err = sample(g);
	if (err)
		return err;
	for (i = 0; i < g->nr; i++)
		c[i] = g->cur[i];
	return 0;
}

int lope_group__last_counts(const struct lope_group *g, struct lope_counts *c)
{
	int err = check_open(g);

	if (!err && !c)
		err = -EINVAL;
	if (!err && !g->have_snapshot)
		err = -ENODATA;
	if (err)
		return err;
	memcpy(c, g->cur, (size_t)g->nr * sizeof(*c));
	return 0;
}

uint64_t lope_scale(uint64_t val, uint64_t ena, uint64_t run)
{
	unsigned __int128 q;

	if (run == 0 || ena == run)
		return val;
	q = (unsigned __int128)val * ena / run;
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* Scaling, and the guards that keep a value from going negative. */
static __attribute__((noinline)) uint64_t scaled(uint64_t d, uint64_t ena,
						 uint64_t run)
{
	if ((int64_t)d < 0) /* never report a negative count */
		d = 0;
	if (ena != run)
		d = lope_scale(d, ena, run);
	return d > INT64_MAX ? INT64_MAX : d; /* nor wrap a wild ratio */
}

/* The value of one event relative to its base, scaled over that interval. */
static int64_t relative(const struct lope_event *e, const struct lope_counts *c)
{
	uint64_t d = c->val - e->base.val;
	uint64_t ena = c->ena - e->base.ena;
	uint64_t run = c->run - e->base.run;

	if (__builtin_expect(ena != run || (int64_t)d < 0, 0))
		d = scaled(d, ena, run);
	return (int64_t)d + e->wr;
}

/* restrict: the stores to @values must not force reloads of the bases. */
static void values_of(const struct lope_event *restrict ev,
		      const struct lope_counts *restrict cur, int nr,
		      int64_t *restrict values)
{
	int i;

	for (i = 0; i < nr; i++)
		values[i] = relative(&ev[i], &cur[i]);
}

int lope_group__read(struct lope_group *g, int64_t *values)
{
	int err = check_open(g);

	if (!err && !values)
		err = -EINVAL;
	if (!err)
		err = sample(g);
	if (err)
		return err;
	values_of(g->ev, g->cur, g->nr, values);
	return 0;
}

/* Take the counts in g->cur as every event's base, with @wr on top. */
static void set_bases(struct lope_group *g, const int64_t *wr)
{
	struct lope_event *restrict ev = g->ev;
	const struct lope_counts *restrict cur = g->cur;
	int i, nr = g->nr;

	for (i = 0; i < nr; i++) {
		ev[i].base = cur[i];
		ev[i].wr = wr ? wr[i] : 0;
	}
}

static int rebase(struct lope_group *g, const int64_t *wr)
{
	int err = sample(g);

	if (!err)
		set_bases(g, wr);
	return err;
}

/*
 * Zero the values by taking the current counts as bases: no system call
 * where rdpmc works, one read(2) of the group otherwise, whatever the
 * number of events (PERF_EVENT_IOC_RESET is one call per event, and
 * keeps the enabled/running totals that multiplex scaling needs).
 */
int lope_group__reset(struct lope_group *g)
{
	int err = check_open(g);

	if (err)
		return err;
	g->stamp_reads = true;
	if (fresh(g)) {
		set_bases(g, NULL);
		g->snap_at = 0; /* one reset per read: a second one samples */
		return 0;
	}
	err = rebase(g, NULL);
	g->snap_at = 0; /* nor does a reset's own sample serve the next */
	return err;
}

int lope_group__write(struct lope_group *g, const int64_t *values)
{
	int err = check_open(g);

	if (!err && !values)
		err = -EINVAL;
	return err ? err : rebase(g, values);
}

/*
 * Members are opened enabled and count whenever their leader is scheduled,
 * so enabling or disabling the leader alone switches the whole group: no
 * PERF_IOC_FLAG_GROUP, which would make the kernel visit every member
 * (measured: 1866 against ~1000 cycles for 3 software events).
 */
static int ioctl_leaders(struct lope_group *g, unsigned long request)
{
	int i;

	if (!g)
		return -EINVAL;
	if (!g->opened)
		return -EBADF;
	if (forked(g))
		return 0; /* the parent's counters are not the child's to switch */
	for (i = 0; i < g->nr; i++) {
		if (!is_leader(g, i))
			continue;
		if (lope_sys->ioctl(g->ev[i].fd, request, 0) < 0)
			return errno ? -errno : -EIO;
	}
	return 0;
}

/*
 * Running is set before the ioctls and cleared before the stop: an
 * overflow signal handled in between may renew its event's budget (an
 * ioctl that enables the event), one handled after the stop must leave
 * that to the next enable.
 */
static void set_running(struct lope_group *g, bool running)
{
	g->running = running;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

int lope_group__enable(struct lope_group *g)
{
	int err;

	if (!g || !g->opened)
		return g ? -EBADF : -EINVAL;
	set_running(g, true);
	/* A forked child must not refresh (and so enable) the parent's. */
	err = g->nr_overflow && !forked(g) ? lope_overflow__arm(g) : 0;
	if (!err)
		err = ioctl_leaders(g, PERF_EVENT_IOC_ENABLE);
	if (err) {
		set_running(g, false);
	} else {
		g->snap_at = 0;
		g->have_snapshot = false;
	}
	return err;
}

static int stop_leaders(struct lope_group *g)
{
	int err;

	if (g && g->opened)
		set_running(g, false);
	err = ioctl_leaders(g, PERF_EVENT_IOC_DISABLE);
	/* Still counting: overflow must keep renewing its budget. */
	if (err && g && g->opened)
		set_running(g, true);
	return err;
}

int lope_group__disable(struct lope_group *g, int64_t *values)
{
	int err = stop_leaders(g);

	if (err)
		return err;
	err = sample(g);
	if (err)
		return err;
	if (values)
		values_of(g->ev, g->cur, g->nr, values);
	set_bases(g, NULL);
	return 0;
}

int lope_group__disable_after_read(struct lope_group *g)
{
	int err;

	if (!g || !g->opened || !g->have_snapshot)
		return lope_group__disable(g, NULL);
	err = stop_leaders(g);
	if (!err)
		set_bases(g, NULL);
	return err;
}

enum lope_path lope_group__last_path(const struct lope_group *g)
{
	return g ? g->last : LOPE_PATH_NONE;
}

int lope_group__nr_mapped(const struct lope_group *g)
{
	return g ? g->nr_mapped : -EINVAL;
}
