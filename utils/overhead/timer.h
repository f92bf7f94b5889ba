/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The timer meter's clock, read serialised so that the call between two
 * reads is all the difference measures.
 */
#ifndef LOPE_OVERHEAD_TIMER_H
#define LOPE_OVERHEAD_TIMER_H

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

#endif /* LOPE_OVERHEAD_TIMER_H */
