/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the path tests of ctests/papi (test_attach, test_cpu,
 * test_inherit, test_domain, test_multiplex, test_threads2,
 * test_fork_exec): clocks, busy work, page touching, descriptor and
 * mapping counts, pipes, and the hardware-PMU check.
 *
 * Header only, every function static; include after <papi.h> and tap.h.
 */
#ifndef LOPE_PAPI_UTIL_H
#define LOPE_PAPI_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <papi.h>

#include "core_pmu.h"
#include "tap.h"

#define MS 1000000LL /* task-clock and cpu-clock count nanoseconds */

/* The reason every hardware variant gives when there is no core PMU. */
#define NO_PMU_REASON LOPE_NO_CORE_PMU_REASON

/* The core PMU's sysfs name, or NULL without one (e.g. a KVM guest). */
static inline const char *hw_pmu(void)
{
	return lope_core_pmu();
}

static inline long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline long long thread_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static inline long long process_ns(void)
{
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

static inline long long wall_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Spin on this thread's CPU for @ns nanoseconds of its own CPU time. */
static inline void busy_ns(long long ns)
{
	long long end = thread_ns() + ns;
	volatile unsigned long sink = 0;
	int i;

	while (thread_ns() < end)
		for (i = 0; i < 2000; i++)
			sink += (unsigned long)i;
}

static inline void sleep_ns(long long ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000LL),
			       (long)(ns % 1000000000LL) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* |got - want| <= want * rel + abs */
static inline int near(long long got, long long want, double rel, long long abs)
{
	long long d = got > want ? got - want : want - got;

	return d <= (long long)((double)want * rel) + abs;
}

/*
 * Map @n fresh pages, write one byte to each from user space (n page
 * faults, no transparent huge page), and unmap them.
 */
static inline int touch_pages(size_t n)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), i;
	char *p = mmap(NULL, n * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	(void)madvise(p, n * psz, MADV_NOHUGEPAGE); /* advice only */
	for (i = 0; i < n; i++)
		((volatile char *)p)[i * psz] = 1;
	return munmap(p, n * psz);
}

/* Entries of /proc/self/fd (the directory's own descriptor included). */
static inline int fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Descriptors of /proc/<pid>/fd that are perf events ("self" for us). */
static inline int perf_fd_count_of(const char *pid)
{
	char dir[64], path[PATH_MAX], link[256];
	DIR *d;
	struct dirent *e;
	ssize_t n;
	int count = 0;

	snprintf(dir, sizeof(dir), "/proc/%s/fd", pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (strstr(link, "perf_event"))
			count++;
	}
	closedir(d);
	return count;
}

static inline int perf_fd_count(void)
{
	return perf_fd_count_of("self");
}

/* Lines of /proc/self/maps that map a perf event. */
static inline int perf_maps_count(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "perf_event"))
			n++;
	fclose(f);
	return n;
}

/* "rc (text)" for messages; one static buffer per call site is enough. */
static inline const char *papi_err(int rc)
{
	static char buf[4][96];
	static int i;
	const char *s = PAPI_strerror(rc);

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%d (%s)", rc, s ? s : "?");
	return buf[i];
}

static inline int libpapi_path_cb(struct dl_phdr_info *info, size_t size,
				  void *data)
{
	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, "/libpapi.so")) {
		*(const char **)data = info->dlpi_name;
		return 1;
	}
	return 0;
}

/* Which libpapi this process runs (the runner's LD_LIBRARY_PATH picks it). */
static inline const char *libpapi_path(void)
{
	const char *path = "(none: linked statically?)";

	dl_iterate_phdr(libpapi_path_cb, &path);
	return path;
}

/* PAPI_library_init as a reported case; leaves the program on failure. */
static inline void papi_init_or_exit(void)
{
	int rc = PAPI_library_init(PAPI_VER_CURRENT);

	if (!lope_check(rc == PAPI_VER_CURRENT, "library_init",
			"PAPI_library_init returned %s", papi_err(rc)))
		lope_exit();
	lope_info("libpapi: %s", libpapi_path());
}

/* A new event set with @n named events; PAPI_OK or the first error. */
static inline int make_named_set(int *set, const char *const *names, int n)
{
	int i, rc;

	*set = PAPI_NULL;
	rc = PAPI_create_eventset(set);
	for (i = 0; rc == PAPI_OK && i < n; i++)
		rc = PAPI_add_named_event(*set, names[i]);
	return rc;
}

/* Stop (if running), clean up and destroy; tolerant of a NULL set. */
static inline void drop_set(int *set)
{
	long long v[64];
	int state = 0;

	if (*set == PAPI_NULL)
		return;
	if (PAPI_state(*set, &state) == PAPI_OK && (state & PAPI_RUNNING))
		(void)PAPI_stop(*set, v);
	(void)PAPI_cleanup_eventset(*set);
	(void)PAPI_destroy_eventset(set);
	*set = PAPI_NULL;
}

/* Write/read one byte on a pipe, retrying on EINTR; 0 or -1. */
static inline int pipe_put(int fd, char c)
{
	ssize_t n;

	do
		n = write(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

static inline int pipe_get(int fd, char *c)
{
	ssize_t n;

	do
		n = read(fd, c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

/* Write/read a whole buffer (small: atomic on a pipe); 0 or -1. */
static inline int pipe_put_buf(int fd, const void *buf, size_t len)
{
	ssize_t n;

	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

static inline int pipe_get_buf(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* Wait for @pid; its exit status (0..255), 128+signal, or -1. */
static inline int wait_child(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -1;
}

/*
 * A worker process driven over two pipes, so that a test can make another
 * task do a known amount of work while it sleeps itself.  The worker never
 * calls PAPI.  Commands are one byte plus a 64-bit argument; each answers
 * one 64-bit result:
 *   'b' ns : spin @ns of its own CPU time -> the CPU time it measured
 *   'p' n  : touch @n fresh pages          -> 0, or -1 on mmap failure
 *   's' n  : sleep 200 us @n times         -> voluntary switches seen
 *   'q' 0  : exit 0 (no answer)
 * A worker created with @cpu >= 0 pins itself there first.
 */
struct worker {
	pid_t pid;
	int cmd; /* write end */
	int res; /* read end */
};

static inline long long voluntary_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw;
}

static inline __attribute__((noreturn)) void worker_main(int cmd, int res)
{
	struct {
		char c;
		long long arg;
	} __attribute__((packed)) m;
	long long r, i, t0;

	for (;;) {
		if (pipe_get_buf(cmd, &m, sizeof(m)))
			_exit(0);
		switch (m.c) {
		case 'b':
			t0 = thread_ns();
			busy_ns(m.arg);
			r = thread_ns() - t0;
			break;
		case 'p':
			r = touch_pages((size_t)m.arg);
			break;
		case 's':
			t0 = voluntary_switches();
			for (i = 0; i < m.arg; i++)
				sleep_ns(200000);
			r = voluntary_switches() - t0;
			break;
		default:
			_exit(0);
		}
		if (pipe_put_buf(res, &r, sizeof(r)))
			_exit(1);
	}
}

static inline int worker_spawn(struct worker *w, int cpu)
{
	int c[2], r[2];

	if (pipe2(c, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(r, O_CLOEXEC) < 0) {
		close(c[0]);
		close(c[1]);
		return -1;
	}
	w->pid = fork();
	if (w->pid == 0) {
		close(c[1]);
		close(r[0]);
		if (cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set) < 0)
				_exit(2);
		}
		worker_main(c[0], r[1]);
	}
	close(c[0]);
	close(r[1]);
	if (w->pid < 0) {
		close(c[1]);
		close(r[0]);
		return -1;
	}
	w->cmd = c[1];
	w->res = r[0];
	return 0;
}

static inline int worker_send(struct worker *w, char c, long long arg)
{
	struct {
		char c;
		long long arg;
	} __attribute__((packed)) m = { c, arg };

	return pipe_put_buf(w->cmd, &m, sizeof(m));
}

/* The answer to the last command, or LLONG_MIN if the worker is gone. */
static inline long long worker_wait(struct worker *w)
{
	long long r;

	return pipe_get_buf(w->res, &r, sizeof(r)) ? LLONG_MIN : r;
}

static inline long long worker_do(struct worker *w, char c, long long arg)
{
	return worker_send(w, c, arg) ? LLONG_MIN : worker_wait(w);
}

/* Tell the worker to exit and reap it: its exit status, or -1. */
static inline int worker_finish(struct worker *w)
{
	int st;

	if (w->pid <= 0)
		return -1;
	(void)worker_send(w, 'q', 0);
	close(w->cmd);
	close(w->res);
	st = wait_child(w->pid);
	w->pid = 0;
	return st;
}

/* A pid that does not exist right now: a child that exited, reaped. */
static inline pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return -1;
	(void)wait_child(pid);
	return pid;
}

#endif /* LOPE_PAPI_UTIL_H */
