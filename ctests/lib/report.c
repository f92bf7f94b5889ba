/* SPDX-License-Identifier: BSD-3-Clause */
/* The report protocol (report.h). */
#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <ctype.h>
#include <stdlib.h>

static unsigned int nfail;

/* Print "TAG: name" or "TAG: name: reason" (reason formatted, one line). */
static void vline(const char *tag, const char *name, const char *fmt,
		  va_list ap)
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

void lope_pass(const char *name)
{
	printf("PASS: %s\n", name);
	fflush(stdout);
}

void lope_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	nfail++;
	va_start(ap, fmt);
	vline("FAIL", name, fmt, ap);
	va_end(ap);
}

void lope_skip(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("SKIP", name, fmt, ap);
	va_end(ap);
}

void lope_info(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

int lope_check(int cond, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		lope_pass(name);
		return 1;
	}
	nfail++;
	va_start(ap, fmt);
	vline("FAIL", name, fmt, ap);
	va_end(ap);
	return 0;
}

char *lope_name(char *buf, size_t len, const char *fmt, ...)
{
	char raw[256];
	size_t i, n = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	for (i = 0; raw[i] && n + 1 < len; i++) {
		unsigned char c = (unsigned char)raw[i];

		if (isalnum(c))
			buf[n++] = (char)tolower(c);
		else if (n > 0 && buf[n - 1] != '_')
			buf[n++] = '_';
	}
	while (n > 0 && buf[n - 1] == '_')
		n--;
	if (len)
		buf[n] = 0;
	return buf;
}

unsigned int lope_failures(void)
{
	return nfail;
}

int lope_done(void)
{
	fflush(stdout);
	return nfail ? 1 : 0;
}

void lope_exit(void)
{
	exit(lope_done());
}
