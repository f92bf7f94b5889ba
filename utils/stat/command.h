/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running the command the way perf stat does (the patch of Paul
 * Mackerras, 2009), for papi_stat: between command_start() and
 * command_finish() the child waits, and the caller attaches its counters
 * to c->pid (the protocol: doc/papi_stat.md).
 */
#ifndef LOPE_STAT_COMMAND_H
#define LOPE_STAT_COMMAND_H

#include <signal.h>
#include <sys/types.h>

#define EX_NOEXEC 127 /* the command could not be executed */

struct command {
	pid_t pid;
	int go;  /* write end: "go" releases the child to exec */
	int rep; /* read end: "ready", then the errno of a failed exec */
};

/* The signal that stopped us (forwarded to the command), 0 if none. */
extern volatile sig_atomic_t command_interrupted;

/*
 * Forward SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to us to the running
 * command.  A signal ignored when we started (nohup, a shell's background
 * job) stays ignored, for us and for the command, as perf stat leaves it.
 */
void command_signals(void);
/* Fork the child that will exec @argv and wait until it is ready to:
 * 0, or -1 (said why, unless a signal stopped us). */
int command_start(struct command *c, char **argv);
/* Kill the child that has not exec'd yet, and reap it. */
void command_abandon(struct command *c);
/*
 * Let the child exec the command and wait for its end: its status as a
 * shell reports it (128 + signal if killed) in *@status.  0, or the errno
 * of the failed exec.
 */
int command_finish(struct command *c, int *status);

#endif /* LOPE_STAT_COMMAND_H */
