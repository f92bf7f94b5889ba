/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_which PROGRAM (doc/papi_which.1): the answer is the program's own
 * loader's (trace.c); here that loader is read (PT_INTERP), secure-execution
 * mode recognised, the library's mark looked for and advice given.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../tool.h"
#include "which.h"

/* Our perf_event component reads this variable and stock PAPI never
 * names it; both export the same symbols, so the text is the mark. */
static const char ours_mark[] = "LOPE_NO_RDPMC";

struct opts {
	const char *ours;   /* our library directory */
	const char *secure; /* why secure-execution mode, or NULL */
	int verbose;
	char path[PATH_MAX]; /* the program */
};

static void usage(FILE *f)
{
	fputs("usage: papi_which [-v] [--ours DIR] PROGRAM\n"
	      "Which libpapi.so PROGRAM loads, why, and how to make it load "
	      "lope's.\n"
	      "  --ours DIR  where our libpapi is (default " LOPE_LIBDIR ")\n"
	      "  -v          also list every directory searched\n"
	      "Exit: 0 found, 1 not found, 2 bad input.\n",
	      f);
}

/* @s on stdout in single quotes, for sh, then @then. */
static void shq(const char *s, const char *then)
{
	putchar('\'');
	for (; *s; s++)
		*s == '\'' ? fputs("'\\''", stdout) : putchar(*s);
	printf("'%s", then);
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

/* @path mapped read-only at *@p, *@size bytes: NULL, or what is wrong. */
static const char *map(const char *path, const unsigned char **p, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const char *bad = NULL;
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		bad = strerror(errno);
	else if (!S_ISREG(st.st_mode) || st.st_size < EI_NIDENT)
		bad = S_ISDIR(st.st_mode) ? "is a directory" :
					    "not an ELF file";
	else if ((*p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) ==
		 MAP_FAILED)
		bad = strerror(errno);
	else
		*size = st.st_size;
	if (fd >= 0)
		close(fd);
	return bad;
}

/* The program @path's loader (PT_INTERP) into @interp, or exit 2 (1 for a
 * static program).  Only this machine's ELF class and byte order are
 * read: ours can replace no other's libpapi. */
static void read_loader(const char *path, char *interp, size_t len)
{
	const unsigned char *p;
	const ElfW(Ehdr) * eh;
	ElfW(Phdr) ph;
	const char *bad;
	size_t size, i;
	int dynamic = 0;

	if ((bad = map(path, &p, &size)))
		die(EX_USAGE, "%s: %s", path, bad);
	eh = (const void *)p;
	if (memcmp(p, ELFMAG, SELFMAG))
		die(EX_USAGE, "%s: not an ELF file", path);
	if (size < sizeof(*eh) || eh->e_phentsize != sizeof(ph) ||
	    (eh->e_type != ET_EXEC && eh->e_type != ET_DYN) ||
	    eh->e_phoff > size || eh->e_phnum * sizeof(ph) > size - eh->e_phoff)
		die(EX_USAGE,
		    "%s: truncated, or not a program of this machine's ELF "
		    "class and byte order",
		    path);
	for (*interp = 0, i = 0; i < eh->e_phnum; i++) {
		memcpy(&ph, p + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		dynamic |= ph.p_type == PT_DYNAMIC;
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset ||
		    !ph.p_filesz || ph.p_filesz > len ||
		    p[ph.p_offset + ph.p_filesz - 1])
			die(EX_USAGE, "%s: bad PT_INTERP", path);
		memcpy(interp, p + ph.p_offset, ph.p_filesz);
	}
	munmap((void *)p, size);
	if (!*interp && !dynamic)
		die(EX_FAIL, "%s: statically linked: no libpapi.so", path);
	if (!*interp)
		die(EX_USAGE, "%s: a shared library, not a program", path);
	if (access(interp, X_OK))
		die(EX_USAGE, "%s: its loader %s is not on this machine", path,
		    interp);
}

/* NULL when @path holds lope's perf_event component, else why not. */
static const char *not_ours(const char *path)
{
	const unsigned char *p;
	const char *bad;
	size_t size;

	if ((bad = map(path, &p, &size)))
		return bad;
	if (!memmem(p, size, ours_mark, sizeof(ours_mark)))
		bad = "not lope's libpapi";
	munmap((void *)p, size);
	return bad;
}

/* Why the kernel runs @path in secure-execution mode (AT_SECURE) for this
 * user, or NULL: set-user-ID or set-group-ID to another user or group,
 * or file capabilities for anyone but root; not on a nosuid mount. */
static const char *secure_mode(const char *path)
{
	struct statvfs vfs;
	struct stat st;

	if (stat(path, &st) ||
	    (!statvfs(path, &vfs) && (vfs.f_flag & ST_NOSUID)))
		return NULL;
	if ((st.st_mode & S_ISUID) && st.st_uid != getuid())
		return "set-user-ID to another user";
	if ((st.st_mode & S_ISGID) && st.st_gid != getgid())
		return "set-group-ID to another group";
	if (getuid() && getxattr(path, "security.capability", NULL, 0) > 0)
		return "given file capabilities";
	return NULL;
}

/* "fix: VAR=VAL"${VAR:+:$VAR}" PROGRAM", VAL and PROGRAM quoted for sh:
 * the variable's value as the fix runs kept after ours. */
static void fix(const char *var, const char *val, const char *prog)
{
	printf("fix: %s=", var);
	shq(val, "");
	printf("\"${%s:+:$%s}\" ", var, var);
	shq(prog, "\n");
}

/* How to make the program load ours instead of need @n's stock one. */
static void advise(const struct opts *o, const struct wh_need *n)
{
	int rpath = !strncmp(n->step, "RPATH from file ", 16);
	char ours[PATH_MAX], pe[PATH_MAX];
	const char *why;

	snprintf(ours, sizeof(ours), "%s/%s", o->ours, basename(n->name));
	if ((why = not_ours(ours))) {
		printf("fix: none known: %s: %s (name our library directory "
		       "with --ours DIR)\n",
		       ours, why);
	} else if (o->secure) {
		printf("note: secure-execution mode: the loader ignores "
		       "LD_LIBRARY_PATH and LD_PRELOAD paths; install ours in "
		       "the system directory (make deb, doc/package.md)\n");
	} else if (rpath || (n->mapped && !n->step[0])) {
		/* the preloaded soname meets the need, or ours is first */
		fix("LD_PRELOAD", ours, o->path);
	} else {
		fix("LD_LIBRARY_PATH", o->ours, o->path);
		printf("note: or, where the site has lope's environment module: "
		       "module load lope\n");
	}
	if (why || o->secure || !rpath)
		return;
	printf("note: or replace %s with ours (make deb does, in a system "
	       "directory)\n",
	       n->file);
	if (!on_path("patchelf", pe, sizeof(pe))) {
		printf("fix: patchelf --force-rpath --set-rpath ");
		shq(o->ours, ":\"$(patchelf --print-rpath ");
		shq(n->step + 16, ")\" ");
		shq(n->step + 16, "\n");
	}
}

static int report(const struct opts *o, const struct wh_need *n)
{
	const char *stock;

	printf("program: %s\n", o->path);
	if (!n->name[0]) {
		printf("loads: no libpapi: nothing it loads needs libpapi.so*\n");
		return EX_FAIL;
	}
	printf("needed by: %s\n", n->needer);
	if (!n->mapped) {
		printf("loads: not found: %s\n%s", n->name,
		       n->tried ? n->tried : "");
		advise(o, n);
		return EX_FAIL;
	}
	printf("loads: %s\nfound by: %s (in %.*s)\n", n->file,
	       n->step[0] ? n->step : "path",
	       (int)(strrchr(n->file, '/') - n->file), n->file);
	stock = not_ours(n->file);
	printf("library: %s\n",
	       stock ? "stock PAPI (not lope)" : "ours (lope)");
	if (o->verbose && n->tried)
		fputs(n->tried, stdout);
	if (stock)
		advise(o, n);
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

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	char interp[PATH_MAX];
	struct wh_need n;
	int rc;

	tool_prog = "papi_which";
	parse_opts(argc, argv, &o);
	read_loader(o.path, interp, sizeof(interp));
	o.secure = secure_mode(o.path);
	rc = wh_trace__run(&n, "libpapi.so", interp, o.path, !!o.secure);
	if (rc < 0)
		die(EX_USAGE, "%s: its loader %s: %s", o.path, interp,
		    rc == -ENOEXEC ? "no trace (papi_which reads glibc's)" :
				     strerror(-rc));
	if (o.secure)
		printf("note: %s is %s: the loader runs it in secure-execution "
		       "mode (LD_LIBRARY_PATH ignored)\n",
		       o.path, o.secure);
	rc = report(&o, &n);
	free(n.tried);
	return rc;
}
