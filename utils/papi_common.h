/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the utilities that link PAPI and the PAPI tests' library
 * (ctests/lib/papi_util.h) share: the end of an event set, its domain
 * and inheritance, and which libpapi runs.  Inline, so that each builds
 * them without the other's objects.
 */
#ifndef LOPE_PAPI_COMMON_H
#define LOPE_PAPI_COMMON_H

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "papi.h"

/*
 * Stop the event set *@es if it runs (no values: a set may hold more
 * events than any array here), clean it up and destroy it; *@es is
 * PAPI_NULL after, and nothing is done when it already was.
 */
static inline void drop_set(int *es)
{
	int state = 0;

	if (*es == PAPI_NULL)
		return;
	if (PAPI_state(*es, &state) == PAPI_OK && (state & PAPI_RUNNING))
		(void)PAPI_stop(*es, NULL);
	(void)PAPI_cleanup_eventset(*es);
	(void)PAPI_destroy_eventset(es);
	*es = PAPI_NULL;
}

/* PAPI_set_opt of @set's domain, or of its inheritance (@on: all
 * children, else none); PAPI_OK or its error. */
static inline int set_domain(int set, int domain)
{
	PAPI_option_t opt = { .domain = { .eventset = set, .domain = domain } };

	return PAPI_set_opt(PAPI_DOMAIN, &opt);
}

static inline int set_inherit(int set, int on)
{
	PAPI_option_t opt = { .inherit = { .eventset = set } };

	opt.inherit.inherit = on ? PAPI_INHERIT_ALL : PAPI_INHERIT_NONE;
	return PAPI_set_opt(PAPI_INHERIT, &opt);
}

/*
 * The libpapi this process runs: the first file named libpapi.so* that
 * /proc/self/maps shows (the kernel's real path of what the loader
 * mapped), into @path: 0, or -1 with "(none mapped: linked statically?)"
 * there.
 */
static inline int libpapi_file(char path[PATH_MAX])
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128], *p;
	int rc = -1;

	snprintf(path, PATH_MAX, "(none mapped: linked statically?)");
	while (f && rc && fgets(line, sizeof(line), f)) {
		p = strchr(line, '/');
		if (p && strstr(p, "/libpapi.so")) {
			p[strcspn(p, "\n")] = 0;
			snprintf(path, PATH_MAX, "%s", p);
			rc = 0;
		}
	}
	if (f)
		fclose(f);
	return rc;
}

#endif /* LOPE_PAPI_COMMON_H */
