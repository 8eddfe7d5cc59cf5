/* scalebench compare: the commit directories of a comparison found and loaded, and one
 * comparison printed (the robot's table with its notes and plots, or JSON). */
#include "builtin.h"
#include "compare_internal.h"
#include "../analyze/compare.h"
#include "../analyze/plot.h"
#include "../analyze/select.h"
#include "../store/layout.h"
#include "../lib/text.h"
#include "../lib/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void compare_add_dir(char ***dirs, size_t *n, const char *d)
{
	*dirs = xrealloc(*dirs, (*n + 1) * sizeof(**dirs));
	(*dirs)[(*n)++] = xstrdup(d);
}

void compare_free_dirs(char **dirs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
}

int compare_pick_dirs(const char *root, const char *path_params, char **commits, size_t ncommits,
		      char ***dirs, size_t *n, char *err, size_t errlen)
{
	enum select_result r =
	    select_commits_dirs(root, path_params, commits, ncommits, dirs, n, err, errlen);

	return r == SELECT_OK ? 0 : r == SELECT_NONE ? -2 : -1;
}

int compare_load_groups(char **dirs, size_t n, struct result_group *g, const struct compare_opts *o,
			char *err, size_t errlen)
{
	char mix[2048];

	for (size_t i = 0; i < n; i++) {
		if (group_load(dirs[i], &g[i], err, errlen)) {
			while (i--)
				group_free(&g[i]);
			return -1;
		}
		for (size_t k = 0; k < g[i].nnotes; k++)
			sb_note("%s", text_safe(g[i].notes[k]));
	}
	if (!groups_mix_machines(g, n, mix, sizeof(mix)))
		return 0;
	if (o->mix_machines) {
		sb_note("runs measured on machines of different models are compared "
			"(--mix-machines): %s",
			mix);
		return 0;
	}
	snprintf(err, errlen,
		 "runs measured on machines of different models: %s; compare runs of one "
		 "machine model (or --mix-machines to compare them anyway)",
		 mix);
	for (size_t i = 0; i < n; i++)
		group_free(&g[i]);
	return -1;
}

/* The robot's plots under its table: every run of each headline stat shown, per group. */
static void plot_headline(const struct comparison *c, bool all)
{
	char err[512];

	if (!plot_available(err, sizeof(err))) {
		sb_error("no plots: %s", err);
		return;
	}
	if (c->ngroups > PLOT_MAX_SERIES) {
		sb_error("no plots: %zu groups, at most %d fit one plot", c->ngroups,
			 PLOT_MAX_SERIES);
		return;
	}
	for (size_t i = 0; i < c->nrows; i++) {
		const struct stat_row *r = &c->rows[i];
		struct plot_series *s;
		double *v = NULL;
		size_t at = 0;

		if (!r->headline || (!all && !row_is_notable(r, c->ngroups) && c->min_runs >= 2))
			continue;
		for (size_t g = 0; g < c->ngroups; g++)
			at += c->groups[g].nruns;
		s = xcalloc(c->ngroups, sizeof(*s));
		v = xcalloc(at + 1, sizeof(*v));
		printf("\n");
		at = 0;
		for (size_t g = 0; g < c->ngroups; g++) {
			s[g] =
			    (struct plot_series){.label = c->groups[g].commit,
						 .y = v + at,
						 .n = group_values(&c->groups[g], r->name, v + at)};
			at += c->groups[g].nruns;
		}
		char title[1024];

		group_plot_title(&c->groups[0], r->name, title, sizeof(title));
		if (plot_samples(title, s, c->ngroups, PLOT_TEXT, 0, NULL, stdout, err,
				 sizeof(err)))
			sb_error("plot of %s: %s", text_safe(r->name), err);
		free(s);
		free(v);
	}
}

/* Under the table: the groups whose runs were measured on a busy machine, and scalability
 * figures above 100% (more than linear: a busy base or a broken measure, not a fast kernel). */
static void print_machine_notes(const struct comparison *c)
{
	for (size_t g = 0; g < c->ngroups; g++) {
		const char *why;
		size_t n = group_busy_runs(&c->groups[g], &why);

		if (n)
			printf("\nnote: %s: %zu of %zu runs measured on a busy machine%s%s; their "
			       "spread and mean may be other tasks', not the kernel's\n",
			       text_safe(c->groups[g].commit), n, c->groups[g].nruns,
			       why ? ": " : "", why ? text_safe(why) : "");
	}
	for (size_t i = 0; i < c->nrows; i++) {
		const char *name = c->rows[i].name;
		size_t len = strlen(name);

		if (len < 12 || strcmp(name + len - 12, ".scalability"))
			continue;
		for (size_t g = 0; g < c->ngroups; g++)
			if (c->rows[i].sum[g].n && c->rows[i].sum[g].mean > 100)
				printf("\nnote: %s: %s %.0f%% is above linear: suspect (a busy "
				       "machine at the smallest task count, or a broken measure)\n",
				       text_safe(c->groups[g].commit), text_safe(name),
				       c->rows[i].sum[g].mean);
	}
}

/* compare's exit status from the headline's verdict (see the details text). */
static int verdict_status(enum verdict v)
{
	return v == V_REGRESSION     ? SB_EXIT_FOUND
	       : v == V_INCONCLUSIVE ? SB_EXIT_INCONCLUSIVE
				     : SB_EXIT_OK;
}

int compare_dirs(char **dirs, size_t n, const struct compare_opts *o,
		 const struct compare_output *out, char *err, size_t errlen)
{
	struct result_group *groups;
	struct comparison c;
	int rc = SB_EXIT_ERROR;

	if (n < 2) {
		snprintf(err, errlen, "need at least two groups (A B), got %zu", n);
		return SB_EXIT_ERROR;
	}
	groups = xcalloc(n, sizeof(*groups));
	if (compare_load_groups(dirs, n, groups, o, err, errlen)) {
		free(groups);
		return SB_EXIT_ERROR;
	}
	if (compare_groups(groups, n, o, &c, err, errlen))
		goto out;
	if (!c.nrows) {
		snprintf(err, errlen, "the groups have no stat in common%s",
			 o->stat_re ? " matching --stat" : "");
		comparison_free(&c);
		goto out;
	}
	if (c.min_runs < 2 && o->rule == RULE_STATS)
		sb_note("a group has %zu run: no significance test is "
			"possible (at least 2 runs per group, 3-5 to decide small changes); "
			"means and %%change only",
			c.min_runs);
	rc = verdict_status(comparison_headline_verdict(&c));
	if (out->json_into) {
		comparison_write_json(&c, out->job, out->json_into);
	} else {
		print_robot_table(&c, out->all, out->verbose, stdout);
		print_machine_notes(&c);
	}
	if (out->plot && !out->json)
		plot_headline(&c, out->all);
	comparison_free(&c);
out:
	for (size_t i = 0; i < n; i++)
		group_free(&groups[i]);
	free(groups);
	return rc;
}
