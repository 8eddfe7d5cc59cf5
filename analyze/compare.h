/* Comparing groups of runs stat by stat: summaries, %change against the first group, a test
 * that holds up on few runs, false-discovery control across the stats, and a verdict. */
#ifndef SCALEBENCH_COMPARE_H
#define SCALEBENCH_COMPARE_H

#include "results.h"
#include "stats.h"
#include "../lib/jsonw.h"

#include <regex.h>

enum compare_rule { RULE_STATS, RULE_LKP };
/* welch-log: Welch's t on log values; yuen-log: Yuen's 20%-trimmed t on log values, when a
 * side has an outlier; welch / yuen: the same on the stat's own values, for absolute stats
 * and stats with zero or negative runs; exact: no spread and no counting noise on either
 * side. */
enum test_kind {
	TEST_NONE,
	TEST_WELCH_LOG,
	TEST_YUEN_LOG,
	TEST_WELCH,
	TEST_YUEN,
	TEST_LKP,
	TEST_EXACT
};

/* Yuen's trimming: 20% from each end (1 run of 5-9, 2 of 10-14). */
#define COMPARE_TRIM STAT_TRIM
/* A monitor's count (integer runs) changes only when its mean moves by at least this many
 * events per run: a handful of interrupts or page frees more or less among hundreds of stats
 * is the machine, not the change under test. */
#define COMPARE_COUNT_FLOOR 100.0

/* Between-batch noise when the sides were not interleaved (analyze/compare.c,
 * add_batch_noise): from the job's history in the tree when its batches at one build give
 * this many degrees of freedom (4 batches) or more; else sigma_b is COMPARE_BATCH_RATIO times
 * the runs' own standard deviation ... */
#define COMPARE_BATCH_HISTORY_DF 3.0
#define COMPARE_BATCH_RATIO 4.0
/* ... and for a monitor's level of the machine's state (memory, page cache, slab: what the
 * machine's other work sets, and a window's runs barely move), sigma_b on logs is at least
 * this: a level moves between windows whatever their runs' spread. */
#define COMPARE_BATCH_LEVEL 0.5

/* Instruction-count runs (groups_icount): their run-to-run spread is ~0.01%, so the noise
 * threshold for relative stats is at most this, and a change is a path-length change. */
#define COMPARE_ICOUNT_THRESHOLD 0.1

struct compare_opts {
	enum compare_rule rule;
	double threshold_pct;	/* noise threshold for relative stats, in % (default 1) */
	double threshold_abs;	/* for absolute stats (perf-profile.*, *%), in their units (0.1) */
	double q_max;		/* 0.05 */
	double alpha;		/* 1 - confidence of the intervals: 0.05 */
	const regex_t *stat_re; /* only stats matching, or NULL */
	const char *stat_name;	/* only the stat of this name, or NULL */
	bool mix_machines;	/* compare: runs of machines of different models (a note) */
	bool no_batch_noise;	/* tests only: sides apart in time get no between-batch noise */
};

/* The defaults every command compares by (compare's own options start from them): the
 * analyzer's test, 1% noise threshold (0.1 for absolute stats), q <= 0.05, 95% intervals. */
#define COMPARE_OPTS_DEFAULT                                                                       \
	((struct compare_opts){.rule = RULE_STATS,                                                 \
			       .threshold_pct = 1,                                                 \
			       .threshold_abs = 0.1,                                               \
			       .q_max = 0.05,                                                      \
			       .alpha = 0.05})

/* Every per-group array of a row, named once for allocating, pointing and freeing. */
/* clang-format off */
#define STAT_ROW_ARRAYS(X) \
	X(sum) X(fails) X(runs) X(has_change) X(change) X(reproduction) X(test) \
	X(p) X(q) X(est) X(lo) X(hi) X(verdict) X(runs_needed) X(no_test) X(reason) X(floored) \
	X(batch_sd) X(batch_df) X(batches)
/* clang-format on */

/* One stat; each array has one entry per group g (index 0 is the base). */
struct stat_row {
	char *name;
	bool failure;  /* a failure stat: fail:runs, not means */
	bool headline; /* the testcase's own stats: a family of its own for BH */
	bool absolute; /* change is a delta, not a % */
	bool count;    /* a monitor's count: integer runs, counting noise, an absolute floor */
	enum stat_kind kind; /* a monitor's: rate, level, or not declared (results.h) */
	enum stat_direction dir;
	struct stat_summary *sum;
	size_t *fails, *runs;
	/* against group 0, for g >= 1: */
	bool *has_change;
	double *change;	      /* %change, or delta when absolute */
	double *reproduction; /* failure stats: 100 (fb/rb - fa/ra) */
	enum test_kind *test;
	double *p, *q;
	double *est;	 /* the test's estimate of the change, inside its interval (NAN: none) */
	double *lo, *hi; /* interval of the change */
	enum verdict *verdict;
	unsigned *runs_needed; /* inconclusive: per side, to decide */
	const char **no_test;  /* why there is no test */
	const char **reason;   /* why the verdict: kept or dropped, in words (-v) */
	bool *floored;	       /* a side's variance was raised to its counting noise */
	/* Sides not interleaved in time (comparison.apart): sigma_b, the batch-to-batch
	 * noise added to the test, on its scale (log or the stat's units; 0: none added), with
	 * its degrees of freedom, and the batches of the job's history it came from (0: the
	 * default, COMPARE_BATCH_RATIO times the runs' spread). */
	double *batch_sd, *batch_df;
	size_t *batches;
};

struct comparison {
	struct result_group *groups;
	size_t ngroups;
	struct stat_row *rows;
	size_t nrows;
	struct compare_opts opts;
	size_t min_runs; /* the fewest runs of any group */
	bool icount;	 /* every run in instruction-count mode (opts' threshold capped) */
	const char *headline_stat; /* as the runs declare it (results.h), or NULL */
	/* Per group: its runs and the base's were not interleaved in time, each side one
	 * window (the stats rule adds batch-to-batch noise); apart_any: some group's were. */
	bool *apart;
	bool apart_any;
	enum stat_direction headline_dir;
	/* The rows' arrays in one block each, nrows * ngroups long; row i's start at
	 * i * ngroups.  Sized by the comparison: any number of groups. */
	struct stat_row cells;
};

/* Any number of groups from 2; -1 with err when fewer or out of memory. */
int compare_groups(struct result_group *groups, size_t n, const struct compare_opts *o,
		   struct comparison *c, char *err, size_t errlen);
void comparison_free(struct comparison *c);

/* Whether a row is worth showing by default: a significant change (or a failure that moved). */
bool row_is_notable(const struct stat_row *r, size_t ngroups);
/* Whether a headline stat regressed in any group (report's and bisect's exit status). */
bool comparison_regressed(const struct comparison *c);
/* Whether row r is the headline: the stat the runs declare, or with none declared any of the
 * testcase's own stats. */
bool row_is_headline(const struct comparison *c, const struct stat_row *r);
/* The headline's verdict over every group against the base, for compare's exit status: a
 * regression anywhere, else inconclusive (or untested) anywhere, else no-change (improvements
 * and neutral changes included); V_NONE when no row is the headline. */
enum verdict comparison_headline_verdict(const struct comparison *c);
const char *test_kind_name(enum test_kind t);

/* Output formats. */
void print_robot_table(const struct comparison *c, bool all, bool verbose, FILE *out);
/* The whole comparison as one JSON object, written through w, its members' members one to a
 * line (one line per stat) when w's pretty_depth is COMPARE_JSON_PRETTY deeper than the
 * object.  job, when not NULL, comes first ("job": the atomic job's name). */
#define COMPARE_JSON_PRETTY 2
void comparison_write_json(const struct comparison *c, const char *job, struct jsonw *w);

#endif
