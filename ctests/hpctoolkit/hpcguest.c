/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpcguest: hpcrun in the emulated x86-64 machine, which has no shell to
 * run hpcrun's script, and no disk the host could read back.
 *
 *   hpcguest HPCTOOLKIT OUTDIR EVENT... -- PROGRAM [ARG...]
 *
 * runs PROGRAM with the environment hpcrun's script (bin/hpcrun of
 * HPCToolkit 2024.01.1) gives it: its runtime preloaded before whatever
 * LD_PRELOAD holds (libhpcrun.so, libmonitor.so: HPCTOOLKIT/lib/), its
 * auditor (LD_AUDIT), HPCRUN_EVENT_LIST (the EVENTs, blank-separated),
 * HPCRUN_OUT_PATH, HPCRUN_FNBOUNDS_CMD and the rest of what the script
 * exports for x86-64; then prints every file PROGRAM left in OUTDIR (the
 * measurements), each as
 *
 *   @hpcguest file PATH BYTES
 *   (base64, 76 characters a line)
 *   @hpcguest end
 *
 * PATH relative to OUTDIR, and exits with PROGRAM's status (1 if it did
 * not exit).  test_x86_64.sh decodes them and runs hpcprof on the host.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int set(const char *name, const char *value)
{
	if (setenv(name, value, 1) == 0)
		return 0;
	perror(name);
	return -1;
}

/* @name = @first, then what @name held, ':'-separated. */
static int prepend(const char *name, const char *first)
{
	const char *old = getenv(name);
	char buf[PATH_MAX * 4];

	snprintf(buf, sizeof(buf), "%s%s%s", first, old && *old ? ":" : "",
		 old && *old ? old : "");
	return set(name, buf);
}

/* The environment of bin/hpcrun, for @events into @out. */
static int hpcrun_env(const char *top, const char *out, const char *events)
{
	char lib[PATH_MAX], path[PATH_MAX * 2];

	snprintf(lib, sizeof(lib), "%s/lib/hpctoolkit", top);
	if (set("HPCTOOLKIT", top) || set("HPCRUN_EVENT_LIST", events) ||
	    set("HPCRUN_OUT_PATH", out) ||
	    set("MONITOR_NO_SYSTEM_OVERRIDE", "1") ||
	    set("UCX_ERROR_SIGNALS", "ILL,FPE,BUS") ||
	    set("DARSHAN_DISABLE", "1"))
		return -1;
	snprintf(path, sizeof(path), "%s/libexec/hpctoolkit/hpcfnbounds", top);
	if (set("HPCRUN_FNBOUNDS_CMD", path))
		return -1;
	snprintf(path, sizeof(path), "%s/libhpcrun.so", lib);
	if (set("HPCRUN_AUDIT_MAIN_LIB", path) ||
	    prepend("LD_LIBRARY_PATH", lib))
		return -1;
	snprintf(path, sizeof(path), "%s/libhpcrun.so:%s/lib/libmonitor.so",
		 lib, top);
	if (prepend("LD_PRELOAD", path))
		return -1;
	snprintf(path, sizeof(path), "%s/libhpcrun_audit.so", lib);
	return set("LD_AUDIT", path);
}

static void base64(FILE *f)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char in[57];
	size_t n, i;

	while ((n = fread(in, 1, sizeof(in), f)) > 0) {
		for (i = 0; i < n; i += 3) {
			unsigned v = in[i] << 16 |
				     (i + 1 < n ? in[i + 1] << 8 : 0) |
				     (i + 2 < n ? in[i + 2] : 0);

			putchar(abc[v >> 18 & 63]);
			putchar(abc[v >> 12 & 63]);
			putchar(i + 1 < n ? abc[v >> 6 & 63] : '=');
			putchar(i + 2 < n ? abc[v & 63] : '=');
		}
		putchar('\n');
	}
}

/* Every file under @dir, its path relative to @top. */
static int dump(const char *top, const char *dir)
{
	char path[PATH_MAX];
	struct dirent *d;
	struct stat st;
	DIR *dp = opendir(dir);
	FILE *f;
	int err = 0;

	if (!dp) {
		perror(dir);
		return -1;
	}
	while ((d = readdir(dp)) != NULL) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (stat(path, &st)) {
			err = -1;
		} else if (S_ISDIR(st.st_mode)) {
			err |= dump(top, path);
		} else if ((f = fopen(path, "rb")) != NULL) {
			printf("@hpcguest file %s %lld\n",
			       path + strlen(top) + 1, (long long)st.st_size);
			base64(f);
			printf("@hpcguest end\n");
			fclose(f);
		} else {
			err = -1;
		}
	}
	closedir(dp);
	return err;
}

int main(int argc, char **argv)
{
	char events[4096] = "";
	int i, st;
	pid_t pid;

	for (i = 3; i < argc && strcmp(argv[i], "--"); i++)
		snprintf(events + strlen(events),
			 sizeof(events) - strlen(events), "%s%s",
			 *events ? " " : "", argv[i]);
	if (argc < 6 || i == 3 || i + 1 >= argc) {
		fprintf(stderr, "usage: hpcguest HPCTOOLKIT OUTDIR EVENT... -- "
				"PROGRAM [ARG...]\n");
		return 2;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (hpcrun_env(argv[1], argv[2], events))
			_exit(127);
		execv(argv[i + 1], argv + i + 1);
		perror(argv[i + 1]);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		perror("hpcguest");
		return 1;
	}
	if (dump(argv[2], argv[2]))
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
