/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_stat: count a whole command with PAPI, as perf stat does.
 *
 *   papi_stat [-e EVENT[,EVENT...]] [-r N] [-o FILE] [-x SEP] [-d DOMAIN]
 *             [-i] -- COMMAND [ARGS...]
 *
 * Counting starts at the exec of COMMAND and ends at its exit, and nothing
 * of the launcher is counted (the perf stat patch of Paul Mackerras, 2009):
 *
 *   1. fork; the child does a dummy execvp("") so that resolving execvp's
 *      PLT entry happens now, says "ready" on a pipe and blocks reading a
 *      second pipe;
 *   2. the parent builds one PAPI event set per component, attaches it to
 *      the child (PAPI_attach) with LOPE_ENABLE_ON_EXEC=1 in its own
 *      environment, which asks our perf_event component to open the
 *      counters with enable_on_exec, and starts it: such a set is left to
 *      the kernel, which enables it at the child's next exec;
 *   3. the parent writes "go"; the child execs COMMAND.  If that fails the
 *      child sends errno over the first pipe (close-on-exec, so a
 *      successful exec closes it instead) and exits 127;
 *   4. the parent waits for the child, stops the sets (the counts of an
 *      exited task stay readable) and prints them.
 *
 * With a component that ignores LOPE_ENABLE_ON_EXEC (stock PAPI) the
 * counters start at PAPI_start instead, and the child's wake-up and exec
 * are counted too, as with the 2009 patch.  Components that cannot attach
 * to a process count over the command's wall time, and say so.
 *
 * Exit status: the command's (128 + signal if a signal killed it), 127 if
 * it could not be executed, 2 for bad input (nothing was run), 1 when
 * counting failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"

#include "../tool.h"
#include "command.h"

#define PROG "papi_stat"
#define MAX_EVENTS 64
#define MAX_RUNS 100000

/* Read by our perf_event component when a set is attached. */
#define ENV_ENABLE_ON_EXEC "LOPE_ENABLE_ON_EXEC"

const char *const tool_prog = PROG;

static const char *const default_sw[] = {
	"perf::TASK-CLOCK",
	"perf::CONTEXT-SWITCHES",
	"perf::CPU-MIGRATIONS",
	"perf::PAGE-FAULTS",
};
static const char *const default_hw[] = {
	"PAPI_TOT_CYC",
	"PAPI_TOT_INS",
	"PAPI_BR_INS",
	"PAPI_BR_MSP",
};

/* Running mean and sum of squared deviations (Welford). */
struct stats {
	int n;
	double mean, m2;
};

struct event {
	char name[PAPI_HUGE_STR_LEN]; /* as given */
	char units[PAPI_MIN_STR_LEN];
	int code;
	int cidx;
	int set; /* index in struct stat_run.sets */
	struct stats st;
	int missed; /* runs in which it could not be read */
};

/* One PAPI event set per component: a set holds one component's events. */
struct cset {
	int cidx;
	int es;
	int attach; /* the component can attach to a process */
	int nev;
	int ev[MAX_EVENTS];
};

struct opts {
	const char *events; /* -e, NULL: the default list */
	int runs;
	const char *out;
	const char *sep; /* -x, NULL: human-readable */
	int domain;      /* -d, 0: user and kernel where allowed */
	int inherit;
	char **argv;
};

struct stat_run {
	struct opts o;
	struct event ev[MAX_EVENTS];
	int nev;
	struct cset sets[MAX_EVENTS];
	int nsets;
	char note[1024]; /* which default events were chosen, and why */
	struct stats elapsed;
	int runs;
	FILE *out;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [-e EVENT[,EVENT...]] [-r N] [-o FILE] "
		"[-x SEP] [-d DOMAIN] [-i]\n"
		"                 -- COMMAND [ARGS...]\n"
		"  -e EVENTS  PAPI event names, comma separated (default: "
		"software events,\n"
		"             plus hardware presets where they can be counted)\n"
		"  -r N       run COMMAND N times: mean and relative spread\n"
		"  -o FILE    write the report to FILE (default: stderr)\n"
		"  -x SEP     CSV: value, unit, event, spread separated by "
		"SEP\n"
		"  -d DOMAIN  user, kernel or all (default: user and kernel "
		"where allowed)\n"
		"  -i         do not count the command's children\n");
}

static void stats_add(struct stats *s, double x)
{
	double d = x - s->mean;

	s->n++;
	s->mean += d / s->n;
	s->m2 += d * (x - s->mean);
}

/* perf stat's spread: the standard error of the mean, in % of the mean. */
static double stats_spread(const struct stats *s)
{
	double sd;

	if (s->n < 2 || s->mean == 0)
		return 0;
	sd = sqrt(s->m2 / (s->n - 1) / s->n);
	return 100 * sd / fabs(s->mean);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------ */
/* Options                                                             */

static int parse_domain(const char *s, int *domain)
{
	if (strcmp(s, "user") == 0)
		*domain = PAPI_DOM_USER;
	else if (strcmp(s, "kernel") == 0)
		*domain = PAPI_DOM_KERNEL;
	else if (strcmp(s, "all") == 0)
		*domain = PAPI_DOM_USER | PAPI_DOM_KERNEL;
	else
		return -1;
	return 0;
}

static int parse_runs(const char *s, int *runs)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > MAX_RUNS)
		return -1;
	*runs = (int)v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->runs = 1;
	o->inherit = 1;
	while ((c = getopt(argc, argv, "+e:r:o:x:d:ih")) != -1) {
		switch (c) {
		case 'e':
			o->events = optarg;
			break;
		case 'r':
			if (parse_runs(optarg, &o->runs)) {
				msg("-r wants a number of runs from 1 to %d, "
				    "not '%s'",
				    MAX_RUNS, optarg);
				return -1;
			}
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'x':
			o->sep = optarg;
			break;
		case 'd':
			if (parse_domain(optarg, &o->domain)) {
				msg("-d wants user, kernel or all, not '%s'",
				    optarg);
				return -1;
			}
			break;
		case 'i':
			o->inherit = 0;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind >= argc) {
		msg("no command given");
		usage(stderr);
		return -1;
	}
	o->argv = argv + optind;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Event sets                                                          */

static int set_domain(int es, int domain)
{
	PAPI_option_t opt;

	memset(&opt, 0, sizeof(opt));
	opt.domain.eventset = es;
	opt.domain.domain = domain;
	return PAPI_set_opt(PAPI_DOMAIN, &opt);
}

static int set_inherit(int es)
{
	PAPI_option_t opt;

	memset(&opt, 0, sizeof(opt));
	opt.inherit.eventset = es;
	opt.inherit.inherit = PAPI_INHERIT_ALL;
	return PAPI_set_opt(PAPI_INHERIT, &opt);
}

/*
 * The domain for a set of component @cidx: -d, else user and kernel where
 * the component's default leaves the kernel out (perf_event: user only)
 * and allows it; 0 keeps the component's default (uncore PMUs refuse
 * exclusion bits).
 */
static int domain_for(const struct opts *o, int cidx)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
	int want;

	if (o->domain)
		return o->domain;
	if (!ci || (ci->default_domain & PAPI_DOM_KERNEL))
		return 0;
	want = ci->available_domains & (PAPI_DOM_USER | PAPI_DOM_KERNEL);
	return want == ci->default_domain ? 0 : want;
}

/*
 * Attach @es to @pid with LOPE_ENABLE_ON_EXEC set for the call only (the
 * command was forked before, so it never sees the variable).
 */
static int attach_on_exec(int es, pid_t pid)
{
	const char *old = getenv(ENV_ENABLE_ON_EXEC);
	char *saved = old ? strdup(old) : NULL;
	int ret;

	if (setenv(ENV_ENABLE_ON_EXEC, "1", 1))
		ret = PAPI_ENOMEM;
	else
		ret = PAPI_attach(es, (unsigned long)pid);
	if (saved)
		(void)setenv(ENV_ENABLE_ON_EXEC, saved, 1);
	else
		(void)unsetenv(ENV_ENABLE_ON_EXEC);
	free(saved);
	return ret;
}

/*
 * A new set for component @cidx with papi_stat's options: one kernel group
 * per event where the component multiplexes in the kernel (the events are
 * independent, as in perf stat), children counted unless -i, the domain,
 * and attached to @pid (0: not attached, counts the caller).
 */
static int set_new(const struct opts *o, int cidx, pid_t pid, int *out)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
	int es = PAPI_NULL, ret, dom = domain_for(o, cidx);

	ret = PAPI_create_eventset(&es);
	if (ret == PAPI_OK)
		ret = PAPI_assign_eventset_component(es, cidx);
	if (ret == PAPI_OK && ci && ci->kernel_multiplex)
		(void)PAPI_set_multiplex(es); /* else one group: fine too */
	if (ret == PAPI_OK && o->inherit && ci && ci->inherit)
		ret = set_inherit(es);
	/* A component without domains is fine unless -d asked for one. */
	if (ret == PAPI_OK && dom && set_domain(es, dom) != PAPI_OK &&
	    o->domain)
		ret = PAPI_EINVAL_DOM;
	if (ret == PAPI_OK && pid > 0 && ci && ci->attach)
		ret = attach_on_exec(es, pid);
	if (ret != PAPI_OK && es != PAPI_NULL)
		set_delete(&es);
	*out = es;
	return ret;
}

/* Delete every set built so far (the others are PAPI_NULL). */
static void sets_delete(struct stat_run *r)
{
	int i;

	for (i = 0; i < r->nsets; i++)
		if (r->sets[i].es != PAPI_NULL)
			set_delete(&r->sets[i].es);
}

/* Group the events by component, one set each (not created yet). */
static void sets_plan(struct stat_run *r)
{
	int i, j;

	r->nsets = 0;
	for (i = 0; i < r->nev; i++) {
		struct event *e = &r->ev[i];

		for (j = 0; j < r->nsets && r->sets[j].cidx != e->cidx; j++)
			;
		if (j == r->nsets) {
			const PAPI_component_info_t *ci =
				PAPI_get_component_info(e->cidx);

			memset(&r->sets[j], 0, sizeof(r->sets[j]));
			r->sets[j].cidx = e->cidx;
			r->sets[j].es = PAPI_NULL;
			r->sets[j].attach = ci && ci->attach;
			r->nsets++;
		}
		e->set = j;
		r->sets[j].ev[r->sets[j].nev++] = i;
	}
}

/*
 * Create every set, attached to @pid (0: on ourselves, to check the
 * events), and add the events.  On failure *bad is the event (or -1) and
 * nothing stays open.
 */
static int sets_build(struct stat_run *r, pid_t pid, int *bad)
{
	int i, j, ret;

	*bad = -1;
	for (i = 0; i < r->nsets; i++) {
		struct cset *s = &r->sets[i];

		ret = set_new(&r->o, s->cidx, pid, &s->es);
		for (j = 0; ret == PAPI_OK && j < s->nev; j++) {
			ret = PAPI_add_event(s->es, r->ev[s->ev[j]].code);
			if (ret != PAPI_OK)
				*bad = s->ev[j];
		}
		if (ret != PAPI_OK) {
			if (*bad < 0)
				*bad = s->ev[0];
			sets_delete(r);
			return ret;
		}
	}
	return PAPI_OK;
}

/* Attached sets first: they only arm (enable at exec); then the others. */
static int sets_start(struct stat_run *r)
{
	int pass, i, ret;

	for (pass = 1; pass >= 0; pass--)
		for (i = 0; i < r->nsets; i++) {
			if (r->sets[i].attach != pass)
				continue;
			ret = PAPI_start(r->sets[i].es);
			if (ret != PAPI_OK)
				return ret;
		}
	return PAPI_OK;
}

/* Stop every set and add its counts to the statistics. */
static void sets_stop(struct stat_run *r)
{
	long long v[MAX_EVENTS];
	int i, j;

	for (i = 0; i < r->nsets; i++) {
		struct cset *s = &r->sets[i];
		int ret = PAPI_stop(s->es, v);

		for (j = 0; j < s->nev; j++) {
			struct event *e = &r->ev[s->ev[j]];

			if (ret == PAPI_OK)
				stats_add(&e->st, (double)v[j]);
			else
				e->missed++;
		}
		if (ret != PAPI_OK)
			msg("reading %s: %s", r->ev[s->ev[0]].name,
			    PAPI_strerror(ret));
	}
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

static int event_add(struct stat_run *r, const char *name)
{
	struct event *e = &r->ev[r->nev];
	PAPI_event_info_t info;

	if (r->nev == MAX_EVENTS) {
		msg("too many events (at most %d)", MAX_EVENTS);
		return -1;
	}
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	if (PAPI_event_name_to_code(name, &e->code) != PAPI_OK) {
		msg("unknown event '%s' (see papi_avail and "
		    "papi_native_avail)",
		    name);
		return -1;
	}
	e->cidx = PAPI_get_event_component(e->code);
	if (e->cidx < 0) {
		msg("event '%s' belongs to no active component", name);
		return -1;
	}
	if (PAPI_get_event_info(e->code, &info) == PAPI_OK)
		snprintf(e->units, sizeof(e->units), "%s", info.units);
	r->nev++;
	return 0;
}

static int events_parse(struct stat_run *r, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok && ret == 0;
	     tok = strtok_r(NULL, ",", &save))
		ret = event_add(r, tok);
	free(copy);
	if (ret == 0 && r->nev == 0) {
		msg("-e: no event given");
		ret = -1;
	}
	return ret;
}

/* Can @name be added to a set on ourselves and started?  A PAPI error. */
static int probe(const struct opts *o, const char *name)
{
	int code, es, ret = PAPI_event_name_to_code(name, &code);

	if (ret != PAPI_OK)
		return ret;
	ret = set_new(o, PAPI_get_event_component(code), 0, &es);
	if (ret != PAPI_OK)
		return ret;
	ret = PAPI_add_event(es, code);
	if (ret == PAPI_OK)
		ret = PAPI_start(es);
	set_delete(&es);
	return ret;
}

#define NR_SW (sizeof(default_sw) / sizeof(default_sw[0]))
#define NR_HW (sizeof(default_hw) / sizeof(default_hw[0]))
#define NR_DEFAULT (NR_SW + NR_HW)

/* Default events left out, and the PAPI error of each. */
struct missing {
	const char *name[NR_DEFAULT];
	int ret[NR_DEFAULT];
	int n;
};

static void __attribute__((format(printf, 4, 5)))
append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n >= len)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	*n = k < 0 ? len : *n + (size_t)k;
}

/* "A, B: error; C: other error", events with the same error together. */
static void missing_text(const struct missing *m, char *buf, size_t len)
{
	size_t n = 0;
	int i, j, first;

	buf[0] = '\0';
	for (i = 0; i < m->n; i++) {
		for (j = 0; j < i && m->ret[j] != m->ret[i]; j++)
			;
		if (j < i)
			continue; /* listed with the first of its error */
		append(buf, len, &n, "%s", n ? "; " : "");
		for (j = i, first = 1; j < m->n; j++)
			if (m->ret[j] == m->ret[i]) {
				append(buf, len, &n, "%s%s", first ? "" : ", ",
				       m->name[j]);
				first = 0;
			}
		append(buf, len, &n, ": %s", PAPI_strerror(m->ret[i]));
	}
}

/* Add the events of @names that can be added and started; count them. */
static int add_countable(struct stat_run *r, const char *const *names,
			 size_t nr, struct missing *m)
{
	size_t i;
	int added = 0, ret;

	for (i = 0; i < nr; i++) {
		ret = probe(&r->o, names[i]);
		if (ret != PAPI_OK) {
			m->name[m->n] = names[i];
			m->ret[m->n++] = ret;
		} else if (event_add(r, names[i]) == 0) {
			added++;
		}
	}
	return added;
}

/*
 * The default list: the four software events (any Linux), then the
 * hardware presets that can be added and started here.  r->note says
 * which were chosen and why any were left out.
 */
static int events_default(struct stat_run *r)
{
	struct missing m = { .n = 0 };
	char text[768];
	int nsw, nhw;

	nsw = add_countable(r, default_sw, NR_SW, &m);
	nhw = add_countable(r, default_hw, NR_HW, &m);
	missing_text(&m, text, sizeof(text));
	snprintf(r->note, sizeof(r->note), "default events: %s%s%s%s",
		 nhw ? (nsw ? "software and hardware" : "hardware only") :
		       "software only",
		 m.n ? " (not counted here: " : "", text, m.n ? ")" : "");
	if (r->nev == 0) {
		msg("none of the default events can be counted here: %s", text);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Running the command (command.h)                                     */

/* Attach and start the counters while the child waits; -1: abandon it. */
static int arm(struct stat_run *r, pid_t pid)
{
	int bad, ret;

	ret = sets_build(r, pid, &bad);
	if (ret == PAPI_OK)
		ret = sets_start(r);
	if (ret != PAPI_OK) {
		msg("cannot count %s on the command: %s",
		    bad >= 0 ? r->ev[bad].name : "the events",
		    PAPI_strerror(ret));
		sets_delete(r);
		return -1;
	}
	return 0;
}

/*
 * One run: *status gets the command's shell status.  Returns 0 when the
 * command ran and was counted, -1 when papi_stat failed (*status is then
 * papi_stat's own exit code).
 */
static int run_once(struct stat_run *r, int *status)
{
	struct command c;
	int err, wst = 0;
	double t0;

	*status = EX_FAIL;
	if (command_start(&c, r->o.argv))
		return -1;
	if (command_ready(&c) || arm(r, c.pid)) {
		command_abandon(&c);
		if (command_interrupted)
			*status = 128 + command_interrupted;
		return -1;
	}
	t0 = now();
	err = command_finish(&c, &wst);
	if (err) {
		sets_delete(r); /* no counter outlives a failed exec */
		msg("cannot run '%s': %s", r->o.argv[0], strerror(err));
		*status = EX_NOEXEC;
		return -1;
	}
	stats_add(&r->elapsed, now() - t0);
	sets_stop(r);
	sets_delete(r);
	r->runs++;
	*status = command_status(wst);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Report                                                              */

/* perf::TASK-CLOCK or CPU-CLOCK (any PMU prefix, any modifiers): in ns. */
static int is_clock(const char *name)
{
	const char *p = strstr(name, "::");
	size_t n;

	p = p ? p + 2 : name;
	n = strcspn(p, ":");
	return (n == 10 && strncasecmp(p, "TASK-CLOCK", n) == 0) ||
	       (n == 9 && strncasecmp(p, "CPU-CLOCK", n) == 0);
}

static const char *units_of(const struct event *e)
{
	if (e->units[0])
		return e->units;
	return is_clock(e->name) ? "ns" : "";
}

static void command_line(const struct stat_run *r, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; r->o.argv[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "",
				      r->o.argv[i]);
}

static void spread_text(const struct stats *s, int runs, char *buf, size_t len)
{
	if (runs > 1)
		snprintf(buf, len, "( +- %5.2f%% )", stats_spread(s));
	else
		buf[0] = '\0';
}

static void report_event_human(const struct stat_run *r, const struct event *e)
{
	char comment[64] = "", spread[32];

	if (e->st.n == 0) {
		fprintf(r->out, "%18s      %-30s\n", "<not counted>", e->name);
		return;
	}
	if (is_clock(e->name) && r->elapsed.mean > 0)
		snprintf(comment, sizeof(comment), "# %8.3f CPUs utilized",
			 e->st.mean / 1e9 / r->elapsed.mean);
	else if (!r->sets[e->set].attach)
		snprintf(comment, sizeof(comment), "# not per process");
	spread_text(&e->st, r->runs, spread, sizeof(spread));
	if (spread[0])
		fprintf(r->out, "%18.0f      %-30s %-26s %s\n", e->st.mean,
			e->name, comment, spread);
	else if (comment[0])
		fprintf(r->out, "%18.0f      %-30s %s\n", e->st.mean, e->name,
			comment);
	else
		fprintf(r->out, "%18.0f      %s\n", e->st.mean, e->name);
}

static void report_human(const struct stat_run *r)
{
	char cmd[512], spread[32];
	int i;

	command_line(r, cmd, sizeof(cmd));
	fprintf(r->out, "\n Performance counter stats for '%s'", cmd);
	if (r->runs > 1)
		fprintf(r->out, " (%d runs)", r->runs);
	fprintf(r->out, ":\n");
	if (r->note[0])
		fprintf(r->out, " # %s\n", r->note);
	fprintf(r->out, "\n");
	for (i = 0; i < r->nev; i++)
		report_event_human(r, &r->ev[i]);
	spread_text(&r->elapsed, r->runs, spread, sizeof(spread));
	fprintf(r->out, "\n%18.9f seconds time elapsed", r->elapsed.mean);
	if (spread[0])
		fprintf(r->out, "%43s%s", "", spread);
	fprintf(r->out, "\n\n");
}

/* value SEP unit SEP event SEP spread; '#' lines are comments. */
static void report_csv(const struct stat_run *r)
{
	const char *sep = r->o.sep;
	char spread[32];
	int i;

	if (r->note[0])
		fprintf(r->out, "# %s\n", r->note);
	for (i = 0; i < r->nev; i++) {
		const struct event *e = &r->ev[i];

		spread[0] = '\0';
		if (r->runs > 1)
			snprintf(spread, sizeof(spread), "%.2f%%",
				 stats_spread(&e->st));
		if (e->st.n == 0)
			fprintf(r->out, "<not counted>%s%s%s%s%s\n", sep,
				units_of(e), sep, e->name, sep);
		else
			fprintf(r->out, "%.0f%s%s%s%s%s%s\n", e->st.mean, sep,
				units_of(e), sep, e->name, sep, spread);
	}
	spread[0] = '\0';
	if (r->runs > 1)
		snprintf(spread, sizeof(spread), "%.2f%%",
			 stats_spread(&r->elapsed));
	fprintf(r->out, "%.9f%ss%stime-elapsed%s%s\n", r->elapsed.mean, sep,
		sep, sep, spread);
}

static void report(const struct stat_run *r)
{
	if (r->runs == 0)
		return;
	if (r->o.sep)
		report_csv(r);
	else
		report_human(r);
	fflush(r->out);
}

/* ------------------------------------------------------------------ */

/* Library, events, and one trial build of the sets: all before any run. */
static int setup(struct stat_run *r)
{
	int ret, bad;

	ret = PAPI_library_init(PAPI_VER_CURRENT);
	if (ret != PAPI_VER_CURRENT) {
		msg("PAPI_library_init: %s",
		    ret > 0 ? "version mismatch" : PAPI_strerror(ret));
		return EX_FAIL;
	}
	(void)PAPI_multiplex_init();
	ret = r->o.events ? events_parse(r, r->o.events) : events_default(r);
	if (ret)
		return r->nev || r->o.events ? EX_USAGE : EX_FAIL;
	sets_plan(r);
	ret = sets_build(r, 0, &bad);
	if (ret != PAPI_OK) {
		msg("event '%s' cannot be counted here: %s",
		    bad >= 0 ? r->ev[bad].name : "?", PAPI_strerror(ret));
		return EX_USAGE;
	}
	sets_delete(r);
	return 0;
}

static int open_output(struct stat_run *r)
{
	r->out = stderr;
	if (!r->o.out)
		return 0;
	/* close-on-exec: the command does not inherit the report file */
	r->out = fopen(r->o.out, "we");
	if (!r->out) {
		msg("cannot open %s: %s", r->o.out, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct stat_run r;
	int i, status = 0, ret;

	if (parse_opts(argc, argv, &r.o))
		return EX_USAGE;
	ret = setup(&r);
	if (ret)
		return ret;
	if (open_output(&r))
		return EX_USAGE;
	command_signals();
	for (i = 0; i < r.o.runs && !command_interrupted; i++) {
		if (run_once(&r, &status)) {
			if (status == EX_NOEXEC)
				return status;
			break;
		}
	}
	report(&r);
	if (r.out != stderr && fclose(r.out)) {
		msg("writing %s: %s", r.o.out, strerror(errno));
		return EX_FAIL;
	}
	PAPI_shutdown();
	return status;
}
