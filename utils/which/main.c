/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_which PROGRAM: which libpapi.so PROGRAM loads, why, whether it is
 * ours, and how to make it load ours (doc/papi_which.1).  The answer is
 * the program's own loader's (trace.c); here the input is checked,
 * secure-execution mode recognised, the answer reported and advice given.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../tool.h"
#include "which.h"

#ifndef LOPE_LIBDIR
#define LOPE_LIBDIR "/usr/local/lib"
#endif

/* How the need was met: "found by: WORD (in DIR, NOTE): TAIL". */
enum how { LOADED, PATH, PRELOAD, PREFILE, RPATH, LLP, RUNPATH, CACHE, DEF };
static const struct {
	const char *word, *note, *tail;
} hows[] = {
	[LOADED] = { "loaded", "", "" },
	[PATH] = { "path", "", "" },
	[PRELOAD] = { "LD_PRELOAD", "", ": the need is met by its soname" },
	[PREFILE] = { "/etc/ld.so.preload", "",
		      ": the need is met by its soname" },
	[RPATH] = { "RPATH", "",
		    ": it comes before LD_LIBRARY_PATH, which "
		    "cannot override it" },
	[LLP] = { "LD_LIBRARY_PATH", "", "" },
	[RUNPATH] = { "RUNPATH", "", ": LD_LIBRARY_PATH comes first" },
	[CACHE] = { "ld.so.cache", ", as ldconfig -p lists it", "" },
	[DEF] = { "default", ", a system directory not in the ld.so.cache",
		  "" },
};

struct opts {
	const char *ours;
	int verbose, secure;
	char path[PATH_MAX]; /* the program */
	char why[128];       /* why secure-execution mode */
};

static void usage(FILE *f)
{
	fputs("usage: papi_which [-v] [--ours DIR] PROGRAM\n"
	      "Which libpapi.so PROGRAM (a path, or a name on PATH) loads "
	      "with this\nenvironment, why, whether it is lope's, and how to "
	      "make it load lope's.\n"
	      "  --ours DIR  where our libpapi is (default " LOPE_LIBDIR ")\n"
	      "  -v          also list every directory searched\n"
	      "Exit: 0 found, 1 not found, 2 bad input.\n",
	      f);
}

/* @s on stdout quoted for sh where it needs it. */
static void shq(const char *s)
{
	if (*s &&
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789_./:+-=,@%") == strlen(s)) {
		fputs(s, stdout);
		return;
	}
	putchar('\'');
	for (; *s; s++)
		*s == '\'' ? fputs("'\\''", stdout) : putchar(*s);
	putchar('\'');
}

/* @name's path into @p as the shell finds it: 0, or -ENOENT. */
static int on_path(const char *name, char *p, size_t len)
{
	const char *d = getenv("PATH");
	size_t n;

	for (d = d ? d : "/usr/local/bin:/usr/bin:/bin"; *d; d += !!*d) {
		n = strcspn(d, ":");
		snprintf(p, len, "%.*s/%s", (int)n, d, name);
		if (n && !access(p, X_OK))
			return 0;
		d += n;
	}
	return -ENOENT;
}

/* Whether the kernel runs @o->path in secure-execution mode (AT_SECURE)
 * for this user: set-user-ID or set-group-ID to another user or group, or
 * file capabilities for anyone but root; not on a nosuid mount. */
static int secure_mode(struct opts *o)
{
	struct statvfs vfs;
	struct stat st;

	if (stat(o->path, &st) ||
	    (!statvfs(o->path, &vfs) && (vfs.f_flag & ST_NOSUID)))
		return 0;
	if ((st.st_mode & S_ISUID) && st.st_uid != getuid())
		snprintf(o->why, sizeof(o->why), "set-user-ID to uid %u",
			 (unsigned)st.st_uid);
	else if ((st.st_mode & S_ISGID) && st.st_gid != getgid())
		snprintf(o->why, sizeof(o->why), "set-group-ID to gid %u",
			 (unsigned)st.st_gid);
	else if (getuid() != 0 &&
		 getxattr(o->path, "security.capability", NULL, 0) > 0)
		snprintf(o->why, sizeof(o->why), "file capabilities");
	return o->why[0] != 0;
}

/* Whether @name is an element of @list (blanks or colons between). */
static int in_list(const char *list, const char *name)
{
	size_t n;

	for (; list && *list; list += n + !!list[n]) {
		n = strcspn(list, " :\t\n");
		if (n == strlen(name) && !strncmp(list, name, n))
			return 1;
	}
	return 0;
}

/* How need @n (NULL: met by a name already loaded) was met, and by
 * whose RPATH or RUNPATH (*@obj).  A preload is the program's need. */
static enum how how_of(const struct wh_need *n, const struct opts *o,
		       const char **obj)
{
	char buf[65536] = "";
	FILE *f = n && !strcmp(n->needer, o->path) ?
			  fopen("/etc/ld.so.preload", "r") :
			  NULL;

	if (f) {
		buf[fread(buf, 1, sizeof(buf) - 1, f)] = 0;
		fclose(f);
	}
	*obj = NULL;
	if (!n)
		return LOADED;
	if (!strcmp(n->needer, o->path) && !o->secure &&
	    in_list(getenv("LD_PRELOAD"), n->name))
		return PRELOAD;
	if (in_list(buf, n->name))
		return PREFILE;
	if (!n->step)
		return PATH;
	if (!strncmp(n->step, "RPATH from file ", 16))
		return *obj = n->step + 16, RPATH;
	if (!strncmp(n->step, "RUNPATH from file ", 18))
		return *obj = n->step + 18, RUNPATH;
	if (!strcmp(n->step, "LD_LIBRARY_PATH"))
		return LLP;
	return strcmp(n->step, "cache") ? DEF : CACHE;
}

/* "chain:", the objects from the program to the one asking for @n. */
static void print_chain(const struct wh_trace *t, const struct wh_need *n,
			const char *prog)
{
	const char *chain[32], *who = n->needer;
	int k = 0;

	for (; k < 32 && strcmp(who, prog) && (n = wh_trace__need(t, 0, who));
	     who = n->needer)
		chain[k++] = who;
	printf("chain: %s", prog);
	while (k-- > 0)
		printf(" -> %s", chain[k]);
	printf(" -> %s\n", t->papi);
}

static void print_found_by(const struct wh_need *n, enum how how,
			   const char *obj)
{
	const char *f = !n ? NULL : n->file ? n->file : n->name;

	printf("found by: %s", hows[how].word);
	if (obj)
		printf(" of %s", obj);
	if (f && strchr(f, '/'))
		printf(" (in %.*s%s)", (int)(strrchr(f, '/') - f), f,
		       how == RPATH && strcmp(obj, n->needer) ?
			       ", inherited by the object that needs it" :
			       hows[how].note);
	printf("%s\n", hows[how].tail);
}

/* Whether files @a and @b are in one directory. */
static int same_dir(const char *a, const char *b)
{
	struct stat sa, sb;
	char da[PATH_MAX], db[PATH_MAX];

	snprintf(da, sizeof(da), "%.*s/.", (int)(strrchr(a, '/') - a), a);
	snprintf(db, sizeof(db), "%.*s/.", (int)(strrchr(b, '/') - b), b);
	return !stat(da, &sa) && !stat(db, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* "fix: VAR=VAL[:REST] PROGRAM". */
static void fix_env(const char *var, const char *val, const char *rest,
		    const char *prog)
{
	char v[8192];

	snprintf(v, sizeof(v), "%s%s%s", val, rest && *rest ? ":" : "",
		 rest && *rest ? rest : "");
	printf("fix: %s=", var);
	shq(v);
	putchar(' ');
	shq(prog);
	putchar('\n');
}

/* How to make the program load ours instead of what @how found. */
static void advise(const struct opts *o, const struct wh_trace *t, enum how how,
		   const char *obj)
{
	const char *name = strrchr(t->papi, '/') ? strrchr(t->papi, '/') + 1 :
						   t->papi;
	char ours[PATH_MAX], why[PATH_MAX + 64], pe[PATH_MAX];
	struct wh_elf e;

	snprintf(ours, sizeof(ours), "%s/%s", o->ours, name);
	if (!wh_elf__read(ours, &e, why, sizeof(why)) && !e.ours)
		snprintf(why, sizeof(why), "%s is not lope's libpapi", ours);
	if (!e.ours) {
		printf("fix: none known: %s (name our library directory with "
		       "--ours DIR)\n",
		       why);
		return;
	}
	if (o->secure) {
		printf("note: secure-execution mode: the loader ignores "
		       "LD_LIBRARY_PATH and LD_PRELOAD paths; install ours in "
		       "the system directory (make deb, doc/package.md)\n");
	} else if (how == RPATH || how == PRELOAD) {
		fix_env("LD_PRELOAD", ours, NULL, o->path);
	} else if (how == LOADED || how == PATH || how == PREFILE) {
		printf("note: %s loads it by %s: change that to name %s\n",
		       o->path, hows[how].word, ours);
	} else {
		fix_env("LD_LIBRARY_PATH", o->ours, getenv("LD_LIBRARY_PATH"),
			o->path);
		printf("note: or, where the site has lope's environment module: "
		       "module load lope\n");
	}
	if (how == PRELOAD)
		printf("note: LD_PRELOAD names stock's; name ours instead\n");
	if (how == RPATH && t->libc && same_dir(t->papi_path, t->libc))
		printf("note: the RPATH names a system directory: lope's Debian "
		       "package puts ours there (make deb, doc/package.md)\n");
	if (how != RPATH || o->secure)
		return;
	/* patchelf reads the RPATH when the fix runs: $ORIGIN stays */
	if (!on_path("patchelf", pe, sizeof(pe))) {
		printf("fix: patchelf --force-rpath --set-rpath ");
		shq(o->ours);
		printf(":\"$(patchelf --print-rpath ");
		shq(obj);
		printf(")\" ");
		shq(obj);
		putchar('\n');
	} else {
		printf("note: patchelf (not installed) could put %s first in "
		       "the RPATH of %s\n",
		       o->ours, obj);
	}
}

static int report(const struct opts *o, const struct wh_elf *e,
		  const struct wh_trace *t)
{
	const struct wh_need *n;
	const char *obj;
	struct wh_elf lib;
	char desc[128], why[PATH_MAX + 64];
	enum how how;

	wh_elf__describe(e, desc, sizeof(desc));
	printf("program: %s (%s)\n", o->path, desc);
	if (!t->papi) {
		printf("loads: no libpapi: nothing in its dependency tree "
		       "needs libpapi.so*\n");
		return EX_FAIL;
	}
	n = wh_trace__need(t, t->papi, t->papi_path);
	how = how_of(n, o, &obj);
	if (n)
		print_chain(t, n, o->path);
	if (!t->papi_path) {
		printf("loads: not found: the loader cannot find %s\n"
		       "looked in: %s\n",
		       t->papi, n && n->tried ? n->tried : "");
		advise(o, t, LLP, NULL);
		return EX_FAIL;
	}
	printf("loads: %s\n", t->papi_path);
	print_found_by(n, how, obj);
	lib.ours = !wh_elf__read(t->papi_path, &lib, why, sizeof(why)) &&
		   lib.ours;
	printf("library: %s\n",
	       lib.ours ? "ours (lope)" : "stock PAPI (not lope)");
	if (o->verbose)
		printf("looked in: %s\n", n && n->tried ? n->tried : "");
	if (!lib.ours)
		advise(o, t, how, obj);
	return EX_OK;
}

/* The options into @o, the program's path into @o->path; or exit 2. */
static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "ours", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->ours = LOPE_LIBDIR;
	while ((c = tool_getopt(argc, argv, "+:hvo:", longopts, usage, 1)) !=
	       -1)
		if (c == 'v')
			o->verbose = 1;
		else
			o->ours = optarg;
	if (optind != argc - 1) {
		usage(stderr);
		die(EX_USAGE, optind == argc ? "no program named" :
					       "one program at a time");
	}
	if (!argv[optind][0])
		die(EX_USAGE, "an empty program name");
	if (strchr(argv[optind], '/'))
		scopy(o->path, sizeof(o->path), argv[optind]);
	else if (on_path(argv[optind], o->path, sizeof(o->path)))
		die(EX_USAGE, "%s: no such program on PATH", argv[optind]);
}

/* The program's ELF file, or exit 2 (1 for a static program). */
static void open_program(const char *path, struct wh_elf *e)
{
	char why[PATH_MAX + 64];

	if (wh_elf__read(path, e, why, sizeof(why)))
		die(EX_USAGE, "%s", why);
	if (!e->interp[0] && !e->dynamic)
		die(EX_FAIL,
		    "%s: statically linked: it loads no shared "
		    "library, so no libpapi.so",
		    path);
	if (!e->interp[0])
		die(EX_USAGE,
		    "%s: a shared library, not a program: name the "
		    "program that loads it",
		    path);
	if (access(e->interp, X_OK))
		die(EX_USAGE,
		    "%s: its loader %s is not on this machine (a "
		    "program for another machine?)",
		    path, e->interp);
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct wh_trace t;
	struct wh_elf e;
	int rc;

	tool_prog = "papi_which";
	parse_opts(argc, argv, &o);
	open_program(o.path, &e);
	o.secure = secure_mode(&o);
	rc = wh_trace__run(&t, e.interp, o.path, o.secure);
	if (rc < 0) {
		wh_trace__free(&t);
		die(EX_USAGE, "%s: its loader %s: %s", o.path, e.interp,
		    rc == -ENOEXEC ? "no trace (papi_which reads glibc's)" :
				     strerror(-rc));
	}
	if (o.secure)
		printf("note: %s is %s: the loader runs it in secure-execution "
		       "mode (LD_LIBRARY_PATH ignored)\n",
		       o.path, o.why);
	rc = report(&o, &e, &t);
	wh_trace__free(&t);
	return rc;
}
