/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_start_stop: PAPI_start and PAPI_stop of a set read in user space,
 * which stop lazily (doc/lazy-stop.md): after the first start, neither
 * makes a system call, and the counts keep PAPI's meaning.  Where the
 * component reads in user space (fast_counter_read; the emulated arm64
 * and riscv64 machines here), else each case SKIPs with the reason.
 * Counts are PAPI_TOT_INS (user domain) of loop2(), exactly 2
 * instructions an iteration; N is 1e6 iterations; a count is the least
 * of 3 runs where another vCPU can only add (the hybrid machine).
 *
 *  - no system call: 100 PAPI_start/PAPI_stop pairs make no read(2) nor
 *    ioctl(2) (interposed and counted: ctests/lib/interpose.h);
 *  - the gap: 10N iterations between a stop and the next start are not
 *    counted;
 *  - two sets alternating, 5 rounds, each counts its own loop;
 *  - PAPI_accum, PAPI_reset and PAPI_write across stops and starts;
 *  - a set with PAPI_overflow stops in the kernel (an ioctl);
 *  - LOPE_KERNEL_STOP=1 (a re-exec'd child) stops every set in the kernel;
 *  - fork: the child initialises PAPI again and counts its own loop with
 *    PAPI_TOT_INS (where it is one of our generic presets, a72, max and
 *    riscv64, a second init once left it unusable: PAPI_ENOEVNT); the
 *    parent's stopped set counts exactly after;
 *  - exec: a process with a stopped set execs this program, which finds
 *    no perf descriptor or mapping and counts its own loop; there,
 *    PAPI_shutdown with its set stopped lazily leaves none either.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdbool.h>

#include "interpose.h"
#include "papi_util.h"
#include "work.h"

#define N 1000000UL

static const char *const cases[] = {
	"papi_start_and_stop_make_no_system_call",
	"papi_what_runs_between_stop_and_start_is_not_counted",
	"papi_two_sets_alternating_count_their_own",
	"papi_accum_reset_write_across_stop_and_start",
	"papi_overflow_set_stops_in_the_kernel",
	"papi_lope_kernel_stop_stops_in_the_kernel",
	"papi_fork_after_a_lazy_stop",
	"papi_exec_after_a_lazy_stop",
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static char self[PATH_MAX];

/* A user-domain set of PAPI_TOT_INS. */
static int make_ins(int *set)
{
	int rc = make_empty_set(set);

	if (rc == PAPI_OK)
		rc = set_domain(*set, PAPI_DOM_USER);
	if (rc == PAPI_OK)
		rc = PAPI_add_named_event(*set, "PAPI_TOT_INS");
	return rc;
}

/* Start, @n iterations, stop into @v. */
static int interval(int set, unsigned long n, long long *v)
{
	int rc = PAPI_start(set);

	if (rc == PAPI_OK)
		loop2(n);
	return rc == PAPI_OK ? PAPI_stop(set, v) : rc;
}

/* The least of 3 intervals of @n iterations into *@v. */
static int least(int set, unsigned long n, long long *v)
{
	long long x;
	int r, rc = PAPI_OK;

	*v = -1;
	for (r = 0; rc == PAPI_OK && r < 3; r++) {
		rc = interval(set, n, &x);
		if (rc == PAPI_OK && (*v < 0 || x < *v))
			*v = x;
	}
	return rc;
}

/* Twice @n within 0.1%, plus the few hundred instructions of the calls. */
static int exact(long long v, unsigned long n)
{
	long long want = 2 * (long long)n, d = v - want;

	return d >= -(want / 1000) && d <= want / 1000 + 2000;
}

static unsigned long calls(void)
{
	return lope_calls(LOPE_CALL_READ) + lope_calls(LOPE_CALL_IOCTL);
}

static void test_no_syscall(void)
{
	const char *name = cases[0];
	long long v = 0;
	unsigned long before = 0, made = 0;
	int set = PAPI_NULL, i, rc = make_ins(&set);

	if (rc == PAPI_OK)
		rc = interval(set, 1000, &v); /* the first start: the kernel */
	before = calls();
	for (i = 0; rc == PAPI_OK && i < 100; i++)
		rc = interval(set, 1000, &v);
	made = calls() - before;
	lope_check(rc == PAPI_OK && made == 0 && v > 0, name,
		   "rc=%s; 100 PAPI_start/PAPI_stop pairs made %lu read(2) "
		   "and ioctl(2) calls (want 0), the last counted %lld",
		   papi_err(rc), made, v);
	drop_set(&set);
}

static void test_gap(void)
{
	const char *name = cases[1];
	long long v1 = -1, v2 = -1, x;
	int set = PAPI_NULL, r, rc = make_ins(&set);

	for (r = 0; rc == PAPI_OK && r < 3; r++) {
		rc = interval(set, N, &x);
		if (rc == PAPI_OK && (v1 < 0 || x < v1))
			v1 = x;
		loop2(10 * N);
		if (rc == PAPI_OK)
			rc = interval(set, N, &x);
		if (rc == PAPI_OK && (v2 < 0 || x < v2))
			v2 = x;
	}
	lope_check(rc == PAPI_OK && exact(v1, N) && exact(v2, N), name,
		   "rc=%s; before the gap %lld, after it %lld (want 2e6 each, "
		   "2e7 ran in between)",
		   papi_err(rc), v1, v2);
	drop_set(&set);
}

static void test_alternate(void)
{
	const char *name = cases[2];
	long long va, vb;
	int a = PAPI_NULL, b = PAPI_NULL, r, bad = 0;
	int rc = make_ins(&a);
	char first[160] = "";

	if (rc == PAPI_OK)
		rc = make_ins(&b);
	for (r = 0; rc == PAPI_OK && r < 5; r++) {
		rc = least(a, N, &va);
		if (rc == PAPI_OK)
			rc = least(b, 2 * N, &vb);
		if (rc == PAPI_OK && (!exact(va, N) || !exact(vb, 2 * N)) &&
		    !bad++)
			snprintf(first, sizeof(first),
				 "round %d: A %lld (want 2e6), B %lld (want "
				 "4e6)",
				 r, va, vb);
	}
	lope_check(rc == PAPI_OK && !bad, name, "rc=%s; %d of 5 rounds off%s%s",
		   papi_err(rc), bad, bad ? ": " : "", first);
	drop_set(&a);
	drop_set(&b);
}

/*
 * One try of the sequence: accum, stop, reset while stopped, start,
 * read, write, stop, and a plain interval; true when every count is
 * right, with them in @c (accum, stop, read, stop after the write, next).
 */
static bool accum_reset_write(int set, long long *c, int *rc)
{
	long long w = 1000;

	c[0] = 0;
	*rc = PAPI_start(set);
	if (*rc == PAPI_OK) {
		loop2(N);
		*rc = PAPI_accum(set, &c[0]); /* 2e6, counters reset */
	}
	if (*rc == PAPI_OK) {
		loop2(N);
		*rc = PAPI_stop(set, &c[1]); /* 2e6 since the accum */
	}
	if (*rc == PAPI_OK)
		*rc = PAPI_reset(set); /* stopped: PAPI's own values */
	if (*rc == PAPI_OK)
		*rc = PAPI_start(set);
	if (*rc == PAPI_OK) {
		loop2(N);
		*rc = PAPI_read(set, &c[2]);
	}
	if (*rc == PAPI_OK)
		*rc = PAPI_write(set, &w);
	if (*rc == PAPI_OK) {
		loop2(N);
		*rc = PAPI_stop(set, &c[3]); /* 1000 + 2e6 */
	}
	if (*rc == PAPI_OK)
		*rc = interval(set, N, &c[4]); /* a start begins at 0 */
	return *rc == PAPI_OK && exact(c[0], N) && exact(c[1], N) &&
	       exact(c[2], N) && exact(c[3] - 1000, N) && exact(c[4], N);
}

static void test_accum_reset_write(void)
{
	const char *name = cases[3];
	long long c[5] = { -1, -1, -1, -1, -1 }, v;
	int set = PAPI_NULL, t, rc = make_ins(&set);
	bool ok = false;

	if (rc == PAPI_OK)
		rc = interval(set, 1000, &v);
	/* Up to 3 tries: another vCPU's instructions only add (least()). */
	for (t = 0; rc == PAPI_OK && !ok && t < 3; t++)
		ok = accum_reset_write(set, c, &rc);
	lope_check(rc == PAPI_OK && ok, name,
		   "rc=%s; accum %lld, stop after it %lld, read after a "
		   "reset and start %lld, stop after a write of 1000 %lld, "
		   "the next interval %lld (want 2e6, +1000 after the write)",
		   papi_err(rc), c[0], c[1], c[2], c[3], c[4]);
	drop_set(&set);
}

static void on_overflow(int set, void *addr, long long ovec, void *ctx)
{
	(void)set;
	(void)addr;
	(void)ovec;
	(void)ctx;
}

static void test_overflow(void)
{
	const char *name = cases[4];
	unsigned long before, made;
	long long v;
	int set = PAPI_NULL, rc = make_ins(&set);

	if (rc == PAPI_OK) /* far beyond what it counts here */
		rc = PAPI_overflow(set, PAPI_TOT_INS, 1 << 30, 0, on_overflow);
	if (rc == PAPI_OK)
		rc = interval(set, 1000, &v);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	before = lope_calls(LOPE_CALL_IOCTL);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, &v);
	made = lope_calls(LOPE_CALL_IOCTL) - before;
	lope_check(rc == PAPI_OK && made >= 1, name,
		   "rc=%s; the overflow set's PAPI_stop made %lu ioctl(2) "
		   "calls (want at least 1)",
		   papi_err(rc), made);
	if (rc == PAPI_OK)
		(void)PAPI_overflow(set, PAPI_TOT_INS, 0, 0, on_overflow);
	drop_set(&set);
}

/* Child mode: 10 intervals after the first; prints the calls they made. */
static int child_count_calls(void)
{
	unsigned long before;
	long long v;
	int set = PAPI_NULL, i, rc;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return 3;
	rc = make_ins(&set);
	if (rc == PAPI_OK)
		rc = interval(set, 1000, &v);
	before = lope_calls(LOPE_CALL_IOCTL);
	for (i = 0; rc == PAPI_OK && i < 10; i++)
		rc = interval(set, 1000, &v);
	if (rc != PAPI_OK)
		return 3;
	printf("ioctls=%lu\n", lope_calls(LOPE_CALL_IOCTL) - before);
	return 0;
}

static void test_kernel_stop_env(void)
{
	const char *name = cases[5];
	char out[128] = "";
	unsigned long n = 0;
	int st = run_self(self, "LOPE_KERNEL_STOP=1", "--count-calls", out,
			  sizeof(out));

	lope_check(st == 0 && sscanf(out, "ioctls=%lu", &n) == 1 && n >= 20,
		   name,
		   "under LOPE_KERNEL_STOP=1, 10 PAPI_start/PAPI_stop pairs "
		   "made %lu ioctl(2) calls (want at least 20; child status "
		   "%#x, said \"%s\")",
		   n, st, out);
}

static void test_fork(void)
{
	const char *name = cases[6];
	long long v = -1;
	int set = PAPI_NULL, st = -1, rc = make_ins(&set);
	pid_t pid = -1;

	if (rc == PAPI_OK)
		rc = interval(set, 1000, &v);
	if (rc == PAPI_OK)
		pid = fork();
	if (pid == 0) {
		int own = PAPI_NULL, crc;

		crc = PAPI_library_init(PAPI_VER_CURRENT);
		if (crc != PAPI_VER_CURRENT) {
			lope_info("child: PAPI_library_init: %s",
				  papi_err(crc));
			_exit(3);
		}
		crc = make_ins(&own);
		if (crc == PAPI_OK)
			crc = least(own, N, &v);
		if (crc != PAPI_OK)
			lope_info("child: its set: %s", papi_err(crc));
		else if (!exact(v, N))
			lope_info("child: counted %lld (want 2e6)", v);
		fflush(stdout);
		_exit(crc != PAPI_OK ? 4 : exact(v, N) ? 0 : 1);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (rc == PAPI_OK)
		rc = least(set, N, &v);
	lope_check(rc == PAPI_OK && st == 0 && exact(v, N), name,
		   "rc=%s; the child (init again, its own set) %s (status "
		   "%#x: 3 init, 4 its set, 1 its count); the parent's set "
		   "then counted %lld (want 2e6)",
		   papi_err(rc),
		   st == 0 ? "counted its loop" : "did not count its loop", st,
		   v);
	drop_set(&set);
}

/* Exec mode: no perf descriptor or mapping, and PAPI counts its loop. */
static int exec_helper(void)
{
	long long v = -1;
	int set = PAPI_NULL, bits = 0;

	if (perf_fd_count() != 0)
		bits |= 1;
	if (perf_maps_count() != 0)
		bits |= 2;
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return bits | 4;
	if (make_ins(&set) != PAPI_OK || least(set, N, &v) != PAPI_OK ||
	    !exact(v, N))
		bits |= 8;
	/* Its set left stopped lazily: PAPI_shutdown closes everything. */
	PAPI_shutdown();
	if (perf_fd_count() != 0 || perf_maps_count() != 0)
		bits |= 64;
	return bits;
}

static void test_exec(void)
{
	const char *name = cases[7];
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		long long v;
		int set = PAPI_NULL;

		if (make_ins(&set) != PAPI_OK ||
		    interval(set, 1000, &v) != PAPI_OK)
			_exit(16);
		execl(self, self, "--exec-helper", (char *)NULL);
		_exit(32);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	lope_check(WIFEXITED(st) && WEXITSTATUS(st) == 0, name,
		   "exit bits %d (1, 2: perf descriptors, mappings left after "
		   "the exec; 4: init; 8: its loop not counted; 16: the set "
		   "before the exec; 64: perf descriptors or mappings left "
		   "after PAPI_shutdown with a set stopped lazily)",
		   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int main(int argc, char **argv)
{
	static void (*const tests[])(void) = {
		test_no_syscall, test_gap,
		test_alternate,  test_accum_reset_write,
		test_overflow,   test_kernel_stop_env,
		test_fork,       test_exec,
	};
	const PAPI_component_info_t *ci;
	size_t i;
	int set = PAPI_NULL, rc;

	if (argc > 1 && !strcmp(argv[1], "--count-calls"))
		return child_count_calls();
	if (argc > 1 && !strcmp(argv[1], "--exec-helper"))
		return exec_helper();
	if (self_exe_or_fail(self, sizeof(self)))
		return lope_done();
	papi_init_or_exit();
	ci = cmpinfo_or_exit();
	rc = make_ins(&set);
	drop_set(&set);
	if (!ci->fast_counter_read || rc != PAPI_OK) {
		for (i = 0; i < NCASES; i++)
			lope_skip(cases[i], "%s",
				  !ci->fast_counter_read ?
					  "no user-space reads here: a stop "
					  "is the kernel's" :
					  "no PAPI_TOT_INS here");
		return lope_done();
	}
	lope_info("%s", ci->description);
	return papi_run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
