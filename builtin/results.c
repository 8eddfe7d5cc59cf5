/* scalebench results: what a results tree holds, from its index: the atomic jobs, and per job
 * its commits (first and last run time, runs, failures, machine), in time order or in a
 * branch's first-parent order. */
#include "builtin.h"
#include "../analyze/series.h"
#include "../lib/json_text.h"
#include "../lib/text.h"
#include "../lib/xalloc.h"
#include "../store/index.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const struct command_def results_command = {
    .name = "results",
    .summary = "List what a results tree holds: jobs, and per job its commits and runs.",
    .details =
	"Per atomic job (its key: testcase/path_params/tbox_group/rootfs/kconfig/compiler), its\n"
	"commits with the time of their first and last run (meta.json's started, local time),\n"
	"how many runs, how many failed (status not ok) and the machine (cpu_model, else the\n"
	"tbox_group).  Commits come in the order of their first run or, with --repo, in the\n"
	"branch's first-parent order (labels that are a full sha or a unique prefix of 7 hex\n"
	"digits or more; others are left out and counted).  Read from the index, brought up to\n"
	"date first.  --json prints {\"root\", \"order\", \"jobs\": [{\"key\", \"testcase\",\n"
	"\"path_params\", \"tbox_group\", \"rootfs\", \"kconfig\", \"compiler\", \"runs\",\n"
	"\"not_on_branch\", \"commits\": [{\"commit\", \"first_started\", \"last_started\" (Unix\n"
	"seconds), \"runs\", \"failed\", \"machine\", \"dir\"}]}]}.\n"
	"Exit status: 0 listed, 1 nothing to list (an empty tree, no such job or commit), 2 error\n"
	"(no results directory, an ambiguous --job, git failing).\n",
    .rules = (const struct option_rule[]){{OPTION_NEEDS, "branch", "repo",
					   "the repository the branch is in"},
					  {OPTION_RULES_END, NULL, NULL, NULL}},
};

static void when(int64_t t, char *out, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) || !strftime(out, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(out, len, "%lld", (long long)t);
}

/* The commits of a job in the order asked: pointers into c. */
static ssize_t ordered(struct results_index *ix, const struct index_job *job,
		       struct index_commit *c, size_t nc, const struct series_order *o,
		       struct index_commit ***out, size_t *off_branch)
{
	struct index_commit **v = xcalloc(nc, sizeof(*v));
	char err[1024], **labels;
	ssize_t n;
	size_t k = 0, *point;

	*out = v;
	*off_branch = 0;
	if (!o->repo) {
		for (size_t i = 0; i < nc; i++)
			v[i] = &c[i];
		return (ssize_t)nc;
	}
	/* Every label, those of one commit (a sha and its prefix) together: each is a directory. */
	n = series_labels(ix, job->key, o, &labels, &point, err, sizeof(err));
	if (n < 0) {
		sb_error("%s", err);
		return -1;
	}
	free(point);
	for (ssize_t i = 0; i < n; i++) {
		for (size_t j = 0; j < nc; j++)
			if (!strcmp(c[j].commit, labels[i])) {
				v[k++] = &c[j];
				break;
			}
		free(labels[i]);
	}
	free(labels);
	*off_branch = nc - k;
	return (ssize_t)k;
}

/* results' options and operands. */
struct results_args {
	const char *root, *job, *commit, *repo, *branch;
	bool json;
};

/* The options into a, checked: -1 to go on, else the exit status. */
static int parse_results_args(int argc, char **argv, struct results_args *a)
{
	const struct option_def opts[] = {
	    {OPT_RESULTS(&a->root), .help = "results root"},
	    {OPT_STRING("job", 0, &a->job), .arg = "PATH_PARAMS|KEY", .def_doc = "every job",
	     .help = "one atomic job: its path_params (process-100%-page_fault3) or its key"},
	    {OPT_STRING("commit", 0, &a->commit), .arg = "LABEL", .def_doc = "every commit",
	     .help = "only this commit label"},
	    {OPT_STRING("repo", 0, &a->repo), .arg = "DIR",
	     .help = "order commits by the branch's first-parent history in this git repository"},
	    {OPT_STRING("branch", 0, &a->branch), .arg = "BRANCH", .def_doc = "HEAD",
	     .help = "the branch (with --repo)"},
	    {OPT_FLAG("json", 0, &a->json), .help = "print JSON, for scripts"},
	    {OPT_END},
	};
	int first, rc;

	*a = (struct results_args){0};
	rc = options_parse(&results_command, opts, argc, argv, &first, NULL);
	if (rc >= 0)
		return rc;
	if (first < argc) {
		sb_error("unexpected argument '%s'", argv[first]);
		return SB_EXIT_ERROR;
	}
	return -1;
}

/* The jobs to list from the index (*jobs, *nj): -1 to go on, else the exit status after a
 * message (1: no such job, 2: an error or a --job that names several). */
static int find_jobs(struct results_index *ix, const struct results_args *a,
		     struct index_job **jobs, ssize_t *nj)
{
	*nj = index_jobs(ix, a->job, jobs);
	if (*nj < 0)
		return SB_EXIT_ERROR;
	if (*nj == 0) {
		if (a->job)
			sb_error("no job '%s' in %s (scalebench results --results %s lists them)",
				 a->job, a->root, a->root);
		else
			sb_error("%s holds no runs", a->root);
		free(*jobs);
		return SB_EXIT_NOTHING;
	}
	if (*nj > 1 && a->job) {
		char list[4096];
		size_t len = 0;

		for (ssize_t i = 0; i < *nj && len < sizeof(list); i++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						i ? ", " : "", (*jobs)[i].key);
		sb_error("job '%s' is ambiguous: it is the path_params of %s; name one of them",
			 a->job, list);
		index_jobs_free(*jobs, (size_t)*nj);
		return SB_EXIT_ERROR;
	}
	return -1;
}

/* One job's entry of "jobs": its key's parts, its runs in all, off commits not on the branch
 * and its nv commits in order (v); appended to jarr.  Names are directory names, any bytes:
 * json_set_text keeps one that is not UTF-8 (jansson would drop the whole job). */
static void job_json(json_t *jarr, const struct index_job *job, size_t runs, size_t off,
		     struct index_commit **v, ssize_t nv)
{
	json_t *jo = json_object(), *ca = json_array();
	const char *const parts[][2] = {{"key", job->key},
					{"testcase", job->testcase},
					{"path_params", job->path_params},
					{"tbox_group", job->tbox_group},
					{"rootfs", job->rootfs},
					{"kconfig", job->kconfig},
					{"compiler", job->compiler}};
	int bad = !jo || !ca;

	for (size_t i = 0; !bad && i < sizeof(parts) / sizeof(*parts); i++)
		bad |= json_set_text(jo, parts[i][0], parts[i][1]);
	bad |= json_object_set_new(jo, "runs", json_integer((json_int_t)runs)) ||
	       json_object_set_new(jo, "not_on_branch", json_integer((json_int_t)off));
	for (ssize_t k = 0; !bad && k < nv; k++) {
		json_t *co = json_pack("{s:I, s:I, s:I, s:I}", "first_started",
				       (json_int_t)v[k]->first_started, "last_started",
				       (json_int_t)v[k]->last_started, "runs",
				       (json_int_t)v[k]->runs, "failed", (json_int_t)v[k]->failed);

		bad |= !co || json_set_text(co, "commit", v[k]->commit) ||
		       json_set_text(co, "machine", v[k]->machine) ||
		       json_set_text(co, "dir", v[k]->dir) || json_array_append_new(ca, co);
	}
	if (bad || json_object_set_new(jo, "commits", ca) || json_array_append_new(jarr, jo))
		xalloc_die();
}

/* One job's table: its nc commits and runs in all, then the nv in order (v) one a line and
 * how many (off) are not on the branch; after a blank line unless it is the first listed. */
static void job_table(const struct index_job *job, ssize_t nc, size_t runs, size_t off,
		      struct index_commit **v, ssize_t nv, const char *branch, bool first)
{
	printf("%s%s  (%zd commit%s, %zu run%s)\n", first ? "" : "\n", text_safe(job->key), nc,
	       nc == 1 ? "" : "s", runs, runs == 1 ? "" : "s");
	printf("  %-40s %-19s  %-19s %5s %6s  %s\n", "COMMIT", "FIRST RUN", "LAST RUN", "RUNS",
	       "FAILED", "MACHINE");
	for (ssize_t k = 0; k < nv; k++) {
		char a[32], b[32];

		when(v[k]->first_started, a, sizeof(a));
		when(v[k]->last_started, b, sizeof(b));
		printf("  %-40s %-19s  %-19s %5zu %6zu  %s\n", text_safe(v[k]->commit), a, b,
		       v[k]->runs, v[k]->failed, text_safe(v[k]->machine));
	}
	if (off)
		printf("  (%zu commit%s not on %s's first-parent history left out)\n", off,
		       off == 1 ? "" : "s", text_safe(branch ? branch : "HEAD"));
}

/* One job's commits (a->commit: that one) listed, as JSON into jarr with --json; listed is
 * the number of jobs listed before it.  1 when it has such commits, 0 when not, -1 on an
 * error. */
static int list_job(struct results_index *ix, const struct index_job *job,
		    const struct results_args *a, const struct series_order *o, json_t *jarr,
		    size_t listed)
{
	struct index_commit *c, **v;
	size_t off = 0, runs = 0;
	ssize_t nc = index_commits(ix, job->key, a->commit, &c), nv;

	if (nc < 0)
		return -1;
	if (nc == 0) {
		free(c);
		return 0;
	}
	nv = ordered(ix, job, c, (size_t)nc, o, &v, &off);
	if (nv < 0) {
		free(v);
		index_commits_free(c, (size_t)nc);
		return -1;
	}
	for (ssize_t k = 0; k < nc; k++)
		runs += c[k].runs;
	if (a->json)
		job_json(jarr, job, runs, off, v, nv);
	else
		job_table(job, nc, runs, off, v, nv, a->branch, listed == 0);
	free(v);
	index_commits_free(c, (size_t)nc);
	return 1;
}

int cmd_results(int argc, char **argv)
{
	struct results_args a;
	struct series_order o;
	struct results_index *ix;
	struct index_job *jobs = NULL;
	json_t *all = NULL, *jarr = NULL;
	char err[1024];
	ssize_t nj;
	size_t listed = 0;
	int rc = parse_results_args(argc, argv, &a);

	if (rc >= 0)
		return rc;
	o = (struct series_order){.repo = a.repo, .branch = a.branch};
	if (index_open(a.root, INDEX_UPDATE, &ix, NULL, err, sizeof(err))) {
		sb_error("%s", err);
		return SB_EXIT_ERROR;
	}
	rc = find_jobs(ix, &a, &jobs, &nj);
	if (rc >= 0) {
		index_close(ix);
		return rc;
	}
	if (a.json) {
		all = json_object();
		jarr = json_array();
		json_set_text(all, "root", a.root);
		json_object_set_new(all, "order", json_string(a.repo ? "branch" : "time"));
		json_object_set(all, "jobs", jarr);
	}
	rc = SB_EXIT_OK;
	for (ssize_t i = 0; i < nj && rc == SB_EXIT_OK; i++) {
		int r = list_job(ix, &jobs[i], &a, &o, jarr, listed);

		if (r < 0)
			rc = SB_EXIT_ERROR;
		else
			listed += (size_t)r;
	}
	if (rc == SB_EXIT_OK && !listed) {
		sb_error("no commit '%s' in %s", a.commit ? a.commit : "", a.job ? a.job : a.root);
		rc = SB_EXIT_NOTHING;
	}
	if (a.json && rc == SB_EXIT_OK) {
		json_dumpf(all, stdout, JSON_INDENT(1));
		putchar('\n');
	}
	json_decref(jarr);
	json_decref(all);
	index_jobs_free(jobs, (size_t)nj);
	index_close(ix);
	return rc;
}
