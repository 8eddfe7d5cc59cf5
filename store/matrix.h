/* LKP's view of a commit directory: the matrix.json its unite-stats keeps beside the runs,
 * so lkp-tests' own compare reads a scalebench tree as it reads one of its own.
 *
 * The file is what lkp-tests' lib/matrix.rb unite_to leaves after uniting each complete run
 * (one with stats.json) in run order: every stat -> one value per run, in the order the stats
 * first appear; a stat a run lacks is padded with 0 only when a later run has it again, so a
 * stat missing from the last runs has fewer values (LKP fills those with zeros when it reads
 * the file); "stats_source" lists each run's stats.json by its real path; sched_debug per-CPU
 * stats (sched_debug.*.N) and stats whose values are all integer zeros are left out.  Values
 * keep their JSON type: an integer stays an integer, as LKP's compare formats the two apart. */
#ifndef SCALEBENCH_MATRIX_H
#define SCALEBENCH_MATRIX_H

#include <stddef.h>
#include <stdio.h>

#define STORE_MATRIX_FILE "matrix.json"

/* Rebuild <commit_dir>/matrix.json from the commit directory's runs, whole or nothing, under
 * the commit directory's lock (the one store_begin takes), so that of two runners finishing
 * runs at once the later rebuild has both.  No complete run: no matrix.json (an old one is
 * removed).  0, or -1 with err naming the file and what was wrong; an unreadable stats.json
 * fails the rebuild and leaves the old matrix.json as it was. */
int store_matrix_write(const char *commit_dir, char *err, size_t errlen);

/* The lines LKP's paths index (/lkp/paths/<date>/<date>-<user>, which its `compare -a` greps
 * for commits) has for the commit directory's complete runs: each run's real path and a '/',
 * in run order, to out.  0, or -1 with err. */
int store_matrix_paths(const char *commit_dir, FILE *out, char *err, size_t errlen);

#endif
