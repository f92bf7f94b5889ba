/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A witness for the sweeps that do their worst to PAPI (test_badinput,
 * test_faults_papi): another thread of the process keeps its own
 * perf::TASK-CLOCK set running through them all.  The sweep reads that
 * set between its rows (it must still run and never go back), and at the
 * end the set must have counted the thread's whole CPU time.
 */
#ifndef LOPE_WITNESS_H
#define LOPE_WITNESS_H

#include <pthread.h>

struct witness {
	pthread_t thread;
	int set;           /* the witness thread's, running */
	int rc;            /* its start's result, then its stop's */
	volatile int stop; /* set by witness_finish() */
	int ready;         /* the set is started (or failed to) */
	long long last;    /* the sweep's last read of the set */
	long long final;   /* the set's value at its stop */
	long long cpu;     /* the thread's CPU time while it counted */
};

/*
 * Start the witness thread (after PAPI_thread_init) and wait for its set:
 * the case setup_witness_set_running, or setup_witness_thread failed.
 * 0, or -1 with the thread gone.
 */
int witness_start(struct witness *w);

/*
 * Stop the witness thread and check its set as the case @name: it
 * stopped, counted the thread's CPU time within 10 % + 2 ms, and no less
 * than the sweep's last read.
 */
void witness_finish(struct witness *w, const char *name);

#endif /* LOPE_WITNESS_H */
