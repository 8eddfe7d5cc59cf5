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
    .alt = "--scalability JOB.yaml --results DIR --commits A,B[,C] [--png FILE | --svg FILE]",
    .summary = "Plot a stat's runs per group, or scalability against nr_task, with gnuplot.",
    .details = "Each of A, B, ... is a commit directory of a results tree.  The sample plot shows\n"
	       "every run's value, the commits along the x axis (each group's runs in run order\n"
	       "around its commit), one point character per group, every group named in the\n"
	       "legend and the job and stat in the title.  The\n"
	       "scalability plot shows the mean ops/s of one copy's stat against nr_task for each\n"
	       "commit, with the standard deviation as error bars.\n",
    .rules = (const struct option_rule[]){{OPTION_CONFLICTS, "png", "svg", NULL},
					  {OPTION_RULES_END, NULL, NULL, NULL}},
};

static int sample_plot(char **dirs, size_t n, const char *stat, enum plot_format fmt,
		       const char *path)
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
	if (plot_samples(title, s, n, fmt, path, stdout, err, sizeof(err))) {
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
static int scalability_plot(const char *job_path, const char *root, const char *commits,
			    const char *stat, enum plot_format fmt, const char *path)
{
	struct job_file job;
	struct sweep *ser = NULL;
	struct sweep_item *items = NULL;
	struct plot_xy_series *s = NULL;
	char err[1024], **labels = NULL, *ylabel = NULL, **names = NULL;
	double *xy = NULL;
	long nc;
	ssize_t ns = -1;
	size_t nlines = 0;
	int rc = SB_EXIT_ERROR;

	if (job_load(job_path, (unsigned)sysconf(_SC_NPROCESSORS_ONLN), &job, err, sizeof(err))) {
		sb_error("%s", err);
		return SB_EXIT_ERROR;
	}
	nc = commit_list_split(commits, &labels);
	items = xcalloc(job.n_atomic + 1, sizeof(*items));
	if (nc >= 0) {
		for (size_t a = 0; a < job.n_atomic; a++)
			items[a] = (struct sweep_item){.test = job.atomic[a].test,
						       .mode = tc_mode_name(job.atomic[a].mode),
						       .nr_task = job.atomic[a].nr_task,
						       .index = a};
		ns = sweep_group(items, job.n_atomic, &ser);
	}
	/* Neither fails but for memory. */
	if (nc < 0 || ns < 0)
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
	if (plot_scalability("scalability", stat ? stat : ylabel, s, nlines, fmt, path, stdout, err,
			     sizeof(err))) {
		if (!interrupt_caught)
			sb_error("%s", err);
		goto out;
	}
	rc = SB_EXIT_OK;
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
		   *commits = NULL;
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
	    {OPT_RESULTS_OPTIONAL(&root), .help = "results root (with --scalability)"},
	    {OPT_STRING("commits", 0, &commits), .arg = "A,B[,C]",
	     .help = "commit labels (with --scalability)"},
	    {OPT_END},
	};
	enum plot_format fmt;
	char err[512];
	int first, rc = options_parse(&plot_command, opts, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	fmt = png ? PLOT_PNG : svg ? PLOT_SVG : PLOT_TEXT;
	path = png ? png : svg;
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
		return scalability_plot(job, root, commits, stat, fmt, path);
	}
	return sample_plot(argv + first, (size_t)(argc - first), stat, fmt, path);
}
