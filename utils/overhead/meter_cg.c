/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The callgrind meter: collection switched on just before each measured
 * call and off just after it (the worker runs under valgrind
 * --tool=callgrind --collect-atstart=no), then one dump, labelled "TARGET
 * CALL NEV", whose total the worker reads back and removes: every call is
 * counted on its own, so a call whose path depends on time (the engine's
 * reuse of a fresh sample) shows each path's count, not a mean.  The
 * dumps go to $PAPI_OVERHEAD_DUMPS; with $PAPI_OVERHEAD_KEEP, each case's
 * first one stays, for callgrind_annotate.  Built without valgrind's
 * header (a cross build), the method is unavailable.  meter_for(), the
 * meter asked for by name, is here, above the timer and the counter
 * (meter.c).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "overhead.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1

static const char *dumps; /* where the dumps go */
static int keep;          /* each case's first dump stays */
static long dumpno;       /* the last dump's number */
static int io_fd = -1;    /* the process's I/O counters */

/* The read-family system calls of this process so far (valgrind's own
 * make none while a call runs), or 0 if /proc/self/io cannot tell. */
static uint64_t syscr_now(void)
{
	char buf[512], *p;
	ssize_t l;

	if (io_fd < 0)
		return 0;
	l = pread(io_fd, buf, sizeof(buf) - 1, 0);
	if (l <= 0)
		return 0;
	buf[l] = 0;
	p = strstr(buf, "syscr: ");
	return p ? strtoull(p + 7, NULL, 10) : 0;
}

static void cg_on(struct meter *m)
{
	m->s0 = syscr_now();
	CALLGRIND_TOGGLE_COLLECT;
}

/* The total of the dump at @path (its header's summary), or -1. */
static long long dump_total(const char *path)
{
	char line[256];
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (v < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, "summary: ", 9))
			v = atoll(line + 9);
	fclose(f);
	return v;
}

/* Keep the case's first dump as DIR/TARGET-CALL-NEV.callgrind. */
static void dump_keep(const struct meter *m, const char *path)
{
	char name[PATH_MAX], *p;

	if (snprintf(name, sizeof(name), "%s/%s.callgrind", dumps, m->label) >=
	    (int)sizeof(name))
		return;
	for (p = name + strlen(dumps) + 1; *p; p++)
		if (*p == ' ')
			*p = '-';
	rename(path, name);
}

/* Collection off, then one dump per call: its count, exactly. */
static void cg_off(struct meter *m)
{
	char path[PATH_MAX];
	uint64_t sys;
	long long v;

	CALLGRIND_TOGGLE_COLLECT;
	sys = syscr_now() - m->s0;
	CALLGRIND_DUMP_STATS_AT(m->label);
	snprintf(path, sizeof(path), "%s/callgrind.out.%ld", dumps, ++dumpno);
	v = dump_total(path);
	if (v < 0) {
		m->failed = 1;
		return;
	}
	meter_record(m, (uint64_t)v, sys);
	if (keep && m->n == 1)
		dump_keep(m, path);
	else
		unlink(path);
}

static struct meter cg_meter = {
	.on = cg_on,
	.off = cg_off,
	.val_counted = 1,
	.exact = 1,
	.interleave = 1,
	.no_user = "valgrind does not execute user-space counter reads "
		   "(rdpmc, mrs): -m counter counts them",
	.no_sampling = "valgrind runs the overflow handler when it chooses, "
		       "and counts no kernel instruction: -m counter counts "
		       "a sample",
};

static struct meter *meter_callgrind(char *why, size_t len)
{
	dumps = getenv("PAPI_OVERHEAD_DUMPS");
	keep = getenv("PAPI_OVERHEAD_KEEP") != NULL;
	if (!RUNNING_ON_VALGRIND) {
		snprintf(why, len, "the worker is not running under valgrind");
		return NULL;
	}
	if (!dumps || !*dumps) {
		snprintf(why, len,
			 "PAPI_OVERHEAD_DUMPS (callgrind's dump "
			 "directory) is not set");
		return NULL;
	}
	io_fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	snprintf(why, len,
		 "ok: callgrind, user-space instructions, one dump per call%s",
		 io_fd < 0 ? "" : "; paths told apart by /proc/self/io syscr");
	emit("info sys not counted under valgrind (another run counts them)");
	return &cg_meter;
}
#else
#define HAVE_CALLGRIND 0
static struct meter *meter_callgrind(char *why, size_t len)
{
	snprintf(why, len, "built without valgrind/callgrind.h");
	return NULL;
}
#endif

int have_callgrind(void)
{
	return HAVE_CALLGRIND;
}

struct meter *meter_for(const char *name)
{
	char why[512];
	struct meter *m = strcmp(name, "callgrind") ?
				  meter_counter(name, why, sizeof(why)) :
				  meter_callgrind(why, sizeof(why));

	if (!m)
		emit("fatal meter %s: %s", name, why);
	else
		emit("info val %s", why);
	return m;
}
