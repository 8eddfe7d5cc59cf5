/* scalebench compare: groups of runs, stat by stat, in the robot's layout or as JSON. */
#include "builtin.h"
#include "../analyze/compare.h"
#include "../analyze/mmtests.h"
#include "../analyze/plot.h"
#include "../runner/job.h"

#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct command_def compare_command = {
    .name = "compare",
    .args = "A B [C ...]",
    .alt = "--results DIR --job JOB --commits A,B[,C] [options]",
    .summary = "Compare groups of runs stat by stat, as the kernel test robot does.",
    .details = "Each of A, B, ... is a commit directory of a results tree (all its runs are one\n"
	       "group); A is the base.  Per stat: mean and %stddev per group, %change against A\n"
	       "(an absolute delta for stats that are percentages and for perf-profile.*), a test\n"
	       "(Welch's t on log values; exact Mann-Whitney when a side has outliers), q-values\n"
	       "(Benjamini-Hochberg; the testcase's own stats are a family of their own), and a\n"
	       "verdict: regression or improvement when q <= 0.05 and the whole 95% interval of\n"
	       "the change lies beyond the threshold, no-change when it lies inside it,\n"
	       "inconclusive otherwise (-v says how many runs would decide).  Which way is better\n"
	       "comes from the stat's name (ops up, time and misses down; monitors neutral).\n"
	       "--rule lkp applies the robot's own rule instead.\n"
	       "\nexit status: 0 no headline stat regressed, 1 one did, 2 error.\n",
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

/* Commit directories for one atomic job's path_params and each commit label, in order. */
static int pick_dirs(const char *root, const char *path_params, const char *commits, char ***dirs,
		     size_t *n)
{
	char buf[1024], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", commits);
	for (char *c = strtok_r(buf, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
		char **found;
		size_t k = results_find(root, path_params, c, &found);

		if (k != 1) {
			fprintf(
			    stderr,
			    "scalebench compare: %s: %s runs of job '%s' at commit '%s' under %s\n",
			    k ? "ambiguous" : "no",
			    k ? "several directories hold" : "no directory holds", path_params, c,
			    root);
			for (size_t i = 0; i < k; i++) {
				fprintf(stderr, "  %s\n", found[i]);
				free(found[i]);
			}
			free(found);
			return -1;
		}
		add_dir(dirs, n, found[0]);
		free(found[0]);
		free(found);
	}
	return 0;
}

/* The robot's plots under its table: every run of each headline stat shown, per group. */
static void plot_headline(const struct comparison *c, bool all)
{
	char err[512];

	if (!plot_available(err, sizeof(err))) {
		fprintf(stderr, "scalebench compare: no plots: %s\n", err);
		return;
	}
	for (size_t i = 0; i < c->nrows; i++) {
		const struct stat_row *r = &c->rows[i];
		struct plot_series s[COMPARE_MAX_GROUPS];
		double *v[COMPARE_MAX_GROUPS] = {0};
		bool ok = true;

		if (!r->headline || (!all && !row_is_notable(r, c->ngroups) && c->min_runs >= 2))
			continue;
		for (size_t g = 0; g < c->ngroups; g++) {
			v[g] = calloc(c->groups[g].nruns + 1, sizeof(double));
			ok = ok && v[g];
			s[g] = (struct plot_series){
			    .label = c->ngroups > 2 ? c->groups[g].commit : NULL,
			    .y = v[g],
			    .n = v[g] ? group_values(&c->groups[g], r->name, v[g]) : 0};
		}
		printf("\n");
		if (ok &&
		    plot_samples(r->name, s, c->ngroups, PLOT_TEXT, NULL, stdout, err, sizeof(err)))
			fprintf(stderr, "scalebench compare: plot of %s: %s\n", r->name, err);
		for (size_t g = 0; g < c->ngroups; g++)
			free(v[g]);
	}
}

static int compare_dirs(char **dirs, size_t n, const struct compare_opts *o, bool json, bool all,
			bool verbose, bool plot)
{
	struct result_group groups[COMPARE_MAX_GROUPS];
	struct comparison c;
	char err[1024];
	size_t loaded = 0;
	int rc = 2;

	if (n < 2) {
		fprintf(stderr, "scalebench compare: need at least two groups (A B), got %zu\n", n);
		return 2;
	}
	if (n > COMPARE_MAX_GROUPS) {
		fprintf(stderr, "scalebench compare: at most %d groups\n", COMPARE_MAX_GROUPS);
		return 2;
	}
	for (; loaded < n; loaded++) {
		if (group_load(dirs[loaded], &groups[loaded], err, sizeof(err))) {
			fprintf(stderr, "scalebench compare: %s\n", err);
			goto out;
		}
		for (size_t i = 0; i < groups[loaded].nnotes; i++)
			fprintf(stderr, "scalebench compare: note: %s\n", groups[loaded].notes[i]);
	}
	if (compare_groups(groups, n, o, &c, err, sizeof(err))) {
		fprintf(stderr, "scalebench compare: %s\n", err);
		goto out;
	}
	if (!c.nrows) {
		fprintf(stderr, "scalebench compare: the groups have no stat in common%s\n",
			o->stat_re ? " matching --stat" : "");
		comparison_free(&c);
		goto out;
	}
	if (c.min_runs < 2 && o->rule == RULE_STATS)
		fprintf(stderr,
			"scalebench compare: note: a group has %zu run: no significance test is "
			"possible (at least 2 runs per group, 3-5 to decide small changes); "
			"means and %%change only\n",
			c.min_runs);
	if (json)
		print_comparison_json(&c, stdout);
	else
		print_robot_table(&c, all, verbose, stdout);
	if (plot && !json)
		plot_headline(&c, all);
	rc = comparison_regressed(&c) ? 1 : 0;
	comparison_free(&c);
out:
	for (size_t i = 0; i < loaded; i++)
		group_free(&groups[i]);
	return rc;
}

/* MMTests' layout: for each testcase and mode of the job, the commits side by side with one
 * block of rows per task count, significance from the same tests as the robot table. */
static int mmtests_tables(const struct job_file *job, const char *root, const char *commits,
			  const struct compare_opts *o)
{
	char buf[1024], *save = NULL, *labels[COMPARE_MAX_GROUPS];
	size_t nc = 0;
	bool *done = calloc(job->n_atomic + 1, sizeof(*done));
	int rc = 0;

	snprintf(buf, sizeof(buf), "%s", commits);
	for (char *c = strtok_r(buf, ",", &save); c && nc < COMPARE_MAX_GROUPS;
	     c = strtok_r(NULL, ",", &save))
		labels[nc++] = c;
	if (nc < 2 || !done) {
		fprintf(stderr, "scalebench compare: --format mmtests needs two or more commits\n");
		free(done);
		return 2;
	}
	for (size_t a = 0; a < job->n_atomic; a++) {
		const struct atomic_job *first = &job->atomic[a];
		unsigned tasks[64];
		size_t nt = 0, idx[64];
		struct mm_cell *cells;
		const char *stat = first->mode == TC_MODE_PROCESS ? "will-it-scale.per_process_ops"
								  : "will-it-scale.per_thread_ops";
		char title[256], pattern[300];
		regex_t re;

		if (done[a])
			continue;
		/* This testcase and mode at every task count, in order. */
		for (size_t b = a; b < job->n_atomic && nt < 64; b++) {
			const struct atomic_job *x = &job->atomic[b];

			if (done[b] || strcmp(x->test, first->test) || x->mode != first->mode)
				continue;
			done[b] = true;
			size_t k = nt++;
			while (k && tasks[k - 1] > x->nr_task) {
				tasks[k] = tasks[k - 1];
				idx[k] = idx[k - 1];
				k--;
			}
			tasks[k] = x->nr_task;
			idx[k] = b;
		}
		cells = calloc(nt * nc, sizeof(*cells));
		if (!cells)
			break;
		snprintf(pattern, sizeof(pattern), "^%s$", stat);
		regcomp(&re, pattern, REG_NOSUB);
		for (size_t t = 0; t < nt; t++) {
			struct result_group g[COMPARE_MAX_GROUPS];
			char **d = NULL, err[1024];
			size_t nd = 0, loaded = 0;
			struct compare_opts oo = *o;
			struct comparison cmp;

			if (pick_dirs(root, job->atomic[idx[t]].path_params, commits, &d, &nd)) {
				rc = 2;
				goto next;
			}
			for (; loaded < nd; loaded++)
				if (group_load(d[loaded], &g[loaded], err, sizeof(err))) {
					fprintf(stderr, "scalebench compare: %s\n", err);
					rc = 2;
					goto next;
				}
			oo.stat_re = &re;
			if (compare_groups(g, nd, &oo, &cmp, err, sizeof(err)) == 0) {
				for (size_t k = 0; k < nd; k++) {
					double *v = calloc(g[k].nruns + 1, sizeof(double));
					size_t nv = v ? group_values(&g[k], stat, v) : 0;

					mm_cell_fill(&cells[t * nc + k], v, nv);
					for (size_t r = 0; k && r < cmp.nrows; r++)
						cells[t * nc + k].significant =
						    cmp.rows[r].verdict[k] == V_REGRESSION ||
						    cmp.rows[r].verdict[k] == V_IMPROVEMENT;
					free(v);
				}
				if (comparison_regressed(&cmp) && rc == 0)
					rc = 1;
				comparison_free(&cmp);
			}
		next:
			for (size_t k = 0; k < loaded; k++)
				group_free(&g[k]);
			for (size_t k = 0; k < nd; k++)
				free(d[k]);
			free(d);
		}
		snprintf(title, sizeof(title), "%s, %s mode: %s (ops/s)", first->test,
			 first->mode == TC_MODE_PROCESS ? "process" : "thread", stat);
		print_mmtests(stdout, title, (const char *const *)labels, nc, tasks, nt, cells,
			      stat_direction(stat));
		printf("\n");
		regfree(&re);
		free(cells);
	}
	free(done);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = {.threshold_abs = 0.1, .q_max = 0.05, .alpha = 0.05};
	const char *root = NULL, *job_arg = NULL, *commits = NULL, *stat = NULL, *format, *rule;
	bool all = false, verbose = false, json = false, plot = false, mmtests = false;
	const struct option_def opts[] = {
	    {OPT_STRING("results", 0, &root), .arg = "DIR",
	     .help = "results root to pick groups from (with --job, --commits)"},
	    {OPT_STRING("job", 0, &job_arg), .arg = "JOB",
	     .help = "a job file, or one atomic job's path_params (process-100%-page_fault3)"},
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
	     .help = "stats: Welch on logs / Mann-Whitney, BH q-values; lkp: the robot's rule"},
	    {OPT_PERCENT("threshold", 0, &o.threshold_pct), .def = "1", .max = 1000,
	     .help = "noise threshold for a verdict"},
	    {OPT_FLAG("plot", 0, &plot),
	     .help = "after the table, the robot's text plot of each headline stat shown"},
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

		if (!root || !job_arg || !commits || first < argc) {
			fprintf(stderr, "scalebench compare: --results, --job and --commits go "
					"together, without group directories\n");
			rc = 2;
			goto out;
		}
		if (access(job_arg, F_OK) == 0) {
			if (job_load(job_arg, (unsigned)sysconf(_SC_NPROCESSORS_ONLN), &job, err,
				     sizeof(err))) {
				fprintf(stderr, "scalebench compare: %s\n", err);
				rc = 2;
				goto out;
			}
			have_job = true;
		}
		if (mmtests) {
			if (!have_job) {
				fprintf(stderr,
					"scalebench compare: --format mmtests needs --job JOB.yaml "
					"(its task counts are the rows)\n");
				rc = 2;
			} else {
				rc = mmtests_tables(&job, root, commits, &o);
			}
			job_free(&job);
			goto out;
		}
		size_t nj = have_job ? job.n_atomic : 1;
		for (size_t j = 0; j < nj; j++) {
			const char *pp = have_job ? job.atomic[j].path_params : job_arg;
			char **d = NULL;
			size_t nd = 0;
			int r;

			if (pick_dirs(root, pp, commits, &d, &nd)) {
				r = 2;
			} else {
				if (nj > 1 && !json)
					printf("%s%s\n", j ? "\n" : "",
					       have_job ? job.atomic[j].name : pp);
				/* Several atomic jobs as JSON: one array of comparisons. */
				if (json && nj > 1)
					printf(j ? ",\n" : "[\n");
				r = compare_dirs(d, nd, &o, json, all, verbose, plot);
			}
			for (size_t i = 0; i < nd; i++)
				free(d[i]);
			free(d);
			if (r > rc)
				rc = r;
		}
		if (json && nj > 1)
			printf("]\n");
		if (have_job)
			job_free(&job);
	} else if (mmtests) {
		fprintf(stderr,
			"scalebench compare: --format mmtests needs --results, --job JOB.yaml "
			"and --commits\n");
		rc = 2;
	} else {
		for (int i = first; i < argc; i++)
			add_dir(&dirs, &ndirs, argv[i]);
		rc = compare_dirs(dirs, ndirs, &o, json, all, verbose, plot);
	}
out:
	for (size_t i = 0; i < ndirs; i++)
		free(dirs[i]);
	free(dirs);
	if (stat)
		regfree(&re);
	return rc;
}
