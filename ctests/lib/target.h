/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Child processes: pipes that survive signals, reaping, and a target
 * process driven over two pipes, so that a test can make another task do
 * a known amount of work while it sleeps itself; and threads started
 * together.
 */
#ifndef LOPE_TARGET_H
#define LOPE_TARGET_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

/* Write/read one byte on a pipe, retrying on EINTR; 0 or -1. */
int pipe_put(int fd, char c);
int pipe_get(int fd, char *c);

/* Write/read a whole buffer (small: atomic on a pipe); 0 or -1. */
int pipe_put_buf(int fd, const void *buf, size_t len);
int pipe_get_buf(int fd, void *buf, size_t len);

/* Wait for @pid; its exit status (0..255), 128+signal, or -1. */
int wait_child(pid_t pid);

/* A pid that does not exist right now: a child that exited, reaped. */
pid_t dead_pid(void);

/*
 * The target never calls PAPI.  Commands are one byte plus a 64-bit
 * argument; each answers one 64-bit result:
 *   'b' ns : spin @ns of its own CPU time -> the CPU time it measured
 *   'p' n  : touch @n fresh pages          -> 0, or -1 on mmap failure
 *   's' n  : sleep 200 us @n times         -> voluntary switches seen
 *   'q' 0  : exit 0 (no answer)
 */
struct target {
	pid_t pid;
	int cmd; /* write end */
	int res; /* read end */
};

/* Fork a target; with @cpu >= 0 it pins itself there first.  0 or -1. */
int target_spawn(struct target *w, int cpu);

/* Send a command: 0 or -1. */
int target_send(struct target *w, char c, long long arg);

/* The answer to the last command, or LLONG_MIN if the target is gone. */
long long target_wait(struct target *w);

/* Send a command and wait for its answer (LLONG_MIN: gone). */
long long target_do(struct target *w, char c, long long arg);

/* Tell the target to exit and reap it: its exit status, or -1. */
int target_finish(struct target *w);

/*
 * Start @n threads running @fn, the ith on the ith of the @n arguments of
 * @size bytes at @args, their ids in @th; when one cannot be created, the
 * case @name fails and the test ends (lope_exit()).
 */
void start_threads_or_exit(const char *name, pthread_t *th, int n,
			   void *(*fn)(void *), void *args, size_t size);

#endif /* LOPE_TARGET_H */
