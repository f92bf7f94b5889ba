/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_badinput_names: bad input over the public PAPI API: invalid event
 * codes and names, and NULL pointers.
 *
 * The rows, the checks after each and the reference run on stock PAPI:
 * ctests/lib/badinput.h.  Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "badinput.h"

/* "returns NULL" rows: 0 for NULL, 1 otherwise. */
static int not_null(const void *p)
{
	return p != NULL;
}

static int create_nonnull(void)
{
	int set = 5;

	return PAPI_create_eventset(&set);
}

static int name_to_code(const char *name)
{
	int code;

	return PAPI_event_name_to_code(name, &code);
}

static int code_to_name(int code)
{
	char name[PAPI_MAX_STR_LEN];

	return PAPI_event_code_to_name(code, name);
}

static int event_info(int code)
{
	PAPI_event_info_t info;

	return PAPI_get_event_info(code, &info);
}

static int long_name(const char *prefix, int add)
{
	static char name[5000];
	size_t n = strlen(prefix);

	memset(name, 'A', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	memcpy(name, prefix, n);
	return add ? PAPI_add_named_event(stopped(), name) : name_to_code(name);
}

/* Names PAPI_add_named_event refuses, added to a stopped set. */
/* clang-format off */
static const struct {
	int want, doc;
	const char *name, *event;
} named[] = {
	{ PAPI_ECMP, CORE, "PAPI_add_named_event(empty name)", "" },
	{ PAPI_ENOEVNT, DOC, "PAPI_add_named_event(\"perf::\")", "perf::" },
	{ PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf::NOT-AN-EVENT)", "perf::NOT-AN-EVENT" },
	{ PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf::TASK-CLOCK:u=2)", "perf::TASK-CLOCK:u=2" },
	{ PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf::TASK-CLOCK:bogus=1)", "perf::TASK-CLOCK:bogus=1" },
	{ PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf::TASK-CLOCK:)", "perf::TASK-CLOCK:" },
	{ PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf::TASK-CLOCK::u)", "perf::TASK-CLOCK::u" },
	{ PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf::TASK-CLOCK:u=1:u=0)", "perf::TASK-CLOCK:u=1:u=0" },
	{ PAPI_ENOEVNT, DOC, "PAPI_add_named_event(colons only)", ":::" },
	{ PAPI_ENOEVNT, DOC, "PAPI_add_named_event(\"perf_event:::\")", "perf_event:::" },
	{ PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf_event_uncore:::perf::TASK-CLOCK)", "perf_event_uncore:::perf::TASK-CLOCK" },
};
/* clang-format on */

/*
 * The table's rows.  A name no component claims (the empty one) ends in
 * the loop of _papi_hwi_native_name_to_code(), whose last component
 * (sysdetect, no events) answers PAPI_ECMP; stock the same.
 */
static void add_named_rows(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(named); i++)
		ROW(named[i].want, named[i].doc, named[i].name,
		    PAPI_add_named_event(stopped(), named[i].event));
}

static void rows_codes_and_names(void)
{
	/* A native code no component gave out. */
	const int unknown = (int)(PAPI_NATIVE_MASK | 0xabcdef);
	int code;

	ROW(PAPI_EINVAL, DOC, "PAPI_add_event(code 0)",
	    PAPI_add_event(stopped(), 0));
	/* An unknown native code has no component: papi_internal.c's
	 * _papi_hwi_component_index() fails first (stock the same). */
	ROW(PAPI_ENOCMP, CORE, "PAPI_add_event(unknown native code)",
	    PAPI_add_event(stopped(), unknown));
	/* PAPI 7.0 checks the preset index's range: PAPI_EINVAL, as
	 * documented.  PAPI 7.2 first asks which component's presets hold
	 * the index (_papi_hwi_component_index(), get_preset_cmp()) and
	 * answers PAPI_ENOCMP for an index none holds. */
	ROW(PAPI_EINVAL, CORE, "PAPI_add_event(preset index out of range)",
	    PAPI_add_event(stopped(), (int)(PAPI_PRESET_MASK | 0x1234)));
	/* -1 is PAPI_NULL, the code of an empty slot, so PAPI 7 finds it
	 * "already in the set" (_papi_hwi_lookup_EventCodeIndex). */
	ROW(PAPI_ECNFLCT, DOC, "PAPI_add_event(code minus 1)",
	    PAPI_add_event(stopped(), -1));
	ROW(PAPI_ECNFLCT, DOC, "PAPI_add_event(already in the set)",
	    PAPI_add_event(stopped(), tc));
	ROW(PAPI_EINVAL, DOC, "PAPI_add_named_event(NULL)",
	    PAPI_add_named_event(stopped(), NULL));
	add_named_rows();
	ROW(PAPI_ECMP, CORE, "PAPI_event_name_to_code(empty name)",
	    name_to_code(""));
	ROW(PAPI_ECMP, CORE, "PAPI_event_name_to_code(4999 x 'A')",
	    long_name("", 0));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_event_name_to_code(perf:: + 4993 x 'A')",
	    long_name("perf::", 0));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_add_named_event(perf:: + 4993 x 'A')",
	    long_name("perf::", 1));
	ROW(PAPI_ENOEVNT, DOC,
	    "PAPI_add_named_event(perf::TASK-CLOCK: + 4976 x 'A')",
	    long_name("perf::TASK-CLOCK:", 1));
	ROW(PAPI_EINVAL, DOC, "PAPI_event_name_to_code(NULL)",
	    PAPI_event_name_to_code(NULL, &code));
	ROW(PAPI_EINVAL, DOC, "PAPI_event_name_to_code(name, NULL)",
	    PAPI_event_name_to_code(task_clock, NULL));
	/* The name is valid (libpfm4's cpu= modifier); the kernel refuses
	 * the cpu when the component opens the event: EINVAL. */
	ROW(PAPI_EINVAL, DOC, "PAPI_add_named_event(perf::TASK-CLOCK:cpu=9999)",
	    PAPI_add_named_event(empty(), "perf::TASK-CLOCK:cpu=9999"));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_event_code_to_name(unknown native code)",
	    code_to_name(unknown));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_event_code_to_name(0)", code_to_name(0));
	ROW(PAPI_EINVAL, DOC, "PAPI_event_code_to_name(code, NULL)",
	    PAPI_event_code_to_name(tc, NULL));
	/* As for PAPI_add_event: no component for the code. */
	ROW(PAPI_ENOCMP, CORE, "PAPI_get_event_info(unknown native code)",
	    event_info(unknown));
	ROW(PAPI_ENOTPRESET, DOC, "PAPI_get_event_info(0)", event_info(0));
	ROW(PAPI_EINVAL, DOC, "PAPI_get_event_info(code, NULL)",
	    PAPI_get_event_info(tc, NULL));
	ROW(PAPI_ENOCMP, CORE, "PAPI_query_event(unknown native code)",
	    PAPI_query_event(unknown));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_query_event(0)", PAPI_query_event(0));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_query_named_event(perf::NOPE)",
	    PAPI_query_named_event("perf::NOPE"));
	ROW(PAPI_EINVAL, DOC, "PAPI_query_named_event(NULL)",
	    PAPI_query_named_event(NULL));
	ROW(PAPI_EINVAL, DOC, "PAPI_remove_event(not in the set)",
	    PAPI_remove_event(stopped(), pf));
	ROW(PAPI_ENOEVNT, DOC, "PAPI_remove_named_event(perf::NOPE)",
	    PAPI_remove_named_event(stopped(), "perf::NOPE"));
	/* Not made: PAPI_remove_event() on an empty set; PAPI 7's core
	 * dereferences the unassigned component index and crashes, whatever
	 * the component. */
	ROW(PAPI_ENOCMP, CORE, "PAPI_enum_cmp_event(component 99)",
	    PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, 99));
}

static void rows_null_pointers(void)
{
	int events[4], idx[4], codes[2] = { 0, 0 };

	codes[0] = tc;
	codes[1] = pf;
	ROW(PAPI_EINVAL, CORE, "PAPI_create_eventset(NULL)",
	    PAPI_create_eventset(NULL));
	/* The handle must be PAPI_NULL on entry. */
	ROW(PAPI_EINVAL, CORE, "PAPI_create_eventset(*set != PAPI_NULL)",
	    create_nonnull());
	ROW(PAPI_EINVAL, DOC, "PAPI_destroy_eventset(NULL)",
	    PAPI_destroy_eventset(NULL));
	ROW(PAPI_EINVAL, DOC, "PAPI_read(values NULL)",
	    PAPI_read(running(), NULL));
	ROW(PAPI_EINVAL, DOC, "PAPI_accum(values NULL)",
	    PAPI_accum(running(), NULL));
	/* PAPI documents no PAPI_EINVAL for PAPI_write, but checks. */
	ROW(PAPI_EINVAL, CORE, "PAPI_write(values NULL)",
	    PAPI_write(running(), NULL));
	ROW(PAPI_EINVAL, DOC, "PAPI_state(status NULL)",
	    PAPI_state(stopped(), NULL));
	ROW(PAPI_EINVAL, DOC, "PAPI_list_events(events NULL, *number 4)",
	    list_events(stopped(), NULL, 4));
	ROW(PAPI_EINVAL, DOC, "PAPI_list_events(*number minus 1)",
	    list_events(stopped(), events, -1));
	/* Not made: PAPI_list_events(set, events, NULL); PAPI 7 reads
	 * *number before any check (papi.c: if ( *number < 0 )) and
	 * crashes. */
	ROW(PAPI_EINVAL, DOC, "PAPI_add_events(NULL list)",
	    add_events(empty(), NULL, 2));
	ROW(PAPI_EINVAL, DOC, "PAPI_add_events(number 0)",
	    add_events(empty(), codes, 0));
	ROW(PAPI_EINVAL, DOC, "PAPI_add_events(number minus 1)",
	    add_events(empty(), codes, -1));
	ROW(PAPI_EINVAL, DOC, "PAPI_get_overflow_event_index(array NULL)",
	    ovf_index(overflowing(), 1, NULL, 4));
	ROW(PAPI_EINVAL, DOC, "PAPI_get_overflow_event_index(vector 0)",
	    ovf_index(overflowing(), 0, idx, 4));
	ROW(PAPI_EINVAL, DOC, "PAPI_get_overflow_event_index(*number 0)",
	    ovf_index(overflowing(), 1, idx, 0));
	ROW(PAPI_EINVAL, DOC, "PAPI_get_opt(PAPI_DOMAIN, NULL)",
	    PAPI_get_opt(PAPI_DOMAIN, NULL));
	ROW(PAPI_EINVAL, DOC, "PAPI_set_opt(PAPI_DOMAIN, NULL)",
	    PAPI_set_opt(PAPI_DOMAIN, NULL));
	ROW(PAPI_EINVAL, DOC, "PAPI_overflow(handler NULL)",
	    PAPI_overflow(stopped(), tc, 1000000, 0, NULL));
	ROW(0, DOC, "PAPI_get_component_info(minus 1) is NULL",
	    not_null(PAPI_get_component_info(-1)));
	ROW(0, DOC, "PAPI_get_component_info(99) is NULL",
	    not_null(PAPI_get_component_info(99)));
	/* Not made: PAPI_profil(NULL buffer, ...) is accepted by PAPI 7
	 * (no check) and samples would then be written through the NULL
	 * buffer; PAPI_thread_init(NULL) is accepted too and would change
	 * the thread id function of the whole process. */
}

int main(void)
{
	static const struct sweep_group groups[] = {
		{ "invalid codes and names", rows_codes_and_names },
		{ "NULL pointers", rows_null_pointers },
	};

	return sweep_main(groups, sizeof(groups) / sizeof(groups[0]));
}
