/* The exit status of every command, written once: main.c returns what the command returned,
 * each command's --help says in words what its statuses mean, and code names them from here
 * rather than by number.  The numbers are the interface (scripts, CI, bisect's log read back by
 * --resume): they never change.
 *
 * 1 is each command's own answer, so it has one name per meaning (the same number):
 *
 *	SB_EXIT_FOUND	 compare: a regression; trend: a regression change point; nightly:
 *			 something new mailed
 *	SB_EXIT_NOTHING	 report: nothing to report; results: nothing to list; bisect: the change
 *			 does not reproduce between the endpoints
 *	SB_EXIT_FAILED	 bench, run: a run failed (it is stored) or could not be written; wait,
 *			 submit --wait: a task failed; submit: the --then job refused; split,
 *			 lkp-matrix: an output file could not be written; html: a plot could
 *			 not be written (the site incomplete); profile: a profile
 *			 that cannot be read or has no samples
 *
 * 3 likewise:
 *
 *	SB_EXIT_INCONCLUSIVE  compare: more runs needed; bisect: a step out of --max-runs, the
 *			      culprit not verified, only skipped commits left
 *	SB_EXIT_NO_BOOT	      run --kernel: the guest did not come up
 *
 * Every other command has 0 and 2 only (and 128+N where it catches signals). */
#ifndef SCALEBENCH_EXIT_H
#define SCALEBENCH_EXIT_H

#include <signal.h>

enum sb_exit {
	SB_EXIT_OK = 0, /* done; compare, trend: no regression; nightly: nothing new */
	SB_EXIT_FOUND = 1,
	SB_EXIT_NOTHING = 1,
	SB_EXIT_FAILED = 1,
	/* Bad usage, a bad input (a job file, a results tree, a log), or any other error: what
	 * the command was asked could not be done. */
	SB_EXIT_ERROR = 2,
	SB_EXIT_INCONCLUSIVE = 3,
	SB_EXIT_NO_BOOT = 3,
	/* + N: stopped by signal N (SIGINT, SIGTERM caught, what was half done removed), as a
	 * shell reports a child killed by it. */
	SB_EXIT_SIGNAL_BASE = 128,
	/* bisect and its steps: 130 for SIGINT and SIGTERM alike (the log says which). */
	SB_EXIT_INTERRUPTED = SB_EXIT_SIGNAL_BASE + SIGINT,
};

#endif
