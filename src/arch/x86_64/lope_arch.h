/* SPDX-License-Identifier: BSD-3-Clause */
/* x86-64: rdpmc and rdtsc for the engine's user-space read. */
#ifndef LOPE_ARCH_H
#define LOPE_ARCH_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#define LOPE_ARCH_NAME "x86_64"

/* x86 loads are not reordered with other loads: a compiler barrier will do. */
#define lopelib_arch_rmb() __asm__ __volatile__("" ::: "memory")

/* Counter @counter into *@val: the page allowed it, so it cannot fault. */
static inline __attribute__((always_inline)) bool
lopelib_arch_rdpmc(uint32_t counter, uint64_t *val)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	*val = (uint64_t)hi << 32 | lo;
	return true;
}

/* rdtsc zeroes the upper halves of rax and rdx: no zero extension. */
static inline uint64_t lopelib_arch_cycles(void)
{
	uint64_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return hi << 32 | lo;
}

/*
 * lopelib_arch_cycles() into *@at, for a stamp on either side of a system
 * call, as two 32-bit stores: one instruction less than joining the
 * halves in a register first.  Each half is an operand of its own (clang's
 * assembler takes no "4+(%rcx)"), through a type that may alias *@at.
 */
typedef uint32_t lopelib_half __attribute__((may_alias));

static inline void lopelib_arch_cycles_to(uint64_t *at)
{
	lopelib_half *half = (lopelib_half *)at;

	__asm__ __volatile__("rdtsc\n\tmovl %%eax, %0\n\tmovl %%edx, %1"
			     : "=m"(half[0]), "=m"(half[1])
			     :
			     : "eax", "edx");
}

/* x86 needs no attribute bit to allow user-space reads. */
static inline void lopelib_arch_prepare_attr(struct perf_event_attr *attr)
{
	(void)attr;
}

/* Nothing was asked for, so nothing can be dropped when refused. */
static inline int lopelib_arch_relax_attr(struct perf_event_attr *attr)
{
	(void)attr;
	return 0;
}

/*
 * The sysfs switch for user-space reads: /sys/.../cpu/rdpmc is 0 (never),
 * 1 (only while the task has an event mapped, the default) or 2 (always).
 */
#define LOPE_ARCH_RDPMC_SWITCH "/sys/bus/event_source/devices/cpu/rdpmc"
#define LOPE_ARCH_RDPMC_SWITCH_ALT \
	"/sys/bus/event_source/devices/cpu_core/rdpmc"

/* No read faults once the page allows it (CR4.PCE is the task's). */
#define LOPE_ARCH_READ_SIGNAL 0

static inline bool lopelib_arch_guard_fixup(void *uc)
{
	(void)uc;
	return false;
}

#endif /* LOPE_ARCH_H */
