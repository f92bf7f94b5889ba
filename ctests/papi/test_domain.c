/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_domain: counting domains (PAPI_set_domain for new sets,
 * PAPI_set_opt(PAPI_DOMAIN) per set) on real software events.
 *
 * Software events honour the domain where the kernel can tell user from
 * kernel mode at the moment it counts:
 *  - page faults: a fault taken by our own store is a user-mode fault; a
 *    fault the kernel takes while copying into our fresh pages (read(2) of
 *    /dev/zero) is a kernel-mode one;
 *  - context switches happen in the scheduler, in kernel mode: a set
 *    counting the user domain alone never sees one;
 *  - task-clock and cpu-clock count time whatever the mode: the set's lies
 *    within our own task-clock read around PAPI_start and PAPI_stop
 *    (span.h).
 * So a user-domain set counts the first kind only, a kernel-domain set the
 * second, PAPI_DOM_ALL both.  Which domains a set may use follows the
 * component's available_domains exactly (a domain outside it is refused,
 * PAPI_DOM_ALL means all of it), and invalid values are refused with the
 * codes PAPI documents.  An unprivileged process (re-executed as uid
 * 65534) under perf_event_paranoid 2 has no kernel domain.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>

#include "papi_util.h"
#include "span.h"

enum { TC, PF, CS, NEV };
static const char *const names[NEV] = {
	"perf::TASK-CLOCK",
	"perf::PAGE-FAULTS",
	"perf::CONTEXT-SWITCHES",
};

#define NPAGES 300
#define NSLEEPS 50

static int available;  /* the component's available_domains */
static struct span me; /* our own task-clock */

/*
 * The domains the cases name: user, kernel and all first (what
 * test_semantics measures), then the others and some unions.
 */
static const struct domain {
	int dom;
	const char *name;
} domains[] = {
	{ PAPI_DOM_USER, "user" },
	{ PAPI_DOM_KERNEL, "kernel" },
	{ PAPI_DOM_ALL, "all" },
	{ PAPI_DOM_OTHER, "other" },
	{ PAPI_DOM_SUPERVISOR, "supervisor" },
	{ PAPI_DOM_USER | PAPI_DOM_KERNEL, "user_kernel" },
	{ PAPI_DOM_USER | PAPI_DOM_OTHER, "user_other" },
	{ PAPI_DOM_KERNEL | PAPI_DOM_SUPERVISOR, "kernel_supervisor" },
};
#define NDOMAINS ((int)(sizeof(domains) / sizeof(domains[0])))

/*
 * Fault @n fresh pages in kernel mode: read(2) of /dev/zero into them,
 * by the system call itself: ASan's read() checks the buffer's shadow
 * first, with user-mode faults of its own.
 */
static int kernel_faults(size_t n)
{
	size_t len = n * (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC), ret = -1;

	if (p != MAP_FAILED && fd >= 0) {
		(void)madvise(p, len, MADV_NOHUGEPAGE); /* advice only */
		ret = syscall(SYS_read, fd, p, len) == (long)len ? 0 : -1;
	}
	if (fd >= 0)
		close(fd);
	if (p != MAP_FAILED)
		munmap(p, len);
	return ret;
}

/*
 * Per-domain deltas of one set: user faults, kernel faults, switches, its
 * task-clock (and our CPU time) from start to stop, and our own
 * task-clock around those calls.
 */
struct deltas {
	long long pf_user, pf_kernel, cs, tc, own, tc_lo, tc_hi;
	int rc, tc_ok;
};

/*
 * With @set's domain @dom: start @set, read it into @a, fault NPAGES
 * fresh pages in user mode, read it into @b.  PAPI_OK or the first error.
 */
static int user_faults_read(int set, int dom, long long *a, long long *b)
{
	int rc = set_domain(set, dom);

	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	if (rc == PAPI_OK)
		rc = PAPI_read(set, a);
	if (rc == PAPI_OK && touch_pages(NPAGES) == 0)
		rc = PAPI_read(set, b);
	return rc;
}

static struct deltas measure(int set)
{
	struct deltas d;
	long long a[NEV] = { 0 }, b[NEV] = { 0 }, c[NEV] = { 0 },
		  e[NEV] = { 0 }, t0;
	int i;

	memset(&d, 0, sizeof(d));
	span_clear(&me);
	(void)span_mark(&me);
	d.rc = PAPI_start(set);
	(void)span_mark(&me);
	if (d.rc != PAPI_OK)
		return d;
	t0 = thread_ns();
	d.rc = PAPI_read(set, a);
	if (d.rc == PAPI_OK && touch_pages(NPAGES) == 0)
		d.rc = PAPI_read(set, b);
	if (d.rc == PAPI_OK && kernel_faults(NPAGES) == 0)
		d.rc = PAPI_read(set, c);
	for (i = 0; d.rc == PAPI_OK && i < NSLEEPS; i++)
		sleep_ns(200000);
	busy_ns(10 * MS);
	(void)span_mark(&me);
	if (d.rc == PAPI_OK)
		d.rc = PAPI_stop(set, e);
	(void)span_mark(&me);
	d.own = thread_ns() - t0;
	d.pf_user = b[PF] - a[PF];
	d.pf_kernel = c[PF] - b[PF];
	d.cs = e[CS] - c[CS];
	d.tc = e[TC];
	d.tc_lo = span_lo(&me);
	d.tc_hi = span_hi(&me);
	d.tc_ok = span_holds(&me, d.tc);
	return d;
}

static void test_cmpinfo(void)
{
	const PAPI_component_info_t *ci = cmpinfo_or_exit();

	available = ci->available_domains;
	lope_info("available_domains=%#x default_domain=%#x", available,
		  ci->default_domain);
	lope_check((ci->default_domain & ~available) == 0 &&
			   ci->default_domain != 0,
		   "default_domain_is_available",
		   "default_domain=%#x available_domains=%#x",
		   ci->default_domain, available);
	lope_check((available & PAPI_DOM_USER) &&
			   (geteuid() != 0 || (available & PAPI_DOM_KERNEL)),
		   "user_and_kernel_available_to_root",
		   "available_domains=%#x euid=%d", available, (int)geteuid());
}

/* Which domains a set accepts follows available_domains, bit by bit. */
static void test_consistency(void)
{
	char n[96];
	int i, set = PAPI_NULL, rc, rc_def, ok, fds;

	if (make_named_set(&set, names, NEV) != PAPI_OK) {
		lope_fail("domain_consistency_setup", "cannot build the set");
		drop_set(&set);
		return;
	}
	for (i = 0; i < NDOMAINS; i++) {
		int in = (domains[i].dom & ~available) == 0;

		if (domains[i].dom == PAPI_DOM_ALL)
			continue; /* every available domain: checked below */
		fds = fd_count();
		rc = set_domain(set, domains[i].dom);
		ok = in ? rc == PAPI_OK && get_domain(set) == domains[i].dom :
			  rc == PAPI_EINVAL_DOM && fd_count() == fds;
		snprintf(n, sizeof(n), "set_opt_domain_%s_%s", domains[i].name,
			 in ? "accepted" : "refused_not_available");
		lope_check(ok, n,
			   "domain %#x, available %#x: rc=%s, domain now %#x, "
			   "descriptors %d -> %d",
			   domains[i].dom, available, papi_err(rc),
			   get_domain(set), fds, fd_count());

		rc_def = PAPI_set_domain(domains[i].dom);
		snprintf(n, sizeof(n), "set_domain_%s_%s", domains[i].name,
			 in ? "accepted" : "refused_not_available");
		lope_check(in ? rc_def == PAPI_OK : rc_def == PAPI_ENOSUPP, n,
			   "PAPI_set_domain(%#x), available %#x: rc=%s",
			   domains[i].dom, available, papi_err(rc_def));
	}
	(void)PAPI_set_domain(PAPI_DOM_USER);

	/* PAPI_DOM_ALL means every available domain. */
	rc = set_domain(set, PAPI_DOM_ALL);
	lope_check(rc == PAPI_OK && get_domain(set) == available,
		   "set_opt_domain_all_is_available_domains",
		   "rc=%s domain now %#x, available %#x", papi_err(rc),
		   get_domain(set), available);
	rc = PAPI_set_domain(PAPI_DOM_ALL);
	lope_check(rc == PAPI_OK &&
			   PAPI_get_opt(PAPI_DEFDOM, NULL) == available,
		   "set_domain_all_is_available_domains",
		   "rc=%s default domain now %#x", papi_err(rc),
		   PAPI_get_opt(PAPI_DEFDOM, NULL));
	(void)PAPI_set_domain(PAPI_DOM_USER);

	/* Values outside PAPI_DOM_MIN..PAPI_DOM_MAX. */
	rc = set_domain(set, 0);
	lope_check(rc == PAPI_EINVAL_DOM, "set_opt_domain_0_einval_dom",
		   "rc=%s", papi_err(rc));
	rc = set_domain(set, PAPI_DOM_MAX + 1);
	lope_check(rc == PAPI_EINVAL_DOM, "set_opt_domain_too_big_einval_dom",
		   "rc=%s", papi_err(rc));
	rc = PAPI_set_domain(0);
	lope_check(rc == PAPI_EINVAL, "set_domain_0_einval", "rc=%s",
		   papi_err(rc));
	rc = PAPI_set_domain(PAPI_DOM_MAX + 1);
	lope_check(rc == PAPI_EINVAL, "set_domain_too_big_einval", "rc=%s",
		   papi_err(rc));
	rc = PAPI_set_domain(-1);
	lope_check(rc == PAPI_EINVAL, "set_domain_negative_einval", "rc=%s",
		   papi_err(rc));

	/* Not while running. */
	rc = PAPI_start(set);
	if (rc == PAPI_OK) {
		rc = set_domain(set, PAPI_DOM_KERNEL);
		lope_check(rc == PAPI_EISRUN, "set_opt_domain_running_eisrun",
			   "rc=%s", papi_err(rc));
		(void)PAPI_stop(set, NULL);
	} else {
		lope_fail("set_opt_domain_running_eisrun", "start: %s",
			  papi_err(rc));
	}
	drop_set(&set);
}

/* What each domain counts, on a set set per set (after its events). */
static void test_semantics(void)
{
	const struct domain *doms = domains; /* user, kernel, all */
	struct deltas d[3];
	char n[96];
	int i, set, rc;

	for (i = 0; i < 3; i++) {
		set = PAPI_NULL;
		rc = make_named_set(&set, names, NEV);
		if (rc == PAPI_OK)
			rc = set_domain(set, doms[i].dom);
		memset(&d[i], 0, sizeof(d[i]));
		d[i] = rc == PAPI_OK ? measure(set) : d[i];
		if (rc != PAPI_OK)
			d[i].rc = rc;
		drop_set(&set);
		lope_info(
			"domain %-6s: user faults %lld, kernel faults %lld, "
			"context switches %lld, task-clock %lld ns (own %lld)",
			doms[i].name, d[i].pf_user, d[i].pf_kernel, d[i].cs,
			d[i].tc, d[i].own);
		snprintf(n, sizeof(n), "domain_%s_set_counts", doms[i].name);
		lope_check(d[i].rc == PAPI_OK, n, "rc=%s", papi_err(d[i].rc));
	}
	lope_check(d[0].pf_user >= NPAGES * 9 / 10 &&
			   d[0].pf_kernel < NPAGES / 10,
		   "domain_user_counts_user_faults_only",
		   "user faults %lld, kernel faults %lld for %d of each",
		   d[0].pf_user, d[0].pf_kernel, NPAGES);
	lope_check(d[1].pf_kernel >= NPAGES * 9 / 10 &&
			   d[1].pf_user < NPAGES / 10,
		   "domain_kernel_counts_kernel_faults_only",
		   "user faults %lld, kernel faults %lld for %d of each",
		   d[1].pf_user, d[1].pf_kernel, NPAGES);
	lope_check(d[2].pf_user >= NPAGES * 9 / 10 &&
			   d[2].pf_kernel >= NPAGES * 9 / 10,
		   "domain_all_counts_both_faults",
		   "user faults %lld, kernel faults %lld for %d of each",
		   d[2].pf_user, d[2].pf_kernel, NPAGES);
	lope_check(d[0].cs == 0 && d[1].cs >= NSLEEPS && d[2].cs >= NSLEEPS,
		   "context_switches_only_with_kernel_domain",
		   "after %d sleeps: user %lld, kernel %lld, all %lld", NSLEEPS,
		   d[0].cs, d[1].cs, d[2].cs);
	lope_check(d[0].tc_ok && d[2].tc_ok,
		   "task_clock_user_and_all_within_own_task_clock",
		   "user %lld ns (our own task-clock %lld..%lld, CPU time "
		   "%lld), all %lld ns (%lld..%lld, CPU time %lld)",
		   d[0].tc, d[0].tc_lo, d[0].tc_hi, d[0].own, d[2].tc,
		   d[2].tc_lo, d[2].tc_hi, d[2].own);
}

/* PAPI_set_domain: sets created afterwards count that domain. */
static void test_default_domain(void)
{
	struct deltas d;
	int set = PAPI_NULL, rc, i;

	rc = PAPI_set_domain(PAPI_DOM_KERNEL);
	lope_check(rc == PAPI_OK, "set_domain_kernel", "rc=%s", papi_err(rc));
	if (rc == PAPI_OK)
		rc = make_named_set(&set, names, NEV);
	lope_check(rc == PAPI_OK && get_domain(set) == PAPI_DOM_KERNEL,
		   "new_set_takes_default_domain", "rc=%s domain %#x",
		   papi_err(rc), get_domain(set));
	memset(&d, 0, sizeof(d));
	d = rc == PAPI_OK ? measure(set) : d;
	lope_check(rc == PAPI_OK && d.rc == PAPI_OK &&
			   d.pf_kernel >= NPAGES * 9 / 10 &&
			   d.pf_user < NPAGES / 10 && d.cs >= NSLEEPS,
		   "default_domain_kernel_counts_kernel_only",
		   "rc=%s user faults %lld kernel faults %lld switches %lld",
		   papi_err(rc ? rc : d.rc), d.pf_user, d.pf_kernel, d.cs);
	drop_set(&set);
	(void)PAPI_set_domain(PAPI_DOM_USER);

	/* Domain set on an empty set, checked when events come. */
	rc = make_empty_set(&set);
	if (rc == PAPI_OK)
		rc = set_domain(set, PAPI_DOM_KERNEL);
	for (i = 0; rc == PAPI_OK && i < NEV; i++)
		rc = PAPI_add_named_event(set, names[i]);
	lope_check(rc == PAPI_OK, "set_opt_domain_before_add", "rc=%s",
		   papi_err(rc));
	memset(&d, 0, sizeof(d));
	d = rc == PAPI_OK ? measure(set) : d;
	lope_check(rc == PAPI_OK && d.rc == PAPI_OK &&
			   d.pf_kernel >= NPAGES * 9 / 10 &&
			   d.pf_user < NPAGES / 10,
		   "domain_before_add_applies",
		   "rc=%s user faults %lld kernel faults %lld",
		   papi_err(rc ? rc : d.rc), d.pf_user, d.pf_kernel);
	drop_set(&set);
}

/* An event's own :u / :k modifier wins over the set's domain. */
static void test_modifiers(void)
{
	static const char *const ev[] = { "perf::PAGE-FAULTS:u=1:k=0",
					  "perf::PAGE-FAULTS" };
	long long a[2] = { 0 }, b[2] = { 0 }, c[2] = { 0 };
	int set = PAPI_NULL, rc;

	rc = make_named_set(&set, ev, 2);
	if (rc == PAPI_OK)
		rc = user_faults_read(set, PAPI_DOM_KERNEL, a, b);
	if (rc == PAPI_OK && kernel_faults(NPAGES) == 0)
		rc = PAPI_stop(set, c);
	lope_check(rc == PAPI_OK && b[0] - a[0] >= NPAGES * 9 / 10 &&
			   c[0] - b[0] < NPAGES / 10 &&
			   b[1] - a[1] < NPAGES / 10 &&
			   c[1] - b[1] >= NPAGES * 9 / 10,
		   "event_modifier_overrides_set_domain",
		   "rc=%s, set domain kernel: %s user +%lld kernel +%lld; %s "
		   "user +%lld kernel +%lld",
		   papi_err(rc), ev[0], b[0] - a[0], c[0] - b[0], ev[1],
		   b[1] - a[1], c[1] - b[1]);
	drop_set(&set);
}

/*
 * Re-executed as uid 65534: PAPI initialised unprivileged.  Exit status:
 * 0 all as expected; 1 kernel still available under paranoid >= 2;
 * 2 PAPI_DOM_KERNEL not refused; 3 PAPI_DOM_ALL failed or did not count
 * user faults; 4 init failed; 5 a refused domain was accepted by the
 * kernel anyway.
 */
static int unpriv_child(void)
{
	const PAPI_component_info_t *ci;
	long long a[2] = { 0 }, b[2] = { 0 };
	int set = PAPI_NULL, rc;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = 0;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 0;
		fclose(f);
	}
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return 4;
	ci = PAPI_get_component_info(0);
	if (!ci)
		return 4;
	if (level >= 2 && (ci->available_domains & PAPI_DOM_KERNEL))
		return 1;
	if (make_named_set(&set, names, 2) != PAPI_OK)
		return 4;
	rc = set_domain(set, PAPI_DOM_KERNEL);
	if (level >= 2 && rc != PAPI_EINVAL_DOM)
		return 2;
	rc = user_faults_read(set, PAPI_DOM_ALL, a, b);
	if (rc != PAPI_OK || b[1] - a[1] < NPAGES * 9 / 10)
		return 3;
	return 0;
}

static void test_unprivileged(void)
{
	char *argv[] = { "test_domain", "--unprivileged", NULL };
	int st = rerun_as_nobody("unprivileged_domains", argv);

	if (st < 0)
		return;
	lope_check(st == 0, "unprivileged_domains",
		   "child as uid %d exited %d (1: kernel domain offered "
		   "under paranoid>=2, 2: PAPI_DOM_KERNEL not refused, 3: "
		   "PAPI_DOM_ALL did not count, 4: init)",
		   NOBODY, st);
}

/* Hardware variant: instructions in user vs kernel domain. */
static void test_hw(void)
{
	static const char *const ins[] = { "perf::INSTRUCTIONS" };
	long long v[3] = { 0 };
	int doms[3] = { PAPI_DOM_USER, PAPI_DOM_KERNEL, PAPI_DOM_ALL };
	int i, set, rc = PAPI_OK;

	if (!lope_core_pmu()) {
		lope_skip("hw_domains_split_instructions",
			  LOPE_NO_CORE_PMU_REASON);
		return;
	}
	for (i = 0; rc == PAPI_OK && i < 3; i++) {
		set = PAPI_NULL;
		rc = make_named_set(&set, ins, 1);
		if (rc == PAPI_OK)
			rc = set_domain(set, doms[i]);
		if (rc == PAPI_OK)
			rc = PAPI_start(set);
		if (rc == PAPI_OK) {
			(void)kernel_faults(64);
			busy_ns(5 * MS);
			rc = PAPI_stop(set, &v[i]);
		}
		drop_set(&set);
	}
	lope_check(rc == PAPI_OK && v[0] > 0 && v[1] > 0 && v[2] > v[0] &&
			   v[2] > v[1],
		   "hw_domains_split_instructions",
		   "rc=%s user %lld kernel %lld all %lld", papi_err(rc), v[0],
		   v[1], v[2]);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--unprivileged") == 0) {
		nobody_child_report();
		return unpriv_child();
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	papi_init_or_exit();
	span_open_self_or_exit(&me, "span");
	test_cmpinfo();
	test_consistency();
	test_semantics();
	test_default_domain();
	test_modifiers();
	test_unprivileged();
	test_hw();
	span_close(&me);
	PAPI_shutdown();
	return lope_done();
}
