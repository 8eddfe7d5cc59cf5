/* scalebench profile: a run's perf-profile call chains as a perf-report-like tree. */
#include "builtin.h"
#include "../analyze/profile_report.h"

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
	       "below it, the callers it was reached through, callee first.\n",
};

int cmd_profile(int argc, char **argv)
{
	struct profile_runs t;
	char err[8192];
	bool by_self = false;
	double min_pct;
	const struct option_def opts[] = {
	    {OPT_FLAG("children", 0, &by_self), .flags = OPTION_CLEAR,
	     .help = "sort by children: samples with the symbol anywhere in the chain (the "
		     "default)"},
	    {OPT_FLAG("self", 0, &by_self),
	     .help = "sort by self: samples whose leaf is the symbol"},
	    {OPT_PERCENT("min", 0, &min_pct), .def = "0.5",
	     .help = "leave out symbols and branches under this share of the samples"},
	    {OPT_END},
	};
	int first, status = options_parse(&profile_command, opts, argc, argv, &first, NULL);

	if (status >= 0)
		return status;
	status = 0;
	if (argc - first < 1) {
		options_usage(&profile_command, opts, stderr);
		return 2;
	}
	if (profile_runs_init(&t)) {
		sb_error("out of memory");
		return 1;
	}
	for (int i = first; i < argc && !status; i++)
		if (profile_runs_add(&t, argv[i], err, sizeof(err))) {
			sb_error("%s", err);
			status = 1;
		}
	if (!status && !t.p.samples) {
		sb_error("%s%s: the profile has no samples", argv[first],
			 argc - first > 1 ? " ..." : "");
		status = 1;
	}
	if (status) {
		profile_runs_free(&t);
		return status;
	}
	printf("# event %s, %u run%s, %lld lost\n", t.event, t.runs, t.runs == 1 ? "" : "s",
	       (long long)t.lost);
	profile_print_report(&t.p, stdout, by_self, min_pct);
	profile_runs_free(&t);
	return 0;
}
