/* Bisection decisions, apart from git and the runner: whether the endpoints differ, a
 * sequential probability ratio test that classifies a commit's runs as good or bad, and the
 * policy around them (how many runs, when to stop) as pure functions of the values so far:
 * what `scalebench bisect` decides and what bench/bisect_sim.c simulates are the same code. */
#ifndef SCALEBENCH_BISECT_H
#define SCALEBENCH_BISECT_H

#include "stats.h"

#include <stdbool.h>
#include <stddef.h>

/* The endpoints (or a culprit and its parent) compared as the analyzer does: Welch on log
 * values, or Yuen's 20%-trimmed test on them when a side has an outlier (stat_trim_for: one
 * run whose copy was starved for its window cannot hide a 100-fold change), q = p for a
 * single stat, a verdict against the noise threshold (in %); w holds the test's figures. */
struct endpoint_check {
	struct welch_result w;
	bool trimmed;	   /* Yuen's trimmed test (an outlier), not Welch's */
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

/* The budget and thresholds of one bisection. */
struct bisect_policy {
	unsigned max_runs;    /* a commit's runs at most (>= BISECT_FIRST_RUNS) */
	unsigned batch;	      /* runs asked for at a time after the first (per boot) */
	double confidence;    /* the tests' alpha = beta = 1 - confidence */
	double threshold_pct; /* the analyzer's noise threshold */
	enum stat_direction dir;
};
#define BISECT_FIRST_RUNS  3  /* a commit's first runs; the SPRT decides on no fewer */
#define BISECT_MODEL_RUNS  6  /* each endpoint's runs at least before they model the SPRT */
#define BISECT_VERIFY_RUNS 3  /* the culprit's and its parent's runs for the verification */
#define BISECT_MAX_RUNS	   10 /* --max-runs' default */

enum bisect_next {
	BISECT_MORE,	       /* more runs first: how many in the call's *want */
	BISECT_CONFIRMED,      /* endpoints, verification: the change is there */
	BISECT_NOT_REPRODUCED, /* endpoints, verification: not within the budget */
	BISECT_GOOD,	       /* a midpoint */
	BISECT_BAD,
	BISECT_ERROR, /* the values cannot be compared (*why) */
};

/* The endpoints with ng and nb runs, each side having been asked for *want: MORE with *want
 * raised by a batch (to max_runs at most), CONFIRMED, or NOT_REPRODUCED (no change, or the
 * budget spent); the comparison in ec. */
enum bisect_next bisect_endpoints_next(const struct bisect_policy *p, const double *good, size_t ng,
				       const double *bad, size_t nb, unsigned *want,
				       struct endpoint_check *ec, const char **why);

/* Runs each confirmed endpoint needs before modelling the SPRT, having had `had`: confirmed
 * on 3 runs, their spread is a guess (bench/bisect_sim.c: at a 5% shift, 6 runs each cut the
 * wrong midpoint calls about threefold). */
unsigned bisect_model_runs(const struct bisect_policy *p, unsigned had);

/* A midpoint's call on its n runs. */
struct midpoint_call {
	size_t used;   /* runs the decision rests on: the test is sequential, it stops at the
			* first run that crosses a threshold, whatever a batch brought after it */
	double llr;    /* after the last run used */
	bool fallback; /* out of budget: the closer endpoint decided */
	unsigned want; /* MORE: the runs it needs in all */
};
/* GOOD, BAD, or MORE (r->want). */
enum bisect_next bisect_classify_next(const struct bisect_policy *p, const struct sprt_model *m,
				      const double *x, size_t n, struct midpoint_call *r);

/* The culprit against its parent (each having been asked for *want runs, BISECT_VERIFY_RUNS
 * first), as the endpoints are compared and with the same budget: MORE (*want raised by a
 * batch), CONFIRMED, NOT_REPRODUCED (no change, or max_runs spent) or ERROR; the comparison
 * in ec.  A wide interval on 3 runs (one of them starved on a busy machine) is not a
 * verdict: runs are added until there is one. */
enum bisect_next bisect_verify(const struct bisect_policy *p, const double *parent, size_t np,
			       const double *culprit, size_t nc, unsigned *want,
			       struct endpoint_check *ec, const char **why);

#endif
