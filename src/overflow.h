/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sampling events (overflow.c): the hooks of lope_group__open, close and
 * enable.  Private to the engine and its tests.
 */
#ifndef LOPE_OVERFLOW_H
#define LOPE_OVERFLOW_H

#include "group_layout.h"

/*
 * Overflow signals that can wait for one event: the kernel's event_limit
 * the engine keeps it at (overflow.c says why).  A sampling event's ring
 * has room for that many samples: its data pages are the least power of
 * two that holds them (ring_pages()).
 */
#define LOPE_OVERFLOW_BUDGET 64

void lopelib_overflow__prepare_attr(const struct lope_event *e,
				    struct perf_event_attr *a);
int lopelib_overflow__open(struct lope_group *g, struct lope_event *e);
void lopelib_overflow__close(struct lope_group *g, struct lope_event *e);
int lopelib_overflow__arm(struct lope_group *g);

#endif /* LOPE_OVERFLOW_H */
