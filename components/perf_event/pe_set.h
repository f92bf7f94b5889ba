/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The perf_event component's own parts: an event set (pe_set.c: its
 * group, events and options), its overflow and profiling (pe_overflow.c),
 * and the vector with the calls on the measured path, names and init
 * (perf_event.c).
 */
#ifndef PE_SET_H
#define PE_SET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pe_glue.h"
#include "pe_sysfs.h"

/* Software events have no counter limit; this bounds one event set. */
#define PE_MAX_EVENTS 384

/* The overflow vector has one bit per event position. */
#define PE_MAX_OVERFLOW_POS 64

typedef struct {
	struct lope_group *grp; /* NULL until events are added */
	int nr;
	int domain;
	int granularity;
	int cpu;       /* -1: any; set by PAPI_CPU_ATTACH */
	int event_cpu; /* -1, or the cpu an event's :cpu= modifier pins */
	int sys_cpu;   /* -1, or the cpu PAPI_GRN_SYS chose by itself */
	pid_t tid;     /* 0: the calling thread */
	int attached;
	int cpu_attached;
	int inherit;
	int multiplexed;
	int enable_on_exec; /* attached with LOPE_ENABLE_ON_EXEC set */
	int exec_armed;     /* opened that way, the exec has not started it */
	int signal_held;    /* this set holds the framework's signal handler */
	struct pe_event ev[PE_MAX_EVENTS];
	int64_t counts[PE_MAX_EVENTS];
} pe_control_t;
_Static_assert(offsetof(pe_control_t, grp) == 0, "pe_group_stop's cast");

extern papi_vector_t _perf_event_vector;
/* libpfm4's events; core PMUs' sysfs events where it does not know the
 * CPU, and on a hybrid CPU. */
extern struct pe_names pe_core_names;
/* The core PMUs: several on a hybrid CPU, where events are split. */
extern struct lope_cores *pe_cores;
extern int pe_cidx;
extern unsigned int pe_engine_flags; /* LOPE_NO_RDPMC, LOPE_KERNEL_STOP */

/* A variable set to anything but "" or "0". */
int pe_env_on(const char *name);

/* The set (pe_set.c). */
int pe_overflow_signal(void);
int pe_any_overflow(const pe_control_t *c);
/* The framework's handler for our signal: held while an event overflows. */
int pe_hold_signal(pe_control_t *c);
/* @c's group changed as @ch says, with the set's options as they are. */
int pe_set_change(pe_control_t *c, struct lope_change *ch);
int pe_update_control_state(hwd_control_state_t *ctl, NativeInfo_t *native,
			    int count, hwd_context_t *ctx);
int pe_cleanup_eventset(hwd_control_state_t *ctl);
int pe_init_control_state(hwd_control_state_t *ctl);
int pe_set_domain(hwd_control_state_t *ctl, int domain);
int pe_ctl(hwd_context_t *ctx, int code, _papi_int_option_t *option);

/* Overflow and profiling (pe_overflow.c). */
int pe_set_overflow(EventSetInfo_t *esi, int index, int threshold);
int pe_set_profile(EventSetInfo_t *esi, int index, int threshold);
int pe_stop_profiling(ThreadInfo_t *thread, EventSetInfo_t *esi);
void pe_dispatch_timer(int n, hwd_siginfo_t *info, void *uc);

#endif /* PE_SET_H */
