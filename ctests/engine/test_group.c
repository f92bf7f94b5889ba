/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine (lope.h) on real kernel software events: task-clock,
 * page-faults, context-switches and cpu-migrations of the calling thread.
 * Software events are never readable with rdpmc, so every read here takes
 * the read(2) path; what is checked is the group lifecycle, the base
 * arithmetic (reset, write, disable/enable), the flags, the resource
 * accounting (descriptors, mappings, page faults) and the bad inputs.
 *
 * Time is checked against a span (span.h): the kernel's own task-clock of
 * the same thread (with its children where the group inherits), read just
 * before and just after the call that starts an interval and the call that
 * ends it.  The group's task-clock over the interval must lie between the
 * inner and the outer difference, exactly: no margin, and the time the
 * host steals is in both.  The thread's CPU time (CLOCK_THREAD_CPUTIME_ID)
 * is not that clock: task-clock runs ahead of it by what the host takes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core_pmu.h"
#include "lope.h"
#include "proc.h"
#include "report.h"
#include "span.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { EV_TASK_CLOCK, EV_PAGE_FAULTS, EV_CTX_SWITCHES, EV_MIGRATIONS, NEV };

static const uint64_t sw_config[NEV] = {
	PERF_COUNT_SW_TASK_CLOCK,
	PERF_COUNT_SW_PAGE_FAULTS,
	PERF_COUNT_SW_CONTEXT_SWITCHES,
	PERF_COUNT_SW_CPU_MIGRATIONS,
};

static const char *const sw_name[NEV] = {
	"task-clock",
	"page-faults",
	"context-switches",
	"cpu-migrations",
};

#define MS (1000 * 1000ll) /* task-clock counts nanoseconds */
#define TOUCH_PAGES 64     /* page faults caused per busy() */
#define SLEEPS 3           /* context switches caused per busy() */

/* exclude_kernel for our attributes (1 if the kernel refuses 0). */
static int excl_kernel;

/* This thread's own task-clock, the reference of every time (span.h). */
static struct span clk;

/* ------------------------------------------------------------------ */
/* helpers                                                             */

static void sw_attr(struct perf_event_attr *a, int ev)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = sw_config[ev];
	a->exclude_kernel = (unsigned int)excl_kernel;
	a->exclude_hv = 1;
}

static int64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Spin until this thread has used @ms more milliseconds of CPU. */
static void burn_ms(int ms)
{
	int64_t end = thread_ns() + ms * MS;
	volatile unsigned long x = 0;

	while (thread_ns() < end) {
		int i;

		for (i = 0; i < 1000; i++)
			x++;
	}
}

/* Fault in TOUCH_PAGES fresh anonymous pages. */
static void touch_pages(void)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, TOUCH_PAGES * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (p == MAP_FAILED)
		return;
	for (i = 0; i < TOUCH_PAGES; i++)
		((volatile char *)p)[(size_t)i * ps] = 1;
	munmap(p, TOUCH_PAGES * ps);
}

/* Give up the CPU SLEEPS times (voluntary context switches). */
static void sleep_a_bit(void)
{
	struct timespec ts = { 0, 1000 * 1000 };
	int i;

	for (i = 0; i < SLEEPS; i++)
		nanosleep(&ts, NULL);
}

/* Work that every event notices: CPU time, page faults, switches. */
static void busy(int ms)
{
	burn_ms(ms);
	touch_pages();
	sleep_a_bit();
}

/* Create a group of @n events from @attrs and open it. */
static int make_group_attrs(struct lope_group **gp, pid_t pid,
			    unsigned int flags,
			    const struct perf_event_attr *attrs, int n)
{
	int i, rc;

	*gp = NULL;
	rc = lope_group__new(gp, pid, -1, flags);
	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		rc = lope_group__add(*gp, &attrs[i]);
		if (rc != i) {
			lope_group__delete(*gp);
			*gp = NULL;
			return rc < 0 ? rc : -EINVAL;
		}
	}
	rc = lope_group__open(*gp);
	if (rc) {
		lope_group__delete(*gp);
		*gp = NULL;
	}
	return rc;
}

/* Create a group of the first @nev software events and open it. */
static int make_group(struct lope_group **gp, pid_t pid, unsigned int flags,
		      int nev)
{
	struct perf_event_attr a[NEV];
	int i;

	for (i = 0; i < nev; i++)
		sw_attr(&a[i], i);
	return make_group_attrs(gp, pid, flags, a, nev);
}

/*
 * A mappable event that is not a software event: the x86 msr PMU's tsc.
 * The kernel maps its page but never lets user space read it (index 0),
 * so it exercises mapping, pre-faulting and the fall-back to read(2) on a
 * machine without a core PMU.
 */
static struct perf_event_attr tsc_attr;
static int have_tsc;
static char tsc_why[256];

static void probe_tsc(void)
{
	const char *dir = "/sys/bus/event_source/devices/msr";
	char path[256];
	unsigned int type, config;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/type", dir);
	f = fopen(path, "r");
	if (!f) {
		snprintf(tsc_why, sizeof(tsc_why), "no msr PMU (%s missing)",
			 dir);
		return;
	}
	if (fscanf(f, "%u", &type) != 1)
		type = 0;
	fclose(f);
	snprintf(path, sizeof(path), "%s/events/tsc", dir);
	f = fopen(path, "r");
	if (!f || fscanf(f, "event=%x", &config) != 1 || type == 0) {
		if (f)
			fclose(f);
		snprintf(tsc_why, sizeof(tsc_why), "msr PMU has no tsc event");
		return;
	}
	fclose(f);
	memset(&tsc_attr, 0, sizeof(tsc_attr));
	tsc_attr.size = sizeof(tsc_attr);
	tsc_attr.type = type;
	tsc_attr.config = config; /* the msr PMU refuses exclude_* bits */
	fd = (int)syscall(SYS_perf_event_open, &tsc_attr, 0, -1, -1, 0);
	if (fd < 0) {
		snprintf(tsc_why, sizeof(tsc_why), "cannot open msr/tsc: %s",
			 strerror(errno));
		return;
	}
	close(fd);
	have_tsc = 1;
}

/* attrs = [msr/tsc if available] + the first @nsw software events. */
static int mixed_attrs(struct perf_event_attr *a, int nsw)
{
	int i, n = 0;

	if (have_tsc)
		a[n++] = tsc_attr;
	for (i = 0; i < nsw; i++)
		sw_attr(&a[n++], i);
	return n;
}

static void fmt_vals(char *buf, size_t len, const int64_t *v, int n)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%" PRId64,
					i ? " " : "", sw_name[i], v[i]);
}

/* ------------------------------------------------------------------ */
/* The lifecycle, for several flag combinations and sizes              */

static const struct config {
	int line;
	const char *name;
	unsigned int flags;
	int nev;
} configs[] = {
	{ __LINE__, "group_of_4", 0, 4 },
	{ __LINE__, "group_of_1", 0, 1 },
	{ __LINE__, "no_rdpmc_group_of_4", LOPE_NO_RDPMC, 4 },
	{ __LINE__, "separate_4", LOPE_SEPARATE, 4 },
	{ __LINE__, "separate_1", LOPE_SEPARATE, 1 },
	{ __LINE__, "separate_no_rdpmc_4", LOPE_SEPARATE | LOPE_NO_RDPMC, 4 },
};

#define CASE(fmt, ...) \
	lope_name(name, sizeof(name), "%s_" fmt, c->name, ##__VA_ARGS__)

#define UNBOUNDED (-1) /* bounds(): no maximum */

/*
 * What check_within() holds each of @n values to: at least @base[i] (0
 * without @base), at most that plus @slack.
 */
static void bounds(int64_t *lo, int64_t *hi, int n, const int64_t *base,
		   int64_t slack)
{
	int i;

	for (i = 0; i < n; i++) {
		lo[i] = base ? base[i] : 0;
		hi[i] = slack == UNBOUNDED ? INT64_MAX : lo[i] + slack;
	}
}

/* PASS @name when @rc is 0 and every value @v[i] is in [@lo[i], @hi[i]]. */
static void check_within(const char *name, int rc, const int64_t *v,
			 const int64_t *lo, const int64_t *hi, int n)
{
	int i;

	if (rc) {
		lope_fail(name, "rc %d", rc);
		return;
	}
	for (i = 0; i < n; i++) {
		if (v[i] < lo[i] || v[i] > hi[i]) {
			lope_fail(name,
				  "%s = %" PRId64 " not in [%" PRId64
				  ", %" PRId64 "]",
				  sw_name[i], v[i], lo[i], hi[i]);
			return;
		}
	}
	lope_pass(name);
}

/* PASS @name when @g's last read took read(2), as every read here must. */
static void check_read_path(const char *name, struct lope_group *g)
{
	enum lope_path path = lope_group__last_path(g);

	lope_check(path == LOPE_PATH_READ, name,
		   "last_path %d, want LOPE_PATH_READ", (int)path);
}

static void lifecycle(const struct config *c)
{
	struct lope_group *g;
	char name[200], vs[300];
	int64_t v0[NEV], v1[NEV], v2[NEV], w[NEV], lo[NEV], hi[NEV];
	int fds_before = fd_count(), fds_open;
	int i, j, rc, n = c->nev, ok;

	rc = make_group(&g, 0, c->flags, n);
	if (!lope_check(rc == 0, CASE("new_add_open"), "rc %d (%s)", rc,
			strerror(-rc)))
		return;
	fds_open = fd_count();
	lope_check(lope_group__nr(g) == n && fds_open == fds_before + n,
		   CASE("one_descriptor_per_event"),
		   "nr %d, %d new descriptors", lope_group__nr(g),
		   fds_open - fds_before);
	/* doc/design.md: software events are never mapped */
	lope_check(lope_group__nr_mapped(g) == 0,
		   CASE("software_events_not_mapped"), "nr_mapped %d, want 0",
		   lope_group__nr_mapped(g));

	ok = 1;
	for (i = 0; i < n && ok; i++) {
		if (lope_group__fd(g, i) < 0)
			ok = 0;
		for (j = 0; j < i; j++)
			if (lope_group__fd(g, i) == lope_group__fd(g, j))
				ok = 0;
	}
	lope_check(ok, CASE("descriptors_valid_and_distinct"), "fd(%d) = %d",
		   i - 1, lope_group__fd(g, i - 1));

	/* enable, work, read: everything grows, task-clock by its span */
	rc = lope_group__enable(g);
	lope_check(rc == 0, CASE("enable"), "rc %d", rc);
	span_clear(&clk);
	span_mark(&clk);
	rc = lope_group__read(g, v0);
	span_mark(&clk);
	busy(30);
	span_mark(&clk);
	rc |= lope_group__read(g, v1);
	span_mark(&clk);
	fmt_vals(vs, sizeof(vs), v1, n);
	lope_info("%s: after 30 ms busy: %s", c->name, vs);
	bounds(lo, hi, n, v0, UNBOUNDED);
	lo[EV_TASK_CLOCK] = v0[EV_TASK_CLOCK] + span_lo(&clk);
	hi[EV_TASK_CLOCK] = v0[EV_TASK_CLOCK] + span_hi(&clk);
	if (n > EV_PAGE_FAULTS)
		lo[EV_PAGE_FAULTS] = v0[EV_PAGE_FAULTS] + TOUCH_PAGES;
	if (n > EV_CTX_SWITCHES && !excl_kernel)
		lo[EV_CTX_SWITCHES] = v0[EV_CTX_SWITCHES] + SLEEPS;
	check_within(CASE("read_grows_by_busy_work"), rc, v1, lo, hi, n);
	check_read_path(CASE("software_events_read_with_read2"), g);

	/* monotonic without reset */
	ok = 1;
	memcpy(v0, v1, sizeof(v0));
	for (j = 0; j < 20 && ok; j++) {
		burn_ms(1);
		rc = lope_group__read(g, v2);
		for (i = 0; i < n; i++)
			if (rc || v2[i] < v0[i])
				ok = 0;
		memcpy(v0, v2, sizeof(v0));
	}
	lope_check(ok, CASE("reads_monotonic"),
		   "read %d: rc %d or a value went down", j, rc);

	/* reset: values restart near 0.  The group's first reset: no read
	 * before it was timed, so it samples anew (test_reset_reuse). */
	span_clear(&clk);
	span_mark(&clk);
	rc = lope_group__reset(g);
	span_mark(&clk);
	span_mark(&clk);
	rc |= lope_group__read(g, v2);
	span_mark(&clk);
	bounds(lo, hi, n, NULL, 2); /* a page fault or a switch may slip in */
	lo[EV_TASK_CLOCK] = span_lo(&clk);
	hi[EV_TASK_CLOCK] = span_hi(&clk);
	check_within(CASE("reset_restarts_near_0"), rc, v2, lo, hi, n);
	check_read_path(CASE("reset_last_path_read"), g);

	/* write: values read back from the written ones */
	for (i = 0; i < n; i++)
		w[i] = 1000000 * (i + 1);
	span_clear(&clk);
	span_mark(&clk);
	rc = lope_group__write(g, w);
	span_mark(&clk);
	span_mark(&clk);
	rc |= lope_group__read(g, v2);
	span_mark(&clk);
	bounds(lo, hi, n, w, 2);
	lo[EV_TASK_CLOCK] = w[EV_TASK_CLOCK] + span_lo(&clk);
	hi[EV_TASK_CLOCK] = w[EV_TASK_CLOCK] + span_hi(&clk);
	check_within(CASE("write_continues_from_written"), rc, v2, lo, hi, n);

	/* disable: values returned, the stopped counters do not move */
	burn_ms(5);
	rc = lope_group__read(g, v0);
	rc |= lope_group__disable(g, v1);
	ok = rc == 0;
	for (i = 0; i < n; i++)
		if (v1[i] < v0[i])
			ok = 0;
	fmt_vals(vs, sizeof(vs), v1, n);
	lope_check(ok, CASE("disable_returns_stop_values"), "rc %d; %s", rc,
		   vs);
	rc = lope_group__read(g, v0);
	busy(20);
	rc |= lope_group__read(g, v2);
	ok = rc == 0;
	for (i = 0; i < n; i++)
		if (v0[i] != v2[i] || v0[i] != 0)
			ok = 0;
	fmt_vals(vs, sizeof(vs), v2, n);
	lope_check(ok, CASE("disabled_counters_do_not_move"),
		   "rc %d; after 20 ms busy: %s", rc, vs);

	/* enable again: counting restarts from 0, not from the old values
	 * (the disable sampled after stopping: nothing to carry over) */
	span_clear(&clk);
	span_mark(&clk);
	rc = lope_group__enable(g);
	span_mark(&clk);
	busy(30);
	span_mark(&clk);
	rc |= lope_group__read(g, v2);
	span_mark(&clk);
	bounds(lo, hi, n, NULL, UNBOUNDED);
	lo[EV_TASK_CLOCK] = span_lo(&clk);
	hi[EV_TASK_CLOCK] = span_hi(&clk);
	if (n > EV_PAGE_FAULTS) {
		lo[EV_PAGE_FAULTS] = TOUCH_PAGES;
		hi[EV_PAGE_FAULTS] = TOUCH_PAGES + 20;
	}
	check_within(CASE("reenable_counts_from_0"), rc, v2, lo, hi, n);
	rc = lope_group__disable(g, NULL);
	lope_check(rc == 0, CASE("disable_null_values"), "rc %d", rc);

	/* close keeps the attributes; reopen works */
	lope_group__close(g);
	lope_check(lope_group__nr(g) == n && fd_count() == fds_before,
		   CASE("close_keeps_attributes"),
		   "nr %d, %d descriptors (before open %d)", lope_group__nr(g),
		   fd_count(), fds_before);
	rc = lope_group__open(g);
	span_clear(&clk);
	span_mark(&clk);
	if (rc == 0)
		rc = lope_group__enable(g);
	span_mark(&clk);
	busy(10);
	span_mark(&clk);
	if (rc == 0)
		rc = lope_group__read(g, v2);
	span_mark(&clk);
	lope_check(rc == 0 && span_holds(&clk, v2[EV_TASK_CLOCK]) &&
			   fd_count() == fds_before + n,
		   CASE("reopen_after_close_counts"),
		   "rc %d, task-clock %" PRId64 " (span [%lld, %lld]), %d "
		   "descriptors",
		   rc, rc ? 0 : v2[EV_TASK_CLOCK], span_lo(&clk), span_hi(&clk),
		   fd_count());
	lope_group__delete(g);
	lope_check(fd_count() == fds_before, CASE("delete_closes_everything"),
		   "%d descriptors, %d before", fd_count(), fds_before);
}

/* ------------------------------------------------------------------ */
/* LOPE_INHERIT: children forked after enable are counted              */

static pid_t fork_burner(int ms)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		burn_ms(ms);
		_exit(0);
	}
	return pid;
}

static int reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Every one of @n values is @want[i] (NULL: 0); else says which is not. */
static int all_equal(const int64_t *v, const int64_t *want, int n, char *why,
		     size_t len)
{
	int i;

	for (i = 0; i < n; i++) {
		int64_t w = want ? want[i] : 0;

		if (v[i] != w) {
			snprintf(why, len, "%s = %" PRId64 ", not %" PRId64,
				 sw_name[i], v[i], w);
			return 0;
		}
	}
	return 1;
}

/*
 * The stop after a read (PAPI_stop): the read's sample becomes the bases,
 * copied only when a later call needs them.  Every call after such a stop
 * must see what it would if they had been copied at once: the values
 * count from that read.
 */
static void stop_after_read(const struct config *c)
{
	struct lope_group *g;
	struct lope_counts stop[NEV], raw[NEV];
	struct span tail;
	char name[200], why[400] = "";
	int64_t v0[NEV], v1[NEV], v2[NEV], w[NEV], carried;
	int i, rc, n = c->nev;

	rc = make_group(&g, 0, c->flags, n);
	if (!lope_check(rc == 0, CASE("stop_after_read_open"), "rc %d (%s)", rc,
			strerror(-rc)))
		return;
	rc = lope_group__disable_after_read(g);
	lope_check(rc == 0, CASE("stop_after_read_no_read_since_open"), "rc %d",
		   rc);

	/* What the counters add between the read and the disable (the
	 * stop's own system call) is not in the read: it is counted from
	 * the read's sample, the bases, and goes to the next interval.
	 * Spans: clk from the enable to the read, tail from the read to the
	 * disable (what the values show after it). */
	if (span_open(&tail, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0) {
		lope_fail(CASE("stop_after_read_span"), "%s", strerror(errno));
		lope_group__delete(g);
		return;
	}
	span_clear(&clk);
	span_mark(&clk);
	rc = lope_group__enable(g);
	span_mark(&clk);
	busy(10);
	span_mark(&clk);
	span_mark(&tail);
	rc |= lope_group__read(g, v0);
	span_mark(&tail);
	span_mark(&clk);
	span_mark(&tail);
	rc |= lope_group__disable_after_read(g);
	span_mark(&tail);
	rc |= lope_group__disable_after_read(g); /* the same sample: a no-op */
	rc |= lope_group__last_counts(g, stop);
	rc |= lope_group__read(g, v1);
	busy(10);
	rc |= lope_group__read(g, v2);
	lope_check(rc == 0 && span_holds(&clk, v0[EV_TASK_CLOCK]) &&
			   all_equal(v2, v1, n, why, sizeof(why)) &&
			   span_holds(&tail, v1[EV_TASK_CLOCK]),
		   CASE("stop_after_read_values_do_not_move"),
		   "rc %d, task-clock %" PRId64 " before the stop (span "
		   "[%lld, %lld]), %" PRId64 " after (span [%lld, %lld]); %s",
		   rc, v0[EV_TASK_CLOCK], span_lo(&clk), span_hi(&clk),
		   v1[EV_TASK_CLOCK], span_lo(&tail), span_hi(&tail), why);
	span_close(&tail);
	carried = v1[EV_TASK_CLOCK];
	rc = lope_group__read_raw(g, raw);
	for (i = 0; i < n && rc == 0; i++)
		if ((int64_t)(raw[i].val - stop[i].val) != v1[i])
			rc = -ERANGE;
	lope_check(rc == 0, CASE("stop_after_read_counts_from_the_read"),
		   "rc %d: %s is not its count less the read's", rc,
		   i ? sw_name[i - 1] : "-");
	/* The next interval: what the stop carried over, then the span
	 * from the enable to the read; not the values before the stop. */
	span_clear(&clk);
	span_mark(&clk);
	rc = lope_group__enable(g);
	span_mark(&clk);
	busy(10);
	span_mark(&clk);
	rc |= lope_group__read(g, v1);
	span_mark(&clk);
	lope_check(rc == 0 && span_holds(&clk, v1[EV_TASK_CLOCK] - carried),
		   CASE("stop_after_read_next_enable_from_0"),
		   "rc %d, task-clock %" PRId64 ": %" PRId64
		   " carried over and the span [%lld, %lld]",
		   rc, v1[EV_TASK_CLOCK], carried, span_lo(&clk),
		   span_hi(&clk));

	for (i = 0; i < n; i++)
		w[i] = 1000 + i;
	rc = lope_group__read(g, v0);
	rc |= lope_group__disable_after_read(g);
	rc |= lope_group__write(g, w);
	rc |= lope_group__read(g, v1);
	lope_check(rc == 0 && all_equal(v1, w, n, why, sizeof(why)),
		   CASE("stop_after_read_write_read_back"), "rc %d; %s", rc,
		   why);
	rc = lope_group__reset(g);
	rc |= lope_group__read(g, v1);
	lope_check(rc == 0 && all_equal(v1, NULL, n, why, sizeof(why)),
		   CASE("stop_after_read_reset_gives_0"), "rc %d; %s", rc, why);
	rc = lope_group__disable(g, v1);
	lope_check(rc == 0 && all_equal(v1, NULL, n, why, sizeof(why)),
		   CASE("stop_after_read_disable_gives_0"), "rc %d; %s", rc,
		   why);

	lope_group__close(g);
	lope_check(lope_group__disable_after_read(g) == -EBADF &&
			   lope_group__read(g, v1) == -EBADF &&
			   lope_group__reset(g) == -EBADF &&
			   lope_group__write(g, w) == -EBADF &&
			   lope_group__enable(g) == -EBADF,
		   CASE("stop_after_read_closed_is_ebadf"),
		   "a call was accepted");
	lope_group__delete(g);
}

static void test_inherit(void)
{
	static const struct {
		unsigned int flags;
		int nev;
		int counted;
	} rows[] = {
		{ LOPE_INHERIT, 1, 1 },
		{ LOPE_INHERIT, 4, 1 },
		{ LOPE_INHERIT | LOPE_SEPARATE, 4, 1 },
		{ 0, 4, 0 },
	};
	unsigned int r;

	for (r = 0; r < ARRAY_SIZE(rows); r++) {
		struct lope_group *g;
		struct span sp;
		int64_t v[NEV];
		char name[160];
		pid_t pid;
		int rc;

		lope_name(name, sizeof(name),
			  "inherit_flags_%#x_%d_events_busy_child_%s",
			  rows[r].flags, rows[r].nev,
			  rows[r].counted ? "counted" : "not_counted");
		rc = make_group(&g, 0, rows[r].flags, rows[r].nev);
		if (rc) {
			lope_fail(name, "open rc %d (%s)", rc, strerror(-rc));
			continue;
		}
		/* The reference: this thread's task-clock, with the child's
		 * when the row counts it (its count joins ours at its exit,
		 * before the reap). */
		if (span_open(&sp, PERF_COUNT_SW_TASK_CLOCK, 0,
			      rows[r].counted) < 0) {
			lope_fail(name, "span: %s", strerror(errno));
			lope_group__delete(g);
			continue;
		}
		span_mark(&sp);
		rc = lope_group__enable(g);
		span_mark(&sp);
		pid = fork_burner(200);
		if (pid < 0 || reap(pid) < 0) {
			lope_fail(name, "child failed");
			span_close(&sp);
			lope_group__delete(g);
			continue;
		}
		span_mark(&sp);
		rc |= lope_group__read(g, v);
		span_mark(&sp);
		if (rc)
			lope_fail(name, "rc %d", rc);
		else if (!span_holds(&sp, v[EV_TASK_CLOCK]))
			lope_fail(name,
				  "task-clock %" PRId64 " ns after a child "
				  "burned 200 ms; ours%s: [%lld, %lld] ns",
				  v[EV_TASK_CLOCK],
				  rows[r].counted ? " and the child's" : "",
				  span_lo(&sp), span_hi(&sp));
		else
			check_read_path(name, g);
		lope_info("inherit flags %#x: task-clock %" PRId64
			  " ns, nr_mapped %d",
			  rows[r].flags, v[EV_TASK_CLOCK],
			  lope_group__nr_mapped(g));
		span_close(&sp);
		lope_group__delete(g);
	}
}

/* ------------------------------------------------------------------ */
/* A mappable event (msr/tsc): mapped, guarded, read with read(2)      */

static void test_mappable(void)
{
	static const struct {
		unsigned int flags;
		int nsw;         /* software events after the tsc */
		int want_mapped; /* -1: not specified */
	} rows[] = {
		{ 0, 0, 1 },
		{ 0, 2, 1 },
		{ LOPE_SEPARATE, 2, 1 },
		/* never read in user space: not mapped, not asked for */
		{ LOPE_NO_RDPMC, 0, 0 },
		{ LOPE_NO_RDPMC, 2, 0 },
		{ LOPE_INHERIT, 0, 0 },
	};
	unsigned int r;

	if (!have_tsc) {
		lope_skip("mappable_event_msr_tsc", "%s", tsc_why);
		return;
	}
	for (r = 0; r < ARRAY_SIZE(rows); r++) {
		struct perf_event_attr a[NEV + 1];
		struct lope_group *g;
		int64_t v0[NEV + 1], v1[NEV + 1];
		char name[200];
		int rc, n = mixed_attrs(a, rows[r].nsw), mapped;

		lope_name(name, sizeof(name),
			  "mappable_event_msr_tsc_and_%d_software_flags_%#x",
			  rows[r].nsw, rows[r].flags);
		rc = make_group_attrs(&g, 0, rows[r].flags, a, n);
		if (rc) {
			lope_fail(name, "open rc %d (%s)", rc, strerror(-rc));
			continue;
		}
		mapped = lope_group__nr_mapped(g);
		rc = lope_group__enable(g);
		rc |= lope_group__read(g, v0);
		burn_ms(5);
		rc |= lope_group__read(g, v1);
		if (rc)
			lope_fail(name, "rc %d", rc);
		else if (rows[r].want_mapped >= 0 &&
			 mapped != rows[r].want_mapped)
			lope_fail(name, "nr_mapped %d, want %d", mapped,
				  rows[r].want_mapped);
		else if (v1[0] <= v0[0] || v0[0] < 0)
			lope_fail(name,
				  "tsc did not advance: %" PRId64
				  " then %" PRId64,
				  v0[0], v1[0]);
		else /* the page forbids rdpmc */
			check_read_path(name, g);
		lope_info("msr/tsc flags %#x: nr_mapped %d, tsc %" PRId64
			  " cycles over 5 ms busy",
			  rows[r].flags, mapped, v1[0] - v0[0]);
		lope_group__delete(g);
	}
}

/*
 * A forked child is another thread: lope.h says it reads with read(2).
 * The kernel does not copy perf mappings into the child, so a child that
 * touched the parent's page would die of SIGSEGV.
 */
static void test_fork_read(void)
{
	struct perf_event_attr a[NEV + 1];
	struct lope_group *g;
	int64_t v[NEV + 1];
	const char *name = "fork_child_reads_with_read2";
	pid_t pid;
	int rc, status, n;

	/* only mappable events, so that the owner would read the pages */
	if (have_tsc) {
		a[0] = tsc_attr;
		a[1] = tsc_attr;
		n = 2;
	} else {
		n = mixed_attrs(a, 2);
	}
	rc = make_group_attrs(&g, 0, 0, a, n);
	if (rc) {
		lope_fail(name, "open rc %d", rc);
		return;
	}
	rc = lope_group__enable(g);
	rc |= lope_group__read(g, v); /* the parent caches its tid */
	if (rc) {
		lope_fail(name, "parent rc %d", rc);
		lope_group__delete(g);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };

		(void)setrlimit(RLIMIT_CORE, &no_core);
		rc = lope_group__read(g, v);
		_exit(rc == 0 && lope_group__last_path(g) == LOPE_PATH_READ ?
			      0 :
			      1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		lope_fail(name, "fork/wait failed: %s", strerror(errno));
	else if (WIFSIGNALED(status))
		lope_fail(name, "child killed by signal %d (%s)",
			  WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (WEXITSTATUS(status) != 0)
		lope_fail(name, "child read failed or took the rdpmc path");
	else if (!have_tsc)
		lope_skip(name,
			  "no mappable event here (%s), so the child "
			  "had no page to touch",
			  tsc_why);
	else
		lope_pass(name);
	lope_group__delete(g);
}

/* ------------------------------------------------------------------ */
/* Resources: descriptors and mappings, on success and on failure      */

static const struct fail_row {
	unsigned int flags;
	int bad_at; /* position of the invalid event among 4 */
} fail_rows[] = {
	{ 0, 0 },
	{ 0, 3 },
	{ LOPE_SEPARATE, 0 },
	{ LOPE_SEPARATE, 2 },
	{ LOPE_INHERIT, 3 },
};

static void cycle_once(void)
{
	struct perf_event_attr a[NEV + 1];
	struct lope_group *g;
	int64_t v[NEV + 1];
	int n = mixed_attrs(a, NEV);

	if (make_group_attrs(&g, 0, 0, a, n))
		return;
	lope_group__enable(g);
	lope_group__read(g, v);
	lope_group__disable(g, v);
	lope_group__close(g);
	lope_group__open(g);
	lope_group__delete(g);
}

static void test_leaks(void)
{
	int fds0, maps0, fds1, maps1;
	unsigned int r;

	cycle_once(); /* warm up malloc and friends */
	fds0 = fd_count();
	maps0 = maps_count(NULL);
	cycle_once();
	fds1 = fd_count();
	maps1 = maps_count(NULL);
	lope_check(fds0 == fds1 && maps0 == maps1,
		   have_tsc ? "resources_cycle_msr_tsc_leaves_nothing" :
			      "resources_cycle_leaves_no_descriptor",
		   "descriptors %d -> %d, maps lines %d -> %d", fds0, fds1,
		   maps0, maps1);

	for (r = 0; r < ARRAY_SIZE(fail_rows); r++) {
		const struct fail_row *f = &fail_rows[r];
		struct perf_event_attr a[NEV + 1];
		struct lope_group *g;
		char name[160];
		int i, n, rc, fds_after, maps_after;

		lope_name(name, sizeof(name),
			  "resources_failed_open_flags_%#x_bad_at_%d", f->flags,
			  f->bad_at);
		rc = lope_group__new(&g, 0, -1, f->flags);
		if (rc) {
			lope_fail(name, "new rc %d", rc);
			continue;
		}
		/* [msr/tsc,] software events: a mapped page to clean up */
		n = mixed_attrs(a, have_tsc ? NEV - 1 : NEV);
		a[f->bad_at].type = 0xdead;
		for (i = 0; i < n; i++)
			lope_group__add(g, &a[i]);
		fds0 = fd_count();
		maps0 = maps_count(NULL);
		rc = lope_group__open(g);
		fds_after = fd_count();
		maps_after = maps_count(NULL);
		if (rc >= 0)
			lope_fail(name, "open of type 0xdead succeeded (rc %d)",
				  rc);
		else if (fds_after != fds0 || maps_after != maps0)
			lope_fail(name,
				  "rc %d but descriptors %d -> %d, maps "
				  "%d -> %d",
				  rc, fds0, fds_after, maps0, maps_after);
		else
			lope_pass(name);
		lope_group__delete(g);
	}
	lope_info("resources: %d descriptors, %d maps lines at the end",
		  fd_count(), maps_count(NULL));
}

/* ------------------------------------------------------------------ */
/* No page fault on the measuring path                                 */

/*
 * Control for test_minflt: does touching a freshly mapped perf page (no
 * MAP_POPULATE) fault on this kernel?  Linux 6.15 and later insert the
 * pages at mmap time, so there the pre-faulting cannot be seen missing.
 * Returns the number of minor faults, or -1.
 */
static long first_touch_faults(void)
{
	struct perf_event_attr a;
	struct rusage ru0, ru1;
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	volatile struct perf_event_mmap_page *pc;
	int fd;

	sw_attr(&a, EV_TASK_CLOCK);
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	pc = mmap(NULL, ps, PROT_READ, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED) {
		close(fd);
		return -1;
	}
	getrusage(RUSAGE_THREAD, &ru0);
	getrusage(RUSAGE_THREAD, &ru0);
	(void)pc->lock;
	getrusage(RUSAGE_THREAD, &ru1);
	munmap((void *)pc, ps);
	close(fd);
	return ru1.ru_minflt - ru0.ru_minflt;
}

static void test_minflt(void)
{
	struct perf_event_attr a[NEV + 1];
	struct lope_group *g;
	struct rusage ru0, ru1;
	int64_t v[NEV + 1];
	long ctl;
	int rc, n;

	/*
	 * With only mappable events the read looks at every page (and falls
	 * back to read(2) because the page forbids rdpmc): a page that was
	 * not pre-faulted would fault right there.
	 */
	if (have_tsc) {
		a[0] = tsc_attr;
		a[1] = tsc_attr;
		n = 2;
	} else {
		n = mixed_attrs(a, NEV);
	}
	ctl = first_touch_faults();
	if (ctl == 0)
		lope_info("page faults: this kernel maps perf pages at mmap "
			  "time, so a missing pre-fault would go unnoticed");
	else
		lope_info("page faults: first touch of an unpopulated perf "
			  "page takes %ld fault(s) here",
			  ctl);
	rc = make_group_attrs(&g, 0, 0, a, n);
	if (rc) {
		lope_fail("page_faults_enable_first_read_take_none",
			  "open rc %d", rc);
		return;
	}
	memset(v, 0, sizeof(v));
	getrusage(RUSAGE_THREAD, &ru0); /* warm up */
	getrusage(RUSAGE_THREAD, &ru0);
	rc = lope_group__enable(g);
	rc |= lope_group__read(g, v);
	getrusage(RUSAGE_THREAD, &ru1);
	lope_check(rc == 0 && ru1.ru_minflt == ru0.ru_minflt &&
			   ru1.ru_majflt == ru0.ru_majflt,
		   have_tsc ? "page_faults_enable_first_read_take_none_tsc" :
			      "page_faults_enable_first_read_take_none",
		   "rc %d, %ld minor / %ld major faults", rc,
		   ru1.ru_minflt - ru0.ru_minflt,
		   ru1.ru_majflt - ru0.ru_majflt);
	lope_group__delete(g);
}

/* ------------------------------------------------------------------ */
/* Bad inputs (only the documented contract: negative errno, no crash) */

static void test_bad_inputs(void)
{
	struct perf_event_attr a;
	struct lope_group *g = NULL;
	int64_t v[NEV];
	int rc;

	lope_group__delete(NULL);
	lope_pass("bad_inputs_delete_null_accepted");

	rc = lope_group__new(&g, 0, -1, 0);
	if (!lope_check(rc == 0 && g, "bad_inputs_new", "rc %d", rc))
		return;
	sw_attr(&a, EV_TASK_CLOCK);
	lope_group__add(g, &a);
	rc = lope_group__enable(g);
	lope_check(rc < 0, "bad_inputs_enable_before_open", "rc %d", rc);
	rc = lope_group__read(g, v);
	lope_check(rc < 0, "bad_inputs_read_before_open", "rc %d", rc);
	rc = lope_group__open(g);
	if (!lope_check(rc == 0, "bad_inputs_open", "rc %d", rc)) {
		lope_group__delete(g);
		return;
	}
	rc = lope_group__add(g, &a);
	lope_check(rc < 0 && lope_group__nr(g) == 1,
		   "bad_inputs_add_on_open_group", "rc %d, nr %d", rc,
		   lope_group__nr(g));
	rc = lope_group__open(g);
	lope_check(rc < 0, "bad_inputs_open_twice", "rc %d", rc);
	rc = lope_group__read(NULL, v);
	lope_check(rc < 0, "bad_inputs_read_null_group", "rc %d", rc);
	rc = lope_group__read(g, NULL);
	lope_check(rc < 0, "bad_inputs_read_into_null", "rc %d", rc);
	rc = lope_group__write(g, NULL);
	lope_check(rc < 0, "bad_inputs_write_from_null", "rc %d", rc);
	lope_group__delete(g);
}

/* ------------------------------------------------------------------ */

static void test_rdpmc_usable(void)
{
	char why[256];
	int have_cpu_pmu, r;

	have_cpu_pmu = lope_core_pmu() != NULL;
	memset(why, 0, sizeof(why));
	r = lope_rdpmc_usable(why, sizeof(why));
	lope_info("lope_rdpmc_usable: %d (%s)", r, why);
	if (have_cpu_pmu)
		lope_check(r <= 0 && why[0], "rdpmc_usable_gives_a_reason",
			   "returned %d, reason \"%s\"", r, why);
	else
		lope_check(r == -ENODEV && why[0],
			   "rdpmc_usable_enodev_without_core_pmu",
			   "returned %d, reason \"%s\"", r, why);
	/* a tiny buffer is fine (the reason is truncated) */
	r = lope_rdpmc_usable(why, 4);
	lope_check(r <= 0 && strlen(why) < 4, "rdpmc_usable_reason_truncated",
		   "returned %d, reason length %zu", r, strlen(why));
}

/* lope_probe and lope_probe_counters ask the kernel and leave nothing open. */
static void test_probe(void)
{
	struct perf_event_attr a;
	int fds = fd_count(), n, hw;

	sw_attr(&a, EV_TASK_CLOCK);
	lope_check(lope_probe(&a, 0, -1) == 0, "probe_task_clock_accepted",
		   "refused");
	a.type = 0x7fffffff;
	n = lope_probe(&a, 0, -1);
	lope_check(n < 0, "probe_unknown_pmu_type_refused", "returned %d", n);
	lope_check(lope_probe(NULL, 0, -1) == -EINVAL, "probe_null_attr_einval",
		   "accepted");
	sw_attr(&a, EV_TASK_CLOCK);
	n = lope_probe_counters(&a, 5);
	lope_check(n == 5, "probe_counters_software_need_none", "%d of 5", n);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.exclude_kernel = 1;
	hw = lope_probe_counters(&a, 64);
	lope_info("probe_counters: %d hardware cycles counters in one group",
		  hw);
	if (lope_core_pmu())
		lope_check(hw >= 1 && hw < 64,
			   "probe_counters_core_pmu_has_some", "%d", hw);
	else
		lope_check(hw == 0, "probe_counters_none_without_core_pmu",
			   "%d", hw);
	lope_check(lope_probe_counters(&a, -1) == -EINVAL &&
			   lope_probe_counters(NULL, 4) == -EINVAL,
		   "probe_counters_bad_arguments_einval", "accepted");
	lope_check(fd_count() == fds, "probe_no_descriptor_left",
		   "%d before, %d after", fds, fd_count());
}

/* lope_group__last_counts: the read's own sample, no new one. */
static void test_last_counts(void)
{
	struct lope_counts raw[2], last[2];
	struct lope_group *g;
	int err;

	if (make_group(&g, 0, 0, 2)) {
		lope_fail("last_counts_open", "cannot open a group");
		return;
	}
	err = lope_group__enable(g);
	lope_check(!err && lope_group__last_counts(g, last) == -ENODATA,
		   "last_counts_none_since_enable", "err %d", err);
	busy(2);
	err = lope_group__read_raw(g, raw);
	busy(2);
	if (!err)
		err = lope_group__last_counts(g, last);
	lope_check(!err && !memcmp(raw, last, sizeof(raw)),
		   "last_counts_last_read_values", "err %d", err);
	lope_check(lope_group__last_counts(g, NULL) == -EINVAL &&
			   lope_group__last_counts(NULL, last) == -EINVAL,
		   "last_counts_bad_arguments_einval", "accepted");
	lope_group__close(g);
	lope_check(lope_group__last_counts(g, last) == -EBADF,
		   "last_counts_closed_is_ebadf", "not refused");
	lope_group__delete(g);
}

/*
 * Can this process count software events at all?  Decide exclude_kernel
 * (kernel-side counting lets context switches count), or SKIP all.
 */
static int probe(char *why, size_t len)
{
	struct perf_event_attr a;
	int fd;

	excl_kernel = 0;
	sw_attr(&a, EV_TASK_CLOCK);
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		excl_kernel = 1;
		sw_attr(&a, EV_TASK_CLOCK);
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
		if (fd >= 0)
			lope_info("kernel-side counting refused: "
				  "exclude_kernel=1, context switches not "
				  "checked");
	}
	if (fd < 0) {
		snprintf(why, len,
			 "perf_event_open(task-clock) failed: %s "
			 "(perf_event_paranoid?)",
			 strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

int main(void)
{
	char why[256];
	unsigned int i;

	if (probe(why, sizeof(why))) {
		lope_skip("group_software_events", "%s", why);

		return lope_done();
	}
	if (span_open(&clk, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0) {
		lope_fail("span_task_clock", "%s", strerror(errno));
		return lope_done();
	}
	probe_tsc();
	if (have_tsc)
		lope_info("mappable event: msr/tsc (type %u)", tsc_attr.type);
	else
		lope_info("no mappable event: %s", tsc_why);
	test_rdpmc_usable();
	test_probe();
	test_last_counts();
	test_minflt();
	for (i = 0; i < ARRAY_SIZE(configs); i++) {
		lifecycle(&configs[i]);
		stop_after_read(&configs[i]);
	}
	test_inherit();
	test_mappable();
	test_fork_read();
	test_leaks();
	test_bad_inputs();
	span_close(&clk);
	return lope_done();
}
