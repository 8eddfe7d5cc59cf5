/* The runner: atomic jobs, run K times each while monitors sample, into the results store. */
#ifndef SCALEBENCH_RUN_H
#define SCALEBENCH_RUN_H

#include "job.h"

#include <stdbool.h>

struct runner_opts {
	const char *results_root; /* "results" */
	const char *commit;	  /* label; NULL: uname -r */
	const char *kconfig;	  /* NULL: the job's kconfig key, else "defconfig" */
	unsigned repeat;	  /* runs per atomic job */
	bool interleave;	  /* round-robin over atomic jobs instead of back to back */
	const char *tmpdir;
	const char *helper_dir;
	bool quiet;
	bool dry_run;
	bool no_monitors; /* measure the testcase alone (overhead comparisons) */
	bool tty;	  /* progress redrawn in place */
	/* Measurements of a run whose copy was starved, at most (run.c); 0: RUN_STARVED_TRIES.
	 * 1 keeps the first, whatever it is (a test that changes the machine mid-run). */
	unsigned starved_tries;
};

/* Run every atomic job of job.  Returns run's exit status (lib/exit.h): SB_EXIT_OK when every
 * run was stored and none failed, SB_EXIT_FAILED when a run failed (it is stored all the same)
 * or could not be written, SB_EXIT_SIGNAL_BASE + N when interrupted by signal N (the run in
 * progress is discarded). */
int runner_run(const struct job_file *job, const struct runner_opts *o);

#endif
