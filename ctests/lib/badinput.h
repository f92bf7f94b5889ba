/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bad-input sweep over the public PAPI API, as our perf_event
 * component sees it: the row runner the test_badinput_* programs share,
 * one program a topic.
 *
 * Every row is {line, name, call, expected PAPI code}: the call is made,
 * its return value compared with the code PAPI 7 documents for that
 * function (rows marked DOC: the code is in the function's @retval list
 * in papi.c) or, where PAPI documents none, the code PAPI 7's core or our
 * component returns (rows marked P7, each with a comment saying why).
 * Rows marked CORE are answered by PAPI's core before our component is
 * asked, and the answer changes between PAPI versions: their expected code
 * is what the stock PAPI built from the same source (PAPI_STOCK_BUILDDIR)
 * returns for the same call, asked in a reference run of the same program
 * against that library.  The code written in such a row is PAPI 7.0's; it
 * stands in only where stock PAPI cannot make the call here, and a
 * different code is then a SKIP (nothing to tell a PAPI change from ours).
 * After every row, whatever the row created is stopped and destroyed and:
 *  - /proc/self/fd and the perf_event lines of /proc/self/maps are exactly
 *    as before the sweep (baseline: after PAPI_library_init and the
 *    reference sets below; the end checks the library_init baseline);
 *  - a witness set (perf::TASK-CLOCK) that another thread keeps running
 *    the whole time reads PAPI_OK from this thread and never goes down,
 *    and, if msr::tsc exists, an uncore set running in this very thread
 *    keeps growing: nothing already measured is lost;
 *  - a reference set of this thread still starts, counts and stops, its
 *    read and its stop within this thread's own task-clock around them.
 * A row passes only when all of that holds; the reason names what broke.
 *
 * Calls that crash inside PAPI 7's core whatever the component are not
 * made; each is named in a comment ("not made:").
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef LOPE_BADINPUT_H
#define LOPE_BADINPUT_H

#include "papi_util.h"

#define DOC 1  /* the expected code is in PAPI's documentation */
#define P7 0   /* PAPI 7's (or the component's) behaviour, see comment */
#define CORE 2 /* PAPI's core decides: stock PAPI's code, else PAPI 7.0's */

/* A row: the reference run makes only the CORE rows. */
#define ROW(want, doc, name, call)            \
	((sweep_stock_run && (doc) != CORE) ? \
		 (void)0 :                    \
		 (sweep_row_begin(),          \
		  sweep_row(__LINE__, name, want, doc, (call))))

extern int sweep_stock_run; /* this process is the reference run */
void sweep_row_begin(void);
void sweep_row(int line, const char *fmt, int want, int doc, int got);

/* Fills the "%s" of the next rows' names ("" when not set). */
extern const char *id_label;

/* A topic: its rows, made by one function. */
struct sweep_group {
	const char *what;
	void (*rows)(void);
};

/* The program: the reference run when asked, else the setup, @groups'
 * rows and the final checks; the exit status. */
int sweep_main(const struct sweep_group *groups, int n);

/* perf::TASK-CLOCK and perf::PAGE-FAULTS, and their codes. */
extern const char *const task_clock, *const page_faults;
extern int tc, pf;
extern long long vals[512]; /* where the rows' reads and stops go */
extern int witness_set;     /* the witness thread's, running */
extern int tsc_set;         /* msr::tsc running in this thread, or PAPI_NULL */

/*
 * Scratch sets, destroyed after the row that made them.  A failure to set
 * one up is the row's setup error (setup_fail: the first one stays).
 */
void setup_fail(const char *what, int rc);
int empty(void);      /* a new set */
int empty_cmp0(void); /* assigned to component 0 */
int with(int set, const char *name);
int stopped(void); /* holding perf::TASK-CLOCK */
int start(int set);
int stop(int set);
int running(void);
int ran(void);       /* started and stopped again */
int destroyed(void); /* the id of a set destroyed just now */
int overflowing(void);
int attached(void); /* to this process */
int multiplexed(void);

/* An overflow handler that does nothing. */
void handler(int set, void *address, long long vector, void *ctx);

/* PAPI_set_opt(@option) of @set with @ns: PAPI_MULTIPLEX, PAPI_DEF_MPX_NS. */
int set_multiplex_ns(int option, int set, int ns);

/* The calls as one-line expressions. */
int list_events(int set, int *events, int n);
int ovf_index(int set, long long vector, int *idx, int n);
int destroy_id(int id);
int state_of(int set);
int do_profil(int set, int code, unsigned scale, int threshold);
int add_events(int set, int *codes, int n);

/*
 * A row of a table: @call made on the set @set makes.  The calls on one
 * set the tables share, named by what they pass besides it (vals, NULL,
 * tc, pf, both: tc and pf; the option's value; the overflow or profil
 * threshold: 1000000 on tc, "off" 0; pf's overflow at 100).
 */
struct sweep_call {
	int want, doc;
	const char *name;
	int (*set)(void);
	int (*call)(int set);
};
void sweep_calls(const struct sweep_call *rows, int n);

int stop_vals(int set);
int read_vals(int set);
int accum_vals(int set);
int write_vals(int set);
int stop_null(int set);
int add_tc(int set);
int add_pf(int set);
int add_named_tc(int set);
int add_named_pf(int set);
int add_both(int set);
int remove_tc(int set);
int remove_named_tc(int set);
int list_four(int set);
int overflow_tc(int set);
int overflow_off(int set);
int overflow_pf(int set);
int ovf_index_one(int set);
int profil_tc(int set);
int profil_off(int set);
int attach_self(int set);
int assign_cmp0(int set);
int assign_cmp1(int set);
int domain_user(int set);
int granul_thr(int set);
int cpu_attach0(int set);
int multiplex_ns0(int set);

#define ARRAY_SIZE(a) ((int)(sizeof(a) / sizeof((a)[0])))

#endif /* LOPE_BADINPUT_H */
