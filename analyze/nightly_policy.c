/* nightly's confirmation policy on one series (nightly_policy.h). */
#include "nightly_policy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nightly_policy_default(struct nightly_policy *p)
{
	*p = (struct nightly_policy){.confirm_commits = NIGHTLY_CONFIRM_COMMITS,
				     .night_z = NIGHTLY_NIGHT_Z,
				     .history_min = NIGHTLY_HISTORY_MIN,
				     .range_chi2 = NIGHTLY_RANGE_CHI2,
				     .threshold_pct = 1};
}

/* The mean of a commit's log values (> 0 only): false when it has none. */
static bool log_mean(const struct cp_commit *c, double *m)
{
	double s = 0;
	size_t k = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->runs[i] > 0 && isfinite(c->runs[i])) {
			s += log(c->runs[i]);
			k++;
		}
	if (k)
		*m = s / (double)k;
	return k > 0;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double nightly_night_noise(const struct cp_commit *c, size_t n)
{
	double *d = malloc((n ? n : 1) * sizeof(*d)), prev = 0, m, med, sd = NAN;
	size_t k = 0;
	bool have = false;

	if (!d)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (!log_mean(&c[i], &m))
			continue;
		if (have)
			d[k++] = m - prev;
		prev = m;
		have = true;
	}
	if (k >= 2) {
		med = median(d, k);
		for (size_t i = 0; i < k; i++)
			d[i] = fabs(d[i] - med);
		sd = 1.4826 * median(d, k) / sqrt(2);
	}
	free(d);
	return sd;
}

void nightly_change_range(const struct cp_commit *c, size_t a, size_t b, size_t index,
			  const struct nightly_policy *p, size_t *lo, size_t *hi)
{
	size_t n = b - a, k = 0, from, to;
	double *m = malloc((n ? n : 1) * sizeof(*m)), *sse = calloc(n + 1, sizeof(*sse));
	size_t *at = malloc((n ? n : 1) * sizeof(*at));
	double best = INFINITY, var;

	*lo = *hi = index;
	if (!m || !sse || !at || index <= a || index >= b)
		goto out;
	for (size_t i = a; i < b; i++)
		if (log_mean(&c[i], &m[k]))
			at[k++] = i;
	if (k < 3)
		goto out;
	/* sse[j]: the two-mean fit's residual with the split before usable commit j, from
	 * running sums (one pass: a segment may be a thousand commits, for every stat). */
	double tot1 = 0, tot2 = 0, s1 = 0, s2 = 0;

	for (size_t i = 0; i < k; i++)
		tot1 += m[i], tot2 += m[i] * m[i];
	for (size_t j = 1; j < k; j++) {
		s1 += m[j - 1], s2 += m[j - 1] * m[j - 1];
		double t1 = tot1 - s1, t2 = tot2 - s2;

		sse[j] = s2 - s1 * s1 / (double)j + t2 - t1 * t1 / (double)(k - j);
		if (sse[j] < best)
			best = sse[j];
	}
	var = k > 2 ? best / (double)(k - 2) : 0;
	from = to = 0;
	for (size_t j = 1; j < k; j++) {
		if (var > 0 ? (sse[j] - best) / var > p->range_chi2 : sse[j] > best)
			continue;
		if (!from)
			from = j;
		to = j;
	}
	if (from) {
		*lo = at[from];
		*hi = at[to];
	}
	if (index < *lo)
		*lo = index;
	if (index > *hi)
		*hi = index;
	/* At most NIGHTLY_RANGE_MAX commits, kept around the estimate. */
	if (*hi - *lo + 1 > NIGHTLY_RANGE_MAX) {
		size_t half = NIGHTLY_RANGE_MAX / 2;

		*lo = index - *lo > half ? index - half : *lo;
		*hi = *lo + NIGHTLY_RANGE_MAX - 1 < *hi ? *lo + NIGHTLY_RANGE_MAX - 1 : *hi;
	}
out:
	free(m);
	free(sse);
	free(at);
}

/* The verdict of a move in the stat's direction: NONE when not wanted. */
static enum verdict move_verdict(double change, enum stat_direction dir, bool all_kinds)
{
	if (dir == DIR_NEUTRAL)
		return !all_kinds ? V_NONE : change > 0 ? V_CHANGED_UP : V_CHANGED_DOWN;
	return (change > 0) == (dir == DIR_HIGHER_BETTER) ? V_IMPROVEMENT : V_REGRESSION;
}

static bool wanted(enum verdict v, bool all_kinds)
{
	return v == V_REGRESSION || v == V_IMPROVEMENT ||
	       (all_kinds && (v == V_CHANGED_UP || v == V_CHANGED_DOWN));
}

/* The latest commit against the one before it, when it clears the night noise: 1 with *f,
 * else 0. */
static int one_night(const struct cp_commit *c, size_t n, enum stat_direction dir,
		     const struct nightly_policy *p, bool all_kinds, struct nightly_found *f)
{
	double last, prev, sd, d;
	size_t k = n - 1, usable = 0;

	if (n < 2 || !log_mean(&c[n - 1], &last))
		return 0;
	while (k > 0 && !log_mean(&c[k - 1], &prev))
		k--;
	if (k == 0)
		return 0;
	for (size_t i = 0; i + 1 < n; i++)
		usable += log_mean(&c[i], &(double){0});
	if (usable < p->history_min || !isfinite(sd = nightly_night_noise(c, n - 1)))
		return 0;
	d = last - prev;
	if (fabs(d) <= p->night_z * sqrt(2) * sd || 100 * fabs(expm1(d)) < p->threshold_pct)
		return 0;
	/* And what the analyzer asks of the two commits' runs (compare's default rule): the
	 * test at 5%, the interval clear of the threshold. */
	struct welch_result w;
	const char *why;

	if (welch_log_test(c[k - 1].runs, c[k - 1].n, c[n - 1].runs, c[n - 1].n, 0.05, &w, &why) ||
	    !(w.p < 0.05) || !(w.hi_pct < -p->threshold_pct || w.lo_pct > p->threshold_pct))
		return 0;
	*f = (struct nightly_found){.index = n - 1,
				    .lo = n - 1,
				    .hi = n - 1,
				    .change_pct = 100 * expm1(d),
				    .verdict = move_verdict(d, dir, all_kinds),
				    .p = NAN};
	return wanted(f->verdict, all_kinds);
}

ssize_t nightly_series_changes(const struct cp_commit *c, size_t n, enum stat_direction dir,
			       const struct nightly_policy *p, bool all_kinds,
			       struct nightly_found **out, char *err, size_t errlen)
{
	struct change_point *cps = NULL;
	struct cp_opts co;
	ssize_t ncp;
	size_t k = 0;

	*out = NULL;
	cp_opts_default(&co);
	co.threshold_pct = p->threshold_pct;
	ncp = changepoints_find(c, n, dir, &co, &cps, err, errlen);
	if (ncp < 0)
		return -1;
	*out = calloc((size_t)ncp + 1, sizeof(**out));
	if (!*out) {
		free(cps);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (ssize_t i = 0; i < ncp; i++) {
		const struct change_point *cp = &cps[i];
		struct nightly_found *f = &(*out)[k];

		if (!wanted(cp->verdict, all_kinds) || cp->index == 0 || cp->index >= n)
			continue;
		*f = (struct nightly_found){.index = cp->index,
					    .change_pct = cp->change_pct,
					    .verdict = cp->verdict,
					    .p = cp->p,
					    .from_cp = true};
		nightly_change_range(c, i ? cps[i - 1].index : 0,
				     i + 1 < ncp ? cps[i + 1].index : n, cp->index, p, &f->lo,
				     &f->hi);
		/* Confirmed when confirm_commits follow the whole range: near the series' end
		 * the split is held back by the minimum segment, and names a commit too early. */
		k += n - f->hi >= p->confirm_commits;
	}
	/* The one-night check, unless a change point already names the latest commit. */
	if (one_night(c, n, dir, p, all_kinds, &(*out)[k]) && !(k && (*out)[k - 1].index == n - 1))
		k++;
	free(cps);
	return (ssize_t)k;
}
