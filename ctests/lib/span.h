/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A span: the kernel's own task-clock (or cpu-clock) of one task, read
 * just before and just after the call that starts a measured set and
 * just before and just after the call that stops it.  Whatever the host
 * steals or the scheduler does, the set's clock of the same task over the
 * same interval lies between the inner and the outer difference:
 *
 *	t[2] - t[1]  <=  set's count  <=  t[3] - t[0]
 *
 * Both are the same kernel clock of the same task, so no margin is needed
 * beyond the span's own width.  A thread's CPU time (CLOCK_THREAD_CPUTIME_ID,
 * rusage) is not that clock: on a virtual machine task-clock runs ahead
 * of it by whatever the host took while the task was on the CPU (4.5 to
 * 25 ms now and then on these guests).
 */
#ifndef LOPE_SPAN_H
#define LOPE_SPAN_H

#include <sys/types.h>

struct span {
	int fd;
	int n;          /* marks taken since span_open() or span_clear() */
	long long t[4]; /* the marks */
};

/*
 * Open the reference clock @config (PERF_COUNT_SW_TASK_CLOCK or
 * PERF_COUNT_SW_CPU_CLOCK) of the task @pid (0: this thread), counting
 * its children too when @inherit: 0, or -1 with errno set.
 */
int span_open(struct span *s, unsigned long long config, pid_t pid,
	      int inherit);

/*
 * The same clock of the cpu @cpu, every task on it (what a set attached
 * to that cpu counts): 0, or -1 with errno set.
 */
int span_open_cpu(struct span *s, unsigned long long config, int cpu);

/*
 * The same clock of the task @pid from its next exec on
 * (enable_on_exec), as a set armed for that exec counts it: the kernel
 * enables every such counter of a task at once and stops them at its
 * exit at once, so marks taken before the exec read 0 and marks taken
 * after the task was reaped its final count.  0, or -1 with errno set.
 */
int span_open_on_exec(struct span *s, unsigned long long config, pid_t pid);

/* span_open() of this thread's task-clock, or the case @name fails and
 * the test ends (lope_exit()). */
void span_open_self_or_exit(struct span *s, const char *name);

/* Forget the marks, to measure another interval with the same clock. */
void span_clear(struct span *s);

/*
 * The call that ended the last interval begins the next one (two reads
 * in a row): the last two marks become the first two (4 marks taken).
 */
void span_next(struct span *s);

/* Take the next mark: 0, or -1 when the clock cannot be read. */
int span_mark(struct span *s);

/*
 * Keep the two marks around the start and forget the others, to hold a
 * later read of the same interval.
 */
void span_again(struct span *s);

/*
 * Start the next span at this one's third mark, taken just before the
 * read that ended its interval: for an interval that may begin at that
 * read's sample.  The engine's reset right after a read reuses the read's
 * sample when it is younger than one read(2) (group.c, fresh()), so the
 * new interval starts inside that read, before the reset.  Without three
 * marks, the next span starts with none.
 */
void span_carry(struct span *s);

/* The least and the most the set can have counted (4 marks taken). */
long long span_lo(const struct span *s);
long long span_hi(const struct span *s);

/* Does @got lie within the span (4 marks taken)? */
int span_holds(const struct span *s, long long got);

void span_close(struct span *s);

#endif /* LOPE_SPAN_H */
