/* SPDX-License-Identifier: BSD-3-Clause */
/* The bad-input sweep's row runner and scratch sets (badinput.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "badinput.h"

#include <linux/perf_event.h>
#include <pthread.h>

#include <stdarg.h>

#include "span.h"
#include "witness.h"

const char *const task_clock = "perf::TASK-CLOCK";
const char *const page_faults = "perf::PAGE-FAULTS";
int tc, pf;
long long vals[512];
int witness_set = PAPI_NULL;
int tsc_set = PAPI_NULL;
const char *id_label = "";

/* ------------------------------------------------------ scratch sets */

#define MAX_SCRATCH 8
static int scratch[MAX_SCRATCH], nscratch;
static char setup_err[200];

void setup_fail(const char *what, int rc)
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

int empty(void)
{
	int set = PAPI_NULL, rc = PAPI_create_eventset(&set);

	if (rc != PAPI_OK)
		setup_fail("PAPI_create_eventset", rc);
	return keep(set);
}

int empty_cmp0(void)
{
	int set = empty(), rc = PAPI_assign_eventset_component(set, 0);

	if (rc != PAPI_OK)
		setup_fail("PAPI_assign_eventset_component", rc);
	return set;
}

int with(int set, const char *name)
{
	int rc = PAPI_add_named_event(set, name);

	if (rc != PAPI_OK)
		setup_fail(name, rc);
	return set;
}

/* A stopped set holding perf::TASK-CLOCK. */
int stopped(void)
{
	return with(empty(), task_clock);
}

int start(int set)
{
	int rc = PAPI_start(set);

	if (rc != PAPI_OK)
		setup_fail("PAPI_start", rc);
	return set;
}

int stop(int set)
{
	int rc = PAPI_stop(set, vals);

	if (rc != PAPI_OK)
		setup_fail("PAPI_stop", rc);
	return set;
}

int running(void)
{
	return start(stopped());
}

/* Started and stopped again. */
int ran(void)
{
	return stop(running());
}

/* The id of a set that existed and was destroyed just now. */
int destroyed(void)
{
	int set = PAPI_NULL, id, rc = PAPI_create_eventset(&set);

	id = set;
	if (rc == PAPI_OK)
		rc = PAPI_destroy_eventset(&set);
	if (rc != PAPI_OK)
		setup_fail("create + destroy", rc);
	return id;
}

void handler(int set, void *address, long long vector, void *ctx)
{
	(void)set;
	(void)address;
	(void)vector;
	(void)ctx;
}

int overflowing(void)
{
	int set = stopped(), rc;

	rc = PAPI_overflow(set, tc, 1000000, 0, handler);
	if (rc != PAPI_OK)
		setup_fail("PAPI_overflow", rc);
	return set;
}

int attached(void)
{
	int set = stopped(), rc = PAPI_attach(set, (unsigned long)getpid());

	if (rc != PAPI_OK)
		setup_fail("PAPI_attach", rc);
	return set;
}

int multiplexed(void)
{
	int set = empty_cmp0(), rc = PAPI_set_multiplex(set);

	if (rc != PAPI_OK)
		setup_fail("PAPI_set_multiplex", rc);
	return with(set, task_clock);
}

int set_multiplex_ns(int option, int set, int ns)
{
	PAPI_option_t opt;

	memset(&opt, 0, sizeof(opt));
	opt.multiplex.eventset = set;
	opt.multiplex.ns = ns;
	return PAPI_set_opt(option, &opt);
}

int list_events(int set, int *events, int n)
{
	return PAPI_list_events(set, events, &n);
}

int ovf_index(int set, long long vector, int *idx, int n)
{
	return PAPI_get_overflow_event_index(set, vector, idx, &n);
}

int destroy_id(int id)
{
	return PAPI_destroy_eventset(&id);
}

int state_of(int set)
{
	int st;

	return PAPI_state(set, &st);
}

int do_profil(int set, int code, unsigned scale, int threshold)
{
	static unsigned short buf[1024];

	return PAPI_profil(buf, sizeof(buf), (vptr_t)do_profil, scale, set,
			   code, threshold, PAPI_PROFIL_POSIX);
}

int add_events(int set, int *codes, int n)
{
	return PAPI_add_events(set, codes, n);
}

/* ------------------------------------------------ the tables' calls */

/* clang-format off */
int stop_vals(int set) { return PAPI_stop(set, vals); }
int read_vals(int set) { return PAPI_read(set, vals); }
int accum_vals(int set) { return PAPI_accum(set, vals); }
int write_vals(int set) { return PAPI_write(set, vals); }
int stop_null(int set) { return PAPI_stop(set, NULL); }
int add_tc(int set) { return PAPI_add_event(set, tc); }
int add_pf(int set) { return PAPI_add_event(set, pf); }
int add_named_tc(int set) { return PAPI_add_named_event(set, task_clock); }
int add_named_pf(int set) { return PAPI_add_named_event(set, page_faults); }
int add_both(int set) { return PAPI_add_events(set, (int[]){ tc, pf }, 2); }
int remove_tc(int set) { return PAPI_remove_event(set, tc); }
int remove_named_tc(int set) { return PAPI_remove_named_event(set, task_clock); }
int list_four(int set) { return list_events(set, (int[4]){ 0 }, 4); }
int overflow_tc(int set) { return PAPI_overflow(set, tc, 1000000, 0, handler); }
int overflow_off(int set) { return PAPI_overflow(set, tc, 0, 0, NULL); }
int overflow_pf(int set) { return PAPI_overflow(set, pf, 100, 0, handler); }
int ovf_index_one(int set) { return ovf_index(set, 1, (int[4]){ 0 }, 4); }
int profil_tc(int set) { return do_profil(set, tc, 65536, 1000000); }
int profil_off(int set) { return do_profil(set, tc, 65536, 0); }
int attach_self(int set) { return PAPI_attach(set, (unsigned long)getpid()); }
int assign_cmp0(int set) { return PAPI_assign_eventset_component(set, 0); }
int assign_cmp1(int set) { return PAPI_assign_eventset_component(set, 1); }
int domain_user(int set) { return set_domain(set, PAPI_DOM_USER); }
int granul_thr(int set) { return set_granularity(set, PAPI_GRN_THR); }
int cpu_attach0(int set) { return set_cpu_attach(set, 0); }
int multiplex_ns0(int set) { return set_multiplex_ns(PAPI_MULTIPLEX, set, 0); }
/* clang-format on */

/* ------------------------------------- witness, reference, row runner */

static struct witness wit = { .set = PAPI_NULL }; /* until witness_start() */

static int ref = PAPI_NULL; /* this thread's reference set, stopped */
static struct span ref_read = { .fd = -1 }, ref_stop = { .fd = -1 };
static long long uset_last;
static int base_fds, base_maps;
static unsigned int nrows, nrows_doc, nrows_failed;

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
 * The reference run: the program, run again with the stock libpapi of
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
int sweep_stock_run;
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

void sweep_row_begin(void)
{
	nscratch = 0;
	setup_err[0] = 0;
}

/* After a row: the checks of the header comment. */
void sweep_row(int line, const char *fmt, int want, int doc, int got)
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
	if (sweep_stock_run) {
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

void sweep_calls(const struct sweep_call *rows, int n)
{
	int i;

	for (i = 0; i < n; i++)
		ROW(rows[i].want, rows[i].doc, rows[i].name,
		    rows[i].call(rows[i].set()));
}

static void all_rows(const struct sweep_group *groups, int n)
{
	unsigned int rows, doc;
	int i;

	for (i = 0; i < n; i++) {
		rows = nrows;
		doc = nrows_doc;
		groups[i].rows();
		lope_info("%s: %u rows, %u with a documented code",
			  groups[i].what, nrows - rows, nrows_doc - doc);
	}
}

/* The reference run on stock PAPI (stock_answers()): CORE rows only. */
static int stock_main(const struct sweep_group *groups, int n)
{
	int rc;

	sweep_stock_run = 1;
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
	all_rows(groups, n);
	return 0;
}

int sweep_main(const struct sweep_group *groups, int n)
{
	int fds0, maps0, rc;

	if (getenv("LOPE_BADINPUT_STOCK"))
		return stock_main(groups, n);
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
	witness_set = wit.set;
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

	all_rows(groups, n);

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
