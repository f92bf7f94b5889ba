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
 * and 0 otherwise.  ctests/run-tests.sh counts the lines.  Each line is
 * flushed as soon as it is printed so that nothing is lost when the
 * program crashes later and nothing is printed twice by a forked child.
 * A reason never contains a newline (they are replaced by spaces).
 *
 * Header only: every function is static, so each program has its own
 * counters.  Only one thread should report at a time.
 */
#ifndef LOPE_TAP_H
#define LOPE_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOPE_EXIT_SKIP 77 /* automake's "skipped" exit status */

static unsigned int lope_tap_npass, lope_tap_nfail, lope_tap_nskip;

/* Print "TAG: name" or "TAG: name: reason" (reason formatted, one line). */
static inline void lope_tap__vline(const char *tag, const char *name,
				   const char *fmt, va_list ap)
{
	char buf[1024];
	char *p;

	if (!fmt) {
		printf("%s: %s\n", tag, name);
		fflush(stdout);
		return;
	}
	vsnprintf(buf, sizeof(buf), fmt, ap);
	for (p = buf; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	printf("%s: %s: %s\n", tag, name, buf[0] ? buf : "(no reason given)");
	fflush(stdout);
}

static inline void lope_pass(const char *name)
{
	lope_tap_npass++;
	printf("PASS: %s\n", name);
	fflush(stdout);
}

static inline __attribute__((format(printf, 2, 3))) void
lope_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	lope_tap_nfail++;
	va_start(ap, fmt);
	lope_tap__vline("FAIL", name, fmt, ap);
	va_end(ap);
}

static inline __attribute__((format(printf, 2, 3))) void
lope_skip(const char *name, const char *fmt, ...)
{
	va_list ap;

	lope_tap_nskip++;
	va_start(ap, fmt);
	lope_tap__vline("SKIP", name, fmt, ap);
	va_end(ap);
}

static inline __attribute__((format(printf, 1, 2))) void
lope_info(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/*
 * PASS @name when @cond holds, otherwise FAIL it with the formatted reason.
 * Returns @cond so callers can stop early.
 */
static inline __attribute__((format(printf, 3, 4))) int
lope_check(int cond, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		lope_pass(name);
		return 1;
	}
	lope_tap_nfail++;
	va_start(ap, fmt);
	lope_tap__vline("FAIL", name, fmt, ap);
	va_end(ap);
	return 0;
}

static inline unsigned int lope_failures(void)
{
	return lope_tap_nfail;
}

/* The program's exit status: 1 if any case failed, else 0. */
static inline int lope_done(void)
{
	fflush(stdout);
	return lope_tap_nfail ? 1 : 0;
}

/* Leave now with lope_done()'s status (e.g. after a fatal setup error). */
static inline __attribute__((noreturn)) void lope_exit(void)
{
	exit(lope_done());
}

#endif /* LOPE_TAP_H */
