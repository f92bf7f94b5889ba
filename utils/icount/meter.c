/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The counter meter: the worker's own hardware instructions counter (user
 * and kernel, nothing excluded), read from its self-monitoring page where
 * the kernel allows it (lope_mmap__read with the engine's per-arch
 * reader) and with read(2) otherwise, and the raw_syscalls:sys_enter
 * tracepoint.  Both are read just before and just after each measured
 * call; what the reads themselves add is the same for the empty function
 * and cancels in the difference.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mmap_read.h"

#include "icount.h"

/* The instructions so far; a counter the kernel could not keep running
 * (pinned, so in error state) fails the case. */
static uint64_t ins_now(struct meter *m)
{
	struct lope_counts c;
	uint64_t buf[3];

	if (m->ins_page &&
	    lope_mmap__read(m->ins_page, &lope_hw_reader, &c, NULL) == 0)
		return c.val;
	if (read(m->ins_fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		m->failed = 1;
		return 0;
	}
	return buf[0];
}

static uint64_t sys_now(struct meter *m)
{
	uint64_t v = 0;

	if (read(m->sys_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		m->failed = 1;
	return v;
}

static void cnt_on(struct meter *m)
{
	if (m->sys_fd >= 0)
		m->s0 = sys_now(m);
	if (m->ins_fd >= 0)
		m->i0 = ins_now(m);
}

static void cnt_off(struct meter *m)
{
	uint64_t ins = m->ins_fd >= 0 ? ins_now(m) - m->i0 : 0;

	meter_record(m, ins, m->sys_fd >= 0 ? sys_now(m) - m->s0 : 0);
}

void meter_begin(struct meter *m, const char *label, long n)
{
	if (n > m->cap) {
		m->ins = xrealloc(m->ins, (size_t)n, sizeof(*m->ins));
		m->sys = xrealloc(m->sys, (size_t)n, sizeof(*m->sys));
		m->cap = n;
	}
	m->n = 0;
	m->failed = 0;
	scopy(m->label, sizeof(m->label), label);
}

void meter_record(struct meter *m, uint64_t ins, uint64_t sys)
{
	if (m->n >= m->cap)
		return;
	m->ins[m->n] = ins;
	m->sys[m->n] = sys;
	m->n++;
}

/* @v[0..n) as "sum,min,nmin,max", or "-" if not @counted. */
static void stats_str(char *buf, size_t len, const uint64_t *v, long n,
		      int counted)
{
	uint64_t sum = 0, min = n ? v[0] : 0, max = min;
	long i, nmin = 0;

	for (i = 0; i < n; i++) {
		sum += v[i];
		min = v[i] < min ? v[i] : min;
		max = v[i] > max ? v[i] : max;
	}
	for (i = 0; i < n; i++)
		nmin += v[i] == min;
	if (!counted || !n)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%llu,%llu,%ld,%llu",
			 (unsigned long long)sum, (unsigned long long)min, nmin,
			 (unsigned long long)max);
}

/* One "path" line: the calls that made @sys system calls. */
static void emit_path(const struct meter *m, uint64_t sys)
{
	uint64_t min = UINT64_MAX, max = 0;
	long i, calls = 0;

	for (i = 0; i < m->n; i++) {
		if (m->sys[i] != sys)
			continue;
		calls++;
		min = m->ins[i] < min ? m->ins[i] : min;
		max = m->ins[i] > max ? m->ins[i] : max;
	}
	emit("path %s %llu %ld %llu %llu", m->label, (unsigned long long)sys,
	     calls, (unsigned long long)min, (unsigned long long)max);
}

/* The calls' paths, by the system calls they made, fewest first. */
static void emit_paths(const struct meter *m)
{
	uint64_t next = 0, last = 0;
	int npaths, found;
	long i;

	for (npaths = 0; npaths < MAX_PATHS; npaths++) {
		found = 0;
		for (i = 0; i < m->n; i++)
			if ((!npaths || m->sys[i] > last) &&
			    (!found || m->sys[i] < next)) {
				next = m->sys[i];
				found = 1;
			}
		if (!found)
			return;
		emit_path(m, next);
		last = next;
	}
}

void meter_end(struct meter *m)
{
	char ins[96], sys[96];

	if (m->failed) {
		emit("err %s a counter could not be read (multiplexed?)",
		     m->label);
		return;
	}
	stats_str(ins, sizeof(ins), m->ins, m->n, m->ins_counted);
	stats_str(sys, sizeof(sys), m->sys, m->n, m->sys_counted);
	emit("case %s %ld %s %s", m->label, m->n, ins, sys);
	if (m->ins_counted)
		emit_paths(m);
}

/* perf_event_open of @a, with what the architecture may drop if refused. */
static int open_attr(struct perf_event_attr *a)
{
	int fd;

	do
		fd = (int)syscall(SYS_perf_event_open, a, 0, -1, -1,
				  PERF_FLAG_FD_CLOEXEC);
	while (fd < 0 && errno == EOPNOTSUPP && lope_arch_relax_attr(a));
	return fd;
}

/* The instructions counter, user and kernel; its fd, or -1 with why. */
static int ins_fd_open(char *why, size_t len)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.pinned = 1; /* never multiplexed away while measuring */
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	lope_arch_prepare_attr(&a);
	fd = open_attr(&a);
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

/* Open the instructions counter into @m; 0, or -1 with why. */
static int ins_open(struct meter *m, char *why, size_t len)
{
	volatile struct perf_event_mmap_page *pc;
	void *p;

	m->ins_fd = ins_fd_open(why, len);
	if (m->ins_fd < 0)
		return -1;
	p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
		 m->ins_fd, 0);
	pc = p == MAP_FAILED ? NULL : p;
	if (pc && pc->cap_user_rdpmc && pc->index)
		m->ins_page = p;
	snprintf(why, len,
		 "hardware instructions, user and kernel, read %s around each "
		 "call",
		 m->ins_page ? "in user space" : "with read(2)");
	return 0;
}

static struct meter counter_meter = {
	.on = cnt_on,
	.off = cnt_off,
	.ins_fd = -1,
	.sys_fd = -1,
};

struct meter *meter_counter(int ins, char *why, size_t len)
{
	struct meter *m = &counter_meter;
	char sys_why[256];

	if (ins && ins_open(m, why, len))
		return NULL;
	if (!ins)
		snprintf(why, len, "not counted (another run counts them)");
	m->sys_fd = syscall_counter_open(0, sys_why, sizeof(sys_why));
	m->ins_counted = m->ins_fd >= 0;
	m->sys_counted = m->sys_fd >= 0;
	emit("info ins %s%s", m->ins_fd >= 0 ? "ok: " : "", why);
	emit("info sys %s", m->sys_fd >= 0 ? "ok" : sys_why);
	return m;
}

int meter_uses_counter(const struct meter *m)
{
	return m == &counter_meter && m->ins_fd >= 0;
}

struct meter *meter_for(const char *method)
{
	struct meter *m;
	char why[512];

	if (!strcmp(method, "callgrind"))
		m = meter_callgrind(why, sizeof(why));
	else
		m = meter_counter(!strcmp(method, "counter"), why, sizeof(why));
	if (!m)
		emit("fatal method %s: %s", method, why);
	return m;
}
