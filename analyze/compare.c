#include "compare.h"
#include "lkp.h"

#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *test_kind_name(enum test_kind t)
{
	switch (t) {
	case TEST_WELCH_LOG:
		return "welch-log";
	case TEST_YUEN_LOG:
		return "yuen-log";
	case TEST_WELCH:
		return "welch";
	case TEST_YUEN:
		return "yuen";
	case TEST_LKP:
		return "lkp";
	case TEST_EXACT:
		return "exact";
	default:
		return "none";
	}
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool all_positive(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0))
			return false;
	return true;
}

/* Batches.  Runs of one build measured in one contiguous window (one `run -r N`) share the
 * state the machine was in during that window; a shared machine's state moves between
 * windows by more than the runs of one window spread (measured: README, compare).  Runs of a
 * commit directory are one batch while each starts within BATCH_GAP_RUNS run lengths
 * (warmup and runtime, meta.json) and BATCH_GAP_S seconds of the one before it. */
#define BATCH_GAP_RUNS 3.0
#define BATCH_GAP_S 30.0

static double run_length_s(const struct run_record *run)
{
	json_t *w = json_object_get(run->meta, "warmup_s"), *r = json_object_get(run->meta,
									     "runtime_s");

	return (json_is_number(w) ? json_number_value(w) : 0) +
	       (json_is_number(r) ? json_number_value(r) : 0);
}

static int cmp_pair(const void *pa, const void *pb)
{
	const double *a = pa, *b = pb;

	return (a[0] > b[0]) - (a[0] < b[0]);
}

/* The stat's values over g's runs that say when they started, in time order, in v (room for
 * g->nruns), and the batches' lengths in len (as many): how many batches; 0 when fewer than
 * 2 runs have the stat and a time. */
static size_t batches_of(const struct result_group *g, const char *stat, double *v, size_t *len)
{
	size_t n, k = 0;
	double *tv, gap = BATCH_GAP_S;

	if (!g->nruns || !(tv = malloc(4 * g->nruns * sizeof(*tv))))
		return 0;
	n = group_timed_values(g, stat, tv, tv + g->nruns);
	for (size_t i = 0; i < n; i++) {
		tv[2 * g->nruns + 2 * i] = tv[i];
		tv[2 * g->nruns + 2 * i + 1] = tv[g->nruns + i];
	}
	qsort(tv + 2 * g->nruns, n, 2 * sizeof(*tv), cmp_pair);
	gap += BATCH_GAP_RUNS * run_length_s(&g->runs[0]);
	for (size_t i = 0; n >= 2 && i < n; i++) {
		const double *p = tv + 2 * g->nruns + 2 * i;

		if (!i || p[0] - p[-2] > gap)
			len[k++] = 0;
		len[k - 1]++;
		v[i] = p[1];
	}
	free(tv);
	return k;
}

/* The job's other commit directories beside the compared ones (the same job on the same
 * machine: one parent directory), as history of batch-to-batch noise: at most BATCH_HISTORY
 * of them, the newest first. */
#define BATCH_HISTORY 16

struct batch_history {
	struct result_group *own; /* loaded here */
	size_t nown;
	const struct result_group **all; /* the compared groups, then own */
	size_t nall;
};

struct dir_age {
	char *path;
	double mtime;
};

static int cmp_age(const void *pa, const void *pb)
{
	const struct dir_age *a = pa, *b = pb;

	return (a->mtime < b->mtime) - (a->mtime > b->mtime);
}

static bool is_compared(const struct comparison *c, const char *path)
{
	for (size_t g = 0; g < c->ngroups; g++)
		if (!strcmp(c->groups[g].dir, path))
			return true;
	return false;
}

static void history_load(const struct comparison *c, struct batch_history *h)
{
	char parent[PATH_MAX];
	struct dir_age *d = NULL;
	size_t nd = 0, cap = 0;
	struct dirent *e;
	DIR *dir;

	memset(h, 0, sizeof(*h));
	h->all = calloc(c->ngroups + BATCH_HISTORY, sizeof(*h->all));
	h->own = calloc(BATCH_HISTORY, sizeof(*h->own));
	if (!h->all || !h->own)
		return;
	for (size_t g = 0; g < c->ngroups; g++)
		h->all[h->nall++] = &c->groups[g];
	snprintf(parent, sizeof(parent), "%s", c->groups[0].dir);
	dir = opendir(dirname(parent));
	while (dir && (e = readdir(dir))) {
		char path[PATH_MAX + NAME_MAX + 2];
		struct stat st;

		if (e->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", parent, e->d_name) >= (int)sizeof(path) ||
		    stat(path, &st) || !S_ISDIR(st.st_mode) || is_compared(c, path))
			continue;
		if (nd == cap) {
			struct dir_age *nv = realloc(d, (cap = cap ? 2 * cap : 16) * sizeof(*nv));

			if (!nv)
				break;
			d = nv;
		}
		d[nd].mtime = (double)st.st_mtim.tv_sec + 1e-9 * (double)st.st_mtim.tv_nsec;
		if ((d[nd].path = strdup(path)))
			nd++;
	}
	if (dir)
		closedir(dir);
	if (nd)
		qsort(d, nd, sizeof(*d), cmp_age);
	for (size_t i = 0; i < nd; i++) {
		char err[512];

		if (h->nown < BATCH_HISTORY && !group_load(d[i].path, &h->own[h->nown], err,
							  sizeof(err)))
			h->nown++;
		free(d[i].path);
	}
	free(d);
	for (size_t i = 0; i < h->nown; i++)
		h->all[h->nall++] = &h->own[i];
}

static void history_free(struct batch_history *h)
{
	for (size_t i = 0; i < h->nown; i++)
		group_free(&h->own[i]);
	free(h->own);
	free(h->all);
	memset(h, 0, sizeof(*h));
}

/* sigma_b^2 of the stat, on the test's scale, from the history's commit directories that
 * hold 2 batches or more, pooled by their degrees of freedom (*df; 0 when none): how much a
 * batch's mean moves from window to window at one build.  *nbatches counts their batches. */
static double history_between_var(const struct batch_history *h, const char *stat, bool on_log,
				  double *df, size_t *nbatches)
{
	double sum = 0;

	*df = 0;
	*nbatches = 0;
	for (size_t i = 0; i < h->nall; i++) {
		const struct result_group *g = h->all[i];
		double *v = malloc((g->nruns + 1) * sizeof(*v)), d, est;
		size_t *len = malloc((g->nruns + 1) * sizeof(*len)), k;

		if (v && len && (k = batches_of(g, stat, v, len)) >= 2 &&
		    !isnan(est = batch_between_var(v, len, k, on_log, &d))) {
			sum += d * est;
			*df += d;
			*nbatches += k;
		}
		free(v);
		free(len);
	}
	return *df > 0 ? fmax(0, sum / *df) : 0;
}

/* The between-batch component of a test whose two sides were each measured in a window of
 * their own: 2 sigma_b^2 (each side's mean carries its own window's offset).  sigma_b^2 is
 * the history's estimate, with its degrees of freedom, when the job's commit directories
 * hold COMPARE_BATCH_HISTORY_DF + 1 batches at one build or more; else a margin taken as
 * known: COMPARE_BATCH_RATIO^2 times the runs' own per-run variance (what moves a shared
 * machine's windows, its other tenants, is what spreads its runs: an idle machine's batches
 * differ little, a busy one's a lot), and for a monitor's stat that is not a declared rate
 * (a level of the machine's state, which the machine's other work sets) at least
 * COMPARE_BATCH_LEVEL on logs.  README (compare) has the shifts measured here. */
static void add_batch_noise(struct stat_row *r, size_t g, struct yuen_result *y, bool on_log,
			    const struct batch_history *h, double alpha)
{
	double hdf, hvar = history_between_var(h, r->name, on_log, &hdf, &r->batches[g]);
	double per_run = (y->var_a * (y->df_a + 1) + y->var_b * (y->df_b + 1)) / 2;
	double var_b = COMPARE_BATCH_RATIO * COMPARE_BATCH_RATIO * per_run;
	double level = COMPARE_BATCH_LEVEL * (on_log ? 1 : fabs(y->base));

	if (hdf >= COMPARE_BATCH_HISTORY_DF) {
		var_b = hvar;
		r->batch_df[g] = hdf;
	} else {
		r->batches[g] = 0;
		r->batch_df[g] = INFINITY;
		if (r->kind != STAT_RATE && !r->headline && !r->failure)
			var_b = fmax(var_b, level * level);
	}
	r->batch_sd[g] = sqrt(var_b);
	yuen_add_between(y, on_log, 2 * var_b, r->batch_df[g], alpha);
}

/* Test one stat of group b against group a; fills the interval of the change.
 *
 * Welch's t on log values, or Yuen's trimmed t on log values when a side has an outlier: both
 * have t-distribution p-values that reach what false-discovery control over hundreds of stats
 * needs at 5-6 runs a side, which no rank test can (6 vs 6: p >= 0.0022).  On logs the
 * interval is one of a ratio, so it never goes below -100%.  Stats with a zero or negative run
 * and absolute stats are tested on their own values; their %change interval is the interval
 * of the difference over a's (trimmed) mean, cut at -100% since the stat cannot go below 0.
 * A count's variance is never taken below its counting noise (count_var_floor): a monitor's
 * count has at least Poisson noise, any integer stat at least rounding noise, so identical
 * runs on both sides do not make a test infinitely sure. */
static void test_row(struct stat_row *r, size_t g, const double *a, size_t na, const double *b,
		     size_t nb, double *scratch, const struct compare_opts *o,
		     const struct batch_history *h)
{
	const char *why = NULL;
	double var_floor[2];
	bool outlier, on_log;
	struct yuen_result y;

	r->p[g] = r->q[g] = NAN;
	r->est[g] = r->lo[g] = r->hi[g] = NAN;
	if (na < 2 || nb < 2) {
		r->no_test[g] = "needs at least 2 runs per side";
		return;
	}
	var_floor[0] = count_var_floor(a, na, r->count);
	var_floor[1] = count_var_floor(b, nb, r->count);
	if (r->count && (var_floor[0] == 0 || var_floor[1] == 0))
		r->count = false; /* a run that is not an integer: not a count after all */
	outlier = stat_trim_with(a, na, r->sum[0].median, b, nb, r->sum[g].median, scratch) > 0;
	on_log = !r->absolute && all_positive(a, na) && all_positive(b, nb);
	if (yuen_test(a, na, b, nb, outlier ? COMPARE_TRIM : 0, on_log, var_floor, o->alpha, &y,
		      &why)) {
		r->no_test[g] = why ? why : "no test applies";
		return;
	}
	r->test[g] = y.exact  ? TEST_EXACT
		     : on_log ? (outlier ? TEST_YUEN_LOG : TEST_WELCH_LOG)
			      : (outlier ? TEST_YUEN : TEST_WELCH);
	r->floored[g] = y.floored;
	/* Sides measured in windows of their own: their offsets are part of the difference
	 * (add_batch_noise); the testcase's stats and the monitors' alike. */
	if (h)
		add_batch_noise(r, g, &y, on_log, h, o->alpha);
	r->p[g] = y.p;
	/* The interval's own centre, not the table's change of the means: a trimmed test's
	 * estimate leaves the outlier out, a test on logs is of the geometric means. */
	if (on_log) {
		r->est[g] = 100 * (y.ratio - 1);
		r->lo[g] = y.lo;
		r->hi[g] = y.hi;
	} else if (r->absolute) {
		r->est[g] = y.diff;
		r->lo[g] = y.lo;
		r->hi[g] = y.hi;
	} else if (y.base > 0) {
		r->est[g] = fmax(-100, 100 * y.diff / y.base);
		r->lo[g] = fmax(-100, 100 * y.lo / y.base);
		r->hi[g] = fmax(-100, 100 * y.hi / y.base);
	}
}

/* Benjamini-Hochberg over one family of stats (the headline ones, or the monitors'). */
static void bh_family(struct comparison *c, size_t g, bool headline)
{
	double *p = calloc(c->nrows + 1, sizeof(*p)), *q = calloc(c->nrows + 1, sizeof(*q));
	size_t *idx = malloc((c->nrows + 1) * sizeof(*idx)), n = 0;

	if (p && q && idx) {
		for (size_t i = 0; i < c->nrows; i++) {
			struct stat_row *r = &c->rows[i];

			if (r->failure || r->headline != headline || isnan(r->p[g]))
				continue;
			idx[n] = i;
			p[n++] = r->p[g];
		}
		bh_qvalues(p, n, q);
		for (size_t k = 0; k < n; k++)
			c->rows[idx[k]].q[g] = q[k];
	}
	free(p);
	free(q);
	free(idx);
}

static void decide(struct stat_row *r, size_t g, const struct compare_opts *o)
{
	double thr = r->absolute ? o->threshold_abs : o->threshold_pct;

	if (r->test[g] == TEST_NONE) {
		r->verdict[g] = V_INCONCLUSIVE;
		r->reason[g] = "dropped: no test";
		return;
	}
	if (r->test[g] == TEST_LKP) {
		if (r->p[g] == 0)
			r->verdict[g] = r->dir == DIR_NEUTRAL
					    ? (r->change[g] > 0 ? V_CHANGED_UP : V_CHANGED_DOWN)
					    : ((r->change[g] > 0) == (r->dir == DIR_HIGHER_BETTER)
						   ? V_IMPROVEMENT
						   : V_REGRESSION);
		else
			r->verdict[g] = V_NO_CHANGE;
		return;
	}
	r->verdict[g] = stat_verdict(r->lo[g], r->hi[g], r->q[g], o->q_max, thr, r->dir);
	if (r->count && fabs(r->sum[g].mean - r->sum[0].mean) < COMPARE_COUNT_FLOOR) {
		r->verdict[g] = V_NO_CHANGE;
		r->reason[g] = "dropped: the means differ by fewer than 100 events per run";
		return;
	}
	switch (r->verdict[g]) {
	case V_NONE:
		r->reason[g] = "dropped: no interval";
		break;
	case V_NO_CHANGE:
		r->reason[g] = "dropped: the interval lies inside the threshold";
		break;
	case V_INCONCLUSIVE:
		r->reason[g] = !(r->q[g] <= o->q_max)
				   ? "dropped: q above q_max"
				   : "dropped: the interval reaches inside the threshold";
		break;
	default:
		r->reason[g] = "kept: q <= q_max and the interval lies beyond the threshold";
		break;
	}
	if (r->verdict[g] == V_INCONCLUSIVE) {
		double cv = 0, delta;

		/* The two sides' mean coefficient of variation, against the larger of the
		 * threshold and the observed change: how many runs would put the interval on
		 * one side of the threshold. */
		if (r->sum[0].mean != 0 && r->sum[g].mean != 0)
			cv = (r->sum[0].stddev / fabs(r->sum[0].mean) +
			      r->sum[g].stddev / fabs(r->sum[g].mean)) /
			     2;
		delta = fmax(thr, r->has_change[g] ? fabs(r->change[g]) : 0) / 100.0;
		if (r->absolute && r->sum[0].mean != 0)
			delta = fmax(thr, fabs(r->change[g])) / fabs(r->sum[0].mean);
		r->runs_needed[g] = delta > 0 ? runs_needed(cv, delta) : 0;
	}
}

/* The per-group arrays of nrows rows, one block per array. */
static int alloc_cells(struct comparison *c, size_t nrows)
{
	size_t n = nrows * c->ngroups;
	bool ok = true;

#define ALLOC_CELLS(f)                                                                             \
	c->cells.f = calloc(n ? n : 1, sizeof(*c->cells.f));                                       \
	ok = ok && c->cells.f;
	STAT_ROW_ARRAYS(ALLOC_CELLS)
#undef ALLOC_CELLS
	return ok ? 0 : -1;
}

static void point_cells(struct comparison *c, struct stat_row *r, size_t i)
{
	size_t at = i * c->ngroups;

#define POINT_CELLS(f) r->f = c->cells.f + at;
	STAT_ROW_ARRAYS(POINT_CELLS)
#undef POINT_CELLS
}

/* The groups' stat names that c->opts selects, sorted, in *out (*nout of them, pointing into
 * the groups); c->min_runs and *maxruns the fewest and most runs of a group.  0, or -1 when
 * out of memory. */
static int stat_names_union(struct comparison *c, char ***out, size_t *nout, size_t *maxruns)
{
	const struct result_group *groups = c->groups;
	const struct compare_opts *o = &c->opts;
	char **names = NULL;
	size_t nnames = 0, cap = 0;

	/* The union of the groups' stat names: runs mostly share them, so a set first and a
	 * sort of the distinct names after, not a sort of every run's names. */
	json_t *seen = json_object();
	if (!seen)
		return -1;
	for (size_t g = 0; g < c->ngroups; g++) {
		if (groups[g].nruns < c->min_runs)
			c->min_runs = groups[g].nruns;
		if (groups[g].nruns > *maxruns)
			*maxruns = groups[g].nruns;
		for (size_t i = 0; i < groups[g].nstats; i++) {
			const char *k = groups[g].stat_names[i];

			/* the robot's stats are its matrix.json's: none that is 0 in every run */
			if (o->rule == RULE_LKP && !groups[g].lkp_kept[i])
				continue;
			if (json_object_get(seen, k))
				continue;
			json_object_set_new(seen, k, json_true());
			if ((o->stat_re && regexec(o->stat_re, k, 0, NULL, 0)) ||
			    (o->stat_name && strcmp(o->stat_name, k)))
				continue;
			if (nnames == cap) {
				cap = cap ? cap * 2 : 1024;
				char **nv = realloc(names, cap * sizeof(*nv));
				if (!nv) {
					json_decref(seen);
					free(names);
					return -1;
				}
				names = nv;
			}
			names[nnames++] = (char *)k;
		}
	}
	json_decref(seen);
	if (nnames)
		qsort(names, nnames, sizeof(*names), cmp_names);
	*out = names;
	*nout = nnames;
	return 0;
}

/* Row r, of the stat name in the given role: what kind of stat it is, each group's summary
 * and, but under the robot's rule, each later group's test against the first.  a, b and
 * scratch have room for any group's runs. */
static void fill_row(struct comparison *c, struct stat_row *r, const char *name,
		     enum stat_role role, double *a, double *b, double *scratch,
		     const struct batch_history *h)
{
	const struct result_group *groups = c->groups;
	const struct compare_opts *o = &c->opts;
	size_t n = c->ngroups, na;

	r->name = strdup(name);
	r->failure = role == ROLE_FAILURE;
	r->headline = role == ROLE_HEADLINE;
	r->absolute = stat_is_absolute(name);
	r->count = role == ROLE_MONITOR && !r->absolute;
	r->kind = role == ROLE_MONITOR ? group_stat_kind(groups, n, name) : STAT_UNDECLARED;
	r->dir = c->headline_stat && !strcmp(name, c->headline_stat) ? c->headline_dir
								     : stat_direction(name, role);
	for (size_t g = 0; g < n; g++) {
		size_t k = group_values(&groups[g], name, b);

		stat_summarize(b, k, &r->sum[g]);
		r->runs[g] = groups[g].nruns;
		if (r->failure)
			r->fails[g] = group_failures(&groups[g], name);
	}
	na = group_values(&groups[0], name, a);
	for (size_t g = 1; g < n; g++) {
		size_t nb = group_values(&groups[g], name, b);

		if (r->failure) {
			r->reproduction[g] = 100.0 * ((double)r->fails[g] / (double)r->runs[g] -
						      (double)r->fails[0] / (double)r->runs[0]);
			continue;
		}
		if (!na || !nb) {
			r->no_test[g] = "the stat is missing on one side";
			continue;
		}
		r->has_change[g] = stat_change(name, r->sum[0].mean, r->sum[g].mean, &r->change[g]);
		if (!r->has_change[g]) {
			r->no_test[g] = "%change undefined for a zero or negative mean";
			continue;
		}
		/* The robot's rule decides every row at once, from its own view of
		 * the runs (lkp_decide, below). */
		if (o->rule != RULE_LKP)
			test_row(r, g, a, na, b, nb, scratch, o,
				 c->apart[g] && !o->no_batch_noise ? h : NULL);
	}
}

/* Whether group g's runs and group 0's overlap in time (interleaved, or run side by side); a
 * group whose runs do not all say when they started counts as interleaved: no drift is then
 * told from a change. */
static bool interleaved(const struct comparison *c, size_t g)
{
	double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
	const struct result_group *gs[2] = {&c->groups[0], &c->groups[g]};

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < gs[k]->nruns; i++) {
			double t = run_started(&gs[k]->runs[i]);

			if (isnan(t))
				return true;
			lo[k] = fmin(lo[k], t);
			hi[k] = fmax(hi[k], t);
		}
	return !(hi[0] < lo[1] || hi[1] < lo[0]);
}

/* A monitor's move between runs that were not interleaved, told from drift: the step between
 * the sides is tested once a linear trend in the runs' start time, fitted within the sides,
 * is carried from one side's runs to the other's (trend_step_test, on the stat's own values:
 * a since-boot counter or the page cache grows by amounts, not by ratios).  When the sides
 * are apart in time the step and a drift are confounded, and only a step that stands out from
 * any drift the runs of each side allow is called a change: a since-boot counter averaged over
 * a window (softirqs.*, LKP's rule) or the page cache growing run after run on a machine that
 * does not reboot between runs is not, a step well beyond the noise with no trend inside the
 * sides still is. */
static bool drifts(const struct comparison *c, const struct stat_row *r, size_t g)
{
	const struct result_group *gs[2] = {&c->groups[0], &c->groups[g]};
	size_t cap = gs[0]->nruns + gs[1]->nruns + 1, n[2];
	double *buf = malloc(4 * cap * sizeof(*buf)), *t[2], *v[2];
	struct trend_step ts;
	const char *why;
	bool fitted;

	if (!buf)
		return false;
	for (int k = 0; k < 2; k++) {
		t[k] = buf + 2 * (size_t)k * cap;
		v[k] = t[k] + cap;
		n[k] = group_timed_values(gs[k], r->name, t[k], v[k]);
	}
	fitted = !trend_step_test(t[0], v[0], n[0], t[1], v[1], n[1], &ts, &why);
	free(buf);
	return fitted && !(ts.step_p < c->opts.alpha);
}

/* A monitor's move that only follows the headline's: its value per op (the stat over the
 * headline, run by run) did not change significantly.  A rate that is the throughput times a
 * constant per op (page faults per second in a page-fault loop, pages allocated, NUMA hits)
 * moves by exactly what the headline moved, and says nothing the headline does not. */
static bool per_op_same(const struct comparison *c, const struct stat_row *r, size_t g)
{
	const struct result_group *gs[2] = {&c->groups[0], &c->groups[g]};
	size_t cap = gs[0]->nruns + gs[1]->nruns + 1, na, nb;
	double *buf = malloc(2 * cap * sizeof(*buf)), *a = buf, *b = buf + cap;
	struct yuen_result y;
	const char *why = NULL;
	bool same = false;

	if (!buf)
		return false;
	na = group_ratio_values(gs[0], r->name, c->headline_stat, a);
	nb = group_ratio_values(gs[1], r->name, c->headline_stat, b);
	if (na >= 2 && nb >= 2 &&
	    !yuen_test(a, na, b, nb, 0, all_positive(a, na) && all_positive(b, nb), NULL,
		       c->opts.alpha, &y, &why))
		same = !(y.p < c->opts.alpha);
	free(buf);
	return same;
}

static bool is_move(enum verdict v)
{
	return v == V_REGRESSION || v == V_IMPROVEMENT || v == V_CHANGED_UP || v == V_CHANGED_DOWN;
}

/* Every row's verdict in every group after the first. */
static void decide_rows(struct comparison *c)
{
	const struct compare_opts *o = &c->opts;

	if (o->rule == RULE_LKP) {
		lkp_decide(c);
		return;
	}
	for (size_t g = 1; g < c->ngroups; g++) {
		bh_family(c, g, true);
		bh_family(c, g, false);
		bool apart = c->apart[g];
		const struct stat_row *hl = NULL;

		for (size_t i = 0; i < c->nrows; i++) {
			struct stat_row *r = &c->rows[i];

			if (r->failure || !r->has_change[g])
				continue;
			decide(r, g, o);
			/* More runs in the same windows do not narrow the batch noise. */
			if (r->batch_sd[g] > 0)
				r->runs_needed[g] = 0;
			if (c->headline_stat && !strcmp(r->name, c->headline_stat))
				hl = r;
			/* The testcase's own stats are never explained away: only monitors drift. */
			if (apart && !r->headline && is_move(r->verdict[g]) && drifts(c, r, g)) {
				r->verdict[g] = V_DRIFT;
				r->reason[g] =
				    "dropped: the step does not stand out from a drift in "
				    "time fitted within the sides (the runs were not "
				    "interleaved)";
			}
		}
		/* A rate its monitor declares (the work the window held) follows the throughput
		 * whether or not the headline's own test calls its move a change (between two
		 * windows of a shared machine the headline can move by tens of percent and
		 * still not clear the batch noise): it is changed only when its value per op
		 * moved too.  For runs that do not declare their rates, only a headline that
		 * moved explains a monitor's move (the headline is decided in the pass above,
		 * whatever its name's place among the rows); a declared level is never taken
		 * for a rate. */
		bool hl_moved = hl && is_move(hl->verdict[g]);

		if (!c->headline_stat)
			continue;
		for (size_t i = 0; i < c->nrows; i++) {
			struct stat_row *r = &c->rows[i];

			if (r->failure || r->headline || !is_move(r->verdict[g]) ||
			    r->kind == STAT_LEVEL || (r->kind == STAT_UNDECLARED && !hl_moved) ||
			    !per_op_same(c, r, g))
				continue;
			r->verdict[g] = V_PER_OP_SAME;
			r->reason[g] = "dropped: it moved with the headline; its value per op did "
				       "not change significantly";
		}
	}
}

int compare_groups(struct result_group *groups, size_t n, const struct compare_opts *o,
		   struct comparison *c, char *err, size_t errlen)
{
	char **names = NULL;
	size_t nnames = 0, maxruns = 0, family_len = 0;
	double *a = NULL, *b = NULL, *scratch = NULL;
	const char *family = NULL;
	enum stat_role role = ROLE_HEADLINE;
	struct batch_history history = {0};

	memset(c, 0, sizeof(*c));
	if (n < 2) {
		snprintf(err, errlen, "compare needs at least 2 groups, got %zu", n);
		return -1;
	}
	c->groups = groups;
	c->ngroups = n;
	c->opts = *o;
	c->icount = groups_icount(groups, n);
	if (c->icount && c->opts.threshold_pct > COMPARE_ICOUNT_THRESHOLD)
		c->opts.threshold_pct = COMPARE_ICOUNT_THRESHOLD;
	c->min_runs = groups[0].nruns;
	c->headline_stat = group_headline_stat(groups, n);
	c->headline_dir = group_headline_direction(groups, n);
	if (stat_names_union(c, &names, &nnames, &maxruns))
		goto nomem;
	c->rows = calloc(nnames ? nnames : 1, sizeof(*c->rows));
	a = malloc((maxruns + 1) * sizeof(*a));
	b = malloc((maxruns + 1) * sizeof(*b));
	scratch = malloc((maxruns + 1) * sizeof(*scratch));
	c->apart = calloc(n, sizeof(*c->apart));
	if (!c->rows || !a || !b || !scratch || !c->apart || alloc_cells(c, nnames))
		goto nomem;
	/* Sides measured each in a window of its own: their tests carry the batch-to-batch
	 * noise (add_batch_noise), from the job's history in the tree where it has some. */
	for (size_t g = 1; g < n; g++)
		if (o->rule != RULE_LKP && !interleaved(c, g))
			c->apart[g] = c->apart_any = true;
	if (o->no_batch_noise)
		c->apart_any = false;
	if (c->apart_any)
		history_load(c, &history);

	for (size_t i = 0; i < nnames; i++) {
		struct stat_row *r;
		size_t len = strcspn(names[i], ".");

		r = &c->rows[c->nrows];
		point_cells(c, r, c->nrows++);
		/* Sorted names: a family's stats come together, so ask its role once. */
		if (!family || len != family_len || strncmp(names[i], family, len)) {
			family = names[i];
			family_len = len;
			role = group_stat_role(groups, n, names[i]);
		}
		fill_row(c, r, names[i], role, a, b, scratch, &history);
	}
	history_free(&history);
	decide_rows(c);
	free(names);
	free(a);
	free(b);
	free(scratch);
	return 0;
nomem:
	history_free(&history);
	free(names);
	free(a);
	free(b);
	free(scratch);
	comparison_free(c);
	snprintf(err, errlen, "out of memory");
	return -1;
}

void comparison_free(struct comparison *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		free(c->rows[i].name);
	free(c->rows);
#define FREE_CELLS(f) free(c->cells.f);
	STAT_ROW_ARRAYS(FREE_CELLS)
#undef FREE_CELLS
	memset(&c->cells, 0, sizeof(c->cells));
	free(c->apart);
	c->apart = NULL;
	c->rows = NULL;
	c->nrows = 0;
}

bool row_is_notable(const struct stat_row *r, size_t ngroups)
{
	for (size_t g = 1; g < ngroups; g++) {
		if (r->failure && (r->fails[g] || r->fails[0]))
			return true;
		switch (r->verdict[g]) {
		case V_REGRESSION:
		case V_IMPROVEMENT:
		case V_CHANGED_UP:
		case V_CHANGED_DOWN:
			return true;
		default:
			break;
		}
	}
	return false;
}

bool comparison_regressed(const struct comparison *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t g = 1; g < c->ngroups; g++)
			if (c->rows[i].headline && c->rows[i].verdict[g] == V_REGRESSION)
				return true;
	return false;
}

bool row_is_headline(const struct comparison *c, const struct stat_row *r)
{
	if (r->failure)
		return false;
	return c->headline_stat ? !strcmp(r->name, c->headline_stat) : r->headline;
}

enum verdict comparison_headline_verdict(const struct comparison *c)
{
	bool any = false, inconclusive = false;

	for (size_t i = 0; i < c->nrows; i++) {
		const struct stat_row *r = &c->rows[i];

		if (!row_is_headline(c, r))
			continue;
		any = true;
		for (size_t g = 1; g < c->ngroups; g++) {
			if (r->verdict[g] == V_REGRESSION)
				return V_REGRESSION;
			if (r->verdict[g] == V_INCONCLUSIVE || r->verdict[g] == V_NONE)
				inconclusive = true;
		}
	}
	if (!any)
		return V_NONE;
	return inconclusive ? V_INCONCLUSIVE : V_NO_CHANGE;
}
