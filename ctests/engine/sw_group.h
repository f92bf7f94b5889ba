/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Groups of the calling thread's software events (task-clock, page-faults,
 * context-switches, cpu-migrations) and the work that moves them: what
 * the engine's group tests (test_group_*.c) share, each one program of a
 * file: so the state is static here and the helpers are static inline.
 * Software events are never readable in user space, so every read takes
 * read(2).
 */
#ifndef LOPE_TEST_SW_GROUP_H
#define LOPE_TEST_SW_GROUP_H

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "lope.h"
#include "report.h"
#include "span.h"

enum { EV_TASK_CLOCK, EV_PAGE_FAULTS, EV_CTX_SWITCHES, EV_MIGRATIONS, NEV };

#define TOUCH_PAGES 64 /* page faults caused per busy() */
#define SLEEPS 3       /* context switches caused per busy() */

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

/* exclude_kernel for our attributes (1 if the kernel refuses 0). */
static int excl_kernel;

/* This thread's own task-clock, the reference of every time (span.h). */
static struct span clk;

/*
 * A mappable event that is not a software event: the x86 msr PMU's tsc.
 * The kernel maps its page but never lets user space read it (index 0),
 * so it exercises mapping, pre-faulting and the fall-back to read(2) on a
 * machine without a core PMU.  have_tsc 0: tsc_why says why not.
 */
static struct perf_event_attr tsc_attr;
static int have_tsc;
static char tsc_why[256];

static inline void sw_attr(struct perf_event_attr *a, int ev)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = sw_config[ev];
	a->exclude_kernel = (unsigned int)excl_kernel;
	a->exclude_hv = 1;
}

/* Spin until this thread has used @ms more milliseconds of CPU. */
static inline void burn_ms(int ms)
{
	busy_ns(ms * MS);
}

/* Give up the CPU SLEEPS times (voluntary context switches). */
static inline void sleep_a_bit(void)
{
	struct timespec ts = { 0, 1000 * 1000 };
	int i;

	for (i = 0; i < SLEEPS; i++)
		nanosleep(&ts, NULL);
}

/* Work that every event notices: CPU time, page faults, switches. */
static inline void busy(int ms)
{
	burn_ms(ms);
	(void)touch_pages(TOUCH_PAGES);
	sleep_a_bit();
}

/* Create a group of @n events from @attrs and open it. */
static inline int make_group_attrs(struct lope_group **gp, pid_t pid,
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
static inline int make_group(struct lope_group **gp, pid_t pid,
			     unsigned int flags, int nev)
{
	struct perf_event_attr a[NEV];
	int i;

	for (i = 0; i < nev; i++)
		sw_attr(&a[i], i);
	return make_group_attrs(gp, pid, flags, a, nev);
}

static inline void probe_tsc(void)
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
static inline int mixed_attrs(struct perf_event_attr *a, int nsw)
{
	int i, n = 0;

	if (have_tsc)
		a[n++] = tsc_attr;
	for (i = 0; i < nsw; i++)
		sw_attr(&a[n++], i);
	return n;
}

static inline void fmt_vals(char *buf, size_t len, const int64_t *v, int n)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%" PRId64,
					i ? " " : "", sw_name[i], v[i]);
}

/* PASS @name when @g's last read took read(2), as every read here must. */
static inline void check_read_path(const char *name, struct lope_group *g)
{
	enum lope_path path = lope_group__last_path(g);

	lope_check(path == LOPE_PATH_READ, name,
		   "last_path %d, want LOPE_PATH_READ", (int)path);
}

/*
 * Can this process count software events at all?  Decide exclude_kernel
 * (kernel-side counting lets context switches count), open clk and look
 * for msr/tsc; -1 with @why when the test must SKIP (or FAIL: @fail set).
 */
static inline int sw_group_init(char *why, size_t len, int *fail)
{
	struct perf_event_attr a;
	int fd;

	*fail = 0;
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
	if (span_open(&clk, PERF_COUNT_SW_TASK_CLOCK, 0, 0) < 0) {
		snprintf(why, len, "span of task-clock: %s", strerror(errno));
		*fail = 1;
		return -1;
	}
	probe_tsc();
	if (have_tsc)
		lope_info("mappable event: msr/tsc (type %u)", tsc_attr.type);
	else
		lope_info("no mappable event: %s", tsc_why);
	return 0;
}

/*
 * A group test's main: sw_group_init(), reported, then each of @tests
 * (@n of them) in order; the exit status.
 */
static inline int sw_group_run(void (*const *tests)(void), size_t n)
{
	char why[256];
	size_t i;
	int fail;

	if (sw_group_init(why, sizeof(why), &fail)) {
		if (fail)
			lope_fail("span_task_clock", "%s", why);
		else
			lope_skip("group_software_events", "%s", why);
		return lope_done();
	}
	for (i = 0; i < n; i++)
		tests[i]();
	span_close(&clk);
	return lope_done();
}

#endif /* LOPE_TEST_SW_GROUP_H */
