/* Change points in a series of commits, each with several runs: e-divisive means (Matteson &
 * James 2014, as MongoDB's CI and Apache Otava use it) on log values, significance by a
 * permutation test with a fixed-seed RNG, a minimum segment length; each candidate is kept
 * only when the two-sample test between the segments around it (stats.h: yuen_test on logs)
 * agrees and its change clears the noise threshold.  Plain functions on arrays. */
#ifndef SCALEBENCH_CHANGEPOINT_H
#define SCALEBENCH_CHANGEPOINT_H

#include "stats.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cp_opts {
	size_t min_segment;	/* commits on each side of a change point (default 3) */
	unsigned permutations;	/* per candidate (default 199) */
	double p_max;		/* permutation p-value to accept a candidate (0.05) */
	double alpha;		/* 1 - confidence of the %change interval (0.05) */
	double threshold_pct;	/* noise threshold: |change| and the interval beyond it (1) */
	uint64_t seed;		/* the RNG's seed: the same input gives the same answer */
};
void cp_opts_default(struct cp_opts *o);

/* One commit: its runs' values (> 0 for log values; others are left out). */
struct cp_commit {
	const double *runs;
	size_t n;
};

struct change_point {
	size_t index;	       /* the first commit after the change */
	double before, after;  /* the segments' means (of runs, in the stat's units) */
	double change_pct;     /* 100 (after / before - 1), on the (20%-trimmed) geometric means */
	double lo_pct, hi_pct; /* its (1 - alpha) interval */
	double p;	       /* the permutation test's p-value */
	double test_p;	       /* the two-sample test's */
	enum verdict verdict;  /* regression / improvement by dir (changed up/down when neutral) */
};

/* The change points of n commits in order, sorted by index.  Returns how many (*out: free()),
 * or -1 with err (out of memory, a bad option). */
ssize_t changepoints_find(const struct cp_commit *c, size_t n, enum stat_direction dir,
			  const struct cp_opts *o, struct change_point **out, char *err,
			  size_t errlen);

#endif
