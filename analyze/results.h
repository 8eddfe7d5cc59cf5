/* Reading the results tree: a group is every run of one commit directory,
 *   <root>/<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>/
 * and one run is one sample of every stat in its stats.json. */
#ifndef SCALEBENCH_RESULTS_H
#define SCALEBENCH_RESULTS_H

#include "stats.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The axes of a group, LKP's names: from the directory path and the runs' meta.json, else
 * (runs LKP made have none) the first run's job.yaml; runtime, as written, only from there
 * (LKP's Job#axes shows it when the job gives it). */
enum group_axis {
	AX_COMPILER,
	AX_KCONFIG,
	AX_MODE,
	AX_NR_TASK,
	AX_ROOTFS,
	AX_RUNTIME,
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
	/* Per stat: some run has it as a real or a nonzero value.  LKP's matrix.json has only
	 * these (unite-stats drops a stat whose values are all integer zeros, store/matrix.h),
	 * so only these are the group's stats under --rule lkp. */
	bool *lkp_kept;
	json_t *stat_index; /* name -> index */
	char **notes;	    /* runs skipped (incomplete, corrupt), each naming the file */
	size_t nnotes;
	/* The first run's job.yaml (store_read_job) when meta.json left an axis of the job
	 * unsaid or a run has no meta.json; NULL when not read or unreadable. */
	json_t *job;
};

/* Load every run of a commit directory.  Incomplete runs (no stats.json) and corrupt ones are
 * skipped with a note naming the file; a directory with no usable run, or that is not a
 * commit directory of a results tree, is an error (-1, message in err). */
int group_load(const char *dir, struct result_group *g, char *err, size_t errlen);
void group_free(struct result_group *g);

/* Whether every run of the n groups ran in QEMU's instruction-count mode (meta.json's
 * vm.icount): their rates are path lengths, nearly noiseless, blind to contention. */
bool groups_icount(const struct result_group *g, size_t n);

/* The values of one stat over a group's runs that have it; returns how many. */
size_t group_values(const struct result_group *g, const char *stat, double *out);
/* When a run started (meta.json's "started", Unix seconds), NAN when it does not say. */
double run_started(const struct run_record *run);
/* The stat's values over the runs that have it and say when they started, with those times:
 * how many (t and v have room for g->nruns). */
size_t group_timed_values(const struct result_group *g, const char *stat, double *t, double *v);

/* stat / by, run by run, over the runs that have both (by nonzero): how many. */
size_t group_ratio_values(const struct result_group *g, const char *stat, const char *by,
			  double *out);

/* How many of the group's runs have a failure stat (nonzero). */
size_t group_failures(const struct result_group *g, const char *stat);

/* What the runs say about their stats.  A run's meta.json declares
 *   "suite": "will-it-scale",
 *   "headline": {"stat": "will-it-scale.per_process_ops", "direction": "higher"},
 *   "families": {"will-it-scale": "headline", "perf-stat": "monitor", "dmesg": "failure"}
 * and these functions read it over n groups (one comparison's): the first group, in order,
 * whose runs declare a thing decides it; within a group, the first run that does.  A value
 * that is not one of those words counts as not declared.
 *
 * What no run declares (runs stored before meta.json carried it) follows the rules of that
 * time, kept in results.c alone: see stat_role_undeclared(), and the headline stat is
 * will-it-scale's per-copy rate (per_process_ops or per_thread_ops by meta.json's mode, else
 * whichever the runs have), higher is better. */
enum stat_role group_stat_role(const struct result_group *g, size_t n, const char *stat);
/* What a monitor's stat is, as its runs' meta.json says (monitors.<family>.rates, written by
 * the runner from the monitor's is_rate): a count or rate over the window (the work it
 * held), anything else (a level of the machine's state, a share, a value per op), or not
 * said (runs stored before monitors declared it, or a monitor that does not). */
enum stat_kind { STAT_UNDECLARED, STAT_RATE, STAT_LEVEL };
enum stat_kind group_stat_kind(const struct result_group *g, size_t n, const char *stat);
/* NULL when neither the runs nor the old rule name one. */
const char *group_headline_stat(const struct result_group *g, size_t n);
enum stat_direction group_headline_direction(const struct result_group *g, size_t n);
/* The headline's declared direction for the headline stat, stat_direction() by the family's
 * role for any other. */
enum stat_direction group_stat_direction(const struct result_group *g, size_t n, const char *stat);
/* The stat to follow in a commit directory's runs: want (when given) with its direction, else
 * the headline its runs declare: *stat malloc'd, 0; or with err, -1 (the directory cannot be
 * loaded, no memory) or -2 (its runs declare no headline: "give --stat").  What html, nightly and
 * trend follow by default, from the latest commit with a successful run. */
int group_dir_stat(const char *dir, const char *want, char **stat, enum stat_direction *sdir,
		   char *err, size_t errlen);
/* The role of a stat whose run does not declare its family: failure for dmesg.*, kmsg.*,
 * stderr.* and last_state.*, monitor for LKP's monitor families (store/families.h), headline
 * (the testcase's own) for the rest. */
enum stat_role stat_role_undeclared(const char *stat);

/* How many of the group's runs their meta.json says were measured on a busy machine
 * ("machine_load": {"busy": true, "reason": ...}, which the runner records), with the first
 * one's reason in *reason (NULL when none gives one; valid while g is). */
size_t group_busy_runs(const struct result_group *g, const char **reason);

/* Whether the runs of n groups (one comparison's, or one group with n = 1) were measured on
 * machines of different models: meta.json's "machine" differs from the first run's in
 * cpu_model or threads, or in memory_kib by more than 10% (a kernel reserves a little more
 * or less of the same DIMMs; a different machine has other DIMMs).  Runs without a machine
 * record (no cpu_model) are not counted, nor a fact a run lacks.  When they mix, msg gets
 * "<machine> (seen in <run dir>) and <machine> (seen in <run dir>)", the first run's machine and
 * the first that differs. */
bool groups_mix_machines(const struct result_group *g, size_t n, char *msg, size_t len);

/* The machine a group's runs ran on, as its first run says: meta.json's "machine" (threads,
 * sockets, cpu_model, memory_kib), else what an LKP job.yaml carries of its host file
 * (nr_cpu, brand and model, memory as written: "256G").  0 and "" for what neither says;
 * the strings as the files have them (escape them on the way out). */
struct group_machine {
	long long threads, sockets;
	char cpu_model[256];
	char memory[32]; /* "256G" */
};
void group_machine_of(const struct result_group *g, struct group_machine *m);

/* A plot's title for a stat of the group: "<atomic job>: <stat>" (the job is the directory's
 * path_params, "process-100%-page_fault3"), the stat alone when the directory is not in a
 * results tree.  0, or -1 when it was cut to len. */
int group_plot_title(const struct result_group *g, const char *stat, char *out, size_t len);

/* The labels of a comma-separated commit list ("base,patched,fixed"), empty items skipped.
 * Returns how many, with *out one allocation (free(*out) frees the labels too), or -1 when
 * out of memory. */
long commit_list_split(const char *list, char ***out);

#endif
