/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_badinput_sets: bad input over the public PAPI API: invalid event sets
 * and sets in the wrong state for the call.
 *
 * The rows, the checks after each and the reference run on stock PAPI:
 * ctests/lib/badinput.h.  Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "badinput.h"

/* A stopped set holding perf::TASK-CLOCK and perf::PAGE-FAULTS. */
static int two_events(void)
{
	return with(stopped(), page_faults);
}

/* PAPI_read of a set never started: PAPI_OK and zeros (papi.c copies
 * ESI->sw_stop, which starts zeroed).  PAPI_EBUG if a value is not 0. */
static int read_zeros(int set)
{
	int rc;

	vals[0] = vals[1] = -1;
	rc = PAPI_read(set, vals);
	if (rc == PAPI_OK && (vals[0] != 0 || vals[1] != 0))
		return PAPI_EBUG;
	return rc;
}

/* A stopped set profiling perf::TASK-CLOCK. */
static int profiling(void)
{
	static unsigned short buf[1024];
	int set = stopped(), rc;

	rc = PAPI_profil(buf, sizeof(buf), (vptr_t)do_profil, 65536, set, tc,
			 1000000, PAPI_PROFIL_POSIX);
	if (rc != PAPI_OK)
		setup_fail("PAPI_profil", rc);
	return set;
}

/*
 * PAPI 7's core refuses PAPI_overflow and PAPI_profil on an attached set
 * (PAPI_EINVAL) but not the other order, which our component refuses: the
 * overflow signal would go to the caller while PAPI files the set under
 * the target, so nothing would handle it and the counts would stop after
 * the overflow budget.  Returns what PAPI_attach said (the set is left
 * attached to nothing: the target is gone).
 */
static int attach_target(int set)
{
	struct target w;
	int rc;

	if (target_spawn(&w, -1) != 0) {
		setup_fail("target_spawn", PAPI_ESYS);
		return PAPI_ESYS;
	}
	rc = PAPI_attach(set, (unsigned long)w.pid);
	if (rc == PAPI_OK)
		(void)PAPI_detach(set);
	(void)target_finish(&w);
	return rc;
}

/* The set itself: the witness thread's, running. */
static int witness(void)
{
	return witness_set;
}

/* A stopped set while another of this thread runs. */
static int beside_running(void)
{
	running();
	return stopped();
}

/* -1, 12345, a destroyed id: the three kinds of invalid set. */
static int bad_kind;

static int bad(void)
{
	switch (bad_kind) {
	case 0:
		return -1;
	case 1:
		return 12345;
	default:
		return destroyed();
	}
}

/* --------------------------------------------------------------- rows */

/*
 * The rows on a bad() set are made once for each kind of invalid set
 * ("%s" names it); the others once.  Notes on rows:
 *  - PAPI_get_multiplex turns every error into 0, "not multiplexed"
 *    (papi.c: if (retval < 0) retval = 0).
 *  - PAPI documents PAPI_ENOTRUN nowhere for PAPI_read: PAPI 7 returns
 *    the zeroed stop values of a set never started.
 *  - A set that has a component already: PAPI 7 refuses a new one.
 *  - One running set per thread and component.
 *  - A set with no component yet: PAPI 7 cannot tell which to start.
 *  - Overflow or profil, then attach: see attach_target().
 */
/* clang-format off */
static const struct sweep_call calls[] = {
	{ PAPI_ENOEVST, DOC, "PAPI_start(%s)", bad, PAPI_start },
	{ PAPI_ENOEVST, DOC, "PAPI_stop(%s)", bad, stop_vals },
	{ PAPI_ENOEVST, DOC, "PAPI_read(%s)", bad, read_vals },
	{ PAPI_ENOEVST, DOC, "PAPI_accum(%s)", bad, accum_vals },
	{ PAPI_ENOEVST, DOC, "PAPI_reset(%s)", bad, PAPI_reset },
	{ PAPI_ENOEVST, DOC, "PAPI_write(%s)", bad, write_vals },
	{ PAPI_ENOEVST, DOC, "PAPI_add_event(%s)", bad, add_tc },
	{ PAPI_ENOEVST, DOC, "PAPI_add_named_event(%s)", bad, add_named_tc },
	{ PAPI_ENOEVST, DOC, "PAPI_add_events(%s)", bad, add_both },
	{ PAPI_ENOEVST, DOC, "PAPI_remove_event(%s)", bad, remove_tc },
	{ PAPI_ENOEVST, DOC, "PAPI_remove_named_event(%s)", bad, remove_named_tc },
	{ PAPI_ENOEVST, DOC, "PAPI_cleanup_eventset(%s)", bad, PAPI_cleanup_eventset },
	{ PAPI_ENOEVST, DOC, "PAPI_destroy_eventset(%s)", bad, destroy_id },
	{ PAPI_ENOEVST, DOC, "PAPI_state(%s)", bad, state_of },
	{ PAPI_ENOEVST, DOC, "PAPI_num_events(%s)", bad, PAPI_num_events },
	{ PAPI_ENOEVST, DOC, "PAPI_list_events(%s)", bad, list_four },
	{ PAPI_ENOEVST, DOC, "PAPI_overflow(%s)", bad, overflow_tc },
	{ PAPI_ENOEVST, DOC, "PAPI_get_overflow_event_index(%s)", bad, ovf_index_one },
	{ PAPI_ENOEVST, DOC, "PAPI_profil(%s)", bad, profil_tc },
	{ PAPI_ENOEVST, DOC, "PAPI_attach(%s)", bad, attach_self },
	{ PAPI_ENOEVST, DOC, "PAPI_detach(%s)", bad, PAPI_detach },
	{ PAPI_ENOEVST, DOC, "PAPI_set_multiplex(%s)", bad, PAPI_set_multiplex },
	{ 0, CORE, "PAPI_get_multiplex(%s) is 0", bad, PAPI_get_multiplex },
	{ PAPI_ENOEVST, DOC, "PAPI_assign_eventset_component(%s)", bad, assign_cmp0 },
	{ PAPI_ENOEVST, DOC, "PAPI_get_eventset_component(%s)", bad, PAPI_get_eventset_component },
	{ PAPI_ENOEVST, DOC, "PAPI_set_opt(PAPI_DOMAIN, %s)", bad, domain_user },
	{ PAPI_ENOEVST, DOC, "PAPI_set_opt(PAPI_GRANUL, %s)", bad, granul_thr },
	{ PAPI_ENOEVST, DOC, "PAPI_set_opt(PAPI_CPU_ATTACH, %s)", bad, cpu_attach0 },
	{ PAPI_ENOEVST, DOC, "PAPI_set_opt(PAPI_MULTIPLEX, %s)", bad, multiplex_ns0 },
	{ PAPI_ENOEVST, DOC, "PAPI_get_opt(PAPI_DOMAIN, %s)", bad, get_domain },
	{ PAPI_OK, CORE, "PAPI_read before PAPI_start: PAPI_OK, zeros", two_events, read_zeros },
	{ PAPI_EISRUN, DOC, "PAPI_start twice", running, PAPI_start },
	{ PAPI_ENOTRUN, DOC, "PAPI_stop of a set never started", stopped, stop_vals },
	{ PAPI_ENOTRUN, DOC, "PAPI_stop twice", ran, stop_vals },
	{ PAPI_ENOTRUN, DOC, "PAPI_stop twice, values NULL", ran, stop_null },
	{ PAPI_EISRUN, DOC, "PAPI_add_event while running", running, add_pf },
	{ PAPI_EISRUN, DOC, "PAPI_add_named_event while running", running, add_named_pf },
	{ PAPI_EISRUN, DOC, "PAPI_remove_event while running", running, remove_tc },
	{ PAPI_EISRUN, DOC, "PAPI_cleanup_eventset while running", running, PAPI_cleanup_eventset },
	{ PAPI_EISRUN, DOC, "PAPI_destroy_eventset while running", running, destroy_id },
	{ PAPI_EINVAL, DOC, "PAPI_destroy_eventset of a non-empty set", stopped, destroy_id },
	{ PAPI_EISRUN, DOC, "PAPI_overflow while running", running, overflow_tc },
	{ PAPI_EISRUN, DOC, "PAPI_set_multiplex while running", running, PAPI_set_multiplex },
	{ PAPI_EISRUN, DOC, "PAPI_attach while running", running, attach_self },
	{ PAPI_EISRUN, DOC, "PAPI_set_opt(PAPI_DOMAIN) while running", running, domain_user },
	{ PAPI_EISRUN, DOC, "PAPI_set_opt(PAPI_CPU_ATTACH) while running", running, cpu_attach0 },
	{ PAPI_EISRUN, DOC, "PAPI_profil while running", running, profil_tc },
	{ PAPI_EINVAL, CORE, "PAPI_assign_eventset_component on a set with events", stopped, assign_cmp1 },
	{ PAPI_EISRUN, DOC, "PAPI_start of a second set while one runs", beside_running, PAPI_start },
	{ PAPI_EISRUN, DOC, "PAPI_start of the witness set (another thread's, running)", witness, PAPI_start },
	{ PAPI_ENOCMP, CORE, "PAPI_start of an empty set", empty, PAPI_start },
	{ PAPI_EINVAL, DOC, "PAPI_start of an empty set with a component", empty_cmp0, PAPI_start },
	{ PAPI_EINVAL, DOC, "PAPI_detach of a set not attached", stopped, PAPI_detach },
	{ PAPI_EINVAL, DOC, "PAPI_attach twice", attached, attach_self },
	{ PAPI_EINVAL, P7, "PAPI_overflow then PAPI_attach: refused", overflowing, attach_target },
	{ PAPI_EINVAL, P7, "PAPI_profil then PAPI_attach: refused", profiling, attach_target },
	{ PAPI_EINVAL, DOC, "PAPI_set_multiplex twice", multiplexed, PAPI_set_multiplex },
	{ PAPI_EINVAL, DOC, "PAPI_overflow threshold 0 without overflow", stopped, overflow_off },
	{ PAPI_ENOEVNT, DOC, "PAPI_overflow on an event not in the set", stopped, overflow_pf },
	{ PAPI_EINVAL, DOC, "PAPI_profil threshold 0 without profiling", stopped, profil_off },
	{ PAPI_EINVAL, DOC, "PAPI_profil on an attached set", attached, profil_tc },
};
/* clang-format on */

/* The rows on a bad() set (@on_bad) or the others. */
static void rows_of(int on_bad)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(calls); i++)
		if ((calls[i].set == bad) == on_bad)
			sweep_calls(&calls[i], 1);
}

static void rows_invalid_sets(void)
{
	static const char *const labels[] = { "set minus 1", "set 12345",
					      "a destroyed set" };

	for (bad_kind = 0; bad_kind < 3; bad_kind++) {
		id_label = labels[bad_kind];
		rows_of(1);
	}
	id_label = "";
}

static void rows_wrong_states(void)
{
	rows_of(0);
}

int main(void)
{
	static const struct sweep_group groups[] = {
		{ "invalid event sets", rows_invalid_sets },
		{ "wrong states", rows_wrong_states },
	};

	return sweep_main(groups, ARRAY_SIZE(groups));
}
