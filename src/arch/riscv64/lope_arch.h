/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * riscv64: user-space counter reads with csrr.  The kernel (6.6 and later)
 * allows them when the sysctl kernel.perf_user_access is 1 (each counter
 * this task has mapped; the default) or 2 (legacy: cycle and instret
 * only); the page's index is then the counter number plus one, and
 * counter n is CSR 0xC00 + n (0 cycle, 1 time, 2 instret, 3 to 31
 * hpmcounter3 to hpmcounter31).  The clock the page's time fields convert
 * is the time CSR.
 *
 * A counter's user access is a bit of scounteren that the kernel clears
 * when it stops the counter: a read that loaded a non-zero index just
 * before the kernel took the counter away (a multiplexing rotation, a
 * disable, throttling) raises SIGILL.  Each csrr is therefore guarded:
 * lopelib_guard__install() (src/guard.c) sets a SIGILL handler that, through
 * lopelib_arch_guard_fixup(), recognises the read's three-instruction
 * pattern and skips it with its success flag clear, and the caller then
 * reads with read(2).
 */
#ifndef LOPE_ARCH_H
#define LOPE_ARCH_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#define LOPE_ARCH_NAME "riscv64"

#define lopelib_arch_rmb() __asm__ __volatile__("fence ir, ir" ::: "memory")

/*
 * The guarded read of counter n: li ok,0; csrr v,0xC00+n; li ok,1, each
 * a 4-byte instruction (norvc), so that the handler can recognise it.
 * On a fault the handler resumes after the second li: ok stays 0.
 */
#define LOPE_RISCV_CSRR(n)                                \
	case n:                                           \
		__asm__ __volatile__(".option push\n\t"   \
				     ".option norvc\n\t"  \
				     "li %1, 0\n\t"       \
				     "csrr %0, %2\n\t"    \
				     "li %1, 1\n\t"       \
				     ".option pop"        \
				     : "=r"(v), "=&r"(ok) \
				     : "i"(0xC00 + (n))); \
		break

/* Counter @counter (the page's index - 1) into *@val; false if it faulted. */
static inline __attribute__((always_inline)) bool
lopelib_arch_rdpmc(uint32_t counter, uint64_t *val)
{
	uint64_t v = 0;
	long ok = 0;

	switch (counter) {
		LOPE_RISCV_CSRR(0);
		LOPE_RISCV_CSRR(1);
		LOPE_RISCV_CSRR(2);
		LOPE_RISCV_CSRR(3);
		LOPE_RISCV_CSRR(4);
		LOPE_RISCV_CSRR(5);
		LOPE_RISCV_CSRR(6);
		LOPE_RISCV_CSRR(7);
		LOPE_RISCV_CSRR(8);
		LOPE_RISCV_CSRR(9);
		LOPE_RISCV_CSRR(10);
		LOPE_RISCV_CSRR(11);
		LOPE_RISCV_CSRR(12);
		LOPE_RISCV_CSRR(13);
		LOPE_RISCV_CSRR(14);
		LOPE_RISCV_CSRR(15);
		LOPE_RISCV_CSRR(16);
		LOPE_RISCV_CSRR(17);
		LOPE_RISCV_CSRR(18);
		LOPE_RISCV_CSRR(19);
		LOPE_RISCV_CSRR(20);
		LOPE_RISCV_CSRR(21);
		LOPE_RISCV_CSRR(22);
		LOPE_RISCV_CSRR(23);
		LOPE_RISCV_CSRR(24);
		LOPE_RISCV_CSRR(25);
		LOPE_RISCV_CSRR(26);
		LOPE_RISCV_CSRR(27);
		LOPE_RISCV_CSRR(28);
		LOPE_RISCV_CSRR(29);
		LOPE_RISCV_CSRR(30);
		LOPE_RISCV_CSRR(31);
	}
	*val = v;
	return ok;
}

static inline uint64_t lopelib_arch_cycles(void)
{
	uint64_t v;

	__asm__ __volatile__("rdtime %0" : "=r"(v));
	return v;
}

/* The clock into *@at, for a stamp on either side of a system call. */
static inline void lopelib_arch_cycles_to(uint64_t *at)
{
	*at = lopelib_arch_cycles();
}

/* User access is the sysctl's and the mapping's: no attribute bit. */
static inline void lopelib_arch_prepare_attr(struct perf_event_attr *attr)
{
	(void)attr;
}

static inline int lopelib_arch_relax_attr(struct perf_event_attr *attr)
{
	(void)attr;
	return 0;
}

#define LOPE_ARCH_RDPMC_SWITCH "/proc/sys/kernel/perf_user_access"
#define LOPE_ARCH_RDPMC_SWITCH_ALT LOPE_ARCH_RDPMC_SWITCH

/* The encodings lopelib_arch_guard_fixup() looks for (RV64I). */
#define LOPE_RISCV_ADDI_X0(rd, imm) ((uint32_t)(imm) << 20 | (rd) << 7 | 0x13)
#define LOPE_RISCV_CSRR_MASK 0xfe0ff07fu    /* csr[11:5], rs1, funct3, opcode */
#define LOPE_RISCV_CSRR_COUNTER 0xc0002073u /* csrrs rd, 0xC00..0xC1F, x0 */

static inline uint32_t lopelib_riscv_insn(uintptr_t pc)
{
	uint16_t lo, hi; /* instructions are 2-byte aligned with RVC */

	memcpy(&lo, (const void *)pc, sizeof(lo));
	memcpy(&hi, (const void *)(pc + 2), sizeof(hi));
	return (uint32_t)hi << 16 | lo;
}

/*
 * Is the faulting instruction of @uc a guarded read's csrr?  If so, skip
 * it and its "li ok, 1": the read returns false.  gregs[0] is the pc,
 * gregs[n] register xn.
 */
static inline bool lopelib_arch_guard_fixup(void *uc)
{
	unsigned long *r = ((ucontext_t *)uc)->uc_mcontext.__gregs;
	uintptr_t pc = r[0];
	uint32_t insn = lopelib_riscv_insn(pc), rd = insn >> 7 & 31, ok;

	if ((insn & LOPE_RISCV_CSRR_MASK) != LOPE_RISCV_CSRR_COUNTER)
		return false;
	ok = lopelib_riscv_insn(pc + 4) >> 7 & 31;
	if (ok == 0 || ok == rd ||
	    lopelib_riscv_insn(pc + 4) != LOPE_RISCV_ADDI_X0(ok, 1) ||
	    lopelib_riscv_insn(pc - 4) != LOPE_RISCV_ADDI_X0(ok, 0))
		return false;
	r[0] = pc + 8;
	return true;
}

/* The signal a faulting read raises, for lopelib_arch_guard(). */
#define LOPE_ARCH_READ_SIGNAL SIGILL

#endif /* LOPE_ARCH_H */
