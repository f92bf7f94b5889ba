/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lope.h"
#include "lope_arch.h"
#include "sys.h"

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			       int group_fd, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			    flags);
}

static int sys_ioctl(int fd, unsigned long request, unsigned long arg)
{
	return ioctl(fd, request, arg);
}

static void *sys_mmap(size_t len, int prot, int flags, int fd)
{
	return mmap(NULL, len, prot, flags, fd, 0);
}

static int sys_fcntl(int fd, int cmd, unsigned long arg)
{
	return fcntl(fd, cmd, arg);
}

const struct lopelib_sys lopelib_sys_kernel = {
	.perf_event_open = sys_perf_event_open,
	.ioctl = sys_ioctl,
	.read = read,
	.mmap = sys_mmap,
	.munmap = munmap,
	.close = close,
	.fcntl = sys_fcntl,
};

const struct lopelib_sys *lopelib_sys = &lopelib_sys_kernel;

const struct lopelib_sys *lopelib_sys__set(const struct lopelib_sys *ops)
{
	const struct lopelib_sys *old = lopelib_sys;

	lopelib_sys = ops ? ops : &lopelib_sys_kernel;
	return old;
}

int lopelib_sys__open(struct perf_event_attr *attr, pid_t pid, int cpu,
		      int group_fd)
{
	int fd;

	do
		fd = lopelib_sys->perf_event_open(attr, pid, cpu, group_fd,
						  PERF_FLAG_FD_CLOEXEC);
	while (fd < 0 && errno == EOPNOTSUPP && lopelib_arch_relax_attr(attr));
	if (fd >= 0)
		return fd;
	return errno ? -errno : -EINVAL;
}

int lope_probe(const struct perf_event_attr *attr, pid_t pid, int cpu)
{
	struct perf_event_attr a;
	int fd;

	if (!attr)
		return -EINVAL;
	a = *attr;
	a.size = sizeof(a);
	a.disabled = 1;
	fd = lopelib_sys__open(&a, pid, cpu, -1);
	if (fd < 0)
		return fd;
	(void)lopelib_sys->close(fd); /* never used: nothing to lose */
	return 0;
}

/*
 * A forked child inherits the parent's thread-local cache but not its
 * perf mappings (the kernel maps them VM_DONTCOPY), so the cache must be
 * forgotten in the child or it would take the parent's events for its own
 * (park.c keeps its own handler for its registry).
 */
__thread pid_t lopelib_cached_tid __attribute__((tls_model("initial-exec")));
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static int atfork_registered;

unsigned int lopelib_fork_gen;

static void forget_tid(void)
{
	lopelib_cached_tid = 0;
	lopelib_fork_gen++;
}

static void register_atfork(void)
{
	atfork_registered = pthread_atfork(NULL, NULL, forget_tid) == 0;
}

int lopelib_fork_watch(void)
{
	if (pthread_once(&atfork_once, register_atfork) != 0 ||
	    !atfork_registered)
		return -ENOMEM;
	return 0;
}

pid_t lopelib_gettid_slow(void)
{
	if (pthread_once(&atfork_once, register_atfork) != 0 ||
	    !atfork_registered)
		return (pid_t)syscall(SYS_gettid); /* uncached, still right */
	lopelib_cached_tid = (pid_t)syscall(SYS_gettid);
	return lopelib_cached_tid;
}
