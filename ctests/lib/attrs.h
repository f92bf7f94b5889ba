/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event attributes for the engine's tests, which hand them to
 * lope_group__add() (the PAPI tests name their events instead).
 */
#ifndef LOPE_ATTRS_H
#define LOPE_ATTRS_H

#include <linux/perf_event.h>

/* How many events sw_attrs() knows. */
#define SW_ATTRS 3

/*
 * @a[0 .. @n), @n at most SW_ATTRS: task-clock, page-faults and
 * context-switches of the calling thread, in user mode only (which any
 * perf_event_paranoid setting allows a process to count of itself).
 */
void sw_attrs(struct perf_event_attr *a, int n);

#endif /* LOPE_ATTRS_H */
