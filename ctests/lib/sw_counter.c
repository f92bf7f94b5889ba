/* SPDX-License-Identifier: BSD-3-Clause */
/* Software counters opened directly (sw_counter.h). */
#include "sw_counter.h"

#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int counter_open(unsigned int type, unsigned long long config,
			int user_only)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.exclude_kernel = user_only ? 1 : 0;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

int sw_counter_open(unsigned long long config, int user_only)
{
	return counter_open(PERF_TYPE_SOFTWARE, config, user_only);
}

long long sw_counter_read(int fd)
{
	long long v = -1;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return -1;
	return v;
}

int perf_opens(unsigned int type, unsigned long long config, int user_only)
{
	int fd = counter_open(type, config, user_only);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}
