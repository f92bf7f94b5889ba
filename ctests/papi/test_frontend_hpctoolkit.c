/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_frontend_hpctoolkit: PAPI used the way HPCToolkit's hpcrun uses it
 * (its PAPI sample source): sampling by overflow, not counting.
 *
 * - PAPI_library_init, PAPI_thread_init(pthread_self); the overflow signal
 *   is the component's hardware_intr_sig (SIGRTMIN+2), which hpcrun's
 *   libmonitor intercepts: while the threads sample, this test puts its
 *   own handler in front of PAPI's on that signal, as libmonitor does, and
 *   checks every signal there (signal number, si_code POLL_IN/POLL_HUP,
 *   si_fd a perf_event descriptor) before passing it on; a SIGIO handler
 *   catches any fallback of the kernel's real-time queue.
 * - Four threads, each with its own event set of four software events,
 *   three of them overflowing (perf::TASK-CLOCK every 1 ms,
 *   perf::CPU-CLOCK every 2 ms, perf::PAGE-FAULTS every 64 faults) and one
 *   only counted (perf::CONTEXT-SWITCHES), started before the work.
 * - Event names are resolved once, in the main thread, before the threads
 *   exist (hpcrun does so when it parses its event list): PAPI 7 grows its
 *   native event table without a lock, and a PAPI_add_event racing another
 *   thread's first PAPI_event_name_to_code can fail with PAPI_ENOEVNT
 *   (stock PAPI the same).
 * - The handler does what hpcrun's does: PAPI_get_overflow_event_index
 *   for the vector, one sample per index (never the counted-only event),
 *   and PAPI_read of the set inside the handler (hpcrun reads counters
 *   there for its derived metrics): PAPI_OK and values that never go down.
 * - hpcrun's metric is samples x threshold: per event, the periods the
 *   event itself counted, less the latest and the stop's (samples.h), and
 *   no more than those plus one.  For the two clocks too, whose
 *   user-domain samples the kernel drops when their timer fires in the
 *   kernel (page faults, the delivery of the other events' signals,
 *   PAPI_read in the handler): our library hands those out from later
 *   samples (src/lope.h).  The set's task-clock lies within the
 *   thread's own task-clock read around its start and its stop (span.h).
 *   The signals arrive on the thread that owns the set, none after
 *   PAPI_stop; stop, cleanup, destroy and PAPI_unregister_thread leave
 *   no descriptor and no perf mapping.
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

#define NTHREADS 4
#define NEV 4
#define NOVF 3 /* events 0..2 overflow, 3 is counted only */

static const char *const names[NEV] = {
	"perf::TASK-CLOCK",
	"perf::CPU-CLOCK",
	"perf::PAGE-FAULTS",
	"perf::CONTEXT-SWITCHES",
};
/*
 * 2 ms, a whole ratio: the two clocks expire together, and the later
 * timer then fires while the kernel delivers the earlier one's signal; in
 * the default user domain (exclude_kernel) the kernel drops that sample,
 * every time.  Measured with raw perf_event_open(2), no PAPI: task-clock
 * at 1 ms with cpu-clock at 2 ms loses 3 to 75 % of the cpu-clock
 * samples; with exclude_kernel=0 none (doc/sampling.md).
 */
static const int thresholds[NOVF] = { 1000000, 2000000, 64 };
static int codes[NEV]; /* resolved once, before the threads (as hpcrun) */

struct thread_seen {
	int set;
	pid_t tid;
	int phase; /* 1 while doing the measured work, 2 after PAPI_stop */
	long samples[NEV];
	long calls, calls_after_stop, bad_index, counted_index, wrong_set;
	long wrong_tid, no_pc, read_errors, went_down;
	long long last[NEV];
	long long final[NEV];
	int rc;             /* first failing PAPI call's code */
	const char *failed; /* and its name */
	struct span span;   /* the thread's task-clock around start and stop */
	int marks;          /* marks of it that failed */
};

static struct thread_seen seen[NTHREADS];
static __thread struct thread_seen *me;
static pthread_barrier_t barrier;

static void handler(int set, void *pc, long long vector, void *ctx)
{
	struct thread_seen *s = me;
	int idx[NEV], n = NEV, i, down;
	long long v[NEV];

	(void)ctx;
	if (!s)
		return;
	s->calls++;
	if (s->phase == 2)
		s->calls_after_stop++;
	if (set != s->set)
		s->wrong_set++;
	if ((pid_t)syscall(SYS_gettid) != s->tid)
		s->wrong_tid++;
	if (!pc)
		s->no_pc++;
	if (PAPI_get_overflow_event_index(set, vector, idx, &n) != PAPI_OK ||
	    n < 1) {
		s->bad_index++;
	} else {
		for (i = 0; i < n; i++) {
			if (idx[i] < 0 || idx[i] >= NEV)
				s->bad_index++;
			else if (idx[i] >= NOVF)
				s->counted_index++;
			else
				s->samples[idx[i]]++;
		}
	}
	down = read_went_down(set, v, s->last, NEV);
	if (down < 0)
		s->read_errors++;
	else
		s->went_down += down;
}

/* libmonitor's place: in front of PAPI's handler while the threads run. */
static struct sigaction papi_sa;
static volatile long front_calls, front_bad_sig, front_bad_code;
static volatile long front_bad_fd, sigio_calls;

static void front(int sig, siginfo_t *info, void *ctx)
{
	char path[64], link[64];
	ssize_t n;

	front_calls++;
	if (sig != SIGRTMIN + 2)
		front_bad_sig++;
	if (info->si_code != POLL_IN && info->si_code != POLL_HUP)
		front_bad_code++;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", info->si_fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0 || (link[n] = 0, !strstr(link, "perf_event")))
		front_bad_fd++;
	papi_sa.sa_sigaction(sig, info, ctx);
}

static void on_sigio(int sig)
{
	(void)sig;
	sigio_calls++;
}

static void fail_at(struct thread_seen *s, const char *what, int rc)
{
	if (!s->failed) {
		s->failed = what;
		s->rc = rc;
	}
}

static void *thread_main(void *arg)
{
	struct thread_seen *s = arg;
	const char *call;
	int i, rc;

	me = s;
	s->tid = (pid_t)syscall(SYS_gettid);
	if (span_open(&s->span, PERF_COUNT_SW_TASK_CLOCK, 0, 0))
		fail_at(s, "perf_event_open of the thread's task-clock",
			PAPI_ESYS);
	rc = register_with_set(&s->set, codes, NEV, &call);
	if (rc != PAPI_OK)
		fail_at(s, call, rc);
	for (i = 0; i < NOVF; i++) {
		rc = PAPI_overflow(s->set, codes[i], thresholds[i], 0, handler);
		if (rc != PAPI_OK)
			fail_at(s, "PAPI_overflow", rc);
	}
	s->marks += span_mark(&s->span) != 0;
	rc = PAPI_start(s->set);
	s->marks += span_mark(&s->span) != 0;
	if (rc != PAPI_OK)
		fail_at(s, "PAPI_start", rc);
	pthread_barrier_wait(&barrier); /* main puts its handler in front */
	pthread_barrier_wait(&barrier);
	s->phase = 1;
	for (i = 0; i < 20; i++) {
		busy_ns(10 * MS);
		if (touch_pages(160) != 0)
			fail_at(s, "touch_pages", PAPI_ENOMEM);
	}
	pthread_barrier_wait(&barrier); /* main restores PAPI's handler */
	pthread_barrier_wait(&barrier);
	s->marks += span_mark(&s->span) != 0;
	rc = PAPI_stop(s->set, s->final);
	s->marks += span_mark(&s->span) != 0;
	span_close(&s->span);
	if (rc != PAPI_OK)
		fail_at(s, "PAPI_stop", rc);
	s->phase = 2;
	busy_ns(20 * MS);
	rc = PAPI_cleanup_eventset(s->set);
	if (rc == PAPI_OK)
		rc = PAPI_destroy_eventset(&s->set);
	if (rc != PAPI_OK)
		fail_at(s, "cleanup + destroy", rc);
	rc = PAPI_unregister_thread();
	if (rc != PAPI_OK)
		fail_at(s, "PAPI_unregister_thread", rc);
	me = NULL;
	return NULL;
}

static void report(void)
{
	char name[96];
	int t, e;

	for (t = 0; t < NTHREADS; t++) {
		struct thread_seen *s = &seen[t];

		lope_name(name, sizeof(name), "thread %d: every PAPI call ok",
			  t);
		lope_check(!s->failed, name, "%s: %s", s->failed,
			   papi_err(s->rc));
		lope_info(
			"thread %d: %ld calls; samples %ld/%ld/%ld; counts %lld ns, %lld ns, %lld faults, %lld switches",
			t, s->calls, s->samples[0], s->samples[1],
			s->samples[2], s->final[0], s->final[1], s->final[2],
			s->final[3]);
		lope_name(name, sizeof(name),
			  "thread %d: handler on its own thread and set", t);
		lope_check(s->calls > 0 && !s->wrong_tid && !s->wrong_set &&
				   !s->no_pc,
			   name,
			   "%ld calls, wrong tid %ld, wrong set %ld, no pc %ld",
			   s->calls, s->wrong_tid, s->wrong_set, s->no_pc);
		lope_name(
			name, sizeof(name),
			"thread %d: overflow index names overflowing events only",
			t);
		lope_check(!s->bad_index && !s->counted_index, name,
			   "bad %ld, the counted-only event %ld", s->bad_index,
			   s->counted_index);
		lope_name(name, sizeof(name),
			  "thread %d: PAPI_read in the handler: ok, never down",
			  t);
		lope_check(!s->read_errors && !s->went_down, name,
			   "%ld errors, %ld went down", s->read_errors,
			   s->went_down);
		for (e = 0; e < NOVF; e++) {
			long long want = s->final[e] / thresholds[e];
			long long least =
				samples_of_count(s->final[e], thresholds[e], 1);

			lope_name(name, sizeof(name),
				  "thread %d: %s: samples x threshold = count",
				  t, names[e]);
			lope_check(
				want > 0 && s->samples[e] >= least &&
					s->samples[e] <=
						samples_most(s->final[e],
							     thresholds[e], 1),
				name,
				"%ld samples, count %lld / %d = %lld periods, want %lld to %lld",
				s->samples[e], s->final[e], thresholds[e], want,
				least,
				samples_most(s->final[e], thresholds[e], 1));
		}
		lope_name(name, sizeof(name),
			  "thread %d: task-clock counted the thread's work", t);
		lope_check(
			!s->marks && span_holds(&s->span, s->final[0]), name,
			"%lld ns counted, the thread's task-clock %lld to %lld ns, %d marks failed",
			s->final[0], span_lo(&s->span), span_hi(&s->span),
			s->marks);
		lope_name(name, sizeof(name),
			  "thread %d: no overflow after PAPI_stop", t);
		lope_check(!s->calls_after_stop, name, "%ld calls",
			   s->calls_after_stop);
	}
}

int main(void)
{
	const PAPI_component_info_t *ci;
	struct sigaction sa, sio, old_sio;
	pthread_t th[NTHREADS];
	int fds, maps, rc, code, cidx, t, installed;

	papi_init_or_exit();
	thread_init_or_exit("thread_init", pthread_self);
	fds = fd_count();
	maps = perf_maps_count();

	/* hpcrun: the component of the event, and its signal. */
	for (t = 0, rc = PAPI_OK; rc == PAPI_OK && t < NEV; t++)
		rc = PAPI_event_name_to_code(names[t], &codes[t]);
	if (!lope_check(rc == PAPI_OK, "event_names_resolve", "%s: %s",
			names[t - 1], papi_err(rc)))
		return lope_done();
	code = codes[0];
	cidx = PAPI_get_event_component(code);
	ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
	if (!lope_check(ci != NULL, "component_info_of_perf_task_clock",
			"component %d", cidx))
		return lope_done();
	lope_check(ci->hardware_intr && ci->hardware_intr_sig == SIGRTMIN + 2,
		   "hardware_intr_on_sigrtmin_2", "hardware_intr %d, sig %d",
		   ci->hardware_intr, ci->hardware_intr_sig);

	memset(&sio, 0, sizeof(sio));
	sio.sa_handler = on_sigio;
	sigaction(SIGIO, &sio, &old_sio);
	pthread_barrier_init(&barrier, NULL, NTHREADS + 1);
	start_threads_or_exit("threads", th, NTHREADS, thread_main, seen,
			      sizeof(seen[0]));

	pthread_barrier_wait(&barrier); /* every set started */
	installed = sigaction(ci->hardware_intr_sig, NULL, &papi_sa) == 0 &&
		    (papi_sa.sa_flags & SA_SIGINFO) &&
		    papi_sa.sa_sigaction != NULL;
	lope_check(installed, "papis_handler_is_on_hardware_intr_sig",
		   "sigaction shows no SA_SIGINFO handler");
	if (installed) {
		sa = papi_sa;
		sa.sa_sigaction = front;
		sigaction(ci->hardware_intr_sig, &sa, NULL);
	}
	pthread_barrier_wait(&barrier); /* work */
	pthread_barrier_wait(&barrier); /* work done */
	if (installed) {
		sigaction(ci->hardware_intr_sig, &papi_sa, NULL);
	}
	pthread_barrier_wait(&barrier); /* stop */
	for (t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	sigaction(SIGIO, &old_sio, NULL);

	lope_info("%ld signals through the front handler", front_calls);
	lope_check(
		installed && front_calls > 0 && !front_bad_sig &&
			!front_bad_code && !front_bad_fd,
		"every_signal_sigrtmin_2_poll_in_poll_hup_si_fd_a_perf_event",
		"%ld signals, wrong signal %ld, wrong si_code %ld, si_fd not perf %ld",
		front_calls, front_bad_sig, front_bad_code, front_bad_fd);
	lope_check(!sigio_calls, "no_sigio_fallback", "%ld SIGIO", sigio_calls);
	report();
	pthread_barrier_destroy(&barrier);
	lope_check(fd_count() == fds && perf_maps_count() == maps,
		   "no_descriptor_or_perf_mapping_left",
		   "%d descriptors (%d before), %d perf mappings (%d before)",
		   fd_count(), fds, perf_maps_count(), maps);
	return lope_done();
}
