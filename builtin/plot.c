/* scalebench plot: a stat's runs per group as the robot plots them, or a scalability plot. */
#include "builtin.h"
#include "../analyze/plot.h"
#include "../analyze/results.h"
#include "../analyze/select.h"
#include "../analyze/stats.h"
#include "../runner/job.h"
#include "../store/sweep.h"
#include "../lib/interrupt.h"
#include "../lib/xalloc.h"
#include "../testcases/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct command_def plot_command = {
    .name = "plot",
    .args = "A B [C ...]",
    .alt = "--results DIR [--job JOB] --commits A,B[,C] [options]\n"
	   "--scalability JOB.yaml --results DIR --commits A,B[,C] [--png FILE | --svg FILE]",
    .summary = "Plot a stat's runs per group, or scalability against nr_task, with gnuplot.",
    .details =
	"Each of A, B, ... is a commit directory of a results tree; or pick them as compare\n"
	"does, --results, --commits and --job (one plot per atomic job).  The sample plot\n"
	"shows every run's value, the commits along the x axis (each group's runs in run\n"
	"order around its commit), one point character per group and each group's mean\n"
	"marked, every group named in the legend and the job and stat in the title.  The\n"
	"scalability plot shows the mean ops/s of one copy's stat against nr_task for each\n"
	"commit, with the standard deviation as error bars.  A PNG's or SVG's y axis starts\n"
	"at zero (--y-auto: the data's range, as the text plot's).  Neither needs the\n"
	"plug-in of a plug-in's runs: their meta.json says what they are.\n",
    .rules = (const struct option_rule[]){{OPTION_CONFLICTS, "png", "svg", NULL},
					  {OPTION_CONFLICTS, "scalability", "job",
					   "--scalability names the job file"},
					  {OPTION_NEEDS, "y-auto", "png svg", NULL},
					  {OPTION_RULES_END, NULL, NULL, NULL}},
};

static int sample_plot(char **dirs, size_t n, const char *stat, enum plot_format fmt,
		       unsigned flags, const char *path)
{
	struct result_group *g = xcalloc(n + 1, sizeof(*g));
	struct plot_series *s = xcalloc(n + 1, sizeof(*s));
	double *vals = NULL;
	char err[1024], title[1024];
	size_t loaded = 0, total = 0;
	int rc = SB_EXIT_ERROR;

	if (n < 1) {
		sb_error("expected group directories, got none");
		goto out;
	}
	for (; loaded < n; loaded++) {
		if (group_load(dirs[loaded], &g[loaded], err, sizeof(err))) {
			sb_error("%s", err);
			goto out;
		}
		for (size_t i = 0; i < g[loaded].nnotes; i++)
			sb_note("%s", g[loaded].notes[i]);
		total += g[loaded].nruns;
	}
	if (!stat)
		stat = group_headline_stat(g, n);
	if (!stat) {
		sb_error("%s: the runs' meta.json declares no headline stat; name "
			 "one with --stat",
			 g[0].dir);
		goto out;
	}
	vals = xcalloc(total + 1, sizeof(*vals));
	total = 0;
	for (size_t i = 0; i < n; i++) {
		s[i] = (struct plot_series){.label = g[i].commit,
					    .y = vals + total,
					    .n = group_values(&g[i], stat, vals + total)};
		total += g[i].nruns;
		if (!s[i].n) {
			sb_error("%s: no run has the stat '%s'", g[i].dir, stat);
			goto out;
		}
	}
	group_plot_title(&g[0], stat, title, sizeof(title));
	if (interrupt_caught)
		goto out;
	if (plot_samples(title, s, n, fmt, flags, path, stdout, err, sizeof(err))) {
		if (!interrupt_caught)
			sb_error("%s", err);
		goto out;
	}
	rc = SB_EXIT_OK;
out:
	for (size_t i = 0; i < loaded; i++)
		group_free(&g[i]);
	free(g);
	free(s);
	free(vals);
	return rc;
}

/* The commits as stored labels, resolved among the directories of the jobs (njobs 0: every
 * job) as compare resolves its --commits (select_commit_list); the labels in *labels (one
 * allocation), how many, or -1 after a message. */
static long stored_labels(const char *root, const char *const *jobs, size_t njobs, const char *repo,
			  const char *commits, char ***labels, char **joined)
{
	char err[2048];
	long nc;

	if (select_commit_list(root, jobs, njobs, repo, "--commits", commits, joined, err,
			       sizeof(err)) != SELECT_OK) {
		sb_error("%s", err);
		return -1;
	}
	nc = commit_list_split(*joined, labels);
	if (nc < 0)
		xalloc_die();
	return nc;
}

/* compare's selection: --results, --commits and --job (a job file: each of its atomic jobs;
 * a path_params or a key: that one; none: every atomic job all the commits have), the runs
 * of each at each commit by select.h's one policy; one sample plot per job.  A PNG or SVG
 * is one plot: one job. */
static int selected_plots(const char *root, const char *job_arg, const char *repo,
			  const char *commits, const char *stat, enum plot_format fmt,
			  unsigned flags, const char *path)
{
	struct job_file job = {0};
	bool have_job = job_arg && access(job_arg, F_OK) == 0;
	char **jobs = NULL, **labels = NULL, *joined = NULL, err[2048];
	size_t nj = 0, plotted = 0;
	ssize_t common = 0;
	long nc;
	int rc = SB_EXIT_OK;

	if (have_job && job_load_results(job_arg, (unsigned)sysconf(_SC_NPROCESSORS_ONLN), &job,
					 err, sizeof(err))) {
		sb_error("%s", err);
		return SB_EXIT_ERROR;
	}
	nj = have_job ? job.n_atomic : job_arg ? 1 : 0;
	jobs = xcalloc(nj + 1, sizeof(*jobs));
	for (size_t j = 0; j < nj; j++)
		jobs[j] = have_job ? job.atomic[j].path_params : (char *)job_arg;
	nc = stored_labels(root, (const char *const *)jobs, nj, repo, commits, &labels, &joined);
	if (nc >= 0 && !job_arg) {
		free(jobs);
		common = select_common_jobs(root, labels, (size_t)nc, &jobs);
		if (common < 0)
			xalloc_die();
		nj = (size_t)common;
	}
	if (nc < 0) {
		rc = SB_EXIT_ERROR;
	} else if (!nj) {
		sb_error("no atomic job has runs at every commit of '%s' under %s", joined, root);
		rc = SB_EXIT_ERROR;
	} else if (fmt != PLOT_TEXT && nj > 1) {
		sb_error("--%s draws one plot, and %zu atomic jobs are selected; name one with "
			 "--job (its path_params or key)",
			 fmt == PLOT_PNG ? "png" : "svg", nj);
		rc = SB_EXIT_ERROR;
	}
	for (size_t j = 0; rc == SB_EXIT_OK && j < nj && !interrupt_caught; j++) {
		char **d = NULL;
		size_t nd = 0;
		enum select_result r = select_commits_dirs(root, jobs[j], labels, (size_t)nc, &d,
							   &nd, err, sizeof(err));

		/* An atomic job of the file not run at every commit: the others are plotted. */
		if (r == SELECT_NONE && nj > 1) {
			sb_note("%s: not plotted", err);
		} else if (r != SELECT_OK) {
			sb_error("%s", err);
			rc = SB_EXIT_ERROR;
		} else {
			if (plotted++)
				putchar('\n');
			rc = sample_plot(d, nd, stat, fmt, flags, path);
		}
		for (size_t k = 0; k < nd; k++)
			free(d[k]);
		free(d);
	}
	if (rc == SB_EXIT_OK && !plotted && nj) {
		sb_error("none of the %zu atomic jobs has runs at every commit of '%s' under %s",
			 nj, joined, root);
		rc = SB_EXIT_ERROR;
	}
	if (common > 0)
		for (size_t j = 0; j < nj; j++)
			free(jobs[j]);
	free(jobs);
	free(labels);
	free(joined);
	if (have_job)
		job_free(&job);
	return rc;
}

/* One point of a scalability line: the mean and stddev of a stat over the runs of one atomic
 * job at one commit (the headline stat unless one is named).  Returns 1 with the point, 0
 * when there is none (no runs there, none usable after a note, none with the stat), -1 after
 * a message when the job is ambiguous there (select.h).  *used names the stat of the points
 * so far, for the axis: the headline stats of several tests or modes can differ. */
static int scalability_point(const char *root, const char *path_params, const char *commit,
			     const char *stat, double *y, double *e, char **used)
{
	struct result_group *g;
	struct stat_summary sum = {0};
	char err[1024];
	size_t ng, nv = 0;
	enum select_result r =
	    select_groups(root, path_params, commit, 0, &g, &ng, err, sizeof(err));

	if (r == SELECT_AMBIGUOUS) {
		sb_error("%s", err);
		return -1;
	}
	if (r == SELECT_ERROR) /* a directory of incomplete runs: no point, and why */
		sb_note("%s", err);
	if (r == SELECT_OK) {
		const char *st = stat ? stat : group_headline_stat(g, 1);
		double *v = xcalloc(g->nruns + 1, sizeof(*v));

		nv = st ? group_values(g, st, v) : 0;
		/* Mean and sample stddev: the analyzer's own summary. */
		stat_summarize(v, nv, &sum);
		if (nv && (!*used || strcmp(*used, st))) {
			bool first = !*used;

			free(*used);
			*used = xstrdup(first ? st : "headline stat");
		}
		free(v);
		select_groups_free(g, ng);
	}
	*y = sum.mean;
	*e = sum.stddev;
	return nv > 0;
}

/* One line per commit (and per test and mode, when the job has several): the stat's mean
 * against nr_task, from the job's atomic jobs. */
static int scalability_plot(const char *job_path, const char *root, const char *repo,
			    const char *commits, const char *stat, enum plot_format fmt,
			    unsigned flags, const char *path)
{
	struct job_file job;
	struct sweep *ser = NULL;
	struct sweep_item *items = NULL;
	struct plot_xy_series *s = NULL;
	char err[1024], **labels = NULL, *ylabel = NULL, **names = NULL, *joined = NULL, *title;
	const char **jobs;
	double *xy = NULL;
	long nc;
	ssize_t ns = -1;
	size_t nlines = 0;
	int rc = SB_EXIT_ERROR;

	/* The runs say what they are (meta.json): a plug-in's job needs no plug-in here. */
	if (job_load_results(job_path, (unsigned)sysconf(_SC_NPROCESSORS_ONLN), &job, err,
			     sizeof(err))) {
		sb_error("%s", err);
		return SB_EXIT_ERROR;
	}
	jobs = xcalloc(job.n_atomic + 1, sizeof(*jobs));
	for (size_t a = 0; a < job.n_atomic; a++)
		jobs[a] = job.atomic[a].path_params;
	nc = stored_labels(root, jobs, job.n_atomic, repo, commits, &labels, &joined);
	free(jobs);
	if (nc < 0) {
		job_free(&job);
		return SB_EXIT_ERROR;
	}
	items = xcalloc(job.n_atomic + 1, sizeof(*items));
	{
		for (size_t a = 0; a < job.n_atomic; a++)
			items[a] = (struct sweep_item){.test = job.atomic[a].test,
						       .mode = tc_mode_name(job.atomic[a].mode),
						       .nr_task = job.atomic[a].nr_task,
						       .index = a};
		ns = sweep_group(items, job.n_atomic, &ser);
	}
	/* It fails but for memory. */
	if (ns < 0)
		xalloc_die();
	s = xcalloc((size_t)nc * (size_t)ns + 1, sizeof(*s));
	names = xcalloc((size_t)nc * (size_t)ns + 1, sizeof(*names));
	/* x, y and the error bar of every point of every line */
	xy = xcalloc(3 * (size_t)nc * job.n_atomic + 1, sizeof(*xy));
	for (size_t c = 0, at = 0; c < (size_t)nc; c++) {
		size_t points = 0;

		for (size_t k = 0; k < (size_t)ns; k++) {
			struct plot_xy_series *line = &s[nlines];
			double *x = xy + at, *y = x + ser[k].n, *e = y + ser[k].n;

			at += 3 * ser[k].n;

			*line =
			    (struct plot_xy_series){.label = labels[c], .x = x, .y = y, .yerr = e};
			for (size_t t = 0; t < ser[k].n; t++) {
				const struct atomic_job *aj = &job.atomic[ser[k].items[t].index];

				int p = scalability_point(root, aj->path_params, labels[c], stat,
							  &y[line->n], &e[line->n], &ylabel);

				if (p < 0)
					goto out;
				if (p)
					x[line->n++] = aj->nr_task;
			}
			if (!line->n)
				continue;
			points += line->n;
			if (ns > 1)
				line->label = names[nlines] =
				    xasprintf("%s %s %s", labels[c], ser[k].test, ser[k].mode);
			nlines++;
		}
		if (!points) {
			sb_error("no runs of %s at commit '%s' under %s", job_path, labels[c],
				 root);
			goto out;
		}
	}
	if (interrupt_caught)
		goto out;
	/* The job is the job file here, its atomic jobs the points. */
	title = xasprintf("scalability of %s: %s", job.name, stat ? stat : ylabel);
	rc = plot_scalability(title, stat ? stat : ylabel, s, nlines, fmt, flags, path, stdout, err,
			      sizeof(err))
		 ? SB_EXIT_ERROR
		 : SB_EXIT_OK;
	if (rc && !interrupt_caught)
		sb_error("%s", err);
	free(title);
out:
	for (size_t i = 0; names && i < nlines; i++)
		free(names[i]);
	free(names);
	free(s);
	free(xy);
	free(ylabel);
	free(items);
	sweep_free(ser, ns > 0 ? (size_t)ns : 0);
	free(labels);
	free(joined);
	job_free(&job);
	return rc;
}

static int plot_main(int argc, char **argv);

int cmd_plot(int argc, char **argv)
{
	int rc;

	/* From the start: gnuplot's temp output is removed when a signal ends it. */
	interrupt_catch();
	rc = plot_main(argc, argv);
	if (!interrupt_caught)
		return rc;
	sb_error("interrupted by signal %d; %s", (int)interrupt_caught,
		 rc ? "no plot written" : "the plot was already complete");
	return SB_EXIT_SIGNAL_BASE + interrupt_caught;
}

static int plot_main(int argc, char **argv)
{
	const char *stat = NULL, *png = NULL, *svg = NULL, *path, *job = NULL, *root = NULL,
		   *commits = NULL, *job_arg = NULL, *repo = NULL;
	bool y_auto = false;
	const struct option_def opts[] = {
	    {OPT_STRING("stat", 0, &stat), .arg = "STAT",
	     .def_doc = "the runs' headline stat, from their meta.json",
	     .help = "the stat to plot"},
	    {OPT_STRING("png", 0, &png), .arg = "FILE",
	     .help = "write a PNG instead of the 80x20 text plot"},
	    {OPT_STRING("svg", 0, &svg), .arg = "FILE",
	     .help = "write an SVG instead of the 80x20 text plot"},
	    {OPT_STRING("scalability", 0, &job), .arg = "JOB.yaml",
	     .help = "ops/s against nr_task, one line per commit, from the job's atomic jobs "
		     "(with --results, --commits)"},
	    {OPT_RESULTS_OPTIONAL(&root),
	     .help = "results root to pick groups from (with --commits; --job or --scalability)"},
	    {OPT_STRING("job", 0, &job_arg), .arg = "JOB",
	     .help = "as compare's: a job file (a plot per atomic job), one atomic job's "
		     "path_params or its key; without it, every atomic job the commits all have"},
	    {OPT_STRING("commits", 0, &commits), .arg = "A,B[,C]",
	     .help = "commits to plot, as compare takes them: stored labels, or a sha's first 4 "
		     "or more hex digits"},
	    {OPT_STRING("repo", 0, &repo), .arg = "DIR",
	     .help = "the git repository: --commits may be any revision (a tag, a branch, "
		     "HEAD~2)"},
	    {OPT_FLAG("y-auto", 0, &y_auto),
	     .help = "a PNG's or SVG's y axis spans the data, not from zero"},
	    {OPT_END},
	};
	enum plot_format fmt;
	unsigned flags;
	char err[512];
	int first, rc = options_parse(&plot_command, opts, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	fmt = png ? PLOT_PNG : svg ? PLOT_SVG : PLOT_TEXT;
	path = png ? png : svg;
	flags = y_auto ? PLOT_Y_AUTO : 0;
	if (!plot_available(err, sizeof(err))) {
		if (!interrupt_caught)
			sb_error("%s", err);
		return SB_EXIT_ERROR;
	}
	if (job) {
		if (!root || !commits || first < argc) {
			sb_error("--scalability needs --results and --commits, "
				 "and no group directories");
			return SB_EXIT_ERROR;
		}
		return scalability_plot(job, root, repo, commits, stat, fmt, flags, path);
	}
	if (root || commits || job_arg || repo) {
		if (!root || !commits || first < argc) {
			sb_error(
			    "--results and --commits go together (with --job, or every atomic "
			    "job the commits all have; --repo to name them by revision), without "
			    "group directories");
			return SB_EXIT_ERROR;
		}
		return selected_plots(root, job_arg, repo, commits, stat, fmt, flags, path);
	}
	return sample_plot(argv + first, (size_t)(argc - first), stat, fmt, flags, path);
}
