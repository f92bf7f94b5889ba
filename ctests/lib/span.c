/* SPDX-License-Identifier: BSD-3-Clause */
/* A reference clock read around a measured interval (span.h). */
#include "span.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "report.h"

/* The clock @config as @a, on @pid and @cpu as perf_event_open takes them. */
static int open_attr(struct span *s, struct perf_event_attr *a,
		     unsigned long long config, pid_t pid, int cpu)
{
	memset(s, 0, sizeof(*s));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = config;
	s->fd = (int)syscall(SYS_perf_event_open, a, pid, cpu, -1,
			     PERF_FLAG_FD_CLOEXEC);
	return s->fd < 0 ? -1 : 0;
}

int span_open(struct span *s, unsigned long long config, pid_t pid, int inherit)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.inherit = inherit ? 1 : 0;
	return open_attr(s, &a, config, pid, -1);
}

int span_open_cpu(struct span *s, unsigned long long config, int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	return open_attr(s, &a, config, -1, cpu);
}

int span_open_on_exec(struct span *s, unsigned long long config, pid_t pid)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.disabled = 1;
	a.enable_on_exec = 1;
	return open_attr(s, &a, config, pid, -1);
}

void span_open_self_or_exit(struct span *s, const char *name)
{
	if (span_open(s, PERF_COUNT_SW_TASK_CLOCK, 0, 0) == 0)
		return;
	lope_fail(name, "our task-clock: %s", strerror(errno));
	lope_exit();
}

void span_clear(struct span *s)
{
	s->n = 0;
}

void span_next(struct span *s)
{
	if (s->n != 4) {
		s->n = 0;
		return;
	}
	s->t[0] = s->t[2];
	s->t[1] = s->t[3];
	s->n = 2;
}

int span_mark(struct span *s)
{
	long long v;

	if (s->n >= 4) {
		errno = EINVAL;
		return -1;
	}
	if (read(s->fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return -1;
	s->t[s->n++] = v;
	return 0;
}

void span_again(struct span *s)
{
	if (s->n > 2)
		s->n = 2;
}

void span_carry(struct span *s)
{
	if (s->n >= 3) {
		s->t[0] = s->t[2];
		s->n = 1;
	} else {
		s->n = 0;
	}
}

long long span_lo(const struct span *s)
{
	return s->n == 4 ? s->t[2] - s->t[1] : -1;
}

long long span_hi(const struct span *s)
{
	return s->n == 4 ? s->t[3] - s->t[0] : -1;
}

int span_holds(const struct span *s, long long got)
{
	return s->n == 4 && got >= span_lo(s) && got <= span_hi(s);
}

void span_close(struct span *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
