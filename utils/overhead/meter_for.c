/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Worker: the meter asked for by name, above the meters themselves: the
 * timer and the counter (meter.c), callgrind (meter_cg.c).
 */
#include <string.h>

#include "overhead.h"

struct meter *meter_for(const char *name)
{
	char why[512];
	struct meter *m = strcmp(name, "callgrind") ?
				  meter_counter(name, why, sizeof(why)) :
				  meter_callgrind(why, sizeof(why));

	if (!m)
		emit("fatal meter %s: %s", name, why);
	else
		emit("info val %s", why);
	return m;
}
