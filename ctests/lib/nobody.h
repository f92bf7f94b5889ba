/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Children as the unprivileged user nobody (uid and gid 65534), for the
 * cases of what PAPI does without privileges.  A child that only forks
 * and drops keeps the libraries its parent mapped; a child that executes
 * a program afterwards maps libpapi anew, as nobody.
 */
#ifndef LOPE_NOBODY_H
#define LOPE_NOBODY_H

#define NOBODY 65534

/*
 * Become NOBODY (no supplementary group, gid and uid NOBODY) when root;
 * stay as we are otherwise.  0, or -1 with errno.
 */
int drop_to_nobody(void);

#endif /* LOPE_NOBODY_H */
