/* SPDX-License-Identifier: BSD-3-Clause */
/* --check-loop (accuracy.h says how): no PMU, ptrace single-steps. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "accuracy.h"

#if HAVE_LOOP
/* The loop between two labels, the same asm as the benchmark's. */
extern const char lope_acc_loop_begin[], lope_acc_loop_end[];
static __attribute__((noinline, noclone, used)) void loop_region(void)
{
	__asm__ __volatile__(".globl lope_acc_loop_begin\n"
			     "lope_acc_loop_begin:\n\t" LOOP_ASM
			     ".globl lope_acc_loop_end\n"
			     "lope_acc_loop_end:\n" ::[n] "m"(loop_n)
			     : "rcx", "cc", "memory");
}

/* Say why the loop cannot be single-stepped: @why, then errno's text if
 * @sys; -1. */
static long cannot(const char *why, int sys)
{
	printf(PROG ": cannot single-step: %s%s%s\n", why, sys ? ": " : "",
	       sys ? strerror(errno) : "");
	return -1;
}

/* Single-step @pid until it leaves the region; instructions inside it.
 * No step limit: the straight code around a loop of N <= 1000 ends. */
static long step_count(pid_t pid)
{
	uintptr_t b = (uintptr_t)lope_acc_loop_begin;
	uintptr_t e = (uintptr_t)lope_acc_loop_end;
	struct user_regs_struct regs;
	long count = 0;
	int st;

	for (;;) {
		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
			return cannot("PTRACE_GETREGS", 1);
		if (regs.rip == e)
			return count;
		if (regs.rip >= b && regs.rip < e)
			count++;
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) ||
		    waitpid(pid, &st, 0) != pid)
			return cannot("PTRACE_SINGLESTEP", 1);
		if (!WIFSTOPPED(st))
			return cannot("the child ended before the loop", 0);
	}
}

/* Instructions the loop executes for @n, by ptrace; -1 after saying why. */
static long loop_instructions(long n)
{
	long count = -1;
	pid_t pid;
	int st;

	loop_n = n;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return cannot("fork", 1);
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(3);
		raise(SIGSTOP);
		loop_region();
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		cannot("ptrace is not allowed here (the child did not stop)",
		       0);
	else
		count = step_count(pid);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return count;
}

int check_loop(void)
{
	static const long ns[] = { 1, 2, 3, 10, 1000 };
	unsigned i;
	int bad = 0;

	printf(PROG ": loop benchmark instructions, counted by single-stepping "
		    "it with ptrace:\n");
	for (i = 0; i < ARRAY_SIZE(ns); i++) {
		long c = loop_instructions(ns[i]);

		if (c < 0)
			return EX_SKIP;
		printf("  N=%-5ld %6ld instructions, 1+3N = %6ld: %s\n", ns[i],
		       c, 1 + 3 * ns[i], c == 1 + 3 * ns[i] ? "ok" : "WRONG");
		bad |= c != 1 + 3 * ns[i];
	}
	printf("loop check (ptrace): %s\n", bad ? "WRONG" : "ok");
	return bad ? EX_FAIL : EX_OK;
}
#else
int check_loop(void)
{
	printf(PROG ": the loop benchmark is implemented for x86-64 only\n");
	return EX_SKIP;
}
#endif
