/* Comparing groups of runs stat by stat: summaries, %change against the first group, a test
 * that holds up on few runs, false-discovery control across the stats, and a verdict. */
#ifndef SCALEBENCH_COMPARE_H
#define SCALEBENCH_COMPARE_H

#include "results.h"
#include "stats.h"

#include <regex.h>

#define COMPARE_MAX_GROUPS 8

enum compare_rule { RULE_STATS, RULE_LKP };
enum test_kind { TEST_NONE, TEST_WELCH_LOG, TEST_MANN_WHITNEY, TEST_LKP, TEST_EXACT };

struct compare_opts {
	enum compare_rule rule;
	double threshold_pct;	/* noise threshold for relative stats, in % (default 1) */
	double threshold_abs;	/* for absolute stats (perf-profile.*, *%), in their units (0.1) */
	double q_max;		/* 0.05 */
	double alpha;		/* 1 - confidence of the intervals: 0.05 */
	const regex_t *stat_re; /* only stats matching, or NULL */
};

/* One stat; per group g (index 0 is the base). */
struct stat_row {
	char *name;
	bool failure;  /* a failure stat: fail:runs, not means */
	bool headline; /* the testcase's own stats: a family of its own for BH */
	bool absolute; /* change is a delta, not a % */
	enum stat_direction dir;
	struct stat_summary sum[COMPARE_MAX_GROUPS];
	size_t fails[COMPARE_MAX_GROUPS], runs[COMPARE_MAX_GROUPS];
	/* against group 0, for g >= 1: */
	bool has_change[COMPARE_MAX_GROUPS];
	double change[COMPARE_MAX_GROUPS];	 /* %change, or delta when absolute */
	double reproduction[COMPARE_MAX_GROUPS]; /* failure stats: 100 (fb/rb - fa/ra) */
	enum test_kind test[COMPARE_MAX_GROUPS];
	double p[COMPARE_MAX_GROUPS], q[COMPARE_MAX_GROUPS];
	double lo[COMPARE_MAX_GROUPS], hi[COMPARE_MAX_GROUPS]; /* interval of the change */
	enum verdict verdict[COMPARE_MAX_GROUPS];
	unsigned runs_needed[COMPARE_MAX_GROUPS]; /* inconclusive: per side, to decide */
	const char *no_test[COMPARE_MAX_GROUPS];  /* why there is no test */
};

struct comparison {
	struct result_group *groups;
	size_t ngroups;
	struct stat_row *rows;
	size_t nrows;
	struct compare_opts opts;
	size_t min_runs; /* the fewest runs of any group */
};

int compare_groups(struct result_group *groups, size_t n, const struct compare_opts *o,
		   struct comparison *c, char *err, size_t errlen);
void comparison_free(struct comparison *c);

/* Whether a row is worth showing by default: a significant change (or a failure that moved). */
bool row_is_notable(const struct stat_row *r, size_t ngroups);
/* Whether a headline stat regressed in any group (the exit status). */
bool comparison_regressed(const struct comparison *c);
const char *test_kind_name(enum test_kind t);

/* Output formats. */
void print_robot_table(const struct comparison *c, bool all, bool verbose, FILE *out);
/* The whole comparison as one JSON object, streamed to out stat by stat (a few thousand
 * stats need not be built in memory at once). */
int print_comparison_json(const struct comparison *c, FILE *out);

#endif
