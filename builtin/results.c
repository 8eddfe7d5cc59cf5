/* scalebench results: what a results tree holds, from its index: the atomic jobs, and per job
 * its commits (first and last run time, runs, failures, machine), in time order or in a
 * branch's first-parent order. */
#include "builtin.h"
#include "../analyze/series.h"
#include "../lib/text.h"
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
	struct index_commit **v = calloc(nc ? nc : 1, sizeof(*v));
	char err[1024], **labels;
	ssize_t n;
	size_t k = 0;

	*out = v;
	*off_branch = 0;
	if (!v)
		return -1;
	if (!o->repo) {
		for (size_t i = 0; i < nc; i++)
			v[i] = &c[i];
		return (ssize_t)nc;
	}
	n = series_commits(ix, job->key, o, &labels, err, sizeof(err));
	if (n < 0) {
		sb_error("%s", err);
		return -1;
	}
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

int cmd_results(int argc, char **argv)
{
	const char *root = NULL, *job = NULL, *commit = NULL, *repo = NULL, *branch = NULL;
	bool json = false;
	const struct option_def opts[] = {
	    {OPT_STRING("results", 0, &root), .arg = "DIR", .def = "results",
	     .help = "results root"},
	    {OPT_STRING("job", 0, &job), .arg = "PATH_PARAMS|KEY", .def_doc = "every job",
	     .help = "one atomic job: its path_params (process-100%-page_fault3) or its key"},
	    {OPT_STRING("commit", 0, &commit), .arg = "LABEL", .def_doc = "every commit",
	     .help = "only this commit label"},
	    {OPT_STRING("repo", 0, &repo), .arg = "DIR",
	     .help = "order commits by the branch's first-parent history in this git repository"},
	    {OPT_STRING("branch", 0, &branch), .arg = "BRANCH", .def_doc = "HEAD",
	     .help = "the branch (with --repo)"},
	    {OPT_FLAG("json", 0, &json), .help = "print JSON, for scripts"},
	    {OPT_END},
	};
	struct series_order o = {.repo = repo, .branch = branch};
	struct results_index *ix;
	struct index_job *jobs = NULL;
	json_t *all = NULL, *jarr = NULL;
	char err[1024];
	ssize_t nj;
	size_t listed = 0;
	int first, rc = options_parse(&results_command, opts, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	if (first < argc) {
		sb_error("unexpected argument '%s'", argv[first]);
		return 2;
	}
	if (branch && !repo) {
		sb_error("--branch needs --repo (the repository the branch is in)");
		return 2;
	}
	o.repo = repo;
	o.branch = branch;
	if (index_open(root, INDEX_UPDATE, &ix, NULL, err, sizeof(err))) {
		sb_error("%s", err);
		return 2;
	}
	nj = index_jobs(ix, job, &jobs);
	if (nj < 0) {
		index_close(ix);
		return 2;
	}
	if (nj == 0) {
		if (job)
			sb_error("no job '%s' in %s (scalebench results --results %s lists them)",
				 job, root, root);
		else
			sb_error("%s holds no runs", root);
		index_close(ix);
		free(jobs);
		return 1;
	}
	if (nj > 1 && job) {
		char list[4096];
		size_t len = 0;

		for (ssize_t i = 0; i < nj && len < sizeof(list); i++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						i ? ", " : "", jobs[i].key);
		sb_error("job '%s' is ambiguous: it is the path_params of %s; name one of them",
			 job, list);
		index_jobs_free(jobs, (size_t)nj);
		index_close(ix);
		return 2;
	}
	if (json) {
		all = json_object();
		jarr = json_array();
		json_object_set_new(all, "root", json_string(root));
		json_object_set_new(all, "order", json_string(repo ? "branch" : "time"));
		json_object_set(all, "jobs", jarr);
	}
	rc = 0;
	for (ssize_t i = 0; i < nj && rc == 0; i++) {
		struct index_commit *c, **v;
		size_t off = 0;
		ssize_t nc = index_commits(ix, jobs[i].key, commit, &c), nv;

		if (nc < 0) {
			rc = 2;
			break;
		}
		if (nc == 0) {
			free(c);
			continue;
		}
		nv = ordered(ix, &jobs[i], c, (size_t)nc, &o, &v, &off);
		if (nv < 0) {
			rc = 2;
			free(v);
			index_commits_free(c, (size_t)nc);
			break;
		}
		listed++;
		size_t runs = 0;

		for (ssize_t k = 0; k < nc; k++)
			runs += c[k].runs;
		if (json) {
			json_t *jo = json_pack(
			    "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I}", "key", jobs[i].key,
			    "testcase", jobs[i].testcase, "path_params", jobs[i].path_params,
			    "tbox_group", jobs[i].tbox_group, "rootfs", jobs[i].rootfs, "kconfig",
			    jobs[i].kconfig, "compiler", jobs[i].compiler, "runs", (json_int_t)runs,
			    "not_on_branch", (json_int_t)off);
			json_t *ca = json_array();

			for (ssize_t k = 0; k < nv; k++)
				json_array_append_new(
				    ca, json_pack("{s:s, s:I, s:I, s:I, s:I, s:s, s:s}", "commit",
						  v[k]->commit, "first_started",
						  (json_int_t)v[k]->first_started, "last_started",
						  (json_int_t)v[k]->last_started, "runs",
						  (json_int_t)v[k]->runs, "failed",
						  (json_int_t)v[k]->failed, "machine",
						  v[k]->machine, "dir", v[k]->dir));
			json_object_set_new(jo, "commits", ca);
			json_array_append_new(jarr, jo);
		} else {
			printf("%s%s  (%zd commit%s, %zu run%s)\n", listed > 1 ? "\n" : "",
			       text_safe(jobs[i].key), nc, nc == 1 ? "" : "s", runs,
			       runs == 1 ? "" : "s");
			printf("  %-40s %-19s  %-19s %5s %6s  %s\n", "COMMIT", "FIRST RUN",
			       "LAST RUN", "RUNS", "FAILED", "MACHINE");
			for (ssize_t k = 0; k < nv; k++) {
				char a[32], b[32];

				when(v[k]->first_started, a, sizeof(a));
				when(v[k]->last_started, b, sizeof(b));
				printf("  %-40s %-19s  %-19s %5zu %6zu  %s\n",
				       text_safe(v[k]->commit), a, b, v[k]->runs, v[k]->failed,
				       text_safe(v[k]->machine));
			}
			if (off)
				printf(
				    "  (%zu commit%s not on %s's first-parent history left out)\n",
				    off, off == 1 ? "" : "s", text_safe(branch ? branch : "HEAD"));
		}
		free(v);
		index_commits_free(c, (size_t)nc);
	}
	if (rc == 0 && !listed) {
		sb_error("no commit '%s' in %s", commit ? commit : "", job ? job : root);
		rc = 1;
	}
	if (json && rc == 0) {
		json_dumpf(all, stdout, JSON_INDENT(1));
		putchar('\n');
	}
	json_decref(jarr);
	json_decref(all);
	index_jobs_free(jobs, (size_t)nj);
	index_close(ix);
	return rc;
}
