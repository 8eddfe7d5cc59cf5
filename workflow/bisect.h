/* scalebench bisect's workflow: the state of one bisection and the steps builtin/bisect.c
 * takes with it once its options are read.  A bisection is git bisect in --repo, each commit
 * prepared (and booted, with --reboot or --target), its runs made here, on a target or on
 * Slurm, and classified by analyze/bisect.c's decisions; its log (JSON) is the whole state,
 * rewritten after every change, so that --resume LOG continues it.
 *
 * The order: bisect_resume_load (--resume) or the options, bisect_preflight, then either
 * bisect_plan_print (--dry-run) or bisect_log_claim, bisect_log_new (not resumed) and
 * bisect_run; bisect_free at the end whatever happened.  The functions that return an exit
 * status (lib/exit.h) have said what went wrong when it is not SB_EXIT_OK. */
#ifndef SCALEBENCH_WORKFLOW_BISECT_H
#define SCALEBENCH_WORKFLOW_BISECT_H

#include "../analyze/stats.h"
#include "../lib/exit.h"
#include "../lib/strvec.h"
#include "../runner/job.h"
#include "../runner/target.h"

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct bisect {
	/* The options (the command's table binds them; a resumed bisection's point into its
	 * log).  ssh_options is malloc'd, freed by bisect_free. */
	const char *repo, *good_arg, *bad_arg, *job_path, *stat, *prepare, *results, *log_path;
	const char *mbox; /* --mbox: the robot's mail of a verified culprit appended there */
	/* The command's option table: the log's args are written from it and read back with
	 * it (options_to_json), so --resume cannot lose an option. */
	const struct option_def *opts;
	const char *plugins[16];
	size_t nplugins;
	/* --set, --runtime, --nr-task: the job file's values for every run (run --set) */
	struct override_list overrides;
	bool no_monitors, dry_run;
	unsigned max_runs;
	double confidence, threshold;
	/* Boots: --reboot, --boot-check, --boot-timeout, --runs-per-boot.  target is the seam
	 * for `scalebench run --target URL`: NULL runs here; when set, it is passed to the run
	 * and to the commands as SCALEBENCH_TARGET. */
	const char *reboot, *boot_check, *target, *resume;
	/* --target-bin, --ssh-option: passed to `scalebench run --target`, and used for the
	 * default reboot and boot check (tgt is target parsed). */
	const char *target_bin;
	/* --slurm: each batch of runs is one job array (scalebench submit --wait), on nodes of
	 * the class --partition and --constraint name. */
	bool slurm;
	const char *partition, *constraint;
	unsigned runs_per_task; /* --runs-per-task: runs in one array task */
	const char **ssh_options;
	size_t n_ssh_options;
	/* --kernel-tree: repo is a kernel tree; each commit is built (scalebench-kernel-build:
	 * kernel_config into kernel_cache/<sha>/bzImage; the prepare step) and each batch of
	 * runs boots it in a fresh QEMU guest (exec_qemu.c, `scalebench run --kernel`) shaped
	 * by the --vm-* options. */
	bool kernel_tree, vm_icount;
	const char *kernel_config, *kernel_cache, *vm_append, *vm_accel;
	const char *qemu_args[16]; /* --qemu-arg: more QEMU arguments, after run's own */
	size_t n_qemu_args;
	unsigned vm_cpus, vm_max_cpus, vm_memory;
	char kernel_prepare[3 * PATH_MAX + 64];
	char kernel_config_abs[PATH_MAX], kernel_cache_abs[PATH_MAX]; /* what those point to */
	struct target tgt;
	/* The target before the reboot last issued (the default boot check's reference): its
	 * boot_id and uname -r, and the commit it was last found booted into. */
	char boot_id_before[64], uname_before[256], last_up[64];
	double boot_timeout;
	unsigned runs_per_boot;
	char good[64], bad[64];
	char path_params[512];
	char prepared[64]; /* the commit whose prepare ran last */
	char booted[64];   /* the commit a reboot was issued for, boot not yet checked */
	bool up;	   /* resumed: booted is up already (killed between boot and runs) */
	char log_file[PATH_MAX], dir_d[PATH_MAX], gitdir[PATH_MAX], token[40];
	char env_token[80]; /* SCALEBENCH_BISECT_TOKEN=token: marks our children */
	/* Which way the stat is better: from the runs' meta.json once runs are loaded. */
	enum stat_direction dir;
	bool dir_known;
	bool fallback; /* a midpoint was classified by the closer endpoint */
	int signal;    /* SIGINT or SIGTERM that ended us */
	bool log_lost; /* the log could not be written: nothing more is spent */
	bool split;    /* a commit's runs are not one job's (select.h): said, the bisection stops */
	json_t *log, *steps, *events;
	struct strvec said; /* the batches' stderr lines printed so far: each said once */
	/* Progress: when this process started (CLOCK_MONOTONIC), the seconds the midpoints
	 * took so far and how many were classified, git's "roughly N steps" left. */
	double t_start, t_midpoints;
	double run_secs; /* one run's warmup and window, from the job (the plan's estimate) */
	unsigned n_midpoints, steps_left;
	bool steps_known;
	/* runs and reboots spent per commit, in the order tested */
	char (*order)[64];
	unsigned *spent, *reboots;
	size_t norder;
	/* SCALEBENCH_BISECT_KILL_AT=EVENT:N, a test hook: SIGKILL right after the log records
	 * the Nth EVENT. */
	char kill_event[32];
	unsigned kill_n, kill_seen;
};

/* --resume LOG (b->resume): the log read back, its options and counts restored.  SB_EXIT_OK,
 * or SB_EXIT_ERROR. */
int bisect_resume_load(struct bisect *b);
/* Every check that needs nothing to run: the repository, the endpoints, the job (one atomic
 * job), the results root.  SB_EXIT_OK, or SB_EXIT_ERROR. */
int bisect_preflight(struct bisect *b);
/* --dry-run: the plan on stdout. */
void bisect_plan_print(const struct bisect *b);
/* The log's path: --log FILE must not exist; the default is numbered past those that do,
 * claimed with an exclusive create; its .d directory made.  SB_EXIT_OK, or SB_EXIT_ERROR. */
int bisect_log_claim(struct bisect *b);
/* A new bisection's log: its token, the options as --resume reads them back.  SB_EXIT_OK, or
 * SB_EXIT_ERROR. */
int bisect_log_new(struct bisect *b);
/* The bisection, SIGINT and SIGTERM caught while it runs: its exit status (SB_EXIT_OK culprit
 * found and verified, SB_EXIT_NOTHING change not reproduced, SB_EXIT_INCONCLUSIVE,
 * SB_EXIT_ERROR, SB_EXIT_INTERRUPTED). */
int bisect_run(struct bisect *b);
void bisect_free(struct bisect *b);

#endif
