/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the utilities share: exit codes, messages, allocation that cannot
 * fail, string, option, quantile and CSV helpers, the CPU's name (what the
 * tools that link PAPI share with the PAPI tests is in papi_common.h).
 */
#ifndef LOPE_TOOL_H
#define LOPE_TOOL_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* Exit codes every utility uses the same way. */
#define EX_OK 0
#define EX_FAIL 1  /* a measurement or the counting failed */
#define EX_USAGE 2 /* bad input: nothing was measured */
#define EX_SKIP 77 /* this machine cannot measure it (said why) */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The program's name for messages: each tool's main() sets it first,
 * so that this file calls nothing of the tool's. */
extern const char *tool_prog;

/* "prog: message" on stderr. */
void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: message" on stderr, then exit(@code). */
void die(int code, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
/* calloc and realloc that die (exit 1) when memory runs out. */
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n, size_t size);
/* @src on one line: newlines and tabs as blanks, no trailing blanks. */
void oneline(char *dst, size_t len, const char *src);
/* Copy @src into @dst of size @len, cut if needed. */
void scopy(char *dst, size_t len, const char *src);
/*
 * printf @fmt at @buf + *@n (of @len), cut if it does not fit; *@n grows
 * by what was written (to @len once full).
 */
void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Is @s one word: not empty, no blank nor control character? */
int is_word(const char *s);
/*
 * Split the comma-separated @list in place into @items[0..max), each
 * without the blanks around it: the count, or -1 if an item is not a
 * word (is_word()) or there are more than @max.  Every tool's lists
 * (events, loop counts).
 */
int split_list(char *list, char **items, int max);
/* Option -e's list @list as split_list() takes it, or exit 2. */
void events_arg(const char *list, int max);
/* @s as a number from @min to @max into *@out: 0, or -1 if it is not. */
int parse_long(const char *s, long min, long max, long *out);
/* Option @opt's argument @s as a count from 1 to @max, or exit 2. */
long count_arg(const char *opt, const char *s, long max);
/*
 * getopt_long() with @shortopts starting "+:": the next option, or -1 at
 * the end, the operands from argv[optind] when the tool takes @operands
 * (it checks their number).  -h: @usage on stdout and exit 0.  A missing
 * argument, an unknown option or, without @operands, an operand: a
 * message (after @usage on stderr for the last two) and exit 2.
 */
int tool_getopt(int argc, char **argv, const char *shortopts,
		const struct option *longopts, void (*usage)(FILE *f),
		int operands);

/*
 * Where quantile @q (0 to 1) of @n > 0 sorted values stands: the index
 * nearest (n - 1) q, a half rounded up.  The one rule of every figure
 * the utilities print: the median (q 0.5) of an even count is the upper
 * of the two middle values.
 */
size_t quantile_at(long n, double q);

/* @s on stdout as a CSV field: in double quotes, its own doubled. */
void csv_str(const char *s);
/* The perf_event_attr type and config of a kernel generic event, for
 * tables: PERF_HW(INSTRUCTIONS), PERF_SW(TASK_CLOCK). */
#define PERF_HW(cfg) PERF_TYPE_HARDWARE, PERF_COUNT_HW_##cfg
#define PERF_SW(cfg) PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##cfg

/* The CPU's model name, from /proc/cpuinfo ("unknown CPU" if none). */
void cpu_model(char *buf, size_t len);

#endif /* LOPE_TOOL_H */
