/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The raw floor: the same events opened directly with perf_event_open as
 * one group (user domain, like PAPI's default), and the bare calls a PAPI
 * call cannot undercut, through the same cases as PAPI's (target "raw"):
 * start = ioctl(ENABLE), stop = ioctl(DISABLE), reset = ioctl(RESET),
 * all with PERF_IOC_FLAG_GROUP, read = one read(2) with PERF_FORMAT_GROUP
 * and the enabled and running times, as our engine asks for them.  Target
 * "untimed": the same read(2) without the times, as stock PAPI asks for it
 * unless it multiplexes, so the kernel's cost of the times shows.
 * Where the counters can be read in user space, target "user": a bare
 * seqlock-and-counter-read loop over the events' pages (lopelib_mmap__read
 * with the engine's per-arch reader, no scaling).
 *
 * And the sampling floor (target "raw", case "sample", sampling.c's
 * spin): the same events opened with sample_period, one group, each with
 * a ring buffer, its signal routed to the thread (F_SETSIG, F_SETOWN_EX,
 * O_ASYNC), and a handler that only takes the ring's records (its samples
 * are counted there: one signal can stand for several; on SIGIO, the
 * kernel's fallback, every ring's).  Each event's overflows are bounded
 * by the engine's budget, kept as the engine keeps it (src/overflow.c):
 * PERF_EVENT_IOC_REFRESH before the start and when half is used.
 * Unbounded, clocks that overflow faster than their handler runs queue
 * signals by the ten thousand (seen: 96,368, the limit, in a default run
 * on a 2-core guest), and that queue is the user's: RLIMIT_SIGPENDING
 * counts every process of the user, whose overflows then come as SIGIO,
 * which kills, and whose timer_create() fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mmap_read.h"
#include "overflow.h"

#include "overhead.h"

#define SIGNO (SIGRTMIN + 2)
#define RING_PAGES 1 /* data pages of a sampling ring: the handler keeps up */

/* How the group is opened: read with or without the times, or sampling. */
enum raw_mode { RAW_TIMED, RAW_UNTIMED, RAW_SAMPLING };

/* The one open group: the api's @set is always it.  All zero when none
 * is open (raw_close()). */
static struct raw {
	int nev; /* its events open so far */
	int fd[MAX_EVENTS];
	/* each event's page (sampling: its ring, the page first) */
	volatile struct perf_event_mmap_page *page[MAX_EVENTS];
	uint64_t buf[3 + MAX_EVENTS];
	size_t len; /* of a read */
	enum raw_mode mode;
	size_t maplen; /* of a page's mapping */
	/* sampling, as the engine keeps them: each event's budget (the
	 * kernel's event_limit plus the signals waiting, at most), that
	 * limit as the samples show it, and whether the group is started */
	int budget[MAX_EVENTS], left[MAX_EVENTS];
	volatile sig_atomic_t running;
} raw;

/* Raise event @i's event_limit to the full budget (which enables it). */
static int top_up(int i)
{
	int add = LOPE_OVERFLOW_BUDGET - raw.budget[i];

	if (add && ioctl(raw.fd[i], PERF_EVENT_IOC_REFRESH, add) < 0)
		return -1;
	raw.budget[i] = LOPE_OVERFLOW_BUDGET;
	raw.left[i] += add;
	return 0;
}

static int raw_start(int set)
{
	int i;

	(void)set;
	/* members first: refreshing the leader starts the group */
	for (i = raw.nev - 1; raw.mode == RAW_SAMPLING && i >= 0; i--)
		if (top_up(i))
			return -1;
	raw.running = 1;
	return ioctl(raw.fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

static int raw_stop(int set, long long *v)
{
	(void)set;
	(void)v;
	raw.running = 0; /* before: a handler now must not restart it */
	return ioctl(raw.fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

static int raw_read(int set, long long *v)
{
	(void)set;
	(void)v;
	return read(raw.fd[0], raw.buf, raw.len) == (ssize_t)raw.len ? 0 : -1;
}

static int raw_reset(int set)
{
	(void)set;
	return ioctl(raw.fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
}

/* The bare user-space read: each event's page, its seqlock, its counter. */
static int user_read(int set, long long *v)
{
	struct lope_counts c;
	int i;

	(void)set;
	for (i = 0; i < raw.nev; i++) {
		if (lopelib_mmap__read(raw.page[i], &lopelib_hw_reader, &c,
				       NULL))
			return -1;
		v[i] = (long long)c.val;
	}
	return 0;
}

static const struct api raw_api = { raw_start, raw_stop, raw_read, NULL,
				    raw_reset };
static const struct api user_api = { raw_start, raw_stop, user_read, NULL,
				     NULL };

/* Close the group; a signal late for it finds no ring. */
static void raw_close(void)
{
	sigset_t both, old;
	int i;

	sigemptyset(&both);
	sigaddset(&both, SIGNO);
	sigaddset(&both, SIGIO);
	sigprocmask(SIG_BLOCK, &both, &old);
	for (i = 0; i < raw.nev; i++) {
		if (raw.page[i])
			munmap((void *)raw.page[i], raw.maplen);
		close(raw.fd[i]);
	}
	memset(&raw, 0, sizeof(raw));
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* A sampling event's ring mapped, its signal routed to this thread. */
static int raw_ring(int i)
{
	struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
	void *p = mmap(NULL, raw.maplen, PROT_READ | PROT_WRITE, MAP_SHARED,
		       raw.fd[i], 0);

	if (p == MAP_FAILED)
		return -1;
	raw.page[i] = p;
	if (fcntl(raw.fd[i], F_SETSIG, SIGNO) < 0 ||
	    fcntl(raw.fd[i], F_SETOWN_EX, &owner) < 0 ||
	    fcntl(raw.fd[i], F_SETFL, O_ASYNC) < 0)
		return -1;
	return 0;
}

/* One event of the group: open it and, if a hardware one, map its page;
 * sampling, its ring. */
static int raw_open_one(int i, const struct ev_def *ev)
{
	struct perf_event_attr a = { .size = sizeof(a),
				     .type = ev->type,
				     .config = ev->config,
				     .disabled = i == 0,
				     .exclude_kernel = 1,
				     .exclude_hv = 1 };
	void *p;

	if (raw.mode == RAW_SAMPLING) {
		a.sample_period = (uint64_t)period_of(ev);
		a.sample_type = PERF_SAMPLE_IP;
		a.wakeup_events = 1;
	} else {
		a.read_format = PERF_FORMAT_GROUP;
	}
	if (raw.mode == RAW_TIMED)
		a.read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (ev->type != PERF_TYPE_SOFTWARE && raw.mode != RAW_SAMPLING)
		lopelib_arch_prepare_attr(&a);
	raw.fd[i] = perf_open(&a, i ? raw.fd[0] : -1);
	if (raw.fd[i] < 0)
		return -1;
	raw.nev = i + 1;
	if (raw.mode == RAW_SAMPLING)
		return raw_ring(i);
	/* software events: no page, as in the engine (a mapped page is
	 * rewritten by the kernel at every reset and enable) */
	if (ev->type == PERF_TYPE_SOFTWARE)
		return 0;
	p = mmap(NULL, raw.maplen, PROT_READ, MAP_SHARED, raw.fd[i], 0);
	/* a page whose reads could fault unguarded is not read */
	raw.page[i] = p == MAP_FAILED || lopelib_guard__install() ? NULL : p;
	return 0;
}

/* Open @ev[0..n) as one group, as @mode says; 0, or -1 with why. */
static int raw_open(const struct ev_def *const *ev, int n, enum raw_mode mode,
		    char *why, size_t len)
{
	size_t pagesz = (size_t)sysconf(_SC_PAGESIZE);
	int i;

	raw.mode = mode;
	raw.len = ((mode == RAW_TIMED ? 3 : 1) + (size_t)n) * sizeof(uint64_t);
	raw.maplen = (mode == RAW_SAMPLING ? 1 + RING_PAGES : 1) * pagesz;
	for (i = 0; i < n; i++)
		if (raw_open_one(i, ev[i])) {
			snprintf(why, len, "perf_event_open(%s): %s",
				 ev[i]->name, strerror(errno));
			raw_close();
			return -1;
		}
	return 0;
}

/* Can the started group be read in user space?  1, or 0 with why. */
static int user_ok(char *why, size_t len)
{
	int i;

	for (i = 0; i < raw.nev; i++) {
		if (!raw.page[i])
			snprintf(why, len,
				 "software events have no counter to read "
				 "in user space");
		else if (!raw.page[i]->cap_user_rdpmc || !raw.page[i]->index)
			snprintf(why, len,
				 "the kernel allows no user-space read of "
				 "event %d (cap_user_rdpmc %u, index %u)",
				 i, (unsigned)raw.page[i]->cap_user_rdpmc,
				 (unsigned)raw.page[i]->index);
		else
			continue;
		return 0;
	}
	return 1;
}

/* The floor of a set of @ev[0..k). */
static void floor_set(const struct ev_def *const *ev, int k, struct meter *m,
		      long n, const char *hw_why)
{
	static const char *const raw_calls[] = { "start", "stop", "read",
						 "reset", NULL };
	static const char *const read_calls[] = { "read", NULL };
	long long v[MAX_EVENTS];
	struct target t = { .name = "raw", .api = &raw_api, .v = v };
	char why[300];

	if (raw_open(ev, k, RAW_TIMED, why, sizeof(why))) {
		cases_err("raw", k, why);
		emit("na user read %d %s", k, why);
		return;
	}
	run_cases(&t, m, n, k, 0, raw_calls);
	if (!t.running && raw_start(0) == 0)
		t.running = 1;
	else if (!t.running) /* the user loop reads a started group */
		snprintf(why, sizeof(why), "ioctl(ENABLE): %s",
			 strerror(errno));
	if (m->no_user) {
		emit("na user read %d %s", k, m->no_user);
	} else if (t.running && user_ok(why, sizeof(why))) {
		t.name = "user";
		t.api = &user_api;
		run_cases(&t, m, n, k, 0, read_calls);
	} else {
		emit("na user read %d %s%s%s", k, why, *hw_why ? "; " : "",
		     hw_why);
	}
	raw_close();
	t.name = "untimed";
	t.api = &raw_api;
	t.running = 0;
	if (raw_open(ev, k, RAW_UNTIMED, why, sizeof(why)) == 0) {
		run_cases(&t, m, n, k, 0, read_calls);
		raw_close();
	} else {
		cases_err("untimed", k, why);
	}
}

/* Take every record of event @i's ring; count its samples. */
static void take_ring(int i)
{
	struct perf_event_mmap_page *pc =
		(struct perf_event_mmap_page *)raw.page[i];
	const unsigned char *data;
	struct perf_event_header h;
	uint64_t head, tail,
		size = RING_PAGES * (uint64_t)sysconf(_SC_PAGESIZE);
	int n = 0;

	if (!pc)
		return;
	data = (const unsigned char *)pc + sysconf(_SC_PAGESIZE);
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	for (tail = pc->data_tail; tail < head; tail += h.size) {
		/* records are 8-byte aligned: a header never wraps */
		memcpy(&h, data + (tail & (size - 1)), sizeof(h));
		if (h.size < sizeof(h))
			break;
		n += h.type == PERF_RECORD_SAMPLE;
	}
	__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
	samples += n;
	raw.left[i] = n < raw.left[i] ? raw.left[i] - n : 0;
}

/* Does a SIGNO wait for this thread? */
static int signo_waits(void)
{
	sigset_t set;

	return sigpending(&set) != 0 || sigismember(&set, SIGNO) == 1;
}

/*
 * SIGNO names its event's descriptor, and takes one from its budget,
 * renewed when half is used or at once on POLL_HUP (the kernel stopped
 * the event at 0).  SIGIO is the kernel's fallback when it cannot queue
 * SIGNO (the user's RLIMIT_SIGPENDING reached, by any of its processes):
 * it names none, so every ring is taken and every budget renewed.  When
 * no SIGNO waits, a budget renewed is what the samples say the kernel has
 * left (as the engine's).
 */
static void raw_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno, i;

	(void)uc;
	for (i = 0; i < raw.nev; i++) {
		if (sig == SIGNO && raw.fd[i] != si->si_fd)
			continue;
		take_ring(i);
		if (sig == SIGNO)
			raw.budget[i] -= raw.budget[i] > 0;
		if (!raw.running || (sig == SIGNO && si->si_code != POLL_HUP &&
				     raw.budget[i] > LOPE_OVERFLOW_BUDGET / 2))
			continue;
		if (raw.budget[i] > raw.left[i] && !signo_waits())
			raw.budget[i] = raw.left[i];
		(void)top_up(i);
	}
	errno = saved;
}

/* The floor's sampled spin on a group of @ev[0..k). */
static void floor_sampling(const struct ev_def *const *ev, int k,
			   struct meter *m, long n)
{
	long long v[MAX_EVENTS];
	struct target t = { .name = "raw", .api = &raw_api, .v = v, .nev = k };
	struct sigaction sa = { .sa_sigaction = raw_handler,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	char why[300];

	if (!can_sample(m, t.name, k))
		return;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGNO);
	sigaddset(&sa.sa_mask, SIGIO);
	if (sigaction(SIGNO, &sa, NULL) || sigaction(SIGIO, &sa, NULL)) {
		emit("err raw sample %d sigaction: %s", k, strerror(errno));
		return;
	}
	if (raw_open(ev, k, RAW_SAMPLING, why, sizeof(why))) {
		emit("err raw sample %d sampling %s", k, why);
		return;
	}
	run_cases(&t, m, n, k, 0, sample_calls);
	raw_close();
}

/* Why this machine cannot read hardware counters, if it cannot. */
static void hw_probe(char *why, size_t len)
{
	static const struct ev_def ins = { "hardware instructions",
					   PERF_TYPE_HARDWARE,
					   PERF_COUNT_HW_INSTRUCTIONS };
	const struct ev_def *ev = &ins;

	why[0] = 0; /* raw_open() sets it on failure only */
	if (raw_open(&ev, 1, RAW_TIMED, why, len) == 0)
		raw_close();
	else if (errno == ENOENT || errno == EOPNOTSUPP)
		snprintf(why + strlen(why), len - strlen(why),
			 " (no hardware PMU)");
}

int floor_worker(const struct wargs *a)
{
	const struct ev_def *ev[MAX_EVENTS];
	struct meter *m = meter_for(a->meter);
	char hw_why[300];
	int i, k;

	if (!m)
		return EX_SKIP;
	for (i = 0; i < a->nev; i++) {
		ev[i] = ev_find(a->names[i]);
		if (!ev[i]) {
			for (k = 1; k <= a->nev; k++) {
				cases_err("raw", k,
					  "no perf_event attributes "
					  "known for the event");
				emit("na user read %d no perf_event attributes "
				     "known for %s",
				     k, a->names[i]);
			}
			return EX_OK;
		}
	}
	hw_probe(hw_why, sizeof(hw_why));
	run_null(m, a->n);
	for (k = 1; k <= a->nev; k++) {
		floor_set(ev, k, m, a->n, hw_why);
		floor_sampling(ev, k, m, a->n);
	}
	return EX_OK;
}
