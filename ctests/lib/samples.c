/* SPDX-License-Identifier: BSD-3-Clause */
/* The samples a software clock event can have made (samples.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RUSAGE_THREAD */
#endif
#include "samples.h"

#include <stdio.h>
#include <sys/resource.h>

long long samples_most(long long hi, long long p, int runs)
{
	return hi / p + runs;
}

/*
 * The kernel throttles an event that overflows more than
 * perf_event_max_sample_rate / HZ times in one tick: with the rate at
 * least twice the event's, whatever HZ, it cannot.
 */
static int may_throttle(long long p)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	long long rate = 0;

	if (f) {
		if (fscanf(f, "%lld", &rate) != 1)
			rate = 0;
		fclose(f);
	}
	return rate < 2 * (1000000000LL / p);
}

long long samples_least(long long cpu, long long switches, long long p,
			int runs)
{
	long long n = (cpu - switches * SAMPLES_SWITCH_NS) / p - runs;

	if (switches < 0)
		return 0;
	if (n > 1 && may_throttle(p))
		n = 1; /* one a tick still passes */
	return n > 0 ? n : 0;
}

long long samples_of_count(long long count, long long p, int runs)
{
	long long n = count / p - 1 - runs;

	return n > 0 ? n : 0;
}

long long samples_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}
