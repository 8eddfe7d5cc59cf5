/* E-divisive means (Matteson & James 2014) as MongoDB's CI (Daly et al., ICPE 2020) and Apache
 * Otava use it: the energy statistic with alpha = 1 over a segment split in two, the split
 * that maximises it a candidate, its significance by a permutation test, recursion into both
 * halves; then each candidate is confirmed by the analyzer's own two-sample test between the
 * runs of the segments around it and the noise threshold.
 *
 * The statistic works on one value per commit, the mean of its runs' logs (the log of their
 * geometric mean), not on every run.  Runs of one commit share its build, boot and machine
 * state, so they are not exchangeable with runs of other commits even when nothing changed:
 * a permutation of single runs would take that commit-to-commit noise for signal and call
 * change points on A/A series.  Commit means are what is exchangeable under "no change", and a
 * split between runs of one commit means nothing anyway.  The runs themselves come back in the
 * confirmation, where they are the samples of Yuen's test. */
#include "changepoint.h"
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cp_opts_default(struct cp_opts *o)
{
	*o = (struct cp_opts){.min_segment = 3,
			      .permutations = 199,
			      .p_max = 0.05,
			      .alpha = 0.05,
			      .threshold_pct = 1,
			      .seed = 0x5ca1ab1e};
}

/* splitmix64: tiny, fast, and a good generator on its own; one state per segment. */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A uniform index below bound (Lemire's multiply; the bias is below 2^-40 for our sizes). */
static size_t rand_below(uint64_t *s, size_t bound)
{
	return (size_t)(((unsigned __int128)splitmix64(s) * bound) >> 64);
}

struct cp_pair {
	double v;
	size_t pos;
};

struct cp_work {
	const struct cp_opts *o;
	size_t n;	/* commits with at least one usable run */
	size_t *orig;	/* their indices in the caller's array */
	double *x;	/* the mean of each one's log runs, centred (differences only matter) */
	double *runs;	/* every usable run, commit after commit */
	size_t *off;	/* commit i's runs: runs[off[i] .. off[i + 1]) */
	double *logsum; /* logsum[k]: the sum of the logs of runs[0 .. k) */
	/* scan scratch, sized n */
	double *v, *acc_l, *acc_r, *bit_sum;
	double *dist_all; /* dist_all[r]: sum of |x - y| from the value of rank r to all others */
	size_t *rank, *bit_cnt;
	struct cp_pair *pairs;
	/* candidates found by the recursion */
	struct change_point *cand;
	size_t ncand, cap;
};

static int by_value(const void *a, const void *b)
{
	const struct cp_pair *p = a, *q = b;

	if (p->v != q->v)
		return p->v < q->v ? -1 : 1;
	return (p->pos > q->pos) - (p->pos < q->pos);
}

/* Fenwick tree over ranks 1..len: count and sum of the values inserted so far below a rank. */
static void bit_add(struct cp_work *w, size_t len, size_t r, double v)
{
	for (; r <= len; r += r & -r) {
		w->bit_cnt[r]++;
		w->bit_sum[r] += v;
	}
}

static void bit_below(const struct cp_work *w, size_t r, size_t *cnt, double *sum)
{
	*cnt = 0;
	*sum = 0;
	for (; r; r -= r & -r) {
		*cnt += w->bit_cnt[r];
		*sum += w->bit_sum[r];
	}
}

/* Sum of |v[k] - v[j]| over the j already in the tree (a rank's distinct values need no
 * special case: equal values are at distance 0 on whichever side they count). */
static double dist_to_inserted(struct cp_work *w, size_t k, size_t inserted, double total)
{
	size_t lo_cnt;
	double lo_sum;

	bit_below(w, w->rank[k] - 1, &lo_cnt, &lo_sum);
	return ((double)lo_cnt * w->v[k] - lo_sum) +
	       ((total - lo_sum) - (double)(inserted - lo_cnt) * w->v[k]);
}

/* The best split of v[0..len) (ranks in rank[]) by the energy statistic with alpha = 1:
 *   Q(tau) = nm/(n+m) (2/(nm) sum|x - y| - 2/(n(n-1)) sum|x - x'| - 2/(m(m-1)) sum|y - y'|)
 * for left part x = v[0..tau), right part y = v[tau..len), n = tau, m = len - tau, each at
 * least min_segment long.  The within-part sums for every tau come from one sweep with a
 * Fenwick tree over the ranks (O(len log len)): each value's distances to those before it;
 * to those after it are its distances to all (dist_all, the same in every permutation) less
 * those.  So the 199 permutations of a 1,000-commit segment take milliseconds where the
 * pairwise-distance matrix would need 10^8 steps. */
static double best_split(struct cp_work *w, size_t len, size_t *at)
{
	size_t ms = w->o->min_segment;
	double total = 0, best = -INFINITY, all_pairs = 0, within_l = 0, within_r = 0;

	/* acc_l[k] = sum over i < k of |v_i - v_k|; acc_r[k] = over j > k */
	memset(w->bit_cnt, 0, (len + 1) * sizeof(*w->bit_cnt));
	memset(w->bit_sum, 0, (len + 1) * sizeof(*w->bit_sum));
	for (size_t k = 0; k < len; k++) {
		w->acc_l[k] = dist_to_inserted(w, k, k, total);
		w->acc_r[k] = w->dist_all[w->rank[k]] - w->acc_l[k];
		bit_add(w, len, w->rank[k], w->v[k]);
		total += w->v[k];
	}
	/* within-left sums grow from the front, within-right ones shrink towards the back */
	for (size_t k = 0; k < len; k++)
		all_pairs += w->acc_l[k];
	for (size_t k = ms; k < len; k++)
		within_r += w->acc_r[k];
	for (size_t k = 0; k < ms; k++)
		within_l += w->acc_l[k];
	for (size_t tau = ms; tau + ms <= len; tau++) {
		double n = (double)tau, m = (double)(len - tau);
		double between = all_pairs - within_l - within_r;
		double q = 2 * between / (n * m);

		if (tau > 1)
			q -= 2 * within_l / (n * (n - 1));
		if (len - tau > 1)
			q -= 2 * within_r / (m * (m - 1));
		q *= n * m / (n + m);
		if (q > best) {
			best = q;
			*at = tau;
		}
		within_l += w->acc_l[tau];
		within_r -= w->acc_r[tau];
	}
	return best;
}

static int add_candidate(struct cp_work *w, size_t tau, double p)
{
	if (w->ncand == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 8;
		struct change_point *c = realloc(w->cand, cap * sizeof(*c));

		if (!c)
			return -1;
		w->cand = c;
		w->cap = cap;
	}
	w->cand[w->ncand++] = (struct change_point){.index = tau, .p = p};
	return 0;
}

/* The segment x[s..e): its best split, kept when the permutation test finds it significant,
 * then each half the same way.  The permutations stop as soon as p can no longer reach p_max
 * (an A/A segment costs some 20 permutations, not 199).  Each segment has its own RNG stream,
 * seeded from the seed and its bounds, so a candidate's p does not depend on the order in
 * which the recursion reached it. */
static int divide(struct cp_work *w, size_t s, size_t e)
{
	const struct cp_opts *o = w->o;
	size_t len = e - s, tau = 0, exceed = 0, done = 0;
	double observed, p;
	/* p = (1 + exceed) / (1 + permutations) <= p_max needs exceed <= this */
	double exceed_max = o->p_max * (double)(o->permutations + 1) - 1;
	uint64_t rng = o->seed ^ (0x9e3779b97f4a7c15ULL * (s + 1)) ^ ((uint64_t)e << 32);

	if (len < 2 * o->min_segment || len < 2)
		return 0;
	for (size_t k = 0; k < len; k++)
		w->pairs[k] = (struct cp_pair){w->x[s + k], k};
	qsort(w->pairs, len, sizeof(*w->pairs), by_value);
	for (size_t k = 0; k < len; k++)
		w->rank[w->pairs[k].pos] = k + 1;
	/* from the sorted values: below rank r, r - 1 values at most its own; above, the rest */
	double below = 0, above = 0;

	for (size_t k = 0; k < len; k++)
		above += w->pairs[k].v;
	for (size_t k = 0; k < len; k++) {
		double x = w->pairs[k].v;

		above -= x;
		w->dist_all[k + 1] = ((double)k * x - below) + (above - (double)(len - 1 - k) * x);
		below += x;
	}
	memcpy(w->v, w->x + s, len * sizeof(*w->v));
	observed = best_split(w, len, &tau);
	tau += s;
	for (; done < o->permutations && (double)exceed <= exceed_max; done++) {
		size_t dummy;

		/* Fisher-Yates on values and their ranks together: the set is the segment's. */
		for (size_t k = len - 1; k > 0; k--) {
			size_t j = rand_below(&rng, k + 1);
			double tv = w->v[k];
			size_t tr = w->rank[k];

			w->v[k] = w->v[j];
			w->v[j] = tv;
			w->rank[k] = w->rank[j];
			w->rank[j] = tr;
		}
		if (best_split(w, len, &dummy) >= observed)
			exceed++;
	}
	p = (double)(1 + exceed) / (double)(1 + done);
	if (p > o->p_max)
		return 0;
	if (add_candidate(w, tau, p) || divide(w, s, tau) || divide(w, tau, e))
		return -1;
	return 0;
}

static int by_index(const void *a, const void *b)
{
	const struct change_point *p = a, *q = b;

	return (p->index > q->index) - (p->index < q->index);
}

/* Binary segmentation over the whole series misses a short excursion, a dip of a few commits
 * that comes back (the split at its start compares the left part with a right part that is
 * mostly back at the old level).  Matteson and James search the right part's end too, at
 * O(n^2) per permutation; windows, as Otava slices its series, are cheaper: the same search
 * also runs over windows of CP_WINDOW commits, each starting a third of one after the last,
 * so that some window ends just after any dip of 5-8 commits, where the dip is a large share
 * of one side.  On bench/trend.sh's dips of 6% for 5-8 commits: 35% found without windows,
 * 81% with windows of 20 overlapping by half, 97.9% with these, and A/A series stay clean in
 * 99.4%.  More overlap finds more dips and more noise (20 by a quarter: 99.7% of dips, A/A
 * clean in 98.9%); a stricter p for windows loses dips faster than noise. */
#define CP_WINDOW 30

/* Candidates closer than min_segment would leave a segment too short to test: of such a
 * pair, keep the one with the smaller permutation p (the earlier on a tie). */
static void dedup(struct cp_work *w)
{
	size_t k = 0;

	if (!w->ncand)
		return;
	qsort(w->cand, w->ncand, sizeof(*w->cand), by_index);
	for (size_t i = 0; i < w->ncand; i++) {
		if (k && w->cand[i].index < w->cand[k - 1].index + w->o->min_segment) {
			if (w->cand[i].p < w->cand[k - 1].p)
				w->cand[k - 1] = w->cand[i];
			continue;
		}
		w->cand[k++] = w->cand[i];
	}
	w->ncand = k;
}

/* Yuen's test between the runs of the segments around candidate i, bounded by its neighbours.
 * Always 20%-trimmed (compare trims only when a side has an outlier): a segment spans many
 * commits, and one odd commit's runs must not carry a change point in or out.  The test must
 * agree at the permutation test's own level, p_max, and the interval of the change clear the
 * noise threshold: stat_verdict then names the direction.  Returns false when no test
 * applies (too few runs). */
static bool confirm(const struct cp_work *w, size_t i, enum stat_direction dir,
		    struct change_point *c)
{
	const struct cp_opts *o = w->o;
	size_t s = i ? w->cand[i - 1].index : 0, tau = w->cand[i].index;
	size_t e = i + 1 < w->ncand ? w->cand[i + 1].index : w->n;
	const double *a = w->runs + w->off[s], *b = w->runs + w->off[tau];
	size_t na = w->off[tau] - w->off[s], nb = w->off[e] - w->off[tau];
	struct yuen_result y;
	const char *why;

	c->verdict = V_NONE;
	c->test_p = NAN;
	if (yuen_test(a, na, b, nb, COMPARE_TRIM, true, NULL, o->alpha, &y, &why))
		return false;
	c->before = stat_mean(a, na);
	c->after = stat_mean(b, nb);
	c->change_pct = 100 * expm1(y.diff);
	c->lo_pct = y.lo;
	c->hi_pct = y.hi;
	c->test_p = y.p;
	c->verdict = stat_verdict(y.lo, y.hi, y.p, o->p_max, o->threshold_pct, dir);
	return c->verdict == V_REGRESSION || c->verdict == V_IMPROVEMENT ||
	       c->verdict == V_CHANGED_UP || c->verdict == V_CHANGED_DOWN;
}

/* The energy statistic's argmax is a robust but blurry estimate of where a step is: at a
 * 2% step in 2% run noise it lands 2 or more commits off in a quarter of series.  Between its
 * neighbours, a candidate is moved to the split within REFINE_RADIUS commits that best
 * separates the runs' log means (the least-squares split, the likelihood's own for a step in
 * lognormal noise), which lands within a commit far more often; significance stays the
 * permutation test's, confirmation the two-sample test's. */
#define REFINE_RADIUS 5

static void refine(struct cp_work *w)
{
	size_t ms = w->o->min_segment;

	for (size_t i = 0; i < w->ncand; i++) {
		size_t s = i ? w->cand[i - 1].index : 0, tau = w->cand[i].index;
		size_t e = i + 1 < w->ncand ? w->cand[i + 1].index : w->n;
		size_t lo = tau > s + ms + REFINE_RADIUS ? tau - REFINE_RADIUS : s + ms;
		size_t hi = tau + REFINE_RADIUS + ms < e ? tau + REFINE_RADIUS : e - ms;
		double best = -1;

		for (size_t t = lo; t <= hi && t > s && t < e; t++) {
			double na = (double)(w->off[t] - w->off[s]);
			double nb = (double)(w->off[e] - w->off[t]);
			double ma, mb, score;

			if (!(na > 0 && nb > 0))
				continue;
			ma = (w->logsum[w->off[t]] - w->logsum[w->off[s]]) / na;
			mb = (w->logsum[w->off[e]] - w->logsum[w->off[t]]) / nb;
			score = na * nb / (na + nb) * (ma - mb) * (ma - mb);
			if (score > best) {
				best = score;
				w->cand[i].index = t;
			}
		}
	}
}

/* Confirm every candidate against its neighbours; while one fails, drop the weakest failure
 * (largest test p) and test again the two whose segments have just grown.  The others keep
 * their result: a window's false candidates can be dozens, each test sorts thousands of runs. */
static int confirm_all(struct cp_work *w, enum stat_direction dir)
{
	signed char *state; /* 0: to test, 1: confirmed, -1: failed */

	dedup(w);
	refine(w);
	state = calloc(w->ncand + 1, sizeof(*state));
	if (!state)
		return -1;
	for (;;) {
		size_t worst = SIZE_MAX;
		double worst_p = -1;

		for (size_t i = 0; i < w->ncand; i++) {
			if (!state[i])
				state[i] = confirm(w, i, dir, &w->cand[i]) ? 1 : -1;
			if (state[i] > 0)
				continue;
			/* no test at all ranks below any p */
			double tp = isnan(w->cand[i].test_p) ? 2 : w->cand[i].test_p;

			if (tp > worst_p) {
				worst_p = tp;
				worst = i;
			}
		}
		if (worst == SIZE_MAX)
			break;
		memmove(w->cand + worst, w->cand + worst + 1,
			(w->ncand - worst - 1) * sizeof(*w->cand));
		memmove(state + worst, state + worst + 1, w->ncand - worst - 1);
		w->ncand--;
		if (worst > 0)
			state[worst - 1] = 0;
		if (worst < w->ncand)
			state[worst] = 0;
	}
	free(state);
	return 0;
}

static bool opts_ok(const struct cp_opts *o, char *err, size_t errlen)
{
	if (o->min_segment < 1) {
		snprintf(err, errlen,
			 "change points: the minimum segment must be at least 1 commit");
		return false;
	}
	if (!(o->p_max > 0 && o->p_max < 1) || !(o->alpha > 0 && o->alpha < 1)) {
		snprintf(err, errlen,
			 "change points: p_max and alpha must lie in (0, 1), not %g and %g",
			 o->p_max, o->alpha);
		return false;
	}
	if (1.0 / (o->permutations + 1.0) > o->p_max) {
		snprintf(
		    err, errlen,
		    "change points: %u permutations cannot reach p <= %g (at least %.0f needed)",
		    o->permutations, o->p_max, ceil(1 / o->p_max - 1));
		return false;
	}
	if (!(o->threshold_pct >= 0) || !isfinite(o->threshold_pct)) {
		snprintf(err, errlen, "change points: the threshold must be a %% >= 0, not %g",
			 o->threshold_pct);
		return false;
	}
	return true;
}

static void work_free(struct cp_work *w)
{
	free(w->orig);
	free(w->x);
	free(w->runs);
	free(w->off);
	free(w->logsum);
	free(w->v);
	free(w->acc_l);
	free(w->acc_r);
	free(w->bit_sum);
	free(w->dist_all);
	free(w->rank);
	free(w->bit_cnt);
	free(w->pairs);
	free(w->cand);
}

/* The usable commits (at least one run > 0 and finite) and their runs, packed. */
static int work_init(struct cp_work *w, const struct cp_commit *c, size_t n)
{
	size_t total = 0, k = 0, i;
	double centre = 0;

	for (i = 0; i < n; i++)
		total += c[i].runs ? c[i].n : 0;
	w->orig = malloc((n + 1) * sizeof(*w->orig));
	w->x = malloc((n + 1) * sizeof(*w->x));
	w->off = malloc((n + 2) * sizeof(*w->off));
	w->runs = malloc((total + 1) * sizeof(*w->runs));
	w->logsum = malloc((total + 1) * sizeof(*w->logsum));
	w->v = malloc((n + 1) * sizeof(*w->v));
	w->acc_l = malloc((n + 1) * sizeof(*w->acc_l));
	w->acc_r = malloc((n + 1) * sizeof(*w->acc_r));
	w->bit_sum = malloc((n + 2) * sizeof(*w->bit_sum));
	w->dist_all = malloc((n + 2) * sizeof(*w->dist_all));
	w->rank = malloc((n + 1) * sizeof(*w->rank));
	w->bit_cnt = malloc((n + 2) * sizeof(*w->bit_cnt));
	w->pairs = malloc((n + 1) * sizeof(*w->pairs));
	if (!w->orig || !w->x || !w->off || !w->runs || !w->logsum || !w->v || !w->acc_l ||
	    !w->acc_r || !w->bit_sum || !w->rank || !w->bit_cnt || !w->pairs)
		return -1;
	total = 0;
	for (i = 0; i < n; i++) {
		double logsum = 0;
		size_t used = 0;

		w->off[k] = total;
		for (size_t j = 0; c[i].runs && j < c[i].n; j++) {
			double r = c[i].runs[j];

			if (!(r > 0) || !isfinite(r))
				continue;
			w->logsum[total] =
			    (total ? w->logsum[total - 1] + log(w->runs[total - 1]) : 0);
			w->runs[total++] = r;
			logsum += log(r);
			used++;
		}
		if (!used)
			continue;
		w->orig[k] = i;
		w->x[k++] = logsum / (double)used;
	}
	w->off[k] = total;
	if (total)
		w->logsum[total] = w->logsum[total - 1] + log(w->runs[total - 1]);
	else
		w->logsum[0] = 0;
	w->n = k;
	/* Centred, the Fenwick sums subtract numbers of the size of the differences. */
	centre = stat_mean(w->x, k);
	for (i = 0; i < k; i++)
		w->x[i] -= centre;
	return 0;
}

ssize_t changepoints_find(const struct cp_commit *c, size_t n, enum stat_direction dir,
			  const struct cp_opts *o, struct change_point **out, char *err,
			  size_t errlen)
{
	struct cp_work w = {.o = o};
	ssize_t rc = -1;

	*out = NULL;
	if (!opts_ok(o, err, errlen))
		return -1;
	if (n && !c) {
		snprintf(err, errlen, "change points: no commits given");
		return -1;
	}
	if (work_init(&w, c, n) || divide(&w, 0, w.n))
		goto nomem;
	for (size_t ws = 0; w.n > CP_WINDOW && ws + 2 * o->min_segment < w.n; ws += CP_WINDOW / 3)
		if (divide(&w, ws, ws + CP_WINDOW < w.n ? ws + CP_WINDOW : w.n))
			goto nomem;
	if (confirm_all(&w, dir))
		goto nomem;
	for (size_t i = 0; i < w.ncand; i++)
		w.cand[i].index = w.orig[w.cand[i].index];
	*out = w.cand;
	w.cand = NULL;
	rc = (ssize_t)w.ncand;
	goto out;
nomem:
	snprintf(err, errlen, "change points: %s", strerror(ENOMEM));
out:
	work_free(&w);
	return rc;
}
