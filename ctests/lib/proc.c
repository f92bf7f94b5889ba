/* SPDX-License-Identifier: BSD-3-Clause */
/* Descriptors, mappings, the program's own path, nobody (proc.h). */
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

int fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int perf_fd_count_of(const char *pid)
{
	char dir[64], path[PATH_MAX], link[256];
	DIR *d;
	struct dirent *e;
	ssize_t n;
	int count = 0;

	snprintf(dir, sizeof(dir), "/proc/%s/fd", pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (strstr(link, "perf_event"))
			count++;
	}
	closedir(d);
	return count;
}

int perf_fd_count(void)
{
	return perf_fd_count_of("self");
}

int is_perf_fd(int fd)
{
	char path[40] = "/proc/self/fd/", link[64], d[12];
	int n = 0, len = 14;
	ssize_t r;

	if (fd < 0)
		return 0;
	do
		d[n++] = (char)('0' + fd % 10);
	while ((fd /= 10) != 0);
	while (n)
		path[len++] = d[--n];
	path[len] = 0;
	r = readlink(path, link, sizeof(link) - 1);
	if (r <= 0)
		return 0;
	link[r] = 0;
	return strstr(link, "perf_event") != NULL;
}

int maps_count(int *perf)
{
	static char buf[1 << 16];
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	int lines = 0, np = 0;
	char line[512];
	size_t ll = 0;
	ssize_t n, i;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			if (ll < sizeof(line) - 1)
				line[ll++] = buf[i];
			if (buf[i] == '\n') {
				line[ll] = 0;
				lines++;
				if (strstr(line, "perf_event"))
					np++;
				ll = 0;
			}
		}
	}
	close(fd);
	if (perf)
		*perf = np;
	return lines;
}

int perf_maps_count(void)
{
	int perf;

	return maps_count(&perf) < 0 ? -1 : perf;
}

int read_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = INT_MIN;

	if (!f)
		return INT_MIN;
	if (fscanf(f, "%d", &v) != 1)
		v = INT_MIN;
	fclose(f);
	return v;
}

int self_exe_or_fail(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n <= 0) {
		lope_fail("setup", "readlink /proc/self/exe: %s",
			  strerror(errno));
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

int run_self(const char *self, const char *var, const char *arg, char *out,
	     size_t len)
{
	ssize_t got = 0, r;
	int p[2], st;
	pid_t pid;

	if (len == 0 || pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		if (var)
			putenv((char *)var);
		execl(self, self, arg, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (pid > 0 && got < (ssize_t)len - 1 &&
	       (r = read(p[0], out + got, len - 1 - (size_t)got)) != 0)
		if (r > 0)
			got += r;
		else if (errno != EINTR)
			break;
	out[got] = '\0';
	close(p[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

int drop_to_nobody(void)
{
	if (geteuid() != 0)
		return 0;
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return -1;
	return 0;
}
