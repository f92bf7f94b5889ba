/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_faults_run: kernel failures injected under the PAPI calls of a set
 * that counts: PAPI_start (also after another set of the thread, and of
 * an overflowing set), PAPI_read (also of a multiplexed set), PAPI_accum,
 * PAPI_reset and PAPI_stop.  The harness and what every row checks:
 * faults.h.
 *
 * A row's own checks: after a read retried on EINTR the values are right
 * (perf::TASK-CLOCK within this thread's own task-clock read around the
 * start and around the read, span.h) and monotonic; after a failed read,
 * accum, reset or stop nothing measured is lost (the next call covers the
 * whole run, within the same span); a failed start leaves the set stopped
 * and usable; a failed stop leaves it running, an overflowing one still
 * overflowing.
 *
 * Report protocol: ctests/lib/report.h.
 */
#include "faults.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>

static const struct row rows[] = {
	/* read(2): EINTR is retried; any other errno is PAPI_ESYS, and the
	 * next call covers the whole run (the failed one loses nothing
	 * measured). */
	{ "read_eintr_once_on_papi_read_papi_ok_right_values",
	  ROW(READ, ANY, 1, 1, EINTR, READ, PAPI_OK) },
	{ "read_eintr_3_times_on_papi_read_papi_ok_right_values",
	  ROW(READ, ANY, 1, 3, EINTR, READ, PAPI_OK) },
	{ "read_eio_on_papi_read_papi_esys_next_read_works",
	  ROW(READ, ANY, 1, 1, EIO, READ, PAPI_ESYS) },
	{ "read_eintr_on_a_multiplexed_sets_2nd_event_read_papi_ok",
	  ROW(READ, ANY, 2, 1, EINTR, READ_MPX, PAPI_OK) },
	{ "read_eio_on_a_multiplexed_sets_2nd_event_read_papi_esys",
	  ROW(READ, ANY, 2, 1, EIO, READ_MPX, PAPI_ESYS) },
	{ "read_eintr_on_papi_accum_papi_ok",
	  ROW(READ, ANY, 1, 1, EINTR, ACCUM, PAPI_OK) },
	{ "read_eio_on_papi_accum_papi_esys_values_untouched",
	  ROW(READ, ANY, 1, 1, EIO, ACCUM, PAPI_ESYS) },
	{ "read_eintr_on_papi_reset_papi_ok_values_from_the_reset",
	  ROW(READ, ANY, 1, 1, EINTR, RESET, PAPI_OK) },
	{ "read_eio_on_papi_reset_papi_esys_old_bases_kept",
	  ROW(READ, ANY, 1, 1, EIO, RESET, PAPI_ESYS) },
	{ "read_eintr_on_papi_stop_papi_ok",
	  ROW(READ, ANY, 1, 1, EINTR, STOP, PAPI_OK) },
	{ "read_eio_on_papi_stop_papi_esys_still_running",
	  ROW(READ, ANY, 1, 1, EIO, STOP, PAPI_ESYS) },
	{ "read_eio_on_papi_stop_of_an_overflowing_set_papi_esys_overflows_on",
	  ROW(READ, ANY, 1, 1, EIO, OVF_STOP, PAPI_ESYS) },

	/* ioctl(2) */
	{ "ioctl_enable_ebusy_on_papi_start_papi_ecnflct",
	  ROW(IOCTL, IOC_ENABLE, 1, 1, EBUSY, START, PAPI_ECNFLCT) },
	{ "ioctl_enable_eio_on_papi_start_papi_esys",
	  ROW(IOCTL, IOC_ENABLE, 1, 1, EIO, START, PAPI_ESYS) },
	{ "ioctl_disable_eio_on_papi_stop_papi_esys_still_running",
	  ROW(IOCTL, IOC_DISABLE, 1, 1, EIO, STOP, PAPI_ESYS) },
	{ "ioctl_enable_ebusy_on_a_papi_start_after_another_set_papi_ecnflct",
	  ROW(IOCTL, IOC_ENABLE, 1, 1, EBUSY, START_DIRTY, PAPI_ECNFLCT) },
	{ "ioctl_refresh_ebusy_on_papi_start_of_an_overflowing_set",
	  ROW(IOCTL, IOC_REFRESH, 1, 1, EBUSY, OVF_START, PAPI_ECNFLCT) },
	{ "ioctl_enable_eio_on_papi_start_of_an_overflowing_set_refreshed",
	  ROW(IOCTL, IOC_ENABLE, 1, 1, EIO, OVF_START, PAPI_ESYS) },

	/* PAPI hands a start after another set of the thread the set's own
	 * events again (its "dirty context"); the set keeps its group, so
	 * that start opens, maps and routes nothing: an armed fault is
	 * never reached (0 times). */
	{ "mmap_armed_on_a_papi_start_after_another_set_none_made_papi_ok",
	  ROW(MMAP, ANY, 1, 0, EPERM, OVF_START_DIRTY, PAPI_OK) },

	/*
	 * The rows of bugs these faults found, fixed (doc/reliability.md): the
	 * component destroyed the set's group before it reopened it in
	 * update_control_state, which PAPI calls at a start after another set of
	 * the thread, and kept nothing when the reopen failed; the engine's stop
	 * cleared the group's running flag before its ioctl and left it cleared
	 * when the ioctl failed.
	 */
	{ "perf_event_open_armed_on_a_papi_start_after_another_set_none_made",
	  ROW(PERF_OPEN, ANY, 1, 0, EMFILE, START_DIRTY, PAPI_OK) },
	{ "fcntl_armed_on_a_papi_start_after_another_set_none_made_papi_ok",
	  ROW(FCNTL, ANY, 1, 0, EBADF, OVF_START_DIRTY, PAPI_OK) },
	{ "ioctl_disable_eio_on_papi_stop_of_an_overflowing_set_keeps_counting",
	  ROW(IOCTL, IOC_DISABLE, 1, 1, EIO, OVF_STOP, PAPI_ESYS) },
};

/* ----------------------------------------------------------------- ops */

/*
 * Reads, accum, reset and stop of a running 2-event set.  Each task-clock
 * value lies in a span of this thread's own task-clock: st is marked
 * around the start, rs around the call under test (the start of what a
 * successful reset leaves), and each value's span is a copy of one of
 * them marked again around the call that returned the value.
 */
static int op_running(const struct row *r, int *set)
{
	long long a[NEV] = { 0 }, b[NEV] = { 0 }, c[NEV] = { 0 },
		  d[NEV] = { 0 }, lost;
	struct span st = fault_own, rs = fault_own, bs, cs;
	int got = PAPI_EMISC, rc, i;

	if (fault_new_set(2, set) != PAPI_OK)
		return PAPI_EMISC;
	if (r->op == OP_READ_MPX &&
	    (rc = PAPI_set_multiplex(*set)) != PAPI_OK) {
		fault_append("setup: PAPI_set_multiplex: %s", papi_err(rc));
		return PAPI_EMISC;
	}
	fault_mark(&st);
	rc = PAPI_start(*set);
	fault_mark(&st);
	fault_work();
	if (rc == PAPI_OK)
		rc = PAPI_read(*set, a);
	if (rc != PAPI_OK) {
		fault_append("setup: start and read: %s", papi_err(rc));
		return PAPI_EMISC;
	}
	fault_work();
	bs = st;
	fault_mark(&bs);
	fault_mark(&rs);
	fault_arm(r);
	switch (r->op) {
	case OP_ACCUM:
		got = PAPI_accum(*set, b);
		break;
	case OP_RESET:
		got = PAPI_reset(*set);
		break;
	case OP_STOP:
		got = PAPI_stop(*set, b);
		break;
	default:
		got = PAPI_read(*set, b);
		break;
	}
	fault_disarm();
	fault_mark(&rs);
	fault_mark(&bs);

	switch (r->op) {
	case OP_READ:
	case OP_READ_MPX:
		if (got == PAPI_OK &&
		    (b[0] < a[0] || b[1] < a[1] || !span_holds(&bs, b[0])))
			fault_append(
				"read %lld, %lld after %lld, %lld; task-clock %lld to %lld ns",
				b[0], b[1], a[0], a[1], span_lo(&bs),
				span_hi(&bs));
		fault_work();
		cs = st;
		fault_mark(&cs);
		rc = PAPI_read(*set, c);
		fault_mark(&cs);
		if (rc != PAPI_OK || c[0] <= a[0] || c[1] <= a[1] ||
		    (got == PAPI_OK && (c[0] < b[0] || c[1] < b[1])) ||
		    !span_holds(&cs, c[0]))
			fault_append(
				"next read %s: %lld, %lld after %lld, %lld; task-clock %lld to %lld ns",
				papi_err(rc), c[0], c[1], a[0], a[1],
				span_lo(&cs), span_hi(&cs));
		break;
	case OP_ACCUM:
		if (got != PAPI_OK && (b[0] || b[1]))
			fault_append(
				"failed accum changed the values: %lld, %lld",
				b[0], b[1]);
		if (got == PAPI_OK && !span_holds(&bs, b[0]))
			fault_append("accum %lld, task-clock %lld to %lld ns",
				     b[0], span_lo(&bs), span_hi(&bs));
		fault_work();
		cs = st;
		fault_mark(&cs);
		rc = PAPI_accum(*set, b);
		fault_mark(&cs);
		/* The sum misses what ran between the first accum's read
		 * and its reset, inside that call. */
		lost = bs.t[3] - bs.t[2];
		if (rc != PAPI_OK || b[0] < span_lo(&cs) - lost ||
		    b[0] > span_hi(&cs) || b[1] <= a[1])
			fault_append(
				"next accum %s: %lld, %lld; task-clock %lld (less %lld) to %lld ns",
				papi_err(rc), b[0], b[1], span_lo(&cs), lost,
				span_hi(&cs));
		break;
	case OP_RESET:
		fault_work();
		/* Failed: the old bases, so the read covers the whole run. */
		cs = got == PAPI_OK ? rs : st;
		fault_mark(&cs);
		rc = PAPI_read(*set, c);
		fault_mark(&cs);
		if (rc != PAPI_OK || !span_holds(&cs, c[0]) ||
		    (got != PAPI_OK && (c[0] <= a[0] || c[1] <= a[1])))
			fault_append(
				"read after the reset %s: %lld, %lld; task-clock %lld to %lld ns since the %s",
				papi_err(rc), c[0], c[1], span_lo(&cs),
				span_hi(&cs),
				got == PAPI_OK ? "reset" : "start");
		break;
	case OP_STOP:
		if (got == PAPI_OK) {
			if (!(fault_state(*set) & PAPI_STOPPED) ||
			    !span_holds(&bs, b[0]) || b[1] <= a[1])
				fault_append(
					"stopped %#x: %lld, %lld; task-clock %lld to %lld ns",
					fault_state(*set), b[0], b[1],
					span_lo(&bs), span_hi(&bs));
			(void)fault_counts(*set, 2, "after the stop");
			break;
		}
		if (!(fault_state(*set) & PAPI_RUNNING))
			fault_append(
				"not running after the failed stop (state %#x)",
				fault_state(*set));
		fault_work();
		rc = PAPI_read(*set, c);
		fault_work();
		cs = st;
		fault_mark(&cs);
		i = PAPI_stop(*set, d);
		fault_mark(&cs);
		if (rc != PAPI_OK || i != PAPI_OK || c[0] <= a[0] ||
		    c[1] <= a[1] || d[0] < c[0] || d[1] <= c[1] ||
		    !span_holds(&cs, d[0]))
			fault_append(
				"after the failed stop: read %s %lld, %lld; stop %s %lld, %lld; task-clock %lld to %lld ns",
				papi_err(rc), c[0], c[1], papi_err(i), d[0],
				d[1], span_lo(&cs), span_hi(&cs));
		break;
	default:
		break;
	}
	return got;
}

static int op_start(const struct row *r, int *set)
{
	long long v[NEV];
	int got, ovfl = r->op == OP_OVF_START || r->op == OP_OVF_START_DIRTY;
	int dirty = r->op == OP_START_DIRTY || r->op == OP_OVF_START_DIRTY;
	int rc;

	if (fault_new_set(2, set) != PAPI_OK)
		return PAPI_EMISC;
	if (ovfl && (rc = fault_sampling(OP_OVF, *set, THRESHOLD)) != PAPI_OK) {
		fault_append("setup: PAPI_overflow: %s", papi_err(rc));
		return PAPI_EMISC;
	}
	if (dirty)
		fault_use_ref();
	fault_arm(r);
	got = PAPI_start(*set);
	fault_disarm();
	if (got == PAPI_OK) {
		(void)PAPI_stop(*set, v);
	} else {
		if (!(fault_state(*set) & PAPI_STOPPED) ||
		    (fault_state(*set) & PAPI_RUNNING))
			fault_append("state %#x after the failed start",
				     fault_state(*set));
		fault_holds(2, "after the failed start");
		fault_maps_are(ovfl ? 1 : 0, "after the failed start");
	}
	if (ovfl)
		(void)fault_sample_run(OP_OVF, *set,
				       "overflow after the start");
	else
		(void)fault_counts(*set, 2, "after the start");
	return got;
}

static int op_ovf_stop(const struct row *r, int *set)
{
	long long a[NEV] = { 0 }, b[NEV] = { 0 }, c[NEV] = { 0 };
	struct span s = fault_own;
	int got, rc, rc2;

	if (fault_new_set(2, set) != PAPI_OK)
		return PAPI_EMISC;
	rc = fault_sampling(OP_OVF, *set, THRESHOLD);
	if (rc == PAPI_OK)
		rc = PAPI_start(*set);
	if (rc != PAPI_OK) {
		fault_append("setup: overflow and start: %s", papi_err(rc));
		return PAPI_EMISC;
	}
	fault_spin_ms(20);
	fault_arm(r);
	got = PAPI_stop(*set, a);
	fault_disarm();
	if (got == PAPI_OK)
		return got;
	if (!(fault_state(*set) & PAPI_RUNNING))
		fault_append("not running after the failed stop (state %#x)",
			     fault_state(*set));
	/* Still running: it counts and overflows as before.  The handler
	 * calls are counted from just after the first mark. */
	fault_ovf_reset();
	fault_mark(&s);
	rc = PAPI_read(*set, a);
	fault_mark(&s);
	fault_spin_ms(100);
	fault_mark(&s);
	rc2 = PAPI_read(*set, b);
	fault_mark(&s);
	if (rc != PAPI_OK || rc2 != PAPI_OK || !span_holds(&s, b[0] - a[0]) ||
	    !fault_samples_ok(fault_ovf.calls, &s))
		fault_append(
			"after the failed stop: read %s, %s; task-clock +%lld ns and %ld handler calls in %lld to %lld ns",
			papi_err(rc), papi_err(rc2), b[0] - a[0],
			fault_ovf.calls, span_lo(&s), span_hi(&s));
	rc = PAPI_stop(*set, c);
	if (rc != PAPI_OK)
		fault_append("the stop without the fault: %s", papi_err(rc));
	(void)fault_sampling(OP_OVF, *set, 0);
	return got;
}

/* The row's PAPI call: a start, a stop of an overflowing set, or a call
 * of a running set. */
static int op(const struct row *r, int *set)
{
	switch (r->op) {
	case OP_START:
	case OP_START_DIRTY:
	case OP_OVF_START:
	case OP_OVF_START_DIRTY:
		return op_start(r, set);
	case OP_OVF_STOP:
		return op_ovf_stop(r, set);
	default:
		return op_running(r, set);
	}
}

int main(void)
{
	return fault_main(rows, sizeof(rows) / sizeof(rows[0]), op, NULL);
}
