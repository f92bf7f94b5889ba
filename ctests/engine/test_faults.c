/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection through the engine's system-call table: every failure
 * the kernel can give comes back as the documented -errno or a correct
 * fall-back, and no descriptor or mapping is left behind.
 *
 * Changing a group (src/change.c): lope_group__change of an open group's
 * target, flags, attributes and an overflow period, accepted and refused
 * (an open failed by the table, or an attribute the kernel itself
 * refuses), and lope_group__replace.  A change never holds the old and
 * the new descriptors at once; a refused one gives the group back open
 * with its old settings and its values, one whose reopen fails too
 * leaves it closed with its old settings; a running group, a bad change
 * and overflow with inherit are refused before anything is closed.
 *
 * The invariants of readiness and of the lazy stop (group_layout.h,
 * lopelib_group__check()): silent through a group's life, an abort for each
 * one broken on purpose (in a child).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attrs.h"
#include "clock.h"
#include "group.h"
#include "lope.h"
#include "proc.h"
#include "sys.h"
#include "report.h"

/* Which call fails, on which occurrence (1-based), with which errno. */
enum call { C_OPEN, C_IOCTL, C_READ, C_MMAP };
static struct {
	enum call call;
	int nth; /* fail the nth call of that kind; 0: never */
	int err;
	int times; /* how many calls fail from the nth on */
	int seen[4];
	int peak; /* the most perf descriptors open when an open was made */
} inj;

static int fails(enum call c)
{
	int n = ++inj.seen[c];

	if (inj.call != c || inj.nth == 0 || n < inj.nth ||
	    n >= inj.nth + inj.times)
		return 0;
	errno = inj.err;
	return 1;
}

static int f_open(struct perf_event_attr *a, pid_t p, int cpu, int gfd,
		  unsigned long fl)
{
	int n = perf_fd_count();

	if (n > inj.peak)
		inj.peak = n;
	return fails(C_OPEN) ?
		       -1 :
		       lopelib_sys_kernel.perf_event_open(a, p, cpu, gfd, fl);
}

static int f_ioctl(int fd, unsigned long req, unsigned long arg)
{
	return fails(C_IOCTL) ? -1 : lopelib_sys_kernel.ioctl(fd, req, arg);
}

static ssize_t f_read(int fd, void *buf, size_t len)
{
	return fails(C_READ) ? -1 : lopelib_sys_kernel.read(fd, buf, len);
}

static void *f_mmap(size_t len, int prot, int flags, int fd)
{
	return fails(C_MMAP) ? MAP_FAILED :
			       lopelib_sys_kernel.mmap(len, prot, flags, fd);
}

/* The kernel's table but for the calls above (main() fills it). */
static struct lopelib_sys faulty;

static void inject(enum call c, int nth, int err, int times)
{
	memset(&inj, 0, sizeof(inj));
	inj.call = c;
	inj.nth = nth;
	inj.err = err;
	inj.times = times;
}

/* msr/tsc is mappable (not a software event) where the msr PMU exists. */
static int tsc_attr(struct perf_event_attr *a)
{
	unsigned int type, config;
	FILE *f = fopen("/sys/bus/event_source/devices/msr/type", "r");
	int ok;

	if (!f)
		return 0;
	ok = fscanf(f, "%u", &type) == 1;
	fclose(f);
	f = fopen("/sys/bus/event_source/devices/msr/events/tsc", "r");
	if (!f)
		return 0;
	ok = ok && fscanf(f, "event=%x", &config) == 1;
	fclose(f);
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->config = config;
	return ok;
}

/* [msr/tsc,] the software events, added but not opened. */
static struct lope_group *make(int with_tsc)
{
	struct perf_event_attr a[1 + SW_ATTRS];
	struct lope_group *g;
	int i, n = with_tsc && tsc_attr(&a[0]);

	sw_attrs(&a[n], SW_ATTRS);
	n += SW_ATTRS;
	if (lope_group__new(&g, 0, -1, 0))
		return NULL;
	for (i = 0; i < n; i++)
		lope_group__add(g, &a[i]);
	return g;
}

static const struct {
	int line;
	const char *name;
	enum call call;
	int nth, err;
	int expect; /* what lope_group__open returns */
} open_rows[] = {
	{ __LINE__, "open_emfile_on_the_2nd_event", C_OPEN, 2, EMFILE,
	  -EMFILE },
	{ __LINE__, "open_eacces_paranoid_on_the_1st", C_OPEN, 1, EACCES,
	  -EACCES },
	{ __LINE__, "open_enoent_on_the_3rd", C_OPEN, 3, ENOENT, -ENOENT },
	{ __LINE__, "open_eopnotsupp_on_the_2nd", C_OPEN, 2, EOPNOTSUPP,
	  -EOPNOTSUPP },
	{ __LINE__, "open_ebusy_on_the_1st", C_OPEN, 1, EBUSY, -EBUSY },
	{ __LINE__, "open_a_failed_mmap_is_no_failure", C_MMAP, 1, EPERM, 0 },
};

static void open_faults(void)
{
	size_t i;

	for (i = 0; i < sizeof(open_rows) / sizeof(open_rows[0]); i++) {
		int fd0 = fd_count(), map0 = perf_maps_count(), ret;
		struct lope_group *g = make(1);
		char name[160];

		inject(open_rows[i].call, open_rows[i].nth, open_rows[i].err,
		       1);
		ret = g ? lope_group__open(g) : -ENOMEM;
		inject(C_OPEN, 0, 0, 0);
		lope_check(ret == open_rows[i].expect, open_rows[i].name,
			   "row %d: returned %d, expected %d",
			   open_rows[i].line, ret, open_rows[i].expect);
		if (ret == 0)
			lope_group__close(g);
		lope_name(name, sizeof(name), "%s: nothing leaked",
			  open_rows[i].name);
		lope_check(fd_count() == fd0 && perf_maps_count() == map0, name,
			   "row %d: leaked %d descriptors, %d mappings",
			   open_rows[i].line, fd_count() - fd0,
			   perf_maps_count() - map0);
		lope_name(name, sizeof(name), "%s: reopens without the fault",
			  open_rows[i].name);
		ret = lope_group__open(g);
		lope_check(ret == 0, name, "row %d: reopen returned %d",
			   open_rows[i].line, ret);
		lope_group__delete(g);
	}
}

/* EINTR is retried; other read/ioctl errors come back as -errno. */
static void runtime_faults(void)
{
	struct lope_group *g = make(0);
	int64_t v[4], w[4];
	int ret;

	if (!g || lope_group__open(g) || lope_group__enable(g)) {
		lope_fail("runtime_faults", "cannot set up a group");
		lope_group__delete(g);
		return;
	}
	busy_ns(5 * MS);
	inject(C_READ, 1, EINTR, 2);
	ret = lope_group__read(g, v);
	lope_check(ret == 0 && inj.seen[C_READ] == 3 && v[0] > 0,
		   "read_eintr_twice_is_retried",
		   "returned %d after %d calls, task-clock %lld", ret,
		   inj.seen[C_READ], (long long)v[0]);
	inject(C_READ, 1, EIO, 1);
	lope_check(lope_group__read(g, v) == -EIO, "read_eio_comes_back",
		   "wrong return");
	inject(C_READ, 0, 0, 0);
	lope_check(lope_group__read(g, w) == 0 && w[0] >= v[0],
		   "read_works_again_after_the_fault_value_monotonic",
		   "%lld then %lld", (long long)v[0], (long long)w[0]);
	inject(C_IOCTL, 1, EBUSY, 1);
	lope_check(lope_group__enable(g) == -EBUSY,
		   "ioctl_ebusy_on_enable_comes_back", "wrong return");
	busy_ns(5 * MS); /* no recent sample: the reset must read */
	inject(C_READ, 1, EAGAIN, 1);
	lope_check(lope_group__reset(g) == -EAGAIN &&
			   lope_group__read(g, w) == 0 && w[0] >= v[0],
		   "reset_a_failed_sample_keeps_the_old_bases",
		   "reset did not fail cleanly");
	inject(C_READ, 0, 0, 0);
	lope_group__delete(g);
}

/*
 * A one-event group's reset reads straight into its event (not through
 * the group's buffer): EINTR is retried there too, and any other error
 * keeps the old bases, with no second read.
 */
static void one_event_reset_faults(void)
{
	struct perf_event_attr a;
	struct lope_group *g = NULL;
	int64_t v[1] = { -1 }, w[1] = { -1 };
	int ret, reads;

	sw_attrs(&a, 1); /* task-clock: this thread's CPU time, in ns */
	if (lope_group__new(&g, 0, -1, 0) || lope_group__add(g, &a) < 0 ||
	    lope_group__open(g) || lope_group__enable(g)) {
		lope_fail("one_event_reset_faults", "cannot set up a group");
		lope_group__delete(g);
		return;
	}
	busy_ns(5 * MS); /* no recent sample: the reset must read */
	inject(C_READ, 1, EINTR, 2);
	ret = lope_group__reset(g);
	reads = inj.seen[C_READ];
	inject(C_READ, 0, 0, 0);
	lope_check(ret == 0 && reads == 3 && lope_group__read(g, v) == 0 &&
			   v[0] >= 0 && v[0] < 5 * MS,
		   "one_event_reset_eintr_twice_is_retried",
		   "returned %d after %d reads, then %lld ns (before: 5 ms)",
		   ret, reads, (long long)v[0]);
	busy_ns(5 * MS); /* counted unless the failed reset took new bases */
	inject(C_READ, 1, EAGAIN, 1);
	ret = lope_group__reset(g);
	reads = inj.seen[C_READ];
	inject(C_READ, 0, 0, 0);
	lope_check(
		ret == -EAGAIN && reads == 1 && lope_group__read(g, w) == 0 &&
			w[0] >= v[0] + 5 * MS / 2,
		"one_event_reset_a_failed_read_keeps_the_old_bases",
		"returned %d after %d reads, then %lld ns (%lld before 5 ms more)",
		ret, reads, (long long)w[0], (long long)v[0]);
	lope_group__delete(g);
}

/* With mmap refused, a mappable set reads the right values via read(2). */
static void mmap_fallback(void)
{
	struct perf_event_attr a;
	struct lope_group *g;
	int64_t v[4];
	int ret;

	if (!tsc_attr(&a)) {
		lope_skip("mmap_failure_read_2_fall_back",
			  "no mappable event here (msr PMU with tsc missing)");
		return;
	}
	g = make(1);
	inject(C_MMAP, 1, EPERM, 100);
	ret = g ? lope_group__open(g) : -1;
	inject(C_MMAP, 0, 0, 0);
	if (ret == 0 && lope_group__enable(g) == 0) {
		busy_ns(5 * MS);
		ret = lope_group__read(g, v);
	}
	lope_check(ret == 0 && lope_group__nr_mapped(g) == 0 && v[0] > 0 &&
			   v[1] > 0 &&
			   lope_group__last_path(g) == LOPE_PATH_READ,
		   "mmap_failure_read_2_fall_back_with_correct_values",
		   "ret %d, mapped %d, tsc %lld, task-clock %lld", ret,
		   lope_group__nr_mapped(g), (long long)v[0], (long long)v[1]);
	lope_group__delete(g);
}

/*
 * lope_group__replace: the old group is closed before the new one opens,
 * so a set never needs more descriptors than it will hold; a new group
 * the kernel refuses gives the old one back, open, with its values.
 */
static void replace_faults(void)
{
	static const int64_t w[SW_ATTRS] = { 12345, 7, 3 };
	struct lope_group *g = make(0), *next = make(0);
	int64_t v[SW_ATTRS] = { 0, 0, 0 };
	int fd0 = perf_fd_count(), ret = -ENOMEM, i, same = 1;

	if (g && next && !(ret = lope_group__open(g)) &&
	    !(ret = lope_group__write(g, w))) {
		inject(C_OPEN, 2, EMFILE, 1);
		ret = lope_group__replace(g, next);
		inject(C_OPEN, 0, 0, 0);
	}
	if (lope_group__read(g, v))
		same = 0;
	for (i = 0; i < SW_ATTRS; i++)
		same = same && v[i] == w[i];
	lope_check(
		ret == -EMFILE && lope_group__fd(g, 0) >= 0 && same &&
			perf_fd_count() == fd0 + SW_ATTRS,
		"replace_refused_gives_the_old_group_back_with_its_values",
		"returned %d, old group's fd %d, values %lld %lld %lld (wrote %lld %lld %lld), %d perf descriptors (want %d)",
		ret, lope_group__fd(g, 0), (long long)v[0], (long long)v[1],
		(long long)v[2], (long long)w[0], (long long)w[1],
		(long long)w[2], perf_fd_count() - fd0, SW_ATTRS);
	inject(C_OPEN, 0, 0, 0);
	ret = lope_group__replace(g, next);
	lope_check(
		ret == 0 && lope_group__fd(g, 0) < 0 &&
			lope_group__fd(next, 0) >= 0 &&
			inj.peak - fd0 < SW_ATTRS &&
			perf_fd_count() == fd0 + SW_ATTRS,
		"replace_never_holds_both_groups",
		"returned %d, at most %d perf descriptors before an open (want under %d), %d after (want %d)",
		ret, inj.peak - fd0, SW_ATTRS, perf_fd_count() - fd0, SW_ATTRS);
	lope_group__delete(g);
	lope_group__delete(next);
}

/* lope_change edits: the hypervisor excluded (any kernel takes it), an
 * unknown PMU type (every kernel refuses it: -ENOENT). */
static void exclude_hv(struct perf_event_attr *a, int idx, void *arg)
{
	(void)idx;
	(void)arg;
	a->exclude_hv = 1;
}

static void unknown_pmu(struct perf_event_attr *a, int idx, void *arg)
{
	(void)arg;
	if (idx == 1)
		a->type = 0x7ffffff0;
}

/* The overflow signal of the changes' periods (1 s of CPU time: none
 * comes while the test runs); a constant, for the rows' initialisers. */
#define OVF_SIG SIGUSR2

/* What lope_group__change may change, as the group holds it. */
struct settings {
	pid_t pid;
	int cpu;
	unsigned int flags;
	struct perf_event_attr attr[SW_ATTRS];
	uint64_t period[SW_ATTRS];
	int signo[SW_ATTRS];
};

static void settings_of(const struct lope_group *g, struct settings *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->pid = g->pid;
	s->cpu = g->cpu;
	s->flags = g->flags;
	for (i = 0; i < SW_ATTRS && i < g->nr; i++) {
		s->attr[i] = g->ev[i].attr;
		s->period[i] = g->ev[i].period;
		s->signo[i] = g->ev[i].signo;
	}
}

#define CHANGE_TARGET_SELF                    \
	.what = LOPE_CHANGE_TARGET, .pid = 0, \
	.cpu = 0 /* this thread on cpu 0 */
#define CHANGE_SEPARATE .what = LOPE_CHANGE_FLAGS, .flags = LOPE_SEPARATE
#define CHANGE_EDIT .what = LOPE_CHANGE_ATTR, .edit = exclude_hv
#define CHANGE_OVERFLOW                                               \
	.what = LOPE_CHANGE_OVERFLOW, .idx = 1, .period = 1000000000, \
	.signo = OVF_SIG

/*
 * A change of an open group with values written: @expect is what it
 * returns (the row's fault, or the kernel's own refusal).
 */
static const struct change_row {
	int line;
	const char *name;
	struct lope_change ch;
	enum call call;
	int nth, err, times, expect;
} change_rows[] = {
	{ __LINE__,
	  "change_target_accepted",
	  { CHANGE_TARGET_SELF },
	  C_OPEN,
	  0,
	  0,
	  0,
	  0 },
	{ __LINE__,
	  "change_flags_separate_accepted",
	  { CHANGE_SEPARATE },
	  C_OPEN,
	  0,
	  0,
	  0,
	  0 },
	{ __LINE__,
	  "change_attr_edit_accepted",
	  { CHANGE_EDIT },
	  C_OPEN,
	  0,
	  0,
	  0,
	  0 },
	{ __LINE__,
	  "change_overflow_period_accepted",
	  { CHANGE_OVERFLOW },
	  C_OPEN,
	  0,
	  0,
	  0,
	  0 },
	{ __LINE__,
	  "change_target_emfile_on_the_1st_open",
	  { CHANGE_TARGET_SELF },
	  C_OPEN,
	  1,
	  EMFILE,
	  1,
	  -EMFILE },
	{ __LINE__,
	  "change_flags_eacces_on_the_2nd_open",
	  { CHANGE_SEPARATE },
	  C_OPEN,
	  2,
	  EACCES,
	  1,
	  -EACCES },
	{ __LINE__,
	  "change_attr_edit_einval_on_the_3rd_open",
	  { CHANGE_EDIT },
	  C_OPEN,
	  3,
	  EINVAL,
	  1,
	  -EINVAL },
	{ __LINE__,
	  "change_overflow_emfile_on_the_2nd_open",
	  { CHANGE_OVERFLOW },
	  C_OPEN,
	  2,
	  EMFILE,
	  1,
	  -EMFILE },
	{ __LINE__,
	  "change_attr_the_kernel_refuses_unknown_pmu_enoent",
	  { .what = LOPE_CHANGE_ATTR, .edit = unknown_pmu },
	  C_OPEN,
	  0,
	  0,
	  0,
	  -ENOENT },
	{ __LINE__,
	  "change_everything_at_once_emfile_on_the_3rd_open",
	  { .what = LOPE_CHANGE_TARGET | LOPE_CHANGE_FLAGS | LOPE_CHANGE_ATTR |
		    LOPE_CHANGE_OVERFLOW,
	    .pid = 0,
	    .cpu = 0,
	    .flags = LOPE_SEPARATE,
	    .edit = exclude_hv,
	    .idx = 2,
	    .period = 1000000000,
	    .signo = OVF_SIG },
	  C_OPEN,
	  3,
	  EMFILE,
	  1,
	  -EMFILE },
	/* The reopen of the old settings fails too (another thread took the
	 * descriptors): the group stays closed, its old settings kept. */
	{ __LINE__,
	  "change_refused_and_reopen_refused_leaves_it_closed",
	  { CHANGE_SEPARATE },
	  C_OPEN,
	  1,
	  EMFILE,
	  100,
	  -EMFILE },
};

/* The settings @ch gives @before (what an accepted change must leave). */
static void changed(const struct settings *before, const struct lope_change *ch,
		    struct settings *want)
{
	unsigned int w = ch->what;
	int i;

	*want = *before;
	want->pid = w & LOPE_CHANGE_TARGET ? ch->pid : before->pid;
	want->cpu = w & LOPE_CHANGE_TARGET ? ch->cpu : before->cpu;
	want->flags = w & LOPE_CHANGE_FLAGS ? ch->flags : before->flags;
	for (i = 0; (w & LOPE_CHANGE_ATTR) && i < SW_ATTRS; i++)
		ch->edit(&want->attr[i], i, ch->arg);
	if (!(w & LOPE_CHANGE_OVERFLOW))
		return;
	want->period[ch->idx] = ch->period;
	want->signo[ch->idx] = ch->signo;
}

/* @g, open with @w written, reads back exactly @w; "" or why not. */
static const char *values_kept(struct lope_group *g, const int64_t *w)
{
	int64_t v[SW_ATTRS];
	int i;

	if (lope_group__read(g, v))
		return "it cannot be read";
	for (i = 0; i < SW_ATTRS; i++)
		if (v[i] != w[i])
			return "its values changed";
	return "";
}

/* Started after the change, its task-clock counts; "" or why not. */
static const char *still_counts(struct lope_group *g)
{
	int64_t v[SW_ATTRS];

	if (lope_group__reset(g) || lope_group__enable(g))
		return "it does not start";
	busy_ns(2 * MS);
	if (lope_group__disable(g, v))
		return "it does not stop";
	return v[0] > 0 ? "" : "its task-clock did not count";
}

static int pinned_cpu;

/* @ch with the cpu this thread is pinned to as its target's. */
static struct lope_change pinned(const struct lope_change *ch)
{
	struct lope_change c = *ch;

	if (c.what & LOPE_CHANGE_TARGET)
		c.cpu = pinned_cpu;
	return c;
}

static void change_row(const struct change_row *r)
{
	const struct lope_change ch = pinned(&r->ch);
	static const int64_t w[SW_ATTRS] = { 12345, 7, 3 };
	struct settings before, after, want;
	struct lope_group *g = make(0);
	int fd0 = perf_fd_count(), ret = -ENOMEM, open, same;
	const char *why = "cannot set up the group";

	if (g && !(ret = lope_group__open(g)) &&
	    !(ret = lope_group__write(g, w))) {
		settings_of(g, &before);
		inject(r->call, r->nth, r->err, r->times);
		ret = lope_group__change(g, &ch);
		inject(C_OPEN, 0, 0, 0);
		settings_of(g, &after);
		changed(&before, &ch, &want);
		open = lope_group__fd(g, 0) >= 0;
		same = !memcmp(&after, r->expect ? &before : &want,
			       sizeof(after));
		if (ret != r->expect)
			why = "wrong return";
		else if (!same)
			why = r->expect ? "the old settings are not back" :
					  "the new settings are not there";
		else if (r->times > 1)
			why = open ? "open after both opens failed" : "";
		else if (!open)
			why = "left closed";
		else if (inj.peak - fd0 >= SW_ATTRS)
			why = "the old and new descriptors were open at once";
		else if (perf_fd_count() != fd0 + SW_ATTRS)
			why = "descriptors leaked or lost";
		else
			why = r->expect ? values_kept(g, w) : still_counts(g);
		if (!*why && r->times > 1 && lope_group__open(g))
			why = "cannot be opened again after the fault";
	}
	lope_check(
		!*why, r->name,
		"row %d: %s (returned %d, want %d; at most %d perf descriptors before an open, %d after)",
		r->line, why, ret, r->expect, inj.peak - fd0,
		perf_fd_count() - fd0);
	lope_group__delete(g);
}

/* Refused before anything is closed: the group open, as it was. */
static const struct bad_change {
	int line, expect;
	const char *name;
	struct lope_change ch;
} bad_changes[] = {
	{ __LINE__,
	  -EINVAL,
	  "change_cpu_below_minus_1_einval",
	  { .what = LOPE_CHANGE_TARGET, .pid = 0, .cpu = -2 } },
	{ __LINE__,
	  -EINVAL,
	  "change_pid_and_cpu_both_minus_1_einval",
	  { .what = LOPE_CHANGE_TARGET, .pid = -1, .cpu = -1 } },
	{ __LINE__,
	  -EINVAL,
	  "change_attr_without_an_edit_einval",
	  { .what = LOPE_CHANGE_ATTR } },
	{ __LINE__,
	  -EINVAL,
	  "change_overflow_of_no_such_event_einval",
	  { .what = LOPE_CHANGE_OVERFLOW,
	    .idx = SW_ATTRS,
	    .period = 1000,
	    .signo = OVF_SIG } },
	{ __LINE__,
	  -EINVAL,
	  "change_overflow_without_a_signal_einval",
	  { .what = LOPE_CHANGE_OVERFLOW, .idx = 0, .period = 1000 } },
	{ __LINE__,
	  -EOPNOTSUPP,
	  "change_inherit_of_an_overflowing_group_eopnotsupp",
	  { .what = LOPE_CHANGE_FLAGS, .flags = LOPE_INHERIT } },
	{ __LINE__,
	  -EBUSY,
	  "change_of_a_running_group_ebusy",
	  { CHANGE_SEPARATE } },
};

static void bad_change(const struct bad_change *r)
{
	struct settings before, after;
	struct lope_group *g = make(0);
	int fd, ret = -ENOMEM, run = r->expect == -EBUSY;

	if (g && !lope_group__set_overflow(g, 0, 1000000000, OVF_SIG) &&
	    !lope_group__open(g) && (!run || !lope_group__enable(g))) {
		settings_of(g, &before);
		fd = lope_group__fd(g, 0);
		ret = lope_group__change(g, &r->ch);
		settings_of(g, &after);
		if (memcmp(&before, &after, sizeof(before)) ||
		    lope_group__fd(g, 0) != fd)
			ret = 1;
	}
	lope_check(ret == r->expect, r->name,
		   "row %d: returned %d, want %d (1: the group changed)",
		   r->line, ret, r->expect);
	lope_group__delete(g);
}

/* A group not yet open takes a change as it is, for its first open. */
static void change_closed(void)
{
	const struct lope_change ch = {
		.what = LOPE_CHANGE_TARGET | LOPE_CHANGE_FLAGS |
			LOPE_CHANGE_ATTR | LOPE_CHANGE_OVERFLOW,
		.pid = 0,
		.cpu = pinned_cpu,
		.flags = LOPE_SEPARATE,
		.edit = exclude_hv,
		.idx = 1,
		.period = 1000000000,
		.signo = OVF_SIG,
	};
	struct settings before, after, want;
	struct lope_group *g = make(0);
	int ret = -ENOMEM, opened = 0;

	inject(C_OPEN, 0, 0, 0);
	if (g) {
		settings_of(g, &before);
		ret = lope_group__change(g, &ch);
		opened = inj.seen[C_OPEN];
		settings_of(g, &after);
		changed(&before, &ch, &want);
		if (!ret)
			ret = lope_group__open(g);
	}
	lope_check(ret == 0 && opened == 0 &&
			   !memcmp(&after, &want, sizeof(after)) &&
			   !*still_counts(g),
		   "change_of_a_group_not_yet_open_is_kept_for_its_open",
		   "returned %d, %d opens made by the change, settings %s", ret,
		   opened,
		   memcmp(&after, &want, sizeof(after)) ? "wrong" : "right");
	lope_group__delete(g);
}

static void change_faults(void)
{
	cpu_set_t old, one;
	size_t i;

	pinned_cpu = sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(pinned_cpu, &one);
	if (pinned_cpu < 0 || sched_getaffinity(0, sizeof(old), &old) ||
	    sched_setaffinity(0, sizeof(one), &one)) {
		lope_fail("change_faults", "cannot pin this thread to a cpu");
		return;
	}

	for (i = 0; i < sizeof(change_rows) / sizeof(change_rows[0]); i++)
		change_row(&change_rows[i]);
	for (i = 0; i < sizeof(bad_changes) / sizeof(bad_changes[0]); i++)
		bad_change(&bad_changes[i]);
	change_closed();
	(void)sched_setaffinity(0, sizeof(old), &old); /* it was allowed */
}

/* Does lopelib_group__check(@g) abort, once @brk (if any) broke @g?  In a
 * child, whose copy of @g alone is broken; its message goes nowhere. */
static bool check_aborts(struct lope_group *g,
			 void (*brk)(struct lope_group *g))
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		if (brk)
			brk(g);
		lopelib_group__check(g);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return false;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

static void parked_unlisted(struct lope_group *g)
{
	g->stop = LOPE_STOP_PARKED;
}

static void listed_not_lazy(struct lope_group *g)
{
	g->listed = true;
	g->lazy = false;
}

static void demoted_running(struct lope_group *g)
{
	g->stop = LOPE_STOP_DEMOTED;
	g->running = 1;
}

static void ready_closed(struct lope_group *g)
{
	g->opened = false;
}

static void invariants(void)
{
	static const struct {
		const char *name;
		void (*brk)(struct lope_group *g);
	} rows[] = {
		{ "invariant_parked_is_listed", parked_unlisted },
		{ "invariant_listed_is_lazy", listed_not_lazy },
		{ "invariant_demoted_is_not_running", demoted_running },
		{ "invariant_ready_is_open", ready_closed },
	};
	struct lope_group *g = make(0);
	const char *when = "new";
	int64_t v[SW_ATTRS];
	bool quiet = g && !check_aborts(g, NULL);
	size_t i;

	if (quiet) {
		when = "open";
		quiet = lope_group__open(g) == 0 && !check_aborts(g, NULL);
	}
	if (quiet) {
		when = "enable";
		quiet = lope_group__enable(g) == 0 && !check_aborts(g, NULL);
	}
	if (quiet) {
		when = "read";
		quiet = lope_group__read(g, v) == 0 && !check_aborts(g, NULL);
	}
	/* Ready and running: every row below breaks one rule. */
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		lope_check(quiet && check_aborts(g, rows[i].brk), rows[i].name,
			   quiet ? "lopelib_group__check() did not abort" :
				   "no ready group to break: see below");
	if (quiet) {
		when = "disable";
		quiet = lope_group__disable(g, v) == 0 &&
			!check_aborts(g, NULL);
	}
	if (quiet) {
		when = "close";
		lope_group__close(g);
		quiet = !check_aborts(g, NULL);
	}
	lope_check(quiet, "invariants_hold_through_a_life",
		   "broken (or a failed call) at %s", when);
	lope_group__delete(g);
}

int main(void)
{
	faulty = lopelib_sys_kernel;
	faulty.perf_event_open = f_open;
	faulty.ioctl = f_ioctl;
	faulty.read = f_read;
	faulty.mmap = f_mmap;
	lopelib_sys__set(&faulty);
	open_faults();
	replace_faults();
	change_faults();
	runtime_faults();
	one_event_reset_faults();
	mmap_fallback();
	lopelib_sys__set(NULL);
	invariants();
	return lope_done();
}
