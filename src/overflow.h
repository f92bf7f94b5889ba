/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sampling events (overflow.c): the hooks of lope_group__open, close and
 * enable.  Private to the engine and its tests.
 */
#ifndef LOPE_OVERFLOW_H
#define LOPE_OVERFLOW_H

#include "group_layout.h"

void lopelib_overflow__prepare_attr(const struct lope_event *e,
				    struct perf_event_attr *a);
int lopelib_overflow__open(struct lope_group *g, struct lope_event *e);
void lopelib_overflow__close(struct lope_group *g, struct lope_event *e);
int lopelib_overflow__arm(struct lope_group *g);

#endif /* LOPE_OVERFLOW_H */
