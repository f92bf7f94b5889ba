/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Children as the unprivileged user nobody (uid and gid 65534), for the
 * cases of what PAPI does without privileges.  A child that only forks
 * and drops keeps the libraries its parent mapped.  A child that then
 * executes a program maps libpapi anew, as nobody: where our build is out
 * of nobody's reach (a clone under /root, mode 700) the dynamic linker
 * would silently take another libpapi from its search path, so such a
 * child goes through rerun_as_nobody().
 */
#ifndef LOPE_NOBODY_H
#define LOPE_NOBODY_H

#include "proc.h" /* NOBODY, drop_to_nobody() */

/*
 * Run this program again (/proc/self/exe, with @argv) in a child that
 * dropped to NOBODY, with the libpapi this process runs: the child finds
 * it through a descriptor of the library's directory opened before the
 * drop (LD_LIBRARY_PATH=/proc/self/fd/N first), so the directories above
 * it need not be open to NOBODY; that directory must be (o+x), and the
 * library (o+r) and this program (o+x).  The program calls
 * nobody_child_report() first when so started.
 *
 * Returns the child's exit status, or -1 after deciding the case @name
 * itself: a SKIP when NOBODY cannot reach our libpapi or run this program
 * (naming what blocks it and the remedy) or the drop failed; a FAIL when
 * the child mapped another libpapi (both named) or reported none.
 */
int rerun_as_nobody(const char *name, char *const argv[]);

/*
 * In a program rerun_as_nobody() started, first: tell the parent which
 * libpapi this process mapped.  Nothing when not so started.
 */
void nobody_child_report(void);

#endif /* LOPE_NOBODY_H */
