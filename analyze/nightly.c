/* nightly: finding the changes of every job (change points, and the latest commit against
 * the one before it) and mailing each once, one message per culprit commit. */
#include "nightly.h"
#include "changepoint.h"
#include "nightly_policy.h"
#include "compare.h"
#include "report_mail.h"
#include "results.h"
#include "series.h"
#include "../lib/errors.h"
#include "../lib/strvec.h"
#include "../lib/text.h"
#include "../store/families.h"
#include "../store/layout.h"
#include "../store/run_read.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct change_list {
	struct nightly_change *v;
	size_t n, cap;
	/* The stats whose latest commit cleared the night noise (nightly_policy.h): the only
	 * ones the one-night comparison may report. */
	struct strvec night;
	size_t held; /* changes found on runs mostly measured busy: not mailed (busy_held) */
};

/* One job's labels, for the busy check: every stored label all[0..na) and point[] the
 * commit each is (series_labels). */
struct job_labels {
	const char *root, *key;
	char **all;
	const size_t *point;
	ssize_t na;
};

static bool kind_wanted(enum verdict v, bool all_stats)
{
	return v == V_REGRESSION || v == V_IMPROVEMENT ||
	       (all_stats && (v == V_CHANGED_UP || v == V_CHANGED_DOWN));
}

/* Add a change unless the list has it (a change point and the previous-commit comparison
 * naming the same one); range: the commits it may be at (nrange of them, commit among them),
 * or none. */
static int add_change(struct change_list *l, const char *job, const char *stat, const char *commit,
		      const char *base, double change, bool absolute, enum verdict v, double p,
		      bool from_cp, char *const *range, size_t nrange)
{
	struct nightly_change *c;

	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].job, job) && !strcmp(l->v[i].stat, stat) &&
		    !strcmp(l->v[i].commit, commit) && l->v[i].verdict == v)
			return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;

		c = realloc(l->v, cap * sizeof(*c));
		if (!c)
			return -1;
		l->v = c;
		l->cap = cap;
	}
	c = &l->v[l->n];
	*c = (struct nightly_change){.job = strdup(job),
				     .stat = strdup(stat),
				     .commit = strdup(commit),
				     .base = strdup(base),
				     .change = change,
				     .absolute = absolute,
				     .verdict = v,
				     .p = p,
				     .from_cp = from_cp,
				     .range = nrange ? calloc(nrange, sizeof(char *)) : NULL};
	l->n++;
	for (size_t i = 0; c->range && i < nrange; i++)
		if ((c->range[c->nrange] = strdup(range[i])))
			c->nrange++;
	return c->job && c->stat && c->commit && c->base && c->nrange == nrange ? 0
											  : -1;
}

void nightly_changes_free(struct nightly_change *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].job);
		free(c[i].stat);
		free(c[i].commit);
		free(c[i].base);
		for (size_t k = 0; k < c[i].nrange; k++)
			free(c[i].range[k]);
		free(c[i].range);
	}
	free(c);
}

static ssize_t point_of(char **all, const size_t *point, ssize_t na, const char *label);

/* Of the runs in commit directory ROOT/KEY/LABEL that succeeded, how many (added to *runs)
 * and how many of them meta.json marks measured on a busy machine (added to *busy). */
static void dir_busy(const char *root, const char *key, const char *label, size_t *busy,
		     size_t *runs)
{
	char dir[PATH_MAX], why[256];
	char **rd = NULL;
	ssize_t nr;

	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s/%s", root, key, label) >= sizeof(dir))
		return;
	nr = store_list_runs(dir, &rd);
	for (ssize_t r = 0; r < nr; r++) {
		json_t *m = store_read_meta(rd[r], why, sizeof(why));
		const char *status = json_string_value(json_object_get(m, "status"));

		if (status && !strcmp(status, "ok")) {
			(*runs)++;
			*busy += json_is_true(
			    json_object_get(json_object_get(m, "machine_load"), "busy"));
		}
		json_decref(m);
		free(rd[r]);
	}
	free(rd);
}

/* The same over the series points from..to of s (each point's commit, all its labels). */
static void points_busy(const struct job_labels *jl, const struct series *s, size_t from,
			size_t to, size_t *busy, size_t *runs)
{
	*busy = *runs = 0;
	for (size_t k = from; k <= to && k < s->n; k++) {
		ssize_t at = point_of(jl->all, jl->point, jl->na, s->points[k].commit);

		for (ssize_t a = 0; at >= 0 && a < jl->na; a++)
			if ((ssize_t)jl->point[a] == at)
				dir_busy(jl->root, jl->key, jl->all[a], busy, runs);
	}
}

/* Whether a change found is held back, not mailed: more than half of the runs it rests on
 * (busy of runs) were measured on a busy machine, where other work took CPU time the runs
 * wanted and a step of the machine's load reads as a step of the kernel's (o->use_busy:
 * never).  Counted in l->held, and said with -v. */
static bool busy_held(const struct nightly_opts *o, struct change_list *l, const char *key,
		      const char *stat, double change, const char *commit, size_t busy, size_t runs)
{
	if (o->use_busy || 2 * busy <= runs)
		return false;
	l->held++;
	if (o->verbose)
		sb_note("%s: %s %+.1f%% at %.12s held back: %zu of the %zu runs it rests on were "
			"measured on a busy machine (--busy-runs use mails it)",
			key, stat, change, commit, busy, runs);
	return true;
}

/* The changes of one stat of one job by the confirmation policy (nightly_policy.h): its
 * confirmed change points, each with its range, and whether the latest commit cleared the
 * night noise (then the stat goes on l->night for latest_changes). */
static int stat_changes(struct results_index *ix, const struct nightly_opts *o,
			const struct job_labels *jl, const char *stat, enum stat_direction dir,
			struct change_list *l, char *err, size_t errlen)
{
	const char *key = jl->key;
	const struct series_order ord = {.repo = o->repo, .branch = o->branch};
	struct series s;
	struct cp_commit *cc;
	struct nightly_found *f = NULL;
	char **range;
	ssize_t nf = 0;
	int rc = 0;

	if (series_load(ix, key, stat, &ord, &s, err, errlen))
		return -1;
	cc = calloc(s.n ? s.n : 1, sizeof(*cc));
	range = calloc(NIGHTLY_RANGE_MAX, sizeof(*range));
	if (!cc || !range) {
		free(cc);
		free(range);
		series_free(&s);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < s.n; i++)
		cc[i] = (struct cp_commit){.runs = s.points[i].runs, .n = s.points[i].nruns};
	nf = nightly_series_changes(cc, s.n, dir, &o->policy, o->all_stats, &f, err, errlen);
	if (nf < 0)
		rc = -1;
	for (ssize_t i = 0; i < nf && !rc; i++) {
		const struct nightly_found *c = &f[i];
		size_t nr = 0;

		if (!c->from_cp) {
			if (strvec_push(&l->night, stat)) {
				snprintf(err, errlen, "out of memory");
				rc = -1;
			}
			continue;
		}
		if (!o->use_busy) {
			/* what the change rests on: its range and confirm_commits commits on
			 * each side */
			size_t K = o->policy.confirm_commits, busy, runs;
			size_t from = c->lo > K ? c->lo - K : 0;
			size_t to = c->hi + K - 1 < s.n ? c->hi + K - 1 : s.n - 1;

			points_busy(jl, &s, from, to, &busy, &runs);
			if (busy_held(o, l, key, stat, c->change_pct, s.points[c->index].commit, busy,
				      runs))
				continue;
		}
		for (size_t k = c->lo; k <= c->hi && nr < NIGHTLY_RANGE_MAX; k++)
			range[nr++] = s.points[k].commit;
		if (add_change(l, key, stat, s.points[c->index].commit,
			       s.points[c->index - 1].commit, c->change_pct, false, c->verdict,
			       c->p, true, range, nr)) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		}
	}
	free(f);
	free(range);
	free(cc);
	series_free(&s);
	return rc;
}

static bool night_cleared(const struct change_list *l, const char *stat)
{
	for (size_t i = 0; i < l->night.n; i++)
		if (!strcmp(l->night.v[i], stat))
			return true;
	return false;
}

/* The latest commit against the one before it, as report compares them, for the stats whose
 * latest commit cleared the night noise: a step that large is mailed on its first night, not
 * after a change point's segment of nights more. */
static int latest_changes(const struct nightly_opts *o, const char *key, struct result_group *g,
			  const char *headline, const char *base, struct change_list *l,
			  char *err, size_t errlen)
{
	struct compare_opts co = COMPARE_OPTS_DEFAULT;
	struct comparison c;
	const char *why;
	size_t nbusy = group_busy_runs(&g[0], &why) + group_busy_runs(&g[1], &why);

	if (compare_groups(g, 2, &co, &c, err, errlen))
		return -1;
	for (size_t i = 0; i < c.nrows; i++) {
		const struct stat_row *r = &c.rows[i];

		if (r->failure || !r->has_change[1] || !kind_wanted(r->verdict[1], o->all_stats))
			continue;
		if ((!o->all_stats && (!headline || strcmp(r->name, headline))) ||
		    !night_cleared(l, r->name))
			continue;
		if (busy_held(o, l, key, r->name, r->change[1], g[1].commit, nbusy,
			      g[0].nruns + g[1].nruns))
			continue;
		if (add_change(l, key, r->name, g[1].commit, base, r->change[1], r->absolute,
			       r->verdict[1], r->p[1], false, NULL, 0)) {
			comparison_free(&c);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	comparison_free(&c);
	return 0;
}

/* The commit (index among series_commits's) that stored label is, from series_labels's
 * labels all[0..na) and their point[]: -1 when it is none of them. */
static ssize_t point_of(char **all, const size_t *point, ssize_t na, const char *label)
{
	for (ssize_t a = 0; a < na; a++)
		if (!strcmp(all[a], label))
			return (ssize_t)point[a];
	return -1;
}

/* The failure stats of the job that appear at a commit of the series after commits that had
 * none: each one at the first commit whose runs have it (not the series' first commit: no
 * history, nothing is new there).  labels[0..nl): the series' commits; all[0..na) every stored
 * label, point[] the commit each is (a sha and its prefix stored apart are one). */
static int failure_changes(struct results_index *ix, const char *key, char **labels, ssize_t nl,
			   char **all, const size_t *point, ssize_t na, struct change_list *l,
			   char *err, size_t errlen)
{
	char **names = NULL;
	ssize_t ns = index_stat_names(ix, key, &names);
	int rc = 0;

	if (ns < 0) {
		snprintf(err, errlen, "cannot list its stats from the index");
		return -1;
	}
	for (ssize_t i = 0; i < ns && !rc; i++) {
		struct index_value *v = NULL;
		ssize_t nv = stat_family_is_failure(names[i])
				 ? index_stat_values(ix, key, names[i], &v)
				 : 0;
		ssize_t first = nl, at;
		unsigned with = 0, runs = 0;

		for (ssize_t k = 0; k < nv; k++) /* the earliest commit of the series with it */
			if (v[k].value != 0 && (at = point_of(all, point, na, v[k].commit)) >= 0 &&
			    at < first)
				first = at;
		for (ssize_t k = 0; first > 0 && first < nl && k < nv; k++)
			if (point_of(all, point, na, v[k].commit) == first)
				with += v[k].value != 0;
		if (first > 0 && first < nl) {
			for (ssize_t a = 0; a < na; a++) {
				struct index_commit *ic = NULL;
				ssize_t nc = (ssize_t)point[a] == first
						 ? index_commits(ix, key, all[a], &ic)
						 : 0;

				if (nc > 0) {
					runs += (unsigned)ic[0].runs;
					index_commits_free(ic, (size_t)nc);
				}
			}
			if (!runs)
				runs = with;
			if (add_change(l, key, names[i], labels[first], labels[first - 1], with,
				       true, V_NONE, NAN, false, NULL, 0)) {
				snprintf(err, errlen, "out of memory");
				rc = -1;
			} else {
				l->v[l->n - 1].failure = true;
				l->v[l->n - 1].runs = runs;
			}
		}
		if (nv > 0)
			index_values_free(v, (size_t)nv);
	}
	for (ssize_t i = 0; i < ns; i++)
		free(names[i]);
	free(names);
	return rc;
}

int nightly_failures(struct results_index *ix, const char *key, char **labels, size_t nl,
		     struct nightly_change **out, size_t *n, char *err, size_t errlen)
{
	struct change_list l = {0};
	/* Each label its own commit: the caller's series is what it shows. */
	size_t *point = malloc((nl ? nl : 1) * sizeof(*point));
	int rc;

	if (!point) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < nl; i++)
		point[i] = i;
	rc = failure_changes(ix, key, labels, (ssize_t)nl, labels, point, (ssize_t)nl, &l, err,
			     errlen);
	free(point);
	strvec_clear(&l.night);
	if (rc) {
		nightly_changes_free(l.v, l.n);
		l = (struct change_list){0};
	}
	*out = l.v;
	*n = l.n;
	return rc;
}

static void labels_free(char **v, ssize_t n)
{
	for (ssize_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The last of labels[0..n-1] whose commit directory has a usable run, loaded into g: its
 * index, or -1 with err (the last one's complaint) when none has. */
static ssize_t load_before(const char *root, const char *key, char **labels, ssize_t n,
			   struct result_group *g, char *err, size_t errlen)
{
	char dir[PATH_MAX];

	snprintf(err, errlen, "no commit with a usable run");
	for (ssize_t i = n - 1; i >= 0; i--) {
		if ((size_t)snprintf(dir, sizeof(dir), "%s/%s/%s", root, key, labels[i]) >=
		    sizeof(dir)) {
			snprintf(err, errlen, "%s/%s: path too long", root, key);
			return -1;
		}
		if (!group_load(dir, g, err, errlen))
			return i;
	}
	return -1;
}

static int job_changes(struct results_index *ix, const struct nightly_opts *o, const char *key,
		       struct change_list *l, char *err, size_t errlen)
{
	const struct series_order ord = {.repo = o->repo, .branch = o->branch};
	struct result_group g[2] = {0};
	char **labels = NULL, **all = NULL, **stats = NULL, mix[2048];
	size_t *point = NULL;
	ssize_t nl, na, ns = 0, latest, prev;
	const char *headline;
	struct job_labels jl;
	int rc = -1;

	nl = series_commits(ix, key, &ord, &labels, err, errlen);
	if (nl <= 0)
		return nl < 0 ? -1 : 0;
	na = series_labels(ix, key, &ord, &all, &point, err, errlen);
	if (na < 0) {
		labels_free(labels, nl);
		return -1;
	}
	jl = (struct job_labels){o->root, key, all, point, na};
	/* What the job declares, from its latest commit that has a usable run (a night whose
	 * runs all broke is no reason to stop watching the job). */
	latest = load_before(o->root, key, labels, nl, &g[1], err, errlen);
	if (latest < 0)
		goto out;
	headline = group_headline_stat(&g[1], 1);
	if (o->all_stats) {
		ns = index_stat_names(ix, key, &stats);
		if (ns < 0) {
			snprintf(err, errlen, "cannot list its stats from the index");
			goto out;
		}
	} else if (!headline) {
		if (o->verbose)
			sb_note("%s: its runs name no headline stat: passed over", key);
		rc = 0;
		goto out;
	}
	for (ssize_t i = 0; i < (o->all_stats ? ns : 1); i++) {
		const char *stat = o->all_stats ? stats[i] : headline;

		if (group_stat_role(&g[1], 1, stat) == ROLE_FAILURE)
			continue;
		if (stat_changes(ix, o, &jl, stat, group_stat_direction(&g[1], 1, stat), l, err,
				 errlen))
			goto out;
	}
	if (failure_changes(ix, key, labels, nl, all, point, na, l, err, errlen))
		goto out;
	prev = load_before(o->root, key, labels, latest, &g[0], err, errlen);
	/* A note, not a refusal: a nightly watches on whatever the fleet ran. */
	if (prev >= 0 && groups_mix_machines(g, 2, mix, sizeof(mix)))
		sb_note("%s: runs measured on machines of different models: %s", key, mix);
	if (prev >= 0 && latest_changes(o, key, g, headline, labels[prev], l, err, errlen))
		goto out;
	rc = 0;
out:
	group_free(&g[0]);
	group_free(&g[1]);
	labels_free(labels, nl);
	labels_free(all, na);
	free(point);
	labels_free(stats, ns);
	return rc;
}

int nightly_find(struct results_index *ix, const struct nightly_opts *o,
		 struct nightly_change **out, size_t *n, size_t *held, size_t *job_errors,
		 char *err, size_t errlen)
{
	struct index_job *jobs = NULL;
	ssize_t nj = index_jobs(ix, o->job, &jobs);
	struct change_list l = {0};
	char msg[1024];

	*out = NULL;
	*n = *job_errors = 0;
	if (nj < 0) {
		snprintf(err, errlen, "cannot list the jobs of %s's index", o->root);
		return -1;
	}
	if (!nj && o->job) {
		snprintf(err, errlen, "no job '%s' under %s", o->job, o->root);
		return -1;
	}
	for (ssize_t i = 0; i < nj; i++) {
		if (job_changes(ix, o, jobs[i].key, &l, msg, sizeof(msg))) {
			sb_error("%s: %s", jobs[i].key, msg);
			(*job_errors)++;
		}
		strvec_clear(&l.night); /* a job's own */
	}
	index_jobs_free(jobs, (size_t)nj);
	*out = l.v;
	*n = l.n;
	*held = l.held;
	return 0;
}

const char *nightly_kind(const struct nightly_change *c)
{
	return c->failure ? "new-failure" : verdict_name(c->verdict);
}

/* The commits a change may be at: its range, or its commit alone. */
static char *const *change_commits(const struct nightly_change *c, size_t *n)
{
	*n = c->nrange ? c->nrange : 1;
	return c->nrange ? c->range : &c->commit;
}

bool nightly_known(const struct nightly_state *st, const struct nightly_change *c)
{
	const char *kind = nightly_kind(c);
	size_t n;
	char *const *commits = change_commits(c, &n);

	/* Not a commit next to a recorded one: a second step at the commit after a mailed one is
	 * a change of its own.  A change point that a later night moves stays in its range. */
	return nightly_state_find(st, c->job, c->stat, c->commit, kind) ||
	       nightly_state_meets(st, c->job, c->stat, kind, commits, n, NULL);
}

/* The test hook of "killed midway" (tests/e2e/test_nightly.sh): SIGKILL at that point. */
static void kill_point(const char *where)
{
	const char *at = getenv("SCALEBENCH_NIGHTLY_KILL_AFTER");

	if (at && !strcmp(at, where))
		raise(SIGKILL);
}

static int save(const struct nightly_state *st, char *err, size_t errlen)
{
	return nightly_state_save(st, err, errlen);
}

/* Whether pending message m is the message this nightly writes for its recorded changes
 * (report_check_pending): a state file is no reason to send bytes, a tampered one's Bcc: or
 * To: least of all.  0, or -1 with err naming the file and the message. */
static int pending_ok(const struct nightly_state *st, const struct nightly_message *m,
		      const struct nightly_opts *o, char *err, size_t errlen)
{
	char left[200], why[1024];

	if (!m->nkeys || !m->text || !m->text[0]) {
		snprintf(why, sizeof(why), "no changes or no text recorded");
	} else {
		nightly_msgid_left(m->keys, m->nkeys, left, sizeof(left));
		if (m->follow_up_of) /* follow_up's id */
			strncat(left, ".refined", sizeof(left) - strlen(left) - 1);
		const struct report_pending rq = {.text = m->text,
						  .message_id = m->message_id,
						  .msgid_left = left,
						  .in_reply_to = m->follow_up_of,
						  .commit = m->keys[0].commit,
						  .repo = o->repo,
						  .from = o->from,
						  .to = o->to};

		if (!report_check_pending(&rq, why, sizeof(why)))
			return 0;
	}
	snprintf(err, errlen,
		 "%s: pending message %s: %s (nothing mailed; remove the message from the file, "
		 "or the file, to go on)",
		 st->path, text_safe(m->message_id), why);
	return -1;
}

int nightly_settle(struct nightly_state *st, const struct nightly_opts *o, size_t *mailed,
		   char *err, size_t errlen)
{
	*mailed = 0;
	/* Every pending message checked before any is sent: one that is not ours stops the
	 * pass as a state file that does not parse does. */
	for (size_t i = 0; i < st->n; i++)
		if (!st->msgs[i].mailed && pending_ok(st, &st->msgs[i], o, err, errlen))
			return -1;
	for (size_t i = 0; i < st->n; i++) {
		struct nightly_message *m = &st->msgs[i];
		bool there = false;

		if (m->mailed)
			continue;
		if (o->dry_run) {
			printf("pending %s: would be delivered again unless found in the mbox\n",
			       text_safe(m->message_id));
			continue;
		}
		if (o->mbox && nightly_mbox_has(o->mbox, m->message_id, &there, err, errlen))
			return -1;
		if (there) {
			if (o->verbose)
				sb_note("pending %s is in %s: marked mailed", m->message_id,
					o->mbox);
		} else {
			if (report_deliver(m->text, strlen(m->text), o->mbox, o->sendmail, err,
					   errlen))
				return -1;
			(*mailed)++;
			if (o->verbose)
				sb_note("pending %s delivered again", m->message_id);
		}
		nightly_state_mailed(st, i, (int64_t)time(NULL));
		if (save(st, err, errlen))
			return -1;
	}
	return 0;
}

/* Regressions first, then the largest change: the subject is the worst news. */
static int by_news(const void *a, const void *b)
{
	const struct nightly_change *x = *(const struct nightly_change *const *)a;
	const struct nightly_change *y = *(const struct nightly_change *const *)b;

	if (x->failure != y->failure) /* a kernel warning or a crash is the worst news */
		return x->failure ? -1 : 1;
	if ((x->verdict == V_REGRESSION) != (y->verdict == V_REGRESSION))
		return x->verdict == V_REGRESSION ? -1 : 1;
	if (fabs(x->change) != fabs(y->change))
		return fabs(x->change) > fabs(y->change) ? -1 : 1;
	return strcmp(x->job, y->job) ? strcmp(x->job, y->job) : strcmp(x->stat, y->stat);
}

/* One message: the changes at one commit, worst first.  0; -1 with err when this message
 * cannot be made or delivered (its culprit's label or author, a full mbox: the others are
 * still tried); -2 with err when nothing more may be mailed (the state cannot be saved, or
 * memory runs out: a change mailed but not recorded would be mailed again). */
static int mail_one(struct nightly_state *st, const struct nightly_opts *o,
		    const struct nightly_change **g, size_t ng, size_t *mailed, char *err,
		    size_t errlen)
{
	struct nightly_key *keys = calloc(ng, sizeof(*keys));
	struct report_change *rc = calloc(ng, sizeof(*rc));
	struct report_mail m = {0};
	char left[128], change[32];
	int ret = -1;
	ssize_t at;

	if (!keys || !rc) {
		snprintf(err, errlen, "out of memory");
		ret = -2;
		goto out;
	}
	qsort(g, ng, sizeof(*g), by_news);
	for (size_t i = 0; i < ng; i++) {
		keys[i] = (struct nightly_key){g[i]->job,	 g[i]->stat,  g[i]->commit,
					       (char *)nightly_kind(g[i]), g[i]->range, g[i]->nrange};
		rc[i] = (struct report_change){.job = g[i]->job,
					       .stat = g[i]->stat,
					       .change = g[i]->change,
					       .absolute = g[i]->absolute,
					       .verdict = g[i]->verdict,
					       .failure = g[i]->failure,
					       .runs = g[i]->runs};
	}
	if (g[0]->failure) /* LKP's fail:runs */
		snprintf(change, sizeof(change), "%.0f:%u", g[0]->change, g[0]->runs);
	else
		snprintf(change, sizeof(change), g[0]->absolute ? "%+.1f" : "%+.1f%%",
			 g[0]->change);
	if (o->dry_run) {
		printf("would mail %s (base %s): %s %s %s %s", text_safe(g[0]->commit),
		       text_safe(g[0]->base), text_safe(g[0]->job), text_safe(g[0]->stat), change,
		       nightly_kind(g[0]));
		if (ng > 1)
			printf(", and %zu more change%s", ng - 1, ng == 2 ? "" : "s");
		printf("\n");
		ret = 0;
		goto out;
	}
	nightly_msgid_left(keys, ng, left, sizeof(left));
	if (o->baseline) {
		char id[160];

		/* Known, never sent: an id no mailer made, and no text to send again. */
		snprintf(id, sizeof(id), "<baseline.%s@scalebench>", left);
		at = nightly_state_add(st, id, "", keys, ng, (int64_t)time(NULL));
		if (at < 0) {
			snprintf(err, errlen, "out of memory");
			ret = -2;
			goto out;
		}
		nightly_state_mailed(st, (size_t)at, (int64_t)time(NULL));
		if (save(st, err, errlen)) {
			ret = -2;
			goto out;
		}
		printf("baseline %s: %s %s %s", text_safe(g[0]->commit), text_safe(g[0]->stat),
		       change, nightly_kind(g[0]));
		if (ng > 1)
			printf(", and %zu more change%s", ng - 1, ng == 2 ? "" : "s");
		printf(" (recorded, not mailed)\n");
		ret = 0;
		goto out;
	}
	const struct report_request rq = {.root = o->root,
					  .base = g[0]->base,
					  .head = g[0]->commit,
					  .job = g[0]->job,
					  .repo = o->repo,
					  .branch = o->branch,
					  .from = o->from,
					  .to = o->to,
					  .msgid_left = left,
					  .changes = rc,
					  .nchanges = ng};

	if (report_build(&rq, &m, err, errlen))
		goto out;
	/* Recorded before it goes out: a run killed after this delivers it (once) next time. */
	at = nightly_state_add(st, m.message_id, m.msg, keys, ng, (int64_t)time(NULL));
	if (at < 0) {
		snprintf(err, errlen, "out of memory");
		ret = -2;
		goto out;
	}
	if (save(st, err, errlen)) {
		ret = -2;
		goto out;
	}
	kill_point("pending");
	if (report_deliver(m.msg, m.len, o->mbox, o->sendmail, err, errlen))
		goto out;
	kill_point("append");
	nightly_state_mailed(st, (size_t)at, (int64_t)time(NULL));
	if (save(st, err, errlen)) {
		ret = -2;
		goto out;
	}
	(*mailed)++;
	if (o->mbox || o->sendmail) {
		printf("mailed %s: %s %s %s %s", text_safe(m.message_id), text_safe(g[0]->commit),
		       text_safe(g[0]->stat), change, nightly_kind(g[0]));
		if (ng > 1)
			printf(", and %zu more change%s", ng - 1, ng == 2 ? "" : "s");
		printf("\n");
	}
	ret = 0;
out:
	report_mail_free(&m);
	free(keys);
	free(rc);
	return ret;
}

/* Change c recorded as known, not mailed (its id one no mailer made, no text to send): 0, or
 * -1 with err. */
static int record_known(struct nightly_state *st, const struct nightly_change *c, char *err,
			size_t errlen)
{
	struct nightly_key k = {c->job,		 c->stat,  c->commit, (char *)nightly_kind(c),
				c->range, c->nrange};
	char left[160], id[200];
	ssize_t at;

	nightly_msgid_left(&k, 1, left, sizeof(left));
	snprintf(id, sizeof(id), "<known.%s@scalebench>", left);
	at = nightly_state_add(st, id, "", &k, 1, (int64_t)time(NULL));
	if (at < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	nightly_state_mailed(st, (size_t)at, (int64_t)time(NULL));
	return save(st, err, errlen);
}

/* When change c (known) is a change point that a mailed change of the same kind meets by its
 * range, but whose range no longer holds the mailed commit, and that mail has no follow-up
 * yet: the follow-up,
 * recorded with c's commit and range (so that it, too, is known from now on).  0, or -1 or -2
 * with err as mail_one's. */
static int follow_up(struct nightly_state *st, const struct nightly_opts *o,
		     const struct nightly_change *c, size_t *mailed, char *err, size_t errlen)
{
	const struct nightly_key *key = NULL;
	const struct nightly_message *first;
	size_t n;
	char *const *commits = change_commits(c, &n);
	char left[160], *first_id;
	struct report_mail m = {0};
	int ret = -1;
	ssize_t at;

	if (!c->from_cp || c->failure || o->baseline ||
	    nightly_state_find(st, c->job, c->stat, c->commit, nightly_kind(c)))
		return 0;
	first = nightly_state_meets(st, c->job, c->stat, nightly_kind(c), commits, n, &key);
	if (!first)
		return 0;
	/* Follow-ups go to mails: not to a follow-up, a known or a --baseline record. */
	if (first->follow_up_of || !strncmp(first->message_id, "<known.", 7) ||
	    !strncmp(first->message_id, "<baseline.", 10) ||
	    nightly_state_followed(st, first->message_id))
		return o->dry_run || !record_known(st, c, err, errlen) ? 0 : -2;
	/* Refined only when the mailed commit is no longer among the plausible ones: a range
	 * that still holds it says the mail was right, and is recorded as known (not mailed),
	 * so that the change is recognised wherever later nights place it. */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(commits[i], key->commit))
			return o->dry_run || !record_known(st, c, err, errlen) ? 0 : -2;
	if (o->dry_run) {
		printf("would mail a follow-up of %s: %s %s %s refined to %s (was %s)\n",
		       text_safe(first->message_id), text_safe(c->job), text_safe(c->stat),
		       nightly_kind(c), text_safe(c->commit), text_safe(key->commit));
		return 0;
	}
	struct nightly_key k = {c->job, c->stat, c->commit, (char *)nightly_kind(c), c->range,
				c->nrange};
	nightly_msgid_left(&k, 1, left, sizeof(left));
	strncat(left, ".refined", sizeof(left) - strlen(left) - 1);
	const struct report_follow_up rq = {.job = c->job,
					    .stat = c->stat,
					    .kind = nightly_kind(c),
					    .commit = c->commit,
					    .was = key->commit,
					    .range = c->range,
					    .nrange = c->nrange,
					    .change = c->change,
					    .absolute = c->absolute,
					    .in_reply_to = first->message_id,
					    .repo = o->repo,
					    .branch = o->branch,
					    .from = o->from,
					    .to = o->to,
					    .msgid_left = left};

	if (report_follow_up_build(&rq, &m, err, errlen))
		goto out;
	first_id = strdup(first->message_id); /* st->msgs moves when one is added */
	at = first_id ? nightly_state_add(st, m.message_id, m.msg, &k, 1, (int64_t)time(NULL)) : -1;
	if (at < 0 || !(st->msgs[at].follow_up_of = first_id)) {
		free(first_id);
		snprintf(err, errlen, "out of memory");
		ret = -2;
		goto out;
	}
	if (save(st, err, errlen)) {
		ret = -2;
		goto out;
	}
	if (report_deliver(m.msg, m.len, o->mbox, o->sendmail, err, errlen))
		goto out;
	nightly_state_mailed(st, (size_t)at, (int64_t)time(NULL));
	if (save(st, err, errlen)) {
		ret = -2;
		goto out;
	}
	(*mailed)++;
	if (o->mbox || o->sendmail)
		printf("mailed %s: follow-up of %s: %s %s refined to %s\n", text_safe(m.message_id),
		       text_safe(st->msgs[at].follow_up_of), text_safe(c->job), text_safe(c->stat),
		       text_safe(c->commit));
	ret = 0;
out:
	report_mail_free(&m);
	return ret;
}

/* A change that could not be mailed (mail_one's or follow_up's -1): said, naming it, and
 * counted; the pass goes on with the others. */
static void not_mailed(const struct nightly_change *c, size_t ng, const char *what,
		       const char *why, size_t *failed)
{
	sb_error("%s %s (base %s): %s %s %s%s: not mailed: %s", what, text_safe(c->commit),
		 text_safe(c->base), text_safe(c->job), text_safe(c->stat), nightly_kind(c),
		 ng > 1 ? ", and more changes" : "", text_safe(why));
	(*failed)++;
}

int nightly_mail(struct nightly_state *st, const struct nightly_opts *o,
		 const struct nightly_change *c, size_t n, size_t *mailed, size_t *failed,
		 char *err, size_t errlen)
{
	const struct nightly_change **g = calloc(n ? n : 1, sizeof(*g));
	bool *done = calloc(n ? n : 1, sizeof(*done));
	int rc = 0;

	*mailed = *failed = 0;
	if (!g || !done) {
		free(g);
		free(done);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		done[i] = nightly_known(st, &c[i]);
	/* A mailed change placed better now: one follow-up to its mail, at most. */
	for (size_t i = 0; i < n && !rc; i++)
		if (done[i] && (rc = follow_up(st, o, &c[i], mailed, err, errlen)) == -1) {
			not_mailed(&c[i], 1, "the follow-up of", err, failed);
			rc = 0;
		}
	/* Commits in the order their first change was found. */
	for (size_t i = 0; i < n && !rc; i++) {
		size_t ng = 0;

		if (done[i])
			continue;
		for (size_t k = i; k < n; k++)
			if (!done[k] && !strcmp(c[k].commit, c[i].commit)) {
				g[ng++] = &c[k];
				done[k] = true;
			}
		/* One culprit that cannot be mailed (a label report refuses, its author's
		 * address) is said and the others are still mailed. */
		if ((rc = mail_one(st, o, g, ng, mailed, err, errlen)) == -1) {
			not_mailed(g[0], ng, "the change at", err, failed);
			rc = 0;
		}
	}
	free(g);
	free(done);
	return rc ? -1 : 0;
}
