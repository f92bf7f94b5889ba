/* SPDX-License-Identifier: BSD-3-Clause */
/* Children as the unprivileged user nobody (nobody.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nobody.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "papi_util.h"
#include "report.h"
#include "target.h"

/* The descriptor the rerun child reports on (a pipe to its parent). */
#define REPORT_ENV "LOPE_NOBODY_REPORT_FD"

/*
 * The file mapped as libpapi, named as the kernel names it (symbolic
 * links and /proc/self/fd resolved), in @buf; 0, or -1 when none.
 */
static int mapped_libpapi(char *buf, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];
	const char *p;
	int rc = -1;

	if (!f)
		return -1;
	while (rc && fgets(line, sizeof(line), f)) {
		/* The fields before the path have no '/'. */
		p = strchr(line, '/');
		if (!p || !strstr(p, "/libpapi.so"))
			continue;
		snprintf(buf, size, "%.*s", (int)strcspn(p, "\n"), p);
		rc = 0;
	}
	fclose(f);
	return rc;
}

/*
 * May NOBODY, without supplementary groups, @verb (@bit: 4 read, 1 search
 * or execute) @path, the @what?  0, or -1 with the reason in @why.
 */
static int nobody_may(const char *path, mode_t bit, const char *verb,
		      const char *what, char *why, size_t n)
{
	struct stat st;
	mode_t m;

	if (stat(path, &st)) {
		snprintf(why, n, "stat %s: %s", path, strerror(errno));
		return -1;
	}
	m = st.st_uid == NOBODY ? st.st_mode >> 6 :
	    st.st_gid == NOBODY ? st.st_mode >> 3 :
				  st.st_mode;
	if (m & bit)
		return 0;
	snprintf(why, n,
		 "uid %d cannot %s %s (mode %04o), %s: chmod o+%c it, or "
		 "build with umask 022",
		 NOBODY, verb, path, (unsigned)(st.st_mode & 07777), what,
		 bit == 4 ? 'r' : 'x');
	return -1;
}

/*
 * Can NOBODY run this program against our libpapi @lib through @dir (the
 * directory the dynamic linker found it in)?  0, or -1 with the reason in
 * @why.
 */
static int nobody_reaches(const char *dir, const char *lib, char *why, size_t n)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len <= 0) {
		snprintf(why, n, "readlink /proc/self/exe: %s",
			 strerror(errno));
		return -1;
	}
	exe[len] = '\0';
	if (nobody_may(dir, 1, "search", "the directory of our libpapi", why,
		       n) ||
	    nobody_may(lib, 4, "read", "our libpapi", why, n) ||
	    nobody_may(exe, 1, "run", "this test program", why, n))
		return -1;
	return 0;
}

/*
 * The forked child: drop, keep @dir and the pipe's @out across the exec,
 * put @ldpath and @report in the environment and run this program again.
 * A failure before the exec is written to @out.
 */
static __attribute__((noreturn)) void
exec_child(int dir, int out, char *ldpath, char *report, char *const argv[])
{
	if (drop_to_nobody()) {
		(void)dprintf(out, "drop %s\n", strerror(errno));
		_exit(127);
	}
	if (fcntl(dir, F_SETFD, 0) || fcntl(out, F_SETFD, 0) ||
	    putenv(ldpath) || putenv(report)) {
		(void)dprintf(out, "exec set-up: %s\n", strerror(errno));
		_exit(127);
	}
	execv("/proc/self/exe", argv);
	(void)dprintf(out, "exec /proc/self/exe: %s\n", strerror(errno));
	_exit(127);
}

/* Read @fd to its end, or @size - 1 bytes, into @buf as one line. */
static void read_line(int fd, char *buf, size_t size)
{
	size_t have = 0;
	ssize_t r;

	while (have + 1 < size) {
		r = read(fd, buf + have, size - 1 - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
	}
	buf[have] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * Fork the child of rerun_as_nobody() on @dir; its report (one line) in
 * @got, its exit status returned (-1 when it could not be run).
 */
static int run_child(int dir, char *const argv[], char *got, size_t size)
{
	const char *old = getenv("LD_LIBRARY_PATH");
	char *ldpath = NULL, *report = NULL;
	int p[2] = { -1, -1 }, st = -1;
	pid_t pid = -1;

	got[0] = '\0';
	if (asprintf(&ldpath, "LD_LIBRARY_PATH=/proc/self/fd/%d%s%s", dir,
		     old && *old ? ":" : "", old ? old : "") < 0)
		ldpath = NULL;
	if (ldpath && pipe2(p, O_CLOEXEC) == 0 &&
	    asprintf(&report, REPORT_ENV "=%d", p[1]) >= 0) {
		fflush(stdout);
		pid = fork();
	}
	if (pid == 0)
		exec_child(dir, p[1], ldpath, report, argv);
	if (p[1] >= 0)
		close(p[1]);
	if (pid > 0) {
		read_line(p[0], got, size);
		st = wait_child(pid);
	}
	if (p[0] >= 0)
		close(p[0]);
	free(ldpath);
	free(report);
	return st;
}

/* The case @name from the child's report @got and exit status @st. */
static int judge_child(const char *name, const char *want, const char *got,
		       int st)
{
	if (!strncmp(got, "drop ", 5)) {
		lope_skip(name, "cannot drop to uid %d: %s", NOBODY, got + 5);
		return -1;
	}
	if (strncmp(got, "lib ", 4)) {
		lope_fail(name, "the child as uid %d: %s (exit status %d%s)",
			  NOBODY, got[0] ? got : "no report", st,
			  st == 127 ? ": the dynamic linker found no libpapi?" :
				      "");
		return -1;
	}
	if (strcmp(got + 4, want)) {
		lope_fail(name,
			  "the child as uid %d mapped %s, this process %s: the "
			  "dynamic linker took another libpapi",
			  NOBODY, got + 4, want);
		return -1;
	}
	lope_info("%s: the child as uid %d mapped %s", name, NOBODY, got + 4);
	return st;
}

int rerun_as_nobody(const char *name, char *const argv[])
{
	char want[PATH_MAX], dir[PATH_MAX], why[PATH_MAX + 128],
		got[PATH_MAX + 64];
	const char *slash;
	int fd, st;

	snprintf(dir, sizeof(dir), "%s", libpapi_path());
	slash = strrchr(dir, '/');
	if (mapped_libpapi(want, sizeof(want)) || !slash) {
		lope_fail(name, "this process maps no libpapi.so (%s)", dir);
		return -1;
	}
	dir[slash - dir] = '\0';
	if (geteuid() == 0 && nobody_reaches(dir, want, why, sizeof(why))) {
		lope_skip(name, "%s", why);
		return -1;
	}
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		lope_fail(name, "open %s: %s", dir, strerror(errno));
		return -1;
	}
	st = run_child(fd, argv, got, sizeof(got));
	close(fd);
	if (st < 0 && !got[0]) {
		lope_fail(name, "cannot run a child: %s", strerror(errno));
		return -1;
	}
	return judge_child(name, want, got, st);
}

void nobody_child_report(void)
{
	const char *env = getenv(REPORT_ENV);
	char lib[PATH_MAX];
	int fd;

	if (!env)
		return;
	fd = atoi(env);
	if (mapped_libpapi(lib, sizeof(lib)))
		snprintf(lib, sizeof(lib), "(none)");
	(void)dprintf(fd, "lib %s\n", lib);
	close(fd);
	unsetenv(REPORT_ENV);
}
