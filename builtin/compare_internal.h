/* What builtin/'s compare files (compare.c, compare_dirs.c, compare_mmtests.c) share, and
 * nothing else uses; each function has one owner, named above its declarations. */
#ifndef SCALEBENCH_BUILTIN_COMPARE_INTERNAL_H
#define SCALEBENCH_BUILTIN_COMPARE_INTERNAL_H

#include "../analyze/compare.h"

#include <stdbool.h>
#include <stddef.h>

struct job_file;

/* How compare_dirs prints one comparison. */
struct compare_output {
	bool json, all, verbose, plot;
	/* With json: the open document's "jobs" array the comparison goes into, with the job's
	 * name */
	struct jsonw *json_into;
	const char *job;
};

/* compare_dirs.c: the commit directories found and loaded, one comparison printed. */

/* A copy of d appended to *dirs (*n of them). */
void compare_add_dir(char ***dirs, size_t *n, const char *d);
/* The n directories and the array. */
void compare_free_dirs(char **dirs, size_t n);
/* Commit directories for one atomic job's path_params and each commit label, in order.  -2
 * when a commit has no runs of the job, -1 on any other error; err says which. */
int compare_pick_dirs(const char *root, const char *path_params, char **commits, size_t ncommits,
		      char ***dirs, size_t *n, char *err, size_t errlen);
/* Load n commit directories; notes go to stderr.  -1 with err on the first that fails (the
 * groups loaded before it freed), or when their runs were measured on machines of different
 * models and o does not allow it (a note when it does). */
int compare_load_groups(char **dirs, size_t n, struct result_group *g, const struct compare_opts *o,
			char *err, size_t errlen);
/* Compare n commit directories and print the result; compare's exit status: SB_EXIT_OK,
 * SB_EXIT_FOUND (the headline regressed), SB_EXIT_INCONCLUSIVE (its verdict is inconclusive)
 * or SB_EXIT_ERROR with err set. */
int compare_dirs(char **dirs, size_t n, const struct compare_opts *o,
		 const struct compare_output *out, char *err, size_t errlen);

/* compare_mmtests.c: --format mmtests. */

/* MMTests' layout: for each testcase and mode of the job, the commits side by side with one
 * block of rows per task count, significance from the same tests as the robot table. */
int compare_mmtests_tables(const struct job_file *job, const char *root, const char *commits,
			   const struct compare_opts *o);

#endif
