/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_hybrid: one PAPI event counts on every core type of a hybrid CPU.
 * It needs two core PMUs (sysfs PMUs with a "cpus" file, on disjoint
 * cpus): the emulated arm64 machine with a cortex-a57 and a cortex-a53
 * (ctests/guest, boot "hybrid"); elsewhere every case SKIPs saying so.
 *
 * The thread runs a loop of exactly 2 user instructions an iteration on a
 * cpu of one core type, then of the other (sched_setaffinity).  Each
 * expectation is the loop's instructions plus what the same sequence with
 * empty loops counted in the same run (the calls' own instructions), to
 * within a few instructions: under QEMU's icount counts are exact.
 *
 * Cases:
 *  - PAPI_TOT_INS over 2M instructions on core type A and 4M on B reads
 *    6M (stock PAPI's figure for the same sequence is printed beside it);
 *  - each core PMU's own instructions event (a sysfs native event) counts
 *    its part only;
 *  - PAPI_read on either core type makes no system call (read(2) and
 *    ioctl interposed: ctests/lib/interpose.h), where user-space reads work;
 *  - reset and accum across a migration;
 *  - a multiplexed set with more events than counters on both core types:
 *    PAPI_TOT_INS stays exact (its part is the pinned first group of each
 *    core type), each core PMU's own instructions event is estimated from
 *    the time it could run, its own core type's, to within two multiplex
 *    intervals of the loop (scaled by the enabled time instead, it would
 *    double);
 *  - PAPI_overflow on PAPI_TOT_CYC delivers overflows on both core types;
 *  - PAPI_profil on PAPI_TOT_CYC over 2M cycles on A and 6M on B takes
 *    more than the 3/4 that one core type alone would give;
 *  - papi_native_avail's description of a core PMU's own event names its
 *    core type; PAPI_TOT_INS's events do not;
 *  - PAPI_TOT_INS attached to B's cpu opens on B's PMU alone (A's would
 *    be refused there) and counts B's loop, not A's.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interpose.h"
#include "papi_util.h"
#include "work.h"

#define SYSFS "/sys/bus/event_source/devices"
#define STOCK_VAR "LOPE_TEST_HYBRID_STOCK"
/* The calls' own instructions differ by at most this between two runs. */
#define SLACK 64

static const char *const cases[] = {
	"tot_ins_sums_every_core_type",
	"native_events_count_own_core_type",
	"read_makes_no_system_call",
	"reset_across_migration",
	"accum_across_migration",
	"multiplexed_tot_ins_exact",
	"multiplexed_native_scaled_by_own_core_time",
	"overflow_on_tot_cyc_every_core_type",
	"profil_on_tot_cyc_every_core_type",
	"native_description_names_its_core_type",
	"cpu_attached_set_counts_that_cpu_s_core_type",
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* What QEMU counts on core type B from the other vCPU, per instruction of
 * B's loop, as counts() measured it (0 on a real machine). */
static double qemu_rate;

/* The two core PMUs: name, first cpu, instructions event's name. */
static struct core {
	char name[256];
	int cpu;
	const char *ins;
} core[2];

static int pin(int cpu)
{
	return pin_to_cpu(cpu) == 0 ? PAPI_OK : PAPI_ESYS;
}

static int file_exists(const char *pmu, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), SYSFS "/%s/%s", pmu, file);
	return access(path, F_OK) == 0;
}

/* The two core PMUs, or why not. */
static int find_cores(char *why, size_t len)
{
	DIR *d = opendir(SYSFS);
	struct dirent *e;
	char path[512];
	int n = 0;
	FILE *f;

	if (!d) {
		snprintf(why, len, "no %s", SYSFS);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || !file_exists(e->d_name, "cpus"))
			continue;
		if (n == 2) {
			snprintf(why, len, "more than two core PMUs");
			n = 3;
			break;
		}
		snprintf(core[n].name, sizeof(core[n].name), "%s", e->d_name);
		snprintf(path, sizeof(path), SYSFS "/%s/cpus", e->d_name);
		f = fopen(path, "r");
		core[n].cpu = -1;
		if (f && fscanf(f, "%d", &core[n].cpu) != 1)
			core[n].cpu = -1;
		if (f)
			fclose(f);
		core[n].ins = file_exists(e->d_name, "events/inst_retired") ?
				      "inst_retired" :
				      "instructions";
		n++;
	}
	closedir(d);
	if (n < 2)
		snprintf(why, len,
			 "fewer than two core PMUs (sysfs PMUs with a cpus "
			 "file) in " SYSFS ": not a hybrid CPU");
	else if (n == 2 && (core[0].cpu < 0 || core[1].cpu < 0 ||
			    core[0].cpu == core[1].cpu))
		snprintf(why, len, "core PMUs without distinct cpus");
	else if (n == 2)
		return 0;
	return -1;
}

/* "pmu::event" of core @k. */
static const char *native(int k, const char *event)
{
	static char buf[4][320];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%.200s::%.100s", core[k].name, event);
	return buf[i];
}

/* Start on core A, @na iterations there, @nb on B, stop into @v. */
static int run_ab(int set, unsigned long na, unsigned long nb, long long *v)
{
	int rc = pin(core[0].cpu);

	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	if (rc != PAPI_OK)
		return rc;
	loop2(na);
	rc = pin(core[1].cpu);
	loop2(nb);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	else
		(void)PAPI_stop(set, v);
	return rc;
}

static int user_set(int *set, const char *const *names, int n)
{
	int rc = make_empty_set(set), i;

	if (rc == PAPI_OK)
		rc = set_domain(*set, PAPI_DOM_USER);
	for (i = 0; rc == PAPI_OK && i < n; i++) {
		rc = PAPI_add_named_event(*set, names[i]);
		if (rc != PAPI_OK)
			lope_info("PAPI_add_named_event(%s): %s", names[i],
				  papi_err(rc));
	}
	return rc;
}

/* Child mode (on stock PAPI): PAPI_TOT_INS of the sequence. */
static int stock_child(void)
{
	const char *tot = "PAPI_TOT_INS";
	long long v0 = 0, v = 0;
	char why[256];
	int set;

	if (find_cores(why, sizeof(why)) ||
	    PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
	    user_set(&set, &tot, 1) != PAPI_OK ||
	    run_ab(set, 0, 0, &v0) != PAPI_OK ||
	    run_ab(set, 1000000, 2000000, &v) != PAPI_OK)
		return 1;
	printf("%lld\n", v - v0);
	return 0;
}

static void print_stock(long long ours)
{
	char lib[PATH_MAX], why[512];
	long long v = -1;
	pid_t pid;
	FILE *in = rerun_on_stock(STOCK_VAR, &pid, lib, why, sizeof(why));
	int st = 0;

	if (!in) {
		lope_info("stock PAPI not run: %s", why);
		return;
	}
	if (fscanf(in, "%lld", &v) != 1)
		v = -1;
	fclose(in);
	waitpid(pid, &st, 0);
	if (v < 0)
		lope_info("stock PAPI (%s): PAPI_TOT_INS failed (status %d)",
			  lib, st);
	else
		lope_info("PAPI_TOT_INS over 2M instructions on %s and 4M on "
			  "%s: ours %lld, stock %lld",
			  core[0].name, core[1].name, ours, v);
}

/* PAPI_TOT_INS and each core type's own instructions event. */
static int three_set(int *set)
{
	const char *names[3] = { "PAPI_TOT_INS", native(0, core[0].ins),
				 native(1, core[1].ins) };

	return user_set(set, names, 3);
}

/*
 * Growths @d of PAPI_TOT_INS and core types A's and B's own events, the
 * loop's @na and @nb instructions on each: PAPI_TOT_INS is the sum of the
 * two (within SLACK), each at least its loop and less than @slop more
 * (a phase of the other core type, or one a reset dropped, is @slop).
 * QEMU counts on a vCPU what the other executes meanwhile
 * (doc/arm64-guest.md), so a part may exceed its loop by that, never by
 * a phase.
 */
static void check_parts(const char *name, int rc, const long long *d,
			long long na, long long nb, long long slop)
{
	/* Between the reads of the parts and of the own events, what QEMU
	 * adds from the other vCPU: at most what it added to the parts. */
	long long extra =
		(d[1] > na ? d[1] - na : 0) + (d[2] > nb ? d[2] - nb : 0);

	lope_check(rc == PAPI_OK &&
			   llabs(d[0] - d[1] - d[2]) <= SLACK + extra &&
			   d[1] >= na - SLACK && d[1] < na + slop &&
			   d[2] >= nb - SLACK && d[2] < nb + slop,
		   name,
		   "rc=%s; over the empty run PAPI_TOT_INS grew by %lld, %s's "
		   "own event by %lld (loop %lld), %s's by %lld (loop %lld); "
		   "want the sum, each part less than %lld over its loop",
		   papi_err(rc), d[0], core[0].name, d[1], na, core[1].name,
		   d[2], nb, slop);
}

/* @d = @v - @v0 for the three events. */
static void growth(long long *d, const long long *v, const long long *v0)
{
	int i;

	for (i = 0; i < 3; i++)
		d[i] = v[i] - v0[i];
}

static void counts(void)
{
	long long v0[3] = { 0 }, v[3] = { 0 }, d[3];
	int set = PAPI_NULL, rc;

	rc = three_set(&set);
	if (rc == PAPI_OK)
		rc = run_ab(set, 0, 0, v0);
	if (rc == PAPI_OK)
		rc = run_ab(set, 1000000, 2000000, v);
	growth(d, v, v0);
	check_parts(cases[0], rc, d, 2000000, 4000000, 2000000);
	/* What QEMU added to B's loop from the other vCPU, per instruction. */
	if (rc == PAPI_OK && d[2] > 4000000)
		qemu_rate = (d[2] - 4000000) / 4e6;
	lope_check(rc == PAPI_OK && llabs(d[1] - 2000000) <= SLACK, cases[1],
		   "rc=%s; %s's own event grew by %lld over the loop's "
		   "2000000 instructions there (the other core type's 4000000 "
		   "must not count)",
		   papi_err(rc), core[0].name, d[1] - 2000000);
	drop_set(&set);
	if (rc == PAPI_OK)
		print_stock(d[0]);
}

/* No read(2), no ioctl in PAPI_read on either core type. */
static void no_syscalls(void)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);
	const char *tot = "PAPI_TOT_INS";
	unsigned long r0, i0, r1, i1;
	long long v[2];
	int set = PAPI_NULL, rc, k;

	if (!ci || !ci->fast_counter_read) {
		lope_skip(cases[2], "no user-space reads here");
		return;
	}
	rc = user_set(&set, &tot, 1);
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	r0 = lope_calls(LOPE_CALL_READ);
	i0 = lope_calls(LOPE_CALL_IOCTL);
	for (k = 0; rc == PAPI_OK && k < 4; k++) {
		rc = pin(core[k % 2].cpu);
		if (rc == PAPI_OK)
			rc = PAPI_read(set, v);
	}
	r1 = lope_calls(LOPE_CALL_READ);
	i1 = lope_calls(LOPE_CALL_IOCTL);
	lope_check(rc == PAPI_OK && r1 == r0 && i1 == i0, cases[2],
		   "rc=%s; 4 PAPI_read, 2 on each core type: %lu read(2), "
		   "%lu ioctl",
		   papi_err(rc), r1 - r0, i1 - i0);
	if (rc == PAPI_OK)
		(void)PAPI_stop(set, v);
	drop_set(&set);
}

/* Start on A, @na iterations, reset or accum, @nb on B, read or accum. */
static int migrate(int set, int accum, unsigned long na, unsigned long nb,
		   long long *v)
{
	int rc = pin(core[0].cpu);

	memset(v, 0, 3 * sizeof(*v));
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	if (rc != PAPI_OK)
		return rc;
	loop2(na);
	rc = accum ? PAPI_accum(set, v) : PAPI_reset(set);
	if (rc == PAPI_OK)
		rc = pin(core[1].cpu);
	loop2(nb);
	if (rc == PAPI_OK)
		rc = accum ? PAPI_accum(set, v) : PAPI_read(set, v);
	(void)PAPI_stop(set, NULL);
	return rc;
}

static void reset_accum(void)
{
	long long v0[3], v[3], d[3];
	int set = PAPI_NULL, rc, accum;

	for (accum = 0; accum < 2; accum++) {
		rc = three_set(&set);
		if (rc == PAPI_OK)
			rc = migrate(set, accum, 0, 0, v0);
		if (rc == PAPI_OK)
			rc = migrate(set, accum, 1000000, 2000000, v);
		growth(d, v, v0);
		/* After the reset only B's loop counts: A's phase is the
		 * slop a reset that did nothing would add. */
		check_parts(cases[3 + accum], rc, d, accum ? 2000000 : 0,
			    4000000, 2000000);
		drop_set(&set);
	}
}

/* The kernel's multiplexing interval of core PMU @k, in ms (4: default). */
static long mux_ms(int k)
{
	char path[1024];
	long ms = 4;
	FILE *f;

	snprintf(path, sizeof(path), SYSFS "/%s/perf_event_mux_interval_ms",
		 core[k].name);
	f = fopen(path, "r");
	if (f && (fscanf(f, "%ld", &ms) != 1 || ms < 1))
		ms = 4; /* the kernel's default, PERF_CPU_HRTIMER */
	if (f)
		fclose(f);
	return ms;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Events with no instructions or cycles meaning, to fill counters. */
static const unsigned int fillers[] = { 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7,
					0x9, 0xa, 0xb, 0xc, 0xd, 0xe, 0xf };

/* @iters iterations on A, then on B, each timed into @ms. */
static int run_timed(int set, unsigned long iters, long long *v, double *ms)
{
	double t0;
	int rc = pin(core[0].cpu);

	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	if (rc != PAPI_OK)
		return rc;
	t0 = now_ms();
	loop2(iters);
	ms[0] = now_ms() - t0;
	rc = pin(core[1].cpu);
	t0 = now_ms();
	loop2(iters);
	ms[1] = now_ms() - t0;
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	else
		(void)PAPI_stop(set, v);
	return rc;
}

/*
 * More events than counters on both core types: PAPI_TOT_INS, then on
 * each core its instructions event and raw events that fill its counters.
 */
static void multiplexed(void)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);
	const int most = (int)(sizeof(fillers) / sizeof(fillers[0]));
	char names[2 + 2 * most][600];
	long long v0[2 + 2 * most], v[2 + 2 * most], vr[2 + 2 * most];
	int set = PAPI_NULL, rc, n = 0, k, j, r, ins[2];
	unsigned long iters = 25000000;
	long long extra;
	double ms[2], msr[2];

	rc = make_empty_set(&set);
	if (rc == PAPI_OK)
		rc = PAPI_multiplex_init();
	if (rc == PAPI_OK)
		rc = PAPI_set_multiplex(set);
	if (rc == PAPI_OK)
		rc = set_domain(set, PAPI_DOM_USER);
	snprintf(names[n++], sizeof(names[0]), "PAPI_TOT_INS");
	for (k = 0; k < 2; k++) {
		ins[k] = n;
		snprintf(names[n++], sizeof(names[0]), "%s",
			 native(k, core[k].ins));
		for (j = 0; j < ci->num_cntrs && j < most; j++)
			snprintf(names[n++], sizeof(names[0]),
				 "%.200s::event=0x%x", core[k].name,
				 fillers[j]);
	}
	for (j = 0; rc == PAPI_OK && j < n; j++) {
		rc = PAPI_add_named_event(set, names[j]);
		if (rc != PAPI_OK)
			lope_info("PAPI_add_named_event(%s): %s", names[j],
				  papi_err(rc));
	}
	if (rc == PAPI_OK)
		rc = run_timed(set, 0, v0, ms);
	/* What QEMU adds from the other vCPU only ever adds: of three runs,
	 * the one that counted least (its values and times). */
	for (r = 0; rc == PAPI_OK && r < 3; r++) {
		rc = run_timed(set, iters, vr, msr);
		if (rc == PAPI_OK && (r == 0 || vr[0] < v[0])) {
			memcpy(v, vr, sizeof(v));
			memcpy(ms, msr, sizeof(ms));
		}
	}
	/* Its calls' own instructions differ from the empty run's by less
	 * than they are; QEMU adds from the other vCPU at the rate counts()
	 * measured, twice over, or by 0.1% of the loop (test_hw's bound of
	 * an exact count): one 4M-instruction run's rate does not bound what
	 * 100M take in (doc/hybrid.md). */
	extra = (long long)(2 * qemu_rate * 2 * iters);
	if (extra < 4 * (long long)iters / 1000)
		extra = 4 * (long long)iters / 1000;
	extra += v0[0];
	lope_check(rc == PAPI_OK &&
			   llabs(v[0] - v0[0] - 4 * (long long)iters) <= extra,
		   cases[5],
		   "rc=%s; %d events, %d counters a core type: PAPI_TOT_INS "
		   "grew by %lld over the empty run, want %lu within %lld",
		   papi_err(rc), n, ci->num_cntrs, v[0] - v0[0], 4 * iters,
		   extra);
	for (k = 0; rc == PAPI_OK && k < 2; k++) {
		double want = 2.0 * iters, err = (v[ins[k]] - want) / want;
		double bound = 2.0 * mux_ms(k) / ms[k];

		lope_info("%s: %lld for %.0f instructions in %.1f ms "
			  "(%+.1f%%; bound %.1f%%)",
			  names[ins[k]], v[ins[k]], want, ms[k], 100 * err,
			  100 * bound);
		if (err < -bound || err > bound)
			break;
	}
	lope_check(rc == PAPI_OK && k == 2, cases[6],
		   "rc=%s; the estimate of core type %d's instructions is off "
		   "by more than two multiplex intervals of its loop",
		   papi_err(rc), k);
	drop_set(&set);
}

static volatile int overflows[CPU_SETSIZE > 1024 ? 1024 : CPU_SETSIZE];

static void on_overflow(int set, void *addr, long long vec, void *ctx)
{
	int cpu = sched_getcpu();

	(void)set, (void)addr, (void)vec, (void)ctx;
	if (cpu >= 0 && cpu < (int)(sizeof(overflows) / sizeof(overflows[0])))
		overflows[cpu]++;
}

static void overflow(void)
{
	const char *cyc = "PAPI_TOT_CYC";
	const long long period = 100000;
	long long v = 0;
	int set = PAPI_NULL, rc, a, b;

	rc = user_set(&set, &cyc, 1);
	if (rc == PAPI_OK)
		rc = PAPI_overflow(set, PAPI_TOT_CYC, (int)period, 0,
				   on_overflow);
	if (rc == PAPI_OK)
		rc = run_ab(set, 2000000, 2000000, &v);
	a = overflows[core[0].cpu];
	b = overflows[core[1].cpu];
	/* Half of what the count says should have come, on each core. */
	lope_check(rc == PAPI_OK && a >= v / period / 4 &&
			   b >= v / period / 4 && a + b > 0,
		   cases[7],
		   "rc=%s; PAPI_TOT_CYC %lld, period %lld: %d overflows on "
		   "%s, %d on %s",
		   papi_err(rc), v, period, a, core[0].name, b, core[1].name);
	if (rc == PAPI_OK)
		(void)PAPI_overflow(set, PAPI_TOT_CYC, 0, 0, on_overflow);
	drop_set(&set);
}

/* PAPI_profil on PAPI_TOT_CYC: A's phase a quarter of the cycles. */
static void profile(void)
{
	static unsigned short buf[1024];
	const char *cyc = "PAPI_TOT_CYC";
	const long long period = 100000;
	long long v = 0, got = 0;
	int set = PAPI_NULL, rc;
	size_t i;

	rc = user_set(&set, &cyc, 1);
	if (rc == PAPI_OK)
		rc = PAPI_profil(buf, sizeof(buf), (vptr_t)loop2, 65536, set,
				 PAPI_TOT_CYC, (int)period, PAPI_PROFIL_POSIX);
	if (rc == PAPI_OK)
		rc = run_ab(set, 1000000, 3000000, &v);
	for (i = 0; i < sizeof(buf) / sizeof(buf[0]); i++)
		got += buf[i];
	/* One core type alone would give a quarter or three quarters. */
	lope_check(rc == PAPI_OK && got * 100 >= v / period * 85, cases[8],
		   "rc=%s; PAPI_TOT_CYC %lld, period %lld: %lld samples in "
		   "the loop, want at least 85%% of %lld",
		   papi_err(rc), v, period, got, v / period);
	if (rc == PAPI_OK)
		(void)PAPI_profil(buf, sizeof(buf), (vptr_t)loop2, 65536, set,
				  PAPI_TOT_CYC, 0, PAPI_PROFIL_POSIX);
	drop_set(&set);
}

/* Does event @name's long description say "[PMU only: ...]"? */
static int says_only(const char *name, const char *pmu)
{
	PAPI_event_info_t info;
	char want[300];
	int code = code_of(name);

	if (!code || PAPI_get_event_info(code, &info) != PAPI_OK)
		return -1;
	snprintf(want, sizeof(want), "[%.200s only: cpus ", pmu);
	return strstr(info.long_descr, want) != NULL;
}

static void descriptions(void)
{
	int a = says_only(native(0, core[0].ins), core[0].name);
	int b = says_only(native(1, core[1].ins), core[1].name);
	PAPI_event_info_t info;
	int i, split = PAPI_get_event_info(code_of("PAPI_TOT_INS"), &info) ==
		       PAPI_OK;

	/* PAPI_TOT_INS's natives count everywhere: no note on any. */
	for (i = 0; split && i < (int)info.count; i++) {
		PAPI_event_info_t n;

		if (PAPI_get_event_info((int)info.code[i], &n) != PAPI_OK ||
		    strstr(n.long_descr, " only: cpus "))
			split = 0;
	}
	lope_check(a == 1 && b == 1 && split, cases[9],
		   "%s says its core type: %d, %s: %d; PAPI_TOT_INS's events "
		   "say none: %d",
		   native(0, core[0].ins), a, native(1, core[1].ins), b, split);
}

/* A cpu-wide set on core type B's cpu: its part on B's PMU only. */
static void cpu_attached(void)
{
	const char *tot = "PAPI_TOT_INS";
	long long v = 0;
	int set = PAPI_NULL, rc;

	rc = user_set(&set, &tot, 1);
	if (rc == PAPI_OK)
		rc = set_cpu_attach(set, (unsigned int)core[1].cpu);
	if (rc == PAPI_OK)
		rc = run_ab(set, 1000000, 2000000, &v);
	/* Every task on that cpu counts: at least the loop, less than A's
	 * phase more (the cpu is otherwise idle). */
	lope_check(rc == PAPI_OK && v >= 4000000 && v < 6000000, cases[10],
		   "rc=%s; PAPI_TOT_INS attached to cpu %d (%s): %lld, want "
		   "the 4000000 of the loop there, not the 2000000 on %s",
		   papi_err(rc), core[1].cpu, core[1].name, v, core[0].name);
	drop_set(&set);
}

int main(void)
{
	char why[256];
	size_t i;

	if (getenv(STOCK_VAR))
		return stock_child();
	if (find_cores(why, sizeof(why))) {
		for (i = 0; i < NCASES; i++)
			lope_skip(cases[i], "%s", why);
		return lope_done();
	}
	papi_init_or_exit();
	lope_info("%s (cpu %d) and %s (cpu %d); %s", core[0].name, core[0].cpu,
		  core[1].name, core[1].cpu,
		  PAPI_get_component_info(0)->description);
	counts();
	no_syscalls();
	reset_accum();
	multiplexed();
	overflow();
	profile();
	descriptions();
	cpu_attached();
	PAPI_shutdown();
	return lope_done();
}
