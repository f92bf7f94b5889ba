/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection through the engine's system-call table: every failure
 * the kernel can give comes back as the documented -errno or a correct
 * fall-back, and no descriptor or mapping is left behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "attrs.h"
#include "clock.h"
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
		       lope_sys_kernel.perf_event_open(a, p, cpu, gfd, fl);
}

static int f_ioctl(int fd, unsigned long req, unsigned long arg)
{
	return fails(C_IOCTL) ? -1 : lope_sys_kernel.ioctl(fd, req, arg);
}

static ssize_t f_read(int fd, void *buf, size_t len)
{
	return fails(C_READ) ? -1 : lope_sys_kernel.read(fd, buf, len);
}

static void *f_mmap(size_t len, int prot, int flags, int fd)
{
	return fails(C_MMAP) ? MAP_FAILED :
			       lope_sys_kernel.mmap(len, prot, flags, fd);
}

static const struct lope_sys faulty = {
	.perf_event_open = f_open,
	.ioctl = f_ioctl,
	.read = f_read,
	.mmap = f_mmap,
	.munmap = munmap,
	.close = close,
};

/* Calls this test does not fail go straight to the kernel table. */
static struct lope_sys faulty_all;

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

int main(void)
{
	faulty_all = lope_sys_kernel;
	faulty_all.perf_event_open = faulty.perf_event_open;
	faulty_all.ioctl = faulty.ioctl;
	faulty_all.read = faulty.read;
	faulty_all.mmap = faulty.mmap;
	lope_sys__set(&faulty_all);
	open_faults();
	replace_faults();
	runtime_faults();
	mmap_fallback();
	lope_sys__set(NULL);
	return lope_done();
}
