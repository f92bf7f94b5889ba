/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's perf_event system calls (perf_event_open, and ioctl, read,
 * mmap, munmap, close and fcntl on its events) go through lopelib_sys, so
 * tests can replace it to inject faults (EMFILE, EACCES, ENOENT, EINTR,
 * mmap failure, fcntl failure ...).  Reading sysfs and /proc files
 * (sysfs_pmu.c, probe.c) uses libc directly: a test gives them a tree of
 * its own instead.  Private to the engine and its tests.
 */
#ifndef LOPE_SYS_H
#define LOPE_SYS_H

#include <stddef.h>
#include <sys/types.h>

struct perf_event_attr;

/*
 * The engine's own globals, never exported: the compiler then reaches
 * them directly instead of through the GOT, on every measured call.
 */
#define LOPE_PRIVATE __attribute__((visibility("hidden")))

struct lopelib_sys {
	int (*perf_event_open)(struct perf_event_attr *attr, pid_t pid, int cpu,
			       int group_fd, unsigned long flags);
	int (*ioctl)(int fd, unsigned long request, unsigned long arg);
	ssize_t (*read)(int fd, void *buf, size_t len);
	void *(*mmap)(size_t len, int prot, int flags, int fd);
	int (*munmap)(void *addr, size_t len);
	int (*close)(int fd);
	/* @arg is an integer or, for F_SETOWN_EX, a pointer cast to one */
	int (*fcntl)(int fd, int cmd, unsigned long arg);
};

/* The table in use; the default calls the kernel. */
extern LOPE_PRIVATE const struct lopelib_sys *lopelib_sys;
extern LOPE_PRIVATE const struct lopelib_sys lopelib_sys_kernel;

/* Install @ops (NULL restores the kernel table); returns the previous one. */
const struct lopelib_sys *lopelib_sys__set(const struct lopelib_sys *ops);

/*
 * perf_event_open through the table, close-on-exec; where the kernel
 * refuses what the architecture asked for in @attr (EOPNOTSUPP), again
 * without it (lopelib_arch_relax_attr).  The descriptor, or -errno.
 */
int lopelib_sys__open(struct perf_event_attr *attr, pid_t pid, int cpu,
		      int group_fd);

/*
 * The calling thread's id, cached per thread and refreshed after fork.
 * The cache is initial-exec TLS, a few instructions from the thread
 * pointer (a dynamic model would call the TLS resolver on every read).
 */
extern __thread pid_t lopelib_cached_tid
	__attribute__((tls_model("initial-exec")));
pid_t lopelib_gettid_slow(void);

static inline pid_t lopelib_gettid(void)
{
	pid_t tid = lopelib_cached_tid;

	return __builtin_expect(tid != 0, 1) ? tid : lopelib_gettid_slow();
}

/*
 * Incremented in every forked child (pthread_atfork), so a group can tell
 * that it is the child's copy of its parent's: the descriptors then name
 * the parent's counters and the kernel did not copy the mappings.
 * lopelib_fork_watch() registers the handler; 0 or -ENOMEM.
 */
extern LOPE_PRIVATE unsigned int lopelib_fork_gen;
int lopelib_fork_watch(void);

#endif /* LOPE_SYS_H */
