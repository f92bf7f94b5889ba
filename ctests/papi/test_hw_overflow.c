/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_hw_overflow: PAPI_overflow and PAPI_profil on PAPI_TOT_INS, user
 * domain, over a loop of known length (ctests/lib/work.h's loop2: 2 user
 * instructions an iteration).  Skipped (each case, with the reason) where
 * the machine has no core PMU (ctests/lib/core_pmu.h), and where the
 * kernel cannot sample instructions.
 *
 * The kernel arms the counter to overflow after what remains of the
 * period T and, at each interrupt, for the next T (when an interrupt
 * comes later than a whole period after the overflow, one sample stands
 * for the periods it covered).  PAPI_start's reset leaves that remainder
 * (ours takes the counts as bases, stock's PERF_EVENT_IOC_RESET zeroes
 * the count), so the interrupts carry on from run to run: once the runs
 * since the period was set have counted C instructions in all, a PMU
 * that interrupts at the overflowing instruction has interrupted exactly
 * floor(C / T) times and any PMU at most that many, however long the
 * calls around the loop.  (One run of v instructions alone can take
 * floor(v / T) + 1: the first when the runs before left little of T.)
 * Whether this PMU is exact is measured first, without PAPI: a
 * perf_event sampling the same loop with the same period, its samples
 * counted in its ring buffer, RUNS times, each a new event
 * (pmu_is_exact; QEMU's Arm PMU takes a few of the samples, its RISC-V
 * one all but on a first, cold run).  The kernel signals an overflow
 * from deferred work, which can wait for a timer tick, and PAPI drops a
 * signal for a stopped set, so every run sleeps SETTLE_US in the kernel
 * before it stops (no user instruction counts there).  Cases, RUNS runs
 * each after one not judged (run -1: QEMU's RISC-V PMU loses interrupts
 * on code it runs for the first time), C and the calls counted from run
 * -1 on:
 *  - overflow_handler_calls_bounded: the handler runs at least once in
 *    every run, at most floor(C / T) times in all, and every run's count
 *    v (what PAPI_stop returns) covers the loop;
 *  - overflow_handler_calls_exact (where the PMU samples exactly; else a
 *    SKIP with its samples): exactly floor(C / T) times in all;
 *  - overflow_handler_on_the_set: every call names the set and has a bit
 *    set in its overflow vector;
 *  - profil_samples_in_the_loop (where the PMU samples exactly):
 *    PAPI_profil over loop2's code counts floor(v / T) samples less at
 *    most 2: the loop's 2N instructions lie between 19 T and 20 T, so it
 *    takes 19 or 20 interrupts wherever the period stands, and the calls
 *    around it are shorter than T (v is under 21 T).
 *  - two_events_ins_and_cyc_*: the three overflow cases again on a set of
 *    PAPI_TOT_INS every T and PAPI_TOT_CYC every 2 T, each event's calls
 *    (PAPI_get_overflow_event_index) against its own count: two sampling
 *    events in one set, whose overflows come together where the cycles
 *    are the instructions (QEMU's icount); exact where the PMU's
 *    instructions are.
 * T is 1,000,003 instructions (a prime, so no multiple of the loop's
 * period lines up) and the loop 10^7 iterations: 19 or 20 interrupts, a
 * rate far below the kernel's sampling limits.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "core_pmu.h"
#include "papi_util.h"
#include "work.h"

#define T 1000003LL
#define N 10000000UL
#define RUNS 3
#define SETTLE_US 20000 /* 5 ticks at HZ 250 */
/* loop2's code: a few instructions; the buckets cover more */
#define PROFIL_BYTES 256
/* the raw event's ring buffer: 8 pages hold hundreds of samples */
#define RING_PAGES 8

static const char *const cases[] = {
	"overflow_handler_calls_bounded",
	"overflow_handler_calls_exact",
	"overflow_handler_on_the_set",
	"profil_samples_in_the_loop",
	/* the two events' cases: from NCASES1 on */
	"two_events_ins_and_cyc_calls_bounded",
	"two_events_ins_and_cyc_calls_exact",
	"two_events_ins_and_cyc_on_the_set",
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))
#define NCASES1 4

/* The handler's calls per event index of the set, and its strays. */
static volatile sig_atomic_t calls[2], strays;
static int the_set = PAPI_NULL;
/* "" where the PMU samples exactly, else why not */
static char inexact[256];

static void handler(int set, void *address, long long vector, void *context)
{
	int idx[2], n = 2, i;

	(void)address;
	(void)context;
	if (set != the_set ||
	    PAPI_get_overflow_event_index(set, vector, idx, &n) != PAPI_OK ||
	    n < 1) {
		strays++;
		return;
	}
	for (i = 0; i < n; i++)
		calls[idx[i] & 1]++;
}

/* The samples in @mp's ring buffer (1 + RING_PAGES pages of @pg bytes). */
static long long ring_samples(const struct perf_event_mmap_page *mp, size_t pg)
{
	const unsigned char *data = (const unsigned char *)mp + pg;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail, size = RING_PAGES * pg;
	struct perf_event_header h;
	long long n = 0;

	while (tail + sizeof(h) <= head) {
		/* records are 8-byte aligned: a header never wraps */
		memcpy(&h, data + (tail & (size - 1)), sizeof(h));
		if ((size_t)h.size < sizeof(h))
			break;
		n += h.type == PERF_RECORD_SAMPLE;
		tail += h.size;
	}
	return n;
}

/* The loop, run as PAPI's runs are, sampled by a perf_event of our own:
 * its count and its samples.  0, or -errno. */
static int raw_run(long long *count, long long *samples)
{
	const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	const size_t len = (1 + RING_PAGES) * pg;
	struct perf_event_attr a;
	void *mp;
	int fd, err = 0;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.sample_period = T;
	a.sample_type = PERF_SAMPLE_IP;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -errno;
	mp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mp == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		err = -errno;
	loop2(N);
	usleep(SETTLE_US);
	if (!err && ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) < 0)
		err = -errno;
	if (!err && read(fd, count, sizeof(*count)) != sizeof(*count))
		err = -EIO;
	*samples = ring_samples(mp, pg);
	munmap(mp, len);
	close(fd);
	return err;
}

/*
 * Does this PMU interrupt at the overflowing instruction?  RUNS runs of
 * raw_run(), exact if each took floor(count / T) samples.  0 (the answer
 * in inexact[]), or -errno when such an event cannot be made here.
 */
static int pmu_is_exact(void)
{
	long long count = 0, samples = 0;
	int r, err;

	for (r = 0; r < RUNS; r++) {
		err = raw_run(&count, &samples);
		if (err)
			return err;
		lope_info("the PMU without PAPI, run %d: %lld samples for "
			  "%lld instructions (period %lld: %lld overflows)",
			  r, samples, count, T, count / T);
		if (samples != count / T && !inexact[0])
			snprintf(inexact, sizeof(inexact),
				 "this PMU's interrupts are not exact: "
				 "sampling the loop without PAPI, run %d took "
				 "%lld samples for %lld instructions at period "
				 "%lld (%lld overflows)",
				 r, samples, count, T, count / T);
	}
	return 0;
}

/* A user-domain set of @n presets @names, and their codes. */
static int make_set(int *set, const char *const *names, int n, int *code)
{
	int rc = make_empty_set(set), i;

	if (rc == PAPI_OK)
		rc = set_domain(*set, PAPI_DOM_USER);
	for (i = 0; rc == PAPI_OK && i < n; i++) {
		rc = PAPI_event_name_to_code(names[i], &code[i]);
		if (rc == PAPI_OK)
			rc = PAPI_add_event(*set, code[i]);
	}
	return rc;
}

/* One run of the loop between PAPI_start and PAPI_stop: its counts in @v. */
static int run(int set, long long *v)
{
	int rc;

	calls[0] = calls[1] = strays = 0;
	rc = PAPI_start(set);
	if (rc != PAPI_OK)
		return rc;
	loop2(N);
	usleep(SETTLE_US);
	return PAPI_stop(set, v);
}

/*
 * Overflow on the @n events of @set, event i every @period[i], judged as
 * @names[i]: the cases @c[0] (bounded), @c[1] (exact) and @c[2] (on the
 * set).  An event other than instructions has no exactness check of its
 * own: its calls are exact where the PMU's instructions are.
 */
static void overflow_cases(int set, const int *code, const char *const *names,
			   const long long *period, int n, const char *const *c)
{
	/* this run's counts; the counts and the calls from run -1 on */
	long long v[2] = { 0, 0 }, all[2] = { 0, 0 }, all_calls[2] = { 0, 0 };
	int r, rc = PAPI_OK, i, bounded = 1, exact = 1, mine = 1;
	char why[256] = "", whyx[256] = "";

	for (i = 0; rc == PAPI_OK && i < n; i++)
		rc = PAPI_overflow(set, code[i], (int)period[i], 0, handler);
	if (rc != PAPI_OK) {
		snprintf(why, sizeof(why),
			 "PAPI_overflow on %s: %s (no sampling of it here)",
			 names[i - 1], papi_err(rc));
		for (r = 0; r < 3; r++)
			lope_skip(c[r], why);
		return;
	}
	for (r = -1; r < RUNS; r++) {
		rc = run(set, v);
		if (rc != PAPI_OK) {
			snprintf(why, sizeof(why), "run %d: %s", r,
				 papi_err(rc));
			bounded = exact = mine = 0;
			snprintf(whyx, sizeof(whyx), "%s", why);
			break;
		}
		for (i = 0; i < n; i++) {
			all[i] += v[i];
			all_calls[i] += calls[i];
			lope_info("run %d: %s %lld, %d handler calls; from "
				  "run -1 on %lld, %lld calls (period %lld: "
				  "%lld overflows)",
				  r, names[i], v[i], (int)calls[i], all[i],
				  all_calls[i], period[i], all[i] / period[i]);
			if (r < 0)
				continue; /* the warm-up */
			if (bounded && ((i == 0 && v[i] < 2 * (long long)N) ||
					calls[i] < 1 ||
					all_calls[i] > all[i] / period[i])) {
				snprintf(why, sizeof(why),
					 "run %d: %s: %d calls for %lld (at "
					 "least 1, and %lu instructions, "
					 "wanted); from run -1 on %lld calls "
					 "for %lld overflows",
					 r, names[i], (int)calls[i], v[i],
					 2 * N, all_calls[i],
					 all[i] / period[i]);
				bounded = 0;
			}
			if (exact && all_calls[i] != all[i] / period[i]) {
				snprintf(whyx, sizeof(whyx),
					 "run %d: %s: from run -1 on %lld "
					 "calls for %lld, want %lld",
					 r, names[i], all_calls[i], all[i],
					 all[i] / period[i]);
				exact = 0;
			}
		}
		mine &= strays == 0;
	}
	lope_check(bounded, c[0], "%s", why);
	if (inexact[0])
		lope_skip(c[1], inexact);
	else
		lope_check(exact, c[1], "%s", whyx);
	lope_check(mine, c[2], "%d calls of another set or vector",
		   (int)strays);
	for (i = 0; i < n; i++) {
		rc = PAPI_overflow(set, code[i], 0, 0, handler);
		if (rc != PAPI_OK)
			lope_fail(c[0], "turning overflow off: %s",
				  papi_err(rc));
	}
}

static void profil_case(int set, int code)
{
	static unsigned short buf[PROFIL_BYTES / 2];
	long long v = 0, sum;
	unsigned i;
	int r, rc;

	if (inexact[0]) {
		lope_skip(cases[3], inexact);
		return;
	}
	/* scale 65536: a bucket of 2 bytes, from loop2's first */
	rc = PAPI_profil(buf, sizeof(buf), (vptr_t)loop2, 65536, set, code,
			 (int)T, PAPI_PROFIL_POSIX);
	if (rc != PAPI_OK) {
		lope_skip(cases[3], papi_err(rc));
		return;
	}
	for (r = -1; r < RUNS; r++) {
		memset(buf, 0, sizeof(buf));
		rc = run(set, &v);
		if (rc != PAPI_OK) {
			lope_fail(cases[3], "run %d: %s", r, papi_err(rc));
			break;
		}
		for (sum = 0, i = 0; i < sizeof(buf) / sizeof(buf[0]); i++)
			sum += buf[i];
		lope_info("profil run %d: %lld instructions, %lld samples in "
			  "loop2's %d bytes",
			  r, v, sum, PROFIL_BYTES);
		if (r < 0)
			continue; /* the warm-up */
		if (sum > v / T || sum < v / T - 2) {
			lope_fail(cases[3],
				  "run %d: %lld samples in the loop for %lld "
				  "interrupts (%lld instructions)",
				  r, sum, v / T, v);
			break;
		}
	}
	if (r == RUNS)
		lope_pass(cases[3]);
	PAPI_profil(buf, sizeof(buf), (vptr_t)loop2, 65536, set, code, 0,
		    PAPI_PROFIL_POSIX);
}

/*
 * Instructions and cycles sampled together, cycles every 2 T: where the
 * cycles are the instructions (QEMU's icount), their overflows come
 * together, each on its own counter and its own signal.
 */
static void two_events(void)
{
	static const char *const names[] = { "PAPI_TOT_INS", "PAPI_TOT_CYC" };
	static const long long period[] = { T, 2 * T };
	int set = PAPI_NULL, code[2] = { 0, 0 }, rc, i;

	rc = make_set(&set, names, 2, code);
	the_set = set;
	if (rc == PAPI_OK)
		overflow_cases(set, code, names, period, 2, cases + NCASES1);
	else
		for (i = NCASES1; i < NCASES; i++)
			lope_skip(cases[i],
				  "PAPI_TOT_INS with PAPI_TOT_CYC: %s",
				  papi_err(rc));
	drop_set(&set);
}

int main(void)
{
	static const char *const names[] = { "PAPI_TOT_INS" };
	static const long long period[] = { T };
	int code = 0, rc, i;
	char why[128];

	if (!lope_core_pmu()) {
		for (i = 0; i < NCASES; i++)
			lope_skip(cases[i], LOPE_NO_CORE_PMU_REASON);
		return lope_done();
	}
	rc = pmu_is_exact();
	if (rc < 0) {
		snprintf(why, sizeof(why),
			 "no sampling perf_event on instructions here: %s",
			 strerror(-rc));
		for (i = 0; i < NCASES; i++)
			lope_skip(cases[i], why);
		return lope_done();
	}
	papi_init_or_exit();
	rc = make_set(&the_set, names, 1, &code);
	if (rc != PAPI_OK) {
		for (i = 0; i < NCASES1; i++)
			lope_skip(cases[i], papi_err(rc));
	} else {
		overflow_cases(the_set, &code, names, period, 1, cases);
		profil_case(the_set, code);
	}
	drop_set(&the_set);
	two_events();
	return lope_done();
}
