/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The guard of user-space counter reads where a read can fault
 * (LOPE_ARCH_READ_SIGNAL in lope_arch.h; riscv64, where user access is a
 * per-counter bit the kernel clears when it stops the counter, so a read
 * racing a multiplexing rotation or a disable raises SIGILL).
 *
 * One handler a copy of this file (libpapi's engine, a utility's own), set
 * once, before the first user-space read.  It skips a faulting read the
 * arch recognises (lopelib_arch_guard_fixup(): the read returns false and the
 * caller reads with read(2)) and passes any other signal on to the handler
 * it replaced, or to the default action, as if it were not there.  A
 * program that replaces it later takes the rare fault itself.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "mmap_read.h"

static struct sigaction previous;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int install_err;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	if (lopelib_arch_guard_fixup(uc))
		return;
	if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		if (previous.sa_flags & SA_SIGINFO)
			previous.sa_sigaction(sig, si, uc);
		else
			previous.sa_handler(sig);
		return;
	}
	/* The default action: the faulting instruction runs again, or a
	 * signal someone sent comes again, without this handler. */
	(void)sigaction(sig, &previous, NULL);
	if (si->si_code <= 0)
		(void)raise(sig);
}

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	(void)sigemptyset(&sa.sa_mask);
	if (sigaction(LOPE_ARCH_READ_SIGNAL, &sa, &previous) != 0)
		install_err = -errno;
}

int lopelib_guard__install(void)
{
	if (!LOPE_ARCH_READ_SIGNAL)
		return 0;
	if (pthread_once(&once, install) != 0)
		return -EAGAIN;
	return install_err;
}
