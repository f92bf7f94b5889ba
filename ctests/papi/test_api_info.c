/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_api_info: what the PAPI API says of the perf_event component on
 * software events (no hardware PMU needed): which libpapi runs, the
 * component's information, event names and codes both ways (sets built
 * from each count alike), LOPE_NO_RDPMC turning the user-space read off
 * (in a re-exec'd child), and that ours was linked to bind every symbol
 * at load (-z now: no measured call runs the dynamic linker).
 *
 * The other topics of the API: test_api_count (counting semantics),
 * test_api_options (options, attach), test_api_errors (bad inputs, large
 * sets, cleanup).
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <link.h>

#include "papi_util.h"

enum { TC, PF, CS, MIG, NEV };

/*
 * Child for the LOPE_NO_RDPMC case: exit 0 when the component reports no
 * fast counter read and task-clock still counts; 2 when fast_counter_read
 * is set anyway; 3 when counting fails.
 */
static int child_nordpmc(void)
{
	const PAPI_component_info_t *ci;
	long long v = 0;
	int set = PAPI_NULL;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return 3;
	ci = PAPI_get_component_info(0);
	if (!ci)
		return 3;
	if (ci->fast_counter_read)
		return 2;
	if (make_named_set(&set, sw_events, 1) != PAPI_OK ||
	    PAPI_start(set) != PAPI_OK)
		return 3;
	busy_ns(5 * MS);
	if (PAPI_read(set, &v) != PAPI_OK || v < 2 * MS)
		return 3;
	PAPI_stop(set, &v);
	return 0;
}

/* Under the runner (PAPI_OURS_BUILDDIR set) we must be testing OUR
 * libpapi, not a system one that the loader found first.  The soname
 * (libpapi.so.7.0, .7.2, ...) is the PAPI version's: compare files through
 * the unversioned libpapi.so link, which every PAPI build makes. */
static void test_libpapi_is_ours(void)
{
	const char *dir = getenv("PAPI_OURS_BUILDDIR");
	char want[PATH_MAX], got[PATH_MAX], p[PATH_MAX];
	const char *lib = libpapi_path();

	if (!dir || !*dir) {
		lope_info("PAPI_OURS_BUILDDIR not set: not checking which "
			  "libpapi this is");
		return;
	}
	snprintf(p, sizeof(p), "%s/libpapi.so", dir);
	if (!realpath(p, want))
		snprintf(want, sizeof(want), "%s", p);
	if (!realpath(lib, got))
		snprintf(got, sizeof(got), "%s", lib);
	lope_check(strcmp(want, got) == 0, "libpapi_is_ours",
		   "running %s, expected %s (set LD_LIBRARY_PATH)", got, want);
}

/* libpapi's dynamic section says: bind everything at load (-z now)? */
static int bind_now_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	const ElfW(Dyn) * d;
	int i;

	(void)size;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "/libpapi.so"))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
			continue;
		d = (const ElfW(Dyn) *)(info->dlpi_addr +
					info->dlpi_phdr[i].p_vaddr);
		for (; d->d_tag != DT_NULL; d++)
			if ((d->d_tag == DT_FLAGS &&
			     (d->d_un.d_val & DF_BIND_NOW)) ||
			    (d->d_tag == DT_FLAGS_1 &&
			     (d->d_un.d_val & DF_1_NOW)))
				*(int *)data = 1;
	}
	return 1;
}

static void test_bind_now(void)
{
	int now = 0;

	if (!getenv("PAPI_OURS_BUILDDIR")) {
		lope_skip("libpapi_binds_at_load",
			  "not our build "
			  "(PAPI_OURS_BUILDDIR unset): stock links lazily");
		return;
	}
	dl_iterate_phdr(bind_now_cb, &now);
	lope_check(now, "libpapi_binds_at_load",
		   "%s has neither DF_BIND_NOW nor DF_1_NOW: its first "
		   "PAPI_start can run the dynamic linker (link it -z now)",
		   libpapi_path());
}

static void test_component(void)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);
	int has_cpu_pmu = lope_core_pmu() != NULL;

	if (!ci) {
		lope_fail("component0_info",
			  "PAPI_get_component_info(0) is NULL");
		return;
	}
	lope_check(strcmp(ci->name, "perf_event") == 0, "component0_name",
		   "component 0 is named \"%s\", expected \"perf_event\"",
		   ci->name);
	lope_check(ci->disabled == 0, "component0_enabled", "disabled=%d: %s",
		   ci->disabled, ci->disabled_reason);
	lope_info("component 0: %s: %s; fast_counter_read=%u; cpu PMU %s",
		  ci->name, ci->description, ci->fast_counter_read,
		  has_cpu_pmu ? "present" : "absent");
	if (ci->disabled_reason[0])
		lope_info("component 0 reason: %s", ci->disabled_reason);
	if (!has_cpu_pmu) {
		lope_check(ci->fast_counter_read == 0,
			   "fast_counter_read_off_without_pmu",
			   "fast_counter_read=1 but there is no cpu PMU");
		lope_check(strcasestr(ci->description, "rdpmc") != NULL ||
				   ci->disabled_reason[0] != 0,
			   "rdpmc_off_reason_given",
			   "fast_counter_read=0 but neither the description "
			   "(\"%s\") nor disabled_reason says why",
			   ci->description);
	}
}

/* Event @i's code, its name and back, and its add by name and by code. */
static void name_and_code(int i, int set_n, int set_c)
{
	const char *ev = sw_events[i];
	char name[PAPI_MAX_STR_LEN], tn[160];
	int code = 0, code2 = 0, rc;

	rc = PAPI_event_name_to_code(ev, &code);
	if (!lope_check(rc == PAPI_OK && code != 0 && code != PAPI_NULL,
			lope_name(tn, sizeof(tn), "name_to_code_%s", ev),
			"rc=%s code=%#x", papi_err(rc), code))
		return;
	name[0] = 0;
	rc = PAPI_event_code_to_name(code, name);
	if (rc == PAPI_OK)
		rc = PAPI_event_name_to_code(name, &code2);
	lope_check(rc == PAPI_OK && code2 == code &&
			   strstr(name, ev + 6) != NULL,
		   lope_name(tn, sizeof(tn), "code_to_name_roundtrip_%s", ev),
		   "code %#x -> \"%s\" -> %#x (rc %s)", code, name, code2,
		   papi_err(rc));
	rc = PAPI_add_named_event(set_n, ev);
	lope_check(rc == PAPI_OK,
		   lope_name(tn, sizeof(tn), "add_named_event_%s", ev), "rc=%s",
		   papi_err(rc));
	rc = PAPI_add_event(set_c, code);
	lope_check(rc == PAPI_OK,
		   lope_name(tn, sizeof(tn), "add_event_by_code_%s", ev),
		   "rc=%s", papi_err(rc));
}

/* Both sets must count the same kind of thing: start one after the
 * other and check task-clock moves in each. */
static void sets_count_alike(int set_n, int set_c)
{
	long long v[NEV];
	int s, sets[2] = { set_n, set_c }, ok = 1, rc;
	char why[200] = "";

	for (s = 0; s < 2 && ok; s++) {
		rc = PAPI_start(sets[s]);
		busy_ns(3 * MS);
		if (rc == PAPI_OK)
			rc = PAPI_read(sets[s], v);
		if (rc != PAPI_OK || v[TC] < 1 * MS) {
			ok = 0;
			snprintf(why, sizeof(why),
				 "set added %s: rc=%s task-clock=%lld",
				 s ? "by code" : "by name", papi_err(rc),
				 rc == PAPI_OK ? v[TC] : -1LL);
		}
		PAPI_stop(sets[s], v);
	}
	lope_check(ok, "sets_added_by_name_and_code_count", "%s", why);
}

static void test_names_and_codes(void)
{
	int i, rc, set_n = PAPI_NULL, set_c = PAPI_NULL;

	if (PAPI_create_eventset(&set_n) != PAPI_OK ||
	    PAPI_create_eventset(&set_c) != PAPI_OK) {
		lope_fail("create_eventset", "PAPI_create_eventset failed");
		return;
	}
	for (i = 0; i < NEV; i++)
		name_and_code(i, set_n, set_c);
	rc = PAPI_num_events(set_c);
	lope_check(rc == NEV, "num_events", "PAPI_num_events=%d, expected %d",
		   rc, NEV);
	sets_count_alike(set_n, set_c);
	drop_set(&set_n);
	drop_set(&set_c);
}

static void test_env_nordpmc(const char *self)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);

		if (nul >= 0) { /* the child's PAPI chatter is not ours */
			dup2(nul, 1);
			dup2(nul, 2);
		}
		setenv("LOPE_NO_RDPMC", "1", 1);
		execl(self, self, "--child-nordpmc", (char *)NULL);
		_exit(4);
	}
	st = wait_child(pid);
	lope_check(st == 0, "env_lope_no_rdpmc_forces_read",
		   "child with LOPE_NO_RDPMC=1: status %d (2: "
		   "fast_counter_read still set, 3: counting failed, 4: exec "
		   "failed, 128+N: signal N)",
		   st);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	ssize_t n;

	if (argc > 1 && strcmp(argv[1], "--child-nordpmc") == 0)
		return child_nordpmc();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = 0;

	papi_init_or_exit();
	test_libpapi_is_ours();
	test_bind_now();
	test_component();
	test_names_and_codes();
	test_env_nordpmc(self);
	PAPI_shutdown();
	return lope_done();
}
