/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry of lazy stops (park.c, doc/lazy-stop.md), the layer under
 * the group's verbs.  Private to the engine and its tests.
 */
#ifndef LOPE_PARK_H
#define LOPE_PARK_H

#include "group_layout.h"

/* How many groups are listed, read without the lock by every kernel
 * enable (0: nothing to look for). */
extern LOPE_PRIVATE unsigned int lopelib_park_nr;
/* Register park.c's own fork handler, before a group may be listed: 0,
 * or -ENOMEM (then no group may be lazy). */
int lopelib_park__watch_fork(void);
void lopelib_park__list(struct lope_group *g);
void lopelib_park__unlist(struct lope_group *g);
/* Before @g is enabled in the kernel: disable (demote) the calling
 * thread's parked groups that would share a PMU with it.  0, or the first
 * ioctl's error. */
int lopelib_park__make_room(const struct lope_group *g);

#endif /* LOPE_PARK_H */
