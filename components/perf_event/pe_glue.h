/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the perf_event and perf_event_uncore components share: the errno
 * map, domains, PAPI's native-event lookup, a set's events, the set an
 * option is for, rebuilding its lope group with new options, disabling
 * with a reason, libpfm4's PMUs.  PAPI-side glue, so it lives beside the
 * components, not in the engine.
 */
#ifndef PE_GLUE_H
#define PE_GLUE_H

#include <stdint.h>
#include <sys/types.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "papi_libpfm4_events.h"
#include "perfmon/pfmlib_perf_event.h"

#include "lope.h"

/*
 * PAPI's headers define libpfm4's struct perf_event_attr; the engine reads
 * and fills the kernel's, which may be newer and larger.
 */
typedef union {
	struct perf_event_attr attr;
	unsigned char room[512];
} pe_attr_t;

/* Domains an event's own :u= / :k= modifiers decide, whatever the set says. */
enum { PE_OWN_USER = 1, PE_OWN_KERNEL = 2 };

/* A kernel errno (either sign) as the nearest PAPI error. */
int pe_errno_to_papi_slow(int err);
/* The same, with success a test and no call: it is on every measured call. */
static inline int pe_errno_to_papi(int err)
{
	return err ? pe_errno_to_papi_slow(err) : PAPI_OK;
}

/* The set's domain on one event, except what its own modifiers decide. */
void pe_apply_domain(struct perf_event_attr *attr, unsigned char own,
		     int domain);
unsigned char pe_own_domains(const struct native_event_t *ntv);

/* The native event behind a PAPI event code in PAPI's libpfm4 table. */
struct native_event_t *pe_find_native(struct native_event_table_t *t,
				      int papi_code);

/* What a set keeps of each of its events, in both components. */
struct pe_event {
	unsigned int code;       /* PAPI's code: overflow follows its event */
	unsigned char own;       /* PE_OWN_*: domains its own modifiers set */
	unsigned char profiling; /* perf_event: samples go to PAPI_profil */
	unsigned char snapshot;  /* uncore: the count is a current value */
	double scale;    /* uncore: raw * scale is in the unit; 0: none */
	uint64_t period; /* perf_event: overflow period; 0: none */
};

/* Everything a rebuilt group is opened with. */
struct pe_rebuild {
	pid_t pid;
	int cpu;
	unsigned int flags;
	int nr;
	int domain;
	const struct pe_event *ev;
	int signo;                      /* the overflow signal */
	const struct lope_cores *cores; /* hybrid: split over these */
};

/*
 * Open a new group from @src's attributes with @r's settings in place of
 * *slot (lope_group__replace: the old group is closed first, so a set
 * never needs more descriptors than it will hold) and, only if the kernel
 * accepts it, put it in *slot (deleting the old one, and @src if it is not
 * *slot): a refused option or event leaves the old group open as it was.
 * *slot must be stopped.  Returns a PAPI error code.
 */
int pe_rebuild(struct lope_group **slot, struct lope_group *src,
	       const struct pe_rebuild *r);

/*
 * Is @grp open with exactly PAPI's @count events @native, in this order
 * (@ev: the set's @nr events)?  Then update_control_state has nothing to
 * do: PAPI calls it with the set's own list at every PAPI_start after
 * another set of the thread ran (its "dirty" context), and our sets share
 * nothing.
 */
int pe_same_events(const struct lope_group *grp, const struct pe_event *ev,
		   int nr, NativeInfo_t *native, int count);

/*
 * The control state of the event set that PAPI's option @code is for: each
 * option's struct keeps the set in a place of its own.  NULL for options
 * that name no set.
 */
void *pe_option_set(int code, _papi_int_option_t *option);

/*
 * Set *@field to @value and apply it with @reopen(@set), which rebuilds the
 * set's group (PAPI_OK at once when it has none); on failure *@field is as
 * it was and the set keeps its working group.
 */
int pe_set_option(void *set, int *field, int value, int (*reopen)(void *set));

/* Disable component @v with PAPI error @ret and a reason; returns @ret. */
__attribute__((format(printf, 3, 4))) int pe_disable(papi_vector_t *v, int ret,
						     const char *fmt, ...);

/* A software event of every kernel: the probe of what this process may do. */
void pe_sw_attr(pe_attr_t *a, int exclude_kernel);
/*
 * The kernel refused this process a probe event with -@err: disable @v
 * with the reason and the remedy: CAP_PERFMON, or the sysctl down to
 * @allowed where perf_event_paranoid is above it (else the refusal is a
 * seccomp or security policy's).  Returns PAPI_EPERM.
 */
int pe_refused(papi_vector_t *v, int err, int allowed);

/*
 * libpfm4's PMU @i (0, 1, ... in turn) into @pinfo: 1 if it is present
 * here, 0 if it is not (or libpfm4 has no PMU @i), -1 past the last one.
 */
int pe_pfm_pmu(int i, pfm_pmu_info_t *pinfo);

/* Both components' thread context: nothing per thread. */
typedef struct {
	int initialized;
} pe_context_t;

int pe_init_thread(hwd_context_t *ctx);
int pe_shutdown_thread(hwd_context_t *ctx);

#endif /* PE_GLUE_H */
