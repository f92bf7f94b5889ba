/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How many samples a software clock event (perf::TASK-CLOCK,
 * perf::CPU-CLOCK) of period @p can have made over some runs of a set,
 * from what the same runs measured of the same thread.
 *
 * The kernel drives such an event with an hrtimer that expires every @p
 * ns of the time the task is on a CPU (the rest of the period is kept
 * while the task is switched out or the event stopped), and makes one
 * sample per expiry at most.  An expiry that comes late (the host stole
 * the virtual CPU, or interrupts were off) forwards the timer past the
 * expiries it missed: those are lost, not made up later.
 */
#ifndef LOPE_SAMPLES_H
#define LOPE_SAMPLES_H

/*
 * The most: over a run the event's clock is at most span_hi() of the
 * thread's own task-clock around its start and its stop (span.h), and
 * its first expiry can come at once (the rest of a period from before):
 * @hi / @p + 1 a run, @hi the span_hi()s of @runs runs summed.
 */
long long samples_most(long long hi, long long p, int runs);

/*
 * The least, for an event of the domain PAPI_DOM_ALL: the expiries lost
 * are those that fell in time the host stole from the thread, at most one
 * per @p of it, and with paravirt steal accounting
 * (CONFIG_PARAVIRT_TIME_ACCOUNTING, as on these guests) the thread's CPU
 * time is its task-clock less that time, but for the edges of its time
 * slices: the scheduler's account of a slice starts before the switch to
 * the thread and perf's after it, so CPU time can run ahead of task-clock
 * by a few hundred ns a context switch (2 us at most seen here: 0.57 ms
 * over 278 switches in 400 ms against two spinning threads on 2 cpus;
 * SAMPLES_SWITCH_NS allows ten times that).  So a run whose thread spent
 * @cpu ns of CPU time and made @switches context switches between its
 * start and its stop has at least
 * (@cpu - @switches * SAMPLES_SWITCH_NS) / @p - 1 samples; @cpu and
 * @switches are those of @runs runs summed.  When the kernel's
 * perf_event_max_sample_rate could throttle the event, one a tick still
 * passes: 1 at most.
 *
 * In the user domain the kernel also drops every expiry that comes while
 * the thread is in the kernel (its system calls and page faults, the
 * delivery of the overflow signal itself); our library hands them out all
 * the same, found in later samples: samples_of_count() bounds those.
 */
#define SAMPLES_SWITCH_NS 20000LL
long long samples_least(long long cpu, long long switches, long long p,
			int runs);

/*
 * The least by the event's own count, in any domain: the engine hands out
 * one overflow per multiple of the period that the event's count passed
 * (lope_group__overflows(), src/lope.h), also those the kernel did not
 * sample (a user-domain clock's expiry that came while the thread was in
 * the kernel).  It finds them in the samples, so the multiples after the
 * latest sample wait for the next one: that of the stop's own system call,
 * and the latest, which the next run's samples show.  Over @runs runs
 * whose values (PAPI_stop's) sum to @count: @count / @p - 1 - @runs.
 */
long long samples_of_count(long long count, long long p, int runs);

/*
 * This thread's context switches so far, voluntary or not; -1 when
 * getrusage() fails (then samples_least() says 0).
 */
long long samples_switches(void);

#endif /* LOPE_SAMPLES_H */
