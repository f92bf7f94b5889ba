/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A witness for the sweeps that do their worst to PAPI (test_badinput_*,
 * test_faults_change, test_faults_run): another thread of the process
 * keeps its own perf::TASK-CLOCK set running through them all.  The
 * sweep reads that set between its rows (it must still run and never go
 * back), and at the end the set must have counted the thread's whole run:
 * the thread's own kernel task-clock read around its PAPI_start and its
 * PAPI_stop (span.h) bounds the set's final value, whatever time the host
 * stole.
 */
#ifndef LOPE_WITNESS_H
#define LOPE_WITNESS_H

#include <pthread.h>

#include "span.h"

struct witness {
	pthread_t thread;
	int set;           /* the witness thread's, running */
	int rc;            /* its start's result, then its stop's */
	volatile int stop; /* set by witness_finish() */
	int ready;         /* the set is started (or failed to) */
	long long last;    /* the sweep's last read of the set */
	long long final;   /* the set's value at its stop */
	int span_err;      /* errno of the span's open or of a mark, or 0 */
	struct span span;  /* the thread's task-clock around start and stop */
};

/*
 * Start the witness thread (after PAPI_thread_init) and wait for its set:
 * the case setup_witness_set_running, or setup_witness_thread failed.
 * 0, or -1 with the thread gone.
 */
int witness_start(struct witness *w);

/*
 * Stop the witness thread and check its set as the case @name: it
 * stopped, its final value lies in the span of the thread's own
 * task-clock around its start and its stop, and is no less than the
 * sweep's last read.
 */
void witness_finish(struct witness *w, const char *name);

#endif /* LOPE_WITNESS_H */
