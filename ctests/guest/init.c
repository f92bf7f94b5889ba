/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /init of the emulated test machines (ctests/guest/test_arm64.sh,
 * test_riscv64.sh).
 *
 * The kernel runs it as process 1 from the initramfs, the only file system
 * the machine has.  It mounts proc, sysfs, devtmpfs, tracefs and a tmpfs on
 * /tmp, describes the machine, runs every program of its plan one after
 * the other, each under its own time limit, and powers the machine off.
 * The host reads the serial console and splits it on these frame lines:
 *
 *	@@lope info KEY VALUE...
 *	@@lope begin NAME
 *	(the program's stdout and stderr, in the order written)
 *	@@lope end NAME STATUS ms=MILLISECONDS
 *	@@lope done
 *
 * STATUS is exit=N, signal=N or timeout=SECONDS; the milliseconds are the
 * guest's own clock (instructions under -icount shift=0).  The program's
 * output goes through a pipe that only this process writes out, in whole
 * lines where the program wrote whole lines, so no frame line is ever
 * split by program output.
 *
 * The plan is the file named by the kernel command line's lope_plan=FILE
 * (the kernel hands unknown parameters to process 1 as its environment),
 * else /plan.  It holds one program a line; '#' starts a comment:
 *
 *	NAME TIMEOUT [KEY=VALUE...] -- PROGRAM [ARG...]
 *
 * with the keys cwd=DIR (default /), paranoid=N (kernel.perf_event_paranoid,
 * default 2, as on the x86 machines), user_access=N (kernel.perf_user_access
 * on arm64 and riscv64; on x86 the core PMU's rdpmc file, where 1 is the
 * default too; default 1) and env=VAR=VALUE (repeatable).  Each program starts in a new
 * process group with a clean environment (PATH=/bin plus its env= entries);
 * at its time limit, or once it has exited, whatever is left of the group is
 * killed.  Words are separated by blanks and cannot contain them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../utils/line.h"

#define PLAN "/plan"
#define MAX_LINE 4096
#define MAX_WORDS 64
#define GRACE_MS 2000 /* after the program exits, for its children */
#define PMUS "/sys/bus/event_source/devices"

struct job {
	char *name;
	long timeout_s;
	const char *cwd;
	const char *paranoid;
	const char *user_access;
	char *env[MAX_WORDS];
	char *argv[MAX_WORDS];
};

/* Write all of @buf to the console; nothing else can be done on failure. */
static void out(const char *buf, size_t len)
{
	(void)write_all(STDOUT_FILENO, buf, len);
}

/* One line to the console, in one write (utils/line.h). */
static __attribute__((format(printf, 1, 2))) void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)write_line(STDOUT_FILENO, fmt, ap);
	va_end(ap);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Write @value to the file @path (a sysctl); 0 or -errno. */
static int put(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* What allows user-space counter reads: a sysctl on arm64 and riscv64,
 * the core PMU's rdpmc file on x86. */
static const char *user_access_file(void)
{
	static const char sysctl[] = "/proc/sys/kernel/perf_user_access";

	if (access(sysctl, F_OK) == 0)
		return sysctl;
	return "/sys/bus/event_source/devices/cpu/rdpmc";
}

/* The first line of the file @path, without its newline, or "?". */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	snprintf(buf, len, "?");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

static void mount_all(void)
{
	static const struct {
		const char *src, *dir, *type;
	} fs[] = {
		{ "proc", "/proc", "proc" },
		{ "sysfs", "/sys", "sysfs" },
		{ "devtmpfs", "/dev", "devtmpfs" },
		{ "tmpfs", "/tmp", "tmpfs" },
		/* papi_overhead counts system calls on raw_syscalls:sys_enter */
		{ "tracefs", "/sys/kernel/tracing", "tracefs" },
	};
	unsigned i;

	for (i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
		(void)mkdir(fs[i].dir, 0755); /* EEXIST is fine */
		if (mount(fs[i].src, fs[i].dir, fs[i].type, 0, NULL))
			say("@@lope info mount_failed %s %s", fs[i].dir,
			    strerror(errno));
	}
}

/* The facts the host records beside the results. */
static void describe(void)
{
	struct utsname u;
	char line[256], pmus[1024] = "", path[512];
	struct dirent *e;
	DIR *d;
	FILE *f;

	/* The firmware (x86's SeaBIOS) may leave the console mid-line: the
	 * first frame starts a line of its own. */
	say("%s", "");
	if (uname(&u) == 0)
		say("@@lope info kernel %s %s", u.release, u.machine);
	say("@@lope info cpus %ld", sysconf(_SC_NPROCESSORS_ONLN));
	f = fopen("/proc/cpuinfo", "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CPU implementer", 15) ||
		    !strncmp(line, "CPU part", 8) || !strncmp(line, "isa", 3) ||
		    !strncmp(line, "mvendorid", 9) ||
		    !strncmp(line, "marchid", 7)) {
			line[strcspn(line, "\n")] = 0;
			say("@@lope info cpuinfo %s", line);
		}
	if (f)
		fclose(f);
	d = opendir(PMUS);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] != '.' &&
		    strlen(pmus) + strlen(e->d_name) + 2 < sizeof(pmus)) {
			strcat(pmus, " ");
			strcat(pmus, e->d_name);
		}
		/* A core PMU has a cpus file: the CPUs it counts on. */
		snprintf(path, sizeof(path), PMUS "/%s/cpus", e->d_name);
		if (e->d_name[0] != '.' && access(path, F_OK) == 0) {
			first_line(path, line, sizeof(line));
			say("@@lope info core_pmu %s %s", e->d_name, line);
		}
	}
	if (d)
		closedir(d);
	say("@@lope info pmus%s", pmus);
	first_line("/proc/sys/kernel/perf_event_paranoid", line, sizeof(line));
	say("@@lope info default_perf_event_paranoid %s", line);
	first_line(user_access_file(), line, sizeof(line));
	say("@@lope info default_perf_user_access %s", line);
}

/* Split @line into @job; 0, or -1 with the reason printed. */
static int parse(char *line, struct job *job)
{
	char *w[MAX_WORDS + 2], *save = NULL, *t;
	int n = 0, i, ne = 0, na = 0, args = 0;

	memset(job, 0, sizeof(*job));
	job->cwd = "/";
	job->paranoid = "2";
	job->user_access = "1";
	for (t = strtok_r(line, " \t\n", &save); t && n < MAX_WORDS + 2;
	     t = strtok_r(NULL, " \t\n", &save))
		w[n++] = t;
	if (n == 0 || w[0][0] == '#')
		return 1;
	if (n < 4) {
		say("@@lope info bad_plan_line %s", w[0]);
		return -1;
	}
	job->name = w[0];
	job->timeout_s = atol(w[1]);
	for (i = 2; i < n; i++) {
		if (args) {
			if (na < MAX_WORDS - 1)
				job->argv[na++] = w[i];
		} else if (!strcmp(w[i], "--")) {
			args = 1;
		} else if (!strncmp(w[i], "cwd=", 4)) {
			job->cwd = w[i] + 4;
		} else if (!strncmp(w[i], "paranoid=", 9)) {
			job->paranoid = w[i] + 9;
		} else if (!strncmp(w[i], "user_access=", 12)) {
			job->user_access = w[i] + 12;
		} else if (!strncmp(w[i], "env=", 4) && ne < MAX_WORDS - 2) {
			job->env[ne++] = w[i] + 4;
		} else {
			say("@@lope info bad_plan_word %s %s", job->name, w[i]);
			return -1;
		}
	}
	if (na == 0 || job->timeout_s <= 0) {
		say("@@lope info bad_plan_line %s", job->name);
		return -1;
	}
	return 0;
}

/* In the child: the job's environment, directory and program. */
static __attribute__((noreturn)) void child(const struct job *job, int wfd)
{
	int i;

	setpgid(0, 0);
	dup2(wfd, STDOUT_FILENO);
	dup2(wfd, STDERR_FILENO);
	i = open("/dev/null", O_RDONLY);
	if (i >= 0)
		dup2(i, STDIN_FILENO);
	clearenv();
	setenv("PATH", "/bin", 1);
	setenv("HOME", "/", 1);
	for (i = 0; job->env[i]; i++)
		putenv(job->env[i]);
	if (chdir(job->cwd))
		dprintf(STDERR_FILENO, "init: chdir %s: %s\n", job->cwd,
			strerror(errno));
	else
		execvp(job->argv[0], job->argv);
	dprintf(STDERR_FILENO, "init: exec %s: %s\n", job->argv[0],
		strerror(errno));
	_exit(127);
}

/* Reap without blocking; 1 once @pid has ended, its status in @st. */
static int reaped(pid_t pid, int *st)
{
	pid_t r;

	/* Process 1 also inherits every orphan: reap them too. */
	while ((r = waitpid(-1, st, WNOHANG)) > 0)
		if (r == pid)
			return 1;
	return 0;
}

/*
 * Copy the pipe @fd to the console until end of file or @deadline (ms),
 * reaping @pid on the way; once it has ended (*@gone), its children get
 * GRACE_MS more to finish with the pipe.  @nl tracks whether the last
 * byte written was a newline.
 */
static void pump(int fd, long long deadline, pid_t pid, int *st, int *gone,
		 int *nl)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[4096];
	long long left;
	ssize_t n;

	for (;;) {
		if (!*gone && reaped(pid, st)) {
			*gone = 1;
			if (deadline > now_ms() + GRACE_MS)
				deadline = now_ms() + GRACE_MS;
		}
		left = deadline - now_ms();
		if (left <= 0)
			return;
		if (poll(&p, 1, left > 100 ? 100 : (int)left) < 0 &&
		    errno != EINTR)
			return;
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		out(buf, (size_t)n);
		*nl = buf[n - 1] == '\n';
	}
}

/* Wait for @pid until @deadline (ms); 1 once it has ended. */
static int reap(pid_t pid, int *st, long long deadline)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };

	while (!reaped(pid, st)) {
		if (now_ms() >= deadline)
			return 0;
		nanosleep(&tick, NULL);
	}
	return 1;
}

/*
 * The kernel's words on a program a signal killed, into its output: the
 * lines of the kernel log since the last program that name a fault
 * ("unhandled signal 11 code 0x1 at ... in libpapi.so...": where it
 * was).  The console shows no such line (printk is 1, and the kernel
 * logs them at KERN_INFO).  The log is cleared after each program.
 */
static void kernel_says(int killed)
{
	static char log[1 << 16];
	char *line, *next;
	int n = klogctl(4 /* SYSLOG_ACTION_READ_CLEAR */, log, sizeof(log) - 1);

	if (n <= 0 || !killed)
		return;
	log[n] = '\0';
	for (line = log; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strstr(line, "unhandled") || strstr(line, "segfault"))
			say("# kernel: %s", line);
	}
}

static void report_end(const struct job *job, int timed_out, int st,
		       long long ms)
{
	kernel_says(!timed_out && WIFSIGNALED(st));
	if (timed_out)
		say("@@lope end %s timeout=%ld ms=%lld", job->name,
		    job->timeout_s, ms);
	else if (WIFSIGNALED(st))
		say("@@lope end %s signal=%d ms=%lld", job->name, WTERMSIG(st),
		    ms);
	else
		say("@@lope end %s exit=%d ms=%lld", job->name, WEXITSTATUS(st),
		    ms);
}

static void run(struct job *job)
{
	long long t0, ms;
	int fds[2], st = 0, nl = 1, gone = 0, ended = 1;
	pid_t pid;

	say("@@lope begin %s", job->name);
	if (put("/proc/sys/kernel/perf_event_paranoid", job->paranoid) ||
	    put(user_access_file(), job->user_access))
		say("init: cannot set paranoid=%s user_access=%s",
		    job->paranoid, job->user_access);
	if (pipe2(fds, O_CLOEXEC)) {
		say("init: pipe: %s", strerror(errno));
		say("@@lope end %s exit=127 ms=0", job->name);
		return;
	}
	t0 = now_ms();
	pid = fork();
	if (pid == 0)
		child(job, fds[1]);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		say("init: fork: %s", strerror(errno));
		say("@@lope end %s exit=127 ms=0", job->name);
		return;
	}
	setpgid(pid, pid); /* either side may win the race */
	pump(fds[0], t0 + job->timeout_s * 1000, pid, &st, &gone, &nl);
	if (!gone)
		gone = reap(pid, &st, t0 + job->timeout_s * 1000);
	ms = now_ms() - t0;
	/* Whatever is left of its process group (children still holding the
	 * pipe, or the program at its limit) is killed; their last output is
	 * still shown. */
	kill(-pid, SIGKILL);
	if (!gone)
		reap(pid, &st, now_ms() + GRACE_MS);
	pump(fds[0], now_ms() + GRACE_MS, pid, &st, &ended, &nl);
	close(fds[0]);
	if (!nl)
		out("\n", 1);
	report_end(job, !gone, st, ms);
}

static void run_plan(void)
{
	const char *plan = getenv("lope_plan");
	char line[MAX_LINE];
	struct job job;
	FILE *f;

	if (!plan || !*plan)
		plan = PLAN;
	f = fopen(plan, "re");
	if (!f) {
		say("@@lope info no_plan %s %s", plan, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f))
		if (parse(line, &job) == 0)
			run(&job);
	fclose(f);
}

int main(void)
{
	/* The kernel's messages would land between the programs' lines. */
	mount_all();
	(void)put("/proc/sys/kernel/printk", "1");
	describe();
	run_plan();
	say("@@lope done");
	sync();
	reboot(RB_POWER_OFF);
	return 0; /* not reached: process 1 must not exit */
}
