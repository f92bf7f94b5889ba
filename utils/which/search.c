/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dynamic linker's search, as ld.so(8) and glibc's elf/dl-load.c do
 * it.  The process starts with the program, then the LD_PRELOAD objects,
 * then those of /etc/ld.so.preload; their DT_NEEDED lists are mapped
 * breadth first.  A name with a '/' is opened as it is; a name already
 * mapped (by the name it was asked for, its path or its DT_SONAME) or a
 * file already mapped is not mapped again; any other name is looked for:
 *
 *  1. DT_RPATH of the object that needs it, then of the object that
 *     needed that one, up to the program (none when the object that
 *     needs it has DT_RUNPATH);
 *  2. LD_LIBRARY_PATH (not in secure-execution mode);
 *  3. DT_RUNPATH of the object that needs it, and of no other;
 *  4. /etc/ld.so.cache, 5. the system directories (neither when the
 *     object that needs it is linked -z nodeflib).
 *
 * In each directory the active glibc-hwcaps subdirectories come first.
 * $ORIGIN, $LIB and $PLATFORM (or ${...}) are expanded in every path
 * list; an element with $ORIGIN is dropped in secure-execution mode.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "which.h"

/* What one search is for. */
struct want {
	const char *name;
	int loader; /* the object that needs it */
};

/* The value of the token at @s ("$LIB", "${ORIGIN}" ...) into *@len
 * bytes consumed: its name index, or -1 if none is there. */
static int dst_at(const char *s, size_t *len)
{
	static const char *const names[] = { "ORIGIN", "PLATFORM", "LIB" };
	size_t i, n;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = strlen(names[i]);
		if (!strncmp(s + 1, names[i], n) &&
		    !(s[1 + n] == '_' || (s[1 + n] >= 'A' && s[1 + n] <= 'Z') ||
		      (s[1 + n] >= 'a' && s[1 + n] <= 'z') ||
		      (s[1 + n] >= '0' && s[1 + n] <= '9'))) {
			*len = 1 + n;
			return (int)i;
		}
		if (s[1] == '{' && !strncmp(s + 2, names[i], n) &&
		    s[2 + n] == '}') {
			*len = 3 + n;
			return (int)i;
		}
	}
	return -1;
}

/*
 * @elem with its tokens expanded for object @o: a new string, or NULL
 * when the loader drops the element (a token without a value, $ORIGIN
 * in secure-execution mode).
 */
static char *expand(const char *elem, const struct wh_obj *o,
		    const struct wh_env *env)
{
	size_t cap = strlen(elem) + 1, n = 0, len, k;
	char *out = NULL;
	const char *v;
	int t;

	for (; *elem; elem++) {
		t = *elem == '$' ? dst_at(elem, &len) : -1;
		if (t < 0) {
			v = NULL;
			len = 1;
		} else {
			v = t == 0 ? (env->secure ? NULL : o->origin) :
			    t == 1 ? env->platform :
				     env->lib;
			if (!v) {
				free(out);
				return NULL;
			}
		}
		k = v ? strlen(v) : 1;
		if (!out || n + k + 1 > cap) {
			cap = (n + k + 1) * 2;
			out = realloc(out, cap);
			if (!out)
				return NULL;
		}
		memcpy(out + n, v ? v : elem, k);
		n += k;
		elem += len - 1;
	}
	if (!out && !(out = malloc(1)))
		return NULL;
	out[n] = 0;
	return out;
}

/* The directory @d as the loader keeps it: no trailing '/' but one. */
static char *dir_of(const char *d)
{
	size_t n = strlen(d);

	while (n > 1 && d[n - 1] == '/')
		n--;
	return wh_aprintf("%.*s%s", (int)n, d, d[n - 1] == '/' ? "" : "/");
}

static void tried_add(struct wh_tried *t, const char *dir, int record)
{
	if (!record)
		return;
	t->dirs = realloc(t->dirs, (t->nr + 1) * sizeof(*t->dirs));
	if (!t->dirs) {
		fputs("papi_which: out of memory\n", stderr);
		exit(WH_NOT_FOUND);
	}
	t->dirs[t->nr++] = wh_strdup(dir);
}

/*
 * Open @path as a library for the process: 0 and *@out, or -1 when it
 * is missing or not one the loader maps here (wrong class or machine).
 */
static int try_file(const char *path, const struct wh_proc *p,
		    struct wh_elf **out)
{
	char why[256];

	if (wh_elf__new(out, path, why, sizeof(why)))
		return -1;
	if (!wh_elf__compatible(p->objs[0].elf, *out)) {
		wh_elf__delete(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* Look for @w->name in directory @dir (with its '/'), its active
 * glibc-hwcaps subdirectories first: the path found, or NULL. */
static char *in_dir(struct wh_proc *p, const struct wh_env *env,
		    const char *dir, const struct want *w, int record,
		    struct wh_elf **found)
{
	char *path;
	int i;

	for (i = 0; i < env->nr_hwcaps; i++) {
		path = wh_aprintf("%sglibc-hwcaps/%s/%s", dir, env->hwcaps[i],
				  w->name);
		if (!try_file(path, p, found))
			return path;
		free(path);
	}
	tried_add(&p->tried, dir, record);
	path = wh_aprintf("%s%s", dir, w->name);
	if (!try_file(path, p, found))
		return path;
	free(path);
	return NULL;
}

/* Look through the path list @list (separators @sep) of object @o. */
static char *in_list(struct wh_proc *p, const struct wh_env *env,
		     const char *list, const char *sep, const struct wh_obj *o,
		     const struct want *w, int record, struct wh_elf **found)
{
	char *copy = wh_strdup(list), *save = NULL, *elem, *x, *dir;
	char *path = NULL;

	for (elem = strtok_r(copy, sep, &save); elem && !path;
	     elem = strtok_r(NULL, sep, &save)) {
		x = expand(elem, o, env);
		if (x && *x) {
			dir = dir_of(x);
			path = in_dir(p, env, dir, w, record, found);
			free(dir);
		}
		free(x);
	}
	free(copy);
	return path;
}

/* The result of one search step. */
struct hit {
	char *path;
	struct wh_elf *elf;
	enum wh_how how;
	int how_obj;
	char *detail;
};

static int step_rpaths(struct wh_proc *p, const struct wh_env *env,
		       const struct want *w, int record, struct hit *h)
{
	int l, did_main = 0;
	const struct wh_obj *o;

	if (p->objs[w->loader].elf->runpath)
		return 0;
	for (l = w->loader; l >= 0 && !h->path; l = p->objs[l].loader) {
		o = &p->objs[l];
		if (!o->elf->rpath)
			continue;
		h->path = in_list(p, env, o->elf->rpath, ":", o, w, record,
				  &h->elf);
		h->how_obj = l;
		did_main |= l == 0;
	}
	if (!h->path && !did_main && p->objs[0].elf->rpath) {
		h->path = in_list(p, env, p->objs[0].elf->rpath, ":",
				  &p->objs[0], w, record, &h->elf);
		h->how_obj = 0;
	}
	if (h->path) {
		h->how = WH_HOW_RPATH;
		h->detail = wh_strdup(p->objs[h->how_obj].elf->rpath);
	}
	return !!h->path;
}

static int step_env(struct wh_proc *p, const struct wh_env *env,
		    const struct want *w, int record, struct hit *h)
{
	if (!env->ld_library_path || env->secure)
		return 0;
	h->path = in_list(p, env, env->ld_library_path, ":;", &p->objs[0], w,
			  record, &h->elf);
	if (h->path) {
		h->how = WH_HOW_LD_LIBRARY_PATH;
		h->detail = wh_strdup(env->ld_library_path);
	}
	return !!h->path;
}

static int step_runpath(struct wh_proc *p, const struct wh_env *env,
			const struct want *w, int record, struct hit *h)
{
	const struct wh_obj *o = &p->objs[w->loader];

	if (!o->elf->runpath)
		return 0;
	h->path = in_list(p, env, o->elf->runpath, ":", o, w, record, &h->elf);
	if (h->path) {
		h->how = WH_HOW_RUNPATH;
		h->how_obj = w->loader;
		h->detail = wh_strdup(o->elf->runpath);
	}
	return !!h->path;
}

static int step_system(struct wh_proc *p, const struct wh_env *env,
		       const struct want *w, int record, struct hit *h)
{
	int i;

	if (p->objs[w->loader].elf->nodeflib)
		return 0;
	h->path = wh_cache__lookup(env->cache, w->name, p->objs[0].elf,
				   &p->hwcaps_seen);
	if (h->path && !try_file(h->path, p, &h->elf)) {
		h->how = WH_HOW_CACHE;
		h->detail = wh_strdup(env->cache);
		return 1;
	}
	free(h->path);
	h->path = NULL;
	tried_add(&p->tried, env->cache, record);
	for (i = 0; i < env->nr_system_dirs && !h->path; i++)
		h->path =
			in_dir(p, env, env->system_dirs[i], w, record, &h->elf);
	if (h->path) {
		h->how = WH_HOW_DEFAULT;
		h->detail = wh_strdup("the system directories");
	}
	return !!h->path;
}

/* Search for @w->name as the loader does: 1 and @h, or 0. */
static int search(struct wh_proc *p, const struct wh_env *env,
		  const struct want *w, int record, struct hit *h)
{
	char *x;

	memset(h, 0, sizeof(*h));
	h->how_obj = -1;
	if (strchr(w->name, '/')) {
		x = expand(w->name, &p->objs[w->loader], env);
		if (x && !try_file(x, p, &h->elf)) {
			h->path = x;
			h->how = WH_HOW_PATH;
			return 1;
		}
		free(x);
		return 0;
	}
	return step_rpaths(p, env, w, record, h) ||
	       step_env(p, env, w, record, h) ||
	       step_runpath(p, env, w, record, h) ||
	       step_system(p, env, w, record, h);
}

/* The object that @name names already, or -1. */
static int loaded(const struct wh_proc *p, const char *name)
{
	const struct wh_obj *o;
	int i;

	for (i = 0; i < p->nr; i++) {
		o = &p->objs[i];
		if ((o->req && !strcmp(o->req, name)) ||
		    !strcmp(o->name, name) ||
		    (o->elf->soname && i > 0 && !strcmp(o->elf->soname, name)))
			return i;
	}
	return -1;
}

/* $ORIGIN of an object at @path: its directory, absolute, links left as
 * they are (the program's own is resolved: see wh_proc__find). */
static char *origin_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char cwd[4096];

	if (path[0] == '/')
		return wh_aprintf(
			"%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	if (!slash)
		return wh_strdup(cwd);
	return wh_aprintf("%s/%.*s", cwd, (int)(slash - path), path);
}

/* Add the object @h found for @req to the process: its index (that of
 * the object of the same file, if one is mapped). */
static int add(struct wh_proc *p, const char *req, int loader, struct hit *h)
{
	struct wh_obj *o;
	struct stat st;
	int i;

	memset(&st, 0, sizeof(st));
	stat(h->path, &st);
	for (i = 0; i < p->nr; i++)
		if (p->objs[i].dev == st.st_dev &&
		    p->objs[i].ino == st.st_ino) {
			wh_elf__delete(h->elf);
			free(h->path);
			free(h->detail);
			return i;
		}
	p->objs = realloc(p->objs, (p->nr + 1) * sizeof(*p->objs));
	if (!p->objs) {
		fputs("papi_which: out of memory\n", stderr);
		exit(WH_NOT_FOUND);
	}
	o = &p->objs[p->nr];
	memset(o, 0, sizeof(*o));
	o->elf = h->elf;
	o->req = req ? wh_strdup(req) : NULL;
	o->name = h->path;
	o->origin = origin_of(h->path);
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	o->loader = loader;
	o->how = h->how;
	o->how_obj = h->how_obj;
	o->how_detail = h->detail;
	return p->nr++;
}

/* Whether library @name is one of those asked for. */
static int is_wanted(const char *name, const char *prefix)
{
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	return !strncmp(base, prefix, strlen(prefix));
}

/* Map the preload list @list (separators @sep) as @how. */
static void preload(struct wh_proc *p, const struct wh_env *env,
		    const char *list, const char *sep, enum wh_how how)
{
	char *copy = wh_strdup(list), *save = NULL, *elem;
	struct want w = { .loader = 0 };
	struct hit h;
	struct stat st;

	for (elem = strtok_r(copy, sep, &save); elem;
	     elem = strtok_r(NULL, sep, &save)) {
		/* Secure-execution: no paths, only set-user-ID files of the
		 * system directories (ld.so(8), LD_PRELOAD). */
		if (env->secure && how == WH_HOW_PRELOAD && strchr(elem, '/'))
			continue;
		w.name = elem;
		if (loaded(p, elem) >= 0 || !search(p, env, &w, 0, &h))
			continue;
		if (env->secure && how == WH_HOW_PRELOAD &&
		    ((h.how != WH_HOW_CACHE && h.how != WH_HOW_DEFAULT) ||
		     stat(h.path, &st) || !(st.st_mode & S_ISUID))) {
			wh_elf__delete(h.elf);
			free(h.path);
			free(h.detail);
			continue;
		}
		h.how = how;
		free(h.detail);
		h.detail = wh_strdup(elem);
		add(p, elem, 0, &h);
	}
	free(copy);
}

/* The first preloaded object that is a wanted library, or -1. */
static int preloaded(const struct wh_proc *p, const char *prefix)
{
	int i;

	for (i = 1; i < p->nr; i++)
		if (is_wanted(p->objs[i].name, prefix) ||
		    (p->objs[i].elf->soname &&
		     is_wanted(p->objs[i].elf->soname, prefix)))
			return i;
	return -1;
}

static int start(struct wh_proc *p, struct wh_elf *prog, const char *path)
{
	char real[4096];
	struct stat st;

	if (!realpath(path, real))
		return -errno;
	p->objs = calloc(1, sizeof(*p->objs));
	if (!p->objs)
		return -ENOMEM;
	p->objs[0].elf = prog;
	p->objs[0].name = wh_strdup(path);
	/* The program's $ORIGIN is where its file really is, as the kernel's
	 * /proc/self/exe tells the loader. */
	p->objs[0].origin = origin_of(real);
	p->objs[0].loader = -1;
	p->objs[0].how_obj = -1;
	if (!stat(path, &st)) {
		p->objs[0].dev = st.st_dev;
		p->objs[0].ino = st.st_ino;
	}
	p->nr = 1;
	return 0;
}

int wh_proc__find(struct wh_proc *p, struct wh_elf *prog,
		  const struct wh_env *env, const char *prefix, int *needer,
		  const char **name)
{
	struct want w;
	struct hit h;
	int i, k, err, pre;

	memset(p, 0, sizeof(*p));
	err = start(p, prog, prog->path);
	if (err)
		return err;
	if (env->ld_preload)
		preload(p, env, env->ld_preload, " :", WH_HOW_PRELOAD);
	if (env->preload_file)
		preload(p, env, env->preload_file,
			" \t\n:", WH_HOW_PRELOAD_FILE);
	pre = preloaded(p, prefix);
	for (i = 0; i < p->nr; i++) {
		for (k = 0; k < p->objs[i].elf->nr_needed; k++) {
			w.name = p->objs[i].elf->needed[k];
			w.loader = i;
			if (loaded(p, w.name) >= 0 &&
			    !is_wanted(w.name, prefix))
				continue;
			if (is_wanted(w.name, prefix)) {
				*needer = i;
				*name = w.name;
				if (loaded(p, w.name) >= 0)
					return loaded(p, w.name);
				if (!search(p, env, &w, 1, &h))
					return -2;
				return add(p, w.name, i, &h);
			}
			if (search(p, env, &w, 0, &h))
				add(p, w.name, i, &h);
		}
	}
	return pre;
}

void wh_proc__free(struct wh_proc *p)
{
	int i;

	for (i = 0; i < p->nr; i++) {
		if (i > 0)
			wh_elf__delete(p->objs[i].elf);
		free(p->objs[i].req);
		free(p->objs[i].name);
		free(p->objs[i].origin);
		free(p->objs[i].how_detail);
	}
	free(p->objs);
	for (i = 0; i < p->tried.nr; i++)
		free(p->tried.dirs[i]);
	free(p->tried.dirs);
	memset(p, 0, sizeof(*p));
}
