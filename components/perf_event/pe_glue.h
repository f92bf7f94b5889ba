/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the perf_event and perf_event_uncore components share: the errno
 * map, domains, PAPI's native-event lookup, a set's events, the set an
 * option is for, changing its lope group, disabling with a reason,
 * libpfm4's PMUs.  PAPI-side glue, so it lives beside the
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

/* What a set keeps of each of its events, in both components. */
struct pe_event {
	unsigned int code;       /* PAPI's code: overflow follows its event */
	unsigned char own;       /* PE_OWN_*: domains its own modifiers set */
	unsigned char profiling; /* perf_event: samples go to PAPI_profil */
	unsigned char snapshot;  /* uncore: the count is a current value */
	double scale;    /* uncore: raw * scale is in the unit; 0: none */
	uint64_t period; /* perf_event: overflow period; 0: none */
};

/*
 * A libpfm4 event of table @t: its attr into @a, the domains its :u=/:k=
 * modifiers decide into @ev->own, the cpu its :cpu= pins into
 * *@event_cpu (PAPI_ECNFLCT: another event of the set pins another).
 * Its period= and freq= modifiers would make a counting event sample
 * with nobody to take the samples (stock PAPI then dies of the unhandled
 * overflow signal, or the kernel refuses the value): PAPI_EINVAL,
 * PAPI_overflow is the way to sample.
 */
int pe_libpfm4_attr(struct native_event_table_t *t, const NativeInfo_t *ni,
		    pe_attr_t *a, struct pe_event *ev, int *event_cpu);

/*
 * The set's domain on its events @ev, as lope_change's @arg for
 * pe_domain_edit: the exclude bits of each attribute but those its own
 * modifiers decide.
 */
struct pe_domain {
	const struct pe_event *ev;
	int domain;
};
void pe_domain_edit(struct perf_event_attr *attr, int idx, void *arg);

/*
 * Give @grp the target and flags in @ch and the domain @dom on every event
 * (lope_group__change: an open group is changed in place, its old
 * settings back if the kernel refuses; one not yet open takes them for
 * its first open).  A PAPI error code.
 */
int pe_change(struct lope_group *grp, struct lope_change *ch,
	      struct pe_domain *dom);

/*
 * A set's events from PAPI's list of @count @native events: if @ret is
 * PAPI_OK (@next holds them, with the set's settings), open @next in
 * place of *@slot (lope_group__replace: the old group is closed first,
 * so a set never needs more descriptors than it will hold) and, only if
 * the kernel accepts it, make them the set's: *@slot is @next (the old
 * group deleted), @ev (what the set keeps of each) is copied into
 * @set_ev and @count into *@set_nr.  Otherwise @next is deleted and the
 * set keeps its open group.  *@slot must be stopped.  @ret, or the
 * kernel's error as a PAPI code.
 */
int pe_take_events(int ret, struct lope_group **slot, struct lope_group *next,
		   NativeInfo_t *native, int count, const struct pe_event *ev,
		   struct pe_event *set_ev, int *set_nr);

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
 * Set *@field to @value and apply it with @reopen(@set), which changes the
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

/*
 * PAPI's stop and reset, alike in both components: their control states
 * begin with their struct lope_group * (each asserts it).
 */
int pe_group_stop(hwd_context_t *ctx, hwd_control_state_t *ctl);
int pe_group_reset(hwd_context_t *ctx, hwd_control_state_t *ctl);

/*
 * The vector entries both components fill alike: the sizes (@ctl_t, the
 * control state), the thread calls, stop and reset, and the calls
 * @prefix_start, @prefix_read ... @prefix_ntv_code_to_info.  Kept out of
 * clang-format, whose releases disagree on a braced macro's layout
 * (ctests/engine/test_format.sh checks with each the project supports).
 */
/* clang-format off */
#define PE_VECTOR_CALLS(prefix, ctl_t)                                      \
	.size = {                                                           \
		.context = sizeof(pe_context_t),                            \
		.control_state = sizeof(ctl_t),                             \
		.reg_value = sizeof(int),                                   \
		.reg_alloc = sizeof(int),                                   \
	},                                                                  \
	.init_component = prefix##_init_component,                          \
	.shutdown_component = prefix##_shutdown_component,                  \
	.init_thread = pe_init_thread,                                      \
	.shutdown_thread = pe_shutdown_thread,                              \
	.init_control_state = prefix##_init_control_state,                  \
	.update_control_state = prefix##_update_control_state,              \
	.cleanup_eventset = prefix##_cleanup_eventset,                      \
	.start = prefix##_start,                                            \
	.stop = pe_group_stop,                                              \
	.read = prefix##_read,                                              \
	.reset = pe_group_reset,                                            \
	.write = prefix##_write,                                            \
	.ctl = prefix##_ctl,                                                \
	.set_domain = prefix##_set_domain,                                  \
	.ntv_enum_events = prefix##_ntv_enum_events,                        \
	.ntv_name_to_code = prefix##_ntv_name_to_code,                      \
	.ntv_code_to_name = prefix##_ntv_code_to_name,                      \
	.ntv_code_to_descr = prefix##_ntv_code_to_descr,                    \
	.ntv_code_to_info = prefix##_ntv_code_to_info
/* clang-format on */

#endif /* PE_GLUE_H */
