/* scalebench plot: a stat's runs per group as the robot plots them, or a scalability plot. */
#include "builtin.h"
#include "../analyze/plot.h"
#include "../analyze/results.h"
#include "../analyze/stats.h"
#include "../runner/job.h"

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
	       "every run's value in run order, one point character per group: with two groups\n"
	       "the robot's legend, [*] bisect-good sample / [O] bisect-bad sample.  The\n"
	       "scalability plot shows the mean ops/s of one copy's stat against nr_task for each\n"
	       "commit, with the standard deviation as error bars.\n",
};

static int sample_plot(char **dirs, size_t n, const char *stat, enum plot_format fmt,
		       const char *path)
{
	struct result_group g[PLOT_MAX_SERIES];
	struct plot_series s[PLOT_MAX_SERIES];
	double *vals[PLOT_MAX_SERIES] = {0};
	char err[1024];
	size_t loaded = 0;
	int rc = 2;

	if (n < 1 || n > PLOT_MAX_SERIES) {
		fprintf(stderr, "scalebench plot: expected 1 to %d groups, got %zu\n",
			PLOT_MAX_SERIES, n);
		return 2;
	}
	for (; loaded < n; loaded++) {
		if (group_load(dirs[loaded], &g[loaded], err, sizeof(err))) {
			fprintf(stderr, "scalebench plot: %s\n", err);
			goto out;
		}
		for (size_t i = 0; i < g[loaded].nnotes; i++)
			fprintf(stderr, "scalebench plot: note: %s\n", g[loaded].notes[i]);
	}
	if (!stat) {
		/* The headline: whichever per-copy stat the runs have. */
		double probe[1];
		stat = group_values(&g[0], "will-it-scale.per_thread_ops", probe) &&
			       !group_values(&g[0], "will-it-scale.per_process_ops", probe)
			   ? "will-it-scale.per_thread_ops"
			   : "will-it-scale.per_process_ops";
	}
	for (size_t i = 0; i < n; i++) {
		vals[i] = calloc(g[i].nruns + 1, sizeof(double));
		if (!vals[i])
			goto out;
		s[i] = (struct plot_series){.label = n > 2 ? g[i].commit : NULL,
					    .y = vals[i],
					    .n = group_values(&g[i], stat, vals[i])};
		if (!s[i].n) {
			fprintf(stderr, "scalebench plot: %s: no run has the stat '%s'\n", g[i].dir,
				stat);
			goto out;
		}
	}
	if (plot_samples(stat, s, n, fmt, path, stdout, err, sizeof(err))) {
		fprintf(stderr, "scalebench plot: %s\n", err);
		goto out;
	}
	if (n == 2 && fmt == PLOT_TEXT)
		printf("  [*] %s  [O] %s\n", g[0].commit, g[1].commit);
	rc = 0;
out:
	for (size_t i = 0; i < loaded; i++)
		group_free(&g[i]);
	for (size_t i = 0; i < n && i < PLOT_MAX_SERIES; i++)
		free(vals[i]);
	return rc;
}

static int scalability_plot(const char *job_path, const char *root, const char *commits,
			    const char *stat, enum plot_format fmt, const char *path)
{
	struct job_file job;
	struct plot_xy_series s[PLOT_MAX_SERIES];
	double *x[PLOT_MAX_SERIES] = {0}, *y[PLOT_MAX_SERIES] = {0}, *e[PLOT_MAX_SERIES] = {0};
	char err[1024], buf[1024], *save = NULL, *labels[PLOT_MAX_SERIES];
	size_t nc = 0;
	int rc = 2;

	if (job_load(job_path, (unsigned)sysconf(_SC_NPROCESSORS_ONLN), &job, err, sizeof(err))) {
		fprintf(stderr, "scalebench plot: %s\n", err);
		return 2;
	}
	snprintf(buf, sizeof(buf), "%s", commits);
	for (char *c = strtok_r(buf, ",", &save); c && nc < PLOT_MAX_SERIES;
	     c = strtok_r(NULL, ",", &save)) {
		labels[nc] = c;
		x[nc] = calloc(job.n_atomic + 1, sizeof(double));
		y[nc] = calloc(job.n_atomic + 1, sizeof(double));
		e[nc] = calloc(job.n_atomic + 1, sizeof(double));
		if (!x[nc] || !y[nc] || !e[nc])
			goto out;
		s[nc] = (struct plot_xy_series){.label = c, .x = x[nc], .y = y[nc], .yerr = e[nc]};
		size_t k = 0;
		/* Atomic jobs in task-count order: the x axis. */
		for (unsigned task = 1; task <= 4096 && k < job.n_atomic; task++) {
			for (size_t a = 0; a < job.n_atomic; a++) {
				const struct atomic_job *aj = &job.atomic[a];
				struct result_group g;
				char **found;
				size_t nf;

				if (aj->nr_task != task)
					continue;
				nf = results_find(root, aj->path_params, c, &found);
				if (nf == 1 && group_load(found[0], &g, err, sizeof(err)) == 0) {
					const char *st = stat ? stat
							 : aj->mode == TC_MODE_PROCESS
							     ? "will-it-scale.per_process_ops"
							     : "will-it-scale.per_thread_ops";
					double *v = calloc(g.nruns + 1, sizeof(double));
					size_t nv = v ? group_values(&g, st, v) : 0;
					struct stat_summary sum;

					/* Mean and sample stddev: the analyzer's own summary. */
					stat_summarize(v, nv, &sum);
					if (nv) {
						x[nc][k] = task;
						y[nc][k] = sum.mean;
						e[nc][k] = sum.stddev;
						k++;
					}
					free(v);
					group_free(&g);
				}
				for (size_t i = 0; i < nf; i++)
					free(found[i]);
				free(found);
			}
		}
		s[nc].n = k;
		if (!k) {
			fprintf(stderr, "scalebench plot: no runs of %s at commit '%s' under %s\n",
				job_path, c, root);
			nc++;
			goto out;
		}
		nc++;
	}
	if (plot_scalability("scalability", stat ? stat : "ops/s per copy", s, nc, fmt, path,
			     stdout, err, sizeof(err))) {
		fprintf(stderr, "scalebench plot: %s\n", err);
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; i < nc; i++) {
		free(x[i]);
		free(y[i]);
		free(e[i]);
	}
	(void)labels;
	job_free(&job);
	return rc;
}

int cmd_plot(int argc, char **argv)
{
	const char *stat = NULL, *png = NULL, *svg = NULL, *path, *job = NULL, *root = NULL,
		   *commits = NULL;
	const struct option_def opts[] = {
	    {OPT_STRING("stat", 0, &stat), .arg = "STAT",
	     .def_doc = "will-it-scale.per_process_ops, or per_thread_ops",
	     .help = "the stat to plot"},
	    {OPT_STRING("png", 0, &png), .arg = "FILE",
	     .help = "write a PNG instead of the 80x20 text plot"},
	    {OPT_STRING("svg", 0, &svg), .arg = "FILE",
	     .help = "write an SVG instead of the 80x20 text plot"},
	    {OPT_STRING("scalability", 0, &job), .arg = "JOB.yaml",
	     .help = "ops/s against nr_task, one line per commit, from the job's atomic jobs "
		     "(with --results, --commits)"},
	    {OPT_STRING("results", 0, &root), .arg = "DIR",
	     .help = "results root (with --scalability)"},
	    {OPT_STRING("commits", 0, &commits), .arg = "A,B[,C]",
	     .help = "commit labels (with --scalability)"},
	    {OPT_END},
	};
	enum plot_format fmt;
	char err[512];
	int first, rc = options_parse(&plot_command, opts, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	if (png && svg) {
		sb_error("one of --png and --svg");
		return 2;
	}
	fmt = png ? PLOT_PNG : svg ? PLOT_SVG : PLOT_TEXT;
	path = png ? png : svg;
	if (!plot_available(err, sizeof(err))) {
		fprintf(stderr, "scalebench plot: %s\n", err);
		return 2;
	}
	if (job) {
		if (!root || !commits || first < argc) {
			fprintf(stderr,
				"scalebench plot: --scalability needs --results and --commits, "
				"and no group directories\n");
			return 2;
		}
		return scalability_plot(job, root, commits, stat, fmt, path);
	}
	return sample_plot(argv + first, (size_t)(argc - first), stat, fmt, path);
}
