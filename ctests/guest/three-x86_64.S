/* SPDX-License-Identifier: BSD-3-Clause */
/* exit(0) in three instructions, no libc: papi_stat must count exactly 3
 * user-mode instructions (doc/papi_stat.md). */
	.globl _start
	.text
_start:
	xorl	%edi, %edi
	movl	$60, %eax	/* __NR_exit */
	syscall
