#include "layout.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Components below the root, in path order; the two that searches match on. */
enum { AXIS_TESTCASE, AXIS_PATH_PARAMS, AXIS_COMMIT = 6, NR_AXES = 7 };

void store_component(const char *value, char *out, size_t len)
{
	size_t i;

	for (i = 0; value[i] && i + 1 < len; i++)
		out[i] = value[i] == '/' ? '_' : value[i];
	out[i] = '\0';
	/* ".", ".." and hidden names would escape or hide in the tree. */
	for (i = 0; out[i] == '.'; i++)
		out[i] = '_';
	if (!out[0] && len > 1)
		snprintf(out, len, "_");
}

int store_path(const struct store_axes *a, char *out, size_t len)
{
	const char *axes[NR_AXES] = {a->testcase, a->path_params, a->tbox_group, a->rootfs,
				     a->kconfig,  a->compiler,	  a->commit};
	char c[NAME_MAX + 1];
	size_t n;
	int w;

	w = snprintf(out, len, "%s", a->root);
	if (w < 0 || (size_t)w >= len)
		return -1;
	n = (size_t)w;
	for (int i = 0; i < NR_AXES; i++) {
		store_component(axes[i] ? axes[i] : "", c, sizeof(c));
		w = snprintf(out + n, len - n, "/%s", c);
		if (w < 0 || (size_t)w >= len - n)
			return -1;
		n += (size_t)w;
	}
	if (a->has_run) {
		w = snprintf(out + n, len - n, "/%u", a->run);
		if (w < 0 || (size_t)w >= len - n)
			return -1;
	}
	return 0;
}

int store_run_number(const char *name, unsigned *run)
{
	uint64_t n = 0;
	const char *p = name;

	/* One spelling per number: "07" and "7" would be two directories of one run. */
	if (!*p || (*p == '0' && p[1]))
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		n = n * 10 + (uint64_t)(*p - '0');
		if (n > UINT_MAX)
			return -1;
	}
	*run = (unsigned)n;
	return 0;
}

int store_parse(const char *path, enum store_level level, struct store_axes *a, char *err,
		size_t errlen)
{
	int want = NR_AXES + (level == STORE_RUN_DIR);
	char *buf, *parts[NR_AXES + 1];
	int n = 0;

	memset(a, 0, sizeof(*a));
	/* Components are taken from the end, each cut off by the '\0' written over the slash
	 * before the next one; what is left in front is the root. */
	buf = strdup(path);
	if (!buf) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char *end = buf + strlen(buf);
	while (n < want) {
		while (end > buf && end[-1] == '/')
			*--end = '\0';
		if (end == buf)
			break;
		char *start = end;
		while (start > buf && start[-1] != '/')
			start--;
		parts[want - 1 - n++] = start;
		end = start;
	}
	const char *what = level == STORE_RUN_DIR ? "a run directory" : "a commit directory";
	if (n < want) {
		snprintf(err, errlen,
			 "%s is not %s of a results tree: expected <root>/<testcase>/<path_params>/"
			 "<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>%s",
			 path, what, level == STORE_RUN_DIR ? "/<run>" : "");
		free(buf);
		return -1;
	}
	for (int i = 0; i < want; i++) {
		size_t len = strlen(parts[i]);

		if (parts[i][0] == '.' || len > NAME_MAX) {
			snprintf(err, errlen,
				 "%s is not %s of a results tree: component '%.*s' is %s", path,
				 what, (int)(len > 64 ? 64 : len), parts[i],
				 parts[i][0] == '.' ? "hidden" : "longer than a file name can be");
			free(buf);
			return -1;
		}
	}
	if (level == STORE_RUN_DIR && store_run_number(parts[NR_AXES], &a->run)) {
		snprintf(err, errlen, "%s is not a run directory: '%s' is not a run number", path,
			 parts[NR_AXES]);
		free(buf);
		return -1;
	}
	a->has_run = level == STORE_RUN_DIR;
	/* The root: what precedes the first component, without its trailing slashes. */
	end = parts[0];
	while (end > buf && end[-1] == '/')
		end--;
	if (end > buf) {
		*end = '\0';
		a->root = buf;
	} else {
		a->root = path[0] == '/' ? "/" : ".";
	}
	a->testcase = parts[AXIS_TESTCASE];
	a->path_params = parts[AXIS_PATH_PARAMS];
	a->tbox_group = parts[2];
	a->rootfs = parts[3];
	a->kconfig = parts[4];
	a->compiler = parts[5];
	a->commit = parts[AXIS_COMMIT];
	a->storage_ = buf;
	return 0;
}

void store_axes_free(struct store_axes *a)
{
	free(a->storage_);
	memset(a, 0, sizeof(*a));
}

struct path_list {
	char **v;
	size_t n, cap;
};

static int list_add(struct path_list *l, const char *path)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = strdup(path);
	if (!l->v[l->n])
		return -1;
	l->n++;
	return 0;
}

static void list_free(struct path_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* The directories of the path being walked, the root first: where each ends in the walk's
 * buffer and, once a symbolic link needs them, their device and inode. */
struct walk_path {
	size_t len[NR_AXES + 1];
	dev_t dev[NR_AXES + 1];
	ino_t ino[NR_AXES + 1];
	bool known[NR_AXES + 1];
};

/* Whether st, a directory a link below buf's level `level` leads to, is that directory or one
 * above it: a loop ("loop -> ." in the root), which glob follows to the walk's depth, N such
 * links making (N+1)^7 paths of one tree.  Only links pay for this: a real directory cannot be
 * its own ancestor. */
static bool is_ancestor(char *buf, struct walk_path *w, int level, const struct stat *st)
{
	for (int k = 0; k <= level; k++) {
		if (!w->known[k]) {
			struct stat a;
			char c = buf[w->len[k]];
			int r;

			buf[w->len[k]] = '\0';
			r = stat(buf, &a);
			buf[w->len[k]] = c;
			if (r)
				continue;
			w->dev[k] = a.st_dev;
			w->ino[k] = a.st_ino;
			w->known[k] = true;
		}
		if (w->dev[k] == st->st_dev && w->ino[k] == st->st_ino)
			return true;
	}
	return false;
}

/* Whether buf, below the walk's directory at `level`, is a directory to walk into: a directory,
 * or a symbolic link to one that is not the directory it is in or one above (d_type: the entry's
 * type when readdir gave it, DT_UNKNOWN otherwise).  A directory's identity goes into w for the
 * next level when it was read. */
static bool walk_into(char *buf, struct walk_path *w, int level, unsigned char d_type)
{
	struct stat st;

	w->known[level + 1] = false;
	if (d_type == DT_DIR)
		return true;
	if (d_type != DT_LNK) {
		if (lstat(buf, &st))
			return false;
		if (S_ISDIR(st.st_mode))
			goto dir;
		if (!S_ISLNK(st.st_mode))
			return false;
	}
	if (stat(buf, &st) || !S_ISDIR(st.st_mode) || is_ancestor(buf, w, level, &st))
		return false;
dir:
	w->dev[level + 1] = st.st_dev;
	w->ino[level + 1] = st.st_ino;
	w->known[level + 1] = true;
	return true;
}

/* Below dir (len bytes of buf), the component for axis `level`: the wanted one, or every
 * one that is not hidden.  Directories only; symbolic links to them count, as for glob, but for
 * a link to the directory it is in or one above (walk_into). */
static int find_level(char *buf, size_t len, int level, const char *const want[NR_AXES],
		      struct walk_path *w, struct path_list *l)
{
	if (level == NR_AXES)
		return list_add(l, buf);
	w->len[level] = len;
	if (want[level]) {
		if (len + 1 + strlen(want[level]) >= PATH_MAX)
			return 0;
		sprintf(buf + len, "/%s", want[level]);
		if (!walk_into(buf, w, level, DT_UNKNOWN))
			return 0;
		return find_level(buf, len + 1 + strlen(want[level]), level + 1, want, w, l);
	}
	buf[len] = '\0';
	DIR *d = opendir(buf);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return 0;
	while (!ret && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (e->d_name[0] == '.' || len + 1 + n >= PATH_MAX)
			continue;
		buf[len] = '/';
		memcpy(buf + len + 1, e->d_name, n + 1);
		/* d_type spares a stat for most entries; links and unknowns need one. */
		if (e->d_type != DT_DIR && e->d_type != DT_LNK && e->d_type != DT_UNKNOWN)
			continue;
		if (!walk_into(buf, w, level, e->d_type))
			continue;
		ret = find_level(buf, len + 1 + n, level + 1, want, w, l);
	}
	closedir(d);
	buf[len] = '\0';
	return ret;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

ssize_t store_find(const char *root, const char *path_params, const char *commit, char ***out)
{
	char pp[NAME_MAX + 1], cm[NAME_MAX + 1], buf[PATH_MAX];
	const char *want[NR_AXES] = {0};
	struct path_list l = {0};
	struct walk_path w = {0};
	size_t len = strlen(root);

	*out = NULL;
	if (path_params) {
		store_component(path_params, pp, sizeof(pp));
		want[AXIS_PATH_PARAMS] = pp;
	}
	if (commit) {
		store_component(commit, cm, sizeof(cm));
		want[AXIS_COMMIT] = cm;
	}
	while (len > 1 && root[len - 1] == '/')
		len--;
	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, root, len);
	buf[len] = '\0';
	if (find_level(buf, len, AXIS_TESTCASE, want, &w, &l)) {
		list_free(&l);
		errno = ENOMEM;
		return -1;
	}
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), by_path);
	*out = l.v;
	return (ssize_t)l.n;
}

struct numbered {
	unsigned run;
	char *path;
};

static int by_run(const void *a, const void *b)
{
	unsigned x = ((const struct numbered *)a)->run, y = ((const struct numbered *)b)->run;

	return (x > y) - (x < y);
}

ssize_t store_list_runs(const char *commit_dir, char ***out)
{
	struct numbered *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *d;
	int saved;

	*out = NULL;
	d = opendir(commit_dir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		unsigned run;

		if (store_run_number(e->d_name, &run))
			continue;
		if (n == cap) {
			struct numbered *nv = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*nv));

			if (!nv)
				goto nomem;
			v = nv;
		}
		if (asprintf(&v[n].path, "%s/%s", commit_dir, e->d_name) < 0)
			goto nomem;
		v[n++].run = run;
	}
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof(*v), by_run);
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out) {
		d = NULL;
		goto nomem;
	}
	for (size_t i = 0; i < n; i++)
		(*out)[i] = v[i].path;
	free(v);
	return (ssize_t)n;
nomem:
	saved = ENOMEM;
	if (d)
		closedir(d);
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	errno = saved;
	return -1;
}
