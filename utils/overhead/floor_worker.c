/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The raw floor worker: the same events opened directly with
 * perf_event_open as one group, timed as one read(), one ioctl(RESET,
 * ENABLE, DISABLE) and, where the counters are readable in user space, a
 * seqlock+rdpmc loop: what a PAPI call cannot undercut.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../tool.h"
#include "../worker.h"
#include "bench.h"

struct raw_ev {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/* The generic perf events PAPI's names stand for, aliases included. */
static const struct raw_ev raw_table[] = {
	{ "TASK-CLOCK", PERF_SW(TASK_CLOCK) },
	{ "CPU-CLOCK", PERF_SW(CPU_CLOCK) },
	{ "PAGE-FAULTS", PERF_SW(PAGE_FAULTS) },
	{ "FAULTS", PERF_SW(PAGE_FAULTS) },
	{ "CONTEXT-SWITCHES", PERF_SW(CONTEXT_SWITCHES) },
	{ "CS", PERF_SW(CONTEXT_SWITCHES) },
	{ "CPU-MIGRATIONS", PERF_SW(CPU_MIGRATIONS) },
	{ "MIGRATIONS", PERF_SW(CPU_MIGRATIONS) },
	{ "MINOR-FAULTS", PERF_SW(PAGE_FAULTS_MIN) },
	{ "MAJOR-FAULTS", PERF_SW(PAGE_FAULTS_MAJ) },
	{ "ALIGNMENT-FAULTS", PERF_SW(ALIGNMENT_FAULTS) },
	{ "EMULATION-FAULTS", PERF_SW(EMULATION_FAULTS) },
	{ "INSTRUCTIONS", PERF_HW(INSTRUCTIONS) },
	{ "PAPI_TOT_INS", PERF_HW(INSTRUCTIONS) },
	{ "CYCLES", PERF_HW(CPU_CYCLES) },
	{ "CPU-CYCLES", PERF_HW(CPU_CYCLES) },
	{ "PAPI_TOT_CYC", PERF_HW(CPU_CYCLES) },
	{ "BRANCHES", PERF_HW(BRANCH_INSTRUCTIONS) },
	{ "BRANCH-INSTRUCTIONS", PERF_HW(BRANCH_INSTRUCTIONS) },
	{ "PAPI_BR_INS", PERF_HW(BRANCH_INSTRUCTIONS) },
	{ "BRANCH-MISSES", PERF_HW(BRANCH_MISSES) },
	{ "PAPI_BR_MSP", PERF_HW(BRANCH_MISSES) },
	{ "CACHE-REFERENCES", PERF_HW(CACHE_REFERENCES) },
	{ "CACHE-MISSES", PERF_HW(CACHE_MISSES) },
	{ "REF-CYCLES", PERF_HW(REF_CPU_CYCLES) },
	{ "PAPI_REF_CYC", PERF_HW(REF_CPU_CYCLES) },
};

/*
 * The generic perf event a PAPI name stands for ("perf::TASK-CLOCK:u" ->
 * software task-clock); -1 for names it has none for.
 */
static int raw_lookup(const char *name, struct raw_ev *out)
{
	char base[128];
	char *colon;
	unsigned i;

	if (strncasecmp(name, "perf::", 6) == 0)
		name += 6;
	else if (strncasecmp(name, "perf_raw::", 10) == 0)
		return -1;
	snprintf(base, sizeof(base), "%s", name);
	colon = strchr(base, ':');
	if (colon)
		*colon = 0;
	for (i = 0; i < ARRAY_SIZE(raw_table); i++)
		if (strcasecmp(base, raw_table[i].name) == 0) {
			*out = raw_table[i];
			out->name = name;
			return 0;
		}
	return -1;
}

int raw_is_software(const char *name)
{
	struct raw_ev ev;

	return !raw_lookup(name, &ev) && ev.type == PERF_TYPE_SOFTWARE;
}

struct raw_ctx {
	struct ctx c;
	int fd[MAX_EVENTS];
	int nev;
	struct perf_event_mmap_page *page[MAX_EVENTS];
	size_t pagesz;
	uint64_t buf[3 + MAX_EVENTS];
	uint64_t sink;
};

static int raw_err(struct ctx *c, const char *what)
{
	snprintf(c->err, sizeof(c->err), "%s: %s", what, strerror(errno));
	return 1;
}

static int rst_read(struct ctx *c)
{
	struct raw_ctx *r = (struct raw_ctx *)c;
	ssize_t want = (ssize_t)((3 + (size_t)r->nev) * sizeof(uint64_t));

	if (read(r->fd[0], r->buf, (size_t)want) != want)
		return raw_err(c, "read(group)");
	return 0;
}

/* A step of one ioctl on the whole group. */
#define RAW_IOCTL(name, req)                                   \
	static int name(struct ctx *c)                         \
	{                                                      \
		struct raw_ctx *r = (struct raw_ctx *)c;       \
		if (ioctl(r->fd[0], req, PERF_IOC_FLAG_GROUP)) \
			return raw_err(c, "ioctl(" #req ")");  \
		return 0;                                      \
	}

RAW_IOCTL(rst_reset, PERF_EVENT_IOC_RESET)
RAW_IOCTL(rst_enable, PERF_EVENT_IOC_ENABLE)
RAW_IOCTL(rst_disable, PERF_EVENT_IOC_DISABLE)

/* One event's count by the page's seqlock and rdpmc; 0, or 1 with why. */
static inline int rdpmc_one(struct ctx *c, int i,
			    volatile struct perf_event_mmap_page *pc,
			    uint64_t *sink)
{
	uint32_t seq, idx;
	uint64_t ena, run;
	int64_t count;
	unsigned width;

	do {
		seq = pc->lock;
		__asm__ __volatile__("" ::: "memory");
		ena = pc->time_enabled;
		run = pc->time_running;
		idx = pc->index;
		width = pc->pmc_width;
		if (!pc->cap_user_rdpmc || !idx || !width || width > 64) {
			snprintf(c->err, sizeof(c->err),
				 "event %d lost user-space access", i);
			return 1;
		}
		count = pc->offset;
		count += (int64_t)(arch_rdpmc(idx - 1) << (64 - width)) >>
			 (64 - width);
		__asm__ __volatile__("" ::: "memory");
	} while (pc->lock != seq || (seq & 1));
	*sink += (uint64_t)count + ena + run;
	return 0;
}

/* The seqlock + rdpmc read of every event (checked usable beforehand). */
static int rst_rdpmc(struct ctx *c)
{
	struct raw_ctx *r = (struct raw_ctx *)c;
	int i;

	for (i = 0; i < r->nev; i++)
		if (rdpmc_one(c, i, r->page[i], &r->sink))
			return 1;
	return 0;
}

static void raw_close(struct raw_ctx *r)
{
	int i;

	for (i = 0; i < r->nev; i++) {
		if (r->page[i])
			munmap(r->page[i], r->pagesz);
		if (r->fd[i] >= 0)
			close(r->fd[i]);
		r->page[i] = NULL;
		r->fd[i] = -1;
	}
}

/* Open @ev[0..n) as one disabled group, read format like the component. */
static int raw_open(struct raw_ctx *r, const struct raw_ev *ev, int n,
		    char *why, size_t len)
{
	struct perf_event_attr a;
	int i;

	memset(r, 0, sizeof(*r));
	r->nev = n;
	r->pagesz = (size_t)sysconf(_SC_PAGESIZE);
	for (i = 0; i < MAX_EVENTS; i++)
		r->fd[i] = -1;
	for (i = 0; i < n; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = ev[i].type;
		a.config = ev[i].config;
		a.read_format = PERF_FORMAT_GROUP |
				PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.disabled = i == 0;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		r->fd[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1,
					i ? r->fd[0] : -1,
					PERF_FLAG_FD_CLOEXEC);
		if (r->fd[i] < 0) {
			snprintf(why, len, "perf_event_open(%s): %s",
				 ev[i].name, strerror(errno));
			raw_close(r);
			return -1;
		}
		r->page[i] = mmap(NULL, r->pagesz, PROT_READ, MAP_SHARED,
				  r->fd[i], 0);
		if (r->page[i] == MAP_FAILED)
			r->page[i] = NULL;
	}
	return 0;
}

/* Are all events of the (enabled) group readable in user space? */
static int raw_rdpmc_ok(struct raw_ctx *r, char *why, size_t len)
{
	int i;

	if (!HAVE_RDPMC) {
		snprintf(why, len, "raw rdpmc floor implemented on x86 only");
		return 0;
	}
	for (i = 0; i < r->nev; i++) {
		volatile struct perf_event_mmap_page *pc = r->page[i];

		if (!pc) {
			snprintf(why, len, "mmap of the event page failed");
			return 0;
		}
		if (!pc->cap_user_rdpmc) {
			snprintf(why, len, "cap_user_rdpmc=0 on event %d", i);
			return 0;
		}
		if (!pc->index) {
			snprintf(why, len, "index=0 on event %d", i);
			return 0;
		}
	}
	return 1;
}

/* Why can this machine not read hardware counters in user space? */
static void hw_rdpmc_probe(char *why, size_t len)
{
	struct raw_ctx r;
	struct raw_ev ins = { "hardware instructions", PERF_TYPE_HARDWARE,
			      PERF_COUNT_HW_INSTRUCTIONS };
	char w[160];

	if (raw_open(&r, &ins, 1, w, sizeof(w))) {
		snprintf(why, len, "%s%s", w,
			 errno == ENOENT || errno == EOPNOTSUPP ?
				 " - no hardware PMU" :
				 "");
		return;
	}
	ioctl(r.fd[0], PERF_EVENT_IOC_ENABLE, 0);
	if (raw_rdpmc_ok(&r, w, sizeof(w)))
		snprintf(why, len, "hardware counters are readable");
	else
		snprintf(why, len, "hardware instructions event: %s", w);
	raw_close(&r);
}

/*
 * The generic perf events of @names; a name without one gets a stand-in,
 * hardware instructions (said once, with @say).  1 if all are software.
 */
static int raw_events(char **names, int n, struct raw_ev *ev, int say)
{
	int i, sw_only = 1;

	for (i = 0; i < n; i++) {
		if (raw_lookup(names[i], &ev[i])) {
			ev[i].name = "hardware instructions (stand-in)";
			ev[i].type = PERF_TYPE_HARDWARE;
			ev[i].config = PERF_COUNT_HW_INSTRUCTIONS;
			if (say)
				emit("info standin %s -> hardware instructions",
				     names[i]);
		}
		if (ev[i].type != PERF_TYPE_SOFTWARE)
			sw_only = 0;
	}
	return sw_only;
}

static const struct bcase f_read_case = CASE1("f_read", rst_read);
static const struct bcase f_reset_case = CASE1("f_reset", rst_reset);
static const struct bcase f_ed_case = {
	.nsteps = 2,
	.steps = { { "f_enable", rst_enable }, { "f_disable", rst_disable } },
};
static const struct bcase f_rdpmc_case = CASE1("f_rdpmc", rst_rdpmc);
static const struct bcase fs_read_case = CASE1("s_f_read", rst_read);
static const struct bcase fs_reset_case = CASE1("s_f_reset", rst_reset);

/* The floor of one set of @ev[0..n): enable/disable, read, reset, rdpmc. */
static void floor_set(const struct bench *b, const struct raw_ev *ev, int n,
		      int sw_only, const char *hwwhy)
{
	struct raw_ctx r;
	char why[512];

	if (raw_open(&r, ev, n, why, sizeof(why))) {
		bench_case_err(&f_ed_case, n, why);
		bench_case_err(&f_read_case, n, why);
		bench_case_err(&f_reset_case, n, why);
		emit("na f_rdpmc %d %s", n, why);
		return;
	}
	bench_run(b, &f_ed_case, &r.c, n); /* ends disabled */
	ioctl(r.fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	bench_run(b, &f_read_case, &r.c, n);
	bench_run(b, &f_reset_case, &r.c, n);
	if (raw_rdpmc_ok(&r, why, sizeof(why))) {
		bench_run(b, &f_rdpmc_case, &r.c, n);
	} else {
		if (sw_only)
			snprintf(why, sizeof(why),
				 "software events have no hardware counter "
				 "(page index=0); %s",
				 hwwhy);
		emit("na f_rdpmc %d %s", n, why);
	}
	raw_close(&r);
}

/* The scaling floor: a group read and a group reset of @ev[0..n). */
static void floor_scale(const struct bench *b, const struct raw_ev *ev, int n)
{
	struct raw_ctx r;
	char why[256];

	if (raw_open(&r, ev, n, why, sizeof(why))) {
		bench_case_err(&fs_read_case, n, why);
		bench_case_err(&fs_reset_case, n, why);
		return;
	}
	ioctl(r.fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	bench_run(b, &fs_read_case, &r.c, n);
	bench_run(b, &fs_reset_case, &r.c, n);
	raw_close(&r);
}

int floor_worker(long n, char **names, int nev, char **scale, int nscale)
{
	struct raw_ev ev[MAX_EVENTS], sev[MAX_EVENTS];
	int k, nsizes, sizes[MAX_SETS], sw_only;
	struct bench b;
	char hwwhy[256];

	sw_only = raw_events(names, nev, ev, 1);
	raw_events(scale, nscale, sev, 0);
	bench_open(&b, n);
	hwwhy[0] = 0;
	if (sw_only)
		hw_rdpmc_probe(hwwhy, sizeof(hwwhy));
	nsizes = set_sizes(nev, sizes);
	for (k = 0; k < nsizes; k++)
		floor_set(&b, ev, sizes[k], sw_only, hwwhy);
	for (k = 1; k <= nscale; k++)
		floor_scale(&b, sev, k);
	bench_close(&b);
	return EX_OK;
}
