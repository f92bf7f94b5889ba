/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_faults_change: kernel failures injected under the PAPI calls that
 * build and change a set: PAPI_add_named_event, PAPI_set_opt (domain,
 * multiplex), PAPI_overflow, PAPI_profil and PAPI_sprofil, an add to an
 * overflowing set.  The harness and what every row checks: faults.h.
 *
 * A row's own checks: after a failed add or option the set keeps what it
 * had (its events, their descriptors and nothing more) and still starts,
 * counts and stops, and the call succeeds once the fault is gone; without
 * a ring buffer (mmap refused) overflow and profiling still work on the
 * signal context's address (doc/design.md, "Overflow and profiling").
 *
 * Report protocol: ctests/lib/report.h.
 */
#include "faults.h"

static int op(const struct row *r, int *set);

/*
 * perf_event_open: pe_errno_to_papi's mapping, at every position of a set
 * being built (the component reopens the whole group on every add; PAPI 7
 * re-establishes the old events on failure): each errno fails the open of
 * the 1st, the 2nd, then the 3rd event, one row each (run_open_row()).
 */
static const struct open_errno {
	int line;
	const char *name; /* the errno's name */
	int err;
	const char *papi; /* the expected result's name */
	int expect;
} open_errnos[] = {
	{ __LINE__, "EMFILE", EMFILE, "PAPI_ECOUNT", PAPI_ECOUNT },
	{ __LINE__, "EACCES", EACCES, "PAPI_EPERM", PAPI_EPERM },
	{ __LINE__, "EPERM", EPERM, "PAPI_EPERM", PAPI_EPERM },
	{ __LINE__, "ENOENT", ENOENT, "PAPI_ENOEVNT", PAPI_ENOEVNT },
	{ __LINE__, "EOPNOTSUPP", EOPNOTSUPP, "PAPI_ENOSUPP", PAPI_ENOSUPP },
	{ __LINE__, "ENODEV", ENODEV, "PAPI_ENOSUPP", PAPI_ENOSUPP },
	{ __LINE__, "EBUSY", EBUSY, "PAPI_ECNFLCT", PAPI_ECNFLCT },
	{ __LINE__, "EINVAL", EINVAL, "PAPI_EINVAL", PAPI_EINVAL },
};

/*
 * The position each open_errnos errno fails at, and the row's name, folded
 * by lope_name() with the errno's and the result's names.
 */
static const struct open_position {
	int nth;
	enum op op;
	const char *name; /* of errno, result */
} open_positions[] = {
	{ 1, OP_ADD1, "perf_event_open_%s_adding_the_1st_event_%s" },
	{ 2, OP_ADD2,
	  "perf_event_open_%s_on_the_2nd_events_open_%s_set_keeps_the_1st" },
	{ 3, OP_ADD3,
	  "perf_event_open_%s_on_the_3rd_events_open_%s_set_keeps_2" },
};

/* A row whose perf_event_open number @nth fails once with @err. */
#define OPEN(nth, err, op, expect) ROW(PERF_OPEN, ANY, nth, 1, err, op, expect)

static const struct row rows[] = {
	/* perf_event_open: the errnos that are not in open_errnos, the
	 * reopens of the events already in the set, options and overflow. */
	{ "perf_event_open_enfile_adding_the_1st_event_papi_ecount",
	  OPEN(1, ENFILE, ADD1, PAPI_ECOUNT) },
	{ "perf_event_open_enomem_adding_the_2nd_event_papi_enomem",
	  OPEN(2, ENOMEM, ADD2, PAPI_ENOMEM) },
	{ "perf_event_open_e2big_any_other_errno_adding_the_2nd_papi_esys",
	  OPEN(2, E2BIG, ADD2, PAPI_ESYS) },
	{ "perf_event_open_emfile_on_the_leaders_reopen_adding_the_2nd",
	  OPEN(1, EMFILE, ADD2, PAPI_ECOUNT) },
	{ "perf_event_open_eacces_on_the_leaders_reopen_adding_the_3rd",
	  OPEN(1, EACCES, ADD3, PAPI_EPERM) },
	{ "perf_event_open_ebusy_on_the_2nd_events_reopen_adding_the_3rd",
	  OPEN(2, EBUSY, ADD3, PAPI_ECNFLCT) },
	{ "perf_event_open_eacces_on_papi_domain_user_kernel_old_domain_kept",
	  OPEN(1, EACCES, DOMAIN, PAPI_EPERM) },
	{ "perf_event_open_emfile_on_papi_domains_2nd_open_old_domain_kept",
	  OPEN(2, EMFILE, DOMAIN, PAPI_ECOUNT) },
	{ "perf_event_open_emfile_on_papi_set_multiplexs_2nd_open",
	  OPEN(2, EMFILE, MPX, PAPI_ECOUNT) },
	{ "perf_event_open_emfile_on_papi_overflows_reopen_no_overflow_set_kept",
	  OPEN(2, EMFILE, OVF, PAPI_ECOUNT) },
	/* A bug these faults found, fixed (doc/reliability.md): the
	 * component destroyed the set's group before it reopened it in
	 * update_control_state and, when the reopen failed, kept nothing. */
	{ "perf_event_open_emfile_adding_to_an_overflowing_set_overflow_kept",
	  OPEN(2, EMFILE, OVF_ADD, PAPI_ECOUNT) },

	/* mmap(2) of the ring buffer (as when perf_event_mlock_kb is used
	 * up): overflow and profiling work on the context's address. */
	{ "mmap_eperm_on_papi_overflow_papi_ok_context_address",
	  ROW(MMAP, ANY, 1, 1, EPERM, OVF, PAPI_OK) },
	{ "mmap_enomem_on_papi_overflow_papi_ok_context_address",
	  ROW(MMAP, ANY, 1, 1, ENOMEM, OVF, PAPI_OK) },
	{ "mmap_eperm_on_papi_profil_papi_ok_histogram_filled",
	  ROW(MMAP, ANY, 1, 1, EPERM, PROFIL, PAPI_OK) },
	{ "mmap_eperm_on_papi_sprofil_papi_ok_histogram_filled",
	  ROW(MMAP, ANY, 1, 1, EPERM, SPROFIL, PAPI_OK) },
	{ "mmap_eperm_adding_to_an_overflowing_set_papi_ok_still_overflows",
	  ROW(MMAP, ANY, 1, 1, EPERM, OVF_ADD, PAPI_OK) },

	/* fcntl(2): the overflow signal's routing. */
	{ "fcntl_f_setsig_einval_on_papi_overflow_papi_einval",
	  ROW(FCNTL, F_SETSIG, 1, 1, EINVAL, OVF, PAPI_EINVAL) },
	{ "fcntl_f_setown_ex_eperm_on_papi_overflow_papi_eperm",
	  ROW(FCNTL, F_SETOWN_EX, 1, 1, EPERM, OVF, PAPI_EPERM) },
	{ "fcntl_f_setown_ex_esrch_on_papi_overflow_papi_esys",
	  ROW(FCNTL, F_SETOWN_EX, 1, 1, ESRCH, OVF, PAPI_ESYS) },
	{ "fcntl_f_setfl_o_async_ebadf_on_papi_overflow_papi_esys",
	  ROW(FCNTL, F_SETFL, 1, 1, EBADF, OVF, PAPI_ESYS) },
	{ "fcntl_f_setsig_einval_on_papi_sprofil_papi_einval",
	  ROW(FCNTL, F_SETSIG, 1, 1, EINVAL, SPROFIL, PAPI_EINVAL) },
	/* The same bug, found by a failed routing. */
	{ "fcntl_f_setown_ex_esrch_adding_to_an_overflowing_set_overflow_kept",
	  ROW(FCNTL, F_SETOWN_EX, 1, 1, ESRCH, OVF_ADD, PAPI_ESYS) },
};

/* ----------------------------------------------------------------- ops */

static int op_add(const struct row *r, int *set, int k)
{
	int got, rc, n;

	if (fault_new_set(k - 1, set) != PAPI_OK)
		return PAPI_EMISC;
	if (k == 1 && PAPI_assign_eventset_component(*set, 0) != PAPI_OK)
		fault_append("setup: assign component 0");
	fault_arm(r);
	got = PAPI_add_named_event(*set, fault_ev[k - 1]);
	fault_disarm();
	n = got == PAPI_OK ? k : k - 1;
	if (PAPI_num_events(*set) != n)
		fault_append("%d events in the set, want %d",
			     PAPI_num_events(*set), n);
	fault_holds(n, "after the add");
	if (n > 0)
		(void)fault_counts(*set, n,
				   got == PAPI_OK ? "after the add" :
						    "the events added before");
	if (got != PAPI_OK) {
		rc = PAPI_add_named_event(*set, fault_ev[k - 1]);
		if (rc != PAPI_OK)
			fault_append("the add without the fault: %s",
				     papi_err(rc));
		else
			(void)fault_counts(*set, k,
					   "after the add without the fault");
	}
	return got;
}

static int op_option(const struct row *r, int *set)
{
	int got, rc, mpx = r->op == OP_MPX;
	const int dom = PAPI_DOM_USER | PAPI_DOM_KERNEL;

	if (fault_new_set(2, set) != PAPI_OK)
		return PAPI_EMISC;
	fault_arm(r);
	got = mpx ? PAPI_set_multiplex(*set) : set_domain(*set, dom);
	fault_disarm();
	if (mpx && (PAPI_get_multiplex(*set) > 0) != (got == PAPI_OK))
		fault_append("PAPI_get_multiplex %d after %s",
			     PAPI_get_multiplex(*set), papi_err(got));
	if (!mpx && get_domain(*set) != (got == PAPI_OK ? dom : PAPI_DOM_USER))
		fault_append("domain %#x after %s", get_domain(*set),
			     papi_err(got));
	fault_holds(2, "after the option");
	(void)fault_counts(*set, 2, "after the option");
	if (got != PAPI_OK) {
		rc = mpx ? PAPI_set_multiplex(*set) : set_domain(*set, dom);
		if (rc != PAPI_OK)
			fault_append("the option without the fault: %s",
				     papi_err(rc));
		else
			(void)fault_counts(
				*set, 2, "after the option without the fault");
	}
	return got;
}

static int op_sampling(const struct row *r, int *set)
{
	int got, rc, maps = r->call == LOPE_CALL_MMAP ? 0 : 1;

	if (fault_new_set(r->op == OP_OVF ? 2 : 1, set) != PAPI_OK)
		return PAPI_EMISC;
	fault_arm(r);
	got = fault_sampling(r->op, *set, THRESHOLD);
	fault_disarm();
	fault_holds(PAPI_num_events(*set), "after the call");
	fault_maps_are(got == PAPI_OK ? maps : 0, "after the call");
	if (got == PAPI_OK) {
		(void)fault_sample_run(r->op, *set, "sampling");
		rc = fault_sampling(r->op, *set, 0);
		if (rc != PAPI_OK)
			fault_append("turning it off: %s", papi_err(rc));
	} else {
		fault_ovf_reset();
		(void)fault_counts(*set, PAPI_num_events(*set),
				   "without sampling");
		if (fault_ovf.calls)
			fault_append("%ld handler calls without overflow",
				     fault_ovf.calls);
	}
	/* Without the fault: the ring is mapped, addresses from it. */
	rc = fault_sampling(r->op, *set, THRESHOLD);
	if (rc != PAPI_OK) {
		fault_append("without the fault: %s", papi_err(rc));
		return got;
	}
	fault_maps_are(1, "without the fault");
	(void)fault_sample_run(r->op, *set, "sampling without the fault");
	rc = fault_sampling(r->op, *set, 0);
	if (rc != PAPI_OK)
		fault_append("turning it off: %s", papi_err(rc));
	return got;
}

static int op_ovf_add(const struct row *r, int *set)
{
	int got, rc, n;

	if (fault_new_set(1, set) != PAPI_OK)
		return PAPI_EMISC;
	rc = fault_sampling(OP_OVF, *set, THRESHOLD);
	if (rc != PAPI_OK) {
		fault_append("setup: PAPI_overflow: %s", papi_err(rc));
		return PAPI_EMISC;
	}
	fault_arm(r);
	got = PAPI_add_named_event(*set, fault_ev[1]);
	fault_disarm();
	n = got == PAPI_OK ? 2 : 1;
	if (PAPI_num_events(*set) != n)
		fault_append("%d events in the set, want %d",
			     PAPI_num_events(*set), n);
	fault_holds(n, "after the add");
	fault_maps_are(r->call == LOPE_CALL_MMAP ? 0 : 1, "after the add");
	(void)fault_sample_run(OP_OVF, *set, "overflow after the add");
	if (got != PAPI_OK) {
		rc = PAPI_add_named_event(*set, fault_ev[1]);
		if (rc != PAPI_OK)
			fault_append("the add without the fault: %s",
				     papi_err(rc));
		else
			(void)fault_sample_run(
				OP_OVF, *set,
				"overflow after the add without the fault");
	}
	(void)fault_sampling(OP_OVF, *set, 0);
	return got;
}

/* The row's PAPI call: an add, an option, or sampling set up. */
static int op(const struct row *r, int *set)
{
	if (r->op == OP_ADD1 || r->op == OP_ADD2 || r->op == OP_ADD3)
		return op_add(r, set, (int)(r->op - OP_ADD1) + 1);
	if (r->op == OP_DOMAIN || r->op == OP_MPX)
		return op_option(r, set);
	return r->op == OP_OVF_ADD ? op_ovf_add(r, set) : op_sampling(r, set);
}

/* The row of errno e failing the open at position p. */
static void run_open_row(const struct open_errno *e,
			 const struct open_position *p)
{
	char name[128];
	const struct row r = { .line = e->line,
			       .name = name,
			       .call = LOPE_CALL_PERF_OPEN,
			       .nth = p->nth,
			       .times = 1,
			       .err = e->err,
			       .op = p->op,
			       .expect = e->expect };

	lope_name(name, sizeof(name), p->name, e->name, e->papi);
	fault_row(&r, op);
}

/* Every errno of open_errnos at every position of open_positions. */
static void open_rows(void)
{
	size_t i, j;

	for (i = 0; i < sizeof(open_errnos) / sizeof(open_errnos[0]); i++)
		for (j = 0;
		     j < sizeof(open_positions) / sizeof(open_positions[0]);
		     j++)
			run_open_row(&open_errnos[i], &open_positions[j]);
}

int main(void)
{
	return fault_main(rows, sizeof(rows) / sizeof(rows[0]), op, open_rows);
}
