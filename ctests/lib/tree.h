/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A scratch directory of small files under $TMPDIR (default /tmp): the
 * fake sysfs trees the tests point the engine and the components at.
 */
#ifndef LOPE_TREE_H
#define LOPE_TREE_H

#include <stddef.h>

/* Make the directory $TMPDIR/lope-@tag.XXXXXX, its name in @dir; 0 or -1. */
int tree_make(char *dir, size_t len, const char *tag);

/* Write @text to @dir/@rel, making the directories between; 0 or -1. */
int tree_put(const char *dir, const char *rel, const char *text);

/* A file of a tree: its name below the directory, and its text. */
struct tree_file {
	const char *rel, *text;
};

/* tree_put() of each of the @n @files: 0, or -1 when one failed. */
int tree_put_all(const char *dir, const struct tree_file *files, size_t n);

/*
 * Remove @dir and everything below it: 0, or -1 (errno set).  Only a
 * tree_make() directory (a name with "/lope-" in it) is removed.
 */
int tree_remove(const char *dir);

#endif /* LOPE_TREE_H */
