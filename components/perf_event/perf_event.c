/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAPI's perf_event CPU component on the lope engine.
 *
 * Thin glue: PAPI's control state becomes one lope_group, PAPI's options
 * become group flags, and native event names go through PAPI's own libpfm4
 * naming layer (pe_libpfm4_events.c, kept from the PAPI tree) so names and
 * codes are identical to stock PAPI.  Reads use rdpmc where the kernel
 * allows it, read(2) otherwise; reset, accum and restart use base values
 * in the engine instead of PERF_EVENT_IOC_RESET.  Overflow and profiling
 * are kernel sampling: the engine routes each event's overflow signal to
 * the measuring thread and keeps its sampled addresses in a ring buffer.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "extras.h"

#include "papi_libpfm4_events.h"
#include "papi_preset.h"
#include "pe_libpfm4_events.h"
#include "linux-common.h"
#include "perfmon/pfmlib_perf_event.h"

#include "lope.h"
#include "pe_cpu.h"
#include "pe_glue.h"
#include "pe_sysfs.h"

/* PAPI hands us one long long per event; the engine writes int64_t. */
_Static_assert(sizeof(long long) == sizeof(int64_t), "64-bit counts");

/* Software events have no counter limit; this bounds one event set. */
#define PE_MAX_EVENTS 384

/* Forces the read(2) path, for comparisons with the rdpmc path. */
#define PE_ENV_NO_RDPMC "LOPE_NO_RDPMC"

/*
 * Read by PAPI_attach: the set's counters start at the target's next exec
 * (perf_event_attr.enable_on_exec), not at PAPI_start, so a launcher that
 * attaches to its forked child and starts the set before letting it exec
 * counts the command alone (utils/papi_stat).  PAPI has no option for it.
 */
#define PE_ENV_ENABLE_ON_EXEC "LOPE_ENABLE_ON_EXEC"

/* The overflow vector has one bit per event position. */
#define PE_MAX_OVERFLOW_POS 64

/* Our section of PAPI's preset table (lope_presets.csv). */
#define PE_PRESET_SECTION "lope_generic"

/* Sampled addresses taken out of a ring buffer at a time. */
#define PE_SAMPLES 16

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

papi_vector_t _perf_event_vector;
/* libpfm4's events; core PMUs' sysfs events where it does not know the CPU,
 * and on a hybrid CPU. */
static struct pe_names names;
/* The core PMUs: several on a hybrid CPU, where events are split. */
static struct lope_cores *cores;
static int our_cidx;
static unsigned int engine_flags; /* LOPE_NO_RDPMC when forced or useless */

static unsigned int group_flags(const pe_control_t *c)
{
	return engine_flags | (c->inherit ? LOPE_INHERIT : 0) |
	       (c->multiplexed ? LOPE_SEPARATE : 0) |
	       (c->attached && c->enable_on_exec ? LOPE_ENABLE_ON_EXEC : 0);
}

/* A variable set to anything but "" or "0". */
static int env_on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0;
}

static int overflow_signal(void)
{
	return _perf_event_vector.cmp_info.hardware_intr_sig;
}

/*
 * Open a group for @c's current options from @src's attributes, with the
 * @nr events' settings @ev and the cpu their modifiers pin (@event_cpu):
 * the old group is closed first and stays, reopened, if the kernel
 * refuses (pe_rebuild).
 */
static int reopen_events(pe_control_t *c, struct lope_group *src,
			 const struct pe_event *ev, int nr, int event_cpu)
{
	struct pe_rebuild r;
	pid_t pid = c->attached ? c->tid : 0;
	int cpu = event_cpu >= 0 ? event_cpu : c->cpu, ret;

	/* A set attached to a cpu counts every task there, as PAPI's
	 * PAPI_CPU_ATTACHED state says; stock counted only the caller. */
	if (c->granularity == PAPI_GRN_SYS || c->cpu_attached) {
		pid = -1;
		/* System-wide without a chosen cpu: the cpu we run on when
		 * the set is first opened, kept for later reopens. */
		if (cpu < 0 && c->sys_cpu < 0)
			c->sys_cpu = _papi_getcpu();
		if (cpu < 0)
			cpu = c->sys_cpu;
		if (cpu < 0)
			return PAPI_EINVAL;
	}
	r.pid = pid;
	r.cpu = cpu;
	r.flags = group_flags(c);
	r.nr = nr;
	r.domain = c->domain;
	r.ev = ev;
	r.signo = overflow_signal();
	r.cores = cores;
	ret = pe_rebuild(&c->grp, src, &r);
	if (ret == PAPI_OK)
		c->exec_armed = !!(r.flags & LOPE_ENABLE_ON_EXEC);
	return ret;
}

/* The set's own events with its options as they are now. */
static int reopen(pe_control_t *c)
{
	return reopen_events(c, c->grp, c->ev, c->nr, c->event_cpu);
}

/* pe_set_option's reopen: options are checked when events are added. */
static int reopen_set(void *set)
{
	pe_control_t *c = set;

	return c->grp && c->nr ? reopen(c) : PAPI_OK;
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

static int any_overflow(const pe_control_t *c)
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
static int hold_signal(pe_control_t *c)
{
	int want = any_overflow(c), ret = PAPI_OK;

	if (want && !c->signal_held)
		ret = _papi_hwi_start_signal(overflow_signal(), 1, our_cidx);
	else if (!want && c->signal_held)
		ret = _papi_hwi_stop_signal(overflow_signal());
	if (ret == PAPI_OK)
		c->signal_held = want;
	return ret;
}

/*
 * A libpfm4 event: its attr, :u=/:k= modifiers into @ev; its :cpu= pins
 * the set (*@event_cpu).  Its period= and freq= modifiers would make a
 * counting event sample with nobody to take the samples (stock PAPI then
 * dies of the unhandled overflow signal, or the kernel refuses the
 * value): PAPI_EINVAL, PAPI_overflow is the way to sample.
 */
static int libpfm4_attr(const NativeInfo_t *ni, pe_attr_t *a,
			struct pe_event *ev, int *event_cpu)
{
	struct native_event_t *ntv =
		pe_find_native(&names.table, ni->ni_papi_code);

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
	ev->own = pe_own_domains(ntv);
	return PAPI_OK;
}

/* Native event @ni into @src, from libpfm4 or from a core PMU's sysfs. */
static int add_native(const NativeInfo_t *ni, struct lope_group *src,
		      struct pe_event *ev, int *event_cpu)
{
	struct lope_pmu_event pmu_ev;
	pe_attr_t a;
	int ret, err;

	memset(&a, 0, sizeof(a));
	if (pe_sysfs__is_code((unsigned int)ni->ni_event))
		ret = pe_sysfs__event(&names.sysfs, (unsigned int)ni->ni_event,
				      &a, &pmu_ev);
	else
		ret = libpfm4_attr(ni, &a, ev, event_cpu);
	if (ret != PAPI_OK)
		return ret;
	err = lope_group__add(src, (struct perf_event_attr *)&a);
	return err < 0 ? pe_errno_to_papi(err) : PAPI_OK;
}

/*
 * The new list's attributes in @src and settings in @ev, then its group
 * in place of the old one: nothing of the set changes unless that opens.
 */
static int build_events(pe_control_t *c, NativeInfo_t *native, int count,
			struct pe_event *ev)
{
	struct lope_group *src;
	int i, err, ret = PAPI_OK, event_cpu = -1;

	carry_overflow(c, native, count, ev);
	err = lope_group__new(&src, 0, -1, 0);
	if (err)
		return pe_errno_to_papi(err);
	for (i = 0; i < count && ret == PAPI_OK; i++)
		ret = add_native(&native[i], src, &ev[i], &event_cpu);
	if (ret == PAPI_OK)
		ret = reopen_events(c, src, ev, count, event_cpu);
	if (ret != PAPI_OK) {
		lope_group__delete(src);
		return ret;
	}
	for (i = 0; i < count; i++) {
		c->ev[i] = ev[i];
		native[i].ni_position = i;
	}
	c->nr = count;
	c->event_cpu = event_cpu;
	return hold_signal(c);
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
static int pe_update_control_state(hwd_control_state_t *ctl,
				   NativeInfo_t *native, int count,
				   hwd_context_t *ctx)
{
	pe_control_t *c = (pe_control_t *)ctl;

	(void)ctx;
	if (count > PE_MAX_EVENTS)
		return PAPI_ECOUNT;
	if (count == 0) {
		lope_group__delete(c->grp);
		c->grp = NULL;
		c->nr = 0;
		return hold_signal(c);
	}
	if (pe_same_events(c->grp, c->ev, c->nr, native, count))
		return PAPI_OK;
	return build(c, native, count);
}

static int pe_start(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	pe_control_t *c = (pe_control_t *)ctl;
	int err;

	(void)ctx;
	/* Enable-on-exec: the kernel starts the counters at the exec; an
	 * ioctl now would count the launcher up to it.  Later starts (after
	 * a stop) are ordinary. */
	if (c->exec_armed) {
		c->exec_armed = 0;
		return PAPI_OK;
	}
	err = lope_group__enable(c->grp);
	/* A failed change whose old group could not be reopened either
	 * (lope_group__replace): open it now. */
	if (err == -EBADF && lope_group__open(c->grp) == 0)
		err = lope_group__enable(c->grp);
	return pe_errno_to_papi(err);
}

static int pe_stop(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	pe_control_t *c = (pe_control_t *)ctl;

	(void)ctx;
	return pe_errno_to_papi(lope_group__disable_after_read(c->grp));
}

static int pe_read(hwd_context_t *ctx, hwd_control_state_t *ctl,
		   long long **events, int flags)
{
	pe_control_t *c = (pe_control_t *)ctl;

	(void)ctx;
	(void)flags;
	/* PAPI looks at *events only when the read succeeds. */
	*events = (long long *)c->counts;
	return pe_errno_to_papi(lope_group__read(c->grp, c->counts));
}

static int pe_reset(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	pe_control_t *c = (pe_control_t *)ctl;

	(void)ctx;
	return pe_errno_to_papi(lope_group__reset(c->grp));
}

static int pe_write(hwd_context_t *ctx, hwd_control_state_t *ctl,
		    long long *from)
{
	pe_control_t *c = (pe_control_t *)ctl;
	int i;

	(void)ctx;
	for (i = 0; i < c->nr; i++)
		c->counts[i] = from[i];
	return pe_errno_to_papi(lope_group__write(c->grp, c->counts));
}

static int pe_cleanup_eventset(hwd_control_state_t *ctl)
{
	pe_control_t *c = (pe_control_t *)ctl;

	lope_group__delete(c->grp);
	c->grp = NULL;
	c->nr = 0;
	return hold_signal(c);
}

static int pe_set_domain(hwd_control_state_t *ctl, int domain)
{
	pe_control_t *c = (pe_control_t *)ctl;

	if (domain & ~_perf_event_vector.cmp_info.available_domains)
		return PAPI_EINVAL;
	return set_option(c, &c->domain, domain);
}

static int pe_set_granularity(pe_control_t *c, int granularity)
{
	switch (granularity) {
	case PAPI_GRN_THR:
		return set_option(c, &c->granularity, granularity);
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

static int pe_attach(pe_control_t *c, pid_t tid)
{
	pid_t old = c->tid;
	int ret;

	/* The overflow signal goes to the thread that opened the events and
	 * PAPI files an attached set under the target: nobody would handle
	 * it.  PAPI refuses overflow on an attached set, not this order. */
	if (any_overflow(c))
		return PAPI_EINVAL;
	c->tid = tid;
	c->enable_on_exec = env_on(PE_ENV_ENABLE_ON_EXEC);
	ret = set_option(c, &c->attached, 1);
	if (ret != PAPI_OK)
		c->tid = old;
	return ret;
}

static int pe_cpu_attach(pe_control_t *c, int cpu)
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

static int pe_ctl(hwd_context_t *ctx, int code, _papi_int_option_t *option)
{
	pe_control_t *c = pe_option_set(code, option);

	(void)ctx;
	switch (code) {
	case PAPI_MULTIPLEX:
		return set_option(c, &c->multiplexed, 1);
	case PAPI_ATTACH:
		return pe_attach(c, (pid_t)option->attach.tid);
	case PAPI_DETACH:
		c->tid = 0;
		return set_option(c, &c->attached, 0);
	case PAPI_CPU_ATTACH:
		return pe_cpu_attach(c, (int)option->cpu.cpu_num);
	case PAPI_DOMAIN:
		return pe_set_domain(c, option->domain.domain);
	case PAPI_GRANUL:
		return pe_set_granularity(c, option->granularity.granularity);
	case PAPI_INHERIT:
		return set_option(c, &c->inherit, !!option->inherit.inherit);
	case PAPI_DEF_ITIMER:
	case PAPI_DEF_ITIMER_NS:
		return PAPI_OK; /* the framework's timer, nothing to do here */
	default:
		return PAPI_ENOSUPP;
	}
}

static int pe_init_control_state(hwd_control_state_t *ctl)
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

/*
 * Overflow of position @pos at @threshold (0: off), feeding PAPI_profil's
 * histogram when @profiling.  The set is stopped (PAPI checks), so it is
 * reopened with the new sampling settings; an unchanged period keeps the
 * open group, as when PAPI repeats its settings after update_control_state.
 */
static int set_period(pe_control_t *c, int pos, int threshold, int profiling)
{
	uint64_t old;
	unsigned char old_profiling;
	int ret;

	if (pos < 0 || pos >= c->nr || threshold < 0)
		return PAPI_EINVAL;
	if (threshold && pos >= PE_MAX_OVERFLOW_POS)
		return PAPI_ECNFLCT; /* the overflow vector cannot name it */
	old = c->ev[pos].period;
	old_profiling = c->ev[pos].profiling;
	c->ev[pos].period = (uint64_t)threshold;
	c->ev[pos].profiling = threshold ? (unsigned char)profiling : 0;
	ret = hold_signal(c);
	if (ret == PAPI_OK && old != c->ev[pos].period)
		ret = reopen(c);
	if (ret != PAPI_OK) {
		c->ev[pos].period = old;
		c->ev[pos].profiling = old_profiling;
		/* Back to the reference count we started with; the error
		 * to report is the one above. */
		(void)hold_signal(c);
	}
	return ret;
}

static int pe_set_overflow(EventSetInfo_t *esi, int index, int threshold)
{
	return set_period((pe_control_t *)esi->ctl_state,
			  esi->EventInfoArray[index].pos[0], threshold, 0);
}

static int pe_set_profile(EventSetInfo_t *esi, int index, int threshold)
{
	pe_control_t *c = (pe_control_t *)esi->ctl_state;
	int ret;

	/* No sampled data or instruction addresses (EAR) here. */
	if (threshold && (esi->profile.flags &
			  (PAPI_PROFIL_DATA_EAR | PAPI_PROFIL_INST_EAR)))
		return PAPI_ENOSUPP;
	ret = set_period(c, esi->EventInfoArray[index].pos[0], threshold, 1);
	/* PAPI_sprofil marks the set overflowing when profiling starts but
	 * leaves the unmarking to us when the last sampling event stops. */
	if (ret == PAPI_OK && !any_overflow(c)) {
		esi->state &= ~PAPI_OVERFLOWING;
		esi->overflow.flags &= ~PAPI_OVERFLOW_HARDWARE;
	}
	return ret;
}

/* Which of PAPI_sprofil's profiles position @pos feeds. */
static int profile_index(const EventSetInfo_t *esi, int pos)
{
	int j;

	for (j = 0; j < esi->profile.event_counter; j++)
		if (esi->EventInfoArray[esi->profile.EventIndex[j]].pos[0] ==
		    pos)
			return j;
	return -1;
}

/*
 * Every address waiting in @pos's ring buffer goes into its histogram;
 * without a ring buffer, @fallback (the signal context's) if not 0.
 */
static void profile_samples(EventSetInfo_t *esi, pe_control_t *c, int pos,
			    vptr_t fallback)
{
	uint64_t ips[PE_SAMPLES];
	int k = profile_index(esi, pos), n, i;

	if (k < 0)
		return;
	do {
		n = lope_group__samples(c->grp, pos, ips, PE_SAMPLES);
		for (i = 0; i < n; i++)
			_papi_hwi_dispatch_profile(esi, (vptr_t)ips[i], 0, k);
	} while (n == PE_SAMPLES);
	if (n < 0 && fallback)
		_papi_hwi_dispatch_profile(esi, fallback, 0, k);
}

/* The latest sampled address, else where the signal interrupted. */
static vptr_t overflow_address(pe_control_t *c, int pos, vptr_t fallback)
{
	uint64_t ips[PE_SAMPLES];
	vptr_t address = fallback;
	int n;

	do {
		n = lope_group__samples(c->grp, pos, ips, PE_SAMPLES);
		if (n > 0)
			address = (vptr_t)ips[n - 1];
	} while (n == PE_SAMPLES);
	return address;
}

/* PAPI_stop: what is still in the ring buffers goes to the histograms. */
static int pe_stop_profiling(ThreadInfo_t *thread, EventSetInfo_t *esi)
{
	pe_control_t *c = (pe_control_t *)esi->ctl_state;
	int i;

	(void)thread;
	for (i = 0; i < c->nr; i++)
		if (c->ev[i].profiling)
			profile_samples(esi, c, i, 0);
	return PAPI_OK;
}

/*
 * Our overflow signal: the event is the one whose descriptor is si_fd;
 * the overflow vector has its position's bit.  Then the engine counts
 * the signal against the event's budget of waiting signals and renews it
 * when half is used (see src/overflow.c).
 */
static void hw_overflow(ThreadInfo_t *thread, EventSetInfo_t *esi,
			_papi_hwi_context_t *hc)
{
	pe_control_t *c = (pe_control_t *)esi->ctl_state;
	vptr_t here = GET_OVERFLOW_ADDRESS((*hc));
	int pos = lope_group__find_fd(c->grp, hc->si->si_fd);

	if (pos < 0 || pos >= PE_MAX_OVERFLOW_POS || !c->ev[pos].period)
		return; /* from a group closed since */
	if (c->ev[pos].profiling)
		profile_samples(esi, c, pos, here);
	else
		_papi_hwi_dispatch_overflow_signal(
			hc, overflow_address(c, pos, here), NULL,
			(long long)(1ULL << pos), 0, &thread, our_cidx);
	/* PAPI's handler may have stopped the set (no re-arm then). */
	if (c->grp && lope_group__rearm(c->grp, pos, hc->si->si_code) < 0)
		SUBDBG("re-arming overflow of position %d failed\n", pos);
}

/*
 * The framework installs this for our signal (hardware overflow) and for
 * its interval timer (PAPI_OVERFLOW_FORCE_SW, where it checks the counts
 * itself).  errno is kept for the code the signal interrupted.
 */
static void pe_dispatch_timer(int n, hwd_siginfo_t *info, void *uc)
{
	_papi_hwi_context_t hw_context;
	ThreadInfo_t *thread = _papi_hwi_lookup_thread(0);
	EventSetInfo_t *esi;
	int hardware, saved_errno = errno;

	esi = thread ? thread->running_eventset[our_cidx] : NULL;
	if (!esi || !(esi->state & PAPI_OVERFLOWING))
		goto out;
	hw_context.si = info;
	hw_context.ucontext = (hwd_ucontext_t *)uc;
	hardware = !!(esi->overflow.flags & PAPI_OVERFLOW_HARDWARE);
	if (hardware != (n == overflow_signal()))
		goto out; /* a late signal of another kind of overflow */
	if (hardware)
		hw_overflow(thread, esi, &hw_context);
	else
		_papi_hwi_dispatch_overflow_signal(
			&hw_context, GET_OVERFLOW_ADDRESS(hw_context), NULL, 0,
			0, &thread, our_cidx);
out:
	errno = saved_errno;
}

/*
 * While PAPI loads presets (its own table's section for the CPU, or our
 * generic one), an event the kernel refuses here does not exist: the
 * preset is left out instead of listed and unusable (stock PAPI lists
 * such presets: upstream issue #336).  Whether PAPI asked for any event
 * tells whether its table had a section for the CPU at all.
 */
static struct {
	int on;
	int asked;
} loading_presets;

/*
 * On a hybrid CPU, can a preset's event count on every core type?  A
 * generic event with no equivalent on one of them (no extended type, no
 * sysfs event of that meaning) would count on some cpus only: such a
 * preset is left out.  An event of one PMU (PAPI's table of one core
 * type) is kept: it counts on that core type, as in stock PAPI.
 */
static int counts_everywhere(pe_attr_t *a)
{
	struct perf_event_attr parts[LOPE_CORES_MAX];
	int pmu[LOPE_CORES_MAX];

	return lope_cores__split(cores, &a->attr, parts, pmu, LOPE_CORES_MAX) >
	       0;
}

/* libpfm4's encoding of event @name into @a: 0, or -1. */
static int libpfm4_encode(const char *name, pe_attr_t *a)
{
	pfm_perf_encode_arg_t arg;

	memset(&arg, 0, sizeof(arg));
	memset(a, 0, sizeof(*a));
	arg.size = sizeof(arg);
	arg.attr = &a->attr;
	return pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT,
					 &arg) == PFM_SUCCESS ?
		       0 :
		       -1;
}

/* names.accept: every name, but while PAPI loads presets only the events
 * the kernel opens here. */
static int accept_name(const char *name)
{
	pe_attr_t a;

	if (!loading_presets.on)
		return 1;
	loading_presets.asked++;
	if (libpfm4_encode(name, &a))
		return 0;
	a.attr.exclude_kernel = 1;
	a.attr.exclude_hv = 1;
	return lope_probe((struct perf_event_attr *)&a, 0, -1) == 0 &&
	       counts_everywhere(&a);
}

/*
 * On a hybrid CPU, the description of an event of one core type ends
 * with it: " [armv8_cortex_a57 only: cpus 0]".
 */
static void note_core_type(unsigned int code, char *descr, size_t len)
{
	struct perf_event_attr parts[LOPE_CORES_MAX];
	char name[PAPI_HUGE_STR_LEN];
	struct lope_pmu_event ev;
	int pmu[LOPE_CORES_MAX];
	pe_attr_t a;
	size_t n;

	if (lope_cores__nr(cores) < 2)
		return;
	if (pe_sysfs__is_code(code)) {
		if (pe_sysfs__event(&names.sysfs, code, &a, &ev) != PAPI_OK)
			return;
	} else if (pe_names__code_to_name(&names, code, name, sizeof(name)) !=
			   PAPI_OK ||
		   libpfm4_encode(name, &a)) {
		return;
	}
	if (lope_cores__split(cores, &a.attr, parts, pmu, LOPE_CORES_MAX) !=
		    1 ||
	    pmu[0] < 0)
		return;
	n = strlen(descr);
	snprintf(descr + n, len - n, " [%s only: cpus %s]",
		 lope_cores__name(cores, pmu[0]),
		 lope_cores__cpus(cores, pmu[0]));
}

/* PAPI's ntv_* calls: libpfm4's events first, then the core PMUs' in
 * sysfs (pe_sysfs.h). */
static int pe_ntv_enum_events(unsigned int *code, int modifier)
{
	return pe_names__enum(&names, code, modifier);
}

static int pe_ntv_name_to_code(const char *name, unsigned int *code)
{
	return pe_names__name_to_code(&names, name, code);
}

static int pe_ntv_code_to_name(unsigned int code, char *name, int len)
{
	return pe_names__code_to_name(&names, code, name, len);
}

static int pe_ntv_code_to_descr(unsigned int code, char *descr, int len)
{
	int ret = pe_names__code_to_descr(&names, code, descr, len);

	if (ret == PAPI_OK)
		note_core_type(code, descr, (size_t)len);
	return ret;
}

static int pe_ntv_code_to_info(unsigned int code, PAPI_event_info_t *info)
{
	int ret = pe_names__code_to_info(&names, code, info);

	if (ret == PAPI_OK)
		note_core_type(code, info->long_descr,
			       sizeof(info->long_descr));
	return ret;
}

/*
 * Ask the kernel what this process may count, as it decides (paranoid
 * level, CAP_PERFMON, CAP_SYS_ADMIN, a vendor's paranoid 3), with a
 * software event every kernel has: nothing at all, or no kernel domain.
 */
static int check_permissions(papi_vector_t *v)
{
	pe_attr_t a;
	int err;

	pe_sw_attr(&a, 1);
	err = lope_probe((struct perf_event_attr *)&a, 0, -1);
	if (err == -EACCES || err == -EPERM)
		return pe_refused(v, err, 2);
	if (err)
		return pe_disable(v, PAPI_ECMP,
				  "perf_event support not detected: %s",
				  strerror(-err));
	pe_sw_attr(&a, 0);
	if (lope_probe((struct perf_event_attr *)&a, 0, -1) != 0)
		v->cmp_info.available_domains &= ~PAPI_DOM_KERNEL;
	return PAPI_OK;
}

/* fast_counter_read is 1 only if rdpmc really works here; @why says why not. */
static void detect_rdpmc(papi_vector_t *v, char *why, size_t len)
{
	if (env_on(PE_ENV_NO_RDPMC)) {
		snprintf(why, len, "forced off by %s", PE_ENV_NO_RDPMC);
		v->cmp_info.fast_counter_read = 0;
	} else {
		v->cmp_info.fast_counter_read = lope_rdpmc_usable(why, len) ==
						0;
	}
	if (v->cmp_info.fast_counter_read)
		snprintf(why, len, "yes");
	engine_flags = v->cmp_info.fast_counter_read ? 0 : LOPE_NO_RDPMC;
}

static int libpfm4_reason(papi_vector_t *v, int ret)
{
	switch (ret) {
	case PAPI_ENOMEM:
		return pe_disable(v, ret, "Error libpfm4 memory allocation");
	case PAPI_ENOSUPP:
		return pe_disable(v, ret, "Error libpfm4 no PMUs found");
	case PAPI_ENOEVNT:
		return pe_disable(v, ret, "Error loading preset events");
	default:
		return pe_disable(v, ret, "Unknown libpfm4 related error");
	}
}

/* PAPI's user-defined events that are defined: they fill the table's head. */
extern hwi_presets_t user_defined_events[];
extern int user_defined_events_count;

static int defined_user_events(void)
{
	int n = 0;

	while (n < PAPI_MAX_USER_EVENTS && user_defined_events[n].symbol)
		n++;
	return n;
}

/*
 * Where no preset of PAPI's table counts here (it has no section for this
 * CPU, or the kernel refuses the events of its section), the presets that
 * are exactly one of the kernel's generic events: our section of PAPI's
 * own table (lope_presets.csv, added to papi_events.csv by the build),
 * loaded by PAPI's own loader, each one only if the kernel accepts its
 * event here.  The loader reads PAPI_USER_EVENTS_FILE again, so that user
 * events built on these presets resolve; it counts the ones it already
 * had twice, hence the recount.
 */
static void load_generic_presets(int cidx)
{
	static char section[] = PE_PRESET_SECTION;

	loading_presets.on = 1;
	if (_papi_load_preset_table(section, 0, cidx) != PAPI_OK)
		SUBDBG("no preset section %s\n", section);
	loading_presets.on = 0;
	user_defined_events_count = defined_user_events();
}

/* Why PAPI's libpfm4 layer has no default core PMU here, for @mode. */
static void unknown_cpu_mode(char *mode, size_t len, int ret,
			     const char *libpfm4)
{
	const char *forced = getenv("LIBPFM_FORCE_PMU");
	char cpu[PAPI_MIN_STR_LEN];

	if (ret == PAPI_ECOUNT) {
		snprintf(mode, len,
			 "hybrid CPU, several core PMUs in %.16s: "
			 "generic and sysfs events",
			 libpfm4);
	} else if (forced && *forced) {
		snprintf(mode, len,
			 "%.16s limited to %.16s by LIBPFM_FORCE_PMU: "
			 "generic and sysfs events",
			 libpfm4, forced);
	} else {
		pe_cpu__name(cpu, sizeof(cpu));
		snprintf(mode, len,
			 "%.40s unknown to %.16s: generic and sysfs "
			 "events",
			 cpu, libpfm4);
	}
}

/*
 * libpfm4 knows no core PMU of this CPU (or several, on a hybrid one):
 * its generic events, the core PMUs' own sysfs events and, without a CPU
 * table, as many counters as the kernel schedules together.
 */
static int unknown_cpu(papi_vector_t *v)
{
	if (pe_sysfs__open(&names.sysfs, LOPE_PMUS_CORE) != PAPI_OK)
		return pe_disable(v, PAPI_ENOMEM, "out of memory");
	pe_sysfs__list_pmus(&names.sysfs, v);
	v->cmp_info.num_native_events =
		pe_cpu__libpfm4_events() + pe_sysfs__nr(&names.sysfs);
	v->cmp_info.num_cntrs = pe_cpu__counters();
	/* Software events need no counter, and PAPI's framework takes this
	 * number as the limit of overflowing events. */
	if (v->cmp_info.num_cntrs == 0)
		v->cmp_info.num_cntrs = PE_MAX_OVERFLOW_POS;
	return PAPI_OK;
}

/* "; core PMUs armv8_cortex_a53 (cpus 1), armv8_cortex_a57 (cpus 0)" on a
 * hybrid CPU, else "". */
static const char *hybrid(char *buf, size_t len)
{
	size_t n = 0;
	int i, r;

	buf[0] = '\0';
	for (i = 0; lope_cores__nr(cores) > 1 && i < lope_cores__nr(cores);
	     i++) {
		r = snprintf(buf + n, len - n, "%s %s (cpus %s)",
			     i ? "," : "; core PMUs",
			     lope_cores__name(cores, i),
			     lope_cores__cpus(cores, i));
		if (r < 0 || (size_t)r >= len - n)
			break;
		n += (size_t)r;
	}
	return buf;
}

static int pe_init_component(int cidx)
{
	papi_vector_t *v = _papi_hwd[cidx];
	char mode[PAPI_MAX_STR_LEN], why[PAPI_MAX_STR_LEN];
	char libpfm4[PAPI_MIN_STR_LEN], hy[PAPI_MAX_STR_LEN];
	const char *pmu;
	int ret, papi_presets;

	pe_names__reinit(&names, v);
	our_cidx = cidx;
	names.cidx = cidx;
	names.accept = accept_name;
	ret = check_permissions(v);
	if (ret != PAPI_OK)
		return ret;
	/* HPCToolkit picks its own signals assuming PAPI uses this one. */
	v->cmp_info.hardware_intr_sig = SIGRTMIN + 2;
	if (_papi_hwi_system_info.hw_info.vendor == PAPI_VENDOR_INTEL ||
	    _papi_hwi_system_info.hw_info.vendor == PAPI_VENDOR_AMD)
		v->cmp_info.fast_real_timer = 1;
	/* Kept from an earlier init: PAPI_library_init in a forked child
	 * inits again while the parent's sets, which use it, still exist. */
	if (!cores && lope_cores__new(&cores, pe_sysfs__root()) == -ENOMEM)
		return pe_disable(v, PAPI_ENOMEM, "out of memory");
	detect_rdpmc(v, why, sizeof(why));
	pe_cpu__libpfm4_name(libpfm4, sizeof(libpfm4));
	if (_papi_libpfm4_init(v) != PAPI_OK)
		return pe_disable(v, PAPI_ECMP, "Error initializing libpfm4");
	/* PAPI's libpfm4 layer loads PAPI's own preset section, if any. */
	loading_presets.on = 1;
	ret = _pe_libpfm4_init(v, cidx, &names.table,
			       PMU_TYPE_CORE | PMU_TYPE_OS);
	loading_presets.on = 0;
	papi_presets = v->cmp_info.num_preset_events;
	pmu = names.table.default_pmu.name;
	if (ret == PAPI_OK && lope_cores__nr(cores) > 1) {
		/* A hybrid CPU libpfm4 names by one core type: each core
		 * PMU's own events too, which count on that type alone. */
		if (pe_sysfs__open(&names.sysfs, LOPE_PMUS_CORE) != PAPI_OK)
			return pe_disable(v, PAPI_ENOMEM, "out of memory");
		pe_sysfs__list_pmus(&names.sysfs, v);
		v->cmp_info.num_native_events += pe_sysfs__nr(&names.sysfs);
	}
	if (ret == PAPI_OK) {
		/* The NMI watchdog holds one counter for itself. */
		if (_linux_detect_nmi_watchdog() && v->cmp_info.num_cntrs > 0)
			v->cmp_info.num_cntrs--;
		snprintf(
			mode, sizeof(mode), "%.16s %.32s%s", libpfm4,
			pmu ? pmu : "?",
			papi_presets ?
				"" :
			!loading_presets.asked ?
				", generic presets (none in PAPI's table)" :
				", generic presets (none of PAPI's counts here)");
	} else if (ret == PAPI_ECMP || ret == PAPI_ECOUNT) {
		unknown_cpu_mode(mode, sizeof(mode), ret, libpfm4);
		ret = unknown_cpu(v);
		if (ret != PAPI_OK)
			return ret;
	} else {
		return libpfm4_reason(v, ret);
	}
	/* Where a preset of PAPI's table counts here, PAPI's table wins. */
	if (!papi_presets)
		load_generic_presets(cidx);
	snprintf(v->cmp_info.description, sizeof(v->cmp_info.description),
		 "lope; %.80s; rdpmc: %.32s%s", mode, why,
		 hybrid(hy, sizeof(hy)));
	v->cmp_info.disabled = PAPI_OK;
	return PAPI_OK;
}

static int pe_shutdown_component(void)
{
	lope_cores__delete(cores);
	cores = NULL;
	return pe_names__shutdown(&names, &_perf_event_vector);
}

papi_vector_t _perf_event_vector = {
	.cmp_info = {
		.name = "perf_event",
		.short_name = "perf",
		.version = "lope-1.0",
		.description = "Linux perf_event CPU counters (lope)",
		.default_domain = PAPI_DOM_USER,
		.available_domains = PAPI_DOM_USER | PAPI_DOM_KERNEL |
				     PAPI_DOM_SUPERVISOR,
		.default_granularity = PAPI_GRN_THR,
		.available_granularities = PAPI_GRN_THR | PAPI_GRN_SYS,
		.hardware_intr = 1,
		.kernel_profile = 1,
		.attach = 1,
		.attach_must_ptrace = 1,
		.cpu = 1,
		.inherit = 1,
		.cntr_umasks = 1,
		.kernel_multiplex = 1,
		.num_mpx_cntrs = PE_MAX_EVENTS,
	},
	.size = {
		.context = sizeof(pe_context_t),
		.control_state = sizeof(pe_control_t),
		.reg_value = sizeof(int),
		.reg_alloc = sizeof(int),
	},
	.init_component = pe_init_component,
	.shutdown_component = pe_shutdown_component,
	.init_thread = pe_init_thread,
	.shutdown_thread = pe_shutdown_thread,
	.init_control_state = pe_init_control_state,
	.update_control_state = pe_update_control_state,
	.cleanup_eventset = pe_cleanup_eventset,
	.dispatch_timer = pe_dispatch_timer,
	.set_overflow = pe_set_overflow,
	.set_profile = pe_set_profile,
	.stop_profiling = pe_stop_profiling,
	.start = pe_start,
	.stop = pe_stop,
	.read = pe_read,
	.reset = pe_reset,
	.write = pe_write,
	.ctl = pe_ctl,
	.set_domain = pe_set_domain,
	.ntv_enum_events = pe_ntv_enum_events,
	.ntv_name_to_code = pe_ntv_name_to_code,
	.ntv_code_to_name = pe_ntv_code_to_name,
	.ntv_code_to_descr = pe_ntv_code_to_descr,
	.ntv_code_to_info = pe_ntv_code_to_info,
};
