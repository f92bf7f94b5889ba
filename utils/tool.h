/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What papi_overhead and papi_accuracy share: messages, the worker's
 * result pipe, string helpers and finding a libpapi directory.
 */
#ifndef LOPE_TOOL_H
#define LOPE_TOOL_H

#include <stddef.h>

/* The program's name for messages; each tool defines it. */
extern const char *const tool_prog;

/* The pipe a re-executed worker writes its result lines to. */
extern int worker_fd;

/* "prog: message" on stderr, then exit(@code). */
void die(int code, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
/* One line to worker_fd; a worker whose parent is gone exits. */
void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* @src on one line: newlines and tabs as blanks, no trailing blanks. */
void oneline(char *dst, size_t len, const char *src);
/* Copy @src into @dst of size @len, cut if needed. */
void scopy(char *dst, size_t len, const char *src);
/* Does @dir hold a libpapi.so* file? */
int dir_has_libpapi(const char *dir);

#endif /* LOPE_TOOL_H */
