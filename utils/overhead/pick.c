/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parent: which meter counts.  The timer always can; callgrind where
 * valgrind is installed (and this program has its client requests); the
 * counter where a hardware instructions counter opens.  Asked for by
 * name, a meter that cannot count is refused: never a number it did not
 * count.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overhead.h"
#include "timer.h"

/* Can callgrind count here?  1 with valgrind's path and version in @o,
 * or 0 with why. */
static int callgrind_ok(struct ovh *o, char *why, size_t len)
{
	const char *env = getenv("VALGRIND");
	char cmd[PATH_MAX + 32];
	FILE *f;

	if (!have_callgrind()) {
		snprintf(why, len, "built without valgrind/callgrind.h");
		return 0;
	}
	/* the workers exec it, from $PATH unless a path */
	o->valgrind_path = env && *env ? env : "valgrind";
	snprintf(cmd, sizeof(cmd), "'%.*s' --version 2>/dev/null", PATH_MAX,
		 o->valgrind_path);
	f = popen(cmd, "r");
	if (!f || !fgets(o->valgrind, sizeof(o->valgrind), f))
		o->valgrind[0] = 0;
	if (f)
		pclose(f);
	o->valgrind[strcspn(o->valgrind, "\n")] = 0;
	if (o->valgrind[0])
		return 1;
	if (env && *env)
		snprintf(why, len, "VALGRIND=%.200s does not run", env);
	else
		snprintf(why, len,
			 "valgrind is not installed (Debian: apt-get install "
			 "valgrind)");
	return 0;
}

static void set_meter(struct ovh *o, const char *m)
{
	o->meter = m;
	o->exact = strcmp(m, "timer") != 0;
	o->unit = o->exact ? "instructions" : TIMER_UNIT;
	o->sys_name = strcmp(m, "callgrind") ? "syscalls" : "syscr";
	if (!strcmp(m, "callgrind"))
		snprintf(o->meter_desc, sizeof(o->meter_desc),
			 "callgrind (%.200s): user-space instructions",
			 o->valgrind);
	else if (o->exact)
		snprintf(o->meter_desc, sizeof(o->meter_desc),
			 "counter: hardware instructions, user and kernel");
	else
		snprintf(o->meter_desc, sizeof(o->meter_desc),
			 "timer: " TIMER_UNIT " (" TIMER_NAME " around each "
			 "call)");
}

void pick_meter(struct ovh *o)
{
	const char *m = o->o.meter;
	char vwhy[256] = "", cwhy[256] = "";

	if (!strcmp(m, "timer"))
		set_meter(o, m);
	else if (strcmp(m, "counter") && callgrind_ok(o, vwhy, sizeof(vwhy)))
		set_meter(o, "callgrind");
	else if (strcmp(m, "callgrind") && counter_probe(cwhy, sizeof(cwhy)))
		set_meter(o, "counter");
	else if (!strcmp(m, "callgrind"))
		die(EX_SKIP, "meter callgrind cannot count here: %s", vwhy);
	else if (!strcmp(m, "counter"))
		die(EX_SKIP,
		    "meter counter cannot count here: %s; try -m callgrind",
		    cwhy);
	else
		die(EX_SKIP,
		    "no exact meter can count here: callgrind: %s; counter: %s",
		    vwhy, cwhy);
}
