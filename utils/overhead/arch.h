/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What papi_overhead needs of the processor: a serialised timer around
 * each measured call, and for the raw floor the rdpmc instruction.
 */
#ifndef LOPE_OVERHEAD_ARCH_H
#define LOPE_OVERHEAD_ARCH_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#define TIMER_UNIT "cycles"
#define TIMER_NAME "lfence;rdtsc;lfence"
static inline __attribute__((always_inline)) uint64_t now(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence"
			     : "=a"(lo), "=d"(hi)::"memory");
	return (uint64_t)hi << 32 | lo;
}

#define HAVE_RDPMC 1
static inline uint64_t arch_rdpmc(uint32_t counter)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}
#elif defined(__aarch64__)
#define TIMER_UNIT "ticks"
#define TIMER_NAME "isb;mrs cntvct_el0"
static inline __attribute__((always_inline)) uint64_t now(void)
{
	uint64_t v;

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb"
			     : "=r"(v)::"memory");
	return v;
}
#else
#define TIMER_UNIT "ns"
#define TIMER_NAME "clock_gettime(CLOCK_MONOTONIC_RAW)"
static inline uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

/* The raw floor's user-space read is written for x86 only: never called
 * elsewhere (raw_rdpmc_ok() says no first). */
#ifndef HAVE_RDPMC
#define HAVE_RDPMC 0
static inline uint64_t arch_rdpmc(uint32_t counter)
{
	(void)counter;
	__builtin_trap();
}
#endif

#endif /* LOPE_OVERHEAD_ARCH_H */
