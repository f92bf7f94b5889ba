/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_badinput: a sweep of bad input over the public PAPI API, as our
 * perf_event component sees it.
 *
 * Every row below is {line, name, call, expected PAPI code}: the call is
 * made, its return value compared with the code PAPI 7 documents for that
 * function (rows marked DOC: the code is in the function's @retval list
 * in papi.c) or, where PAPI documents none, the code PAPI 7's core or our
 * component returns (rows marked P7, each with a comment saying why).
 * Rows marked CORE are answered by PAPI's core before our component is
 * asked, and the answer changes between PAPI versions: their expected code
 * is what the stock PAPI built from the same source (PAPI_STOCK_BUILDDIR)
 * returns for the same call, asked in a reference run of this program
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
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <pthread.h>

#include <stdarg.h>

#include "papi_util.h"
#include "span.h"
#include "witness.h"

#define DOC 1  /* the expected code is in PAPI's documentation */
#define P7 0   /* PAPI 7's (or the component's) behaviour, see comment */
#define CORE 2 /* PAPI's core decides: stock PAPI's code, else PAPI 7.0's */

static const char *const task_clock = "perf::TASK-CLOCK";
static const char *const page_faults = "perf::PAGE-FAULTS";
static int tc, pf; /* their codes */

static long long vals[512];

/* ------------------------------------------------------ scratch sets */

#define MAX_SCRATCH 8
static int scratch[MAX_SCRATCH], nscratch;
static char setup_err[200];

static void setup_fail(const char *what, int rc)
{
	if (!setup_err[0])
		snprintf(setup_err, sizeof(setup_err), "setup: %s: %s", what,
			 papi_err(rc));
}

static int keep(int set)
{
	if (nscratch < MAX_SCRATCH)
		scratch[nscratch++] = set;
	return set;
}

static int empty(void)
{
	int set = PAPI_NULL, rc = PAPI_create_eventset(&set);

	if (rc != PAPI_OK)
		setup_fail("PAPI_create_eventset", rc);
	return keep(set);
}

static int empty_cmp0(void)
{
	int set = empty(), rc = PAPI_assign_eventset_component(set, 0);

	if (rc != PAPI_OK)
		setup_fail("PAPI_assign_eventset_component", rc);
	return set;
}

static int with(int set, const char *name)
{
	int rc = PAPI_add_named_event(set, name);

	if (rc != PAPI_OK)
		setup_fail(name, rc);
	return set;
}

/* A stopped set holding perf::TASK-CLOCK. */
static int stopped(void)
{
	return with(empty(), task_clock);
}

static int start(int set)
{
	int rc = PAPI_start(set);

	if (rc != PAPI_OK)
		setup_fail("PAPI_start", rc);
	return set;
}

static int stop(int set)
{
	int rc = PAPI_stop(set, vals);

	if (rc != PAPI_OK)
		setup_fail("PAPI_stop", rc);
	return set;
}

static int running(void)
{
	return start(stopped());
}

/* Started and stopped again. */
static int ran(void)
{
	return stop(running());
}

/* The id of a set that existed and was destroyed just now. */
static int destroyed(void)
{
	int set = PAPI_NULL, id, rc = PAPI_create_eventset(&set);

	id = set;
	if (rc == PAPI_OK)
		rc = PAPI_destroy_eventset(&set);
	if (rc != PAPI_OK)
		setup_fail("create + destroy", rc);
	return id;
}

static void handler(int set, void *address, long long vector, void *ctx)
{
	(void)set;
	(void)address;
	(void)vector;
	(void)ctx;
}

static int overflowing(void)
{
	int set = stopped(), rc;

	rc = PAPI_overflow(set, tc, 1000000, 0, handler);
	if (rc != PAPI_OK)
		setup_fail("PAPI_overflow", rc);
	return set;
}

static int attached(void)
{
	int set = stopped(), rc = PAPI_attach(set, (unsigned long)getpid());

	if (rc != PAPI_OK)
		setup_fail("PAPI_attach", rc);
	return set;
}

static int multiplexed(void)
{
	int set = empty_cmp0(), rc = PAPI_set_multiplex(set);

	if (rc != PAPI_OK)
		setup_fail("PAPI_set_multiplex", rc);
	return with(set, task_clock);
}

static PAPI_option_t opt;

static PAPI_option_t *cpu_opt(int set, unsigned int cpu)
{
	memset(&opt, 0, sizeof(opt));
	opt.cpu.eventset = set;
	opt.cpu.cpu_num = cpu;
	return &opt;
}

static PAPI_option_t *domain_opt(int set, int domain)
{
	memset(&opt, 0, sizeof(opt));
	opt.domain.eventset = set;
	opt.domain.domain = domain;
	return &opt;
}

static PAPI_option_t *granul_opt(int set, int granularity)
{
	memset(&opt, 0, sizeof(opt));
	opt.granularity.eventset = set;
	opt.granularity.granularity = granularity;
	return &opt;
}

static PAPI_option_t *mpx_opt(int set, int ns)
{
	memset(&opt, 0, sizeof(opt));
	opt.multiplex.eventset = set;
	opt.multiplex.ns = ns;
	return &opt;
}

/* ------------------------------------------------ compound bad calls */

/*
 * An option naming a bad target on an *empty* set may be accepted and
 * refused when the first event is added (the component checks options by
 * opening the events: doc/design.md, "Options without a hardware probe"),
 * or refused at once.  Either way the caller gets @want: this returns the
 * first error of (option, first add).
 */
static int cpu_attach_empty_then_add(unsigned int cpu)
{
	int set = empty_cmp0(), rc;

	rc = PAPI_set_opt(PAPI_CPU_ATTACH, cpu_opt(set, cpu));
	if (rc == PAPI_OK)
		rc = PAPI_add_event(set, tc);
	return rc;
}

static int attach_empty_then_add(unsigned long tid)
{
	int set = empty_cmp0(), rc;

	rc = PAPI_attach(set, tid);
	if (rc == PAPI_OK)
		rc = PAPI_add_event(set, tc);
	return rc;
}

/*
 * PAPI_attach to tid 0: perf_event_open(2) reads pid 0 as the calling
 * thread, and PAPI passes the number through (stock PAPI too), so the set
 * counts the caller.  Returns the attach's code, or PAPI_EBUG if the set
 * did not count our own 5 ms.
 */
static int attach_zero_counts_self(void)
{
	int set = stopped(), rc;
	long long v = 0;

	rc = PAPI_attach(set, 0);
	if (rc != PAPI_OK)
		return rc;
	if (PAPI_start(set) != PAPI_OK)
		return PAPI_EBUG;
	busy_ns(5 * MS);
	if (PAPI_stop(set, &v) != PAPI_OK || v < 4 * MS)
		return PAPI_EBUG;
	return PAPI_OK;
}

static int cpu_attached(void)
{
	int set = stopped(), rc;

	rc = PAPI_set_opt(PAPI_CPU_ATTACH, cpu_opt(set, 0));
	if (rc != PAPI_OK)
		setup_fail("PAPI_CPU_ATTACH cpu 0", rc);
	return set;
}

/* PAPI_read of a set never started: PAPI_OK and zeros (papi.c copies
 * ESI->sw_stop, which starts zeroed).  PAPI_EBUG if a value is not 0. */
static int read_before_start(void)
{
	int set = with(stopped(), page_faults), rc;

	vals[0] = vals[1] = -1;
	rc = PAPI_read(set, vals);
	if (rc == PAPI_OK && (vals[0] != 0 || vals[1] != 0))
		return PAPI_EBUG;
	return rc;
}

/* Names of distinct software events: spellings x harmless modifiers. */
static const char *const many_bases[] = {
	"perf::TASK-CLOCK",
	"perf::PERF_COUNT_SW_TASK_CLOCK",
	"perf::CPU-CLOCK",
	"perf::PERF_COUNT_SW_CPU_CLOCK",
	"perf::PAGE-FAULTS",
	"perf::FAULTS",
	"perf::PERF_COUNT_SW_PAGE_FAULTS",
	"perf::CONTEXT-SWITCHES",
	"perf::CS",
	"perf::PERF_COUNT_SW_CONTEXT_SWITCHES",
	"perf::CPU-MIGRATIONS",
	"perf::MIGRATIONS",
	"perf::PERF_COUNT_SW_CPU_MIGRATIONS",
	"perf::MINOR-FAULTS",
	"perf::PERF_COUNT_SW_PAGE_FAULTS_MIN",
	"perf::MAJOR-FAULTS",
	"perf::PERF_COUNT_SW_PAGE_FAULTS_MAJ",
	"perf::CGROUP-SWITCHES",
	"perf::PERF_COUNT_SW_CGROUP_SWITCHES",
};

static int many_added;

/*
 * Add distinct events until PAPI refuses one (at most 1000 tries): the
 * refusal's code.  The set that results must still start, read and stop
 * (setup error otherwise); dropping it must give every descriptor back
 * (the row's leak check).
 */
static int add_until_failure(int multiplex)
{
	static const char *const u[] = { "", ":u=0", ":u=1" };
	static const char *const k[] = { "", ":k=0", ":k=1" };
	static const char *const x[] = { "", ":excl=0", ":pinned=0" };
	const size_t nb = sizeof(many_bases) / sizeof(many_bases[0]);
	char name[160];
	size_t i;
	int set, rc = PAPI_OK, tries = 0;

	set = multiplex ? multiplexed() : with(empty(), task_clock);
	many_added = 1;
	for (i = 0; rc == PAPI_OK && i < nb * 27 && tries < 1000; i++) {
		snprintf(name, sizeof(name), "%s%s%s%s", many_bases[i / 27],
			 u[i / 9 % 3], k[i / 3 % 3], x[i % 3]);
		if (i == 0)
			continue; /* perf::TASK-CLOCK is in already */
		tries++;
		rc = PAPI_add_named_event(set, name);
		if (rc == PAPI_OK)
			many_added++;
	}
	if (rc == PAPI_OK)
		return PAPI_OK; /* ran out of names: the row fails */
	if (PAPI_num_events(set) != many_added)
		setup_fail("PAPI_num_events after the refusal",
			   PAPI_num_events(set));
	stop(start(set));
	return rc;
}

/* Huge threshold: accepted, never reached in 2 ms, then switched off. */
static int huge_threshold(void)
{
	int set = stopped(), rc;

	rc = PAPI_overflow(set, tc, INT_MAX, 0, handler);
	if (rc != PAPI_OK)
		return rc;
	stop(start(set));
	return PAPI_overflow(set, tc, 0, 0, NULL);
}

/* msr::tsc (perf_event_uncore), when this machine has it. */
static int tsc_code;

static int uncore(void)
{
	return with(empty(), "msr::tsc");
}

/* The counters the uncore component says it has. */
static int uncore_counters(void)
{
	const PAPI_component_info_t *ci =
		PAPI_get_component_info(PAPI_get_event_component(tsc_code));

	return ci ? ci->num_cntrs : 0;
}

static int uncore_add_task_clock(void)
{
	return PAPI_add_event(uncore(), tc);
}

/* "returns NULL" rows: 0 for NULL, 1 otherwise. */
static int not_null(const void *p)
{
	return p != NULL;
}

static int list_events(int set, int *events, int n)
{
	return PAPI_list_events(set, events, &n);
}

static int ovf_index(int set, long long vector, int *idx, int n)
{
	return PAPI_get_overflow_event_index(set, vector, idx, &n);
}

static int destroy_id(int id)
{
	return PAPI_destroy_eventset(&id);
}

static int create_nonnull(void)
{
	int set = 5;

	return PAPI_create_eventset(&set);
}

static int state_of(int set)
{
	int st;

	return PAPI_state(set, &st);
}

static int name_to_code(const char *name)
{
	int code;

	return PAPI_event_name_to_code(name, &code);
}

static int code_to_name(int code)
{
	char name[PAPI_MAX_STR_LEN];

	return PAPI_event_code_to_name(code, name);
}

static int event_info(int code)
{
	PAPI_event_info_t info;

	return PAPI_get_event_info(code, &info);
}

static int do_profil(int set, int code, unsigned scale, int threshold)
{
	static unsigned short buf[1024];

	return PAPI_profil(buf, sizeof(buf), (vptr_t)do_profil, scale, set,
			   code, threshold, PAPI_PROFIL_POSIX);
}

static int add_events(int set, int *codes, int n)
{
	return PAPI_add_events(set, codes, n);
}

static int long_name(const char *prefix, int add)
{
	static char name[5000];
	size_t n = strlen(prefix);

	memset(name, 'A', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	memcpy(name, prefix, n);
	return add ? PAPI_add_named_event(stopped(), name) : name_to_code(name);
}

/*
 * PAPI 7's core refuses PAPI_overflow and PAPI_profil on an attached set
 * (PAPI_EINVAL) but not the other order, which our component refuses: the
 * overflow signal would go to the caller while PAPI files the set under
 * the target, so nothing would handle it and the counts would stop after
 * the overflow budget.  Returns what PAPI_attach said (the set is left
 * attached to nothing: the target is gone).
 */
static int overflow_then_attach(int profile)
{
	static unsigned short buf[1024];
	struct target w;
	int set = stopped(), rc;

	rc = profile ? PAPI_profil(buf, sizeof(buf), (vptr_t)do_profil, 65536,
				   set, tc, 1000000, PAPI_PROFIL_POSIX) :
		       PAPI_overflow(set, tc, 1000000, 0, handler);
	if (rc != PAPI_OK) {
		setup_fail(profile ? "PAPI_profil" : "PAPI_overflow", rc);
		return rc;
	}
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

/* ------------------------------------- witness, reference, row runner */

static struct witness wit = { .set = PAPI_NULL }; /* until witness_start() */

static int ref = PAPI_NULL; /* this thread's reference set, stopped */
static struct span ref_read = { .fd = -1 }, ref_stop = { .fd = -1 };
static int tsc_set = PAPI_NULL; /* msr::tsc, running in this thread */
static long long uset_last;
static int base_fds, base_maps;
static unsigned int nrows, nrows_doc, nrows_failed;
static const char *id_label = "";

static void append(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void append(char *why, size_t len, const char *fmt, ...)
{
	size_t n = strlen(why);
	va_list ap;

	if (n + 3 >= len)
		return;
	if (n)
		n += (size_t)snprintf(why + n, len - n, "; ");
	va_start(ap, fmt);
	vsnprintf(why + n, len - n, fmt, ap);
	va_end(ap);
}

static const char *code_name(int rc)
{
	static const char *const names[] = {
		"PAPI_OK",         "PAPI_EINVAL",  "PAPI_ENOMEM",
		"PAPI_ESYS",       "PAPI_ECMP",    "PAPI_ECLOST",
		"PAPI_EBUG",       "PAPI_ENOEVNT", "PAPI_ECNFLCT",
		"PAPI_ENOTRUN",    "PAPI_EISRUN",  "PAPI_ENOEVST",
		"PAPI_ENOTPRESET", "PAPI_ENOCNTR", "PAPI_EMISC",
		"PAPI_EPERM",      "PAPI_ENOINIT", "PAPI_ENOCMP",
		"PAPI_ENOSUPP",    "PAPI_ENOIMPL", "PAPI_EBUF",
		"PAPI_EINVAL_DOM",
	};
	static char buf[32];

	if (rc <= 0 && -rc < (int)(sizeof(names) / sizeof(names[0])))
		return names[-rc];
	snprintf(buf, sizeof(buf), "%d", rc);
	return buf;
}

/* ------------------------------------------ stock PAPI's answers (CORE) */

/*
 * The reference run: this program, run again with the stock libpapi of
 * the same source first in LD_LIBRARY_PATH and LOPE_BADINPUT_STOCK=1,
 * makes only the CORE rows and prints, for each, one line on the pipe:
 * "CORE\t<line>\t<code>\t<name>", or "CORE\t<line>\t-\t<name>\t<why>"
 * when it could not set the row up (stock's perf_event disabled here, an
 * event stock does not have).  The first line is "LIB\t<libpapi path>".
 */
#define MAX_CORE 64
static struct core_answer {
	int line, code, ok;
	char name[200], why[200];
} core[MAX_CORE];
static int ncore;
static int stock_run;      /* this process is the reference run */
static char no_stock[400]; /* why no row has stock's answer, if so */
static unsigned int nrows_unsure;

static void core_parse(char *l)
{
	struct core_answer *a = &core[ncore];
	char *f[5], *save = NULL;
	int n;

	l[strcspn(l, "\n")] = 0;
	for (n = 0; n < 5; n++)
		f[n] = strtok_r(n ? NULL : l, "\t", &save);
	if (!f[3] || strcmp(f[0], "CORE") != 0 || ncore == MAX_CORE)
		return;
	a->line = atoi(f[1]);
	a->ok = strcmp(f[2], "-") != 0;
	a->code = a->ok ? atoi(f[2]) : 0;
	snprintf(a->name, sizeof(a->name), "%s", f[3]);
	snprintf(a->why, sizeof(a->why), "%s", f[4] ? f[4] : "");
	ncore++;
}

/* Runs the reference run and fills core[], or says why not in no_stock. */
static void stock_answers(void)
{
	char got[PATH_MAX], lib[PATH_MAX] = "", line[1024];
	int status = 0;
	pid_t pid;
	/* The CORE rows do not depend on libpfm4's PMU, but stock's component
	 * needs one libpfm4 knows to set them up: rerun_on_stock() unsets the
	 * unknown-CPU rerun's forced generic PMU. */
	FILE *in = rerun_on_stock("LOPE_BADINPUT_STOCK", &pid, lib, no_stock,
				  sizeof(no_stock));

	if (!in)
		return;
	got[0] = 0;
	while (fgets(line, sizeof(line), in)) {
		if (strncmp(line, "LIB\t", 4) == 0) {
			line[strcspn(line, "\n")] = 0;
			if (!realpath(line + 4, got))
				snprintf(got, sizeof(got), "%s", line + 4);
		} else {
			core_parse(line);
		}
	}
	fclose(in);
	waitpid(pid, &status, 0);
	if (strcmp(got, lib) != 0) {
		snprintf(no_stock, sizeof(no_stock),
			 "the reference run loaded '%s', not stock's %s", got,
			 lib);
		ncore = 0;
		return;
	}
	lope_info("stock PAPI (%s): %d core rows in the reference run, "
		  "exit status %d",
		  lib, ncore, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* A CORE row's expected code: stock's answer, else @dflt (PAPI 7.0's)
 * with the reason there is no answer in @why. */
static int core_want(int line, const char *name, int dflt, const char **why)
{
	int i;

	for (i = 0; i < ncore; i++) {
		if (core[i].line != line || strcmp(core[i].name, name) != 0)
			continue;
		if (core[i].ok) {
			*why = NULL;
			return core[i].code;
		}
		*why = core[i].why;
		return dflt;
	}
	*why = no_stock[0] ? no_stock : "the reference run did not get there";
	return dflt;
}

/* In the reference run: the row's answer, as core_parse() reads it. */
static void core_print(int line, const char *name, int got)
{
	if (setup_err[0])
		printf("CORE\t%d\t-\t%s\tstock PAPI: %s\n", line, name,
		       setup_err);
	else
		printf("CORE\t%d\t%d\t%s\n", line, got, name);
	fflush(stdout);
}

static void row_begin(void)
{
	nscratch = 0;
	setup_err[0] = 0;
}

/* After a row: the checks of the header comment. */
static void row(int line, const char *fmt, int want, int doc, int got)
{
	char name[200], why[900] = "", unsure[600] = "";
	const char *no_answer = NULL;
	long long v[2] = { 0, 0 };
	int i, n, rc, rc2, rc3, marks, want_core;
	long long prev_read, prev_stop;

	lope_name(name, sizeof(name), fmt, id_label);
	for (i = 0; i < nscratch; i++)
		drop_set(&scratch[i]);
	nscratch = 0;
	if (stock_run) {
		core_print(line, name, got);
		return;
	}
	nrows++;
	nrows_doc += doc == DOC;
	want_core = doc == CORE ? core_want(line, name, want, &no_answer) :
				  want;
	if (got == want_core)
		;
	else if (doc != CORE)
		append(why, sizeof(why), "got %s, want %s", papi_err(got),
		       code_name(want));
	else if (!no_answer)
		append(why, sizeof(why),
		       "got %s, want %s (stock PAPI from the same source)",
		       papi_err(got), code_name(want_core));
	else
		snprintf(
			unsure, sizeof(unsure),
			"got %s, PAPI 7.0's core returns %s; no stock answer to compare with: %s",
			papi_err(got), code_name(want), no_answer);
	if (setup_err[0])
		append(why, sizeof(why), "%s", setup_err);
	n = fd_count();
	if (n != base_fds)
		append(why, sizeof(why), "%d descriptors, baseline %d", n,
		       base_fds);
	n = perf_maps_count();
	if (n != base_maps)
		append(why, sizeof(why), "%d perf mappings, baseline %d", n,
		       base_maps);
	rc = PAPI_read(wit.set, v);
	if (rc != PAPI_OK || v[0] < wit.last)
		append(why, sizeof(why),
		       "witness set: read %s, %lld after %lld", papi_err(rc),
		       v[0], wit.last);
	else
		wit.last = v[0];
	if (PAPI_state(wit.set, &n) != PAPI_OK || !(n & PAPI_RUNNING))
		append(why, sizeof(why), "witness set no longer running");
	if (tsc_set != PAPI_NULL) {
		rc = PAPI_read(tsc_set, v);
		if (rc != PAPI_OK || v[0] <= uset_last)
			append(why, sizeof(why),
			       "running msr::tsc set: read %s, %lld after %lld",
			       papi_err(rc), v[0], uset_last);
		else
			uset_last = v[0];
	}
	/*
	 * The reference set's read and stop values lie in the spans of this
	 * thread's own task-clock around its start and its read (ref_read),
	 * its start and its stop (ref_stop): the same kernel clock of the
	 * same task, so exactly, whatever the host stole (span.h).  The
	 * engine's stop samples the counters and then disables them, and what
	 * they add in between goes to the next interval: so each span starts
	 * at its last mark before the previous row's stop, where there was one.
	 */
	prev_read = ref_read.n == 4 ? ref_read.t[3] : -1;
	prev_stop = ref_stop.n == 4 ? ref_stop.t[2] : -1;
	span_clear(&ref_read);
	span_clear(&ref_stop);
	marks = span_mark(&ref_read) + span_mark(&ref_stop);
	rc = PAPI_start(ref);
	marks += span_mark(&ref_stop) + span_mark(&ref_read);
	busy_ns(20 * 1000);
	marks += span_mark(&ref_read);
	rc2 = PAPI_read(ref, v);
	marks += span_mark(&ref_read) + span_mark(&ref_stop);
	rc3 = PAPI_stop(ref, v + 1);
	marks += span_mark(&ref_stop);
	if (!marks && prev_read >= 0 && prev_stop >= 0) {
		ref_read.t[0] = prev_read;
		ref_stop.t[0] = prev_stop;
	}
	if (rc != PAPI_OK || rc2 != PAPI_OK || rc3 != PAPI_OK || marks ||
	    !span_holds(&ref_read, v[0]) || !span_holds(&ref_stop, v[1]))
		append(why, sizeof(why),
		       "reference set: start %s read %s stop %s, %lld then %lld ns, the thread's task-clock %lld to %lld then %lld to %lld ns%s",
		       papi_err(rc), papi_err(rc2), papi_err(rc3), v[0], v[1],
		       span_lo(&ref_read), span_hi(&ref_read),
		       span_lo(&ref_stop), span_hi(&ref_stop),
		       marks ? ", a mark failed" : "");
	if (why[0]) {
		nrows_failed++;
		lope_fail(name, "line %d: %s", line, why);
	} else if (unsure[0]) {
		nrows_unsure++;
		lope_skip(name, "line %d: %s", line, unsure);
	} else {
		lope_pass(name);
	}
	/* A row that broke the baseline would fail every later row. */
	base_fds = fd_count();
	base_maps = perf_maps_count();
}

/* The reference run makes only the CORE rows. */
#define ROW(want, doc, name, call)      \
	((stock_run && (doc) != CORE) ? \
		 (void)0 :              \
		 (row_begin(), row(__LINE__, name, want, doc, (call))))

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

static void rows_invalid_sets(void)
{
	static const char *const labels[] = { "set minus 1", "set 12345",
					      "a destroyed set" };
	int events[4], idx[4], codes[2] = { 0, 0 };

	codes[0] = tc;
	codes[1] = pf;
	for (bad_kind = 0; bad_kind < 3; bad_kind++) {
		id_label = labels[bad_kind];
		ROW(PAPI_ENOEVST, DOC, "PAPI_start(%s)", PAPI_start(bad()));
		ROW(PAPI_ENOEVST, DOC, "PAPI_stop(%s)", PAPI_stop(bad(), vals));
		ROW(PAPI_ENOEVST, DOC, "PAPI_read(%s)", PAPI_read(bad(), vals));
		ROW(PAPI_ENOEVST, DOC, "PAPI_accum(%s)",
		    PAPI_accum(bad(), vals));
		ROW(PAPI_ENOEVST, DOC, "PAPI_reset(%s)", PAPI_reset(bad()));
		ROW(PAPI_ENOEVST, DOC, "PAPI_write(%s)",
		    PAPI_write(bad(), vals));
		ROW(PAPI_ENOEVST, DOC, "PAPI_add_event(%s)",
		    PAPI_add_event(bad(), tc));
		ROW(PAPI_ENOEVST, DOC, "PAPI_add_named_event(%s)",
		    PAPI_add_named_event(bad(), task_clock));
		ROW(PAPI_ENOEVST, DOC, "PAPI_add_events(%s)",
		    add_events(bad(), codes, 2));
		ROW(PAPI_ENOEVST, DOC, "PAPI_remove_event(%s)",
		    PAPI_remove_event(bad(), tc));
		ROW(PAPI_ENOEVST, DOC, "PAPI_remove_named_event(%s)",
		    PAPI_remove_named_event(bad(), task_clock));
		ROW(PAPI_ENOEVST, DOC, "PAPI_cleanup_eventset(%s)",
		    PAPI_cleanup_eventset(bad()));
		ROW(PAPI_ENOEVST, DOC, "PAPI_destroy_eventset(%s)",
		    destroy_id(bad()));
		ROW(PAPI_ENOEVST, DOC, "PAPI_state(%s)", state_of(bad()));
		ROW(PAPI_ENOEVST, DOC, "PAPI_num_events(%s)",
		    PAPI_num_events(bad()));
		ROW(PAPI_ENOEVST, DOC, "PAPI_list_events(%s)",
		    list_events(bad(), events, 4));
		ROW(PAPI_ENOEVST, DOC, "PAPI_overflow(%s)",
		    PAPI_overflow(bad(), tc, 1000000, 0, handler));
		ROW(PAPI_ENOEVST, DOC, "PAPI_get_overflow_event_index(%s)",
		    ovf_index(bad(), 1, idx, 4));
		ROW(PAPI_ENOEVST, DOC, "PAPI_profil(%s)",
		    do_profil(bad(), tc, 65536, 1000000));
		ROW(PAPI_ENOEVST, DOC, "PAPI_attach(%s)",
		    PAPI_attach(bad(), (unsigned long)getpid()));
		ROW(PAPI_ENOEVST, DOC, "PAPI_detach(%s)", PAPI_detach(bad()));
		ROW(PAPI_ENOEVST, DOC, "PAPI_set_multiplex(%s)",
		    PAPI_set_multiplex(bad()));
		/* PAPI_get_multiplex turns every error into 0, "not
		 * multiplexed" (papi.c: if (retval < 0) retval = 0). */
		ROW(0, CORE, "PAPI_get_multiplex(%s) is 0",
		    PAPI_get_multiplex(bad()));
		ROW(PAPI_ENOEVST, DOC, "PAPI_assign_eventset_component(%s)",
		    PAPI_assign_eventset_component(bad(), 0));
		ROW(PAPI_ENOEVST, DOC, "PAPI_get_eventset_component(%s)",
		    PAPI_get_eventset_component(bad()));
		ROW(PAPI_ENOEVST, DOC, "PAPI_set_opt(PAPI_DOMAIN, %s)",
		    PAPI_set_opt(PAPI_DOMAIN,
				 domain_opt(bad(), PAPI_DOM_USER)));
		ROW(PAPI_ENOEVST, DOC, "PAPI_set_opt(PAPI_GRANUL, %s)",
		    PAPI_set_opt(PAPI_GRANUL, granul_opt(bad(), PAPI_GRN_THR)));
		ROW(PAPI_ENOEVST, DOC, "PAPI_set_opt(PAPI_CPU_ATTACH, %s)",
		    PAPI_set_opt(PAPI_CPU_ATTACH, cpu_opt(bad(), 0)));
		ROW(PAPI_ENOEVST, DOC, "PAPI_set_opt(PAPI_MULTIPLEX, %s)",
		    PAPI_set_opt(PAPI_MULTIPLEX, mpx_opt(bad(), 0)));
		ROW(PAPI_ENOEVST, DOC, "PAPI_get_opt(PAPI_DOMAIN, %s)",
		    PAPI_get_opt(PAPI_DOMAIN, domain_opt(bad(), 0)));
	}
	id_label = "";
}

static void rows_codes_and_names(void)
{
	/* A native code no component gave out. */
	const int unknown = (int)(PAPI_NATIVE_MASK | 0xabcdef);

	ROW(PAPI_EINVAL, DOC, "PAPI_add_event(code 0)",
	    PAPI_add_event(stopped(), 0));
	/* An unknown native code has no component: papi_internal.c's
	 * _papi_hwi_component_index() fails first (stock the same). */
	ROW(PAPI_ENOCMP, CORE, "PAPI_add_event(unknown native code)",
	    PAPI_add_event(stopped(), unknown));
	/* PAPI 7.0 checks the preset index's range: PAPI_EINVAL, as
	 * documented.  PAPI 7.2 first asks which component's presets hold
	 * the index (_papi_hwi_component_index(), get_preset_cmp()) and
	 * answers PAPI_ENOCMP for an index none holds. */
	ROW(PAPI_EINVAL, CORE, "PAPI_add_event(preset index out of range)",
	    PAPI_add_event(stopped(), (int)(PAPI_PRESET_MASK | 0x1234)));
	/* -1 is PAPI_NULL, the code of an empty slot, so PAPI 7 finds it
	 * "already in the set" (_papi_hwi_lookup_EventCodeIndex). */
	ROW(PAPI_ECNFLCT, DOC, "PAPI_add_event(code minus 1)",
	    PAPI_add_event(stopped(), -1));
	ROW(PAPI_ECNFLCT, DOC, "PAPI_add_event(already in the set)",
	    PAPI_add_event(stopped(), tc));
	ROW(PAPI_EINVAL, DOC, "PAPI_add_named_event(NULL)",
	    PAPI_add_named_event(stopped(), NULL));
	/* A name no component claims ends in the loop of
	 * _papi_hwi_native_name_to_code(), whose last component (sysdetect,
	 * no events) answers PAPI_ECMP; stock the same. */
	ROW(PAPI_ECMP, CORE, "PAPI_add_named_event(empty name)",
	    PAPI_add_named_event(stopped(), ""));
	ROW(PAPI_ECMP, CORE, "PAPI_event_name_to_code(empty name)",
	    name_to_code(""));
	ROW(PAPI_ECMP, CORE, "PAPI_event_name_to_code(4999 x 'A')",
	    long_name("", 0));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_event_name_to_code(perf:: + 4993 x 'A')",
	    long_name("perf::", 0));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf:: + 4993 x 'A')",
	    long_name("perf::", 1));
	ROW(PAPI_ENOEVNT, DOC,
	    "PAPI_add_named_event(perf::TASK-CLOCK: + 4976 x 'A')",
	    long_name("perf::TASK-CLOCK:", 1));
	ROW(PAPI_EINVAL, DOC, "PAPI_event_name_to_code(NULL)",
	    PAPI_event_name_to_code(NULL, &tsc_code));
	ROW(PAPI_EINVAL, DOC, "PAPI_event_name_to_code(name, NULL)",
	    PAPI_event_name_to_code(task_clock, NULL));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_add_named_event(\"perf::\")",
	    PAPI_add_named_event(stopped(), "perf::"));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf::NOT-AN-EVENT)",
	    PAPI_add_named_event(stopped(), "perf::NOT-AN-EVENT"));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf::TASK-CLOCK:u=2)",
	    PAPI_add_named_event(stopped(), "perf::TASK-CLOCK:u=2"));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf::TASK-CLOCK:bogus=1)",
	    PAPI_add_named_event(stopped(), "perf::TASK-CLOCK:bogus=1"));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf::TASK-CLOCK:)",
	    PAPI_add_named_event(stopped(), "perf::TASK-CLOCK:"));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf::TASK-CLOCK::u)",
	    PAPI_add_named_event(stopped(), "perf::TASK-CLOCK::u"));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf::TASK-CLOCK:u=1:u=0)",
	    PAPI_add_named_event(stopped(), "perf::TASK-CLOCK:u=1:u=0"));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_add_named_event(colons only)",
	    PAPI_add_named_event(stopped(), ":::"));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_add_named_event(\"perf_event:::\")",
	    PAPI_add_named_event(stopped(), "perf_event:::"));
	ROW(PAPI_ENOEVNT, DOC,
	    "PAPI_add_named_event(perf_event_uncore:::perf::TASK-CLOCK)",
	    PAPI_add_named_event(stopped(),
				 "perf_event_uncore:::perf::TASK-CLOCK"));
	/* The name is valid (libpfm4's cpu= modifier); the kernel refuses
	 * the cpu when the component opens the event: EINVAL. */
	ROW(PAPI_EINVAL, DOC, "PAPI_add_named_event(perf::TASK-CLOCK:cpu=9999)",
	    PAPI_add_named_event(empty(), "perf::TASK-CLOCK:cpu=9999"));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_event_code_to_name(unknown native code)",
	    code_to_name(unknown));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_event_code_to_name(0)", code_to_name(0));
	ROW(PAPI_EINVAL, DOC, "PAPI_event_code_to_name(code, NULL)",
	    PAPI_event_code_to_name(tc, NULL));
	/* As for PAPI_add_event: no component for the code. */
	ROW(PAPI_ENOCMP, CORE, "PAPI_get_event_info(unknown native code)",
	    event_info(unknown));
	ROW(PAPI_ENOTPRESET, DOC, "PAPI_get_event_info(0)", event_info(0));
	ROW(PAPI_EINVAL, DOC, "PAPI_get_event_info(code, NULL)",
	    PAPI_get_event_info(tc, NULL));
	ROW(PAPI_ENOCMP, CORE, "PAPI_query_event(unknown native code)",
	    PAPI_query_event(unknown));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_query_event(0)", PAPI_query_event(0));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_query_named_event(perf::NOPE)",
	    PAPI_query_named_event("perf::NOPE"));
	ROW(PAPI_EINVAL, DOC, "PAPI_query_named_event(NULL)",
	    PAPI_query_named_event(NULL));
	ROW(PAPI_EINVAL, DOC, "PAPI_remove_event(not in the set)",
	    PAPI_remove_event(stopped(), pf));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_remove_named_event(perf::NOPE)",
	    PAPI_remove_named_event(stopped(), "perf::NOPE"));
	/* Not made: PAPI_remove_event() on an empty set; PAPI 7's core
	 * dereferences the unassigned component index and crashes, whatever
	 * the component. */
	ROW(PAPI_ENOCMP, CORE, "PAPI_enum_cmp_event(component 99)",
	    PAPI_enum_cmp_event(&tsc_code, PAPI_ENUM_FIRST, 99));
}

static void rows_null_pointers(void)
{
	int events[4], idx[4], codes[2] = { 0, 0 };

	codes[0] = tc;
	codes[1] = pf;
	ROW(PAPI_EINVAL, CORE, "PAPI_create_eventset(NULL)",
	    PAPI_create_eventset(NULL));
	/* The handle must be PAPI_NULL on entry. */
	ROW(PAPI_EINVAL, CORE, "PAPI_create_eventset(*set != PAPI_NULL)",
	    create_nonnull());
	ROW(PAPI_EINVAL, DOC, "PAPI_destroy_eventset(NULL)",
	    PAPI_destroy_eventset(NULL));
	ROW(PAPI_EINVAL, DOC, "PAPI_read(values NULL)",
	    PAPI_read(running(), NULL));
	ROW(PAPI_EINVAL, DOC, "PAPI_accum(values NULL)",
	    PAPI_accum(running(), NULL));
	/* PAPI documents no PAPI_EINVAL for PAPI_write, but checks. */
	ROW(PAPI_EINVAL, CORE, "PAPI_write(values NULL)",
	    PAPI_write(running(), NULL));
	ROW(PAPI_EINVAL, DOC, "PAPI_state(status NULL)",
	    PAPI_state(stopped(), NULL));
	ROW(PAPI_EINVAL, DOC, "PAPI_list_events(events NULL, *number 4)",
	    list_events(stopped(), NULL, 4));
	ROW(PAPI_EINVAL, DOC, "PAPI_list_events(*number minus 1)",
	    list_events(stopped(), events, -1));
	/* Not made: PAPI_list_events(set, events, NULL); PAPI 7 reads
	 * *number before any check (papi.c: if ( *number < 0 )) and
	 * crashes. */
	ROW(PAPI_EINVAL, DOC, "PAPI_add_events(NULL list)",
	    add_events(empty(), NULL, 2));
	ROW(PAPI_EINVAL, DOC, "PAPI_add_events(number 0)",
	    add_events(empty(), codes, 0));
	ROW(PAPI_EINVAL, DOC, "PAPI_add_events(number minus 1)",
	    add_events(empty(), codes, -1));
	ROW(PAPI_EINVAL, DOC, "PAPI_get_overflow_event_index(array NULL)",
	    ovf_index(overflowing(), 1, NULL, 4));
	ROW(PAPI_EINVAL, DOC, "PAPI_get_overflow_event_index(vector 0)",
	    ovf_index(overflowing(), 0, idx, 4));
	ROW(PAPI_EINVAL, DOC, "PAPI_get_overflow_event_index(*number 0)",
	    ovf_index(overflowing(), 1, idx, 0));
	ROW(PAPI_EINVAL, DOC, "PAPI_get_opt(PAPI_DOMAIN, NULL)",
	    PAPI_get_opt(PAPI_DOMAIN, NULL));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(PAPI_DOMAIN, NULL)",
	    PAPI_set_opt(PAPI_DOMAIN, NULL));
	ROW(PAPI_EINVAL, DOC, "PAPI_overflow(handler NULL)",
	    PAPI_overflow(stopped(), tc, 1000000, 0, NULL));
	ROW(0, DOC, "PAPI_get_component_info(minus 1) is NULL",
	    not_null(PAPI_get_component_info(-1)));
	ROW(0, DOC, "PAPI_get_component_info(99) is NULL",
	    not_null(PAPI_get_component_info(99)));
	/* Not made: PAPI_profil(NULL buffer, ...) is accepted by PAPI 7
	 * (no check) and samples would then be written through the NULL
	 * buffer; PAPI_thread_init(NULL) is accepted too and would change
	 * the thread id function of the whole process. */
}

static void rows_wrong_states(void)
{
	/* PAPI documents PAPI_ENOTRUN nowhere for PAPI_read: PAPI 7
	 * returns the zeroed stop values of a set never started. */
	ROW(PAPI_OK, CORE, "PAPI_read before PAPI_start: PAPI_OK, zeros",
	    read_before_start());
	ROW(PAPI_EISRUN, DOC, "PAPI_start twice", PAPI_start(running()));
	ROW(PAPI_ENOTRUN, DOC, "PAPI_stop of a set never started",
	    PAPI_stop(stopped(), vals));
	ROW(PAPI_ENOTRUN, DOC, "PAPI_stop twice", PAPI_stop(ran(), vals));
	ROW(PAPI_ENOTRUN, DOC, "PAPI_stop twice, values NULL",
	    PAPI_stop(ran(), NULL));
	ROW(PAPI_EISRUN, DOC, "PAPI_add_event while running",
	    PAPI_add_event(running(), pf));
	ROW(PAPI_EISRUN, DOC, "PAPI_add_named_event while running",
	    PAPI_add_named_event(running(), page_faults));
	ROW(PAPI_EISRUN, DOC, "PAPI_remove_event while running",
	    PAPI_remove_event(running(), tc));
	ROW(PAPI_EISRUN, DOC, "PAPI_cleanup_eventset while running",
	    PAPI_cleanup_eventset(running()));
	ROW(PAPI_EISRUN, DOC, "PAPI_destroy_eventset while running",
	    destroy_id(running()));
	ROW(PAPI_EINVAL, DOC, "PAPI_destroy_eventset of a non-empty set",
	    destroy_id(stopped()));
	ROW(PAPI_EISRUN, DOC, "PAPI_overflow while running",
	    PAPI_overflow(running(), tc, 1000000, 0, handler));
	ROW(PAPI_EISRUN, DOC, "PAPI_set_multiplex while running",
	    PAPI_set_multiplex(running()));
	ROW(PAPI_EISRUN, DOC, "PAPI_attach while running",
	    PAPI_attach(running(), (unsigned long)getpid()));
	ROW(PAPI_EISRUN, DOC, "PAPI_set_opt(PAPI_DOMAIN) while running",
	    PAPI_set_opt(PAPI_DOMAIN, domain_opt(running(), PAPI_DOM_USER)));
	ROW(PAPI_EISRUN, DOC, "PAPI_set_opt(PAPI_CPU_ATTACH) while running",
	    PAPI_set_opt(PAPI_CPU_ATTACH, cpu_opt(running(), 0)));
	ROW(PAPI_EISRUN, DOC, "PAPI_profil while running",
	    do_profil(running(), tc, 65536, 1000000));
	/* Already has a component: PAPI 7 refuses a new one. */
	ROW(PAPI_EINVAL, CORE,
	    "PAPI_assign_eventset_component on a set with events",
	    PAPI_assign_eventset_component(stopped(), 1));
	/* One running set per thread and component. */
	ROW(PAPI_EISRUN, DOC, "PAPI_start of a second set while one runs",
	    (running(), PAPI_start(stopped())));
	ROW(PAPI_EISRUN, DOC,
	    "PAPI_start of the witness set (another thread's, running)",
	    PAPI_start(wit.set));
	/* No component yet: PAPI 7 cannot tell which to start. */
	ROW(PAPI_ENOCMP, CORE, "PAPI_start of an empty set",
	    PAPI_start(empty()));
	ROW(PAPI_EINVAL, DOC, "PAPI_start of an empty set with a component",
	    PAPI_start(empty_cmp0()));
	ROW(PAPI_EINVAL, DOC, "PAPI_detach of a set not attached",
	    PAPI_detach(stopped()));
	ROW(PAPI_EINVAL, DOC, "PAPI_attach twice",
	    PAPI_attach(attached(), (unsigned long)getpid()));
	ROW(PAPI_EINVAL, P7, "PAPI_overflow then PAPI_attach: refused",
	    overflow_then_attach(0));
	ROW(PAPI_EINVAL, P7, "PAPI_profil then PAPI_attach: refused",
	    overflow_then_attach(1));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_multiplex twice",
	    PAPI_set_multiplex(multiplexed()));
	ROW(PAPI_EINVAL, DOC, "PAPI_overflow threshold 0 without overflow",
	    PAPI_overflow(stopped(), tc, 0, 0, NULL));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_overflow on an event not in the set",
	    PAPI_overflow(stopped(), pf, 100, 0, handler));
	ROW(PAPI_EINVAL, DOC, "PAPI_profil threshold 0 without profiling",
	    do_profil(stopped(), tc, 65536, 0));
	ROW(PAPI_EINVAL, DOC, "PAPI_profil on an attached set",
	    do_profil(attached(), tc, 65536, 1000000));
}

static void rows_limits_and_thresholds(void)
{
	/* PE_MAX_EVENTS (384) per set: the next add is a resource limit. */
	ROW(PAPI_ECNFLCT, DOC, "too many events: add until refused",
	    add_until_failure(0));
	lope_info("a set took %d events before PAPI_ECNFLCT", many_added);
	ROW(PAPI_ECNFLCT, DOC,
	    "too many events, multiplexed: add until refused",
	    add_until_failure(1));
	lope_info("a multiplexed set took %d events", many_added);
	ROW(PAPI_EINVAL, DOC, "PAPI_overflow threshold minus 1",
	    PAPI_overflow(stopped(), tc, -1, 0, handler));
	ROW(PAPI_EINVAL, DOC, "PAPI_overflow threshold INT_MIN",
	    PAPI_overflow(stopped(), tc, INT_MIN, 0, handler));
	ROW(PAPI_OK, DOC, "PAPI_overflow threshold INT_MAX: runs, then off",
	    huge_threshold());
	ROW(PAPI_EINVAL, DOC, "PAPI_profil threshold minus 5",
	    do_profil(stopped(), tc, 65536, -5));
	ROW(PAPI_EINVAL, DOC, "PAPI_profil scale 0",
	    do_profil(stopped(), tc, 0, 1000000));
	ROW(PAPI_EINVAL, DOC, "PAPI_profil scale 65537",
	    do_profil(stopped(), tc, 65537, 1000000));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_profil event not in the set",
	    do_profil(stopped(), pf, 65536, 1000000));
	/* Not made: PAPI_profil with invalid flags.  PAPI 7's
	 * PAPI_sprofil() records the region in the set before it checks the
	 * flags, then PAPI_profil() frees it on the error: the set keeps a
	 * dangling pointer, freed again by the next PAPI_profil() of that
	 * event (glibc: "double free detected"), whatever the component. */
}

static void rows_options(void)
{
	const unsigned int ncpu = (unsigned int)sysconf(_SC_NPROCESSORS_CONF);
	pid_t gone = dead_pid();

	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(9999)", PAPI_set_opt(9999, &opt));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(minus 1)", PAPI_set_opt(-1, &opt));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(0)", PAPI_set_opt(0, &opt));
	ROW(PAPI_EINVAL, DOC, "PAPI_get_opt(9999)", PAPI_get_opt(9999, &opt));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_domain(0)", PAPI_set_domain(0));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_domain(0x1000)",
	    PAPI_set_domain(0x1000));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_domain(minus 1)", PAPI_set_domain(-1));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_granularity(1234)",
	    PAPI_set_granularity(1234));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_granularity(0)",
	    PAPI_set_granularity(0));
	ROW(PAPI_ENOCMP, DOC, "PAPI_set_cmp_domain(component 99)",
	    PAPI_set_cmp_domain(PAPI_DOM_USER, 99));
	ROW(PAPI_ENOCMP, DOC, "PAPI_set_cmp_granularity(component 99)",
	    PAPI_set_cmp_granularity(PAPI_GRN_THR, 99));
	ROW(PAPI_EINVAL_DOM, DOC, "PAPI_set_opt(PAPI_DOMAIN, domain 0)",
	    PAPI_set_opt(PAPI_DOMAIN, domain_opt(stopped(), 0)));
	ROW(PAPI_EINVAL_DOM, DOC, "PAPI_set_opt(PAPI_DOMAIN, domain 0x1000)",
	    PAPI_set_opt(PAPI_DOMAIN, domain_opt(stopped(), 0x1000)));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(PAPI_GRANUL, 1234)",
	    PAPI_set_opt(PAPI_GRANUL, granul_opt(stopped(), 1234)));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(PAPI_GRANUL, PAPI_GRN_PROC)",
	    PAPI_set_opt(PAPI_GRANUL, granul_opt(stopped(), PAPI_GRN_PROC)));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(PAPI_DEF_MPX_NS, minus 1)",
	    PAPI_set_opt(PAPI_DEF_MPX_NS, mpx_opt(0, -1)));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(PAPI_MULTIPLEX, ns minus 1)",
	    PAPI_set_opt(PAPI_MULTIPLEX, mpx_opt(stopped(), -1)));
	ROW(PAPI_EINVAL, DOC, "PAPI_CPU_ATTACH cpu minus 1",
	    PAPI_set_opt(PAPI_CPU_ATTACH, cpu_opt(stopped(), (unsigned)-1)));
	ROW(PAPI_EINVAL, DOC, "PAPI_CPU_ATTACH cpu 9999",
	    PAPI_set_opt(PAPI_CPU_ATTACH, cpu_opt(stopped(), 9999)));
	ROW(PAPI_EINVAL, DOC, "PAPI_CPU_ATTACH cpu = number of cpus",
	    PAPI_set_opt(PAPI_CPU_ATTACH, cpu_opt(stopped(), ncpu)));
	ROW(PAPI_EINVAL, DOC, "PAPI_CPU_ATTACH cpu minus 1, empty set",
	    cpu_attach_empty_then_add((unsigned)-1));
	ROW(PAPI_EINVAL, DOC,
	    "PAPI_CPU_ATTACH cpu 9999, empty set (then the first add)",
	    cpu_attach_empty_then_add(9999));
	ROW(PAPI_EINVAL, DOC, "PAPI_CPU_ATTACH on an attached set",
	    PAPI_set_opt(PAPI_CPU_ATTACH, cpu_opt(attached(), 0)));
	/* pid 0 is the caller for perf_event_open(2); PAPI passes it on. */
	ROW(PAPI_OK, P7, "PAPI_attach(tid 0) counts the caller",
	    attach_zero_counts_self());
	/* pid -1 with cpu -1 is refused by the kernel (EINVAL). */
	ROW(PAPI_EINVAL, DOC, "PAPI_attach(tid minus 1)",
	    PAPI_attach(stopped(), (unsigned long)-1));
	/* The kernel answers ESRCH, for which PAPI has no code of its own:
	 * PAPI_ESYS, "a system call failed" (stock the same). */
	ROW(PAPI_ESYS, P7, "PAPI_attach(tid minus 5)",
	    PAPI_attach(stopped(), (unsigned long)-5));
	ROW(PAPI_ESYS, P7, "PAPI_attach(a pid that exited)",
	    PAPI_attach(stopped(), (unsigned long)gone));
	ROW(PAPI_ESYS, P7, "PAPI_attach(pid 2^31-1)",
	    PAPI_attach(stopped(), 0x7fffffffUL));
	ROW(PAPI_ESYS, P7, "PAPI_attach(a pid that exited), empty set",
	    attach_empty_then_add((unsigned long)gone));
	/* Attach is refused on a cpu-attached set by PAPI's core. */
	ROW(PAPI_ECMP, DOC, "PAPI_attach of a cpu-attached set",
	    PAPI_attach(cpu_attached(), (unsigned long)getpid()));
	ROW(PAPI_EINVAL, DOC, "PAPI_library_init(wrong version)",
	    PAPI_library_init(0x12345));
}

static void rows_uncore(void)
{
	if (PAPI_event_name_to_code("msr::tsc", &tsc_code) != PAPI_OK) {
		lope_skip("uncore_rows", "no msr::tsc on this machine");
		return;
	}
	/* PAPI's core refuses an event of another component. */
	ROW(PAPI_EINVAL, CORE,
	    "mixing components: perf::TASK-CLOCK into an msr::tsc set",
	    uncore_add_task_clock());
	ROW(PAPI_EINVAL, CORE,
	    "mixing components: msr::tsc into a perf_event set",
	    PAPI_add_event(stopped(), tsc_code));
	ROW(PAPI_ECMP, DOC, "PAPI_attach of an uncore set",
	    PAPI_attach(uncore(), (unsigned long)getpid()));
	/*
	 * The uncore component has no overflow interrupt.  PAPI's framework
	 * refuses overflow on a component without counters (a resource
	 * conflict) and emulates it in software on one with counters, which
	 * it has where libpfm4 knows an uncore PMU here.
	 */
	ROW(uncore_counters() ? PAPI_OK : PAPI_ECNFLCT, DOC,
	    "PAPI_overflow on msr::tsc",
	    PAPI_overflow(uncore(), tsc_code, 1000000, 0, handler));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(PAPI_DOMAIN) kernel-only, uncore",
	    PAPI_set_opt(PAPI_DOMAIN, domain_opt(uncore(), PAPI_DOM_KERNEL)));
	ROW(PAPI_EINVAL, DOC, "PAPI_CPU_ATTACH cpu 9999, uncore",
	    PAPI_set_opt(PAPI_CPU_ATTACH, cpu_opt(uncore(), 9999)));
	if (tsc_set != PAPI_NULL)
		ROW(PAPI_EISRUN, DOC, "PAPI_start of the running msr::tsc set",
		    PAPI_start(tsc_set));
}

static void group(const char *what, void (*rows)(void))
{
	unsigned int n = nrows, doc = nrows_doc;

	rows();
	lope_info("%s: %u rows, %u with a documented code", what, nrows - n,
		  nrows_doc - doc);
}

static void all_rows(void)
{
	group("invalid event sets", rows_invalid_sets);
	group("invalid codes and names", rows_codes_and_names);
	group("NULL pointers", rows_null_pointers);
	group("wrong states", rows_wrong_states);
	group("limits and thresholds", rows_limits_and_thresholds);
	group("invalid options", rows_options);
	group("uncore", rows_uncore);
}

/* The reference run on stock PAPI (stock_answers()): CORE rows only. */
static int stock_main(void)
{
	int rc;

	stock_run = 1;
	alarm(120); /* never outlive the run that waits for it */
	rc = PAPI_library_init(PAPI_VER_CURRENT);
	printf("LIB\t%s\n", libpapi_path());
	if (rc != PAPI_VER_CURRENT)
		return 1;
	/* A missing event leaves its code 0: those rows report a setup
	 * error, i.e. no answer. */
	(void)PAPI_thread_init(pthread_self);
	(void)PAPI_event_name_to_code(task_clock, &tc);
	(void)PAPI_event_name_to_code(page_faults, &pf);
	all_rows();
	return 0;
}

int main(void)
{
	int fds0, maps0, rc;

	if (getenv("LOPE_BADINPUT_STOCK"))
		return stock_main();
	stock_answers();
	if (no_stock[0])
		lope_info("no stock PAPI answers: %s", no_stock);
	papi_init_or_exit();
	fds0 = fd_count();
	maps0 = perf_maps_count();
	rc = PAPI_thread_init(pthread_self);
	if (rc == PAPI_OK)
		rc = PAPI_event_name_to_code(task_clock, &tc);
	if (rc == PAPI_OK)
		rc = PAPI_event_name_to_code(page_faults, &pf);
	if (!lope_check(rc == PAPI_OK, "setup_thread_init_and_codes", "%s",
			papi_err(rc)))
		return lope_done();
	rc = make_named_set(&ref, &task_clock, 1);
	if (!lope_check(rc == PAPI_OK, "setup_reference_set", "%s",
			papi_err(rc)))
		return lope_done();
	if (!lope_check(!span_open(&ref_read, PERF_COUNT_SW_TASK_CLOCK, 0, 0) &&
				!span_open(&ref_stop, PERF_COUNT_SW_TASK_CLOCK,
					   0, 0),
			"setup_reference_spans", "perf_event_open: %s",
			strerror(errno)))
		return lope_done();
	if (witness_start(&wit))
		return lope_done();
	if (make_named_set(&tsc_set, (const char *const[]){ "msr::tsc" }, 1) !=
		    PAPI_OK ||
	    PAPI_start(tsc_set) != PAPI_OK) {
		lope_info("no running msr::tsc set in this thread: %s",
			  "msr::tsc missing or not startable");
		drop_set(&tsc_set);
	}
	base_fds = fd_count();
	base_maps = perf_maps_count();
	lope_info(
		"baseline: %d descriptors (%d after library_init), %d perf mappings",
		base_fds, fds0, base_maps);

	all_rows();

	lope_info("%u rows, %u with the code PAPI documents, %u failed, "
		  "%u not compared (no stock answer)",
		  nrows, nrows_doc, nrows_failed, nrows_unsure);
	witness_finish(&wit, "witness_set_counted_whole_run");
	drop_set(&tsc_set);
	drop_set(&ref);
	span_close(&ref_read);
	span_close(&ref_stop);
	lope_check(
		fd_count() == fds0 && perf_maps_count() == maps0,
		"no_fd_or_perf_mapping_left",
		"%d descriptors (%d after library_init), %d perf mappings (%d)",
		fd_count(), fds0, perf_maps_count(), maps0);
	return lope_done();
}
