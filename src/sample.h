/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A group's sample (sample.c), below the group's verbs (group.c): for
 * group.c alone.  Private to the engine.
 */
#ifndef LOPE_SAMPLE_H
#define LOPE_SAMPLE_H

#include <stdbool.h>
#include <sys/types.h>

#include "group_layout.h"

/*
 * A new sample of @g, in user space where it works, else read(2); the
 * read the reset rule may reuse is forgotten, and @timed stamps a
 * read(2)'s anew.  0 or -errno, with no sample left (g->last NONE).
 */
int lopelib_group__sample(struct lope_group *g, bool timed);

/*
 * A read(2) of @len bytes from @fd that returned @n: read again on EINTR.
 * 0, or -errno (-EIO for a short read).
 */
int lopelib_group__read_again(int fd, void *buf, size_t len, ssize_t n);

/*
 * Every event's value from the latest sample: its own interval since its
 * base, scaled where the kernel multiplexed, and what was written.  The
 * slow path of a read; the common cases are group.c's.
 */
void lopelib_group__values(const struct lope_group *g, int64_t *values);

#endif /* LOPE_SAMPLE_H */
