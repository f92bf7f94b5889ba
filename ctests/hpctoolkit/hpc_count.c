/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpc_count: the program the emulated x86-64 machine profiles with
 * HPCToolkit (ctests/guest/test_x86_64.sh): a loop of exactly 2 N user
 * instructions on one source line, N = 10 P, P = 1,000,003.  Sampling
 * user instructions every P, with a PMU that interrupts at the
 * overflowing instruction (QEMU's icount), takes exactly 20 samples on
 * that line, wherever the period stood when the loop began: any 20 P
 * consecutive instructions hold exactly 20 multiples of P.  (The
 * interrupt's address is the instruction after the overflowing one: the
 * window moves by one instruction, and still holds 20.)  Every 2 P, 10.
 */
#include <stdio.h>

#define P 1000003UL
#define N (10 * P)

static __attribute__((noinline)) void count_loop(unsigned long n)
{
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc"); /* loop */
}

int main(void)
{
	count_loop(N);
	printf("hpc_count: %lu instructions in the loop\n", 2 * N);
	return 0;
}
