/* SPDX-License-Identifier: BSD-3-Clause */
/* The system-call interposer (interpose.h). */
#undef _FORTIFY_SOURCE /* read() is defined here */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "interpose.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const names[LOPE_NCALLS] = {
	[LOPE_CALL_PERF_OPEN] = "perf_event_open",
	[LOPE_CALL_READ] = "read",
	[LOPE_CALL_IOCTL] = "ioctl",
	[LOPE_CALL_MMAP] = "mmap",
	[LOPE_CALL_FCNTL] = "fcntl",
};

static unsigned long ncalls[LOPE_NCALLS];
static lope_fault_fn fault_hook;

const char *lope_call_name(enum lope_call call)
{
	return names[call];
}

unsigned long lope_calls(enum lope_call call)
{
	return __atomic_load_n(&ncalls[call], __ATOMIC_RELAXED);
}

void lope_interpose_fault(lope_fault_fn fn)
{
	__atomic_store_n(&fault_hook, fn, __ATOMIC_SEQ_CST);
}

/* Count the call; nonzero (errno set) when the hook fails it. */
static int fails(enum lope_call call, int fd, unsigned long what)
{
	lope_fault_fn fn = __atomic_load_n(&fault_hook, __ATOMIC_SEQ_CST);
	int err;

	__atomic_fetch_add(&ncalls[call], 1, __ATOMIC_RELAXED);
	if (!fn)
		return 0;
	err = fn(call, fd, what);
	if (!err)
		return 0;
	errno = err;
	return 1;
}

static void *libc_fn(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p)
		abort();
	return p;
}

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	va_list ap;
	long a[6];
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open && fails(LOPE_CALL_PERF_OPEN, -1, 0))
		return -1;
	if (!real)
		real = (long (*)(long, ...))libc_fn("syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fails(LOPE_CALL_IOCTL, fd, req))
		return -1;
	if (!real)
		real = (int (*)(int, unsigned long, ...))libc_fn("ioctl");
	return real(fd, req, arg);
}

ssize_t read(int fd, void *buf, size_t len)
{
	static ssize_t (*real)(int, void *, size_t);

	if (fails(LOPE_CALL_READ, fd, 0))
		return -1;
	if (!real)
		real = (ssize_t(*)(int, void *, size_t))libc_fn("read");
	return real(fd, buf, len);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);

	if (fails(LOPE_CALL_MMAP, fd, 0))
		return MAP_FAILED;
	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))libc_fn(
			"mmap");
	return real(addr, len, prot, flags, fd, off);
}

int fcntl(int fd, int cmd, ...)
{
	static int (*real)(int, int, ...);
	va_list ap;
	unsigned long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	if (fails(LOPE_CALL_FCNTL, fd, (unsigned long)cmd))
		return -1;
	if (!real)
		real = (int (*)(int, int, ...))libc_fn("fcntl");
	return real(fd, cmd, arg);
}
