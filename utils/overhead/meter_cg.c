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
 * header (a cross build), the method is unavailable.
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

/* The read-family system calls of this process so far (valgrind's own
 * make none while a call runs), or 0 if /proc/self/io cannot tell. */
static uint64_t syscr_now(const struct meter *m)
{
	char buf[512], *p;
	ssize_t l;

	if (m->io_fd < 0)
		return 0;
	l = pread(m->io_fd, buf, sizeof(buf) - 1, 0);
	if (l <= 0)
		return 0;
	buf[l] = 0;
	p = strstr(buf, "syscr: ");
	return p ? strtoull(p + 7, NULL, 10) : 0;
}

static void cg_on(struct meter *m)
{
	m->s0 = syscr_now(m);
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

	if (snprintf(name, sizeof(name), "%s/%s.callgrind", m->dumps,
		     m->label) >= (int)sizeof(name))
		return;
	for (p = name + strlen(m->dumps) + 1; *p; p++)
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
	sys = syscr_now(m) - m->s0;
	CALLGRIND_DUMP_STATS_AT(m->label);
	snprintf(path, sizeof(path), "%s/callgrind.out.%ld", m->dumps,
		 ++m->dumpno);
	v = dump_total(path);
	if (v < 0) {
		m->failed = 1;
		return;
	}
	meter_record(m, (uint64_t)v, sys);
	if (m->keep && m->n == 1)
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
	.ins_fd = -1,
	.sys_fd = -1,
	.io_fd = -1,
};

struct meter *meter_callgrind(char *why, size_t len)
{
	struct meter *m = &cg_meter;

	m->dumps = getenv("PAPI_OVERHEAD_DUMPS");
	m->keep = getenv("PAPI_OVERHEAD_KEEP") != NULL;
	if (!RUNNING_ON_VALGRIND) {
		snprintf(why, len, "the worker is not running under valgrind");
		return NULL;
	}
	if (!m->dumps || !*m->dumps) {
		snprintf(why, len,
			 "PAPI_OVERHEAD_DUMPS (callgrind's dump "
			 "directory) is not set");
		return NULL;
	}
	m->io_fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	snprintf(why, len,
		 "ok: callgrind, user-space instructions, one dump per call%s",
		 m->io_fd < 0 ? "" :
				"; paths told apart by /proc/self/io syscr");
	emit("info sys not counted under valgrind (another run counts them)");
	return m;
}

int have_callgrind(void)
{
	return 1;
}
#else
struct meter *meter_callgrind(char *why, size_t len)
{
	snprintf(why, len, "built without valgrind/callgrind.h");
	return NULL;
}

int have_callgrind(void)
{
	return 0;
}
#endif
