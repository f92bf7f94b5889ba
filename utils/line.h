/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whole lines to a file descriptor, for the utilities' workers (their
 * result pipe, utils/worker.h) and the arm64 guest's /init (the console,
 * ctests/guest/init.c): a line goes out in one write(2) where the
 * descriptor takes it whole, so no other writer's output splits it.
 */
#ifndef LOPE_LINE_H
#define LOPE_LINE_H

#include <stdarg.h>
#include <stddef.h>

/* The longest line written, its newline included: a pipe's atomic write
 * (PIPE_BUF). */
#define LINE_BYTES 4096

/* Write all of @buf to @fd, again after EINTR and short writes: 0, or -1
 * with errno set. */
int write_all(int fd, const void *buf, size_t len);
/* @fmt's text (cut to fit LINE_BYTES) and a newline to @fd: 0, or -1 if
 * it cannot be formatted or written. */
int write_line(int fd, const char *fmt, va_list ap);

#endif /* LOPE_LINE_H */
