/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parent's side: the method, one column per worker, each worker run
 * natively (system calls; instructions with the counter method) and,
 * with the callgrind method, once more under valgrind, whose dumps give
 * the instructions.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "icount.h"

/* What a line callback works on: a column, in one of its runs. */
struct run {
	struct ic *ic;
	struct col *c;
	int valgrind;
};

static struct res *res_get(struct col *c, const char *target, const char *call,
			   int nev)
{
	struct res *r;
	int i;

	for (i = 0; i < c->nres; i++) {
		r = &c->res[i];
		if (r->nev == nev && !strcmp(r->target, target) &&
		    !strcmp(r->call, call))
			return r;
	}
	c->res = xrealloc(c->res, (size_t)c->nres + 1, sizeof(*c->res));
	r = &c->res[c->nres++];
	memset(r, 0, sizeof(*r));
	scopy(r->target, sizeof(r->target), target);
	scopy(r->call, sizeof(r->call), call);
	r->nev = nev;
	return r;
}

/* "sum,min,nmin,max" into @c; "-" leaves it uncounted. */
static void count_parse(struct count *c, const char *s)
{
	c->ok = sscanf(s, "%lf,%lf,%ld,%lf", &c->sum, &c->min, &c->nmin,
		       &c->max) == 4;
}

/* "case TARGET CALL NEV N INS SYS": the counts this run took. */
static void case_line(const struct run *x, const char *line)
{
	char target[8], call[12], ins[96], sys[96];
	struct res *r;
	long n;
	int nev;

	if (sscanf(line, "case %7s %11s %d %ld %95s %95s", target, call, &nev,
		   &n, ins, sys) != 6)
		return;
	r = res_get(x->c, target, call, nev);
	r->n = n;
	if (!x->valgrind)
		count_parse(&r->sys, sys);
	if (x->valgrind || !strcmp(x->ic->method, "counter"))
		count_parse(&r->ins, ins);
}

/* "path TARGET CALL NEV SYS CALLS MIN MAX": one path of a case. */
static void path_line(const struct run *x, const char *line)
{
	char target[8], call[12];
	struct path p;
	struct res *r;
	int nev;

	if (!x->valgrind && strcmp(x->ic->method, "counter"))
		return; /* instructions come from another run */
	if (sscanf(line, "path %7s %11s %d %ld %ld %lf %lf", target, call, &nev,
		   &p.sys, &p.calls, &p.min, &p.max) != 7)
		return;
	r = res_get(x->c, target, call, nev);
	if (r->npaths < MAX_PATHS)
		r->path[r->npaths++] = p;
}

/* "na|err TARGET CALL NEV WHY". */
static void why_line(const struct run *x, const char *line, int kind)
{
	char target[8], call[12];
	struct res *r;
	int nev, off = 0;

	if (sscanf(strchr(line, ' ') + 1, "%7s %11s %d %n", target, call, &nev,
		   &off) < 3 ||
	    !off)
		return;
	r = res_get(x->c, target, call, nev);
	if (r->kind != RES_OK)
		return; /* the first reason stays: the native run's */
	r->kind = kind;
	scopy(r->msg, sizeof(r->msg), strchr(line, ' ') + 1 + off);
}

static void run_line(void *arg, char *line)
{
	static const struct line_text text[] = {
		LINE_TEXT(struct col, "info events ", events),
		LINE_TEXT(struct col, "info choice ", choice),
		LINE_TEXT(struct col, "usage ", usage),
	};
	const struct run *x = arg;
	int counter = !strcmp(x->ic->method, "counter");

	if (line_text(x->c, text, ARRAY_SIZE(text), line))
		return;
	if (!strncmp(line, "info ins ", 9) && (x->valgrind || counter))
		scopy(x->c->ins_why, sizeof(x->c->ins_why), line + 9);
	else if (!strncmp(line, "info sys ", 9) && !x->valgrind)
		scopy(x->c->sys_why, sizeof(x->c->sys_why), line + 9);
	else if (!strncmp(line, "case ", 5))
		case_line(x, line);
	else if (!strncmp(line, "path ", 5))
		path_line(x, line);
	else if (!strncmp(line, "na ", 3))
		why_line(x, line, RES_NA);
	else if (!strncmp(line, "err ", 4))
		why_line(x, line, RES_ERR);
}

/* Run column @c's worker once: natively, or under @wrap. */
static void col_run(struct ic *ic, struct col *c, struct worker *w,
		    const char *events, int maxev)
{
	char nbuf[32], kbuf[16];
	struct run x = { ic, c, w->wrap != NULL };
	const char *method = x.valgrind                     ? "callgrind" :
			     !strcmp(ic->method, "counter") ? "counter" :
							      "sys";
	const char *args[] = { method, nbuf, kbuf, events, NULL };

	snprintf(nbuf, sizeof(nbuf), "%ld", ic->o.n);
	snprintf(kbuf, sizeof(kbuf), "%d", maxev);
	worker_run(w, w->path == WORKER_FLOOR ? "--_floor" : "--_papi", ic->cpu,
		   args, run_line, &x);
}

/* ------------------------------------------------------------------ */
/* Under callgrind                                                     */
/* ------------------------------------------------------------------ */

/* The directory column @c's dumps go to; 0, or -1. */
static int dump_dir(const struct ic *ic, const struct col *c, char *dir,
		    size_t len)
{
	const char *tmp = getenv("TMPDIR");

	if (ic->o.keep) {
		if (snprintf(dir, len, "%s/%s", ic->o.keep, c->w.name) >=
		    (int)len)
			return -1;
		return mkdir(dir, 0777) && errno != EEXIST ? -1 : 0;
	}
	if (snprintf(dir, len, "%s/papi_icount.XXXXXX",
		     tmp && *tmp ? tmp : "/tmp") >= (int)len)
		return -1;
	return mkdtemp(dir) ? 0 : -1;
}

/* Remove what callgrind left in @dir (its final, empty dump), and @dir
 * unless kept. */
static void dump_clean(const char *dir, int keep)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)) != NULL)
		if (!strncmp(de->d_name, "callgrind.out", 13) &&
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) <
			    (int)sizeof(path))
			unlink(path);
	closedir(d);
	if (!keep)
		rmdir(dir);
}

/* Column @c's run under callgrind: the worker reads its own dumps. */
static void col_valgrind(struct ic *ic, struct col *c)
{
	char dir[PATH_MAX], out[PATH_MAX + 64];
	/* valgrind's default lock, a pipe it reads at each system call,
	 * makes those slower: the engine's clock-based reuse of a fresh
	 * sample then happens as often as natively (not so with
	 * --fair-sched=yes), and syscr counts one more per system call */
	const char *wrap[] = { ic->valgrind_path,
			       "--tool=callgrind",
			       "-q",
			       "--collect-atstart=no",
			       out,
			       NULL };

	c->vw = c->w;
	c->vw.wrap = wrap;
	if (dump_dir(ic, c, dir, sizeof(dir)))
		die(EX_FAIL, "%s: %s", dir, strerror(errno));
	snprintf(out, sizeof(out), "--callgrind-out-file=%s/callgrind.out",
		 dir);
	setenv("PAPI_ICOUNT_DUMPS", dir, 1);
	if (ic->o.keep)
		setenv("PAPI_ICOUNT_KEEP", "1", 1);
	col_run(ic, c, &c->vw, ic->events, ic->nev);
	unsetenv("PAPI_ICOUNT_DUMPS");
	unsetenv("PAPI_ICOUNT_KEEP");
	dump_clean(dir, ic->o.keep != NULL);
}

/* ------------------------------------------------------------------ */
/* The columns                                                         */
/* ------------------------------------------------------------------ */

/* Ours first: it chooses the events for everybody. */
static void run_first(struct ic *ic)
{
	struct col *c = &ic->col[WORKER_RDPMC];
	char *names[MAX_EVENTS], buf[1024];

	col_run(ic, c, &c->w, ic->o.events ? ic->o.events : "", ic->o.maxev);
	if (c->usage[0])
		die(EX_USAGE, "%s", c->usage);
	if (c->w.exit_code == EX_SKIP)
		die(EX_SKIP, "%s", c->w.fatal);
	if (!c->events[0])
		die(EX_FAIL, "the worker for our libpapi failed%s%s%s",
		    c->w.fatal[0] ? ": " : "", c->w.fatal,
		    c->w.signo ? " (killed by a signal)" : "");
	scopy(ic->events, sizeof(ic->events), c->events);
	scopy(buf, sizeof(buf), c->events);
	ic->nev = split_events(buf, names, MAX_EVENTS);
}

/* Is there a user-space path for column @c to count?  If not, why. */
static void rdpmc_check(const struct ic *ic, struct col *c)
{
	c->skipped = !c->w.fcr || !strcmp(ic->method, "callgrind");
	if (!c->w.fcr)
		snprintf(c->skip_why, sizeof(c->skip_why),
			 "the component reports fast_counter_read=0");
	else if (c->skipped)
		snprintf(c->skip_why, sizeof(c->skip_why),
			 "valgrind does not execute rdpmc: -m counter counts "
			 "the user-space path");
}

/* Should column @c run under valgrind? */
static int wants_valgrind(const struct col *c)
{
	char why[512];

	return c->w.active && !c->disabled && !c->skipped &&
	       !col_failed(c, why, sizeof(why));
}

int ic_measure(struct ic *ic)
{
	int k, rc = EX_OK;
	struct col *c;
	char why[512];

	ic->cpu = sched_getcpu();
	signal(SIGPIPE, SIG_IGN);
	for (k = 0; k < WORKER_PATHS; k++)
		worker_init(&ic->col[k].w, k, &ic->o.dirs);
	run_first(ic);
	for (k = WORKER_READ; k < WORKER_PATHS; k++)
		if (ic->col[k].w.active)
			col_run(ic, &ic->col[k], &ic->col[k].w, ic->events,
				ic->nev);
	for (k = 0; k < WORKER_PATHS; k++) {
		c = &ic->col[k];
		/* stock PAPI disables its component on a CPU its libpfm4
		 * does not know: nothing to compare, no failure of ours */
		c->disabled = c->w.disabled[0] != 0;
		if (k == WORKER_RDPMC)
			rdpmc_check(ic, c);
		if (!strcmp(ic->method, "callgrind") && wants_valgrind(c))
			col_valgrind(ic, c);
		if (c->w.active && !c->disabled &&
		    col_failed(c, why, sizeof(why)))
			rc = EX_FAIL;
	}
	return rc;
}

void ic_free(struct ic *ic)
{
	int k;

	for (k = 0; k < WORKER_PATHS; k++)
		free(ic->col[k].res);
}

/* ------------------------------------------------------------------ */
/* What the columns measured                                           */
/* ------------------------------------------------------------------ */

const struct res *find_res(const struct col *c, const char *target,
			   const char *call, int nev)
{
	int i;

	for (i = 0; i < c->nres; i++)
		if (c->res[i].nev == nev && !strcmp(c->res[i].target, target) &&
		    !strcmp(c->res[i].call, call))
			return &c->res[i];
	return NULL;
}

double per_call(const struct col *c, const char *target, const char *call,
		int nev, enum quantity q)
{
	const struct res *r = find_res(c, target, call, nev);
	const struct res *z = find_res(c, "null", call, 0);
	const struct count *a, *b;
	double v;

	if (!r || !z || r->kind || z->kind || r->n <= 0 || r->n != z->n)
		return -1;
	a = q >= Q_SYS ? &r->sys : &r->ins;
	b = q >= Q_SYS ? &z->sys : &z->ins;
	if (!a->ok || !b->ok)
		return -1;
	switch (q) {
	case Q_INS: /* the calls that made the fewest system calls */
		v = (r->npaths ? r->path[0].min : a->min) -
		    (z->npaths ? z->path[0].min : b->min);
		break;
	case Q_INS_MAX:
	case Q_SYS_MAX:
		v = a->max - b->min;
		break;
	default:
		v = (a->sum - b->sum) / (double)r->n;
	}
	/* below the empty function: noise of a real counter, not a count */
	return v < 0 ? 0 : v;
}

int varies(const struct col *c, const char *target, const char *call, int nev)
{
	const struct res *r = find_res(c, target, call, nev);

	return r && !r->kind && r->ins.ok && r->ins.min != r->ins.max;
}

/* Did worker @w fail?  If so, say how in @why. */
static int worker_failed(const struct worker *w, const char *how, char *why,
			 size_t len)
{
	if (w->fatal[0])
		snprintf(why, len, "%s%s", w->fatal, how);
	else if (w->signo)
		snprintf(why, len, "worker killed by signal %d (%s)%s",
			 w->signo, strsignal(w->signo), how);
	else if (w->exit_code)
		snprintf(why, len, "worker exited with status %d%s%s",
			 w->exit_code,
			 w->exit_code == 127 ? " (not loadable?)" : "", how);
	else
		return 0;
	return 1;
}

int col_failed(const struct col *c, char *why, size_t len)
{
	if (c->disabled) {
		snprintf(why, len, "component %s disabled: %s",
			 c->w.comp[0] ? c->w.comp : "perf_event",
			 c->w.disabled);
		return 1;
	}
	if (!c->w.ran) {
		snprintf(why, len, "worker not run");
		return 1;
	}
	if (c->usage[0]) {
		snprintf(why, len, "%s", c->usage);
		return 1;
	}
	return worker_failed(&c->w, "", why, len) ||
	       (c->vw.ran &&
		worker_failed(&c->vw, " (under valgrind)", why, len));
}

/* Is the ours-rdpmc column measured (the component reads in user space)? */
int rdpmc_ok(const struct ic *ic)
{
	const struct col *c = &ic->col[WORKER_RDPMC];
	char why[512];

	return c->w.active && c->w.fcr && !c->skipped &&
	       !col_failed(c, why, sizeof(why));
}

/* The "ours" of the ratios: user-space reads where they work. */
const struct col *ours_best(const struct ic *ic)
{
	return &ic->col[rdpmc_ok(ic) ? WORKER_RDPMC : WORKER_READ];
}
