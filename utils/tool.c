/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

int worker_fd = -1;

void die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tool_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

void emit(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	if ((size_t)len > sizeof(buf) - 2)
		len = (int)sizeof(buf) - 2;
	buf[len++] = '\n';
	if (write(worker_fd, buf, (size_t)len) != len)
		_exit(1);
}

void oneline(char *dst, size_t len, const char *src)
{
	size_t i;

	snprintf(dst, len, "%s", src ? src : "");
	for (i = 0; dst[i]; i++)
		if (dst[i] == '\n' || dst[i] == '\t' || dst[i] == '\r')
			dst[i] = ' ';
	while (i > 0 && dst[i - 1] == ' ')
		dst[--i] = 0;
}

void scopy(char *dst, size_t len, const char *src)
{
	size_t l = 0;

	while (l + 1 < len && src[l]) {
		dst[l] = src[l];
		l++;
	}
	dst[l] = 0;
}

int dir_has_libpapi(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d)) != NULL)
		found = strncmp(de->d_name, "libpapi.so", 10) == 0;
	closedir(d);
	return found;
}
