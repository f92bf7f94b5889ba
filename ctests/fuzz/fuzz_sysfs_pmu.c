/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the sysfs event decoding of src/sysfs_pmu.c through its
 * public API (lope_pmus__new, lope_pmus__find, lope_pmus__event), on a fake
 * sysfs tree the harness writes for each input into $TMPDIR.  Run by
 * ctests/fuzz/test_fuzz.sh; see doc/testing-sanitize.md.
 *
 * Input, one record per line (the files get the bytes as given, NULs
 * included):
 *	line 1		events/ev of PMU "fz": the terms, "event=0x3c,umask=1"
 *	fNAME=SPEC	format/NAME contains SPEC ("config:0-7,32-35")
 *	tTEXT		type (default "42")
 *	cTEXT		cpumask (default: none)
 *	sTEXT, uTEXT, nTEXT	events/ev.scale, .unit, .snapshot
 * Other lines are ignored; so are format names that are no file name.
 *
 * The result is compared with a reference decoder below, written from the
 * contract in src/lope.h and the kernel's sysfs ABI (format bit ranges are
 * filled lowest bit first), not from the engine's code: the same error
 * code, or on success the same perf_event_attr (size, type, config,
 * config1, config2, nothing else set) and the same name, terms, unit,
 * scale, snapshot and cpu.  A mismatch aborts (the fuzzer saves the
 * input); the sanitizers catch the rest.
 *
 * The engine once took a second 0x ("event=0x0x3c" as 0x3c); the
 * reference says -EINVAL, and so does the engine now.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lope.h"

#define MAX_FORMATS 16

/* One file of the fake tree: its bytes, or absent. */
struct blob {
	const uint8_t *p;
	size_t n;
	int present;
};

struct model {
	struct blob terms, type, cpumask, scale, unit, snapshot;
	int nfmt;
	char fmt_name[MAX_FORMATS][NAME_MAX + 1];
	struct blob fmt[MAX_FORMATS];
};

struct expect {
	int rc;
	uint32_t type;
	uint64_t config[3];
	char terms[256];
	char unit[32];
	double scale;
	int cpu, snapshot;
};

static char root[PATH_MAX - 128];

static void fail(const char *what, int want, int got)
{
	fprintf(stderr, "fuzz_sysfs_pmu: mismatch: %s (reference %d, got %d)\n",
		what, want, got);
	abort();
}

/* ------------------------------------------------------------------ */
/* The fake tree                                                       */

static void put(const char *rel, const struct blob *b)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/fz/%s", root, rel);
	if (!b->present) {
		(void)unlink(path);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, b->p, b->n) != (ssize_t)b->n) {
		perror(path);
		abort();
	}
	close(fd);
}

static void setup_root(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX];

	snprintf(root, sizeof(root), "%s/lope-fuzz-sysfs.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		perror(root);
		abort();
	}
	snprintf(path, sizeof(path), "%s/fz", root);
	if (mkdir(path, 0755))
		abort();
	snprintf(path, sizeof(path), "%s/fz/format", root);
	if (mkdir(path, 0755))
		abort();
	snprintf(path, sizeof(path), "%s/fz/events", root);
	if (mkdir(path, 0755))
		abort();
}

static int valid_file_name(const uint8_t *p, size_t n)
{
	if (n == 0 || n > NAME_MAX || memchr(p, '/', n) || memchr(p, 0, n))
		return 0;
	return !(n == 1 && p[0] == '.') && !(n == 2 && !memcmp(p, "..", 2));
}

static void parse_input(struct model *m, const uint8_t *d, size_t n)
{
	static const uint8_t default_type[] = "42\n";
	size_t pos = 0, line = 0;

	memset(m, 0, sizeof(*m));
	m->type.p = default_type;
	m->type.n = sizeof(default_type) - 1;
	m->type.present = 1;
	while (pos <= n) {
		const uint8_t *nl = memchr(d + pos, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - (d + pos)) : n - pos;
		const uint8_t *l = d + pos;
		struct blob b = { l + 1, len ? len - 1 : 0, 1 };

		if (line++ == 0) {
			m->terms = (struct blob){ l, len, 1 };
		} else if (len == 0) {
			/* nothing */
		} else if (l[0] == 't') {
			m->type = b;
		} else if (l[0] == 'c') {
			m->cpumask = b;
		} else if (l[0] == 's') {
			m->scale = b;
		} else if (l[0] == 'u') {
			m->unit = b;
		} else if (l[0] == 'n') {
			m->snapshot = b;
		} else if (l[0] == 'f' && m->nfmt < MAX_FORMATS) {
			const uint8_t *eq = memchr(b.p, '=', b.n);
			size_t nl_len = eq ? (size_t)(eq - b.p) : 0;
			int i;

			if (eq && valid_file_name(b.p, nl_len)) {
				char name[NAME_MAX + 1];

				memcpy(name, b.p, nl_len);
				name[nl_len] = '\0';
				for (i = 0; i < m->nfmt; i++)
					if (!strcmp(m->fmt_name[i], name))
						break;
				if (i == m->nfmt)
					m->nfmt++;
				strcpy(m->fmt_name[i], name);
				m->fmt[i].p = eq + 1;
				m->fmt[i].n = b.n - nl_len - 1;
				m->fmt[i].present = 1;
			}
		}
		if (!nl)
			break;
		pos += len + 1;
	}
}

static void write_tree(const struct model *m)
{
	char rel[NAME_MAX + 16];
	int i;

	put("type", &m->type);
	put("cpumask", &m->cpumask);
	put("events/ev", &m->terms);
	put("events/ev.scale", &m->scale);
	put("events/ev.unit", &m->unit);
	put("events/ev.snapshot", &m->snapshot);
	for (i = 0; i < m->nfmt; i++) {
		snprintf(rel, sizeof(rel), "format/%s", m->fmt_name[i]);
		put(rel, &m->fmt[i]);
	}
}

static void clear_tree(const struct model *m)
{
	static const struct blob none = { NULL, 0, 0 };
	char rel[NAME_MAX + 16];
	int i;

	put("type", &none);
	put("cpumask", &none);
	put("events/ev", &none);
	put("events/ev.scale", &none);
	put("events/ev.unit", &none);
	put("events/ev.snapshot", &none);
	for (i = 0; i < m->nfmt; i++) {
		snprintf(rel, sizeof(rel), "format/%s", m->fmt_name[i]);
		put(rel, &none);
	}
}

/* ------------------------------------------------------------------ */
/* The reference decoder                                               */

/*
 * A sysfs file as a reader with a @cap-byte buffer sees it: -ENOENT when
 * absent, -EOVERFLOW when it does not fit (cap - 1 bytes at most), else
 * its bytes without trailing white space in @out (NUL-terminated) and
 * their count.
 */
static int ref_file(const struct blob *b, size_t cap, char *out)
{
	size_t n;

	if (!b->present)
		return -ENOENT;
	if (b->n >= cap)
		return -EOVERFLOW;
	n = b->n;
	while (n > 0 && isspace(b->p[n - 1]))
		n--;
	memcpy(out, b->p, n);
	out[n] = '\0';
	return (int)n;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* [s, s + n): decimal digits, or 0x and hex digits; -ERANGE past 2^64. */
static int ref_number(const char *s, size_t n, uint64_t *v)
{
	unsigned int base = 10;
	size_t i = 0;
	int range = 0;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == n)
		return -EINVAL;
	*v = 0;
	for (; i < n; i++) {
		int d = hexval((unsigned char)s[i]);

		if (d < 0 || (unsigned int)d >= base)
			return range ? -ERANGE : -EINVAL;
		if (*v > (UINT64_MAX - (unsigned int)d) / base)
			range = 1;
		*v = *v * base + (unsigned int)d;
	}
	return range ? -ERANGE : 0;
}

/* Which of config, config1, config2 a field name means. */
static int ref_field(const char *name, size_t len)
{
	if (len == 6 && !memcmp(name, "config", 6))
		return 0;
	if (len == 7 && !memcmp(name, "config1", 7))
		return 1;
	if (len == 7 && !memcmp(name, "config2", 7))
		return 2;
	if (len > 6 && !memcmp(name, "config", 6))
		return -EOPNOTSUPP;
	return -EINVAL;
}

/*
 * The bit number at *@p into @v, past its digits: 0 when there is none.
 * Anything above 64 is too big, whatever the rest of its digits.
 */
static int ref_bit(const char **p, unsigned long *v)
{
	int digits = 0;

	*v = 0;
	while (**p >= '0' && **p <= '9' && *v <= 64) {
		*v = *v * 10 + (unsigned long)(*(*p)++ - '0');
		digits++;
	}
	while (**p >= '0' && **p <= '9')
		(*p)++;
	return digits;
}

/* "config1:0-7,32-35": field index and bit mask. */
static int ref_format(const char *s, int *field, uint64_t *mask)
{
	const char *colon = strchr(s, ':'), *p;

	if (!colon)
		return -EINVAL;
	*field = ref_field(s, (size_t)(colon - s));
	if (*field < 0)
		return *field;
	*mask = 0;
	p = colon + 1;
	for (;;) {
		unsigned long lo, hi;

		if (!ref_bit(&p, &lo))
			return -EINVAL;
		hi = lo;
		if (*p == '-') {
			p++;
			if (!ref_bit(&p, &hi))
				return -EINVAL;
		}
		if (lo > hi || hi > 63)
			return -EINVAL;
		for (; lo <= hi; lo++)
			*mask |= (uint64_t)1 << lo;
		if (*p == '\0')
			return 0;
		if (*p++ != ',')
			return -EINVAL;
	}
}

static const struct blob *ref_format_file(const struct model *m,
					  const char *name)
{
	int i;

	for (i = 0; i < m->nfmt; i++)
		if (!strcmp(m->fmt_name[i], name))
			return &m->fmt[i];
	return NULL;
}

/* One term [t, end) into e->config[]. */
static int ref_term(const struct model *m, struct expect *e, const char *t,
		    const char *end)
{
	const char *eq = memchr(t, '=', (size_t)(end - t));
	size_t len = (size_t)((eq ? eq : end) - t);
	char name[NAME_MAX + 1], spec[128];
	const struct blob *fb;
	uint64_t val = 1, mask;
	int err, field, bit;

	if (len == 0 || len > NAME_MAX)
		return -EINVAL;
	memcpy(name, t, len);
	name[len] = '\0';
	if (strchr(name, '/'))
		return -EINVAL;
	if (eq) {
		if (end - eq == 2 && eq[1] == '?')
			return -EOPNOTSUPP;
		err = ref_number(eq + 1, (size_t)(end - eq - 1), &val);
		if (err)
			return err;
	}
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -EISDIR; /* format/. and format/.. are directories */
	fb = ref_format_file(m, name);
	if (!fb) {
		field = ref_field(name, len);
		if (field < 0)
			return field;
		e->config[field] |= val;
		return 0;
	}
	err = ref_file(fb, sizeof(spec), spec);
	if (err < 0)
		return err;
	err = ref_format(spec, &field, &mask);
	if (err)
		return err;
	for (bit = 0; bit < 64; bit++) {
		if (!(mask & ((uint64_t)1 << bit)))
			continue;
		if (val & 1)
			e->config[field] |= (uint64_t)1 << bit;
		val >>= 1;
	}
	return val ? -ERANGE : 0;
}

static int ref_decode(const struct model *m, struct expect *e)
{
	char buf[4096], *end;
	const char *t;
	locale_t c;
	unsigned long v;
	int n, err;

	memset(e, 0, sizeof(*e));
	e->scale = 1;
	e->cpu = -1;
	n = ref_file(&m->type, 32, buf);
	if (n < 0)
		return -ENOENT;
	{
		uint64_t type;

		if (ref_number(buf, (size_t)n, &type) || type > UINT32_MAX)
			return -ENOENT; /* no PMU "fz" */
		e->type = (uint32_t)type;
	}
	n = ref_file(&m->terms, sizeof(e->terms), e->terms);
	if (n < 0)
		return n;
	t = e->terms;
	if (*t == '\0')
		return -EINVAL;
	for (;;) {
		const char *te = strchr(t, ',');

		if (!te)
			te = t + strlen(t);
		err = ref_term(m, e, t, te);
		if (err)
			return err;
		if (*te == '\0')
			break;
		t = te + 1;
	}
	n = ref_file(&m->scale, 64, buf);
	if (n >= 0) {
		c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
		if (c == (locale_t)0)
			abort();
		e->scale = strtod_l(buf, &end, c);
		freelocale(c);
		if (end == buf || *end || !isfinite(e->scale) || e->scale <= 0)
			return -EINVAL;
	} else if (n != -ENOENT) {
		return n;
	}
	n = ref_file(&m->unit, 64, buf);
	if (n >= (int)sizeof(e->unit))
		return -EOVERFLOW;
	if (n >= 0)
		strcpy(e->unit, buf);
	else if (n != -ENOENT)
		return n;
	n = ref_file(&m->snapshot, 64, buf);
	if (n >= 0)
		e->snapshot = !strcmp(buf, "1");
	else if (n != -ENOENT)
		return n;
	n = ref_file(&m->cpumask, sizeof(buf), buf);
	if (n == -ENOENT)
		return 0;
	if (n < 0)
		return n;
	if (n == 0)
		return -ENODEV;
	if (!isdigit((unsigned char)buf[0]))
		return -EINVAL;
	v = 0;
	for (t = buf; *t >= '0' && *t <= '9'; t++) {
		v = v * 10 + (unsigned long)(*t - '0');
		if (v > INT_MAX)
			return -EINVAL;
	}
	if (*t && *t != ',' && *t != '-')
		return -EINVAL;
	e->cpu = (int)v;
	return 0;
}

/* ------------------------------------------------------------------ */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_attr attr, want_attr;
	struct lope_pmu_event ev;
	struct lope_pmus *p = NULL;
	struct model m;
	struct expect e;
	int idx, rc, want;

	if (!root[0])
		setup_root();
	parse_input(&m, data, size);
	write_tree(&m);
	want = ref_decode(&m, &e);

	rc = lope_pmus__new(&p, root, LOPE_PMUS_SYSTEM);
	if (rc)
		fail("lope_pmus__new", 0, rc);
	idx = lope_pmus__find(p, "fz", "ev");
	if (idx < 0) {
		if (want != -ENOENT || idx != -ENOENT)
			fail("event listed", want, idx);
		goto out;
	}
	if (lope_pmus__nr_events(p) != 1)
		fail("one event listed", 1, lope_pmus__nr_events(p));
	memset(&ev, 0x5a, sizeof(ev));
	rc = lope_pmus__event(p, idx, &attr, &ev);
	if (rc != want)
		fail("return code", want, rc);
	if (rc)
		goto out;
	memset(&want_attr, 0, sizeof(want_attr));
	want_attr.size = sizeof(want_attr);
	want_attr.type = e.type;
	want_attr.config = e.config[0];
	want_attr.config1 = e.config[1];
	want_attr.config2 = e.config[2];
	if (memcmp(&attr, &want_attr, sizeof(attr)))
		fail("perf_event_attr", 0, 1);
	if (strcmp(ev.pmu, "fz") || strcmp(ev.name, "ev"))
		fail("names", 0, 1);
	if (strcmp(ev.terms, e.terms))
		fail("terms", 0, 1);
	if (strcmp(ev.unit, e.unit))
		fail("unit", 0, 1);
	if (ev.scale != e.scale)
		fail("scale", 0, 1);
	if (ev.cpu != e.cpu)
		fail("cpu", e.cpu, ev.cpu);
	if (ev.snapshot != e.snapshot)
		fail("snapshot", e.snapshot, ev.snapshot);
out:
	lope_pmus__delete(p);
	clear_tree(&m);
	return 0;
}
