/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_stat --merge: read every rank's file of a job directory (format:
 * job.h), check that they belong together, name the ranks that wrote
 * none, and print the merged report (merge_report.c).
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

#define MAX_FIELDS 5

/* A file being read: where, and the line for messages. */
struct reader {
	const struct merge *m;
	struct rank_file *rf;
	const char *file;
	int line;
	int ev;      /* events read so far */
	int seen;    /* keys seen: bits of the keys[] index */
	char *first; /* the first file's name, for a different event list */
};

static const char *const keys[] = {
	"rank", "size",    "from", "id",    "host",    "cpus",
	"runs", "command", "note", "event", "elapsed", "end",
};
enum {
	K_RANK,
	K_SIZE,
	K_FROM,
	K_ID,
	K_HOST,
	K_CPUS,
	K_RUNS,
	K_COMMAND,
	K_NOTE,
	K_EVENT,
	K_ELAPSED,
	K_END,
	NR_KEYS
};
/* Keys every file has. */
#define REQUIRED                                                         \
	((1 << K_RANK) | (1 << K_SIZE) | (1 << K_HOST) | (1 << K_CPUS) | \
	 (1 << K_RUNS) | (1 << K_EVENT) | (1 << K_ELAPSED) | (1 << K_END))

static int bad(const struct reader *rd, const char *why)
{
	msg("%s/%s, line %d: %s", rd->m->dir, rd->file, rd->line, why);
	return -1;
}

/* Split @s at tabs into at most @max fields, the last one the rest. */
static int split(char *s, char **f, int max)
{
	int n = 0;

	f[n++] = s;
	while (n < max && (s = strchr(s, '\t'))) {
		*s++ = '\0';
		f[n++] = s;
	}
	return n;
}

/* A count or seconds, >= 0: 0, or -1. */
static int number(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return (*s && !*end && !errno && isfinite(*v) && *v >= 0) ? 0 : -1;
}

/* An empty spread (NAN) or a number: 0, or -1. */
static int spread(const char *s, double *v)
{
	*v = NAN;
	return *s ? number(s, v) : 0;
}

static int integer(const char *s, long min, long max, int *v)
{
	long l;

	if (parse_long(s, min, max, &l))
		return -1;
	*v = (int)l;
	return 0;
}

static int add_name(struct merge *m, const char *unit, const char *name)
{
	m->name = xrealloc(m->name, (size_t)m->nev + 1, sizeof(*m->name));
	m->unit = xrealloc(m->unit, (size_t)m->nev + 1, sizeof(*m->unit));
	m->name[m->nev] = strdup(name);
	m->unit[m->nev] = strdup(unit);
	if (!m->name[m->nev] || !m->unit[m->nev])
		die(EX_FAIL, "out of memory");
	m->nev++;
	return 0;
}

/* An "event" line's fields @f: the first file sets the list. */
static int read_event(struct reader *rd, struct merge *m, char **f, int n)
{
	struct rank_file *rf = rd->rf;
	int i = rd->ev;

	if (n != 5)
		return bad(rd, "an event line has 4 fields");
	if (rd->m->n == 0 && i == m->nev)
		add_name(m, f[3], f[4]);
	if (i >= m->nev || strcmp(m->name[i], f[4]) != 0) {
		msg("%s/%s and %s/%s count different events: event %d is %s in "
		    "one, %s in the other",
		    m->dir, rd->file, m->dir, rd->first, i + 1, f[4],
		    i < m->nev ? m->name[i] : "none");
		return -1;
	}
	rf->val = xrealloc(rf->val, (size_t)m->nev, sizeof(double));
	rf->spread = xrealloc(rf->spread, (size_t)m->nev, sizeof(double));
	rf->val[i] = NAN;
	if ((strcmp(f[1], "-") != 0 && number(f[1], &rf->val[i])) ||
	    spread(f[2], &rf->spread[i]))
		return bad(rd, "an event's value or spread is not a number");
	rd->ev++;
	return 0;
}

/* One line "KEY\tVALUE...": 0, or -1 (said why). */
static int read_line(struct reader *rd, struct merge *m, char *line)
{
	struct rank_file *rf = rd->rf;
	char *f[MAX_FIELDS];
	int n = split(line, f, MAX_FIELDS), k;

	for (k = 0; k < NR_KEYS && strcmp(f[0], keys[k]) != 0; k++)
		;
	if (k == NR_KEYS)
		return bad(rd, "not a line of a rank file");
	if (rd->seen & (1 << K_END))
		return bad(rd, "a line after the end line");
	if ((rd->seen & (1 << k)) && k != K_EVENT)
		return bad(rd, "a key given twice");
	rd->seen |= 1 << k;
	if (k == K_EVENT)
		return read_event(rd, m, f, n);
	if (k == K_END)
		return n == 1 ? 0 : bad(rd, "the end line has a value");
	if (n < 2)
		return bad(rd, "a key without a value");
	if (k != K_ELAPSED && n > 2)
		return bad(rd, "a tab inside a value");
	switch (k) {
	case K_RANK:
		return integer(f[1], 0, 99999999, &rf->rank) ?
			       bad(rd, "the rank is not a number") :
			       0;
	case K_SIZE:
		return integer(f[1], 0, 100000000, &rf->size) ?
			       bad(rd, "the size is not a number") :
			       0;
	case K_RUNS:
		return integer(f[1], 1, 100000, &rf->runs) ?
			       bad(rd, "the runs are not a number") :
			       0;
	case K_ELAPSED:
		if (n != 3 || number(f[1], &rf->elapsed) ||
		    spread(f[2], &rf->elapsed_spread))
			return bad(rd, "the elapsed time is not a number");
		return 0;
	case K_FROM:
		scopy(rf->from, sizeof(rf->from), f[1]);
		break;
	case K_ID:
		scopy(rf->id, sizeof(rf->id), f[1]);
		break;
	case K_HOST:
		scopy(rf->host, sizeof(rf->host), f[1]);
		break;
	case K_CPUS:
		scopy(rf->cpus, sizeof(rf->cpus), f[1]);
		break;
	case K_COMMAND:
		scopy(rf->command, sizeof(rf->command), f[1]);
		break;
	default:
		scopy(rf->note, sizeof(rf->note), f[1]);
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
	if (ret == 0 && !(rd.seen & (1 << K_END)))
		ret = bad(&rd, "incomplete: no end line");
	else if (ret == 0 && (rd.seen & REQUIRED) != REQUIRED)
		ret = bad(&rd, "incomplete: a rank, size, host, cpus, runs, "
			       "event or elapsed line is missing");
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
