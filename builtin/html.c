/* scalebench html: a static site of a results tree, regenerated incrementally. */
#include "builtin.h"
#include "../analyze/plot.h"
#include "../analyze/site.h"
#include "../lib/interrupt.h"
#include "../lib/text.h"

#include <stdio.h>

const struct command_def html_command = {
    .name = "html",
    .args = "",
    .summary = "Write a static HTML report of a results tree: trends, change points, comparisons.",
    .details =
	"The site opens from file:// or any web server; it fetches nothing from elsewhere and\n"
	"runs no script.  index.html lists every job with a small trend plot of its stat (the\n"
	"runs' headline stat unless --stat names one) and the latest commit's verdict against\n"
	"the commit before it.  Each job has a page with the trend plot, its change points\n"
	"(e-divisive means, as scalebench trend finds them) and every commit with its runs,\n"
	"failures and mean; each change point and the latest commit have a comparison page:\n"
	"the robot's table, sample plots of the notable headline stats, the scalability plot\n"
	"when the job is one task count of a sweep, and the perf-profile rows when the runs\n"
	"have profiles.  Commits are in the time order of their first run, or with --repo\n"
	"and --branch in the branch's first-parent order.\n"
	"\nRunning it again regenerates only what changed: OUT/.scalebench-site.json records\n"
	"what each file was made from (the identities of its runs); a file whose runs are the\n"
	"same is not rewritten, and files the site no longer has are removed.  OUT must be new,\n"
	"empty or a site this command wrote.  Files are created readable by others as the\n"
	"umask allows (0644 and 0755 under 022).\n"
	"\nexit status: 0 the site is complete; 2 error (nothing is left half-written: each\n"
	"file is whole, the old one or the new one).\n",
    .rules = (const struct option_rule[]){{OPTION_NEEDS, "branch", "repo",
					   "the branch's order comes from the repository"},
					  {OPTION_RULES_END, NULL, NULL, NULL}},
};

int cmd_html(int argc, char **argv)
{
	struct site_opts o = {.interrupted = &interrupt_caught};
	struct site_summary sum;
	const struct option_def opts[] = {
	    {OPT_RESULTS(&o.results), .help = "the results root"},
	    {OPT_STRING("output", 'o', &o.out), .arg = "SITE", .flags = OPTION_REQUIRED,
	     .help = "the site's directory"},
	    {OPT_STRING("repo", 0, &o.repo), .arg = "DIR",
	     .help = "a git repository: commits in --branch's first-parent order"},
	    {OPT_STRING("branch", 0, &o.branch), .arg = "B", .def_doc = "HEAD",
	     .help = "the branch whose history orders the commits (with --repo)"},
	    {OPT_STRING("job", 0, &o.job), .arg = "JOB",
	     .help = "only this job (its key or path_params)"},
	    {OPT_STRING("stat", 0, &o.stat), .arg = "STAT",
	     .def_doc = "each job's headline stat, from its runs' meta.json",
	     .help = "the stat to follow"},
	    {OPT_END},
	};
	char err[4096];
	int first, rc = options_parse(&html_command, opts, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	if (first < argc) {
		sb_error("unexpected argument '%s'", argv[first]);
		return SB_EXIT_ERROR;
	}
	if (!plot_available(err, sizeof(err))) {
		sb_error("%s", err);
		return SB_EXIT_ERROR;
	}
	/* A signal stops generation between files: the manifest is written for what is done. */
	interrupt_catch();
	rc = site_generate(&o, &sum, err, sizeof(err));
	if (rc) {
		sb_error("%s", interrupt_caught ? "interrupted: the files written so far are whole"
						: err);
		return interrupt_caught ? SB_EXIT_SIGNAL_BASE + interrupt_caught : SB_EXIT_ERROR;
	}
	printf("%s/index.html: %zu job%s, %zu commit%s, %zu comparison%s; %zu files written, %zu "
	       "unchanged, %zu removed in %.2f s\n",
	       text_safe(o.out), sum.jobs, sum.jobs == 1 ? "" : "s", sum.commits,
	       sum.commits == 1 ? "" : "s", sum.comparisons, sum.comparisons == 1 ? "" : "s",
	       sum.written, sum.kept, sum.removed, sum.seconds);
	return SB_EXIT_OK;
}
