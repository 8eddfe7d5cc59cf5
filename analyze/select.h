/* The one policy for "the runs of atomic job JOB at commit C" in a results tree, used by
 * compare, plot, bisect (its batches and its closing table) and trend/results (series.c's
 * job resolution gives the same message):
 *
 *   - JOB is an atomic job's path_params (process-100%-page_fault3) or its key,
 *     <testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>, as `results`
 *     lists it; a key names one machine, a path_params every machine that ran it;
 *   - the runs are those of the one commit directory that holds JOB at C;
 *   - several directories: with SELECT_NODES (a Slurm fleet, nodes of one class named apart),
 *     all of them when they differ in tbox_group alone; otherwise, or when they differ in
 *     rootfs, kconfig or compiler, JOB is ambiguous: an error naming each one's key, so the
 *     user can name one;
 *   - none: SELECT_NONE, an error saying where it looked.
 *
 * The site reads the same runs through the results index, whose jobs are keys: one key is one
 * commit directory per commit, so the policy's first case is the only one it meets. */
#ifndef SCALEBENCH_SELECT_H
#define SCALEBENCH_SELECT_H

#include "results.h"

#include <stddef.h>
#include <sys/types.h>

enum select_flags {
	SELECT_NODES = 1, /* several machines of one class count as one */
};

enum select_result {
	SELECT_OK = 0,
	SELECT_ERROR = -1,     /* out of memory (err says so) */
	SELECT_NONE = -2,      /* no directory holds JOB at C */
	SELECT_AMBIGUOUS = -3, /* several do and the policy cannot take them all */
};

/* The commit directories of JOB at commit under root, by path (free each and the array);
 * on anything but SELECT_OK, *dirs is NULL and err says why. */
enum select_result select_dirs(const char *root, const char *job, const char *commit,
			       unsigned flags, char ***dirs, size_t *n, char *err, size_t errlen);

/* The same directories loaded (group_load); a directory that cannot be loaded is an error
 * (SELECT_ERROR, err from group_load).  Free with select_groups_free. */
enum select_result select_groups(const char *root, const char *job, const char *commit,
				 unsigned flags, struct result_group **g, size_t *n, char *err,
				 size_t errlen);
void select_groups_free(struct result_group *g, size_t n);

/* The commit directories of job (a path_params, a key, NULL: every job) at commit (a stored
 * label, NULL: every commit) under root, sorted by path: how many (free each and the array),
 * or -1 when out of memory.  None is 0, not a refusal: select_dirs's policy is for one job at
 * one commit, this the lookup beneath it. */
ssize_t select_job_dirs(const char *root, const char *job, const char *commit, char ***dirs);

/* The stored commit label that arg, a commit as the user gave it to option opt ("--base"),
 * names among the commit directories of the njobs jobs (path_params or keys; njobs 0: every
 * job) under root, in *label (malloc'd):
 *   - a label that is arg exactly, whatever it is (an exact label wins over any prefix);
 *   - with repo, the commit git resolves arg to (a tag, a branch, HEAD~2, a short sha): the
 *     label that is its full sha, else the one that is an abbreviation of it (7 hex digits or
 *     more, as results and trend match labels to a branch), else the full sha itself;
 *   - the one sha label (hex digits) that arg starts, arg being GIT_MIN_ABBREV hex digits or
 *     more, as git reads a short object name;
 *   - nothing matches: arg itself, so that the caller's "no runs at" names what was given.
 * Several labels for one arg: SELECT_AMBIGUOUS, err naming the option, the value and a few of
 * them, each with a job it is in.  SELECT_ERROR: out of memory, or repo is not a repository
 * git can read. */
enum select_result select_commit(const char *root, const char *const *jobs, size_t njobs,
				 const char *repo, const char *opt, const char *arg, char **label,
				 char *err, size_t errlen);

/* select_commit for each label of a comma-separated list (compare's and plot's --commits), the
 * stored labels joined again by commas in *joined (malloc'd; "" for an empty list).  On
 * anything but SELECT_OK, *joined is NULL and err says why (the first label that failed). */
enum select_result select_commit_list(const char *root, const char *const *jobs, size_t njobs,
				      const char *repo, const char *opt, const char *list,
				      char **joined, char *err, size_t errlen);

/* The commit directory of job at each of the ncommits stored labels, in their order
 * (select_dirs for each, without SELECT_NODES: one directory each): compare's groups and plot's.
 * On anything but SELECT_OK, err names the commit that failed; *dirs holds the directories
 * found before it either way (free each and the array). */
enum select_result select_commits_dirs(const char *root, const char *job, char **commits,
				       size_t ncommits, char ***dirs, size_t *n, char *err,
				       size_t errlen);

/* The atomic jobs (path_params) that every one of the ncommits stored labels has runs of, in
 * the tree's order (compare's and plot's selection without --job): how many, names in *jobs
 * (free each and the array), or -1 when out of memory.  Each job the first commit has and a
 * later one lacks is named in a note on stderr. */
ssize_t select_common_jobs(const char *root, char **commits, size_t ncommits, char ***jobs);

/* "job 'JOB' is ambiguous: it is the path_params of K1, K2; name one of them", the one
 * wording for a path_params several keys share. */
void select_ambiguous_message(const char *job, const char *const *keys, size_t n, char *err,
			      size_t errlen);

#endif
