/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mpi_ranks: our libpapi in every rank of an MPI job (doc/cluster.md,
 * "MPI jobs with our library").  Built with mpicc and run by
 * ctests/mpi/test_mpi.sh (mpirun) and ctests/cluster/test_slurm.sh
 * (srun --mpi=pmix):
 *
 *	test_mpi_ranks OUTDIR LIBPAPI
 *
 * Each rank writes its report (ctests/lib/report.h) to OUTDIR/rank-R.out,
 * its case names starting "rankR_", so that no two ranks' lines mix on a
 * launcher's standard output; the script prints the files in rank order
 * (ctests/mpi/mpi_ranks.sh).  Each file ends with the case
 * rankR_mpi_finalize: a file without it is a rank that did not finish.
 *
 * Each rank:
 *  - runs our libpapi, the file LIBPAPI (the libpapi.so* of
 *    /proc/self/maps, both paths resolved), whose component 0 is ours
 *    ("lope" in its description): a rank on stock PAPI fails, whatever else passes;
 *  - counts its own loop (work that grows with the rank) with
 *    perf::TASK-CLOCK, perf::PAGE-FAULTS and perf::CONTEXT-SWITCHES in one
 *    set, each count within that rank's own span: task-clock within the
 *    kernel's task-clock of the same thread read around the start and the
 *    stop (span.h); page faults at least the pages it touched, at most
 *    the kernel's page faults of that thread around the start and the
 *    stop (a counter opened with perf_event_open(2), all domains); context
 *    switches at least its sleeps, at most getrusage(RUSAGE_THREAD)'s
 *    switches around the start and the stop;
 *  - counts PAPI_TOT_INS over a loop of known length where the CPU has it
 *    (else SKIP, saying why);
 *  - runs two pthreads after PAPI_thread_init, each with its own set of
 *    task-clock and page faults over its own work, each count within that
 *    thread's own span, taken by the thread itself.
 * Then every rank's values and the bounds they were held to go to rank 0
 * twice: summed by MPI_Reduce, and row by row by MPI_Gather.  Rank 0
 * checks that the reduced sums equal the sums of the gathered rows
 * exactly, and that every gathered value lies within its own rank's
 * bounds.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <mpi.h>
#include <pthread.h>

#include "papi_util.h"
#include "sw_counter.h"

#define NTHREADS 2

/* The values every rank sends to rank 0: the process set's three, then
 * each thread's two. */
enum {
	V_TASK_CLOCK,
	V_PAGE_FAULTS,
	V_SWITCHES,
	V_THREAD0,
	NV = V_THREAD0 + 2 * NTHREADS,
};
static const char *const v_names[NV] = {
	"task_clock",          "page_faults",         "context_switches",
	"thread0_task_clock",  "thread0_page_faults", "thread1_task_clock",
	"thread1_page_faults",
};

/* One count and the least and the most it may be (its own span). */
struct bounded {
	long long v, lo, hi;
};

static int rank, nranks;
static struct bounded row[NV];

/* "rankR_WHAT", the name of this rank's case WHAT. */
static const char *cn(const char *what)
{
	static char buf[4][128];
	static int i;

	i = (i + 1) % 4;
	return lope_name(buf[i], sizeof(buf[i]), "rank%d_%s", rank, what);
}

static void check_bounded(const char *what, int rc, const struct bounded *b,
			  const char *lo_is, const char *hi_is)
{
	lope_check(rc == PAPI_OK && b->v >= b->lo && b->v <= b->hi, cn(what),
		   "rc %s: %lld not within %lld (%s) .. %lld (%s)",
		   papi_err(rc), b->v, b->lo, lo_is, b->hi, hi_is);
}

static long long switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* A new set of the named events counting in all domains. */
static int make_set_all_domains(int *set, const char *const *names, int n)
{
	int rc = make_empty_set(set), i;

	if (rc == PAPI_OK)
		rc = set_domain(*set, PAPI_DOM_ALL);
	for (i = 0; rc == PAPI_OK && i < n; i++)
		rc = PAPI_add_named_event(*set, names[i]);
	return rc;
}

/* The library this process runs is LIBPAPI, and it is ours. */
static int check_ours(const char *want)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);
	char got[PATH_MAX], wantr[PATH_MAX] = "?";
	int same;

	(void)libpapi_file(got);
	(void)!realpath(want, wantr);
	same = strcmp(got, wantr) == 0;
	lope_info("rank %d of %d: libpapi %s; component 0: %s", rank, nranks,
		  got, ci ? ci->description : "(none)");
	return lope_check(same && ci && strstr(ci->description, "lope"),
			  cn("libpapi_is_ours"),
			  "runs %s, want %s; component 0 says '%s'", got, wantr,
			  ci ? ci->description : "(none)");
}

/*
 * The process case: one set of three software events over this rank's
 * loop, each count held to the rank's own span.
 */
static void count_own_loop(void)
{
	static const char *const names[] = {
		"perf::TASK-CLOCK",
		"perf::PAGE-FAULTS",
		"perf::CONTEXT-SWITCHES",
	};
	long long v[3] = { 0 }, pf0, pf1, sw0, sw1, cpu0, cpu1;
	long pages = 300L * (rank + 1), i;
	int sleeps = 3 + rank, set = PAPI_NULL, rc, pfd, least;
	struct span s;

	/* A context switch happens in the kernel: PAPI's default domain,
	 * user mode, counts none.  Where the kernel's part may be counted
	 * (root, or perf_event_paranoid below 2), count all domains. */
	rc = make_set_all_domains(&set, names, 3);
	least = sleeps;
	if (rc != PAPI_OK) {
		lope_info("rank %d: a set of all domains: %s; counting user "
			  "mode only, where no context switch is seen",
			  rank, papi_err(rc));
		drop_set(&set);
		rc = make_named_set(&set, names, 3);
		least = 0;
	}
	pfd = sw_counter_open(PERF_COUNT_SW_PAGE_FAULTS, 0);
	if (span_open(&s, PERF_COUNT_SW_TASK_CLOCK, 0, 0) != 0 || pfd < 0) {
		lope_fail(cn("own_counters"), "perf_event_open: %s",
			  strerror(errno));
		drop_set(&set);
		return;
	}
	warm_stack();
	sw0 = switches();
	pf0 = sw_counter_read(pfd);
	cpu0 = thread_ns();
	span_mark(&s);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	span_mark(&s);
	busy_ns(20 * MS * (rank + 1));
	if (touch_pages((size_t)pages) != 0)
		lope_info("rank %d: mmap of %ld pages failed", rank, pages);
	for (i = 0; i < sleeps; i++)
		sleep_ns(MS);
	span_mark(&s);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	span_mark(&s);
	cpu1 = thread_ns();
	pf1 = sw_counter_read(pfd);
	sw1 = switches();

	row[V_TASK_CLOCK] = (struct bounded){ v[0], span_lo(&s), span_hi(&s) };
	row[V_PAGE_FAULTS] = (struct bounded){ v[1], pages, pf1 - pf0 };
	row[V_SWITCHES] = (struct bounded){ v[2], least, sw1 - sw0 };
	lope_check(rc == PAPI_OK, cn("count_own_loop"), "%s", papi_err(rc));
	check_bounded("task_clock_within_own_span", rc, &row[V_TASK_CLOCK],
		      "the thread's task-clock inside start..stop",
		      "outside them");
	check_bounded("page_faults_within_own_span", rc, &row[V_PAGE_FAULTS],
		      "pages touched",
		      "the thread's faults around start..stop");
	check_bounded("context_switches_within_own_span", rc, &row[V_SWITCHES],
		      least ? "its 1 ms sleeps" : "user mode sees none",
		      "RUSAGE_THREAD switches around start..stop");
	lope_info("rank %d: task-clock %lld ns (its CPU time %lld ns), "
		  "%lld page faults (touched %ld), %lld context switches",
		  rank, v[0], cpu1 - cpu0, v[1], pages, v[2]);
	span_close(&s);
	close(pfd);
	drop_set(&set);
}

/* PAPI_TOT_INS over loops of N and 2N iterations, where the CPU has it. */
static void count_instructions(void)
{
	const long n = 1000000;
	long long c1 = 0, c2 = 0;
	int set = PAPI_NULL, rc = PAPI_query_event(PAPI_TOT_INS);

	if (rc != PAPI_OK) {
		lope_skip(cn("tot_ins_own_loop"),
			  "PAPI_TOT_INS is not available here: %s (no "
			  "hardware PMU)",
			  papi_err(rc));
		return;
	}
	rc = PAPI_create_eventset(&set);
	if (rc == PAPI_OK)
		rc = PAPI_add_event(set, PAPI_TOT_INS);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	if (rc == PAPI_OK) {
		(void)profiled_loop(n);
		rc = PAPI_stop(set, &c1);
	}
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	if (rc == PAPI_OK) {
		(void)profiled_loop(2 * n);
		rc = PAPI_stop(set, &c2);
	}
	/* Every iteration is at least one instruction (its branch): the
	 * second loop has n iterations more than the first. */
	lope_check(rc == PAPI_OK && c1 >= n && c2 - c1 >= n,
		   cn("tot_ins_own_loop"),
		   "rc %s: %lld instructions for %ld iterations, %lld for "
		   "%ld",
		   papi_err(rc), c1, n, c2, 2 * n);
	drop_set(&set);
}

struct thread_result {
	int idx;
	int rc;
	const char *call;
	struct bounded tc, pf;
};

static unsigned long self_id(void)
{
	return (unsigned long)pthread_self();
}

/* A thread's own set over its own work, held to its own span. */
static void *thread_main(void *arg)
{
	static const char *const names[] = {
		"perf::TASK-CLOCK",
		"perf::PAGE-FAULTS",
	};
	struct thread_result *r = arg;
	long long v[2] = { 0 }, pf0, pf1;
	long pages = 200L * (r->idx + 1) + 100L * rank;
	int set = PAPI_NULL, pfd;
	struct span s;

	r->call = "PAPI_register_thread";
	r->rc = PAPI_register_thread();
	pfd = sw_counter_open(PERF_COUNT_SW_PAGE_FAULTS, 0);
	if (span_open(&s, PERF_COUNT_SW_TASK_CLOCK, 0, 0) != 0 || pfd < 0) {
		r->call = "perf_event_open";
		r->rc = PAPI_ESYS;
		return NULL;
	}
	if (r->rc == PAPI_OK) {
		r->call = "PAPI_create_eventset/PAPI_add_named_event";
		r->rc = make_named_set(&set, names, 2);
	}
	warm_stack();
	pf0 = sw_counter_read(pfd);
	span_mark(&s);
	if (r->rc == PAPI_OK) {
		r->call = "PAPI_start";
		r->rc = PAPI_start(set);
	}
	span_mark(&s);
	busy_ns(10 * MS * (r->idx + 1 + rank));
	(void)touch_pages((size_t)pages);
	span_mark(&s);
	if (r->rc == PAPI_OK) {
		r->call = "PAPI_stop";
		r->rc = PAPI_stop(set, v);
	}
	span_mark(&s);
	pf1 = sw_counter_read(pfd);
	r->tc = (struct bounded){ v[0], span_lo(&s), span_hi(&s) };
	r->pf = (struct bounded){ v[1], pages, pf1 - pf0 };
	span_close(&s);
	close(pfd);
	drop_set(&set);
	if (r->rc == PAPI_OK)
		r->call = "PAPI_unregister_thread";
	if (r->rc == PAPI_OK)
		r->rc = PAPI_unregister_thread();
	return NULL;
}

static void count_threads(void)
{
	struct thread_result res[NTHREADS];
	pthread_t th[NTHREADS];
	char what[64];
	int i, rc = PAPI_thread_init(self_id), made = 0;

	if (!lope_check(rc == PAPI_OK, cn("thread_init"), "%s", papi_err(rc)))
		return;
	memset(res, 0, sizeof(res));
	for (i = 0; i < NTHREADS; i++) {
		res[i].idx = i;
		if (pthread_create(&th[i], NULL, thread_main, &res[i]) != 0)
			break;
		made++;
	}
	for (i = 0; i < made; i++)
		pthread_join(th[i], NULL);
	if (!lope_check(made == NTHREADS, cn("pthread_create"),
			"%d of %d threads started", made, NTHREADS))
		return;
	for (i = 0; i < NTHREADS; i++) {
		struct thread_result *r = &res[i];

		snprintf(what, sizeof(what), "thread%d_papi_calls", i);
		lope_check(r->rc == PAPI_OK, cn(what), "%s: %s", r->call,
			   papi_err(r->rc));
		snprintf(what, sizeof(what),
			 "thread%d_task_clock_within_own_span", i);
		check_bounded(what, r->rc, &r->tc,
			      "the thread's task-clock inside start..stop",
			      "outside them");
		snprintf(what, sizeof(what),
			 "thread%d_page_faults_within_own_span", i);
		check_bounded(what, r->rc, &r->pf, "pages it touched",
			      "its faults around start..stop");
		row[V_THREAD0 + 2 * i] = r->tc;
		row[V_THREAD0 + 2 * i + 1] = r->pf;
	}
}

/*
 * Rank 0: the sums MPI_Reduce gave equal the sums of the rows MPI_Gather
 * gave, exactly; each gathered value lies within its rank's own bounds.
 */
static void check_gathered(const long long *sum, const struct bounded *all)
{
	char bad[1024] = "";
	size_t used = 0;
	long long add;
	int r, k, out = 0;

	for (k = 0; k < NV; k++) {
		add = 0;
		for (r = 0; r < nranks; r++)
			add += all[r * NV + k].v;
		if (add != sum[k] && used < sizeof(bad))
			used += (size_t)snprintf(
				bad + used, sizeof(bad) - used,
				"%s: reduced %lld, rows add to %lld; ",
				v_names[k], sum[k], add);
		lope_info("%s: sum %lld over %d ranks", v_names[k], sum[k],
			  nranks);
	}
	lope_check(used == 0, "reduce_sums_equal_gathered_rows", "%s", bad);
	for (r = 0; r < nranks; r++)
		for (k = 0; k < NV; k++) {
			const struct bounded *b = &all[r * NV + k];

			if (b->v >= b->lo && b->v <= b->hi)
				continue;
			out++;
			lope_info("rank %d %s: %lld not within %lld..%lld", r,
				  v_names[k], b->v, b->lo, b->hi);
		}
	lope_check(out == 0, "gathered_rows_within_own_span",
		   "%d values of %d outside their rank's bounds", out,
		   nranks * NV);
}

static void reduce_and_gather(void)
{
	long long mine[NV], sum[NV];
	struct bounded *all = NULL;
	int k, rc1, rc2;

	for (k = 0; k < NV; k++)
		mine[k] = row[k].v;
	if (rank == 0)
		all = calloc((size_t)nranks * NV, sizeof(*all));
	rc1 = MPI_Reduce(mine, sum, NV, MPI_LONG_LONG, MPI_SUM, 0,
			 MPI_COMM_WORLD);
	rc2 = MPI_Gather(row, (int)sizeof(row), MPI_BYTE, all, (int)sizeof(row),
			 MPI_BYTE, 0, MPI_COMM_WORLD);
	if (rank == 0 &&
	    lope_check(rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS && all,
		       "mpi_reduce_gather", "MPI_Reduce %d, MPI_Gather %d", rc1,
		       rc2))
		check_gathered(sum, all);
	free(all);
}

int main(int argc, char **argv)
{
	char path[PATH_MAX], host[256] = "?";
	int provided, rc;

	if (argc != 3) {
		fprintf(stderr, "usage: %s OUTDIR LIBPAPI\n", argv[0]);
		return 2;
	}
	if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) !=
	    MPI_SUCCESS) {
		fprintf(stderr, "MPI_Init_thread failed\n");
		return 1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	snprintf(path, sizeof(path), "%s/rank-%d.out", argv[1], rank);
	if (!freopen(path, "w", stdout)) {
		fprintf(stderr, "rank %d: %s: %s\n", rank, path,
			strerror(errno));
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	(void)gethostname(host, sizeof(host));
	lope_info("rank %d of %d on %s, pid %d", rank, nranks, host,
		  (int)getpid());

	rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (lope_check(rc == PAPI_VER_CURRENT, cn("library_init"), "%s",
		       papi_err(rc)) &&
	    check_ours(argv[2])) {
		count_own_loop();
		count_instructions();
		count_threads();
	}
	/* Every rank takes part, whatever failed: rank 0 waits for all. */
	reduce_and_gather();
	PAPI_shutdown();
	rc = MPI_Finalize();
	/* The last case: its line says the rank's report is whole. */
	lope_check(rc == MPI_SUCCESS, cn("mpi_finalize"), "%d", rc);
	return lope_done();
}
