/* Bisection decisions, apart from git and the runner: whether the endpoints differ, and a
 * sequential probability ratio test that classifies a commit's runs as good or bad. */
#ifndef SCALEBENCH_BISECT_H
#define SCALEBENCH_BISECT_H

#include "stats.h"

#include <stdbool.h>
#include <stddef.h>

/* The endpoints (or a culprit and its parent) compared as the analyzer does: Welch on log
 * values, q = p for a single stat, a verdict against the noise threshold (in %). */
struct endpoint_check {
	struct welch_result w;
	double change_pct; /* 100 (ratio - 1) */
	enum verdict verdict;
	bool confirmed; /* regression, improvement or a change of a neutral stat */
};
int endpoints_check(const double *good, size_t ng, const double *bad, size_t nb,
		    enum stat_direction dir, double threshold_pct, double q_max, double alpha,
		    struct endpoint_check *r, const char **why);

/* The two hypotheses: log values normal with the good or the bad endpoint's mean and their
 * pooled standard deviation; alpha = beta = 1 - confidence. */
struct sprt_model {
	double mu_good, mu_bad, sd;
	double upper; /* ln((1 - beta) / alpha): accept bad */
	double lower; /* ln(beta / (1 - alpha)): accept good */
};
enum sprt_decision { SPRT_CONTINUE, SPRT_GOOD, SPRT_BAD };

/* Needs n >= 2 on each side and positive values; -1 otherwise (reason in *why). */
int sprt_init(struct sprt_model *m, const double *good, size_t ng, const double *bad, size_t nb,
	      double confidence, const char **why);
/* Log-likelihood ratio of bad over good for runs x (non-positive values are ignored). */
double sprt_llr(const struct sprt_model *m, const double *x, size_t n);
/* The decision after n runs; none before min_runs. */
enum sprt_decision sprt_decide(const struct sprt_model *m, const double *x, size_t n,
			       size_t min_runs, double *llr);
/* Out of budget: whichever endpoint the runs' mean log value is closer to. */
enum sprt_decision sprt_closer(const struct sprt_model *m, const double *x, size_t n);

#endif
