/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_stat --merge: read every rank's file of a job directory (its -x
 * report and a few comment lines: job.h), check that they belong
 * together, name the ranks that wrote none, and print the merged report
 * (merge_report.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tool.h"
#include "job.h"
#include "merge.h"

#define NOT_COUNTED "<not counted>"

/* A file being read: where, and the line for messages. */
struct reader {
	const struct merge *m;
	struct rank_file *rf;
	const char *file;
	int line;
	int ev;      /* events read so far */
	int seen;    /* lines seen: bits of the heads[] index, or H_ELAPSED */
	char *first; /* the first file's name, for a different event list */
};

/* The comment lines of a rank file (job.h); "# " last: the note. */
static const char *const heads[] = {
	JOB_HEAD_COMMAND, JOB_HEAD_ID, JOB_HEAD_RUNS, "# rank ", "# ",
};
enum { H_COMMAND, H_ID, H_RUNS, H_LABEL, H_NOTE, H_ELAPSED };
/* Lines every file has, besides its events. */
#define REQUIRED ((1 << H_RUNS) | (1 << H_LABEL) | (1 << H_ELAPSED))

static int bad(const struct reader *rd, const char *why)
{
	msg("%s/%s, line %d: %s", rd->m->dir, rd->file, rd->line, why);
	return -1;
}

/* A count, seconds or a spread, >= 0, then @suffix: 0, or -1. */
static int number(const char *s, const char *suffix, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || strcmp(end, suffix) != 0 || errno || !isfinite(*v) ||
	    *v < 0)
		return -1;
	return 0;
}

static int integer(const char *s, long min, long max, int *v)
{
	long l;

	if (parse_long(s, min, max, &l))
		return -1;
	*v = (int)l;
	return 0;
}

/*
 * job_label()'s "R of S, host H, CPUs C (FROM)" after "# rank ", or
 * "R (job size unknown), host ...", where C holds no blank and FROM no
 * '(': 0, or -1.
 */
static int read_label(struct rank_file *rf, char *s)
{
	static const char unknown[] = " (job size unknown)";
	char *from = strrchr(s, '('), *host = strstr(s, ", host "), *cpus, *p;
	size_t n = strlen(s);

	if (!from || !host || from < host || from[-1] != ' ' || s[n - 1] != ')')
		return -1;
	s[n - 1] = from[-1] = *host = '\0';
	cpus = strrchr(host + 1, ' ');
	if (cpus - host < 13 || strncmp(cpus - 6, ", CPUs", 6) != 0)
		return -1;
	cpus[-6] = '\0';
	rf->size = 0;
	p = strstr(s, " of ");
	if (p && integer(p + 4, 1, 100000000, &rf->size))
		return -1;
	if (!p && (!(p = strstr(s, unknown)) || p[sizeof(unknown) - 1]))
		return -1;
	*p = '\0';
	if (integer(s, 0, 99999999, &rf->rank))
		return -1;
	scopy(rf->host, sizeof(rf->host), host + 7);
	scopy(rf->cpus, sizeof(rf->cpus), cpus + 1);
	scopy(rf->from, sizeof(rf->from), from + 1);
	return 0;
}

static void add_name(struct merge *m, const char *unit, const char *name)
{
	m->name = xrealloc(m->name, (size_t)m->nev + 1, sizeof(*m->name));
	m->unit = xrealloc(m->unit, (size_t)m->nev + 1, sizeof(*m->unit));
	m->name[m->nev] = strdup(name);
	m->unit[m->nev] = strdup(unit);
	if (!m->name[m->nev] || !m->unit[m->nev])
		die(EX_FAIL, "out of memory");
	m->nev++;
}

/* Event @name's value @v and spread @sp: the first file sets the list. */
static int read_event(struct reader *rd, struct merge *m, const char *unit,
		      const char *name, double v, double sp)
{
	struct rank_file *rf = rd->rf;
	int i = rd->ev;

	if (rd->m->n == 0 && i == m->nev)
		add_name(m, unit, name);
	if (i >= m->nev || strcmp(m->name[i], name) != 0) {
		msg("%s/%s and %s/%s count different events: event %d is %s in "
		    "one, %s in the other",
		    m->dir, rd->file, m->dir, rd->first, i + 1, name,
		    i < m->nev ? m->name[i] : "none");
		return -1;
	}
	rf->val = xrealloc(rf->val, (size_t)m->nev, sizeof(double));
	rf->spread = xrealloc(rf->spread, (size_t)m->nev, sizeof(double));
	rf->val[i] = v;
	rf->spread[i] = sp;
	rd->ev++;
	return 0;
}

/*
 * A row of the report, VALUE,UNIT,NAME,SPREAD: VALUE a number or
 * NOT_COUNTED (NAN), SPREAD "1.23%" or empty (NAN).  A name holds no
 * JOB_FILE_SEP (-e splits at commas), a unit may.  0, or -1 (said why).
 */
static int read_row(struct reader *rd, struct merge *m, char *line)
{
	const int c = JOB_FILE_SEP[0];
	char *unit = strchr(line, c), *spr = strrchr(line, c);
	char *name = spr ? memrchr(line, c, (size_t)(spr - line)) : NULL;
	double v = NAN, sp = NAN;

	if (!name || name == unit)
		return bad(rd, "not a line of a rank file");
	*unit++ = *name++ = *spr++ = '\0';
	if ((strcmp(line, NOT_COUNTED) != 0 && number(line, "", &v)) ||
	    (*spr && number(spr, "%", &sp)))
		return bad(rd, "a value or spread is not a number");
	if (strcmp(name, ELAPSED) != 0 || strcmp(unit, "s") != 0)
		return read_event(rd, m, unit, name, v, sp);
	if (isnan(v))
		return bad(rd, "the elapsed time is not a number");
	rd->rf->elapsed = v;
	rd->rf->elapsed_spread = sp;
	rd->seen |= 1 << H_ELAPSED;
	return 0;
}

/* One line: a comment line of heads[], or a row.  0, or -1 (said why). */
static int read_line(struct reader *rd, struct merge *m, char *line)
{
	struct rank_file *rf = rd->rf;
	size_t k;

	if (rd->seen & (1 << H_ELAPSED))
		return bad(rd, "a line after the " ELAPSED " line");
	if (line[0] != '#')
		return read_row(rd, m, line);
	for (k = 0; k < ARRAY_SIZE(heads); k++)
		if (strncmp(line, heads[k], strlen(heads[k])) == 0)
			break;
	if (k == ARRAY_SIZE(heads))
		return bad(rd, "not a line of a rank file");
	if (rd->seen & (1 << k))
		return bad(rd, "a comment line given twice");
	rd->seen |= 1 << k;
	line += strlen(heads[k]);
	switch (k) {
	case H_RUNS:
		return integer(line, 1, 100000, &rf->runs) ?
			       bad(rd, "the runs are not a number") :
			       0;
	case H_LABEL:
		return read_label(rf, line) ?
			       bad(rd, "not a rank line of papi_stat") :
			       0;
	case H_COMMAND:
		scopy(rf->command, sizeof(rf->command), line);
		break;
	case H_ID:
		scopy(rf->id, sizeof(rf->id), line);
		break;
	default:
		scopy(rf->note, sizeof(rf->note), line);
	}
	return 0;
}

/* The lines of @f after the first: 0, or -1 (said why). */
static int read_lines(struct reader *rd, struct merge *m, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	while (ret == 0 && (len = getline(&line, &cap, f)) > 0) {
		rd->line++;
		if (line[len - 1] != '\n') {
			ret = bad(rd, "incomplete: the last line is cut off");
			break;
		}
		line[len - 1] = '\0';
		ret = read_line(rd, m, line);
	}
	free(line);
	if (ret == 0 && ferror(f))
		ret = bad(rd, strerror(errno));
	return ret;
}

/* Rank file @name of @m->dir into m->rk[m->n]: 0, or -1 (said why). */
static int read_file(struct merge *m, char *name)
{
	struct rank_file *rf = &m->rk[m->n];
	struct reader rd = { m, rf, name, 1, 0, 0, m->n ? m->rk[0].file : name };
	char path[4096], magic[64];
	FILE *f;
	int ret;

	memset(rf, 0, sizeof(*rf));
	rf->file = name;
	snprintf(path, sizeof(path), "%s/%s", m->dir, name);
	f = fopen(path, "re");
	if (!f) {
		msg("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (!fgets(magic, sizeof(magic), f) ||
	    strcmp(magic, JOB_FILE_MAGIC "\n") != 0)
		ret = bad(&rd,
			  "not a papi_stat rank file (" JOB_FILE_MAGIC ")");
	else
		ret = read_lines(&rd, m, f);
	fclose(f);
	if (ret == 0 && ((rd.seen & REQUIRED) != REQUIRED || !rd.ev))
		ret = bad(&rd, "incomplete: no runs, rank, event or " ELAPSED
			       " line");
	else if (ret == 0 && rd.ev != m->nev)
		ret = bad(&rd, "fewer events than the other files");
	if (ret == 0) {
		m->n++;
	} else {
		free(rf->val);
		free(rf->spread);
	}
	return ret;
}

/* Do the files belong to one job?  0, or -1 (said why). */
static int check_job(struct merge *m)
{
	const struct rank_file *a = &m->rk[0], *b;
	int i;

	for (i = 0; i < m->n; i++) {
		b = &m->rk[i];
		if (job_file_rank(b->file) != b->rank) {
			msg("%s/%s holds rank %d: not the rank in its name",
			    m->dir, b->file, b->rank);
			return -1;
		}
		if (b->size != a->size) {
			msg("%s/%s says the job has %d ranks, %s/%s says %d",
			    m->dir, b->file, b->size, m->dir, a->file, a->size);
			return -1;
		}
		if (b->size && b->rank >= b->size) {
			msg("%s/%s: rank %d of a job of %d ranks", m->dir,
			    b->file, b->rank, b->size);
			return -1;
		}
		if (a->id[0] && b->id[0] && strcmp(a->id, b->id) != 0) {
			msg("%s/%s and %s/%s are of two jobs, %s and %s",
			    m->dir, a->file, m->dir, b->file, a->id, b->id);
			return -1;
		}
		if (i > 0 && m->rk[i - 1].rank == b->rank) {
			msg("rank %d wrote twice: %s/%s and %s/%s (two jobs "
			    "in one directory, or two launchers' variables?)",
			    b->rank, m->dir, m->rk[i - 1].file, m->dir,
			    b->file);
			return -1;
		}
	}
	m->size = a->size;
	return 0;
}

/* The ranks below the job's size (or the highest rank seen, when the
 * size is not known) that wrote no file. */
static void find_missing(struct merge *m)
{
	int top = m->size ? m->size : m->rk[m->n - 1].rank + 1, r, i = 0;

	m->missing = xcalloc((size_t)top, sizeof(int));
	for (r = 0; r < top; r++) {
		while (i < m->n && m->rk[i].rank < r)
			i++;
		if (i == m->n || m->rk[i].rank != r)
			m->missing[m->nmissing++] = r;
	}
}

static void merge_free(struct merge *m, char **names, int n)
{
	int i;

	for (i = 0; i < m->n; i++) {
		free(m->rk[i].val);
		free(m->rk[i].spread);
	}
	for (i = 0; i < m->nev; i++) {
		free(m->name[i]);
		free(m->unit[i]);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(m->name);
	free(m->unit);
	free(m->rk);
	free(m->missing);
}

int merge_dir(const char *dir, FILE *out, const char *sep)
{
	struct merge m = { .dir = dir };
	char **names;
	int n = job_dir_files(dir, &names), i, ret = EX_OK;

	if (n < 0)
		return EX_USAGE;
	if (n == 0) {
		msg("no rank has written its file in %s", dir);
		free(names);
		return EX_FAIL;
	}
	m.rk = xcalloc((size_t)n, sizeof(*m.rk));
	for (i = 0; i < n && ret == EX_OK; i++)
		if (read_file(&m, names[i]))
			ret = EX_USAGE;
	if (ret == EX_OK && check_job(&m))
		ret = EX_USAGE;
	if (ret == EX_OK) {
		find_missing(&m);
		merge_report(&m, out, sep);
		fflush(out);
		if (m.nmissing) {
			msg("%d of the job's ranks wrote no file in %s "
			    "(the report names them)",
			    m.nmissing, dir);
			ret = EX_FAIL;
		}
	}
	merge_free(&m, names, n);
	return ret;
}
