/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_papi_api: the PAPI API of the perf_event component on software
 * events (no hardware PMU needed).
 *
 * Covers library/component information, adding events by name and by
 * code, start/read/accum/reset/stop/write semantics checked against the
 * thread's CPU clock and against pages really touched, two running event
 * sets on one thread, bad inputs (each checked not to leak a descriptor),
 * a large set of software events, the domain/multiplex/inherit options,
 * LOPE_NO_RDPMC, and that cleanup + destroy close every descriptor and
 * unmap every perf page.
 *
 * Report protocol: ctests/tap.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <link.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <papi.h>

#include "core_pmu.h"
#include "tap.h"

/* Which libpapi this process runs (the runner's LD_LIBRARY_PATH picks it). */
static int libpapi_path_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, "/libpapi.so")) {
		*(const char **)data = info->dlpi_name;
		return 1;
	}
	return 0;
}

static const char *libpapi_path(void)
{
	const char *path = "(none: linked statically?)";

	dl_iterate_phdr(libpapi_path_cb, &path);
	return path;
}

#define MS 1000000LL /* task-clock counts nanoseconds */

enum { TC, PF, CS, MIG, NEV };
static const char *const ev_names[NEV] = {
	"perf::TASK-CLOCK",
	"perf::PAGE-FAULTS",
	"perf::CONTEXT-SWITCHES",
	"perf::CPU-MIGRATIONS",
};

static long page_size;

/*
 * ioctl(2) as libpapi.so sees it: this executable's definition interposes
 * on libc's, counts the calls, and does the system call itself.  Lets the
 * tests check that reset and accum make no ioctl (the component keeps
 * base values instead).
 */
static volatile unsigned long ioctl_calls;

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	ioctl_calls++;
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

/* ---------------------------------------------------------------- helpers */

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Spin on this thread's CPU for @ns nanoseconds of CPU time. */
static void busy_ns(long long ns)
{
	long long end = thread_ns() + ns;
	volatile unsigned long sink = 0;
	int i;

	while (thread_ns() < end)
		for (i = 0; i < 2000; i++)
			sink += (unsigned long)i;
}

/* Entries in /proc/self/fd (the directory's own descriptor included). */
static int fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Lines of /proc/self/maps; *perf gets the lines mapping a perf event. */
static int maps_count(int *perf)
{
	static char buf[1 << 16];
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	int lines = 0, np = 0;
	char line[512];
	size_t ll = 0;
	ssize_t n, i;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			if (ll < sizeof(line) - 1)
				line[ll++] = buf[i];
			if (buf[i] == '\n') {
				line[ll] = 0;
				lines++;
				if (strstr(line, "perf_event"))
					np++;
				ll = 0;
			}
		}
	}
	close(fd);
	if (perf)
		*perf = np;
	return lines;
}

static const char *err(int rc)
{
	static char buf[96];
	const char *s = PAPI_strerror(rc);

	snprintf(buf, sizeof(buf), "%d (%s)", rc, s ? s : "?");
	return buf;
}

/* Check an expected PAPI return code and that no descriptor leaked. */
static void expect_rc(const char *name, int got, int want, int fd_before)
{
	int fd_after = fd_count();

	if (got != want)
		lope_fail(name, "returned %s, expected %d (%s)", err(got), want,
			  PAPI_strerror(want));
	else if (fd_after != fd_before)
		lope_fail(name,
			  "returned %d as expected but open descriptors "
			  "went %d -> %d",
			  got, fd_before, fd_after);
	else
		lope_pass(name);
}

/* Map @n fresh pages and write one byte to each (n page faults). */
static char *touch_new_pages(size_t n)
{
	char *p = mmap(NULL, n * (size_t)page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, n * (size_t)page_size, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		((volatile char *)p)[i * (size_t)page_size] = 1;
	return p;
}

static int make_set(int *set, int nev)
{
	int i, rc;

	*set = PAPI_NULL;
	rc = PAPI_create_eventset(set);
	if (rc != PAPI_OK)
		return rc;
	for (i = 0; i < nev; i++) {
		rc = PAPI_add_named_event(*set, ev_names[i]);
		if (rc != PAPI_OK)
			return rc;
	}
	return PAPI_OK;
}

static void drop_set(int *set)
{
	long long v[NEV];

	if (*set == PAPI_NULL)
		return;
	PAPI_stop(*set, v);
	PAPI_cleanup_eventset(*set);
	PAPI_destroy_eventset(set);
	*set = PAPI_NULL;
}

/* ------------------------------------------------ re-exec'd child modes */

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
	if (PAPI_create_eventset(&set) != PAPI_OK ||
	    PAPI_add_named_event(set, "perf::TASK-CLOCK") != PAPI_OK ||
	    PAPI_start(set) != PAPI_OK)
		return 3;
	busy_ns(5 * MS);
	if (PAPI_read(set, &v) != PAPI_OK || v < 2 * MS)
		return 3;
	PAPI_stop(set, &v);
	return 0;
}

/* ------------------------------------------------------------ test cases */

/* Under the runner (PAPI_OURS_BUILDDIR set) we must be testing OUR
 * libpapi, not a system one that the loader found first.  The soname
 * (libpapi.so.7.0, .7.2, ...) is the PAPI version's: compare files through
 * the unversioned libpapi.so link, which every PAPI build makes. */
static void test_libpapi_is_ours(void)
{
	const char *dir = getenv("PAPI_OURS_BUILDDIR");
	char want[PATH_MAX], got[PATH_MAX], p[PATH_MAX];
	const char *lib = libpapi_path();

	lope_info("libpapi: %s", lib);
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

static void test_names_and_codes(void)
{
	int i, code, code2, rc, set_n = PAPI_NULL, set_c = PAPI_NULL;
	char name[PAPI_MAX_STR_LEN], tn[160];

	if (PAPI_create_eventset(&set_n) != PAPI_OK ||
	    PAPI_create_eventset(&set_c) != PAPI_OK) {
		lope_fail("create_eventset", "PAPI_create_eventset failed");
		return;
	}
	for (i = 0; i < NEV; i++) {
		snprintf(tn, sizeof(tn), "name_to_code %s", ev_names[i]);
		code = 0;
		rc = PAPI_event_name_to_code(ev_names[i], &code);
		if (!lope_check(rc == PAPI_OK && code != 0 && code != PAPI_NULL,
				tn, "rc=%s code=%#x", err(rc), code))
			continue;

		snprintf(tn, sizeof(tn), "code_to_name_roundtrip %s",
			 ev_names[i]);
		name[0] = 0;
		rc = PAPI_event_code_to_name(code, name);
		code2 = 0;
		if (rc == PAPI_OK)
			rc = PAPI_event_name_to_code(name, &code2);
		lope_check(rc == PAPI_OK && code2 == code &&
				   strstr(name, ev_names[i] + 6) != NULL,
			   tn, "code %#x -> \"%s\" -> %#x (rc %s)", code, name,
			   code2, err(rc));

		snprintf(tn, sizeof(tn), "add_named_event %s", ev_names[i]);
		rc = PAPI_add_named_event(set_n, ev_names[i]);
		lope_check(rc == PAPI_OK, tn, "rc=%s", err(rc));

		snprintf(tn, sizeof(tn), "add_event_by_code %s", ev_names[i]);
		rc = PAPI_add_event(set_c, code);
		lope_check(rc == PAPI_OK, tn, "rc=%s", err(rc));
	}
	rc = PAPI_num_events(set_c);
	lope_check(rc == NEV, "num_events", "PAPI_num_events=%d, expected %d",
		   rc, NEV);
	/* Both sets must count the same kind of thing: start one after the
	 * other and check task-clock moves in each. */
	{
		long long v[NEV];
		int s, sets[2] = { set_n, set_c }, ok = 1;
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
					 s ? "by code" : "by name", err(rc),
					 rc == PAPI_OK ? v[TC] : -1LL);
			}
			PAPI_stop(sets[s], v);
		}
		lope_check(ok, "sets_added_by_name_and_code_count", "%s", why);
	}
	drop_set(&set_n);
	drop_set(&set_c);
}

static void test_counting(void)
{
	long long v[NEV], prev[NEV], first[NEV], v1[NEV], v2[NEV], acc[NEV];
	long long t0, t1, ref;
	unsigned long nio, nio_acc;
	int set, rc, i, k, ok;
	char *pages;
	const size_t npages = 512;

	rc = make_set(&set, NEV);
	if (!lope_check(rc == PAPI_OK, "build_set_4_sw_events", "rc=%s",
			err(rc))) {
		drop_set(&set);
		return;
	}
	rc = PAPI_start(set);
	if (!lope_check(rc == PAPI_OK, "start", "rc=%s", err(rc))) {
		drop_set(&set);
		return;
	}

	/* monotonic without reset */
	ok = 1;
	rc = PAPI_read(set, first);
	memcpy(prev, first, sizeof(prev));
	for (k = 0; k < 500 && ok && rc == PAPI_OK; k++) {
		busy_ns(20000);
		if (k % 50 == 0)
			munmap(touch_new_pages(4), 4 * (size_t)page_size);
		rc = PAPI_read(set, v);
		for (i = 0; i < NEV && rc == PAPI_OK; i++)
			if (v[i] < prev[i]) {
				ok = 0;
				lope_fail("read_monotonic",
					  "%s went %lld -> %lld at read %d",
					  ev_names[i], prev[i], v[i], k);
			}
		memcpy(prev, v, sizeof(prev));
	}
	if (rc != PAPI_OK)
		lope_fail("read_monotonic", "PAPI_read rc=%s", err(rc));
	else if (ok)
		lope_check(prev[TC] > first[TC] && prev[PF] > first[PF],
			   "read_monotonic",
			   "500 reads over busy work did not move: task-clock "
			   "%lld -> %lld, page-faults %lld -> %lld",
			   first[TC], prev[TC], first[PF], prev[PF]);

	/* task-clock grows by the busy time */
	PAPI_read(set, v1);
	t0 = thread_ns();
	busy_ns(20 * MS);
	t1 = thread_ns();
	rc = PAPI_read(set, v2);
	ref = t1 - t0;
	lope_check(rc == PAPI_OK && v2[TC] - v1[TC] >= 10 * MS &&
			   v2[TC] - v1[TC] <= 1000 * MS,
		   "task_clock_20ms_busy_in_10ms_1s", "rc=%s delta=%lld ns",
		   err(rc), v2[TC] - v1[TC]);
	lope_check(
		llabs((v2[TC] - v1[TC]) - ref) <= ref / 10 + 2 * MS,
		"task_clock_matches_thread_cputime",
		"task-clock delta %lld ns vs CLOCK_THREAD_CPUTIME_ID %lld ns",
		v2[TC] - v1[TC], ref);

	/* page faults of touching N fresh pages */
	PAPI_read(set, v1);
	pages = touch_new_pages(npages);
	rc = PAPI_read(set, v2);
	if (pages)
		munmap(pages, npages * (size_t)page_size);
	lope_check(rc == PAPI_OK && pages &&
			   v2[PF] - v1[PF] >= (long long)(npages * 9 / 10) &&
			   v2[PF] - v1[PF] <= (long long)(npages * 3 / 2 + 64),
		   "page_faults_touch_512_pages",
		   "rc=%s page-faults delta=%lld for %zu pages", err(rc),
		   v2[PF] - v1[PF], npages);

	/* reset */
	busy_ns(20 * MS);
	PAPI_read(set, v1);
	nio = ioctl_calls;
	rc = PAPI_reset(set);
	nio = ioctl_calls - nio;
	if (rc == PAPI_OK)
		rc = PAPI_read(set, v2);
	lope_check(rc == PAPI_OK && nio == 0, "reset_makes_no_ioctl",
		   "rc=%s PAPI_reset made %lu ioctl calls", err(rc), nio);
	lope_check(rc == PAPI_OK && v2[TC] < v1[TC] && v2[TC] < 2 * MS &&
			   v2[TC] >= 0 && v2[PF] >= 0 && v2[PF] <= 8,
		   "reset_then_read_near_zero",
		   "rc=%s before reset task-clock=%lld page-faults=%lld; "
		   "after task-clock=%lld page-faults=%lld",
		   err(rc), v1[TC], v1[PF], v2[TC], v2[PF]);

	/* accum: adds into the array and resets */
	PAPI_reset(set);
	for (i = 0; i < NEV; i++)
		acc[i] = 1000000000000LL;
	t0 = thread_ns();
	rc = PAPI_OK;
	nio_acc = 0;
	for (k = 0; k < 5 && rc == PAPI_OK; k++) {
		busy_ns(4 * MS);
		pages = touch_new_pages(40);
		if (pages)
			munmap(pages, 40 * (size_t)page_size);
		nio = ioctl_calls;
		rc = PAPI_accum(set, acc);
		nio_acc += ioctl_calls - nio;
	}
	lope_check(rc == PAPI_OK && nio_acc == 0, "accum_makes_no_ioctl",
		   "rc=%s 5 PAPI_accum calls made %lu ioctl calls", err(rc),
		   nio_acc);
	t1 = thread_ns();
	ref = t1 - t0;
	for (i = 0; i < NEV; i++)
		acc[i] -= 1000000000000LL;
	lope_check(rc == PAPI_OK && acc[TC] >= 15 * MS &&
			   llabs(acc[TC] - ref) <= ref / 10 + 2 * MS,
		   "accum_sum_matches_unreset_time",
		   "rc=%s sum of 5 accums of task-clock=%lld ns, thread "
		   "cputime over the same span=%lld ns",
		   err(rc), acc[TC], ref);
	lope_check(acc[PF] >= 180 && acc[PF] <= 400, "accum_sum_page_faults",
		   "sum of accums of page-faults=%lld for 200 pages touched",
		   acc[PF]);
	rc = PAPI_read(set, v);
	lope_check(rc == PAPI_OK && v[TC] < 2 * MS, "accum_resets",
		   "rc=%s task-clock just after accum=%lld", err(rc), v[TC]);

	/* stop returns final values; a stopped set does not count; restart
	 * counts from zero */
	busy_ns(20 * MS);
	PAPI_read(set, v1);
	memset(v2, 0xff, sizeof(v2));
	rc = PAPI_stop(set, v2);
	lope_check(rc == PAPI_OK && v2[TC] >= v1[TC] &&
			   v2[TC] - v1[TC] < 50 * MS && v2[PF] >= v1[PF],
		   "stop_returns_final_values",
		   "rc=%s last read task-clock=%lld, stop=%lld", err(rc),
		   v1[TC], v2[TC]);
	busy_ns(5 * MS);
	rc = PAPI_read(set, v);
	lope_check(rc == PAPI_OK && memcmp(v, v2, sizeof(v)) == 0,
		   "read_after_stop_returns_stop_values",
		   "rc=%s task-clock read=%lld stop=%lld", err(rc), v[TC],
		   v2[TC]);
	rc = PAPI_start(set);
	if (rc == PAPI_OK)
		rc = PAPI_read(set, v);
	lope_check(
		rc == PAPI_OK && v[TC] >= 0 && v[TC] < 2 * MS && v[TC] < v2[TC],
		"restart_counts_from_zero",
		"rc=%s task-clock right after restart=%lld (stopped at %lld)",
		err(rc), v[TC], v2[TC]);

	/* write */
	{
		long long w[NEV] = { 5000000000LL, 1000000LL, 100000LL,
				     10000LL };

		rc = PAPI_write(set, w);
		lope_check(rc == PAPI_OK, "write_running_set",
			   "PAPI_write rc=%s (stock PAPI: not supported)",
			   err(rc));
		if (rc == PAPI_OK) {
			rc = PAPI_read(set, v1);
			ok = rc == PAPI_OK;
			for (i = 0; i < NEV && ok; i++)
				ok = v1[i] >= w[i] && v1[i] < w[i] + 1000 * MS;
			lope_check(ok, "write_then_read_returns_written",
				   "rc=%s wrote %lld/%lld/%lld/%lld read "
				   "%lld/%lld/%lld/%lld",
				   err(rc), w[0], w[1], w[2], w[3], v1[0],
				   v1[1], v1[2], v1[3]);
			busy_ns(5 * MS);
			rc = PAPI_read(set, v2);
			lope_check(
				rc == PAPI_OK && v2[TC] - v1[TC] >= 3 * MS &&
					v2[TC] - v1[TC] < 1000 * MS,
				"write_then_keeps_counting",
				"rc=%s task-clock %lld -> %lld over 5 ms busy",
				err(rc), v1[TC], v2[TC]);
			rc = PAPI_reset(set);
			if (rc == PAPI_OK)
				rc = PAPI_read(set, v);
			lope_check(rc == PAPI_OK && v[TC] >= 0 &&
					   v[TC] < 2 * MS,
				   "write_then_reset_to_zero",
				   "rc=%s task-clock after reset=%lld", err(rc),
				   v[TC]);
		} else {
			lope_fail("write_then_read_returns_written",
				  "PAPI_write failed");
		}
	}
	drop_set(&set);
}

/*
 * Every member of a group, not only its leader, counts again after each
 * stop/start and after a reset: three start/read/stop cycles of
 * TASK-CLOCK (leader), CPU-CLOCK and PAGE-FAULTS (members).  CPU-CLOCK
 * must follow TASK-CLOCK closely, page faults follow the pages touched.
 */
static void test_cycles(void)
{
	static const char *const names[3] = { "perf::TASK-CLOCK",
					      "perf::CPU-CLOCK",
					      "perf::PAGE-FAULTS" };
	long long r[3], s[3], z[3];
	int set = PAPI_NULL, rc, i, cyc;
	char tn[64], *p;

	rc = PAPI_create_eventset(&set);
	for (i = 0; i < 3 && rc == PAPI_OK; i++)
		rc = PAPI_add_named_event(set, names[i]);
	if (!lope_check(rc == PAPI_OK, "cycles_build_set", "rc=%s", err(rc)))
		goto out;
	for (cyc = 0; cyc < 3; cyc++) {
		memset(r, 0, sizeof(r));
		memset(s, 0, sizeof(s));
		rc = PAPI_start(set);
		busy_ns(3 * MS);
		p = touch_new_pages(32);
		if (p)
			munmap(p, 32 * (size_t)page_size);
		if (rc == PAPI_OK)
			rc = PAPI_read(set, r);
		snprintf(tn, sizeof(tn), "cycle%d_read_all_events_count", cyc);
		lope_check(rc == PAPI_OK && r[0] >= 2 * MS &&
				   r[0] < 1000 * MS &&
				   llabs(r[1] - r[0]) <= r[0] / 10 + 1 * MS &&
				   r[2] >= 29 && r[2] <= 32 * 3 / 2 + 64,
			   tn,
			   "rc=%s task-clock=%lld cpu-clock=%lld "
			   "page-faults=%lld (3 ms busy, 32 pages)",
			   err(rc), r[0], r[1], r[2]);
		if (cyc == 1) {
			rc = PAPI_reset(set);
			if (rc == PAPI_OK)
				rc = PAPI_read(set, z);
			lope_check(rc == PAPI_OK && z[0] >= 0 &&
					   z[0] < 2 * MS && z[1] >= 0 &&
					   z[1] < 2 * MS && z[2] >= 0 &&
					   z[2] <= 8,
				   "cycle1_reset_zeroes_all_events",
				   "rc=%s after reset %lld %lld %lld", err(rc),
				   z[0], z[1], z[2]);
			memcpy(r, z, sizeof(r));
		}
		busy_ns(3 * MS);
		p = touch_new_pages(32);
		if (p)
			munmap(p, 32 * (size_t)page_size);
		rc = PAPI_stop(set, s);
		snprintf(tn, sizeof(tn), "cycle%d_stop_all_events_count", cyc);
		lope_check(rc == PAPI_OK && s[0] >= r[0] + 2 * MS &&
				   s[1] >= r[1] + 2 * MS && s[2] >= r[2] + 29,
			   tn,
			   "rc=%s stop %lld %lld %lld after read %lld %lld "
			   "%lld (3 ms busy, 32 pages between)",
			   err(rc), s[0], s[1], s[2], r[0], r[1], r[2]);
	}
out:
	drop_set(&set);
}

/*
 * Removing an event closes its descriptor and the rest of the set (group
 * rebuilt without it) still counts; also when the removed one was the
 * group leader.
 */
static void test_remove(void)
{
	int set = PAPI_NULL, rc, fd0, fd1, n;
	long long v[NEV];
	char *p;

	rc = make_set(&set, NEV);
	if (!lope_check(rc == PAPI_OK, "remove_build_set", "rc=%s", err(rc)))
		goto out;
	fd0 = fd_count();
	rc = PAPI_remove_named_event(set, "perf::CPU-MIGRATIONS");
	fd1 = fd_count();
	n = PAPI_num_events(set);
	lope_check(rc == PAPI_OK && n == NEV - 1 && fd1 == fd0 - 1,
		   "remove_event_closes_its_fd",
		   "rc=%s events %d (expected %d), descriptors %d -> %d",
		   err(rc), n, NEV - 1, fd0, fd1);
	rc = PAPI_start(set);
	busy_ns(3 * MS);
	p = touch_new_pages(32);
	if (p)
		munmap(p, 32 * (size_t)page_size);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	lope_check(rc == PAPI_OK && v[TC] >= 2 * MS && v[PF] >= 29,
		   "remove_event_rest_still_count",
		   "rc=%s task-clock=%lld page-faults=%lld", err(rc), v[TC],
		   v[PF]);

	/* now the leader: PAGE-FAULTS and CONTEXT-SWITCHES remain */
	fd0 = fd_count();
	rc = PAPI_remove_named_event(set, "perf::TASK-CLOCK");
	fd1 = fd_count();
	lope_check(rc == PAPI_OK && fd1 == fd0 - 1,
		   "remove_leader_closes_its_fd", "rc=%s descriptors %d -> %d",
		   err(rc), fd0, fd1);
	rc = PAPI_start(set);
	p = touch_new_pages(32);
	if (p)
		munmap(p, 32 * (size_t)page_size);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	lope_check(rc == PAPI_OK && v[0] >= 29 && v[0] <= 32 * 3 / 2 + 64,
		   "remove_leader_rest_still_count",
		   "rc=%s page-faults=%lld for 32 pages", err(rc), v[0]);
out:
	drop_set(&set);
}

/*
 * PAPI_attach: a set attached to a child process counts the child's CPU
 * time, not ours.  We spin 40 ms, then the child spins 30 ms.
 */
static void test_attach(void)
{
	int go[2], done[2], set = PAPI_NULL, rc;
	long long v[2] = { 0, 0 };
	char c = 0;
	pid_t pid;

	if (pipe(go) < 0 || pipe(done) < 0) {
		lope_fail("attach_child", "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(done[0]);
		if (read(go[0], &c, 1) == 1) {
			busy_ns(30 * MS);
			if (write(done[1], &c, 1) < 0)
				_exit(1);
			while (read(go[0], &c, 1) > 0)
				;
		}
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	rc = PAPI_create_eventset(&set);
	if (rc == PAPI_OK)
		rc = PAPI_assign_eventset_component(set, 0);
	if (rc == PAPI_OK)
		rc = PAPI_attach(set, (unsigned long)pid);
	lope_check(rc == PAPI_OK, "attach_to_child", "PAPI_attach rc=%s",
		   err(rc));
	if (rc == PAPI_OK)
		rc = PAPI_add_named_event(set, "perf::TASK-CLOCK");
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	if (rc == PAPI_OK) {
		busy_ns(40 * MS);
		if (write(go[1], &c, 1) != 1 || read(done[0], &c, 1) != 1)
			rc = PAPI_ESYS;
	}
	if (rc == PAPI_OK)
		rc = PAPI_read(set, v);
	lope_check(rc == PAPI_OK && v[0] >= 25 * MS && v[0] < 65 * MS,
		   "attach_counts_child_not_self",
		   "rc=%s task-clock=%lld ns (child spun 30 ms, we spun 40 ms)",
		   err(rc), v[0]);
	drop_set(&set);
	close(go[1]);
	close(done[0]);
	waitpid(pid, NULL, 0);
}

static void test_two_sets(void)
{
	int a = PAPI_NULL, b = PAPI_NULL, rc;
	long long v[NEV];

	if (make_set(&a, 1) != PAPI_OK || make_set(&b, 2) != PAPI_OK) {
		lope_fail("two_sets_build", "could not build two sets");
		goto out;
	}
	rc = PAPI_start(a);
	if (!lope_check(rc == PAPI_OK, "two_sets_start_first", "rc=%s",
			err(rc)))
		goto out;
	rc = PAPI_start(b);
	lope_check(rc == PAPI_EISRUN, "two_sets_second_start_eisrun",
		   "PAPI_start of a second set while one runs returned %s",
		   err(rc));
	if (rc == PAPI_OK)
		PAPI_stop(b, v);
	rc = PAPI_stop(a, v);
	if (rc == PAPI_OK)
		rc = PAPI_start(b);
	busy_ns(2 * MS);
	if (rc == PAPI_OK)
		rc = PAPI_read(b, v);
	lope_check(rc == PAPI_OK && v[TC] >= 1 * MS,
		   "two_sets_second_starts_after_first_stops",
		   "rc=%s task-clock=%lld", err(rc),
		   rc == PAPI_OK ? v[TC] : -1);
out:
	drop_set(&a);
	drop_set(&b);
}

static void test_bad_inputs(void)
{
	int set = PAPI_NULL, empty = PAPI_NULL, bad = 123456, code, fd0, rc, i;
	long long v[NEV];
	char name[PAPI_MAX_STR_LEN];

	fd0 = fd_count();
	rc = PAPI_event_name_to_code("perf::NO-SUCH-EVENT-LOPE", &code);
	expect_rc("bad name_to_code unknown perf:: event", rc, PAPI_ENOEVNT,
		  fd0);
	fd0 = fd_count();
	rc = PAPI_event_name_to_code("nosuchpmu::NOTHING", &code);
	expect_rc("bad name_to_code unknown pmu", rc, PAPI_ENOEVNT, fd0);
	fd0 = fd_count();
	rc = PAPI_event_name_to_code(NULL, &code);
	expect_rc("bad name_to_code NULL name", rc, PAPI_EINVAL, fd0);
	fd0 = fd_count();
	rc = PAPI_event_name_to_code("perf::TASK-CLOCK", NULL);
	expect_rc("bad name_to_code NULL code", rc, PAPI_EINVAL, fd0);
	fd0 = fd_count();
	rc = PAPI_event_code_to_name(PAPI_NATIVE_MASK | 0x0fffff00, name);
	expect_rc("bad code_to_name unknown native code", rc, PAPI_ENOEVNT,
		  fd0);

	if (make_set(&set, NEV) != PAPI_OK ||
	    PAPI_create_eventset(&empty) != PAPI_OK) {
		lope_fail("bad_inputs_setup", "could not build sets");
		goto out;
	}

	fd0 = fd_count();
	rc = PAPI_add_named_event(set, "perf::NO-SUCH-EVENT-LOPE");
	expect_rc("bad add_named_event unknown", rc, PAPI_ENOEVNT, fd0);
	fd0 = fd_count();
	rc = PAPI_add_named_event(set, "perf::TASK-CLOCK");
	expect_rc("bad add_named_event duplicate", rc, PAPI_ECNFLCT, fd0);
	fd0 = fd_count();
	/* (not on an empty set: PAPI 7's core dereferences the unassigned
	 * component index there and crashes, whatever the component) */
	rc = PAPI_remove_named_event(set, "perf::CPU-CLOCK");
	expect_rc("bad remove_named_event not in set", rc, PAPI_EINVAL, fd0);

	/* never started: PAPI 7 copies the (zeroed) stop values, PAPI_OK */
	fd0 = fd_count();
	memset(v, 0x55, sizeof(v));
	rc = PAPI_read(set, v);
	{
		int zero = 1;

		for (i = 0; i < NEV; i++)
			zero &= v[i] == 0;
		lope_check(rc == PAPI_OK && zero && fd_count() == fd0,
			   "read_never_started_ok_zeros",
			   "rc=%s values %lld %lld %lld %lld", err(rc), v[0],
			   v[1], v[2], v[3]);
	}

	fd0 = fd_count();
	rc = PAPI_start(empty);
	/* an empty set has no component yet: PAPI 7 says so first */
	expect_rc("bad start empty set", rc, PAPI_ENOCMP, fd0);
	fd0 = fd_count();
	rc = PAPI_stop(set, v);
	expect_rc("bad stop never-started set", rc, PAPI_ENOTRUN, fd0);

	fd0 = fd_count();
	rc = PAPI_read(bad, v);
	expect_rc("bad read invalid set id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_start(bad);
	expect_rc("bad start invalid set id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_stop(bad, v);
	expect_rc("bad stop invalid set id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_reset(bad);
	expect_rc("bad reset invalid set id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_accum(bad, v);
	expect_rc("bad accum invalid set id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_write(bad, v);
	expect_rc("bad write invalid set id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_add_named_event(bad, "perf::TASK-CLOCK");
	expect_rc("bad add invalid set id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_cleanup_eventset(bad);
	expect_rc("bad cleanup invalid set id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	{
		int b2 = bad;

		rc = PAPI_destroy_eventset(&b2);
	}
	expect_rc("bad destroy invalid set id", rc, PAPI_ENOEVST, fd0);
	fd0 = fd_count();
	rc = PAPI_destroy_eventset(&set);
	expect_rc("bad destroy non-empty set", rc, PAPI_EINVAL, fd0);

	rc = PAPI_start(set);
	if (!lope_check(rc == PAPI_OK, "bad_inputs_start", "rc=%s", err(rc)))
		goto out;
	fd0 = fd_count();
	rc = PAPI_read(set, NULL);
	expect_rc("bad read NULL values", rc, PAPI_EINVAL, fd0);
	fd0 = fd_count();
	rc = PAPI_accum(set, NULL);
	expect_rc("bad accum NULL values", rc, PAPI_EINVAL, fd0);
	fd0 = fd_count();
	rc = PAPI_write(set, NULL);
	expect_rc("bad write NULL values", rc, PAPI_EINVAL, fd0);
	fd0 = fd_count();
	rc = PAPI_start(set);
	expect_rc("bad double start", rc, PAPI_EISRUN, fd0);
	fd0 = fd_count();
	rc = PAPI_add_named_event(set, "perf::CPU-CLOCK");
	expect_rc("bad add while running", rc, PAPI_EISRUN, fd0);
	fd0 = fd_count();
	rc = PAPI_cleanup_eventset(set);
	expect_rc("bad cleanup while running", rc, PAPI_EISRUN, fd0);
	/* the set survived all of that */
	busy_ns(2 * MS);
	rc = PAPI_read(set, v);
	lope_check(rc == PAPI_OK && v[TC] >= 1 * MS,
		   "set_still_counts_after_bad_calls", "rc=%s task-clock=%lld",
		   err(rc), v[TC]);
	rc = PAPI_stop(set, v);
	fd0 = fd_count();
	rc = PAPI_stop(set, v);
	expect_rc("bad stop of stopped set", rc, PAPI_ENOTRUN, fd0);
out:
	drop_set(&set);
	drop_set(&empty);
}

/* Software events with modifiers: distinct names PAPI gives distinct
 * codes to. */
static int many_name(int idx, char *buf, size_t len)
{
	static const char *const base[] = {
		"TASK-CLOCK",
		"CPU-CLOCK",
		"PAGE-FAULTS",
		"CONTEXT-SWITCHES",
		"CPU-MIGRATIONS",
		"MINOR-FAULTS",
		"MAJOR-FAULTS",
		"ALIGNMENT-FAULTS",
		"EMULATION-FAULTS",
		"PERF_COUNT_SW_CPU_CLOCK",
		"PERF_COUNT_SW_TASK_CLOCK",
		"PERF_COUNT_SW_PAGE_FAULTS",
		"PERF_COUNT_SW_CONTEXT_SWITCHES",
		"PERF_COUNT_SW_CPU_MIGRATIONS",
		"FAULTS",
		"CS",
		"MIGRATIONS",
	};
	static const char *const mod[] = {
		"",         ":u",     ":k",       ":u:k",     ":k:u",
		":u=1",     ":k=1",   ":u=1:k=1", ":k=1:u=1", ":u=1:k=0",
		":u=0:k=1", ":u:k=1", ":u=1:k",   ":k:u=1",   ":k=1:u",
	};
	const int nb = sizeof(base) / sizeof(base[0]);
	const int nm = sizeof(mod) / sizeof(mod[0]);

	if (idx >= nb * nm)
		return 0;
	snprintf(buf, len, "perf::%s%s", base[idx % nb], mod[idx / nb]);
	return 1;
}

static void test_many_events(int fd_base)
{
	int set = PAPI_NULL, rc, idx, nadd = 0, nfail = 0, bad_rc = 0;
	int first_fail = 0, n, fd_full;
	char name[128], first_fail_name[128] = "";
	long long *v;

	if (PAPI_create_eventset(&set) != PAPI_OK) {
		lope_fail("many_events", "create failed");
		return;
	}
	for (idx = 0; nadd < 200 && many_name(idx, name, sizeof(name)); idx++) {
		rc = PAPI_add_named_event(set, name);
		if (rc == PAPI_OK) {
			nadd++;
			continue;
		}
		nfail++;
		if (!first_fail) {
			first_fail = rc;
			snprintf(first_fail_name, sizeof(first_fail_name), "%s",
				 name);
		}
		if (rc >= 0 || rc <= -PAPI_NUM_ERRORS)
			bad_rc = rc;
	}
	n = PAPI_num_events(set);
	fd_full = fd_count();
	lope_info("many events: %d added, %d refused (first: %s on %s); "
		  "%d descriptors open with the set",
		  nadd, nfail, first_fail ? err(first_fail) : "none",
		  first_fail_name, fd_full);
	lope_check(bad_rc == 0 && n == nadd && nadd >= 1,
		   "many_events_add_clean",
		   "added %d, PAPI_num_events=%d, unexpected return %d", nadd,
		   n, bad_rc);
	v = calloc((size_t)(nadd > 0 ? nadd : 1), sizeof(*v));
	rc = PAPI_start(set);
	if (rc == PAPI_OK) {
		busy_ns(2 * MS);
		rc = PAPI_read(set, v);
		lope_check(rc == PAPI_OK && v[0] >= 1 * MS,
			   "many_events_set_counts",
			   "%d events: rc=%s first (task-clock)=%lld", nadd,
			   err(rc), v[0]);
		rc = PAPI_stop(set, v);
		lope_check(rc == PAPI_OK, "many_events_stop", "rc=%s", err(rc));
	} else {
		lope_check(rc < 0 && rc > -PAPI_NUM_ERRORS,
			   "many_events_start_fails_cleanly",
			   "PAPI_start of %d events returned %d", nadd, rc);
	}
	free(v);
	rc = PAPI_cleanup_eventset(set);
	if (rc == PAPI_OK)
		rc = PAPI_destroy_eventset(&set);
	n = fd_count();
	lope_check(rc == PAPI_OK && n == fd_base, "many_events_no_fd_leak",
		   "rc=%s descriptors: baseline %d, with set %d, after "
		   "cleanup+destroy %d",
		   err(rc), fd_base, fd_full, n);
}

/*
 * A set of TASK-CLOCK, CPU-CLOCK and PAGE-FAULTS configured by @cfg before
 * the adds; all three must count 5 ms of busy work and 32 touched pages
 * (done by a forked child that exits before the read, when @child: with
 * inheritance the child's counts are added to ours when it exits).
 */
static void test_option(const char *name, int (*cfg)(int set), int child)
{
	static const char *const names[3] = { "perf::TASK-CLOCK",
					      "perf::CPU-CLOCK",
					      "perf::PAGE-FAULTS" };
	int set = PAPI_NULL, rc, i;
	long long v[3] = { 0, 0, 0 };
	char tn[96], *p;

	rc = PAPI_create_eventset(&set);
	if (rc == PAPI_OK)
		rc = PAPI_assign_eventset_component(set, 0);
	if (rc != PAPI_OK) {
		lope_fail(name, "create/assign rc=%s", err(rc));
		return;
	}
	rc = cfg(set);
	lope_check(rc == PAPI_OK, name, "rc=%s", err(rc));
	/* count even when the option was refused: "_then_counts" is about
	 * the set, the option's own case above already failed */
	rc = PAPI_OK;
	for (i = 0; i < 3 && rc == PAPI_OK; i++)
		rc = PAPI_add_named_event(set, names[i]);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	if (rc == PAPI_OK) {
		pid_t pid = child ? fork() : 0;

		if (pid == 0) {
			busy_ns(5 * MS);
			p = touch_new_pages(32);
			if (p)
				munmap(p, 32 * (size_t)page_size);
			if (child)
				_exit(0);
		} else {
			waitpid(pid, NULL, 0);
		}
		rc = PAPI_read(set, v);
	}
	snprintf(tn, sizeof(tn), "%s_then_counts", name);
	lope_check(rc == PAPI_OK && v[0] >= 4 * MS && v[0] < 1000 * MS &&
			   v[1] >= 4 * MS && v[1] < 1000 * MS && v[2] >= 29,
		   tn,
		   "rc=%s task-clock=%lld cpu-clock=%lld page-faults=%lld "
		   "(expected >= 4 ms, 4 ms, 29 for 5 ms busy and 32 pages%s)",
		   err(rc), v[0], v[1], v[2],
		   child ? " in a child that exited" : "");
	drop_set(&set);
}

static int cfg_domain_user(int set)
{
	return PAPI_set_opt(
		PAPI_DOMAIN,
		&(PAPI_option_t){ .domain = { .eventset = set,
					      .domain = PAPI_DOM_USER } });
}

static int cfg_domain_all(int set)
{
	return PAPI_set_opt(
		PAPI_DOMAIN,
		&(PAPI_option_t){ .domain = { .eventset = set,
					      .domain = PAPI_DOM_ALL } });
}

static int cfg_multiplex(int set)
{
	return PAPI_set_multiplex(set);
}

static int cfg_inherit(int set)
{
	return PAPI_set_opt(
		PAPI_INHERIT,
		&(PAPI_option_t){ .inherit = { .eventset = set,
					       .inherit = PAPI_INHERIT_ALL } });
}

static void test_options(void)
{
	int rc;

	rc = PAPI_set_domain(PAPI_DOM_ALL);
	lope_check(rc == PAPI_OK, "set_domain_default_all", "rc=%s", err(rc));
	rc = PAPI_set_domain(PAPI_DOM_USER);
	lope_check(rc == PAPI_OK, "set_domain_default_user", "rc=%s", err(rc));
	test_option("set_opt_domain_user", cfg_domain_user, 0);
	test_option("set_opt_domain_all", cfg_domain_all, 0);
	rc = PAPI_multiplex_init();
	lope_check(rc == PAPI_OK, "multiplex_init", "rc=%s", err(rc));
	test_option("set_multiplex", cfg_multiplex, 0);
	test_option("set_opt_inherit", cfg_inherit, 1);
}

static void test_env_nordpmc(const char *self)
{
	pid_t pid = fork();
	int st = 0;

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
	waitpid(pid, &st, 0);
	lope_check(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		   "env_LOPE_NO_RDPMC_forces_read",
		   "child with LOPE_NO_RDPMC=1: %s %d (2: fast_counter_read "
		   "still set, 3: counting failed, 4: exec failed)",
		   WIFEXITED(st) ? "exit" : "signal",
		   WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

static void test_cleanup_baseline(void)
{
	int set = PAPI_NULL, rc, fd_with, maps_with, perf_with, fd_after;
	int maps_after, perf_after, fd_base, maps_base, perf_base;
	long long v[NEV];

	fd_base = fd_count();
	maps_base = maps_count(&perf_base);
	rc = make_set(&set, NEV);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	if (rc == PAPI_OK)
		rc = PAPI_read(set, v);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	fd_with = fd_count();
	maps_with = maps_count(&perf_with);
	lope_info("descriptors: baseline %d, with a 4-event set %d; perf "
		  "mappings: baseline %d, with the set %d",
		  fd_base, fd_with, perf_base, perf_with);
	if (rc == PAPI_OK)
		rc = PAPI_cleanup_eventset(set);
	if (rc == PAPI_OK)
		rc = PAPI_destroy_eventset(&set);
	fd_after = fd_count();
	maps_after = maps_count(&perf_after);
	lope_check(rc == PAPI_OK && fd_after == fd_base,
		   "cleanup_destroy_closes_fds",
		   "rc=%s descriptors baseline %d, with set %d, after %d",
		   err(rc), fd_base, fd_with, fd_after);
	lope_check(perf_after == perf_base && maps_after == maps_base,
		   "cleanup_destroy_unmaps_pages",
		   "/proc/self/maps lines baseline %d, with set %d, after %d; "
		   "perf_event lines baseline %d, with set %d, after %d",
		   maps_base, maps_with, maps_after, perf_base, perf_with,
		   perf_after);
}

int main(int argc, char **argv)
{
	int rc, fd_base, fd_end, set = PAPI_NULL;
	long long v[NEV];
	char self[PATH_MAX];
	ssize_t n;

	page_size = sysconf(_SC_PAGESIZE);
	if (argc > 1 && strcmp(argv[1], "--child-nordpmc") == 0)
		return child_nordpmc();

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = 0;

	rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (!lope_check(rc == PAPI_VER_CURRENT, "library_init",
			"PAPI_library_init returned %d, expected %d", rc,
			PAPI_VER_CURRENT))
		lope_exit();
	test_libpapi_is_ours();
	test_component();

	/* Warm PAPI's lazily allocated state, then take the baselines. */
	if (make_set(&set, NEV) == PAPI_OK && PAPI_start(set) == PAPI_OK)
		PAPI_read(set, v);
	drop_set(&set);
	fd_base = fd_count();

	test_names_and_codes();
	test_counting();
	test_cycles();
	test_two_sets();
	test_remove();
	test_attach();
	test_bad_inputs();
	test_many_events(fd_base);
	test_options();
	test_env_nordpmc(self);
	test_cleanup_baseline();
	fd_end = fd_count();
	lope_check(fd_end == fd_base, "no_fd_leak_over_whole_run",
		   "descriptors after warm-up %d, at the end %d", fd_base,
		   fd_end);

	PAPI_shutdown();
	return lope_done();
}
