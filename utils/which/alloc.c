/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_which's allocation that cannot fail (which.h): the lowest of its
 * files, which every other one calls.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "which.h"

static void __attribute__((noreturn)) out_of_memory(void)
{
	fputs("papi_which: out of memory\n", stderr);
	exit(WH_NOT_FOUND);
}

char *wh_strdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		out_of_memory();
	return d;
}

char *wh_aprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		out_of_memory();
	return s;
}
