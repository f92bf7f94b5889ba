/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The split module's own layout (split.c): private to it and its tests.
 * The group reaches it only through the operations it installs
 * (struct lope_split_ops, group_layout.h).
 */
#ifndef LOPE_SPLIT_H
#define LOPE_SPLIT_H

#include "group_layout.h"

/* A split group's parts: group k of core PMU k, the last one of none. */
struct lope_split {
	struct lope_group *g[LOPE_CORES_MAX + 1];
	int *event_of[LOPE_CORES_MAX +
		      1]; /* event j of g[k] is part of event_of[k][j] */
	int64_t *tmp;     /* one part's values */
	struct lope_counts *ctmp; /* one part's raw counts */
	int hit_g, hit_j;         /* the last find_fd() */
	enum lope_path last;      /* the latest read() */
};

#endif /* LOPE_SPLIT_H */
