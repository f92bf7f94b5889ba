/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "papi.h"

#include "line.h"
#include "papi_common.h"
#include "tool.h"
#include "worker.h"

#define WORKER_MAX_ARGS 8

#ifndef LOPE_OURS_LIBDIR
#define LOPE_OURS_LIBDIR NULL
#endif
#ifndef LOPE_STOCK_LIBDIR
#define LOPE_STOCK_LIBDIR NULL
#endif

/* ------------------------------------------------------------------ */
/* Which libpapi                                                       */
/* ------------------------------------------------------------------ */

/* Does @dir hold a libpapi.so* file? */
static int dir_has_libpapi(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d)) != NULL)
		found = strncmp(de->d_name, "libpapi.so", 10) == 0;
	closedir(d);
	return found;
}

/* @dir, given as "@what@sep@dir" (option "--ours", ' ' or environment
 * variable, '='); exit 2 if it holds no libpapi.so*. */
static const char *libdir_arg(const char *what, char sep, const char *dir)
{
	if (!dir_has_libpapi(dir))
		die(EX_USAGE, "%s%c%s: no libpapi.so* in that directory", what,
		    sep, dir);
	return dir;
}

/*
 * The first of: $@env (which must hold libpapi.so*), $@env2 and the
 * compiled-in @builtin (each where it holds libpapi.so*).  NULL if none.
 */
static const char *pick_dir(const char *env, const char *env2,
			    const char *builtin)
{
	const char *e = getenv(env);

	if (e && *e)
		return libdir_arg(env, '=', e);
	e = getenv(env2);
	if (e && *e && dir_has_libpapi(e))
		return e;
	return builtin && *builtin && dir_has_libpapi(builtin) ? builtin : NULL;
}

int libdirs_getopt(int argc, char **argv, const char *shortopts,
		   const struct option *longopts, void (*usage)(FILE *f),
		   struct libdirs *d)
{
	int c;

	for (;;) {
		c = tool_getopt(argc, argv, shortopts, longopts, usage, 0);
		if (c == OPT_OURS) {
			d->ours = libdir_arg("--ours", ' ', optarg);
		} else if (c == OPT_COMPARE) {
			d->stock = libdir_arg("--compare", ' ', optarg);
			d->no_compare = 0;
		} else if (c == OPT_NO_COMPARE) {
			d->no_compare = 1;
			d->stock = NULL;
		} else {
			return c;
		}
	}
}

void libdirs_default(struct libdirs *d)
{
	if (!d->ours)
		d->ours = pick_dir("LOPE_OURS_LIBDIR", "PAPI_OURS_BUILDDIR",
				   LOPE_OURS_LIBDIR);
	if (!d->stock && !d->no_compare)
		d->stock = pick_dir("LOPE_STOCK_LIBDIR", "PAPI_STOCK_BUILDDIR",
				    LOPE_STOCK_LIBDIR);
}

/* ------------------------------------------------------------------ */
/* Parent side                                                         */
/* ------------------------------------------------------------------ */

void worker_init(struct worker *w, enum worker_path path,
		 const struct libdirs *d)
{
	static const char *const names[] = { "ours-rdpmc", "ours-read", "stock",
					     "floor" };
	const char *libdir = path == WORKER_STOCK ? d->stock :
			     path == WORKER_FLOOR ? NULL :
						    d->ours;

	*w = (struct worker){ .path = path,
			      .name = names[path],
			      .libdir = libdir,
			      .no_rdpmc = path == WORKER_READ,
			      .active = path != WORKER_STOCK || libdir };
}

#define WORKER_MAX_WRAP 16

/* In the forked child: set the worker's environment and exec @argv, this
 * program or the command it runs under (w->wrap). */
static _Noreturn void worker_exec(const struct worker *w,
				  const char *const *argv)
{
	const char *old = getenv("LD_LIBRARY_PATH");
	const char *file = w->wrap ? argv[0] : "/proc/self/exe";
	char *v;

	/* worker chatter (PAPI warnings ...) must not mix into stdout */
	dup2(STDERR_FILENO, STDOUT_FILENO);
	if (w->libdir) {
		if (asprintf(&v, "%s%s%s", w->libdir, old && *old ? ":" : "",
			     old && *old ? old : "") < 0)
			_exit(EX_FAIL);
		setenv("LD_LIBRARY_PATH", v, 1);
	}
	if (w->no_rdpmc)
		setenv("LOPE_NO_RDPMC", "1", 1);
	else
		unsetenv("LOPE_NO_RDPMC");
	execvp(file, (char *const *)argv);
	fprintf(stderr, "%s: exec %s: %s\n", tool_prog, file, strerror(errno));
	_exit(127);
}

int line_text(void *obj, const struct line_text *t, size_t n, const char *line)
{
	size_t i, l;

	for (i = 0; i < n; i++) {
		l = strlen(t[i].key);
		if (!strncmp(line, t[i].key, l)) {
			scopy((char *)obj + t[i].off, t[i].len, line + l);
			return 1;
		}
	}
	return 0;
}

/* Read @fd to its end and close it: each line worker_hello() or a failing
 * PAPI sent into @w, every other to @line. */
static void worker_read(int fd, struct worker *w, worker_line_fn line,
			void *arg)
{
	static const struct line_text hello[] = {
		LINE_TEXT(struct worker, "info lib ", lib),
		LINE_TEXT(struct worker, "info comp ", comp),
		LINE_TEXT(struct worker, "info desc ", desc),
		LINE_TEXT(struct worker, "info disabled ", disabled),
		LINE_TEXT(struct worker, "fatal ", fatal),
	};
	FILE *f = fdopen(fd, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t l;

	if (!f)
		die(EX_FAIL, "fdopen: %s", strerror(errno));
	while ((l = getline(&buf, &cap, f)) > 0) {
		if (buf[l - 1] == '\n')
			buf[l - 1] = 0;
		if (!strncmp(buf, "info fcr ", 9))
			w->fcr = atoi(buf + 9);
		else if (!line_text(w, hello, ARRAY_SIZE(hello), buf))
			line(arg, buf);
	}
	free(buf);
	fclose(f);
}

void worker_run(struct worker *w, const char *mode, int cpu,
		const char *const *args, worker_line_fn line, void *arg)
{
	const char *argv[WORKER_MAX_WRAP + WORKER_MAX_ARGS + 6];
	char fdbuf[16], cpubuf[16], self[PATH_MAX];
	int pfd[2], status, a = 0, i;
	pid_t pid;

	if (pipe(pfd))
		die(EX_FAIL, "pipe: %s", strerror(errno));
	snprintf(fdbuf, sizeof(fdbuf), "%d", pfd[1]);
	snprintf(cpubuf, sizeof(cpubuf), "%d", cpu);
	for (i = 0; w->wrap && w->wrap[i] && i < WORKER_MAX_WRAP; i++)
		argv[a++] = w->wrap[i];
	/* the wrapper's own /proc/self/exe is not this program */
	if (w->wrap && !realpath("/proc/self/exe", self))
		die(EX_FAIL, "/proc/self/exe: %s", strerror(errno));
	argv[a++] = w->wrap ? self : tool_prog;
	argv[a++] = mode;
	argv[a++] = fdbuf;
	argv[a++] = cpubuf;
	argv[a++] = w->libdir ? w->libdir : "-";
	for (i = 0; args[i] && i < WORKER_MAX_ARGS; i++)
		argv[a++] = args[i];
	argv[a] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die(EX_FAIL, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(pfd[0]);
		worker_exec(w, argv);
	}
	close(pfd[1]);
	worker_read(pfd[0], w, line, arg);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die(EX_FAIL, "waitpid: %s", strerror(errno));
	w->ran = 1;
	w->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : EX_FAIL;
	w->signo = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/* ------------------------------------------------------------------ */
/* Worker side                                                         */
/* ------------------------------------------------------------------ */

static int worker_fd = -1;        /* the pipe the result lines go to */
static const char *worker_libdir; /* where its libpapi must come from */

void emit(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = write_line(worker_fd, fmt, ap);
	va_end(ap);
	if (rc)
		_exit(1);
}

/* Pin to CPU @arg; a negative or bad number: not pinned. */
static void worker_pin(const char *arg)
{
	long cpu;
	cpu_set_t set;

	if (parse_long(arg, 0, CPU_SETSIZE - 1, &cpu))
		return;
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		emit("info pin failed: %s", strerror(errno));
}

char **worker_start(char **argv, unsigned timeout)
{
	worker_fd = atoi(argv[2]);
	alarm(timeout);
	worker_pin(argv[3]);
	worker_libdir = strcmp(argv[4], "-") ? argv[4] : NULL;
	return argv + 5;
}

void emit_list(const char *key, char **names, int n)
{
	char line[1024];
	size_t len = 0;
	int i;

	line[0] = 0;
	for (i = 0; i < n; i++)
		append(line, sizeof(line), &len, "%s%s", i ? "," : "",
		       names[i]);
	emit("info %s %s", key, line);
}

int worker_set_new(int *es, char **names, int n, char *why, size_t len)
{
	int i, rc, code;

	*es = PAPI_NULL;
	rc = PAPI_create_eventset(es);
	if (rc != PAPI_OK)
		snprintf(why, len, "PAPI_create_eventset: %s",
			 PAPI_strerror(rc));
	for (i = 0; i < n && rc == PAPI_OK; i++) {
		rc = PAPI_event_name_to_code(names[i], &code);
		if (rc != PAPI_OK)
			snprintf(why, len, "%s: unknown event (%s)", names[i],
				 PAPI_strerror(rc));
		else if ((rc = PAPI_add_event(*es, code)) != PAPI_OK)
			snprintf(why, len, "%s: PAPI_add_event: %s", names[i],
				 PAPI_strerror(rc));
	}
	if (rc != PAPI_OK)
		drop_set(es);
	return rc;
}

int worker_set_try(char **names, int n, char *why, size_t len)
{
	int es, rc = worker_set_new(&es, names, n, why, len);

	if (rc != PAPI_OK)
		return rc;
	rc = PAPI_start(es);
	if (rc != PAPI_OK)
		snprintf(why, len, "PAPI_start: %s", PAPI_strerror(rc));
	drop_set(&es); /* stops it if it runs */
	return rc;
}

/* Did the loader map @lib (a real path) from @dir: a file below it (in
 * a subdirectory it searches there, hwcaps), or one a libpapi.so* of
 * @dir links to?  Yes if no @dir. */
static int libpapi_from(const char *lib, const char *dir)
{
	char real[PATH_MAX], *pat;
	struct stat want, st;
	size_t l, i;
	glob_t g;
	int found = 0;

	if (!dir)
		return 1;
	if (!realpath(dir, real) || stat(lib, &want))
		return 0;
	l = strlen(real);
	if (!strncmp(lib, real, l) && lib[l] == '/')
		return 1;
	if (asprintf(&pat, "%s/libpapi.so*", dir) < 0)
		return 0;
	if (!glob(pat, 0, NULL, &g)) {
		for (i = 0; i < g.gl_pathc && !found; i++)
			found = !stat(g.gl_pathv[i], &st) &&
				st.st_dev == want.st_dev &&
				st.st_ino == want.st_ino;
		globfree(&g);
	}
	free(pat);
	return found;
}

int worker_hello(int *cidx)
{
	const PAPI_component_info_t *ci;
	char line[1024], lib[PATH_MAX];
	int rc = PAPI_library_init(PAPI_VER_CURRENT);

	if (rc != PAPI_VER_CURRENT) {
		emit("fatal PAPI_library_init: %s",
		     rc > 0 ? "version mismatch" : PAPI_strerror(rc));
		return -1;
	}
	(void)libpapi_file(lib);
	emit("info lib %s", lib);
	if (!libpapi_from(lib, worker_libdir)) {
		emit("fatal loaded %s, not the libpapi.so of %s: the loader "
		     "passed over that one (another architecture?)",
		     lib, worker_libdir);
		return -1;
	}
	*cidx = PAPI_get_component_index("perf_event");
	if (*cidx < 0)
		*cidx = 0;
	ci = PAPI_get_component_info(*cidx);
	if (!ci)
		return 0;
	oneline(line, sizeof(line), ci->description);
	emit("info comp %s", ci->name);
	emit("info desc %s", line);
	emit("info fcr %d", ci->fast_counter_read ? 1 : 0);
	if (ci->disabled) {
		oneline(line, sizeof(line), ci->disabled_reason);
		emit("info disabled %s", line);
	}
	return 0;
}
