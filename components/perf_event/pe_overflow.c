/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Overflow and profiling of the perf_event component: the kernel samples
 * (the engine routes each event's overflow signal to the measuring thread
 * and keeps its sampled addresses in a ring buffer), and the signal is
 * dispatched to PAPI's overflow handler or PAPI_profil's histograms.
 */
#include <errno.h>
#include <signal.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "extras.h"

#include "lope.h"
#include "pe_set.h"

/* Overflows taken from the engine at a time. */
#define PE_SAMPLES 16

/*
 * Overflow of position @pos at @threshold (0: off), feeding PAPI_profil's
 * histogram when @profiling.  The set is stopped (PAPI checks), so its
 * group is changed in place, reopened with the new sampling settings; an
 * unchanged period keeps the open group, as when PAPI repeats its
 * settings after update_control_state.
 */
static int set_period(pe_control_t *c, int pos, int threshold, int profiling)
{
	struct lope_change ch = {
		.what = LOPE_CHANGE_OVERFLOW,
		.idx = pos,
		.period = (uint64_t)threshold,
		.signo = pe_overflow_signal(),
	};
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
	ret = pe_hold_signal(c);
	if (ret == PAPI_OK && old != c->ev[pos].period)
		ret = pe_set_change(c, &ch);
	if (ret != PAPI_OK) {
		c->ev[pos].period = old;
		c->ev[pos].profiling = old_profiling;
		/* Back to the reference count we started with; the error
		 * to report is the one above. */
		(void)pe_hold_signal(c);
	}
	return ret;
}

int pe_set_overflow(EventSetInfo_t *esi, int index, int threshold)
{
	return set_period((pe_control_t *)esi->ctl_state,
			  esi->EventInfoArray[index].pos[0], threshold, 0);
}

int pe_set_profile(EventSetInfo_t *esi, int index, int threshold)
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
	if (ret == PAPI_OK && !pe_any_overflow(c)) {
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
 * One overflow of position @pos at @address: a hit in its histogram, or
 * a call of PAPI's handler (through the framework, with @hc and @thread
 * when there is a signal context).
 */
static void dispatch(ThreadInfo_t **thread, EventSetInfo_t *esi,
		     pe_control_t *c, _papi_hwi_context_t *hc, int pos,
		     vptr_t address)
{
	int k;

	if (pos < 0 || pos >= PE_MAX_OVERFLOW_POS || !c->ev[pos].period)
		return;
	if (c->ev[pos].profiling) {
		k = profile_index(esi, pos);
		if (k >= 0)
			_papi_hwi_dispatch_profile(esi, address, 0, k);
	} else if (hc) {
		_papi_hwi_dispatch_overflow_signal(hc, address, NULL,
						   (long long)(1ULL << pos), 0,
						   thread, pe_cidx);
	}
}

/*
 * Every overflow behind a signal of position @pos, each on its own
 * sampled address (@here, the signal context's, where none is known):
 * the engine finds in the samples of one event the overflows of others
 * that the kernel did not sample (lope.h).  Without a ring buffer the
 * signal is the one overflow, at @here, if @here is known.  The handler
 * may stop the set (PAPI_stop in it): then c->grp is gone.
 */
static void dispatch_all(ThreadInfo_t **thread, EventSetInfo_t *esi,
			 pe_control_t *c, _papi_hwi_context_t *hc, int pos,
			 vptr_t here)
{
	struct lope_overflow o[PE_SAMPLES];
	int n, i;

	do {
		n = c->grp ? lope_group__overflows(c->grp, pos, o, PE_SAMPLES) :
			     0;
		for (i = 0; i < n; i++)
			dispatch(thread, esi, c, hc, o[i].idx,
				 o[i].ip ? (vptr_t)o[i].ip : here);
	} while (n == PE_SAMPLES);
	if (n == -ENOBUFS && here)
		dispatch(thread, esi, c, hc, pos, here);
}

/* PAPI_stop: what is still in the ring buffers goes to the histograms. */
int pe_stop_profiling(ThreadInfo_t *thread, EventSetInfo_t *esi)
{
	pe_control_t *c = (pe_control_t *)esi->ctl_state;
	int i;

	for (i = 0; i < c->nr; i++)
		if (c->ev[i].profiling)
			dispatch_all(&thread, esi, c, NULL, i, 0);
	return PAPI_OK;
}

/*
 * Our overflow signal: the event is the one whose descriptor is si_fd;
 * the overflow vector has its position's bit.  Then the engine counts
 * the signal against the event's budget of waiting signals and renews
 * it when half is used (see src/overflow.c).
 */
static void hw_overflow(ThreadInfo_t *thread, EventSetInfo_t *esi,
			_papi_hwi_context_t *hc)
{
	pe_control_t *c = (pe_control_t *)esi->ctl_state;
	int pos = lope_group__find_fd(c->grp, hc->si->si_fd);

	if (pos < 0 || pos >= PE_MAX_OVERFLOW_POS || !c->ev[pos].period)
		return; /* from a group closed since */
	dispatch_all(&thread, esi, c, hc, pos, GET_OVERFLOW_ADDRESS((*hc)));
	/* PAPI's handler may have stopped the set (no re-arm then). */
	if (c->grp && lope_group__rearm(c->grp, pos, hc->si->si_code) < 0)
		SUBDBG("re-arming overflow of position %d failed\n", pos);
}

/*
 * The framework installs this for our signal (hardware overflow) and for
 * its interval timer (PAPI_OVERFLOW_FORCE_SW, where it checks the counts
 * itself).  errno is kept for the code the signal interrupted.
 */
void pe_dispatch_timer(int n, hwd_siginfo_t *info, void *uc)
{
	_papi_hwi_context_t hw_context;
	ThreadInfo_t *thread = _papi_hwi_lookup_thread(0);
	EventSetInfo_t *esi;
	int hardware, saved_errno = errno;

	esi = thread ? thread->running_eventset[pe_cidx] : NULL;
	if (!esi || !(esi->state & PAPI_OVERFLOWING))
		goto out;
	hw_context.si = info;
	hw_context.ucontext = (hwd_ucontext_t *)uc;
	hardware = !!(esi->overflow.flags & PAPI_OVERFLOW_HARDWARE);
	if (hardware != (n == pe_overflow_signal()))
		goto out; /* a late signal of another kind of overflow */
	if (hardware)
		hw_overflow(thread, esi, &hw_context);
	else
		_papi_hwi_dispatch_overflow_signal(
			&hw_context, GET_OVERFLOW_ADDRESS(hw_context), NULL, 0,
			0, &thread, pe_cidx);
out:
	errno = saved_errno;
}
