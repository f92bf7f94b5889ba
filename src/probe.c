/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the kernel allows here: user-space counter reads (and if not, why),
 * an event, a group of hardware counters.
 */
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

#include "lope.h"
#include "mmap_read.h"
#include "sys.h"

#define LOPE_SYSFS_DEVICES "/sys/bus/event_source/devices"
/* More counters than any PMU has: x86 has at most 8 + 4 fixed, Arm 31 + 1. */
#define LOPE_PROBE_MAX_COUNTERS 64

/* The reason into @why (cut to @len); returns @err. */
static __attribute__((format(printf, 4, 5))) int
say(int err, char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		(void)vsnprintf(why, len, fmt, ap); /* truncation is fine */
		va_end(ap);
	}
	return err;
}

/*
 * Why lopelib_mmap__read() refused a page the kernel set up for user-space
 * reads: the first field that says no.
 */
static const char *page_refusal(const struct perf_event_mmap_page *pc)
{
	if (pc->index == 0)
		return access(LOPE_ARCH_RDPMC_SWITCH, F_OK) == 0 ?
			       "the kernel gives no counter index to user "
			       "space (" LOPE_ARCH_RDPMC_SWITCH ")" :
			       "the kernel gives no counter index to user "
			       "space";
	if (pc->pmc_width == 0 || pc->pmc_width > 64)
		return "the page gives no usable counter width";
	return "the event is multiplexed and the page gives no clock";
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

static void hw_attr(struct perf_event_attr *attr, uint64_t config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_HARDWARE;
	attr->config = config;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	/* Enabled after the mapping: a RISC-V kernel grants user access
	 * when the page is mapped and shows it from the next enable. */
	attr->disabled = 1;
}

/*
 * Open one hardware counter: instructions, or cycles where the PMU has no
 * instructions event (QEMU's Arm PMU without icount).
 */
static int open_hw_counter(struct perf_event_attr *attr)
{
	int fd;

	hw_attr(attr, PERF_COUNT_HW_INSTRUCTIONS);
	lopelib_arch_prepare_attr(attr);
	fd = lopelib_sys__open(attr, 0, -1, -1);
	if (fd != -ENOENT)
		return fd;
	hw_attr(attr, PERF_COUNT_HW_CPU_CYCLES);
	lopelib_arch_prepare_attr(attr);
	return lopelib_sys__open(attr, 0, -1, -1);
}

/*
 * On a hybrid CPU the probe's generic event is on the kernel's default
 * core PMU and never runs while this thread is on another core type: the
 * same event split over every core PMU, as a split group reads it.  0 if
 * it reads in user space.
 */
static int probe_cores(const struct perf_event_attr *attr)
{
	struct lope_cores *c;
	struct lope_group *g = NULL;
	int64_t v;
	int err = lope_cores__new(&c, LOPE_SYSFS_DEVICES);

	if (!err && lope_cores__nr(c) < 2)
		err = -EOPNOTSUPP;
	if (!err)
		err = lope_group__new(&g, 0, -1, 0);
	if (!err)
		err = lope_group__set_cores(g, c);
	if (!err)
		err = lope_group__add(g, attr) < 0 ? -ENOMEM : 0;
	if (!err)
		err = lope_group__open(g);
	if (!err)
		err = lope_group__enable(g);
	if (!err)
		err = lope_group__read(g, &v);
	if (!err && lope_group__last_path(g) != LOPE_PATH_RDPMC)
		err = -EOPNOTSUPP;
	lope_group__delete(g);
	lope_cores__delete(c);
	return err;
}

/*
 * Why the page says cap_user_rdpmc=0, in at most 32 characters (what the
 * component's description keeps for it): without the switch that allows
 * user-space reads at all, a kernel from before them (arm64 before 5.17).
 */
static int no_user_rdpmc(char *why, size_t len)
{
	if (access(LOPE_ARCH_RDPMC_SWITCH, F_OK) == 0 ||
	    access(LOPE_ARCH_RDPMC_SWITCH_ALT, F_OK) == 0)
		return say(-EOPNOTSUPP, why, len,
			   "kernel reports cap_user_rdpmc=0");
	return say(-EOPNOTSUPP, why, len, "no %s: old kernel",
		   strrchr(LOPE_ARCH_RDPMC_SWITCH, '/') + 1);
}

/* Open, map and enable one hardware counter and read it in user space. */
static int probe_event(char *why, size_t len)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pc;
	struct lope_counts c;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd, err;

	fd = open_hw_counter(&attr);
	if (fd < 0)
		return say(fd, why, len, "cannot open a hardware event: %s%s",
			   strerror(-fd),
			   fd == -EACCES || fd == -EPERM ?
				   " (perf_event_paranoid)" :
				   "");
	pc = lopelib_sys->mmap(page, PROT_READ, MAP_SHARED | MAP_POPULATE, fd);
	if (pc == MAP_FAILED)
		err = say(-errno, why, len, "cannot map the event page: %s",
			  strerror(errno));
	else if (lopelib_sys->ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		err = say(-errno, why, len, "cannot enable the event: %s",
			  strerror(errno));
	else if (!pc->cap_user_rdpmc)
		err = no_user_rdpmc(why, len);
	else if ((err = lopelib_guard__install()) != 0)
		err = say(err, why, len, "cannot guard the counter read: %s",
			  strerror(-err));
	else if (lopelib_mmap__read(pc, &lopelib_hw_reader, &c, NULL) == 0)
		err = 0;
	else if (pc->index == 0 && pc->time_running == 0 &&
		 probe_cores(&attr) == 0)
		err = 0; /* a hybrid CPU's other core type */
	else
		err = say(-EOPNOTSUPP, why, len, "%s", page_refusal(pc));
	if (!err)
		err = say(0, why, len, "yes");
	if (pc != MAP_FAILED)
		(void)lopelib_sys->munmap(pc, page);
	(void)lopelib_sys->close(fd);
	return err;
}

/* Is there a core PMU in sysfs, whatever the architecture names it? */
static bool have_core_pmu(void)
{
	struct lope_pmus *p;
	int nr;

	if (lope_pmus__new(&p, LOPE_SYSFS_DEVICES, LOPE_PMUS_CORE) != 0)
		return false;
	nr = lope_pmus__nr_pmus(p);
	lope_pmus__delete(p);
	return nr > 0;
}

int lope_rdpmc_usable(char *why, size_t len)
{
	int sw, err;

	if (!have_core_pmu())
		return say(-ENODEV, why, len, "no core PMU in sysfs");
	if (kernel_too_old())
		return say(-EOPNOTSUPP, why, len,
			   "kernel older than 4.13 (rdpmc bugs)");
	sw = read_int(LOPE_ARCH_RDPMC_SWITCH);
	if (sw < 0)
		sw = read_int(LOPE_ARCH_RDPMC_SWITCH_ALT);
	if (sw == 0)
		return say(-EOPNOTSUPP, why, len,
			   "user-space reads disabled: %s is 0",
			   LOPE_ARCH_RDPMC_SWITCH);
	err = probe_event(why, len);
	/* The mode that allowed it: "yes (perf_user_access 2)". */
	if (!err && sw > 0)
		return say(0, why, len, "yes (%s %d)",
			   strrchr(LOPE_ARCH_RDPMC_SWITCH, '/') + 1, sw);
	return err;
}

/*
 * Does the group of leader @fd run once enabled?  Its running time after
 * the enable, read with the group: a group that does not fit the PMU is
 * never scheduled, and its running time stays 0.
 */
static bool group_runs(int fd, int n)
{
	uint64_t buf[2 + LOPE_PROBE_MAX_COUNTERS];
	size_t len = (size_t)(2 + n) * sizeof(buf[0]);
	bool runs;

	if (lopelib_sys->ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		return false;
	runs = lopelib_sys->read(fd, buf, len) == (ssize_t)len && buf[1] > 0;
	(void)lopelib_sys->ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	return runs;
}

int lope_probe_counters(const struct perf_event_attr *attr, int max)
{
	struct perf_event_attr a;
	int fd[LOPE_PROBE_MAX_COUNTERS], n, i;

	if (!attr || max < 0)
		return -EINVAL;
	if (max > LOPE_PROBE_MAX_COUNTERS)
		max = LOPE_PROBE_MAX_COUNTERS;
	a = *attr;
	a.size = sizeof(a);
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* Most kernels check that a group fits on the PMU when a member
	 * joins it (validate_group), so the first refusal is the limit.
	 * The leader is opened disabled, and an Arm kernel's check leaves
	 * a disabled event out unless it is to be enabled at exec: so
	 * marked, it counts there too (all are closed long before any
	 * exec, and close-on-exec). */
	for (n = 0; n < max; n++) {
		a.disabled = n == 0;
		a.enable_on_exec = n == 0;
		fd[n] = lopelib_sys__open(&a, 0, -1, n ? fd[0] : -1);
		if (fd[n] < 0)
			break;
	}
	/* A kernel that refused none may not check (RISC-V's opens a group
	 * of any size): then the largest group that runs.  Only then: on a
	 * hybrid CPU a group of the other core type's PMU does not run on
	 * this one's CPUs, and fits all the same. */
	if (n == max)
		while (n > 0 && !group_runs(fd[0], n))
			(void)lopelib_sys->close(fd[--n]);
	for (i = n - 1; i >= 0; i--)
		(void)lopelib_sys->close(fd[i]);
	return n;
}
