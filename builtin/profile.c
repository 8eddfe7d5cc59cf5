/* scalebench profile: a run's perf-profile call chains as a perf-report-like tree. */
#include "builtin.h"
#include "../analyze/profile_report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

enum { OPT_CHILDREN = 256, OPT_SELF, OPT_MIN };

static const struct cli_option profile_options[] = {
    {"children", OPT_CHILDREN, NULL,
     "sort by children: samples with the symbol anywhere in the chain (default)"},
    {"self", OPT_SELF, NULL, "sort by self: samples whose leaf is the symbol"},
    {"min", OPT_MIN, "PCT", "leave out symbols and branches under PCT% of samples (default 0.5)"},
    {NULL, 0, NULL, NULL},
};

const struct cli_command profile_command = {
    .name = "profile",
    .usage = "DIR... [--children|--self] [--min PCT]",
    .summary = "Show perf-profile call chains as a perf-report-like tree.",
    .details = "Each DIR is a run's directory, written by 'scalebench run' with the perf-profile\n"
	       "monitor in the job (perf-profile: {freq: 1000}), or a commit's directory: all\n"
	       "its numbered runs.  The samples of every run given add up to one profile.  Each\n"
	       "symbol is shown with its children and self percentages of all samples and,\n"
	       "below it, the callers it was reached through, callee first.\n",
    .options = profile_options,
};

int cmd_profile(int argc, char **argv)
{
	const char *arg;
	struct profile_runs t;
	char err[8192];
	bool by_self = false;
	double min_pct = 0.5;
	char *end;
	int c, status = 0;

	cli_reset();
	while ((c = cli_next(&profile_command, argc, argv, &arg)) != -1) {
		switch (c) {
		case OPT_CHILDREN:
			by_self = false;
			break;
		case OPT_SELF:
			by_self = true;
			break;
		case OPT_MIN:
			errno = 0;
			min_pct = strtod(arg, &end);
			if (errno || end == arg || *end || min_pct < 0 || min_pct > 100) {
				fprintf(stderr,
					"scalebench profile: --min %s: expected a percentage 0 to "
					"100\n",
					arg);
				return 2;
			}
			break;
		case 'h':
			cli_print_help(&profile_command, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (argc - cli_optind() < 1) {
		fprintf(stderr, "usage: scalebench profile %s\n", profile_command.usage);
		return 2;
	}
	if (profile_runs_init(&t)) {
		fprintf(stderr, "scalebench profile: out of memory\n");
		return 1;
	}
	for (int i = cli_optind(); i < argc && !status; i++)
		if (profile_runs_add(&t, argv[i], err, sizeof(err))) {
			fprintf(stderr, "scalebench profile: %s\n", err);
			status = 1;
		}
	if (!status && !t.p.samples) {
		fprintf(stderr, "scalebench profile: %s%s: the profile has no samples\n",
			argv[cli_optind()], argc - cli_optind() > 1 ? " ..." : "");
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
