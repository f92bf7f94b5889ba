/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The loader's own answer: the program's interpreter run as ldd runs it
 * ("LD_TRACE_LOADED_OBJECTS=1 ld.so PROGRAM") maps the libraries and runs
 * none of their code (nothing is relocated without LD_WARN or LD_BIND_NOW).
 * LD_DEBUG=libs,files traces each need ("file=NAME [0];  needed by WHO
 * [0]"), search (" search path=DIRS\t\t(STEP)", " search cache=FILE"),
 * file tried ("  trying file=PATH") and mapped ("generating link map").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tool.h"
#include "which.h"

/* Need @n searched the @dlen bytes of directories at @dirs by the @slen
 * bytes of step at @step. */
static void searched(struct wh_need *n, const char *dirs, size_t dlen,
		     const char *step, size_t slen)
{
	size_t have = n->tried ? strlen(n->tried) : 0;
	size_t add = dlen + slen + sizeof("looked in:  ()\n");

	snprintf(n->step, sizeof(n->step), "%.*s", (int)slen, step);
	n->tried = xrealloc(n->tried, have + add, 1);
	snprintf(n->tried + have, add, "looked in: %.*s (%s)\n", (int)dlen,
		 dirs, n->step);
}

/* Need @cur, its trace read, kept as *@best if it is one of @base and
 * *@best is not found, else dropped. */
static void settle(struct wh_need *best, struct wh_need *cur, const char *base)
{
	if (!strncmp(basename(cur->name), base, strlen(base)) &&
	    !best->mapped) {
		free(best->tried);
		*best = *cur;
	} else {
		free(cur->tried);
	}
	memset(cur, 0, sizeof(*cur));
}

/* A line @s of the trace, after "PID:\t", into need @n. */
static void trace_line(struct wh_need *n, const char *s)
{
	static const char by[] = " [0];  needed by ";
	const char *v = strstr(s, by), *who = v ? v + strlen(by) : NULL;
	const char *paren = strstr(s, "\t\t(");
	size_t len = strlen(s);

	if (!strncmp(s, "file=", 5) && who && strlen(who) > 4) {
		snprintf(n->name, sizeof(n->name), "%.*s", (int)(v - s - 5),
			 s + 5);
		snprintf(n->needer, sizeof(n->needer), "%.*s",
			 (int)strlen(who) - 4, who); /* without " [0]" */
	} else if (n->name[0] && !strncmp(s, "file=", 5) &&
		   strstr(s, "];  generating link map")) {
		n->mapped = 1;
		if (!n->file[0])
			scopy(n->file, sizeof(n->file), n->name);
	} else if (n->name[0] && !strncmp(s, " search path=", 13) && paren &&
		   s[len - 1] == ')') {
		searched(n, s + 13, paren - s - 13, paren + 3,
			 len - (paren + 3 - s) - 1);
	} else if (n->name[0] && !strncmp(s, " search cache=", 14)) {
		searched(n, s + 14, len - 14, "cache", 5);
	} else if (n->name[0] && !strncmp(s, "  trying file=", 14)) {
		scopy(n->file, sizeof(n->file), s + 14);
	}
}

/* Whether the trace's environment keeps variable @v: not the loader's
 * tracing ones nor, @secure, the last two, which cover those glibc's
 * unsecvars.h drops in secure-execution mode that change what it maps. */
static int keep(const char *v, int secure)
{
	static const char *const drop[] = { "LD_DEBUG",       "LD_TRACE",
					    "LD_WARN=",       "LD_VERBOSE=",
					    "LD_BIND_NOW=",   "LD_",
					    "GLIBC_TUNABLES=" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(drop) - (secure ? 0 : 2); i++)
		if (!strncmp(v, drop[i], strlen(drop[i])))
			return 0;
	return 1;
}

int wh_trace__run(struct wh_need *n, const char *base, const char *interp,
		  const char *prog, int secure)
{
	extern char **environ;
	char **from, **to, *line = NULL, *s;
	FILE *f = tmpfile();
	pid_t pid = f ? fork() : -1;
	struct wh_need cur = { 0 };
	size_t cap = 0;
	int st, lines = 0;

	memset(n, 0, sizeof(*n));
	if (pid == 0) { /* stdout and stderr: whole lines at a time */
		for (from = to = environ; *from; from++)
			if (keep(*from, secure))
				*to++ = *from;
		*to = NULL;
		setenv("LD_DEBUG", "libs,files", 1);
		setenv("LD_TRACE_LOADED_OBJECTS", "1", 1);
		dup2(fileno(f), 1);
		dup2(fileno(f), 2);
		execl(interp, interp, prog, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		st = -errno;
		if (f)
			fclose(f);
		return st;
	}
	rewind(f);
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = 0;
		if (!(s = strstr(line, ":\t")))
			continue;
		if (strstr(s, "];  needed by "))
			settle(n, &cur, base);
		trace_line(&cur, s + 2);
		lines++;
	}
	settle(n, &cur, base);
	free(line);
	fclose(f);
	return lines ? 0 : -ENOEXEC;
}
