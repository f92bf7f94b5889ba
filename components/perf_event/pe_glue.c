/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "pe_glue.h"

int pe_errno_to_papi(int err)
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

void pe_apply_domain(struct perf_event_attr *attr, unsigned char fixed,
		     int domain)
{
	if (!(fixed & PE_FIXED_USER))
		attr->exclude_user = !(domain & PAPI_DOM_USER);
	if (!(fixed & PE_FIXED_KERNEL))
		attr->exclude_kernel = !(domain & PAPI_DOM_KERNEL);
	attr->exclude_hv = !(domain & PAPI_DOM_SUPERVISOR);
}

unsigned char pe_fixed_domains(const struct native_event_t *ntv)
{
	const char *name = ntv->allocated_name;
	unsigned char f = 0;

	if (name && strstr(name, ":u="))
		f |= PE_FIXED_USER;
	if (name && strstr(name, ":k="))
		f |= PE_FIXED_KERNEL;
	return f;
}

/*
 * PAPI's index for the code, or, for an event added without a mask (index
 * -1), the table entry with that code.
 */
struct native_event_t *pe_find_native(struct native_event_table_t *t,
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

int pe_rebuild(struct lope_group **slot, struct lope_group *src,
	       const struct pe_rebuild *r)
{
	struct lope_group *g;
	int i, err = lope_group__new(&g, r->pid, r->cpu, r->flags);

	if (err)
		return pe_errno_to_papi(err);
	for (i = 0; i < r->nr; i++) {
		err = lope_group__add(g, lope_group__attr(src, i));
		if (err < 0)
			goto fail;
		pe_apply_domain(lope_group__attr(g, i), r->fixed[i], r->domain);
		err = r->period ? lope_group__set_overflow(g, i, r->period[i],
							   r->signo) :
				  0;
		if (err < 0)
			goto fail;
	}
	err = r->nr ? lope_group__open(g) : 0;
	if (err)
		goto fail;
	if (src != *slot)
		lope_group__delete(src);
	lope_group__delete(*slot);
	*slot = g;
	return PAPI_OK;
fail:
	lope_group__delete(g);
	return pe_errno_to_papi(err);
}
