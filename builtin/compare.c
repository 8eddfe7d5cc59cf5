/* scalebench compare: groups of runs, stat by stat, in the robot's layout or as JSON. */
#include "builtin.h"
#include "../analyze/compare.h"
#include "../analyze/mmtests.h"
#include "../analyze/plot.h"
#include "../runner/job.h"
#include "../store/layout.h"
#include "../store/sweep.h"
#include "../lib/text.h"
#include "../testcases/registry.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct command_def compare_command = {
    .name = "compare",
    .args = "A B [C ...]",
    .alt = "--results DIR [--job JOB] --commits A,B[,C] [options]",
    .summary = "Compare groups of runs stat by stat, as the kernel test robot does.",
    .details = "Each of A, B, ... is a commit directory of a results tree (all its runs are one\n"
	       "group); A is the base.  Per stat: mean and %stddev per group, %change against A\n"
	       "(an absolute delta for stats that are percentages and for perf-profile.*), a test\n"
	       "(Welch's t on log values; Yuen's trimmed t when a side has outliers), q-values\n"
	       "(Benjamini-Hochberg; the testcase's own stats are a family of their own), and a\n"
	       "verdict: regression or improvement when q <= 0.05 and the whole 95% interval of\n"
	       "the change lies beyond the threshold, no-change when it lies inside it,\n"
	       "inconclusive otherwise (-v says how many runs would decide).  Which way is better\n"
	       "comes from the runs' meta.json for the headline stat, else from the stat's name\n"
	       "(ops up, time and misses down; monitors neutral).\n"
	       "--rule lkp applies the robot's own rule instead.\n"
	       "With --results and --commits but no --job, every atomic job that all the commits\n"
	       "have is compared, one table each.  --json is always {\"jobs\": [{\"job\": ...,\n"
	       "\"groups\": [...], \"stats\": [{\"name\": ...}, ...]}, ...]}, one entry per job.\n"
	       "\nThe headline stat (the one the runs declare) is always shown with its verdict,\n"
	       "and the closing lines say it in words, with the runs to add when it is\n"
	       "inconclusive.  Robust test: Yuen's 20%-trimmed t on log values (yuen-log) when a\n"
	       "side has an outlier.  A monitor's count has at least counting noise (variance >=\n"
	       "mean) and changes only by 100 events per run or more.\n"
	       "\nexit status (of the headline stat; over several jobs or groups the worst):\n"
	       "  0 no-change or improvement (or no headline stat)\n"
	       "  1 regression\n"
	       "  3 inconclusive: more runs needed (the closing lines say how many)\n"
	       "  2 error (wins over the others)\n",
};

static int add_dir(char ***dirs, size_t *n, const char *d)
{
	char **v = realloc(*dirs, (*n + 1) * sizeof(*v));

	if (!v)
		return -1;
	*dirs = v;
	(*dirs)[(*n)++] = strdup(d);
	return 0;
}

static void free_dirs(char **dirs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
}

/* The commit directory holding one atomic job's runs at one commit; NULL (err says why, the
 * candidates named) when none or several do. */
static char *find_dir(const char *root, const char *path_params, const char *commit, char *err,
		      size_t errlen)
{
	char **found, *dir = NULL;
	size_t k = results_find(root, path_params, commit, &found);

	if (k == 1) {
		dir = found[0];
	} else {
		int len = snprintf(err, errlen, "%s runs of job '%s' at commit '%s' under %s",
				   k ? "ambiguous: several directories hold" : "no directory holds",
				   text_safe(path_params), text_safe(commit), text_safe(root));

		for (size_t i = 0; i < k; i++) {
			if (len >= 0 && (size_t)len < errlen)
				len +=
				    snprintf(err + len, errlen - (size_t)len, "\n  %s",
					     text_safe(found[i]));
			free(found[i]);
		}
	}
	free(found);
	if (!dir)
		errno = k ? EEXIST : ENOENT;
	return dir;
}

/* Commit directories for one atomic job's path_params and each commit label, in order.  -2
 * when a commit has no runs of the job, -1 on any other error; err says which. */
static int pick_dirs(const char *root, const char *path_params, char **commits, size_t ncommits,
		     char ***dirs, size_t *n, char *err, size_t errlen)
{
	for (size_t c = 0; c < ncommits; c++) {
		char *d = find_dir(root, path_params, commits[c], err, errlen);

		if (!d)
			return errno == ENOENT ? -2 : -1;
		if (add_dir(dirs, n, d)) {
			free(d);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		free(d);
	}
	return 0;
}

/* Load n commit directories; notes go to stderr.  -1 with err on the first that fails (the
 * groups loaded before it freed), or when their runs were measured on machines of different
 * models and o does not allow it (a note when it does). */
static int load_groups(char **dirs, size_t n, struct result_group *g,
		       const struct compare_opts *o, char *err, size_t errlen)
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
		s = calloc(c->ngroups, sizeof(*s));
		v = calloc(at + 1, sizeof(*v));
		printf("\n");
		if (!s || !v) {
			sb_error("plot of %s: out of memory", text_safe(r->name));
		} else {
			at = 0;
			for (size_t g = 0; g < c->ngroups; g++) {
				s[g] = (struct plot_series){
				    .label = c->groups[g].commit,
				    .y = v + at,
				    .n = group_values(&c->groups[g], r->name, v + at)};
				at += c->groups[g].nruns;
			}
			char title[1024];

			group_plot_title(&c->groups[0], r->name, title, sizeof(title));
			if (plot_samples(title, s, c->ngroups, PLOT_TEXT, NULL, stdout, err,
					 sizeof(err)))
				sb_error("plot of %s: %s", text_safe(r->name), err);
		}
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

struct compare_output {
	bool json, all, verbose, plot;
	/* With json: the open document's "jobs" array the comparison goes into, with the job's
	 * name */
	struct jsonw *json_into;
	const char *job;
};

/* compare's exit status from the headline's verdict (see the details text). */
static int verdict_status(enum verdict v)
{
	return v == V_REGRESSION ? 1 : v == V_INCONCLUSIVE ? 3 : 0;
}

/* The worse of two exit statuses: error, then regression, then inconclusive. */
static int worse_status(int a, int b)
{
	static const int rank[] = {[0] = 0, [1] = 2, [2] = 3, [3] = 1};

	return rank[b] > rank[a] ? b : a;
}

/* compare's JSON is one shape whatever was compared: {"jobs": [{"job": ..., ...}, ...]}, a
 * script reads one job and many alike.  Each comparison's stats one to a line. */
static void json_open(struct jsonw *w)
{
	jsonw_init(w, stdout, COMPARE_JSON_PRETTY + 2);
	jsonw_begin_object(w);
	jsonw_key(w, "jobs");
	jsonw_begin_array(w);
}

static int json_close(struct jsonw *w)
{
	jsonw_end_array(w);
	jsonw_end_object(w);
	if (jsonw_finish(w)) {
		sb_error("cannot write the JSON to stdout");
		return -1;
	}
	return 0;
}

/* A job's entry that could not be compared: its name and why. */
static void json_job_error(struct jsonw *w, const char *job, const char *why)
{
	jsonw_begin_object(w);
	jsonw_key(w, "job");
	jsonw_string(w, job);
	jsonw_key(w, "error");
	jsonw_string(w, why);
	jsonw_end_object(w);
}

/* Compare n commit directories and print the result: 0, 1 (the headline regressed), 3 (its
 * verdict is inconclusive) or 2 with err set. */
static int compare_dirs(char **dirs, size_t n, const struct compare_opts *o,
			const struct compare_output *out, char *err, size_t errlen)
{
	struct result_group *groups;
	struct comparison c;
	int rc = 2;

	if (n < 2) {
		snprintf(err, errlen, "need at least two groups (A B), got %zu", n);
		return 2;
	}
	groups = calloc(n, sizeof(*groups));
	if (!groups) {
		snprintf(err, errlen, "out of memory");
		return 2;
	}
	if (load_groups(dirs, n, groups, o, err, errlen)) {
		free(groups);
		return 2;
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

/* One atomic job's comparison across the commits, for one task count of an MMTests table:
 * the headline stat's cells, and the stat and its direction for the title. */
static int mmtests_row(const char *root, const char *path_params, char **commits, size_t nc,
		       const struct compare_opts *o, struct mm_cell *cells, const char **stat,
		       enum stat_direction *dir, char *err, size_t errlen)
{
	struct result_group *g = calloc(nc, sizeof(*g));
	struct compare_opts oo = *o;
	struct comparison cmp;
	char **d = NULL;
	size_t nd = 0;
	int rc = 2;

	if (!g) {
		snprintf(err, errlen, "out of memory");
		return 2;
	}
	if (pick_dirs(root, path_params, commits, nc, &d, &nd, err, errlen) ||
	    load_groups(d, nd, g, o, err, errlen)) {
		free_dirs(d, nd);
		free(g);
		return 2;
	}
	oo.stat_name = group_headline_stat(g, nd);
	if (!oo.stat_name) {
		snprintf(err, errlen, "%s: the runs' meta.json declares no headline stat", d[0]);
	} else if (compare_groups(g, nd, &oo, &cmp, err, errlen) == 0) {
		for (size_t k = 0; k < nd; k++) {
			double *v = calloc(g[k].nruns + 1, sizeof(*v));
			size_t nv = v ? group_values(&g[k], oo.stat_name, v) : 0;

			mm_cell_fill(&cells[k], v, nv);
			for (size_t r = 0; k && r < cmp.nrows; r++)
				cells[k].significant = cmp.rows[r].verdict[k] == V_REGRESSION ||
						       cmp.rows[r].verdict[k] == V_IMPROVEMENT;
			free(v);
		}
		if (!*stat) {
			*stat = strdup(oo.stat_name);
			*dir = cmp.headline_dir;
		}
		rc = comparison_regressed(&cmp) ? 1 : 0;
		comparison_free(&cmp);
	}
	for (size_t k = 0; k < nd; k++)
		group_free(&g[k]);
	free(g);
	free_dirs(d, nd);
	return rc;
}

/* One sweep of the job (a test in one mode at every task count) as an MMTests table. */
static int mmtests_table(const struct job_file *job, const struct sweep *s, const char *root,
			 char **commits, size_t nc, const struct compare_opts *o)
{
	unsigned *tasks = calloc(s->n, sizeof(*tasks));
	struct mm_cell *cells = calloc(s->n * nc, sizeof(*cells));
	enum stat_direction dir = DIR_HIGHER_BETTER;
	const char *stat = NULL;
	char title[1024], err[4096];
	int rc = 0;

	if (!tasks || !cells) {
		sb_error("out of memory");
		free(tasks);
		free(cells);
		return 2;
	}
	for (size_t t = 0; t < s->n; t++) {
		int r;

		tasks[t] = s->items[t].nr_task;
		r = mmtests_row(root, job->atomic[s->items[t].index].path_params, commits, nc, o,
				&cells[t * nc], &stat, &dir, err, sizeof(err));
		if (r == 2)
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
	struct sweep_item *items = calloc(job->n_atomic + 1, sizeof(*items));
	ssize_t ns;

	if (!items)
		return -1;
	for (size_t a = 0; a < job->n_atomic; a++)
		items[a] = (struct sweep_item){.test = job->atomic[a].test,
					       .mode = tc_mode_name(job->atomic[a].mode),
					       .nr_task = job->atomic[a].nr_task,
					       .index = a};
	ns = sweep_group(items, job->n_atomic, out);
	free(items);
	return ns;
}

/* MMTests' layout: for each testcase and mode of the job, the commits side by side with one
 * block of rows per task count, significance from the same tests as the robot table. */
static int mmtests_tables(const struct job_file *job, const char *root, const char *commits,
			  const struct compare_opts *o)
{
	char **labels = NULL;
	long nc = commit_list_split(commits, &labels);
	struct sweep *s = NULL;
	ssize_t ns = nc < 2 ? 0 : job_sweeps(job, &s);
	int rc = 0;

	if (nc < 2 || ns < 0) {
		if (nc < 0 || ns < 0)
			sb_error("out of memory");
		else
			sb_error("--format mmtests needs two or more commits");
		free(labels);
		return 2;
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

/* One atomic job to compare: its path_params (the results tree's directory) and its name. */
struct job_ref {
	const char *path_params, *name;
};

/* Every atomic job given compared across the commits, one table each (headed by its name when
 * there are several); as JSON, an entry per job in "jobs", {"job": name, "error": why} for one
 * that could not be compared. */
static int compare_jobs(const struct job_ref *jobs, size_t nj, const char *root,
			const char *commits, const struct compare_opts *o,
			const struct compare_output *out)
{
	char **labels = NULL, err[4096];
	long nc = commit_list_split(commits, &labels);
	struct jsonw w;
	size_t missing = 0;
	int rc = 0;

	if (nc < 0) {
		sb_error("out of memory");
		return 2;
	}
	if (out->json)
		json_open(&w);
	for (size_t j = 0; j < nj; j++) {
		struct compare_output jo = *out;
		char **d = NULL;
		size_t nd = 0;
		int r = 2, p;

		jo.json_into = out->json ? &w : NULL;
		jo.job = jobs[j].name;
		p = pick_dirs(root, jobs[j].path_params, labels, (size_t)nc, &d, &nd, err,
			      sizeof(err));
		/* An atomic job not run at every commit (a big LKP job file run in part): the
		 * others are compared, this one said, and the status is theirs. */
		if (p == -2 && nj > 1) {
			sb_note("%s: not compared", err);
			if (out->json)
				json_job_error(&w, jobs[j].name, err);
			missing++;
			free_dirs(d, nd);
			continue;
		}
		if (nj > 1 && !out->json)
			printf("%s%s\n", j > missing ? "\n" : "", text_safe(jobs[j].name));
		if (p == 0)
			r = compare_dirs(d, nd, o, &jo, err, sizeof(err));
		if (r == 2) {
			sb_error("%s", err);
			if (out->json)
				json_job_error(&w, jobs[j].name, err);
		}
		free_dirs(d, nd);
		rc = worse_status(rc, r);
	}
	if (missing && missing == nj) {
		sb_error("none of the %zu atomic jobs has runs at every commit of '%s' under %s", nj,
			 text_safe(commits), text_safe(root));
		rc = 2;
	}
	if (out->json && json_close(&w))
		rc = 2;
	free(labels);
	return rc;
}

/* The atomic jobs (path_params) that every commit has runs of, in the tree's order; the ones
 * some commit lacks are named in a note.  Returns how many (names in *out, free each and the
 * array), or -1 (message given). */
static ssize_t common_jobs(const char *root, const char *commits, char ***out)
{
	char **labels = NULL, **dirs = NULL, **v = NULL;
	long nc = commit_list_split(commits, &labels);
	ssize_t nd = nc > 0 ? store_find(root, NULL, labels[0], &dirs) : 0;
	size_t n = 0;

	*out = NULL;
	if (nc < 0 || nd < 0 || !(v = calloc((size_t)nd + 1, sizeof(*v)))) {
		sb_error("out of memory");
		nd = nd < 0 ? 0 : nd;
		n = 0;
		goto out;
	}
	for (ssize_t i = 0; i < nd; i++) {
		struct store_axes a;
		char why[512];
		bool seen = false, everywhere = true;

		if (store_parse(dirs[i], STORE_COMMIT_DIR, &a, why, sizeof(why)))
			continue;
		for (size_t k = 0; k < n && !seen; k++)
			seen = !strcmp(v[k], a.path_params);
		for (long c = 1; c < nc && everywhere && !seen; c++) {
			char **found;
			size_t nf = results_find(root, a.path_params, labels[c], &found);

			for (size_t k = 0; k < nf; k++)
				free(found[k]);
			free(found);
			if (!nf) {
				sb_note("job '%s' has runs at commit '%s' but none at '%s': not "
					"compared",
					text_safe(a.path_params), text_safe(labels[0]),
					text_safe(labels[c]));
				everywhere = false;
			}
		}
		if (!seen && everywhere)
			v[n] = strdup(a.path_params);
		n += !seen && everywhere && v[n];
		store_axes_free(&a);
	}
	*out = v;
out:
	for (ssize_t i = 0; i < nd; i++)
		free(dirs[i]);
	free(dirs);
	free(labels);
	return *out ? (ssize_t)n : -1;
}

/* --results R --commits A,B without --job: every atomic job both commits have. */
static int compare_all_jobs(const char *root, const char *commits, const struct compare_opts *o,
			    const struct compare_output *out)
{
	char **pp;
	ssize_t n = common_jobs(root, commits, &pp);
	struct job_ref *jobs = n > 0 ? calloc((size_t)n, sizeof(*jobs)) : NULL;
	int rc = 2;

	if (n == 0)
		sb_error("no atomic job has runs at every commit of '%s' under %s", commits, root);
	else if (n > 0 && !jobs)
		sb_error("out of memory");
	if (jobs) {
		for (ssize_t j = 0; j < n; j++)
			jobs[j] = (struct job_ref){.path_params = pp[j], .name = pp[j]};
		rc = compare_jobs(jobs, (size_t)n, root, commits, o, out);
	}
	for (ssize_t j = 0; j < n; j++)
		free(pp[j]);
	free(pp);
	free(jobs);
	return rc;
}

/* A job file's atomic jobs, or the one path_params given. */
static int compare_job_arg(const struct job_file *job, const char *path_params, const char *root,
			   const char *commits, const struct compare_opts *o,
			   const struct compare_output *out)
{
	size_t nj = job ? job->n_atomic : 1;
	struct job_ref *jobs = calloc(nj + 1, sizeof(*jobs));
	int rc;

	if (!jobs) {
		sb_error("out of memory");
		return 2;
	}
	for (size_t j = 0; j < nj; j++)
		jobs[j] = job ? (struct job_ref){job->atomic[j].path_params, job->atomic[j].name}
			      : (struct job_ref){path_params, path_params};
	rc = compare_jobs(jobs, nj, root, commits, o, out);
	free(jobs);
	return rc;
}

/* Group directories given by path: one comparison; as JSON, one entry named by the first
 * directory's atomic job. */
static int compare_paths(char **dirs, size_t n, const struct compare_opts *o,
			 const struct compare_output *out)
{
	struct compare_output po = *out;
	struct store_axes a = {0};
	char err[1024], why[512];
	struct jsonw w;
	int rc;

	if (out->json) {
		json_open(&w);
		po.json_into = &w;
		if (n && store_parse(dirs[0], STORE_COMMIT_DIR, &a, why, sizeof(why)) == 0)
			po.job = a.path_params;
	}
	rc = compare_dirs(dirs, n, o, &po, err, sizeof(err));
	if (rc == 2) {
		sb_error("%s", err);
		if (out->json)
			json_job_error(&w, po.job ? po.job : "", err);
	}
	if (out->json && json_close(&w))
		rc = 2;
	store_axes_free(&a);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = COMPARE_OPTS_DEFAULT;
	const char *root = NULL, *job_arg = NULL, *commits = NULL, *stat = NULL, *format, *rule;
	bool all = false, verbose = false, json = false, plot = false, mmtests = false;
	const struct option_def opts[] = {
	    {OPT_STRING("results", 0, &root), .arg = "DIR",
	     .help = "results root to pick groups from (with --job, --commits)"},
	    {OPT_STRING("job", 0, &job_arg), .arg = "JOB",
	     .help = "a job file, or one atomic job's path_params (process-100%-page_fault3); "
		     "without it, every atomic job the commits all have"},
	    {OPT_STRING("commits", 0, &commits), .arg = "A,B[,C]",
	     .help = "commit labels to compare, the first is the base"},
	    {OPT_STRING("stat", 0, &stat), .arg = "REGEX",
	     .help = "only stats whose name matches (extended regex)"},
	    {OPT_FLAG("all", 0, &all),
	     .help = "show every stat, not only those that changed significantly"},
	    {OPT_FLAG("verbose", 'v', &verbose),
	     .help = "add p, q, the interval of the change, the test and the verdict"},
	    {OPT_FLAG("json", 0, &json),
	     .help = "print everything computed as JSON (same as --format json)"},
	    {OPT_CHOICE("format", 0, &format), .choices = "robot|json|mmtests", .def = "robot",
	     .help =
		 "the robot's table, JSON, or MMTests' (commits side by side per nr_task; needs "
		 "--job JOB.yaml)"},
	    {OPT_CHOICE("rule", 0, &rule), .choices = "stats|lkp", .def = "stats",
	     .help = "stats: Welch / Yuen on logs, BH q-values; lkp: the robot's rule"},
	    {OPT_PERCENT("threshold", 0, &o.threshold_pct), .def = "1", .max = 1000,
	     .help = "noise threshold for a verdict"},
	    {OPT_FLAG("plot", 0, &plot),
	     .help = "after the table, the robot's text plot of each headline stat shown"},
	    {OPT_FLAG("mix-machines", 0, &o.mix_machines),
	     .help = "compare runs measured on machines of different models (CPU model, "
		     "threads, memory) instead of refusing them; a note says which"},
	    {OPT_END},
	};
	char **dirs = NULL, err[1024];
	size_t ndirs = 0;
	regex_t re;
	int first, rc = options_parse(&compare_command, opts, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	rc = 0;
	json = json || !strcmp(format, "json");
	mmtests = !strcmp(format, "mmtests");
	o.rule = strcmp(rule, "lkp") ? RULE_STATS : RULE_LKP;
	struct compare_output output = {.json = json, .all = all, .verbose = verbose, .plot = plot};

	if (stat) {
		int e = regcomp(&re, stat, REG_EXTENDED | REG_NOSUB);

		if (e) {
			regerror(e, &re, err, sizeof(err));
			sb_error("--stat '%s': %s", stat, err);
			return 2;
		}
		o.stat_re = &re;
	}

	if (root || job_arg || commits) {
		struct job_file job = {0};
		bool have_job = false;

		if (!root || !commits || first < argc) {
			sb_error("--results and --commits go together (with --job, or every atomic "
				 "job both have), without group directories");
			rc = 2;
			goto out;
		}
		if (job_arg && access(job_arg, F_OK) == 0) {
			if (job_load(job_arg, (unsigned)sysconf(_SC_NPROCESSORS_ONLN), &job, err,
				     sizeof(err))) {
				sb_error("%s", err);
				rc = 2;
				goto out;
			}
			have_job = true;
		}
		if (mmtests && !have_job) {
			sb_error("--format mmtests needs --job JOB.yaml "
				 "(its task counts are the rows)");
			rc = 2;
		} else if (mmtests) {
			rc = mmtests_tables(&job, root, commits, &o);
		} else if (!job_arg) {
			rc = compare_all_jobs(root, commits, &o, &output);
		} else {
			rc = compare_job_arg(have_job ? &job : NULL, job_arg, root, commits, &o,
					     &output);
		}
		if (have_job)
			job_free(&job);
	} else if (mmtests) {
		sb_error("--format mmtests needs --results, --job JOB.yaml "
			 "and --commits");
		rc = 2;
	} else {
		for (int i = first; i < argc; i++)
			add_dir(&dirs, &ndirs, argv[i]);
		rc = compare_paths(dirs, ndirs, &o, &output);
	}
out:
	for (size_t i = 0; i < ndirs; i++)
		free(dirs[i]);
	free(dirs);
	if (stat)
		regfree(&re);
	return rc;
}
