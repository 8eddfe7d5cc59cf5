/* The kernel test robot's compare, as lkp-tests does it: which stats it reports as changed
 * (lib/stats.rb StatCompare, lib/changed_stat.rb, the lists in etc/), how it summarises and
 * sorts them and how it prints the table (lib/compare.rb).  `compare --rule lkp` is this file;
 * tests/fixtures/lkp/ holds tables printed by lkp-tests itself that it must reproduce. */
#ifndef SCALEBENCH_LKP_H
#define SCALEBENCH_LKP_H

#include "compare.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What lkp-tests knows about a stat from its name (and, for the test's own stats, from
 * scalebench's roles: LKP knows its tests by program name, scalebench by meta.json). */
bool lkp_function_stat(const char *name);	       /* etc/failure, etc/pass */
bool lkp_listed_out(const char *name);		       /* stat-denylist, not report-allowlist */
bool lkp_perf_metric(const char *name, bool headline); /* perf-metrics-prefixes/-patterns */

/* One stat of one head group against the base, by StatCompare#process with the options
 * Compare::Comparer passes (perf-profile threshold 5, no distance, no gap).  Values are every
 * run's, zeros where a run lacks the stat (LKP's matrix); base_has says whether any base run
 * has the stat at all.  Returns whether LKP reports it; why (when not NULL) gets LKP's reason,
 * kept or dropped, in its own terms. */
struct lkp_stat_in {
	const char *name;
	bool function;	      /* a failure stat (lkp_function_stat, or scalebench's role) */
	bool headline;	      /* the testcase's own stat */
	bool base_has;	      /* some base run has the stat */
	bool base_has_family; /* some base stat has the same first component */
	bool (*base_has_key)(const void *ctx, const char *key); /* for .pass/.fail pairs */
	const void *ctx;
	const double *a; /* head, na runs */
	size_t na;
	const double *b; /* base, nb runs */
	size_t nb;
};
struct lkp_rules;
struct lkp_rules *lkp_rules_new(void); /* NULL when out of memory */
void lkp_rules_free(struct lkp_rules *r);
bool lkp_stat_changed(const struct lkp_rules *rules, const struct lkp_stat_in *in, char *why,
		      size_t whylen);

/* lib/statistics.rb: Array#average (Ruby's compensated sum) and #standard_deviation, which
 * divides by n (population); -1 for fewer than 2 values, as compare.rb stores it. */
double lkp_average(const double *x, size_t n);
double lkp_stddev(const double *x, size_t n);
/* compare.rb show_perf_change's cells: the 10-column mean, the 6-column " ±NN%" (stddev as
 * compare.rb keeps it: % of the mean, absolute when the mean is 0) and the change. */
void lkp_format_avg(double avg, char *buf, size_t len);
void lkp_format_stddev(double stddev, double avg, char *buf, size_t len);
void lkp_format_change(double change, bool absolute, char *buf, size_t len);

/* Sets every non-failure row's verdict, change and test by LKP's rule (no p-values). */
void lkp_decide(struct comparison *c);
/* The table lkp-tests' compare prints; all: every stat; verbose: LKP's reason per row. */
void lkp_print_table(const struct comparison *c, bool all, bool verbose, FILE *out);

#endif
