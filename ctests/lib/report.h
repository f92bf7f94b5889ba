/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The test report protocol shared by every test program in ctests/.
 *
 * A test program prints one line per case on stdout:
 *
 *	PASS: <name>
 *	FAIL: <name>: <reason>
 *	SKIP: <name>: <reason>	(missing hardware, privilege or tool)
 *	# <anything>		(information, ignored by the runner)
 *
 * and ends with "return lope_done();", which exits 1 when a case failed
 * and 0 otherwise.  ctests/run-tests.sh counts the lines.  A name is
 * X; what
 * a case found goes in the reason.  Each line is flushed as soon as it is
 * printed so that nothing is lost when the program crashes later and
 * nothing is printed twice by a forked child.  A reason never contains a
 * newline (they are replaced by spaces).
 *
 * The counters are the process's: a forked child counts its own.  Only
 * one thread should report at a time.
 */
#ifndef LOPE_REPORT_H
#define LOPE_REPORT_H

#include <stddef.h>

#define LOPE_EXIT_SKIP 77 /* automake's "skipped" exit status */

void lope_pass(const char *name);
void lope_fail(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void lope_skip(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void lope_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * PASS @name when @cond holds, otherwise FAIL it with the formatted reason.
 * Returns @cond so callers can stop early.
 */
int lope_check(int cond, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Format a case name into @buf and fold it to snake_case: letters to lower
 * case, every run of other characters than letters and digits to one '_'
 * (none at either end).  Returns @buf.
 */
char *lope_name(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* How many cases failed so far. */
unsigned int lope_failures(void);

/* The program's exit status: 1 if any case failed, else 0. */
int lope_done(void);

/* Leave now with lope_done()'s status (e.g. after a fatal setup error). */
void lope_exit(void) __attribute__((noreturn));

#endif /* LOPE_REPORT_H */
