/* scalebench submit: a job file's atomic jobs x repeats as one Slurm job array. */
#include "builtin.h"
#include "../lib/interrupt.h"
#include "../lib/jsonw.h"
#include "../lib/strvec.h"
#include "../lib/text.h"
#include "../lib/utf8.h"
#include "../lib/xalloc.h"
#include "../runner/job.h"
#include "../runner/slurm.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct command_def submit_command = {
    .name = "submit",
    .args = "JOB.yaml|NAME",
    .summary = "Submit a job file's atomic jobs to Slurm as one job array.",
    .details =
	"The job file is expanded as run expands it (--set, --runtime, --nr-task included);\n"
	"each atomic job x repeat becomes one array task, a `scalebench run` of that atomic\n"
	"job on a node allocated whole (--exclusive --mem=0), storing its run into the\n"
	"shared results root; with --runs-per-task P, P repeats of one atomic job are one\n"
	"task (`run -r P`, each run stored on its own).  The submission directory\n"
	"RESULTS/.scalebench-slurm/NAME holds the job script as submitted (job.sh),\n"
	"tasks/I.yaml, out/I.out, done/I and\n"
	"submission.json; RESULTS/.scalebench-slurm/ID links to it.  The nodes run\n"
	"--bin (default: this scalebench's absolute path), which must be reachable there\n"
	"and of this version.  --then CMD: a shell command run by /bin/sh on a node in\n"
	"the results root once the array has ended (sbatch --dependency=afterany).\n"
	"\nexit status: 0 submitted, 1 the array submitted but the --then job refused, 2 bad\n"
	"usage, job file or results root, or sbatch refused the array (nothing is left),\n"
	"128+N interrupted by signal N before the array was accepted (nothing is left).\n"
	"With --wait: as scalebench wait, 0 every task's run stored, 1 a task failed (or\n"
	"the --then job was refused), 2 error or --timeout passed (the array goes on),\n"
	"128+N interrupted by signal N: the array and its --then job are cancelled.\n",
    .rules = (const struct option_rule[]){{OPTION_NEEDS, "timeout", "wait", NULL},
					  {OPTION_CONFLICTS, "wait", "dry-run",
					   "nothing is submitted to wait for"},
					  {OPTION_RULES_END, NULL, NULL, NULL}},
};

struct word_list {
	const char **v;
	size_t n;
};

static void word_add(struct word_list *l, const char *w)
{
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = w;
}

static int sbatch_arg_option(const struct option_def *opt, const char *arg, char *err,
			     size_t errlen)
{
	(void)err;
	(void)errlen;
	word_add(opt->value, arg);
	return 0;
}

static void print_json(const struct slurm_submission *s, const struct slurm_submit_opts *o)
{
	struct jsonw w;

	jsonw_init(&w, stdout, 1);
	jsonw_begin_object(&w);
	jsonw_key(&w, "id");
	jsonw_string(&w, s->id);
	jsonw_key(&w, "name");
	jsonw_string(&w, strrchr(s->dir, '/') + 1);
	jsonw_key(&w, "dir");
	jsonw_string(&w, s->dir);
	jsonw_key(&w, "script");
	{
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/job.sh", s->dir);
		jsonw_string(&w, p);
	}
	jsonw_key(&w, "tasks");
	jsonw_uint(&w, s->n_tasks);
	jsonw_key(&w, "then");
	if (o->then && s->then_id[0])
		jsonw_string(&w, s->then_id);
	else
		jsonw_null(&w);
	jsonw_end_object(&w);
	jsonw_finish(&w);
	putchar('\n');
}

/* A submitter that waits owns what it submitted: interrupted, it cancels the array (and the
 * --then job) rather than leave the fleet running for nobody.  Returns rc (128+N). */
static int cancel(const char *root, const char *id, int rc)
{
	struct slurm_status st;

	if (slurm_status_get(root, id, &st)) {
		sb_error("interrupted (signal %d); job array %s could not be cancelled",
			 rc - SB_EXIT_SIGNAL_BASE, id);
		return rc;
	}
	if (slurm_cancel(&st) == 0)
		sb_error("interrupted (signal %d): job array %s%s%s cancelled",
			 rc - SB_EXIT_SIGNAL_BASE, id, st.then_id[0] ? " and then job " : "",
			 st.then_id);
	slurm_status_free(&st);
	return rc;
}

/* submit's command line: what slurm_submit is given, and what the command does around it. */
struct submit_args {
	struct slurm_submit_opts o;
	struct override_list ov;
	struct word_list sbatch_args;
	struct strvec plugins; /* loaded here too, and named to the nodes */
	const char **ov_text;  /* ov as KEY=VALUE, for o */
	char path[PATH_MAX];   /* the job file */
	bool json, quiet, wait;
	double timeout_s;
};

/* The options into a, checked, and the job file found: -1 to go on, else the exit status.
 * a is submit_args_free's to free either way. */
static int parse_submit_args(int argc, char **argv, struct submit_args *a)
{
	struct slurm_submit_opts *o = &a->o;
	const struct option_def opts[] = {
	    {OPT_RESULTS_OPTIONAL(&o->results_root), .flags = OPTION_REQUIRED,
	     .help = "the shared results root (the nodes store their runs there)"},
	    {OPT_STRING("commit", 0, &o->commit), .arg = "LABEL", .def_doc = "the node's uname -r",
	     .help = "the commit axis of the results path"},
	    {OPT_COUNT("repeat", 'r', &o->repeat), .arg = "K", .def = "1", .min = 1, .max = 100000,
	     .help = "runs per atomic job (array tasks)"},
	    {OPT_COUNT("runs-per-task", 0, &o->runs_per_task), .arg = "P", .def = "1", .min = 1,
	     .max = 100000,
	     .help = "runs one array task makes of its atomic job, each stored on its own: "
		     "fewer of Slurm's scheduling passes; a failed node costs its task's runs"},
	    {OPT_FLAG("interleave", 0, &o->interleave),
	     .help = "order the tasks round-robin instead of back to back"},
	    {OPT_STRING("partition", 0, &o->partition), .arg = "P", .def_doc = "Slurm's default",
	     .help = "sbatch --partition"},
	    {OPT_STRING("constraint", 0, &o->constraint), .arg = "FEATURES",
	     .help = "sbatch --constraint: the node features the tasks need"},
	    {OPT_STRING("time", 0, &o->time_limit), .arg = "LIMIT", .def_doc = "the partition's",
	     .help = "sbatch --time: each task's time limit"},
	    {OPT_CALLBACK("sbatch-arg", 0, sbatch_arg_option, &a->sbatch_args), .arg = "ARG",
	     .help = "one more sbatch word, passed as it is (repeatable)"},
	    {OPT_CALLBACK("plugin", 0, plugin_list_option, &a->plugins), .arg = "FILE.so",
	     .help = "a testcase plug-in, loaded here and by every task (repeatable)"},
	    {OPT_CALLBACK("runtime", 0, run_set_option, &a->ov), .arg = "DURATION",
	     .help = "the job's runtime (same as --set runtime=DURATION)"},
	    {OPT_CALLBACK("nr-task", 0, run_set_option, &a->ov), .arg = "N|P%",
	     .help = "the job's nr_task (same as --set nr_task=N)"},
	    {OPT_CALLBACK("set", 0, run_set_option, &a->ov), .arg = "KEY=VALUE",
	     .help = "a job-file key set before expansion, as run's (repeatable)"},
	    {OPT_FLAG("no-monitors", 0, &o->no_monitors),
	     .help = "run no monitor, whatever the job says"},
	    {OPT_STRING("then", 0, &o->then), .arg = "CMD",
	     .help = "a shell command run on a node once the array has ended"},
	    {OPT_STRING("bin", 0, &o->bin), .arg = "PATH", .def_doc = "this scalebench",
	     .help = "the scalebench the nodes run (same version, shared filesystem)"},
	    {OPT_FLAG("json", 0, &a->json), .help = "print {id, name, dir, script, tasks, then}"},
	    {OPT_FLAG("dry-run", 0, &o->dry_run),
	     .help = "print the tasks and the sbatch command; write and submit nothing"},
	    {OPT_FLAG("quiet", 'q', &a->quiet), .help = "print only the job id"},
	    {OPT_FLAG("wait", 0, &a->wait),
	     .help = "then wait for the array as scalebench wait does; a signal cancels it"},
	    {OPT_DURATION("timeout", 0, &a->timeout_s), .def = "0", .max = 1e9,
	     .help = "with --wait: give up waiting after this long (0: never)"},
	    {OPT_END},
	};
	int first, rc;

	*a = (struct submit_args){.plugins = STRVEC_INIT};
	rc = options_parse(&submit_command, opts, argc, argv, &first, NULL);
	if (rc >= 0)
		return rc;
	if (argc - first != 1) {
		sb_error("%s; usage: scalebench submit JOB.yaml|NAME --results DIR [options]",
			 first >= argc ? "which job file?" : "one job file at a time");
		return SB_EXIT_ERROR;
	}
	if (run_find_job(argv[first], a->path, sizeof(a->path)))
		return SB_EXIT_ERROR;
	/* What every task's run would refuse (builtin/run.c), refused before the array. */
	char err[PATH_MAX + 64];

	if (utf8_check("--commit", a->o.commit, err, sizeof(err)) ||
	    utf8_check(a->path, a->path, err, sizeof(err))) {
		sb_error("%s (a run's job.yaml and meta.json hold it, and take only UTF-8)", err);
		return SB_EXIT_ERROR;
	}
	return -1;
}

/* The job file, the overrides (as KEY=VALUE), the sbatch words and the plug-ins into a->o. */
static void submit_opts_fill(struct submit_args *a)
{
	a->ov_text = xcalloc(a->ov.n + 1, sizeof(*a->ov_text));
	for (size_t i = 0; i < a->ov.n; i++)
		a->ov_text[i] = xasprintf("%s=%s", a->ov.v[i].key, a->ov.v[i].value);
	a->o.job_path = a->path;
	a->o.overrides = a->ov_text;
	a->o.n_overrides = a->ov.n;
	a->o.sbatch_args = a->sbatch_args.v;
	a->o.n_sbatch_args = a->sbatch_args.n;
	a->o.plugins = a->plugins.v;
	a->o.n_plugins = a->plugins.n;
}

/* The submitted array said: its id (or --json's object) on stdout, unless --quiet how many
 * tasks and how to watch them on stderr. */
static void print_submitted(const struct submit_args *a, const struct slurm_submission *s)
{
	if (a->json)
		print_json(s, &a->o);
	else
		printf("%s\n", s->id);
	if (!a->quiet) {
		char *q = sh_quote(a->o.results_root);

		fprintf(stderr,
			"scalebench submit: job array %s: %zu task%s%s%s; watch it with "
			"scalebench status %s --results %s\n",
			s->id, s->n_tasks, s->n_tasks == 1 ? "" : "s",
			s->then_id[0] ? ", then job " : "", s->then_id, s->id,
			q ? text_safe(q) : "");
		free(q);
	}
}

/* --wait: the array waited for as scalebench wait does (cancelled on a signal).  Its exit
 * status, or -1 after a message when stdout cannot be written. */
static int wait_submitted(const struct submit_args *a, const struct slurm_submission *s)
{
	int w;

	/* The id is out before the wait: a bot reading stdout has it at once. */
	if (fflush(stdout)) {
		sb_error("cannot write the output: %s", strerror(errno));
		return -1;
	}
	w = slurm_wait(a->o.results_root, s->id, a->timeout_s, a->quiet);
	if (w >= SB_EXIT_SIGNAL_BASE)
		w = cancel(a->o.results_root, s->id, w);
	return w;
}

/* What parse_submit_args and submit_opts_fill allocated. */
static void submit_args_free(struct submit_args *a)
{
	for (size_t i = 0; a->ov_text && i < a->ov.n; i++)
		free((char *)a->ov_text[i]);
	free(a->ov_text);
	for (size_t i = 0; i < a->ov.n; i++)
		free((char *)a->ov.v[i].key);
	free(a->ov.v);
	free(a->sbatch_args.v);
	strvec_clear(&a->plugins);
}

int cmd_submit(int argc, char **argv)
{
	struct submit_args a;
	struct slurm_submission s = {0};
	int rc;

	/* A signal while the directory is written or sbatch asked is a flag: the directory is
	 * removed unless the array was accepted, and we exit 128+N. */
	interrupt_catch();
	rc = parse_submit_args(argc, argv, &a);
	if (rc >= 0)
		goto out;
	submit_opts_fill(&a);
	rc = slurm_submit(&a.o, &s);
	if (rc < 0) {
		if (s.id[0])
			sb_error("job array %s was submitted (%s)", s.id, s.dir ? s.dir : "");
		rc = s.id[0]		? SB_EXIT_FAILED
		     : interrupt_caught ? SB_EXIT_SIGNAL_BASE + interrupt_caught
					: SB_EXIT_ERROR;
		goto out;
	}
	if (a.o.dry_run)
		goto out;
	print_submitted(&a, &s);
	if (a.wait) {
		int w = wait_submitted(&a, &s);

		if (w < 0) {
			rc = SB_EXIT_ERROR;
			goto out;
		}
		if (w > rc)
			rc = w;
	}
	if (sb_close_stdout() && !rc)
		rc = SB_EXIT_ERROR;
out:
	slurm_submission_free(&s);
	submit_args_free(&a);
	return rc;
}
