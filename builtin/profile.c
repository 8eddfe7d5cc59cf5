/* scalebench profile: a run's perf-profile call chains as a perf-report-like tree. */
#include "builtin.h"
#include "../analyze/profile_report.h"
#include "../lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>

const struct command_def profile_command = {
    .name = "profile",
    .args = "DIR...",
    .summary = "Show perf-profile call chains as a perf-report-like tree.",
    .details = "Each DIR is a run's directory, written by 'scalebench run' with the perf-profile\n"
	       "monitor in the job (perf-profile: {freq: 1000}), or a commit's directory: all\n"
	       "its numbered runs.  The samples of every run given add up to one profile.  Each\n"
	       "symbol is shown with its children and self percentages of all samples and,\n"
	       "below it, the callers it was reached through, callee first.\n"
	       "Only the samples of the run's own processes count (the testcase's copies and\n"
	       "every process below them, followed through fork and exec); --all-tasks shows\n"
	       "every task the machine ran, as sampled.  Runs stored before samples were\n"
	       "attributed show every task, and the header says so.\n"
	       "With --diff, BASE and HEAD (each a run or a commit directory) are compared as\n"
	       "the robot does: each perf-profile.{self,children,calltrace} stat with the mean\n"
	       "of BASE's runs (and their spread when over 2%), the change in points, HEAD's\n"
	       "mean; the largest changes first.\n",
};

int cmd_profile(int argc, char **argv)
{
	struct profile_runs t;
	char err[8192];
	bool by_self = false, all_tasks = false, diff = false;
	double min_pct;
	const struct option_def opts[] = {
	    {OPT_FLAG("children", 0, &by_self), .flags = OPTION_CLEAR,
	     .help = "sort by children: samples with the symbol anywhere in the chain (the "
		     "default)"},
	    {OPT_FLAG("self", 0, &by_self),
	     .help = "sort by self: samples whose leaf is the symbol"},
	    {OPT_FLAG("all-tasks", 0, &all_tasks),
	     .help = "every task's samples, not only the run's own processes'"},
	    {OPT_FLAG("diff", 0, &diff),
	     .help = "compare two DIRs, BASE then HEAD: the robot's perf-profile rows"},
	    {OPT_PERCENT("min", 0, &min_pct), .def = "0.5",
	     .help = "leave out symbols and branches under this share of the samples"},
	    {OPT_END},
	};
	int first, status = options_parse(&profile_command, opts, argc, argv, &first, NULL);

	if (status >= 0)
		return status;
	status = SB_EXIT_OK;
	if (argc - first < 1) {
		options_usage(&profile_command, opts, stderr);
		return SB_EXIT_ERROR;
	}
	if (diff) {
		if (argc - first != 2) {
			sb_error("--diff takes two directories, BASE and HEAD; got %d", argc - first);
			return SB_EXIT_ERROR;
		}
		if (profile_print_diff(argv[first], argv[first + 1], all_tasks, min_pct, stdout,
				       err, sizeof(err))) {
			sb_error("%s", err);
			return SB_EXIT_FAILED;
		}
		return SB_EXIT_OK;
	}
	if (profile_runs_init(&t))
		xalloc_die();
	t.all_tasks = all_tasks;
	for (int i = first; i < argc && !status; i++)
		if (profile_runs_add(&t, argv[i], err, sizeof(err))) {
			sb_error("%s", err);
			status = SB_EXIT_FAILED;
		}
	if (!status && !t.p.samples) {
		sb_error("%s%s: the profile has no samples%s", argv[first],
			 argc - first > 1 ? " ..." : "",
			 all_tasks || t.unattributed == t.runs
			     ? ""
			     : " of the run's own processes (--all-tasks shows every task's)");
		status = SB_EXIT_FAILED;
	}
	if (status) {
		profile_runs_free(&t);
		return status;
	}
	printf("# event %s, %u run%s, %lld lost, %s\n", t.event, t.runs, t.runs == 1 ? "" : "s",
	       (long long)t.lost,
	       all_tasks	       ? "all tasks"
	       : t.unattributed == t.runs ? "all tasks (stored before samples were attributed)"
	       : t.unattributed	       ? "the run's own processes (all tasks of runs stored before "
					 "samples were attributed)"
					 : "the run's own processes");
	profile_print_report(&t.p, stdout, by_self, min_pct);
	profile_runs_free(&t);
	return SB_EXIT_OK;
}
