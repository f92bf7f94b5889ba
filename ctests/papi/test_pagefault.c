/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pagefault: PAPI_start and the first PAPI_read of an event set of
 * three software events take no minor page fault: everything the first
 * read needs is set up when the events are added (PAPI_add_event opens
 * them; pages of events readable in user space are mapped and pre-faulted
 * there -- see test_hw for hardware events).
 *
 * Faults are counted three ways around the measured pair
 * (PAPI_start; PAPI_read):
 *  - getrusage(RUSAGE_THREAD).ru_minflt,
 *  - a perf PAGE_FAULTS_MIN counter opened directly with perf_event_open(2)
 *    (a mechanism independent of PAPI),
 *  - the set's own perf::PAGE-FAULTS value in that first read.
 * Code paths that are not measured are warmed first: getrusage, the
 * direct counter's read, the stack, the values array, and PAPI_start /
 * PAPI_read themselves on a *different* event set (so lazy symbol binding
 * and first-touch of libpapi's text are not charged to the measured set).
 * The measured set itself is never started or read before the pair.
 *
 * Also checks /proc/self/maps across the adds: software events get no
 * perf page (doc/design.md: they cannot be read in user space, and a mapped
 * page costs the kernel a rewrite on every reset, enable and context
 * switch).
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <stdint.h>

#include "papi_util.h"
#include "sw_counter.h"

#define NEV 3
static const char *const ev_names[NEV] = {
	"perf::TASK-CLOCK",
	"perf::PAGE-FAULTS",
	"perf::CONTEXT-SWITCHES",
};

int main(void)
{
	struct rusage ru0, ru1;
	long long vals[NEV];
	long long pf0, pf1;
	int rc, rc_start, rc_read, set, warm, maps_before, maps_after, pfd;
	long d_ru;

	papi_init_or_exit();

	/* Warm-up on another set: same calls, same events. */
	rc = make_named_set(&warm, ev_names, NEV);
	rc = start_read_stop(warm, rc, vals);
	if (rc == PAPI_OK)
		rc = PAPI_cleanup_eventset(warm);
	if (rc == PAPI_OK)
		rc = PAPI_destroy_eventset(&warm);
	if (!lope_check(rc == PAPI_OK, "warmup_set", "rc=%d (%s)", rc,
			PAPI_strerror(rc)))
		lope_exit();

	maps_before = perf_maps_count();
	rc = make_named_set(&set, ev_names, NEV);
	if (!lope_check(rc == PAPI_OK, "build_measured_set", "rc=%d (%s)", rc,
			PAPI_strerror(rc)))
		lope_exit();
	maps_after = perf_maps_count();
	lope_check(maps_after == maps_before,
		   "no_perf_page_mapped_for_software_events",
		   "/proc/self/maps anon_inode:[perf_event] lines: %d before "
		   "adding %d software events, %d after",
		   maps_before, NEV, maps_after);

	pfd = sw_counter_open(PERF_COUNT_SW_PAGE_FAULTS_MIN, 0);
	if (pfd < 0)
		lope_info("perf_event_open(PAGE_FAULTS_MIN) failed: %s; "
			  "getrusage only",
			  strerror(errno));

	/* warm every path that is not measured */
	warm_stack();
	memset(vals, 0, sizeof(vals));
	getrusage(RUSAGE_THREAD, &ru0);
	if (pfd >= 0)
		pf0 = sw_counter_read(pfd);

	/* ---- measured: PAPI_start + first PAPI_read ---- */
	getrusage(RUSAGE_THREAD, &ru0);
	pf0 = pfd >= 0 ? sw_counter_read(pfd) : 0;
	rc_start = PAPI_start(set);
	rc_read = rc_start == PAPI_OK ? PAPI_read(set, vals) : rc_start;
	pf1 = pfd >= 0 ? sw_counter_read(pfd) : 0;
	getrusage(RUSAGE_THREAD, &ru1);
	/* ---- end ---- */

	if (!lope_check(rc_start == PAPI_OK && rc_read == PAPI_OK,
			"start_and_first_read_ok", "PAPI_start=%d PAPI_read=%d",
			rc_start, rc_read))
		lope_exit();

	d_ru = ru1.ru_minflt - ru0.ru_minflt;
	lope_check(d_ru == 0, "no_minflt_start_first_read_getrusage",
		   "getrusage(RUSAGE_THREAD) ru_minflt grew by %ld across "
		   "PAPI_start + first PAPI_read",
		   d_ru);
	if (pfd >= 0)
		lope_check(pf1 - pf0 == 0,
			   "no_minflt_start_first_read_perf_counter",
			   "direct PAGE_FAULTS_MIN counter grew by %lld across "
			   "PAPI_start + first PAPI_read",
			   pf1 - pf0);
	else
		lope_fail("no_minflt_start_first_read_perf_counter",
			  "could not open a PAGE_FAULTS_MIN counter");
	lope_check(vals[1] == 0, "no_fault_in_sets_own_page_faults",
		   "the set's perf::PAGE-FAULTS read %lld between PAPI_start "
		   "and the first PAPI_read",
		   vals[1]);
	lope_info("first read: task-clock=%lld page-faults=%lld "
		  "context-switches=%lld",
		  vals[0], vals[1], vals[2]);

	PAPI_stop(set, vals);
	PAPI_cleanup_eventset(set);
	PAPI_destroy_eventset(&set);
	if (pfd >= 0)
		close(pfd);
	PAPI_shutdown();
	return lope_done();
}
