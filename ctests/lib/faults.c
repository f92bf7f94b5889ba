/* SPDX-License-Identifier: BSD-3-Clause */
/* Kernel failures injected under the PAPI API: the harness (faults.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "faults.h"

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>

#include "samples.h"
#include "witness.h"

#define PROF_BYTES 4096 /* code a histogram covers, from the loop on */

/* ---------------------------------------------------------- injection */

static struct {
	volatile pid_t tid; /* armed for this thread; 0: disarmed */
	enum lope_call call;
	unsigned long what; /* only this ioctl request / fcntl command */
	int nth, times, err;
	volatile int seen;   /* matching calls since armed */
	volatile int failed; /* of which failed */
} inj;

/* The fault hook: the row's errno for the calls it fails, else 0. */
static int fault(enum lope_call c, int fd, unsigned long what)
{
	int saved = errno, n;

	if (!inj.tid || inj.call != c || gettid() != inj.tid)
		return 0;
	if (inj.what && what != inj.what)
		return 0;
	if (c != LOPE_CALL_PERF_OPEN && !is_perf_fd(fd)) {
		errno = saved;
		return 0;
	}
	errno = saved;
	n = ++inj.seen;
	if (n < inj.nth || n >= inj.nth + inj.times)
		return 0;
	inj.failed++;
	return inj.err;
}

const char *const fault_ev[NEV] = { "perf::TASK-CLOCK", "perf::PAGE-FAULTS",
				    "perf::CPU-CLOCK" };
static int tc_code;

static char why[2000];

void fault_append(const char *fmt, ...)
{
	size_t n = strlen(why);
	va_list ap;

	if (n + 3 >= sizeof(why))
		return;
	if (n)
		n += (size_t)snprintf(why + n, sizeof(why) - n, "; ");
	va_start(ap, fmt);
	vsnprintf(why + n, sizeof(why) - n, fmt, ap);
	va_end(ap);
}

void fault_arm(const struct row *r)
{
	inj.call = r->call;
	inj.what = r->what;
	inj.nth = r->nth;
	inj.times = r->times;
	inj.err = r->err;
	inj.seen = 0;
	inj.failed = 0;
	__atomic_store_n(&inj.tid, gettid(), __ATOMIC_SEQ_CST);
}

void fault_disarm(void)
{
	__atomic_store_n(&inj.tid, 0, __ATOMIC_SEQ_CST);
}

static long iters_per_ms;

/* The fastest of a few runs: a cold first one would make spins short. */
static void calibrate(void)
{
	long long t0, dt, best = 0;
	int i;

	for (i = 0; i < 4; i++) {
		t0 = thread_ns();
		(void)profiled_loop(1000000);
		dt = thread_ns() - t0;
		if (dt > 0 && (best == 0 || dt < best))
			best = dt;
	}
	iters_per_ms = best > 0 ? (long)(1000000LL * MS / best) : 100000;
}

void fault_spin_ms(long ms)
{
	(void)profiled_loop(ms * iters_per_ms);
}

/* What every event of the sets here counts: CPU time and page faults. */
void fault_work(void)
{
	fault_spin_ms(2);
	(void)touch_pages(8);
}

struct fault_ovf fault_ovf;

static void handler(int set, void *address, long long vector, void *ctx)
{
	uintptr_t a = (uintptr_t)address, lo = (uintptr_t)profiled_loop;

	(void)set;
	(void)ctx;
	fault_ovf.calls++;
	if (!address)
		fault_ovf.no_address++;
	else if (a >= lo && a < lo + PROF_BYTES)
		fault_ovf.in_loop++;
	if (vector != 1) /* TASK-CLOCK is position 0 */
		fault_ovf.bad_vector++;
}

void fault_ovf_reset(void)
{
	fault_ovf.calls = fault_ovf.in_loop = fault_ovf.no_address =
		fault_ovf.bad_vector = 0;
}

/*
 * This thread's own kernel task-clock (span.h), opened once.  A row
 * copies it into spans that share its descriptor: two marks around the
 * call that starts what a value counts, then (in a copy of that, for
 * each value) two around the call that ends it.  A mark is never taken
 * while the fault is armed: it is a read() of a perf_event descriptor.
 */
struct span fault_own = { .fd = -1 };

void fault_mark(struct span *s)
{
	if (span_mark(s))
		fault_append("this thread's task-clock: %s", strerror(errno));
}

/*
 * Samples of a user-domain TASK-CLOCK at THRESHOLD over @s (a span around
 * the start and the stop): at most samples_most(); the kernel drops the
 * expiries that come while the thread is in the kernel and nothing here
 * bounds how many (samples.h), so at least one.
 */
int fault_samples_ok(long n, const struct span *s)
{
	return n >= 1 && n <= samples_most(span_hi(s), THRESHOLD, 1);
}

static int base_fds, base_perf, base_maps;

/* The test set holds exactly @n perf descriptors and no other. */
void fault_holds(int n, const char *when)
{
	int got = perf_fd_count() - base_perf;

	if (got != n)
		fault_append("%s: %d perf descriptors, want %d", when, got, n);
}

void fault_maps_are(int n, const char *when)
{
	int got = perf_maps_count() - base_maps;

	if (got != n)
		fault_append("%s: %d perf mappings, want %d", when, got, n);
}

/* Start, work, read, work, stop: every one of @n events counts and grows. */
int fault_counts(int set, int n, const char *what)
{
	long long a[NEV] = { 0 }, b[NEV] = { 0 };
	int rc1, rc2 = PAPI_OK, rc3 = PAPI_OK, i, ok = 1;

	rc1 = PAPI_start(set);
	if (rc1 == PAPI_OK) {
		fault_work();
		rc2 = PAPI_read(set, a);
		fault_work();
		rc3 = PAPI_stop(set, b);
	}
	if (rc1 != PAPI_OK || rc2 != PAPI_OK || rc3 != PAPI_OK) {
		fault_append("%s: start %s, read %s, stop %s", what,
			     papi_err(rc1), papi_err(rc2), papi_err(rc3));
		return 0;
	}
	for (i = 0; i < n; i++)
		if (a[i] <= 0 || b[i] <= a[i]) {
			fault_append("%s: %s counted %lld then %lld", what,
				     fault_ev[i], a[i], b[i]);
			ok = 0;
		}
	return ok;
}

int fault_state(int set)
{
	int st = 0;

	return PAPI_state(set, &st) == PAPI_OK ? st : 0;
}

static int ref = PAPI_NULL; /* this thread's reference set, stopped */

/*
 * This thread's task-clock just before the reference set's last stop.
 * The engine's stop samples the counters and then disables them; what
 * they add in between goes to the set's next interval, as a reset right
 * after a read continues where the read ended.  So that interval may
 * begin just before this stop: its spans start here.
 */
static struct span ref_stop = { .fd = -1 };

static int stop_ref(long long *v)
{
	ref_stop = fault_own;
	fault_mark(&ref_stop);
	return PAPI_stop(ref, v);
}

/* Make another set the last one this thread's context was set up for. */
void fault_use_ref(void)
{
	long long v[1];

	if (PAPI_start(ref) != PAPI_OK || stop_ref(v) != PAPI_OK)
		fault_append("setup: reference set does not start");
}

int fault_new_set(int n, int *set)
{
	int rc = make_named_set(set, fault_ev, n);

	if (rc != PAPI_OK)
		fault_append("setup: a set of %d events: %s", n, papi_err(rc));
	return rc;
}

/* ------------------------------------------------------------ sampling */

static unsigned short hist[PROF_BYTES / 2];
static PAPI_sprofil_t sprof = { hist, sizeof(hist), (vptr_t)profiled_loop,
				65536 };

static unsigned long hist_sum(size_t lo, size_t hi)
{
	unsigned long s = 0;

	while (lo < hi)
		s += hist[lo++];
	return s;
}

/*
 * Turn TASK-CLOCK's sampling of @op's kind on (@threshold) or off (0).
 * No row makes PAPI_profil fail: PAPI 7's core then frees the region
 * PAPI_sprofil left in the set, and the next PAPI_profil of that event
 * uses and frees it again (doc/reliability.md); PAPI_sprofil, whose
 * regions are the caller's, takes those rows.
 */
int fault_sampling(enum op op, int set, int threshold)
{
	switch (op) {
	case OP_PROFIL:
		return PAPI_profil(hist, sizeof(hist), (vptr_t)profiled_loop,
				   65536, set, tc_code, threshold,
				   PAPI_PROFIL_POSIX);
	case OP_SPROFIL:
		return PAPI_sprofil(&sprof, 1, set, tc_code, threshold,
				    PAPI_PROFIL_POSIX);
	default:
		return PAPI_overflow(set, tc_code, threshold, 0, handler);
	}
}

/*
 * 100 ms in the loop with @set sampling: about one handler call or
 * histogram sample per ms, on the loop.  Returns the samples.
 */
long fault_sample_run(enum op op, int set, const char *what)
{
	long long v[NEV];
	struct span s = fault_own;
	long n, in;
	int rc, rc2 = PAPI_OK;

	fault_ovf_reset();
	memset(hist, 0, sizeof(hist));
	fault_mark(&s);
	rc = PAPI_start(set);
	fault_mark(&s);
	if (rc == PAPI_OK) {
		fault_spin_ms(100);
		fault_mark(&s);
		rc2 = PAPI_stop(set, v);
		fault_mark(&s);
	}
	if (rc != PAPI_OK || rc2 != PAPI_OK) {
		fault_append("%s: start %s, stop %s", what, papi_err(rc),
			     papi_err(rc2));
		return 0;
	}
	if (op == OP_PROFIL || op == OP_SPROFIL) {
		n = (long)hist_sum(0, PROF_BYTES / 2);
		in = (long)hist_sum(0, 256 / 2);
	} else {
		n = fault_ovf.calls;
		in = fault_ovf.in_loop;
		if (fault_ovf.bad_vector || fault_ovf.no_address)
			fault_append(
				"%s: %ld calls with a wrong vector, %ld without address",
				what, fault_ovf.bad_vector,
				fault_ovf.no_address);
	}
	if (!fault_samples_ok(n, &s) || in * 10 < n * 8)
		fault_append(
			"%s: %ld samples (%ld on the loop) in %lld to %lld ns of task-clock",
			what, n, in, span_lo(&s), span_hi(&s));
	return n;
}

static struct witness wit = { .set = PAPI_NULL }; /* until witness_start() */

static unsigned int nrows, nfailed, nfaults, by_call[LOPE_NCALLS];

void fault_row(const struct row *r, fault_op_fn op)
{
	long long v[2] = { 0, 0 };
	struct span rd = fault_own, sp = fault_own, prev;
	int set = PAPI_NULL, got, n, i, rc, rc2, rc3;

	why[0] = 0;
	got = op(r, &set);
	fault_disarm();
	nrows++;
	nfaults += (unsigned int)inj.failed;
	by_call[r->call] += (unsigned int)inj.failed;
	if (got != r->expect)
		fault_append("returned %s, want %s", papi_err(got),
			     papi_err(r->expect));
	if (inj.failed != r->times)
		fault_append(
			"%s failed %d times (of %d matching calls), want %d",
			lope_call_name(r->call), inj.failed, inj.seen,
			r->times);
	/* A row that wants no fault wants no such call at all. */
	if (r->times == 0 && inj.seen != 0)
		fault_append("%d %s calls, want none", inj.seen,
			     lope_call_name(r->call));
	drop_set(&set);
	n = fd_count();
	if (n != base_fds)
		fault_append("%d descriptors, baseline %d", n, base_fds);
	n = perf_fd_count();
	if (n != base_perf)
		fault_append("%d perf descriptors, baseline %d", n, base_perf);
	n = perf_maps_count();
	if (n != base_maps)
		fault_append("%d perf mappings, baseline %d", n, base_maps);
	/* The witness runs meanwhile; on a busy 2-cpu machine its thread can
	 * wait longer than a row for a cpu, so give it up to 200 ms. */
	for (i = 0; i < 200; i++) {
		sleep_ns(MS);
		rc = PAPI_read(wit.set, v);
		if (rc != PAPI_OK || v[0] > wit.last)
			break;
	}
	if (rc != PAPI_OK || v[0] <= wit.last ||
	    !(fault_state(wit.set) & PAPI_RUNNING))
		fault_append("witness set: read %s, %lld after %lld, state %#x",
			     papi_err(rc), v[0], wit.last,
			     fault_state(wit.set));
	else
		wit.last = v[0];
	/* Its read within this thread's task-clock around its start and the
	 * read (rd), its stop around its start and the stop (sp). */
	prev = ref_stop;
	fault_mark(&rd);
	fault_mark(&sp);
	rc = PAPI_start(ref);
	fault_mark(&sp);
	fault_mark(&rd);
	fault_spin_ms(1);
	fault_mark(&rd);
	rc2 = PAPI_read(ref, v);
	fault_mark(&rd);
	fault_mark(&sp);
	rc3 = stop_ref(v + 1);
	fault_mark(&sp);
	if (prev.n == 1)
		rd.t[0] = sp.t[0] = prev.t[0];
	if (rc != PAPI_OK || rc2 != PAPI_OK || rc3 != PAPI_OK ||
	    !span_holds(&rd, v[0]) || !span_holds(&sp, v[1]))
		fault_append(
			"reference set: start %s read %s stop %s, %lld then %lld ns; task-clock %lld to %lld then %lld to %lld ns",
			papi_err(rc), papi_err(rc2), papi_err(rc3), v[0], v[1],
			span_lo(&rd), span_hi(&rd), span_lo(&sp), span_hi(&sp));
	if (why[0]) {
		nfailed++;
		lope_fail(r->name, "line %d: %s", r->line, why);
	} else {
		lope_pass(r->name);
	}
	/* A row that broke the baseline would fail every later row. */
	base_fds = fd_count();
	base_perf = perf_fd_count();
	base_maps = perf_maps_count();
}

int fault_main(const struct row *rows, size_t n, fault_op_fn op,
	       void (*first)(void))
{
	const char *const ref_names[] = { fault_ev[0] };
	int fds0, perf0, maps0, rc;
	size_t i;

	papi_init_or_exit();
	lope_interpose_fault(fault);
	calibrate();
	fds0 = fd_count();
	perf0 = perf_fd_count();
	maps0 = perf_maps_count();
	rc = PAPI_thread_init(pthread_self);
	if (rc == PAPI_OK)
		rc = PAPI_event_name_to_code(fault_ev[0], &tc_code);
	if (rc == PAPI_OK)
		rc = make_named_set(&ref, ref_names, 1);
	if (!lope_check(rc == PAPI_OK, "setup_codes_and_reference_set", "%s",
			papi_err(rc)))
		return lope_done();
	if (!lope_check(!span_open(&fault_own, PERF_COUNT_SW_TASK_CLOCK, 0, 0),
			"setup_this_threads_task_clock", "perf_event_open: %s",
			strerror(errno)))
		return lope_done();
	if (witness_start(&wit))
		return lope_done();
	base_fds = fd_count();
	base_perf = perf_fd_count();
	base_maps = perf_maps_count();
	lope_info("baseline: %d descriptors (%d perf), %d perf mappings",
		  base_fds, base_perf, base_maps);

	if (first)
		first();
	for (i = 0; i < n; i++)
		fault_row(&rows[i], op);

	lope_info(
		"%u rows, %u faults injected (perf_event_open %u, read %u, ioctl %u, mmap %u, fcntl %u), %u rows failed",
		nrows, nfaults, by_call[LOPE_CALL_PERF_OPEN],
		by_call[LOPE_CALL_READ], by_call[LOPE_CALL_IOCTL],
		by_call[LOPE_CALL_MMAP], by_call[LOPE_CALL_FCNTL], nfailed);
	witness_finish(&wit, "witness_set_counted_its_threads_whole_run");
	drop_set(&ref);
	span_close(&fault_own);
	lope_check(
		fd_count() == fds0 && perf_fd_count() == perf0 &&
			perf_maps_count() == maps0,
		"no_descriptor_or_perf_mapping_left_after_the_rows",
		"%d descriptors (%d before), %d perf (%d), %d perf mappings (%d)",
		fd_count(), fds0, perf_fd_count(), perf0, perf_maps_count(),
		maps0);
	return lope_done();
}
