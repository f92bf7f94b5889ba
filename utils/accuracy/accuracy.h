/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_accuracy: how many instructions a PAPI measurement gets wrong.
 *
 * After Zaparanuks, Jovic and Hauswirth, "Accuracy of performance counter
 * measurements": PAPI_TOT_INS is measured around two benchmarks whose
 * instruction count is known,
 *
 *   null   nothing between the two measurement calls (0 instructions),
 *   loop   inline assembly of exactly 1 + 3N instructions:
 *              mov N, %rcx; 1: dec %rcx; nop; jnz 1b
 *
 * with the four access patterns start-read, start-stop, read-read and
 * read-stop, in the user and the user+kernel domain, many times each.  The
 * error is the measured count minus the expected one; it is summarised per
 * pattern and path (median, p10, p90, min, max), and its growth per loop
 * iteration is the least-squares slope of the median error over N.
 *
 * Like papi_overhead, the parent re-executes itself (/proc/self/exe) as one
 * worker per path: ours-rdpmc (our libpapi, user-space reads allowed),
 * ours-read (LOPE_NO_RDPMC=1: the read() path) and stock (another libpapi).
 * Each worker sends its rows of the report; the parent prints the rows of
 * the paths it shows, each after the path's name.
 *
 * --check-loop counts the loop's instructions without any PMU: a child
 * runs the loop under ptrace(PTRACE_SINGLESTEP) and the parent counts the
 * steps inside it.
 *
 *   main.c        options, the parent: its workers and the report
 *   patterns.c    the worker: the patterns around each benchmark
 *   check_loop.c  --check-loop
 *
 * Exit status: 0 done, 1 a measurement failed, 2 bad input, 77 no core PMU
 * (PAPI_TOT_INS cannot be counted here).
 */
#ifndef LOPE_ACCURACY_H
#define LOPE_ACCURACY_H

#include "../tool.h"
#include "../worker.h"

#define PROG "papi_accuracy"

#define MAX_REPS 100000
#define MAX_LOOP_N 100000000L
#define MAX_NS 8

/*
 * The loop's iteration count lives in a global so that the asm reads it
 * with one instruction (a rip-relative mov): nothing else between the two
 * measurement calls depends on N.  N must be >= 1.
 */
extern long loop_n;

#if defined(__x86_64__)
#define HAVE_LOOP 1
/* 1 + 3N instructions: the mov, then N times dec, nop, jnz. */
#define LOOP_ASM            \
	"mov %[n], %%rcx\n" \
	"1:\n\t"            \
	"dec %%rcx\n\t"     \
	"nop\n\t"           \
	"jnz 1b\n"
#define BENCH_LOOP() \
	__asm__ __volatile__(LOOP_ASM ::[n] "m"(loop_n) : "rcx", "cc", "memory")
#else
#define HAVE_LOOP 0
#define BENCH_LOOP() __asm__ __volatile__("" ::: "memory")
#endif
#define BENCH_NULL() __asm__ __volatile__("" ::: "memory")

/* The worker: every pattern and benchmark of event @event, @reps times. */
int acc_worker(const char *event, long reps, const long *ns, int nns);

/* --check-loop: the loop's instructions counted by ptrace; an exit code. */
int check_loop(void);

#endif /* LOPE_ACCURACY_H */
