/* SPDX-License-Identifier: BSD-3-Clause */
/* PAPI cases on the interposer's counts (papi_interpose.h). */
#include "papi_interpose.h"

#include "interpose.h"
#include "papi_util.h"

int papi_read_makes_reads(const char *name, int set, int rc, long long *v,
			  unsigned long min)
{
	unsigned long n = lope_calls(LOPE_CALL_READ);

	if (rc == PAPI_OK)
		rc = PAPI_read(set, v);
	n = lope_calls(LOPE_CALL_READ) - n;
	lope_check(
		rc == PAPI_OK && n >= min, name,
		"rc=%s, %lu read(2) calls in one PAPI_read, want %lu or more",
		papi_err(rc), n, min);
	return rc;
}
