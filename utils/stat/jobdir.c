/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rank's result file in the job directory (its format: job.h), and the
 * choice of the one rank that prints the merged report: every rank
 * counts the complete files after its own rename, and a rank that sees
 * them all creates JOB_PRINTED with O_EXCL.  The last rename is seen by
 * the rank that made it, so some rank sees all the files, and O_EXCL lets
 * one of those that do print.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../tool.h"
#include "job.h"
#include "stat.h"

/* The host name as part of a file name: no '/'. */
static void file_host(const struct job *j, char *buf, size_t len)
{
	size_t i;

	oneline(buf, len, j->host);
	for (i = 0; buf[i]; i++)
		if (buf[i] == '/' || buf[i] == ' ')
			buf[i] = '_';
}

/* Write @f's buffer to the disk and close it: 0, or an errno. */
static int file_close(FILE *f)
{
	int err = 0;

	if (fflush(f) || ferror(f) || fsync(fileno(f)))
		err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno;
	return err;
}

/* This rank's file, complete, into @dir; 0, or -1 (said why). */
static int write_file(const struct stat_run *r, const char *dir)
{
	char host[JOB_HOST_LEN], tmp[PATH_MAX], path[PATH_MAX];
	char cmd[512], line[1024];
	int n, err;
	FILE *f;

	file_host(&r->job, host, sizeof(host));
	n = snprintf(path, sizeof(path), "%s/" JOB_FILE_PREFIX "%d.%s.%d", dir,
		     r->job.rank, host, (int)getpid());
	if (n < 0 || (size_t)n + 6 >= sizeof(path)) {
		msg("--job-dir: %s: name too long", dir);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, path + strlen(dir) + 1);
	f = fopen(tmp, "wxe"); /* O_EXCL, O_CLOEXEC */
	if (!f) {
		msg("cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	/* the lines only the merge needs, then the report of -x , */
	command_text(r, cmd, sizeof(cmd));
	oneline(line, sizeof(line), cmd);
	fprintf(f,
		"%s\n" JOB_HEAD_COMMAND "%s\n" JOB_HEAD_ID "%s\n" JOB_HEAD_RUNS
		"%d\n",
		JOB_FILE_MAGIC, line, r->job.id, r->runs);
	report(r, f, JOB_FILE_SEP);
	err = file_close(f);
	if (!err && rename(tmp, path) != 0)
		err = errno;
	if (err) {
		msg("writing %s: %s", tmp, strerror(err));
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}

int job_finish(const struct stat_run *r)
{
	const char *dir = r->o.job_dir;
	char path[PATH_MAX];
	int fd;

	/* nothing counted: no file, and the merge names the rank missing */
	if (r->runs == 0)
		return 0;
	if (write_file(r, dir))
		return -1;
	if (r->job.size <= 0 || job_dir_files(dir, NULL) < r->job.size)
		return 0;
	snprintf(path, sizeof(path), "%s/" JOB_PRINTED, dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		if (errno != EEXIST)
			msg("cannot create %s: %s", path, strerror(errno));
		return 0;
	}
	close(fd);
	return 1;
}
