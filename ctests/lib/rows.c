/* SPDX-License-Identifier: BSD-3-Clause */
/* Hand-computed table rows against a reference (rows.h). */
#include "rows.h"

#include <inttypes.h>

#include "report.h"

int row_agrees(const char *name, int line, uint64_t want, uint64_t ref)
{
	if (want == ref)
		return 1;
	lope_fail(name,
		  "row line %d: hand value %#" PRIx64
		  " disagrees with reference %#" PRIx64,
		  line, want, ref);
	return 0;
}
