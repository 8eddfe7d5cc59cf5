/* scalebench compare: groups of runs, stat by stat, in the robot's layout or as JSON. */
#include "builtin.h"
#include "compare_internal.h"
#include "../analyze/compare.h"
#include "../analyze/select.h"
#include "../runner/job.h"
#include "../store/layout.h"
#include "../lib/text.h"
#include "../lib/xalloc.h"

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
	       "have is compared, one table each.  --commits takes labels as stored, a sha's\n"
	       "first 4 or more hex digits that one label starts with (several: an error naming\n"
	       "them), or with --repo any revision.  --json is always {\"jobs\": [{\"job\": ...,\n"
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

/* The worse of two exit statuses: error, then regression, then inconclusive. */
static int worse_status(int a, int b)
{
	static const int rank[] = {
	    [SB_EXIT_OK] = 0, [SB_EXIT_FOUND] = 2, [SB_EXIT_ERROR] = 3, [SB_EXIT_INCONCLUSIVE] = 1};

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
	int rc = SB_EXIT_OK;

	if (nc < 0)
		xalloc_die();
	if (out->json)
		json_open(&w);
	for (size_t j = 0; j < nj; j++) {
		struct compare_output jo = *out;
		char **d = NULL;
		size_t nd = 0;
		int r = SB_EXIT_ERROR, p;

		jo.json_into = out->json ? &w : NULL;
		jo.job = jobs[j].name;
		p = compare_pick_dirs(root, jobs[j].path_params, labels, (size_t)nc, &d, &nd, err,
				      sizeof(err));
		/* An atomic job not run at every commit (a big LKP job file run in part): the
		 * others are compared, this one said, and the status is theirs. */
		if (p == -2 && nj > 1) {
			sb_note("%s: not compared", err);
			if (out->json)
				json_job_error(&w, jobs[j].name, err);
			missing++;
			compare_free_dirs(d, nd);
			continue;
		}
		if (nj > 1 && !out->json)
			printf("%s%s\n", j > missing ? "\n" : "", text_safe(jobs[j].name));
		if (p == 0)
			r = compare_dirs(d, nd, o, &jo, err, sizeof(err));
		if (r == SB_EXIT_ERROR) {
			sb_error("%s", err);
			if (out->json)
				json_job_error(&w, jobs[j].name, err);
		}
		compare_free_dirs(d, nd);
		rc = worse_status(rc, r);
	}
	if (missing && missing == nj) {
		sb_error("none of the %zu atomic jobs has runs at every commit of '%s' under %s",
			 nj, text_safe(commits), text_safe(root));
		rc = SB_EXIT_ERROR;
	}
	if (out->json && json_close(&w))
		rc = SB_EXIT_ERROR;
	free(labels);
	return rc;
}

/* --results R --commits A,B without --job: every atomic job both commits have. */
static int compare_all_jobs(const char *root, const char *commits, const struct compare_opts *o,
			    const struct compare_output *out)
{
	char **pp, **labels = NULL;
	long nc = commit_list_split(commits, &labels);
	ssize_t n = nc < 0 ? -1 : select_common_jobs(root, labels, (size_t)nc, &pp);
	struct job_ref *jobs = n > 0 ? xcalloc((size_t)n, sizeof(*jobs)) : NULL;
	int rc = SB_EXIT_ERROR;

	if (n < 0)
		xalloc_die();
	free(labels);
	if (n == 0)
		sb_error("no atomic job has runs at every commit of '%s' under %s", commits, root);
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
	struct job_ref *jobs = xcalloc(nj + 1, sizeof(*jobs));
	int rc;

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
	if (rc == SB_EXIT_ERROR) {
		sb_error("%s", err);
		if (out->json)
			json_job_error(&w, po.job ? po.job : "", err);
	}
	if (out->json && json_close(&w))
		rc = SB_EXIT_ERROR;
	store_axes_free(&a);
	return rc;
}

/* --commits as stored labels: each one resolved among the commit directories of the jobs
 * compared (a job file's atomic jobs, the one job given, or every job), as select_commit
 * resolves report's --base and --head, and joined again.  NULL when one cannot be (said). */
static char *stored_commits(const char *root, const struct job_file *job, const char *job_arg,
			    const char *repo, const char *commits)
{
	size_t nj = job ? job->n_atomic : job_arg ? 1 : 0;
	const char **jobs = xcalloc(nj + 1, sizeof(*jobs));
	char *joined, err[2048];

	for (size_t j = 0; j < nj; j++)
		jobs[j] = job ? job->atomic[j].path_params : job_arg;
	if (select_commit_list(root, jobs, nj, repo, "--commits", commits, &joined, err,
			       sizeof(err)) != SELECT_OK)
		sb_error("%s", err);
	free(jobs);
	return joined;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = COMPARE_OPTS_DEFAULT;
	const char *root = NULL, *job_arg = NULL, *commits = NULL, *stat = NULL, *format, *rule,
		   *repo = NULL;
	bool all = false, verbose = false, json = false, plot = false, mmtests = false;
	const struct option_def opts[] = {
	    {OPT_RESULTS_OPTIONAL(&root),
	     .help = "results root to pick groups from (with --job, --commits)"},
	    {OPT_STRING("job", 0, &job_arg), .arg = "JOB",
	     .help = "a job file, one atomic job's path_params (process-100%-page_fault3) or "
		     "its key as `results` lists it (one machine's); without it, every atomic job "
		     "the commits all have"},
	    {OPT_STRING("commits", 0, &commits), .arg = "A,B[,C]",
	     .help = "commits to compare, the first is the base: stored labels, or a sha's first "
		     "4 or more hex digits that one label of the jobs compared starts with"},
	    {OPT_STRING("repo", 0, &repo), .arg = "DIR",
	     .help = "the git repository: --commits may be any revision (a tag, a branch, "
		     "HEAD~2), named by its full sha"},
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
	rc = SB_EXIT_OK;
	json = json || !strcmp(format, "json");
	mmtests = !strcmp(format, "mmtests");
	o.rule = strcmp(rule, "lkp") ? RULE_STATS : RULE_LKP;
	struct compare_output output = {.json = json, .all = all, .verbose = verbose, .plot = plot};

	if (stat) {
		int e = regcomp(&re, stat, REG_EXTENDED | REG_NOSUB);

		if (e) {
			regerror(e, &re, err, sizeof(err));
			sb_error("--stat '%s': %s", stat, err);
			return SB_EXIT_ERROR;
		}
		o.stat_re = &re;
	}

	if (root || job_arg || commits || repo) {
		struct job_file job = {0};
		bool have_job = false;
		char *stored = NULL;

		if (!root || !commits || first < argc) {
			sb_error("--results and --commits go together (with --job, or every atomic "
				 "job both have; --repo to name them by revision), without group "
				 "directories");
			rc = SB_EXIT_ERROR;
			goto out;
		}
		if (job_arg && access(job_arg, F_OK) == 0) {
			if (job_load_results(job_arg, (unsigned)sysconf(_SC_NPROCESSORS_ONLN), &job,
					     err, sizeof(err))) {
				sb_error("%s", err);
				rc = SB_EXIT_ERROR;
				goto out;
			}
			have_job = true;
		}
		stored = stored_commits(root, have_job ? &job : NULL, job_arg, repo, commits);
		if (!stored) {
			rc = SB_EXIT_ERROR;
		} else if (mmtests && !have_job) {
			sb_error("--format mmtests needs --job JOB.yaml "
				 "(its task counts are the rows)");
			rc = SB_EXIT_ERROR;
		} else if (mmtests) {
			rc = compare_mmtests_tables(&job, root, stored, &o);
		} else if (!job_arg) {
			rc = compare_all_jobs(root, stored, &o, &output);
		} else {
			rc = compare_job_arg(have_job ? &job : NULL, job_arg, root, stored, &o,
					     &output);
		}
		free(stored);
		if (have_job)
			job_free(&job);
	} else if (mmtests) {
		sb_error("--format mmtests needs --results, --job JOB.yaml "
			 "and --commits");
		rc = SB_EXIT_ERROR;
	} else {
		for (int i = first; i < argc; i++)
			compare_add_dir(&dirs, &ndirs, argv[i]);
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
