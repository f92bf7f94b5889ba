/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Worker: the meter asked for by name, above the meters themselves: the
 * timer and the counter (meter.c), callgrind (meter_cg.c).
 */
#include <stdio.h>
#include <string.h>

#include "overhead.h"
#include "timer.h"

struct meter *meter_for(const char *name)
{
	struct meter *m;
	char why[512];

	if (!strcmp(name, "callgrind")) {
		m = meter_callgrind(why, sizeof(why));
	} else {
		m = meter_counter(!strcmp(name, "counter"), why, sizeof(why));
		if (!strcmp(name, "timer"))
			snprintf(why, sizeof(why),
				 "ok: " TIMER_NAME
				 " around each call, in " TIMER_UNIT);
		else if (strcmp(name, "counter"))
			snprintf(why, sizeof(why),
				 "not counted here (another "
				 "run counts it)");
		if (m && !strcmp(name, "timer"))
			m = meter_timer(m->sys_counted ? m : NULL);
	}
	if (!m)
		emit("fatal meter %s: %s", name, why);
	else
		emit("info val %s", why);
	return m;
}
