/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of lope_group__overflows() on simulated ring buffers: what a
 * signal of one sampling event hands out, from the records the kernel
 * writes (PERF_SAMPLE_IP | PERF_SAMPLE_READ, the group's counts in each
 * sample).  Rows of records and calls, each with the overflows it must
 * give, in order, with their event and address:
 *  - one overflow per sample, at the sample's address;
 *  - a multiple of a period that the count passed without a sample (the
 *    kernel drops a user-domain clock's expiry that comes while the
 *    thread is in the kernel) is found in a later sample, of the event
 *    itself or of another event of the group, and given at the address
 *    of the sample whose count was nearer to it;
 *  - a sample that comes after its multiple was given that way gives
 *    none, and the next multiple is due a period after it;
 *  - a lost record's overflows, with no address; throttling records give
 *    none; a record of another layout gives its one overflow; a record
 *    whose size runs past the data drops the rest;
 *  - records that wrap around the end of the ring, and more overflows
 *    than the caller's room: handed out over several calls;
 * and the budget: counted down by the signals handled, not by samples.
 * Then the same on the kernel's own rings: two software clocks of the user
 * domain in one group, the second period twice the first, sampled over
 * 300 ms; every multiple of each period that the count passed is handed
 * out once, whatever the kernel dropped.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "clock.h"
#include "group_layout.h"
#include "overflow.h"
#include "proc.h"
#include "report.h"
#include "sys.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PAGE 4096u
#define P 1000u   /* event 0's period */
#define NEV 3     /* events in the rows' groups */
#define MAXOUT 16 /* overflows a row can want */

enum op {
	END,
	SAMPLE, /* a sample in ring .ev: address .ip, the group's counts .c */
	LOST,   /* a lost record in ring .ev, of .c[0] samples */
	THROTTLE,
	FOREIGN, /* a sample whose read has another number of events */
	BROKEN,  /* a header whose size runs past the data */
	CALL,    /* lope_group__overflows(.ev), .ip: the room (0: MAXOUT) */
	AT,      /* ring positions from .ip (8-aligned, as the kernel's) */
};

struct step {
	enum op op;
	int ev;
	uint64_t ip;
	uint64_t c[NEV];
};

struct got {
	int idx;
	uint64_t ip;
};

static const struct row {
	int line;
	const char *name;
	uint64_t period[NEV]; /* 0: not sampling */
	int grouped;
	struct step steps[10];
	struct got want[MAXOUT];
	int nwant;
} rows[] = {
	{ __LINE__,
	  "one_sample_one_overflow_at_its_address",
	  { P, 0, 0 },
	  1,
	  { { SAMPLE, 0, 0x10, { P + 3, 7, 9 } }, { CALL, 0, 0, { 0 } } },
	  { { 0, 0x10 } },
	  1 },
	{ __LINE__,
	  "samples_at_each_multiple_one_each",
	  { P, 0, 0 },
	  1,
	  { { SAMPLE, 0, 0x10, { P, 0, 0 } },
	    { SAMPLE, 0, 0x20, { 2 * P + 40, 0, 0 } },
	    { SAMPLE, 0, 0x30, { 3 * P + 80, 0, 0 } },
	    { CALL, 0, 0, { 0 } } },
	  { { 0, 0x10 }, { 0, 0x20 }, { 0, 0x30 } },
	  3 },
	/* The member's expiry at 2P fired while the kernel delivered the
	 * leader's signal: the leader's next sample shows it, nearer the
	 * leader's sample at 2P than the one at 3P. */
	{ __LINE__,
	  "member_dropped_found_in_the_leader_s_sample",
	  { P, 2 * P, 0 },
	  1,
	  { { SAMPLE, 0, 0x10, { P, P + 1, 0 } },
	    { SAMPLE, 0, 0x20, { 2 * P, 2 * P - 2, 0 } },
	    { SAMPLE, 0, 0x30, { 3 * P, 3 * P - 1, 0 } },
	    { CALL, 0, 0, { 0 } } },
	  { { 0, 0x10 }, { 0, 0x20 }, { 0, 0x30 }, { 1, 0x20 } },
	  4 },
	{ __LINE__,
	  "not_an_eighth_of_a_period_past_not_owed_yet",
	  { P, 2 * P, 0 },
	  1,
	  { { SAMPLE, 0, 0x10, { P, P, 0 } },
	    { SAMPLE, 0, 0x20, { 2 * P, 2 * P + P / 4 - 1, 0 } },
	    { CALL, 0, 0, { 0 } } },
	  { { 0, 0x10 }, { 0, 0x20 } },
	  2 },
	/* ... and its own sample, more than half a period late, is the
	 * multiple already given: nothing more. */
	{ __LINE__,
	  "member_found_then_its_late_sample_gives_none",
	  { P, 2 * P, 0 },
	  1,
	  { { SAMPLE, 0, 0x10, { P, P, 0 } },
	    { SAMPLE, 0, 0x20, { 2 * P, 2 * P + P / 4, 0 } },
	    { CALL, 0, 0, { 0 } },
	    { SAMPLE, 1, 0x40, { 2 * P + 10, 2 * P + 2, 0 } },
	    { CALL, 1, 0, { 0 } },
	    { SAMPLE, 1, 0x50, { 3 * P - 10, 4 * P + 5, 0 } },
	    { CALL, 1, 0, { 0 } } },
	  { { 0, 0x10 }, { 0, 0x20 }, { 1, 0x20 }, { 1, 0x50 } },
	  4 },
	/* Its own next sample shows a multiple skipped (no other event saw
	 * it): given, at the nearer sample's address. */
	{ __LINE__,
	  "own_sample_after_a_gap_gives_the_skipped_one",
	  { P, 0, 0 },
	  1,
	  { { SAMPLE, 0, 0x10, { P, 0, 0 } },
	    { SAMPLE, 0, 0x20, { 3 * P + 5, 0, 0 } },
	    { CALL, 0, 0, { 0 } } },
	  { { 0, 0x10 }, { 0, 0x10 }, { 0, 0x20 } },
	  3 },
	{ __LINE__,
	  "own_sample_after_two_gaps_each_at_the_nearer_sample",
	  { P, 0, 0 },
	  1,
	  { { SAMPLE, 0, 0x10, { P - 400, 0, 0 } },
	    { SAMPLE, 0, 0x20, { 4 * P + 50, 0, 0 } },
	    { CALL, 0, 0, { 0 } } },
	  { { 0, 0x10 }, { 0, 0x10 }, { 0, 0x20 }, { 0, 0x20 } },
	  4 },
	/* The multiples are the count's, not the samples': samples that
	 * drift late by up to half a period still give one each. */
	{ __LINE__,
	  "multiples_of_the_count_not_of_the_samples",
	  { P, 0, 0 },
	  1,
	  { { SAMPLE, 0, 0x10, { P + 100, 0, 0 } },
	    { SAMPLE, 0, 0x20, { 2 * P + 300, 0, 0 } },
	    { SAMPLE, 0, 0x30, { 3 * P + 499, 0, 0 } },
	    { SAMPLE, 0, 0x40, { 4 * P - 400, 0, 0 } },
	    { CALL, 0, 0, { 0 } } },
	  { { 0, 0x10 }, { 0, 0x20 }, { 0, 0x30 }, { 0, 0x40 } },
	  4 },
	/* Two members dropped at once, three periods apart in the leader's
	 * count: each found, each at its own nearer address. */
	{ __LINE__,
	  "two_members_each_found_at_its_nearer_sample",
	  { P, 2 * P, 3 * P },
	  1,
	  { { SAMPLE, 0, 0x10, { P, P, P } },
	    { SAMPLE, 0, 0x20, { 2 * P, 2 * P - 1, 2 * P } },
	    { SAMPLE, 0, 0x30, { 3 * P, 3 * P, 3 * P - 1 } },
	    { SAMPLE, 0, 0x40, { 4 * P, 4 * P, 4 * P } },
	    { CALL, 0, 0, { 0 } } },
	  { { 0, 0x10 },
	    { 0, 0x20 },
	    { 0, 0x30 },
	    { 1, 0x20 },
	    { 0, 0x40 },
	    { 2, 0x30 } },
	  6 },
	/* Separate kernel groups: a sample reads its own count alone. */
	{ __LINE__,
	  "separate_groups_own_count_alone",
	  { P, 2 * P, 0 },
	  0,
	  { { SAMPLE, 1, 0x10, { 2 * P, 0, 0 } },
	    { SAMPLE, 1, 0x20, { 6 * P + 1, 0, 0 } },
	    { CALL, 1, 0, { 0 } } },
	  { { 1, 0x10 }, { 1, 0x10 }, { 1, 0x20 } },
	  3 },
	{ __LINE__,
	  "lost_record_its_overflows_no_address",
	  { P, 0, 0 },
	  1,
	  { { SAMPLE, 0, 0x10, { P, 0, 0 } },
	    { LOST, 0, 0, { 3, 0, 0 } },
	    { SAMPLE, 0, 0x20, { 5 * P, 0, 0 } },
	    { CALL, 0, 0, { 0 } } },
	  { { 0, 0x10 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0x20 } },
	  5 },
	{ __LINE__,
	  "throttle_record_gives_none",
	  { P, 0, 0 },
	  1,
	  { { THROTTLE, 0, 0, { 0 } },
	    { SAMPLE, 0, 0x10, { P, 0, 0 } },
	    { THROTTLE, 0, 0, { 0 } },
	    { CALL, 0, 0, { 0 } } },
	  { { 0, 0x10 } },
	  1 },
	{ __LINE__,
	  "sample_of_another_layout_its_one_overflow",
	  { P, 0, 0 },
	  1,
	  { { FOREIGN, 0, 0x10, { 9 * P, 0, 0 } },
	    { SAMPLE, 0, 0x20, { 2 * P, 0, 0 } },
	    { CALL, 0, 0, { 0 } } },
	  { { 0, 0x10 }, { 0, 0x20 } },
	  2 },
	{ __LINE__,
	  "broken_header_drops_the_rest",
	  { P, 0, 0 },
	  1,
	  { { SAMPLE, 0, 0x10, { P, 0, 0 } },
	    { BROKEN, 0, 0, { 0 } },
	    { CALL, 0, 0, { 0 } },
	    { SAMPLE, 0, 0x20, { 2 * P, 0, 0 } },
	    { CALL, 0, 0, { 0 } } },
	  { { 0, 0x10 }, { 0, 0x20 } },
	  2 },
	{ __LINE__,
	  "records_wrap_around_the_ring_s_end",
	  { P, 2 * P, 0 },
	  1,
	  { { AT, 0, PAGE - 24, { 0 } },
	    { SAMPLE, 0, 0x10, { P, P, 0 } },
	    { SAMPLE, 0, 0x20, { 2 * P, 2 * P - 1, 0 } },
	    { SAMPLE, 0, 0x30, { 3 * P, 3 * P, 0 } },
	    { CALL, 0, 0, { 0 } } },
	  { { 0, 0x10 }, { 0, 0x20 }, { 0, 0x30 }, { 1, 0x20 } },
	  4 },
	{ __LINE__,
	  "more_than_the_room_over_several_calls",
	  { P, 0, 0 },
	  1,
	  { { SAMPLE, 0, 0x10, { 5 * P, 0, 0 } },
	    { CALL, 0, 2, { 0 } },
	    { CALL, 0, 2, { 0 } },
	    { CALL, 0, 2, { 0 } } },
	  { { 0, 0 }, { 0, 0 }, { 0, 0x10 }, { 0, 0x10 }, { 0, 0x10 } },
	  5 },
};

/* The rows' group: NEV events, each sampling one with a ring. */
struct fake {
	struct lope_group g;
	struct lope_event ev[NEV];
	unsigned char *ring[NEV];
	uint64_t head[NEV];
};

/* Data bytes of a fake ring: the engine's size for NEV events, 1 page. */
static unsigned char *data_of(struct fake *f, int i)
{
	return f->ring[i] + PAGE;
}

static void put(struct fake *f, int i, const uint64_t *w, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		uint64_t off = (f->head[i] + 8 * k) & (PAGE - 1);

		memcpy(data_of(f, i) + off, &w[k], sizeof(*w));
	}
	f->head[i] += 8 * n;
	((struct perf_event_mmap_page *)f->ring[i])->data_head = f->head[i];
}

static uint64_t header(uint32_t type, size_t words)
{
	struct perf_event_header h = {
		.type = type,
		.size = (uint16_t)(8 * words),
	};
	uint64_t w;

	memcpy(&w, &h, sizeof(w));
	return w;
}

static void record(struct fake *f, const struct step *s)
{
	uint64_t w[8];
	size_t n = 0, k;

	switch (s->op) {
	case SAMPLE:
	case FOREIGN:
		w[n++] = 0;
		w[n++] = s->ip;
		if (f->g.grouped) {
			w[n++] = s->op == FOREIGN ? NEV + 1 : NEV;
			w[n++] = 1; /* enabled, running: not used */
			w[n++] = 1;
			for (k = 0; k < NEV; k++)
				w[n++] = s->c[k];
		} else {
			w[n++] = s->c[0];
			w[n++] = 1;
			w[n++] = 1;
		}
		w[0] = header(PERF_RECORD_SAMPLE, n);
		break;
	case LOST:
		w[n++] = header(PERF_RECORD_LOST, 3);
		w[n++] = 0; /* id */
		w[n++] = s->c[0];
		break;
	case THROTTLE:
		w[n++] = header(PERF_RECORD_THROTTLE, 4);
		w[n++] = 0;
		w[n++] = 0;
		w[n++] = 0;
		break;
	case BROKEN:
		w[n++] = header(PERF_RECORD_SAMPLE, 100);
		break;
	default:
		return;
	}
	put(f, s->ev, w, n);
}

static int fake_open(struct fake *f, const uint64_t *period, int grouped)
{
	int i;

	memset(f, 0, sizeof(*f));
	f->g.nr = NEV;
	f->g.ev = f->ev;
	f->g.grouped = grouped;
	f->g.opened = true;
	f->g.page_size = PAGE;
	for (i = 0; i < NEV; i++) {
		f->ev[i].fd = -1;
		f->ev[i].period = period[i];
		f->ev[i].due = period[i];
		f->ev[i].budget = LOPE_OVERFLOW_BUDGET;
		if (!period[i])
			continue;
		f->ring[i] = aligned_alloc(PAGE, 2 * PAGE);
		if (!f->ring[i])
			return -ENOMEM;
		memset(f->ring[i], 0, 2 * PAGE);
		f->ev[i].ring = f->ring[i];
	}
	return 0;
}

static void fake_close(struct fake *f)
{
	int i;

	for (i = 0; i < NEV; i++)
		free(f->ring[i]);
}

static void set_at(struct fake *f, uint64_t pos)
{
	int i;

	for (i = 0; i < NEV; i++) {
		struct perf_event_mmap_page *pc = (void *)f->ring[i];

		if (!pc)
			continue;
		f->head[i] = pos;
		pc->data_head = pos;
		pc->data_tail = pos;
	}
}

/* Run @r's steps; what the calls gave into @got; their count, or -errno. */
static int run_row(const struct row *r, struct got *got, int *ngot)
{
	struct lope_overflow o[MAXOUT];
	struct fake f;
	const struct step *s;
	int n, k, max;

	*ngot = 0;
	n = fake_open(&f, r->period, r->grouped);
	for (s = r->steps; !n && s->op != END; s++) {
		if (s->op == AT)
			set_at(&f, s->ip);
		if (s->op != CALL) {
			record(&f, s);
			continue;
		}
		max = s->ip ? (int)s->ip : MAXOUT;
		n = lope_group__overflows(&f.g, s->ev, o, max);
		for (k = 0; k < n && *ngot < MAXOUT; k++, (*ngot)++) {
			got[*ngot].idx = o[k].idx;
			got[*ngot].ip = o[k].ip;
		}
		n = n < 0 ? n : 0;
	}
	fake_close(&f);
	return n;
}

static void test_rows(void)
{
	struct got got[MAXOUT];
	char why[256];
	size_t i;
	int k, n, rc, ok;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct row *r = &rows[i];

		rc = run_row(r, got, &n);
		ok = rc == 0 && n == r->nwant;
		for (k = 0; ok && k < n; k++)
			ok = got[k].idx == r->want[k].idx &&
			     got[k].ip == r->want[k].ip;
		why[0] = 0;
		for (k = 0; k < n && strlen(why) < sizeof(why) - 40; k++)
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 " %d@0x%" PRIx64, got[k].idx, got[k].ip);
		lope_check(ok, r->name,
			   "row at line %d: rc %d, %d overflows:%s", r->line,
			   rc, n, why);
	}
}

/* The budget goes down by the signals handled, whatever the samples. */
static void test_budget(void)
{
	static const uint64_t period[NEV] = { P, 0, 0 };
	struct step sample = { SAMPLE, 0, 0x10, { 0, 0, 0 } };
	struct lope_overflow o[MAXOUT];
	struct fake f;
	int i, n, rc;

	if (!lope_check(fake_open(&f, period, 1) == 0, "budget_setup",
			"out of memory"))
		return;
	for (i = 1; i <= 5; i++) {
		sample.c[0] = i * P;
		record(&f, &sample);
	}
	n = lope_group__overflows(&f.g, 0, o, MAXOUT);
	rc = lope_group__rearm(&f.g, 0, POLL_IN); /* stopped: no ioctl */
	lope_check(n == 5 && rc == 0 &&
			   f.ev[0].budget == LOPE_OVERFLOW_BUDGET - 1,
		   "budget_one_a_signal_not_one_a_sample",
		   "%d overflows, rearm %d, budget %d", n, rc,
		   (int)f.ev[0].budget);
	rc = lope_group__rearm(&f.g, 0, POLL_IN); /* a signal, no sample */
	lope_check(rc == 0 && f.ev[0].budget == LOPE_OVERFLOW_BUDGET - 2,
		   "budget_a_signal_without_a_sample_takes_one", "budget %d",
		   (int)f.ev[0].budget);
	rc = lope_group__rearm(&f.g, 0, POLL_HUP); /* stopped: no renewal */
	lope_check(rc == 0 && f.ev[0].budget == LOPE_OVERFLOW_BUDGET - 3,
		   "budget_poll_hup_takes_one_as_any_signal", "budget %d",
		   (int)f.ev[0].budget);
	f.ev[0].ring = NULL;
	f.ev[0].budget = 3;
	n = lope_group__overflows(&f.g, 0, o, MAXOUT);
	rc = lope_group__rearm(&f.g, 0, POLL_IN);
	lope_check(n == -ENOBUFS && rc == 0 && f.ev[0].budget == 2,
		   "budget_without_a_ring_one_a_signal", "%d, budget %d", n,
		   (int)f.ev[0].budget);
	fake_close(&f);
}

static void test_bad_input(void)
{
	static const uint64_t period[NEV] = { P, 0, 0 };
	struct lope_overflow o[1];
	struct fake f;
	int ok;

	if (!lope_check(fake_open(&f, period, 1) == 0, "bad_input_setup",
			"out of memory"))
		return;
	ok = lope_group__overflows(NULL, 0, o, 1) == -EINVAL &&
	     lope_group__overflows(&f.g, -1, o, 1) == -EINVAL &&
	     lope_group__overflows(&f.g, NEV, o, 1) == -EINVAL &&
	     lope_group__overflows(&f.g, 0, NULL, 1) == -EINVAL &&
	     lope_group__overflows(&f.g, 0, o, -1) == -EINVAL &&
	     lope_group__overflows(&f.g, 1, o, 1) == -ENOBUFS &&
	     lope_group__overflows(&f.g, 0, o, 0) == 0;
	lope_check(ok, "bad_input_einval_and_no_ring_enobufs",
		   "an error code differs");
	fake_close(&f);
}

/* Take and count every overflow of event @idx's ring; 0 or -errno. */
static int drain(struct lope_group *g, int idx, long *given)
{
	struct lope_overflow o[MAXOUT];
	int n;

	while ((n = lope_group__overflows(g, idx, o, MAXOUT)) > 0)
		while (n--)
			given[o[n].idx]++;
	return n;
}

static struct lope_group *kernel_g;

/* Renew the budget of the signal's event, as a handler must. */
static void rearm_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (kernel_g)
		(void)lope_group__rearm(
			kernel_g, lope_group__find_fd(kernel_g, si->si_fd),
			si->si_code);
}

/*
 * The kernel's rings: two clocks of the user domain in one group, 1 ms
 * and 2 ms, delivering their signals to a handler that only renews the
 * budget; the overflows are taken here, by a loop that asks the clock
 * for the time on every turn: a system call, in which the kernel drops
 * the clocks' expiries.  Every multiple
 * of a period that the latest sample's count had passed is handed out
 * once: between the multiples that count passed by an eighth of a period
 * (what another event's sample shows) and the one nearest it (what the
 * event's own sample shows).  Those of the time after the latest sample
 * wait for a later one.
 */
static void test_kernel(void)
{
	static const uint64_t config[2] = { PERF_COUNT_SW_TASK_CLOCK,
					    PERF_COUNT_SW_CPU_CLOCK };
	static const uint64_t period[2] = { 1000000, 2000000 };
	struct sigaction sa = { .sa_flags = SA_SIGINFO | SA_RESTART };
	struct lope_group *g = NULL;
	long given[2] = { 0, 0 };
	int i, rc = lope_group__new(&g, 0, -1, 0);
	long long t;

	for (i = 0; !rc && i < 2; i++) {
		struct perf_event_attr a = {
			.type = PERF_TYPE_SOFTWARE,
			.config = config[i],
			.exclude_kernel = 1,
			.exclude_hv = 1,
		};

		rc = lope_group__add(g, &a);
		if (rc >= 0)
			rc = lope_group__set_overflow(g, i, period[i],
						      SIGRTMIN + 2);
	}
	kernel_g = g;
	sa.sa_sigaction = rearm_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN + 2, &sa, NULL);
	if (!rc)
		rc = lope_group__open(g);
	if (!rc)
		rc = lope_group__enable(g);
	for (t = thread_ns(); !rc && thread_ns() - t < 300000000;)
		for (i = 0; !rc && i < 2; i++)
			rc = drain(g, i, given);
	if (!rc)
		rc = lope_group__disable(g, NULL);
	for (i = 0; !rc && i < 2; i++)
		rc = drain(g, i, given);
	for (i = 0; i < 2; i++) {
		uint64_t seen = rc ? 0 : g->ev[i].seen, p = period[i];
		long lo = (long)((seen - p / 8) / p),
		     hi = (long)((seen + p / 2) / p);

		lope_info("%s: the latest sample showed %" PRIu64
			  " ns; %ld overflows",
			  i ? "cpu-clock" : "task-clock", seen, given[i]);
		lope_check(!rc && seen >= p && given[i] >= lo && given[i] <= hi,
			   i ? "kernel_cpu_clock_2_ms_every_period_once" :
			       "kernel_task_clock_1_ms_every_period_once",
			   "rc %d, %ld overflows, %ld to %ld wanted", rc,
			   given[i], lo, hi);
	}
	kernel_g = NULL;
	lope_group__delete(g);
	signal(SIGRTMIN + 2, SIG_DFL);
}

/*
 * A handler's first step: @si's event in @g, the signal and a POLL_HUP
 * counted; -1 for another descriptor's signal.
 */
static int count_signal(struct lope_group *g, const siginfo_t *si,
			volatile sig_atomic_t *signals,
			volatile sig_atomic_t *hups)
{
	int idx = lope_group__find_fd(g, si->si_fd);

	if (idx >= 0) {
		(*signals)++;
		*hups += si->si_code == POLL_HUP;
	}
	return idx;
}

/* test_flood()'s: the group, and what its handlers saw. */
static struct {
	struct lope_group *g;
	long long until;  /* wall time: the handler is slow until then */
	long long period; /* the clock's, ns; the handler takes 3 */
	volatile sig_atomic_t signals, hups, sigio;
	long given[1];
} fl;

/* A handler slower than the period, as a profiler's unwinding can be:
 * the event's overflows, its budget, then 3 periods of this thread's
 * CPU; after the flood, the overflows only. */
static void slow_handler(int sig, siginfo_t *si, void *uc)
{
	int idx = count_signal(fl.g, si, &fl.signals, &fl.hups);

	(void)sig;
	(void)uc;
	if (idx < 0)
		return;
	(void)drain(fl.g, idx, fl.given);
	/* after the flood, no renewal: the event stops, the queue drains */
	if (wall_ns() >= fl.until)
		return;
	(void)lope_group__rearm(fl.g, idx, si->si_code);
	busy_ns(3 * fl.period);
}

static void sigio_handler(int sig)
{
	(void)sig;
	fl.sigio++;
}

/* The signals this user has queued, all processes (SigQ), or -1. */
static long user_sigq(void)
{
	char line[256];
	long q = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigQ:", 5))
			q = strtol(line + 5, NULL, 10);
	if (f)
		fclose(f);
	return q;
}

/*
 * A period at which the kernel never throttles a clock, in ns: twice the
 * least, which is 1 s over kernel.perf_event_max_sample_rate (a tick's
 * share of that rate is all the samples an event may take in the tick).
 * 20 us where the rate cannot be read.
 */
static long long unthrottled_period(void)
{
	int rate = read_int("/proc/sys/kernel/perf_event_max_sample_rate");

	return rate > 0 ? 2 * ((1000 * MS + rate - 1) / rate) : 20000;
}

/*
 * @g: a task-clock of the user domain overflowing every
 * unthrottled_period(), signalling @signo, opened.  0, or -errno.
 */
static int open_clock(struct lope_group **g, int signo)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int rc = lope_group__new(g, 0, -1, 0);

	if (rc >= 0)
		rc = lope_group__add(*g, &a);
	if (rc >= 0)
		rc = lope_group__set_overflow(
			*g, 0, (uint64_t)unthrottled_period(), signo);
	if (rc >= 0)
		rc = lope_group__open(*g);
	return rc;
}

/* What the flood's child saw, for its parent. */
struct flood_seen {
	int rc, signals, hups, sigio, uid;
	int drop_err; /* errno of becoming nobody, or 0 */
	long overflows, base, limit;
};

/*
 * The flood, in a child.  The event is opened as whoever runs the test
 * (its signal is routed with those credentials), then the child becomes
 * nobody where it is root: the queue that RLIMIT_SIGPENDING bounds is the
 * user's, every process of the user counts in it, and root runs the
 * whole suite and whatever else the machine does.  As nobody the queue
 * holds this flood's signals and nothing else.
 */
static void flood_child(struct flood_seen *s)
{
	struct sigaction sa = { .sa_flags = SA_SIGINFO | SA_RESTART };
	struct rlimit lim;
	int rc;

	memset(&fl, 0, sizeof(fl));
	fl.period = unthrottled_period();
	rc = open_clock(&fl.g, SIGRTMIN + 2);
	if (rc >= 0 && drop_to_nobody()) {
		s->drop_err = errno;
		rc = -errno;
	}
	s->uid = (int)getuid();
	s->base = user_sigq();
	if (rc >= 0 && (s->base < 0 || getrlimit(RLIMIT_SIGPENDING, &lim)))
		rc = -ENOENT;
	sa.sa_sigaction = slow_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN + 2, &sa, NULL);
	signal(SIGIO, sigio_handler);
	lim.rlim_cur = (rlim_t)(s->base + 3 * LOPE_OVERFLOW_BUDGET);
	if (rc >= 0 && setrlimit(RLIMIT_SIGPENDING, &lim))
		rc = -errno;
	s->limit = (long)lim.rlim_cur;
	fl.until = wall_ns() + 300 * MS;
	if (rc >= 0)
		rc = lope_group__enable(fl.g);
	while (rc >= 0 && wall_ns() < fl.until + 100 * MS)
		busy_ns(MS);
	if (rc >= 0)
		rc = lope_group__disable(fl.g, NULL);
	s->rc = rc;
	s->signals = fl.signals;
	s->hups = fl.hups;
	s->sigio = fl.sigio;
	s->overflows = fl.given[0];
}

/*
 * A clock overflowing every period with a handler that takes 3:
 * signals come faster than they are handled.  The budget must bound what
 * waits, overflows left plus signals queued, at LOPE_OVERFLOW_BUDGET (the
 * kernel stops the event at 0, POLL_HUP), not let the queue grow: the
 * queue is the user's (RLIMIT_SIGPENDING counts every process of the
 * user), and a signal that cannot be queued comes as SIGIO, which kills.
 * With the flood's limit 3 budgets above what its user had queued, no
 * SIGIO may come in 300 ms of it.
 *
 * The period is twice the kernel's least (unthrottled_period()), and the
 * flood runs as nobody, whose queue holds nothing else (flood_child()).
 * The one failure on record had neither: at the least (10 us here) and
 * as root, 489 SIGIO (CI at c039c32, Linux 6.18 guest).  At the least,
 * runs here found two causes.  A signal handled inside the budget's
 * refresh renewed the budget a second time: twice the budget in the
 * kernel (fixed in overflow.c, top_up(); test_refresh_race() holds it).
 * With that fixed, 1 run in 5 to 20 still sees the event overflow on
 * after its POLL_HUP with nothing refreshing it, and the queue fill;
 * standalone programs making the same calls did not reproduce that here,
 * and why the kernel lets the event run is not understood; a refresh
 * ends it, as a PAPI handler's renewal would (doc/design.md, "Counting
 * on, with a budget").
 */
static void test_flood(void)
{
	struct flood_seen s = { .rc = -EPIPE };
	int p[2], st = -1;
	pid_t pid = -1;

	if (RUNNING_ON_VALGRIND) {
		lope_skip("flood_waiting_signals_bounded_by_the_budget",
			  "under valgrind, which takes the signals from the "
			  "kernel and delivers them itself");
		return;
	}
	if (pipe(p) == 0) {
		fflush(stdout);
		pid = fork();
	}
	if (pid == 0) {
		close(p[0]);
		flood_child(&s);
		_exit(write(p[1], &s, sizeof(s)) == (ssize_t)sizeof(s) ? 0 : 1);
	}
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &s, sizeof(s)) != (ssize_t)sizeof(s))
			s.rc = -EPIPE;
		close(p[0]);
		waitpid(pid, &st, 0);
	}
	if (s.drop_err || s.rc == -ENOENT) {
		lope_skip("flood_waiting_signals_bounded_by_the_budget",
			  s.drop_err ? "root cannot become uid %d: %s" :
				       "no SigQ in /proc/self/status, or no "
				       "RLIMIT_SIGPENDING",
			  NOBODY, strerror(s.drop_err));
		return;
	}
	lope_info("flood: every %lld ns, %d signals handled, %d POLL_HUP, "
		  "%ld overflows, %d SIGIO; as uid %d, whose queue held %ld "
		  "before, limit %ld",
		  unthrottled_period(), s.signals, s.hups, s.overflows, s.sigio,
		  s.uid, s.base, s.limit);
	lope_check(pid > 0 && st == 0 && s.rc >= 0 && s.sigio == 0 &&
			   s.hups > 0,
		   "flood_waiting_signals_bounded_by_the_budget",
		   "child %s (status %d), rc %d, %d SIGIO, %d POLL_HUP (the "
		   "kernel stopped it at its budget)",
		   pid > 0 ? "ran" : "not started", st, s.rc, s.sigio, s.hups);
}

/* test_refresh_race()'s: the group, its signals, and its refreshes. */
static struct {
	struct lope_group *g;
	int slow;  /* the next refresh waits for a signal before it returns */
	int renew; /* the handler renews the budget (in the enable only) */
	volatile sig_atomic_t signals, hups, during;
} rr;

/*
 * The kernel's ioctl, but a refresh marked slow returns only once a
 * signal was handled (1 s at most): as when the thread is interrupted
 * on its way back from the kernel, and the event, which the refresh
 * enabled, overflows meanwhile.
 */
static int slow_refresh_ioctl(int fd, unsigned long request, unsigned long arg)
{
	int rc = lopelib_sys_kernel.ioctl(fd, request, arg);
	long long until = wall_ns() + 1000 * MS;

	if (request != PERF_EVENT_IOC_REFRESH || !rr.slow)
		return rc;
	rr.slow = 0;
	while (!rr.signals && wall_ns() < until)
		busy_ns(10000);
	rr.during = rr.signals;
	return rc;
}

static void race_handler(int sig, siginfo_t *si, void *uc)
{
	int idx = count_signal(rr.g, si, &rr.signals, &rr.hups);

	(void)sig;
	(void)uc;
	if (idx >= 0 && rr.renew)
		(void)lope_group__rearm(rr.g, idx, si->si_code);
}

/*
 * A signal that comes while the budget is being renewed: the refresh
 * enables the event, and where its first overflow comes before the
 * refresh's ioctl returns, the handler runs at that return, before the
 * engine's next instruction, and renews the budget itself.  The kernel
 * must then hold one budget, not two: with no renewal after the enable,
 * the event stops (POLL_HUP) after LOPE_OVERFLOW_BUDGET overflows at
 * most, so at most that many signals come.  A 10 us clock found it, and
 * the hang it led to: twice the budget queued, then more, until the
 * queue was full and SIGIO came at every overflow.
 */
static void test_refresh_race(void)
{
	static const char name[] = "signal_in_the_refresh_keeps_one_budget";
	struct sigaction sa = { .sa_flags = SA_SIGINFO | SA_RESTART };
	struct lopelib_sys slow = lopelib_sys_kernel;
	long long until;
	int rc;

	if (RUNNING_ON_VALGRIND) {
		lope_skip(name, "under valgrind, which delivers the signals "
				"when it chooses");
		return;
	}
	memset(&rr, 0, sizeof(rr));
	slow.ioctl = slow_refresh_ioctl;
	sa.sa_sigaction = race_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN + 3, &sa, NULL);
	rc = open_clock(&rr.g, SIGRTMIN + 3);
	lopelib_sys__set(&slow);
	rr.slow = rr.renew = 1;
	if (rc >= 0)
		rc = lope_group__enable(rr.g);
	rr.renew = 0;
	lopelib_sys__set(NULL);
	/* no renewal now: the event runs to its limit and stops */
	until = wall_ns() + 2000 * MS;
	while (rc >= 0 && !rr.hups && wall_ns() < until)
		busy_ns(MS);
	busy_ns(MS);
	lope_info("refresh race: %d signal(s) in the enable, %d signals, %d "
		  "POLL_HUP",
		  (int)rr.during, (int)rr.signals, (int)rr.hups);
	lope_check(rc >= 0 && rr.during > 0 && rr.hups > 0 &&
			   rr.signals <= LOPE_OVERFLOW_BUDGET,
		   name,
		   "rc %d, %d signal(s) in the enable, then %d signals up to "
		   "POLL_HUP (at most %d: the budget)",
		   rc, (int)rr.during, (int)rr.signals, LOPE_OVERFLOW_BUDGET);
	if (rc >= 0)
		(void)lope_group__disable(rr.g, NULL);
	lope_group__delete(rr.g);
	rr.g = NULL;
	signal(SIGRTMIN + 3, SIG_DFL);
}

int main(void)
{
	test_rows();
	test_budget();
	test_bad_input();
	test_kernel();
	test_flood();
	test_refresh_race();
	return lope_done();
}
