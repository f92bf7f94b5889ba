/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_permissions: the components decide from what the kernel allows
 * this process, not from perf_event_paranoid alone (doc/every-cpu.md).
 *
 * Every case runs PAPI in a forked child, which reports through its exit
 * status:
 *  - at perf_event_paranoid 3 (Debian's and Ubuntu's default; upstream
 *    kernels treat it as 2), root (CAP_PERFMON) counts: the component is
 *    active and perf::TASK-CLOCK counts;
 *  - at perf_event_paranoid 3, an unprivileged process (uid 65534) gets
 *    what the kernel gives it: where the kernel refuses it every event
 *    (Debian's patch), the component is disabled and the reason names the
 *    level and both remedies; where it does not (upstream), the component
 *    is active, with the kernel domain only if the kernel opens a
 *    kernel-mode event for it;
 *  - a process the kernel refuses perf_event_open altogether (a seccomp
 *    filter answers EACCES, as Debian's paranoid 3 does): both components
 *    disabled, each with the reason and the remedy, and no event added.
 * The paranoid level is set only when this test may write it (root), and
 * restored.
 *
 * Report protocol: ctests/lib/report.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>

#include "papi_util.h"
#include "sw_counter.h"

#define PARANOID "/proc/sys/kernel/perf_event_paranoid"

/* Exit statuses of the children. */
enum { CHILD_OK = 0, CHILD_BAD = 1, CHILD_SETUP = 3 };

static int saved_paranoid = INT_MIN;

static int write_paranoid(int level)
{
	FILE *f = fopen(PARANOID, "w");

	if (!f)
		return -1;
	fprintf(f, "%d\n", level);
	return fclose(f) ? -1 : 0;
}

static void restore_paranoid(void)
{
	if (saved_paranoid != INT_MIN)
		(void)write_paranoid(saved_paranoid);
}

static void restore_on_signal(int sig)
{
	restore_paranoid();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Set the level for the cases that need it; 0, or -1 if we may not. */
static int set_paranoid(int level)
{
	if (saved_paranoid == INT_MIN) {
		saved_paranoid = read_int(PARANOID);
		if (saved_paranoid == INT_MIN)
			return -1;
		atexit(restore_paranoid);
		signal(SIGTERM, restore_on_signal);
		signal(SIGINT, restore_on_signal);
	}
	return write_paranoid(level);
}

/* In a child: perf::TASK-CLOCK counts some work. */
static int task_clock_counts(void)
{
	static const char *const names[] = { "perf::TASK-CLOCK" };
	long long v = 0;
	int set, rc = make_named_set(&set, names, 1);

	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	busy_ns(5 * MS);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, &v);
	return rc == PAPI_OK && v > 0;
}

/*
 * Does component @cidx say it is disabled, naming the level and the
 * remedies: the capability, and the sysctl down to @allowed where the
 * level is above it (else a policy, not the level, refused)?
 */
static int disabled_with_remedy(int cidx, int allowed)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
	const char *why;
	char sysctl[64];

	if (!ci || !ci->disabled)
		return 0;
	why = ci->disabled_reason;
	printf("# component %d (%s) disabled: %s\n", cidx, ci->name, why);
	snprintf(sysctl, sizeof(sysctl), "sysctl kernel.perf_event_paranoid=%d",
		 allowed);
	return strstr(why, "CAP_PERFMON") &&
	       strstr(why, "perf_event_paranoid") &&
	       !!strstr(why, sysctl) == (read_int(PARANOID) > allowed);
}

static int child_root(void)
{
	const PAPI_component_info_t *ci;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return CHILD_BAD;
	ci = PAPI_get_component_info(0);
	return ci && !ci->disabled && task_clock_counts() ? CHILD_OK :
							    CHILD_BAD;
}

static int child_unprivileged(void)
{
	const PAPI_component_info_t *ci;
	int user, kernel;

	if (drop_to_nobody())
		return CHILD_SETUP;
	/* The raw kernel answer: does it open task-clock for us? */
	user = perf_opens(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1);
	kernel = perf_opens(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0);
	printf("# as uid %d the kernel opens task-clock: user %d, kernel %d\n",
	       NOBODY, user, kernel);
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return CHILD_BAD;
	if (!user)
		return disabled_with_remedy(0, 2) ? CHILD_OK : CHILD_BAD;
	ci = PAPI_get_component_info(0);
	if (!ci || ci->disabled || !task_clock_counts())
		return CHILD_BAD;
	return !!(ci->available_domains & PAPI_DOM_KERNEL) == kernel ?
		       CHILD_OK :
		       CHILD_BAD;
}

/* A seccomp filter: perf_event_open fails with EACCES, nothing else. */
static int refuse_perf_event_open(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static int child_refused(void)
{
	int set = PAPI_NULL, rc;

	if (refuse_perf_event_open())
		return CHILD_SETUP;
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return CHILD_BAD;
	if (!disabled_with_remedy(0, 2) || !disabled_with_remedy(1, 0))
		return CHILD_BAD;
	rc = PAPI_create_eventset(&set);
	if (rc == PAPI_OK)
		rc = PAPI_add_named_event(set, "perf::TASK-CLOCK");
	return rc == PAPI_OK ? CHILD_BAD : CHILD_OK;
}

/* Run @fn in a child with its own PAPI, one case from its exit status. */
static void in_child(const char *name, int (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(fn());
	st = pid < 0 ? -1 : wait_child(pid);
	if (st == CHILD_SETUP)
		lope_skip(name, "the child could not set itself up (setuid, "
				"seccomp)");
	else
		lope_check(st == CHILD_OK, name, "child status %d", st);
}

int main(void)
{
	int level = read_int(PARANOID);

	setvbuf(stdout, NULL, _IOLBF, 0);
	lope_info("perf_event_paranoid is %d", level);
	in_child("refused_process_both_components_disabled_with_the_remedy",
		 child_refused);
	if (geteuid() != 0 || set_paranoid(3) != 0) {
		lope_skip("paranoid_3_root_counts",
			  "not root: cannot set perf_event_paranoid");
		lope_skip("paranoid_3_unprivileged_as_the_kernel_allows",
			  "not root: cannot set perf_event_paranoid");
		return lope_done();
	}
	in_child("paranoid_3_root_counts", child_root);
	in_child("paranoid_3_unprivileged_as_the_kernel_allows",
		 child_unprivileged);
	restore_paranoid();
	lope_check(read_int(PARANOID) == level, "paranoid_level_restored",
		   "now %d, was %d", read_int(PARANOID), level);
	return lope_done();
}
