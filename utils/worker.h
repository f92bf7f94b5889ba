/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker protocol papi_overhead and papi_accuracy share,
 * and which libpapi their workers load (struct libdirs).
 *
 * The parent measures nothing itself: it re-executes its own program
 * (/proc/self/exe) once per measured path, each worker with its own
 * LD_LIBRARY_PATH (and LOPE_NO_RDPMC where the path asks for it), so the
 * dynamic linker, not the binary, chooses the libpapi measured.  The
 * worker writes one line per result to a pipe and the parent reads them:
 *
 *   parent   worker_run(): PROG MODE FD CPU LIBDIR ARGS... (LIBDIR "-":
 *            none), waits for the end
 *   worker   worker_start(): lines to FD, pinned to CPU, a time limit
 *            worker_hello(): "info lib|comp|desc|fcr|disabled TEXT", or
 *            "fatal TEXT" if PAPI cannot start or the libpapi mapped is
 *            not LIBDIR's (the loader passes over one it cannot use)
 *            emit(): the tool's own lines
 *
 * worker_run() takes the hello and fatal lines itself and hands every
 * other line to the tool.
 */
#ifndef LOPE_WORKER_H
#define LOPE_WORKER_H

#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>

/* Which libpapi the workers load, as --ours, --compare, --no-compare and
 * the environment say. */
struct libdirs {
	const char *ours;  /* our libpapi's directory, NULL: the linker's */
	const char *stock; /* the compared libpapi's, NULL: none */
	int no_compare;    /* the last of --compare and --no-compare wins */
};

/* getopt_long() values of the libdirs options; a tool's own follow. */
enum { OPT_OURS = 256, OPT_COMPARE, OPT_NO_COMPARE, OPT_TOOL };
/* The libdirs options, for a tool's getopt_long() table. */
/* Versions 14 and 19 of clang-format lay out a macro that is a braced
 * initialiser differently (test_format.sh checks with both). */
/* clang-format off */
#define LIBDIRS_OPTION(name, has_arg, val) { name, has_arg, NULL, val }
/* clang-format on */
#define LIBDIRS_OPTIONS                                                    \
	LIBDIRS_OPTION("ours", required_argument, OPT_OURS),               \
		LIBDIRS_OPTION("compare", required_argument, OPT_COMPARE), \
		LIBDIRS_OPTION("no-compare", no_argument, OPT_NO_COMPARE)
/* Their lines of a tool's usage. */
#define LIBDIRS_USAGE                                                      \
	"  --ours LIBDIR    directory of our libpapi.so\n"                 \
	"  --compare LIBDIR directory of the libpapi.so to compare with\n" \
	"  --no-compare     measure ours only\n"

/*
 * tool_getopt() for a tool whose @longopts include LIBDIRS_OPTIONS: those
 * go into @d (a directory without libpapi.so*: exit 2), the next other
 * option is returned, or -1 at the end.
 */
int libdirs_getopt(int argc, char **argv, const char *shortopts,
		   const struct option *longopts, void (*usage)(FILE *f),
		   struct libdirs *d);
/*
 * The directories no option gave: each the first of $LOPE_OURS_LIBDIR
 * ($LOPE_STOCK_LIBDIR; exit 2 if it holds no libpapi.so*),
 * $PAPI_OURS_BUILDDIR ($PAPI_STOCK_BUILDDIR) and the build directory
 * compiled in that holds libpapi.so*, NULL if none; no stock one after
 * --no-compare.
 */
void libdirs_default(struct libdirs *d);

/* The paths the tools measure: their reports' columns, in this order. */
enum worker_path {
	WORKER_RDPMC, /* "ours-rdpmc": our libpapi, user-space reads allowed */
	WORKER_READ,  /* "ours-read": our libpapi, LOPE_NO_RDPMC=1 */
	WORKER_STOCK, /* "stock": another libpapi, active if there is one */
	WORKER_FLOOR, /* "floor": the raw perf_event floor, no PAPI */
	WORKER_PATHS
};

/* A worker as the parent sees it: how to run it and what it said. */
struct worker {
	enum worker_path path;
	const char *name;   /* its column in the report */
	const char *libdir; /* prepended to LD_LIBRARY_PATH; NULL: inherit */
	int no_rdpmc;       /* LOPE_NO_RDPMC=1 in the worker, else unset */
	int active;         /* measured at all */
	/* a command the worker runs under ("valgrind", "--tool=...", NULL),
	 * given this program's path and the worker's arguments; NULL: none */
	const char *const *wrap;
	/* how it ended */
	int ran, exit_code, signo;
	/* what worker_hello() said */
	char lib[PATH_MAX];
	char comp[64];
	char desc[256];
	char disabled[256];
	int fcr; /* the component's fast_counter_read */
	char fatal[256];
};

/* @w as the worker of @path, on the libpapi @d names for it. */
void worker_init(struct worker *w, enum worker_path path,
		 const struct libdirs *d);

typedef void (*worker_line_fn)(void *arg, char *line);

/* A line "KEY TEXT" whose TEXT goes to a char array member of a struct. */
struct line_text {
	const char *key; /* with its blank: "info lib " */
	size_t off;      /* offsetof the member */
	size_t len;      /* its size */
};
/* Versions 14 and 19 of clang-format lay out a macro that is a braced
 * initialiser differently (test_format.sh checks with both). */
/* clang-format off */
#define LINE_TEXT(type, key, member) \
	{ key, offsetof(type, member), sizeof(((type *)0)->member) }
/* clang-format on */
/* Parent: copy @line's text into @obj by the first of @t[0..n) it starts
 * with; 1 if one did, else 0. */
int line_text(void *obj, const struct line_text *t, size_t n, const char *line);

/*
 * Parent: run @w as "PROG @mode FD @cpu @args..." (@args NULL-terminated,
 * at most 8), under w->wrap if set, give @line(@arg, line) every line
 * that is not the hello's, and wait for the worker's end.  Dies (exit 1)
 * if it cannot start one.
 */
void worker_run(struct worker *w, const char *mode, int cpu,
		const char *const *args, worker_line_fn line, void *arg);

/*
 * Worker: take argv as worker_run() built it, send the lines to its FD,
 * pin to its CPU and end by SIGALRM after @timeout seconds (a hung worker
 * must not hang the parent).  Returns the tool's own arguments.
 */
char **worker_start(char **argv, unsigned timeout);
/*
 * Worker: initialise PAPI and say which library and component (@cidx,
 * perf_event's or else 0) this worker really uses.  0, or -1 after a
 * "fatal" line.
 */
int worker_hello(int *cidx);
/* Worker: one line to the parent; a worker whose parent is gone exits. */
void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Worker: "info @key A,B,C" for @names[0..n). */
void emit_list(const char *key, char **names, int n);

/* The most events of a worker's PAPI event set. */
#define WORKER_MAX_EVENTS 16
/*
 * Worker: a PAPI event set of @names[0..n) (at most WORKER_MAX_EVENTS)
 * into *@es: PAPI_OK, or a PAPI error with why in @why and no set.
 */
int worker_set_new(int *es, char **names, int n, char *why, size_t len);
/*
 * Worker: can @names[0..n) be added and started together?  PAPI_OK, or a
 * PAPI error with why in @why ("PAPI_start: ..." if the start failed).
 */
int worker_set_try(char **names, int n, char *why, size_t len);

#endif /* LOPE_WORKER_H */
