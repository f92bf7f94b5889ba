/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Overflow: sampling events that signal the thread that opened them, a
 * ring buffer of sampled instruction addresses, and a budget that bounds
 * the overflow signals waiting for one event.
 *
 * Why a budget: every overflow queues one real-time signal, and when the
 * queue is full (RLIMIT_SIGPENDING, e.g. while the signal is blocked or
 * the handler is slower than the period) the kernel falls back to SIGIO,
 * whose default action kills the process.  That queue is the user's: it
 * counts every process of the user, whose own signals then come as SIGIO
 * too, and whose timer_create() fails.  The kernel's event_limit
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
 *
 * The engine counts the budget down by the signals handled (one
 * lope_group__rearm() each), not by the samples taken: a handler takes
 * every sample in the ring, also those whose signals still wait, so
 * renewing by samples lets the kernel overflow on while the queue grows
 * (test_overflows.c, test_flood(): a 10 us clock with a 30 us handler
 * queued thousands of signals).  Counted by signals, the overflows left
 * plus the signals waiting stay within the budget.  The kernel counts
 * overflows, and one that comes before the previous one's signal was
 * sent sends none: then the kernel runs out first and says so (POLL_HUP),
 * and the handler renews the budget at once.  What the kernel has left
 * is also followed by the samples (e->left): renewed when no signal
 * waits, the budget takes back what the signals never sent cost it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

#include "group_layout.h"
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

/*
 * The engine owns the sampling fields: @a gets @e's, nothing else.  A
 * sample is the address and the counts (the group's, where its read(2) is
 * one PERF_FORMAT_GROUP read): lope_group__overflows() finds in them the
 * overflows the kernel did not sample.
 */
void lopelib_overflow__prepare_attr(const struct lope_event *e,
				    struct perf_event_attr *a)
{
	a->freq = 0;
	a->sample_period = e->period;
	a->sample_type = e->period ? PERF_SAMPLE_IP | PERF_SAMPLE_READ : 0;
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

/*
 * A sample's bytes: the header, the address, then the read: nr, enabled
 * and running time, and nr values for a group read; else the value and
 * the two times.
 */
static size_t sample_len(const struct lope_group *g)
{
	return sizeof(struct perf_event_header) +
	       sizeof(uint64_t) * (1 + 3 + (g->grouped ? (size_t)g->nr : 0));
}

/* Data pages of a ring (a power of two): room for a budget's samples,
 * all that can come while the signal is blocked (beyond, the kernel would
 * write a lost record, which also counts its overflows). */
static size_t ring_pages(const struct lope_group *g)
{
	size_t need = LOPE_OVERFLOW_BUDGET * sample_len(g), n = 1;

	while (n * g->page_size < need)
		n *= 2;
	return n;
}

static size_t ring_len(const struct lope_group *g)
{
	return (1 + ring_pages(g)) * g->page_size;
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
	e->left = 0;
	e->due = e->period; /* a new event counts from 0 */
	e->seen = 0;
	e->seen_ip = 0;
	e->early = 0;
	e->owed = 0;
	map_ring(g, e);
	return 0;
}

void lopelib_overflow__close(struct lope_group *g, struct lope_event *e)
{
	/* Our own mapping: nothing to do if munmap fails. */
	(void)lopelib_sys->munmap(e->ring, ring_len(g));
	e->ring = NULL;
}

/*
 * Renew the budget: the kernel's event_limit raised by what was used
 * (which also enables the event).  Counted before the refresh: the event
 * may overflow as soon as the kernel enables it, and that signal's
 * handler runs when the ioctl returns, before the next instruction here.
 * Counted after, that handler would see the budget before the refresh,
 * renew it in full, and this refresh would come on top: twice the budget
 * in the kernel (test_overflows.c, test_refresh_race()).
 */
static int top_up(struct lope_event *e)
{
	int add = LOPE_OVERFLOW_BUDGET - e->budget;

	e->budget = LOPE_OVERFLOW_BUDGET;
	e->left += add;
	if (lopelib_sys->ioctl(e->fd, PERF_EVENT_IOC_REFRESH,
			       (unsigned long)add) < 0) {
		int err = errno ? -errno : -EIO;

		e->budget -= add;
		e->left -= add;
		return err;
	}
	return 0;
}

/* Does a signal @signo wait for this thread? */
static bool signal_waits(int signo)
{
	sigset_t set;

	return sigpending(&set) != 0 || sigismember(&set, signo) == 1;
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
 * One signal handled takes one from the budget; renewed when half is
 * used, and at once on POLL_HUP (the kernel's limit reached 0 and the
 * kernel stopped the event).  When it is renewed and no signal waits,
 * the kernel's limit is what the samples say it is (e->left, at least
 * the limit: the samples not yet taken are still counted in it): what
 * the budget lost to signals the kernel never sent comes back.  That
 * costs a sigpending(), only when the samples and the signals differ.
 */
int lope_group__rearm(struct lope_group *g, int idx, int code)
{
	struct lope_event *e = event_of(g, idx);

	if (!e || !lopelib_group__is_open(g) || !e->period)
		return -EINVAL;
	if (g->parts)
		return g->split->rearm(g, idx, code);
	if (e->budget > 0)
		e->budget--;
	if (!g->running ||
	    (code != POLL_HUP && e->budget > LOPE_OVERFLOW_BUDGET / 2))
		return 0; /* stopped: lope_group__enable() tops it up */
	if (e->ring && e->budget > e->left && !signal_waits(e->signo))
		e->budget = e->left;
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

/* Is @c at least @d (counts that may wrap)? */
static bool reached(uint64_t c, uint64_t d)
{
	return c - d < (uint64_t)INT64_MAX;
}

/*
 * Event @e's multiple of its period due now, which the sample at count
 * @c and address @ip shows passed: owed, at the address of whichever
 * sample's count was nearer, the one before (e->seen) or this one.
 */
static void owe_due(struct lope_event *e, uint64_t c, uint64_t ip)
{
	uint64_t before = reached(e->due, e->seen) ? e->due - e->seen :
						     e->seen - e->due;

	if (before < c - e->due) {
		e->early++;
		e->early_ip = e->seen_ip;
	} else {
		e->owed++;
		e->owed_ip = ip;
	}
	e->due += e->period;
}

/*
 * The sample at count @c and address @ip, of another event, shows that
 * event @e passed the multiple of its period due, by an eighth of a
 * period or more, and took no sample of it: each such multiple is owed.
 * The kernel samples within microseconds of the multiple (its timer runs
 * a little behind the count, by microseconds a context switch), so an
 * eighth is far more than it takes, and still finds a dropped sample by
 * the next sample of the other event in most sets.
 */
static void owe_passed(struct lope_event *e, uint64_t c, uint64_t ip)
{
	while (reached(c, e->due + e->period / 8))
		owe_due(e, c, ip);
	e->seen = c;
	e->seen_ip = ip;
}

/*
 * @e's own sample at count @c: the multiple nearest @c, and those it
 * passed since the one due.  A multiple already owed (its sample came
 * more than half a period late) adds none.  The multiples stay those of
 * the count, where the kernel's timer may drift from them (a software
 * clock's falls behind by microseconds a context switch): an event
 * overflows floor(count / period) times, give or take the latest one.
 */
static void owe_sample(struct lope_event *e, uint64_t c, uint64_t ip)
{
	if (reached(c, e->due - e->period / 2)) {
		while (reached(c, e->due + e->period / 2))
			owe_due(e, c, ip);
		e->owed++;
		e->owed_ip = ip;
		e->due += e->period;
	}
	e->seen = c;
	e->seen_ip = ip;
}

/* Hand out what every sampling event of @g is owed, up to @max. */
static int hand_out(struct lope_group *g, struct lope_overflow *out, int max)
{
	struct lope_event *e;
	int n = 0, i;

	for (i = 0; i < g->nr && n < max; i++) {
		e = &g->ev[i];
		for (; e->early && n < max; e->early--, n++) {
			out[n].ip = e->early_ip;
			out[n].idx = i;
		}
		for (; e->owed && n < max; e->owed--, n++) {
			out[n].ip = e->owed_ip;
			out[n].idx = i;
		}
	}
	return n;
}

/* A ring's data: @size bytes (a power of two) at @data. */
struct ring {
	const unsigned char *data;
	uint64_t size;
};

/* Copy @len bytes at ring position @pos, wrapping at the end of the data. */
static void ring_copy(struct ring r, uint64_t pos, void *dst, size_t len)
{
	size_t off = (size_t)(pos & (r.size - 1));
	size_t first = r.size - off < len ? (size_t)(r.size - off) : len;

	memcpy(dst, r.data + off, first);
	memcpy((unsigned char *)dst + first, r.data, len - first);
}

/* The @k-th 8 bytes of the record at @pos. */
static uint64_t word(struct ring r, uint64_t pos, size_t k)
{
	uint64_t w;

	ring_copy(r, pos + k * sizeof(w), &w, sizeof(w));
	return w;
}

/*
 * @idx's record at @pos, of header @h: a sample owes its own overflow and
 * shows, in the group's counts, those of the other events that the kernel
 * did not sample; a lost record owes the overflows it counts, at no
 * known address.  Other records (throttling) owe nothing.
 */
static void take_record(struct lope_group *g, int idx, struct ring r,
			uint64_t pos, const struct perf_event_header *h)
{
	struct lope_event *e = &g->ev[idx];
	uint64_t ip, lost;
	int i;

	if (h->type == PERF_RECORD_LOST && h->size >= 3 * sizeof(ip)) {
		lost = word(r, pos, 2);
		e->owed += lost;
		e->owed_ip = 0;
		e->due += lost * e->period;
		e->seen = e->due - e->period; /* its latest, about */
		e->seen_ip = 0;
		e->left = lost < (uint64_t)e->left ? e->left - (int)lost : 0;
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE || h->size < 2 * sizeof(ip))
		return;
	e->left -= e->left > 0;
	ip = word(r, pos, 1);
	if (h->size < sample_len(g) ||
	    (g->grouped && word(r, pos, 2) != (uint64_t)g->nr)) {
		e->owed++; /* not our layout: the overflow, no counts */
		e->owed_ip = ip;
		e->seen = e->due;
		e->seen_ip = ip;
		e->due += e->period;
		return;
	}
	if (!g->grouped) {
		owe_sample(e, word(r, pos, 2), ip);
		return;
	}
	for (i = 0; i < g->nr; i++) {
		if (i == idx)
			owe_sample(e, word(r, pos, 5 + (size_t)i), ip);
		else if (g->ev[i].period && g->ev[i].ring)
			owe_passed(&g->ev[i], word(r, pos, 5 + (size_t)i), ip);
	}
}

/*
 * Records from data_tail to data_head, taken one at a time while there
 * is room for what they owe.  The acquire load of data_head orders the
 * record reads after it, the release store of data_tail lets the kernel
 * reuse the space only after they are done.
 */
int lope_group__overflows(struct lope_group *g, int idx,
			  struct lope_overflow *out, int max)
{
	struct lope_event *e = event_of(g, idx);
	struct perf_event_mmap_page *pc;
	struct perf_event_header h;
	uint64_t head, tail;
	struct ring r;
	int n;

	if (!e || !out || max < 0)
		return -EINVAL;
	if (g->parts)
		return g->split->overflows(g, idx, out, max);
	if (!e->ring)
		return -ENOBUFS;
	pc = e->ring;
	r.data = (const unsigned char *)e->ring + g->page_size;
	r.size = ring_pages(g) * g->page_size;
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	tail = pc->data_tail;
	n = hand_out(g, out, max);
	while (tail != head && n < max) {
		ring_copy(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			tail = head; /* not a record: drop what is there */
			break;
		}
		take_record(g, idx, r, tail, &h);
		tail += h.size;
		n += hand_out(g, out + n, max - n);
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}
