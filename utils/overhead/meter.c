/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The timer and counter meters, and the lines every meter sends.
 *
 * timer: the serialised clock (timer.h) just before and just after each
 * call; the system calls are counted in a pass of their own, so that
 * reading their counter never lands between two timed calls.
 *
 * counter: the worker's own hardware instructions counter (user and
 * kernel, nothing excluded), read from its self-monitoring page where the
 * kernel allows it (lopelib_mmap__read with the engine's per-arch reader)
 * and with read(2) otherwise, and the raw_syscalls:sys_enter tracepoint,
 * both read just before and just after each call; what the reads
 * themselves add is the same for the empty function and cancels in the
 * difference.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mmap_read.h"

#include "overhead.h"
#include "timer.h"

/* The counter meter's: its instructions counter (-1: none), that
 * counter's page where it can be read in user space, its system calls
 * counter (-1: none). */
static int ins_fd = -1, sys_fd = -1;
static void *ins_page;

/* The instructions so far; a counter the kernel could not keep running
 * (pinned, so in error state) fails the case. */
static uint64_t ins_now(struct meter *m)
{
	struct lope_counts c;
	uint64_t buf[3];

	if (ins_page &&
	    lopelib_mmap__read(ins_page, &lopelib_hw_reader, &c, NULL) == 0)
		return c.val;
	if (read(ins_fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		m->failed = 1;
		return 0;
	}
	return buf[0];
}

static uint64_t sys_now(struct meter *m)
{
	uint64_t v = 0;

	if (read(sys_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		m->failed = 1;
	return v;
}

static void cnt_on(struct meter *m)
{
	if (sys_fd >= 0)
		m->s0 = sys_now(m);
	if (ins_fd >= 0)
		m->v0 = ins_now(m);
}

static void cnt_off(struct meter *m)
{
	uint64_t ins = ins_fd >= 0 ? ins_now(m) - m->v0 : 0;

	meter_record(m, ins, sys_fd >= 0 ? sys_now(m) - m->s0 : 0);
}

static void timer_on(struct meter *m)
{
	m->v0 = now();
}

static void timer_off(struct meter *m)
{
	meter_record(m, now() - m->v0, 0);
}

void meter_begin(struct meter *m, const char *label, long n)
{
	if (n > m->cap) {
		m->calls = xrealloc(m->calls, (size_t)n, sizeof(*m->calls));
		m->cap = n;
	}
	m->n = 0;
	m->failed = 0;
	scopy(m->label, sizeof(m->label), label);
}

void meter_record(struct meter *m, uint64_t val, uint64_t sys)
{
	if (m->n >= m->cap)
		return;
	m->calls[m->n][C_SYS] = sys;
	m->calls[m->n][C_VAL] = val;
	m->calls[m->n][C_EXTRA] = 0;
	m->n++;
}

void meter_extra(struct meter *m, uint64_t extra)
{
	if (m->n > 0)
		m->calls[m->n - 1][C_EXTRA] = extra;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Count @f of @m's calls as "n,sum,min,max,p10,p25,p50,p75,p90" (the
 * least and the most are quantiles 0 and 1), or "-" if not @counted. */
static void stats_str(char *buf, size_t len, const struct meter *m, int f,
		      int counted)
{
	static const double q[] = { 0, 1, 0.1, 0.25, 0.5, 0.75, 0.9 };
	uint64_t *s, sum = 0;
	size_t l = 0;
	long i;

	if (!counted || !m->n) {
		snprintf(buf, len, "-");
		return;
	}
	s = xcalloc((size_t)m->n, sizeof(*s));
	for (i = 0; i < m->n; i++) {
		s[i] = m->calls[i][f];
		sum += s[i];
	}
	qsort(s, (size_t)m->n, sizeof(*s), cmp_u64);
	append(buf, len, &l, "%ld,%llu", m->n, (unsigned long long)sum);
	for (i = 0; i < (long)ARRAY_SIZE(q); i++)
		append(buf, len, &l, ",%llu",
		       (unsigned long long)s[quantile_at(m->n, q[i])]);
	free(s);
}

/* Calls' counts, by system calls then value (C_SYS, C_VAL). */
static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] != y[0] ? cmp_u64(x, y) : cmp_u64(x + 1, y + 1);
}

/* The calls' paths (sorting the calls, their statistics taken), by the
 * system calls they made, fewest first: how many, least and most counts. */
static void emit_paths(struct meter *m)
{
	uint64_t(*p)[NCOUNTS] = m->calls;
	long i, j, npaths = 0;

	qsort(p, (size_t)m->n, sizeof(*p), cmp_pair);
	for (i = 0; i < m->n && npaths++ < MAX_PATHS; i = j) {
		for (j = i; j < m->n && p[j][C_SYS] == p[i][C_SYS]; j++)
			;
		emit("path %s %llu %ld %llu %llu", m->label,
		     (unsigned long long)p[i][C_SYS], j - i,
		     (unsigned long long)p[i][C_VAL],
		     (unsigned long long)p[j - 1][C_VAL]);
	}
}

void meter_end(struct meter *m)
{
	const struct meter *s = m->apart ? m->apart : m;
	char val[160], sys[160], extra[160];

	if (m->failed || s->failed) {
		emit("err %s a counter could not be read (multiplexed?)",
		     m->label);
		return;
	}
	stats_str(val, sizeof(val), m, C_VAL, m->val_counted);
	stats_str(sys, sizeof(sys), s, C_SYS, s->sys_counted);
	stats_str(extra, sizeof(extra), m, C_EXTRA, 1);
	emit("case %s %ld %s %s %s", m->label, m->n, val, sys, extra);
	if (m->exact && m->val_counted)
		emit_paths(m);
}

/* The instructions counter, user and kernel; its fd, or -1 with why. */
static int ins_fd_open(char *why, size_t len)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.pinned = 1, /* never multiplexed away while measuring */
		/* Enabled once mapped (ins_open): a RISC-V kernel grants user
		 * access when the page is mapped and shows it from the next
		 * enable. */
		.disabled = 1,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	int fd;

	lopelib_arch_prepare_attr(&a);
	fd = perf_open(&a, -1);
	if (fd < 0)
		snprintf(why, len,
			 "perf_event_open(hardware instructions, user and "
			 "kernel): %s%s",
			 strerror(errno),
			 errno == ENOENT || errno == EOPNOTSUPP ?
				 " (no hardware PMU)" :
			 errno == EACCES || errno == EPERM ?
				 " (counting the kernel too needs "
				 "perf_event_paranoid <= 1 or CAP_PERFMON)" :
				 "");
	return fd;
}

int counter_probe(char *why, size_t len)
{
	int fd = ins_fd_open(why, len);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* Open the instructions counter; 0, or -1 with why. */
static int ins_open(char *why, size_t len)
{
	volatile struct perf_event_mmap_page *pc;
	void *p;

	ins_fd = ins_fd_open(why, len);
	if (ins_fd < 0)
		return -1;
	p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
		 ins_fd, 0);
	pc = p == MAP_FAILED || lopelib_guard__install() ? NULL : p;
	if (ioctl(ins_fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
		snprintf(why, len,
			 "ioctl(ENABLE) of the instructions counter: %s",
			 strerror(errno));
		return -1;
	}
	if (pc && pc->cap_user_rdpmc && pc->index)
		ins_page = p;
	snprintf(why, len,
		 "ok: hardware instructions, user and kernel, read %s around "
		 "each call",
		 ins_page ? "in user space" : "with read(2)");
	return 0;
}

static struct meter counter_meter = {
	.on = cnt_on,
	.off = cnt_off,
	.exact = 1,
	.interleave = 1,
};

static struct meter timer_meter = {
	.on = timer_on,
	.off = timer_off,
	.val_counted = 1,
};

struct meter *meter_counter(const char *name, char *why, size_t len)
{
	struct meter *m = &counter_meter;
	char sys_why[256];

	if (!strcmp(name, "counter") && ins_open(why, len))
		return NULL;
	sys_fd = syscall_counter_open(sys_why, sizeof(sys_why));
	m->val_counted = ins_fd >= 0;
	m->sys_counted = sys_fd >= 0;
	emit("info sys %s", sys_fd >= 0 ? "ok" : sys_why);
	if (!strcmp(name, "timer")) {
		snprintf(why, len,
			 "ok: " TIMER_NAME " around each call, in " TIMER_UNIT);
		timer_meter.apart = m->sys_counted ? m : NULL;
		return &timer_meter;
	}
	if (strcmp(name, "counter"))
		snprintf(why, len, "not counted here (another run counts it)");
	return m;
}

int meter_uses_counter(const struct meter *m)
{
	return m == &counter_meter && ins_fd >= 0;
}
