/* SPDX-License-Identifier: BSD-3-Clause */
/* Child processes and the target (target.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "report.h"

struct command {
	char c;
	long long arg;
} __attribute__((packed));

int pipe_put(int fd, char c)
{
	return pipe_put_buf(fd, &c, 1);
}

int pipe_get(int fd, char *c)
{
	ssize_t n;

	do
		n = read(fd, c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

int pipe_put_buf(int fd, const void *buf, size_t len)
{
	ssize_t n;

	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

int pipe_get_buf(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

int wait_child(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -1;
}

pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return -1;
	(void)wait_child(pid);
	return pid;
}

static __attribute__((noreturn)) void target_main(int cmd, int res)
{
	struct command m;
	long long r, i, t0;

	for (;;) {
		if (pipe_get_buf(cmd, &m, sizeof(m)))
			_exit(0);
		switch (m.c) {
		case 'b':
			t0 = thread_ns();
			busy_ns(m.arg);
			r = thread_ns() - t0;
			break;
		case 'p':
			r = touch_pages((size_t)m.arg);
			break;
		case 's':
			t0 = voluntary_switches();
			for (i = 0; i < m.arg; i++)
				sleep_ns(200000);
			r = voluntary_switches() - t0;
			break;
		default:
			_exit(0);
		}
		if (pipe_put_buf(res, &r, sizeof(r)))
			_exit(1);
	}
}

int target_spawn(struct target *w, int cpu)
{
	int c[2], r[2];

	if (pipe2(c, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(r, O_CLOEXEC) < 0) {
		close(c[0]);
		close(c[1]);
		return -1;
	}
	w->pid = fork();
	if (w->pid == 0) {
		close(c[1]);
		close(r[0]);
		if (cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set) < 0)
				_exit(2);
		}
		target_main(c[0], r[1]);
	}
	close(c[0]);
	close(r[1]);
	if (w->pid < 0) {
		close(c[1]);
		close(r[0]);
		return -1;
	}
	w->cmd = c[1];
	w->res = r[0];
	return 0;
}

int target_send(struct target *w, char c, long long arg)
{
	struct command m = { c, arg };

	return pipe_put_buf(w->cmd, &m, sizeof(m));
}

long long target_wait(struct target *w)
{
	long long r;

	return pipe_get_buf(w->res, &r, sizeof(r)) ? LLONG_MIN : r;
}

long long target_do(struct target *w, char c, long long arg)
{
	return target_send(w, c, arg) ? LLONG_MIN : target_wait(w);
}

int target_finish(struct target *w)
{
	int st;

	if (w->pid <= 0)
		return -1;
	(void)target_send(w, 'q', 0);
	close(w->cmd);
	close(w->res);
	st = wait_child(w->pid);
	w->pid = 0;
	return st;
}

void start_threads_or_exit(const char *name, pthread_t *th, int n,
			   void *(*fn)(void *), void *args, size_t size)
{
	int i;

	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, fn,
				   (char *)args + (size_t)i * size) != 0) {
			lope_fail(name, "pthread_create failed for thread %d",
				  i);
			lope_exit();
		}
}
