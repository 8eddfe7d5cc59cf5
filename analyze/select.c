/* The runs of one atomic job at one commit (select.h): the one policy. */
#include "select.h"

#include "../store/layout.h"
#include "../lib/errors.h"
#include "../lib/git.h"
#include "../lib/strbuf.h"
#include "../lib/strvec.h"
#include "../lib/text.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

ssize_t select_job_dirs(const char *root, const char *job, const char *commit, char ***dirs)
{
	const char *slash = job ? strchr(job, '/') : NULL;
	char pp[NAME_MAX + 1];
	ssize_t k;

	if (slash) { /* a key: its second component is the path_params */
		size_t len = strcspn(slash + 1, "/");

		snprintf(pp, sizeof(pp), "%.*s", (int)(len < NAME_MAX ? len : NAME_MAX), slash + 1);
	}
	k = store_find(root, slash ? pp : job, commit, dirs);
	if (k > 0 && slash)
		k = (ssize_t)keep_key(*dirs, (size_t)k, job);
	return k;
}

enum select_result select_dirs(const char *root, const char *job, const char *commit,
			       unsigned flags, char ***dirs, size_t *n, char *err, size_t errlen)
{
	char **found;
	ssize_t k = select_job_dirs(root, job, commit, &found);

	*dirs = NULL;
	*n = 0;
	if (k < 0) {
		snprintf(err, errlen, "out of memory");
		return SELECT_ERROR;
	}
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

/* The commit labels of the selected jobs' directories, one entry per label (the first job it
 * is in beside it, in the tree's order). */
struct stored_labels {
	struct strvec label, key;
};

static int stored_labels_add(struct stored_labels *l, const char *dir)
{
	char key[PATH_MAX];
	struct store_axes a;
	int rc = 0;

	if (dir_key(dir, &a, key, sizeof(key)))
		return 0; /* not a commit directory: nothing it could name */
	for (size_t i = 0; i < l->label.n; i++)
		if (!strcmp(l->label.v[i], a.commit))
			goto out;
	if (strvec_push(&l->label, a.commit)) {
		rc = -1;
	} else if (strvec_push(&l->key, key)) { /* keep the two parallel */
		free((char *)l->label.v[--l->label.n]);
		l->label.v[l->label.n] = NULL;
		rc = -1;
	}
out:
	store_axes_free(&a);
	return rc;
}

static int stored_labels_load(struct stored_labels *l, const char *root, const char *const *jobs,
			      size_t njobs)
{
	for (size_t j = 0; j < (njobs ? njobs : 1); j++) {
		char **dirs;
		ssize_t n = select_job_dirs(root, njobs ? jobs[j] : NULL, NULL, &dirs);
		int rc = n < 0 ? -1 : 0;

		for (ssize_t i = 0; i < n; i++)
			if (!rc)
				rc = stored_labels_add(l, dirs[i]);
		if (n >= 0)
			free_list(dirs, (size_t)n);
		if (rc)
			return -1;
	}
	return 0;
}

static void stored_labels_clear(struct stored_labels *l)
{
	strvec_clear(&l->label);
	strvec_clear(&l->key);
}

/* Whether a label of the selected jobs is arg itself (1; 0 not, -1 out of memory): the usual
 * case, the walk that finds only it. */
static int stored_exactly(const char *root, const char *const *jobs, size_t njobs, const char *arg)
{
	char cm[NAME_MAX + 1];
	int found = 0;

	store_component(arg, cm, sizeof(cm));
	if (strcmp(cm, arg))
		return 0; /* no directory is named so (store_find would look for what it maps to) */
	for (size_t j = 0; j < (njobs ? njobs : 1) && !found; j++) {
		char **dirs;
		ssize_t n = select_job_dirs(root, njobs ? jobs[j] : NULL, arg, &dirs);

		if (n < 0)
			return -1;
		found = n > 0;
		free_list(dirs, (size_t)n);
	}
	return found;
}

/* Several labels match: "OPT 'ARG' is ambiguous: ..." naming a few (match[i] indexes l). */
static void ambiguous_commit(const struct stored_labels *l, const size_t *match, size_t n,
			     const char *opt, const char *arg, const char *what, char *err,
			     size_t errlen)
{
	enum { SHOWN = 4 };
	int len = snprintf(err, errlen, "%s '%s' is ambiguous: %s %zu commit labels:", opt,
			   text_safe(arg), what, n);

	for (size_t i = 0; i < n && i < SHOWN && len >= 0 && (size_t)len < errlen; i++)
		len += snprintf(err + len, errlen - (size_t)len, "%s %s (in %s)", i ? "," : "",
				text_safe(l->label.v[match[i]]), text_safe(l->key.v[match[i]]));
	if (n > SHOWN && len >= 0 && (size_t)len < errlen)
		len += snprintf(err + len, errlen - (size_t)len, " and %zu more", n - SHOWN);
	if (len >= 0 && (size_t)len < errlen)
		snprintf(err + len, errlen - (size_t)len, "; give more of the label");
}

/* The labels of l that name what want is: its abbreviation when abbrev (labels of at least
 * min hex digits that want starts with), else labels that start with want. */
static size_t matching(const struct stored_labels *l, const char *want, bool abbrev, size_t min,
		       size_t *match)
{
	size_t n = 0, wl = strlen(want);

	for (size_t i = 0; i < l->label.n; i++) {
		const char *s = l->label.v[i];
		size_t sl = strlen(s);

		if (!git_is_abbrev(s, min))
			continue;
		if (abbrev ? !strncasecmp(want, s, sl) : sl >= wl && !strncasecmp(s, want, wl))
			match[n++] = i;
	}
	return n;
}

/* With a repository: what git makes of arg, as select_commit says.  0 with *label (NULL when
 * git does not know arg), SELECT_AMBIGUOUS or SELECT_ERROR with err. */
static enum select_result commit_by_git(const struct stored_labels *l, const char *repo,
					const char *opt, const char *arg, size_t *match,
					char **label, char *err, size_t errlen)
{
	char oid[72], gerr[512];
	const char *found = oid; /* not stored: the caller says there are no runs of it */
	size_t n;

	*label = NULL;
	if (git_commit_oid(repo, arg, oid, sizeof(oid))) {
		/* Not a revision of the repository, or no repository at all: only the latter is
		 * an error (a label may name no commit of it). */
		if (git_run(repo, GIT_ARGS("rev-parse", "--git-dir"), 0, NULL, gerr,
			    sizeof(gerr))) {
			snprintf(err, errlen, "--repo '%s': %s", text_safe(repo), gerr);
			return SELECT_ERROR;
		}
		return SELECT_OK;
	}
	for (size_t i = 0; i < l->label.n; i++)
		if (!strcmp(l->label.v[i], oid))
			goto found;
	/* Labels stored abbreviated: as results and trend place them on a branch. */
	n = matching(l, oid, true, 7, match);
	if (n > 1) {
		ambiguous_commit(l, match, n, opt, arg, "its commit is abbreviated by", err,
				 errlen);
		return SELECT_AMBIGUOUS;
	}
	if (n == 1)
		found = l->label.v[match[0]];
found:
	*label = strdup(found);
	if (!*label) {
		snprintf(err, errlen, "out of memory");
		return SELECT_ERROR;
	}
	return SELECT_OK;
}

enum select_result select_commit(const char *root, const char *const *jobs, size_t njobs,
				 const char *repo, const char *opt, const char *arg, char **label,
				 char *err, size_t errlen)
{
	struct stored_labels l = {STRVEC_INIT, STRVEC_INIT};
	enum select_result r = SELECT_OK;
	const char *found = arg; /* nothing matches: as given, for the caller's "no runs at" */
	size_t *match = NULL, n;
	int exact = stored_exactly(root, jobs, njobs, arg);

	*label = NULL;
	if (exact < 0 || (!exact && (stored_labels_load(&l, root, jobs, njobs) ||
				     !(match = calloc(l.label.n + 1, sizeof(*match)))))) {
		snprintf(err, errlen, "out of memory");
		r = SELECT_ERROR;
	} else if (!exact && repo) {
		r = commit_by_git(&l, repo, opt, arg, match, label, err, errlen);
	}
	if (r == SELECT_OK && !exact && !*label && git_is_abbrev(arg, GIT_MIN_ABBREV)) {
		n = matching(&l, arg, false, strlen(arg), match);
		if (n > 1) {
			ambiguous_commit(&l, match, n, opt, arg, "it is the start of", err, errlen);
			r = SELECT_AMBIGUOUS;
		} else if (n == 1) {
			found = l.label.v[match[0]];
		}
	}
	if (r == SELECT_OK && !*label && !(*label = strdup(found))) {
		snprintf(err, errlen, "out of memory");
		r = SELECT_ERROR;
	}
	free(match);
	stored_labels_clear(&l);
	return r;
}

enum select_result select_commit_list(const char *root, const char *const *jobs, size_t njobs,
				      const char *repo, const char *opt, const char *list,
				      char **joined, char *err, size_t errlen)
{
	struct strbuf out = STRBUF_INIT;
	char **labels = NULL;
	long nc = commit_list_split(list, &labels);
	enum select_result r = SELECT_OK;

	*joined = NULL;
	for (long c = 0; c < nc && r == SELECT_OK; c++) {
		char *label;

		r = select_commit(root, jobs, njobs, repo, opt, labels[c], &label, err, errlen);
		if (r == SELECT_OK)
			strbuf_addf(&out, "%s%s", c ? "," : "", label);
		free(label);
	}
	free(labels);
	if (nc < 0 || (r == SELECT_OK && out.oom)) {
		snprintf(err, errlen, "out of memory");
		r = SELECT_ERROR;
	}
	if (r == SELECT_OK)
		*joined = out.buf ? out.buf : strdup("");
	else
		strbuf_release(&out);
	if (r == SELECT_OK && !*joined) {
		snprintf(err, errlen, "out of memory");
		r = SELECT_ERROR;
	}
	return r;
}

enum select_result select_commits_dirs(const char *root, const char *job, char **commits,
				       size_t ncommits, char ***dirs, size_t *n, char *err,
				       size_t errlen)
{
	*dirs = NULL;
	*n = 0;
	for (size_t c = 0; c < ncommits; c++) {
		char **found, **grown;
		size_t k;
		enum select_result r =
		    select_dirs(root, job, commits[c], 0, &found, &k, err, errlen);

		if (r != SELECT_OK)
			return r;
		grown = realloc(*dirs, (*n + 1) * sizeof(**dirs));
		if (!grown) {
			free_list(found, k);
			snprintf(err, errlen, "out of memory");
			return SELECT_ERROR;
		}
		*dirs = grown;
		(*dirs)[(*n)++] = found[0];
		free(found);
	}
	return SELECT_OK;
}

/* Whether job has runs at each of commits[1..]; a note names the first commit that lacks it. */
static bool at_every_commit(const char *root, const char *job, char **commits, size_t ncommits)
{
	for (size_t c = 1; c < ncommits; c++) {
		char **found, e[1024];
		size_t nf;
		/* none is absent; several (ambiguous) is said when the job is read */
		enum select_result r =
		    select_dirs(root, job, commits[c], 0, &found, &nf, e, sizeof(e));

		free_list(found, nf);
		if (r == SELECT_NONE) {
			sb_note("job '%s' has runs at commit '%s' but none at '%s': left out",
				text_safe(job), text_safe(commits[0]), text_safe(commits[c]));
			return false;
		}
	}
	return true;
}

ssize_t select_common_jobs(const char *root, char **commits, size_t ncommits, char ***jobs)
{
	char **dirs = NULL, **v;
	ssize_t nd = ncommits ? store_find(root, NULL, commits[0], &dirs) : 0;
	size_t n = 0;
	bool oom = nd < 0;

	*jobs = NULL;
	v = oom ? NULL : calloc((size_t)nd + 1, sizeof(*v));
	oom = oom || !v;
	for (ssize_t i = 0; !oom && i < nd; i++) {
		struct store_axes a;
		char why[512];
		bool seen = false;

		if (store_parse(dirs[i], STORE_COMMIT_DIR, &a, why, sizeof(why)))
			continue;
		for (size_t k = 0; k < n && !seen; k++)
			seen = !strcmp(v[k], a.path_params);
		if (!seen && at_every_commit(root, a.path_params, commits, ncommits))
			oom = !(v[n++] = strdup(a.path_params));
		store_axes_free(&a);
	}
	if (nd > 0)
		free_list(dirs, (size_t)nd);
	if (oom) {
		free_list(v, n);
		return -1;
	}
	*jobs = v;
	return (ssize_t)n;
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
