/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's user-space read on real hardware counters: instructions
 * and cycles of the calling thread, opened as one group.  Where no
 * machine here has a PMU, the emulated arm64 machines of
 * ctests/guest/test_arm64.sh run it; elsewhere each case SKIPs with the
 * reason (no such events, no user access, one CPU).
 *
 *  - path: with the page allowing it (cap_user_rdpmc and an index), the
 *    engine reads in user space;
 *  - bracketed: 1000 reads, each between a read(2) of the same counter
 *    just before and just after it, none smaller than the one before;
 *  - no system call: 100 reads and resets make no read(2) nor ioctl(2)
 *    (counted through the engine's system-call table);
 *  - past the overflow: the kernel starts a counting event's counter its
 *    maximum period below the wrap and folds the counter into the page's
 *    offset at each overflow interrupt.  Where that period is 2^31 or
 *    less (32-bit counters: QEMU's cortex-a57 and cortex-a72 have no
 *    64-bit event counters; Intel's without full-width writes), the
 *    distance to the wrap, read off the counter itself, plus 2^28
 *    instructions crosses it, read every 2^26, each read bracketed and in
 *    order.  With a 64-bit counter, or full-width writes (a period of
 *    2^47 - 1: most Intel and every AMD CPU), the wrap is out of reach:
 *    a SKIP saying so;
 *  - migration: 200 times, pinned to the other CPU then read as above:
 *    the kernel reprograms the counters on the new CPU and rewrites the
 *    page; a read mixing old and new shows up out of order (needs 2 CPUs);
 *  - taken away (last: it disables the group): where a read the page
 *    allowed can fault (riscv64), the race of a read with the kernel
 *    taking the counter away, made certain: the leader's index read,
 *    the group disabled, then the counter read with that index faults
 *    and the engine's guard (src/guard.c) turns it into a failed read,
 *    where without the guard the test dies of SIGILL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lope.h"
#include "mmap_read.h"
#include "sys.h"
#include "report.h"

#define NEV 2
#define NREADS 1000
#define NRESETS 100
#define MOVES 200
#define WRAP_REACH (1ull << 31)
#define WRAP_PAST (1ull << 28)
#define WRAP_CHUNK (1ull << 26)

struct sample {
	uint64_t val[NEV];
};

/* What the reads of one case saw. */
struct tally {
	long reads, user, bad;
	char first_bad[200];
	struct sample prev;
};

static struct lope_group *g;
static volatile struct perf_event_mmap_page *page; /* the leader's */

/* The group's values with one read(2) of its leader; 0 or -errno. */
static int read_syscall(struct sample *s)
{
	uint64_t buf[3 + NEV];
	ssize_t n = read(lope_group__fd(g, 0), buf, sizeof(buf));
	int i;

	if (n < 0)
		return -errno;
	/* PERF_FORMAT_GROUP with both times: nr, enabled, running, values */
	if (n != (ssize_t)sizeof(buf) || buf[0] != NEV)
		return -EIO;
	for (i = 0; i < NEV; i++)
		s->val[i] = buf[3 + i];
	return 0;
}

/*
 * read(2), the engine, read(2): the engine's values must lie between the
 * two and not below the previous read's.  0 or -errno.
 */
static int bracketed_read(struct tally *t, const char *where)
{
	struct sample before, user, after;
	struct lope_counts c[NEV];
	int i, err;

	err = read_syscall(&before);
	if (!err)
		err = lope_group__read_raw(g, c);
	if (!err)
		t->user += lope_group__last_path(g) == LOPE_PATH_RDPMC;
	if (!err)
		err = read_syscall(&after);
	if (err)
		return err;
	for (i = 0; i < NEV; i++)
		user.val[i] = c[i].val;
	for (i = 0; i < NEV; i++)
		if (user.val[i] < before.val[i] || user.val[i] > after.val[i] ||
		    user.val[i] < t->prev.val[i]) {
			if (!t->bad++)
				snprintf(t->first_bad, sizeof(t->first_bad),
					 "%s, event %d: previous %" PRIu64
					 ", read(2) %" PRIu64 ", user %" PRIu64
					 ", read(2) %" PRIu64,
					 where, i, t->prev.val[i],
					 before.val[i], user.val[i],
					 after.val[i]);
			break;
		}
	t->prev = user;
	t->reads++;
	return 0;
}

static void judge(const char *name, const struct tally *t, int err)
{
	if (err)
		lope_fail(name, "read %ld: %s", t->reads, strerror(-err));
	else if (t->user != t->reads)
		lope_fail(name, "%ld of %ld reads in user space", t->user,
			  t->reads);
	else
		lope_check(!t->bad, name, "%ld of %ld reads out of order: %s",
			   t->bad, t->reads, t->first_bad);
}

/* About @n instructions of work the compiler cannot remove. */
static void work(uint64_t n)
{
	volatile uint64_t sink = 0;
	uint64_t i;

	for (i = 0; i < n / 4; i++)
		sink += i;
}

/*
 * Instructions and cycles of this thread, one group, counting; stopped in
 * the kernel (LOPE_KERNEL_STOP), as the last case needs its counters
 * really taken away, not left running by a lazy stop.
 */
static int open_group(void)
{
	static const uint64_t config[NEV] = { PERF_COUNT_HW_INSTRUCTIONS,
					      PERF_COUNT_HW_CPU_CYCLES };
	struct perf_event_attr a;
	int i, err = lope_group__new(&g, 0, -1, LOPE_KERNEL_STOP);

	for (i = 0; !err && i < NEV; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_HARDWARE;
		a.config = config[i];
		a.exclude_hv = 1;
		err = lope_group__add(g, &a);
		err = err < 0 ? err : 0;
	}
	if (!err)
		err = lope_group__open(g);
	return err ? err : lope_group__enable(g);
}

/* A second mapping of the leader's page, to see what it says; or NULL. */
static volatile struct perf_event_mmap_page *map_leader(void)
{
	void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ,
		       MAP_SHARED, lope_group__fd(g, 0), 0);

	return p == MAP_FAILED ? NULL : p;
}

static void test_path(const char *name)
{
	struct lope_counts c[NEV];
	int err = lope_group__read_raw(g, c);

	if (err) {
		lope_fail(name, "read: %s", strerror(-err));
		return;
	}
	lope_info("leader's page: cap_user_rdpmc %d, index %u, pmc_width %u; "
		  "engine path %d (1: user space, 2: read(2)), %d of %d "
		  "mapped",
		  page ? (int)page->cap_user_rdpmc : -1, page ? page->index : 0,
		  page ? page->pmc_width : 0, (int)lope_group__last_path(g),
		  lope_group__nr_mapped(g), NEV);
	lope_check(lope_group__last_path(g) == LOPE_PATH_RDPMC, name,
		   "the page allows user-space reads, the engine took path %d",
		   (int)lope_group__last_path(g));
}

static void test_bracketed(const char *name)
{
	struct tally t = { 0 };
	int i, err = 0;

	for (i = 0; !err && i < NREADS; i++) {
		work(1000);
		err = bracketed_read(&t, "read");
	}
	judge(name, &t, err);
}

static unsigned long nr_calls;

static ssize_t counting_read(int fd, void *buf, size_t len)
{
	nr_calls++;
	return lopelib_sys_kernel.read(fd, buf, len);
}

static int counting_ioctl(int fd, unsigned long req, unsigned long arg)
{
	nr_calls++;
	return lopelib_sys_kernel.ioctl(fd, req, arg);
}

static void test_no_syscall(const char *name)
{
	struct lopelib_sys counting = lopelib_sys_kernel;
	int64_t v[NEV];
	int i, err = 0;

	counting.read = counting_read;
	counting.ioctl = counting_ioctl;
	nr_calls = 0;
	lopelib_sys__set(&counting);
	for (i = 0; !err && i < NRESETS; i++) {
		work(1000);
		err = lope_group__read(g, v);
		if (!err)
			err = lope_group__reset(g);
	}
	lopelib_sys__set(NULL);
	if (err)
		lope_fail(name, "pair %d: %s", i, strerror(-err));
	else
		lope_check(nr_calls == 0, name,
			   "%lu read(2)/ioctl(2) calls for %d reads and "
			   "resets",
			   nr_calls, NRESETS);
}

static void test_wrap(const char *name)
{
	struct tally t = { 0 };
	uint64_t offset0, pmc = 0, left, target;
	uint32_t idx;
	int64_t raw;
	int err, moves = 0;

	if (!page || page->pmc_width >= 64) {
		lope_skip(name,
			  "the counter is %u bits wide: no "
			  "overflow interrupt within reach",
			  page ? page->pmc_width : 0);
		return;
	}
	offset0 = (uint64_t)page->offset;
	err = bracketed_read(&t, "start");
	idx = page->index;
	if (!err && (!idx || !lopelib_hw_reader.pmc(NULL, idx - 1, &pmc))) {
		lope_skip(name, "the page gives no counter to read");
		return;
	}
	/* the events left before the counter wraps */
	raw = lopelib_sign_extend(pmc, page->pmc_width);
	left = raw < 0 ? (uint64_t)-raw :
			 (1ull << page->pmc_width) - (uint64_t)raw;
	if (!err && left > WRAP_REACH) {
		lope_skip(name,
			  "the kernel started the %u-bit counter %" PRIu64
			  " events before its wrap (a maximum period past "
			  "2^31: full-width writes): no overflow interrupt "
			  "within reach",
			  page->pmc_width, left);
		return;
	}
	target = t.prev.val[0] + left + WRAP_PAST;
	while (!err && t.prev.val[0] < target) {
		work(WRAP_CHUNK);
		if ((uint64_t)page->offset != offset0) {
			offset0 = (uint64_t)page->offset;
			moves++;
		}
		err = bracketed_read(&t, "long count");
	}
	lope_info("long count: %" PRIu64 " instructions in %ld reads, the "
		  "page's offset moved %d times (overflow interrupts)",
		  t.prev.val[0], t.reads, moves);
	if (!err && moves == 0) {
		lope_fail(name,
			  "the page's offset never moved over "
			  "%" PRIu64 " events of a %u-bit counter",
			  t.prev.val[0], page->pmc_width);
		return;
	}
	judge(name, &t, err);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void test_migrate(const char *name)
{
	struct tally t = { 0 };
	int i, err = 0, off_target = 0;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		lope_skip(name, "needs 2 online CPUs, this "
				"machine has 1");
		return;
	}
	for (i = 0; !err && i < MOVES; i++) {
		if (pin(i % 2)) {
			err = -errno;
			break;
		}
		off_target += sched_getcpu() != i % 2;
		err = bracketed_read(&t, i % 2 ? "on cpu 1" : "on cpu 0");
	}
	pin(0);
	if (!err && off_target) {
		lope_fail(name,
			  "not on the CPU pinned to after %d "
			  "of %d moves",
			  off_target, MOVES);
		return;
	}
	judge(name, &t, err);
}

static void test_taken_away(const char *name)
{
	uint32_t idx = page ? page->index : 0;
	uint64_t v = 0;
	bool ok;
	int err;

	if (!LOPE_ARCH_READ_SIGNAL) {
		lope_skip(name,
			  "on %s a counter read the page allowed cannot fault "
			  "once the kernel takes the counter away",
			  LOPE_ARCH_NAME);
		return;
	}
	if (!idx) {
		lope_skip(name, "no second mapping of the leader's page");
		return;
	}
	err = lope_group__disable(g, NULL);
	if (err) {
		lope_fail(name, "disable: %s", strerror(-err));
		return;
	}
	ok = lopelib_hw_reader.pmc(NULL, idx - 1, &v);
	lope_check(!ok && page->index == 0, name,
		   "counter %u read %s (value %" PRIu64 ") after the disable, "
		   "the page's index now %u: want a failed read and index 0",
		   idx - 1, ok ? "succeeded" : "failed", v, page->index);
}

/* The cases, in the order they run; each is told its name. */
static const struct {
	const char *name;
	void (*run)(const char *name);
} cases[] = {
	{ "hw_read_user_space_path_where_the_page_allows_it", test_path },
	{ "hw_read_1000_reads_between_read_2_before_and_after_in_order",
	  test_bracketed },
	{ "hw_read_reads_and_resets_make_no_system_call", test_no_syscall },
	{ "hw_read_a_counter_read_past_its_overflow_interrupts", test_wrap },
	{ "hw_read_a_reader_moved_between_2_cpus_200_times", test_migrate },
	{ "hw_read_a_counter_taken_away_after_its_index_was_read_faults_"
	  "and_the_guard_makes_it_a_failed_read",
	  test_taken_away },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static void skip_all(const char *why)
{
	size_t i;

	for (i = 0; i < NCASES; i++)
		lope_skip(cases[i].name, "%s", why);
}

int main(void)
{
	char why[200];
	size_t i;
	int err = open_group();

	if (err) {
		snprintf(why, sizeof(why),
			 "no hardware instructions and cycles events to open "
			 "here: %s",
			 strerror(-err));
		skip_all(why);
		lope_group__delete(g);
		return lope_done();
	}
	page = map_leader();
	if (page && (!page->cap_user_rdpmc || !page->index)) {
		snprintf(why, sizeof(why),
			 "the kernel grants no user-space reads here: page "
			 "cap_user_rdpmc %d, index %u",
			 (int)page->cap_user_rdpmc, page->index);
		skip_all(why);
	} else {
		for (i = 0; i < NCASES; i++)
			cases[i].run(cases[i].name);
	}
	if (page)
		munmap((void *)page, (size_t)sysconf(_SC_PAGESIZE));
	lope_group__delete(g);
	return lope_done();
}
