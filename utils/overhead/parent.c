/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parent's side: one column per worker, each worker run once per
 * round (the rounds interleave the workers, each round in another order)
 * natively (system calls; the value with the timer and counter meters)
 * and, with callgrind, once more under valgrind, whose dumps give the
 * instructions; then what the columns measured, per call.
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

#include "overhead.h"

/* What a line callback works on: a column, in a run that gives its
 * values (not callgrind's native run), its system calls, or both. */
struct run {
	struct ovh *o;
	struct col *c;
	int vals, sys;
};

struct res *find_res(const struct col *c, const char *target, const char *call,
		     int nev, int round)
{
	int i;

	for (i = 0; i < c->nres; i++)
		if (c->res[i].nev == nev && c->res[i].round == round &&
		    !strcmp(c->res[i].target, target) &&
		    !strcmp(c->res[i].call, call))
			return &c->res[i];
	return NULL;
}

static struct res *res_get(struct col *c, const char *target, const char *call,
			   int nev)
{
	struct res *r = find_res(c, target, call, nev, c->round);

	if (r)
		return r;
	c->res = xrealloc(c->res, (size_t)c->nres + 1, sizeof(*c->res));
	r = &c->res[c->nres++];
	*r = (struct res){ .nev = nev, .round = c->round };
	scopy(r->target, sizeof(r->target), target);
	scopy(r->call, sizeof(r->call), call);
	return r;
}

/* "n,sum,min,max,p10,p25,p50,p75,p90" into @c; "-" leaves it uncounted. */
static void count_parse(struct count *c, const char *s)
{
	c->ok = sscanf(s, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &c->s[0],
		       &c->s[1], &c->s[2], &c->s[3], &c->s[4], &c->s[5],
		       &c->s[6], &c->s[7], &c->s[8]) == NSTAT;
}

/*
 * A line of a case, "KIND TARGET CALL NEV ...": "case ... N VAL SYS
 * EXTRA", the counts this run took; "path ... SYS CALLS MIN MAX", one
 * path of the case; "na|err ... WHY", why it has none (the first reason
 * stays: the native run's).
 */
static void res_line(const struct run *x, const char *line)
{
	char kind[8], target[8], call[12], val[160], sys[160], extra[160];
	int nev, off = 0;
	struct path p;
	struct res *r;

	if (sscanf(line, "%7s %7s %11s %d %n", kind, target, call, &nev, &off) <
		    4 ||
	    !off)
		return;
	if (!strcmp(kind, "path") && !x->vals)
		return; /* the values come from another run */
	r = res_get(x->c, target, call, nev);
	line += off;
	if (!strcmp(kind, "case")) {
		if (sscanf(line, "%*d %159s %159s %159s", val, sys, extra) != 3)
			return;
		if (x->sys) {
			count_parse(&r->sys, sys);
			count_parse(&r->extra, extra);
		}
		if (x->vals)
			count_parse(&r->val, val);
	} else if (!strcmp(kind, "path")) {
		if (r->npaths < MAX_PATHS &&
		    sscanf(line, "%ld %ld %lf %lf", &p.sys, &p.calls, &p.min,
			   &p.max) == 4)
			r->path[r->npaths++] = p;
	} else if (r->kind == RES_OK) {
		r->kind = strcmp(kind, "na") ? RES_ERR : RES_NA;
		scopy(r->msg, sizeof(r->msg), line);
	}
}

static void run_line(void *arg, char *line)
{
	static const struct line_text text[] = {
		LINE_TEXT(struct col, "info events ", events),
		LINE_TEXT(struct col, "info choice ", choice),
		LINE_TEXT(struct col, "usage ", usage),
	};
	const struct run *x = arg;

	if (line_text(x->c, text, ARRAY_SIZE(text), line))
		return;
	if (!strncmp(line, "info val ", 9) && x->vals)
		scopy(x->c->val_why, sizeof(x->c->val_why), line + 9);
	else if (!strncmp(line, "info sys ", 9) && x->sys)
		scopy(x->c->sys_why, sizeof(x->c->sys_why), line + 9);
	else if (!strncmp(line, "case ", 5) || !strncmp(line, "path ", 5) ||
		 !strncmp(line, "na ", 3) || !strncmp(line, "err ", 4))
		res_line(x, line);
}

/* Run column @c's worker once: natively, or under @w->wrap. */
static void col_run(struct ovh *o, struct col *c, struct worker *w,
		    const char *events, int maxev)
{
	char nbuf[32], kbuf[16];
	const char *meter = w->wrap                        ? "callgrind" :
			    !strcmp(o->meter, "callgrind") ? "sys" :
							     o->meter;
	const char *args[] = { meter, nbuf, kbuf, events, NULL };
	struct run x = { o, c, strcmp(meter, "sys") != 0, !w->wrap };

	snprintf(nbuf, sizeof(nbuf), "%ld", o->o.n);
	snprintf(kbuf, sizeof(kbuf), "%d", maxev);
	worker_run(w, w->path == WORKER_FLOOR ? "--_floor" : "--_papi", o->cpu,
		   args, run_line, &x);
}

/* ------------------------------------------------------------------ */
/* Under callgrind                                                     */
/* ------------------------------------------------------------------ */

/* The directory column @c's dumps go to; 0, or -1. */
static int dump_dir(const struct ovh *o, const struct col *c, char *dir,
		    size_t len)
{
	const char *tmp = getenv("TMPDIR");

	if (o->o.keep) {
		if (snprintf(dir, len, "%s/%s", o->o.keep, c->w.name) >=
		    (int)len)
			return -1;
		return mkdir(dir, 0777) && errno != EEXIST ? -1 : 0;
	}
	if (snprintf(dir, len, "%s/papi_overhead.XXXXXX",
		     tmp && *tmp ? tmp : "/tmp") >= (int)len)
		return -1;
	return mkdtemp(dir) ? 0 : -1;
}

/* Remove what callgrind left in @dir (its final, empty dump), and @dir
 * unless kept. */
static void dump_clean(const char *dir, int keep)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)) != NULL)
		if (!strncmp(de->d_name, "callgrind.out", 13))
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	if (!keep)
		rmdir(dir);
}

/* Column @c's run under callgrind: the worker reads its own dumps. */
static void col_valgrind(struct ovh *o, struct col *c)
{
	char dir[PATH_MAX], out[PATH_MAX + 64];
	/* valgrind's default lock, a pipe it reads at each system call,
	 * makes those slower: the engine's clock-based reuse of a fresh
	 * sample then happens as often as natively (not so with
	 * --fair-sched=yes), and syscr counts one more per system call */
	const char *wrap[] = { o->valgrind_path,
			       "--tool=callgrind",
			       "-q",
			       "--collect-atstart=no",
			       out,
			       NULL };

	c->vw = c->w;
	c->vw.wrap = wrap;
	if (dump_dir(o, c, dir, sizeof(dir)))
		die(EX_FAIL, "%s: %s", dir, strerror(errno));
	snprintf(out, sizeof(out), "--callgrind-out-file=%s/callgrind.out",
		 dir);
	setenv("PAPI_OVERHEAD_DUMPS", dir, 1);
	if (o->o.keep)
		setenv("PAPI_OVERHEAD_KEEP", "1", 1);
	col_run(o, c, &c->vw, o->col[WORKER_RDPMC].events, o->nev);
	unsetenv("PAPI_OVERHEAD_DUMPS");
	unsetenv("PAPI_OVERHEAD_KEEP");
	dump_clean(dir, o->o.keep != NULL);
}

/* ------------------------------------------------------------------ */
/* The columns                                                         */
/* ------------------------------------------------------------------ */

/* Ours first: it chooses the events for everybody, and says whether
 * there is a user-space path to count (if not, why). */
static void run_first(struct ovh *o)
{
	struct col *c = &o->col[WORKER_RDPMC];
	char *names[MAX_EVENTS], buf[1024];

	col_run(o, c, &c->w, o->o.events ? o->o.events : "", o->o.maxev);
	if (c->usage[0])
		die(EX_USAGE, "%s", c->usage);
	if (c->w.exit_code == EX_SKIP)
		die(EX_SKIP, "%s", c->w.fatal);
	if (!c->events[0])
		die(EX_FAIL, "the worker for our libpapi failed%s%s%s",
		    c->w.fatal[0] ? ": " : "", c->w.fatal,
		    c->w.signo ? " (killed by a signal)" : "");
	scopy(buf, sizeof(buf), c->events);
	o->nev = split_list(buf, names, MAX_EVENTS);
	if (!c->w.fcr)
		c->skip_why = "the component reports fast_counter_read=0";
	else if (!strcmp(o->meter, "callgrind"))
		c->skip_why = "valgrind does not execute rdpmc: -m counter "
			      "counts the user-space path";
}

/* Should column @c run (again)?  Not if it failed once, nor if its
 * component is disabled (col_failed() says so too). */
static int wants_run(const struct col *c)
{
	return c->w.active && !c->skip_why && !col_failed(c, NULL, 0);
}

int ovh_measure(struct ovh *o)
{
	int k, r, rc = EX_OK;
	struct col *c;
	char why[512];

	o->cpu = sched_getcpu();
	signal(SIGPIPE, SIG_IGN);
	for (k = 0; k < WORKER_PATHS; k++)
		worker_init(&o->col[k].w, k, &o->o.dirs);
	run_first(o);
	for (r = 0; r < o->o.rounds; r++)
		for (k = 0; k < WORKER_PATHS; k++) {
			c = &o->col[(k + r) % WORKER_PATHS];
			c->round = r;
			if ((!r && c == o->col) ||
			    (r ? !wants_run(c) : !c->w.active))
				continue;
			col_run(o, c, &c->w, o->col[WORKER_RDPMC].events,
				o->nev);
			/* stock PAPI disables its component on a CPU its
			 * libpfm4 does not know: nothing to compare, no
			 * failure of ours */
			c->disabled = c->w.disabled[0] != 0;
		}
	for (k = 0; k < WORKER_PATHS; k++) {
		c = &o->col[k];
		for (r = 0; !strcmp(o->meter, "callgrind") && wants_run(c) &&
			    r < o->o.rounds;
		     r++) {
			c->round = r;
			col_valgrind(o, c);
		}
		if (!c->w.active || c->disabled ||
		    !col_failed(c, why, sizeof(why)))
			continue;
		rc = EX_FAIL;
		/* the report says why; --csv has no line for it */
		if (o->o.csv)
			fprintf(stderr, "%s: %s: %s\n", PROG, c->w.name, why);
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* What the columns measured                                           */
/* ------------------------------------------------------------------ */

/* The value per call of @r that the others are less: the cheapest path's
 * (exact) or the median. */
static double base_of(const struct ovh *o, const struct res *r)
{
	if (!o->exact)
		return r->val.s[S_P50];
	return r->npaths ? r->path[0].min : r->val.s[S_MIN];
}

/* @q of case @r less the empty function's @z, in one round, into *@v:
 * 1, or 0 if not counted. */
static int one_round(const struct ovh *o, const struct res *r,
		     const struct res *z, enum quantity q, double *v)
{
	const struct count *a = q >= Q_SYS ? &r->sys : &r->val;
	const struct count *b = q >= Q_SYS ? &z->sys : &z->val;

	if (q == Q_EXTRA)
		a = b = &r->extra;
	if (!a->ok || !b->ok || a->s[S_N] <= 0 || b->s[S_N] <= 0)
		return 0;
	if (q == Q_VAL)
		*v = base_of(o, r) - base_of(o, z);
	else if (q == Q_SYS_MAX)
		*v = a->s[S_MAX] - b->s[S_MIN];
	else if (q == Q_EXTRA)
		*v = a->s[S_SUM] / a->s[S_N];
	else if (q == Q_MEAN || q == Q_SYS)
		*v = a->s[S_SUM] / a->s[S_N] - b->s[S_SUM] / b->s[S_N];
	else
		*v = a->s[q] - base_of(o, z);
	return 1;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double per_call(const struct ovh *o, const struct col *c, const char *target,
		const char *call, int nev, enum quantity q)
{
	const struct case_def *d = case_find(call);
	const struct res *r, *z;
	double v[MAX_ROUNDS];
	int i, n = 0;

	for (i = 0; d && i < o->o.rounds; i++) {
		r = find_res(c, target, call, nev, i);
		z = find_res(c, "null", d->base, 0, i);
		if (r && z && !r->kind && !z->kind)
			n += one_round(o, r, z, q, &v[n]);
	}
	if (!n)
		return -1;
	qsort(v, (size_t)n, sizeof(*v), cmp_dbl);
	v[0] = v[quantile_at(n, 0.5)];
	/* below the empty function: noise, not a count */
	return v[0] < 0 ? 0 : v[0];
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
	if (c->disabled)
		snprintf(why, len, "component %s disabled: %s",
			 c->w.comp[0] ? c->w.comp : "perf_event",
			 c->w.disabled);
	else if (!c->w.ran)
		snprintf(why, len, "worker not run");
	else if (c->usage[0])
		snprintf(why, len, "%s", c->usage);
	else
		return worker_failed(&c->w, "", why, len) ||
		       (c->vw.ran &&
			worker_failed(&c->vw, " (under valgrind)", why, len));
	return 1;
}

/* Is the ours-rdpmc column measured (the component reads in user space)? */
int rdpmc_ok(const struct ovh *o)
{
	return wants_run(&o->col[WORKER_RDPMC]);
}

/* The "ours" of the ratios: user-space reads where they work. */
const struct col *ours_best(const struct ovh *o)
{
	return &o->col[rdpmc_ok(o) ? WORKER_RDPMC : WORKER_READ];
}
