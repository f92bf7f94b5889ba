/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kernel failures injected under the full PAPI API: the harness of
 * test_faults_change (a set built and changed: adds, options, overflow and
 * profiling set up) and test_faults_run (a set counting: start, read,
 * accum, reset, stop).
 *
 * The engine's own fault test (ctests/engine/test_faults.c) swaps its
 * system-call table; these go through libpapi.so as a tool would.  The
 * test library's interposer (interpose.h) sees libpapi's syscall(),
 * read(), ioctl(), mmap() and fcntl(); the fault hook here fails them when
 * a row has armed it: then the nth call of the armed kind made by this
 * thread on a perf_event descriptor (for syscall(): number
 * SYS_perf_event_open only; every other system call passes) fails with
 * the row's errno, @times calls in a row.  The switch is armed around the
 * one PAPI call under test (fault_arm, fault_disarm) and nowhere else.
 *
 * Every row is {name, line, call, ioctl request or fcntl command (ANY:
 * any), nth, times, errno, PAPI operation, expected PAPI result}.  A row
 * passes only when
 *  - the fault was injected exactly @times times and the PAPI call
 *    returned the expected code (pe_errno_to_papi's mapping for errors
 *    the component passes on, PAPI_OK for what it absorbs);
 *  - the operation's own checks hold (each test says which);
 *  - after the row's sets are destroyed: /proc/self/fd, the perf_event
 *    descriptors and the perf_event lines of /proc/self/maps are as
 *    before, a witness set running in another thread still runs and has
 *    kept counting (and at the end has counted that thread's whole CPU
 *    time), and a reference set of this thread still starts, counts and
 *    stops, its read and its stop within this thread's task-clock around
 *    them.
 * (The overflow signal's handler is not checked: PAPI 7 never uninstalls
 * it, its _papi_hwi_stop_signal calls sigaction(sig, NULL, NULL).)
 *
 * Report protocol: report.h.
 */
#ifndef LOPE_FAULTS_H
#define LOPE_FAULTS_H

#include <linux/perf_event.h>
#include <stddef.h>

#include "interpose.h"
#include "papi_util.h"
#include "span.h"

enum op {
	OP_ADD1,     /* PAPI_add_named_event of the 1st event (empty set) */
	OP_ADD2,     /* ... of the 2nd (the set holds TASK-CLOCK) */
	OP_ADD3,     /* ... of the 3rd (TASK-CLOCK, PAGE-FAULTS) */
	OP_DOMAIN,   /* PAPI_set_opt(PAPI_DOMAIN, user+kernel), 2 events */
	OP_MPX,      /* PAPI_set_multiplex, 2 events */
	OP_READ,     /* PAPI_read of a running 2-event group */
	OP_READ_MPX, /* PAPI_read of a multiplexed set: one read per event */
	OP_ACCUM,
	OP_RESET,
	OP_STOP,
	OP_START,       /* PAPI_start of a stopped set */
	OP_START_DIRTY, /* ... whose context another set used since */
	OP_OVF,         /* PAPI_overflow on TASK-CLOCK, 1 ms, 2-event set */
	OP_PROFIL,      /* PAPI_profil on TASK-CLOCK */
	OP_SPROFIL,     /* PAPI_sprofil on TASK-CLOCK */
	OP_OVF_ADD,     /* add PAGE-FAULTS to a set overflowing on TASK-CLOCK */
	OP_OVF_START,   /* PAPI_start of an overflowing set */
	OP_OVF_START_DIRTY, /* ... whose context another set used since */
	OP_OVF_STOP,        /* PAPI_stop of an overflowing set */
};

struct row {
	const char *name;
	int line;
	enum lope_call call;
	unsigned long what; /* ioctl request or fcntl command; 0: any */
	int nth, times, err;
	enum op op;
	int expect;
};

/* A row after its name, one line in the tables: { "name", ROW(...) }. */
#define ANY 0
#define IOC_ENABLE PERF_EVENT_IOC_ENABLE
#define IOC_DISABLE PERF_EVENT_IOC_DISABLE
#define IOC_REFRESH PERF_EVENT_IOC_REFRESH
#define ROW(call, what, nth, times, err, op, expect) \
	__LINE__, LOPE_CALL_##call, what, nth, times, err, OP_##op, expect

#define THRESHOLD 1000000 /* 1 ms of task-clock */
#define NEV 3

/* TASK-CLOCK, PAGE-FAULTS and CPU-CLOCK: the sets' events, in order. */
extern const char *const fault_ev[NEV];

/* Arm the row's fault for this thread; disarm. */
void fault_arm(const struct row *r);
void fault_disarm(void);

/* Add to the row's failure message ("" while it holds). */
void fault_append(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What every event of the sets counts: CPU time and page faults. */
void fault_work(void);
/* @ms of the profiled loop. */
void fault_spin_ms(long ms);

/*
 * This thread's own kernel task-clock (span.h), opened once.  A row
 * copies it into spans that share its descriptor; a mark is never taken
 * while the fault is armed: it is a read() of a perf_event descriptor.
 */
extern struct span fault_own;
void fault_mark(struct span *s);

/* The overflow handler's calls since fault_ovf_reset(). */
extern struct fault_ovf {
	volatile long calls, in_loop, no_address, bad_vector;
} fault_ovf;
void fault_ovf_reset(void);

/* Samples of a user-domain TASK-CLOCK at THRESHOLD over @s: plausible? */
int fault_samples_ok(long n, const struct span *s);

/* The test set holds exactly @n perf descriptors, @n perf mappings. */
void fault_holds(int n, const char *when);
void fault_maps_are(int n, const char *when);
/* Start, work, read, work, stop: every one of @n events counts, grows. */
int fault_counts(int set, int n, const char *what);
/* PAPI_state of @set, 0 when it fails. */
int fault_state(int set);
/* Make another set the last one this thread's context was set up for. */
void fault_use_ref(void);
/* A new set of the first @n events. */
int fault_new_set(int n, int *set);

/*
 * Turn TASK-CLOCK's sampling of @op's kind (OP_OVF, OP_PROFIL,
 * OP_SPROFIL) on (@threshold) or off (0).  No row makes PAPI_profil fail:
 * PAPI 7's core then frees the region PAPI_sprofil left in the set, and
 * the next PAPI_profil of that event uses and frees it again
 * (doc/reliability.md); PAPI_sprofil, whose regions are the caller's,
 * takes those rows.
 */
int fault_sampling(enum op op, int set, int threshold);
/*
 * 100 ms in the loop with @set sampling: about one handler call or
 * histogram sample per ms, on the loop.  Returns the samples.
 */
long fault_sample_run(enum op op, int set, const char *what);

/*
 * Run the row: @op (the test's) makes its PAPI call under the armed fault
 * and its checks, then the harness checks the result, the faults made,
 * the descriptors, the witness and the reference set, and reports the
 * row's case.
 */
typedef int (*fault_op_fn)(const struct row *r, int *set);
void fault_row(const struct row *r, fault_op_fn op);

/*
 * The test: PAPI, the fault hook, the reference and witness sets, then
 * @first() if given (rows of its own, through fault_row()) and the @n
 * @rows, each made by @op, then the end's checks.  Returns lope_done().
 */
int fault_main(const struct row *rows, size_t n, fault_op_fn op,
	       void (*first)(void));

#endif /* LOPE_FAULTS_H */
