/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "line.h"

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int write_line(int fd, const char *fmt, va_list ap)
{
	char buf[LINE_BYTES];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n < 0)
		return -1;
	/* cut: the newline takes the NUL's place */
	if (n > (int)sizeof(buf) - 1)
		n = (int)sizeof(buf) - 1;
	buf[n++] = '\n';
	return write_all(fd, buf, (size_t)n);
}
