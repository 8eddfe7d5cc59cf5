/* Statistics for comparing groups of runs: one run is one sample.  Plain functions on
 * (const double *x, size_t n); nothing here knows about files.  Distributions come from
 * R's standalone math library (Rmath: pt, qt, pwilcox, qwilcox, qnorm). */
#ifndef SCALEBENCH_STATS_H
#define SCALEBENCH_STATS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

/* Descriptive statistics of one group.  stddev is the sample standard deviation (n - 1);
 * stddev_pct = 100 * stddev / |mean| (0 when mean is 0); with n == 1, stddev = 0. */
struct stat_summary {
	size_t n;
	double mean, stddev, stddev_pct, min, max, median;
};
void stat_summarize(const double *x, size_t n, struct stat_summary *s);

/* Sort ascending in place: insertion sort for a group's handful of runs, qsort beyond. */
void stat_sort(double *x, size_t n);

/* An outlier by the median absolute deviation: a value more than 3.5 MADs (scaled to a
 * standard deviation) from the median med; never with fewer than 4 values.  scratch has room
 * for n values. */
bool stat_has_outlier(const double *x, size_t n, double med, double *scratch);

/* Yuen's trimming when one side has an outlier and either has 5 runs or more (20% trimming
 * removes a run only from 5 runs on): what compare and bisect both test with. */
#define STAT_TRIM 0.2
/* The trimming two sides are to be tested with: STAT_TRIM or 0.  -1 out of memory. */
double stat_trim_for(const double *a, size_t na, const double *b, size_t nb);
/* The same rule for a caller that holds each side's median already (compare); scratch has
 * room for the larger side. */
double stat_trim_with(const double *a, size_t na, double med_a, const double *b, size_t nb,
		      double med_b, double *scratch);

/* What a stat is to the run that reported it, by its family (the name up to the first '.'):
 * the testcase's own measurement, a monitor's observation of the system, or a failure (a
 * kernel warning, an error message).  Runs declare it in meta.json (results.h). */
enum stat_role { ROLE_HEADLINE, ROLE_MONITOR, ROLE_FAILURE };

/* Which way is better, from the stat's name and its family's role (see stat_direction()).
 * The headline stat's own direction is declared by its run and does not come from here. */
enum stat_direction { DIR_NEUTRAL = 0, DIR_HIGHER_BETTER = 1, DIR_LOWER_BETTER = -1 };
enum stat_direction stat_direction(const char *name, enum stat_role role);

/* Stats whose change is an absolute delta, not a %: names ending in '%' and perf-profile.* */
bool stat_is_absolute(const char *name);

/* %change = 100 (mean_b - mean_a) / mean_a, or mean_b - mean_a for absolute stats.
 * Returns false (and *out = NAN) when a relative change is undefined (mean_a <= 0... see
 * stats.c: zero or negative means). */
bool stat_change(const char *name, double mean_a, double mean_b, double *out);

/* The arithmetic mean of x: NAN when n is 0.  Inline: the compiler sees what it reads (gcc
 * takes an out-of-line reader of a buffer filled in a loop for a read before the fill). */
static inline double stat_mean(const double *x, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return n ? sum / (double)n : NAN;
}

/* Mean and sample variance of log(x) (n >= 2): 0, or -1 when a value is not positive and
 * finite. */
int log_moments(const double *x, size_t n, double *mean, double *var);

/* Welch's t-test on log values: the ratio of geometric means b/a, a two-sided p-value,
 * Welch-Satterthwaite degrees of freedom, and the (1 - alpha) confidence interval of the
 * ratio expressed as a %change interval [lo_pct, hi_pct].  Needs n >= 2 on each side and
 * all values > 0; returns -1 otherwise (reason in *why, a static string). */
struct welch_result {
	double ratio; /* exp(mean(log b) - mean(log a)) */
	double t, df, p;
	double lo_pct, hi_pct; /* 100 (exp(diff -/+ q se) - 1) */
};
int welch_log_test(const double *a, size_t na, const double *b, size_t nb, double alpha,
		   struct welch_result *r, const char **why);

/* Yuen's trimmed-mean t test (Welch's when trim = 0), two-sided: from each side trim
 * g = floor(trim n) values at each end, compare the trimmed means, and take the standard error
 * from the winsorized variances, d = (n - 1) s_w^2 / (h (h - 1)) with h = n - 2g, and Welch's
 * degrees of freedom on h - 1; p and the (1 - alpha) interval from the t distribution.  One
 * wild run in 5 or more cannot move it, yet at 6 vs 6 p reaches 1e-6 and below, which
 * false-discovery control over hundreds of stats needs (a rank test's floor is 0.0022).
 * on_log: on log values (every value > 0): diff is a log ratio and the interval a %change
 * interval 100 (exp(diff -/+ q se) - 1), never below -100%.  Otherwise diff and the interval
 * are in the stat's units.  var_floor[0..1], when not NULL, are the least per-run variances
 * of a and b in the stat's units (counting noise); on logs they are taken through the delta
 * method, v / m^2 with m the side's trimmed mean.  With no spread at all on either side the
 * test is exact: p = 1 for equal trimmed means, 0 otherwise, the interval the observed
 * change.  Needs h >= 2 on each side; returns -1 otherwise (reason in *why). */
struct yuen_result {
	double diff;  /* trimmed mean b - trimmed mean a (of logs when on_log) */
	double ratio; /* exp(diff) on logs; trimmed mean b / trimmed mean a otherwise */
	double t, df, p;
	double lo, hi; /* interval of the change: % on logs, the stat's units otherwise */
	double base;   /* a's trimmed mean (its exp on logs): the base of a %change */
	double se;     /* the standard error of diff (0 when exact) */
	/* each side's squared standard error and its degrees of freedom (h - 1): what a
	 * variance component added later (yuen_add_between) recomputes Welch's df from */
	double var_a, var_b, df_a, df_b;
	bool floored;  /* a variance floor was used on a side */
	bool exact;    /* no spread on either side: p is 0 or 1 */
};
int yuen_test(const double *a, size_t na, const double *b, size_t nb, double trim, bool on_log,
	      const double *var_floor, double alpha, struct yuen_result *r, const char **why);

/* Between-batch noise.  Runs measured in one contiguous window (one `run -r N`) share the
 * machine's state of that window, and a shared machine's state moves between windows: two
 * batches of the same build differ by more than their runs' spread says.  When the two sides
 * of a test are each one batch, the difference of their means carries two batch offsets, and
 * the test must add 2 sigma_b^2 to its variance (one-way random-effects model).
 *
 * batch_between_var: sigma_b^2 estimated from one build's k >= 2 batches (x holds the runs
 * batch by batch, len[j] runs in batch j), by the one-way ANOVA moment estimator
 * (MS_between - MS_within) / n0, n0 = (N - sum n_j^2 / N) / (k - 1), on logs when on_log
 * (every value > 0).  It may be negative (no batch effect, noise): pool such estimates by
 * their degrees of freedom (*df = k - 1) and floor the pool at 0, not each one.  NAN when
 * fewer than 2 batches have runs, or a value is not finite (not > 0 on logs). */
double batch_between_var(const double *x, const size_t *len, size_t k, bool on_log, double *df);

/* Adds a variance component var_between (in diff's units, squared), known with df_between
 * degrees of freedom (INFINITY: taken as known), to a test's standard error: t, Welch's
 * degrees of freedom (Satterthwaite over the three components), p and the interval are
 * recomputed; an exact test is exact no more.  var_between <= 0 leaves r as it is. */
void yuen_add_between(struct yuen_result *r, bool on_log, double var_between, double df_between,
		      double alpha);

/* The least variance of one run of a count: at least its counting noise (Poisson, var >= the
 * mean) when poisson, and at least that of rounding to an integer (1/12) when every value is
 * an integer; 0 for values that are not all integers. */
double count_var_floor(const double *x, size_t n, bool poisson);

/* Exact Mann-Whitney (Wilcoxon rank-sum) test, two-sided, with the Hodges-Lehmann shift
 * estimate of b - a and its (1 - alpha) confidence interval (from qwilcox).  compare no
 * longer uses it: its smallest p at 6 vs 6, 0.0022, cannot pass false-discovery control over
 * hundreds of stats (see yuen_test).  Ties are
 * broken by mid-ranks and the p-value then is approximate (say so via *ties); so is it with
 * 50 or more runs on a side, as in R.  When the runs are too few for any interval to reach
 * 1 - alpha (3 vs 3 at 95%), lo = -inf and hi = +inf.  Not thread-safe (Rmath's cache). */
struct mw_result {
	double w;      /* rank-sum statistic of a, as R's wilcox.test W */
	double p;      /* two-sided */
	double hl;     /* Hodges-Lehmann shift (median of all b_j - a_i) */
	double lo, hi; /* confidence interval of the shift, in the stat's units */
	bool ties;
};
int mann_whitney_test(const double *a, size_t na, const double *b, size_t nb, double alpha,
		      struct mw_result *r, const char **why);

/* Run-order drift against a step between two sides whose runs were not interleaved in time
 * (ANCOVA with run time as the covariate): y = mu_side + slope (t - tbar_side) + e, one slope
 * fitted within the sides and shared, least squares, a common variance on n0 + n1 - 3 degrees
 * of freedom.  slope_p tests the slope against 0; step is the side difference once the slope
 * is carried from side 0's mean time to side 1's, step_p tests it against 0, two-sided.  A
 * step the trend explains has a significant slope and a step_p that is not; a real step with
 * no trend inside the sides keeps its step.  With no residual spread at all, p is 0 for a
 * nonzero slope (step) and 1 for a zero one.  Needs 2 runs on each side, 4 in all, and
 * times that differ within a side; -1 otherwise (reason in *why, a static string). */
struct trend_step {
	double slope, slope_p;
	double step, step_p;
	double df;
};
int trend_step_test(const double *t0, const double *y0, size_t n0, const double *t1,
		    const double *y1, size_t n1, struct trend_step *r, const char **why);

/* Benjamini-Hochberg q-values for n p-values (NAN p-values are skipped and get NAN q). */
void bh_qvalues(const double *p, size_t n, double *q);

/* The verdict on one stat.  Given the %change interval [lo, hi] (absolute units for absolute
 * stats), q, a noise threshold (default 1, in % or absolute units) and the direction:
 *   regression / improvement: q <= q_max and the whole interval lies beyond +-threshold
 *     (direction decides which is which; a neutral stat gets CHANGE_UP / CHANGE_DOWN)
 *   no-change: the whole interval lies inside [-threshold, threshold]
 *   inconclusive: otherwise. */
enum verdict {
	V_NONE = 0,
	V_REGRESSION,
	V_IMPROVEMENT,
	V_CHANGED_UP,
	V_CHANGED_DOWN,
	V_NO_CHANGE,
	V_INCONCLUSIVE,
	/* compare's: the means differ, but as the runs' own trend with their start time does
	 * (a since-boot counter, page-cache growth) and the runs were not interleaved
	 * (trend_step_test) */
	V_DRIFT,
	/* compare's: a monitor moved with the headline, its value per op did not (a rate that
	 * is the throughput times a constant per op) */
	V_PER_OP_SAME
};
enum verdict stat_verdict(double lo, double hi, double q, double q_max, double threshold,
			  enum stat_direction dir);
const char *verdict_name(enum verdict v);

/* Runs per side that would decide an inconclusive stat: n = 2 (z_0.975 + z_0.8)^2 (cv/delta)^2,
 * cv and delta as fractions (cv = pooled stddev / mean, delta = the threshold or the observed
 * change, whichever is larger).  At least 2; capped at 1000. */
unsigned runs_needed(double cv, double delta);

/* The kernel test robot's own change rule (lkp-tests' compare): trim n >> 5 runs from each
 * end, at most 3 (none below 32 runs), then "changed" when the sides don't overlap
 * (min_b > median_a && median_b > max_a, or the mirror) and the ratio of medians exceeds
 * 1.01 (1.05 for non-performance stats).  The robot's median is the element at n / 2 (the
 * upper median for even n).  Refused (-1) only when both sides have fewer than 3 runs, as
 * the robot does; see stats.c. */
struct lkp_rule_result {
	bool changed;
	double ratio; /* median_b / median_a, NAN when median_a <= 0 */
	size_t na_used, nb_used;
};
int lkp_rule(const double *a, size_t na, const double *b, size_t nb, bool performance_stat,
	     struct lkp_rule_result *r, const char **why);

#endif
