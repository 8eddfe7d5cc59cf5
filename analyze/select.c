/* The runs of one atomic job at one commit (select.h): the one policy. */
#include "select.h"

#include "../store/layout.h"
#include "../lib/text.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A commit directory's axes and its job key; 0, or -1 when the path is not one. */
static int dir_key(const char *dir, struct store_axes *a, char *key, size_t len)
{
	char why[256];

	if (store_parse(dir, STORE_COMMIT_DIR, a, why, sizeof(why)))
		return -1;
	if (snprintf(key, len, "%s/%s/%s/%s/%s/%s", a->testcase, a->path_params, a->tbox_group,
		     a->rootfs, a->kconfig, a->compiler) >= (int)len) {
		store_axes_free(a);
		return -1;
	}
	return 0;
}

void select_ambiguous_message(const char *job, const char *const *keys, size_t n, char *err,
			      size_t errlen)
{
	int len = snprintf(err, errlen, "job '%s' is ambiguous: it is the path_params of",
			   text_safe(job));

	for (size_t i = 0; i < n && len >= 0 && (size_t)len < errlen; i++)
		len += snprintf(err + len, errlen - (size_t)len, "%s %s", i ? "," : "",
				text_safe(keys[i]));
	if (len >= 0 && (size_t)len < errlen)
		snprintf(err + len, errlen - (size_t)len, "; name one of them");
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Whether the directories may be taken together under flags: SELECT_NODES and every one
 * differs from the first in tbox_group alone.  keys[i] gets each one's key either way. */
static bool mergeable(char **dirs, size_t n, unsigned flags, char (*keys)[PATH_MAX])
{
	struct store_axes first = {0}, a;
	bool ok = (flags & SELECT_NODES) != 0, have_first = false;

	for (size_t i = 0; i < n; i++) {
		if (dir_key(dirs[i], &a, keys[i], sizeof(keys[i]))) {
			snprintf(keys[i], sizeof(keys[i]), "%s", dirs[i]);
			ok = false;
			continue;
		}
		if (!have_first) {
			first = a;
			have_first = true;
			continue;
		}
		ok = ok && !strcmp(a.testcase, first.testcase) && !strcmp(a.rootfs, first.rootfs) &&
		     !strcmp(a.kconfig, first.kconfig) && !strcmp(a.compiler, first.compiler);
		store_axes_free(&a);
	}
	if (have_first)
		store_axes_free(&first);
	return ok;
}

/* Keep, of the n directories, those whose key is job's (a key names one machine). */
static size_t keep_key(char **dirs, size_t n, const char *job)
{
	char key[PATH_MAX];
	struct store_axes a;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		bool parsed = !dir_key(dirs[i], &a, key, sizeof(key)),
		     same = parsed && !strcmp(key, job);

		if (parsed)
			store_axes_free(&a);
		if (same)
			dirs[k++] = dirs[i];
		else
			free(dirs[i]);
	}
	return k;
}

/* Several directories hold job at one commit: SELECT_OK when the policy takes them all, else
 * why not in err. */
static enum select_result several(char **dirs, size_t n, const char *job, unsigned flags, char *err,
				  size_t errlen)
{
	char(*keys)[PATH_MAX] = calloc(n, sizeof(*keys));
	const char **kp = calloc(n, sizeof(*kp));
	enum select_result r = SELECT_ERROR;

	if (!keys || !kp) {
		snprintf(err, errlen, "out of memory");
	} else if (mergeable(dirs, n, flags, keys)) {
		r = SELECT_OK;
	} else {
		for (size_t i = 0; i < n; i++)
			kp[i] = keys[i];
		select_ambiguous_message(job, kp, n, err, errlen);
		r = SELECT_AMBIGUOUS;
	}
	free(keys);
	free(kp);
	return r;
}

enum select_result select_dirs(const char *root, const char *job, const char *commit,
			       unsigned flags, char ***dirs, size_t *n, char *err, size_t errlen)
{
	const char *slash = strchr(job, '/');
	char pp[NAME_MAX + 1], **found;
	ssize_t k;

	*dirs = NULL;
	*n = 0;
	if (slash) { /* a key: its second component is the path_params */
		size_t len = strcspn(slash + 1, "/");

		snprintf(pp, sizeof(pp), "%.*s", (int)(len < NAME_MAX ? len : NAME_MAX), slash + 1);
	}
	k = store_find(root, slash ? pp : job, commit, &found);
	if (k < 0) {
		snprintf(err, errlen, "out of memory");
		return SELECT_ERROR;
	}
	if (slash)
		k = (ssize_t)keep_key(found, (size_t)k, job);
	if (k == 0) {
		snprintf(err, errlen, "no directory holds runs of job '%s' at commit '%s' under %s",
			 text_safe(job), text_safe(commit), text_safe(root));
		free(found);
		return SELECT_NONE;
	}
	if (k > 1) {
		enum select_result r = several(found, (size_t)k, job, flags, err, errlen);

		if (r != SELECT_OK) {
			free_list(found, (size_t)k);
			return r;
		}
	}
	*dirs = found;
	*n = (size_t)k;
	return SELECT_OK;
}

enum select_result select_groups(const char *root, const char *job, const char *commit,
				 unsigned flags, struct result_group **g, size_t *n, char *err,
				 size_t errlen)
{
	char **dirs;
	size_t nd, loaded = 0;
	enum select_result r = select_dirs(root, job, commit, flags, &dirs, &nd, err, errlen);

	*g = NULL;
	*n = 0;
	if (r != SELECT_OK)
		return r;
	*g = calloc(nd, sizeof(**g));
	if (!*g) {
		snprintf(err, errlen, "out of memory");
		r = SELECT_ERROR;
	}
	for (; *g && loaded < nd; loaded++)
		if (group_load(dirs[loaded], &(*g)[loaded], err, errlen)) {
			r = SELECT_ERROR;
			break;
		}
	free_list(dirs, nd);
	if (r != SELECT_OK) {
		select_groups_free(*g, loaded);
		*g = NULL;
		return r;
	}
	*n = nd;
	return SELECT_OK;
}

void select_groups_free(struct result_group *g, size_t n)
{
	for (size_t i = 0; g && i < n; i++)
		group_free(&g[i]);
	free(g);
}
