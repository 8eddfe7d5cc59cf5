/* A stat's series over a branch: one point per commit (all its runs), in time order or in a
 * branch's first-parent order, from the results index. */
#ifndef SCALEBENCH_SERIES_H
#define SCALEBENCH_SERIES_H

#include "stats.h"
#include "../store/index.h"

#include <stddef.h>
#include <stdint.h>

struct series_point {
	char *commit; /* the stored label */
	double *runs; /* the runs' values, in run order */
	size_t nruns;
	double mean;
	int64_t first_started;
};

struct series {
	char *job, *stat;
	struct series_point *points;
	size_t n;
};

/* How the points are ordered and cut.  repo/branch: the branch's first-parent history (git
 * rev-list --first-parent), oldest first; a stored label matches a commit when it is its full
 * sha or an unambiguous prefix of at least 7 hex digits; labels not on the branch are left
 * out; the labels of one commit (its sha and a prefix, stored apart) are one point, with the
 * runs of all of them, named by the longest label.  Without repo: the time of each commit's
 * first run, each label a commit of its own (labels are free-form: nothing says two are one).
 * since: a date (YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS) or a commit (a label, or with repo any
 * revision): points before it are left out. */
struct series_order {
	const char *repo, *branch, *since;
};

/* The series of stat for job (a key or a path_params).  Only runs whose status is ok.
 * -1 with err naming what is wrong (no such job, ambiguous job, unknown branch, ...). */
int series_load(struct results_index *ix, const char *job, const char *stat,
		const struct series_order *o, struct series *s, char *err, size_t errlen);
void series_free(struct series *s);

/* The headline stat of job (a key or a path_params) as its latest commit with a run that
 * succeeded declares it (meta.json), as html and nightly take it when --stat is not given:
 * *stat malloc'd, 0; or -1 with err (no such job, ambiguous, no successful run, none declared). */
int series_headline_stat(struct results_index *ix, const char *job, char **stat, char *err,
			 size_t errlen);

/* The commit labels of job (key or path_params) in the order series_load gives (every
 * commit with a run, failures included), one per commit: the one series_load names its point
 * by.  Returns how many (*out: free each and the array), or -1 with err. */
ssize_t series_commits(struct results_index *ix, const char *job, const struct series_order *o,
		       char ***out, char *err, size_t errlen);
/* Every stored label of job in that order, those of one commit adjacent, and (*point)[i] the
 * commit label i is: its index among series_commits's (free *point too). */
ssize_t series_labels(struct results_index *ix, const char *job, const struct series_order *o,
		      char ***out, size_t **point, char *err, size_t errlen);

#endif
