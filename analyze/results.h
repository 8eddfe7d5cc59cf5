/* Reading the results tree: a group is every run of one commit directory,
 *   <root>/<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>/
 * and one run is one sample of every stat in its stats.json. */
#ifndef SCALEBENCH_RESULTS_H
#define SCALEBENCH_RESULTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The axes of a group, LKP's names: from the directory path and the first run's meta.json. */
enum group_axis {
	AX_COMPILER,
	AX_KCONFIG,
	AX_MODE,
	AX_NR_TASK,
	AX_ROOTFS,
	AX_TBOX_GROUP,
	AX_TEST,
	AX_TESTCASE,
	AX_COUNT
};
extern const char *const group_axis_names[AX_COUNT];

struct run_record {
	char *dir;
	json_t *meta; /* object, or NULL when meta.json is missing */
};

struct result_group {
	char *dir;
	char *commit; /* the commit label: the directory's last component */
	char *axes[AX_COUNT];
	struct run_record *runs;
	size_t nruns;
	/* Every stat of every run, by column: stat i of run r is values[i * runs_cap + r], NAN
	 * where the run lacks it.  Thousands of stats per run: a table, not a tree per run. */
	char **stat_names; /* in the order first seen */
	size_t nstats, stats_cap, runs_cap;
	double *values;
	json_t *stat_index; /* name -> index */
	char **notes;	    /* runs skipped (incomplete, corrupt), each naming the file */
	size_t nnotes;
};

/* Load every run of a commit directory.  Incomplete runs (no stats.json) and corrupt ones are
 * skipped with a note naming the file; a directory with no usable run, or that is not a
 * commit directory of a results tree, is an error (-1, message in err). */
int group_load(const char *dir, struct result_group *g, char *err, size_t errlen);
void group_free(struct result_group *g);

/* The values of one stat over a group's runs that have it; returns how many. */
size_t group_values(const struct result_group *g, const char *stat, double *out);

/* Failure stats: dmesg.*, kmsg.*, stderr.*, last_state.*, and whatever a run's meta.json
 * lists in failure_stats.  Returns how many of the group's runs have it. */
bool stat_is_failure(const char *name);
size_t group_failures(const struct result_group *g, const char *stat);

/* Every commit directory below root matching path_params (exact) and commit (exact);
 * returns how many were found (paths in out, caller frees). */
size_t results_find(const char *root, const char *path_params, const char *commit, char ***out);

#endif
