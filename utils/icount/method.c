/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which method counts here: callgrind where valgrind is installed (and
 * this program has its client requests), else a hardware instructions
 * counter.  Asked for by name, a method that cannot count is refused:
 * never a number it did not count.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "icount.h"

/* $VALGRIND, else valgrind in $PATH, into @path; 0, or -1 with why. */
static int find_valgrind(char *path, size_t len, char *why, size_t wlen)
{
	const char *env = getenv("VALGRIND"), *p = getenv("PATH");
	char dir[PATH_MAX];
	size_t l;

	if (env && *env) {
		scopy(path, len, env);
		if (!access(path, X_OK))
			return 0;
		snprintf(why, wlen, "VALGRIND=%s is not executable", env);
		return -1;
	}
	while (p && *p) {
		l = strcspn(p, ":");
		snprintf(dir, sizeof(dir), "%.*s", (int)l, p);
		if (snprintf(path, len, "%s/valgrind", l ? dir : ".") <
			    (int)len &&
		    !access(path, X_OK))
			return 0;
		p += l + (p[l] == ':');
	}
	snprintf(why, wlen,
		 "valgrind is not installed (Debian: apt-get "
		 "install valgrind)");
	return -1;
}

/* Can callgrind count here?  1 with its version in ic, or 0 with why. */
static int callgrind_ok(struct ic *ic, char *why, size_t len)
{
	static char path[PATH_MAX];
	char cmd[PATH_MAX + 32];
	FILE *f;

	if (!have_callgrind()) {
		snprintf(why, len, "built without valgrind/callgrind.h");
		return 0;
	}
	if (find_valgrind(path, sizeof(path), why, len))
		return 0;
	snprintf(cmd, sizeof(cmd), "'%s' --version 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f || !fgets(ic->valgrind, sizeof(ic->valgrind), f))
		ic->valgrind[0] = 0;
	if (f)
		pclose(f);
	ic->valgrind[strcspn(ic->valgrind, "\n")] = 0;
	if (!ic->valgrind[0]) {
		snprintf(why, len, "%.200s --version failed", path);
		return 0;
	}
	ic->valgrind_path = path;
	return 1;
}

static void set_method(struct ic *ic, const char *m)
{
	ic->method = m;
	ic->sys_name = strcmp(m, "callgrind") ? "syscalls" : "syscr";
	if (!strcmp(m, "callgrind"))
		snprintf(ic->method_desc, sizeof(ic->method_desc),
			 "callgrind (%.200s): user-space instructions",
			 ic->valgrind);
	else
		snprintf(ic->method_desc, sizeof(ic->method_desc),
			 "counter: hardware instructions, user and kernel");
}

void pick_method(struct ic *ic)
{
	const char *m = ic->o.method;
	char vwhy[256] = "", cwhy[256] = "";
	int vg = strcmp(m, "counter") && callgrind_ok(ic, vwhy, sizeof(vwhy));
	int cnt = !vg && strcmp(m, "callgrind") &&
		  counter_probe(cwhy, sizeof(cwhy));

	if (vg)
		set_method(ic, "callgrind");
	else if (cnt)
		set_method(ic, "counter");
	else if (!strcmp(m, "callgrind"))
		die(EX_SKIP, "method callgrind cannot count here: %s", vwhy);
	else if (!strcmp(m, "counter"))
		die(EX_SKIP,
		    "method counter cannot count here: %s; try -m callgrind",
		    cwhy);
	else
		die(EX_SKIP,
		    "no method can count here: callgrind: %s; counter: %s",
		    vwhy, cwhy);
}
