/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PMUs described in sysfs: list them and their events, and decode an
 * event's terms ("event=0x3c,umask=0x1") through the PMU's format files
 * ("config:0-7", "config1:0-15", "config:0-7,32-35") into a
 * perf_event_attr, with the event's scale and unit and the PMU's cpu.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lope.h"

struct pmu {
	char *name;
	uint32_t type;
	bool hidden;
	int nr;
	char **events; /* sorted */
};

struct lope_pmus {
	char *root;
	enum lope_pmus_kind kind;
	int nr;
	struct pmu *pmu; /* sorted by name */
};

/* Software PMUs: the generic events (PERF_TYPE_SOFTWARE ...) name them. */
static const char *const generic_pmus[] = {
	"software", "tracepoint", "breakpoint", "kprobe", "uprobe",
};

/* Files next to events/<name> that describe it rather than name one. */
static const char *const event_suffixes[] = {
	".scale",
	".unit",
	".per-pkg",
	".snapshot",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Read the file at the formatted path into @buf, without trailing
 * whitespace.  Returns its length, or -EOVERFLOW when it does not fit:
 * the files read here are short, so a long one is not what we expect.
 */
static __attribute__((format(printf, 3, 4))) int
read_file(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	ssize_t n;
	int fd, plen, err;

	va_start(ap, fmt);
	plen = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (plen < 0 || (size_t)plen >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = read(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	err = errno;
	(void)close(fd); /* read-only: nothing to lose */
	if (n < 0)
		return -err;
	if ((size_t)n >= len)
		return -EOVERFLOW;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	return (int)n;
}

/* A decimal or 0x-prefixed hexadecimal number filling [s, end). */
static int parse_u64(const char *s, const char *end, uint64_t *v)
{
	unsigned int base = 10, d;
	uint64_t x = 0;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (s == end)
		return -EINVAL;
	/* By hand: strtoull would also take signs, blanks and a second 0x.
	 * The first error in the string decides which one is reported. */
	for (; s < end; s++) {
		unsigned char c = (unsigned char)*s;

		if (isdigit(c))
			d = (unsigned int)(c - '0');
		else if (base == 16 && isxdigit(c))
			d = (unsigned int)(tolower(c) - 'a' + 10);
		else
			return -EINVAL;
		if (x > (UINT64_MAX - d) / base)
			return -ERANGE;
		x = x * base + d;
	}
	*v = x;
	return 0;
}

/* Which perf_event_attr field a format's field name means. */
static int config_field(struct perf_event_attr *attr, const char *name,
			size_t len, __u64 **field)
{
	if (len == 6 && !strncmp(name, "config", len))
		*field = &attr->config;
	else if (len == 7 && !strncmp(name, "config1", len))
		*field = &attr->config1;
	else if (len == 7 && !strncmp(name, "config2", len))
		*field = &attr->config2;
	else if (len > 6 && !strncmp(name, "config", 6))
		return -EOPNOTSUPP; /* config3 and later: not in our attr */
	else
		return -EINVAL;
	return 0;
}

/* "config1:0-7,32-35" -> &attr->config1 and mask 0xf000000ff. */
static int parse_format(struct perf_event_attr *attr, const char *s,
			__u64 **field, uint64_t *mask)
{
	const char *colon = strchr(s, ':'), *p;
	int err;

	if (!colon)
		return -EINVAL;
	err = config_field(attr, s, (size_t)(colon - s), field);
	if (err)
		return err;
	*mask = 0;
	for (p = colon + 1;; p++) {
		char *end;
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = hi = strtoul(p, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -EINVAL;
			hi = strtoul(end + 1, &end, 10);
		}
		if (lo > hi || hi > 63)
			return -EINVAL;
		*mask |= (~0ULL >> (63 - hi)) & (~0ULL << lo);
		p = end;
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return -EINVAL;
	}
}

/*
 * Spread @val over the set bits of @mask, lowest first, as the kernel's
 * format bitmaps mean (and the perf tool does).
 */
static int deposit(__u64 *field, uint64_t mask, uint64_t val)
{
	int bit;

	for (bit = 0; bit < 64; bit++) {
		if (!(mask & (1ULL << bit)))
			continue;
		if (val & 1)
			*field |= 1ULL << bit;
		val >>= 1;
	}
	return val ? -ERANGE : 0;
}

/* Apply one "name" or "name=value" term of @pmu to @attr. */
static int apply_term(const struct lope_pmus *p, const char *pmu,
		      struct perf_event_attr *attr, const char *term,
		      const char *end)
{
	const char *eq = memchr(term, '=', (size_t)(end - term));
	const char *name_end = eq ? eq : end;
	char name[NAME_MAX + 1], fmt[128];
	uint64_t val = 1, mask;
	__u64 *field;
	size_t len = (size_t)(name_end - term);
	int err;

	if (len == 0 || len > NAME_MAX)
		return -EINVAL;
	memcpy(name, term, len);
	name[len] = '\0';
	if (strchr(name, '/'))
		return -EINVAL;
	if (eq) {
		if (end - eq == 2 && eq[1] == '?')
			return -EOPNOTSUPP; /* perf asks the user for it */
		err = parse_u64(eq + 1, end, &val);
		if (err)
			return err;
	}
	err = read_file(fmt, sizeof(fmt), "%s/%s/format/%s", p->root, pmu,
			name);
	if (err == -ENOENT) {
		/* Terms may name a config field directly, all 64 bits. */
		err = config_field(attr, name, len, &field);
		if (!err)
			*field |= val;
		return err;
	}
	if (err < 0)
		return err;
	err = parse_format(attr, fmt, &field, &mask);
	return err ? err : deposit(field, mask, val);
}

/* "event=0x3c,umask=0x1,edge" -> config fields of @attr. */
static int apply_terms(const struct lope_pmus *p, const char *pmu,
		       struct perf_event_attr *attr, const char *terms)
{
	const char *t = terms;

	if (*t == '\0')
		return -EINVAL;
	for (;;) {
		const char *end = strchr(t, ',');
		int err;

		if (!end)
			end = t + strlen(t);
		err = apply_term(p, pmu, attr, t, end);
		if (err)
			return err;
		if (*end == '\0')
			return 0;
		t = end + 1;
	}
}

/* The scale as the kernel prints it, whatever the caller's locale. */
static int parse_scale(const char *s, double *scale)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	char *end;

	if (c == (locale_t)0)
		return -errno;
	*scale = strtod_l(s, &end, c);
	freelocale(c);
	if (end == s || *end != '\0' || !isfinite(*scale) || *scale <= 0)
		return -EINVAL;
	return 0;
}

/* events/<name>.scale, .unit and .snapshot: all optional. */
static int read_extras(const struct lope_pmus *p, const char *pmu,
		       const char *name, struct lope_pmu_event *ev)
{
	char buf[64];
	int n;

	n = read_file(buf, sizeof(buf), "%s/%s/events/%s.scale", p->root, pmu,
		      name);
	if (n >= 0) {
		n = parse_scale(buf, &ev->scale);
		if (n)
			return n;
	} else if (n != -ENOENT) {
		return n;
	}
	n = read_file(buf, sizeof(buf), "%s/%s/events/%s.unit", p->root, pmu,
		      name);
	if (n >= (int)sizeof(ev->unit))
		return -EOVERFLOW;
	if (n >= 0)
		memcpy(ev->unit, buf, (size_t)n + 1);
	else if (n != -ENOENT)
		return n;
	n = read_file(buf, sizeof(buf), "%s/%s/events/%s.snapshot", p->root,
		      pmu, name);
	if (n >= 0)
		ev->snapshot = !strcmp(buf, "1");
	else if (n != -ENOENT)
		return n;
	return 0;
}

/* The first cpu of <pmu>/cpumask ("0", "0,18", "0-3"); -1 without one. */
static int read_cpu(const struct lope_pmus *p, const char *pmu, int *cpu)
{
	char buf[4096];
	unsigned long v;
	char *end;
	int n;

	n = read_file(buf, sizeof(buf), "%s/%s/cpumask", p->root, pmu);
	if (n == -ENOENT) {
		*cpu = -1;
		return 0;
	}
	if (n < 0)
		return n;
	if (n == 0)
		return -ENODEV;
	if (!isdigit((unsigned char)buf[0]))
		return -EINVAL;
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || v > INT_MAX || (*end && *end != ',' && *end != '-'))
		return -EINVAL;
	*cpu = (int)v;
	return 0;
}

static const struct pmu *pmu_of(const struct lope_pmus *p, int idx, int *ev)
{
	int i;

	if (!p || idx < 0)
		return NULL;
	for (i = 0; i < p->nr; i++) {
		const struct pmu *u = &p->pmu[i];

		if (u->hidden)
			continue;
		if (idx < u->nr) {
			*ev = idx;
			return u;
		}
		idx -= u->nr;
	}
	return NULL;
}

int lope_pmus__event(const struct lope_pmus *p, int idx,
		     struct perf_event_attr *attr, struct lope_pmu_event *ev)
{
	struct lope_pmu_event tmp;
	const struct pmu *u;
	int e, n, err;

	if (!attr)
		return -EINVAL;
	u = pmu_of(p, idx, &e);
	if (!u)
		return -ENOENT;
	if (!ev)
		ev = &tmp;
	memset(ev, 0, sizeof(*ev));
	ev->pmu = u->name;
	ev->name = u->events[e];
	ev->scale = 1;
	n = read_file(ev->terms, sizeof(ev->terms), "%s/%s/events/%s", p->root,
		      u->name, ev->name);
	if (n < 0)
		return n;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = u->type;
	err = apply_terms(p, u->name, attr, ev->terms);
	if (!err)
		err = read_extras(p, u->name, ev->name, ev);
	if (!err)
		err = read_cpu(p, u->name, &ev->cpu);
	return err;
}

/* The listed PMU @idx, counting listed PMUs only. */
static const struct pmu *listed_pmu(const struct lope_pmus *p, int idx)
{
	int i;

	if (!p || idx < 0)
		return NULL;
	for (i = 0; i < p->nr; i++)
		if (!p->pmu[i].hidden && idx-- == 0)
			return &p->pmu[i];
	return NULL;
}

int lope_pmus__nr_pmus(const struct lope_pmus *p)
{
	int i, nr = 0;

	if (!p)
		return -EINVAL;
	for (i = 0; i < p->nr; i++)
		nr += !p->pmu[i].hidden;
	return nr;
}

const char *lope_pmus__pmu_name(const struct lope_pmus *p, int idx)
{
	const struct pmu *u = listed_pmu(p, idx);

	return u ? u->name : NULL;
}

int lope_pmus__pmu_cpus(const struct lope_pmus *p, int idx, char *buf,
			size_t len)
{
	const struct pmu *u = listed_pmu(p, idx);
	int n;

	if (!u || !buf || len == 0)
		return -EINVAL;
	n = read_file(buf, len, "%s/%s/cpus", p->root, u->name);
	if (n == -ENOENT) {
		buf[0] = '\0';
		return 0;
	}
	return n < 0 ? n : 0;
}

int lope_pmus__pmu_type(const struct lope_pmus *p, int idx, uint32_t *type)
{
	const struct pmu *u = listed_pmu(p, idx);

	if (!u || !type)
		return -EINVAL;
	*type = u->type;
	return 0;
}

int lope_pmus__encode(const struct lope_pmus *p, const char *pmu,
		      const char *terms, struct perf_event_attr *attr)
{
	const struct pmu *u = NULL;
	int i;

	if (!p || !pmu || !terms || !attr)
		return -EINVAL;
	for (i = 0; !u && i < p->nr; i++)
		if (!p->pmu[i].hidden && !strcmp(p->pmu[i].name, pmu))
			u = &p->pmu[i];
	if (!u)
		return -ENOENT;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = u->type;
	return apply_terms(p, u->name, attr, terms);
}

int lope_pmus__cpu(const struct lope_pmus *p, uint32_t type, int *cpu)
{
	int i;

	if (!p || !cpu)
		return -EINVAL;
	for (i = 0; i < p->nr; i++)
		if (p->pmu[i].type == type)
			return read_cpu(p, p->pmu[i].name, cpu);
	return -ENOENT;
}

int lope_pmus__nr_events(const struct lope_pmus *p)
{
	int i, nr = 0;

	if (!p)
		return -EINVAL;
	for (i = 0; i < p->nr; i++)
		if (!p->pmu[i].hidden)
			nr += p->pmu[i].nr;
	return nr;
}

int lope_pmus__name(const struct lope_pmus *p, int idx, const char **pmu,
		    const char **event)
{
	const struct pmu *u = pmu_of(p, idx, &idx);

	if (!u)
		return -ENOENT;
	if (pmu)
		*pmu = u->name;
	if (event)
		*event = u->events[idx];
	return 0;
}

int lope_pmus__find(const struct lope_pmus *p, const char *pmu,
		    const char *event)
{
	int i, j, base = 0;

	if (!p || !pmu || !event)
		return -EINVAL;
	for (i = 0; i < p->nr; i++) {
		const struct pmu *u = &p->pmu[i];

		if (u->hidden)
			continue;
		if (!strcmp(u->name, pmu)) {
			for (j = 0; j < u->nr; j++)
				if (!strcmp(u->events[j], event))
					return base + j;
			return -ENOENT;
		}
		base += u->nr;
	}
	return -ENOENT;
}

int lope_pmus__hide_type(struct lope_pmus *p, uint32_t type)
{
	int i;

	if (!p)
		return -EINVAL;
	for (i = 0; i < p->nr; i++) {
		if (p->pmu[i].type == type) {
			p->pmu[i].hidden = true;
			return 0;
		}
	}
	return -ENOENT;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_pmu(const void *a, const void *b)
{
	return strcmp(((const struct pmu *)a)->name,
		      ((const struct pmu *)b)->name);
}

static bool is_event_name(const char *name)
{
	size_t len = strlen(name), i;

	if (name[0] == '.')
		return false;
	for (i = 0; i < ARRAY_SIZE(event_suffixes); i++) {
		size_t sl = strlen(event_suffixes[i]);

		if (len > sl && !strcmp(name + len - sl, event_suffixes[i]))
			return false;
	}
	return true;
}

/* Append a copy of @s to the growing array *@v of *@nr strings. */
static int push(char ***v, int *nr, int *cap, const char *s)
{
	if (*nr == *cap) {
		int ncap = *cap ? 2 * *cap : 16;
		char **nv = realloc(*v, (size_t)ncap * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[*nr] = strdup(s);
	if (!(*v)[*nr])
		return -ENOMEM;
	(*nr)++;
	return 0;
}

/* The names in <root>/<pmu>/events; none when there is no such dir. */
static int scan_events(const char *root, struct pmu *u)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int cap = 0, err = 0, n;

	n = snprintf(path, sizeof(path), "%s/%s/events", root, u->name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while (!err && (d = readdir(dir)) != NULL) {
		if (d->d_type == DT_DIR || !is_event_name(d->d_name))
			continue;
		err = push(&u->events, &u->nr, &cap, d->d_name);
	}
	(void)closedir(dir); /* read-only */
	if (u->nr > 1)
		qsort(u->events, (size_t)u->nr, sizeof(*u->events), cmp_str);
	return err;
}

static bool is_generic(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(generic_pmus); i++)
		if (!strcmp(name, generic_pmus[i]))
			return true;
	return false;
}

/* Is the PMU one of the CPU's own, counted per thread? */
static bool is_core(const char *root, const char *name)
{
	char buf[8];
	int n;

	if (!strcmp(name, "cpu"))
		return true;
	/* Core PMUs of hybrid x86 and arm say which cpus they cover. */
	n = read_file(buf, sizeof(buf), "%s/%s/cpus", root, name);
	return n >= 0 || n == -EOVERFLOW;
}

/* Does the set list this PMU's events? */
static bool listed(const struct lope_pmus *p, const char *name)
{
	if (is_generic(name))
		return false;
	return is_core(p->root, name) == (p->kind == LOPE_PMUS_CORE);
}

/* Read <root>/<name>/type; a directory without a valid one is no PMU. */
static int add_pmu(struct lope_pmus *p, int *cap, const char *name)
{
	struct pmu *u;
	char buf[32];
	uint64_t type;
	int n;

	if (name[0] == '.')
		return 0;
	n = read_file(buf, sizeof(buf), "%s/%s/type", p->root, name);
	if (n < 0 || parse_u64(buf, buf + n, &type) || type > UINT32_MAX)
		return 0;
	if (p->nr == *cap) {
		int ncap = *cap ? 2 * *cap : 16;
		struct pmu *np = realloc(p->pmu, (size_t)ncap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		p->pmu = np;
		*cap = ncap;
	}
	u = &p->pmu[p->nr];
	memset(u, 0, sizeof(*u));
	u->name = strdup(name);
	if (!u->name)
		return -ENOMEM;
	p->nr++;
	u->type = (uint32_t)type;
	u->hidden = !listed(p, name);
	return u->hidden ? 0 : scan_events(p->root, u);
}

static int scan_pmus(struct lope_pmus *p)
{
	struct dirent *d;
	DIR *dir = opendir(p->root);
	int cap = 0, err = 0;

	if (!dir)
		return -errno;
	while (!err && (d = readdir(dir)) != NULL)
		err = add_pmu(p, &cap, d->d_name);
	(void)closedir(dir); /* read-only */
	if (p->nr > 1)
		qsort(p->pmu, (size_t)p->nr, sizeof(*p->pmu), cmp_pmu);
	return err;
}

int lope_pmus__new(struct lope_pmus **out, const char *root,
		   enum lope_pmus_kind kind)
{
	struct lope_pmus *p;
	int err;

	if (!out || !root ||
	    (kind != LOPE_PMUS_SYSTEM && kind != LOPE_PMUS_CORE))
		return -EINVAL;
	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->kind = kind;
	p->root = strdup(root);
	err = p->root ? scan_pmus(p) : -ENOMEM;
	if (err) {
		lope_pmus__delete(p);
		return err;
	}
	*out = p;
	return 0;
}

void lope_pmus__delete(struct lope_pmus *p)
{
	int i, j;

	if (!p)
		return;
	for (i = 0; i < p->nr; i++) {
		for (j = 0; j < p->pmu[i].nr; j++)
			free(p->pmu[i].events[j]);
		free(p->pmu[i].events);
		free(p->pmu[i].name);
	}
	free(p->pmu);
	free(p->root);
	free(p);
}
