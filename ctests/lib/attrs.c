/* SPDX-License-Identifier: BSD-3-Clause */
/* Event attributes for the engine's tests (attrs.h). */
#include "attrs.h"

#include <string.h>

void sw_attrs(struct perf_event_attr *a, int n)
{
	static const unsigned long long config[SW_ATTRS] = {
		PERF_COUNT_SW_TASK_CLOCK,
		PERF_COUNT_SW_PAGE_FAULTS,
		PERF_COUNT_SW_CONTEXT_SWITCHES,
	};
	int i;

	for (i = 0; i < n; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].size = sizeof(a[i]);
		a[i].type = PERF_TYPE_SOFTWARE;
		a[i].config = config[i];
		a[i].exclude_kernel = 1;
	}
}
