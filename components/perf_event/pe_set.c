/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A perf_event event set: its lope group, built from PAPI's native events
 * and changed in place by its options (domain, granularity, attach, cpu,
 * inherit, multiplex) through lope_group__change, which gives the set its
 * old group back when the kernel refuses the new settings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "extras.h"

#include "papi_libpfm4_events.h"
#include "pe_libpfm4_events.h"
#include "linux-common.h"
#include "perfmon/pfmlib_perf_event.h"

#include "lope.h"
#include "pe_set.h"

/*
 * Read by PAPI_attach: the set's counters start at the target's next exec
 * (perf_event_attr.enable_on_exec), not at PAPI_start, so a launcher that
 * attaches to its forked child and starts the set before letting it exec
 * counts the command alone (utils/papi_stat).  PAPI has no option for it.
 */
#define PE_ENV_ENABLE_ON_EXEC "LOPE_ENABLE_ON_EXEC"

int pe_overflow_signal(void)
{
	return _perf_event_vector.cmp_info.hardware_intr_sig;
}

static unsigned int group_flags(const pe_control_t *c)
{
	return pe_engine_flags | (c->inherit ? LOPE_INHERIT : 0) |
	       (c->multiplexed ? LOPE_SEPARATE : 0) |
	       (c->attached && c->enable_on_exec ? LOPE_ENABLE_ON_EXEC : 0);
}

/*
 * The target and flags of @c's options into @ch, with the cpu its events'
 * modifiers pin (@event_cpu).
 */
static int settings(pe_control_t *c, int event_cpu, struct lope_change *ch)
{
	pid_t pid = c->attached ? c->tid : 0;
	int cpu = event_cpu >= 0 ? event_cpu : c->cpu;

	/* A set attached to a cpu counts every task there, as PAPI's
	 * PAPI_CPU_ATTACHED state says; stock counted only the caller. */
	if (c->granularity == PAPI_GRN_SYS || c->cpu_attached) {
		pid = -1;
		/* System-wide without a chosen cpu: the cpu we run on when
		 * the set is first opened, kept for later changes. */
		if (cpu < 0 && c->sys_cpu < 0)
			c->sys_cpu = _papi_getcpu();
		if (cpu < 0)
			cpu = c->sys_cpu;
		if (cpu < 0)
			return PAPI_EINVAL;
	}
	ch->pid = pid;
	ch->cpu = cpu;
	ch->flags = group_flags(c);
	return PAPI_OK;
}

/* @grp (the set's group, or the next one, of events @ev) with @c's options. */
static int with_options(pe_control_t *c, struct lope_group *grp,
			const struct pe_event *ev, int event_cpu,
			struct lope_change *ch)
{
	struct pe_domain dom = { ev, c->domain };
	int ret = settings(c, event_cpu, ch);

	return ret == PAPI_OK ? pe_change(grp, ch, &dom) : ret;
}

/* Opened with enable_on_exec, the exec, not PAPI_start, starts it. */
static void arm_exec(pe_control_t *c)
{
	c->exec_armed = (group_flags(c) & LOPE_ENABLE_ON_EXEC) &&
			lope_group__fd(c->grp, 0) >= 0;
}

int pe_set_change(pe_control_t *c, struct lope_change *ch)
{
	int ret = with_options(c, c->grp, c->ev, c->event_cpu, ch);

	if (ret == PAPI_OK)
		arm_exec(c);
	return ret;
}

/* pe_set_option's reopen: options are checked when events are added. */
static int reopen_set(void *set)
{
	pe_control_t *c = set;
	struct lope_change ch = { 0 };

	return c->grp ? pe_set_change(c, &ch) : PAPI_OK;
}

static int set_option(pe_control_t *c, int *field, int value)
{
	return pe_set_option(c, field, value, reopen_set);
}

/*
 * Overflow settings follow their event (PAPI never has the same native
 * event twice in a set) when PAPI adds or removes others and numbers the
 * events anew: @ev (zeroed) gets them for the new list.
 */
static void carry_overflow(const pe_control_t *c, const NativeInfo_t *native,
			   int count, struct pe_event *ev)
{
	int i, j;

	for (i = 0; i < count; i++) {
		ev[i].code = (unsigned int)native[i].ni_papi_code;
		for (j = 0; j < c->nr; j++)
			if (c->ev[j].period && c->ev[j].code == ev[i].code) {
				ev[i].period = c->ev[j].period;
				ev[i].profiling = c->ev[j].profiling;
			}
	}
}

int pe_any_overflow(const pe_control_t *c)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (c->ev[i].period)
			return 1;
	return 0;
}

/*
 * The framework's handler for our signal is counted per user: hold one
 * reference while any event of the set overflows, none otherwise.
 */
int pe_hold_signal(pe_control_t *c)
{
	int want = pe_any_overflow(c), ret = PAPI_OK;

	if (want && !c->signal_held)
		ret = _papi_hwi_start_signal(pe_overflow_signal(), 1, pe_cidx);
	else if (!want && c->signal_held)
		ret = _papi_hwi_stop_signal(pe_overflow_signal());
	if (ret == PAPI_OK)
		c->signal_held = want;
	return ret;
}

/* Native event @ni into @grp, from libpfm4 or from a core PMU's sysfs. */
static int add_native(const NativeInfo_t *ni, struct lope_group *grp,
		      struct pe_event *ev, int *event_cpu)
{
	struct lope_pmu_event pmu_ev;
	pe_attr_t a;
	int ret, err;

	memset(&a, 0, sizeof(a));
	if (pe_sysfs__is_code((unsigned int)ni->ni_event))
		ret = pe_sysfs__event(&pe_core_names.sysfs,
				      (unsigned int)ni->ni_event, &a, &pmu_ev);
	else
		ret = pe_libpfm4_attr(&pe_core_names.table, ni, &a, ev,
				      event_cpu);
	if (ret != PAPI_OK)
		return ret;
	err = lope_group__add(grp, (struct perf_event_attr *)&a);
	return err < 0 ? pe_errno_to_papi(err) : PAPI_OK;
}

/*
 * The new list's group in @next, its settings in @ev: the events, then
 * the options (the target is known once the events' modifiers are),
 * then the overflow periods (which the flags may forbid).
 */
static int build_next(pe_control_t *c, struct lope_group *next,
		      NativeInfo_t *native, int count, struct pe_event *ev,
		      int *event_cpu)
{
	struct lope_change ch = { 0 };
	int i, ret = PAPI_OK;

	for (i = 0; i < count && ret == PAPI_OK; i++)
		ret = add_native(&native[i], next, &ev[i], event_cpu);
	if (ret == PAPI_OK)
		ret = with_options(c, next, ev, *event_cpu, &ch);
	for (i = 0; i < count && ret == PAPI_OK; i++)
		ret = pe_errno_to_papi(lope_group__set_overflow(
			next, i, ev[i].period, pe_overflow_signal()));
	return ret;
}

/*
 * The new list's group in place of the old one: nothing of the set
 * changes unless it opens.
 */
static int build_events(pe_control_t *c, NativeInfo_t *native, int count,
			struct pe_event *ev)
{
	struct lope_group *next;
	int ret, event_cpu = -1;

	carry_overflow(c, native, count, ev);
	ret = pe_errno_to_papi(lope_group__new(&next, 0, -1, 0));
	if (ret != PAPI_OK)
		return ret;
	ret = pe_errno_to_papi(lope_group__set_cores(next, pe_cores));
	if (ret == PAPI_OK)
		ret = build_next(c, next, native, count, ev, &event_cpu);
	ret = pe_take_events(ret, &c->grp, next, native, count, ev, c->ev,
			     &c->nr);
	if (ret != PAPI_OK)
		return ret;
	c->event_cpu = event_cpu;
	arm_exec(c);
	return pe_hold_signal(c);
}

/* The set's group and per-event settings from PAPI's native events. */
static int build(pe_control_t *c, NativeInfo_t *native, int count)
{
	struct pe_event *ev = calloc((size_t)count, sizeof(*ev));
	int ret;

	if (!ev)
		return PAPI_ENOMEM;
	ret = build_events(c, native, count, ev);
	free(ev);
	return ret;
}

/*
 * All or nothing: if the kernel refuses the new list, the set keeps its
 * working group, counts and settings (overflow included), because PAPI
 * then either restores the old list or, at PAPI_start, goes on with this
 * set.  PAPI_start calls this with the set's own list whenever another
 * set of the thread was used since (PAPI's "dirty" context, a register
 * set shared by the thread's sets in other components): our sets share
 * nothing, so the open group is kept.
 */
int pe_update_control_state(hwd_control_state_t *ctl, NativeInfo_t *native,
			    int count, hwd_context_t *ctx)
{
	pe_control_t *c = (pe_control_t *)ctl;

	(void)ctx;
	if (count > PE_MAX_EVENTS)
		return PAPI_ECOUNT;
	if (count == 0)
		return pe_cleanup_eventset(ctl);
	if (pe_same_events(c->grp, c->ev, c->nr, native, count))
		return PAPI_OK;
	return build(c, native, count);
}

int pe_cleanup_eventset(hwd_control_state_t *ctl)
{
	pe_control_t *c = (pe_control_t *)ctl;

	lope_group__delete(c->grp);
	c->grp = NULL;
	c->nr = 0;
	return pe_hold_signal(c);
}

int pe_set_domain(hwd_control_state_t *ctl, int domain)
{
	pe_control_t *c = (pe_control_t *)ctl;

	if (domain & ~_perf_event_vector.cmp_info.available_domains)
		return PAPI_EINVAL;
	return set_option(c, &c->domain, domain);
}

static int set_granularity(pe_control_t *c, int granularity)
{
	switch (granularity) {
	case PAPI_GRN_THR:
	case PAPI_GRN_SYS:
		return set_option(c, &c->granularity, granularity);
	case PAPI_GRN_PROC:
	case PAPI_GRN_PROCG:
	case PAPI_GRN_SYS_CPU:
		return PAPI_ECMP;
	default:
		return PAPI_EINVAL;
	}
}

static int attach(pe_control_t *c, pid_t tid)
{
	pid_t old = c->tid;
	int ret;

	/* The overflow signal goes to the thread that opened the events and
	 * PAPI files an attached set under the target: nobody would handle
	 * it.  PAPI refuses overflow on an attached set, not this order. */
	if (pe_any_overflow(c))
		return PAPI_EINVAL;
	c->tid = tid;
	c->enable_on_exec = pe_env_on(PE_ENV_ENABLE_ON_EXEC);
	ret = set_option(c, &c->attached, 1);
	if (ret != PAPI_OK)
		c->tid = old;
	return ret;
}

static int cpu_attach(pe_control_t *c, int cpu)
{
	int old = c->cpu, ret;

	/* PAPI documents this refusal, but its own check tests an option
	 * code against the set's state bits and never fires. */
	if (cpu < 0 || c->inherit || c->attached)
		return PAPI_EINVAL;
	c->cpu = cpu;
	ret = set_option(c, &c->cpu_attached, 1);
	if (ret != PAPI_OK)
		c->cpu = old;
	return ret;
}

int pe_ctl(hwd_context_t *ctx, int code, _papi_int_option_t *option)
{
	pe_control_t *c = pe_option_set(code, option);

	(void)ctx;
	switch (code) {
	case PAPI_MULTIPLEX:
		return set_option(c, &c->multiplexed, 1);
	case PAPI_ATTACH:
		return attach(c, (pid_t)option->attach.tid);
	case PAPI_DETACH:
		c->tid = 0;
		return set_option(c, &c->attached, 0);
	case PAPI_CPU_ATTACH:
		return cpu_attach(c, (int)option->cpu.cpu_num);
	case PAPI_DOMAIN:
		return pe_set_domain(c, option->domain.domain);
	case PAPI_GRANUL:
		return set_granularity(c, option->granularity.granularity);
	case PAPI_INHERIT:
		return set_option(c, &c->inherit, !!option->inherit.inherit);
	case PAPI_DEF_ITIMER:
	case PAPI_DEF_ITIMER_NS:
		return PAPI_OK; /* the framework's timer, nothing to do here */
	default:
		return PAPI_ENOSUPP;
	}
}

int pe_init_control_state(hwd_control_state_t *ctl)
{
	pe_control_t *c = (pe_control_t *)ctl;

	memset(c, 0, sizeof(*c));
	c->domain = _perf_event_vector.cmp_info.default_domain;
	c->granularity = _perf_event_vector.cmp_info.default_granularity;
	c->cpu = -1;
	c->event_cpu = -1;
	c->sys_cpu = -1;
	return PAPI_OK;
}
