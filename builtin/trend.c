/* scalebench trend: a stat's series over a branch's commits, from the results index, and its
 * change points (analyze/changepoint.h). */
#include "builtin.h"
#include "../analyze/changepoint.h"
#include "../analyze/plot.h"
#include "../analyze/results.h"
#include "../analyze/series.h"
#include "../lib/interrupt.h"
#include "../lib/jsonw.h"
#include "../lib/text.h"
#include "../lib/xalloc.h"
#include "../store/index.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct command_def trend_command = {
    .name = "trend",
    .summary = "A stat's series over a branch's commits, and where it changed.",
    .details =
	"The series has one point per commit: every ok run of the job at that commit, and their\n"
	"mean.  Commits come in the order of their first run, or with --repo in the branch's\n"
	"first-parent order (git rev-list --first-parent; labels that are a commit's sha or a\n"
	"prefix of at least 7 digits, one point for a commit stored under several of them;\n"
	"others are left out).  Without --repo labels are free-form: each is a commit of its\n"
	"own.  The results index (" INDEX_FILE " in the results root) is brought up to date\n"
	"first.\n"
	"\n"
	"Change points: e-divisive means (Matteson & James 2014, as MongoDB's CI and Apache\n"
	"Otava use it) over each commit's mean of log values, each candidate significant by a\n"
	"permutation test (fixed seed: the same tree gives the same answer), at least\n"
	"--min-segment commits on each side; then kept only when Yuen's trimmed t-test on the\n"
	"logs of the runs of the segments around it agrees (p <= 0.05) and the 95% interval of\n"
	"its %change lies beyond +-threshold.  Its direction (regression or improvement) comes\n"
	"from the stat, as the latest commit's runs declare it.  For each: the first commit\n"
	"after it, the segments' means before and after, %change with its interval, the\n"
	"permutation p-value and the verdict.\n"
	"\n"
	"--json prints {\"job\", \"stat\", \"points\": [{\"commit\", \"runs\", \"mean\"}],\n"
	"\"change_points\": [{\"commit\", \"index\", \"before\", \"after\", \"change_pct\", "
	"\"ci_pct\":\n"
	"[lo, hi], \"p\", \"verdict\"}]}.  --plot prints the series as an 80x20 text plot, --png\n"
	"and --svg write it to a file; change points are marked with their %change.\n"
	"\n"
	"exit status: 0 no regression among the change points, 1 a regression change point in\n"
	"the series, 2 error (bad usage, no such job or stat, an unknown branch or --since),\n"
	"128+N interrupted by signal N (a --png/--svg file is not left half written).\n",
    .rules =
	(const struct option_rule[]){
	    {OPTION_CONFLICTS, "plot", "png", NULL},
	    {OPTION_CONFLICTS, "plot", "svg", NULL},
	    {OPTION_CONFLICTS, "png", "svg", NULL},
	    {OPTION_CONFLICTS, "json", "plot",
	     "both print to stdout; write the plot with --png or --svg"},
	    {OPTION_NEEDS, "branch", "repo", "the repository the branch is in"},
	    {OPTION_RULES_END, NULL, NULL, NULL}},
};

/* The stat's direction, as the latest commit's runs declare it (its meta.json). */
static int stat_direction_of(struct results_index *ix, const struct series *s,
			     enum stat_direction *dir)
{
	struct index_commit *c = NULL;
	struct result_group g = {0};
	char err[PATH_MAX + 256];
	const char *last = s->points[s->n - 1].commit;
	ssize_t k = index_commits(ix, s->job, last, &c);

	if (k < 1) {
		sb_error("commit '%s' of %s: not in the results index", text_safe(last),
			 text_safe(s->job));
		index_commits_free(c, k > 0 ? (size_t)k : 0);
		return -1;
	}
	if (group_load(c[0].dir, &g, err, sizeof(err))) {
		sb_error("%s", err);
		index_commits_free(c, (size_t)k);
		return -1;
	}
	*dir = group_stat_direction(&g, 1, s->stat);
	group_free(&g);
	index_commits_free(c, (size_t)k);
	return 0;
}

static const char *direction_words(enum stat_direction dir)
{
	return dir == DIR_HIGHER_BETTER	 ? "higher is better"
	       : dir == DIR_LOWER_BETTER ? "lower is better"
					 : "no better direction";
}

/* Rates of millions read better whole than as 1.23457e+06. */
static void put_value(FILE *out, int width, double v)
{
	if (fabs(v) >= 1e6 && fabs(v) < 1e15)
		fprintf(out, "%*.0f", width, v);
	else
		fprintf(out, "%*.6g", width, v);
}

static void print_text(const struct series *s, const struct change_point *cp, size_t ncp,
		       enum stat_direction dir)
{
	int w = 6;

	for (size_t i = 0; i < s->n; i++) {
		int len = (int)strlen(text_safe(s->points[i].commit));

		if (len > w)
			w = len;
	}
	printf("%s of %s: %zu commit%s, %s\n\n", text_safe(s->stat), text_safe(s->job), s->n,
	       s->n == 1 ? "" : "s", direction_words(dir));
	printf("%-*s  %4s  %14s\n", w, "commit", "runs", "mean");
	for (size_t i = 0, m = 0; i < s->n; i++) {
		/* the change point's line goes before the first commit after it */
		if (m < ncp && cp[m].index == i) {
			printf("%-*s  change point: %+.1f%%\n", w, "----", cp[m].change_pct);
			m++;
		}
		printf("%-*s  %4zu  ", w, text_safe(s->points[i].commit), s->points[i].nruns);
		put_value(stdout, 14, s->points[i].mean);
		putchar('\n');
	}
	if (!ncp) {
		printf("\nno change point\n");
		return;
	}
	printf("\n%zu change point%s:\n", ncp, ncp == 1 ? "" : "s");
	for (size_t m = 0; m < ncp; m++) {
		const struct change_point *c = &cp[m];

		printf("  %s (commit %zu of %zu): ", text_safe(s->points[c->index].commit),
		       c->index + 1, s->n);
		put_value(stdout, 0, c->before);
		fputs(" -> ", stdout);
		put_value(stdout, 0, c->after);
		printf(", %+.2f%% [%+.2f%%, %+.2f%%], p %.3g (Yuen's test %.2g): %s\n",
		       c->change_pct, c->lo_pct, c->hi_pct, c->p, c->test_p,
		       verdict_name(c->verdict));
	}
}

static int print_json(const struct series *s, const struct change_point *cp, size_t ncp)
{
	struct jsonw w;

	jsonw_init(&w, stdout, 2);
	jsonw_begin_object(&w);
	jsonw_key(&w, "job");
	jsonw_string(&w, s->job);
	jsonw_key(&w, "stat");
	jsonw_string(&w, s->stat);
	jsonw_key(&w, "points");
	jsonw_begin_array(&w);
	for (size_t i = 0; i < s->n; i++) {
		jsonw_begin_object(&w);
		jsonw_key(&w, "commit");
		jsonw_string(&w, s->points[i].commit);
		jsonw_key(&w, "runs");
		jsonw_uint(&w, s->points[i].nruns);
		jsonw_key(&w, "mean");
		jsonw_double(&w, s->points[i].mean);
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);
	jsonw_key(&w, "change_points");
	jsonw_begin_array(&w);
	for (size_t m = 0; m < ncp; m++) {
		jsonw_begin_object(&w);
		jsonw_key(&w, "commit");
		jsonw_string(&w, s->points[cp[m].index].commit);
		jsonw_key(&w, "index");
		jsonw_uint(&w, cp[m].index);
		jsonw_key(&w, "before");
		jsonw_double(&w, cp[m].before);
		jsonw_key(&w, "after");
		jsonw_double(&w, cp[m].after);
		jsonw_key(&w, "change_pct");
		jsonw_double(&w, cp[m].change_pct);
		jsonw_key(&w, "ci_pct");
		jsonw_begin_array(&w);
		jsonw_double(&w, cp[m].lo_pct);
		jsonw_double(&w, cp[m].hi_pct);
		jsonw_end_array(&w);
		jsonw_key(&w, "p");
		jsonw_double(&w, cp[m].p);
		jsonw_key(&w, "verdict");
		jsonw_string(&w, verdict_name(cp[m].verdict));
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);
	jsonw_end_object(&w);
	if (jsonw_finish(&w)) {
		sb_error("cannot write the JSON: %s", strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

static int plot_series(const struct series *s, const struct change_point *cp, size_t ncp,
		       enum plot_format fmt, const char *path)
{
	struct plot_trend_point *p = xcalloc(s->n + 1, sizeof(*p));
	struct plot_trend_mark *m = xcalloc(ncp + 1, sizeof(*m));
	char title[1024], err[1024];
	int rc = -1;

	for (size_t i = 0; i < s->n; i++)
		p[i] = (struct plot_trend_point){s->points[i].commit, s->points[i].runs,
						 s->points[i].nruns, s->points[i].mean};
	for (size_t i = 0; i < ncp; i++)
		m[i] = (struct plot_trend_mark){cp[i].index, cp[i].change_pct};
	/* "<path_params>: <stat>", as the other plots name a job: the key's second part */
	const char *pp = strchr(s->job, '/');
	size_t pplen = pp ? strcspn(pp + 1, "/") : 0;

	if (pp && pplen)
		snprintf(title, sizeof(title), "%.*s: %s", (int)pplen, pp + 1, s->stat);
	else
		snprintf(title, sizeof(title), "%s: %s", s->job, s->stat);
	if (plot_trend(title, s->stat, p, s->n, m, ncp, NULL, fmt, path, stdout, err,
		       sizeof(err))) {
		sb_error("%s", err);
		goto out;
	}
	rc = 0;
out:
	free(p);
	free(m);
	return rc;
}

/* trend's command line. */
struct trend_args {
	const char *root, *job, *stat, *repo, *branch, *since, *png, *svg;
	bool json, text_plot;
	unsigned min_segment, permutations;
	double threshold;
};

/* The options into a, checked (at most one plot, and gnuplot for it): -1 to go on, else the
 * exit status. */
static int parse_trend_args(int argc, char **argv, struct trend_args *a)
{
	const struct option_def opts[] = {
	    {OPT_RESULTS(&a->root), .help = "the results root"},
	    {OPT_STRING("job", 0, &a->job), .arg = "PATH_PARAMS", .flags = OPTION_REQUIRED,
	     .help = "the atomic job: its path_params (process-100%-page_fault3) or its key "
		     "testcase/path_params/tbox_group/rootfs/kconfig/compiler"},
	    {OPT_STRING("stat", 0, &a->stat), .arg = "STAT",
	     .def_doc = "the job's headline stat, from its runs' meta.json",
	     .help = "the stat (will-it-scale.per_process_ops)"},
	    {OPT_STRING("repo", 0, &a->repo), .arg = "DIR",
	     .help = "a git repository: order the commits by its branch's first-parent history"},
	    {OPT_STRING("branch", 0, &a->branch), .arg = "B", .def_doc = "HEAD",
	     .help = "the branch of --repo"},
	    {OPT_STRING("since", 0, &a->since), .arg = "DATE|COMMIT",
	     .help = "leave out commits before this date (YYYY-MM-DD) or commit"},
	    {OPT_FLAG("json", 0, &a->json), .help = "print the series and change points as JSON"},
	    {OPT_FLAG("plot", 0, &a->text_plot), .help = "print an 80x20 text plot of the series"},
	    {OPT_STRING("png", 0, &a->png), .arg = "FILE", .help = "write the plot as a PNG"},
	    {OPT_STRING("svg", 0, &a->svg), .arg = "FILE", .help = "write the plot as an SVG"},
	    {OPT_COUNT("min-segment", 0, &a->min_segment), .def = "3", .min = 1, .max = 1000,
	     .help = "commits at least on each side of a change point"},
	    {OPT_COUNT("permutations", 0, &a->permutations), .def = "199", .min = 19, .max = 100000,
	     .help = "permutations of each candidate's test"},
	    {OPT_PERCENT("threshold", 0, &a->threshold), .def = "1",
	     .help = "noise threshold: the %change interval must lie beyond it"},
	    {OPT_END},
	};
	char err[PATH_MAX + 512];
	int first, rc;

	*a = (struct trend_args){.min_segment = 3, .permutations = 199, .threshold = 1};
	rc = options_parse(&trend_command, opts, argc, argv, &first, NULL);
	if (rc >= 0)
		return rc;
	if (first < argc) {
		sb_error("unexpected argument '%s' (see 'scalebench trend --help')",
			 text_safe(argv[first]));
		return SB_EXIT_ERROR;
	}
	if ((a->text_plot || a->png || a->svg) && !plot_available(err, sizeof(err))) {
		sb_error("%s", err);
		return SB_EXIT_ERROR;
	}
	return -1;
}

/* The change points of the series (its commits' runs), as a's options ask for them: how
 * many (in *cp, free() it), or -1 after a message. */
static ssize_t find_changepoints(const struct series *s, enum stat_direction dir,
				 const struct trend_args *a, struct change_point **cp)
{
	struct cp_commit *cc = xcalloc(s->n + 1, sizeof(*cc));
	struct cp_opts co;
	char err[PATH_MAX + 512];
	ssize_t ncp;

	for (size_t i = 0; i < s->n; i++)
		cc[i] = (struct cp_commit){s->points[i].runs, s->points[i].nruns};
	cp_opts_default(&co);
	co.min_segment = a->min_segment;
	co.permutations = a->permutations;
	co.threshold_pct = a->threshold;
	ncp = changepoints_find(cc, s->n, dir, &co, cp, err, sizeof(err));
	if (ncp < 0)
		sb_error("%s", err);
	free(cc);
	return ncp;
}

/* The series and its change points on stdout (as text, or --json), then the plot asked for
 * (--plot, --png, --svg): 0, or -1 after a message. */
static int print_trend(const struct trend_args *a, const struct series *s,
		       const struct change_point *cp, size_t ncp, enum stat_direction dir)
{
	bool plot = a->text_plot || a->png || a->svg;

	if (a->json ? print_json(s, cp, ncp) : (print_text(s, cp, ncp, dir), 0))
		return -1;
	if (plot && s->n) {
		if (!a->json && a->text_plot)
			putchar('\n');
		if (plot_series(s, cp, ncp,
				a->png	 ? PLOT_PNG
				: a->svg ? PLOT_SVG
					 : PLOT_TEXT,
				a->png ? a->png : a->svg))
			return -1;
	} else if (plot && !s->n) {
		sb_error("nothing to plot: no commit of %s has a run with %s", text_safe(s->job),
			 text_safe(a->stat));
		return -1;
	}
	if (fflush(stdout) || ferror(stdout)) {
		sb_error("cannot write the output: %s", strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

static int trend_main(int argc, char **argv)
{
	struct trend_args a;
	struct series_order order;
	struct results_index *ix = NULL;
	struct series s = {0};
	struct change_point *cp = NULL;
	enum stat_direction dir = DIR_NEUTRAL;
	char err[PATH_MAX + 512], *headline = NULL;
	ssize_t ncp = 0;
	int rc = parse_trend_args(argc, argv, &a);

	if (rc >= 0)
		return rc;
	rc = SB_EXIT_ERROR;
	if (index_open(a.root, INDEX_UPDATE, &ix, NULL, err, sizeof(err))) {
		sb_error("%s", err);
		return SB_EXIT_ERROR;
	}
	if (!a.stat) {
		if (series_headline_stat(ix, a.job, &headline, err, sizeof(err))) {
			sb_error("%s", err);
			goto out;
		}
		a.stat = headline;
	}
	order = (struct series_order){.repo = a.repo, .branch = a.branch, .since = a.since};
	if (series_load(ix, a.job, a.stat, &order, &s, err, sizeof(err))) {
		sb_error("%s", err);
		goto out;
	}
	if (s.n && stat_direction_of(ix, &s, &dir))
		goto out;
	ncp = find_changepoints(&s, dir, &a, &cp);
	if (ncp < 0)
		goto out;
	if (print_trend(&a, &s, cp, (size_t)ncp, dir))
		goto out;
	rc = SB_EXIT_OK;
	for (ssize_t m = 0; m < ncp; m++)
		if (cp[m].verdict == V_REGRESSION)
			rc = SB_EXIT_FOUND;
out:
	free(cp);
	free(headline);
	series_free(&s);
	if (ix)
		index_close(ix);
	return rc;
}

int cmd_trend(int argc, char **argv)
{
	int rc;

	/* From the start, as plot does: a signal while gnuplot writes --png/--svg ends gnuplot
	 * and leaves neither the file half written nor its temp file behind. */
	interrupt_catch();
	rc = trend_main(argc, argv);
	if (!interrupt_caught)
		return rc;
	sb_error("interrupted by signal %d; %s", (int)interrupt_caught,
		 rc == SB_EXIT_OK || rc == SB_EXIT_FOUND ? "the output was already complete"
							 : "no plot written");
	return SB_EXIT_SIGNAL_BASE + interrupt_caught;
}
