/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The layout of a group and its events: the structs, the predicates and
 * arithmetic on their fields, the split module's operations and the switch
 * of the leaders, all inline.  Every engine file that touches a group's
 * fields includes it; none of it is a call into group.c (its verbs:
 * group.h).  Private to the engine and its tests.
 */
#ifndef LOPE_GROUP_LAYOUT_H
#define LOPE_GROUP_LAYOUT_H

#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "lope.h"
#include "sys.h"

/*
 * One event: what it is (attr, fd, page) and, for the read path, its base
 * (the raw counts its values start from) and its latest sample where
 * both are per event (not a group read(2): g->buf and g->bases), and its
 * written offset.
 */
struct lope_event {
	struct lope_counts base; /* raw counts at reset/start, but g->bases */
	struct perf_event_mmap_page *page; /* NULL: read(2) only */
	struct lope_counts sample; /* latest sample, unless g->buf holds it */
	int64_t offset;            /* added after scaling (a write) */
	int fd;
	struct perf_event_attr attr;
	uint64_t period; /* overflow every period; 0: none */
	int signo;       /* the overflow signal */
	void *ring;      /* its page and the samples' pages; NULL: none */
	/*
	 * What the kernel's event_limit, the overflows left before it
	 * stops the event, and the signals waiting add up to at most: the
	 * budget, less the signals handled since it was renewed; and that
	 * limit as the samples taken show it.  The signal handler changes
	 * them, so volatile.
	 */
	volatile sig_atomic_t budget;
	volatile sig_atomic_t left;
	/*
	 * Overflows (overflow.c): the raw count at which the next multiple
	 * of the period is due; the latest sample that showed the count,
	 * its count and address; the overflows found and not yet handed out,
	 * those nearer that sample's count than the one that found them
	 * first, with the two addresses.
	 */
	uint64_t due;
	uint64_t seen, seen_ip;
	uint64_t early, owed;
	uint64_t early_ip, owed_ip;
};

/*
 * How an open group takes a sample, fixed when it opens: the layout of
 * the sample follows from it (the kernel's PERF_FORMAT_GROUP layout in
 * g->buf for LOPE_SAMPLE_GROUP, else each event's sample).
 */
enum lope_sampler {
	LOPE_SAMPLE_USER,  /* each page in user space; read(2) when refused */
	LOPE_SAMPLE_GROUP, /* one PERF_FORMAT_GROUP read(2) of the leader */
	LOPE_SAMPLE_EACH,  /* one read(2) per event */
};

/*
 * How a stopped group stopped (doc/lazy-stop.md).  PARKED: in user space,
 * its counters still enabled in the kernel, every event's sample equal to its
 * base (the stop's sample).  DEMOTED: parked, then disabled in the kernel
 * by another group's start (park.c); its sample is older than the counts, so
 * settle() samples again and keeps what was written.
 */
enum lope_stop {
	LOPE_STOP_NONE,
	LOPE_STOP_PARKED,
	LOPE_STOP_DEMOTED,
};

struct lope_group;

/*
 * What lope_group__read() does now: set by lopelib_group__choose() alone.
 * It is read_cold() (group.c) exactly when the group is not ready: closed,
 * split, or stopped with the latest sample as its bases, not yet copied
 * (settle()); the verbs test that, and nothing else, before using them.
 * Invariants (LOPE_CHECK): a ready group is open, not split and not
 * stopped lazily (stop is LOPE_STOP_NONE).
 */
typedef int (*lope_read_fn)(struct lope_group *g, int64_t *values);
typedef int (*lope_reset_fn)(struct lope_group *g);

struct lope_group {
	/* The measured calls' data; first what lope_group__read() calls
	 * (lope.h: the caller may call it itself). */
	struct lope_group_head head;
	lope_read_fn ready_read;   /* head.read when ready, nothing written */
	lope_reset_fn ready_reset; /* lope_group__reset()'s then */
	int nr;
	enum lope_sampler sampler;
	struct lope_event *ev;
	/*
	 * The one read(2) of a LOPE_SAMPLE_GROUP or one-event group: of
	 * leader_fd into sysread_buf (g->buf, or event 0's sample),
	 * sysread_len bytes (0: no such read); the enabled time at
	 * sysread_buf[1], the running time at sysread_buf[2] in both
	 * layouts.
	 */
	uint64_t *sysread_buf;
	size_t sysread_len;
	/* A LOPE_SAMPLE_GROUP group's base values, side by side as in buf,
	 * 16-aligned; its enabled and running times at the base are event
	 * 0's base.ena and base.run. */
	uint64_t *bases;
	/* The loops over a group read(2)'s values and bases run down in
	 * bytes: the last event alone at sysread_last_off ((nr - 1) * 8)
	 * if nr is odd, then two at a time from sysread_pairs_off to 0. */
	long sysread_last_off;
	long sysread_pairs_off;
	const struct lope_event *sysread_last_ev;
	int leader_fd; /* event 0's: the leader's, whose ioctls switch it */
	/* base.ena - base.run of the leader, event 0: a group read(2)
	 * whose enabled less running time still equals it was not
	 * multiplexed. */
	uint64_t leader_base_gap;
	/*
	 * The reset rule: the latest read ended at read_end, by the clock;
	 * a reset less than window after it, with no verb in between, takes
	 * that sample as its bases.  window: how long the leader's
	 * perf_event_open took, at the latest open.  Every other verb
	 * makes read_end 0.
	 */
	uint64_t read_end, window;
	enum lope_path last; /* the latest sample's; NONE: none since enable */
	bool opened;         /* open itself (a split group's parts are) */
	bool written;        /* some event's wr is not 0 */
	bool grouped;        /* read(2) is one PERF_FORMAT_GROUP read */
	int nr_leaders;      /* events 0 .. nr_leaders - 1 lead kernel groups */
	pid_t owner;         /* the only thread that may read in user space */
	/* Between enable and disable; read by the overflow signal handler,
	 * written by lopelib_set_running() alone. */
	volatile sig_atomic_t running;
	/* The rest. */
	pid_t pid;
	int cpu;
	unsigned int flags;
	int ev_cap;            /* ev has room for ev_cap events */
	unsigned int fork_gen; /* lopelib_fork_gen when opened */
	int nr_mapped;
	int nr_overflow; /* events with a period */
	size_t page_size;
	uint64_t *buf; /* group read(2) buffer: nr, ena, run, ev_cap values */
	/* Hybrid CPUs (split.c).  A group split over core PMUs (parts set,
	 * from cores) is the sum of its parts: groups of their own, each
	 * all of one core PMU (core, of core_of) or of none (core -1). */
	const struct lope_cores *cores;
	struct lope_split *parts;
	const struct lope_cores *core_of;
	int core;
	const struct lope_split_ops *split; /* split.c's, where cores are set */
	/*
	 * Lazy stop (park.c): may park at a stop; how it stopped; on the
	 * registry of lazy groups enabled in the kernel, and its links.
	 * Invariants (LOPE_CHECK; lopelib_park_nr counts the listed groups):
	 *   listed: lazy and open (a close unlists first);
	 *   PARKED: listed, not running (its counters run in the kernel);
	 *   DEMOTED: not listed, not running (disabled in the kernel);
	 *   running: stop is LOPE_STOP_NONE;
	 *   closed and not split: not listed, not stopped, not running.
	 */
	bool lazy;
	enum lope_stop stop;
	bool listed;
	struct lope_group *park_prev, *park_next;
};

/*
 * Open, itself or as the sum of its parts.  A split group's own "opened"
 * stays false and it is never ready, so that the one test the verbs make
 * of an ordinary group sends a split one to its not-ready branch, and on to
 * split.c:
 * nothing is added to ordinary calls.
 */
static inline bool lopelib_group__is_open(const struct lope_group *g)
{
	return g->opened || g->parts;
}

/*
 * A part of a split group: its values are scaled by the running time of
 * its first event (its own group's, or with LOPE_SEPARATE the first
 * group's, opened pinned), not by the enabled time.  When the thread is
 * on another core type none of its events is on a counter, and the pages
 * are final: read without read(2).
 */
static inline bool lopelib_group__is_part(const struct lope_group *g)
{
	return g->core >= 0;
}

/*
 * In a forked child, a group opened by the parent names the parent's
 * counters (the descriptors were copied) but not its pages (the kernel maps
 * them VM_DONTCOPY): the child may read, but never switches them or unmaps.
 */
static inline bool lopelib_group__forked(const struct lope_group *g)
{
	return g->fork_gen != lopelib_fork_gen;
}

/* No read for a reset to take its sample from (the reset rule, read_end). */
static inline void lopelib_group__forget_read(struct lope_group *g)
{
	g->read_end = 0;
}

/*
 * The only writer of g->running.  Running is set before the ioctls and
 * cleared before the stop: an overflow signal handled in between may
 * renew its event's budget (an ioctl that enables the event), one handled
 * after the stop must leave that to the next enable.
 */
static inline void lopelib_set_running(struct lope_group *g, bool running)
{
	g->running = running;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/*
 * The one home of a value's arithmetic (group.c's values, split.c's): the
 * count @d since the base, scaled where the kernel multiplexed (@ena, @run
 * since the base), never negative and never past INT64_MAX (a wild
 * ratio).  The caller adds what was written.
 */
static inline uint64_t lopelib_scaled(uint64_t d, uint64_t ena, uint64_t run)
{
	if ((int64_t)d < 0) /* never report a negative count */
		d = 0;
	if (ena != run)
		d = lope_scale(d, ena, run);
	return d > INT64_MAX ? INT64_MAX : d; /* nor wrap a wild ratio */
}

/*
 * The latest sample's raw counts of event @i, in the group's one layout:
 * the kernel's PERF_FORMAT_GROUP buffer, or each event's sample.
 */
static inline struct lope_counts
lopelib_group__sample_of(const struct lope_group *g, int i)
{
	struct lope_counts c;

	if (g->sampler != LOPE_SAMPLE_GROUP)
		return g->ev[i].sample;
	c.val = g->buf[3 + i];
	c.ena = g->buf[1];
	c.run = g->buf[2];
	return c;
}

/* Event @i's base, in the same layouts. */
static inline struct lope_counts
lopelib_group__base_of(const struct lope_group *g, int i)
{
	struct lope_counts c;

	if (g->sampler != LOPE_SAMPLE_GROUP)
		return g->ev[i].base;
	c.val = g->bases[i];
	c.ena = g->ev[0].base.ena;
	c.run = g->ev[0].base.run;
	return c;
}

/* Every event's latest raw counts into @c. */
static inline void lopelib_group__copy_sample(const struct lope_group *g,
					      struct lope_counts *c)
{
	int i;

	for (i = 0; i < g->nr; i++)
		c[i] = lopelib_group__sample_of(g, i);
}

/*
 * A split group's verbs (split.c), installed on the group by
 * lope_group__set_cores() and on each of its parts: the group's own
 * verbs hand a split group on through them, so that no call goes from
 * the group up to the split module (the layers: src/sources.mk).
 */
struct lope_split_ops {
	/* Does @g need splitting (open then takes the parts)? */
	bool (*needed)(const struct lope_group *g);
	int (*open)(struct lope_group *g);
	void (*close)(struct lope_group *g);
	int (*read)(struct lope_group *g, int64_t *values);
	int (*reset)(struct lope_group *g);
	int (*write)(struct lope_group *g, const int64_t *values);
	int (*enable)(struct lope_group *g);
	int (*disable)(struct lope_group *g, int64_t *values, bool after_read);
	int (*counts)(struct lope_group *g, struct lope_counts *c, bool last);
	enum lope_path (*last_path)(const struct lope_group *g);
	/* The descriptor of event @idx: its first part's, which owns it. */
	int (*fd)(const struct lope_group *g, int idx);
	int (*find_fd)(const struct lope_group *g, int fd);
	int (*overflows)(struct lope_group *g, int idx,
			 struct lope_overflow *out, int max);
	int (*rearm)(struct lope_group *g, int idx, int code);
	/*
	 * Is part @g read while the thread is on a cpu of another core
	 * type?  Its pages are then final (group.c's user-space read).
	 */
	bool (*off)(const struct lope_group *g);
};

/*
 * Members are opened enabled and count whenever their leader is scheduled,
 * so enabling or disabling the leader alone switches the whole group: no
 * PERF_IOC_FLAG_GROUP, which would make the kernel visit every member
 * (doc/design.md).  0 or -errno.  Here for group.c's verbs and park.c's
 * demotion alike; each file has its own copy of the two out-of-line
 * helpers (unused where a file does not call them).
 */
static __attribute__((noinline, unused)) int lopelib_ioctl_error(void)
{
	return errno ? -errno : -EIO;
}

/* lopelib_ioctl_leaders() of a set of several kernel groups, out of its way. */
static __attribute__((noinline, unused)) int
lopelib_ioctl_each_leader(struct lope_group *g, unsigned long request)
{
	int i;

	for (i = 0; i < g->nr_leaders; i++)
		if (lopelib_sys->ioctl(g->ev[i].fd, request, 0) < 0)
			return lopelib_ioctl_error();
	return 0;
}

static inline __attribute__((always_inline)) int
lopelib_ioctl_leaders(struct lope_group *g, unsigned long request)
{
	if (lopelib_group__forked(g))
		return 0; /* the parent's counters: not the child's to switch */
	if (__builtin_expect(g->nr_leaders == 1, 1))
		return lopelib_sys->ioctl(g->leader_fd, request, 0) < 0 ?
			       lopelib_ioctl_error() :
			       0;
	return lopelib_ioctl_each_leader(g, request);
}

#endif /* LOPE_GROUP_LAYOUT_H */
