/* SPDX-License-Identifier: BSD-3-Clause */
/* Layout of struct lope_group: private to the engine and its tests. */
#ifndef LOPE_GROUP_H
#define LOPE_GROUP_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "lope.h"
#include "sys.h"

struct lope_event {
	struct perf_event_attr attr;
	int fd;
	struct perf_event_mmap_page *page; /* NULL: read(2) only */
	uint64_t period;                   /* overflow every period; 0: none */
	int signo;                         /* the overflow signal */
	void *ring; /* user page + LOPE_RING_PAGES of samples; NULL: none */
	/* What we believe the kernel's event_limit is: overflows left before
	 * it stops the event.  The signal handler changes it, so volatile. */
	volatile sig_atomic_t budget;
};

/* Overflow signals that can wait for one event (see overflow.c). */
#define LOPE_OVERFLOW_BUDGET 16

/* Data pages of a sampling event's ring buffer (a power of two): one
 * holds 256 IP samples, far more than a budget's worth. */
#define LOPE_RING_PAGES 1

/* Where the raw counts of the latest sample are. */
enum lope_snap {
	LOPE_SNAP_NONE, /* no sample since the last enable, or it failed */
	LOPE_SNAP_BUF,  /* g->buf: a PERF_FORMAT_GROUP read(2), one ena/run */
	LOPE_SNAP_CUR,  /* g->cur: one lope_counts per event */
};

/* What lope_group__read() may do without another test (lope_group__heat). */
enum lope_hot {
	LOPE_HOT_NONE, /* not ready, offsets written, or neither path below */
	LOPE_HOT_FAST, /* read_fast() and its values */
	LOPE_HOT_USER, /* the user-space read's common case */
};

struct lope_group {
	pid_t pid;
	int cpu;
	unsigned int flags;
	int nr, cap;
	struct lope_event *ev;
	/* The hot path's data: per-event arrays, and what open decided. */
	uint64_t *bval, *bena, *brun; /* raw counts at reset/start: bases */
	/* bena[0] - brun[0]: a read(2) of event 0's kernel group whose
	 * enabled less running time still equals it was not multiplexed. */
	uint64_t bgap0;
	int64_t *wr;    /* added after scaling (write) */
	bool written;   /* some wr[] is not 0 */
	bool grouped;   /* read(2) is one PERF_FORMAT_GROUP read */
	int nr_leaders; /* events 0 .. nr_leaders - 1 lead kernel groups */
	/*
	 * The read(2) path's common case (read_fast()): no user-space reads
	 * and one read(2), of fast_len bytes into fast_buf: nr, ena, run,
	 * values (PERF_FORMAT_GROUP: g->buf, fast_vals at [3]) or value,
	 * ena, run (one event: g->cur, fast_vals at [0]).
	 */
	bool fast;
	uint64_t *fast_buf;
	size_t fast_len;
	const uint64_t *fast_vals;
	enum lope_snap fast_snap;
	bool opened;
	/*
	 * Open, and bval/bena/brun hold the bases: what every call that
	 * samples or uses them tests first.  A disable clears it instead of
	 * copying its sample: the bases are then that sample, which settle()
	 * copies when next they are needed.
	 */
	bool ready;
	enum lope_hot hot;
	bool user_read;        /* every event mapped, maybe rdpmc-readable */
	enum lope_snap snap;   /* the latest sample since the last enable */
	bool stamp_reads;      /* reset seen: time samples for reuse */
	uint64_t snap_at;      /* clock at the latest sample; 0: unknown */
	uint64_t read_cost;    /* clock ticks one read(2) of this group takes */
	unsigned int fork_gen; /* lope_fork_gen when opened */
	pid_t owner;           /* the only thread that may read in user space */
	int nr_mapped;
	int nr_overflow; /* events with a period */
	/* Between enable and disable; read by the overflow signal handler. */
	volatile sig_atomic_t running;
	enum lope_path last;
	size_t page_size;
	struct lope_counts *cur; /* LOPE_SNAP_CUR's counts */
	uint64_t *buf;           /* read(2) buffer: nr, ena, run, cap values */
	/* Hybrid CPUs (parts.c).  A group split over core PMUs (parts set,
	 * from cores) is the sum of its parts: groups of their own, each
	 * all of one core PMU (core, of core_of) or of none (core -1). */
	const struct lope_cores *cores;
	struct lope_parts *parts;
	const struct lope_cores *core_of;
	int core;
};

/* What settle() returns for a split group: the caller hands it to parts.c. */
#define LOPE_SPLIT 1

/*
 * Open, itself or as the sum of its parts.  A split group's own "opened"
 * stays false, so that the one test settle() makes of an ordinary group
 * also sends a split one to parts.c: nothing is added to ordinary calls.
 */
static inline bool lope_group__is_open(const struct lope_group *g)
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
static inline bool lope_group__is_part(const struct lope_group *g)
{
	return g->core >= 0;
}

/*
 * In a forked child, a group opened by the parent names the parent's
 * counters (the descriptors were copied) but not its pages (the kernel maps
 * them VM_DONTCOPY): the child may read, but never switches them or unmaps.
 */
static inline bool lope_group__forked(const struct lope_group *g)
{
	return g->fork_gen != lope_fork_gen;
}

/*
 * What lope_group__read() can do at once (g->hot), decided when something
 * it depends on changes rather than tested on every call.
 */
static inline void lope_group__heat(struct lope_group *g)
{
	if (!g->ready || g->written)
		g->hot = LOPE_HOT_NONE;
	else if (g->user_read)
		g->hot = LOPE_HOT_USER;
	else
		g->hot = g->fast ? LOPE_HOT_FAST : LOPE_HOT_NONE;
}

/* How long one read(2) of the open group @g takes (group.c, for open.c). */
uint64_t lope_group__read_cost(struct lope_group *g);

/* A split group's parts: group k of core PMU k, the last one of none. */
struct lope_parts {
	struct lope_group *g[LOPE_CORES_MAX + 1];
	int *value[LOPE_CORES_MAX + 1]; /* event j of g[k] adds to value[k][j] */
	int64_t *tmp;                   /* one part's values */
	struct lope_counts *ctmp;       /* one part's raw counts */
	int hit_g, hit_j;               /* the last lope_parts__find_fd() */
};

/* A split group's calls (parts.c): open, close, and the verbs. */
int lope_parts__open(struct lope_group *g);
void lope_parts__close(struct lope_group *g);
bool lope_parts__needed(const struct lope_group *g);
int lope_parts__read(struct lope_group *g, int64_t *values);
int lope_parts__reset(struct lope_group *g);
int lope_parts__write(struct lope_group *g, const int64_t *values);
int lope_parts__enable(struct lope_group *g);
int lope_parts__disable(struct lope_group *g, int64_t *values, bool after_read);
int lope_parts__counts(struct lope_group *g, struct lope_counts *c, bool last);
int lope_parts__find_fd(const struct lope_group *g, int fd);
int lope_parts__samples(struct lope_group *g, int idx, uint64_t *ips, int max);
int lope_parts__rearm(struct lope_group *g, int idx, int code);
/*
 * Is @g a core type's part read while the thread is on a cpu of another
 * core type?  Its pages are then final (group.c's user-space read).
 */
bool lope_parts__off(const struct lope_group *g);

/* Overflow hooks of lope_group__open/close/enable/disable (overflow.c). */
void lope_overflow__prepare_attr(const struct lope_event *e,
				 struct perf_event_attr *a);
int lope_overflow__open(struct lope_group *g, struct lope_event *e);
void lope_overflow__close(struct lope_group *g, struct lope_event *e);
int lope_overflow__arm(struct lope_group *g);

#endif /* LOPE_GROUP_H */
