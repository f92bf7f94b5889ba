/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_faults_papi: kernel failures injected under the full PAPI API.
 *
 * The engine's own fault test (ctests/engine/test_faults.c) swaps its
 * system-call table; this one goes through libpapi.so as a tool would.
 * The test library's interposer (ctests/lib/interpose.h) sees
 * libpapi's syscall(), read(), ioctl(), mmap() and fcntl(); its fault
 * hook here fails them when a row has armed it: then the nth call of the armed kind made by this thread on a
 * perf_event descriptor (for syscall(): number SYS_perf_event_open only;
 * every other system call passes) fails with the row's errno, @times
 * calls in a row.  The switch is armed around the one PAPI call under
 * test and nowhere else.
 *
 * Every row is {line, name, call, ioctl request or fcntl command (0: any),
 * nth, times, errno, PAPI operation, expected PAPI result}.  A row passes
 * only when
 *  - the fault was injected exactly @times times and the PAPI call
 *    returned the expected code (pe_errno_to_papi's mapping for
 *    errors the component passes on, PAPI_OK for what it absorbs);
 *  - the operation's own checks hold: after a failed add or option the
 *    set keeps what it had (its events, their descriptors and nothing
 *    more) and still starts, counts and stops, and the call succeeds
 *    once the fault is gone; after a read retried on EINTR the values
 *    are right (perf::TASK-CLOCK within this thread's own task-clock
 *    read around the start and around the read, span.h) and monotonic;
 *    after a failed read, accum, reset or stop nothing measured is lost
 *    (the next call covers the whole run, within the same span);
 *    a failed start leaves the set stopped and usable; without a ring
 *    buffer (mmap refused) overflow and profiling still work on the
 *    signal context's address (doc/design.md, "Overflow and profiling");
 *  - after the row's sets are destroyed: /proc/self/fd, the perf_event
 *    descriptors and the perf_event lines of /proc/self/maps are as
 *    before, a witness set running in another thread still runs and has
 *    kept counting (and at the end has counted that thread's whole CPU
 *    time), and a reference set of this thread still starts, counts and
 *    stops, its read and its stop within this thread's task-clock around
 *    them.
 * (The overflow signal's handler is not checked: PAPI 7 never uninstalls
 * it, its _papi_hwi_stop_signal calls sigaction(sig, NULL, NULL).)
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include "interpose.h"
#include "papi_util.h"
#include "samples.h"
#include "span.h"
#include "witness.h"

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

/* --------------------------------------------------------------- rows */

enum op {
	OP_ADD1,     /* PAPI_add_named_event of the 1st event (empty set) */
	OP_ADD2,     /* ... of the 2nd (the set holds TASK-CLOCK) */
	OP_ADD3,     /* ... of the 3rd (TASK-CLOCK, PAGE-FAULTS) */
	OP_DOMAIN,   /* PAPI_set_opt(PAPI_DOMAIN, user+kernel), 2 events */
	OP_MPX,      /* PAPI_set_multiplex, 2 events */
	OP_READ,     /* PAPI_read of a running 2-event group */
	OP_READ_MPX, /* PAPI_read of a multiplexed set: one read per event */
	OP_ACCUM,
	OP_RESET,
	OP_STOP,
	OP_START,       /* PAPI_start of a stopped set */
	OP_START_DIRTY, /* ... whose context another set used since */
	OP_OVF,         /* PAPI_overflow on TASK-CLOCK, 1 ms, 2-event set */
	OP_PROFIL,      /* PAPI_profil on TASK-CLOCK */
	OP_SPROFIL,     /* PAPI_sprofil on TASK-CLOCK */
	OP_OVF_ADD,     /* add PAGE-FAULTS to a set overflowing on TASK-CLOCK */
	OP_OVF_START,   /* PAPI_start of an overflowing set */
	OP_OVF_START_DIRTY, /* ... whose context another set used since */
	OP_OVF_STOP,        /* PAPI_stop of an overflowing set */
};

struct row {
	int line;
	const char *name;
	enum lope_call call;
	unsigned long what; /* ioctl request or fcntl command; 0: any */
	int nth, times, err;
	enum op op;
	int expect;
};

/*
 * perf_event_open: pe_errno_to_papi's mapping, at every position of a set
 * being built (the component reopens the whole group on every add; PAPI 7
 * re-establishes the old events on failure): each errno fails the open of
 * the 1st, the 2nd, then the 3rd event, one row each (run_open_row()).
 */
static const struct open_errno {
	int line;
	const char *name; /* the errno's name */
	int err;
	const char *papi; /* the expected result's name */
	int expect;
} open_errnos[] = {
	{ __LINE__, "EMFILE", EMFILE, "PAPI_ECOUNT", PAPI_ECOUNT },
	{ __LINE__, "EACCES", EACCES, "PAPI_EPERM", PAPI_EPERM },
	{ __LINE__, "EPERM", EPERM, "PAPI_EPERM", PAPI_EPERM },
	{ __LINE__, "ENOENT", ENOENT, "PAPI_ENOEVNT", PAPI_ENOEVNT },
	{ __LINE__, "EOPNOTSUPP", EOPNOTSUPP, "PAPI_ENOSUPP", PAPI_ENOSUPP },
	{ __LINE__, "ENODEV", ENODEV, "PAPI_ENOSUPP", PAPI_ENOSUPP },
	{ __LINE__, "EBUSY", EBUSY, "PAPI_ECNFLCT", PAPI_ECNFLCT },
	{ __LINE__, "EINVAL", EINVAL, "PAPI_EINVAL", PAPI_EINVAL },
};

/*
 * The position each open_errnos errno fails at, and the row's name, folded
 * by lope_name() with the errno's and the result's names.
 */
static const struct open_position {
	int nth;
	enum op op;
	const char *name; /* of errno, result */
} open_positions[] = {
	{ 1, OP_ADD1, "perf_event_open_%s_adding_the_1st_event_%s" },
	{ 2, OP_ADD2,
	  "perf_event_open_%s_on_the_2nd_events_open_%s_set_keeps_the_1st" },
	{ 3, OP_ADD3,
	  "perf_event_open_%s_on_the_3rd_events_open_%s_set_keeps_2" },
};

static const struct row rows[] = {
	/* perf_event_open: the errnos that are not in open_errnos, and the
	 * reopens of the events already in the set. */
	{ __LINE__, "perf_event_open_enfile_adding_the_1st_event_papi_ecount",
	  LOPE_CALL_PERF_OPEN, 0, 1, 1, ENFILE, OP_ADD1, PAPI_ECOUNT },
	{ __LINE__, "perf_event_open_enomem_adding_the_2nd_event_papi_enomem",
	  LOPE_CALL_PERF_OPEN, 0, 2, 1, ENOMEM, OP_ADD2, PAPI_ENOMEM },
	{ __LINE__,
	  "perf_event_open_e2big_any_other_errno_adding_the_2nd_papi_esys",
	  LOPE_CALL_PERF_OPEN, 0, 2, 1, E2BIG, OP_ADD2, PAPI_ESYS },
	{ __LINE__,
	  "perf_event_open_emfile_on_the_leaders_reopen_adding_the_2nd",
	  LOPE_CALL_PERF_OPEN, 0, 1, 1, EMFILE, OP_ADD2, PAPI_ECOUNT },
	{ __LINE__,
	  "perf_event_open_eacces_on_the_leaders_reopen_adding_the_3rd",
	  LOPE_CALL_PERF_OPEN, 0, 1, 1, EACCES, OP_ADD3, PAPI_EPERM },
	{ __LINE__,
	  "perf_event_open_ebusy_on_the_2nd_events_reopen_adding_the_3rd",
	  LOPE_CALL_PERF_OPEN, 0, 2, 1, EBUSY, OP_ADD3, PAPI_ECNFLCT },
	{ __LINE__,
	  "perf_event_open_eacces_on_papi_domain_user_kernel_old_domain_kept",
	  LOPE_CALL_PERF_OPEN, 0, 1, 1, EACCES, OP_DOMAIN, PAPI_EPERM },
	{ __LINE__,
	  "perf_event_open_emfile_on_papi_domains_2nd_open_old_domain_kept",
	  LOPE_CALL_PERF_OPEN, 0, 2, 1, EMFILE, OP_DOMAIN, PAPI_ECOUNT },
	{ __LINE__, "perf_event_open_emfile_on_papi_set_multiplexs_2nd_open",
	  LOPE_CALL_PERF_OPEN, 0, 2, 1, EMFILE, OP_MPX, PAPI_ECOUNT },
	{ __LINE__,
	  "perf_event_open_emfile_on_papi_overflows_reopen_no_overflow_set_kept",
	  LOPE_CALL_PERF_OPEN, 0, 2, 1, EMFILE, OP_OVF, PAPI_ECOUNT },

	/* read(2): EINTR is retried, anything else is PAPI_ESYS and the
	 * next call covers the whole run. */
	{ __LINE__, "read_eintr_once_on_papi_read_papi_ok_right_values",
	  LOPE_CALL_READ, 0, 1, 1, EINTR, OP_READ, PAPI_OK },
	{ __LINE__, "read_eintr_3_times_on_papi_read_papi_ok_right_values",
	  LOPE_CALL_READ, 0, 1, 3, EINTR, OP_READ, PAPI_OK },
	{ __LINE__, "read_eio_on_papi_read_papi_esys_next_read_works",
	  LOPE_CALL_READ, 0, 1, 1, EIO, OP_READ, PAPI_ESYS },
	{ __LINE__, "read_eintr_on_a_multiplexed_sets_2nd_event_read_papi_ok",
	  LOPE_CALL_READ, 0, 2, 1, EINTR, OP_READ_MPX, PAPI_OK },
	{ __LINE__, "read_eio_on_a_multiplexed_sets_2nd_event_read_papi_esys",
	  LOPE_CALL_READ, 0, 2, 1, EIO, OP_READ_MPX, PAPI_ESYS },
	{ __LINE__, "read_eintr_on_papi_accum_papi_ok", LOPE_CALL_READ, 0, 1, 1,
	  EINTR, OP_ACCUM, PAPI_OK },
	{ __LINE__, "read_eio_on_papi_accum_papi_esys_values_untouched",
	  LOPE_CALL_READ, 0, 1, 1, EIO, OP_ACCUM, PAPI_ESYS },
	{ __LINE__, "read_eintr_on_papi_reset_papi_ok_values_from_the_reset",
	  LOPE_CALL_READ, 0, 1, 1, EINTR, OP_RESET, PAPI_OK },
	{ __LINE__, "read_eio_on_papi_reset_papi_esys_old_bases_kept",
	  LOPE_CALL_READ, 0, 1, 1, EIO, OP_RESET, PAPI_ESYS },
	{ __LINE__, "read_eintr_on_papi_stop_papi_ok", LOPE_CALL_READ, 0, 1, 1,
	  EINTR, OP_STOP, PAPI_OK },
	{ __LINE__, "read_eio_on_papi_stop_papi_esys_still_running",
	  LOPE_CALL_READ, 0, 1, 1, EIO, OP_STOP, PAPI_ESYS },
	{ __LINE__,
	  "read_eio_on_papi_stop_of_an_overflowing_set_papi_esys_overflows_on",
	  LOPE_CALL_READ, 0, 1, 1, EIO, OP_OVF_STOP, PAPI_ESYS },

	/* ioctl(2) */
	{ __LINE__, "ioctl_enable_ebusy_on_papi_start_papi_ecnflct",
	  LOPE_CALL_IOCTL, PERF_EVENT_IOC_ENABLE, 1, 1, EBUSY, OP_START,
	  PAPI_ECNFLCT },
	{ __LINE__, "ioctl_enable_eio_on_papi_start_papi_esys", LOPE_CALL_IOCTL,
	  PERF_EVENT_IOC_ENABLE, 1, 1, EIO, OP_START, PAPI_ESYS },
	{ __LINE__, "ioctl_disable_eio_on_papi_stop_papi_esys_still_running",
	  LOPE_CALL_IOCTL, PERF_EVENT_IOC_DISABLE, 1, 1, EIO, OP_STOP,
	  PAPI_ESYS },
	{ __LINE__,
	  "ioctl_enable_ebusy_on_a_papi_start_after_another_set_papi_ecnflct",
	  LOPE_CALL_IOCTL, PERF_EVENT_IOC_ENABLE, 1, 1, EBUSY, OP_START_DIRTY,
	  PAPI_ECNFLCT },
	{ __LINE__, "ioctl_refresh_ebusy_on_papi_start_of_an_overflowing_set",
	  LOPE_CALL_IOCTL, PERF_EVENT_IOC_REFRESH, 1, 1, EBUSY, OP_OVF_START,
	  PAPI_ECNFLCT },
	{ __LINE__,
	  "ioctl_enable_eio_on_papi_start_of_an_overflowing_set_refreshed",
	  LOPE_CALL_IOCTL, PERF_EVENT_IOC_ENABLE, 1, 1, EIO, OP_OVF_START,
	  PAPI_ESYS },

	/* mmap(2) of the ring buffer (as when perf_event_mlock_kb is used
	 * up): overflow and profiling work on the context's address. */
	{ __LINE__, "mmap_eperm_on_papi_overflow_papi_ok_context_address",
	  LOPE_CALL_MMAP, 0, 1, 1, EPERM, OP_OVF, PAPI_OK },
	{ __LINE__, "mmap_enomem_on_papi_overflow_papi_ok_context_address",
	  LOPE_CALL_MMAP, 0, 1, 1, ENOMEM, OP_OVF, PAPI_OK },
	{ __LINE__, "mmap_eperm_on_papi_profil_papi_ok_histogram_filled",
	  LOPE_CALL_MMAP, 0, 1, 1, EPERM, OP_PROFIL, PAPI_OK },
	{ __LINE__, "mmap_eperm_on_papi_sprofil_papi_ok_histogram_filled",
	  LOPE_CALL_MMAP, 0, 1, 1, EPERM, OP_SPROFIL, PAPI_OK },
	{ __LINE__,
	  "mmap_eperm_adding_to_an_overflowing_set_papi_ok_still_overflows",
	  LOPE_CALL_MMAP, 0, 1, 1, EPERM, OP_OVF_ADD, PAPI_OK },
	/* PAPI hands a start after another set of the thread the set's own
	 * events again (its "dirty context"); the set keeps its group, so
	 * that start opens, maps and routes nothing: an armed fault is
	 * never reached (0 times). */
	{ __LINE__,
	  "mmap_armed_on_a_papi_start_after_another_set_none_made_papi_ok",
	  LOPE_CALL_MMAP, 0, 1, 0, EPERM, OP_OVF_START_DIRTY, PAPI_OK },

	/* fcntl(2): the overflow signal's routing. */
	{ __LINE__, "fcntl_f_setsig_einval_on_papi_overflow_papi_einval",
	  LOPE_CALL_FCNTL, F_SETSIG, 1, 1, EINVAL, OP_OVF, PAPI_EINVAL },
	{ __LINE__, "fcntl_f_setown_ex_eperm_on_papi_overflow_papi_eperm",
	  LOPE_CALL_FCNTL, F_SETOWN_EX, 1, 1, EPERM, OP_OVF, PAPI_EPERM },
	{ __LINE__, "fcntl_f_setown_ex_esrch_on_papi_overflow_papi_esys",
	  LOPE_CALL_FCNTL, F_SETOWN_EX, 1, 1, ESRCH, OP_OVF, PAPI_ESYS },
	{ __LINE__, "fcntl_f_setfl_o_async_ebadf_on_papi_overflow_papi_esys",
	  LOPE_CALL_FCNTL, F_SETFL, 1, 1, EBADF, OP_OVF, PAPI_ESYS },
	{ __LINE__, "fcntl_f_setsig_einval_on_papi_sprofil_papi_einval",
	  LOPE_CALL_FCNTL, F_SETSIG, 1, 1, EINVAL, OP_SPROFIL, PAPI_EINVAL },
};

/*
 * The rows of bugs these faults found, fixed (doc/reliability.md): the
 * component destroyed the set's group before it reopened it in
 * update_control_state and, when the reopen failed, kept nothing; the
 * engine's stop cleared the group's running flag before its ioctl and
 * left it cleared when the ioctl failed.
 */
static const struct row bug_rows[] = {
	{ __LINE__,
	  "perf_event_open_armed_on_a_papi_start_after_another_set_none_made",
	  LOPE_CALL_PERF_OPEN, 0, 1, 0, EMFILE, OP_START_DIRTY, PAPI_OK },
	{ __LINE__,
	  "perf_event_open_emfile_adding_to_an_overflowing_set_overflow_kept",
	  LOPE_CALL_PERF_OPEN, 0, 2, 1, EMFILE, OP_OVF_ADD, PAPI_ECOUNT },
	{ __LINE__,
	  "fcntl_f_setown_ex_esrch_adding_to_an_overflowing_set_overflow_kept",
	  LOPE_CALL_FCNTL, F_SETOWN_EX, 1, 1, ESRCH, OP_OVF_ADD, PAPI_ESYS },
	{ __LINE__,
	  "fcntl_armed_on_a_papi_start_after_another_set_none_made_papi_ok",
	  LOPE_CALL_FCNTL, 0, 1, 0, EBADF, OP_OVF_START_DIRTY, PAPI_OK },
	{ __LINE__,
	  "ioctl_disable_eio_on_papi_stop_of_an_overflowing_set_keeps_counting",
	  LOPE_CALL_IOCTL, PERF_EVENT_IOC_DISABLE, 1, 1, EIO, OP_OVF_STOP,
	  PAPI_ESYS },
};

/* ------------------------------------------------------------ helpers */

#define THRESHOLD 1000000 /* 1 ms of task-clock */
#define PROF_BYTES 4096   /* code a histogram covers, from the loop on */
#define NEV 3

static const char *const ev[NEV] = { "perf::TASK-CLOCK", "perf::PAGE-FAULTS",
				     "perf::CPU-CLOCK" };
static int tc_code;

static char why[2000];

static void append(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void append(const char *fmt, ...)
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

static void arm(const struct row *r)
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

static void disarm(void)
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

static void spin_ms(long ms)
{
	(void)profiled_loop(ms * iters_per_ms);
}

/* What every event of the sets here counts: CPU time and page faults. */
static void work(void)
{
	spin_ms(2);
	(void)touch_pages(8);
}

static struct {
	volatile long calls, in_loop, no_address, bad_vector;
} ovf;

static void handler(int set, void *address, long long vector, void *ctx)
{
	uintptr_t a = (uintptr_t)address, lo = (uintptr_t)profiled_loop;

	(void)set;
	(void)ctx;
	ovf.calls++;
	if (!address)
		ovf.no_address++;
	else if (a >= lo && a < lo + PROF_BYTES)
		ovf.in_loop++;
	if (vector != 1) /* TASK-CLOCK is position 0 */
		ovf.bad_vector++;
}

static void ovf_reset(void)
{
	ovf.calls = ovf.in_loop = ovf.no_address = ovf.bad_vector = 0;
}

/*
 * This thread's own kernel task-clock (span.h), opened once.  A row
 * copies it into spans that share its descriptor: two marks around the
 * call that starts what a value counts, then (in a copy of that, for
 * each value) two around the call that ends it.  A mark is never taken
 * while the fault is armed: it is a read() of a perf_event descriptor.
 */
static struct span own = { .fd = -1 };

static void mark(struct span *s)
{
	if (span_mark(s))
		append("this thread's task-clock: %s", strerror(errno));
}

/*
 * Samples of a user-domain TASK-CLOCK at THRESHOLD over @s (a span around
 * the start and the stop): at most samples_most(); the kernel drops the
 * expiries that come while the thread is in the kernel and nothing here
 * bounds how many (samples.h), so at least one.
 */
static int samples_ok(long n, const struct span *s)
{
	return n >= 1 && n <= samples_most(span_hi(s), THRESHOLD, 1);
}

static int base_fds, base_perf, base_maps;

/* The test set holds exactly @n perf descriptors and no other. */
static void holds(int n, const char *when)
{
	int got = perf_fd_count() - base_perf;

	if (got != n)
		append("%s: %d perf descriptors, want %d", when, got, n);
}

static void maps_are(int n, const char *when)
{
	int got = perf_maps_count() - base_maps;

	if (got != n)
		append("%s: %d perf mappings, want %d", when, got, n);
}

static int nevents(int set)
{
	return PAPI_num_events(set);
}

/* Start, work, read, work, stop: every one of @n events counts and grows. */
static int counts(int set, int n, const char *what)
{
	long long a[NEV] = { 0 }, b[NEV] = { 0 };
	int rc1, rc2 = PAPI_OK, rc3 = PAPI_OK, i, ok = 1;

	rc1 = PAPI_start(set);
	if (rc1 == PAPI_OK) {
		work();
		rc2 = PAPI_read(set, a);
		work();
		rc3 = PAPI_stop(set, b);
	}
	if (rc1 != PAPI_OK || rc2 != PAPI_OK || rc3 != PAPI_OK) {
		append("%s: start %s, read %s, stop %s", what, papi_err(rc1),
		       papi_err(rc2), papi_err(rc3));
		return 0;
	}
	for (i = 0; i < n; i++)
		if (a[i] <= 0 || b[i] <= a[i]) {
			append("%s: %s counted %lld then %lld", what, ev[i],
			       a[i], b[i]);
			ok = 0;
		}
	return ok;
}

static int state_of(int set)
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
	ref_stop = own;
	mark(&ref_stop);
	return PAPI_stop(ref, v);
}

/* Make another set the last one this thread's context was set up for. */
static void use_ref(void)
{
	long long v[1];

	if (PAPI_start(ref) != PAPI_OK || stop_ref(v) != PAPI_OK)
		append("setup: reference set does not start");
}

static int new_set(int n, int *set)
{
	int rc = make_named_set(set, ev, n);

	if (rc != PAPI_OK)
		append("setup: a set of %d events: %s", n, papi_err(rc));
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
static int sampling(enum op op, int set, int threshold)
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
static long sample_run(enum op op, int set, const char *what)
{
	long long v[NEV];
	struct span s = own;
	long n, in;
	int rc, rc2 = PAPI_OK;

	ovf_reset();
	memset(hist, 0, sizeof(hist));
	mark(&s);
	rc = PAPI_start(set);
	mark(&s);
	if (rc == PAPI_OK) {
		spin_ms(100);
		mark(&s);
		rc2 = PAPI_stop(set, v);
		mark(&s);
	}
	if (rc != PAPI_OK || rc2 != PAPI_OK) {
		append("%s: start %s, stop %s", what, papi_err(rc),
		       papi_err(rc2));
		return 0;
	}
	if (op == OP_PROFIL || op == OP_SPROFIL) {
		n = (long)hist_sum(0, PROF_BYTES / 2);
		in = (long)hist_sum(0, 256 / 2);
	} else {
		n = ovf.calls;
		in = ovf.in_loop;
		if (ovf.bad_vector || ovf.no_address)
			append("%s: %ld calls with a wrong vector, %ld without address",
			       what, ovf.bad_vector, ovf.no_address);
	}
	if (!samples_ok(n, &s) || in * 10 < n * 8)
		append("%s: %ld samples (%ld on the loop) in %lld to %lld ns of task-clock",
		       what, n, in, span_lo(&s), span_hi(&s));
	return n;
}

/* ----------------------------------------------------------------- ops */

static int op_add(const struct row *r, int *set, int k)
{
	int got, rc, n;

	if (new_set(k - 1, set) != PAPI_OK)
		return PAPI_EMISC;
	if (k == 1 && PAPI_assign_eventset_component(*set, 0) != PAPI_OK)
		append("setup: assign component 0");
	arm(r);
	got = PAPI_add_named_event(*set, ev[k - 1]);
	disarm();
	n = got == PAPI_OK ? k : k - 1;
	if (nevents(*set) != n)
		append("%d events in the set, want %d", nevents(*set), n);
	holds(n, "after the add");
	if (n > 0)
		(void)counts(*set, n,
			     got == PAPI_OK ? "after the add" :
					      "the events added before");
	if (got != PAPI_OK) {
		rc = PAPI_add_named_event(*set, ev[k - 1]);
		if (rc != PAPI_OK)
			append("the add without the fault: %s", papi_err(rc));
		else
			(void)counts(*set, k,
				     "after the add without the fault");
	}
	return got;
}

static int op_option(const struct row *r, int *set)
{
	int got, rc, mpx = r->op == OP_MPX;
	const int dom = PAPI_DOM_USER | PAPI_DOM_KERNEL;

	if (new_set(2, set) != PAPI_OK)
		return PAPI_EMISC;
	arm(r);
	got = mpx ? PAPI_set_multiplex(*set) : set_domain(*set, dom);
	disarm();
	if (mpx && (PAPI_get_multiplex(*set) > 0) != (got == PAPI_OK))
		append("PAPI_get_multiplex %d after %s",
		       PAPI_get_multiplex(*set), papi_err(got));
	if (!mpx && get_domain(*set) != (got == PAPI_OK ? dom : PAPI_DOM_USER))
		append("domain %#x after %s", get_domain(*set), papi_err(got));
	holds(2, "after the option");
	(void)counts(*set, 2, "after the option");
	if (got != PAPI_OK) {
		rc = mpx ? PAPI_set_multiplex(*set) : set_domain(*set, dom);
		if (rc != PAPI_OK)
			append("the option without the fault: %s",
			       papi_err(rc));
		else
			(void)counts(*set, 2,
				     "after the option without the fault");
	}
	return got;
}

/*
 * Reads, accum, reset and stop of a running 2-event set.  Each task-clock
 * value lies in a span of this thread's own task-clock: st is marked
 * around the start, rs around the call under test (the start of what a
 * successful reset leaves), and each value's span is a copy of one of
 * them marked again around the call that returned the value.
 */
static int op_running(const struct row *r, int *set)
{
	long long a[NEV] = { 0 }, b[NEV] = { 0 }, c[NEV] = { 0 },
		  d[NEV] = { 0 }, lost;
	struct span st = own, rs = own, bs, cs;
	int got = PAPI_EMISC, rc, i;

	if (new_set(2, set) != PAPI_OK)
		return PAPI_EMISC;
	if (r->op == OP_READ_MPX &&
	    (rc = PAPI_set_multiplex(*set)) != PAPI_OK) {
		append("setup: PAPI_set_multiplex: %s", papi_err(rc));
		return PAPI_EMISC;
	}
	mark(&st);
	rc = PAPI_start(*set);
	mark(&st);
	work();
	if (rc == PAPI_OK)
		rc = PAPI_read(*set, a);
	if (rc != PAPI_OK) {
		append("setup: start and read: %s", papi_err(rc));
		return PAPI_EMISC;
	}
	work();
	bs = st;
	mark(&bs);
	mark(&rs);
	arm(r);
	switch (r->op) {
	case OP_ACCUM:
		got = PAPI_accum(*set, b);
		break;
	case OP_RESET:
		got = PAPI_reset(*set);
		break;
	case OP_STOP:
		got = PAPI_stop(*set, b);
		break;
	default:
		got = PAPI_read(*set, b);
		break;
	}
	disarm();
	mark(&rs);
	mark(&bs);

	switch (r->op) {
	case OP_READ:
	case OP_READ_MPX:
		if (got == PAPI_OK &&
		    (b[0] < a[0] || b[1] < a[1] || !span_holds(&bs, b[0])))
			append("read %lld, %lld after %lld, %lld; task-clock %lld to %lld ns",
			       b[0], b[1], a[0], a[1], span_lo(&bs),
			       span_hi(&bs));
		work();
		cs = st;
		mark(&cs);
		rc = PAPI_read(*set, c);
		mark(&cs);
		if (rc != PAPI_OK || c[0] <= a[0] || c[1] <= a[1] ||
		    (got == PAPI_OK && (c[0] < b[0] || c[1] < b[1])) ||
		    !span_holds(&cs, c[0]))
			append("next read %s: %lld, %lld after %lld, %lld; task-clock %lld to %lld ns",
			       papi_err(rc), c[0], c[1], a[0], a[1],
			       span_lo(&cs), span_hi(&cs));
		break;
	case OP_ACCUM:
		if (got != PAPI_OK && (b[0] || b[1]))
			append("failed accum changed the values: %lld, %lld",
			       b[0], b[1]);
		if (got == PAPI_OK && !span_holds(&bs, b[0]))
			append("accum %lld, task-clock %lld to %lld ns", b[0],
			       span_lo(&bs), span_hi(&bs));
		work();
		cs = st;
		mark(&cs);
		rc = PAPI_accum(*set, b);
		mark(&cs);
		/* The sum misses what ran between the first accum's read
		 * and its reset, inside that call. */
		lost = bs.t[3] - bs.t[2];
		if (rc != PAPI_OK || b[0] < span_lo(&cs) - lost ||
		    b[0] > span_hi(&cs) || b[1] <= a[1])
			append("next accum %s: %lld, %lld; task-clock %lld (less %lld) to %lld ns",
			       papi_err(rc), b[0], b[1], span_lo(&cs), lost,
			       span_hi(&cs));
		break;
	case OP_RESET:
		work();
		/* Failed: the old bases, so the read covers the whole run. */
		cs = got == PAPI_OK ? rs : st;
		mark(&cs);
		rc = PAPI_read(*set, c);
		mark(&cs);
		if (rc != PAPI_OK || !span_holds(&cs, c[0]) ||
		    (got != PAPI_OK && (c[0] <= a[0] || c[1] <= a[1])))
			append("read after the reset %s: %lld, %lld; task-clock %lld to %lld ns since the %s",
			       papi_err(rc), c[0], c[1], span_lo(&cs),
			       span_hi(&cs),
			       got == PAPI_OK ? "reset" : "start");
		break;
	case OP_STOP:
		if (got == PAPI_OK) {
			if (!(state_of(*set) & PAPI_STOPPED) ||
			    !span_holds(&bs, b[0]) || b[1] <= a[1])
				append("stopped %#x: %lld, %lld; task-clock %lld to %lld ns",
				       state_of(*set), b[0], b[1], span_lo(&bs),
				       span_hi(&bs));
			(void)counts(*set, 2, "after the stop");
			break;
		}
		if (!(state_of(*set) & PAPI_RUNNING))
			append("not running after the failed stop (state %#x)",
			       state_of(*set));
		work();
		rc = PAPI_read(*set, c);
		work();
		cs = st;
		mark(&cs);
		i = PAPI_stop(*set, d);
		mark(&cs);
		if (rc != PAPI_OK || i != PAPI_OK || c[0] <= a[0] ||
		    c[1] <= a[1] || d[0] < c[0] || d[1] <= c[1] ||
		    !span_holds(&cs, d[0]))
			append("after the failed stop: read %s %lld, %lld; stop %s %lld, %lld; task-clock %lld to %lld ns",
			       papi_err(rc), c[0], c[1], papi_err(i), d[0],
			       d[1], span_lo(&cs), span_hi(&cs));
		break;
	default:
		break;
	}
	return got;
}

static int op_start(const struct row *r, int *set)
{
	long long v[NEV];
	int got, ovfl = r->op == OP_OVF_START || r->op == OP_OVF_START_DIRTY;
	int dirty = r->op == OP_START_DIRTY || r->op == OP_OVF_START_DIRTY;
	int rc;

	if (new_set(2, set) != PAPI_OK)
		return PAPI_EMISC;
	if (ovfl && (rc = sampling(OP_OVF, *set, THRESHOLD)) != PAPI_OK) {
		append("setup: PAPI_overflow: %s", papi_err(rc));
		return PAPI_EMISC;
	}
	if (dirty)
		use_ref();
	arm(r);
	got = PAPI_start(*set);
	disarm();
	if (got == PAPI_OK) {
		(void)PAPI_stop(*set, v);
	} else {
		if (!(state_of(*set) & PAPI_STOPPED) ||
		    (state_of(*set) & PAPI_RUNNING))
			append("state %#x after the failed start",
			       state_of(*set));
		holds(2, "after the failed start");
		maps_are(ovfl ? 1 : 0, "after the failed start");
	}
	if (ovfl)
		(void)sample_run(OP_OVF, *set, "overflow after the start");
	else
		(void)counts(*set, 2, "after the start");
	return got;
}

static int op_sampling(const struct row *r, int *set)
{
	int got, rc, maps = r->call == LOPE_CALL_MMAP ? 0 : 1;

	if (new_set(r->op == OP_OVF ? 2 : 1, set) != PAPI_OK)
		return PAPI_EMISC;
	arm(r);
	got = sampling(r->op, *set, THRESHOLD);
	disarm();
	holds(nevents(*set), "after the call");
	maps_are(got == PAPI_OK ? maps : 0, "after the call");
	if (got == PAPI_OK) {
		(void)sample_run(r->op, *set, "sampling");
		rc = sampling(r->op, *set, 0);
		if (rc != PAPI_OK)
			append("turning it off: %s", papi_err(rc));
	} else {
		ovf_reset();
		(void)counts(*set, nevents(*set), "without sampling");
		if (ovf.calls)
			append("%ld handler calls without overflow", ovf.calls);
	}
	/* Without the fault: the ring is mapped, addresses from it. */
	rc = sampling(r->op, *set, THRESHOLD);
	if (rc != PAPI_OK) {
		append("without the fault: %s", papi_err(rc));
		return got;
	}
	maps_are(1, "without the fault");
	(void)sample_run(r->op, *set, "sampling without the fault");
	rc = sampling(r->op, *set, 0);
	if (rc != PAPI_OK)
		append("turning it off: %s", papi_err(rc));
	return got;
}

static int op_ovf_add(const struct row *r, int *set)
{
	int got, rc, n;

	if (new_set(1, set) != PAPI_OK)
		return PAPI_EMISC;
	rc = sampling(OP_OVF, *set, THRESHOLD);
	if (rc != PAPI_OK) {
		append("setup: PAPI_overflow: %s", papi_err(rc));
		return PAPI_EMISC;
	}
	arm(r);
	got = PAPI_add_named_event(*set, ev[1]);
	disarm();
	n = got == PAPI_OK ? 2 : 1;
	if (nevents(*set) != n)
		append("%d events in the set, want %d", nevents(*set), n);
	holds(n, "after the add");
	maps_are(r->call == LOPE_CALL_MMAP ? 0 : 1, "after the add");
	(void)sample_run(OP_OVF, *set, "overflow after the add");
	if (got != PAPI_OK) {
		rc = PAPI_add_named_event(*set, ev[1]);
		if (rc != PAPI_OK)
			append("the add without the fault: %s", papi_err(rc));
		else
			(void)sample_run(
				OP_OVF, *set,
				"overflow after the add without the fault");
	}
	(void)sampling(OP_OVF, *set, 0);
	return got;
}

static int op_ovf_stop(const struct row *r, int *set)
{
	long long a[NEV] = { 0 }, b[NEV] = { 0 }, c[NEV] = { 0 };
	struct span s = own;
	int got, rc, rc2;

	if (new_set(2, set) != PAPI_OK)
		return PAPI_EMISC;
	rc = sampling(OP_OVF, *set, THRESHOLD);
	if (rc == PAPI_OK)
		rc = PAPI_start(*set);
	if (rc != PAPI_OK) {
		append("setup: overflow and start: %s", papi_err(rc));
		return PAPI_EMISC;
	}
	spin_ms(20);
	arm(r);
	got = PAPI_stop(*set, a);
	disarm();
	if (got == PAPI_OK)
		return got;
	if (!(state_of(*set) & PAPI_RUNNING))
		append("not running after the failed stop (state %#x)",
		       state_of(*set));
	/* Still running: it counts and overflows as before.  The handler
	 * calls are counted from just after the first mark. */
	ovf_reset();
	mark(&s);
	rc = PAPI_read(*set, a);
	mark(&s);
	spin_ms(100);
	mark(&s);
	rc2 = PAPI_read(*set, b);
	mark(&s);
	if (rc != PAPI_OK || rc2 != PAPI_OK || !span_holds(&s, b[0] - a[0]) ||
	    !samples_ok(ovf.calls, &s))
		append("after the failed stop: read %s, %s; task-clock +%lld ns and %ld handler calls in %lld to %lld ns",
		       papi_err(rc), papi_err(rc2), b[0] - a[0], ovf.calls,
		       span_lo(&s), span_hi(&s));
	rc = PAPI_stop(*set, c);
	if (rc != PAPI_OK)
		append("the stop without the fault: %s", papi_err(rc));
	(void)sampling(OP_OVF, *set, 0);
	return got;
}

/* ------------------------------------------ witness and the row runner */

static struct witness wit = { .set = PAPI_NULL }; /* until witness_start() */

static unsigned int nrows, nfailed, nfaults, by_call[LOPE_NCALLS];

static void run_row(const struct row *r)
{
	long long v[2] = { 0, 0 };
	struct span rd = own, sp = own, prev;
	int set = PAPI_NULL, got, n, i, rc, rc2, rc3;

	why[0] = 0;
	switch (r->op) {
	case OP_ADD1:
		got = op_add(r, &set, 1);
		break;
	case OP_ADD2:
		got = op_add(r, &set, 2);
		break;
	case OP_ADD3:
		got = op_add(r, &set, 3);
		break;
	case OP_DOMAIN:
	case OP_MPX:
		got = op_option(r, &set);
		break;
	case OP_START:
	case OP_START_DIRTY:
	case OP_OVF_START:
	case OP_OVF_START_DIRTY:
		got = op_start(r, &set);
		break;
	case OP_OVF:
	case OP_PROFIL:
	case OP_SPROFIL:
		got = op_sampling(r, &set);
		break;
	case OP_OVF_ADD:
		got = op_ovf_add(r, &set);
		break;
	case OP_OVF_STOP:
		got = op_ovf_stop(r, &set);
		break;
	default:
		got = op_running(r, &set);
		break;
	}
	disarm();
	nrows++;
	nfaults += (unsigned int)inj.failed;
	by_call[r->call] += (unsigned int)inj.failed;
	if (got != r->expect)
		append("returned %s, want %s", papi_err(got),
		       papi_err(r->expect));
	if (inj.failed != r->times)
		append("%s failed %d times (of %d matching calls), want %d",
		       lope_call_name(r->call), inj.failed, inj.seen, r->times);
	/* A row that wants no fault wants no such call at all. */
	if (r->times == 0 && inj.seen != 0)
		append("%d %s calls, want none", inj.seen,
		       lope_call_name(r->call));
	drop_set(&set);
	n = fd_count();
	if (n != base_fds)
		append("%d descriptors, baseline %d", n, base_fds);
	n = perf_fd_count();
	if (n != base_perf)
		append("%d perf descriptors, baseline %d", n, base_perf);
	n = perf_maps_count();
	if (n != base_maps)
		append("%d perf mappings, baseline %d", n, base_maps);
	/* The witness runs meanwhile; on a busy 2-cpu machine its thread can
	 * wait longer than a row for a cpu, so give it up to 200 ms. */
	for (i = 0; i < 200; i++) {
		sleep_ns(MS);
		rc = PAPI_read(wit.set, v);
		if (rc != PAPI_OK || v[0] > wit.last)
			break;
	}
	if (rc != PAPI_OK || v[0] <= wit.last ||
	    !(state_of(wit.set) & PAPI_RUNNING))
		append("witness set: read %s, %lld after %lld, state %#x",
		       papi_err(rc), v[0], wit.last, state_of(wit.set));
	else
		wit.last = v[0];
	/* Its read within this thread's task-clock around its start and the
	 * read (rd), its stop around its start and the stop (sp). */
	prev = ref_stop;
	mark(&rd);
	mark(&sp);
	rc = PAPI_start(ref);
	mark(&sp);
	mark(&rd);
	spin_ms(1);
	mark(&rd);
	rc2 = PAPI_read(ref, v);
	mark(&rd);
	mark(&sp);
	rc3 = stop_ref(v + 1);
	mark(&sp);
	if (prev.n == 1)
		rd.t[0] = sp.t[0] = prev.t[0];
	if (rc != PAPI_OK || rc2 != PAPI_OK || rc3 != PAPI_OK ||
	    !span_holds(&rd, v[0]) || !span_holds(&sp, v[1]))
		append("reference set: start %s read %s stop %s, %lld then %lld ns; task-clock %lld to %lld then %lld to %lld ns",
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

/* The row of errno e failing the open at position p. */
static void run_open_row(const struct open_errno *e,
			 const struct open_position *p)
{
	char name[128];
	const struct row r = { .line = e->line,
			       .name = name,
			       .call = LOPE_CALL_PERF_OPEN,
			       .nth = p->nth,
			       .times = 1,
			       .err = e->err,
			       .op = p->op,
			       .expect = e->expect };

	lope_name(name, sizeof(name), p->name, e->name, e->papi);
	run_row(&r);
}

int main(int argc, char **argv)
{
	const char *const ref_names[] = { ev[0] };
	int fds0, perf0, maps0, rc;
	size_t i, j;

	(void)argc;
	(void)argv;
	papi_init_or_exit();
	lope_interpose_fault(fault);
	calibrate();
	fds0 = fd_count();
	perf0 = perf_fd_count();
	maps0 = perf_maps_count();
	rc = PAPI_thread_init(pthread_self);
	if (rc == PAPI_OK)
		rc = PAPI_event_name_to_code(ev[0], &tc_code);
	if (rc == PAPI_OK)
		rc = make_named_set(&ref, ref_names, 1);
	if (!lope_check(rc == PAPI_OK, "setup_codes_and_reference_set", "%s",
			papi_err(rc)))
		return lope_done();
	if (!lope_check(!span_open(&own, PERF_COUNT_SW_TASK_CLOCK, 0, 0),
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

	for (i = 0; i < sizeof(open_errnos) / sizeof(open_errnos[0]); i++)
		for (j = 0;
		     j < sizeof(open_positions) / sizeof(open_positions[0]);
		     j++)
			run_open_row(&open_errnos[i], &open_positions[j]);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		run_row(&rows[i]);
	for (i = 0; i < sizeof(bug_rows) / sizeof(bug_rows[0]); i++)
		run_row(&bug_rows[i]);

	lope_info(
		"%u rows, %u faults injected (perf_event_open %u, read %u, ioctl %u, mmap %u, fcntl %u), %u rows failed",
		nrows, nfaults, by_call[LOPE_CALL_PERF_OPEN],
		by_call[LOPE_CALL_READ], by_call[LOPE_CALL_IOCTL],
		by_call[LOPE_CALL_MMAP], by_call[LOPE_CALL_FCNTL], nfailed);
	witness_finish(&wit, "witness_set_counted_its_threads_whole_run");
	drop_set(&ref);
	span_close(&own);
	lope_check(
		fd_count() == fds0 && perf_fd_count() == perf0 &&
			perf_maps_count() == maps0,
		"no_descriptor_or_perf_mapping_left_after_the_rows",
		"%d descriptors (%d before), %d perf (%d), %d perf mappings (%d)",
		fd_count(), fds0, perf_fd_count(), perf0, perf_maps_count(),
		maps0);
	return lope_done();
}
