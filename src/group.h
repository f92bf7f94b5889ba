/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The group's own internal verbs (group.c), above its layout
 * (group_layout.h): for open.c and the engine's tests.  Private to the
 * engine and its tests.
 */
#ifndef LOPE_GROUP_H
#define LOPE_GROUP_H

#include <stdbool.h>

#include "group_layout.h"

/*
 * Set g->head.read from the group's state: @ready (open, its bases in
 * place), whether a write left offsets, how it samples (g->ready_read,
 * and g->ready_reset with it, worked out here from g->sampler,
 * g->sysread_len and g->grouped).  group.c's verbs that change the
 * state choose again; never a measured read.
 */
void lopelib_group__choose(struct lope_group *g, bool ready);

/*
 * The invariants of readiness and of the lazy stop (at their fields in
 * group_layout.h): after each change of state, LOPE_CHECK(g) aborts with
 * the one broken in a debug build (-DLOPE_DEBUG: the sanitizer builds,
 * ctests/sanitize/test_asan.sh), and is nothing otherwise.
 */
void lopelib_group__check(const struct lope_group *g);
#ifdef LOPE_DEBUG
#define LOPE_CHECK(g) lopelib_group__check(g)
#else
#define LOPE_CHECK(g) ((void)0)
#endif

#endif /* LOPE_GROUP_H */
