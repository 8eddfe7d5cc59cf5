/* nightly's confirmation policy on one series, on plain arrays: which changes are mailed
 * tonight, and the range of commits each may be at.  nightly.c runs it on the index's series,
 * bench/nightly_sim.c on synthetic ones, so the published false-alarm and detection rates are
 * the code's.
 *
 * Why this policy (bench/nightly_sim.sh has the figures):
 *   - A change point is mailed once confirm_commits commits follow the last commit of its
 *     range: with fewer the e-divisive split, held back by its minimum segment near the
 *     series' end, names a commit or two too early, and one noisy night can make a change
 *     point of its own.
 *   - The one-night comparison (the latest commit against the one before) mails a step on its
 *     first night only when it clears night_z times the series' own night-to-night noise:
 *     the spread of consecutive commits' means over its history, which holds what varies
 *     between nights on a machine (page cache, frequency, the host's other guests) as well
 *     as the runs' own noise.  The runs of two nights alone say nothing of the first, and
 *     were what mailed +43.9% one night and -37.7% the next.  A series with under
 *     history_min commits has no measured noise: it waits for the change point.
 *   - Each change carries a range: the commits where the step may be, by the likelihood of a
 *     split at each (the two-mean fit's residual within range_chi2 of the best, in units of
 *     the best fit's residual variance).  A later change of the same stat and kind whose
 *     range meets a mailed one is the same change. */
#ifndef SCALEBENCH_NIGHTLY_POLICY_H
#define SCALEBENCH_NIGHTLY_POLICY_H

#include "changepoint.h"
#include "stats.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define NIGHTLY_CONFIRM_COMMITS 3
#define NIGHTLY_NIGHT_Z		4.0
#define NIGHTLY_HISTORY_MIN	8
#define NIGHTLY_RANGE_CHI2	5.0
#define NIGHTLY_RANGE_MAX	16 /* commits in a range at most (around the estimate) */

struct nightly_policy {
	size_t confirm_commits; /* commits after a change point before it is mailed */
	double night_z;		/* the one-night check's margin, in night-noise sigmas */
	size_t history_min;	/* commits before the latest the noise is measured on */
	double range_chi2;	/* a split within this of the best is in the range */
	double threshold_pct;	/* no change under this is mailed (the analyzer's 1%) */
};
void nightly_policy_default(struct nightly_policy *p);

struct nightly_found {
	size_t index;	      /* the first commit after the change (the likeliest culprit) */
	size_t lo, hi;	      /* it may be at any commit lo..hi (lo <= index <= hi) */
	double change_pct;    /* change points: segment against segment; one night: latest
			       * against the commit before it */
	enum verdict verdict; /* by dir; changed up/down for a neutral stat */
	double p;	      /* the permutation p-value (change points), NAN (one night) */
	bool from_cp;
};

/* The night-to-night noise of c[0..n): the robust (MAD) standard deviation of consecutive
 * commits' log-mean differences, divided by sqrt 2: one commit's mean's sd, what varies
 * between nights included.  NAN with fewer than 3 usable commits. */
double nightly_night_noise(const struct cp_commit *c, size_t n);

/* The range of a change at index between the commits [a, b) (a < index < b): the first and
 * last split within p->range_chi2 of the best two-mean fit, NIGHTLY_RANGE_MAX at most. */
void nightly_change_range(const struct cp_commit *c, size_t a, size_t b, size_t index,
			  const struct nightly_policy *p, size_t *lo, size_t *hi);

/* Tonight's changes of one series of n commits in order (the latest last): its change points
 * confirmed by p (confirm_commits commits after the range's last), each with its range, and the
 * latest commit against the one before when it clears the night noise margin (index n - 1, range
 * the latest alone).  Regressions and improvements; with all_kinds a neutral stat's moves too.  How
 * many (*out: free()), or -1 with err. */
ssize_t nightly_series_changes(const struct cp_commit *c, size_t n, enum stat_direction dir,
			       const struct nightly_policy *p, bool all_kinds,
			       struct nightly_found **out, char *err, size_t errlen);

#endif
