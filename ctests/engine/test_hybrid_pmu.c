/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two core PMUs (a hybrid CPU: Intel's cpu_core and cpu_atom, Arm
 * big.LITTLE): what the kernel does with an event of one of them, asserted
 * on the real kernel with raw perf_event_open, as the engine will rely on
 * it.  The emulated arm64 machine with two PMUs, one per CPU
 * (ctests/guest/test_arm64.sh, boot hybrid), runs it; where there are
 * fewer than two core PMUs every case SKIPs saying so.
 *
 * Everything comes from sysfs: the core PMUs are those of
 * /sys/bus/event_source/devices with a cpus file, each one's perf type
 * from its type file, its CPU the first of its cpus, its instructions
 * event from events/inst_retired (decoded by the engine's sysfs reader)
 * and its cycles event from events/cpu_cycles (Arm's names: where they
 * are missing, an x86 hybrid, every case SKIPs saying so).  Counting is
 * user-only.
 * For each core PMU:
 *
 *  - inst_retired: sysfs says event=0x08 (Arm's INST_RETIRED) of the
 *    PMU's type;
 *  - counts only on its CPU: pinned to its CPU for N1 loop instructions,
 *    to the other PMU's for N2, to its own for N3, its event grows by
 *    N1, ~0, N3 (within the overhead a one-iteration run of the same loop
 *    measured on the same event, and on its own CPU 1% of the loop for
 *    what QEMU adds: case_counts_on_its_cpu);
 *  - off its CPU: the event stays enabled but does not run: its page
 *    says index 0 with cap_user_rdpmc 1, the count is the page's offset
 *    (equal to read(2)), and between two reads time_enabled advanced
 *    while time_running did not;
 *  - on its CPU: a user-space read through the page (src/mmap_read.h,
 *    the arch's counter read) lies between two read(2);
 *  - cycles sampling (period 100000) overflows on its CPU (at least half
 *    of the instructions counted there / the period: under QEMU's icount
 *    a cycle is an instruction), never off it.
 *
 * And for the kernel's generic events: a PERF_TYPE_HARDWARE instructions
 * event goes to one PMU and counts on its CPUs only, ~0 on the other's
 * (the silent undercount of a preset on a hybrid machine);
 * PERF_TYPE_HARDWARE with a PMU's type in config bits 32-63 (the
 * extended type) is reported as what this kernel does, not asserted.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lope.h"
#include "mmap_read.h"
#include "core_pmu.h"
#include "report.h"
#include "work.h"

#define NPMU 2
#define N1 1000000ul /* loop iterations, 2 instructions each */
#define N2 2000000ul
#define N3 3000000ul
#define QEMU_SHARE 100 /* 1/100 of a phase: what QEMU may add to it */
#define PERIOD 100000
#define ARM_INST_RETIRED 0x08

struct pmu {
	char name[256];
	uint32_t type;
	int cpu; /* the first of its cpus */
	char cpus[64];
	struct perf_event_attr ins, cyc; /* from sysfs */
	char ins_terms[256];
	int fd; /* its instructions event */
	volatile struct perf_event_mmap_page *page;
};

static struct pmu pmus[NPMU];
static int npmus;

/* The cases of each core PMU, named "PMU_CASE". */
enum { C_INST, C_COUNTS, C_OFF_CPU, C_USER_READ, C_OVERFLOW, NCASES };
static const char *const per_pmu[NCASES] = {
	"inst_retired_is_event_0x08_of_its_type",
	"instructions_count_only_on_its_cpu",
	"off_its_cpu_page_index_0_count_in_offset_not_running",
	"user_space_read_on_its_cpu_between_read_2",
	"cycles_overflow_on_its_cpu_only",
};
static const char generic_case[] =
	"hardware_instructions_count_on_one_core_pmu_cpus_only";

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	int fd = (int)syscall(SYS_perf_event_open, a, pid, cpu, -1,
			      PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* @a for this thread, user-only, enabled; with @user_read, asks for
 * user-space reads (lopelib_arch_prepare_attr) and drops what the PMU
 * refuses.  fd or -errno. */
static int open_user(struct perf_event_attr *a, int user_read)
{
	int fd;

	a->size = sizeof(*a);
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (user_read)
		lopelib_arch_prepare_attr(a);
	while ((fd = perf_open(a, 0, -1)) == -EOPNOTSUPP &&
	       lopelib_arch_relax_attr(a))
		;
	return fd;
}

struct val {
	uint64_t count, ena, run;
};

static int read_val(int fd, struct val *v)
{
	uint64_t buf[3];

	if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		return -EIO;
	v->count = buf[0];
	v->ena = buf[1];
	v->run = buf[2];
	return 0;
}

/* The first line of @path into @buf; 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* The core PMUs: those with a cpus file, in name order. */
static void find_pmus(void)
{
	char path[512], line[64];
	struct dirent **list;
	int i, n = scandir(LOPE_PMU_DEVICES, &list, NULL, alphasort);

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), LOPE_PMU_DEVICES "/%s/cpus",
			 list[i]->d_name);
		if (list[i]->d_name[0] != '.' &&
		    !read_line(path, line, sizeof(line)) && npmus < NPMU) {
			struct pmu *p = &pmus[npmus++];

			snprintf(p->name, sizeof(p->name), "%s",
				 list[i]->d_name);
			snprintf(p->cpus, sizeof(p->cpus), "%s", line);
			p->cpu = atoi(line);
			snprintf(path, sizeof(path),
				 LOPE_PMU_DEVICES "/%s/type", p->name);
			p->type = read_line(path, line, sizeof(line)) ?
					  0 :
					  (uint32_t)strtoul(line, NULL, 10);
			p->fd = -1;
		}
		free(list[i]);
	}
	if (n >= 0)
		free(list);
}

/* Each PMU's inst_retired and cpu_cycles through the engine's sysfs
 * reader; 0 or -errno with @why. */
static int decode_events(char *why, size_t len)
{
	struct lope_pmus *set;
	struct lope_pmu_event ev;
	int i, idx,
		err = lope_pmus__new(&set, LOPE_PMU_DEVICES, LOPE_PMUS_CORE);

	if (err) {
		snprintf(why, len, "the engine cannot list the core PMUs: %s",
			 strerror(-err));
		return err;
	}
	for (i = 0; !err && i < npmus; i++) {
		idx = lope_pmus__find(set, pmus[i].name, "inst_retired");
		err = idx < 0 ? idx :
				lope_pmus__event(set, idx, &pmus[i].ins, &ev);
		if (!err)
			snprintf(pmus[i].ins_terms, sizeof(pmus[i].ins_terms),
				 "%s", ev.terms);
		idx = err ? err :
			    lope_pmus__find(set, pmus[i].name, "cpu_cycles");
		err = idx < 0 ? idx :
				lope_pmus__event(set, idx, &pmus[i].cyc, NULL);
		if (err)
			snprintf(why, len,
				 "%.64s: no inst_retired and cpu_cycles events "
				 "in sysfs: %s",
				 pmus[i].name, strerror(-err));
	}
	lope_pmus__delete(set);
	return err;
}

/* The case name "PMU_WHAT" in snake_case, in a buffer of the caller's. */
#define CASE(buf, p, k) \
	lope_name(buf, sizeof(buf), "%s %s", (p)->name, per_pmu[k])

static void case_inst_retired(const struct pmu *p)
{
	char c[128];

	CASE(c, p, C_INST);
	lope_check(p->ins.type == p->type && p->ins.config == ARM_INST_RETIRED,
		   c,
		   "sysfs events/inst_retired is \"%s\": type %u config "
		   "0x%llx, want type %u config 0x%x",
		   p->ins_terms, p->ins.type, (unsigned long long)p->ins.config,
		   p->type, ARM_INST_RETIRED);
}

/*
 * Pin to @cpu, then a read(2) of every PMU's event, @n loop iterations,
 * a read(2) again: @d gets each event's growth.  0 or -errno.
 */
static int phase(int cpu, unsigned long n, uint64_t d[NPMU])
{
	struct val before[NPMU], after[NPMU];
	int i, err = pin_to_cpu(cpu);

	for (i = 0; !err && i < npmus; i++)
		err = read_val(pmus[i].fd, &before[i]);
	if (err)
		return err;
	loop2(n);
	for (i = 0; !err && i < npmus; i++)
		err = read_val(pmus[i].fd, &after[i]);
	for (i = 0; !err && i < npmus; i++)
		d[i] = after[i].count - before[i].count;
	return err;
}

/*
 * A on its CPU for N1, B on its for N2, A for N3: each event grows by
 * the loop (2 instructions an iteration) on its CPU and by ~0 off it.
 * On its CPU: at least the loop (nothing lost), at most the loop, twice
 * the overhead of a phase (the reads, the pinning's return to user space:
 * what a one-iteration phase counts on the same event, on its own CPU)
 * and 1/QEMU_SHARE of the loop: QEMU counts instructions with one
 * counter for the machine, so a vCPU in user mode also counts what the
 * other vCPU executes meanwhile: here cpu0's timer tick, some 2900
 * instructions every 4 ms while cpu1 runs the loop (+2916 to +5686 in
 * a phase of 6e6, the same from run to run, whatever kernel options).
 * Off its CPU: at most the overhead (the event does not run: 0).
 */
static void case_counts_on_its_cpu(void)
{
	static const unsigned long n[3] = { N1, N2, N3 };
	uint64_t calib[NPMU], tmp[NPMU], d[3][NPMU];
	int i, k, on, err = 0;
	char c[128];

	for (i = 0; !err && i < npmus; i++) {
		err = phase(pmus[i].cpu, 1, tmp);
		calib[i] = tmp[i];
	}
	for (k = 0; !err && k < 3; k++)
		err = phase(pmus[k % 2].cpu, n[k], d[k]);
	for (i = 0; i < npmus; i++) {
		const struct pmu *p = &pmus[i];
		int bad = -1;

		CASE(c, p, C_COUNTS);
		if (err) {
			lope_fail(c, "pinning or read(2): %s", strerror(-err));
			continue;
		}
		lope_info("%s on cpu %d: one-iteration phase %" PRIu64
			  "; phases of %lu, %lu, %lu instructions on cpu %d, "
			  "%d, %d: +%" PRIu64 ", +%" PRIu64 ", +%" PRIu64,
			  p->name, p->cpu, calib[i], 2 * N1, 2 * N2, 2 * N3,
			  pmus[0].cpu, pmus[1].cpu, pmus[0].cpu, d[0][i],
			  d[1][i], d[2][i]);
		for (k = 0; k < 3 && bad < 0; k++) {
			on = k % 2 == i;
			if (on ? (d[k][i] + 2 < 2 * n[k] ||
				  d[k][i] + 2 > 2 * n[k] + 2 * calib[i] +
							2 * n[k] / QEMU_SHARE) :
				 d[k][i] > calib[i])
				bad = k;
		}
		if (bad < 0)
			lope_pass(c);
		else
			lope_fail(c,
				  "phase %d on cpu %d (%s CPU) of %lu "
				  "instructions: +%" PRIu64
				  ", want %s (one-iteration phase: %" PRIu64
				  ")",
				  bad + 1, pmus[bad % 2].cpu,
				  bad % 2 == i ? "its" : "the other",
				  2 * n[bad], d[bad][i],
				  bad % 2 == i ? "the loop plus at most twice "
						 "the overhead and 1%" :
						 "at most the overhead",
				  calib[i]);
	}
}

/* Off its CPU: index 0, cap_user_rdpmc, offset == read(2), times. */
static void case_off_cpu_page(const struct pmu *p, const struct pmu *other)
{
	volatile struct perf_event_mmap_page *pg = p->page;
	struct val v1, v2;
	uint32_t index, cap;
	uint64_t offset;
	int err;
	char c[128];

	CASE(c, p, C_OFF_CPU);
	err = pin_to_cpu(other->cpu);
	if (!err)
		err = read_val(p->fd, &v1);
	loop2(N1);
	if (!err)
		err = read_val(p->fd, &v2);
	index = pg->index;
	cap = pg->cap_user_rdpmc;
	offset = (uint64_t)pg->offset;
	if (err) {
		lope_fail(c, "pinning or read(2): %s", strerror(-err));
		return;
	}
	lope_info("%s off its cpu (on cpu %d): page index %u, cap_user_rdpmc "
		  "%u, offset %" PRIu64 "; read(2) %" PRIu64
		  ", enabled %" PRIu64 " -> %" PRIu64 ", running %" PRIu64
		  " -> %" PRIu64,
		  p->name, other->cpu, index, cap, offset, v2.count, v1.ena,
		  v2.ena, v1.run, v2.run);
	if (index != 0 || cap != 1)
		lope_fail(c, "page index %u, cap_user_rdpmc %u: want 0 and 1",
			  index, cap);
	else if (offset != v2.count)
		lope_fail(c, "page offset %" PRIu64 ", read(2) %" PRIu64,
			  offset, v2.count);
	else
		lope_check(v2.run == v1.run && v2.ena > v1.ena, c,
			   "between two read(2) around %lu instructions: "
			   "enabled %" PRIu64 " -> %" PRIu64
			   ", running %" PRIu64 " -> %" PRIu64,
			   2 * N1, v1.ena, v2.ena, v1.run, v2.run);
}

/* On its CPU: read(2), a user-space read through the page, read(2). */
static void case_user_read(const struct pmu *p)
{
	struct lope_counts u = { 0 };
	struct val before, after;
	uint32_t index;
	int err, rc = -EOPNOTSUPP;
	char c[128];

	CASE(c, p, C_USER_READ);
	err = pin_to_cpu(p->cpu);
	loop2(N1);
	if (!err)
		err = read_val(p->fd, &before);
	index = p->page->index;
	if (!err)
		rc = lopelib_mmap__read(p->page, &lopelib_hw_reader, &u, NULL);
	if (!err)
		err = read_val(p->fd, &after);
	if (err) {
		lope_fail(c, "pinning or read(2): %s", strerror(-err));
		return;
	}
	if (!p->page->cap_user_rdpmc) {
		lope_skip(c, "the kernel grants no user-space reads here "
			     "(cap_user_rdpmc 0: kernel.perf_user_access?)");
		return;
	}
	lope_info("%s on cpu %d: page index %u, pmc_width %u; read(2) "
		  "%" PRIu64 ", user %" PRIu64 ", read(2) %" PRIu64,
		  p->name, p->cpu, index, p->page->pmc_width, before.count,
		  u.val, after.count);
	if (rc)
		lope_fail(c,
			  "the page refuses the user-space read (%s), index %u",
			  strerror(-rc), index);
	else
		lope_check(u.val >= before.count && u.val <= after.count &&
				   u.val > 0,
			   c,
			   "read(2) %" PRIu64 ", user %" PRIu64
			   ", read(2) %" PRIu64,
			   before.count, u.val, after.count);
}

static volatile sig_atomic_t overflows;
static volatile int overflow_fd;

static void on_overflow(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_fd == overflow_fd)
		overflows++;
}

/* Overflow signals SIGRTMIN+1 of @fd to this thread; 0 or -errno. */
static int arm_signal(int fd)
{
	struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };

	if (fcntl(fd, F_SETSIG, SIGRTMIN + 1) < 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) < 0 ||
	    fcntl(fd, F_SETFL, O_ASYNC) < 0)
		return -errno;
	return 0;
}

/*
 * Cycles sampling, period PERIOD, on PMU @p: pinned off its CPU for a
 * loop, then on it; overflows off it: none; on it: at least half of the
 * instructions counted there / PERIOD.
 */
static void case_overflow(const struct pmu *p, const struct pmu *other)
{
	struct sigaction sa = { 0 }, old;
	struct perf_event_attr a = p->cyc;
	uint64_t d[NPMU];
	int fd, err, off, on, i = (int)(p - pmus);
	uint64_t want;
	char c[128];

	CASE(c, p, C_OVERFLOW);
	a.sample_period = PERIOD;
	a.wakeup_events = 1;
	fd = open_user(&a, 0);
	if (fd < 0) {
		lope_fail(c,
			  "perf_event_open cycles (type %u config 0x%llx): %s",
			  a.type, (unsigned long long)a.config, strerror(-fd));
		return;
	}
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN + 1, &sa, &old);
	overflow_fd = fd;
	overflows = 0;
	err = arm_signal(fd);
	if (!err)
		err = phase(other->cpu, N3, d);
	off = overflows;
	if (!err)
		err = phase(p->cpu, N3, d);
	on = overflows - off;
	close(fd);
	sigaction(SIGRTMIN + 1, &old, NULL);
	if (err) {
		lope_fail(c, "signal set-up, pinning or read(2): %s",
			  strerror(-err));
		return;
	}
	want = d[i] / PERIOD / 2;
	lope_info("%s cycles sampling every %d: %d overflows off its cpu, %d "
		  "on it over %" PRIu64 " instructions",
		  p->name, PERIOD, off, on, d[i]);
	lope_check(off == 0 && want > 0 && (uint64_t)on >= want, c,
		   "%d overflows off its CPU (want 0), %d on it (want at "
		   "least %" PRIu64 ", half of %" PRIu64 " instructions / %d)",
		   off, on, want, d[i], PERIOD);
}

/*
 * A PERF_TYPE_HARDWARE instructions event: on each PMU's CPU a
 * one-iteration run of the loop, then N1 iterations.  It counts the loop
 * on the CPU of one PMU only, and on the other's at most what the
 * one-iteration run counted where it counts (the reads' overhead).
 */
static void case_generic(void)
{
	const char *c = generic_case;
	struct perf_event_attr a = { 0 };
	struct val v[3] = { { 0 } };
	uint64_t calib[NPMU], d[NPMU];
	int i, fd, err = 0, on = -1, both = 0;

	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	fd = open_user(&a, 0);
	if (fd < 0) {
		lope_fail(c,
			  "perf_event_open PERF_TYPE_HARDWARE instructions: %s",
			  strerror(-fd));
		return;
	}
	for (i = 0; !err && i < npmus; i++) {
		err = pin_to_cpu(pmus[i].cpu);
		if (!err)
			err = read_val(fd, &v[0]);
		loop2(1);
		if (!err)
			err = read_val(fd, &v[1]);
		loop2(N1);
		if (!err)
			err = read_val(fd, &v[2]);
		calib[i] = v[1].count - v[0].count;
		d[i] = v[2].count - v[1].count;
		if (d[i] + 2 >= 2 * N1) {
			both = on >= 0;
			on = i;
		}
	}
	close(fd);
	if (err) {
		lope_fail(c, "pinning or read(2): %s", strerror(-err));
		return;
	}
	lope_info("PERF_TYPE_HARDWARE instructions, %lu loop instructions on "
		  "cpu %d: +%" PRIu64 ", on cpu %d: +%" PRIu64,
		  2 * N1, pmus[0].cpu, d[0], pmus[1].cpu, d[1]);
	if (on < 0 || both) {
		lope_fail(c,
			  "counted the loop on %s: +%" PRIu64 " and +%" PRIu64
			  ", want %lu on one CPU and ~0 on the other",
			  both ? "both CPUs" : "neither CPU", d[0], d[1],
			  2 * N1);
		return;
	}
	lope_info("PERF_TYPE_HARDWARE instructions counts on %s's cpus (%s) "
		  "only: the other core type is not counted",
		  pmus[on].name, pmus[on].cpus);
	lope_check(d[1 - on] <= calib[on], c,
		   "+%" PRIu64 " on cpu %d, off the PMU it counts on: want at "
		   "most the %" PRIu64 " of a one-iteration run",
		   d[1 - on], pmus[1 - on].cpu, calib[on]);
}

/* PERF_TYPE_HARDWARE with a PMU's type in config bits 32-63: what the
 * kernel does (x86 hybrid kernels take it; arm64 from 6.7). */
static void info_extended_type(void)
{
	struct perf_event_attr a;
	int i, fd;

	for (i = 0; i < npmus; i++) {
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_HARDWARE;
		a.config = (uint64_t)pmus[i].type << 32 |
			   PERF_COUNT_HW_INSTRUCTIONS;
		fd = open_user(&a, 0);
		lope_info("PERF_TYPE_HARDWARE instructions with %s's type %u "
			  "in config bits 32-63: %s",
			  pmus[i].name, pmus[i].type,
			  fd >= 0 ? "accepted" : strerror(-fd));
		if (fd >= 0)
			close(fd);
	}
}

static void skip_all(const char *fmt, const char *arg)
{
	char c[128];
	int i, k;

	for (i = 0; i < (npmus < NPMU ? 1 : npmus); i++)
		for (k = 0; k < NCASES; k++) {
			if (npmus < NPMU)
				lope_name(c, sizeof(c), "each_core_pmu_%s",
					  per_pmu[k]);
			else
				CASE(c, &pmus[i], k);
			lope_skip(c, fmt, arg);
		}
	lope_skip(generic_case, fmt, arg);
}

int main(void)
{
	char why[256];
	int i, err;

	find_pmus();
	if (npmus < NPMU) {
		snprintf(why, sizeof(why), "found %d%s%.64s", npmus,
			 npmus ? ", " : "", npmus ? pmus[0].name : "");
		skip_all("fewer than two core PMUs (PMUs with a cpus file in "
			 "/sys/bus/event_source/devices): %s",
			 why);
		return lope_done();
	}
	lope_info("core PMUs: %s (type %u, cpus %s), %s (type %u, cpus %s)",
		  pmus[0].name, pmus[0].type, pmus[0].cpus, pmus[1].name,
		  pmus[1].type, pmus[1].cpus);
	if (decode_events(why, sizeof(why))) {
		skip_all("%s", why);
		return lope_done();
	}
	for (i = 0; i < npmus; i++) {
		pmus[i].fd = open_user(&pmus[i].ins, 1);
		if (pmus[i].fd < 0) {
			snprintf(why, sizeof(why),
				 "%.64s instructions: perf_event_open: %s",
				 pmus[i].name, strerror(-pmus[i].fd));
			skip_all("%s", why);
			return lope_done();
		}
		pmus[i].page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE),
				    PROT_READ, MAP_SHARED, pmus[i].fd, 0);
		if (pmus[i].page == MAP_FAILED) {
			err = errno;
			snprintf(why, sizeof(why),
				 "%.64s instructions: mmap: %s", pmus[i].name,
				 strerror(err));
			skip_all("%s", why);
			return lope_done();
		}
	}
	for (i = 0; i < npmus; i++)
		case_inst_retired(&pmus[i]);
	case_counts_on_its_cpu();
	for (i = 0; i < npmus; i++) {
		case_off_cpu_page(&pmus[i], &pmus[1 - i]);
		case_user_read(&pmus[i]);
		case_overflow(&pmus[i], &pmus[1 - i]);
	}
	case_generic();
	info_extended_type();
	return lope_done();
}
