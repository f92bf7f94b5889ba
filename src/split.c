/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A group split over the core PMUs of a hybrid CPU (lope_group__set_cores):
 * one group per core PMU with events on it and one for the events that
 * count everywhere, each an ordinary group with its own read path (a core
 * PMU's group reads its pages in user space on any cpu), and every verb
 * the sum of its parts.  The verbs reach here from group.c's slow paths
 * (a split group is never ready) through the operations that
 * lope_group__set_cores() installs (split_ops), so a group that is not
 * split pays nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cores.h"
#include "group_layout.h"
#include "split.h"

static const struct lope_split_ops split_ops;
static void split_close(struct lope_group *g);

/* Installs the split module's operations on @g (group_layout.h): the
 * only way a group reaches this file. */
int lope_group__set_cores(struct lope_group *g, const struct lope_cores *c)
{
	if (!g)
		return -EINVAL;
	if (lopelib_group__is_open(g))
		return -EBUSY;
	g->cores = lope_cores__nr(c) > 1 ? c : NULL;
	g->split = g->cores ? &split_ops : NULL;
	return 0;
}

static bool split_off(const struct lope_group *g)
{
	return lopelib_group__is_part(g) &&
	       lopelib_cores__off(g->core_of, g->core);
}

/* Does @g count on a core PMU's cpus only, or split over several? */
static bool split_needed(const struct lope_group *g)
{
	struct perf_event_attr parts[LOPE_CORES_MAX];
	int pmu[LOPE_CORES_MAX], i;

	if (!g->cores)
		return false;
	for (i = 0; i < g->nr; i++)
		if (lope_cores__split(g->cores, &g->ev[i].attr, parts, pmu,
				      LOPE_CORES_MAX) != 1 ||
		    pmu[0] >= 0)
			return true;
	return false;
}

/* Free the parts (closed or not). */
static void free_parts(struct lope_group *g)
{
	struct lope_split *p = g->parts;
	int k;

	if (!p)
		return;
	for (k = 0; k <= LOPE_CORES_MAX; k++) {
		lope_group__delete(p->g[k]);
		free(p->event_of[k]);
	}
	free(p->tmp);
	free(p->ctmp);
	free(p);
	g->parts = NULL;
}

/* Part @k (core PMU @k, or LOPE_CORES_MAX: none) of @g, made on first use. */
static struct lope_group *part(struct lope_group *g, int k)
{
	struct lope_split *p = g->parts;
	struct lope_group *q;

	if (p->g[k])
		return p->g[k];
	if (lope_group__new(&q, g->pid, g->cpu, g->flags))
		return NULL;
	if (k < LOPE_CORES_MAX) {
		q->core_of = g->cores;
		q->core = k;
		q->split = &split_ops; /* for off() */
	}
	p->g[k] = q;
	return q;
}

/* Does core PMU @pmu (-1: none) count on the group's cpu? */
static bool counts_on(const struct lope_group *g, int pmu)
{
	const struct lope_core *u;

	if (g->cpu < 0 || pmu < 0)
		return true;
	u = &g->cores->pmu[pmu];
	return !CPU_COUNT(&u->set) ||
	       (g->cpu < CPU_SETSIZE && CPU_ISSET(g->cpu, &u->set));
}

/* Event @i's parts into their groups. */
static int add_parts(struct lope_group *g, int i)
{
	struct perf_event_attr a[LOPE_CORES_MAX];
	int pmu[LOPE_CORES_MAX], n, k, j, added = 0;
	const struct lope_event *e = &g->ev[i];

	n = lope_cores__split(g->cores, &e->attr, a, pmu, LOPE_CORES_MAX);
	if (n < 0)
		return n;
	for (k = 0; k < n; k++) {
		struct lope_group *q;
		int slot = pmu[k] < 0 ? LOPE_CORES_MAX : pmu[k], *v;

		if (!counts_on(g, pmu[k]))
			continue; /* a cpu-wide set on another core type */
		q = part(g, slot);
		if (!q)
			return -ENOMEM;
		j = lope_group__add(q, &a[k]);
		if (j < 0)
			return j;
		v = realloc(g->parts->event_of[slot],
			    (size_t)(j + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		v[j] = i;
		g->parts->event_of[slot] = v;
		if (e->period) {
			j = lope_group__set_overflow(q, j, e->period, e->signo);
			if (j < 0)
				return j;
		}
		added++;
	}
	return added ? 0 : -ENOENT;
}

/* Open every part. */
static int open_parts(struct lope_group *g)
{
	struct lope_split *p = g->parts;
	int k, err, most = 0;

	for (k = 0; k <= LOPE_CORES_MAX; k++) {
		if (!p->g[k])
			continue;
		err = lope_group__open(p->g[k]);
		if (err)
			return err;
		g->nr_mapped += p->g[k]->nr_mapped;
		if (p->g[k]->nr > most)
			most = p->g[k]->nr;
	}
	p->tmp = malloc((size_t)most * sizeof(*p->tmp));
	p->ctmp = malloc((size_t)most * sizeof(*p->ctmp));
	return p->tmp && p->ctmp ? 0 : -ENOMEM;
}

static int split_open(struct lope_group *g)
{
	int i, err = 0;

	g->parts = calloc(1, sizeof(*g->parts));
	if (!g->parts)
		return -ENOMEM;
	for (i = 0; !err && i < g->nr; i++)
		err = add_parts(g, i);
	if (!err)
		err = open_parts(g);
	if (err) {
		split_close(g);
		return err;
	}
	/* g->opened stays false: never ready, its verbs come here. */
	g->parts->last = LOPE_PATH_NONE;
	return 0;
}

static void split_close(struct lope_group *g)
{
	free_parts(g);
	g->nr_mapped = 0;
	lopelib_set_running(g, false);
}

/*
 * Part @q's values from its raw counts @c (lope_group__read_raw's or
 * last_counts', relative to its bases).  A core type's part is scaled by
 * the time its first event ran, the time the thread was on that core
 * type, never by the enabled time, which runs on while it is on another;
 * the part that counts everywhere by its enabled time, as any group.
 */
static void part_values(const struct lope_group *q, const struct lope_counts *c,
			int64_t *v)
{
	uint64_t ref = c[0].run - q->ev[0].base.run, d, ena;
	int j;

	for (j = 0; j < q->nr; j++) {
		struct lope_counts b = lopelib_group__base_of(q, j);

		d = c[j].val - b.val;
		ena = lopelib_group__is_part(q) ? ref : c[j].ena - b.ena;
		v[j] = (int64_t)lopelib_scaled(d, ena, c[j].run - b.run) +
		       q->ev[j].offset;
	}
}

/* Add part @k's @v into @values. */
static void add_values(const struct lope_split *p, int k, const int64_t *v,
		       int64_t *values)
{
	int j;

	for (j = 0; j < p->g[k]->nr; j++)
		values[p->event_of[k][j]] += v[j];
}

static int split_read(struct lope_group *g, int64_t *values)
{
	struct lope_split *p = g->parts;
	enum lope_path last = LOPE_PATH_RDPMC;
	int k, err;

	memset(values, 0, (size_t)g->nr * sizeof(*values));
	for (k = 0; k <= LOPE_CORES_MAX; k++) {
		if (!p->g[k])
			continue;
		err = lope_group__read_raw(p->g[k], p->ctmp);
		if (err)
			return err;
		part_values(p->g[k], p->ctmp, p->tmp);
		add_values(p, k, p->tmp, values);
		if (lope_group__last_path(p->g[k]) != LOPE_PATH_RDPMC)
			last = LOPE_PATH_READ;
	}
	p->last = last;
	return 0;
}

static int split_reset(struct lope_group *g)
{
	int k, err;

	for (k = 0; k <= LOPE_CORES_MAX; k++) {
		if (!g->parts->g[k])
			continue;
		err = lope_group__reset(g->parts->g[k]);
		if (err)
			return err;
	}
	return 0;
}

/* A value written goes to the first part of its event, 0 to the others. */
static int split_write(struct lope_group *g, const int64_t *values)
{
	struct lope_split *p = g->parts;
	bool *done = calloc((size_t)g->nr, sizeof(*done));
	int k, j, err = done ? 0 : -ENOMEM;

	for (k = 0; !err && k <= LOPE_CORES_MAX; k++) {
		if (!p->g[k])
			continue;
		for (j = 0; j < p->g[k]->nr; j++) {
			int v = p->event_of[k][j];

			p->tmp[j] = done[v] ? 0 : values[v];
			done[v] = true;
		}
		err = lope_group__write(p->g[k], p->tmp);
	}
	free(done);
	return err;
}

static int split_enable(struct lope_group *g)
{
	struct lope_split *p = g->parts;
	int k, err;

	for (k = 0; k <= LOPE_CORES_MAX; k++) {
		if (!p->g[k])
			continue;
		err = lope_group__enable(p->g[k]);
		if (err) {
			while (--k >= 0)
				if (p->g[k])
					(void)lope_group__disable(p->g[k],
								  NULL);
			return err;
		}
	}
	lopelib_set_running(g, true);
	return 0;
}

static int split_disable(struct lope_group *g, int64_t *values, bool after_read)
{
	struct lope_split *p = g->parts;
	int k, err = 0, e;

	if (values)
		memset(values, 0, (size_t)g->nr * sizeof(*values));
	/* Every part stops, whatever one of them says. */
	for (k = 0; k <= LOPE_CORES_MAX; k++) {
		if (!p->g[k])
			continue;
		if (after_read)
			e = lope_group__disable_after_read(p->g[k]);
		else
			e = lope_group__disable(p->g[k],
						values ? p->tmp : NULL);
		if (!e && values)
			add_values(p, k, p->tmp, values);
		if (!err)
			err = e;
	}
	if (!err)
		lopelib_set_running(g, false);
	return err;
}

/*
 * Raw counts of a split event: the parts' counts summed, the longest
 * enabled time, and the running times summed (at most that): the time
 * some part counted.  @last: the latest sample's, else a new one.
 */
static int split_counts(struct lope_group *g, struct lope_counts *c, bool last)
{
	struct lope_split *p = g->parts;
	int k, j, err;

	memset(c, 0, (size_t)g->nr * sizeof(*c));
	for (k = 0; k <= LOPE_CORES_MAX; k++) {
		if (!p->g[k])
			continue;
		err = last ? lope_group__last_counts(p->g[k], p->ctmp) :
			     lope_group__read_raw(p->g[k], p->ctmp);
		if (err)
			return err;
		for (j = 0; j < p->g[k]->nr; j++) {
			struct lope_counts *to = &c[p->event_of[k][j]];

			to->val += p->ctmp[j].val;
			to->run += p->ctmp[j].run;
			if (p->ctmp[j].ena > to->ena)
				to->ena = p->ctmp[j].ena;
		}
	}
	for (j = 0; j < g->nr; j++)
		if (c[j].run > c[j].ena)
			c[j].run = c[j].ena;
	return 0;
}

/* Async-signal-safe: remembers which part's event it was, for rearm. */
static int split_find_fd(const struct lope_group *g, int fd)
{
	struct lope_split *p = g->parts;
	int k, j;

	for (k = 0; k <= LOPE_CORES_MAX; k++) {
		if (!p->g[k])
			continue;
		j = lope_group__find_fd(p->g[k], fd);
		if (j >= 0) {
			p->hit_g = k;
			p->hit_j = j;
			return p->event_of[k][j];
		}
	}
	return -ENOENT;
}

/*
 * Every part's overflows behind a signal of event @idx, part after part,
 * each named by the split group's index of its event.
 */
static int split_overflows(struct lope_group *g, int idx,
			   struct lope_overflow *out, int max)
{
	struct lope_split *p = g->parts;
	int k, j, i, n = 0, r, rings = 0;

	for (k = 0; k <= LOPE_CORES_MAX; k++) {
		if (!p->g[k])
			continue;
		for (j = 0; j < p->g[k]->nr; j++) {
			if (p->event_of[k][j] != idx)
				continue;
			r = lope_group__overflows(p->g[k], j, out + n, max - n);
			if (r == -ENOBUFS)
				continue;
			if (r < 0)
				return r;
			for (i = n; i < n + r; i++)
				out[i].idx = p->event_of[k][out[i].idx];
			rings++;
			n += r;
		}
	}
	return rings ? n : -ENOBUFS;
}

/* The part whose signal split_find_fd() last found. */
static int split_rearm(struct lope_group *g, int idx, int code)
{
	struct lope_split *p = g->parts;

	if (!p->g[p->hit_g] || p->event_of[p->hit_g][p->hit_j] != idx)
		return -EINVAL;
	return lope_group__rearm(p->g[p->hit_g], p->hit_j, code);
}

/*
 * The descriptor of split event @idx: its first part's, which owns it (a
 * split group's own events have none).
 */
static int split_fd(const struct lope_group *g, int idx)
{
	const struct lope_split *p = g->parts;
	int k, j;

	for (k = 0; k <= LOPE_CORES_MAX; k++)
		for (j = 0; p->g[k] && j < p->g[k]->nr; j++)
			if (p->event_of[k][j] == idx)
				return p->g[k]->ev[j].fd;
	return -ENOENT;
}

static enum lope_path split_last_path(const struct lope_group *g)
{
	return g->parts->last;
}

static const struct lope_split_ops split_ops = {
	.needed = split_needed,
	.open = split_open,
	.close = split_close,
	.read = split_read,
	.reset = split_reset,
	.write = split_write,
	.enable = split_enable,
	.disable = split_disable,
	.counts = split_counts,
	.last_path = split_last_path,
	.fd = split_fd,
	.find_fd = split_find_fd,
	.overflows = split_overflows,
	.rearm = split_rearm,
	.off = split_off,
};
