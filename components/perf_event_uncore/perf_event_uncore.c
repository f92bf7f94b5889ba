/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAPI's perf_event_uncore component on the lope engine: system-wide
 * counters of PMUs that are not per thread (uncore boxes, RAPL, msr,
 * cstate ...).
 *
 * Events come from two places, in this order:
 *  - libpfm4's uncore and RAPL PMUs, named and coded by PAPI's own libpfm4
 *    layer (pe_libpfm4_events.c), so identical to stock PAPI;
 *  - every other PMU the kernel describes in sysfs, named "pmu::event" as
 *    the kernel does ("msr::tsc", "power::energy-pkg"), decoded by the
 *    engine (lope_pmus), with the kernel's scale and unit applied.
 *
 * Counters are opened with pid -1 on one cpu, so every read is a read(2):
 * user-space reads only work for the calling thread's own counters.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "extras.h"

#include "papi_libpfm4_events.h"
#include "pe_libpfm4_events.h"
#include "perfmon/pfmlib.h"
#include "perfmon/pfmlib_perf_event.h"

#include "lope.h"
#include "pe_glue.h"
#include "pe_sysfs.h"

_Static_assert(sizeof(long long) == sizeof(int64_t), "64-bit counts");
_Static_assert(sizeof(double) == sizeof(long long), "FP64 in a long long");

#define PEU_MAX_EVENTS 384

/* How many libpfm4 events of a PMU to try when looking for its type. */
#define PEU_TYPE_PROBES 16

/* Where a set's events count, as collect() finds it from the events. */
struct peu_where {
	int event_cpu; /* an event's :cpu= modifier; -1: none */
	int pmu_cpu;   /* the events' PMUs' cpumask; -1: none, -2: differ */
	int mixed;     /* events of several PMUs: one kernel group each */
	int snapshots; /* events whose count is a current value */
};

typedef struct {
	struct lope_group *grp; /* NULL until events are added */
	int nr;
	int domain;
	int cpu; /* PAPI_CPU_ATTACH; -1: none */
	int multiplexed;
	struct peu_where at;
	struct pe_event ev[PEU_MAX_EVENTS];
	int64_t counts[PEU_MAX_EVENTS];
	struct lope_counts raw[PEU_MAX_EVENTS];
} peu_control_t;
_Static_assert(offsetof(peu_control_t, grp) == 0, "pe_group_stop's cast");

papi_vector_t _perf_event_uncore_vector;
static struct pe_names names;

/* The cpu to count on: an event's own, the attached one, the PMU's, 0. */
static int counting_cpu(const peu_control_t *c, const struct peu_where *at)
{
	if (at->event_cpu >= 0)
		return at->event_cpu;
	if (c->cpu >= 0)
		return c->cpu;
	if (at->pmu_cpu == -2)
		return PAPI_ECNFLCT;
	/* A PMU without a cpumask (msr) counts on any cpu. */
	return at->pmu_cpu >= 0 ? at->pmu_cpu : 0;
}

/*
 * @grp (the set's group, or the next one, of events @ev counting where
 * @at says) with @c's options: pid -1 on the counting cpu.
 */
static int with_options(peu_control_t *c, struct lope_group *grp,
			const struct pe_event *ev, const struct peu_where *at)
{
	struct pe_domain dom = { ev, c->domain };
	struct lope_change ch = {
		.pid = -1,
		.cpu = counting_cpu(c, at),
		.flags = at->mixed || c->multiplexed ? LOPE_SEPARATE : 0,
	};

	if (ch.cpu < 0)
		return ch.cpu;
	return pe_change(grp, &ch, &dom);
}

/* pe_set_option's reopen: options are checked when events are added. */
static int reopen_set(void *set)
{
	peu_control_t *c = set;

	return c->grp ? with_options(c, c->grp, c->ev, &c->at) : PAPI_OK;
}

/* A libpfm4 event (pe_libpfm4_attr), and its PMU's cpu. */
static int libpfm4_event(struct peu_where *at, struct pe_event *ev,
			 const NativeInfo_t *ni, pe_attr_t *a, int *pmu_cpu)
{
	int ret = pe_libpfm4_attr(&names.table, ni, a, ev, &at->event_cpu);

	if (ret != PAPI_OK)
		return ret;
	if (!names.sysfs.pmus ||
	    lope_pmus__cpu(names.sysfs.pmus, a->attr.type, pmu_cpu) != 0)
		*pmu_cpu = -1;
	return PAPI_OK;
}

static int sysfs_event(struct peu_where *at, struct pe_event *ev,
		       const NativeInfo_t *ni, pe_attr_t *a, int *pmu_cpu)
{
	struct lope_pmu_event pmu_ev;
	int ret = pe_sysfs__event(&names.sysfs, (unsigned int)ni->ni_event, a,
				  &pmu_ev);

	if (ret != PAPI_OK)
		return ret;
	ev->scale = pmu_ev.scale != 1 ? pmu_ev.scale : 0;
	ev->snapshot = (unsigned char)pmu_ev.snapshot;
	at->snapshots += pmu_ev.snapshot;
	*pmu_cpu = pmu_ev.cpu;
	return PAPI_OK;
}

/* Every event's attr into @next, what the set needs of it into @ev, @at. */
static int collect(NativeInfo_t *native, int count, struct lope_group *next,
		   struct pe_event *ev, struct peu_where *at)
{
	uint32_t type = 0;
	int i, ret, err;

	for (i = 0; i < count; i++) {
		pe_attr_t a;
		int pmu_cpu = -1;

		memset(&a, 0, sizeof(a));
		ev[i].code = (unsigned int)native[i].ni_papi_code;
		if (pe_sysfs__is_code((unsigned int)native[i].ni_event))
			ret = sysfs_event(at, &ev[i], &native[i], &a, &pmu_cpu);
		else
			ret = libpfm4_event(at, &ev[i], &native[i], &a,
					    &pmu_cpu);
		if (ret != PAPI_OK)
			return ret;
		if (pmu_cpu >= 0 && at->pmu_cpu != pmu_cpu)
			at->pmu_cpu = at->pmu_cpu == -1 ? pmu_cpu : -2;
		/* The kernel groups events of one PMU only. */
		if (i > 0 && a.attr.type != type)
			at->mixed = 1;
		type = a.attr.type;
		err = lope_group__add(next, (struct perf_event_attr *)&a);
		if (err < 0)
			return pe_errno_to_papi(err);
	}
	return PAPI_OK;
}

static const struct peu_where nowhere = { -1, -1, 0, 0 };

static void forget_events(peu_control_t *c)
{
	lope_group__delete(c->grp);
	c->grp = NULL;
	c->nr = 0;
	c->at = nowhere;
	memset(c->ev, 0, sizeof(c->ev));
}

/*
 * The new list's group in place of the old one (its target known once
 * its events are): nothing of the set changes unless it opens.
 */
static int build(peu_control_t *c, NativeInfo_t *native, int count,
		 struct pe_event *ev)
{
	struct peu_where at = nowhere;
	struct lope_group *next;
	int ret = pe_errno_to_papi(lope_group__new(&next, -1, 0, 0));

	if (ret != PAPI_OK)
		return ret;
	ret = collect(native, count, next, ev, &at);
	if (ret == PAPI_OK)
		ret = with_options(c, next, ev, &at);
	ret = pe_take_events(ret, &c->grp, next, native, count, ev, c->ev,
			     &c->nr);
	if (ret != PAPI_OK)
		return ret;
	c->at = at;
	return PAPI_OK;
}

/*
 * All or nothing, as in perf_event's pe_set.c; PAPI_start calls this with
 * the set's own list when another set of the thread was used since: the
 * open group is kept.
 */
static int peu_update_control_state(hwd_control_state_t *ctl,
				    NativeInfo_t *native, int count,
				    hwd_context_t *ctx)
{
	peu_control_t *c = (peu_control_t *)ctl;
	struct pe_event *ev;
	int ret;

	(void)ctx;
	if (pe_same_events(c->grp, c->ev, c->nr, native, count))
		return PAPI_OK;
	if (count == 0) {
		forget_events(c);
		return PAPI_OK;
	}
	if (count > PEU_MAX_EVENTS)
		return PAPI_ECOUNT;
	ev = calloc((size_t)count, sizeof(*ev));
	if (!ev)
		return PAPI_ENOMEM;
	ret = build(c, native, count, ev);
	free(ev);
	return ret;
}

static int peu_start(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	(void)ctx;
	return pe_errno_to_papi(
		lope_group__enable(((peu_control_t *)ctl)->grp));
}

/*
 * Values in each event's unit: a scaled event's double is stored in its
 * long long (PAPI_DATATYPE_FP64); a snapshot event's current value is
 * the kernel's own, not a difference from the start.  Both come from the
 * one sample the read takes.
 */
static int peu_read(hwd_context_t *ctx, hwd_control_state_t *ctl,
		    long long **events, int flags)
{
	peu_control_t *c = (peu_control_t *)ctl;
	int err = lope_group__read(c->grp, c->counts), i;

	(void)ctx;
	(void)flags;
	if (!err && c->at.snapshots)
		err = lope_group__last_counts(c->grp, c->raw);
	if (err)
		return pe_errno_to_papi(err);
	for (i = 0; i < c->nr; i++) {
		double v;

		if (c->ev[i].snapshot)
			c->counts[i] = (int64_t)c->raw[i].val;
		if (c->ev[i].scale == 0)
			continue;
		v = (double)c->counts[i] * c->ev[i].scale;
		memcpy(&c->counts[i], &v, sizeof(v));
	}
	*events = (long long *)c->counts;
	return PAPI_OK;
}

/* PAPI_write takes values in the units PAPI_read gives. */
static int peu_write(hwd_context_t *ctx, hwd_control_state_t *ctl,
		     long long *from)
{
	peu_control_t *c = (peu_control_t *)ctl;
	int i;

	(void)ctx;
	for (i = 0; i < c->nr; i++) {
		double v;

		c->counts[i] = from[i];
		if (c->ev[i].scale == 0)
			continue;
		memcpy(&v, &from[i], sizeof(v));
		c->counts[i] = (int64_t)(v / c->ev[i].scale + 0.5);
	}
	return pe_errno_to_papi(lope_group__write(c->grp, c->counts));
}

static int peu_cleanup_eventset(hwd_control_state_t *ctl)
{
	forget_events((peu_control_t *)ctl);
	return PAPI_OK;
}

static int peu_set_domain(hwd_control_state_t *ctl, int domain)
{
	peu_control_t *c = (peu_control_t *)ctl;

	if (domain & ~_perf_event_uncore_vector.cmp_info.available_domains)
		return PAPI_EINVAL;
	return pe_set_option(c, &c->domain, domain, reopen_set);
}

static int peu_ctl(hwd_context_t *ctx, int code, _papi_int_option_t *option)
{
	peu_control_t *c = pe_option_set(code, option);

	(void)ctx;
	switch (code) {
	case PAPI_MULTIPLEX:
		return pe_set_option(c, &c->multiplexed, 1, reopen_set);
	case PAPI_CPU_ATTACH:
		if ((int)option->cpu.cpu_num < 0)
			return PAPI_EINVAL;
		return pe_set_option(c, &c->cpu, (int)option->cpu.cpu_num,
				     reopen_set);
	case PAPI_DOMAIN:
		return peu_set_domain(c, option->domain.domain);
	case PAPI_GRANUL:
		/* Uncore counters count whole cpus (or packages). */
		return option->granularity.granularity == PAPI_GRN_SYS ?
			       PAPI_OK :
			       PAPI_ECMP;
	case PAPI_ATTACH:
	case PAPI_INHERIT:
		return PAPI_ECMP; /* no per-thread counting here */
	default:
		return PAPI_ENOSUPP;
	}
}

static int peu_init_control_state(hwd_control_state_t *ctl)
{
	peu_control_t *c = (peu_control_t *)ctl;

	memset(c, 0, sizeof(*c));
	c->domain = _perf_event_uncore_vector.cmp_info.default_domain;
	c->cpu = -1;
	c->at = nowhere;
	return PAPI_OK;
}

/* peu_ntv_enum_events ... peu_ntv_code_to_info: libpfm4's events first,
 * then sysfs's. */
PE_NAMES_NTV_CALLS(peu, names)

/* The perf type libpfm4 gives @pinfo's events, or -1. */
static int64_t libpfm4_type(const pfm_pmu_info_t *pinfo)
{
	int e, tries;

	for (e = pinfo->first_event, tries = 0;
	     e >= 0 && tries < PEU_TYPE_PROBES;
	     e = pfm_get_event_next(e), tries++) {
		pfm_event_info_t einfo;
		pfm_perf_encode_arg_t arg;
		perf_event_attr_t attr;
		char name[PAPI_HUGE_STR_LEN];

		memset(&einfo, 0, sizeof(einfo));
		einfo.size = sizeof(einfo);
		if (pfm_get_event_info(e, PFM_OS_PERF_EVENT, &einfo) !=
		    PFM_SUCCESS)
			continue;
		snprintf(name, sizeof(name), "%s::%s", pinfo->name, einfo.name);
		memset(&arg, 0, sizeof(arg));
		memset(&attr, 0, sizeof(attr));
		arg.size = sizeof(arg);
		arg.attr = &attr;
		if (pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
					      PFM_OS_PERF_EVENT,
					      &arg) == PFM_SUCCESS)
			return attr.type;
	}
	return -1;
}

/* Leave libpfm4's uncore PMUs to libpfm4: same counters, stock names. */
static void hide_libpfm4_pmus(struct lope_pmus *pmus)
{
	pfm_pmu_info_t pinfo;
	int64_t type;
	int i, ret;

	for (i = 0; (ret = pe_pfm_pmu(i, &pinfo)) >= 0; i++) {
		if (!ret || pinfo.type != PFM_PMU_TYPE_UNCORE)
			continue;
		type = libpfm4_type(&pinfo);
		if (type >= 0)
			(void)lope_pmus__hide_type(pmus, (uint32_t)type);
	}
}

static int peu_shutdown_component(void)
{
	return pe_names__shutdown(&names, &_perf_event_uncore_vector);
}

/*
 * Uncore counters count a whole cpu: the kernel allows that to a process
 * with CAP_PERFMON (or CAP_SYS_ADMIN), or to anyone at
 * perf_event_paranoid <= 0.  Ask it, with a software event every kernel has.
 */
static int check_system_wide(papi_vector_t *v)
{
	pe_attr_t a;
	int err;

	pe_sw_attr(&a, 0);
	a.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	err = lope_probe((struct perf_event_attr *)&a, -1, 0);
	if (err == -EACCES || err == -EPERM)
		return pe_refused(v, err, 0);
	if (err)
		return pe_disable(v, PAPI_ECMP, "perf_event_open: %s",
				  strerror(-err));
	return PAPI_OK;
}

static int peu_init_component(int cidx)
{
	papi_vector_t *v = _papi_hwd[cidx];
	int ret;

	pe_names__reinit(&names, v);
	names.cidx = cidx;
	ret = check_system_wide(v);
	if (ret != PAPI_OK)
		return ret;
	if (_papi_libpfm4_init(v) != PAPI_OK)
		return pe_disable(v, PAPI_ECMP, "Error initializing libpfm4");
	if (_peu_libpfm4_init(v, cidx, &names.table, PMU_TYPE_UNCORE) !=
	    PAPI_OK) {
		peu_shutdown_component();
		return pe_disable(v, PAPI_ECMP, "Error setting up libpfm4");
	}
	if (pe_sysfs__open(&names.sysfs, LOPE_PMUS_SYSTEM) != PAPI_OK) {
		peu_shutdown_component();
		return pe_disable(v, PAPI_ENOMEM, "out of memory");
	}
	if (names.sysfs.pmus)
		hide_libpfm4_pmus(names.sysfs.pmus);
	pe_sysfs__list_pmus(&names.sysfs, v);
	v->cmp_info.num_native_events += pe_sysfs__nr(&names.sysfs);
	if (v->cmp_info.num_cntrs > PEU_MAX_EVENTS)
		v->cmp_info.num_cntrs = PEU_MAX_EVENTS;
	if (v->cmp_info.num_native_events == 0) {
		peu_shutdown_component();
		return pe_disable(
			v, PAPI_ECMP,
			"No uncore PMUs or events found (libpfm4 "
			"knows none here; no other PMU in " PE_SYSFS_ROOT
			" has events)");
	}
	v->cmp_info.disabled = PAPI_OK;
	return PAPI_OK;
}

papi_vector_t _perf_event_uncore_vector = {
	.cmp_info = {
		.name = "perf_event_uncore",
		.short_name = "peu",
		.version = "lope-1.0",
		.description = "Linux perf_event uncore, RAPL and sysfs PMUs "
			       "(lope; system-wide, read(2))",
		.default_domain = PAPI_DOM_ALL,
		.available_domains = PAPI_DOM_ALL,
		.default_granularity = PAPI_GRN_SYS,
		.available_granularities = PAPI_GRN_SYS,
		.cpu = 1,
		.cntr_umasks = 1,
		.kernel_multiplex = 1,
		.num_mpx_cntrs = PEU_MAX_EVENTS,
	},
	PE_VECTOR_CALLS(peu, peu_control_t),
};
