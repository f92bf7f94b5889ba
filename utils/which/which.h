/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_which: which libpapi.so a program loads, and why (doc/papi_which.1).
 * trace.c runs the program's loader and reads its trace, main.c reads
 * the program, reports and advises.
 */
#ifndef LOPE_WHICH_H
#define LOPE_WHICH_H

#include <limits.h>

/* A need the loader met, as its trace tells it. */
struct wh_need {
	char name[PATH_MAX];   /* as asked for (DT_NEEDED, preload); "": none */
	char needer[PATH_MAX]; /* the object asking, as the loader names it */
	char file[PATH_MAX];   /* the last file tried, or the name (a path) */
	/* the last search, "" for none (a path): "cache", "RPATH from file
	 * X" (32 more bytes than a path), "system search path" ... */
	char step[PATH_MAX + 32];
	char *tried; /* a "looked in: DIRS (STEP)" line per search */
	int mapped;  /* found: @file is mapped */
};

/*
 * Run the loader @interp on @prog as ldd does, under LD_DEBUG=libs,files,
 * in this environment (@secure: as in secure-execution mode), and read
 * into *@n the first found need of a name whose last part starts with
 * @base, else the last one not found: 0, or -errno (-ENOEXEC: no trace).
 * n->tried is the caller's to free.
 */
int wh_trace__run(struct wh_need *n, const char *base, const char *interp,
		  const char *prog, int secure);

#endif /* LOPE_WHICH_H */
