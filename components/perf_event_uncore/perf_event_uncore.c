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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "extras.h"

#include "papi_libpfm4_events.h"
#include "components/perf_event/pe_libpfm4_events.h"
#include "perfmon/pfmlib.h"
#include "perfmon/pfmlib_perf_event.h"

#include "components/perf_event/lope/lope.h"
#include "components/perf_event/pe_glue.h"

_Static_assert(sizeof(long long) == sizeof(int64_t), "64-bit counts");
_Static_assert(sizeof(double) == sizeof(long long), "FP64 in a long long");

#define PEU_MAX_EVENTS 384
#define PEU_SYSFS_ROOT "/sys/bus/event_source/devices"
/* Read PMUs from another tree: tests give real PMU types new names. */
#define PEU_ENV_SYSFS_ROOT "LOPE_SYSFS_ROOT"

/*
 * Codes of sysfs events.  A libpfm4 code is (pmu << 21) | index with pmu
 * below 0x3ff (libpfm4 requires PFM_PMU_MAX to fit its 10-bit PMU mask),
 * so codes whose PMU bits are all ones are never libpfm4's.
 */
#define PEU_SYSFS_CODE 0x7fe00000u
#define PEU_SYSFS_IDX 0x001fffffu

/* How many libpfm4 events of a PMU to try when looking for its type. */
#define PEU_TYPE_PROBES 16

/* The engine may write a newer, larger perf_event_attr than libpfm4's. */
typedef union {
	perf_event_attr_t attr;
	unsigned char room[512];
} peu_attr_t;

typedef struct {
	int initialized;
} peu_context_t;

typedef struct {
	struct lope_group *grp; /* NULL until events are added */
	int nr;
	int domain;
	int cpu;       /* PAPI_CPU_ATTACH; -1: none */
	int event_cpu; /* an event's :cpu= modifier; -1: none */
	int pmu_cpu;   /* the events' PMUs' cpumask; -1: none, -2: differ */
	int mixed;     /* events of several PMUs: one kernel group each */
	int multiplexed;
	int snapshots;
	unsigned char fixed[PEU_MAX_EVENTS];
	unsigned char snapshot[PEU_MAX_EVENTS];
	double scale[PEU_MAX_EVENTS]; /* 0: an integer event */
	int64_t counts[PEU_MAX_EVENTS];
	struct lope_counts raw[PEU_MAX_EVENTS];
} peu_control_t;

papi_vector_t _perf_event_uncore_vector;
static struct native_event_table_t uncore_table;
static struct lope_pmus *sysfs;
static int our_cidx;

static int is_sysfs(unsigned int code)
{
	return (code & ~PEU_SYSFS_IDX) == PEU_SYSFS_CODE;
}

/* The cpu to count on: an event's own, the attached one, the PMU's, 0. */
static int set_cpu(const peu_control_t *c)
{
	if (c->event_cpu >= 0)
		return c->event_cpu;
	if (c->cpu >= 0)
		return c->cpu;
	if (c->pmu_cpu == -2)
		return PAPI_ECNFLCT;
	/* A PMU without a cpumask (msr) counts on any cpu. */
	return c->pmu_cpu >= 0 ? c->pmu_cpu : 0;
}

/* Open a group for @c's options from @src's attributes; keep the old
 * group if the kernel refuses. */
static int reopen(peu_control_t *c, struct lope_group *src)
{
	struct pe_rebuild r = {
		.pid = -1,
		.cpu = set_cpu(c),
		.flags = c->mixed || c->multiplexed ? LOPE_SEPARATE : 0,
		.nr = c->nr,
		.domain = c->domain,
		.fixed = c->fixed,
	};

	if (r.cpu < 0)
		return r.cpu;
	return pe_rebuild(&c->grp, src, &r);
}

static int set_option(peu_control_t *c, int *field, int value)
{
	int old = *field, ret;

	*field = value;
	if (!c->grp || c->nr == 0)
		return PAPI_OK; /* checked when events are added */
	ret = reopen(c, c->grp);
	if (ret != PAPI_OK)
		*field = old;
	return ret;
}

/* A libpfm4 event: its attr, :u=/:k= and :cpu= modifiers, its PMU's cpu. */
static int libpfm4_event(peu_control_t *c, int i, const NativeInfo_t *ni,
			 peu_attr_t *a, int *pmu_cpu)
{
	struct native_event_t *ntv =
		pe_find_native(&uncore_table, ni->ni_papi_code);

	if (!ntv)
		return PAPI_ENOEVNT;
	a->attr = ntv->attr;
	c->fixed[i] = pe_fixed_domains(ntv);
	if (ntv->cpu >= 0) {
		if (c->event_cpu >= 0 && c->event_cpu != ntv->cpu)
			return PAPI_ECNFLCT;
		c->event_cpu = ntv->cpu;
	}
	if (lope_pmus__cpu(sysfs, a->attr.type, pmu_cpu) != 0)
		*pmu_cpu = -1;
	return PAPI_OK;
}

static int sysfs_event(peu_control_t *c, int i, const NativeInfo_t *ni,
		       peu_attr_t *a, int *pmu_cpu)
{
	struct lope_pmu_event ev;
	int err = lope_pmus__event(sysfs, (int)(ni->ni_event & PEU_SYSFS_IDX),
				   &a->attr, &ev);

	if (err)
		return pe_errno_to_papi(err);
	c->scale[i] = ev.scale != 1 ? ev.scale : 0;
	c->snapshot[i] = (unsigned char)ev.snapshot;
	c->snapshots += ev.snapshot;
	*pmu_cpu = ev.cpu;
	return PAPI_OK;
}

/* Every event's attr into @src, and what the set needs to know of it. */
static int collect(peu_control_t *c, NativeInfo_t *native, int count,
		   struct lope_group *src)
{
	uint32_t type = 0;
	int i, ret, err;

	for (i = 0; i < count; i++) {
		peu_attr_t a;
		int pmu_cpu = -1;

		memset(&a, 0, sizeof(a));
		if (is_sysfs((unsigned int)native[i].ni_event))
			ret = sysfs_event(c, i, &native[i], &a, &pmu_cpu);
		else
			ret = libpfm4_event(c, i, &native[i], &a, &pmu_cpu);
		if (ret != PAPI_OK)
			return ret;
		if (pmu_cpu >= 0 && c->pmu_cpu != pmu_cpu)
			c->pmu_cpu = c->pmu_cpu == -1 ? pmu_cpu : -2;
		/* The kernel groups events of one PMU only. */
		if (i > 0 && a.attr.type != type)
			c->mixed = 1;
		type = a.attr.type;
		err = lope_group__add(src, (struct perf_event_attr *)&a);
		if (err < 0)
			return pe_errno_to_papi(err);
		native[i].ni_position = i;
	}
	return PAPI_OK;
}

static void forget_events(peu_control_t *c)
{
	lope_group__delete(c->grp);
	c->grp = NULL;
	c->nr = 0;
	c->event_cpu = -1;
	c->pmu_cpu = -1;
	c->mixed = 0;
	c->snapshots = 0;
	memset(c->fixed, 0, sizeof(c->fixed));
	memset(c->snapshot, 0, sizeof(c->snapshot));
	memset(c->scale, 0, sizeof(c->scale));
}

static int peu_update_control_state(hwd_control_state_t *ctl,
				    NativeInfo_t *native, int count,
				    hwd_context_t *ctx)
{
	peu_control_t *c = (peu_control_t *)ctl;
	struct lope_group *src;
	int ret, err;

	(void)ctx;
	forget_events(c);
	if (count == 0)
		return PAPI_OK;
	if (count > PEU_MAX_EVENTS)
		return PAPI_ECOUNT;
	/* Only a list of attributes: this group is never opened. */
	err = lope_group__new(&src, 0, -1, 0);
	if (err)
		return pe_errno_to_papi(err);
	ret = collect(c, native, count, src);
	if (ret == PAPI_OK) {
		c->nr = count;
		ret = reopen(c, src);
	}
	if (ret != PAPI_OK) {
		lope_group__delete(src);
		forget_events(c);
	}
	return ret;
}

static int peu_start(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	(void)ctx;
	return pe_errno_to_papi(
		lope_group__enable(((peu_control_t *)ctl)->grp));
}

static int peu_stop(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	peu_control_t *c = (peu_control_t *)ctl;

	(void)ctx;
	return pe_errno_to_papi(lope_group__disable_after_read(c->grp));
}

/*
 * Values in each event's unit: a scaled event's double is stored in its
 * long long (PAPI_DATATYPE_FP64); a snapshot event's current value is
 * the kernel's own, not a difference from the start.
 */
static int peu_read(hwd_context_t *ctx, hwd_control_state_t *ctl,
		    long long **events, int flags)
{
	peu_control_t *c = (peu_control_t *)ctl;
	int err = lope_group__read(c->grp, c->counts), i;

	(void)ctx;
	(void)flags;
	if (!err && c->snapshots)
		err = lope_group__read_raw(c->grp, c->raw);
	if (err)
		return pe_errno_to_papi(err);
	for (i = 0; i < c->nr; i++) {
		double v;

		if (c->snapshot[i])
			c->counts[i] = (int64_t)c->raw[i].val;
		if (c->scale[i] == 0)
			continue;
		v = (double)c->counts[i] * c->scale[i];
		memcpy(&c->counts[i], &v, sizeof(v));
	}
	*events = (long long *)c->counts;
	return PAPI_OK;
}

static int peu_reset(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	(void)ctx;
	return pe_errno_to_papi(lope_group__reset(((peu_control_t *)ctl)->grp));
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
		if (c->scale[i] == 0)
			continue;
		memcpy(&v, &from[i], sizeof(v));
		c->counts[i] = (int64_t)(v / c->scale[i] + 0.5);
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
	return set_option(c, &c->domain, domain);
}

static int peu_ctl(hwd_context_t *ctx, int code, _papi_int_option_t *option)
{
	peu_control_t *c;

	(void)ctx;
	switch (code) {
	case PAPI_MULTIPLEX:
		c = (peu_control_t *)option->multiplex.ESI->ctl_state;
		return set_option(c, &c->multiplexed, 1);
	case PAPI_CPU_ATTACH:
		c = (peu_control_t *)option->cpu.ESI->ctl_state;
		if ((int)option->cpu.cpu_num < 0)
			return PAPI_EINVAL;
		return set_option(c, &c->cpu, (int)option->cpu.cpu_num);
	case PAPI_DOMAIN:
		c = (peu_control_t *)option->domain.ESI->ctl_state;
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
	c->event_cpu = -1;
	c->pmu_cpu = -1;
	return PAPI_OK;
}

static int peu_init_thread(hwd_context_t *ctx)
{
	((peu_context_t *)ctx)->initialized = 1;
	return PAPI_OK;
}

static int peu_shutdown_thread(hwd_context_t *ctx)
{
	((peu_context_t *)ctx)->initialized = 0;
	return PAPI_OK;
}

/* Give PAPI sysfs event @idx as the current enumeration result. */
static int sysfs_enum(int idx, unsigned int *code)
{
	char name[PAPI_HUGE_STR_LEN];
	const char *pmu, *event;

	if (lope_pmus__name(sysfs, idx, &pmu, &event) != 0)
		return PAPI_ENOEVNT;
	snprintf(name, sizeof(name), "%s::%s", pmu, event);
	/* PAPI keys its event codes by this name, as for libpfm4's. */
	_papi_hwi_set_papi_event_string(name);
	*code = PEU_SYSFS_CODE | (unsigned int)idx;
	return PAPI_OK;
}

/* libpfm4's events first, then sysfs's. */
static int peu_ntv_enum_events(unsigned int *code, int modifier)
{
	int ret;

	if (is_sysfs(*code) && modifier != PAPI_ENUM_FIRST) {
		if (modifier != PAPI_ENUM_EVENTS)
			return PAPI_ENOEVNT; /* no umasks */
		return sysfs_enum((int)(*code & PEU_SYSFS_IDX) + 1, code);
	}
	ret = _pe_libpfm4_ntv_enum_events(code, modifier, our_cidx,
					  &uncore_table);
	if (ret == PAPI_OK ||
	    (modifier != PAPI_ENUM_FIRST && modifier != PAPI_ENUM_EVENTS))
		return ret;
	return sysfs_enum(0, code);
}

/* "pmu::event" of a sysfs PMU, or libpfm4's name. */
static int peu_ntv_name_to_code(const char *name, unsigned int *code)
{
	const char *sep = strstr(name, "::");
	char pmu[PAPI_MIN_STR_LEN];
	int idx = -1;

	if (sep && (size_t)(sep - name) < sizeof(pmu)) {
		memcpy(pmu, name, (size_t)(sep - name));
		pmu[sep - name] = '\0';
		idx = lope_pmus__find(sysfs, pmu, sep + 2);
	}
	if (idx >= 0) {
		*code = PEU_SYSFS_CODE | (unsigned int)idx;
		return PAPI_OK;
	}
	return _pe_libpfm4_ntv_name_to_code(name, code, our_cidx,
					    &uncore_table);
}

static int peu_ntv_code_to_name(unsigned int code, char *name, int len)
{
	const char *pmu, *event;
	int n;

	if (!is_sysfs(code))
		return _pe_libpfm4_ntv_code_to_name(code, name, len,
						    &uncore_table);
	if (lope_pmus__name(sysfs, (int)(code & PEU_SYSFS_IDX), &pmu, &event))
		return PAPI_ENOEVNT;
	n = snprintf(name, (size_t)len, "%s::%s", pmu, event);
	return n < 0 || n >= len ? PAPI_EBUF : PAPI_OK;
}

/* "power/energy-pkg/ (sysfs: event=0x02), in Joules" and the like. */
static int sysfs_descr(unsigned int code, char *descr, int len,
		       struct lope_pmu_event *ev)
{
	peu_attr_t a;
	int err = lope_pmus__event(sysfs, (int)(code & PEU_SYSFS_IDX), &a.attr,
				   ev),
	    n;

	if (!ev->pmu)
		return PAPI_ENOEVNT; /* no such event: nothing to describe */
	if (err)
		n = snprintf(descr, (size_t)len,
			     "%s/%s/ (sysfs: %s): unusable: %s", ev->pmu,
			     ev->name, ev->terms, strerror(-err));
	else
		n = snprintf(descr, (size_t)len, "%s/%s/ (sysfs: %s)%s%s",
			     ev->pmu, ev->name, ev->terms,
			     ev->unit[0] ? ", in " : "", ev->unit);
	return n < 0 || n >= len ? PAPI_EBUF : PAPI_OK;
}

static int peu_ntv_code_to_descr(unsigned int code, char *descr, int len)
{
	struct lope_pmu_event ev;

	if (!is_sysfs(code))
		return _pe_libpfm4_ntv_code_to_descr(code, descr, len,
						     &uncore_table);
	memset(&ev, 0, sizeof(ev));
	return sysfs_descr(code, descr, len, &ev);
}

static int peu_ntv_code_to_info(unsigned int code, PAPI_event_info_t *info)
{
	struct lope_pmu_event ev;
	int ret;

	if (!is_sysfs(code))
		return _pe_libpfm4_ntv_code_to_info(code, info, &uncore_table);
	ret = peu_ntv_code_to_name(code, info->symbol, sizeof(info->symbol));
	if (ret != PAPI_OK)
		return ret;
	memset(&ev, 0, sizeof(ev));
	ret = sysfs_descr(code, info->long_descr, sizeof(info->long_descr),
			  &ev);
	if (ret != PAPI_OK)
		return ret;
	snprintf(info->units, sizeof(info->units), "%s", ev.unit);
	info->data_type = ev.scale != 1 ? PAPI_DATATYPE_FP64 :
					  PAPI_DATATYPE_INT64;
	info->value_type = ev.snapshot ? PAPI_VALUETYPE_ABSOLUTE :
					 PAPI_VALUETYPE_RUNNING_SUM;
	return PAPI_OK;
}

static int disable(papi_vector_t *v, int ret, const char *why)
{
	snprintf(v->cmp_info.disabled_reason, PAPI_MAX_STR_LEN, "%s", why);
	v->cmp_info.disabled = ret;
	return ret;
}

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
static void hide_libpfm4_pmus(void)
{
	pfm_pmu_info_t pinfo;
	int i;

	for (i = 0;; i++) {
		int64_t type;
		pfm_err_t ret;

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		ret = pfm_get_pmu_info(i, &pinfo);
		if (ret == PFM_ERR_INVAL)
			break;
		if (ret != PFM_SUCCESS || !pinfo.is_present ||
		    pinfo.type != PFM_PMU_TYPE_UNCORE)
			continue;
		type = libpfm4_type(&pinfo);
		if (type >= 0)
			(void)lope_pmus__hide_type(sysfs, (uint32_t)type);
	}
}

/* PAPI asks a component only for "pmu::" names of PMUs it lists. */
static void list_sysfs_pmus(papi_vector_t *v)
{
	const char *pmu, *last = NULL;
	int i, j = 0, nr = lope_pmus__nr(sysfs);

	while (j < PAPI_PMU_MAX && v->cmp_info.pmu_names[j])
		j++;
	for (i = 0; i < nr && j < PAPI_PMU_MAX; i++) {
		if (lope_pmus__name(sysfs, i, &pmu, NULL) || pmu == last)
			continue;
		last = pmu;
		v->cmp_info.pmu_names[j] = strdup(pmu);
		if (v->cmp_info.pmu_names[j])
			j++;
	}
}

static int peu_shutdown_component(void)
{
	_pe_libpfm4_shutdown(&_perf_event_uncore_vector, &uncore_table);
	_papi_libpfm4_shutdown(&_perf_event_uncore_vector);
	memset(_perf_event_uncore_vector.cmp_info.pmu_names, 0,
	       sizeof(_perf_event_uncore_vector.cmp_info.pmu_names));
	lope_pmus__delete(sysfs);
	sysfs = NULL;
	return PAPI_OK;
}

static int peu_init_component(int cidx)
{
	papi_vector_t *v = _papi_hwd[cidx];
	const char *root = secure_getenv(PEU_ENV_SYSFS_ROOT);
	int nr, err;

	our_cidx = cidx;
	if (access("/proc/sys/kernel/perf_event_paranoid", R_OK) != 0)
		return disable(v, PAPI_ECMP, "perf_event support not detected");
	if (_papi_libpfm4_init(v) != PAPI_OK)
		return disable(v, PAPI_ECMP, "Error initializing libpfm4");
	if (_peu_libpfm4_init(v, cidx, &uncore_table, PMU_TYPE_UNCORE) !=
	    PAPI_OK) {
		peu_shutdown_component();
		return disable(v, PAPI_ECMP, "Error setting up libpfm4");
	}
	/* No sysfs (an old or unusual kernel) leaves libpfm4's events. */
	if (!root || !*root)
		root = PEU_SYSFS_ROOT;
	/* PAPI re-initialises a forked child without shutting down. */
	lope_pmus__delete(sysfs);
	sysfs = NULL;
	err = lope_pmus__new(&sysfs, root);
	if (err)
		SUBDBG("%s: %s\n", root, strerror(-err));
	nr = 0;
	if (sysfs) {
		hide_libpfm4_pmus();
		list_sysfs_pmus(v);
		nr = lope_pmus__nr(sysfs);
	}
	v->cmp_info.num_native_events += nr;
	if (v->cmp_info.num_cntrs > PEU_MAX_EVENTS)
		v->cmp_info.num_cntrs = PEU_MAX_EVENTS;
	if (v->cmp_info.num_native_events == 0) {
		peu_shutdown_component();
		return disable(v, PAPI_ECMP,
			       "No uncore PMUs or events found (libpfm4 knows "
			       "none here; no other PMU in " PEU_SYSFS_ROOT
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
	.size = {
		.context = sizeof(peu_context_t),
		.control_state = sizeof(peu_control_t),
		.reg_value = sizeof(int),
		.reg_alloc = sizeof(int),
	},
	.init_component = peu_init_component,
	.shutdown_component = peu_shutdown_component,
	.init_thread = peu_init_thread,
	.shutdown_thread = peu_shutdown_thread,
	.init_control_state = peu_init_control_state,
	.update_control_state = peu_update_control_state,
	.cleanup_eventset = peu_cleanup_eventset,
	.start = peu_start,
	.stop = peu_stop,
	.read = peu_read,
	.reset = peu_reset,
	.write = peu_write,
	.ctl = peu_ctl,
	.set_domain = peu_set_domain,
	.ntv_enum_events = peu_ntv_enum_events,
	.ntv_name_to_code = peu_ntv_name_to_code,
	.ntv_code_to_name = peu_ntv_code_to_name,
	.ntv_code_to_descr = peu_ntv_code_to_descr,
	.ntv_code_to_info = peu_ntv_code_to_info,
};
