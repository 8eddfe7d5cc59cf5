/* Where runs happen: "k runs of atomic job J at commit C, into the results root" through one
 * interface, as fio's ioengines or git's transports.  An executor is a table of operations
 * and its settings; each implementation is a file of its own:
 *
 *	exec_local.c   `scalebench run` here
 *	exec_ssh.c     `scalebench run --target URL` (the runs on the target, stored here)
 *	exec_slurm.c   `scalebench submit --wait`: one Slurm job array, --runs-per-task runs a task
 *	exec_qemu.c    `scalebench run --kernel CACHE/<commit>/bzImage`: a fresh QEMU guest
 *	               booting the commit's kernel for each batch
 *
 * Every one forwards the same request (job, commit, results root, runs, plug-ins,
 * --no-monitors) and answers the same result: how many runs were stored, how many lost, and
 * why.  A run that failed is stored like one that worked (its directory says so); a lost run
 * is one that never reached the results root (a connection cut, a node gone).  The caller
 * (workflow/batch.c) decides what to do about lost runs; an executor never retries.
 *
 * A new place to run is a new file with its ops and a line in executor_init, not a branch in
 * bisect. */
#ifndef SCALEBENCH_WORKFLOW_EXECUTOR_H
#define SCALEBENCH_WORKFLOW_EXECUTOR_H

#include "../lib/exit.h"
#include "../runner/job.h"

#include <stdbool.h>
#include <stddef.h>

struct strvec;

/* What to run. */
struct exec_request {
	const char *job_path; /* one atomic job */
	const char *commit;   /* run --commit */
	const char *results;  /* the results root */
	unsigned runs;	      /* >= 1 */
	const char *const *plugins;
	size_t nplugins;
	const struct job_override *overrides; /* run --set KEY=VALUE, each */
	size_t noverrides;
	bool no_monitors;
	const char *const *env; /* "NAME=value" for the child (NULL-terminated), or NULL */
	/* How many runs of the job at commit the results root holds now (before: when asked):
	 * what came back from an executor that may lose runs, counted when its command says
	 * some failed or were lost (the runs of a target or of Slurm tasks that fail). */
	size_t before;
	size_t (*count_runs)(void *arg);
	void *count_arg;
};

struct exec_result {
	unsigned stored, lost;
	/* The command's exit status: SB_EXIT_OK all runs stored, SB_EXIT_FAILED some failed or
	 * lost. */
	int exit;
	char why[256]; /* "" or what was lost and why, a line fit for a message */
	char id[32];   /* what the executor knows the runs by (Slurm: the array's job id), or "" */
	bool no_boot;  /* the machine the runs were for did not come up (a guest's kernel) */
};

/* Its settings: each executor reads the ones it needs. */
struct exec_settings {
	/* ssh: the target (URL), the scalebench it runs there, ssh -o options */
	const char *target, *target_bin;
	const char *const *ssh_options;
	size_t n_ssh_options;
	/* slurm: the class of nodes, and how many of the runs one array task makes */
	const char *partition, *constraint;
	unsigned runs_per_task;
	/* qemu: where each commit's bzImage is (DIR/<commit>/bzImage) and its console kept
	 * (console_dir/<commit>.console), and run's --vm-* options, each "--name=value" */
	const char *kernel_cache, *console_dir;
	const char *const *vm_args;
	size_t n_vm_args;
	/* When not NULL: the child's stderr lines printed so far (by this and earlier
	 * requests).  The child's stderr is then read whole and only the lines not in it are
	 * printed (and added): a warning every batch repeats is said once. */
	struct strvec *said;
};

struct executor;
struct strvec;

struct executor_ops {
	const char *name;    /* for messages: "run", "run --target", "submit --wait" */
	const char *command; /* the scalebench command: "run", "submit" */
	/* Its own options, after the request's (scalebench COMMAND JOB --commit ... then these):
	 * e.g. "--target", URL.  NULL: none. */
	int (*args)(const struct executor *e, const struct exec_request *rq, struct strvec *argv);
	/* Whether the child's output is captured (the result is read from it). */
	bool capture;
	/* After the child has exited (its status in r->exit): fill what only this executor
	 * knows (r->id, r->why; r->exit changed, after a message, when the answer says
	 * otherwise); the child's output is out ("" when not captured).  NULL: nothing to
	 * read. */
	void (*finish)(const struct executor *e, const char *out, struct exec_result *r);
	/* Runs can be lost on the way (SB_EXIT_FAILED then means "ask again", not an error). */
	bool may_lose;
	/* The runs may land on machines of different models (the caller checks they did not). */
	bool many_machines;
};

struct executor {
	const struct executor_ops *ops;
	struct exec_settings set;
};

extern const struct executor_ops exec_local_ops, exec_ssh_ops, exec_slurm_ops, exec_qemu_ops;

/* The executor for settings: Slurm when slurm, else QEMU when there is a kernel cache, else
 * ssh when there is a target, else local. */
void executor_init(struct executor *e, bool slurm, const struct exec_settings *set);
/* rq's runs through e: 0 every run stored, 1 runs lost or failed (r says how many), 2 the
 * machine did not come up (r->no_boot; nothing run), -1 error (said), SB_EXIT_INTERRUPTED
 * (the child has been ended). */
int executor_run(const struct executor *e, const struct exec_request *rq, struct exec_result *r);

#endif
