/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the perf_event and perf_event_uncore components share: the errno
 * map, domains, PAPI's native-event lookup, and rebuilding a set's lope
 * group with new options.  PAPI-side glue, so it lives beside the
 * components, not in the engine.
 */
#ifndef PE_GLUE_H
#define PE_GLUE_H

#include <stdint.h>
#include <sys/types.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "papi_libpfm4_events.h"

#include "lope/lope.h"

/* Domain bits an event's own :u= / :k= modifiers fix, whatever the set says. */
enum { PE_FIXED_USER = 1, PE_FIXED_KERNEL = 2 };

/* A kernel errno (either sign) as the nearest PAPI error. */
int pe_errno_to_papi(int err);

/* The set's domain on one event, except what its own modifiers fixed. */
void pe_apply_domain(struct perf_event_attr *attr, unsigned char fixed,
		     int domain);
unsigned char pe_fixed_domains(const struct native_event_t *ntv);

/* The native event behind a PAPI event code in PAPI's libpfm4 table. */
struct native_event_t *pe_find_native(struct native_event_table_t *t,
				      int papi_code);

/* Everything a rebuilt group is opened with. */
struct pe_rebuild {
	pid_t pid;
	int cpu;
	unsigned int flags;
	int nr;
	int domain;
	const unsigned char *fixed; /* per event: PE_FIXED_* */
	const uint64_t *period;     /* per event overflow period, or NULL */
	int signo;
};

/*
 * Open a new group from @src's attributes with @r's settings and, only if
 * the kernel accepts it, put it in *slot (deleting the old one, and @src
 * if it is not *slot): a refused option or event leaves the working group
 * in place.  Returns a PAPI error code.
 */
int pe_rebuild(struct lope_group **slot, struct lope_group *src,
	       const struct pe_rebuild *r);

#endif /* PE_GLUE_H */
