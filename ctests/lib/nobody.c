/* SPDX-License-Identifier: BSD-3-Clause */
/* Children as the unprivileged user nobody (nobody.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nobody.h"

#include <grp.h>
#include <unistd.h>

int drop_to_nobody(void)
{
	if (geteuid() != 0)
		return 0;
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return -1;
	return 0;
}
