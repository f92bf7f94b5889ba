/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

const char *tool_prog;

static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", tool_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(code);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die(EX_FAIL, "out of memory");
	return p;
}

void *xrealloc(void *p, size_t n, size_t size)
{
	p = realloc(p, n * size);
	if (!p)
		die(EX_FAIL, "out of memory");
	return p;
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
	snprintf(dst, len, "%s", src);
}

void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n >= len)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	*n = k < 0 ? len : *n + (size_t)k;
}

/* @s without the blanks around it, in place. */
static char *trim(char *s)
{
	size_t l;

	while (isspace((unsigned char)*s))
		s++;
	l = strlen(s);
	while (l > 0 && isspace((unsigned char)s[l - 1]))
		s[--l] = 0;
	return s;
}

int is_word(const char *s)
{
	if (!*s)
		return 0;
	while (isgraph((unsigned char)*s))
		s++;
	return !*s;
}

int split_list(char *list, char **items, int max)
{
	char *p;
	int n;

	for (n = 0; list; n++) {
		p = trim(strsep(&list, ","));
		if (!is_word(p) || n == max)
			return -1;
		items[n] = p;
	}
	return n;
}

void events_arg(const char *list, int max)
{
	char buf[1024], **names = xcalloc((size_t)max, sizeof(*names));
	int n = -1;

	if (snprintf(buf, sizeof(buf), "%s", list) < (int)sizeof(buf))
		n = split_list(buf, names, max);
	free(names);
	if (n < 1)
		die(EX_USAGE,
		    "-e '%s': give 1 to %d comma-separated event names", list,
		    max);
}

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

long count_arg(const char *opt, const char *s, long max)
{
	long v;

	if (parse_long(s, 1, max, &v))
		die(EX_USAGE, "%s: '%s' is not a count between 1 and %ld", opt,
		    s, max);
	return v;
}

/* The option getopt_long() just refused, as the user wrote it. */
static const char *opt_text(char **argv)
{
	static char text[3] = "-";

	text[1] = (char)optopt;
	return optopt > 0 && optopt < 256 ? text : argv[optind - 1];
}

int tool_getopt(int argc, char **argv, const char *shortopts,
		const struct option *longopts, void (*usage)(FILE *f),
		int operands)
{
	int c, before = optind;

	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (c == 'h') {
		usage(stdout);
		exit(EX_OK);
	}
	if (c == ':')
		die(EX_USAGE, "option %s needs an argument", opt_text(argv));
	/* a tool without operands takes no "--" either */
	if (c == -1 && !operands && optind > before)
		optind = before;
	if (c == '?' || (c == -1 && !operands && optind < argc)) {
		usage(stderr);
		die(EX_USAGE, "unknown option '%s'",
		    c == '?' ? opt_text(argv) : argv[optind]);
	}
	return c;
}

size_t quantile_at(long n, double q)
{
	return (size_t)((double)(n - 1) * q + 0.5);
}

void csv_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

/* The text after "KEY:" of cpuinfo line @line, if it is KEY's. */
static const char *cpuinfo_val(const char *line, const char *key)
{
	const char *c = strchr(line, ':');

	if (!c || strncmp(line, key, strlen(key)))
		return NULL;
	return c + 1 + strspn(c + 1, " \t");
}

void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512], impl[64] = "", part[64] = "";
	const char *v;

	snprintf(buf, len, "unknown CPU");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if ((v = cpuinfo_val(line, "model name")) ||
		    (v = cpuinfo_val(line, "Processor")) ||
		    (v = cpuinfo_val(line, "cpu model"))) {
			oneline(buf, len, v);
			break;
		}
		/* arm64 names no model: its implementer and part numbers */
		if ((v = cpuinfo_val(line, "CPU implementer")) && !impl[0])
			oneline(impl, sizeof(impl), v);
		if ((v = cpuinfo_val(line, "CPU part")) && !part[0])
			oneline(part, sizeof(part), v);
	}
	fclose(f);
	if (!strcmp(buf, "unknown CPU") && impl[0] && part[0])
		snprintf(buf, len, "CPU implementer %s part %s", impl, part);
}
