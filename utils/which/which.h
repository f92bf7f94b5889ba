/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_which: which libpapi.so a program loads, and why (doc/papi_which.1).
 * elf.c reads the program's loader and the libraries' mark, trace.c reads
 * that loader's own trace, main.c reports and advises.
 */
#ifndef LOPE_WHICH_H
#define LOPE_WHICH_H

#include <limits.h>
#include <stddef.h>

struct wh_elf {
	int is64, msb, machine;
	char interp[PATH_MAX]; /* PT_INTERP, or "" (static or a library) */
	int dynamic;           /* has PT_DYNAMIC */
	int ours;              /* holds lope's perf_event component */
};

/* Read @path into *@e: 0, or -errno with why in @why. */
int wh_elf__read(const char *path, struct wh_elf *e, char *why, size_t len);
/* "ELF 64-bit LSB x86-64" and so on. */
void wh_elf__describe(const struct wh_elf *e, char *buf, size_t len);

/* One need the loader met or failed, as its trace tells it. */
struct wh_need {
	char *name;   /* as asked for (DT_NEEDED, a preload) */
	char *needer; /* the object asking, as the loader names it */
	char *file;   /* the last file tried: the one mapped, if found */
	char *step;   /* the search that tried it: "RPATH from file X",
			 "RUNPATH from file X", "LD_LIBRARY_PATH", "system
			 search path", "cache"; NULL if none (a path) */
	char *tried;  /* the directories searched, blank-separated */
};

struct wh_trace {
	struct wh_need *needs;
	int nr;
	char *papi;      /* the first libpapi.so* listed: its name ... */
	char *papi_path; /* ... and path, NULL when not found */
	char *libc;      /* libc.so.6's path: a system directory's */
};

/*
 * Run the loader @interp on @prog as ldd does, under LD_DEBUG=libs,files,
 * in this environment (@secure: as in secure-execution mode), and read
 * what it maps into *@t: 0, or -errno (-ENOEXEC: no trace).
 */
int wh_trace__run(struct wh_trace *t, const char *interp, const char *prog,
		  int secure);
void wh_trace__free(struct wh_trace *t);
/* The need that mapped @path or, @path NULL, the need of @name. */
const struct wh_need *wh_trace__need(const struct wh_trace *t, const char *name,
				     const char *path);

#endif /* LOPE_WHICH_H */
