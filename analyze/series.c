/* A stat's series over a branch (series.h), from the results index. */
#include "series.h"
#include "results.h"
#include "select.h"

#include "../lib/git.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The job's key, from a key or a path_params: 0, or -1 with err (none, or several). */
static int resolve_job(struct results_index *ix, const char *job, char **key, char *err,
		       size_t errlen)
{
	char **keys;
	ssize_t n = index_job_keys(ix, job, &keys);

	*key = NULL;
	if (n < 0) {
		snprintf(err, errlen, "cannot read the index: %s", strerror(errno));
		return -1;
	}
	if (n == 0) {
		free(keys);
		snprintf(err, errlen, "no job '%s' in the results (a key, or a path_params)", job);
		return -1;
	}
	if (n > 1)
		select_ambiguous_message(job, (const char **)keys, (size_t)n, err, errlen);
	else
		*key = keys[0];
	for (ssize_t i = n > 1 ? 0 : 1; i < n; i++)
		free(keys[i]);
	free(keys);
	return n > 1 ? -1 : 0;
}

/* A label that may be a commit's sha abbreviated: 7 hex digits or more (git's default
 * abbreviation; fewer would match many commits of a kernel's history). */
static bool is_hex_prefix(const char *s)
{
	return git_is_abbrev(s, 7);
}

/* The branch's first-parent history, oldest first. */
struct branch {
	char **sha; /* in branch order */
	size_t n;
	size_t *by_sha; /* indices into sha, sorted by sha: prefix lookups */
	char *text_;
};

static const struct branch *sort_ctx;

static int by_sha(const void *a, const void *b)
{
	return strcmp(sort_ctx->sha[*(const size_t *)a], sort_ctx->sha[*(const size_t *)b]);
}

static void branch_free(struct branch *b)
{
	free(b->sha);
	free(b->by_sha);
	free(b->text_);
	memset(b, 0, sizeof(*b));
}

static int git_capture(const char *repo, const char *const *args, char **out, char *err,
		       size_t errlen)
{
	int rc = git_run(repo, args, 0, out, err, errlen);

	if (rc != 0) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

static int load_branch(const char *repo, const char *branch, struct branch *b, char *err,
		       size_t errlen)
{
	const char *args[] = {"rev-list", "--first-parent", "--reverse", branch, "--", NULL};
	size_t cap = 0;

	memset(b, 0, sizeof(*b));
	if (git_capture(repo, args, &b->text_, err, errlen))
		return -1;
	for (char *line = strtok(b->text_, "\n"); line; line = strtok(NULL, "\n")) {
		if (b->n == cap) {
			char **v = realloc(b->sha, (cap = cap ? cap * 2 : 256) * sizeof(*v));

			if (!v)
				goto nomem;
			b->sha = v;
		}
		b->sha[b->n++] = line;
	}
	b->by_sha = malloc((b->n ? b->n : 1) * sizeof(*b->by_sha));
	if (!b->by_sha)
		goto nomem;
	for (size_t i = 0; i < b->n; i++)
		b->by_sha[i] = i;
	sort_ctx = b;
	qsort(b->by_sha, b->n, sizeof(*b->by_sha), by_sha);
	return 0;
nomem:
	snprintf(err, errlen, "%s", strerror(ENOMEM));
	branch_free(b);
	return -1;
}

/* The position on the branch of the commit a label names (its full sha or an unambiguous
 * prefix of 7 hex digits or more), or -1. */
static ssize_t branch_position(const struct branch *b, const char *label)
{
	char low[128];
	size_t len = strlen(label), lo = 0, hi = b->n;

	if (!is_hex_prefix(label) || len >= sizeof(low))
		return -1;
	for (size_t i = 0; i <= len; i++)
		low[i] = (char)tolower((unsigned char)label[i]);
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(b->sha[b->by_sha[mid]], low) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == b->n || strncmp(b->sha[b->by_sha[lo]], low, len))
		return -1;
	if (lo + 1 < b->n && !strncmp(b->sha[b->by_sha[lo + 1]], low, len))
		return -1; /* ambiguous on the branch */
	return (ssize_t)b->by_sha[lo];
}

/* A --since date: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS, local time.  0 with *t, or -1. */
static int parse_date(const char *s, int64_t *t)
{
	struct tm tm = {0};
	const char *end = strptime(s, "%Y-%m-%d", &tm);

	if (!end)
		return -1;
	if (*end) {
		end = strptime(end, "T%H:%M:%S", &tm);
		if (!end || *end)
			return -1;
	}
	tm.tm_isdst = -1;
	*t = (int64_t)mktime(&tm);
	return 0;
}

struct ordered {
	/* Every stored label of the job, in series order; point[i] the commit label i is (its
	 * index among the series' commits): with a repository, the labels of one commit (its
	 * full sha, prefixes of it stored apart) are adjacent and one commit, the longest first. */
	struct index_commit *c;
	size_t *point;
	size_t n, npoints;
	struct index_commit *all_; /* what index_commits gave */
	size_t nall_;
};

static void ordered_free(struct ordered *o)
{
	free(o->c);
	free(o->point);
	index_commits_free(o->all_, o->nall_);
	memset(o, 0, sizeof(*o));
}

struct placed {
	ssize_t pos;
	struct index_commit *c;
};

/* By position on the branch; labels of one commit the longest (the full sha) first, then as
 * the index gave them (qsort is not stable). */
static int by_pos(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;
	size_t lx = strlen(x->c->commit), ly = strlen(y->c->commit);

	if (x->pos != y->pos)
		return (x->pos > y->pos) - (x->pos < y->pos);
	if (lx != ly)
		return lx < ly ? 1 : -1;
	return (x->c > y->c) - (x->c < y->c);
}

/* The commits of the job (a key) in series order, cut by o->since. */
static int order_commits(struct results_index *ix, const char *key, const struct series_order *o,
			 struct ordered *out, char *err, size_t errlen)
{
	struct series_order none = {0};
	struct branch b = {0};
	struct placed *pl = NULL;
	ssize_t n, since_pos = -1;
	int64_t since_time = 0;
	bool by_date = false;
	size_t k = 0;

	memset(out, 0, sizeof(*out));
	if (!o)
		o = &none;
	if (o->branch && o->branch[0] == '-') {
		snprintf(err, errlen, "branch '%s': a branch does not start with '-'", o->branch);
		return -1;
	}
	if (o->since && (o->since[0] == '-' || !o->since[0])) {
		snprintf(err, errlen, "since '%s': expected a date (YYYY-MM-DD) or a commit",
			 o->since);
		return -1;
	}
	if (o->branch && !o->repo) {
		snprintf(err, errlen, "a branch (%s) needs the repository it is in", o->branch);
		return -1;
	}
	n = index_commits(ix, key, NULL, &out->all_);
	if (n < 0) {
		snprintf(err, errlen, "cannot read the index: %s", strerror(errno));
		return -1;
	}
	out->nall_ = (size_t)n;
	pl = calloc(n ? (size_t)n : 1, sizeof(*pl));
	out->c = calloc(n ? (size_t)n : 1, sizeof(*out->c));
	out->point = calloc(n ? (size_t)n : 1, sizeof(*out->point));
	if (!pl || !out->c || !out->point) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		goto fail;
	}
	if (o->repo && load_branch(o->repo, o->branch ? o->branch : "HEAD", &b, err, errlen))
		goto fail;
	for (ssize_t i = 0; i < n; i++) {
		pl[k].c = &out->all_[i];
		pl[k].pos = o->repo ? branch_position(&b, out->all_[i].commit) : i;
		if (pl[k].pos >= 0)
			k++;
	}
	if (o->repo)
		qsort(pl, k, sizeof(*pl), by_pos);

	if (o->since) {
		/* A stored label first (labels are free-form: "2024-01-01" may be one), then a
		 * date, then, with a repository, any revision. */
		for (size_t i = 0; i < k && since_pos < 0; i++)
			if (!strcmp(pl[i].c->commit, o->since))
				since_pos = (ssize_t)i;
		if (since_pos < 0 && parse_date(o->since, &since_time) == 0) {
			by_date = true;
		} else if (since_pos < 0 && o->repo) {
			char rev[512], *sha = NULL;
			const char *args[] = {"rev-parse", "--verify", "--quiet", rev, NULL};

			snprintf(rev, sizeof(rev), "%s^{commit}", o->since);
			if (git_capture(o->repo, args, &sha, err, errlen)) {
				snprintf(err, errlen, "since '%s': no such revision in %s",
					 o->since, o->repo);
				goto fail;
			}
			sha[strcspn(sha, "\n")] = '\0';
			ssize_t at = branch_position(&b, sha);

			free(sha);
			if (at < 0) {
				snprintf(err, errlen,
					 "since '%s': not on %s's first-parent history", o->since,
					 o->branch ? o->branch : "HEAD");
				goto fail;
			}
			/* The first stored commit at or after it. */
			for (since_pos = 0; (size_t)since_pos < k && pl[since_pos].pos < at;
			     since_pos++)
				;
		} else if (since_pos < 0) {
			for (size_t i = 0; i < k && since_pos < 0; i++)
				if (is_hex_prefix(o->since) &&
				    !strncmp(pl[i].c->commit, o->since, strlen(o->since)))
					since_pos = (ssize_t)i;
			if (since_pos < 0) {
				snprintf(err, errlen,
					 "since '%s': neither a date (YYYY-MM-DD[THH:MM:SS]) nor a "
					 "commit of %s",
					 o->since, key);
				goto fail;
			}
		}
		/* A commit is cut whole: from the first of its labels. */
		while (o->repo && since_pos > 0 && pl[since_pos - 1].pos == pl[since_pos].pos)
			since_pos--;
	}
	for (size_t i = 0; i < k; i++) {
		if (by_date ? pl[i].c->first_started < since_time
			    : since_pos >= 0 && (ssize_t)i < since_pos)
			continue;
		/* One commit, one point: a label at the position of the one before is that
		 * commit (a sha and its prefix stored apart).  Without a repository labels are
		 * free-form: each is a commit of its own. */
		if (!(o->repo && out->n && i && pl[i].pos == pl[i - 1].pos &&
		      out->c[out->n - 1].commit == pl[i - 1].c->commit))
			out->npoints++;
		out->point[out->n] = out->npoints - 1;
		out->c[out->n++] = *pl[i].c;
	}
	free(pl);
	branch_free(&b);
	return 0;
fail:
	free(pl);
	branch_free(&b);
	ordered_free(out);
	return -1;
}

/* The labels of ord (every one, or with first_only the first of each commit) copied into
 * *out, and with point each one's commit index: how many, or -1 when out of memory. */
static ssize_t copy_labels(const struct ordered *ord, bool first_only, char ***out, size_t **point)
{
	char **v = calloc(ord->n ? ord->n : 1, sizeof(*v));
	size_t k = 0, *pt = point ? calloc(ord->n ? ord->n : 1, sizeof(*pt)) : NULL;

	if (!v || (point && !pt))
		goto nomem;
	for (size_t i = 0; i < ord->n; i++) {
		if (first_only && i && ord->point[i] == ord->point[i - 1])
			continue;
		if (!(v[k] = strdup(ord->c[i].commit)))
			goto nomem;
		if (pt)
			pt[k] = ord->point[i];
		k++;
	}
	*out = v;
	if (point)
		*point = pt;
	return (ssize_t)k;
nomem:
	for (size_t i = 0; v && i < k; i++)
		free(v[i]);
	free(v);
	free(pt);
	return -1;
}

static ssize_t labels_of(struct results_index *ix, const char *job, const struct series_order *o,
			 bool first_only, char ***out, size_t **point, char *err, size_t errlen)
{
	struct ordered ord;
	char *key;
	ssize_t n;

	*out = NULL;
	if (point)
		*point = NULL;
	if (resolve_job(ix, job, &key, err, errlen))
		return -1;
	if (order_commits(ix, key, o, &ord, err, errlen)) {
		free(key);
		return -1;
	}
	free(key);
	n = copy_labels(&ord, first_only, out, point);
	ordered_free(&ord);
	if (n < 0)
		snprintf(err, errlen, "%s", strerror(ENOMEM));
	return n;
}

ssize_t series_commits(struct results_index *ix, const char *job, const struct series_order *o,
		       char ***out, char *err, size_t errlen)
{
	return labels_of(ix, job, o, true, out, NULL, err, errlen);
}

ssize_t series_labels(struct results_index *ix, const char *job, const struct series_order *o,
		      char ***out, size_t **point, char *err, size_t errlen)
{
	return labels_of(ix, job, o, false, out, point, err, errlen);
}

static int by_label(const void *a, const void *b)
{
	const struct index_value *x = a, *y = b;
	int c = strcmp(x->commit, y->commit);

	return c ? c : (x->run > y->run) - (x->run < y->run);
}

/* The runs of label in v (sorted by label, then run): the first, and how many. */
static size_t find_runs(const struct index_value *v, size_t n, const char *label, size_t *first)
{
	size_t lo = 0, hi = n, k = 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(v[mid].commit, label) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo + k < n && !strcmp(v[lo + k].commit, label))
		k++;
	return k;
}

int series_load(struct results_index *ix, const char *job, const char *stat,
		const struct series_order *o, struct series *s, char *err, size_t errlen)
{
	struct index_value *v = NULL;
	struct ordered ord = {0};
	char *key = NULL;
	ssize_t nv;

	memset(s, 0, sizeof(*s));
	if (resolve_job(ix, job, &key, err, errlen))
		return -1;
	nv = index_stat_values(ix, key, stat, &v);
	if (nv < 0) {
		snprintf(err, errlen, "cannot read the index: %s", strerror(errno));
		goto fail;
	}
	if (nv == 0) {
		snprintf(err, errlen, "no stat '%s' in the runs of %s", stat, key);
		goto fail;
	}
	if (order_commits(ix, key, o, &ord, err, errlen))
		goto fail;
	qsort(v, (size_t)nv, sizeof(*v), by_label);
	s->job = key;
	key = NULL;
	s->stat = strdup(stat);
	s->points = calloc(ord.n ? ord.n : 1, sizeof(*s->points));
	if (!s->stat || !s->points)
		goto nomem;
	/* One point per commit: the runs of each of its labels (ord.c[i..j)). */
	for (size_t i = 0, j; i < ord.n; i = j) {
		struct series_point *p = &s->points[s->n];
		size_t first, k = 0;
		double sum = 0;

		for (j = i; j < ord.n && ord.point[j] == ord.point[i]; j++)
			k += find_runs(v, (size_t)nv, ord.c[j].commit, &first);
		p->runs = malloc((k ? k : 1) * sizeof(*p->runs));
		if (!p->runs)
			goto nomem;
		p->first_started = ord.c[i].first_started;
		for (size_t l = i; l < j; l++) {
			k = find_runs(v, (size_t)nv, ord.c[l].commit, &first);
			for (size_t r = first; r < first + k; r++)
				if (v[r].ok && v[r].value == v[r].value)
					sum += p->runs[p->nruns++] = v[r].value;
			if (ord.c[l].first_started < p->first_started)
				p->first_started = ord.c[l].first_started;
		}
		if (!p->nruns) { /* no good run has the stat: no point */
			free(p->runs);
			p->runs = NULL;
			continue;
		}
		p->commit = strdup(ord.c[i].commit);
		if (!p->commit) {
			free(p->runs);
			p->runs = NULL;
			goto nomem;
		}
		p->mean = sum / (double)p->nruns;
		s->n++;
	}
	index_values_free(v, (size_t)nv);
	ordered_free(&ord);
	return 0;
nomem:
	snprintf(err, errlen, "%s", strerror(ENOMEM));
fail:
	free(key);
	index_values_free(v, nv > 0 ? (size_t)nv : 0);
	ordered_free(&ord);
	series_free(s);
	return -1;
}

void series_free(struct series *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->points[i].commit);
		free(s->points[i].runs);
	}
	free(s->points);
	free(s->job);
	free(s->stat);
	memset(s, 0, sizeof(*s));
}

int series_headline_stat(struct results_index *ix, const char *job, char **stat, char *err,
			 size_t errlen)
{
	struct index_commit *c = NULL;
	char *key;
	ssize_t n;
	const char *dir = NULL;

	*stat = NULL;
	if (resolve_job(ix, job, &key, err, errlen))
		return -1;
	n = index_commits(ix, key, NULL, &c);
	for (ssize_t i = n; i-- > 0 && !dir;)
		if (c[i].runs > c[i].failed)
			dir = c[i].dir;
	if (!dir) {
		snprintf(err, errlen, "%s: no commit with a successful run to take the headline from",
			 key);
	} else {
		group_dir_stat(dir, NULL, stat, NULL, err, errlen);
	}
	if (n > 0)
		index_commits_free(c, (size_t)n);
	free(key);
	return *stat ? 0 : -1;
}
