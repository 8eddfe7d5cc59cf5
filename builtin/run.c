/* scalebench run: a job file's atomic jobs, K runs each, into the results tree. */
#include "builtin.h"
#include "../core/core.h"
#include "../runner/job.h"
#include "../runner/run.h"
#include "../store/store.h"
#include "../testcases/registry.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct command_def run_command = {
    .name = "run",
    .args = "JOB.yaml",
    .summary = "Run a job file's atomic jobs with monitors and store every run.",
    .details = "Each run lands in\n"
	       "  RESULTS/<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/\n"
	       "          <commit>/<run>/\n"
	       "holding job.yaml, output, <monitor>.json (perf-profile.json.gz), stats.json and\n"
	       "meta.json.  A run is written in a temporary directory and renamed to the first\n"
	       "free run number when complete.  Monitors: the job's monitor keys (perf-stat:,\n"
	       "proc-vmstat:, perf-profile:, ...), or the default set when it names none.\n"
	       "\nexit status: 0 every run stored, 1 a run failed (it is stored) or could not be\n"
	       "written, 2 bad usage or job file, 128+N interrupted by signal N (the run in\n"
	       "progress is discarded, completed runs stay).\n",
};

int cmd_run(int argc, char **argv)
{
	struct runner_opts o = {.tty = isatty(STDOUT_FILENO)};
	const struct option_def opts[] = {
	    {OPT_COUNT("repeat", 'r', &o.repeat), .arg = "K", .def = "1", .min = 1, .max = 100000,
	     .help = "runs per atomic job"},
	    {OPT_STRING("commit", 0, &o.commit), .arg = "LABEL", .def_doc = "uname -r",
	     .help = "the commit axis of the results path"},
	    {OPT_STRING("results", 0, &o.results_root), .arg = "DIR", .def = "results",
	     .help = "results root"},
	    {OPT_FLAG("interleave", 0, &o.interleave),
	     .help = "run the atomic jobs round-robin instead of back to back"},
	    {OPT_STRING("kconfig", 0, &o.kconfig), .arg = "NAME",
	     .def_doc = "the job's kconfig key, else defconfig", .help = "the kconfig axis"},
	    {OPT_STRING("tmpdir", 0, &o.tmpdir), .arg = "DIR", .def_doc = "$TMPDIR or /tmp",
	     .help = "directory for the testcases' temp files"},
	    {OPT_FLAG("dry-run", 0, &o.dry_run),
	     .help = "print the atomic jobs and where their runs would go"},
	    {OPT_FLAG("no-monitors", 0, &o.no_monitors),
	     .help = "run no monitor, whatever the job says"},
	    {OPT_CALLBACK("plugin", 0, plugin_option, NULL), .arg = "FILE.so",
	     .help = "load testcases from a plug-in before reading the job (repeatable)"},
	    {OPT_FLAG("quiet", 'q', &o.quiet), .help = "print nothing but errors and notes"},
	    {OPT_END},
	};
	struct job_file job;
	char err[1024], helper_dir[PATH_MAX];
	int first, rc;

	/* Before anything is created (the probe, the first run's temp directory): from here a
	 * signal is a flag the runner stops at, never a death that leaves them behind. */
	core_catch_signals();
	rc = options_parse(&run_command, opts, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	if (o.commit && !*o.commit) {
		sb_error("--commit: expected a non-empty label");
		return 2;
	}
	if (argc - first != 1) {
		sb_error("%s; usage: scalebench run JOB.yaml [options]",
			 first >= argc ? "which job file?" : "one job file at a time");
		return 2;
	}
	if (job_load(argv[first], (unsigned)sysconf(_SC_NPROCESSORS_ONLN), &job, err,
		     sizeof(err))) {
		sb_error("%s", err);
		return 2;
	}
	for (size_t i = 0; i < job.n_notes; i++)
		sb_note("%s", job.notes[i]);
	if (!o.dry_run) {
		char probe[PATH_MAX];

		/* Every run would fail in an unusable temp dir, each stored as a failure. */
		o.tmpdir = tmpdir_checked(o.tmpdir);
		if (!o.tmpdir) {
			job_free(&job);
			return 2;
		}
		/* Fail on an unusable results root before the first run, not after it. */
		if (store_mkdirs(o.results_root) ||
		    snprintf(probe, sizeof(probe), "%s/.probe-XXXXXX", o.results_root) >=
			(int)sizeof(probe) ||
		    !mkdtemp(probe) || rmdir(probe)) {
			sb_error("results root '%s' is not writable: %s; expected a "
				 "writable directory (--results)",
				 o.results_root, strerror(errno));
			job_free(&job);
			return 2;
		}
	}
	testcase_helper_dir(helper_dir, sizeof(helper_dir));
	o.helper_dir = helper_dir;
	rc = runner_run(&job, &o);
	job_free(&job);
	return rc;
}
