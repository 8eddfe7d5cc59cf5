/* Job matrices on a Slurm cluster: `scalebench submit`, `status`, `wait` (and `bisect --slurm`,
 * which submits each step's batch and waits for it).
 *
 * Slurm does the scheduling: one `sbatch` job array per job file, one array task per atomic
 * job x repeat, each task one `scalebench run` of one atomic job on a node allocated whole
 * (--exclusive, --mem=0), storing its run into the shared results root.  Every Slurm command
 * is run from an argument vector (lib/run_command.h), never through a shell string built from
 * input; the one text that reaches a shell is the job script, built from fixed text and words
 * quoted by sh_quote (lib/text.h).
 *
 * A submission is a directory of the shared results root (hidden: the store's walkers skip
 * names starting with '.'):
 *
 *   RESULTS/.scalebench-slurm/<NAME>/       NAME: <YYYYmmddTHHMMSS.mmm>-<6 random [a-z0-9]>,
 *                                           made before sbatch is asked (the script names it)
 *       submission.json    the manifest (below); rewritten whole (file_write) once sbatch
 *                          answers with the job id
 *       job.sh             the job script submitted, kept as it was submitted: what ran
 *       tasks/<I>.yaml     array task I's atomic job (job_write_yaml of its tree), I from 0
 *       out/<I>.out        task I's standard output and error (sbatch --output=out/%a.out)
 *       done/<I>           written by the job script when task I's `scalebench run` returns
 *                          (temp file + rename): one line "exit=<RC> node=<HOST>
 *                          start=<EPOCH> end=<EPOCH>"
 *       then.sh, out/then.out   with --then: the dependent job's script and output
 *   RESULTS/.scalebench-slurm/<ID>          symlink -> <NAME>, ID = the array's Slurm job id
 *                                           (digits), made when sbatch answers
 *
 * submission.json:
 *   {"version": 1, "name": NAME, "id": "<job id>" (null until sbatch answered),
 *    "created": "<ISO 8601 UTC>", "job": "<absolute path of the job file>",
 *    "commit": LABEL or null, "results": "<absolute results root>", "repeat": K,
 *    "interleave": bool, "scalebench": "<absolute path of the scalebench the nodes run>",
 *    "plugins": ["<absolute .so>", ...], "partition": P|null, "constraint": F|null,
 *    "time": LIMIT|null, "sbatch": ["sbatch", ...the whole argv...],
 *    "then": null | {"command": "<as given>", "id": "<job id>"|null},
 *    "tasks": [{"task": I, "atomic": "tasks/I.yaml", "name": "<atomic job name>",
 *               "testcase": "<will-it-scale test>", "path_params": "...", "repeat": R}, ...]}
 *
 * Task order: atomic job j (0..M-1) of the job file, repeat r (0..K-1): task j*K + r
 * (back to back), or with --interleave r*M + j (round robin: a drift over the array's
 * lifetime falls on every atomic job alike).  With --runs-per-task P, a task makes P runs of
 * one atomic job (`scalebench run -r P`, each run stored on its own): job j's runs are
 * C = ceil(K/P) tasks, chunk c (repeats c*P..) is task j*C + c, or c*M + j interleaved; the
 * last chunk makes what is left.  The manifest gives each task its first "repeat" and its
 * "runs", and the whole "runs_per_task"; a failed node costs its task's runs only.
 */
#ifndef SCALEBENCH_SLURM_H
#define SCALEBENCH_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#define SLURM_SUBDIR ".scalebench-slurm"

struct slurm_submit_opts {
	const char *job_path;	  /* the job file (as run takes it: a path or a shipped name) */
	const char *results_root; /* made absolute; created when missing */
	const char *commit;	  /* run --commit; NULL: run's default (the node's uname -r) */
	unsigned repeat;	  /* runs per atomic job (>= 1) */
	unsigned runs_per_task;	  /* runs one array task makes, of one atomic job (0, 1: one) */
	bool interleave;
	const char *partition, *constraint, *time_limit; /* NULL: Slurm's defaults */
	const char *const *sbatch_args;			 /* passed to sbatch as they are */
	size_t n_sbatch_args;
	const char *const *plugins; /* run --plugin, each made absolute */
	size_t n_plugins;
	const char *const *overrides; /* run --set KEY=VALUE, applied at expansion (in tasks/I.yaml) */
	size_t n_overrides;
	bool no_monitors;		   /* run --no-monitors */
	const char *then;		   /* --then: a shell command line, run after the array */
	const char *bin;		   /* the nodes' scalebench; NULL: this one (/proc/self/exe) */
	const char *sbatch;		   /* the sbatch program; NULL: "sbatch" on PATH */
	bool dry_run;			   /* write nothing, call nothing: print what would be done */
};

struct slurm_submission {
	char id[32];	      /* Slurm's job id of the array */
	char then_id[32];     /* of the --then job, "" when none */
	char *dir;	      /* absolute path of the submission directory */
	size_t n_tasks;
};

/* Expand the job file, write the submission directory, submit the array (and the --then
 * job).  0 with s filled (free with slurm_submission_free), or -1 after a message through
 * sb_error naming the file, option or value and what was expected, or sbatch's own words;
 * nothing is left behind when sbatch refuses the array.  1 (s filled, then_id "") when the
 * array was submitted but the --then job was refused (said).  dry_run: 0, s->n_tasks only. */
int slurm_submit(const struct slurm_submit_opts *o, struct slurm_submission *s);
void slurm_submission_free(struct slurm_submission *s);

/* A Slurm option's value (one word of sbatch's argv and of the job script's comments): given
 * (NULL passes), not empty, no control character; with name (a partition, a constraint's
 * feature expression) no space either and at most 255 characters.  0, or -1 after sb_error
 * naming --OPT and the value.  submit and bisect --slurm both check with it. */
int slurm_word_check(const char *opt, const char *v, bool name);

enum slurm_task_state {
	SLURM_TASK_PENDING,
	SLURM_TASK_RUNNING,
	SLURM_TASK_DONE,   /* its run stored (exit 0) */
	SLURM_TASK_FAILED, /* exit != 0, or ended by Slurm (cancelled, timeout, node failure) */
	SLURM_TASK_UNKNOWN /* no record, and Slurm no longer knows it (counted as failed) */
};

struct slurm_task {
	unsigned task;
	enum slurm_task_state state;
	char *name;	   /* the atomic job's name (from the manifest) */
	char *atomic;	   /* "tasks/I.yaml" */
	unsigned runs;	   /* the runs it makes (--runs-per-task), 1 by default */
	char *node;	   /* where it ran or runs, NULL when not known */
	int exit_code;	   /* from done/<I>, -1 when none */
	char *slurm_state; /* Slurm's word (PENDING, RUNNING, COMPLETED, FAILED, CANCELLED,
			    * TIMEOUT, NODE_FAIL, ...) or NULL when Slurm was not asked / forgot */
	char *reason;	   /* squeue's reason for a pending task, NULL otherwise */
	char *output_tail; /* a failed task's last lines of out/<I>.out, NULL otherwise */
};

struct slurm_status {
	char *dir;  /* the submission directory */
	char *name; /* NAME */
	char id[32];
	char then_id[32];
	char *then_state; /* Slurm's word for the --then job, NULL when none or not known */
	char *job;	  /* the job file */
	char *commit;
	size_t n_tasks;
	struct slurm_task *tasks;
	size_t n_pending, n_running, n_done, n_failed; /* unknown counts as failed */
	size_t n_runs;					/* the runs of every task */
	bool ended; /* no task pending or running */
};

/* The submission with Slurm job id (digits) or NAME: looked up under results_root (NULL: not
 * there), then, when not found, through `scontrol show job ID` (its Command= names job.sh).
 * Asks squeue (and scontrol for tasks squeue no longer lists; sacct when accounting is on)
 * about the tasks without a done/ record.  0, or -1 after a message (an unknown id names it
 * and where it was looked for). */
int slurm_status_get(const char *results_root, const char *id, struct slurm_status *st);
void slurm_status_free(struct slurm_status *st);

/* Every submission under results_root, newest first (names in *names, malloc'd array of
 * malloc'd strings).  0 (none is not an error), -1 after a message. */
int slurm_list(const char *results_root, char ***names, size_t *n);

/* Poll slurm_status_get until the submission has ended (every task done or failed) or
 * timeout_s passes (0: no limit), printing progress to stderr unless quiet.  wait's exit
 * status (lib/exit.h): SB_EXIT_OK every task done, SB_EXIT_FAILED some failed, SB_EXIT_ERROR
 * error or timed out (said), SB_EXIT_SIGNAL_BASE + N interrupted by signal N. */
int slurm_wait(const char *results_root, const char *id, double timeout_s, bool quiet);

/* scancel the submission's array (and its --then job).  0, or -1 after a message. */
int slurm_cancel(const struct slurm_status *st);

#endif
