/* scalebench compare --format mmtests: MMTests' layout, the commits side by side with one
 * block of rows per task count. */
#include "builtin.h"
#include "compare_internal.h"
#include "../analyze/compare.h"
#include "../analyze/mmtests.h"
#include "../runner/job.h"
#include "../store/sweep.h"
#include "../testcases/registry.h"
#include "../lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One atomic job's comparison across the commits, for one task count of an MMTests table:
 * the headline stat's cells, and the stat and its direction for the title. */
static int mmtests_row(const char *root, const char *path_params, char **commits, size_t nc,
		       const struct compare_opts *o, struct mm_cell *cells, const char **stat,
		       enum stat_direction *dir, char *err, size_t errlen)
{
	struct result_group *g = xcalloc(nc, sizeof(*g));
	struct compare_opts oo = *o;
	struct comparison cmp;
	char **d = NULL;
	size_t nd = 0;
	int rc = SB_EXIT_ERROR;

	if (compare_pick_dirs(root, path_params, commits, nc, &d, &nd, err, errlen) ||
	    compare_load_groups(d, nd, g, o, err, errlen)) {
		compare_free_dirs(d, nd);
		free(g);
		return SB_EXIT_ERROR;
	}
	oo.stat_name = group_headline_stat(g, nd);
	if (!oo.stat_name) {
		snprintf(err, errlen, "%s: the runs' meta.json declares no headline stat", d[0]);
	} else if (compare_groups(g, nd, &oo, &cmp, err, errlen) == 0) {
		for (size_t k = 0; k < nd; k++) {
			double *v = xcalloc(g[k].nruns + 1, sizeof(*v));
			size_t nv = group_values(&g[k], oo.stat_name, v);

			mm_cell_fill(&cells[k], v, nv);
			for (size_t r = 0; k && r < cmp.nrows; r++)
				cells[k].significant = cmp.rows[r].verdict[k] == V_REGRESSION ||
						       cmp.rows[r].verdict[k] == V_IMPROVEMENT;
			free(v);
		}
		if (!*stat) {
			*stat = xstrdup(oo.stat_name);
			*dir = cmp.headline_dir;
		}
		rc = comparison_regressed(&cmp) ? SB_EXIT_FOUND : SB_EXIT_OK;
		comparison_free(&cmp);
	}
	for (size_t k = 0; k < nd; k++)
		group_free(&g[k]);
	free(g);
	compare_free_dirs(d, nd);
	return rc;
}

/* One sweep of the job (a test in one mode at every task count) as an MMTests table. */
static int mmtests_table(const struct job_file *job, const struct sweep *s, const char *root,
			 char **commits, size_t nc, const struct compare_opts *o)
{
	unsigned *tasks = xcalloc(s->n, sizeof(*tasks));
	struct mm_cell *cells = xcalloc(s->n * nc, sizeof(*cells));
	enum stat_direction dir = DIR_HIGHER_BETTER;
	const char *stat = NULL;
	char title[1024], err[4096];
	int rc = SB_EXIT_OK;

	for (size_t t = 0; t < s->n; t++) {
		int r;

		tasks[t] = s->items[t].nr_task;
		r = mmtests_row(root, job->atomic[s->items[t].index].path_params, commits, nc, o,
				&cells[t * nc], &stat, &dir, err, sizeof(err));
		if (r == SB_EXIT_ERROR)
			sb_error("%s", err);
		if (r > rc)
			rc = r;
	}
	/* Rates are will-it-scale's per-copy ops/s; other stats carry their unit in the name. */
	size_t len = stat ? strlen(stat) : 0;
	snprintf(title, sizeof(title), "%s, %s mode: %s%s", s->test, s->mode, stat ? stat : "?",
		 len > 4 && !strcmp(stat + len - 4, "_ops") ? " (ops/s)" : "");
	print_mmtests(stdout, title, (const char *const *)commits, nc, tasks, s->n, cells, dir);
	printf("\n");
	free((char *)stat);
	free(tasks);
	free(cells);
	return rc;
}

/* The job's atomic jobs as sweeps: one test in one mode at every task count. */
static ssize_t job_sweeps(const struct job_file *job, struct sweep **out)
{
	struct sweep_item *items = xcalloc(job->n_atomic + 1, sizeof(*items));
	ssize_t ns;

	for (size_t a = 0; a < job->n_atomic; a++)
		items[a] = (struct sweep_item){.test = job->atomic[a].test,
					       .mode = tc_mode_name(job->atomic[a].mode),
					       .nr_task = job->atomic[a].nr_task,
					       .index = a};
	ns = sweep_group(items, job->n_atomic, out);
	if (ns < 0)
		xalloc_die();
	free(items);
	return ns;
}

int compare_mmtests_tables(const struct job_file *job, const char *root, const char *commits,
			   const struct compare_opts *o)
{
	char **labels = NULL;
	long nc = commit_list_split(commits, &labels);
	struct sweep *s = NULL;
	ssize_t ns = nc < 2 ? 0 : job_sweeps(job, &s);
	int rc = SB_EXIT_OK;

	if (nc < 0)
		xalloc_die();
	if (nc < 2) {
		sb_error("--format mmtests needs two or more commits");
		free(labels);
		return SB_EXIT_ERROR;
	}
	for (ssize_t k = 0; k < ns; k++) {
		int r = mmtests_table(job, &s[k], root, labels, (size_t)nc, o);

		if (r > rc)
			rc = r;
	}
	sweep_free(s, (size_t)ns);
	free(labels);
	return rc;
}
