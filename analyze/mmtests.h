/* MMTests' side-by-side table: N kernels (groups) across task counts, the first one the
 * baseline, every other cell with its change in % signed so that positive is better, and
 * significant cells marked with '*' in place of the parentheses. */
#ifndef SCALEBENCH_MMTESTS_H
#define SCALEBENCH_MMTESTS_H

#include "stats.h"

#include <stdio.h>

struct mm_cell {
	bool have;
	double hmean, stddev, coeffvar, min, max;
	bool significant; /* the change against the baseline is a regression or improvement */
};

/* Harmonic mean, stddev, coefficient of variation (%), min and max of x. */
void mm_cell_fill(struct mm_cell *c, const double *x, size_t n);

/* cells[t * ngroups + g]: task count t, group g. */
void print_mmtests(FILE *out, const char *title, const char *const *labels, size_t ngroups,
		   const unsigned *tasks, size_t ntasks, const struct mm_cell *cells,
		   enum stat_direction dir);

#endif
