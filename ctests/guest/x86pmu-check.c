/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * x86pmu-check: checks, from inside the x86-64 guest, the architectural
 * PMU that ctests/guest/qemu-x86-pmu.patch adds to QEMU's TCG, through
 * CPUID, rdpmc and Linux perf_event: Intel's architectural PMU, or on an
 * AMD CPU model AMD's core counters (x86pmu-check amd); and the one TCG
 * bug the patch fixes outside the PMU (case_cmpxchg_flags).  Static, run as root by the guest's
 * /init, in a machine started with -icount shift=0,sleep=off and
 * -cpu ...,pmu=on.
 *
 * Output, one line per case: "PASS: name", "FAIL: name: reason" or
 * "SKIP: name: reason"; lines starting "# " are information.  Exit status
 * 0 if nothing failed, else 1.
 *
 * The measured code is one asm block: a read of the counter (a read(2)
 * system call, or rdpmc), a loop of N iterations of K instructions, and
 * a second read.  The count between the two reads is then exactly
 * N * K + 6 user instructions, on every run:
 *   read(2):  the syscall instruction counts at the CPL it starts at, so
 *	       the first read's value includes its syscall and the second's
 *	       includes its own: between them run "mov N,%rcx" (1), the loop
 *	       (N * K), 4 movs setting up the second syscall and the syscall
 *	       itself (5): N * K + 6.
 *   rdpmc:    an rdpmc counts itself: after the first come shl, or, mov (3),
 *	       "mov N,%rcx" (1), the loop, "mov IDX,%ecx" (1) and the second
 *	       rdpmc (1): N * K + 6.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define K 4          /* instructions per loop iteration */
#define CONST_READ 6 /* see the comment above */
#define CONST_RDPMC 6
#define RUNS 5
#define RDPMC_SYSFS "/sys/bus/event_source/devices/cpu/rdpmc"

static int failures;

static void pass(const char *name)
{
	printf("PASS: %s\n", name);
	fflush(stdout);
}

static void fail(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures++;
}

static void skip(const char *name, const char *why)
{
	printf("SKIP: %s: %s\n", name, why);
	fflush(stdout);
}

/* An AMD CPU model: six core counters, rdpmc 0 to 5, no fixed counters */
static bool amd;
/* rdpmc's number for the counter instructions go to: Intel's fixed
 * counter 0, AMD's first core counter */
static uint32_t first_counter = 0x40000000;
static uint32_t n_gp = 4;

static void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c,
		  uint32_t *d)
{
	__asm__ volatile("cpuid"
			 : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			 : "a"(leaf), "c"(0));
}

static uint64_t rdpmc(uint32_t ecx)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ecx));
	return (uint64_t)hi << 32 | lo;
}

/* The loop between two read(2) of @fd: returns the second minus the first */
static int64_t loop_read(int fd, uint64_t n)
{
	uint64_t b1 = 0, b2 = 0;

	__asm__ volatile(
		"mov $0, %%eax\n\t"
		"mov %k[fd], %%edi\n\t"
		"mov %[b1], %%rsi\n\t"
		"mov $8, %%edx\n\t"
		"syscall\n\t"
		"mov %[n], %%rcx\n"
		"1:\tadd $1, %%r8\n\t"
		"add $1, %%r9\n\t"
		"dec %%rcx\n\t"
		"jnz 1b\n\t"
		"mov $0, %%eax\n\t"
		"mov %k[fd], %%edi\n\t"
		"mov %[b2], %%rsi\n\t"
		"mov $8, %%edx\n\t"
		"syscall"
		:
		: [fd] "r"(fd), [n] "r"(n), [b1] "r"(&b1), [b2] "r"(&b2)
		: "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r11",
		  "memory", "cc");
	return (int64_t)(b2 - b1);
}

/* The loop between two rdpmc of counter @ecx: raw values in v[2] */
static void loop_rdpmc(uint32_t ecx, uint64_t n, uint64_t v[2])
{
	uint64_t a, b;

	__asm__ volatile("mov %k[c], %%ecx\n\t"
			 "rdpmc\n\t"
			 "shl $32, %%rdx\n\t"
			 "or %%rax, %%rdx\n\t"
			 "mov %%rdx, %[a]\n\t"
			 "mov %[n], %%rcx\n"
			 "1:\tadd $1, %%r8\n\t"
			 "add $1, %%r9\n\t"
			 "dec %%rcx\n\t"
			 "jnz 1b\n\t"
			 "mov %k[c], %%ecx\n\t"
			 "rdpmc\n\t"
			 "shl $32, %%rdx\n\t"
			 "or %%rax, %%rdx\n\t"
			 "mov %%rdx, %[b]"
			 : [a] "=&r"(a), [b] "=&r"(b)
			 : [c] "r"(ecx), [n] "r"(n)
			 : "rax", "rcx", "rdx", "r8", "r9", "memory", "cc");
	v[0] = a;
	v[1] = b;
}

/* The loop alone, for sampling: its first and last instruction's address */
extern const char loop_start[], loop_end[];
static __attribute__((noinline)) void loop_only(uint64_t n)
{
	__asm__ volatile("mov %[n], %%rcx\n"
			 "loop_start:\tadd $1, %%r8\n\t"
			 "add $1, %%r9\n\t"
			 "dec %%rcx\n"
			 "loop_end:\tjnz loop_start"
			 :
			 : [n] "r"(n)
			 : "rcx", "r8", "r9", "cc");
}

static int perf_open(struct perf_event_attr *attr, int group)
{
	return (int)syscall(SYS_perf_event_open, attr, 0, -1, group, 0);
}

static void attr_init(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->exclude_hv = 1;
}

struct counter {
	int fd;
	struct perf_event_mmap_page *pg;
};

/* An enabled counting event with its page; false (fd -1) on error */
static bool counter_open(struct counter *c, uint32_t type, uint64_t config,
			 bool user, bool kernel, int group)
{
	struct perf_event_attr a;

	attr_init(&a, type, config);
	a.exclude_kernel = !kernel;
	a.exclude_user = !user;
	c->pg = NULL;
	c->fd = perf_open(&a, group);
	if (c->fd < 0) {
		return false;
	}
	c->pg = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
		     c->fd, 0);
	if (c->pg == MAP_FAILED) {
		c->pg = NULL;
		close(c->fd);
		c->fd = -1;
		return false;
	}
	return true;
}

static void counter_close(struct counter *c)
{
	if (c->pg) {
		munmap(c->pg, (size_t)sysconf(_SC_PAGESIZE));
	}
	if (c->fd >= 0) {
		close(c->fd);
	}
	c->fd = -1;
	c->pg = NULL;
}

/* The page's rdpmc counter number for the event, or -1 if none */
static int64_t page_counter(struct counter *c)
{
	uint32_t idx = c->pg->index;

	__sync_synchronize();
	if (!c->pg->cap_user_rdpmc || idx == 0) {
		return -1;
	}
	return idx - 1;
}

/* The difference of two raw counter values of @width bits */
static int64_t raw_delta(const uint64_t v[2], unsigned width)
{
	unsigned s = 64 - width;

	return (int64_t)((v[1] << s) - (v[0] << s)) >> s;
}

static sigjmp_buf jb;
static volatile sig_atomic_t got_sig;

static void on_segv(int sig)
{
	got_sig = sig;
	siglongjmp(jb, 1);
}

/* Does rdpmc of @ecx fault?  Returns the signal, 0 if none */
static int rdpmc_faults(uint32_t ecx, uint64_t *val)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, &old);
	got_sig = 0;
	if (sigsetjmp(jb, 1) == 0) {
		*val = rdpmc(ecx);
	}
	sigaction(SIGSEGV, &old, NULL);
	return got_sig;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t r;

	if (fd < 0) {
		return -1;
	}
	r = write(fd, s, strlen(s));
	close(fd);
	return r == (ssize_t)strlen(s) ? 0 : -1;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0) {
		return -1;
	}
	r = read(fd, buf, len - 1);
	close(fd);
	if (r < 0) {
		return -1;
	}
	buf[r] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* ---- cases ---- */

static uint32_t pmu_ebx, pmu_len;

static void case_cpuid_0a(void)
{
	uint32_t a, b, c, d, max;

	cpuid(0, &max, &b, &c, &d);
	if (max < 0xa) {
		fail("cpuid_0a", "max leaf %#x < 0xa", max);
		return;
	}
	cpuid(0xa, &a, &b, &c, &d);
	printf("# cpuid 0xa: eax=%#x ebx=%#x ecx=%#x edx=%#x\n", a, b, c, d);
	pmu_ebx = b;
	pmu_len = a >> 24;
	if ((a & 0xff) != 2 || ((a >> 8) & 0xff) != 4 ||
	    ((a >> 16) & 0xff) != 48 || (a >> 24) != 7) {
		fail("cpuid_0a",
		     "eax %#x: want version 2, 4 counters, "
		     "width 48, 7 events",
		     a);
	} else if (b != 0x78) {
		fail("cpuid_0a",
		     "ebx %#x: want 0x78 (only cycles, "
		     "instructions, ref cycles available)",
		     b);
	} else if ((d & 0x1f) != 3 || ((d >> 5) & 0xff) != 48) {
		fail("cpuid_0a", "edx %#x: want 3 fixed counters of 48 bits",
		     d);
	} else {
		pass("cpuid_0a");
	}
}

/* The kernel's perf driver is the one the CPU model selects: its pmu_name
 * (arch/x86/events/intel/core.c) is @want, "generic_arch_v2+" for a model
 * the kernel does not list (the architectural PMU alone), "skylake" for
 * model 94.  The kernel log's "Performance Events:" line says it too at
 * boot (shown when the log still holds it: a long plan's messages may
 * have rotated it out). */
static void case_kernel_driver(const char *want)
{
	char buf[256];
	static char log[1 << 16];
	int n;
	char *p;

	n = klogctl(3, log, sizeof(log) - 1);
	if (n >= 0) {
		log[n] = 0;
		p = strstr(log, "Performance Events:");
		if (p)
			printf("# %.*s\n", (int)strcspn(p, "\n"), p);
	}
	if (read_file("/sys/bus/event_source/devices/cpu/caps/pmu_name", buf,
		      sizeof(buf)) != 0) {
		fail("kernel_driver",
		     "no /sys/bus/event_source/devices/cpu/caps/pmu_name");
	} else if (strcmp(buf, want) != 0) {
		fail("kernel_driver", "pmu_name %s, not %s", buf, want);
	} else {
		printf("# pmu_name %s\n", buf);
		pass("kernel_driver");
	}
}

/* AMD: CPUID 8000_0001H:ECX.PerfCtrExtCore, and leaf 0AH (Intel's) zero */
static void case_cpuid_amd(void)
{
	uint32_t a, b, c, d;

	cpuid(0x80000001, &a, &b, &c, &d);
	printf("# cpuid 0x80000001: ecx=%#x, family %u\n", c,
	       ((a >> 8) & 0xf) + ((a >> 20) & 0xff));
	if (!(c & (1U << 23))) {
		fail("cpuid_amd", "ecx %#x: no PerfCtrExtCore (bit 23)", c);
		return;
	}
	cpuid(0xa, &a, &b, &c, &d);
	if (a || b || d) {
		fail("cpuid_amd", "leaf 0xa %#x %#x %#x: want zeros", a, b, d);
	} else {
		pass("cpuid_amd");
	}
}

/* AMD: the kernel's AMD driver, whose event format has the event's bits
 * 11:8 at config bits 35:32 (Intel's is config:0-7). */
static void case_kernel_driver_amd(void)
{
	char buf[256];

	if (read_file("/sys/bus/event_source/devices/cpu/format/event", buf,
		      sizeof(buf)) != 0) {
		fail("kernel_driver", "no cpu/format/event");
	} else if (strcmp(buf, "config:0-7,32-35") != 0) {
		fail("kernel_driver", "format/event %s: not the AMD driver's",
		     buf);
	} else {
		printf("# format/event %s\n", buf);
		pass("kernel_driver");
	}
}

/* CPUID.0AH:EBX bit -> generic event the kernel maps it to */
static const struct {
	uint64_t config;
	const char *name;
} arch_events[7] = {
	{ PERF_COUNT_HW_CPU_CYCLES, "cycles" },
	{ PERF_COUNT_HW_INSTRUCTIONS, "instructions" },
	{ PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles" },
	{ PERF_COUNT_HW_CACHE_REFERENCES, "cache-references" },
	{ PERF_COUNT_HW_CACHE_MISSES, "cache-misses" },
	{ PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branches" },
	{ PERF_COUNT_HW_BRANCH_MISSES, "branch-misses" },
};

/* The generic events: those CPUID.0AH:EBX marks available (cycles,
 * instructions, ref-cycles) open and count the loop exactly, the others
 * do not open (ENOENT).  AMD, the kernel's events for family 17h:
 * cycles and instructions count, ref-cycles has no AMD event, the cache
 * and branch events open on their AMD codes and count nothing here. */
static void case_event_availability(void)
{
	const uint64_t n = 100000;
	bool ok = true;
	unsigned i;

	for (i = 0; i < 7 && (amd || i < pmu_len); i++) {
		bool opens = amd ? i != 2 : !(pmu_ebx & (1u << i));
		bool counts = amd ? i < 2 : opens;
		struct counter c;
		uint64_t v[2];
		int64_t idx, d,
			want = counts ? (int64_t)(n * K + CONST_RDPMC) : 0;

		if (!counter_open(&c, PERF_TYPE_HARDWARE, arch_events[i].config,
				  true, false, -1)) {
			printf("# %s: open: %s\n", arch_events[i].name,
			       strerror(errno));
			if (opens) {
				fail("event_availability", "%s does not open",
				     arch_events[i].name);
				ok = false;
			}
			continue;
		}
		idx = page_counter(&c);
		if (!opens || idx < 0) {
			fail("event_availability", "%s: %s",
			     arch_events[i].name,
			     opens ? "no rdpmc in the page" :
				     "opens, though not available");
			ok = false;
			counter_close(&c);
			continue;
		}
		loop_rdpmc((uint32_t)idx, n, v);
		d = raw_delta(v, c.pg->pmc_width);
		printf("# %s: rdpmc %#llx, %lld over the loop\n",
		       arch_events[i].name, (unsigned long long)idx,
		       (long long)d);
		/* cycles and ref-cycles are defined as instructions */
		if (d != want) {
			fail("event_availability", "%s counts %lld, want %lld",
			     arch_events[i].name, (long long)d,
			     (long long)want);
			ok = false;
		}
		counter_close(&c);
	}
	if (ok) {
		pass("event_availability");
	}
}

static void case_raw_uncounted(void)
{
	/* 0xc4: branch instructions retired, not counted: reads 0 */
	struct counter c;
	int64_t d;

	if (!counter_open(&c, PERF_TYPE_RAW, 0x00c4, true, false, -1)) {
		fail("raw_uncounted", "open raw 0xc4: %s", strerror(errno));
		return;
	}
	d = loop_read(c.fd, 100000);
	if (d != 0) {
		fail("raw_uncounted", "raw 0xc4 counted %lld", (long long)d);
	} else {
		pass("raw_uncounted");
	}
	counter_close(&c);
}

static struct counter ins; /* user-only instructions, kept open */

static void case_perf_page(void)
{
	if (!counter_open(&ins, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			  true, false, -1)) {
		fail("perf_page", "open instructions: %s", strerror(errno));
		return;
	}
	printf("# page: cap_user_rdpmc=%u index=%#x pmc_width=%u offset=%#llx "
	       "raw=%#llx\n",
	       (unsigned)ins.pg->cap_user_rdpmc, ins.pg->index,
	       (unsigned)ins.pg->pmc_width, (unsigned long long)ins.pg->offset,
	       ins.pg->index ? (unsigned long long)rdpmc(ins.pg->index - 1) :
			       0);
	if (!ins.pg->cap_user_rdpmc) {
		fail("perf_page", "cap_user_rdpmc is 0");
	} else if (ins.pg->pmc_width != 48) {
		fail("perf_page", "pmc_width %u", (unsigned)ins.pg->pmc_width);
	} else if (!amd && ins.pg->index != 0x40000001) {
		fail("perf_page",
		     "index %#x, want 0x40000001 (fixed counter 0)",
		     ins.pg->index);
	} else if (amd && (ins.pg->index < 1 || ins.pg->index > n_gp)) {
		fail("perf_page", "index %#x, want a core counter, 1 to %u",
		     ins.pg->index, n_gp);
	} else {
		pass("perf_page");
	}
}

/* Run @run of case @name counted @d over @n iterations: exactly n * K
 * + @c, or the case's FAIL. */
static bool exact(const char *name, uint64_t n, unsigned run, int64_t d,
		  int64_t c)
{
	if (d == (int64_t)(n * K) + c)
		return true;
	fail(name, "N=%llu run %u: %lld, want %lld", (unsigned long long)n, run,
	     (long long)d, (long long)((int64_t)(n * K) + c));
	return false;
}

static void case_exact_read(void)
{
	static const uint64_t ns[] = { 1, 1000, 1000000 };
	bool ok = true;
	unsigned i, r;

	if (ins.fd < 0) {
		skip("exact_user_read", "no instructions event");
		return;
	}
	for (i = 0; i < 3; i++) {
		for (r = 0; r < RUNS; r++) {
			int64_t d = loop_read(ins.fd, ns[i]);

			if (r == 0) {
				printf("# read(2): N=%llu: %lld = N*%d + %lld\n",
				       (unsigned long long)ns[i], (long long)d,
				       K, (long long)(d - (int64_t)ns[i] * K));
			}
			ok &= exact("exact_user_read", ns[i], r, d, CONST_READ);
		}
	}
	if (ok) {
		pass("exact_user_read");
	}
}

static void case_exact_rdpmc(void)
{
	static const uint64_t ns[] = { 1, 1000, 1000000 };
	bool ok = true;
	unsigned i, r;
	int64_t idx;

	if (ins.fd < 0 || (idx = page_counter(&ins)) < 0) {
		skip("exact_user_rdpmc", "no page allowing rdpmc");
		return;
	}
	for (i = 0; i < 3; i++) {
		for (r = 0; r < RUNS; r++) {
			uint64_t v[2];
			int64_t d;

			loop_rdpmc((uint32_t)idx, ns[i], v);
			d = raw_delta(v, ins.pg->pmc_width);
			if (r == 0) {
				printf("# rdpmc(%#llx): N=%llu: %#llx..%#llx: "
				       "%lld = N*%d + %lld\n",
				       (unsigned long long)idx,
				       (unsigned long long)ns[i],
				       (unsigned long long)v[0],
				       (unsigned long long)v[1], (long long)d,
				       K, (long long)(d - (int64_t)ns[i] * K));
			}
			if ((v[0] | v[1]) >> 48) {
				fail("exact_user_rdpmc", "bits above 48 set");
				ok = false;
			}
			ok &= exact("exact_user_rdpmc", ns[i], r, d,
				    CONST_RDPMC);
		}
	}
	if (ok) {
		pass("exact_user_rdpmc");
	}
}

/* The page's full count (offset + counter) next to read(2)'s */
static void case_page_vs_read(void)
{
	uint64_t cnt, seq, v = 0;
	int64_t idx;
	unsigned w;
	ssize_t r;

	if (ins.fd < 0 || (idx = page_counter(&ins)) < 0) {
		skip("page_vs_read", "no page allowing rdpmc");
		return;
	}
	do {
		seq = ins.pg->lock;
		__sync_synchronize();
		w = ins.pg->pmc_width;
		cnt = (uint64_t)ins.pg->offset +
		      ((int64_t)(rdpmc((uint32_t)idx) << (64 - w)) >> (64 - w));
		__sync_synchronize();
	} while (ins.pg->lock != seq);
	r = read(ins.fd, &v, sizeof(v));
	printf("# page count %llu, read(2) %llu just after (+%lld)\n",
	       (unsigned long long)cnt, (unsigned long long)v,
	       (long long)(v - cnt));
	/* the few instructions of the loop's end, the call and libc's read */
	if (r != 8 || v < cnt || v - cnt > 200) {
		fail("page_vs_read", "page %llu, read(2) %llu",
		     (unsigned long long)cnt, (unsigned long long)v);
	} else {
		pass("page_vs_read");
	}
}

/* Case @name's group: user-only instructions leading a raw 0xc0 (also
 * instructions, which must go to a general counter), scheduled once so
 * their pages give their counters.  False (the case's FAIL said) if
 * either does not open. */
static bool open_pair(const char *name, struct counter *lead,
		      struct counter *gp)
{
	if (!counter_open(lead, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			  true, false, -1)) {
		fail(name, "open: %s", strerror(errno));
		return false;
	}
	if (!counter_open(gp, PERF_TYPE_RAW, 0x00c0, true, false, lead->fd)) {
		fail(name, "open raw 0xc0: %s", strerror(errno));
		counter_close(lead);
		return false;
	}
	/* the page's index is only set once the group has been scheduled */
	(void)loop_read(lead->fd, 1);
	return true;
}

/* A group: instructions, then a raw 0xc0 that must go to a GP counter */
static void case_gp_counter(void)
{
	struct counter lead, gp;
	const uint64_t n = 100000;
	uint64_t v[2];
	int64_t idx, d;

	if (!open_pair("gp_counter", &lead, &gp))
		return;
	idx = page_counter(&gp);
	printf("# group: leader index %#x, raw 0xc0 index %#x\n",
	       lead.pg->index, gp.pg->index);
	if (idx < 0 || idx >= n_gp) {
		fail("gp_counter",
		     "raw 0xc0 not on a general counter "
		     "(index %#x)",
		     gp.pg->index);
	} else {
		loop_rdpmc((uint32_t)idx, n, v);
		d = raw_delta(v, gp.pg->pmc_width);
		if (d != (int64_t)(n * K + CONST_RDPMC)) {
			fail("gp_counter", "PMC%lld counted %lld, want %llu",
			     (long long)idx, (long long)d,
			     (unsigned long long)(n * K + CONST_RDPMC));
		} else {
			pass("gp_counter");
		}
	}
	counter_close(&gp);
	counter_close(&lead);
}

static void case_kernel_only(void)
{
	struct counter k, all;
	const uint64_t n = 5000000;
	uint64_t v[2];
	int64_t idx, dk, da;

	if (!counter_open(&k, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			  false, true, -1) ||
	    !counter_open(&all, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			  true, true, -1)) {
		fail("kernel_only", "open: %s", strerror(errno));
		counter_close(&k);
		return;
	}
	idx = page_counter(&k);
	if (idx < 0) {
		fail("kernel_only", "no rdpmc in the page");
		goto out;
	}
	/* Kernel only, over the loop: what interrupts ran during it */
	loop_rdpmc((uint32_t)idx, 1000, v);
	dk = raw_delta(v, k.pg->pmc_width);
	printf("# kernel-only over N=1000 (4 us): %lld\n", (long long)dk);
	if (dk != 0) {
		fail("kernel_only",
		     "kernel-only count %lld over 4006 user "
		     "instructions",
		     (long long)dk);
		goto out;
	}
	loop_rdpmc((uint32_t)idx, n, v);
	dk = raw_delta(v, k.pg->pmc_width);
	idx = page_counter(&all);
	loop_rdpmc((uint32_t)idx, n, v);
	da = raw_delta(v, all.pg->pmc_width);
	printf("# N=%llu (%llu user instructions, as many virtual ns): "
	       "kernel-only %lld; user+kernel %lld = user + %lld\n",
	       (unsigned long long)n, (unsigned long long)(n * K + 6),
	       (long long)dk, (long long)da,
	       (long long)(da - (int64_t)(n * K + 6)));
	/* timer ticks at most: a few thousand instructions each */
	if (dk < 0 || dk > (int64_t)(n * K) / 20 || da < (int64_t)(n * K + 6)) {
		fail("kernel_only", "kernel-only %lld, user+kernel %lld",
		     (long long)dk, (long long)da);
	} else {
		pass("kernel_only");
	}
out:
	counter_close(&all);
	counter_close(&k);
}

static void case_rdpmc_invalid(void)
{
	static const uint32_t bad_intel[] = { 4,          5,
					      0x40000003, 0x40000004,
					      0x80000000, 0x20000000 };
	static const uint32_t bad_amd[] = {
		6, 7, 0x40000000, 0x40000005, 0x80000000, 0x20000000
	};
	const uint32_t *bad = amd ? bad_amd : bad_intel;
	const size_t nbad = amd ? sizeof(bad_amd) / sizeof(bad_amd[0]) :
				  sizeof(bad_intel) / sizeof(bad_intel[0]);
	uint64_t v;
	unsigned i;
	int s;

	if (ins.fd < 0 || page_counter(&ins) < 0) {
		skip("rdpmc_invalid", "no page allowing rdpmc (CR4.PCE)");
		return;
	}
	/* valid ones first: with the page mapped CR4.PCE is set */
	if (amd)
		s = rdpmc_faults(0, &v) | rdpmc_faults(5, &v);
	else
		s = rdpmc_faults(0x40000000, &v) | rdpmc_faults(0, &v) |
		    rdpmc_faults(3, &v) | rdpmc_faults(0x40000002, &v);
	if (s) {
		fail("rdpmc_invalid", "a valid counter faults (signal %d)", s);
		return;
	}
	for (i = 0; i < nbad; i++) {
		s = rdpmc_faults(bad[i], &v);
		if (s != SIGSEGV) {
			fail("rdpmc_invalid", "rdpmc(%#x): %s", bad[i],
			     s ? "not SIGSEGV" : "no fault");
			return;
		}
	}
	pass("rdpmc_invalid");
}

static void case_rdpmc_sysfs0(void)
{
	char old[16];
	struct counter c;
	uint64_t v;
	int s;

	if (read_file(RDPMC_SYSFS, old, sizeof(old)) < 0) {
		skip("rdpmc_sysfs0", "no " RDPMC_SYSFS);
		return;
	}
	/* no event of ours may have a page mapped while it is 0 */
	counter_close(&ins);
	if (write_file(RDPMC_SYSFS, "0") < 0) {
		fail("rdpmc_sysfs0", "cannot write 0: %s", strerror(errno));
		return;
	}
	if (!counter_open(&c, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			  true, false, -1)) {
		fail("rdpmc_sysfs0", "open: %s", strerror(errno));
	} else {
		s = rdpmc_faults(first_counter, &v);
		printf("# rdpmc=0: cap_user_rdpmc=%u index=%#x, rdpmc: %s\n",
		       (unsigned)c.pg->cap_user_rdpmc, c.pg->index,
		       s == SIGSEGV ? "SIGSEGV" : "no fault");
		if (c.pg->cap_user_rdpmc) {
			fail("rdpmc_sysfs0", "page says cap_user_rdpmc=1");
		} else if (s != SIGSEGV) {
			fail("rdpmc_sysfs0", "rdpmc did not fault");
		} else {
			pass("rdpmc_sysfs0");
		}
		counter_close(&c);
	}
	/* 2: CR4.PCE set everywhere, even with no page mapped */
	if (write_file(RDPMC_SYSFS, "2") == 0) {
		s = rdpmc_faults(first_counter, &v);
		if (s) {
			fail("rdpmc_sysfs2", "rdpmc faults with rdpmc=2");
		} else {
			pass("rdpmc_sysfs2");
		}
	} else {
		skip("rdpmc_sysfs2", "cannot write 2");
	}
	if (write_file(RDPMC_SYSFS, old) < 0) {
		fail("rdpmc_sysfs0", "cannot restore %s", old);
	}
	counter_open(&ins, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, true,
		     false, -1);
}

static void case_sampling(void)
{
	const uint64_t period = 100003, n = 5000000;
	const size_t pgsz = (size_t)sysconf(_SC_PAGESIZE), npg = 64;
	struct perf_event_attr a;
	struct perf_event_mmap_page *pg;
	uint64_t total, want, samples = 0, outside = 0, other = 0, head, off;
	char *data;
	int fd;

	write_file("/proc/sys/kernel/perf_event_max_sample_rate", "1000000");
	write_file("/proc/sys/kernel/perf_cpu_time_max_percent", "0");
	attr_init(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	a.exclude_kernel = 1;
	a.disabled = 1;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP;
	a.wakeup_events = 1000000;
	fd = perf_open(&a, -1);
	if (fd < 0) {
		fail("sampling", "open: %s", strerror(errno));
		return;
	}
	pg = mmap(NULL, (npg + 1) * pgsz, PROT_READ | PROT_WRITE, MAP_SHARED,
		  fd, 0);
	if (pg == MAP_FAILED) {
		fail("sampling", "mmap: %s", strerror(errno));
		close(fd);
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	loop_only(n);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &total, sizeof(total)) != sizeof(total)) {
		total = 0;
	}
	head = pg->data_head;
	__sync_synchronize();
	data = (char *)pg + pgsz;
	for (off = pg->data_tail; off < head;) {
		struct perf_event_header *h =
			(void *)(data + off % (npg * pgsz));
		if (h->type == PERF_RECORD_SAMPLE) {
			uint64_t ip = *(uint64_t *)(h + 1);

			samples++;
			if (ip < (uintptr_t)loop_start ||
			    ip > (uintptr_t)loop_end) {
				outside++;
			}
		} else {
			other++;
		}
		off += h->size;
	}
	want = total / period;
	printf("# sampling: period %llu over %llu instructions (loop %llu): "
	       "%llu samples (floor %llu), %llu outside the loop, %llu other "
	       "records\n",
	       (unsigned long long)period, (unsigned long long)total,
	       (unsigned long long)(n * K), (unsigned long long)samples,
	       (unsigned long long)want, (unsigned long long)outside,
	       (unsigned long long)other);
	if (samples != want) {
		fail("sampling", "%llu samples, want %llu = floor(%llu / %llu)",
		     (unsigned long long)samples, (unsigned long long)want,
		     (unsigned long long)total, (unsigned long long)period);
	} else if (outside || other) {
		fail("sampling",
		     "%llu samples outside the loop, %llu other "
		     "records",
		     (unsigned long long)outside, (unsigned long long)other);
	} else {
		pass("sampling");
	}
	munmap(pg, (npg + 1) * pgsz);
	close(fd);
}

/* Full-width counter writes: CPUID.01H:ECX.PDCM, IA32_PERF_CAPABILITIES
 * bit 13, so the kernel's maximum period is 2^47 - 1 and it starts a
 * counting event at 2^47 + 1 (the two's complement of that period in 48
 * bits), general and fixed counters alike.  Bits 47 to 31 then differ, so
 * a reader that sign-extends at 32 bits, not at the page's pmc_width,
 * reads a wrong count.  (Without full-width writes the kernel starts them
 * at 2^48 - 2^31, where 32 and 48 bits agree.)  Checked on the raw value
 * of a fixed and of a general counter read just after they start (on AMD
 * two core counters: its driver always writes them in full). */
static void case_full_width(void)
{
	const uint64_t lo = 1ULL << 47, hi = lo + 1000000;
	struct counter lead, gp;
	uint32_t a, b, c, d;
	uint64_t raw[2];
	int64_t idx[2];

	cpuid(1, &a, &b, &c, &d);
	if (!amd && !(c & (1U << 15))) {
		fail("full_width", "CPUID.01H:ECX %#x: no PDCM (bit 15)", c);
		return;
	}
	if (!open_pair("full_width", &lead, &gp))
		return;
	idx[0] = page_counter(&lead);
	idx[1] = page_counter(&gp);
	if (idx[0] < 0 || idx[1] < 0) {
		fail("full_width", "no rdpmc index (%#x, %#x)", lead.pg->index,
		     gp.pg->index);
	} else {
		raw[0] = rdpmc((uint32_t)idx[0]);
		raw[1] = rdpmc((uint32_t)idx[1]);
		printf("# raw just after the start: fixed %#llx, general %#llx\n",
		       (unsigned long long)raw[0], (unsigned long long)raw[1]);
		if (raw[0] < lo || raw[0] > hi || raw[1] < lo || raw[1] > hi) {
			fail("full_width",
			     "raw %#llx and %#llx, want both in [2^47, 2^47 + "
			     "1e6]: the kernel does not write full width",
			     (unsigned long long)raw[0],
			     (unsigned long long)raw[1]);
		} else {
			pass("full_width");
		}
	}
	counter_close(&gp);
	counter_close(&lead);
}

/*
 * The flags after "add $1" to -1 (CF, PF, AF and ZF set), with a
 * cmpxchg8b or cmpxchg16b between them and pushf if @which is 8 or 16.
 * The jmp ends the translation block after a logic op, so QEMU's stored
 * cc_op is a logic op's, while the add's is the translator's alone: a
 * helper that reads the stored one (QEMU 7.2's cmpxchg8b/16b, which the
 * patch fixes) loses CF and AF.
 */
/* The sequence around @insn (a compare-exchange of m, or nothing). */
#define FLAGS_AFTER_ADD(insn, f, m)                            \
	__asm__ volatile("xor %%eax, %%eax\n\t"                \
			 "xor %%edx, %%edx\n\t"                \
			 "xor %%ebx, %%ebx\n\t"                \
			 "jmp 1f\n"                            \
			 "1:\tmov $-1, %%rcx\n\t"              \
			 "add $1, %%rcx\n\t" insn "pushfq\n\t" \
			 "pop %[f]"                            \
			 : [f] "=r"(f), [m] "+m"(m)            \
			 :                                     \
			 : "rax", "rbx", "rcx", "rdx", "cc", "memory")

static uint64_t flags_after_add(int which)
{
	static unsigned __int128 m __attribute__((aligned(16)));
	uint64_t f;

	m = 0;
	if (which == 16)
		FLAGS_AFTER_ADD("cmpxchg16b %[m]\n\t", f, m);
	else if (which == 8)
		FLAGS_AFTER_ADD("cmpxchg8b %[m]\n\t", f, m);
	else
		FLAGS_AFTER_ADD("", f, m);
	return f;
}

/*
 * The machine under the PMU: cmpxchg8b and cmpxchg16b that succeed set ZF
 * and leave CF, PF, AF, SF and OF as they were (SDM vol. 2A).  QEMU 7.2
 * computed those from a stale cc_op; the garbage reached EFLAGS where the
 * vCPU stopped right after one, which two vCPUs make frequent: Linux's
 * slab allocator (this_cpu_cmpxchg_double) then crashed now and then.
 */
static void case_cmpxchg_flags(void)
{
	const uint64_t arith = 0x8d5; /* CF PF AF ZF SF OF */
	uint64_t want = flags_after_add(0) & arith, got8 = 0, got16 = 0;
	uint32_t a, b, c, d;
	int i;

	cpuid(1, &a, &b, &c, &d);
	if (!(c & (1U << 13))) {
		skip("cmpxchg_flags", "no cmpxchg16b (CPUID.01H:ECX bit 13)");
		return;
	}
	for (i = 0; i < 1000; i++) {
		got8 |= (flags_after_add(8) & arith) ^ want;
		got16 |= (flags_after_add(16) & arith) ^ want;
	}
	if (want != 0x55)
		fail("cmpxchg_flags", "add gives flags %#llx, want 0x55",
		     (unsigned long long)want);
	else if (got8 || got16)
		fail("cmpxchg_flags",
		     "flags that differ from the add's (%#llx) after cmpxchg8b "
		     "%#llx, after cmpxchg16b %#llx",
		     (unsigned long long)want, (unsigned long long)got8,
		     (unsigned long long)got16);
	else
		pass("cmpxchg_flags");
}

/* x86pmu-check PMU_NAME: the kernel's name of the driver it should have
 * taken for this CPU model (case_kernel_driver), or "amd" for an AMD CPU
 * model, whose driver the event format tells. */
int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: x86pmu-check PMU_NAME\n");
		return 2;
	}
	ins.fd = -1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	amd = strcmp(argv[1], "amd") == 0;
	if (amd) {
		first_counter = 0;
		n_gp = 6;
		case_cpuid_amd();
		case_kernel_driver_amd();
		case_event_availability();
	} else {
		case_cpuid_0a();
		case_kernel_driver(argv[1]);
		case_event_availability();
	}
	case_raw_uncounted();
	case_perf_page();
	case_exact_read();
	case_exact_rdpmc();
	case_page_vs_read();
	case_gp_counter();
	case_full_width();
	case_kernel_only();
	case_rdpmc_invalid();
	case_rdpmc_sysfs0();
	case_sampling();
	case_cmpxchg_flags();
	counter_close(&ins);
	return failures ? 1 : 0;
}
