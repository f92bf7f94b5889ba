/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "goal.h"

void goal_vsay(struct goal *g, const char *fmt, va_list ap)
{
	size_t l = strlen(g->text);

	if (l)
		snprintf(g->text + l, sizeof(g->text) - l, "; ");
	l = strlen(g->text);
	vsnprintf(g->text + l, sizeof(g->text) - l, fmt, ap);
}

void goal_say(struct goal *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	goal_vsay(g, fmt, ap);
	va_end(ap);
}

int goal_part(struct goal *g, int met)
{
	g->met = (g->evaluated ? g->met : 1) && met;
	g->evaluated = 1;
	return met;
}

const char *goal_verdict(const struct goal *g, const char *met,
			 const char *missed)
{
	return !g->evaluated ? "n/a" : g->met ? met : missed;
}
