/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_which PROGRAM: which libpapi.so PROGRAM loads, why, whether it is
 * ours, and how to make it load ours (doc/papi_which.1).  It reads the
 * files as the loader would and runs nothing of the program; the only
 * process it starts is the program's own loader with --help, for the
 * system directories and glibc-hwcaps subdirectories it searches.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "which.h"

#ifndef LOPE_LIBDIR
#define LOPE_LIBDIR "/usr/local/lib"
#endif

#define PREFIX "libpapi.so"

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

static void __attribute__((noreturn, format(printf, 2, 3)))
die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("papi_which: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* @s on stdout quoted for sh where it needs it. */
static void shq(const char *s)
{
	const char *c;

	if (*s &&
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789_./:+-=,@%") == strlen(s)) {
		fputs(s, stdout);
		return;
	}
	putchar('\'');
	for (c = s; *c; c++)
		if (*c == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*c);
	putchar('\'');
}

/* PROGRAM as a path: as given when it holds a '/', else the first
 * executable of that name on PATH (as the shell finds it). */
static char *program_path(const char *arg)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *d, *p;

	if (!*arg)
		die(WH_USAGE, "an empty program name");
	if (strchr(arg, '/'))
		return wh_strdup(arg);
	copy = wh_strdup(path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (d = strtok_r(copy, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		p = wh_aprintf("%s/%s", d, arg);
		if (!access(p, X_OK)) {
			free(copy);
			return p;
		}
		free(p);
	}
	free(copy);
	die(WH_USAGE, "%s: no such program on PATH", arg);
}

/*
 * Whether the kernel runs @path in secure-execution mode (AT_SECURE) for
 * this user, and why into @why: set-user-ID or set-group-ID to another
 * user or group, or file capabilities for anyone but root; not on a
 * nosuid mount.
 */
static int secure_mode(const char *path, char *why, size_t len)
{
	struct statvfs vfs;
	struct stat st;

	if (stat(path, &st) ||
	    (!statvfs(path, &vfs) && (vfs.f_flag & ST_NOSUID)))
		return 0;
	if ((st.st_mode & S_ISUID) && st.st_uid != getuid()) {
		snprintf(why, len, "set-user-ID to uid %u",
			 (unsigned)st.st_uid);
		return 1;
	}
	if ((st.st_mode & S_ISGID) && st.st_gid != getgid()) {
		snprintf(why, len, "set-group-ID to gid %u",
			 (unsigned)st.st_gid);
		return 1;
	}
	if (getuid() != 0 &&
	    getxattr(path, "security.capability", NULL, 0) > 0) {
		snprintf(why, len, "file capabilities");
		return 1;
	}
	return 0;
}

static void list_add(char ***list, int *nr, const char *s)
{
	*list = realloc(*list, (*nr + 1) * sizeof(**list));
	if (!*list)
		die(WH_NOT_FOUND, "out of memory");
	(*list)[(*nr)++] = wh_strdup(s);
}

/* Parse the loader's --help: system directories and the glibc-hwcaps
 * subdirectories it searches. */
static void parse_help(FILE *f, struct wh_env *env)
{
	char line[512], name[256], *d;
	int in_hwcaps = 0;

	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "Subdirectories of glibc-hwcaps")) {
			in_hwcaps = 1;
			continue;
		}
		if (line[0] != ' ') {
			in_hwcaps = 0;
			continue;
		}
		if (sscanf(line, " %255s", name) != 1)
			continue;
		if (strstr(line, "(system search path)")) {
			d = wh_aprintf("%s%s", name,
				       name[strlen(name) - 1] == '/' ? "" :
								       "/");
			list_add(&env->system_dirs, &env->nr_system_dirs, d);
			free(d);
		} else if (in_hwcaps && strstr(line, "searched)")) {
			list_add(&env->hwcaps, &env->nr_hwcaps, name);
		}
	}
}

/* Ask the program's loader @interp (glibc 2.33 and later print them). */
static void loader_dirs(const char *interp, struct wh_env *env)
{
	char *const argv[] = { (char *)interp, "--help", NULL };
	char *const envp[] = { NULL };
	int fd[2], st;
	pid_t pid;
	FILE *f;

	if (pipe(fd))
		return;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execve(interp, argv, envp);
		_exit(127);
	}
	close(fd[1]);
	f = pid > 0 ? fdopen(fd[0], "r") : NULL;
	if (f) {
		parse_help(f, env);
		fclose(f);
	} else {
		close(fd[0]);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
}

static void env_setup(struct wh_env *env, const struct wh_elf *prog,
		      char **preload_buf)
{
	static const char *const fallback[] = { "/lib/", "/usr/lib/" };
	const char *llp = getenv("LD_LIBRARY_PATH");
	const char *pre = getenv("LD_PRELOAD");
	struct wh_elf *self = NULL;
	char why[256], *d;
	FILE *f;
	size_t n;
	int i;

	env->ld_library_path = llp && *llp ? llp : NULL;
	env->ld_preload = pre && *pre ? pre : NULL;
	env->cache = "/etc/ld.so.cache";
	loader_dirs(prog->interp, env);
	for (i = 0; !env->nr_system_dirs && i < 2; i++)
		list_add(&env->system_dirs, &env->nr_system_dirs, fallback[i]);
	/* $LIB: the first system directory (lib/x86_64-linux-gnu on Debian,
	 * lib64 elsewhere), as glibc configures both from one slibdir. */
	d = wh_strdup(env->system_dirs[0] + 1);
	if (*d)
		d[strlen(d) - 1] = 0;
	env->lib = d;
	if (!wh_elf__new(&self, "/proc/self/exe", why, sizeof(why)) &&
	    wh_elf__compatible(self, prog))
		env->platform = (const char *)getauxval(AT_PLATFORM);
	wh_elf__delete(self);
	f = fopen("/etc/ld.so.preload", "r");
	if (f) {
		*preload_buf = calloc(1, 65536);
		n = *preload_buf ? fread(*preload_buf, 1, 65535, f) : 0;
		if (n)
			env->preload_file = *preload_buf;
		fclose(f);
	}
}

static void env_free(struct wh_env *env, char *preload_buf)
{
	int i;

	for (i = 0; i < env->nr_system_dirs; i++)
		free(env->system_dirs[i]);
	for (i = 0; i < env->nr_hwcaps; i++)
		free(env->hwcaps[i]);
	free(env->system_dirs);
	free(env->hwcaps);
	free((char *)env->lib);
	free(preload_buf);
}

static const char *how_word(enum wh_how how)
{
	static const char *const w[] = {
		[WH_HOW_NONE] = "nothing",
		[WH_HOW_LOADED] = "loaded",
		[WH_HOW_PATH] = "path",
		[WH_HOW_PRELOAD] = "LD_PRELOAD",
		[WH_HOW_PRELOAD_FILE] = "/etc/ld.so.preload",
		[WH_HOW_RPATH] = "RPATH",
		[WH_HOW_LD_LIBRARY_PATH] = "LD_LIBRARY_PATH",
		[WH_HOW_RUNPATH] = "RUNPATH",
		[WH_HOW_CACHE] = "ld.so.cache",
		[WH_HOW_DEFAULT] = "default",
	};

	return w[how];
}

/* The chain of objects from the program to @i's loader, then @name. */
static void print_chain(const struct wh_proc *p, int i, const char *name)
{
	int chain[64], n = 0;

	for (; i >= 0 && n < 64; i = p->objs[i].loader)
		chain[n++] = i;
	printf("chain: ");
	while (n-- > 0)
		printf("%s -> ", p->objs[chain[n]].name);
	printf("%s\n", name);
}

static void print_found_by(const struct wh_proc *p, const struct wh_obj *o)
{
	printf("found by: %s", how_word(o->how));
	switch (o->how) {
	case WH_HOW_RPATH:
		printf(" of %s (DT_RPATH %s%s)%s\n", p->objs[o->how_obj].name,
		       o->how_detail,
		       o->how_obj != o->loader ? ", inherited by the object "
						 "that needs it" :
						 "",
		       ": it comes before LD_LIBRARY_PATH, which cannot "
		       "override it");
		break;
	case WH_HOW_RUNPATH:
		printf(" of %s (DT_RUNPATH %s): LD_LIBRARY_PATH comes first\n",
		       p->objs[o->how_obj].name, o->how_detail);
		break;
	case WH_HOW_LD_LIBRARY_PATH:
		printf(" (%s)\n", o->how_detail);
		break;
	case WH_HOW_PRELOAD:
	case WH_HOW_PRELOAD_FILE:
		printf(" (%s): the need is met by its soname\n", o->how_detail);
		break;
	case WH_HOW_CACHE:
		printf(" (%s, as ldconfig -p lists it)\n", o->how_detail);
		break;
	case WH_HOW_DEFAULT:
		printf(" (%s, not in the ld.so.cache)\n", o->how_detail);
		break;
	default:
		printf("\n");
	}
}

/* Our library for the name @name: its path if DIR/@name is ours. */
static char *ours_lib(const char *dir, const char *name, char *why, size_t len)
{
	char *path = wh_aprintf("%s/%s", dir, name);
	struct wh_elf *e;

	if (wh_elf__new(&e, path, why, len)) {
		free(path);
		return NULL;
	}
	if (!e->ours) {
		snprintf(why, len, "%s is not lope's libpapi", path);
		free(path);
		path = NULL;
	}
	wh_elf__delete(e);
	return path;
}

static int on_path(const char *prog)
{
	char *p = NULL;
	const char *path = getenv("PATH");
	char *copy = wh_strdup(path ? path : ""), *save = NULL, *d;
	int found = 0;

	for (d = strtok_r(copy, ":", &save); d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		p = wh_aprintf("%s/%s", d, prog);
		found = !access(p, X_OK);
		free(p);
	}
	free(copy);
	return found;
}

/* Whether @path is a file of one of the system directories. */
static int in_system_dir(const char *path, const struct wh_env *env)
{
	size_t n = strrchr(path, '/') - path + 1;
	int i;

	for (i = 0; i < env->nr_system_dirs; i++)
		if (strlen(env->system_dirs[i]) == n &&
		    !strncmp(env->system_dirs[i], path, n))
			return 1;
	return 0;
}

static void fix_env(const char *var, const char *val, const char *rest,
		    const char *prog)
{
	char *v = rest ? wh_aprintf("%s:%s", val, rest) : wh_strdup(val);

	printf("fix: %s=", var);
	shq(v);
	putchar(' ');
	shq(prog);
	putchar('\n');
	free(v);
}

/* How to make the program load ours instead of @o. */
static void advise(const struct wh_proc *p, const struct wh_obj *o,
		   const char *name, const struct wh_env *env,
		   const char *ours_dir, const char *prog)
{
	char why[512];
	char *ours = ours_lib(ours_dir, name, why, sizeof(why));
	const struct wh_obj *r;
	char *rp;

	if (!ours) {
		printf("fix: none known: %s (name our library directory with "
		       "--ours DIR)\n",
		       why);
		return;
	}
	if (env->secure) {
		printf("note: secure-execution mode: the loader ignores "
		       "LD_LIBRARY_PATH and LD_PRELOAD paths; install ours in "
		       "the system directory (make deb, doc/package.md)\n");
	} else if (!o || o->how == WH_HOW_RUNPATH || o->how == WH_HOW_CACHE ||
		   o->how == WH_HOW_DEFAULT ||
		   o->how == WH_HOW_LD_LIBRARY_PATH) {
		fix_env("LD_LIBRARY_PATH", ours_dir, env->ld_library_path,
			prog);
		printf("note: or, where the site has lope's environment module: "
		       "module load lope\n");
	} else if (o->how == WH_HOW_RPATH || o->how == WH_HOW_PRELOAD) {
		fix_env("LD_PRELOAD", ours, NULL, prog);
		if (o->how == WH_HOW_PRELOAD)
			printf("note: LD_PRELOAD names stock's; name ours "
			       "instead\n");
	} else {
		printf("note: %s loads it by %s: change that to name %s\n",
		       prog, how_word(o->how), ours);
	}
	if (!env->secure && o && o->how == WH_HOW_RPATH) {
		r = &p->objs[o->how_obj];
		if (on_path("patchelf")) {
			rp = wh_aprintf("%s:%s", ours_dir, r->elf->rpath);
			printf("fix: patchelf --force-rpath --set-rpath ");
			shq(rp);
			free(rp);
			putchar(' ');
			shq(r->name);
			putchar('\n');
		} else {
			printf("note: patchelf (not installed) could put %s "
			       "first in the RPATH of %s\n",
			       ours_dir, r->name);
		}
	}
	if (o && o->how == WH_HOW_RPATH && in_system_dir(o->name, env))
		printf("note: the RPATH names a system directory: lope's Debian "
		       "package puts ours there (make deb, doc/package.md)\n");
	free(ours);
}

static void print_tried(const struct wh_proc *p)
{
	int i;

	printf("looked in:");
	for (i = 0; i < p->tried.nr; i++)
		printf(" %s", p->tried.dirs[i]);
	printf("\n");
}

struct opts {
	const char *ours;
	int verbose;
	const char *prog;
};

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
	while ((c = getopt_long(argc, argv, "+:hvo:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			exit(0);
		case 'v':
			o->verbose = 1;
			break;
		case 'o':
			o->ours = optarg;
			break;
		case ':':
			die(WH_USAGE, "option %s needs an argument",
			    argv[optind - 1]);
		default:
			usage(stderr);
			die(WH_USAGE, "unknown option %s", argv[optind - 1]);
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		die(WH_USAGE, optind == argc ? "no program named" :
					       "one program at a time");
	}
	o->prog = argv[optind];
}

/* Open the program or exit 2 (1 for a static program). */
static struct wh_elf *open_program(const char *path)
{
	struct wh_elf *e;
	char why[512];
	int err = wh_elf__new(&e, path, why, sizeof(why));

	if (err)
		die(WH_USAGE, "%s", why);
	if (!e->interp && !e->dynamic) {
		wh_elf__delete(e);
		die(WH_NOT_FOUND,
		    "%s: statically linked: it loads no shared "
		    "library, so no libpapi.so",
		    path);
	}
	if (!e->interp) {
		wh_elf__delete(e);
		die(WH_USAGE,
		    "%s: a shared library, not a program: name the "
		    "program that loads it",
		    path);
	}
	if (access(e->interp, X_OK)) {
		snprintf(why, sizeof(why), "%s", e->interp);
		wh_elf__delete(e);
		die(WH_USAGE,
		    "%s: its loader %s is not on this machine (a "
		    "program for another machine?)",
		    path, why);
	}
	return e;
}

static int report(const struct opts *op, const char *path, struct wh_proc *p,
		  struct wh_env *env, int idx, int needer, const char *name)
{
	char desc[128];
	const struct wh_obj *o = idx >= 0 ? &p->objs[idx] : NULL;

	wh_elf__describe(p->objs[0].elf, desc, sizeof(desc));
	printf("program: %s (%s)\n", path, desc);
	if (idx == -1 && !o) {
		printf("loads: no libpapi: nothing in its dependency tree "
		       "needs %s*\n",
		       PREFIX);
		return WH_NOT_FOUND;
	}
	if (needer >= 0)
		print_chain(p, needer, name);
	if (!o) {
		printf("loads: not found: the loader cannot find %s\n", name);
		print_tried(p);
	} else {
		printf("loads: %s\n", o->name);
		print_found_by(p, o);
		printf("library: %s\n",
		       o->elf->ours ? "ours (lope)" : "stock PAPI (not lope)");
		if (op->verbose)
			print_tried(p);
	}
	if (!o || !o->elf->ours)
		advise(p, o, o && o->elf->soname ? o->elf->soname : name, env,
		       op->ours, path);
	return o ? WH_FOUND : WH_NOT_FOUND;
}

/* The program's path, freed at any exit (die() included). */
static char *prog_path;

static void free_prog_path(void)
{
	free(prog_path);
}

int main(int argc, char **argv)
{
	struct wh_env env = { 0 };
	struct wh_proc proc;
	struct wh_elf *prog;
	struct opts op = { 0 };
	char why[128], *path, *preload_buf = NULL;
	const char *name = NULL;
	int idx, needer = -1, rc;

	parse_opts(argc, argv, &op);
	path = prog_path = program_path(op.prog);
	if (atexit(free_prog_path))
		die(WH_NOT_FOUND, "atexit failed");
	prog = open_program(path);
	env_setup(&env, prog, &preload_buf);
	env.secure = secure_mode(path, why, sizeof(why));
	idx = wh_proc__find(&proc, prog, &env, PREFIX, &needer, &name);
	if (idx < -2) {
		fprintf(stderr, "papi_which: %s: %s\n", path, strerror(-idx));
		rc = WH_USAGE;
	} else {
		if (env.secure)
			printf("note: %s is %s: the loader runs it in "
			       "secure-execution mode (LD_LIBRARY_PATH "
			       "ignored)\n",
			       path, why);
		rc = report(&op, path, &proc, &env, idx == -2 ? -3 : idx,
			    needer, name);
	}
	wh_proc__free(&proc);
	wh_elf__delete(prog);
	env_free(&env, preload_buf);
	return rc;
}
