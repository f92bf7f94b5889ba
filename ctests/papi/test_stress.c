/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_stress: bounded stress of our PAPI on software events: nothing
 * fails, nothing goes backwards, nothing grows.
 *
 * Every phase runs once short (warm-up: glibc's arenas and thread-stack
 * cache, PAPI's thread records), then the baseline is taken: descriptors
 * (/proc/self/fd), perf_event lines of /proc/self/maps, VmRSS and VmSize
 * (/proc/self/status).  Then, all the while a set of this thread runs
 * (perf::TASK-CLOCK + perf::PAGE-FAULTS) and must keep counting this
 * thread's own work:
 *  - threads: 8 threads for 3 s each loop start / read / accum / reset /
 *    read / stop on their own set of three events, rebuilding the set
 *    every 64 loops; every call PAPI_OK, no value negative, reads within a
 *    run never go down, a read after a reset has dropped the 16 page
 *    faults made just before it,
 *    stop >= the last read, and the task-clock accum and stop returned
 *    lies within the span of the thread's own task-clock around the calls
 *    that started and ended each interval (ctests/lib/span.h);
 *  - thread churn: 96 short-lived threads (4 at a time) register, count,
 *    destroy their set and unregister;
 *  - forks: 100 forks; odd children _exit at once, even ones call
 *    PAPI_library_init again and count their own 1 ms (within their span);
 *  - execs: a forked child execs this program in a helper mode 50 times
 *    in a chain, each image with a running set when it execs the next;
 *    each image checks that it inherited no perf descriptor or mapping,
 *    that its descriptor count and VmRSS are those of the first image
 *    (+ 1 MiB), and that its set counts (within its span).
 * The parent's set must count, from each of its reads to the next, the
 * span of the parent thread's own task-clock between them.
 * At the end descriptors and perf mappings are exactly the baseline,
 * the heap in use (mallinfo2, every arena) within 64 KiB of it (each
 * phase's growth is printed), VmRSS within 2 MiB and VmSize within 16 MiB
 * of it, and no child is left.  The whole test takes about 6 s here (bounded by time and count,
 * not by the machine's speed, except the 3 s of the threads).
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <malloc.h>
#include <pthread.h>

#include "papi_util.h"
#include "span.h"

#define NTHREADS 8
#define NFORKS 100
#define NEXECS 50
#define CHURN 96

static const char *const names[] = {
	"perf::TASK-CLOCK",
	"perf::PAGE-FAULTS",
	"perf::CPU-CLOCK",
};

/* ------------------------------------------------------- resources */

struct usage {
	int fds, maps;
	long rss_kb, size_kb;
	long long heap; /* bytes malloc'ed and not freed, all arenas */
};

static long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	size_t n = strlen(key);
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			kb = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

static void usage_now(struct usage *u)
{
	u->fds = fd_count();
	u->maps = perf_maps_count();
	u->rss_kb = status_kb("VmRSS");
	u->size_kb = status_kb("VmSize");
	u->heap = (long long)mallinfo2().uordblks;
}

/* Heap bytes in use now minus @u's. */
static long long heap_growth(const struct usage *u)
{
	return (long long)mallinfo2().uordblks - u->heap;
}

/* ------------------------------------------------ the parent's set */

static int pset = PAPI_NULL;
static long long plast[2];
static long pset_bad;
/* The parent thread's task-clock: its first two marks around the start or
 * the last read of pset. */
static struct span pspan;

/*
 * Spin @ns; the parent's set must grow by the span of its task-clock since
 * the last read (or the start), and its page faults never drop.
 */
static void parent_work(long long ns)
{
	long long v[2];

	busy_ns(ns);
	span_mark(&pspan);
	if (PAPI_read(pset, v) != PAPI_OK)
		v[0] = -1;
	span_mark(&pspan);
	if (!span_holds(&pspan, v[0] - plast[0]) || v[1] < plast[1]) {
		if (!pset_bad)
			lope_info("the parent's set: task-clock %lld -> %lld, "
				  "span [%lld, %lld]; page-faults %lld -> %lld",
				  plast[0], v[0], span_lo(&pspan),
				  span_hi(&pspan), plast[1], v[1]);
		pset_bad++;
	}
	plast[0] = v[0];
	plast[1] = v[1];
	span_carry(&pspan);
	span_mark(&pspan);
}

/* --------------------------------------------------------- threads */

struct thread_res {
	long loops, errors, negative, down, reset_not_below, stop_below;
	long outside;               /* task-clock values outside their spans */
	long long counted;          /* task-clock of accums and stops */
	long long span_lo, span_hi; /* their spans' bounds, summed */
	int rc;
	const char *failed;
};

static struct thread_res wres[NTHREADS];
static long long run_ns;
static int codes[3];

static void werr(struct thread_res *r, const char *what, int rc)
{
	r->errors++;
	if (!r->failed) {
		r->failed = what;
		r->rc = rc;
	}
}

/* Two reads of the three events, @a then @b: negative, or gone down? */
static void tally(struct thread_res *r, const long long *a, const long long *b)
{
	int e;

	for (e = 0; e < 3; e++) {
		r->negative += a[e] < 0 || b[e] < 0;
		r->down += b[e] < a[e];
	}
}

static int build(struct thread_res *r, int *set)
{
	int rc = PAPI_create_eventset(set), i;

	for (i = 0; rc == PAPI_OK && i < 3; i++)
		rc = PAPI_add_event(*set, codes[i]);
	if (rc != PAPI_OK)
		werr(r, "build the set", rc);
	return rc;
}

/* The task-clock @got of an interval, and its span @sp, into @r. */
static void in_span(struct thread_res *r, const struct span *sp, long long got)
{
	r->outside += !span_holds(sp, got);
	r->counted += got;
	r->span_lo += span_lo(sp);
	r->span_hi += span_hi(sp);
}

/*
 * The span @sp: its first mark before the start of the set never
 * started, then before the stop that ended the last loop (a start after a
 * stop counts from the stop's own read: the engine carries what the
 * disable adds over), or before the read a reset may reuse (the engine's
 * reset right after a read starts from that read's sample).
 */
static void *loop_main(void *arg)
{
	struct thread_res *r = arg;
	long long end, v[3], w[3], acc[3], i;
	int set = PAPI_NULL, rc, e;
	struct span sp;

	rc = PAPI_register_thread();
	if (rc != PAPI_OK)
		werr(r, "PAPI_register_thread", rc);
	if (span_open(&sp, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0) {
		werr(r, "open the span", PAPI_ESYS);
		goto out;
	}
	end = wall_ns() + run_ns;
	if (build(r, &set) != PAPI_OK)
		goto out;
	span_mark(&sp);
	for (i = 0; wall_ns() < end; i++) {
		if (i % 64 == 63) {
			drop_set(&set);
			if (build(r, &set) != PAPI_OK)
				break;
		}
		memset(acc, 0, sizeof(acc));
		rc = PAPI_start(set);
		span_mark(&sp);
		if (rc != PAPI_OK) {
			werr(r, "PAPI_start", rc);
			break;
		}
		busy_ns(50 * 1000);
		if (i % 8 == 0)
			(void)touch_pages(2);
		rc = PAPI_read(set, v);
		if (rc != PAPI_OK)
			werr(r, "PAPI_read", rc);
		span_mark(&sp);
		rc = PAPI_accum(set, acc);
		span_mark(&sp);
		if (rc != PAPI_OK)
			werr(r, "PAPI_accum", rc);
		tally(r, v, acc);
		in_span(r, &sp, acc[0]);
		/* Not counted, a reset follows: 16 page faults it must drop
		 * (faults, not time: a vCPU the host preempts right after the
		 * reset makes task-clock jump by as much). */
		busy_ns(20 * 1000);
		(void)touch_pages(16);
		span_clear(&sp);
		span_mark(&sp);
		rc = PAPI_read(set, v);
		if (rc != PAPI_OK)
			werr(r, "PAPI_read", rc);
		rc = PAPI_reset(set);
		span_mark(&sp);
		if (rc != PAPI_OK)
			werr(r, "PAPI_reset", rc);
		rc = PAPI_read(set, w);
		if (rc != PAPI_OK)
			werr(r, "PAPI_read after reset", rc);
		r->reset_not_below += w[1] >= v[1] || v[1] < 16;
		busy_ns(30 * 1000);
		rc = PAPI_read(set, v);
		if (rc != PAPI_OK)
			werr(r, "PAPI_read", rc);
		tally(r, w, v);
		span_mark(&sp);
		rc = PAPI_stop(set, w);
		span_mark(&sp);
		if (rc != PAPI_OK) {
			werr(r, "PAPI_stop", rc);
			break;
		}
		for (e = 0; e < 3; e++)
			r->stop_below += w[e] < v[e];
		in_span(r, &sp, w[0]);
		span_carry(&sp);
		r->loops++;
	}
out:
	span_close(&sp);
	drop_set(&set);

	rc = PAPI_unregister_thread();
	if (rc != PAPI_OK)
		werr(r, "PAPI_unregister_thread", rc);
	return NULL;
}

static int run_threads(long long ns)
{
	pthread_t th[NTHREADS];
	int t, started = 0;

	memset(wres, 0, sizeof(wres));
	run_ns = ns;
	for (t = 0; t < NTHREADS; t++)
		if (pthread_create(&th[t], NULL, loop_main, &wres[t]) == 0)
			started++;
		else
			break;
	for (t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	return started;
}

static void report_threads(int started)
{
	char name[96];
	long loops = 0;
	int t;

	lope_check(started == NTHREADS, "threads_8_started", "%d started",
		   started);
	for (t = 0; t < started; t++) {
		struct thread_res *r = &wres[t];

		loops += r->loops;
		lope_info("threads: thread %d: %ld loops", t, r->loops);
		lope_name(name, sizeof(name), "threads_thread_%d_loops", t);
		lope_check(
			r->loops > 100 && !r->errors && !r->negative &&
				!r->down && !r->reset_not_below &&
				!r->stop_below && !r->outside,
			name,
			"%ld loops, %ld errors (first: %s %s), %ld negative, %ld down, %ld resets not below, %ld stops below the read, %ld task-clock values outside their spans (counted %lld ns, spans [%lld, %lld])",
			r->loops, r->errors, r->failed ? r->failed : "-",
			r->failed ? papi_err(r->rc) : "", r->negative, r->down,
			r->reset_not_below, r->stop_below, r->outside,
			r->counted, r->span_lo, r->span_hi);
	}
	lope_info("threads: %ld start/read/accum/reset/stop loops in all",
		  loops);
}

/* ---------------------------------------------------- thread churn */

static void *churn_main(void *arg)
{
	struct thread_res *r = arg;
	long long v[3];
	int set = PAPI_NULL, rc;

	rc = PAPI_register_thread();
	if (rc != PAPI_OK)
		werr(r, "PAPI_register_thread", rc);
	if (build(r, &set) == PAPI_OK) {
		rc = PAPI_start(set);
		busy_ns(200 * 1000);
		if (rc == PAPI_OK)
			rc = PAPI_stop(set, v);
		if (rc != PAPI_OK || v[0] <= 0)
			werr(r, "count", rc);
	}
	drop_set(&set);
	rc = PAPI_unregister_thread();
	if (rc != PAPI_OK)
		werr(r, "PAPI_unregister_thread", rc);
	return NULL;
}

static long run_churn(int n)
{
	struct thread_res r[4];
	pthread_t th[4];
	long errors = 0;
	int i, k;

	for (i = 0; i < n; i += 4) {
		memset(r, 0, sizeof(r));
		for (k = 0; k < 4; k++)
			if (pthread_create(&th[k], NULL, churn_main, &r[k]))
				return -1;
		for (k = 0; k < 4; k++) {
			pthread_join(th[k], NULL);
			errors += r[k].errors;
		}
	}
	return errors;
}

/* ----------------------------------------------------------- forks */

/*
 * Count a 1 ms spin with a set of the @n events @tc_events, the first
 * perf::TASK-CLOCK, and leave it running (an exec image execs the next
 * with it): PAPI_OK when the task-clock read lies within the span of this
 * thread's own task-clock around the start and the read.
 */
static int count_own_ms(const char *const *tc_events, int n)
{
	long long v[2] = { 0, 0 };
	int set = PAPI_NULL, rc;
	struct span sp;

	if (span_open(&sp, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0)
		return PAPI_ESYS;
	rc = make_named_set(&set, tc_events, n);
	rc = spin_between_marks(set, rc, MS, PAPI_read, v, &sp);
	if (rc == PAPI_OK && !span_holds(&sp, v[0]))
		rc = PAPI_EMISC;
	span_close(&sp);
	return rc;
}

/* An even child: PAPI again, its own 1 ms.  1: init, 2: count. */
static int fork_child_counts(void)
{
	static const char *const tc[] = { "perf::TASK-CLOCK" };

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return 1;
	return count_own_ms(tc, 1) == PAPI_OK ? 0 : 2;
}

/* Exit statuses of @n forks other than 0, or -1 if a fork failed. */
static long run_forks(int n)
{
	long bad = 0;
	int i, st;
	pid_t pid;

	fflush(stdout);
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0)
			_exit(i % 2 ? 0 : fork_child_counts());
		st = wait_child(pid);
		bad += st != 0;
		parent_work(200 * 1000);
	}
	return bad;
}

/* ----------------------------------------------------------- execs */

/*
 * argv: --exec-helper LEFT FDS RSS_KB.  FDS and RSS_KB are the first
 * image's (-1: this is the first).  Exit 0, or 10 + what failed: 0 a perf
 * descriptor inherited, 1 a perf mapping inherited, 2 descriptor count
 * differs from the first image's, 3 VmRSS above the first image's + 1
 * MiB, 4 PAPI_library_init, 5 the set did not count, 6 exec failed.
 */
static int exec_helper(int argc, char **argv)
{
	static const char *const tc[] = { "perf::TASK-CLOCK",
					  "perf::PAGE-FAULTS" };
	char left_s[16], fds_s[16], rss_s[24];
	char *next[] = { argv[0], "--exec-helper", left_s, fds_s, rss_s, NULL };
	int left, fds, first_fds;
	long rss, first_rss;

	if (argc < 5)
		return 9;
	left = atoi(argv[2]);
	first_fds = atoi(argv[3]);
	first_rss = atol(argv[4]);
	if (perf_fd_count() != 0)
		return 10;
	if (perf_maps_count() != 0)
		return 11;
	fds = fd_count();
	if (first_fds >= 0 && fds != first_fds)
		return 12;
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return 14;
	if (count_own_ms(tc, 2) != PAPI_OK)
		return 15;

	rss = status_kb("VmRSS");
	if (first_rss >= 0 && rss > first_rss + 1024)
		return 13;
	if (left == 0)
		return 0; /* the set still runs: exit closes it */
	snprintf(left_s, sizeof(left_s), "%d", left - 1);
	snprintf(fds_s, sizeof(fds_s), "%d", first_fds >= 0 ? first_fds : fds);
	snprintf(rss_s, sizeof(rss_s), "%ld", first_rss >= 0 ? first_rss : rss);
	execv("/proc/self/exe", next); /* with the set running */
	return 16;
}

/* The chain's exit status (0 when all @n execs were fine). */
static long run_execs(int n)
{
	char left_s[16];
	char *argv[] = { "test_stress", "--exec-helper", left_s, "-1", "-1",
			 NULL };
	pid_t pid;
	int st;

	snprintf(left_s, sizeof(left_s), "%d", n - 1);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execv("/proc/self/exe", argv); /* the parent's set runs */
		_exit(16);
	}
	st = pid > 0 ? wait_child(pid) : -1;
	parent_work(MS);
	return st;
}

/*
 * The phases after the threads': each runs @warm times in the warm-up,
 * then @n times as the case @name, which its result must leave 0 (what
 * another value means: @why).
 */
static const struct phase {
	const char *label;
	long (*run)(int n);
	int warm, n;
	const char *name, *why;
} phases[] = {
	{ "thread churn", run_churn, 8, CHURN,
	  "thread_churn_96_threads_register_count_unregister", "errors" },
	{ "forks", run_forks, 6, NFORKS,
	  "forks_100_children_50_re_initialise_papi_and_count_exit_0",
	  "children failed (-1: fork failed)" },
	{ "execs", run_execs, 2, NEXECS,
	  "execs_50_images_in_a_chain_each_with_a_running_set_at_exec",
	  "chain exit (10 perf fd inherited, 11 perf mapping inherited, 12 descriptor count grew, 13 VmRSS grew, 14 init, 15 count, 16 exec)" },
};
#define NPHASES (sizeof(phases) / sizeof(phases[0]))

static int children_left(void)
{
	return waitpid(-1, NULL, WNOHANG) >= 0; /* ECHILD: none */
}

int main(int argc, char **argv)
{
	const struct phase *p;
	struct usage base, after;
	long long t0;
	long res;
	int rc, started, i;

	if (argc > 1 && !strcmp(argv[1], "--exec-helper"))
		return exec_helper(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	papi_init_or_exit();
	rc = PAPI_thread_init(pthread_self);
	for (i = 0; rc == PAPI_OK && i < 3; i++)
		rc = PAPI_event_name_to_code(names[i], &codes[i]);
	if (rc == PAPI_OK)
		rc = make_named_set(&pset, names, 2);
	if (rc == PAPI_OK &&
	    span_open(&pspan, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0)
		rc = PAPI_ESYS;
	span_mark(&pspan);
	if (rc == PAPI_OK)
		rc = PAPI_start(pset);
	span_mark(&pspan);
	if (!lope_check(rc == PAPI_OK, "setup_the_parents_running_set", "%s",
			papi_err(rc)))
		return lope_done();

	/* Warm-up: every phase once, short. */
	t0 = wall_ns();
	(void)run_threads(200 * MS);
	for (p = phases; p < phases + NPHASES; p++)
		(void)p->run(p->warm);
	parent_work(MS);
	usage_now(&base);
	lope_info(
		"warm-up %lld ms; baseline: %d descriptors, %d perf mappings, VmRSS %ld kB, VmSize %ld kB",
		(wall_ns() - t0) / MS, base.fds, base.maps, base.rss_kb,
		base.size_kb);

	t0 = wall_ns();
	started = run_threads(3000 * MS);
	lope_info("threads: %lld ms, heap %+lld bytes", (wall_ns() - t0) / MS,
		  heap_growth(&base));
	report_threads(started);
	parent_work(2 * MS);

	for (p = phases; p < phases + NPHASES; p++) {
		t0 = wall_ns();
		res = p->run(p->n);
		lope_info("%s: %lld ms, heap %+lld bytes since the baseline",
			  p->label, (wall_ns() - t0) / MS, heap_growth(&base));
		lope_check(res == 0, p->name, "%s: %ld", p->why, res);
	}

	parent_work(2 * MS);
	lope_check(!pset_bad,
		   "the_parents_running_set_counted_its_own_work_throughout",
		   "%ld reads failed, went down or missed the work", pset_bad);
	usage_now(&after);
	lope_info(
		"after: %d descriptors, %d perf mappings, VmRSS %ld kB, VmSize %ld kB",
		after.fds, after.maps, after.rss_kb, after.size_kb);
	lope_check(after.fds == base.fds, "no_descriptor_growth",
		   "%d, baseline %d", after.fds, base.fds);
	lope_check(after.maps == base.maps, "no_perf_mapping_growth",
		   "%d, baseline %d", after.maps, base.maps);
	lope_check(after.heap <= base.heap + 65536,
		   "no_memory_growth_heap_in_use_within_64_kib",
		   "%lld bytes, baseline %lld", after.heap, base.heap);
	lope_check(after.rss_kb <= base.rss_kb + 2048,
		   "no_memory_growth_vmrss_within_2_mib",
		   "%ld kB, baseline %ld kB", after.rss_kb, base.rss_kb);
	lope_check(after.size_kb <= base.size_kb + 16384,
		   "no_memory_growth_vmsize_within_16_mib",
		   "%ld kB, baseline %ld kB", after.size_kb, base.size_kb);
	lope_check(!children_left(), "no_child_left", "a child is unreaped");
	drop_set(&pset);
	span_close(&pspan);
	return lope_done();
}
