/* scalebench run: a job file's atomic jobs, K runs each, into the results tree. */
#include "builtin.h"
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

enum {
	OPT_COMMIT = 256,
	OPT_RESULTS,
	OPT_INTERLEAVE,
	OPT_KCONFIG,
	OPT_TMPDIR,
	OPT_DRY_RUN,
	OPT_NO_MONITORS,
	OPT_PLUGIN,
};

static const struct cli_option run_options[] = {
    {"repeat", 'r', "K", "runs per atomic job (default 1)"},
    {"commit", OPT_COMMIT, "LABEL", "the commit axis of the results path (default: uname -r)"},
    {"results", OPT_RESULTS, "DIR", "results root (default ./results)"},
    {"interleave", OPT_INTERLEAVE, NULL, "run the atomic jobs round-robin instead of back to back"},
    {"kconfig", OPT_KCONFIG, "NAME",
     "the kconfig axis (default: the job's kconfig key, else defconfig)"},
    {"tmpdir", OPT_TMPDIR, "DIR",
     "directory for the testcases' temp files (default $TMPDIR or /tmp)"},
    {"dry-run", OPT_DRY_RUN, NULL, "print the atomic jobs and where their runs would go"},
    {"no-monitors", OPT_NO_MONITORS, NULL, "run no monitor, whatever the job says"},
    {"plugin", OPT_PLUGIN, "FILE.so", "load testcases from a plug-in before reading the job (repeatable)"},
    {"quiet", 'q', NULL, "print nothing but errors and notes"},
    {NULL, 0, NULL, NULL},
};

const struct cli_command run_command = {
    .name = "run",
    .usage = "JOB.yaml [options]",
    .summary = "Run a job file's atomic jobs with monitors and store every run.",
    .details =
	"Each run lands in\n"
	"  RESULTS/<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/\n"
	"          <commit>/<run>/\n"
	"holding job.yaml, output, <monitor>.json (perf-profile.json.gz), stats.json and\n"
	"meta.json.  A run is written in a temporary directory and renamed to the first\n"
	"free run number when complete.  Monitors: the job's monitor keys (perf-stat:,\n"
	"proc-vmstat:, perf-profile:, ...), or the default set when it names none.\n"
	"\nexit status: 0 every run stored, 1 a run failed (it is stored) or could not be\n"
	"written, 2 bad usage or job file, 128+N interrupted by signal N (the run in\n"
	"progress is discarded, completed runs stay).\n",
    .options = run_options,
};

int cmd_run(int argc, char **argv)
{
	struct runner_opts o = {
	    .results_root = "results",
	    .repeat = 1,
	    .tty = isatty(STDOUT_FILENO),
	};
	struct job_file job;
	char err[1024], helper_dir[PATH_MAX];
	const char *arg;
	unsigned long k;
	int c, rc;

	cli_reset();
	while ((c = cli_next(&run_command, argc, argv, &arg)) != -1) {
		switch (c) {
		case 'r':
			if (cli_parse_uint(arg, 100000, &k) || k == 0) {
				fprintf(stderr,
					"scalebench run: --repeat '%s': expected a number of runs "
					">= 1\n",
					arg);
				return 2;
			}
			o.repeat = (unsigned)k;
			break;
		case OPT_COMMIT:
			if (!*arg) {
				fprintf(stderr,
					"scalebench run: --commit: expected a non-empty label\n");
				return 2;
			}
			o.commit = arg;
			break;
		case OPT_RESULTS:
			o.results_root = arg;
			break;
		case OPT_INTERLEAVE:
			o.interleave = true;
			break;
		case OPT_KCONFIG:
			o.kconfig = arg;
			break;
		case OPT_TMPDIR:
			o.tmpdir = arg;
			break;
		case OPT_DRY_RUN:
			o.dry_run = true;
			break;
		case OPT_NO_MONITORS:
			o.no_monitors = true;
			break;
		case OPT_PLUGIN:
			if (plugin_load(arg, err, sizeof(err)) < 0) {
				fprintf(stderr, "scalebench run: %s\n", err);
				return 2;
			}
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			cli_print_help(&run_command, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (argc - cli_optind() != 1) {
		fprintf(stderr, "scalebench run: %s; usage: scalebench run JOB.yaml [options]\n",
			cli_optind() >= argc ? "which job file?" : "one job file at a time");
		return 2;
	}
	if (!o.tmpdir)
		o.tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	if (job_load(argv[cli_optind()], (unsigned)sysconf(_SC_NPROCESSORS_ONLN), &job, err,
		     sizeof(err))) {
		fprintf(stderr, "scalebench run: %s\n", err);
		return 2;
	}
	for (size_t i = 0; i < job.n_notes; i++)
		fprintf(stderr, "scalebench run: note: %s\n", job.notes[i]);
	if (!o.dry_run) {
		/* Fail on an unusable results root before the first run, not after it. */
		char probe[PATH_MAX];

		if (store_mkdirs(o.results_root) ||
		    snprintf(probe, sizeof(probe), "%s/.probe-XXXXXX", o.results_root) >=
			(int)sizeof(probe) ||
		    !mkdtemp(probe) || rmdir(probe)) {
			fprintf(stderr,
				"scalebench run: results root '%s' is not writable: %s; expected a "
				"writable directory (--results)\n",
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
