/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Native events of the PMUs the kernel describes in sysfs, for a PAPI
 * component: "pmu::event" for each file of a PMU's events/ directory
 * ("cpu::instructions", "power::energy-pkg"), and raw terms for any listed
 * PMU ("cpu::event=0xc0", "cpu::event=0x3c:umask=0x1"; commas as in sysfs
 * work too).  The engine's lope_pmus decodes them through the PMU's
 * format/ files.  The perf_event component lists the core PMUs libpfm4
 * does not know, perf_event_uncore every other PMU.  A component's PAPI
 * ntv_* calls go through struct pe_names: libpfm4's events, then these.
 */
#ifndef PE_SYSFS_H
#define PE_SYSFS_H

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "lope.h"
#include "pe_glue.h"

/*
 * Event codes.  A libpfm4 code is (pmu << 21) | index with pmu below 0x3ff
 * (libpfm4 requires PFM_PMU_MAX to fit its 10-bit PMU mask), so codes whose
 * PMU bits are all ones are never libpfm4's.  Bit 20 marks a raw event.
 */
#define PE_SYSFS_CODE 0x7fe00000u
#define PE_SYSFS_RAW 0x00100000u
#define PE_SYSFS_IDX 0x000fffffu

/* Read PMUs from another tree: tests give real PMU types new names. */
#define PE_SYSFS_ENV_ROOT "LOPE_SYSFS_ROOT"
#define PE_SYSFS_ROOT "/sys/bus/event_source/devices"

struct pe_sysfs {
	struct lope_pmus *pmus; /* NULL: no sysfs here */
	char **raw;             /* names of the raw events met, by index */
	int nr_raw, cap_raw;
};

static inline int pe_sysfs__is_code(unsigned int code)
{
	return (code & ~(PE_SYSFS_RAW | PE_SYSFS_IDX)) == PE_SYSFS_CODE;
}

/* Where the PMUs are read from: LOPE_SYSFS_ROOT, else sysfs. */
const char *pe_sysfs__root(void);
/* List one kind of PMU; without sysfs the set is empty, not an error. */
int pe_sysfs__open(struct pe_sysfs *s, enum lope_pmus_kind kind);
void pe_sysfs__close(struct pe_sysfs *s);
/* Named events listed (raw ones are not). */
int pe_sysfs__nr(const struct pe_sysfs *s);
/* Add the listed PMUs to @v's pmu_names: PAPI asks a component only for
 * "pmu::" names of the PMUs it lists. */
void pe_sysfs__list_pmus(const struct pe_sysfs *s, papi_vector_t *v);

/*
 * The event behind @code: @attr as lope_pmus__event() fills it, @ev with
 * its scale, unit, snapshot flag and cpu.  A PAPI error code.
 */
int pe_sysfs__event(struct pe_sysfs *s, unsigned int code, pe_attr_t *attr,
		    struct lope_pmu_event *ev);

/*
 * A component's native events, from two places in this order: libpfm4's,
 * named and coded by PAPI's own libpfm4 layer (pe_libpfm4_events.c, so as
 * in stock PAPI), then the listed PMUs' in sysfs.  Both components route
 * PAPI's ntv_* calls through one of these.
 */
struct pe_names {
	struct native_event_table_t table; /* PAPI's libpfm4 layer's */
	struct pe_sysfs sysfs;
	int cidx; /* the component's index, set at its init */
	/* Asked first of a libpfm4 name being looked up: 0 makes it unknown
	 * (PAPI_ENOEVNT).  NULL: every name libpfm4 knows. */
	int (*accept)(const char *name);
};

/* PAPI's ntv_* calls (PAPI error codes). */
int pe_names__enum(struct pe_names *n, unsigned int *code, int modifier);
int pe_names__name_to_code(struct pe_names *n, const char *name,
			   unsigned int *code);
int pe_names__code_to_name(struct pe_names *n, unsigned int code, char *name,
			   int len);
int pe_names__code_to_descr(struct pe_names *n, unsigned int code, char *descr,
			    int len);
int pe_names__code_to_info(struct pe_names *n, unsigned int code,
			   PAPI_event_info_t *info);

/*
 * Free both tables and forget @v's PMU names: the component's shutdown.
 * Until its next init the ntv_* calls answer PAPI_ENOEVNT (PAPI asks a
 * component that is not initialised while it initialises another).
 */
int pe_names__shutdown(struct pe_names *n, papi_vector_t *v);

/*
 * First in a component's init: PAPI_library_init in a forked child
 * initialises the components again without shutting them down, so what
 * the parent's init took (both tables, libpfm4) is released here.
 */
void pe_names__reinit(struct pe_names *n, papi_vector_t *v);

/*
 * PAPI's ntv_* vector calls carry no component, so each component has its
 * own: PREFIX_ntv_enum_events, _name_to_code, _code_to_name,
 * _code_to_descr and _code_to_info, each on its one struct pe_names @n.
 */
#define PE_NAMES_NTV_CALLS(prefix, n)                                         \
	static int prefix##_ntv_enum_events(unsigned int *code, int modifier) \
	{                                                                     \
		return pe_names__enum(&(n), code, modifier);                  \
	}                                                                     \
	static int prefix##_ntv_name_to_code(const char *name,                \
					     unsigned int *code)              \
	{                                                                     \
		return pe_names__name_to_code(&(n), name, code);              \
	}                                                                     \
	static int prefix##_ntv_code_to_name(unsigned int code, char *name,   \
					     int len)                         \
	{                                                                     \
		return pe_names__code_to_name(&(n), code, name, len);         \
	}                                                                     \
	static int prefix##_ntv_code_to_descr(unsigned int code, char *descr, \
					      int len)                        \
	{                                                                     \
		return pe_names__code_to_descr(&(n), code, descr, len);       \
	}                                                                     \
	static int prefix##_ntv_code_to_info(unsigned int code,               \
					     PAPI_event_info_t *info)         \
	{                                                                     \
		return pe_names__code_to_info(&(n), code, info);              \
	}

#endif /* PE_SYSFS_H */
