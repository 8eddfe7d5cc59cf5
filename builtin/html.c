/* scalebench html: a static site of a results tree, regenerated incrementally. */
#include "builtin.h"
#include "../analyze/plot.h"
#include "../analyze/site.h"
#include "../lib/interrupt.h"
#include "../lib/text.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const struct command_def html_command = {
    .name = "html",
    .args = "",
    .summary = "Write a static HTML report of a results tree: trends, change points, comparisons.",
    .details =
	"The site opens from file:// or any web server; it fetches nothing from elsewhere.\n"
	"index.html lists every job with a small trend plot of its stat (the\n"
	"runs' headline stat unless --stat names one) and the latest commit's verdict against\n"
	"the commit before it.  Each job has a page with the trend plot, its change points\n"
	"(e-divisive means, as scalebench trend finds them) and every commit with its runs,\n"
	"failures and mean; each change point and the latest commit have a comparison page:\n"
	"the robot's table, sample plots of the notable headline stats, the scalability plot\n"
	"when the job is one task count of a sweep, and the perf-profile rows when the runs\n"
	"have profiles.  Commits are in the time order of their first run, or with --repo\n"
	"and --branch in the branch's first-parent order.\n"
	"\nWith uPlot (make setup installs it; SCALEBENCH_UPLOT names its directory) the job\n"
	"page's trend is interactive: hover a commit for its subject, mean, runs and spread,\n"
	"drag to zoom, pick any stat of the job; each stat's series is in data/ as a script\n"
	"of JSON and a CSV.  Without it the SVG plots are all there is.\n"
	"\nRunning it again regenerates only what changed: OUT/.scalebench-site.json records\n"
	"what each file was made from (the identities of its runs); a file whose runs are the\n"
	"same is not rewritten, and files the site no longer has are removed.  OUT must be new,\n"
	"empty or a site this command wrote.  Files are created readable by others as the\n"
	"umask allows (0644 and 0755 under 022).\n"
	"\nexit status: 0 the site is complete; 1 a plot could not be written (a full disk:\n"
	"each named; the pages showing it are made again, with it, by the next html); 2 error\n"
	"(nothing is left half-written: each file is whole, the old one or the new one; a\n"
	"symbolic link in the site where a directory belongs is refused, nothing written or\n"
	"removed through it).\n",
    .rules = (const struct option_rule[]){{OPTION_NEEDS, "branch", "repo",
					   "the branch's order comes from the repository"},
					  {OPTION_RULES_END, NULL, NULL, NULL}},
};

/* Where uPlot is (the directory of its uPlot.iife.min.js and uPlot.min.css), into out: as
 * make install puts it (bin/../share/scalebench/uplot, DATADIR/uplot) or as make setup leaves
 * it in the source tree (site-assets/, beside build/ or build/asan/), like run's shipped jobs;
 * SCALEBENCH_UPLOT names it instead.  false after a note when there is none: the site is still
 * whole, its trend plots SVG only. */
static bool html_find_uplot(char *out, size_t len)
{
	static const char *const beside[] = {"/../share/scalebench/uplot",
					     "/../site-assets/node_modules/uplot/dist",
					     "/../../site-assets/node_modules/uplot/dist"};
	const char *env = getenv("SCALEBENCH_UPLOT");
	char exe[PATH_MAX], tried[4 * PATH_MAX + 64] = "", path[PATH_MAX + 32];
	struct stat st;
	ssize_t n;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return true; /* site_generate says what is missing in it */
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (strrchr(exe, '/'))
		*strrchr(exe, '/') = '\0';
	for (size_t i = 0; i < 4; i++) {
		if (i < 3 && !*exe)
			continue;
		if (i < 3)
			snprintf(out, len, "%s%s", exe, beside[i]);
		else
			snprintf(out, len, "%s", SCALEBENCH_DATADIR "/uplot");
		snprintf(path, sizeof(path), "%s/uPlot.iife.min.js", out);
		if (!stat(path, &st) && S_ISREG(st.st_mode))
			return true;
		snprintf(tried + strlen(tried), sizeof(tried) - strlen(tried), "%s%s",
			 *tried ? ", " : "", out);
	}
	sb_note("uPlot not found (looked in %s): the job pages keep their SVG trend plots, with no "
		"interactive plot; run make setup (site-assets/) and make install",
		tried);
	return false;
}

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
	    {OPT_STRING("commit-url", 0, &o.commit_url), .arg = "TEMPLATE",
	     .help = "link every commit shown to the git web's page, %s its sha (e.g. "
		     "https://git.kernel.org/torvalds/c/%s)"},
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
	if (o.commit_url && site_commit_url_check(o.commit_url, err, sizeof(err))) {
		sb_error("--commit-url: %s", err);
		return SB_EXIT_ERROR;
	}
	if (!plot_available(err, sizeof(err))) {
		sb_error("%s", err);
		return SB_EXIT_ERROR;
	}
	char uplot[PATH_MAX];

	if (html_find_uplot(uplot, sizeof(uplot)))
		o.assets = uplot;
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
	if (sum.missing) {
		sb_error("the site is incomplete: %zu plot%s could not be written (%s%s); the next "
			 "html draws %s",
			 sum.missing, sum.missing == 1 ? "" : "s", text_safe(sum.first_missing),
			 sum.missing == 1 ? "" : " and the others named above",
			 sum.missing == 1 ? "it" : "them");
		return SB_EXIT_FAILED;
	}
	return SB_EXIT_OK;
}
