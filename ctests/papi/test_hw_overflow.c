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
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

static volatile sig_atomic_t calls, strays;
static int the_set = PAPI_NULL;
/* "" where the PMU samples exactly, else why not */
static char inexact[256];

static void handler(int set, void *address, long long vector, void *context)
{
	(void)address;
	(void)context;
	calls++;
	if (set != the_set || vector == 0)
		strays++;
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

/* A user-domain set of PAPI_TOT_INS alone, and the event's code. */
static int make_set(int *set, int *code)
{
	int rc = make_empty_set(set);

	if (rc == PAPI_OK)
		rc = set_domain(*set, PAPI_DOM_USER);
	if (rc == PAPI_OK)
		rc = PAPI_event_name_to_code("PAPI_TOT_INS", code);
	if (rc == PAPI_OK)
		rc = PAPI_add_event(*set, *code);
	return rc;
}

/* One run of the loop between PAPI_start and PAPI_stop: its count in *v. */
static int run(int set, long long *v)
{
	int rc;

	calls = strays = 0;
	rc = PAPI_start(set);
	if (rc != PAPI_OK)
		return rc;
	loop2(N);
	usleep(SETTLE_US);
	return PAPI_stop(set, v);
}

static void overflow_cases(int set, int code)
{
	/* this run's count; the count and the calls from run -1 on */
	long long v = 0, all = 0, all_calls = 0;
	int r, rc, bounded = 1, exact = 1, mine = 1;
	char why[256] = "", whyx[256] = "";

	rc = PAPI_overflow(set, code, (int)T, 0, handler);
	if (rc != PAPI_OK) {
		snprintf(why, sizeof(why),
			 "PAPI_overflow on PAPI_TOT_INS: %s (no sampling of "
			 "instructions here)",
			 papi_err(rc));
		for (r = 0; r < 3; r++)
			lope_skip(cases[r], why);
		return;
	}
	for (r = -1; r < RUNS; r++) {
		rc = run(set, &v);
		if (rc != PAPI_OK) {
			snprintf(why, sizeof(why), "run %d: %s", r,
				 papi_err(rc));
			bounded = exact = mine = 0;
			snprintf(whyx, sizeof(whyx), "%s", why);
			break;
		}
		all += v;
		all_calls += calls;
		lope_info("run %d: %lld instructions, %d handler calls; from "
			  "run -1 on %lld instructions, %lld calls (period "
			  "%lld: %lld overflows)",
			  r, v, (int)calls, all, all_calls, T, all / T);
		if (r < 0)
			continue; /* the warm-up */
		if (bounded && (v < 2 * (long long)N || calls < 1 ||
				all_calls > all / T)) {
			snprintf(why, sizeof(why),
				 "run %d: %d calls for %lld instructions (at "
				 "least 1 and %lu instructions wanted); from "
				 "run -1 on %lld calls for %lld overflows",
				 r, (int)calls, v, 2 * N, all_calls, all / T);
			bounded = 0;
		}
		if (exact && all_calls != all / T) {
			snprintf(whyx, sizeof(whyx),
				 "run %d: from run -1 on %lld calls for %lld "
				 "instructions, want %lld",
				 r, all_calls, all, all / T);
			exact = 0;
		}
		mine &= strays == 0;
	}
	lope_check(bounded, cases[0], "%s", why);
	if (inexact[0])
		lope_skip(cases[1], inexact);
	else
		lope_check(exact, cases[1], "%s", whyx);
	lope_check(mine, cases[2], "%d calls of another set or vector",
		   (int)strays);
	rc = PAPI_overflow(set, code, 0, 0, handler);
	if (rc != PAPI_OK)
		lope_fail(cases[0], "turning overflow off: %s", papi_err(rc));
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

int main(void)
{
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
	rc = make_set(&the_set, &code);
	if (rc != PAPI_OK) {
		for (i = 0; i < NCASES; i++)
			lope_skip(cases[i], papi_err(rc));
		drop_set(&the_set);
		return lope_done();
	}
	overflow_cases(the_set, code);
	profil_case(the_set, code);
	drop_set(&the_set);
	return lope_done();
}
