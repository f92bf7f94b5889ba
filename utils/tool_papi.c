/* SPDX-License-Identifier: BSD-3-Clause */
/* What the utilities that link PAPI share (tool.c links none). */
#include "papi.h"

#include "tool.h"

void set_delete(int *es)
{
	int state = 0;

	/* no values: a set may hold more events than any array here */
	if (PAPI_state(*es, &state) == PAPI_OK && (state & PAPI_RUNNING))
		(void)PAPI_stop(*es, NULL);
	(void)PAPI_cleanup_eventset(*es);
	(void)PAPI_destroy_eventset(es);
}
