/* SPDX-License-Identifier: BSD-3-Clause */
/* Scratch directory trees (tree.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tree.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int tree_make(char *dir, size_t len, const char *tag)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, len, "%s/lope-%s.XXXXXX", tmp ? tmp : "/tmp", tag);
	return mkdtemp(dir) ? 0 : -1;
}

int tree_put(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX * 2], *slash;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (slash = path + strlen(dir) + 1; (slash = strchr(slash, '/'));
	     slash++) {
		*slash = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			return -1;
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

int tree_put_all(const char *dir, const struct tree_file *files, size_t n)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n; i++)
		err |= tree_put(dir, files[i].rel, files[i].text);
	return err;
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int tree_remove(const char *dir)
{
	if (!strstr(dir, "/lope-")) {
		errno = EINVAL;
		return -1;
	}
	return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
