/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The core PMUs of a hybrid CPU, and how an event counts on each of them
 * (lope.h: lope_cores).  Read once from sysfs; lope_cores__split() is a
 * pure function of what was read, so tests drive it with trees of their
 * own.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cores.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Without the extended type, a generic event is each PMU's own sysfs
 * event of the same meaning: the names x86 and Arm kernels give them
 * (perf_event.h's meaning, not a kernel's legacy map: on Arm 6.1 that
 * counts branches as PC_WRITE_RETIRED).
 */
struct alias {
	__u64 config; /* PERF_COUNT_HW_*, or the HW_CACHE id|op<<8|result<<16 */
	const char *names[3];
};

static const struct alias hw_aliases[] = {
	{ PERF_COUNT_HW_CPU_CYCLES, { "cpu-cycles", "cycles", "cpu_cycles" } },
	{ PERF_COUNT_HW_INSTRUCTIONS, { "instructions", "inst_retired" } },
	{ PERF_COUNT_HW_CACHE_REFERENCES, { "cache-references" } },
	{ PERF_COUNT_HW_CACHE_MISSES, { "cache-misses" } },
	{ PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  { "branch-instructions", "branches", "br_retired" } },
	{ PERF_COUNT_HW_BRANCH_MISSES,
	  { "branch-misses", "br_mis_pred_retired", "br_mis_pred" } },
	{ PERF_COUNT_HW_BUS_CYCLES, { "bus-cycles", "bus_cycles" } },
	{ PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	  { "stalled-cycles-frontend", "stall_frontend" } },
	{ PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	  { "stalled-cycles-backend", "stall_backend" } },
	{ PERF_COUNT_HW_REF_CPU_CYCLES, { "ref-cycles" } },
};

#define CACHE(id, op, res)                         \
	((__u64)PERF_COUNT_HW_CACHE_##id |         \
	 (__u64)PERF_COUNT_HW_CACHE_OP_##op << 8 | \
	 (__u64)PERF_COUNT_HW_CACHE_RESULT_##res << 16)

/* The cache events Arm names (x86 hybrid kernels take the extended type). */
static const struct alias cache_aliases[] = {
	{ CACHE(L1D, READ, ACCESS), { "l1d_cache_rd" } },
	{ CACHE(L1D, READ, MISS), { "l1d_cache_refill_rd" } },
	{ CACHE(L1D, WRITE, ACCESS), { "l1d_cache_wr" } },
	{ CACHE(L1D, WRITE, MISS), { "l1d_cache_refill_wr" } },
	{ CACHE(L1I, READ, ACCESS), { "l1i_cache" } },
	{ CACHE(L1I, READ, MISS), { "l1i_cache_refill" } },
	{ CACHE(ITLB, READ, MISS), { "l1i_tlb_refill" } },
	{ CACHE(BPU, READ, ACCESS), { "br_pred" } },
	{ CACHE(BPU, READ, MISS), { "br_mis_pred" } },
};

/* "0-3,8" into @set; -EINVAL for anything else. */
static int parse_cpus(const char *s, cpu_set_t *set)
{
	unsigned long a, b;
	char *end;

	CPU_ZERO(set);
	while (*s) {
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		a = b = strtoul(s, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -EINVAL;
			b = strtoul(end + 1, &end, 10);
		}
		if (b < a || b >= CPU_SETSIZE)
			return -EINVAL;
		for (; a <= b; a++)
			CPU_SET(a, set);
		if (*end == ',')
			end++;
		else if (*end)
			return -EINVAL;
		s = end;
	}
	return 0;
}

/* Core PMU @u's events, decoded; those that do not decode are left out. */
static int read_events(const struct lope_pmus *p, struct lope_core *u)
{
	struct perf_event_attr a;
	const char *pmu, *name;
	int i, n = lope_pmus__nr_events(p);

	for (i = 0; i < n; i++) {
		struct lope_core_event *e;

		if (lope_pmus__name(p, i, &pmu, &name) ||
		    strcmp(pmu, u->name) || lope_pmus__event(p, i, &a, NULL))
			continue;
		e = realloc(u->ev, (size_t)(u->nr_ev + 1) * sizeof(*e));
		if (!e)
			return -ENOMEM;
		u->ev = e;
		e += u->nr_ev;
		e->name = strdup(name);
		if (!e->name)
			return -ENOMEM;
		e->config = a.config;
		e->config1 = a.config1;
		e->config2 = a.config2;
		u->nr_ev++;
	}
	return 0;
}

/* Does this kernel take generic events with a PMU type in config? */
static bool extended_type(const struct lope_cores *c)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS | (__u64)c->pmu[0].type << 32;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return lope_probe(&a, 0, -1) == 0;
}

static int scan(struct lope_cores *c, const struct lope_pmus *p)
{
	int i, err, n = lope_pmus__nr_pmus(p);

	for (i = 0; i < n && c->nr < LOPE_CORES_MAX; i++) {
		struct lope_core *u = &c->pmu[c->nr];
		const char *name = lope_pmus__pmu_name(p, i);

		if (!name || strlen(name) >= sizeof(u->name))
			continue;
		strcpy(u->name, name);
		err = lope_pmus__pmu_type(p, i, &u->type);
		if (!err)
			err = lope_pmus__pmu_cpus(p, i, u->cpus,
						  sizeof(u->cpus));
		if (err == -EOVERFLOW)
			continue; /* more cpus than we can name */
		if (err)
			return err;
		/* A lone "cpu" PMU counts on every cpu: no core type. */
		if (!u->cpus[0])
			continue;
		if (parse_cpus(u->cpus, &u->set))
			CPU_ZERO(&u->set); /* unknown: never off */
		c->nr++;
		err = read_events(p, u);
		if (err)
			return err;
		/* The kernel gives PERF_TYPE_RAW to the PMU registered with
		 * it (x86), else to the first registered: the lowest type. */
		if (u->type == PERF_TYPE_RAW ||
		    (c->pmu[c->dflt].type != PERF_TYPE_RAW &&
		     u->type < c->pmu[c->dflt].type))
			c->dflt = c->nr - 1;
	}
	return 0;
}

int lope_cores__new(struct lope_cores **out, const char *root)
{
	struct lope_pmus *p;
	struct lope_cores *c;
	int err;

	if (!out || !root)
		return -EINVAL;
	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = lope_pmus__new(&p, root, LOPE_PMUS_CORE);
	if (!err) {
		err = scan(c, p);
		lope_pmus__delete(p);
	}
	if (err) {
		lope_cores__delete(c);
		return err;
	}
	c->ext = c->nr > 1 && extended_type(c);
	*out = c;
	return 0;
}

void lope_cores__delete(struct lope_cores *c)
{
	int i, j;

	if (!c)
		return;
	for (i = 0; i < c->nr; i++) {
		for (j = 0; j < c->pmu[i].nr_ev; j++)
			free(c->pmu[i].ev[j].name);
		free(c->pmu[i].ev);
	}
	free(c);
}

int lope_cores__nr(const struct lope_cores *c)
{
	return c ? c->nr : 0;
}

static const struct lope_core *core(const struct lope_cores *c, int i)
{
	return c && i >= 0 && i < c->nr ? &c->pmu[i] : NULL;
}

const char *lope_cores__name(const struct lope_cores *c, int i)
{
	return core(c, i) ? core(c, i)->name : NULL;
}

uint32_t lope_cores__type(const struct lope_cores *c, int i)
{
	return core(c, i) ? core(c, i)->type : 0;
}

const char *lope_cores__cpus(const struct lope_cores *c, int i)
{
	return core(c, i) ? core(c, i)->cpus : NULL;
}

bool lopelib_cores__off(const struct lope_cores *c, int pmu)
{
	const cpu_set_t *set = &c->pmu[pmu].set;
	int cpu = sched_getcpu();

	return cpu >= 0 && cpu < CPU_SETSIZE && CPU_COUNT(set) &&
	       !CPU_ISSET(cpu, set);
}

/* Core PMU @u's event named @name, or NULL. */
static const struct lope_core_event *by_name(const struct lope_core *u,
					     const char *name)
{
	int i;

	for (i = 0; name && i < u->nr_ev; i++)
		if (!strcmp(u->ev[i].name, name))
			return &u->ev[i];
	return NULL;
}

/* Core PMU @u's event encoded as @attr's config fields, or NULL. */
static const struct lope_core_event *
by_encoding(const struct lope_core *u, const struct perf_event_attr *attr)
{
	int i;

	for (i = 0; i < u->nr_ev; i++)
		if (u->ev[i].config == attr->config &&
		    u->ev[i].config1 == attr->config1 &&
		    u->ev[i].config2 == attr->config2)
			return &u->ev[i];
	return NULL;
}

/* The index of the core PMU of perf type @type, or -1. */
static int of_type(const struct lope_cores *c, __u64 type)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (c->pmu[i].type == type)
			return i;
	return -1;
}

/* One part: @attr as it is, counting on core PMU @pmu (-1: everywhere). */
static int whole(const struct perf_event_attr *attr,
		 struct perf_event_attr *parts, int *pmu, int which)
{
	parts[0] = *attr;
	pmu[0] = which;
	return 1;
}

/* The part of every core PMU: its event named as @a says, or -ENOENT. */
static int by_alias(const struct lope_cores *c, const struct alias *a,
		    const struct perf_event_attr *attr,
		    struct perf_event_attr *parts, int *pmu)
{
	const struct lope_core_event *e;
	int i, k;

	for (i = 0; i < c->nr; i++) {
		for (e = NULL, k = 0; !e && k < (int)ARRAY_SIZE(a->names); k++)
			e = by_name(&c->pmu[i], a->names[k]);
		if (!e)
			return -ENOENT;
		parts[i] = *attr;
		parts[i].type = c->pmu[i].type;
		parts[i].config = e->config;
		parts[i].config1 = e->config1;
		parts[i].config2 = e->config2;
		pmu[i] = i;
	}
	return c->nr;
}

/* A generic event (PERF_TYPE_HARDWARE, HW_CACHE) on every core PMU. */
static int split_generic(const struct lope_cores *c,
			 const struct perf_event_attr *attr,
			 struct perf_event_attr *parts, int *pmu)
{
	const struct alias *t = hw_aliases;
	size_t i, n = ARRAY_SIZE(hw_aliases);
	int k;

	if (c->ext) {
		for (k = 0; k < c->nr; k++) {
			parts[k] = *attr;
			parts[k].config |= (__u64)c->pmu[k].type << 32;
			pmu[k] = k;
		}
		return c->nr;
	}
	if (attr->type == PERF_TYPE_HW_CACHE) {
		t = cache_aliases;
		n = ARRAY_SIZE(cache_aliases);
	}
	for (i = 0; i < n; i++)
		if (t[i].config == attr->config)
			return by_alias(c, &t[i], attr, parts, pmu);
	return -ENOENT;
}

/*
 * A raw encoding, which the kernel gives to its default core PMU: where
 * that PMU's sysfs names it and every core PMU has an event of that name
 * (Arm's common architectural events), it is that event on each.  Else it
 * counts on the default PMU alone.
 */
static int split_raw(const struct lope_cores *c,
		     const struct perf_event_attr *attr,
		     struct perf_event_attr *parts, int *pmu)
{
	const struct lope_core_event *e = by_encoding(&c->pmu[c->dflt], attr);
	struct alias a = { 0, { e ? e->name : NULL } };
	int n = e ? by_alias(c, &a, attr, parts, pmu) : -ENOENT;

	if (n > 0)
		return n;
	n = whole(attr, parts, pmu, c->dflt);
	parts[0].type = c->pmu[c->dflt].type;
	return n;
}

int lope_cores__split(const struct lope_cores *c,
		      const struct perf_event_attr *attr,
		      struct perf_event_attr *parts, int *pmu, int max)
{
	int own;

	if (!attr || !parts || !pmu || max < 1)
		return -EINVAL;
	if (!c || c->nr < 2)
		return whole(attr, parts, pmu, -1);
	if (max < c->nr)
		return -EINVAL;
	own = of_type(c, attr->type);
	if (own >= 0)
		return whole(attr, parts, pmu, own);
	switch (attr->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
		own = of_type(c, attr->config >> 32);
		if (attr->config >> 32)
			return own >= 0 ? whole(attr, parts, pmu, own) :
					  -ENOENT;
		return split_generic(c, attr, parts, pmu);
	case PERF_TYPE_RAW:
		return split_raw(c, attr, parts, pmu);
	default: /* software, tracepoint, breakpoint, other PMUs */
		return whole(attr, parts, pmu, -1);
	}
}
