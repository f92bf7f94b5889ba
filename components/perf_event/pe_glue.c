/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pe_glue.h"

int pe_errno_to_papi_slow(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:
		return PAPI_OK;
	case EPERM:
	case EACCES:
		return PAPI_EPERM;
	case ENODEV:
	case EOPNOTSUPP:
		return PAPI_ENOSUPP;
	case ENOENT:
		return PAPI_ENOEVNT;
	case ENOMEM:
		return PAPI_ENOMEM;
	case EMFILE:
	case ENFILE:
		return PAPI_ECOUNT;
	case EINVAL:
		return PAPI_EINVAL;
	case ERANGE:
	case EOVERFLOW:
		return PAPI_EATTR; /* a sysfs encoding we cannot use */
	case EBUSY:
		return PAPI_ECNFLCT;
	default:
		return PAPI_ESYS;
	}
}

void pe_apply_domain(struct perf_event_attr *attr, unsigned char own,
		     int domain)
{
	if (!(own & PE_OWN_USER))
		attr->exclude_user = !(domain & PAPI_DOM_USER);
	if (!(own & PE_OWN_KERNEL))
		attr->exclude_kernel = !(domain & PAPI_DOM_KERNEL);
	attr->exclude_hv = !(domain & PAPI_DOM_SUPERVISOR);
}

static unsigned char own_domains(const struct native_event_t *ntv)
{
	const char *name = ntv->allocated_name;
	unsigned char f = 0;

	if (name && strstr(name, ":u="))
		f |= PE_OWN_USER;
	if (name && strstr(name, ":k="))
		f |= PE_OWN_KERNEL;
	return f;
}

/*
 * PAPI's index for the code, or, for an event added without a mask (index
 * -1), the table entry with that code.  Under NAMELIB_LOCK: another
 * thread's name lookup may grow (reallocate) the table meanwhile.
 */
static struct native_event_t *find_native(struct native_event_table_t *t,
					  int papi_code)
{
	int idx = _papi_hwi_get_ntv_idx((unsigned int)papi_code), j;

	if (idx >= 0 && idx < t->num_native_events)
		return &t->native_events[idx];
	if (idx < -1)
		return NULL;
	for (j = 0; j < t->num_native_events; j++)
		if (t->native_events[j].papi_event_code == papi_code)
			return &t->native_events[j];
	return NULL;
}

/* The entry's settings into @a, @ev and *@event_cpu; the caller holds
 * NAMELIB_LOCK. */
static int copy_native(const struct native_event_t *ntv, pe_attr_t *a,
		       struct pe_event *ev, int *event_cpu)
{
	if (!ntv)
		return PAPI_ENOEVNT;
	if (ntv->attr.sample_period || ntv->attr.freq)
		return PAPI_EINVAL;
	if (ntv->cpu >= 0) {
		if (*event_cpu >= 0 && *event_cpu != ntv->cpu)
			return PAPI_ECNFLCT;
		*event_cpu = ntv->cpu;
	}
	a->attr = ntv->attr;
	ev->own = own_domains(ntv);
	return PAPI_OK;
}

int pe_libpfm4_attr(struct native_event_table_t *t, const NativeInfo_t *ni,
		    pe_attr_t *a, struct pe_event *ev, int *event_cpu)
{
	int ret;

	_papi_hwi_lock(NAMELIB_LOCK);
	ret = copy_native(find_native(t, ni->ni_papi_code), a, ev, event_cpu);
	_papi_hwi_unlock(NAMELIB_LOCK);
	return ret;
}

void pe_domain_edit(struct perf_event_attr *attr, int idx, void *arg)
{
	const struct pe_domain *d = arg;

	pe_apply_domain(attr, d->ev[idx].own, d->domain);
}

int pe_change(struct lope_group *grp, struct lope_change *ch,
	      struct pe_domain *dom)
{
	ch->what |= LOPE_CHANGE_TARGET | LOPE_CHANGE_FLAGS | LOPE_CHANGE_ATTR;
	ch->edit = pe_domain_edit;
	ch->arg = dom;
	return pe_errno_to_papi(lope_group__change(grp, ch));
}

int pe_take_events(int ret, struct lope_group **slot, struct lope_group *next,
		   NativeInfo_t *native, int count, const struct pe_event *ev,
		   struct pe_event *set_ev, int *set_nr)
{
	int i;

	if (ret == PAPI_OK)
		ret = pe_errno_to_papi(lope_group__replace(*slot, next));
	if (ret != PAPI_OK) {
		lope_group__delete(next);
		return ret;
	}
	lope_group__delete(*slot);
	*slot = next;
	for (i = 0; i < count; i++) {
		set_ev[i] = ev[i];
		native[i].ni_position = i;
	}
	*set_nr = count;
	return PAPI_OK;
}

/* Where option @code's own struct keeps its event set. */
static EventSetInfo_t *option_esi(int code, _papi_int_option_t *option)
{
	switch (code) {
	case PAPI_MULTIPLEX:
		return option->multiplex.ESI;
	case PAPI_ATTACH:
	case PAPI_DETACH:
		return option->attach.ESI;
	case PAPI_CPU_ATTACH:
		return option->cpu.ESI;
	case PAPI_DOMAIN:
		return option->domain.ESI;
	case PAPI_GRANUL:
		return option->granularity.ESI;
	case PAPI_INHERIT:
		return option->inherit.ESI;
	default:
		return NULL;
	}
}

void *pe_option_set(int code, _papi_int_option_t *option)
{
	EventSetInfo_t *esi = option_esi(code, option);

	return esi ? esi->ctl_state : NULL;
}

int pe_set_option(void *set, int *field, int value, int (*reopen)(void *set))
{
	int old = *field, ret;

	*field = value;
	ret = reopen(set);
	if (ret != PAPI_OK)
		*field = old;
	return ret;
}

int pe_disable(papi_vector_t *v, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->cmp_info.disabled_reason,
		  sizeof(v->cmp_info.disabled_reason), fmt, ap);
	va_end(ap);
	v->cmp_info.disabled = ret;
	return ret;
}

void pe_sw_attr(pe_attr_t *a, int exclude_kernel)
{
	memset(a, 0, sizeof(*a));
	a->attr.size = sizeof(a->attr);
	a->attr.type = PERF_TYPE_SOFTWARE;
	a->attr.config = PERF_COUNT_SW_TASK_CLOCK;
	a->attr.exclude_kernel = !!exclude_kernel;
	a->attr.exclude_hv = 1;
}

/* /proc/sys/kernel/perf_event_paranoid, or INT_MIN when it cannot be read. */
static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int level = INT_MIN;

	if (!f)
		return INT_MIN;
	if (fscanf(f, "%d", &level) != 1)
		level = INT_MIN;
	(void)fclose(f); /* read-only stream */
	return level;
}

int pe_refused(papi_vector_t *v, int err, int allowed)
{
	int level = paranoid();

	if (level > allowed)
		return pe_disable(v, PAPI_EPERM,
				  "perf_event_open refused (%s) at "
				  "perf_event_paranoid=%d: run with "
				  "CAP_PERFMON, or sysctl "
				  "kernel.perf_event_paranoid=%d",
				  strerror(-err), level, allowed);
	return pe_disable(v, PAPI_EPERM,
			  "perf_event_open refused (%s) at "
			  "perf_event_paranoid=%d, by a seccomp or security "
			  "policy: run with CAP_PERFMON, or lift the policy",
			  strerror(-err), level);
}

int pe_pfm_pmu(int i, pfm_pmu_info_t *pinfo)
{
	pfm_err_t ret;

	memset(pinfo, 0, sizeof(*pinfo));
	pinfo->size = sizeof(*pinfo);
	ret = pfm_get_pmu_info(i, pinfo);
	if (ret == PFM_ERR_INVAL)
		return -1;
	return ret == PFM_SUCCESS && pinfo->is_present;
}

int pe_init_thread(hwd_context_t *ctx)
{
	((pe_context_t *)ctx)->initialized = 1;
	return PAPI_OK;
}

int pe_shutdown_thread(hwd_context_t *ctx)
{
	((pe_context_t *)ctx)->initialized = 0;
	return PAPI_OK;
}

int pe_same_events(const struct lope_group *grp, const struct pe_event *ev,
		   int nr, NativeInfo_t *native, int count)
{
	int i;

	if (!grp || count != nr || lope_group__fd(grp, 0) < 0)
		return 0;
	for (i = 0; i < count; i++)
		if ((unsigned int)native[i].ni_papi_code != ev[i].code)
			return 0;
	for (i = 0; i < count; i++)
		native[i].ni_position = i;
	return 1;
}

/* The group a control state begins with. */
static struct lope_group *group_of(hwd_control_state_t *ctl)
{
	return *(struct lope_group **)ctl;
}

int pe_group_stop(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	(void)ctx;
	return pe_errno_to_papi(lope_group__disable_after_read(group_of(ctl)));
}

int pe_group_reset(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	(void)ctx;
	return pe_errno_to_papi(lope_group__reset(group_of(ctl)));
}
