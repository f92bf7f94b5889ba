/* SPDX-License-Identifier: BSD-3-Clause */
/* The PAPI tests' helpers (papi_util.h). */
#include "papi_util.h"

const char *const sw_events[NSW_EVENTS] = {
	"perf::TASK-CLOCK",
	"perf::PAGE-FAULTS",
	"perf::CONTEXT-SWITCHES",
	"perf::CPU-MIGRATIONS",
};

const char *libpapi_path(void)
{
	static char path[PATH_MAX];

	(void)libpapi_file(path);
	return path;
}

const char *papi_err(int rc)
{
	static char buf[4][96];
	static int i;
	const char *s = PAPI_strerror(rc);

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%d (%s)", rc, s ? s : "?");
	return buf[i];
}

/* PAPI_library_init; a FAIL and the exit when it fails. */
static void init_or_exit(void)
{
	int rc = PAPI_library_init(PAPI_VER_CURRENT);

	if (rc != PAPI_VER_CURRENT) {
		lope_fail("library_init", "PAPI_library_init returned %s",
			  papi_err(rc));
		lope_exit();
	}
	lope_info("libpapi: %s", libpapi_path());
}

void papi_init_or_exit(void)
{
	init_or_exit();
	lope_pass("library_init");
}

void papi_init_quiet_or_exit(void)
{
	init_or_exit();
}

void thread_init_or_exit(const char *name, unsigned long (*id)(void))
{
	int rc = PAPI_thread_init(id);

	if (!lope_check(rc == PAPI_OK, name, "%s", papi_err(rc)))
		lope_exit();
}

int papi_run_tests(void (*const *tests)(void), size_t n)
{
	size_t i;
	int fds;

	setvbuf(stdout, NULL, _IOLBF, 0);
	papi_init_or_exit();
	fds = fd_count();
	for (i = 0; i < n; i++)
		tests[i]();
	lope_check(fd_count() == fds, "no_fd_leak_over_whole_run",
		   "descriptors %d after init, %d at the end", fds, fd_count());
	PAPI_shutdown();
	return lope_done();
}

const PAPI_component_info_t *cmpinfo_or_exit(void)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);

	if (!lope_check(ci != NULL, "cmpinfo", "PAPI_get_component_info(0)"))
		lope_exit();
	return ci;
}

int code_of(const char *name)
{
	int code = 0;

	return PAPI_event_name_to_code(name, &code) == PAPI_OK ? code : 0;
}

int make_named_set(int *set, const char *const *names, int n)
{
	int i, rc;

	*set = PAPI_NULL;
	rc = PAPI_create_eventset(set);
	for (i = 0; rc == PAPI_OK && i < n; i++)
		rc = PAPI_add_named_event(*set, names[i]);
	return rc;
}

int make_empty_set(int *set)
{
	int rc;

	*set = PAPI_NULL;
	rc = PAPI_create_eventset(set);
	return rc == PAPI_OK ? PAPI_assign_eventset_component(*set, 0) : rc;
}

int register_with_set(int *set, const int *codes, int n, const char **call)
{
	int i, rc;

	*set = PAPI_NULL;
	*call = "PAPI_register_thread";
	rc = PAPI_register_thread();
	if (rc == PAPI_OK) {
		*call = "PAPI_create_eventset";
		rc = PAPI_create_eventset(set);
	}
	for (i = 0; rc == PAPI_OK && i < n; i++) {
		*call = "PAPI_add_event";
		rc = PAPI_add_event(*set, codes[i]);
	}
	return rc;
}

int read_went_down(int set, long long *v, long long *last, int n)
{
	int i, down = 0;

	if (PAPI_read(set, v) != PAPI_OK)
		return -1;
	for (i = 0; i < n; i++) {
		down += v[i] < last[i];
		last[i] = v[i];
	}
	return down;
}

int set_ok_or_drop(const char *name, int rc, int *set)
{
	if (lope_check(rc == PAPI_OK, name, "rc=%s", papi_err(rc)))
		return 1;
	drop_set(set);
	return 0;
}

int papi_start(int set, long long *unused)
{
	(void)unused;
	return PAPI_start(set);
}

int papi_reset(int set, long long *unused)
{
	(void)unused;
	return PAPI_reset(set);
}

int call_marked(struct span *s, int (*call)(int, long long *), int set,
		long long *v)
{
	int rc;

	if (!s)
		return call(set, v);
	(void)span_mark(s);
	rc = call(set, v);
	(void)span_mark(s);
	return rc;
}

int count_target_spin(int set, int rc, struct target *w, long long ns,
		      long long *v, long long *spun, struct span *s)
{
	if (rc == PAPI_OK)
		rc = call_marked(s, papi_start, set, NULL);
	if (rc == PAPI_OK) {
		*spun = target_do(w, 'b', ns);
		rc = call_marked(s, PAPI_stop, set, v);
	}
	return rc;
}

int spin_between_marks(int set, int rc, long long ns,
		       int (*end)(int, long long *), long long *v,
		       struct span *sp)
{
	if (rc != PAPI_OK)
		return rc;
	rc = call_marked(sp, papi_start, set, NULL);
	busy_ns(ns);
	return rc == PAPI_OK ? call_marked(sp, end, set, v) : rc;
}

void check_task_clock(const char *name, int rc, long long got,
		      const struct span *s, const char *whose, const char *note)
{
	lope_check(rc == PAPI_OK && span_holds(s, got), name,
		   "rc=%s task-clock %lld ns, %s own %lld..%lld ns%s%s",
		   papi_err(rc), got, whose, span_lo(s), span_hi(s),
		   note ? "; " : "", note ? note : "");
}

int start_read_stop(int set, int rc, long long *v)
{
	if (rc == PAPI_OK)
		rc = PAPI_start(set);
	if (rc == PAPI_OK)
		rc = PAPI_read(set, v);
	if (rc == PAPI_OK)
		rc = PAPI_stop(set, v);
	return rc;
}

void expect_rc(const char *name, int got, int want, int fd_before)
{
	int fd_after = fd_count();

	if (got != want)
		lope_fail(name, "returned %s, expected %s", papi_err(got),
			  papi_err(want));
	else if (fd_after != fd_before)
		lope_fail(name,
			  "returned %d as expected but open descriptors "
			  "went %d -> %d",
			  got, fd_before, fd_after);
	else
		lope_pass(name);
}

static int set_opt(int option, PAPI_option_t opt)
{
	return PAPI_set_opt(option, &opt);
}

int set_granularity(int set, int granularity)
{
	return set_opt(PAPI_GRANUL,
		       (PAPI_option_t){
			       .granularity = { .eventset = set,
						.granularity = granularity } });
}

int set_cpu_attach(int set, unsigned int cpu)
{
	return set_opt(
		PAPI_CPU_ATTACH,
		(PAPI_option_t){ .cpu = { .eventset = set, .cpu_num = cpu } });
}

int get_domain(int set)
{
	PAPI_option_t opt;
	int rc;

	memset(&opt, 0, sizeof(opt));
	opt.domain.eventset = set;
	rc = PAPI_get_opt(PAPI_DOMAIN, &opt);
	return rc == PAPI_OK ? opt.domain.domain : rc;
}

FILE *rerun_on_stock(const char *var, pid_t *pid, char lib[PATH_MAX], char *why,
		     size_t len)
{
	const char *dir = getenv("PAPI_STOCK_BUILDDIR");
	const char *lp = getenv("LD_LIBRARY_PATH");
	char want[PATH_MAX], env[2 * PATH_MAX];
	int fd[2], null;
	FILE *in;

	if (!dir || !*dir) {
		snprintf(why, len,
			 "no stock PAPI build (PAPI_STOCK_BUILDDIR unset)");
		return NULL;
	}
	snprintf(want, sizeof(want), "%s/libpapi.so", dir);
	if (!realpath(want, lib) || pipe(fd) != 0) {
		snprintf(why, len, "%.300s: %s", want, strerror(errno));
		return NULL;
	}
	snprintf(env, sizeof(env), "%s%s%s", dir, lp && *lp ? ":" : "",
		 lp ? lp : "");
	fflush(stdout);
	*pid = fork();
	if (*pid == 0) {
		null = open("/dev/null", O_WRONLY);
		dup2(fd[1], STDOUT_FILENO);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		close(fd[0]);
		close(fd[1]);
		setenv("LD_LIBRARY_PATH", env, 1);
		setenv(var, "1", 1);
		unsetenv("LIBPFM_FORCE_PMU");
		execl("/proc/self/exe", program_invocation_short_name,
		      (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	in = *pid > 0 ? fdopen(fd[0], "r") : NULL;
	if (!in) {
		close(fd[0]);
		snprintf(why, len, "fork: %s", strerror(errno));
	}
	return in;
}
