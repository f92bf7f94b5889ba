/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Changing a group: its target, flags, attributes or an overflow period
 * in place (lope_group__change), or its events for another group's
 * (lope_group__replace).  Both close the old counters before opening the
 * new ones, so a group never holds two sets of descriptors and one
 * changed near RLIMIT_NOFILE needs no more than it will hold; and both
 * open the old settings again, with their values, when the kernel
 * refuses the new.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "group_layout.h"

/* Does @g overflow on any event once @ch is applied? */
static bool overflows_after(const struct lope_group *g,
			    const struct lope_change *ch)
{
	int n = g->nr_overflow;

	if (ch->what & LOPE_CHANGE_OVERFLOW)
		n += (ch->period != 0) - (g->ev[ch->idx].period != 0);
	return n > 0;
}

/* Everything the kernel is not asked about: -EINVAL, -EOPNOTSUPP. */
static int check(const struct lope_group *g, const struct lope_change *ch)
{
	pid_t pid = ch->what & LOPE_CHANGE_TARGET ? ch->pid : g->pid;
	int cpu = ch->what & LOPE_CHANGE_TARGET ? ch->cpu : g->cpu;
	unsigned int flags = ch->what & LOPE_CHANGE_FLAGS ? ch->flags :
							    g->flags;

	if (cpu < -1 || (pid == -1 && cpu == -1))
		return -EINVAL;
	if ((ch->what & LOPE_CHANGE_ATTR) && !ch->edit)
		return -EINVAL;
	if ((ch->what & LOPE_CHANGE_OVERFLOW) &&
	    (ch->idx < 0 || ch->idx >= g->nr ||
	     (ch->period && (ch->signo < 1 || ch->signo > SIGRTMAX))))
		return -EINVAL;
	/* The kernel refuses PERF_EVENT_IOC_REFRESH on inherited events. */
	if ((flags & LOPE_INHERIT) && overflows_after(g, ch))
		return -EOPNOTSUPP;
	return 0;
}

/* lope_change's edit that puts back the attributes saved in @arg. */
static void restore_attr(struct perf_event_attr *attr, int idx, void *arg)
{
	*attr = ((const struct perf_event_attr *)arg)[idx];
}

/*
 * @g's settings that @ch changes, as the change that undoes it; edited
 * attributes are copied into @undo->arg (the caller frees it).
 */
static int save(const struct lope_group *g, const struct lope_change *ch,
		struct lope_change *undo)
{
	struct perf_event_attr *a = NULL;
	int i;

	if (ch->what & LOPE_CHANGE_ATTR) {
		a = malloc((size_t)g->nr * sizeof(*a));
		if (!a)
			return -ENOMEM;
		for (i = 0; i < g->nr; i++)
			a[i] = g->ev[i].attr;
	}
	*undo = (struct lope_change){
		.what = ch->what,
		.pid = g->pid,
		.cpu = g->cpu,
		.flags = g->flags,
		.edit = restore_attr,
		.arg = a,
		.idx = ch->idx,
	};
	if (ch->what & LOPE_CHANGE_OVERFLOW) {
		undo->period = g->ev[ch->idx].period;
		undo->signo = g->ev[ch->idx].signo;
	}
	return 0;
}

/*
 * @ch into the settings of @g, which is closed; check() passed, so the
 * overflow cannot be refused.  The flags go first: they decide whether a
 * period is allowed.
 */
static void apply(struct lope_group *g, const struct lope_change *ch)
{
	int i;

	if (ch->what & LOPE_CHANGE_TARGET) {
		g->pid = ch->pid;
		g->cpu = ch->cpu;
	}
	if (ch->what & LOPE_CHANGE_FLAGS)
		g->flags = ch->flags;
	for (i = 0; (ch->what & LOPE_CHANGE_ATTR) && i < g->nr; i++) {
		ch->edit(&g->ev[i].attr, i, ch->arg);
		g->ev[i].attr.size = sizeof(g->ev[i].attr);
	}
	if (ch->what & LOPE_CHANGE_OVERFLOW)
		(void)lope_group__set_overflow(g, ch->idx, ch->period,
					       ch->signo);
}

/*
 * @g's values, if any is not 0: what a reopen must give back (NULL: all 0,
 * nothing to restore).  A stopped set's values are 0 unless written.
 */
static int saved_values(struct lope_group *g, int64_t **out)
{
	int64_t *v = malloc((size_t)g->nr * sizeof(*v));
	int i, err;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	err = lope_group__read(g, v);
	for (i = 0; !err && i < g->nr; i++)
		if (v[i]) {
			*out = v;
			return 0;
		}
	free(v);
	return err;
}

/*
 * Close @g (open, stopped), apply @ch to it if given, and open @next (@g
 * itself, or another group).  Refused: @undo (if given) back into @g,
 * which is opened again with its values.  Its descriptors were just
 * freed, so only another thread taking them can make that fail; @g then
 * stays closed, for a later lope_group__open().
 */
static int reopen(struct lope_group *g, struct lope_group *next,
		  const struct lope_change *ch, const struct lope_change *undo)
{
	int64_t *v;
	int err = saved_values(g, &v);

	if (err)
		return err;
	lope_group__close(g);
	if (ch)
		apply(g, ch);
	err = lope_group__open(next);
	if (err && undo)
		apply(g, undo);
	if (err && lope_group__open(g) == 0 && v)
		(void)lope_group__write(g, v); /* a read(2) that just worked */
	free(v);
	return err;
}

int lope_group__change(struct lope_group *g, const struct lope_change *ch)
{
	struct lope_change undo;
	int err;

	if (!g || !ch)
		return -EINVAL;
	err = check(g, ch);
	if (err)
		return err;
	if (!lopelib_group__is_open(g)) {
		apply(g, ch);
		return 0;
	}
	if (g->running)
		return -EBUSY;
	err = save(g, ch, &undo);
	if (err)
		return err;
	err = reopen(g, g, ch, &undo);
	free(undo.arg);
	return err;
}

int lope_group__replace(struct lope_group *g, struct lope_group *next)
{
	if (!next || next == g)
		return -EINVAL;
	if (!g || !lopelib_group__is_open(g))
		return lope_group__open(next);
	if (g->running)
		return -EBUSY;
	return reopen(g, next, NULL, NULL);
}
