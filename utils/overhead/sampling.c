/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a sample costs.  A spin of SPIN_ITERS iterations is measured on a
 * started set as any call is: bare ("loop"), and with every event of the
 * set overflowing every SAMPLE_PERIOD ("sample"), each call's samples its
 * extra count.  A sample then costs the sampled spin's mean less the
 * empty target's spin (no set at all), over its mean samples: the
 * interrupt, the kernel's sample and signal, and the handler's path, user
 * and kernel where the meter counts both.
 *
 * SAMPLE_PERIOD is a count of events (about 3 samples of instructions a
 * spin); the software clocks, which count nanoseconds, overflow every
 * CLOCK_PERIOD, a few times a spin at some GHz.
 *
 * Through PAPI (target "papi": PAPI_overflow with a handler that counts
 * its calls), and bare, the floor (target "raw"): the same events opened
 * with sample_period, one group, each with a ring buffer, its signal
 * routed to the thread (F_SETSIG, F_SETOWN_EX, O_ASYNC) and no limit on
 * the overflows, and a handler that only takes the ring's records (its
 * samples are counted there: one signal can stand for several; on
 * SIGIO, the kernel's fallback, every ring's).
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

#include "papi.h"

#include "overhead.h"

#define SPIN_ITERS 100000L
#define SIGNO (SIGRTMIN + 2)
#define RING_PAGES 1 /* data pages of a raw ring: the handler keeps up */

static volatile sig_atomic_t samples;

static const char *const loop_calls[] = { "loop", NULL };
static const char *const sample_calls[] = { "sample", NULL };

uint64_t sampling_count(void)
{
	return (uint64_t)samples;
}

/* Arithmetic the compiler must keep: about 3 instructions an iteration. */
static __attribute__((noinline)) void spin(long n)
{
	volatile long acc = 0;

	while (n-- > 0)
		acc += n;
}

/* The period of event @ev: SAMPLE_PERIOD, the clocks CLOCK_PERIOD. */
static int period_of(const struct ev_def *ev)
{
	return ev && ev->type == PERF_TYPE_SOFTWARE &&
			       (ev->config == PERF_COUNT_SW_TASK_CLOCK ||
				ev->config == PERF_COUNT_SW_CPU_CLOCK) ?
		       CLOCK_PERIOD :
		       SAMPLE_PERIOD;
}

int st_spin(struct target *t, const struct case_def *c)
{
	(void)t;
	(void)c;
	spin(SPIN_ITERS);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Through PAPI                                                        */
/* ------------------------------------------------------------------ */

static void papi_handler(int set, void *address, long long vector, void *ctx)
{
	(void)set;
	(void)address;
	(void)vector;
	(void)ctx;
	samples++;
}

/* Overflow on every event of @t's stopped set (@on 0: off). */
static int papi_overflow_all(struct target *t, int on, char *why, size_t len)
{
	int i, code, period = 0, rc = PAPI_OK;

	for (i = 0; i < t->nev && rc == PAPI_OK; i++) {
		if (on)
			period = period_of(ev_find(t->names[i]));
		rc = PAPI_event_name_to_code(t->names[i], &code);
		if (rc == PAPI_OK)
			rc = PAPI_overflow(t->set, code, period, 0,
					   papi_handler);
		if (rc != PAPI_OK)
			snprintf(why, len, "PAPI_overflow(%s, %d): %s",
				 t->names[i], period, PAPI_strerror(rc));
	}
	return rc;
}

/* Can @m count a sample?  1, or 0 after the "na" lines of @target. */
static int can_sample(const struct meter *m, const char *target, int nev)
{
	if (!m->no_sampling)
		return 1;
	emit("na %s loop %d %s", target, nev, m->no_sampling);
	emit("na %s sample %d %s", target, nev, m->no_sampling);
	return 0;
}

/*
 * PAPI_overflow takes at most the component's num_cntrs events of a set
 * (papi.c: PAPI_ECNFLCT beyond).  1 if @t's set is within that, else 0
 * after its "na" lines.
 */
static int within_overflow_limit(const struct target *t)
{
	const PAPI_component_info_t *ci;
	int code;

	if (PAPI_event_name_to_code(t->names[0], &code) != PAPI_OK)
		return 1; /* PAPI_overflow says why */
	ci = PAPI_get_component_info(PAPI_get_event_component(code));
	if (!ci || t->nev <= ci->num_cntrs)
		return 1;
	emit("na %s loop %d PAPI_overflow takes at most %d events of a set "
	     "(num_cntrs of %s)",
	     t->name, t->nev, ci->num_cntrs, ci->name);
	emit("na %s sample %d PAPI_overflow takes at most %d events of a set "
	     "(num_cntrs of %s)",
	     t->name, t->nev, ci->num_cntrs, ci->name);
	return 0;
}

int sampling_papi(struct target *t, struct meter *m, long n, run_cases_fn run)
{
	char why[300];
	int rc;

	if (!can_sample(m, t->name, t->nev) || !within_overflow_limit(t))
		return 0;
	rc = run(t, m, n, t->nev, 0, loop_calls);

	if (t->running && t->api->stop(t->set, t->v) == PAPI_OK)
		t->running = 0;
	if (t->running ||
	    papi_overflow_all(t, 1, why, sizeof(why)) != PAPI_OK) {
		emit("err %s sample %d %s", t->name, t->nev,
		     t->running ? "PAPI_stop failed" : why);
		return -1;
	}
	rc |= run(t, m, n, t->nev, 0, sample_calls);
	if (t->running && t->api->stop(t->set, t->v) == PAPI_OK)
		t->running = 0;
	if (papi_overflow_all(t, 0, why, sizeof(why)) != PAPI_OK) {
		emit("err %s sample %d %s", t->name, t->nev, why);
		rc = -1;
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* The floor: bare perf_event sampling                                 */
/* ------------------------------------------------------------------ */

static struct {
	int nev;
	int fd[MAX_EVENTS];
	void *ring[MAX_EVENTS];
	size_t len;
} rs;

/* Take every record of the ring of the event on @fd; count its samples. */
static void take_ring(int fd)
{
	struct perf_event_mmap_page *pc = NULL;
	const unsigned char *data;
	struct perf_event_header h;
	uint64_t head, tail,
		size = RING_PAGES * (uint64_t)sysconf(_SC_PAGESIZE);
	int i;

	for (i = 0; i < rs.nev && !pc; i++)
		if (rs.fd[i] == fd)
			pc = rs.ring[i];
	if (!pc)
		return;
	data = (const unsigned char *)pc + sysconf(_SC_PAGESIZE);
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	for (tail = pc->data_tail; tail < head; tail += h.size) {
		/* records are 8-byte aligned: a header never wraps */
		memcpy(&h, data + (tail & (size - 1)), sizeof(h));
		if (h.size < sizeof(h))
			break;
		samples += h.type == PERF_RECORD_SAMPLE;
	}
	__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
}

/*
 * SIGNO names its event's descriptor.  SIGIO is the kernel's fallback
 * when it cannot queue SIGNO (the user's RLIMIT_SIGPENDING reached, by
 * any of its processes): it names none, so every ring is taken.
 */
static void raw_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno, i;

	(void)uc;
	if (sig == SIGNO)
		take_ring(si->si_fd);
	else
		for (i = 0; i < rs.nev; i++)
			take_ring(rs.fd[i]);
	errno = saved;
}

static int rs_start(int set)
{
	(void)set;
	return ioctl(rs.fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

static int rs_stop(int set, long long *v)
{
	(void)set;
	(void)v;
	return ioctl(rs.fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

static const struct api rs_api = { .start = rs_start, .stop = rs_stop };

/* Close the group; a signal late for it finds no ring. */
static void rs_close(void)
{
	sigset_t both, old;
	int i;

	sigemptyset(&both);
	sigaddset(&both, SIGNO);
	sigaddset(&both, SIGIO);
	sigprocmask(SIG_BLOCK, &both, &old);
	for (i = 0; i < rs.nev; i++) {
		if (rs.ring[i])
			munmap(rs.ring[i], rs.len);
		if (rs.fd[i] >= 0)
			close(rs.fd[i]);
	}
	memset(&rs, 0, sizeof(rs));
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Event @i of the group, sampling, its ring mapped, its signal routed. */
static int rs_open_one(int i, const struct ev_def *ev)
{
	struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
	struct perf_event_attr a;
	void *p;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = ev->type;
	a.config = ev->config;
	a.sample_period = (uint64_t)period_of(ev);
	a.sample_type = PERF_SAMPLE_IP;
	a.wakeup_events = 1;
	a.disabled = i == 0;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	rs.fd[i] = perf_open(&a, i ? rs.fd[0] : -1);
	if (rs.fd[i] < 0)
		return -1;
	p = mmap(NULL, rs.len, PROT_READ | PROT_WRITE, MAP_SHARED, rs.fd[i], 0);
	if (p == MAP_FAILED)
		return -1;
	rs.ring[i] = p;
	if (fcntl(rs.fd[i], F_SETSIG, SIGNO) < 0 ||
	    fcntl(rs.fd[i], F_SETOWN_EX, &owner) < 0 ||
	    fcntl(rs.fd[i], F_SETFL, O_ASYNC) < 0)
		return -1;
	return 0;
}

/* The floor's sampled spin on a group of @ev[0..k). */
int sampling_raw(const struct ev_def *const *ev, int k, struct meter *m, long n,
		 run_cases_fn run)
{
	long long v[MAX_EVENTS];
	struct target t = { .name = "raw", .api = &rs_api, .v = v, .nev = k };
	struct sigaction sa;
	char why[300];
	int i, rc;

	if (!can_sample(m, t.name, k))
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = raw_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGNO);
	sigaddset(&sa.sa_mask, SIGIO);
	if (sigaction(SIGNO, &sa, NULL) || sigaction(SIGIO, &sa, NULL)) {
		emit("err raw sample %d sigaction: %s", k, strerror(errno));
		return -1;
	}
	memset(&rs, 0, sizeof(rs));
	rs.len = (1 + RING_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
	for (i = 0; i < MAX_EVENTS; i++)
		rs.fd[i] = -1;
	rs.nev = k;
	for (i = 0; i < k; i++)
		if (rs_open_one(i, ev[i])) {
			snprintf(why, sizeof(why), "%s: %s", ev[i]->name,
				 strerror(errno));
			emit("err raw sample %d sampling %s", k, why);
			rs_close();
			return -1;
		}
	rc = run(&t, m, n, k, 0, sample_calls);
	if (t.running)
		(void)rs_stop(0, v);
	rs_close();
	return rc;
}
