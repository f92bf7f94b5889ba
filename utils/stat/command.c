/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tool.h"
#include "command.h"

volatile sig_atomic_t command_interrupted;
static volatile sig_atomic_t child_pid; /* > 0 while a command runs */

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static sigset_t caught; /* those not ignored when we started: handled */

/*
 * Forward a signal sent to us (kill, timeout) to the command; one typed at
 * the terminal (si_code SI_KERNEL) reached the command's process group
 * already, and a second one could change what the command does.
 */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	pid_t pid = (pid_t)child_pid;

	(void)uc;
	command_interrupted = sig;
	if (pid > 0 && si->si_code != SI_KERNEL)
		(void)kill(pid, sig);
}

void command_signals(void)
{
	/* read() and waitpid() go on: the command's end is what we wait for */
	struct sigaction sa = { .sa_sigaction = on_signal,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	struct sigaction old;
	size_t i;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&caught);
	for (i = 0; i < ARRAY_SIZE(forwarded); i++)
		if (!sigaction(forwarded[i], NULL, &old) &&
		    old.sa_handler != SIG_IGN &&
		    !sigaction(forwarded[i], &sa, NULL))
			sigaddset(&caught, forwarded[i]);
}

/*
 * The child: resolve execvp now, say ready, wait for "go", exec.  A
 * failed exec sends errno to the parent on @rep and exits 127.  Only
 * async-signal-safe calls: the parent may have threads (PAPI).
 */
static _Noreturn void child(char **argv, int go, int rep, const sigset_t *mask)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	size_t i;
	char c;
	int err;

	/* Until the exec, a signal does to the child what it would do to
	 * the command (the exec resets our handlers anyway). */
	for (i = 0; i < ARRAY_SIZE(forwarded); i++)
		if (sigismember(&caught, forwarded[i]) == 1)
			(void)sigaction(forwarded[i], &dfl, NULL);
	(void)sigprocmask(SIG_SETMASK, mask, NULL);
	(void)execvp("", argv); /* fails: ENOENT, but the PLT is resolved */
	if (write(rep, "R", 1) != 1 || read(go, &c, 1) != 1)
		_exit(EX_FAIL); /* the parent gave up: do not run */
	(void)execvp(argv[0], argv);
	err = errno;
	(void)!write(rep, &err, sizeof(err));
	_exit(EX_NOEXEC);
}

int command_start(struct command *c, char **argv)
{
	int go[2], rep[2];
	char ready;
	sigset_t old;

	if (pipe2(go, O_CLOEXEC) || pipe2(rep, O_CLOEXEC)) {
		msg("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL); /* nothing buffered is written twice */
	(void)sigprocmask(SIG_BLOCK, &caught, &old);
	c->pid = fork();
	if (c->pid == 0) {
		close(go[1]);
		close(rep[0]);
		child(argv, go[0], rep[1], &old);
	}
	child_pid = c->pid > 0 ? c->pid : 0;
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	close(go[0]);
	close(rep[1]);
	c->go = go[1];
	c->rep = rep[0];
	if (c->pid < 0) {
		msg("fork: %s", strerror(errno));
		close(c->go);
		close(c->rep);
		return -1;
	}
	if (read(c->rep, &ready, 1) == 1 && !command_interrupted)
		return 0;
	if (!command_interrupted)
		msg("the child died before running the command");
	command_abandon(c);
	return -1;
}

void command_abandon(struct command *c)
{
	int status;

	close(c->go); /* EOF: the child exits without running */
	close(c->rep);
	(void)kill(c->pid, SIGKILL);
	(void)waitpid(c->pid, &status, 0);
	child_pid = 0;
}

int command_finish(struct command *c, int *status)
{
	int err = 0, wst = 0;
	ssize_t n;

	if (write(c->go, "G", 1) != 1)
		msg("releasing the command: %s", strerror(errno));
	close(c->go);
	n = read(c->rep, &err, sizeof(err));
	close(c->rep);
	if (waitpid(c->pid, &wst, 0) != c->pid)
		msg("waitpid: %s", strerror(errno));
	child_pid = 0;
	*status = WIFEXITED(wst)   ? WEXITSTATUS(wst) :
		  WIFSIGNALED(wst) ? 128 + WTERMSIG(wst) :
				     EX_FAIL;
	return n == (ssize_t)sizeof(err) ? err : 0;
}
