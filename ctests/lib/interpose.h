/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The system calls under libpapi.so, seen and failed at will.
 *
 * interpose.c defines syscall(), read(), ioctl(), mmap() and fcntl().  A
 * test linked with it (the attribute interpose in ctests/tests.list; it
 * is not in the test library's archive, whose members the linker would
 * pull in for any program calling read()) has them in its executable,
 * where they come before libc's for libpapi.so too: libpapi's calls go
 * through its PLT.  Each counts its calls (syscall() only those of
 * perf_event_open) and forwards to libc's (dlsym(RTLD_NEXT)) unless the
 * fault hook fails it.  libc's own internal calls (stdio's reads) are not
 * seen.  The counts make PAPI cases in papi_interpose.h, above this file
 * and the PAPI helpers, which this file never calls.
 */
#ifndef LOPE_INTERPOSE_H
#define LOPE_INTERPOSE_H

enum lope_call {
	LOPE_CALL_PERF_OPEN, /* syscall(SYS_perf_event_open, ...) */
	LOPE_CALL_READ,
	LOPE_CALL_IOCTL,
	LOPE_CALL_MMAP,
	LOPE_CALL_FCNTL,
	LOPE_NCALLS
};

/* The call's name, for messages. */
const char *lope_call_name(enum lope_call call);

/* How many calls of @call this process made so far (every thread). */
unsigned long lope_calls(enum lope_call call);

/*
 * Called before each interposed call with its descriptor (-1 for
 * perf_event_open) and its ioctl request or fcntl command (else 0):
 * returns 0 to let the call through, or the errno to fail it with.  It
 * runs in whatever thread makes the call, also in signal handlers: it
 * must be async-signal-safe, and keep errno.
 */
typedef int (*lope_fault_fn)(enum lope_call call, int fd, unsigned long what);

/* Install @fn as the fault hook, or none with NULL. */
void lope_interpose_fault(lope_fault_fn fn);

#endif /* LOPE_INTERPOSE_H */
