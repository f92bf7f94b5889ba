/* SPDX-License-Identifier: BSD-3-Clause */
/* exit(0) in three instructions, no libc: papi_stat must count exactly 3
 * user-mode instructions (doc/papi_stat.md). */
	.globl _start
	.text
_start:
	mov	x0, #0
	mov	x8, #93		/* __NR_exit */
	svc	#0
