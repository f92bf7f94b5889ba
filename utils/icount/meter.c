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

static uint64_t hw_pmc(void *arg, uint32_t counter)
{
	(void)arg;
	return lope_arch_rdpmc(counter);
}

static uint64_t hw_cycles(void *arg)
{
	(void)arg;
	return lope_arch_cycles();
}

const struct lope_reader icount_reader = { hw_pmc, hw_cycles, NULL };

/* The instructions so far; a counter the kernel could not keep running
 * (pinned, so in error state) fails the case. */
static uint64_t ins_now(struct meter *m)
{
	struct lope_counts c;
	uint64_t buf[3];

	if (m->ins_page &&
	    lope_mmap__read(m->ins_page, &icount_reader, &c, NULL) == 0)
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
	if (m->ins_fd >= 0)
		tally_add(&m->ins, ins_now(m) - m->i0);
	if (m->sys_fd >= 0)
		tally_add(&m->sys, sys_now(m) - m->s0);
}

void tally_add(struct tally *t, uint64_t v)
{
	if (!t->n || v < t->min) {
		t->min = v;
		t->nmin = 0;
	}
	if (!t->n || v > t->max)
		t->max = v;
	t->nmin += v == t->min;
	t->sum += v;
	t->n++;
}

void meter_begin(struct meter *m, const char *label)
{
	memset(&m->ins, 0, sizeof(m->ins));
	memset(&m->sys, 0, sizeof(m->sys));
	m->failed = 0;
	scopy(m->label, sizeof(m->label), label);
}

/* @t as "sum,min,nmin,max", or "-" if not @counted. */
static void tally_str(char *buf, size_t len, const struct tally *t, int counted)
{
	if (!counted)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%llu,%llu,%ld,%llu",
			 (unsigned long long)t->sum, (unsigned long long)t->min,
			 t->nmin, (unsigned long long)t->max);
}

void meter_end(struct meter *m, long n)
{
	char ins[96], sys[96];

	if (m->failed) {
		emit("err %s a counter could not be read (multiplexed?)",
		     m->label);
		return;
	}
	tally_str(ins, sizeof(ins), &m->ins, m->ins_counted);
	tally_str(sys, sizeof(sys), &m->sys, m->sys_counted);
	emit("case %s %ld %s %s", m->label, n, ins, sys);
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
