/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pe_glue.h"
#include "pe_libpfm4_events.h"
#include "pe_sysfs.h"

const char *pe_sysfs__root(void)
{
	const char *root = secure_getenv(PE_SYSFS_ENV_ROOT);

	return root && *root ? root : PE_SYSFS_ROOT;
}

int pe_sysfs__open(struct pe_sysfs *s, enum lope_pmus_kind kind)
{
	const char *root = pe_sysfs__root();
	int err;

	memset(s, 0, sizeof(*s));
	err = lope_pmus__new(&s->pmus, root, kind);
	if (err)
		SUBDBG("%s: %s\n", root, strerror(-err));
	return err == -ENOMEM ? PAPI_ENOMEM : PAPI_OK;
}

void pe_sysfs__close(struct pe_sysfs *s)
{
	int i;

	lope_pmus__delete(s->pmus);
	for (i = 0; i < s->nr_raw; i++)
		free(s->raw[i]);
	free(s->raw);
	memset(s, 0, sizeof(*s));
}

int pe_sysfs__nr(const struct pe_sysfs *s)
{
	return s->pmus ? lope_pmus__nr_events(s->pmus) : 0;
}

void pe_sysfs__list_pmus(const struct pe_sysfs *s, papi_vector_t *v)
{
	int i, j = 0, nr = s->pmus ? lope_pmus__nr_pmus(s->pmus) : 0;

	while (j < PAPI_PMU_MAX && v->cmp_info.pmu_names[j])
		j++;
	for (i = 0; i < nr && j < PAPI_PMU_MAX; i++) {
		v->cmp_info.pmu_names[j] =
			strdup(lope_pmus__pmu_name(s->pmus, i));
		if (v->cmp_info.pmu_names[j])
			j++;
	}
}

/* Give PAPI named event @idx as the current enumeration result. */
static int enum_at(const struct pe_sysfs *s, int idx, unsigned int *code)
{
	char name[PAPI_HUGE_STR_LEN];
	const char *pmu, *event;

	if (!s->pmus || idx < 0 || (unsigned int)idx > PE_SYSFS_IDX ||
	    lope_pmus__name(s->pmus, idx, &pmu, &event) != 0)
		return PAPI_ENOEVNT;
	snprintf(name, sizeof(name), "%s::%s", pmu, event);
	/* PAPI keys its event codes by this name, as for libpfm4's. */
	_papi_hwi_set_papi_event_string(name);
	*code = PE_SYSFS_CODE | (unsigned int)idx;
	return PAPI_OK;
}

/* Named events only: raw terms are not a list.  No umasks. */
static int sysfs_enum(const struct pe_sysfs *s, unsigned int *code,
		      int modifier)
{
	switch (modifier) {
	case PAPI_ENUM_FIRST:
		return enum_at(s, 0, code);
	case PAPI_ENUM_EVENTS:
		if (!pe_sysfs__is_code(*code) || (*code & PE_SYSFS_RAW))
			return PAPI_ENOEVNT;
		return enum_at(s, (int)(*code & PE_SYSFS_IDX) + 1, code);
	default:
		return PAPI_ENOEVNT;
	}
}

/* "pmu" and what follows "::" in @name; 0, or -1 when it is no such name. */
static int split_name(const char *name, char *pmu, size_t len,
		      const char **rest)
{
	const char *sep = strstr(name, "::");

	if (!sep || sep == name || (size_t)(sep - name) >= len || !sep[2])
		return -1;
	memcpy(pmu, name, (size_t)(sep - name));
	pmu[sep - name] = '\0';
	*rest = sep + 2;
	return 0;
}

/* The raw event's index, adding @name to the list if it is new. */
static int raw_index(struct pe_sysfs *s, const char *name)
{
	char **raw;
	int i, idx = -1;

	_papi_hwi_lock(NAMELIB_LOCK);
	for (i = 0; idx < 0 && i < s->nr_raw; i++)
		if (!strcmp(s->raw[i], name))
			idx = i;
	if (idx < 0 && (unsigned int)s->nr_raw <= PE_SYSFS_IDX) {
		if (s->nr_raw == s->cap_raw) {
			int cap = s->cap_raw ? 2 * s->cap_raw : 16;

			raw = realloc(s->raw, (size_t)cap * sizeof(*raw));
			if (raw) {
				s->raw = raw;
				s->cap_raw = cap;
			}
		}
		if (s->nr_raw < s->cap_raw) {
			s->raw[s->nr_raw] = strdup(name);
			if (s->raw[s->nr_raw])
				idx = s->nr_raw++;
		}
	}
	_papi_hwi_unlock(NAMELIB_LOCK);
	return idx;
}

/* "event=0xc0:umask=0x1" in sysfs's own spelling, with commas. */
static int raw_terms(const char *rest, char *terms, size_t len)
{
	size_t i;

	if (strlen(rest) >= len)
		return PAPI_EINVAL;
	for (i = 0; rest[i]; i++)
		terms[i] = rest[i] == ':' ? ',' : rest[i];
	terms[i] = '\0';
	return PAPI_OK;
}

/* Encode a raw event's name: "pmu::terms". */
static int encode_raw(const struct pe_sysfs *s, const char *name, pe_attr_t *a)
{
	char pmu[PAPI_MIN_STR_LEN], terms[PAPI_HUGE_STR_LEN];
	const char *rest;
	int ret;

	if (split_name(name, pmu, sizeof(pmu), &rest) != 0)
		return PAPI_ENOEVNT;
	ret = raw_terms(rest, terms, sizeof(terms));
	if (ret != PAPI_OK)
		return ret;
	memset(a, 0, sizeof(*a));
	return pe_errno_to_papi(lope_pmus__encode(
		s->pmus, pmu, terms, (struct perf_event_attr *)&a->attr));
}

static int sysfs_name_to_code(struct pe_sysfs *s, const char *name,
			      unsigned int *code)
{
	char pmu[PAPI_MIN_STR_LEN];
	const char *rest;
	pe_attr_t a;
	int idx, ret;

	if (!s->pmus || split_name(name, pmu, sizeof(pmu), &rest) != 0)
		return PAPI_ENOEVNT;
	if (!strchr(rest, '=')) {
		idx = lope_pmus__find(s->pmus, pmu, rest);
		if (idx < 0 || (unsigned int)idx > PE_SYSFS_IDX)
			return PAPI_ENOEVNT;
		*code = PE_SYSFS_CODE | (unsigned int)idx;
		return PAPI_OK;
	}
	/* Raw terms: only a valid encoding gets a code. */
	ret = encode_raw(s, name, &a);
	if (ret != PAPI_OK)
		return ret == PAPI_EINVAL || ret == PAPI_EATTR ? PAPI_EATTR :
								 PAPI_ENOEVNT;
	idx = raw_index(s, name);
	if (idx < 0)
		return PAPI_ENOMEM;
	*code = PE_SYSFS_CODE | PE_SYSFS_RAW | (unsigned int)idx;
	return PAPI_OK;
}

/* The raw event's name into @buf; 0, or -1 for an unknown code. */
static int raw_name(struct pe_sysfs *s, unsigned int code, char *buf,
		    size_t len)
{
	int idx = (int)(code & PE_SYSFS_IDX), ret = -1;

	_papi_hwi_lock(NAMELIB_LOCK);
	if (idx < s->nr_raw && strlen(s->raw[idx]) < len) {
		strcpy(buf, s->raw[idx]);
		ret = 0;
	}
	_papi_hwi_unlock(NAMELIB_LOCK);
	return ret;
}

static int sysfs_code_to_name(struct pe_sysfs *s, unsigned int code, char *name,
			      int len)
{
	const char *pmu, *event;
	int n;

	if (len <= 0 || !pe_sysfs__is_code(code) || !s->pmus)
		return PAPI_ENOEVNT;
	if (code & PE_SYSFS_RAW)
		return raw_name(s, code, name, (size_t)len) ? PAPI_ENOEVNT :
							      PAPI_OK;
	if (lope_pmus__name(s->pmus, (int)(code & PE_SYSFS_IDX), &pmu, &event))
		return PAPI_ENOEVNT;
	n = snprintf(name, (size_t)len, "%s::%s", pmu, event);
	return n < 0 || n >= len ? PAPI_EBUF : PAPI_OK;
}

int pe_sysfs__event(struct pe_sysfs *s, unsigned int code, pe_attr_t *a,
		    struct lope_pmu_event *ev)
{
	char name[PAPI_HUGE_STR_LEN];
	int err;

	memset(ev, 0, sizeof(*ev));
	memset(a, 0, sizeof(*a));
	if (!pe_sysfs__is_code(code) || !s->pmus)
		return PAPI_ENOEVNT;
	if (!(code & PE_SYSFS_RAW)) {
		err = lope_pmus__event(s->pmus, (int)(code & PE_SYSFS_IDX),
				       (struct perf_event_attr *)&a->attr, ev);
		return pe_errno_to_papi(err);
	}
	if (raw_name(s, code, name, sizeof(name)))
		return PAPI_ENOEVNT;
	ev->scale = 1;
	ev->cpu = -1;
	err = encode_raw(s, name, a);
	if (err == PAPI_OK &&
	    lope_pmus__cpu(s->pmus, a->attr.type, &ev->cpu) != 0)
		ev->cpu = -1;
	return err;
}

/* "power/energy-pkg/ (sysfs: event=0x02), in Joules" and the like. */
static int describe(struct pe_sysfs *s, unsigned int code, char *descr, int len,
		    struct lope_pmu_event *ev)
{
	char name[PAPI_HUGE_STR_LEN];
	pe_attr_t a;
	int ret = pe_sysfs__event(s, code, &a, ev), n;

	if (code & PE_SYSFS_RAW) {
		if (raw_name(s, code, name, sizeof(name)))
			return PAPI_ENOEVNT;
		n = snprintf(descr, (size_t)len, "%s (raw sysfs terms)", name);
	} else if (!ev->pmu) {
		return PAPI_ENOEVNT; /* no such event: nothing to describe */
	} else if (ret != PAPI_OK) {
		n = snprintf(descr, (size_t)len,
			     "%s/%s/ (sysfs: %s): unusable: %s", ev->pmu,
			     ev->name, ev->terms, PAPI_strerror(ret));
	} else {
		n = snprintf(descr, (size_t)len, "%s/%s/ (sysfs: %s)%s%s",
			     ev->pmu, ev->name, ev->terms,
			     ev->unit[0] ? ", in " : "", ev->unit);
	}
	return n < 0 || n >= len ? PAPI_EBUF : PAPI_OK;
}

static int sysfs_code_to_descr(struct pe_sysfs *s, unsigned int code,
			       char *descr, int len)
{
	struct lope_pmu_event ev;

	if (len <= 0)
		return PAPI_EINVAL;
	return describe(s, code, descr, len, &ev);
}

static int sysfs_code_to_info(struct pe_sysfs *s, unsigned int code,
			      PAPI_event_info_t *info)
{
	struct lope_pmu_event ev;
	int ret;

	ret = sysfs_code_to_name(s, code, info->symbol, sizeof(info->symbol));
	if (ret == PAPI_OK)
		ret = describe(s, code, info->long_descr,
			       sizeof(info->long_descr), &ev);
	if (ret != PAPI_OK)
		return ret;
	snprintf(info->units, sizeof(info->units), "%s", ev.unit);
	info->data_type = ev.scale != 1 ? PAPI_DATATYPE_FP64 :
					  PAPI_DATATYPE_INT64;
	info->value_type = ev.snapshot ? PAPI_VALUETYPE_ABSOLUTE :
					 PAPI_VALUETYPE_RUNNING_SUM;
	return PAPI_OK;
}

/*
 * PAPI's libpfm4 layer (pe_libpfm4_events.c) has the table from the
 * component's init (_pe_libpfm4_init, _peu_libpfm4_init) to its shutdown
 * and takes its pointer and count as they are.  PAPI asks outside that
 * span: after PAPI_shutdown, PAPI_library_init initialises component 0
 * first and looks its presets up in every component, the others not yet
 * initialised again.  Without the table no name is known.
 */
static int has_table(const struct pe_names *n)
{
	return n->table.native_events != NULL;
}

/* libpfm4's events first, then sysfs's. */
int pe_names__enum(struct pe_names *n, unsigned int *code, int modifier)
{
	int ret = PAPI_ENOEVNT;

	if (pe_sysfs__is_code(*code) && modifier != PAPI_ENUM_FIRST)
		return sysfs_enum(&n->sysfs, code, modifier);
	if (has_table(n))
		ret = _pe_libpfm4_ntv_enum_events(code, modifier, n->cidx,
						  &n->table);
	if (ret == PAPI_OK ||
	    (modifier != PAPI_ENUM_FIRST && modifier != PAPI_ENUM_EVENTS))
		return ret;
	return sysfs_enum(&n->sysfs, code, PAPI_ENUM_FIRST);
}

/*
 * "pmu::event" or raw terms of a sysfs PMU, or libpfm4's name.  A name as
 * long as PAPI_HUGE_STR_LEN or longer is no event's (PAPI_event_info_t
 * could not hold it) and PAPI_ENOEVNT before anything parses it: PAPI's
 * libpfm4 layer copies the part before the first ':' into a BUFSIZ (8 KiB)
 * stack buffer with sprintf, which a longer name overruns.
 */
int pe_names__name_to_code(struct pe_names *n, const char *name,
			   unsigned int *code)
{
	int ret;

	if (strnlen(name, PAPI_HUGE_STR_LEN) == PAPI_HUGE_STR_LEN)
		return PAPI_ENOEVNT;
	ret = sysfs_name_to_code(&n->sysfs, name, code);
	if (ret != PAPI_ENOEVNT)
		return ret;
	if (!has_table(n) || (n->accept && !n->accept(name)))
		return PAPI_ENOEVNT;
	return _pe_libpfm4_ntv_name_to_code(name, code, n->cidx, &n->table);
}

/* Event @code's name, or with @descr its description, into @buf. */
static int code_to_text(struct pe_names *n, unsigned int code, char *buf,
			int len, bool descr)
{
	if (pe_sysfs__is_code(code))
		return descr ? sysfs_code_to_descr(&n->sysfs, code, buf, len) :
			       sysfs_code_to_name(&n->sysfs, code, buf, len);
	if (!has_table(n))
		return PAPI_ENOEVNT;
	return descr ? _pe_libpfm4_ntv_code_to_descr(code, buf, len,
						     &n->table) :
		       _pe_libpfm4_ntv_code_to_name(code, buf, len, &n->table);
}

int pe_names__code_to_name(struct pe_names *n, unsigned int code, char *name,
			   int len)
{
	return code_to_text(n, code, name, len, false);
}

int pe_names__code_to_descr(struct pe_names *n, unsigned int code, char *descr,
			    int len)
{
	return code_to_text(n, code, descr, len, true);
}

int pe_names__code_to_info(struct pe_names *n, unsigned int code,
			   PAPI_event_info_t *info)
{
	if (pe_sysfs__is_code(code))
		return sysfs_code_to_info(&n->sysfs, code, info);
	if (!has_table(n))
		return PAPI_ENOEVNT;
	return _pe_libpfm4_ntv_code_to_info(code, info, &n->table);
}

void pe_names__reinit(struct pe_names *n, papi_vector_t *v)
{
	if (has_table(n) || n->sysfs.pmus)
		pe_names__shutdown(n, v);
}

int pe_names__shutdown(struct pe_names *n, papi_vector_t *v)
{
	_pe_libpfm4_shutdown(v, &n->table);
	/* It frees the table but leaves its pointer and count. */
	memset(&n->table, 0, sizeof(n->table));
	_papi_libpfm4_shutdown(v);
	memset(v->cmp_info.pmu_names, 0, sizeof(v->cmp_info.pmu_names));
	pe_sysfs__close(&n->sysfs);
	return PAPI_OK;
}
