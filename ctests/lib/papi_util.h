/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PAPI tests' helpers (ctests/papi): which libpapi runs, its
 * initialisation as a case, error texts, event sets made and dropped, the
 * per-set options.  Includes the rest of the test library, the system
 * headers the tests share and what the utilities share with the tests
 * (utils/papi_common.h: drop_set(), set_domain(), set_inherit(),
 * libpapi_file()), so that a PAPI test
 * includes this one header.
 */
#ifndef LOPE_PAPI_UTIL_H
#define LOPE_PAPI_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <papi.h>

#include "../../utils/papi_common.h"
#include "clock.h"
#include "core_pmu.h"
#include "nobody.h"
#include "proc.h"
#include "report.h"
#include "span.h"
#include "target.h"

/*
 * Four software events every kernel counts: task-clock, page-faults,
 * context-switches, cpu-migrations (in that order).
 */
#define NSW_EVENTS 4
extern const char *const sw_events[NSW_EVENTS];

/* Which libpapi this process runs (the runner's LD_LIBRARY_PATH picks it):
 * libpapi_file()'s answer. */
const char *libpapi_path(void);

/* "rc (text)" for messages; four calls' texts are valid at a time. */
const char *papi_err(int rc);

/*
 * PAPI_library_init as the case library_init, and the libpapi path as
 * information; leaves the program when it fails.
 */
void papi_init_or_exit(void);

/*
 * The same without a case when it succeeds: for the programs one test was
 * split into (test_api_*), of which test_api_info reports library_init.
 */
void papi_init_quiet_or_exit(void);

/*
 * PAPI_thread_init(@id) as the case @name (@id: pthread_self, or a tool's
 * own thread ids); leaves the program when it fails.
 */
void thread_init_or_exit(const char *name, unsigned long (*id)(void));

/*
 * The usual main of a PAPI test: PAPI initialised (the case library_init),
 * @tests run in order, the case no_fd_leak_over_whole_run (as many
 * descriptors as after the init), PAPI shut down.  Returns lope_done().
 */
int papi_run_tests(void (*const *tests)(void), size_t n);

/* Component 0's information as the case cmpinfo; leaves without it. */
const PAPI_component_info_t *cmpinfo_or_exit(void);

/* The code of the event @name, or 0 when PAPI does not know it. */
int code_of(const char *name);

/* A new event set with @n named events; PAPI_OK or the first error. */
int make_named_set(int *set, const char *const *names, int n);

/*
 * A new set without events on component 0 (perf_event), for the options
 * that need a component before any event; PAPI_OK or the first error.
 */
int make_empty_set(int *set);

/*
 * What a tool's thread does first: PAPI_register_thread, then a new set
 * of the @n events @codes.  PAPI_OK, or the first error and in *@call the
 * name of the call that failed.
 */
int register_with_set(int *set, const int *codes, int n, const char **call);

/*
 * A tool's read of @set's @n values into @v, each held against @last
 * (then replaced by it): how many went down since, or -1 when the read
 * failed.
 */
int read_went_down(int set, long long *v, long long *last, int n);

/*
 * The case @name: @rc (what making @set returned) is PAPI_OK.  When it is
 * not, @set is dropped and 0 returned: the caller goes no further.
 */
int set_ok_or_drop(const char *name, int rc, int *set);

/*
 * @call(@set, @v) between two marks of @s (span.h; none when @s is NULL):
 * PAPI_read, PAPI_stop, or papi_start and papi_reset, PAPI_start and
 * PAPI_reset as calls that take values (@v unused).  The call's result.
 */
int call_marked(struct span *s, int (*call)(int, long long *), int set,
		long long *v);
int papi_start(int set, long long *unused);
int papi_reset(int set, long long *unused);

/*
 * When @rc (what came before) is PAPI_OK: start @set, have the target @w
 * spin @ns of its own CPU time (*spun: the time it measured), stop into
 * @v; the start and the stop each between two marks of @s (or NULL).  The
 * PAPI result, or @rc.
 */
int count_target_spin(int set, int rc, struct target *w, long long ns,
		      long long *v, long long *spun, struct span *s);

/*
 * When @rc (what came before) is PAPI_OK: start @set, spin @ns of this
 * thread's CPU time, then @end it (PAPI_read or PAPI_stop) into @v, the
 * start and the end each between two marks of @sp, whose bounds then
 * hold what a task-clock of this thread counted (span.h).  The PAPI
 * result, or @rc.
 */
int spin_between_marks(int set, int rc, long long ns,
		       int (*end)(int, long long *), long long *v,
		       struct span *sp);

/*
 * The case @name: @rc is PAPI_OK and the task-clock @got (ns) lies in @s,
 * the task-clock of @whose ("our", "the target's" ...); @note (or NULL)
 * says what the tasks did.
 */
void check_task_clock(const char *name, int rc, long long got,
		      const struct span *s, const char *whose,
		      const char *note);

/*
 * When @rc (what came before) is PAPI_OK: start @set, read it into @v,
 * stop it into @v (every path of a set once).  The PAPI result, or @rc.
 */
int start_read_stop(int set, int rc, long long *v);

/*
 * The case @name: the PAPI call returned @want and the process has
 * @fd_before descriptors still (a refused call leaks none).
 */
void expect_rc(const char *name, int got, int want, int fd_before);

/* PAPI_set_opt of one option of @set (set_domain() and set_inherit():
 * utils/papi_common.h); PAPI_OK or its error. */
int set_granularity(int set, int granularity);
int set_cpu_attach(int set, unsigned int cpu);

/* @set's domain (PAPI_get_opt), or its error (negative). */
int get_domain(int set);

/*
 * Run this program again against stock PAPI (PAPI_STOCK_BUILDDIR first
 * on LD_LIBRARY_PATH), with @var=1 in its environment, its stderr to
 * /dev/null and LIBPFM_FORCE_PMU unset (stock's component needs a PMU
 * libpfm4 knows).  Its stdout, to read to the end; then wait_child(*@pid).
 * @lib gets the real path of stock's libpapi.so.  NULL, with the reason
 * in @why, when there is no stock build or it cannot start.
 */
FILE *rerun_on_stock(const char *var, pid_t *pid, char lib[PATH_MAX], char *why,
		     size_t len);

#endif /* LOPE_PAPI_UTIL_H */
