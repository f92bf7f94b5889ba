/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arm64: user-space counter reads with mrs.  The kernel (5.17 and later)
 * allows them when the sysctl kernel.perf_user_access is 1 and the event
 * asks for it with bit 1 of config1; the page's index is then the counter
 * number plus one, and index 32 is the cycle counter.
 */
#ifndef LOPE_ARCH_H
#define LOPE_ARCH_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#define LOPE_ARCH_NAME "aarch64"

#define lopelib_arch_rmb() __asm__ __volatile__("dmb ishld" ::: "memory")

#define LOPE_ARM64_CYCLE_COUNTER 31

#define LOPE_MRS_EVCNTR(n)                                                    \
	case n:                                                               \
		__asm__ __volatile__("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); \
		break

/*
 * Counter @counter into *@val.  PMUSERENR_EL0 is the task's: a counter
 * taken away after the index was read reads another value, which the
 * seqlock discards, and never faults.
 */
static inline __attribute__((always_inline)) bool
lopelib_arch_rdpmc(uint32_t counter, uint64_t *val)
{
	uint64_t v = 0;

	switch (counter) {
		LOPE_MRS_EVCNTR(0);
		LOPE_MRS_EVCNTR(1);
		LOPE_MRS_EVCNTR(2);
		LOPE_MRS_EVCNTR(3);
		LOPE_MRS_EVCNTR(4);
		LOPE_MRS_EVCNTR(5);
		LOPE_MRS_EVCNTR(6);
		LOPE_MRS_EVCNTR(7);
		LOPE_MRS_EVCNTR(8);
		LOPE_MRS_EVCNTR(9);
		LOPE_MRS_EVCNTR(10);
		LOPE_MRS_EVCNTR(11);
		LOPE_MRS_EVCNTR(12);
		LOPE_MRS_EVCNTR(13);
		LOPE_MRS_EVCNTR(14);
		LOPE_MRS_EVCNTR(15);
		LOPE_MRS_EVCNTR(16);
		LOPE_MRS_EVCNTR(17);
		LOPE_MRS_EVCNTR(18);
		LOPE_MRS_EVCNTR(19);
		LOPE_MRS_EVCNTR(20);
		LOPE_MRS_EVCNTR(21);
		LOPE_MRS_EVCNTR(22);
		LOPE_MRS_EVCNTR(23);
		LOPE_MRS_EVCNTR(24);
		LOPE_MRS_EVCNTR(25);
		LOPE_MRS_EVCNTR(26);
		LOPE_MRS_EVCNTR(27);
		LOPE_MRS_EVCNTR(28);
		LOPE_MRS_EVCNTR(29);
		LOPE_MRS_EVCNTR(30);
	case LOPE_ARM64_CYCLE_COUNTER:
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	}
	*val = v;
	return true;
}

static inline uint64_t lopelib_arch_cycles(void)
{
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

/*
 * The clock into *@at, for a stamp on either side of a system call (the
 * reset rule's read duration): without the isb, as the exception entry
 * and return are context-synchronizing, so the counter is read before
 * the call or after it, as wanted.
 */
static inline void lopelib_arch_cycles_to(uint64_t *at)
{
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	*at = v;
}

/*
 * config1 bit 1 asks the arm_pmuv3 driver for user access ("rdpmc"), and
 * bit 0 for a 64-bit counter: one overflow interrupt per
 * 2^64 events instead of one per 2^31 perturbing the measured program.
 * PMUs without 64-bit event counters (before PMUv3p5, e.g. Cortex-A72)
 * refuse it with user access (EOPNOTSUPP): lopelib_arch_relax_attr().
 */
#define LOPE_ARM64_LONG (1ull << 0)

static inline void lopelib_arch_prepare_attr(struct perf_event_attr *attr)
{
	attr->config1 |= LOPE_ARM64_LONG | 1ull << 1;
}

/* What to drop when the kernel refuses the attribute: 1 if dropped. */
static inline int lopelib_arch_relax_attr(struct perf_event_attr *attr)
{
	if (!(attr->config1 & LOPE_ARM64_LONG))
		return 0;
	attr->config1 &= ~LOPE_ARM64_LONG;
	return 1;
}

#define LOPE_ARCH_RDPMC_SWITCH "/proc/sys/kernel/perf_user_access"
#define LOPE_ARCH_RDPMC_SWITCH_ALT LOPE_ARCH_RDPMC_SWITCH

#define LOPE_ARCH_READ_SIGNAL 0

static inline bool lopelib_arch_guard_fixup(void *uc)
{
	(void)uc;
	return false;
}

#endif /* LOPE_ARCH_H */
