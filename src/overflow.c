/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Overflow: sampling events that signal the thread that opened them, a
 * ring buffer of sampled instruction addresses, and a budget that bounds
 * the overflow signals waiting for one event.
 *
 * Why a budget: every overflow queues one real-time signal, and when the
 * queue is full (RLIMIT_SIGPENDING, e.g. while the signal is blocked or
 * the handler is slower than the period) the kernel falls back to SIGIO,
 * whose default action kills the process.  The kernel's event_limit
 * (PERF_EVENT_IOC_REFRESH adds to it, each overflow takes one, at 0 the
 * event stops) caps what can wait at LOPE_OVERFLOW_BUDGET.
 *
 * Why not an event_limit of 1, re-armed after every overflow (stock
 * PAPI): the event then stops at every overflow and misses what happens
 * until the handler's refresh, and a group member refreshed from its
 * handler is enabled but not scheduled back in until the next context
 * switch when its PMU differs from the leader's (doc/design.md, "Counting
 * on, with a budget", has the measurement).  With a budget the event
 * never stops while the handler keeps up, and the refresh is one ioctl
 * per half budget.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "group.h"
#include "overflow.h"
#include "sys.h"

static struct lope_event *event_of(struct lope_group *g, int idx)
{
	if (!g || idx < 0 || idx >= g->nr)
		return NULL;
	return &g->ev[idx];
}

int lope_group__set_overflow(struct lope_group *g, int idx, uint64_t period,
			     int signo)
{
	struct lope_event *e = event_of(g, idx);

	if (!e || (period && (signo < 1 || signo > SIGRTMAX)))
		return -EINVAL;
	if (lopelib_group__is_open(g))
		return -EBUSY;
	/* The kernel refuses PERF_EVENT_IOC_REFRESH on inherited events. */
	if (period && (g->flags & LOPE_INHERIT))
		return -EOPNOTSUPP;
	g->nr_overflow += (period != 0) - (e->period != 0);
	e->period = period;
	e->signo = period ? signo : 0;
	return 0;
}

/* The engine owns the sampling fields: @a gets @e's, nothing else. */
void lopelib_overflow__prepare_attr(const struct lope_event *e,
				    struct perf_event_attr *a)
{
	a->freq = 0;
	a->sample_period = e->period;
	a->sample_type = e->period ? PERF_SAMPLE_IP : 0;
	a->wakeup_events = e->period ? 1 : 0; /* a wakeup per sample */
	a->watermark = 0;
}

/*
 * F_SETSIG makes the kernel send @signo with si_fd set (instead of a bare
 * SIGIO), F_SETOWN_EX sends it to this thread rather than to any thread
 * of the process, and O_ASYNC turns it on.
 */
static int route_signal(int fd, int signo)
{
	struct f_owner_ex owner = {
		.type = F_OWNER_TID,
		.pid = lopelib_gettid(),
	};

	if (lopelib_sys->fcntl(fd, F_SETSIG, (unsigned long)signo) < 0 ||
	    lopelib_sys->fcntl(fd, F_SETOWN_EX, (unsigned long)&owner) < 0 ||
	    lopelib_sys->fcntl(fd, F_SETFL, O_ASYNC) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

static size_t ring_len(const struct lope_group *g)
{
	return (1 + LOPE_RING_PAGES) * g->page_size;
}

/*
 * Writable, so the kernel keeps unread samples (it never overwrites what
 * data_tail has not passed).  Failure (perf_event_mlock_kb exhausted)
 * leaves overflow working without sampled addresses.
 */
static void map_ring(struct lope_group *g, struct lope_event *e)
{
	void *p = lopelib_sys->mmap(ring_len(g), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_POPULATE, e->fd);

	if (p != MAP_FAILED)
		e->ring = p;
}

int lopelib_overflow__open(struct lope_group *g, struct lope_event *e)
{
	int err = route_signal(e->fd, e->signo);

	if (err)
		return err;
	e->budget = 0; /* event_limit 0 means unlimited: arm before enable */
	map_ring(g, e);
	return 0;
}

void lopelib_overflow__close(struct lope_group *g, struct lope_event *e)
{
	/* Our own mapping: nothing to do if munmap fails. */
	(void)lopelib_sys->munmap(e->ring, ring_len(g));
	e->ring = NULL;
}

/* Raise the kernel's event_limit to the full budget. */
static int top_up(struct lope_event *e)
{
	unsigned long add = (unsigned long)(LOPE_OVERFLOW_BUDGET - e->budget);

	if (lopelib_sys->ioctl(e->fd, PERF_EVENT_IOC_REFRESH, add) < 0)
		return errno ? -errno : -EIO;
	e->budget = LOPE_OVERFLOW_BUDGET;
	return 0;
}

/*
 * Before every enable.  Members first: refreshing a leader also enables
 * it, which starts the whole group.
 */
int lopelib_overflow__arm(struct lope_group *g)
{
	int i, err;

	for (i = g->nr - 1; i >= 0; i--) {
		struct lope_event *e = &g->ev[i];

		if (!e->period || e->budget == LOPE_OVERFLOW_BUDGET)
			continue;
		err = top_up(e);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Every signal took one from the limit; POLL_HUP says it reached 0 and
 * the kernel stopped the event.  The count here can run ahead of the
 * kernel's (two overflows before its signal work ran make one signal):
 * then the limit reaches 0 early, and POLL_HUP sets things right.
 */
int lope_group__rearm(struct lope_group *g, int idx, int code)
{
	struct lope_event *e = event_of(g, idx);

	if (!e || !lopelib_group__is_open(g) || !e->period)
		return -EINVAL;
	if (g->parts)
		return g->split->rearm(g, idx, code);
	if (code == POLL_HUP)
		e->budget = 0;
	else if (e->budget > 0)
		e->budget--;
	if (!g->running || e->budget > LOPE_OVERFLOW_BUDGET / 2)
		return 0; /* stopped: lope_group__enable() tops it up */
	return top_up(e);
}

int lope_group__find_fd(const struct lope_group *g, int fd)
{
	int i;

	if (!g || !lopelib_group__is_open(g) || fd < 0)
		return -EINVAL;
	if (g->parts)
		return g->split->find_fd(g, fd);
	for (i = 0; i < g->nr; i++)
		if (g->ev[i].fd == fd)
			return i;
	return -ENOENT;
}

/* Copy @len bytes at ring position @pos, wrapping at the end of the data. */
static void ring_copy(const unsigned char *data, uint64_t size, uint64_t pos,
		      void *dst, size_t len)
{
	size_t off = (size_t)(pos & (size - 1));
	size_t first = size - off < len ? (size_t)(size - off) : len;

	memcpy(dst, data + off, first);
	memcpy((unsigned char *)dst + first, data, len - first);
}

/*
 * Records from data_tail to data_head: PERF_RECORD_SAMPLE carries the IP
 * (the only sample_type bit set); LOST, THROTTLE and the like are
 * skipped.  The acquire load of data_head orders the record reads after
 * it, the release store of data_tail lets the kernel reuse the space only
 * after they are done.
 */
int lope_group__samples(struct lope_group *g, int idx, uint64_t *ips, int max)
{
	struct lope_event *e = event_of(g, idx);
	struct perf_event_mmap_page *pc;
	const unsigned char *data;
	uint64_t head, tail, size;
	struct perf_event_header h;
	int n = 0;

	if (!e || !ips || max < 0)
		return -EINVAL;
	if (g->parts)
		return g->split->samples(g, idx, ips, max);
	if (!e->ring)
		return -ENOBUFS;
	pc = e->ring;
	data = (const unsigned char *)e->ring + g->page_size;
	size = LOPE_RING_PAGES * g->page_size;
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	tail = pc->data_tail;
	while (tail != head && n < max) {
		ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			tail = head; /* not a record: drop what is there */
			break;
		}
		if (h.type == PERF_RECORD_SAMPLE &&
		    h.size >= sizeof(h) + sizeof(*ips))
			ring_copy(data, size, tail + sizeof(h), &ips[n++],
				  sizeof(*ips));
		tail += h.size;
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}
