/* Statistics for comparing two groups of runs (one run = one sample).
 *
 * The distributions come from R's standalone math library (Rmath); nothing here approximates
 * a distribution by hand.  Rmath's pwilcox/qwilcox keep a static cache of counts, so
 * mann_whitney_test() is not thread-safe; the rest is.  The cache stays allocated (and
 * reachable) until exit so that hundreds of stats with the same run counts reuse it. */
#include "stats.h"

#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MATHLIB_STANDALONE
#include <Rmath.h>

/* Up to this many values are sorted in a stack buffer; more go to the heap. */
#define STACK_VALUES 128

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

static double median_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* Groups are a handful of runs: an insertion sort beats qsort's setup there, and a
 * comparison sorts thousands of them. */
void stat_sort(double *x, size_t n)
{
	if (n > 32) {
		qsort(x, n, sizeof(*x), cmp_double);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		double v = x[i];
		size_t j = i;

		for (; j > 0 && x[j - 1] > v; j--)
			x[j] = x[j - 1];
		x[j] = v;
	}
}

bool stat_has_outlier(const double *x, size_t n, double med, double *d)
{
	double mad;

	if (n < 4)
		return false;
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - med);
	stat_sort(d, n);
	mad = 1.4826 * median_sorted(d, n);
	return mad > 0 && d[n - 1] > 3.5 * mad;
}

double stat_trim_with(const double *a, size_t na, double med_a, const double *b, size_t nb,
		      double med_b, double *scratch)
{
	if (na < 5 && nb < 5) /* 20% trimming removes a run only from 5 runs on */
		return 0;
	return stat_has_outlier(a, na, med_a, scratch) || stat_has_outlier(b, nb, med_b, scratch)
		   ? STAT_TRIM
		   : 0;
}

/* A side's median, from a sorted copy of it in s. */
static double side_median(const double *x, size_t n, double *s)
{
	memcpy(s, x, n * sizeof(*s));
	stat_sort(s, n);
	return median_sorted(s, n);
}

double stat_trim_for(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na > nb ? na : nb;
	double buf[2 * STACK_VALUES], *s = buf, trim, ma, mb;

	if (na < 5 && nb < 5)
		return 0;
	if (n > STACK_VALUES && !(s = malloc(2 * n * sizeof(*s))))
		return -1;
	ma = side_median(a, na, s);
	mb = side_median(b, nb, s);
	trim = stat_trim_with(a, na, ma, b, nb, mb, s + n);
	if (s != buf)
		free(s);
	return trim;
}

void stat_summarize(const double *x, size_t n, struct stat_summary *s)
{
	double buf[STACK_VALUES], *sorted = buf;
	double sum = 0, ss = 0;

	*s = (struct stat_summary){.n = n,
				   .mean = NAN,
				   .stddev = NAN,
				   .stddev_pct = NAN,
				   .min = NAN,
				   .max = NAN,
				   .median = NAN};
	if (n == 0)
		return;
	s->min = s->max = x[0];
	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		s->min = fmin(s->min, x[i]);
		s->max = fmax(s->max, x[i]);
	}
	s->mean = sum / n;
	/* Two passes: the sum of squares about the mean does not cancel catastrophically for
	 * counters in the 1e9s that differ in their last digits. */
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - s->mean) * (x[i] - s->mean);
	s->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0;
	s->stddev_pct = s->mean != 0 ? 100 * s->stddev / fabs(s->mean) : 0;

	if (n > STACK_VALUES && !(sorted = malloc(n * sizeof(*sorted))))
		return; /* median stays NAN: unknown rather than wrong */
	memcpy(sorted, x, n * sizeof(*sorted));
	stat_sort(sorted, n);
	s->median = median_sorted(sorted, n);
	if (sorted != buf)
		free(sorted);
}

/* Which way is better.  Decided in this order, first match wins:
 *
 * 1. By role.  A failure stat is counted in fail:runs, not judged by its value: neutral.  A
 *    monitor's stats describe what the system did (proc-vmstat.pgfault, meminfo.MemFree,
 *    interrupts.*, perf-profile.*): more page faults or less free memory is a change, not a
 *    verdict, and names like interrupts.LOC:Local_timer_interrupts would otherwise look like
 *    times; they are neutral, except in the monitors that measure what the workload cost
 *    (directed_monitors: perf-stat's cycles, misses and ipc), whose stats go on to the rules
 *    below like the testcase's own.  The time monitor's are not among them: in a
 *    fixed-window throughput test the copies run the whole window whatever the kernel does,
 *    so more user or system time is neither better nor worse (it was lower-better by its
 *    name and called an improvement or a regression in every A/B); a testcase whose work is
 *    fixed declares its own elapsed time as its headline (kernbench.elapsed_time).
 * 2. The rules below, each matched with fnmatch(3) on the whole name or on its last dotted
 *    component.  Notable decisions:
 *    - ipc is a throughput (instructions retired per cycle): higher is better; cpi, its
 *      inverse, lower.
 *    - "*miss*" is lower-better, except ratios whose numerator is the good thing
 *      (cycles-between-cache-misses, instructions-per-iTLB-miss): higher.
 *    - "*time*" is lower-better, except timers and timestamps.
 *    - *_ops (will-it-scale.per_process_ops), workload, scalability and anything with
 *      "throughput" or a per-second rate in its last component: higher.
 * 3. Everything else: neutral. */
struct direction_rule {
	bool whole; /* match the whole name, else only its last dotted component */
	const char *pattern;
	enum stat_direction dir;
};

static const char *const directed_monitors[] = {"perf-stat.*"};

static const struct direction_rule direction_rules[] = {
    /* exceptions to the general patterns below */
    {false, "cycles-between-cache-misses", DIR_HIGHER_BETTER},
    {false, "instructions-per-*-miss", DIR_HIGHER_BETTER},
    {false, "ipc", DIR_HIGHER_BETTER},
    {false, "*timer*", DIR_NEUTRAL},
    {false, "*timestamp*", DIR_NEUTRAL},
    /* lower is better */
    {false, "*time*", DIR_LOWER_BETTER},
    {false, "*latency*", DIR_LOWER_BETTER},
    {false, "us_per_event", DIR_LOWER_BETTER},
    {false, "cycles", DIR_LOWER_BETTER},
    {false, "cpu-cycles", DIR_LOWER_BETTER},
    {false, "cpi", DIR_LOWER_BETTER},
    {false, "*miss*", DIR_LOWER_BETTER},
    {false, "MPKI", DIR_LOWER_BETTER},
    {false, "path-length", DIR_LOWER_BETTER},
    {false, "instructions-per-op", DIR_LOWER_BETTER},
    /* higher is better */
    {false, "*_ops", DIR_HIGHER_BETTER},
    {false, "workload", DIR_HIGHER_BETTER},
    {false, "scalability", DIR_HIGHER_BETTER},
    {false, "*[Tt]hroughput*", DIR_HIGHER_BETTER},
    {false, "*_per_sec", DIR_HIGHER_BETTER},
    {false, "*_per_second", DIR_HIGHER_BETTER},
};

enum stat_direction stat_direction(const char *name, enum stat_role role)
{
	const char *last = strrchr(name, '.');
	size_t nmon = sizeof(directed_monitors) / sizeof(*directed_monitors);
	bool directed = role == ROLE_HEADLINE;

	for (size_t i = 0; role == ROLE_MONITOR && !directed && i < nmon; i++)
		directed = !fnmatch(directed_monitors[i], name, 0);
	if (!directed)
		return DIR_NEUTRAL;
	last = last ? last + 1 : name;
	for (size_t i = 0; i < sizeof(direction_rules) / sizeof(*direction_rules); i++) {
		const struct direction_rule *r = &direction_rules[i];

		if (!fnmatch(r->pattern, r->whole ? name : last, 0))
			return r->dir;
	}
	return DIR_NEUTRAL;
}

/* The robot's own list (lkp-tests lib/compare.rb, $stat_absolute_changes): /^perf-profile/
 * and /%$/. */
bool stat_is_absolute(const char *name)
{
	size_t len = strlen(name);

	return !strncmp(name, "perf-profile", strlen("perf-profile")) ||
	       (len > 0 && name[len - 1] == '%');
}

/* The robot divides by 1e-100 when the base mean is 0 and prints the resulting huge number;
 * we refuse instead.  A relative change also needs a positive base and a non-negative new
 * mean: from a negative base, "+50%" could mean either direction. */
bool stat_change(const char *name, double mean_a, double mean_b, double *out)
{
	*out = NAN;
	if (!isfinite(mean_a) || !isfinite(mean_b))
		return false;
	if (stat_is_absolute(name)) {
		*out = mean_b - mean_a;
		return true;
	}
	if (!(mean_a > 0) || mean_b < 0)
		return false;
	*out = 100 * (mean_b - mean_a) / mean_a;
	return true;
}

/* In one pass (Welford), no allocation.  Identical values give exactly 0 variance, which the
 * degenerate case below relies on. */
int log_moments(const double *x, size_t n, double *mean, double *var)
{
	double m = 0, m2 = 0;

	for (size_t i = 0; i < n; i++) {
		double l, d;

		if (!(x[i] > 0) || !isfinite(x[i]))
			return -1;
		l = log(x[i]);
		d = l - m;
		m += d / (double)(i + 1);
		m2 += d * (l - m);
	}
	*mean = m;
	*var = m2 / (double)(n - 1);
	return 0;
}

/* Degenerate case, both sides without any spread (every run gave the same value, e.g. a
 * deterministic counter): the standard error is 0 and t is 0/0 or x/0.  The data then say the
 * change exactly: equal means give p = 1 and the interval [0, 0]; different means give p = 0
 * and the interval shrinks to the observed change (t = +-inf).  df is reported as
 * na + nb - 2, its value for equal variances. */
int welch_log_test(const double *a, size_t na, const double *b, size_t nb, double alpha,
		   struct welch_result *r, const char **why)
{
	double ma, va, mb, vb, diff, sa, sb, se, q;

	if (na < 2 || nb < 2) {
		*why = "Welch's test needs at least 2 runs on each side";
		return -1;
	}
	if (!(alpha > 0 && alpha < 1)) {
		*why = "alpha must lie in (0, 1)";
		return -1;
	}
	if (log_moments(a, na, &ma, &va) || log_moments(b, nb, &mb, &vb)) {
		*why = "the log test needs every value finite and > 0";
		return -1;
	}
	diff = mb - ma;
	r->ratio = exp(diff);
	sa = va / (double)na;
	sb = vb / (double)nb;
	if (sa + sb == 0) {
		r->t = diff == 0 ? 0 : copysign(INFINITY, diff);
		r->df = (double)(na + nb - 2);
		r->p = diff == 0 ? 1 : 0;
		r->lo_pct = r->hi_pct = 100 * expm1(diff);
		return 0;
	}
	se = sqrt(sa + sb);
	r->t = diff / se;
	r->df = (sa + sb) * (sa + sb) / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
	r->p = 2 * pt(-fabs(r->t), r->df, 1, 0);
	q = qt(1 - alpha / 2, r->df, 1, 0);
	r->lo_pct = 100 * expm1(diff - q * se);
	r->hi_pct = 100 * expm1(diff + q * se);
	return 0;
}

/* One side's sums about its own means: n, the mean time and value, Sxx, Sxy, Syy. */
struct side_sums {
	double tbar, ybar, sxx, sxy, syy;
};

static void side_sums(const double *t, const double *y, size_t n, struct side_sums *s)
{
	s->tbar = stat_mean(t, n);
	s->ybar = stat_mean(y, n);
	s->sxx = s->sxy = s->syy = 0;
	for (size_t i = 0; i < n; i++) {
		double dt = t[i] - s->tbar, dy = y[i] - s->ybar;

		s->sxx += dt * dt;
		s->sxy += dt * dy;
		s->syy += dy * dy;
	}
}

/* p of t = x / se on df degrees of freedom, two-sided; se 0 says x exactly. */
static double t_p(double x, double se, double df)
{
	if (!(se > 0))
		return x == 0 ? 1 : 0;
	return 2 * pt(-fabs(x / se), df, 1, 0);
}

int trend_step_test(const double *t0, const double *y0, size_t n0, const double *t1,
		    const double *y1, size_t n1, struct trend_step *r, const char **why)
{
	struct side_sums a, b;
	double sxx, rss, s2, dt;

	if (n0 < 2 || n1 < 2) {
		*why = "a trend needs at least 2 runs on each side";
		return -1;
	}
	side_sums(t0, y0, n0, &a);
	side_sums(t1, y1, n1, &b);
	sxx = a.sxx + b.sxx;
	if (!(sxx > 0)) {
		*why = "the runs of each side started at one time: no trend to fit";
		return -1;
	}
	r->df = (double)(n0 + n1 - 3);
	r->slope = (a.sxy + b.sxy) / sxx;
	rss = fmax(0, a.syy + b.syy - r->slope * (a.sxy + b.sxy));
	s2 = rss / r->df;
	dt = b.tbar - a.tbar;
	r->step = b.ybar - a.ybar - r->slope * dt;
	r->slope_p = t_p(r->slope, sqrt(s2 / sxx), r->df);
	r->step_p =
	    t_p(r->step, sqrt(s2 * (1 / (double)n0 + 1 / (double)n1 + dt * dt / sxx)), r->df);
	return 0;
}

/* One side of Yuen's test: the trimmed mean, d (the squared standard error of the trimmed
 * mean) and h, the runs kept. */
struct trimmed_side {
	double tm, d;
	size_t h;
};

static int trimmed_side(const double *x, size_t n, double trim, bool on_log, double var_floor,
			struct trimmed_side *s, bool *floored, const char **why)
{
	double buf[STACK_VALUES], *v = buf, sum = 0, wsum, wm, ss = 0, lo, hi, sw2;
	size_t g = (size_t)floor(trim * (double)n);

	if (n < 2 * g + 2) {
		*why = "the trimmed test needs at least 2 runs left on each side after trimming";
		return -1;
	}
	if (n > STACK_VALUES && !(v = malloc(n * sizeof(*v)))) {
		*why = "out of memory";
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || (on_log && !(x[i] > 0))) {
			*why = on_log ? "the log test needs every value finite and > 0"
				      : "the trimmed test needs finite values";
			if (v != buf)
				free(v);
			return -1;
		}
		v[i] = on_log ? log(x[i]) : x[i];
	}
	stat_sort(v, n);
	s->h = n - 2 * g;
	for (size_t i = g; i < n - g; i++)
		sum += v[i];
	s->tm = sum / (double)s->h;
	lo = v[g];
	hi = v[n - g - 1];
	wsum = sum + (double)g * (lo + hi);
	wm = wsum / (double)n;
	for (size_t i = 0; i < n; i++) {
		double w = fmin(fmax(v[i], lo), hi);

		ss += (w - wm) * (w - wm);
	}
	sw2 = ss / (double)(n - 1);
	if (var_floor > 0) {
		/* Delta method: var(log x) ~ var(x) / m^2. */
		double f = on_log ? var_floor / exp(2 * s->tm) : var_floor;

		if (sw2 < f) {
			sw2 = f;
			*floored = true;
		}
	}
	s->d = (double)(n - 1) * sw2 / ((double)s->h * (double)(s->h - 1));
	if (v != buf)
		free(v);
	return 0;
}

int yuen_test(const double *a, size_t na, const double *b, size_t nb, double trim, bool on_log,
	      const double *var_floor, double alpha, struct yuen_result *r, const char **why)
{
	struct trimmed_side sa, sb;
	double se, q;

	if (!(alpha > 0 && alpha < 1)) {
		*why = "alpha must lie in (0, 1)";
		return -1;
	}
	if (!(trim >= 0 && trim < 0.5)) {
		*why = "the trimming must lie in [0, 0.5)";
		return -1;
	}
	r->floored = r->exact = false;
	if (trimmed_side(a, na, trim, on_log, var_floor ? var_floor[0] : 0, &sa, &r->floored,
			 why) ||
	    trimmed_side(b, nb, trim, on_log, var_floor ? var_floor[1] : 0, &sb, &r->floored, why))
		return -1;
	r->diff = sb.tm - sa.tm;
	r->ratio = on_log ? exp(r->diff) : sa.tm != 0 ? sb.tm / sa.tm : NAN;
	r->base = on_log ? exp(sa.tm) : sa.tm;
	r->var_a = sa.d;
	r->var_b = sb.d;
	r->df_a = (double)(sa.h - 1);
	r->df_b = (double)(sb.h - 1);
	r->se = 0;
	if (sa.d + sb.d == 0) {
		r->exact = true;
		r->t = r->diff == 0 ? 0 : copysign(INFINITY, r->diff);
		r->df = (double)(sa.h + sb.h - 2);
		r->p = r->diff == 0 ? 1 : 0;
		r->lo = r->hi = on_log ? 100 * expm1(r->diff) : r->diff;
		return 0;
	}
	se = r->se = sqrt(sa.d + sb.d);
	r->t = r->diff / se;
	r->df = (sa.d + sb.d) * (sa.d + sb.d) /
		(sa.d * sa.d / (double)(sa.h - 1) + sb.d * sb.d / (double)(sb.h - 1));
	r->p = 2 * pt(-fabs(r->t), r->df, 1, 0);
	q = qt(1 - alpha / 2, r->df, 1, 0);
	if (on_log) {
		r->lo = 100 * expm1(r->diff - q * se);
		r->hi = 100 * expm1(r->diff + q * se);
	} else {
		r->lo = r->diff - q * se;
		r->hi = r->diff + q * se;
	}
	return 0;
}

double batch_between_var(const double *x, const size_t *len, size_t k, bool on_log, double *df)
{
	double sum = 0, ss_between = 0, ss_within = 0, sum_n2 = 0, nn;
	size_t n = 0, kk = 0, at = 0;

	*df = 0;
	for (size_t j = 0; j < k; j++) {
		for (size_t i = at; i < at + len[j]; i++) {
			if (!isfinite(x[i]) || (on_log && !(x[i] > 0)))
				return NAN;
			sum += on_log ? log(x[i]) : x[i];
		}
		n += len[j];
		kk += len[j] > 0;
		sum_n2 += (double)len[j] * (double)len[j];
		at += len[j];
	}
	if (kk < 2 || n <= kk)
		return NAN;
	nn = (double)n;
	at = 0;
	for (size_t j = 0; j < k; j++) {
		double m = 0;

		for (size_t i = at; i < at + len[j]; i++)
			m += on_log ? log(x[i]) : x[i];
		if (len[j]) {
			m /= (double)len[j];
			ss_between += (double)len[j] * (m - sum / nn) * (m - sum / nn);
		}
		for (size_t i = at; i < at + len[j]; i++) {
			double v = (on_log ? log(x[i]) : x[i]) - m;

			ss_within += v * v;
		}
		at += len[j];
	}
	*df = (double)(kk - 1);
	return (ss_between / *df - ss_within / (nn - (double)kk)) /
	       ((nn - sum_n2 / nn) / *df);
}

void yuen_add_between(struct yuen_result *r, bool on_log, double var_between, double df_between,
		      double alpha)
{
	double v, den, q;

	if (!(var_between > 0))
		return;
	v = r->var_a + r->var_b + var_between;
	r->se = sqrt(v);
	r->exact = false;
	den = (r->df_a > 0 ? r->var_a * r->var_a / r->df_a : 0) +
	      (r->df_b > 0 ? r->var_b * r->var_b / r->df_b : 0) +
	      (isfinite(df_between) && df_between > 0 ? var_between * var_between / df_between
						       : 0);
	r->df = den > 0 ? v * v / den : INFINITY;
	r->t = r->diff / r->se;
	r->p = isfinite(r->df) ? 2 * pt(-fabs(r->t), r->df, 1, 0) : 2 * pnorm(-fabs(r->t), 0, 1, 1, 0);
	q = isfinite(r->df) ? qt(1 - alpha / 2, r->df, 1, 0) : qnorm(1 - alpha / 2, 0, 1, 1, 0);
	if (on_log) {
		r->lo = 100 * expm1(r->diff - q * r->se);
		r->hi = 100 * expm1(r->diff + q * r->se);
	} else {
		r->lo = r->diff - q * r->se;
		r->hi = r->diff + q * r->se;
	}
}

double count_var_floor(const double *x, size_t n, bool poisson)
{
	double sum = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || x[i] != floor(x[i]))
			return 0;
		sum += x[i];
	}
	return poisson ? fmax(1.0 / 12, fabs(sum) / (double)n) : 1.0 / 12;
}

struct pooled {
	double v;
	bool from_a;
};

static int cmp_pooled(const void *pa, const void *pb)
{
	return cmp_double(&((const struct pooled *)pa)->v, &((const struct pooled *)pb)->v);
}

/* R's wilcox.test uses the exact distribution below 50 runs per side: pwilcox's table grows
 * as (m n)^2, so beyond that the normal approximation is both needed and accurate. */
#define MW_EXACT_MAX 50

/* The p-value is exact (pwilcox) when there are no ties and both sides have fewer than 50
 * runs; otherwise it is the normal approximation with the tie-corrected variance and a
 * continuity correction, as R's wilcox.test(correct = TRUE) computes it.  When every value is
 * the same there is no evidence of a shift: p = 1.
 *
 * The interval is Bauer's distribution-free one: the order statistics of the na*nb
 * differences b_j - a_i at the qwilcox(alpha/2) quantile, so it matches R's exact interval.
 * With ties we keep it (R switches to a root-finding interval on the normal approximation,
 * which differs slightly).  With 50+ runs the order statistic comes from qnorm.  When the runs
 * are too few for any interval to reach the requested confidence (3 vs 3 at 95%), the
 * interval is (-inf, inf) rather than R's full range with a warning: a verdict must not rest
 * on it. */
int mann_whitney_test(const double *a, size_t na, const double *b, size_t nb, double alpha,
		      struct mw_result *r, const char **why)
{
	size_t n = na + nb, mn, qu = 0, i, j, k;
	double ranksum_a = 0, ties_sum = 0, half, *diffs;
	struct pooled *pool;
	bool exact_size;

	if (na == 0 || nb == 0) {
		*why = "the rank test needs at least 1 run on each side";
		return -1;
	}
	if (!(alpha > 0 && alpha < 1)) {
		*why = "alpha must lie in (0, 1)";
		return -1;
	}
	if (na > SIZE_MAX / nb / sizeof(double) / 2) {
		*why = "too many runs for the Hodges-Lehmann estimate";
		return -1;
	}
	for (i = 0; i < na; i++)
		if (!isfinite(a[i]))
			goto nonfinite;
	for (i = 0; i < nb; i++)
		if (!isfinite(b[i]))
			goto nonfinite;
	mn = na * nb;
	diffs = malloc(mn * sizeof(*diffs) + n * sizeof(*pool));
	if (!diffs) {
		*why = "out of memory";
		return -1;
	}
	pool = (struct pooled *)(diffs + mn);

	for (i = 0; i < na; i++)
		pool[i] = (struct pooled){a[i], true};
	for (i = 0; i < nb; i++)
		pool[na + i] = (struct pooled){b[i], false};
	qsort(pool, n, sizeof(*pool), cmp_pooled);
	r->ties = false;
	for (i = 0; i < n; i = j) {
		double t, midrank;

		for (j = i + 1; j < n && pool[j].v == pool[i].v; j++)
			;
		t = (double)(j - i);
		midrank = (double)(i + 1 + j) / 2;
		for (k = i; k < j; k++)
			if (pool[k].from_a)
				ranksum_a += midrank;
		if (j - i > 1) {
			r->ties = true;
			ties_sum += t * t * t - t;
		}
	}
	r->w = ranksum_a - (double)na * (double)(na + 1) / 2;
	half = (double)mn / 2;

	exact_size = na < MW_EXACT_MAX && nb < MW_EXACT_MAX;
	if (exact_size && !r->ties) {
		double p = r->w > half ? pwilcox(r->w - 1, (double)na, (double)nb, 0, 0)
				       : pwilcox(r->w, (double)na, (double)nb, 1, 0);

		r->p = fmin(1, 2 * p);
	} else {
		double sigma = sqrt((double)mn / 12 *
				    ((double)(n + 1) - ties_sum / ((double)n * (double)(n - 1))));
		double z = r->w - half;

		if (sigma > 0) {
			z = (z - copysign(z != 0 ? 0.5 : 0, z)) / sigma;
			r->p = fmin(1, 2 * fmin(pnorm(z, 0, 1, 1, 0), pnorm(z, 0, 1, 0, 0)));
		} else {
			r->p = 1;
		}
	}

	k = 0;
	for (j = 0; j < nb; j++)
		for (i = 0; i < na; i++)
			diffs[k++] = b[j] - a[i];
	qsort(diffs, mn, sizeof(*diffs), cmp_double);
	r->hl = median_sorted(diffs, mn);

	if (exact_size) {
		qu = (size_t)qwilcox(alpha / 2, (double)nb, (double)na, 1, 0);
	} else {
		double x =
		    half -
		    qnorm(1 - alpha / 2, 0, 1, 1, 0) * sqrt((double)mn * (double)(n + 1) / 12) +
		    0.5;

		/* the largest qu with P(W <= qu - 1) < alpha / 2 under the approximation */
		qu = x > 1 ? (size_t)ceil(x) - 1 : 0;
	}
	if (qu >= 1 && qu <= mn - qu) {
		r->lo = diffs[qu - 1];
		r->hi = diffs[mn - qu];
	} else {
		r->lo = -INFINITY;
		r->hi = INFINITY;
	}
	free(diffs);
	return 0;

nonfinite:
	*why = "the rank test needs finite values";
	return -1;
}

struct indexed_p {
	double p;
	size_t i;
};

static int cmp_indexed_p(const void *pa, const void *pb)
{
	return cmp_double(&((const struct indexed_p *)pa)->p, &((const struct indexed_p *)pb)->p);
}

/* q_(k) = min over j >= k of p_(j) m / j (the step-up procedure read as q-values, as R's
 * p.adjust(method = "BH") computes them; the running minimum from the top also keeps q <= 1).
 * m counts only the p-values that are not NAN, i.e. p.adjust(p[!is.na(p)]).  Without memory
 * for the sort every q is NAN: no verdict rather than a wrong one. */
void bh_qvalues(const double *p, size_t n, double *q)
{
	struct indexed_p *s;
	size_t m = 0;
	double run = 1;

	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			m++;
	s = malloc((m ? m : 1) * sizeof(*s));
	for (size_t i = 0, k = 0; i < n; i++) {
		q[i] = NAN;
		if (s && !isnan(p[i]))
			s[k++] = (struct indexed_p){p[i], i};
	}
	if (!s)
		return;
	qsort(s, m, sizeof(*s), cmp_indexed_p);
	for (size_t k = m; k-- > 0;) {
		run = fmin(run, s[k].p * (double)m / (double)(k + 1));
		q[s[k].i] = run;
	}
	free(s);
}

/* An interval that is not a number (an undefined relative change) gets no verdict at all. */
enum verdict stat_verdict(double lo, double hi, double q, double q_max, double threshold,
			  enum stat_direction dir)
{
	bool significant = q <= q_max;
	int moved = 0;

	if (isnan(lo) || isnan(hi))
		return V_NONE;
	if (significant && lo > threshold)
		moved = 1;
	else if (significant && hi < -threshold)
		moved = -1;
	if (moved) {
		if (dir == DIR_NEUTRAL)
			return moved > 0 ? V_CHANGED_UP : V_CHANGED_DOWN;
		return moved == (int)dir ? V_IMPROVEMENT : V_REGRESSION;
	}
	if (lo >= -threshold && hi <= threshold)
		return V_NO_CHANGE;
	return V_INCONCLUSIVE;
}

const char *verdict_name(enum verdict v)
{
	static const char *const names[] = {
	    [V_NONE] = "none",
	    [V_REGRESSION] = "regression",
	    [V_IMPROVEMENT] = "improvement",
	    [V_CHANGED_UP] = "changed-up",
	    [V_CHANGED_DOWN] = "changed-down",
	    [V_NO_CHANGE] = "no-change",
	    [V_INCONCLUSIVE] = "inconclusive",
	    [V_DRIFT] = "drift",
	    [V_PER_OP_SAME] = "per-op-unchanged",
	};

	if ((unsigned)v >= sizeof(names) / sizeof(*names))
		return "unknown";
	return names[v];
}

/* Two-sided 5% test with 80% power for a shift of delta (normal approximation, per side). */
unsigned runs_needed(double cv, double delta)
{
	double z = qnorm(0.975, 0, 1, 1, 0) + qnorm(0.8, 0, 1, 1, 0);
	double n;

	if (!(delta > 0) || isnan(cv))
		return 1000;
	n = ceil(2 * z * z * (cv / delta) * (cv / delta));
	if (n < 2)
		return 2;
	return n > 1000 ? 1000 : (unsigned)n;
}

/* The kernel test robot's rule, as lkp-tests implements it (read in intel/lkp-tests,
 * lib/stats.rb: sort_remove_margin, min_mean_max, StatCompare#calculate_matrix_values,
 * #skip_regular_stat?, #skip_small_change?, calc_diff_metrics; lib/changed_stat.rb:
 * ChangedStat#change? without the 'distance' option, which `compare` does not set):
 *
 * - Trimming: after sorting, n >> 5 values are dropped from each end, at most 3 (so none
 *   below 32 runs, 1 from 32, 3 from 96).  The new side is trimmed by at most 1 when the base
 *   has 3 runs or fewer.
 * - Its "mean" is the element at n / 2 of the trimmed, sorted runs: the median for odd n, the
 *   upper median for even n.  We use that element too, so ratios match the robot's.
 * - Changed when min_b > median_a && median_b > max_a, or the mirror.
 * - Then kept only when high/low (the larger median over the smaller; 5 when the smaller is
 *   not positive; capped at 5) exceeds 1.01, and 1.05 for stats that are not performance
 *   metrics.
 * - The robot skips a stat only when BOTH sides have fewer than 3 runs (a base of many runs
 *   against 1-2 new runs is compared); we refuse the same cases.
 *
 * Not reproduced: the per-family absolute-size filters (reasonable_perf_change?), the special
 * rules for failure, latency and perf-profile stats, and the zero-padding of missing runs. */
#define LKP_MARGIN_SHIFT 5
#define LKP_MAX_MARGIN	 3
#define LKP_MAX_RATIO	 5.0

struct lkp_side {
	const double *s; /* trimmed, sorted */
	size_t n;
	double min, median, max;
};

static void lkp_side_init(struct lkp_side *side, double *sorted, size_t n, size_t max_margin)
{
	size_t margin = n >> LKP_MARGIN_SHIFT;

	if (margin > max_margin)
		margin = max_margin;
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	side->s = sorted + margin;
	side->n = n - 2 * margin;
	side->min = side->s[0];
	side->median = side->s[side->n / 2];
	side->max = side->s[side->n - 1];
}

int lkp_rule(const double *a, size_t na, const double *b, size_t nb, bool performance_stat,
	     struct lkp_rule_result *r, const char **why)
{
	double buf[STACK_VALUES], *sorted = buf, high, low, ratio;
	struct lkp_side sa, sb;
	bool apart;

	if (na == 0 || nb == 0) {
		*why = "the robot's rule needs runs on both sides";
		return -1;
	}
	if (na < 3 && nb < 3) {
		*why = "the robot's rule needs at least 3 runs on one side";
		return -1;
	}
	for (size_t i = 0; i < na; i++)
		if (!isfinite(a[i]))
			goto nonfinite;
	for (size_t i = 0; i < nb; i++)
		if (!isfinite(b[i]))
			goto nonfinite;
	if (na + nb > STACK_VALUES && !(sorted = malloc((na + nb) * sizeof(*sorted)))) {
		*why = "out of memory";
		return -1;
	}
	memcpy(sorted, a, na * sizeof(*a));
	memcpy(sorted + na, b, nb * sizeof(*b));
	lkp_side_init(&sa, sorted, na, LKP_MAX_MARGIN);
	lkp_side_init(&sb, sorted + na, nb, na <= 3 ? 1 : LKP_MAX_MARGIN);

	apart = (sb.min > sa.median && sb.median > sa.max) ||
		(sa.min > sb.median && sa.median > sb.max);
	high = fmax(sa.median, sb.median);
	low = fmin(sa.median, sb.median);
	ratio = low > 0 ? fmin(high / low, LKP_MAX_RATIO) : LKP_MAX_RATIO;

	r->changed = apart && ratio > 1.01 && (performance_stat || ratio > 1.05);
	r->ratio = sa.median > 0 ? sb.median / sa.median : NAN;
	r->na_used = sa.n;
	r->nb_used = sb.n;
	if (sorted != buf)
		free(sorted);
	return 0;

nonfinite:
	*why = "the robot's rule needs finite values";
	return -1;
}
