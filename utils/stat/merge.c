/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_stat --merge: read every rank's file of a job directory (its -x
 * report and a few comment lines: job.h), check that they belong
 * together, name the ranks that wrote none, and print the merged report
 * (report.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tool.h"
#include "job.h"

#define NOT_COUNTED "<not counted>"

/* A file being read: where, and the line for messages. */
struct reader {
	const struct merge *m;
	struct rank_file *rf;
	int line;
	int ev;   /* events read so far */
	int seen; /* lines seen: bits of the heads[] index, or H_ELAPSED */
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
	msg("%s/%s, line %d: %s", rd->m->dir, rd->rf->file, rd->line, why);
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

/*
 * job_label()'s "R of S, host H, CPUs C (FROM)" after "# rank ", or
 * "R (job size unknown), host ...": 0, or -1.  The widths are those of
 * struct rank_file's arrays, less one.
 */
static int read_label(struct rank_file *rf, const char *s)
{
	int at = 0, end = 0, of;

	of = sscanf(s, "%9d of %9d%n", &rf->rank, &rf->size, &at) == 2;
	if (!of && sscanf(s, "%9d (job size unknown)%n", &rf->rank, &at) != 1)
		return -1;
	if (sscanf(s + at, ", host %255[^,], CPUs %1023s (%63[^)])%n", rf->host,
		   rf->cpus, rf->from, &end) != 3)
		return -1;
	return s[at + end] || rf->rank < 0 || rf->size < of ? -1 : 0;
}

/*
 * A row of the report, VALUE,UNIT,NAME,SPREAD: VALUE a number or
 * NOT_COUNTED (NAN), SPREAD "1.23%" or empty (NAN).  A name holds no
 * JOB_FILE_SEP (-e splits at commas), a unit may.  The first file sets
 * the rows.  0, or -1 (said why).
 */
static int read_row(struct reader *rd, struct merge *m, char *line)
{
	const int c = JOB_FILE_SEP[0];
	char *unit = strchr(line, c), *spr = strrchr(line, c);
	char *name = spr ? memrchr(line, c, (size_t)(spr - line)) : NULL;
	double v = NAN, sp = NAN;
	int i = rd->ev;

	if (!name || name == unit)
		return bad(rd, "not a line of a rank file");
	*unit++ = *name++ = *spr++ = '\0';
	if ((strcmp(line, NOT_COUNTED) != 0 && number(line, "", &v)) ||
	    (*spr && number(spr, "%", &sp)))
		return bad(rd, "a value or spread is not a number");
	if (strcmp(name, ELAPSED) == 0 && strcmp(unit, "s") == 0) {
		if (isnan(v))
			return bad(rd, "the elapsed time is not a number");
		rd->seen |= 1 << H_ELAPSED;
	}
	if (m->n == 0 && i == MAX_ROWS)
		return bad(rd, "more events than papi_stat counts");
	if (m->n == 0 && i == m->nrow) {
		m->name[i] = strdup(name);
		m->unit[i] = strdup(unit);
		if (!m->name[m->nrow++] || !m->unit[i])
			die(EX_FAIL, "out of memory");
	}
	if (i >= m->nrow || strcmp(m->name[i], name) != 0) {
		msg("%s/%s and %s/%s count different events: event %d is %s in "
		    "one, %s in the other",
		    m->dir, rd->rf->file, m->dir, m->rk[0].file, i + 1, name,
		    i < m->nrow ? m->name[i] : "none");
		return -1;
	}
	rd->rf->val[i] = v;
	rd->rf->spread[i] = sp;
	rd->ev++;
	return 0;
}

/* One line: a comment line of heads[], or a row.  0, or -1 (said why). */
static int read_line(struct reader *rd, struct merge *m, char *line)
{
	struct rank_file *rf = rd->rf;
	long runs;
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
	if (k == H_RUNS && parse_long(line, 1, MAX_RUNS, &runs))
		return bad(rd, "the runs are not a number");
	if (k == H_LABEL && read_label(rf, line))
		return bad(rd, "not a rank line of papi_stat");
	if (k == H_RUNS)
		rf->runs = (int)runs;
	else if (k == H_COMMAND)
		scopy(rf->command, sizeof(rf->command), line);
	else if (k == H_ID)
		scopy(rf->id, sizeof(rf->id), line);
	else if (k == H_NOTE)
		scopy(rf->note, sizeof(rf->note), line);
	return 0;
}

/* Rank file @name of @m->dir into m->rk[m->n]: 0, or -1 (said why). */
static int read_file(struct merge *m, char *name)
{
	struct rank_file *rf = &m->rk[m->n];
	struct reader rd = { m, rf, 1, 0, 0 };
	char path[4096], magic[64], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int ret = 0;

	rf->file = name; /* the rest zero: m->rk was calloc'd */
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
	while (ret == 0 && (len = getline(&line, &cap, f)) > 0) {
		rd.line++;
		if (line[len - 1] != '\n')
			ret = bad(&rd, "incomplete: the last line is cut off");
		line[len - 1] = '\0';
		if (ret == 0)
			ret = read_line(&rd, m, line);
	}
	if (ret == 0 && ferror(f))
		ret = bad(&rd, strerror(errno));
	free(line);
	fclose(f);
	if (ret == 0 && ((rd.seen & REQUIRED) != REQUIRED || rd.ev < 2))
		ret = bad(&rd, "incomplete: no runs, rank, event or " ELAPSED
			       " line");
	m->n += ret == 0;
	return ret;
}

/* Do the files belong to one job?  0, or -1 (said why). */
static int check_job(struct merge *m)
{
	const struct rank_file *a = &m->rk[0], *b;
	int i;

	for (i = 0; i < m->n; i++) {
		b = &m->rk[i];
		m->runs = b->runs > m->runs ? b->runs : m->runs;
		m->runs_differ |= b->runs != a->runs;
		m->commands_differ |= strcmp(b->command, a->command) != 0;
		if (job_file_rank(b->file) != b->rank)
			msg("%s/%s holds rank %d: not the rank in its name",
			    m->dir, b->file, b->rank);
		else if (b->size != a->size)
			msg("%s/%s says the job has %d ranks, %s/%s says %d",
			    m->dir, b->file, b->size, m->dir, a->file, a->size);
		else if (b->size && b->rank >= b->size)
			msg("%s/%s: rank %d of a job of %d ranks", m->dir,
			    b->file, b->rank, b->size);
		else if (a->id[0] && b->id[0] && strcmp(a->id, b->id) != 0)
			msg("%s/%s and %s/%s are of two jobs, %s and %s",
			    m->dir, a->file, m->dir, b->file, a->id, b->id);
		else if (i > 0 && m->rk[i - 1].rank == b->rank)
			msg("rank %d wrote twice: %s/%s and %s/%s (two jobs "
			    "in one directory, or two launchers' variables?)",
			    b->rank, m->dir, m->rk[i - 1].file, m->dir,
			    b->file);
		else
			continue;
		return -1;
	}
	m->size = a->size;
	return 0;
}

/*
 * The ranks below the job's size (or the highest rank seen, when the
 * size is not known) that wrote no file, as ranges: "1,3-5".
 */
static void find_missing(struct merge *m)
{
	int top = m->size ? m->size : m->rk[m->n - 1].rank + 1, k, lo, hi;
	size_t n = 0;

	/* the gap before each rank that wrote, and the one after the last */
	for (k = 0, lo = 0; k <= m->n; k++, lo = hi + 1) {
		hi = k < m->n ? m->rk[k].rank : top;
		if (hi == lo)
			continue;
		m->nmissing += hi - lo;
		append(m->missing, sizeof(m->missing), &n, "%s%d", n ? "," : "",
		       lo);
		if (hi - 1 > lo)
			append(m->missing, sizeof(m->missing), &n, "-%d",
			       hi - 1);
	}
}

int merge_dir(const char *dir, FILE *out, const char *sep)
{
	struct merge m = { .dir = dir };
	struct dirent **names;
	int n = job_dir_files(dir, &names), i, ret = EX_USAGE;

	if (n < 0)
		return EX_USAGE;
	m.rk = xcalloc((size_t)n + 1, sizeof(*m.rk)); /* n may be 0 */
	for (i = 0; i < n && read_file(&m, names[i]->d_name) == 0; i++)
		;
	if (n == 0) {
		msg("no rank has written its file in %s", dir);
		ret = EX_FAIL;
	} else if (i == n && check_job(&m) == 0) {
		find_missing(&m);
		merge_report(&m, out, sep);
		fflush(out);
		ret = m.nmissing ? EX_FAIL : EX_OK;
		if (m.nmissing)
			msg("%d of the job's ranks wrote no file in %s "
			    "(the report names them)",
			    m.nmissing, dir);
	}
	for (i = 0; i < m.nrow; i++) {
		free(m.name[i]);
		free(m.unit[i]);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(m.rk);
	return ret;
}
