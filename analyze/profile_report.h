/* scalebench profile: the perf-profile chains of one or several runs added up, and shown as a
 * perf-report-like tree. */
#ifndef SCALEBENCH_PROFILE_REPORT_H
#define SCALEBENCH_PROFILE_REPORT_H

#include "../store/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What the runs read so far add up to. */
struct profile_runs {
	struct profile p;
	char event[64]; /* "" until the first run */
	json_int_t lost;
	unsigned runs;
	/* Set before adding: every task's samples, not only the run's own processes. */
	bool all_tasks;
	/* Runs stored before samples were attributed: all their samples are in p. */
	unsigned unattributed;
};

int profile_runs_init(struct profile_runs *t);
/* Add dir: a run's directory (its perf-profile.samples.json.gz, or the perf-profile.json[.gz]
 * of runs stored before), or a commit's directory (each of its numbered runs that has one).
 * Every run must have sampled the same event.  Only the samples of the run's own processes
 * are added, unless t->all_tasks (or the run was stored before samples were attributed).  Returns 0, or -1 with err naming the
 * directory or file and what was wrong. */
int profile_runs_add(struct profile_runs *t, const char *dir, char *err, size_t errlen);
void profile_runs_free(struct profile_runs *t);

/* A perf-report-like text tree: each symbol with its children and self percentages, sorted
 * by children (or self when by_self), and below it the callers it was reached through,
 * callee first, branches under min_pct left out. */
void profile_print_report(const struct profile *p, FILE *out, bool by_self, double min_pct);

/* The robot's perf-profile rows between two sides, each a run or a commit directory as
 * profile_runs_add takes them: per stat (perf-profile.{self,children,calltrace}.<event>.*)
 * the mean of each side's runs with its stddev, the change (head - base, in points), the
 * head's mean; rows where either side reaches min_pct, the largest absolute change first.
 * Returns 0, or -1 with err naming the directory or file and what was wrong. */
int profile_print_diff(const char *base, const char *head, bool all_tasks, double min_pct,
		       FILE *out, char *err, size_t errlen);

#endif
