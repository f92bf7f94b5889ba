/* SPDX-License-Identifier: BSD-3-Clause */
/* Clocks and known work (clock.h). */
#include "clock.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* Read clock @id into @ts, in ns. */
static long long read_ns(clockid_t id, struct timespec *ts)
{
	clock_gettime(id, ts);
	return (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

long long clock_ns(clockid_t id)
{
	struct timespec ts;

	return read_ns(id, &ts);
}

long long thread_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

long long process_ns(void)
{
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

long long wall_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Work the compiler keeps: a microsecond or two. */
static void spin_chunk(void)
{
	volatile unsigned long sink = 0;
	int i;

	for (i = 0; i < 2000; i++)
		sink += (unsigned long)i;
}

/*
 * Reading the thread's CPU clock is a system call; the wall clock comes
 * from the vDSO, in user space.  The CPU clock moves no faster than the
 * wall clock, so spinning for what is left in wall time overshoots by a
 * chunk at most: the CPU clock is read about twice a call (again after a
 * preemption), and the spin is user time.  Read after every chunk, it kept the thread
 * in the kernel 35 to 55 % of the time, a share that moved with the
 * chunk's speed, that is with where the linker put its loop; and the
 * kernel drops a user-domain sample whose timer fires in the kernel, so
 * the tests' overflow rates moved with it.
 *
 * The clocks are read into @ts, not through wall_ns(): under ASan's
 * detect_stack_use_after_return each call of a function with an
 * address-taken local takes a new frame of its fake stack, a fresh page
 * every 64 calls, and tests count the page faults around busy work.
 */
void busy_ns(long long ns)
{
	struct timespec ts;
	long long end = read_ns(CLOCK_THREAD_CPUTIME_ID, &ts) + ns, left, stop;

	while ((left = end - read_ns(CLOCK_THREAD_CPUTIME_ID, &ts)) > 0) {
		stop = read_ns(CLOCK_MONOTONIC, &ts) + left;
		do
			spin_chunk();
		while (read_ns(CLOCK_MONOTONIC, &ts) < stop);
	}
}

long long spin_ns(long long ns)
{
	long long t0 = thread_ns();

	busy_ns(ns);
	return thread_ns() - t0;
}

void sleep_ns(long long ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000LL),
			       (long)(ns % 1000000000LL) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int near(long long got, long long want, double rel, long long abs)
{
	long long d = got > want ? got - want : want - got;

	return d <= (long long)((double)want * rel) + abs;
}

/*
 * Not instrumented: ASan's check of each store reads the store's shadow,
 * and a fresh shadow page for every 8 pages touched would add its own
 * user-mode faults (37 to 300 pages with gcc 14's ASan).
 */
__attribute__((no_sanitize_address)) int touch_pages(size_t n)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), i;
	char *p = mmap(NULL, n * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	(void)madvise(p, n * psz, MADV_NOHUGEPAGE); /* advice only */
	for (i = 0; i < n; i++)
		((volatile char *)p)[i * psz] = 1;
	return munmap(p, n * psz);
}

__attribute__((noinline)) void warm_stack(void)
{
	volatile char pad[128 * 1024];
	size_t i;

	for (i = 0; i < sizeof(pad); i += 256)
		pad[i] = (char)i;
}

__attribute__((noinline)) unsigned long profiled_loop(long iters)
{
	volatile unsigned long x = 1;
	long i;

	for (i = 0; i < iters; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

long long voluntary_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw;
}
