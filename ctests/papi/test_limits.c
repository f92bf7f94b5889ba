/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_limits: the component at the limits limit probes found.
 *
 * Descriptors: with RLIMIT_NOFILE set from the descriptors in use so that
 * exactly K are free, a set of K software events is built (each add
 * closes the old kernel group before opening the new one) and counts; a
 * K+1th event is PAPI_ECOUNT and leaves the set with its K events,
 * counting; an option changed with no descriptor free reopens the set in
 * place; a set started before starts again after another set was used
 * with 2 descriptors free (PAPI calls update_control_state at that start:
 * the set keeps its open group).  How many events fit in K descriptors is
 * compared with stock PAPI of the same source (this program run again
 * against it, LOPE_LIMITS_STOCK=1): ours at least as many.
 *
 * Names: names of 8,180 to 100,000 characters, with and without a PMU,
 * a valid event and ':' modifiers, are PAPI_ENOEVNT through
 * PAPI_event_name_to_code and PAPI_add_named_event, and nothing crashes
 * (each name in a child; the test is built with ASan too).  Stock PAPI
 * overruns a stack buffer there and is not run.
 *
 * period= and freq= on a counting event: PAPI_EINVAL at add (stock:
 * PAPI_EINVAL for period=-1, and dies of the unhandled overflow signal
 * for valid values).
 *
 * PAPI_DEF_MPX_NS: PAPI 7.0's PAPI_set_opt crashes before any component
 * is asked (doc/papi-versions.md); the documented way round,
 * PAPI_DEF_ITIMER_NS, sets the same interval.
 *
 * Report protocol: ctests/lib/report.h.
 */
#include "papi_util.h"
#include "span.h"

#include <linux/perf_event.h>

/* Free descriptors the set of the descriptor cases gets. */
#define K 6

/* K + 1 distinct software events; the first is the one span checks. */
static const char *const ev_names[K + 1] = {
	"perf::TASK-CLOCK",       "perf::CPU-CLOCK",      "perf::PAGE-FAULTS",
	"perf::CONTEXT-SWITCHES", "perf::CPU-MIGRATIONS", "perf::MINOR-FAULTS",
	"perf::MAJOR-FAULTS",
};
static int ev_codes[K + 1];

static int stock_run; /* this process is the run against stock PAPI */

/* ------------------------------------------------- descriptors free */

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The descriptors open now, sorted (the listing's own left out). */
static int open_fds(int *fds, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0, self;

	if (!d)
		return -1;
	self = dirfd(d);
	while ((e = readdir(d)) != NULL && n < max)
		if (e->d_name[0] != '.' && atoi(e->d_name) != self)
			fds[n++] = atoi(e->d_name);
	closedir(d);
	qsort(fds, (size_t)n, sizeof(*fds), cmp_int);
	return n;
}

static struct rlimit saved_limit;
static int plugs[4096], nr_plugs; /* holes filled until restore_limit() */

/*
 * RLIMIT_NOFILE so that exactly @k more descriptors can be opened: the
 * kernel hands out the lowest free number and refuses one at or above
 * the limit, so the holes below the highest descriptor are filled with
 * /dev/null (closed again by restore_limit()) and the limit is @k above
 * it.  A descriptor closed under the limit is free to open again.  0, or
 * -1.
 */
static int leave_free(int k)
{
	int fds[4096], n = open_fds(fds, 4096), i, fd;
	struct rlimit r;

	if (n < 0 || getrlimit(RLIMIT_NOFILE, &saved_limit) != 0)
		return -1;
	nr_plugs = 0;
	for (i = 0; n > 0 && i < fds[n - 1] - n + 1; i++) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		plugs[nr_plugs++] = fd;
	}
	r.rlim_cur = (rlim_t)(n > 0 ? fds[n - 1] + 1 + k : k);
	r.rlim_max = saved_limit.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &r);
}

static void restore_limit(void)
{
	if (setrlimit(RLIMIT_NOFILE, &saved_limit) != 0)
		lope_fail("restore_limit", "setrlimit: %s", strerror(errno));
	while (nr_plugs > 0)
		close(plugs[--nr_plugs]);
}

/* A new set with the first @n events (by code); PAPI_OK or the error. */
static int make_set(int *set, int n, int *added)
{
	int rc = PAPI_create_eventset(set), i;

	*added = 0;
	for (i = 0; i < n && rc == PAPI_OK; i++) {
		rc = PAPI_add_event(*set, ev_codes[i]);
		if (rc == PAPI_OK)
			(*added)++;
	}
	return rc;
}

/*
 * Start @set, spin 5 ms, stop into @v, with the kernel's task-clock of
 * this thread around it (@s, open): the set's task-clock (event 0) must
 * lie in that span.  PAPI_OK and 1 in *@held when it does.
 */
static int count_in(struct span *s, int set, long long *v, int *held, char *why,
		    size_t len)
{
	int rc;

	*held = 0;
	span_mark(s);
	rc = PAPI_start(set);
	span_mark(s);
	if (rc != PAPI_OK) {
		snprintf(why, len, "start rc=%s", papi_err(rc));
		return rc;
	}
	busy_ns(5 * MS);
	span_mark(s);
	rc = PAPI_stop(set, v);
	span_mark(s);
	*held = rc == PAPI_OK && span_holds(s, v[0]);
	snprintf(why, len, "stop rc=%s task-clock %lld ns, span [%lld, %lld]",
		 papi_err(rc), v[0], span_lo(s), span_hi(s));
	return rc;
}

/* count_in() with a span of its own. */
static int count_in_span(int set, long long *v, int *held, char *why,
			 size_t len)
{
	struct span s;
	int rc;

	*held = 0;
	if (span_open(&s, PERF_COUNT_SW_TASK_CLOCK, 0, 0) != 0) {
		snprintf(why, len, "span_open: %s", strerror(errno));
		return PAPI_ESYS;
	}
	rc = count_in(&s, set, v, held, why, len);
	span_close(&s);
	return rc;
}

/*
 * How many of the K + 1 events one set holds with K descriptors free
 * (the span's own descriptor open before the limit): the number that
 * fits, and the refused add's code.
 */
static int capacity(int *refused)
{
	int set = PAPI_NULL, n = 0, rc;

	rc = PAPI_create_eventset(&set);
	if (rc != PAPI_OK || leave_free(K) != 0)
		return -1;
	*refused = PAPI_OK;
	while (n <= K) {
		rc = PAPI_add_event(set, ev_codes[n]);
		if (rc != PAPI_OK) {
			*refused = rc;
			break;
		}
		n++;
	}
	restore_limit();
	drop_set(&set);
	return n;
}

/*
 * The two-set reproduction: sets A and B of 4 events each, A started
 * and stopped, then B; with 2 descriptors free A starts again.  Its
 * PAPI_start code; *@held: A's task-clock within the span.
 */
static int two_sets(int *held, char *why, size_t len)
{
	int a = PAPI_NULL, b = PAPI_NULL, na, nb, rc;
	long long v[4];
	struct span s;

	*held = 0;
	snprintf(why, len, "setup");
	rc = make_set(&a, 4, &na);
	if (rc == PAPI_OK)
		rc = start_read_stop(a, rc, v);
	if (rc == PAPI_OK)
		rc = make_set(&b, 4, &nb);
	if (rc == PAPI_OK)
		rc = start_read_stop(b, rc, v);
	if (rc != PAPI_OK) {
		snprintf(why, len, "setup rc=%s", papi_err(rc));
		drop_set(&a);
		drop_set(&b);
		return PAPI_EMISC;
	}
	/* The span's descriptor is one of those in use, not of the 2. */
	if (span_open(&s, PERF_COUNT_SW_TASK_CLOCK, 0, 0) != 0 ||
	    leave_free(2) != 0) {
		snprintf(why, len, "span/limit: %s", strerror(errno));
		drop_set(&a);
		drop_set(&b);
		return PAPI_ESYS;
	}
	rc = count_in(&s, a, v, held, why, len);
	restore_limit();
	span_close(&s);
	drop_set(&a);
	drop_set(&b);
	return rc;
}

/* The perf descriptors open now, by number (sorted); their count. */
static int perf_fds(int *out, int max)
{
	int fds[4096], n = open_fds(fds, 4096), i, m = 0;

	for (i = 0; i < n && m < max; i++)
		if (is_perf_fd(fds[i]))
			out[m++] = fds[i];
	return n < 0 ? -1 : m;
}

/*
 * PAPI_start of a set after another set of the thread was used calls
 * update_control_state with the set's own list: it must open nothing.
 * A number below the set's descriptors is made free first, so any
 * reopen (closing first or not) would move a descriptor there.
 */
static void test_restart_opens_nothing(void)
{
	int a = PAPI_NULL, b = PAPI_NULL, na, nb, rc, n0, n1;
	int before[64], after[64], hole = open("/dev/null", O_RDONLY);
	long long v[4];

	rc = hole < 0 ? PAPI_ESYS : make_set(&a, 4, &na);
	rc = start_read_stop(a, rc, v);
	if (rc == PAPI_OK)
		rc = make_set(&b, 4, &nb);
	rc = start_read_stop(b, rc, v);
	if (hole >= 0)
		close(hole);
	n0 = perf_fds(before, 64);
	if (rc == PAPI_OK)
		rc = PAPI_start(a);
	n1 = perf_fds(after, 64);
	if (rc == PAPI_OK)
		rc = PAPI_stop(a, v);
	lope_check(rc == PAPI_OK && n0 == 8 && n1 == n0 &&
			   memcmp(before, after, (size_t)n0 * sizeof(int)) == 0,
		   "restart_after_other_set_opens_nothing",
		   "rc=%s; perf descriptors %d before the start (want 8), %d "
		   "after, first %d -> %d (a free number below: %d)",
		   papi_err(rc), n0, n1, n0 > 0 ? before[0] : -1,
		   n1 > 0 ? after[0] : -1, hole);
	drop_set(&a);
	drop_set(&b);
}

/* The stock run: capacity and the two sets, one line each on stdout. */
static int stock_main(void)
{
	int refused = 0, n, rc, held;
	char why[256];

	n = capacity(&refused);
	printf("CAPACITY\t%d\t%d\n", n, refused);
	rc = two_sets(&held, why, sizeof(why));
	printf("TWOSETS\t%d\t%d\n", rc, held);
	PAPI_shutdown();
	return 0;
}

/* Stock's answers: the run against the stock libpapi of the same source. */
static struct {
	int ok, capacity, refused, twosets, held;
	char why[300];
} stock;

static void stock_answers(void)
{
	char lib[PATH_MAX], line[256];
	int got = 0;
	pid_t pid;
	FILE *in = rerun_on_stock("LOPE_LIMITS_STOCK", &pid, lib, stock.why,
				  sizeof(stock.why));

	if (!in)
		return;
	while (fgets(line, sizeof(line), in)) {
		got += sscanf(line, "CAPACITY\t%d\t%d", &stock.capacity,
			      &stock.refused) == 2;
		got += sscanf(line, "TWOSETS\t%d\t%d", &stock.twosets,
			      &stock.held) == 2;
	}
	fclose(in);
	wait_child(pid);
	stock.ok = got == 2;
	if (!stock.ok)
		snprintf(stock.why, sizeof(stock.why),
			 "the stock run (%.200s) gave %d of 2 answers", lib,
			 got);
}

static void test_descriptors(void)
{
	int set = PAPI_NULL, n, rc, held, refused = 0, i, perf0, codes[K + 1];
	long long v[K + 1], before[K + 1];
	char why[256];

	for (i = 0; i <= K; i++) {
		ev_codes[i] = code_of(ev_names[i]);
		if (!ev_codes[i]) {
			lope_skip("descriptors", "no event %s here",
				  ev_names[i]);
			return;
		}
	}
	/* The set is made before the limit: its descriptors are counted
	 * from those in use. */
	rc = PAPI_create_eventset(&set);
	perf0 = perf_fd_count();
	if (rc != PAPI_OK || leave_free(K) != 0) {
		lope_fail("k_events_fit_k_free_descriptors", "setup rc=%s: %s",
			  papi_err(rc), strerror(errno));
		drop_set(&set);
		return;
	}
	rc = PAPI_OK;
	for (n = 0; n < K && rc == PAPI_OK; n++)
		rc = PAPI_add_event(set, ev_codes[n]);
	restore_limit();
	lope_check(rc == PAPI_OK && PAPI_num_events(set) == K,
		   "k_events_fit_k_free_descriptors",
		   "%d free: add of event %d (%s) rc=%s", K, n, ev_names[n - 1],
		   papi_err(rc));
	/* The span needs a descriptor of its own: counted without limit. */
	rc = count_in_span(set, before, &held, why, sizeof(why));
	lope_check(rc == PAPI_OK && held, "k_events_count", "%s", why);
	/* The set holds K descriptors: none free, one more event needs
	 * K + 1 at once (the old group is closed before the new opens). */
	rc = leave_free(0) == 0 ? PAPI_add_event(set, ev_codes[K]) : PAPI_ESYS;
	lope_check(rc == PAPI_ECOUNT, "one_more_event_is_ecount",
		   "event %d with %d descriptors to hold it: rc=%s (want %s)",
		   K + 1, K, papi_err(rc), papi_err(PAPI_ECOUNT));
	restore_limit(); /* perf_fd_count() needs a descriptor */
	lope_check(perf_fd_count() == perf0 + K,
		   "refused_event_leaves_k_descriptors",
		   "perf descriptors %d, want %d", perf_fd_count(), perf0 + K);
	n = K + 1;
	rc = PAPI_list_events(set, codes, &n);
	lope_check(rc == PAPI_OK && n == K &&
			   memcmp(codes, ev_codes, K * sizeof(int)) == 0,
		   "refused_event_leaves_k_events", "rc=%s, %d events",
		   papi_err(rc), n);
	rc = PAPI_read(set, v);
	lope_check(rc == PAPI_OK && memcmp(v, before, K * sizeof(*v)) == 0,
		   "refused_event_keeps_values",
		   "rc=%s task-clock %lld, was %lld", papi_err(rc), v[0],
		   before[0]);
	/* A domain changed with no descriptor free: reopened in place. */
	rc = leave_free(0) == 0 ?
		     set_domain(set, PAPI_DOM_USER | PAPI_DOM_KERNEL) :
		     PAPI_ESYS;
	restore_limit();
	lope_check(rc == PAPI_OK, "option_with_no_descriptor_free",
		   "set_domain rc=%s", papi_err(rc));
	/* An option the kernel refuses (no such cpu): the set's group is
	 * closed for the new one, then opened again at once, not left for
	 * the next PAPI_start to open. */
	rc = set_cpu_attach(set,
			    (unsigned int)sysconf(_SC_NPROCESSORS_CONF) + 1000);
	lope_check(rc != PAPI_OK && perf_fd_count() == perf0 + K,
		   "refused_option_leaves_set_open",
		   "PAPI_CPU_ATTACH to a cpu that does not exist: rc=%s, perf "
		   "descriptors %d, want %d",
		   papi_err(rc), perf_fd_count(), perf0 + K);
	rc = count_in_span(set, v, &held, why, sizeof(why));
	lope_check(rc == PAPI_OK && held, "refused_event_set_still_counts",
		   "%s", why);
	drop_set(&set);

	n = capacity(&refused);
	lope_info("%d descriptors free: ours holds %d events (then %s)", K, n,
		  papi_err(refused));
	if (!stock_run)
		stock_answers();
	if (stock.ok)
		lope_info("stock: holds %d events (then %s); the two-set "
			  "start rc=%s, its task-clock %s the span",
			  stock.capacity, papi_err(stock.refused),
			  papi_err(stock.twosets),
			  stock.held ? "within" : "not within");
	if (stock.ok)
		lope_check(n >= stock.capacity && n == K,
			   "capacity_at_least_stock",
			   "ours %d, stock %d (then %s), %d free", n,
			   stock.capacity, papi_err(stock.refused), K);
	else
		lope_skip("capacity_at_least_stock", "%s", stock.why);

	rc = two_sets(&held, why, sizeof(why));
	lope_check(rc == PAPI_OK && held, "restart_after_other_set_2_free",
		   "%s", why);
	if (stock.ok)
		lope_check(rc == PAPI_OK || stock.twosets != PAPI_OK,
			   "restart_after_other_set_as_stock",
			   "ours rc=%s, stock rc=%s", papi_err(rc),
			   papi_err(stock.twosets));
}

/* ------------------------------------------------------ long names */

/* What a child found for one name: the two calls' codes. */
struct name_result {
	int to_code, add, events;
};

static void name_child(const char *name, int fd)
{
	struct name_result r = { 0, 0, -1 };
	int set = PAPI_NULL, code = 0;

	r.to_code = PAPI_event_name_to_code(name, &code);
	if (PAPI_create_eventset(&set) == PAPI_OK) {
		r.add = PAPI_add_named_event(set, name);
		r.events = PAPI_num_events(set);
	}
	(void)pipe_put_buf(fd, &r, sizeof(r));
	_exit(0);
}

/* One name in a child: 0 and *@r, or the child's wait status text. */
static int try_name(const char *name, struct name_result *r, char *why,
		    size_t len)
{
	int fd[2], st, ws;
	pid_t pid;

	if (pipe(fd) != 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		name_child(name, fd[1]);
	}
	close(fd[1]);
	st = pipe_get_buf(fd[0], r, sizeof(*r));
	close(fd[0]);
	if (pid < 0)
		return -1;
	ws = wait_child(pid);
	snprintf(why, len, "child %s %d", ws >= 128 ? "signal" : "exit",
		 ws >= 128 ? ws - 128 : ws);
	return st == 0 && ws == 0 ? 0 : -1;
}

/* @head, @body characters 'A', @tail: a new string, or NULL. */
static char *make_name(const char *head, size_t body, const char *tail)
{
	size_t hl = strlen(head), tl = strlen(tail);
	char *name = malloc(hl + body + tl + 1);

	if (!name)
		return NULL;
	memcpy(name, head, hl);
	memset(name + hl, 'A', body);
	memcpy(name + hl + body, tail, tl + 1);
	return name;
}

/*
 * Each length, head and tail: the name's codes must be those of the same
 * name with an 8-character body, an error (PAPI_ENOEVNT where a PMU or a
 * component names our components; a bare unknown name is answered by the
 * last component PAPI asks), and the set stays empty.
 */
static void test_long_names(void)
{
	static const size_t lens[] = { 8180, 8192, 8193, 100000 };
	static const char *const heads[] = {
		"",
		"perf::",
		"perf::TASK-CLOCK:",
		"perf::TASK-CLOCK:u=1:",
		"perf_event:::perf::TASK-CLOCK:",
		"perf_event_uncore:::",
	};
	static const char *const tails[] = { "", ":u=1", ":period=1000" };
	size_t l, h, t;
	char case_name[160], why[64];

	for (h = 0; h < sizeof(heads) / sizeof(*heads); h++)
		for (t = 0; t < sizeof(tails) / sizeof(*tails); t++) {
			char *name = make_name(heads[h], 8, tails[t]);
			struct name_result want, r;
			int ok;

			if (!name || try_name(name, &want, why, sizeof(why))) {
				lope_fail("long_names_reference", "%s: %s",
					  name ? name : "malloc", why);
				free(name);
				continue;
			}
			free(name);
			if (*heads[h])
				want.to_code = want.add = PAPI_ENOEVNT;
			for (l = 0; l < sizeof(lens) / sizeof(*lens); l++) {
				name = make_name(heads[h],
						 lens[l] - strlen(heads[h]) -
							 strlen(tails[t]),
						 tails[t]);
				if (!name)
					return;
				lope_name(case_name, sizeof(case_name),
					  "long_name_%zu_%s_A_%s", lens[l],
					  *heads[h] ? heads[h] : "bare",
					  *tails[t] ? tails[t] : "end");
				ok = try_name(name, &r, why, sizeof(why)) == 0;
				lope_check(ok && want.to_code < 0 &&
						   r.to_code == want.to_code &&
						   r.add == want.add &&
						   r.events == 0,
					   case_name,
					   "%s; name_to_code rc=%s, add_named "
					   "rc=%s, %d events; want %s, %s",
					   why, ok ? papi_err(r.to_code) : "-",
					   ok ? papi_err(r.add) : "-",
					   ok ? r.events : -1,
					   papi_err(want.to_code),
					   papi_err(want.add));
				free(name);
			}
		}
}

/* ------------------------------------------------ period= and freq= */

static void test_sampling_modifiers(void)
{
	static const struct {
		const char *name, *case_name;
	} rows[] = {
		{ "perf::CPU-CLOCK:period=-1",
		  "cpu_clock_period_minus_1_einval" },
		{ "perf::CPU-CLOCK:period=1000",
		  "cpu_clock_period_1000_einval" },
		{ "perf::TASK-CLOCK:period=1000000",
		  "task_clock_period_1000000_einval" },
		{ "perf::CPU-CLOCK:freq=100", "cpu_clock_freq_100_einval" },
		{ "perf::PAGE-FAULTS:period=1", "page_faults_period_1_einval" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		int set = PAPI_NULL, rc, code = 0, fds = perf_fd_count();

		rc = PAPI_event_name_to_code(rows[i].name, &code);
		if (rc != PAPI_OK) {
			lope_skip(rows[i].case_name,
				  "libpfm4 has no %s here: rc=%s", rows[i].name,
				  papi_err(rc));
			continue;
		}
		rc = PAPI_create_eventset(&set);
		if (rc == PAPI_OK)
			rc = PAPI_add_named_event(set, rows[i].name);
		lope_check(rc == PAPI_EINVAL && PAPI_num_events(set) == 0 &&
				   perf_fd_count() == fds,
			   rows[i].case_name,
			   "%s: add rc=%s, %d events, %d descriptors",
			   rows[i].name, papi_err(rc), PAPI_num_events(set),
			   perf_fd_count() - fds);
		drop_set(&set);
	}
}

/* ------------------------------------------------- PAPI_DEF_MPX_NS */

/*
 * PAPI 7.0's PAPI_set_opt(PAPI_DEF_MPX_NS) takes the interval for an
 * event set pointer and crashes before asking a component
 * (doc/papi-versions.md); PAPI_DEF_ITIMER_NS sets the same interval,
 * which PAPI_get_opt(PAPI_DEF_MPX_NS) then reports.
 */
static void test_mpx_interval(void)
{
	PAPI_option_t o, got;
	int rc, old;

	memset(&got, 0, sizeof(got));
	old = PAPI_get_opt(PAPI_DEF_MPX_NS, &got) == PAPI_OK ?
		      got.multiplex.ns :
		      -1;
	memset(&o, 0, sizeof(o));
	o.itimer.ns = old > 0 ? old * 2 : 20 * 1000 * 1000;
	rc = PAPI_set_opt(PAPI_DEF_ITIMER_NS, &o);
	memset(&got, 0, sizeof(got));
	lope_check(rc == PAPI_OK &&
			   PAPI_get_opt(PAPI_DEF_MPX_NS, &got) == PAPI_OK &&
			   got.multiplex.ns == o.itimer.ns,
		   "def_itimer_ns_sets_mpx_interval",
		   "set rc=%s, multiplex interval %d ns, want %d (was %d)",
		   papi_err(rc), got.multiplex.ns, o.itimer.ns, old);
	if (old > 0) {
		o.itimer.ns = old;
		(void)PAPI_set_opt(PAPI_DEF_ITIMER_NS, &o); /* checked above */
	}
}

int main(void)
{
	static void (*const tests[])(void) = {
		test_descriptors,  test_restart_opens_nothing,
		test_long_names,   test_sampling_modifiers,
		test_mpx_interval,
	};

	if (getenv("LOPE_LIMITS_STOCK")) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		stock_run = 1;
		if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
			return 1;
		for (int i = 0; i <= K; i++)
			ev_codes[i] = code_of(ev_names[i]);
		return stock_main();
	}
	return papi_run_tests(tests, sizeof(tests) / sizeof(*tests));
}
