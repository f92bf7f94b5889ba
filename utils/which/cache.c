/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /etc/ld.so.cache as ldconfig writes it and ld.so reads it: the format
 * "glibc-ld.so.cache1.1" (ldconfig's only one since glibc 2.32), alone or
 * after the old "ld.so-1.7.0" table, and the old table alone.  String
 * offsets of the new format count from its own header, those of the old
 * from the end of its table.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "which.h"

#define OLD_MAGIC "ld.so-1.7.0"
#define NEW_MAGIC "glibc-ld.so.cache1.1"
#define FLAG_TYPE_MASK 0x00ff
#define FLAG_ELF_LIBC6 0x0003
/* An entry of a glibc-hwcaps subdirectory (used only where that ISA
 * level is active). */
#define HWCAP_EXTENSION (1ULL << 62)

struct old_head {
	char magic[sizeof(OLD_MAGIC) - 1];
	uint32_t nlibs;
};

struct old_entry {
	int32_t flags;
	uint32_t key, value;
};

struct new_head {
	char magic[sizeof(NEW_MAGIC) - 1];
	uint32_t nlibs;
	uint32_t len_strings;
	uint8_t flags;
	uint8_t pad[3];
	uint32_t extension_offset;
	uint32_t unused[3];
};

struct new_entry {
	int32_t flags;
	uint32_t key, value;
	uint32_t osversion;
	uint64_t hwcap;
};

/* One table: its entries and where its strings count from. */
struct table {
	const unsigned char *base; /* string offsets count from here */
	const unsigned char *ents;
	uint32_t n;
	size_t entsize;
	int is_new;
};

struct cmap {
	const unsigned char *p;
	size_t size;
};

/* The string at @base + @off, or NULL outside the file. */
static const char *cstr(const struct cmap *c, const unsigned char *base,
			uint32_t off)
{
	const unsigned char *s = base + off;

	if (s < c->p || s >= c->p + c->size)
		return NULL;
	return memchr(s, 0, c->p + c->size - s) ? (const char *)s : NULL;
}

/* The new table at @off, if one is there. */
static int new_table(const struct cmap *c, size_t off, struct table *t)
{
	struct new_head h;

	if (off > c->size || c->size - off < sizeof(h))
		return -1;
	memcpy(&h, c->p + off, sizeof(h));
	if (memcmp(h.magic, NEW_MAGIC, sizeof(h.magic)) != 0 ||
	    h.nlibs > (c->size - off - sizeof(h)) / sizeof(struct new_entry))
		return -1;
	t->base = c->p + off;
	t->ents = c->p + off + sizeof(h);
	t->n = h.nlibs;
	t->entsize = sizeof(struct new_entry);
	t->is_new = 1;
	return 0;
}

static int find_table(const struct cmap *c, struct table *t)
{
	struct old_head h;
	size_t end;

	if (!new_table(c, 0, t))
		return 0;
	if (c->size < sizeof(h))
		return -1;
	memcpy(&h, c->p, sizeof(h));
	if (memcmp(h.magic, OLD_MAGIC, sizeof(h.magic)) != 0 ||
	    h.nlibs > (c->size - sizeof(h)) / sizeof(struct old_entry))
		return -1;
	end = sizeof(h) + (size_t)h.nlibs * sizeof(struct old_entry);
	/* The new table follows, aligned as its header is. */
	if (!new_table(c, (end + 3) & ~(size_t)3, t))
		return 0;
	t->base = c->p + end;
	t->ents = c->p + sizeof(h);
	t->n = h.nlibs;
	t->entsize = sizeof(struct old_entry);
	t->is_new = 0;
	return 0;
}

/* Whether the file at @path is one the loader can map beside @like. */
static int usable(const char *path, const struct wh_elf *like)
{
	struct wh_elf *e;
	char why[256];
	int ok;

	if (wh_elf__new(&e, path, why, sizeof(why)))
		return 0;
	ok = wh_elf__compatible(like, e);
	wh_elf__delete(e);
	return ok;
}

static char *lookup(const struct cmap *c, const struct table *t,
		    const char *name, const struct wh_elf *like, int *hwcaps)
{
	const char *key, *value;
	struct new_entry ne;
	uint32_t i;

	for (i = 0; i < t->n; i++) {
		memset(&ne, 0, sizeof(ne));
		memcpy(&ne, t->ents + i * t->entsize, t->entsize);
		key = cstr(c, t->base, ne.key);
		value = cstr(c, t->base, ne.value);
		if (!key || !value || strcmp(key, name) != 0 ||
		    (ne.flags & FLAG_TYPE_MASK) != FLAG_ELF_LIBC6)
			continue;
		if (t->is_new && (ne.hwcap & HWCAP_EXTENSION)) {
			(*hwcaps)++;
			continue;
		}
		if (usable(value, like))
			return wh_strdup(value);
	}
	return NULL;
}

char *wh_cache__lookup(const char *cache, const char *name,
		       const struct wh_elf *like, int *hwcaps)
{
	struct cmap c = { 0 };
	struct table t;
	struct stat st;
	char *found = NULL;
	int fd = open(cache, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		c.size = st.st_size;
		c.p = mmap(NULL, c.size, PROT_READ, MAP_PRIVATE, fd, 0);
	}
	close(fd);
	if (!c.p || c.p == MAP_FAILED)
		return NULL;
	if (!find_table(&c, &t))
		found = lookup(&c, &t, name, like, hwcaps);
	munmap((void *)c.p, c.size);
	return found;
}
