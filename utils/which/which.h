/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_which: which libpapi.so a program loads, and why (doc/papi_which.1).
 *
 * elf.c reads what the dynamic linker reads from an ELF file, cache.c
 * looks a name up in /etc/ld.so.cache, search.c repeats ld.so(8)'s search
 * over the program's dependency tree, main.c reports and advises.
 */
#ifndef LOPE_WHICH_H
#define LOPE_WHICH_H

#include <stddef.h>
#include <stdint.h>

/* Exit codes: found, not found, bad input. */
#define WH_FOUND 0
#define WH_NOT_FOUND 1
#define WH_USAGE 2

/* What the loader reads of one ELF file (strings owned by it). */
struct wh_elf {
	char *path;
	int elf_class; /* ELFCLASS32 or ELFCLASS64 */
	int data;      /* ELFDATA2LSB or ELFDATA2MSB */
	int machine;   /* e_machine */
	char *interp;  /* PT_INTERP, or NULL (static or a library) */
	int dynamic;   /* has PT_DYNAMIC */
	char **needed; /* DT_NEEDED, in order */
	int nr_needed;
	char *rpath;   /* DT_RPATH, NULL if absent or DT_RUNPATH is set */
	char *runpath; /* DT_RUNPATH, or NULL */
	char *soname;  /* DT_SONAME, or NULL */
	int nodeflib;  /* DF_1_NODEFLIB: no cache, no default dirs */
	int ours;      /* holds our perf_event component */
};

/*
 * Read @path into *@out: 0, or -errno (-ENOEXEC: not ELF or not a kind
 * the loader maps) with why in @why.
 */
int wh_elf__new(struct wh_elf **out, const char *path, char *why, size_t len);
void wh_elf__delete(struct wh_elf *e);
/* Whether @b can be loaded into a process of @a (class, byte order and
 * machine alike). */
int wh_elf__compatible(const struct wh_elf *a, const struct wh_elf *b);
/* "ELF 64-bit LSB x86-64" and so on. */
void wh_elf__describe(const struct wh_elf *e, char *buf, size_t len);

/*
 * The file /etc/ld.so.cache (@cache) maps @name to, for a process like
 * @like: a malloc'ed path, or NULL.  Entries of glibc-hwcaps
 * subdirectories are passed over (their count in *@hwcaps).
 */
char *wh_cache__lookup(const char *cache, const char *name,
		       const struct wh_elf *like, int *hwcaps);

/* How the loader found a library. */
enum wh_how {
	WH_HOW_NONE,         /* not found */
	WH_HOW_LOADED,       /* a loaded object's name or soname matches */
	WH_HOW_PATH,         /* the name holds a '/' */
	WH_HOW_PRELOAD,      /* LD_PRELOAD */
	WH_HOW_PRELOAD_FILE, /* /etc/ld.so.preload */
	WH_HOW_RPATH,
	WH_HOW_LD_LIBRARY_PATH,
	WH_HOW_RUNPATH,
	WH_HOW_CACHE,
	WH_HOW_DEFAULT,
};

/* One object of the process: the program, a preload, a dependency. */
struct wh_obj {
	struct wh_elf *elf;
	char *req;  /* the name it was asked for by (DT_NEEDED, preload) */
	char *name; /* the path the loader opened it by */
	unsigned long long dev, ino; /* the file: one object per file */
	char *origin;                /* $ORIGIN for its own RPATH/RUNPATH */
	int loader; /* index of the object whose need mapped it, or -1 */
	enum wh_how how;
	char *how_detail; /* which RPATH, which variable ... */
	int how_obj;      /* the object whose RPATH/RUNPATH it was, or -1 */
};

/* The loader's settings for the program. */
struct wh_env {
	const char *ld_library_path; /* NULL when unset or ignored */
	const char *ld_preload;
	const char *preload_file; /* /etc/ld.so.preload */
	const char *cache;        /* /etc/ld.so.cache */
	int secure;               /* secure-execution mode */
	char **system_dirs;       /* with the trailing '/' */
	int nr_system_dirs;
	char **hwcaps; /* glibc-hwcaps subdirectories searched */
	int nr_hwcaps;
	const char *lib;      /* $LIB */
	const char *platform; /* $PLATFORM */
};

/* Directories looked in, for the report of a library not found. */
struct wh_tried {
	char **dirs;
	int nr;
};

/* The process as the loader builds it, breadth first. */
struct wh_proc {
	struct wh_obj *objs;
	int nr;
	struct wh_tried tried; /* for the library asked for */
	int hwcaps_seen;       /* cache entries passed over */
};

/*
 * Map @prog (an opened executable) and its dependencies as ld.so does
 * under @env until a library whose name starts with @prefix is needed:
 * its index in @p->objs, -1 when the tree has none, -2 when it is needed
 * but not found (the object that needs it is @p->objs[*@needer], its name
 * *@name), or -errno.
 */
int wh_proc__find(struct wh_proc *p, struct wh_elf *prog,
		  const struct wh_env *env, const char *prefix, int *needer,
		  const char **name);
void wh_proc__free(struct wh_proc *p);

/* @s duplicated, or exit 1 when memory runs out. */
char *wh_strdup(const char *s);
/* printf into a new string, or exit 1. */
char *wh_aprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* LOPE_WHICH_H */
