/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A goal papi_overhead judges from its run: parts, each a
 * comparison said in the goal's text; the goal is met if every part is.
 */
#ifndef LOPE_GOAL_H
#define LOPE_GOAL_H

#include <stdarg.h>

struct goal {
	int evaluated; /* 0: nothing in this run could judge it */
	int met;       /* every part judged is within its limit */
	char text[1024];
};

/* Append to @g's text, after "; " if it has some already. */
void goal_say(struct goal *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void goal_vsay(struct goal *g, const char *fmt, va_list ap);
/* One part of @g judged, @met or not: @g is evaluated, and no longer met
 * if a part is not.  Returns @met. */
int goal_part(struct goal *g, int met);
/* "n/a" if no part of @g was judged, else the tool's word @met or
 * @missed. */
const char *goal_verdict(const struct goal *g, const char *met,
			 const char *missed);

#endif /* LOPE_GOAL_H */
