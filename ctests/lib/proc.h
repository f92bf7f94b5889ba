/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What /proc says of a process: its descriptors and its mappings, the
 * tests' measure of leaks (a set destroyed must close its descriptors and
 * unmap its perf pages); the program's own path, to re-execute it; and
 * the unprivileged user a child can become.
 */
#ifndef LOPE_PROC_H
#define LOPE_PROC_H

#include <stddef.h>

/* Entries of /proc/self/fd (the directory's own descriptor included). */
int fd_count(void);

/* Descriptors of /proc/<pid>/fd that are perf events ("self" for us). */
int perf_fd_count_of(const char *pid);
int perf_fd_count(void);

/* Is @fd a perf event?  Async-signal-safe (no stdio, no allocation). */
int is_perf_fd(int fd);

/*
 * Lines of /proc/self/maps, and in *@perf (when not NULL) those that map
 * a perf event; -1 when it cannot be read.  Reads with read(2) into a
 * static buffer: no allocation, so no mapping of its own.  Not for
 * concurrent use.
 */
int maps_count(int *perf);

/* Lines of /proc/self/maps that map a perf event, or -1. */
int perf_maps_count(void);

/* The integer a file starts with (sysfs, /proc/sys), or INT_MIN. */
int read_int(const char *path);

/*
 * This program's path (/proc/self/exe) in @buf: 0, or -1 after failing
 * the case setup (a test that re-executes itself cannot go on).
 */
int self_exe_or_fail(char *buf, size_t size);

/*
 * Run this program (@self) again with the one argument @arg and, when
 * @var is not NULL, the environment variable it sets ("NAME=value", kept
 * by the child); its standard output into @out (at most @len - 1 bytes,
 * NUL-terminated).  The child's wait status, or -1 when it could not run.
 */
int run_self(const char *self, const char *var, const char *arg, char *out,
	     size_t len);

/* The unprivileged user nobody: uid and gid. */
#define NOBODY 65534

/*
 * Become NOBODY (no supplementary group, gid and uid NOBODY) when root;
 * stay as we are otherwise.  0, or -1 with errno.
 */
int drop_to_nobody(void);

#endif /* LOPE_PROC_H */
