/* MMTests' side-by-side table: N kernels (groups) across task counts, the first one the
 * baseline, every other cell with its change in % signed so that positive is better, and
 * significant cells marked with '*' in place of the parentheses. */
#ifndef SCALEBENCH_MMTESTS_H
#define SCALEBENCH_MMTESTS_H

#include "stats.h"

#include <stdio.h>

struct mm_cell {
	bool have;
	double hmean, amean, stddev, coeffvar, min, max;
	bool significant; /* the change against the baseline is a regression or improvement */
};

/* Harmonic and arithmetic means, stddev, coefficient of variation (%), min and max of x. */
void mm_cell_fill(struct mm_cell *c, const double *x, size_t n);

/* cells[t * ngroups + g]: task count t, group g.  The first row is the mean as MMTests
 * shows it: harmonic (Hmean) for a rate, where higher is better; arithmetic (Amean) for a
 * time or a cost, where lower is better, and for a neutral stat. */
void print_mmtests(FILE *out, const char *title, const char *const *labels, size_t ngroups,
		   const unsigned *tasks, size_t ntasks, const struct mm_cell *cells,
		   enum stat_direction dir);

#endif
