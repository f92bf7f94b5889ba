/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_overflow: PAPI_overflow, PAPI_profil and PAPI_sprofil on kernel
 * sampling of software events (no hardware PMU needed).
 *
 * perf::TASK-CLOCK and perf::CPU-CLOCK count nanoseconds, so a threshold
 * of 1 ms calls the handler about once per millisecond the thread runs:
 * how often exactly is derived from the same run (samples.h): at most
 * once per ms of the thread's own task-clock read around the start and
 * the stop (span.h), plus one; in the domain PAPI_DOM_ALL at least once
 * per ms of the thread's CPU time, less one a run and 20 us a context
 * switch (the host's stolen time is in task-clock, not in CPU time, and
 * the expiries in it are lost); in the user domain, where the kernel
 * drops the expiries that come while the thread is in the kernel and
 * our library hands them out from later samples, once per ms of the
 * event's own count, less the latest and one a run.  Covered: the
 * component says it has hardware interrupts on SIGRTMIN+2 and the
 * handler is installed for that signal while counting; the rate on both
 * clocks; the handler runs on the measuring thread only, also with two
 * measuring threads; two overflowing events in one set, 1 ms and 2 ms in
 * the user domain, each called once per period of its count, and
 * PAPI_get_overflow_event_index; PAPI_read inside the handler; a blocked
 * signal queues one signal, not one per period; many short start/stop
 * runs keep the rate; overflow turned off and on again on a stopped set;
 * PAPI_OVERFLOW_FORCE_SW; PAPI_profil and PAPI_sprofil put their samples
 * on the busy function; bad inputs; no descriptor or mapping left after
 * cleanup and destroy.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>

#include "papi_util.h"
#include "samples.h"
#include "span.h"
#include "sw_counter.h"

#define THRESHOLD 1000000 /* 1 ms of CPU time */
#define BUSY (400 * MS)

static const char *const task_clock = "perf::TASK-CLOCK";
static const char *const cpu_clock = "perf::CPU-CLOCK";
static const char *const page_faults = "perf::PAGE-FAULTS";

/* What the handler saw; per thread, since every thread has its own. */
struct seen {
	int set;
	long calls;
	long wrong_set, wrong_tid, no_address;
	long by_index[4];    /* calls per event index the vector names */
	long bad_index;      /* PAPI_get_overflow_event_index failed */
	int read_in_handler; /* call PAPI_read and check it */
	long read_errors, not_monotonic;
	long long last[4];
	pid_t tid;
};

static __thread struct seen seen;
static volatile long stray_calls; /* on a thread that measures nothing */

static void check_read(int set)
{
	long long v[4];
	int i;

	if (PAPI_read(set, v) != PAPI_OK) {
		seen.read_errors++;
		return;
	}
	for (i = 0; i < 2; i++) {
		if (v[i] < seen.last[i])
			seen.not_monotonic++;
		seen.last[i] = v[i];
	}
}

static void handler(int set, void *address, long long vector, void *ctx)
{
	int idx[4], n = 4, i;

	(void)ctx;
	if (!seen.tid) {
		stray_calls++;
		return;
	}
	seen.calls++;
	if (set != seen.set)
		seen.wrong_set++;
	if ((pid_t)syscall(SYS_gettid) != seen.tid)
		seen.wrong_tid++;
	if (!address)
		seen.no_address++;
	if (PAPI_get_overflow_event_index(set, vector, idx, &n) != PAPI_OK ||
	    n < 1)
		seen.bad_index++;
	else
		for (i = 0; i < n; i++)
			seen.by_index[idx[i] & 3]++;
	if (seen.read_in_handler)
		check_read(set);
}

static void seen_reset(int set)
{
	memset(&seen, 0, sizeof(seen));
	seen.set = set;
	seen.tid = (pid_t)syscall(SYS_gettid);
}

/* A set of @names with overflow on event @ovf at @threshold. */
static int overflow_set(int *set, const char *const *names, int n, int ovf,
			int threshold)
{
	int rc = make_named_set(set, names, n);

	if (rc == PAPI_OK)
		rc = PAPI_overflow(*set, code_of(names[ovf]), threshold, 0,
				   handler);
	seen_reset(*set);
	return rc;
}

/* Is our overflow signal handled (not SIG_DFL/SIG_IGN, with siginfo)? */
static int signal_installed(void)
{
	struct sigaction sa;

	if (sigaction(SIGRTMIN + 2, NULL, &sa) != 0)
		return 0;
	return (sa.sa_flags & SA_SIGINFO) && sa.sa_handler != SIG_DFL &&
	       sa.sa_handler != SIG_IGN;
}

/* This thread's own task-clock (span.h), opened by each thread. */
static __thread struct span own = { .fd = -1 };

/* What runs of a set measured, summed (samples.h). */
struct runs {
	int n;
	long long hi;  /* span_hi() of the thread's task-clock */
	long long cpu; /* the thread's CPU time from the start to the stop */
	long long switches; /* its context switches meanwhile */
	int marks; /* marks of the task-clock (or switch counts) that failed */
	int installed; /* runs with the overflow signal's handler installed */
	long long count[4]; /* the set's values, PAPI_stop's, summed */
};

/* Run @set while @work(@arg) runs, measured into @m. */
static int run(int set, void (*work)(long long), long long arg, struct runs *m)
{
	struct span s = own;
	long long v[4], t, sw;
	int rc, i;

	m->marks += span_mark(&s) != 0;
	rc = PAPI_start(set);
	m->marks += span_mark(&s) != 0;
	m->installed += signal_installed();
	sw = samples_switches();
	t = thread_ns();
	if (rc == PAPI_OK)
		work(arg);
	t = thread_ns() - t;
	sw = sw < 0 ? -1 : samples_switches() - sw;
	m->marks += span_mark(&s) != 0;
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	m->marks += span_mark(&s) != 0;
	m->marks += sw < 0;
	for (i = 0; rc == PAPI_OK && i < PAPI_num_events(set) && i < 4; i++)
		m->count[i] += v[i];
	m->n++;
	m->hi += span_hi(&s);
	m->cpu += t;
	m->switches += sw;
	return rc;
}

/* Run @set for @ns of this thread's CPU time, measured into @m. */
static int run_busy(int set, long long ns, struct runs *m)
{
	return run(set, busy_ns, ns, m);
}

/* calls_ok()'s @ev for a set of the domain PAPI_DOM_ALL. */
#define DOM_ALL (-1)

/*
 * The least: samples_least() for a set of the domain PAPI_DOM_ALL, else
 * samples_of_count() of the count of event @ev, the sampling one.
 */
static long long least(const struct runs *m, long long p, int ev)
{
	return ev == DOM_ALL ? samples_least(m->cpu, m->switches, p, m->n) :
			       samples_of_count(m->count[ev], p, m->n);
}

/* @calls of period @p over the runs @m: least() to samples_most(). */
static int calls_ok(long calls, const struct runs *m, long long p, int ev)
{
	return !m->marks && calls >= least(m, p, ev) &&
	       calls <= samples_most(m->hi, p, m->n);
}

/* Why calls_ok() says what it says, for messages; two at a time. */
static const char *calls_why(long calls, const struct runs *m, long long p,
			     int ev)
{
	static char bufs[2][240];
	static int k;
	char *buf = bufs[k++ & 1];

	snprintf(
		buf, sizeof(bufs[0]),
		"%ld calls, want %lld to %lld (task-clock at most %lld ns, CPU %lld ns, %lld switches, %d runs, %d marks failed)",
		calls, least(m, p, ev), samples_most(m->hi, p, m->n), m->hi,
		m->cpu, m->switches, m->n, m->marks);
	return buf;
}

/*
 * Set @set to the domain PAPI_DOM_ALL, where samples_least() holds, as the
 * case @name when that fails: 1, or 0 with the case skipped (no
 * permission) or failed.
 */
static int domain_all(int set, const char *name)
{
	int rc = set_domain(set, PAPI_DOM_ALL);

	if (rc == PAPI_OK)
		return 1;
	if (rc == PAPI_EPERM)
		lope_skip(name,
			  "PAPI_DOM_ALL refused (%s): perf_event_paranoid",
			  papi_err(rc));
	else
		lope_fail(name, "PAPI_DOM_ALL: %s", papi_err(rc));
	return 0;
}

static void test_cmpinfo(void)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);

	if (!lope_check(ci != NULL, "cmpinfo", "no component 0"))
		return;
	lope_check(ci->hardware_intr == 1 && ci->kernel_profile == 1,
		   "cmpinfo_hardware_intr_and_kernel_profile",
		   "hardware_intr %d kernel_profile %d", ci->hardware_intr,
		   ci->kernel_profile);
	lope_check(ci->hardware_intr_sig == SIGRTMIN + 2,
		   "cmpinfo_hardware_intr_sig_is_sigrtmin_2", "got %d, want %d",
		   ci->hardware_intr_sig, SIGRTMIN + 2);
}

/* A thread spinning with every signal open, to catch misrouted ones. */
static volatile int spin_stop;

static void *spinner(void *arg)
{
	(void)arg;
	while (!spin_stop)
		busy_ns(MS);
	return NULL;
}

/*
 * The rate in the domain PAPI_DOM_ALL, where nothing but stolen time
 * loses an expiry, so both of samples.h's bounds hold.
 */
static void test_rate(const char *event)
{
	const char *const names[] = { event };
	char name[96];
	pthread_t other;
	struct runs m = { 0 };
	long stray = stray_calls;
	int set, rc;

	lope_name(name, sizeof(name), "rate: %s setup", event);
	rc = overflow_set(&set, names, 1, 0, THRESHOLD);
	if (!lope_check(rc == PAPI_OK, name, "%s", papi_err(rc)))
		goto out;
	lope_name(name, sizeof(name), "rate: %s at 1 ms", event);
	if (!domain_all(set, name))
		goto out;
	spin_stop = 0;
	if (pthread_create(&other, NULL, spinner, NULL) != 0)
		lope_info("no spinner thread");
	rc = run_busy(set, BUSY, &m);
	spin_stop = 1;
	(void)pthread_join(other, NULL);
	lope_info("%s: %s", event, calls_why(seen.calls, &m, MS, DOM_ALL));
	lope_check(rc == PAPI_OK && calls_ok(seen.calls, &m, MS, DOM_ALL), name,
		   "rc %s, %s", papi_err(rc),
		   calls_why(seen.calls, &m, MS, DOM_ALL));
	lope_name(name, sizeof(name),
		  "rate: %s handler on the measuring thread", event);
	stray = stray_calls - stray;
	lope_check(
		seen.calls && !seen.wrong_tid && !seen.wrong_set &&
			!seen.no_address && !stray &&
			seen.by_index[0] == seen.calls,
		name,
		"wrong tid %ld, wrong set %ld, on the other thread %ld, no address %ld, index 0 %ld of %ld",
		seen.wrong_tid, seen.wrong_set, stray, seen.no_address,
		seen.by_index[0], seen.calls);
	lope_name(name, sizeof(name),
		  "rate: %s: SIGRTMIN+2 handled while running", event);
	lope_check(m.installed == m.n, name,
		   "sigaction(SIGRTMIN+2) shows no handler");
out:
	drop_set(&set);
}

static void test_two_events(void)
{
	const char *const names[] = { page_faults, task_clock, cpu_clock };
	struct runs m = { 0 };
	int set, rc;

	/* 2 ms, a whole ratio, in the user domain: the clocks expire
	 * together, and the kernel drops the sample of the one that fires
	 * while it delivers the other's signal (30 to 90 % of them here);
	 * our library hands them out all the same (src/lope.h). */
	rc = overflow_set(&set, names, 3, 1, THRESHOLD);
	if (rc == PAPI_OK)
		rc = PAPI_overflow(set, code_of(cpu_clock), THRESHOLD * 2, 0,
				   handler);
	if (!lope_check(rc == PAPI_OK, "two_events_setup", "%s", papi_err(rc)))
		goto out;
	rc = run_busy(set, BUSY, &m);
	lope_info(
		"two events: index 1 %ld, index 2 %ld, index 0 %ld, %lld ns of CPU",
		seen.by_index[1], seen.by_index[2], seen.by_index[0], m.cpu);
	lope_check(rc == PAPI_OK && !seen.bad_index && !seen.by_index[0] &&
			   seen.by_index[1] + seen.by_index[2] == seen.calls,
		   "two_events_the_vector_names_only_the_overflowing_events",
		   "rc %s, bad %ld, index 0 %ld, calls %ld", papi_err(rc),
		   seen.bad_index, seen.by_index[0], seen.calls);
	lope_check(calls_ok(seen.by_index[1], &m, MS, 1) &&
			   calls_ok(seen.by_index[2], &m, 2 * MS, 2),
		   "two_events_each_at_its_own_threshold_1_ms_2_ms",
		   "1 ms: %s; 2 ms: %s", calls_why(seen.by_index[1], &m, MS, 1),
		   calls_why(seen.by_index[2], &m, 2 * MS, 2));
out:
	drop_set(&set);
}

/*
 * The handler's last task-clock is held against a task-clock of this
 * thread opened directly around the run, not against the thread's CPU
 * clock: in a KVM guest the kernel leaves the time the host stole out of
 * a thread's CPU time (paravirt steal accounting) but not out of
 * task-clock, which ran 1.015 ms ahead over 200 ms once here.
 */
static void test_read_in_handler(void)
{
	const char *const names[] = { task_clock, page_faults };
	struct runs m = { 0 };
	long long c0, sep = -1;
	int set, rc, fd = sw_counter_open(PERF_COUNT_SW_TASK_CLOCK, 1);

	rc = overflow_set(&set, names, 2, 0, THRESHOLD);
	seen.read_in_handler = 1;
	if (!lope_check(rc == PAPI_OK, "read_in_handler_setup", "%s",
			papi_err(rc)))
		goto out;
	c0 = sw_counter_read(fd);
	rc = run_busy(set, 200 * MS, &m);
	if (fd >= 0 && c0 >= 0)
		sep = sw_counter_read(fd) - c0;
	lope_check(rc == PAPI_OK && seen.calls > 0 && !seen.read_errors &&
			   !seen.not_monotonic,
		   "read_in_handler_papi_ok_monotonic_values",
		   "rc %s, %ld calls, %ld errors, %ld not monotonic",
		   papi_err(rc), seen.calls, seen.read_errors,
		   seen.not_monotonic);
	lope_check(seen.last[0] > 0 && seen.last[0] <= sep,
		   "read_in_handler_task_clock_within_the_run",
		   "last %lld ns; separately %lld ns over the run, %lld ns of "
		   "CPU time",
		   seen.last[0], sep, m.cpu);
out:
	drop_set(&set);
	if (fd >= 0)
		close(fd);
}

/*
 * With the signal blocked, at most the engine's budget of 64 overflows
 * (and signals) waits, not one per millisecond: the kernel's queue cannot
 * fill up (and fall back to a deadly SIGIO).  At the budget's end the
 * kernel stops the event, so its count stands still for the rest of the
 * 150 ms of CPU time, and the handler is called once for each period the
 * count passed: the engine hands out overflows by the samples' counts,
 * and a late timer (the clocks' hrtimer is forwarded from when it fired)
 * makes 64 samples span a period or two more under load.  After the
 * handler ran them all, the event overflows again.
 */
static void test_blocked(void)
{
	const char *const names[] = { task_clock };
	sigset_t block, pending;
	struct span s = own;
	long long v[1], counted;
	long before, calls;
	int set, rc, waiting, marks;

	rc = overflow_set(&set, names, 1, 0, THRESHOLD);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	if (!lope_check(rc == PAPI_OK, "blocked_setup", "%s", papi_err(rc)))
		goto out;
	sigemptyset(&block);
	sigaddset(&block, SIGRTMIN + 2);
	pthread_sigmask(SIG_BLOCK, &block, NULL);
	before = seen.calls;
	busy_ns(150 * MS);
	sigpending(&pending);
	waiting = sigismember(&pending, SIGRTMIN + 2);
	pthread_sigmask(SIG_UNBLOCK, &block, NULL);
	calls = seen.calls - before;
	/* since the start: to the budget's end, then the handler's time */
	rc = PAPI_read(set, v);
	counted = rc == PAPI_OK ? v[0] : -1;
	lope_check(waiting && calls >= 1 && counted >= 0 &&
			   calls <= counted / THRESHOLD + 1 &&
			   counted < 150 * MS,
		   "blocked_sigrtmin_2_stops_at_its_budget_one_call_a_period",
		   "pending %d, %ld calls; the event counted %lld ns of the "
		   "150 ms (%s): one call a period counted, and stopped "
		   "by its budget",
		   waiting, calls, counted, papi_err(rc));
	/* User domain: at least one, at most samples_most() of the span
	 * from here to the stop (both marks before it here). */
	marks = span_mark(&s) + span_mark(&s);
	before = seen.calls;
	busy_ns(100 * MS);
	marks += span_mark(&s);
	rc = PAPI_stop(set, v);
	marks += span_mark(&s);
	lope_check(rc == PAPI_OK && !marks && seen.calls - before >= 1 &&
			   seen.calls - before <=
				   samples_most(span_hi(&s), MS, 1),
		   "blocked_re_armed_after_the_handler",
		   "rc %s, %ld calls, at most %lld ns of task-clock, marks %d",
		   papi_err(rc), seen.calls - before, span_hi(&s), marks);
out:
	drop_set(&set);
}

/* 40 runs of 10 ms: each start must arm what the last stop left. */
static void test_short_runs(void)
{
	const char *const names[] = { task_clock, page_faults };
	const char *const name =
		"short_runs_40_start_stop_of_10_ms_keep_the_rate";
	struct runs m = { 0 };
	long long quiet;
	long after_stop;
	int set, rc, i;

	rc = overflow_set(&set, names, 2, 0, THRESHOLD);
	if (rc == PAPI_OK && !domain_all(set, name)) {
		drop_set(&set);
		return;
	}
	for (i = 0; rc == PAPI_OK && i < 40; i++)
		rc = run_busy(set, 10 * MS, &m);
	after_stop = seen.calls;
	quiet = spin_ns(50 * MS);
	lope_check(rc == PAPI_OK && calls_ok(seen.calls, &m, MS, DOM_ALL), name,
		   "rc %s, %s", papi_err(rc),
		   calls_why(seen.calls, &m, MS, DOM_ALL));
	lope_check(seen.calls == after_stop,
		   "short_runs_no_overflow_while_stopped",
		   "%ld calls in %lld ms stopped", seen.calls - after_stop,
		   quiet / MS);
	drop_set(&set);
}

static void test_off_on(void)
{
	const char *const names[] = { task_clock, page_faults };
	struct runs m = { 0 };
	struct span s = own;
	long long v[2] = { 0, 0 };
	long before;
	int set, rc, state = 0, marks;

	rc = overflow_set(&set, names, 2, 0, THRESHOLD);
	if (rc == PAPI_OK)
		rc = run_busy(set, 50 * MS, &m);
	if (rc == PAPI_OK)
		rc = PAPI_overflow(set, code_of(task_clock), 0, 0, NULL);
	if (rc == PAPI_OK)
		rc = PAPI_state(set, &state);
	lope_check(rc == PAPI_OK && !(state & PAPI_OVERFLOWING),
		   "off_on_threshold_0_on_a_stopped_set", "rc %s, state %#x",
		   papi_err(rc), state);
	before = seen.calls;
	marks = span_mark(&s);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	marks += span_mark(&s);
	busy_ns(100 * MS);
	marks += span_mark(&s);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	marks += span_mark(&s);
	lope_check(
		rc == PAPI_OK && seen.calls == before && !marks &&
			span_holds(&s, v[0]),
		"off_on_off_counts_without_overflowing",
		"rc %s, %ld calls, task-clock %lld ns, the thread's %lld to %lld ns",
		papi_err(rc), seen.calls - before, v[0], span_lo(&s),
		span_hi(&s));
	if (rc == PAPI_OK)
		rc = PAPI_overflow(set, code_of(task_clock), THRESHOLD, 0,
				   handler);
	before = seen.calls;
	memset(&m, 0, sizeof(m));
	if (rc == PAPI_OK)
		rc = run_busy(set, 100 * MS, &m);
	lope_check(rc == PAPI_OK && calls_ok(seen.calls - before, &m, MS, 0),
		   "off_on_on_again_overflows", "rc %s, %s (user domain)",
		   papi_err(rc), calls_why(seen.calls - before, &m, MS, 0));
	drop_set(&set);
}

static void test_force_sw(void)
{
	const char *const names[] = { task_clock };
	struct runs m = { 0 };
	int set, rc;

	rc = make_named_set(&set, names, 1);
	seen_reset(set);
	if (rc == PAPI_OK)
		rc = PAPI_overflow(set, code_of(task_clock), THRESHOLD,
				   PAPI_OVERFLOW_FORCE_SW, handler);
	if (rc == PAPI_OK)
		rc = run_busy(set, 300 * MS, &m);
	lope_info("force sw: %ld calls", seen.calls);
	lope_check(rc == PAPI_OK && seen.calls >= 5 && !seen.bad_index &&
			   seen.by_index[0] == seen.calls,
		   "papi_overflow_force_sw_the_frameworks_timer_overflows",
		   "rc %s, %ld calls, bad index %ld", papi_err(rc), seen.calls,
		   seen.bad_index);
	drop_set(&set);
}

static long iters_per_ms;

static void calibrate(void)
{
	long long t0 = thread_ns(), dt;

	(void)profiled_loop(1000000);
	dt = thread_ns() - t0;
	iters_per_ms = dt > 0 ? (long)(1000000LL * MS / dt) : 100000;
}

#define PROF_BYTES 4096 /* code covered by a histogram, from the loop on */

/* Sum of the 16-bit buckets in [lo, hi). */
static unsigned long sum16(const unsigned short *b, size_t lo, size_t hi)
{
	unsigned long s = 0;

	while (lo < hi)
		s += b[lo++];
	return s;
}

static void loop_ms(long long ms)
{
	(void)profiled_loop(ms * iters_per_ms);
}

/*
 * When @rc is PAPI_OK: start @set, run profiled_loop for about @ms of
 * CPU time, stop; measured into @m.  The PAPI result, or @rc.
 */
static int run_profiled(int set, int rc, long ms, struct runs *m)
{
	return rc == PAPI_OK ? run(set, loop_ms, ms, m) : rc;
}

/* PAPI_profil with @flags: samples on profiled_loop, most in its body. */
static void test_profil(int flags, const char *name)
{
	const char *const names[] = { task_clock };
	static unsigned short buf[PROF_BYTES / 2];
	struct runs m = { 0 };
	unsigned long all, body;
	int set, rc;

	memset(buf, 0, sizeof(buf));
	rc = make_named_set(&set, names, 1);
	if (rc == PAPI_OK)
		rc = PAPI_profil(buf, sizeof(buf), (vptr_t)profiled_loop, 65536,
				 set, code_of(task_clock), THRESHOLD, flags);
	rc = run_profiled(set, rc, 300, &m);
	/* Scale 65536: one 16-bit bucket per 2 bytes of code. */
	all = sum16(buf, 0, PROF_BYTES / 2);
	body = sum16(buf, 0, 256 / 2);
	lope_info(
		"%s: %lu samples in range, %lu in the first 256 bytes, %lld ns of CPU",
		name, all, body, m.cpu);
	/* User domain: at least one sample, at most samples_most(); the
	 * addresses say more: nine in ten on the loop's body. */
	lope_check(rc == PAPI_OK && calls_ok((long)all, &m, MS, 0) &&
			   body * 10 >= all * 9,
		   name, "rc %s, %lu in the loop; %s", papi_err(rc), body,
		   calls_why((long)all, &m, MS, 0));
	if (rc == PAPI_OK)
		(void)PAPI_profil(buf, sizeof(buf), (vptr_t)profiled_loop,
				  65536, set, code_of(task_clock), 0, flags);
	drop_set(&set);
}

static void test_sprofil(void)
{
	const char *const names[] = { task_clock };
	static unsigned int loop_buf[PROF_BYTES / 2];
	static unsigned int other_buf[PROF_BYTES / 2];
	PAPI_sprofil_t prof[2] = {
		{ loop_buf, sizeof(loop_buf), (vptr_t)profiled_loop, 65536 },
		{ other_buf, sizeof(other_buf), (vptr_t)busy_ns, 65536 },
	};
	struct runs m = { 0 };
	unsigned long loop = 0, other = 0;
	int set, rc, i;

	memset(loop_buf, 0, sizeof(loop_buf));
	memset(other_buf, 0, sizeof(other_buf));
	rc = make_named_set(&set, names, 1);
	if (rc == PAPI_OK)
		rc = PAPI_sprofil(prof, 2, set, code_of(task_clock), THRESHOLD,
				  PAPI_PROFIL_POSIX | PAPI_PROFIL_BUCKET_32);
	rc = run_profiled(set, rc, 200, &m);
	for (i = 0; i < PROF_BYTES / 2; i++) {
		loop += loop_buf[i];
		other += other_buf[i];
	}
	lope_check(rc == PAPI_OK && calls_ok((long)(loop + other), &m, MS, 0) &&
			   loop * 10 >= (loop + other) * 9,
		   "papi_sprofil_two_regions_samples_in_the_busy_one",
		   "rc %s, loop %lu, other %lu; %s", papi_err(rc), loop, other,
		   calls_why((long)(loop + other), &m, MS, 0));
	drop_set(&set);
}

static void test_bad_input(void)
{
	const char *const names[] = { task_clock };
	int set, rc, rc2, rc3;

	rc = make_named_set(&set, names, 1);
	if (!lope_check(rc == PAPI_OK, "bad_input_setup", "%s", papi_err(rc)))
		goto out;
	rc = PAPI_overflow(set, code_of(task_clock), -1, 0, handler);
	lope_check(rc == PAPI_EINVAL, "bad_input_negative_threshold", "got %s",
		   papi_err(rc));
	rc = PAPI_overflow(set, code_of(page_faults), THRESHOLD, 0, handler);
	lope_check(rc < PAPI_OK, "bad_input_event_not_in_the_set", "got %s",
		   papi_err(rc));
	rc = PAPI_overflow(set, code_of(task_clock), 0, 0, handler);
	lope_check(rc < PAPI_OK, "bad_input_threshold_0_without_overflow",
		   "got %s", papi_err(rc));
	rc = PAPI_overflow(set, code_of(task_clock), THRESHOLD, 0, handler);
	rc2 = PAPI_start(set);
	rc3 = PAPI_overflow(set, code_of(task_clock), 0, 0, handler);
	lope_check(rc == PAPI_OK && rc2 == PAPI_OK && rc3 == PAPI_EISRUN,
		   "bad_input_overflow_on_a_running_set",
		   "set %s, start %s, got %s", papi_err(rc), papi_err(rc2),
		   papi_err(rc3));
out:
	drop_set(&set);
}

/* Two threads, each its own set: each handler sees its own thread only. */
struct thread_out {
	int rc, ok;
	long misrouted;
	char why[200];
};

static void *thread_main(void *arg)
{
	const char *const names[] = { task_clock };
	struct thread_out *out = arg;
	struct runs m = { 0 };
	int set, rc;

	if (span_open(&own, PERF_COUNT_SW_TASK_CLOCK, 0, 0))
		m.marks++;
	rc = overflow_set(&set, names, 1, 0, THRESHOLD);
	if (rc == PAPI_OK)
		rc = run_busy(set, 200 * MS, &m);
	out->rc = rc;
	out->ok = calls_ok(seen.calls, &m, MS, 0);
	snprintf(out->why, sizeof(out->why), "%s",
		 calls_why(seen.calls, &m, MS, 0));
	out->misrouted = seen.wrong_tid + seen.wrong_set;
	drop_set(&set);
	span_close(&own);
	(void)PAPI_unregister_thread();
	return NULL;
}

/* User domain, each thread's calls against its own task-clock. */
static void test_threads(void)
{
	pthread_t t[2];
	struct thread_out out[2];
	int i, ok = 1;

	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, thread_main, &out[i]) != 0)
			return (void)lope_fail("threads", "pthread_create");
	for (i = 0; i < 2; i++) {
		(void)pthread_join(t[i], NULL);
		ok &= out[i].rc == PAPI_OK && out[i].ok && !out[i].misrouted;
	}
	lope_check(ok, "threads_two_measuring_threads_each_its_own_signals",
		   "rc %s/%s, %s / %s, misrouted %ld/%ld", papi_err(out[0].rc),
		   papi_err(out[1].rc), out[0].why, out[1].why,
		   out[0].misrouted, out[1].misrouted);
}

int main(void)
{
	int fds, maps;

	papi_init_or_exit();
	thread_init_or_exit("thread_init", pthread_self);
	calibrate();
	if (!lope_check(!span_open(&own, PERF_COUNT_SW_TASK_CLOCK, 0, 0),
			"this_threads_task_clock", "perf_event_open: %s",
			strerror(errno)))
		return lope_done();
	fds = fd_count();
	maps = perf_maps_count();
	test_cmpinfo();
	test_rate(task_clock);
	test_rate(cpu_clock);
	test_two_events();
	test_read_in_handler();
	test_blocked();
	test_short_runs();
	test_off_on();
	test_force_sw();
	test_profil(PAPI_PROFIL_POSIX, "papi_profil_samples_on_the_busy_loop");
	test_profil(PAPI_PROFIL_POSIX | PAPI_PROFIL_FORCE_SW,
		    "papi_profil_force_sw_through_papis_overflow_dispatch");
	test_sprofil();
	test_bad_input();
	test_threads();
	lope_check(fd_count() == fds && perf_maps_count() == maps,
		   "no_descriptor_or_perf_mapping_left",
		   "descriptors %d -> %d, perf maps %d -> %d", fds, fd_count(),
		   maps, perf_maps_count());
	PAPI_shutdown();
	return lope_done();
}
