/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry of lazy stops (doc/lazy-stop.md).  A lazy group that a
 * thread enabled in the kernel is listed here until its counters are
 * disabled (demoted) or closed, stopped in user space (parked) or not.
 * Before a group is enabled in the kernel, the thread's parked groups
 * that would share a PMU with it are demoted, so that a stopped group
 * never makes a running one multiplex.
 *
 * The one lock of the engine guards the list.  It is taken only by calls
 * that make a system call anyway (the first enable of a lazy group, a
 * close, an enable in the kernel while some group is listed), never by a
 * lazy stop or start: those change the group alone, and only its own
 * thread walks the list for its groups.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>

#include "group_layout.h"
#include "park.h"
#include "sys.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct lope_group *head;
unsigned int lopelib_park_nr;

/*
 * A forked child has no listed group of its own (its copies of the
 * parent's are forked, never listed there), and another thread of the
 * parent may have held the lock: both start afresh.
 */
static void after_fork(void)
{
	pthread_mutex_init(&lock, NULL);
	head = NULL;
	lopelib_park_nr = 0;
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static int atfork_registered;

static void register_atfork(void)
{
	atfork_registered = pthread_atfork(NULL, NULL, after_fork) == 0;
}

int lopelib_park__watch_fork(void)
{
	if (pthread_once(&atfork_once, register_atfork) != 0 ||
	    !atfork_registered)
		return -ENOMEM;
	return 0;
}

void lopelib_park__list(struct lope_group *g)
{
	pthread_mutex_lock(&lock);
	g->park_prev = NULL;
	g->park_next = head;
	if (head)
		head->park_prev = g;
	head = g;
	g->listed = true;
	__atomic_add_fetch(&lopelib_park_nr, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&lock);
}

static void unlink_locked(struct lope_group *g)
{
	if (g->park_prev)
		g->park_prev->park_next = g->park_next;
	else
		head = g->park_next;
	if (g->park_next)
		g->park_next->park_prev = g->park_prev;
	g->park_prev = g->park_next = NULL;
	g->listed = false;
	__atomic_sub_fetch(&lopelib_park_nr, 1, __ATOMIC_RELAXED);
}

void lopelib_park__unlist(struct lope_group *g)
{
	if (!g->listed)
		return;
	if (lopelib_group__forked(g)) { /* the child's list never had it */
		g->listed = false;
		return;
	}
	pthread_mutex_lock(&lock);
	unlink_locked(g);
	pthread_mutex_unlock(&lock);
}

/* Types that take no PMU counter. */
static bool counterless(uint32_t type)
{
	return type == PERF_TYPE_SOFTWARE || type == PERF_TYPE_TRACEPOINT ||
	       type == PERF_TYPE_BREAKPOINT;
}

static bool uses_type(const struct lope_group *p, uint32_t type)
{
	int i;

	for (i = 0; i < p->nr; i++)
		if (p->ev[i].attr.type == type)
			return true;
	return false;
}

/*
 * Would @g's events compete with parked @p's (the calling thread's, on
 * its core PMU: they are read in user space) for counters?  Events of the
 * calling thread do, but for software ones; cpu-wide events do when they
 * name a generic or raw core event or a PMU @p uses (an uncore or RAPL
 * PMU's do not); another task's never share this thread's counters.
 */
static bool competes(const struct lope_group *p, const struct lope_group *g)
{
	bool self = g->pid == 0 || g->pid == p->owner;
	int i;

	if (!self && g->pid != -1)
		return false;
	for (i = 0; i < g->nr; i++) {
		uint32_t t = g->ev[i].attr.type;

		if (counterless(t))
			continue;
		if (self || t == PERF_TYPE_HARDWARE ||
		    t == PERF_TYPE_HW_CACHE || t == PERF_TYPE_RAW ||
		    uses_type(p, t))
			return true;
	}
	return false;
}

/* Disable parked @p in the kernel: its next start samples it again. */
static int demote(struct lope_group *p)
{
	int err = lopelib_ioctl_leaders(p, PERF_EVENT_IOC_DISABLE);

	if (!err)
		p->stop = LOPE_STOP_DEMOTED; /* settle() samples it again */
	return err;
}

int lopelib_park__make_room(const struct lope_group *g)
{
	pid_t tid = lopelib_gettid();
	struct lope_group *p, *next;
	int err = 0;

	pthread_mutex_lock(&lock);
	for (p = head; p && !err; p = next) {
		next = p->park_next;
		if (p == g || p->owner != tid || p->stop != LOPE_STOP_PARKED ||
		    !competes(p, g))
			continue;
		err = demote(p);
		if (!err)
			unlink_locked(p);
	}
	pthread_mutex_unlock(&lock);
	return err;
}
