/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The loader's own answer.  The program's interpreter run as ldd runs it,
 * "LD_TRACE_LOADED_OBJECTS=1 ld.so PROGRAM" (as "ld.so --list", which
 * stops at the first library not found), maps the libraries as an exec
 * would and runs none of their code: no constructor, and no IFUNC
 * resolver, as nothing is relocated without LD_WARN or LD_BIND_NOW.
 * LD_DEBUG=libs,files traces each need ("file=NAME [0];  needed by WHO
 * [0]"), search ("search path=DIRS\t\t(RPATH from file X)", "(RUNPATH
 * from file X)", "(LD_LIBRARY_PATH)", "(system search path)", "search
 * cache=FILE") and file tried ("trying file=PATH": the last is the one
 * mapped); the list follows ("\tNAME => PATH (0x...)", "=> not found").
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

/* The first @n bytes of @s, a new string. */
static char *dupn(const char *s, size_t n)
{
	char *d = xcalloc(n + 1, 1);

	memcpy(d, s, n);
	return d;
}

/* @s up to the first (or, @last, the last) @end, or all of it. */
static char *upto(const char *s, const char *end, int last)
{
	const char *e = strstr(s, end), *next;

	while (last && e && (next = strstr(e + 1, end)))
		e = next;
	return dupn(s, e ? (size_t)(e - s) : strlen(s));
}

/* Add directory @d (@n bytes) to the blank-separated list *@list once. */
static void add_dir(char **list, const char *d, size_t n)
{
	size_t have = *list ? strlen(*list) : 0;
	char *w = dupn(d, n), *p;

	for (p = *list; n && p && (p = strstr(p, w)); p++)
		if ((p == *list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			break;
	if (n && !p) {
		*list = xrealloc(*list, have + n + 2, 1);
		snprintf(*list + have, n + 2, "%s%s", have ? " " : "", w);
	}
	free(w);
}

/* A line of the trace, after "PID:\t"; *@step is the search under way. */
static void trace_line(struct wh_trace *t, const char *s, char **step)
{
	static const char by[] = "];  needed by ";
	struct wh_need *n = t->nr ? &t->needs[t->nr - 1] : NULL;
	const char *v = strstr(s, by);
	size_t len;

	if (!strncmp(s, "file=", 5) && v) {
		t->needs = xrealloc(t->needs, t->nr + 1, sizeof(*t->needs));
		n = memset(&t->needs[t->nr++], 0, sizeof(*n));
		n->name = upto(s + 5, " [", 0);
		n->needer = upto(v + strlen(by), " [", 1);
	} else if (n && !strncmp(s, " search path=", 13)) {
		free(*step);
		v = strstr(s, "\t\t(");
		*step = v ? upto(v + 3, ")", 1) : dupn("", 0);
		for (s += 13; *s && *s != '\t'; s += *s == ':') {
			len = strcspn(s, ":\t");
			add_dir(&n->tried, s, len);
			s += len;
		}
	} else if (n && !strncmp(s, " search cache=", 14)) {
		free(*step);
		*step = dupn("cache", 5);
		add_dir(&n->tried, s + 14, strlen(s + 14));
	} else if (n && !strncmp(s, "  trying file=", 14)) {
		free(n->file);
		free(n->step);
		n->file = dupn(s + 14, strlen(s + 14));
		n->step = *step ? dupn(*step, strlen(*step)) : NULL;
	}
}

/* A line of the list: "NAME => PATH (0x...)", "NAME => not found" or
 * "PATH (0x...)". */
static void list_line(struct wh_trace *t, const char *s)
{
	const char *arrow = strstr(s, " => "), *base;
	char *name = arrow ? dupn(s, arrow - s) : upto(s, " (0x", 1);
	char *path = upto(arrow ? arrow + 4 : s, " (0x", 1);

	base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	if (!strcmp(path, "not found")) {
		free(path);
		path = NULL;
	}
	if (!t->papi && !strncmp(base, "libpapi.so", 10)) {
		t->papi = name;
		t->papi_path = path;
		return;
	}
	if (!t->libc && !strcmp(base, "libc.so.6"))
		t->libc = path, path = NULL;
	free(name);
	free(path);
}

/* Whether variable @v starts with one of @prefixes. */
static int named(const char *v, const char *const *prefixes)
{
	for (; *prefixes; prefixes++)
		if (!strncmp(v, *prefixes, strlen(*prefixes)))
			return 1;
	return 0;
}

/* This environment with the trace's variables ours; @secure: without
 * those the loader ignores in secure-execution mode (glibc's unsecvars.h:
 * all that change what it maps are LD_ ones, and tunables it filters). */
static char **trace_env(int secure)
{
	static const char *const trace[] = { "LD_DEBUG",     "LD_TRACE",
					     "LD_WARN=",     "LD_VERBOSE=",
					     "LD_BIND_NOW=", NULL };
	static const char *const unsecure[] = { "LD_",
						"GLIBC_TUNABLES=", NULL };
	static char debug[] = "LD_DEBUG=libs,files",
		    list[] = "LD_TRACE_LOADED_OBJECTS=1";
	extern char **environ;
	size_t i, n = 0;
	char **env;

	for (i = 0; environ[i]; i++)
		;
	env = xcalloc(i + 3, sizeof(*env));
	for (i = 0; environ[i]; i++)
		if (!named(environ[i], trace) &&
		    !(secure && named(environ[i], unsecure)))
			env[n++] = environ[i];
	env[n++] = debug;
	env[n] = list;
	return env;
}

/* Run @argv with @env, stdout and stderr (written whole lines at a time
 * by the loader) into one temporary file: it rewound, or NULL. */
static FILE *run(char *const argv[], char *const env[])
{
	FILE *f = tmpfile();
	pid_t pid = f ? fork() : -1;
	int st;

	if (pid == 0) {
		dup2(fileno(f), 1);
		dup2(fileno(f), 2);
		execve(argv[0], argv, env);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &st, 0) == pid) {
		rewind(f);
		return f;
	}
	if (f)
		fclose(f);
	return NULL;
}

int wh_trace__run(struct wh_trace *t, const char *interp, const char *prog,
		  int secure)
{
	char *argv[] = { (char *)interp, (char *)prog, NULL };
	char **env = trace_env(secure), *line = NULL, *step = NULL, *s;
	FILE *f = run(argv, env);
	int lines = 0;
	size_t cap = 0;
	ssize_t n;

	memset(t, 0, sizeof(*t));
	free(env);
	if (!f)
		return -errno;
	while ((n = getline(&line, &cap, f)) > 0) {
		line[n - 1] = line[n - 1] == '\n' ? 0 : line[n - 1];
		if (line[0] == '\t')
			list_line(t, line + 1);
		else if ((s = strstr(line, ":\t")))
			trace_line(t, s + 2, &step);
		else
			continue;
		lines++;
	}
	free(line);
	free(step);
	fclose(f);
	return lines ? 0 : -ENOEXEC;
}

const struct wh_need *wh_trace__need(const struct wh_trace *t, const char *name,
				     const char *path)
{
	const struct wh_need *n;

	for (n = t->needs; n < t->needs + t->nr; n++)
		if (path ? !strcmp(n->file ? n->file : n->name, path) :
			   !strcmp(n->name, name))
			return n;
	return NULL;
}

void wh_trace__free(struct wh_trace *t)
{
	struct wh_need *n;

	for (n = t->needs; n < t->needs + t->nr; n++) {
		free(n->name);
		free(n->needer);
		free(n->file);
		free(n->step);
		free(n->tried);
	}
	free(t->needs);
	free(t->papi);
	free(t->papi_path);
	free(t->libc);
}
