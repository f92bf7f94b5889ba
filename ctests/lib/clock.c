/* SPDX-License-Identifier: BSD-3-Clause */
/* Clocks and known work (clock.h). */
#include "clock.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
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

void busy_ns(long long ns)
{
	long long end = thread_ns() + ns;
	volatile unsigned long sink = 0;
	int i;

	while (thread_ns() < end)
		for (i = 0; i < 2000; i++)
			sink += (unsigned long)i;
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

int touch_pages(size_t n)
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

long long voluntary_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw;
}
