/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Clocks and known work: what the tests compare counts against.  Every
 * time is in nanoseconds, as perf's task-clock and cpu-clock count.
 */
#ifndef LOPE_CLOCK_H
#define LOPE_CLOCK_H

#include <stddef.h>
#include <time.h>

#define MS 1000000LL /* nanoseconds in a millisecond */

long long clock_ns(clockid_t id);
long long thread_ns(void);  /* this thread's CPU time */
long long process_ns(void); /* this process's CPU time */
long long wall_ns(void);    /* CLOCK_MONOTONIC */

/*
 * Spin on this thread's CPU for @ns nanoseconds of its own CPU time (a
 * microsecond or two more at most), nearly all of it in user mode.
 */
void busy_ns(long long ns);

/* busy_ns(@ns), and the CPU time this thread really used doing it. */
long long spin_ns(long long ns);

/* Sleep @ns nanoseconds of wall time, through signals. */
void sleep_ns(long long ns);

/* |got - want| <= want * rel + abs */
int near(long long got, long long want, double rel, long long abs);

/*
 * Map @n fresh pages, write one byte to each from user space (n page
 * faults, no transparent huge page), and unmap them: 0, or -1 when the
 * mapping failed.
 */
int touch_pages(size_t n);

/*
 * Write to 128 KiB of stack below the caller, so that the calls it then
 * measures find their stack mapped (no page fault of their own).
 */
void warm_stack(void);

/*
 * @iters rounds of pure arithmetic, no calls: every user-mode sample taken
 * while it runs lands in it (the code PAPI_profil tests give a histogram).
 */
unsigned long profiled_loop(long iters);

/* This process's voluntary context switches so far (getrusage). */
long long voluntary_switches(void);

#endif /* LOPE_CLOCK_H */
