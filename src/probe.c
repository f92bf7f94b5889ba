/* SPDX-License-Identifier: BSD-3-Clause */
/* Does user-space counter reading really work on this machine, and if not, why. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mmap_read.h"
#include "sys.h"

static int say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		(void)vsnprintf(why, len, fmt, ap); /* truncation is fine */
		va_end(ap);
	}
	return 0;
}

/* The first integer in @path, or -1 if it cannot be read. */
static int read_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	(void)fclose(f); /* read-only stream: nothing to flush */
	return v;
}

/* The rdpmc bugs fixed by Linux 4.13 make older kernels unusable. */
static bool kernel_too_old(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major < 4 || (major == 4 && minor < 13);
}

static uint64_t probe_pmc(void *arg, uint32_t counter)
{
	(void)arg;
	return lope_arch_rdpmc(counter);
}

static uint64_t probe_cycles(void *arg)
{
	(void)arg;
	return lope_arch_cycles();
}

/* Open, map and enable one instructions counter and read it in user space. */
static int probe_event(char *why, size_t len)
{
	const struct lope_reader rd = { probe_pmc, probe_cycles, NULL };
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pc;
	struct lope_counts c;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd, ok = 0;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	lope_arch_prepare_attr(&attr);
	fd = lope_sys->perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return say(why, len, "cannot open a hardware event: %s%s",
			   strerror(errno),
			   errno == EACCES || errno == EPERM ?
				   " (perf_event_paranoid)" :
				   "");
	pc = lope_sys->mmap(page, PROT_READ, MAP_SHARED | MAP_POPULATE, fd);
	if (pc == MAP_FAILED) {
		say(why, len, "cannot map the event page: %s", strerror(errno));
	} else if (!pc->cap_user_rdpmc) {
		say(why, len, "kernel reports cap_user_rdpmc=0");
	} else if (lope_sys->ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		say(why, len, "cannot enable the event: %s", strerror(errno));
	} else if (lope_mmap__read(pc, &rd, &c, NULL) != 0) {
		say(why, len, "counter not readable in user space (index 0)");
	} else {
		ok = 1;
		say(why, len, "rdpmc works");
	}
	if (pc != MAP_FAILED)
		(void)lope_sys->munmap(pc, page);
	(void)lope_sys->close(fd);
	return ok;
}

int lope_rdpmc_usable(char *why, size_t len)
{
	int sw;

	if (access("/sys/bus/event_source/devices/cpu", F_OK) != 0 &&
	    access("/sys/bus/event_source/devices/cpu_core", F_OK) != 0)
		return say(why, len,
			   "no core PMU (/sys/bus/event_source/devices/cpu "
			   "missing)");
	if (kernel_too_old())
		return say(why, len, "kernel older than 4.13 (rdpmc bugs)");
	sw = read_int(LOPE_ARCH_RDPMC_SWITCH);
	if (sw < 0)
		sw = read_int(LOPE_ARCH_RDPMC_SWITCH_ALT);
	if (sw == 0)
		return say(why, len, "user-space reads disabled: %s is 0",
			   LOPE_ARCH_RDPMC_SWITCH);
	return probe_event(why, len);
}
