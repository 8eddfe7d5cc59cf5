/* scalebench bisect: find the commit that changed a stat, driving git bisect and the runner. */
#include "builtin.h"
#include "../lib/num.h"
#include "../analyze/bisect.h"
#include "../analyze/compare.h"
#include "../analyze/results.h"
#include "../lib/file.h"
#include "../lib/run_command.h"
#include "../runner/job.h"
#include "../testcases/registry.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const struct command_def bisect_command = {
    .name = "bisect",
    .summary = "Find the commit that changed a stat: git bisect driven by runs and an SPRT.",
    .details =
	"The endpoints first: 3 runs each, then one more on each side at a time, until the\n"
	"analyzer's test (Welch on log values, 1% threshold) confirms the change; if it does\n"
	"not within --max-runs, nothing is bisected; else 6 runs each (at least) model them.\n"
	"Each midpoint: 3 runs, then one at a time, until a sequential probability ratio test\n"
	"against the two endpoints' log values decides good or bad (alpha = beta = 1 -\n"
	"confidence); at --max-runs the closer endpoint decides, with a warning.  A failing\n"
	"prepare command skips the commit.  The culprit is re-verified against its parent.\n"
	"The repository's bisect state is reset on success, failure and SIGINT.\n"
	"\nexit status: 0 culprit found and verified, 1 change not reproduced, culprit not\n"
	"verified or bisection inconclusive, 2 bad usage or repository, 130 interrupted.\n",
};

/* Runs of each endpoint the midpoints' SPRT is modelled on, at least. */
#define SPRT_MODEL_RUNS 6

/* child_run passes the signal on to the running child's process group, then calls this. */
static volatile sig_atomic_t interrupted;
static bool resetting; /* git bisect reset runs to the end, whatever comes */

static void on_signal(int sig)
{
	interrupted = sig;
}

struct bisect {
	const char *repo, *good_arg, *bad_arg, *job_path, *stat, *prepare, *results, *log_path;
	const char *plugins[16];
	size_t nplugins;
	bool no_monitors, dry_run;
	unsigned max_runs;
	double confidence, threshold;
	char good[64], bad[64];
	char path_params[512];
	char prepared[64]; /* the commit whose prepare ran last */
	/* Which way the stat is better: from the runs' meta.json once runs are loaded. */
	enum stat_direction dir;
	bool dir_known;
	json_t *log, *steps;
	/* runs spent per commit, in the order tested */
	char (*order)[64];
	unsigned *spent;
	size_t norder;
};

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_verror(fmt, ap);
	va_end(ap);
}

/* Run git in the repo with argv; its stdout (and stderr) into out when given.  Its exit status,
 * 128+N on a signal, -1 when it could not be run. */
static int git(const struct bisect *b, char *out, size_t outlen, const char *const *args)
{
	const char *argv[32] = {"git", "-C", b->repo};
	struct child_process git = {.argv = argv,
				    .out = out ? RUN_OUT_CAPTURE : RUN_OUT_NULL,
				    .err = RUN_OUT_STDOUT,
				    .no_forward = resetting};
	char err[512];
	size_t n = 3;
	int rc;

	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	rc = child_run(&git, err, sizeof(err)) ? -1 : child_status(&git);
	if (out && outlen)
		snprintf(out, outlen, "%s", git.out_text.p ? git.out_text.p : "");
	child_release(&git);
	return rc;
}

#define GIT(b, out, len, ...) git(b, out, len, (const char *const[]){__VA_ARGS__, NULL})

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* A commit's full sha, or -1 when the repo does not know it. */
static int resolve(const struct bisect *b, const char *rev, char *sha)
{
	char spec[300], out[512];

	snprintf(spec, sizeof(spec), "%s^{commit}", rev);
	if (GIT(b, out, sizeof(out), "rev-parse", "--verify", "--quiet", spec))
		return -1;
	chomp(out);
	if (strlen(out) != 40)
		return -1;
	strcpy(sha, out);
	return 0;
}

static void subject(const struct bisect *b, const char *sha, char *out, size_t len)
{
	if (GIT(b, out, len, "log", "-1", "--format=%s", sha))
		snprintf(out, len, "?");
	chomp(out);
}

/* Which way b's stat is better: as the runs declare it, else by its name. */
static enum stat_direction bisect_direction(const struct bisect *b)
{
	return b->dir_known ? b->dir : stat_direction(b->stat, stat_role_undeclared(b->stat));
}

/* The stat's values over the commit's runs in the results tree; -1 when the stat is absent
 * from runs that exist. */
static size_t load_values(struct bisect *b, const char *sha, double **vals, bool *absent)
{
	char **found, err[1024];
	size_t k = results_find(b->results, b->path_params, sha, &found), n = 0;
	struct result_group g;

	*vals = NULL;
	*absent = false;
	if (k == 1 && group_load(found[0], &g, err, sizeof(err)) == 0) {
		*vals = calloc(g.nruns + 1, sizeof(double));
		if (*vals)
			n = group_values(&g, b->stat, *vals);
		*absent = g.nruns > 0 && n == 0;
		if (n && !b->dir_known) {
			b->dir = group_stat_direction(&g, 1, b->stat);
			b->dir_known = true;
		}
		group_free(&g);
	}
	for (size_t i = 0; i < k; i++)
		free(found[i]);
	free(found);
	return n;
}

static void count_spent(struct bisect *b, const char *sha, unsigned runs)
{
	size_t i;

	for (i = 0; i < b->norder; i++)
		if (!strcmp(b->order[i], sha))
			break;
	if (i == b->norder) {
		b->order = realloc(b->order, (b->norder + 1) * sizeof(*b->order));
		b->spent = realloc(b->spent, (b->norder + 1) * sizeof(*b->spent));
		snprintf(b->order[i], sizeof(b->order[i]), "%s", sha);
		b->spent[i] = 0;
		b->norder++;
	}
	b->spent[i] += runs;
}

/* Check out and prepare sha unless it is what was prepared last.  0, 1 prepare failed
 * (skip), -1 error, 130 interrupted. */
static int prepare(struct bisect *b, const char *sha)
{
	char out[4096], env_commit[80], err[512];
	const char *env[] = {env_commit, NULL};
	/* Its chatter to stderr: on stdout it would drown the bisection's own lines.  What it
	 * leaves running in its group (a build's background job) is ended with it: nothing of it
	 * may go on while the next commit is checked out or the repository reset under it. */
	struct child_process prep = {.shell = b->prepare,
				     .dir = b->repo,
				     .env = env,
				     .out = RUN_OUT_FD,
				     .out_fd = 2,
				     .end_group = true};
	int rc;

	if (!strcmp(b->prepared, sha))
		return 0;
	b->prepared[0] = '\0';
	if (interrupted)
		return 130;
	if (GIT(b, out, sizeof(out), "checkout", "-q", "--detach", sha)) {
		if (interrupted)
			return 130;
		msg("git checkout %s in %s failed: %s", sha, b->repo, out);
		return -1;
	}
	/* A signal during the checkout: child_run forgets it once the next command starts. */
	if (interrupted)
		return 130;
	snprintf(env_commit, sizeof(env_commit), "SCALEBENCH_COMMIT=%s", sha);
	if (child_run(&prep, err, sizeof(err))) {
		msg("%s", err);
		return -1;
	}
	rc = child_status(&prep);
	if (interrupted)
		return 130;
	if (rc) {
		msg("%.10s: prepare command exited with %d: skipping the commit", sha, rc);
		return 1;
	}
	snprintf(b->prepared, sizeof(b->prepared), "%s", sha);
	return 0;
}

/* k more runs of the job at sha (prepared), by `scalebench run` in a child. */
static int run_job(struct bisect *b, const char *sha, unsigned k)
{
	const char *argv[48];
	char reps[16];
	struct child_process run = {.argv = argv, .path = "/proc/self/exe", .end_group = true};
	char err[512];
	size_t n = 0;
	int rc;

	if (interrupted)
		return 130;
	snprintf(reps, sizeof(reps), "%u", k);
	argv[n++] = "scalebench";
	argv[n++] = "run";
	argv[n++] = b->job_path;
	argv[n++] = "--commit";
	argv[n++] = sha;
	argv[n++] = "--results";
	argv[n++] = b->results;
	argv[n++] = "-r";
	argv[n++] = reps;
	argv[n++] = "-q";
	if (b->no_monitors)
		argv[n++] = "--no-monitors";
	for (size_t i = 0; i < b->nplugins; i++) {
		argv[n++] = "--plugin";
		argv[n++] = b->plugins[i];
	}
	argv[n] = NULL;
	if (child_run(&run, err, sizeof(err))) {
		msg("%s", err);
		return -1;
	}
	rc = child_status(&run);
	if (interrupted)
		return 130;
	count_spent(b, sha, k);
	if (rc)
		msg("%.10s: scalebench run exited with %d", sha, rc);
	return rc ? -1 : 0;
}

/* Make sure sha has at least want runs with the stat: 0, 1 skip, -1 error, 130. */
static int ensure_runs(struct bisect *b, const char *sha, unsigned want, double **vals, size_t *n)
{
	bool absent;

	*n = load_values(b, sha, vals, &absent);
	if (absent) {
		msg("the stat '%s' is absent from the runs of job %s at %.10s (under %s)", b->stat,
		    b->path_params, sha, b->results);
		return -1;
	}
	if (*n >= want)
		return 0;
	free(*vals);
	*vals = NULL;
	int rc = prepare(b, sha);

	if (rc)
		return rc;
	rc = run_job(b, sha, want - (unsigned)*n);
	if (rc)
		return rc;
	*n = load_values(b, sha, vals, &absent);
	if (absent || *n < want) {
		msg("the stat '%s' is absent from the runs of job %s at %.10s (under %s)", b->stat,
		    b->path_params, sha, b->results);
		return -1;
	}
	return 0;
}

static json_t *values_json(const double *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

static void log_step(struct bisect *b, const char *sha, const char *role, const double *v, size_t n,
		     const char *decision, json_t *extra)
{
	json_t *s = json_pack("{s:s, s:s, s:I, s:o, s:s}", "commit", sha, "role", role, "runs",
			      (json_int_t)n, "values", values_json(v, n), "decision", decision);

	if (extra)
		json_object_update(s, extra);
	json_decref(extra);
	json_array_append_new(b->steps, s);
}

/* The endpoints until the change is confirmed.  0 confirmed, 1 not within budget, else err. */
static int endpoints(struct bisect *b, struct sprt_model *m)
{
	double *gv = NULL, *bv = NULL;
	size_t ng, nb;
	unsigned want = 3;
	struct endpoint_check ec;
	const char *why;
	int rc;

	for (;;) {
		free(gv);
		free(bv);
		gv = bv = NULL;
		const char *side = "good";

		if ((rc = ensure_runs(b, b->good, want, &gv, &ng)) == 0) {
			side = "bad";
			rc = ensure_runs(b, b->bad, want, &bv, &nb);
		}
		if (rc) {
			if (rc == 1) {
				msg("the %s endpoint cannot be prepared", side);
				rc = -1;
			}
			goto out;
		}
		if (endpoints_check(gv, ng, bv, nb, bisect_direction(b), b->threshold,
				    1 - b->confidence, 1 - b->confidence, &ec, &why)) {
			msg("cannot compare the endpoints: %s", why);
			rc = -1;
			goto out;
		}
		fprintf(stderr,
			"endpoints: %zu vs %zu runs: %s %+.1f%% [%+.1f%%, %+.1f%%] p=%.3g: %s\n",
			ng, nb, b->stat, ec.change_pct, ec.w.lo_pct, ec.w.hi_pct, ec.w.p,
			verdict_name(ec.verdict));
		if (ec.confirmed || ec.verdict == V_NO_CHANGE || want >= b->max_runs)
			break;
		want++;
	}
	json_object_set_new(
	    b->log, "endpoints",
	    json_pack("{s:s, s:s, s:o, s:o, s:f, s:f, s:f, s:f, s:s, s:b}", "good", b->good, "bad",
		      b->bad, "good_values", values_json(gv, ng), "bad_values", values_json(bv, nb),
		      "change_pct", ec.change_pct, "lo_pct", ec.w.lo_pct, "hi_pct", ec.w.hi_pct,
		      "p", ec.w.p, "verdict", verdict_name(ec.verdict), "confirmed", ec.confirmed));
	if (!ec.confirmed) {
		printf("The change does not reproduce: %s %+.1f%% [%+.1f%%, %+.1f%%] (p=%.3g, %s) "
		       "between %.10s (%zu runs) and %.10s (%zu runs) within the budget of %u "
		       "runs; nothing bisected.\n",
		       b->stat, ec.change_pct, ec.w.lo_pct, ec.w.hi_pct, ec.w.p,
		       verdict_name(ec.verdict), b->good, ng, b->bad, nb, b->max_runs);
		rc = 1;
		goto out;
	}
	/* The SPRT is only as good as its model of the endpoints: confirmed on 3 runs, their
	 * spread is a guess (bench/bisect_sim.c: at a 5% shift, 6 runs each cut the wrong
	 * midpoint calls about threefold, for a few runs once). */
	unsigned model = SPRT_MODEL_RUNS < b->max_runs ? SPRT_MODEL_RUNS : b->max_runs;

	if (want < model) {
		free(gv);
		free(bv);
		gv = bv = NULL;
		if ((rc = ensure_runs(b, b->good, model, &gv, &ng)) ||
		    (rc = ensure_runs(b, b->bad, model, &bv, &nb))) {
			if (rc == 1) {
				msg("an endpoint cannot be prepared");
				rc = -1;
			}
			goto out;
		}
		json_object_set_new(json_object_get(b->log, "endpoints"), "model_good_values",
				    values_json(gv, ng));
		json_object_set_new(json_object_get(b->log, "endpoints"), "model_bad_values",
				    values_json(bv, nb));
	}
	if (sprt_init(m, gv, ng, bv, nb, b->confidence, &why)) {
		msg("endpoints: %s", why);
		rc = -1;
		goto out;
	}
	rc = 0;
out:
	free(gv);
	free(bv);
	return rc;
}

/* Classify a midpoint: 0 with *bad set, 1 skip, else error. */
static int classify(struct bisect *b, const struct sprt_model *m, const char *sha, bool *bad)
{
	double *v = NULL, llr = 0;
	size_t n;
	unsigned want = 3;
	enum sprt_decision d;
	bool fallback = false;
	int rc;

	for (;;) {
		free(v);
		v = NULL;
		rc = ensure_runs(b, sha, want, &v, &n);
		if (rc == 1) {
			log_step(b, sha, "midpoint", NULL, 0, "skip", NULL);
			return 1;
		}
		if (rc)
			return rc;
		d = sprt_decide(m, v, n, 3, &llr);
		if (d != SPRT_CONTINUE)
			break;
		if (n >= b->max_runs) {
			d = sprt_closer(m, v, n);
			fallback = true;
			msg("warning: %.10s: undecided after %zu runs (llr %.2f, thresholds "
			    "%.2f/%.2f); "
			    "classified by the closer endpoint",
			    sha, n, llr, m->lower, m->upper);
			break;
		}
		want = (unsigned)n + 1;
	}
	*bad = d == SPRT_BAD;
	fprintf(stderr, "%.10s: %zu runs, llr %+.2f: %s%s\n", sha, n, llr, *bad ? "bad" : "good",
		fallback ? " (closer endpoint)" : "");
	log_step(b, sha, "midpoint", v, n, *bad ? "bad" : "good",
		 json_pack("{s:f, s:b}", "llr", llr, "fallback", fallback));
	free(v);
	return 0;
}

/* After git bisect good/bad/skip: the next commit in next, or the culprit in culprit. */
static int bisect_step(struct bisect *b, const char *verb, const char *sha, char *next,
		       char *culprit)
{
	char out[16384], *p;

	next[0] = culprit[0] = '\0';
	int rc = verb ? GIT(b, out, sizeof(out), "bisect", verb, sha) : 0;

	if (!verb)
		snprintf(out, sizeof(out), "%s", sha); /* the start's output */
	if (rc) {
		msg("git bisect %s %s failed: %s", verb, sha, out);
		return -1;
	}
	if ((p = strstr(out, " is the first bad commit"))) {
		while (p > out && p[-1] != '\n')
			p--;
		snprintf(culprit, 41, "%.40s", p);
		return 0;
	}
	if (strstr(out, "only 'skip'ped commits left")) {
		printf("The bisection is inconclusive: the first bad commit could be any of the "
		       "commits git names:\n%s",
		       out);
		return 1;
	}
	if (GIT(b, out, sizeof(out), "rev-parse", "HEAD"))
		return -1;
	chomp(out);
	snprintf(next, 41, "%s", out);
	return 0;
}

static int verify(struct bisect *b, const char *culprit)
{
	char parent[64], spec[64], subj[512], err[1024], **found;
	double *pv = NULL, *cv = NULL;
	size_t np, nc;
	struct endpoint_check ec;
	const char *why;
	int rc;

	snprintf(spec, sizeof(spec), "%s^", culprit);
	if (resolve(b, spec, parent)) {
		msg("%.10s has no parent to verify against", culprit);
		return 1;
	}
	if ((rc = ensure_runs(b, parent, 3, &pv, &np)) ||
	    (rc = ensure_runs(b, culprit, 3, &cv, &nc))) {
		if (rc == 1)
			msg("cannot verify: %.10s cannot be prepared", pv ? culprit : parent);
		free(pv);
		return rc == 130 ? 130 : 1;
	}
	if (endpoints_check(pv, np, cv, nc, bisect_direction(b), b->threshold, 1 - b->confidence,
			    1 - b->confidence, &ec, &why)) {
		msg("cannot verify: %s", why);
		free(pv);
		free(cv);
		return 1;
	}
	json_object_set_new(b->log, "verify",
			    json_pack("{s:s, s:s, s:o, s:o, s:f, s:f, s:f, s:f, s:s, s:b}",
				      "parent", parent, "culprit", culprit, "parent_values",
				      values_json(pv, np), "culprit_values", values_json(cv, nc),
				      "change_pct", ec.change_pct, "lo_pct", ec.w.lo_pct, "hi_pct",
				      ec.w.hi_pct, "p", ec.w.p, "verdict", verdict_name(ec.verdict),
				      "confirmed", ec.confirmed));
	free(pv);
	free(cv);

	subject(b, culprit, subj, sizeof(subj));
	printf("%s is the first bad commit\n    %s\n\n", culprit, subj);
	printf("%s %+.1f%% [%+.1f%%, %+.1f%%] against its parent %.10s: %s\n\n", b->stat,
	       ec.change_pct, ec.w.lo_pct, ec.w.hi_pct, parent,
	       ec.confirmed ? "verified" : "NOT verified");
	printf("runs per commit:\n");
	for (size_t i = 0; i < b->norder; i++)
		printf("  %.10s %3u\n", b->order[i], b->spent[i]);
	printf("\n");

	/* The full comparison, parent vs culprit, as the robot prints it. */
	struct result_group g[2];
	const char *labels[2] = {parent, culprit};
	size_t loaded = 0;

	for (; loaded < 2; loaded++) {
		size_t k = results_find(b->results, b->path_params, labels[loaded], &found);
		int e = k == 1 ? group_load(found[0], &g[loaded], err, sizeof(err)) : -1;

		for (size_t i = 0; i < k; i++)
			free(found[i]);
		free(found);
		if (e)
			break;
	}
	if (loaded == 2) {
		struct compare_opts o = COMPARE_OPTS_DEFAULT;
		struct comparison c;

		if (compare_groups(g, 2, &o, &c, err, sizeof(err)) == 0) {
			print_robot_table(&c, false, false, stdout);
			comparison_free(&c);
		}
	}
	for (size_t i = 0; i < loaded; i++)
		group_free(&g[i]);
	return ec.confirmed ? 0 : 1;
}

static int write_log(struct bisect *b)
{
	char path[PATH_MAX], err[PATH_MAX + 64], *text;

	if (b->log_path)
		snprintf(path, sizeof(path), "%s", b->log_path);
	else
		snprintf(path, sizeof(path), "%s/bisect-%.10s-%.10s.json", b->results, b->good,
			 b->bad);
	json_t *runs = json_object();

	for (size_t i = 0; i < b->norder; i++)
		json_object_set_new(runs, b->order[i], json_integer(b->spent[i]));
	json_object_set_new(b->log, "runs_spent", runs);
	text = json_dumps(b->log, JSON_INDENT(1));
	if (!text || file_write(path, text, strlen(text), err, sizeof(err))) {
		/* err names the file and why */
		if (text)
			msg("bisect log: %s", err);
		else
			msg("cannot write the bisect log %s: %s", path, strerror(ENOMEM));
		free(text);
		return -1;
	}
	free(text);
	fprintf(stderr, "bisect log: %s\n", path);
	return 0;
}

static int bisect_run(struct bisect *b)
{
	char out[16384], next[64], culprit[64] = "";
	struct sprt_model m;
	int rc;

	if (GIT(b, out, sizeof(out), "bisect", "start", b->bad, b->good)) {
		msg("git bisect start failed: %s", out);
		return 2;
	}
	rc = bisect_step(b, NULL, out, next, culprit);
	if (rc)
		goto out;
	rc = endpoints(b, &m);
	if (rc)
		goto out;
	json_object_set_new(b->log, "sprt",
			    json_pack("{s:f, s:f, s:f, s:f, s:f}", "mu_good", m.mu_good, "mu_bad",
				      m.mu_bad, "sd", m.sd, "upper", m.upper, "lower", m.lower));
	while (!culprit[0]) {
		bool bad = false;
		char sha[64];

		snprintf(sha, sizeof(sha), "%s", next);
		rc = classify(b, &m, sha, &bad);
		if (rc < 0 || rc > 1)
			goto out;
		rc = bisect_step(b, rc == 1 ? "skip" : bad ? "bad" : "good", sha, next, culprit);
		if (rc)
			goto out;
	}
	json_object_set_new(b->log, "culprit", json_string(culprit));
	rc = verify(b, culprit);
out:
	if (interrupted)
		rc = 130;
	json_object_set_new(b->log, "status",
			    json_string(rc == 0	     ? "found"
					: rc == 130  ? "interrupted"
					: culprit[0] ? "not-verified"
						     : "failed"));
	/* The repository as it was, whatever happened. */
	b->prepared[0] = '\0';
	resetting = true;
	if (GIT(b, out, sizeof(out), "bisect", "reset")) {
		msg("git bisect reset failed: %s", out);
		rc = rc ? rc : 2;
	}
	if (write_log(b) && !rc)
		rc = 2;
	return rc < 0 ? 2 : rc;
}

/* Every check that needs nothing to run. */
static int preflight(struct bisect *b)
{
	char out[4096], bisect_log[PATH_MAX], err[1024];
	struct job_file job;
	struct stat st;

	if (!b->good_arg || !b->bad_arg || !b->job_path || !b->stat || !b->prepare) {
		msg("--good, --bad, --job, --stat and --prepare are required");
		return 2;
	}
	if (GIT(b, out, sizeof(out), "rev-parse", "--git-path", "BISECT_LOG")) {
		msg("%s is not a git repository: %s", b->repo, out);
		return 2;
	}
	chomp(out);
	snprintf(bisect_log, sizeof(bisect_log), "%s%s%s", out[0] == '/' ? "" : b->repo,
		 out[0] == '/' ? "" : "/", out);
	if (stat(bisect_log, &st) == 0) {
		msg("%s is already being bisected (%s exists); finish it or run 'git bisect "
		    "reset' first",
		    b->repo, bisect_log);
		return 2;
	}
	if (resolve(b, b->good_arg, b->good)) {
		msg("--good '%s': unknown commit in %s", b->good_arg, b->repo);
		return 2;
	}
	if (resolve(b, b->bad_arg, b->bad)) {
		msg("--bad '%s': unknown commit in %s", b->bad_arg, b->repo);
		return 2;
	}
	if (!strcmp(b->good, b->bad) ||
	    GIT(b, NULL, 0, "merge-base", "--is-ancestor", b->good, b->bad)) {
		msg("--good %s is not an ancestor of --bad %s", b->good_arg, b->bad_arg);
		return 2;
	}
	if (GIT(b, out, sizeof(out), "status", "--porcelain", "--untracked-files=no") || out[0]) {
		msg("the work tree of %s is dirty; commit or stash first:\n%s", b->repo, out);
		return 2;
	}
	/* The job names the plug-in's testcases: load what is built already (the prepare
	 * command rebuilds it per commit, each run loads its own). */
	for (size_t i = 0; i < b->nplugins; i++)
		if (access(b->plugins[i], F_OK) == 0 &&
		    plugin_load(b->plugins[i], err, sizeof(err)) < 0) {
			msg("%s", err);
			return 2;
		}
	if (job_load(b->job_path, (unsigned)sysconf(_SC_NPROCESSORS_ONLN), &job, err,
		     sizeof(err))) {
		msg("%s", err);
		for (size_t i = 0; i < b->nplugins; i++)
			if (access(b->plugins[i], F_OK))
				msg("note: plug-in %s does not exist yet: build it once so that "
				    "the "
				    "job's testcase is known",
				    b->plugins[i]);
		return 2;
	}
	if (job.n_atomic != 1) {
		msg("%s expands to %zu atomic jobs; bisect runs exactly one (split it first)",
		    b->job_path, job.n_atomic);
		job_free(&job);
		return 2;
	}
	snprintf(b->path_params, sizeof(b->path_params), "%s", job.atomic[0].path_params);
	job_free(&job);
	if (access(b->results, F_OK) && mkdir(b->results, 0777)) {
		msg("results root %s: %s", b->results, strerror(errno));
		return 2;
	}
	return 0;
}

/* 1 - alpha = 1 - beta of the SPRT: strictly between 0.5 and 1. */
static int confidence_option(const struct option_def *opt, const char *arg, char *err,
			     size_t errlen)
{
	double c;

	if (num_parse_float(arg, 0.5, 1, &c, NULL, 0) || c == 0.5 || c == 1) {
		snprintf(err, errlen,
			 "--confidence '%s': expected a number between 0.5 and 1 (e.g. 0.99)", arg);
		return -1;
	}
	*(double *)opt->value = c;
	return 0;
}

static int plugin_arg(const struct option_def *opt, const char *arg, char *err, size_t errlen)
{
	struct bisect *b = opt->value;

	if (b->nplugins == sizeof(b->plugins) / sizeof(*b->plugins)) {
		snprintf(err, errlen, "--plugin: at most %zu", b->nplugins);
		return -1;
	}
	b->plugins[b->nplugins++] = arg;
	return 0;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect b = {0};
	const struct option_def opts[] = {
	    {OPT_STRING("repo", 0, &b.repo), .arg = "DIR", .def = ".",
	     .help = "the git repository to bisect"},
	    {OPT_STRING("good", 0, &b.good_arg), .arg = "G", .flags = OPTION_REQUIRED,
	     .help = "a commit without the change"},
	    {OPT_STRING("bad", 0, &b.bad_arg), .arg = "B", .flags = OPTION_REQUIRED,
	     .help = "a commit with the change (G must be its ancestor)"},
	    {OPT_STRING("job", 0, &b.job_path), .arg = "JOB.yaml", .flags = OPTION_REQUIRED,
	     .help = "the job to run at each commit (one atomic job)"},
	    {OPT_STRING("stat", 0, &b.stat), .arg = "STAT", .flags = OPTION_REQUIRED,
	     .help = "the stat that changed (e.g. will-it-scale.per_thread_ops)"},
	    {OPT_STRING("prepare", 0, &b.prepare), .arg = "COMMAND", .flags = OPTION_REQUIRED,
	     .help = "shell command that builds what is tested, run in the repo with "
		     "$SCALEBENCH_COMMIT; non-zero exit skips the commit"},
	    {OPT_STRING("results", 0, &b.results), .arg = "DIR", .def = "results",
	     .help = "results root; runs there are reused"},
	    {OPT_COUNT("max-runs", 0, &b.max_runs), .def = "10", .min = 3, .max = 1000,
	     .help = "run budget per commit"},
	    {OPT_CALLBACK("confidence", 0, confidence_option, &b.confidence), .arg = "C",
	     .def = "0.99", .help = "1 - alpha = 1 - beta of each midpoint's SPRT"},
	    {OPT_PERCENT("threshold", 0, &b.threshold), .def = "1", .max = 1000,
	     .help = "noise threshold of the endpoint and culprit checks"},
	    {OPT_STRING("log", 0, &b.log_path), .arg = "FILE",
	     .def_doc = "RESULTS/bisect-<good>-<bad>.json", .help = "bisect log, JSON"},
	    {OPT_CALLBACK("plugin", 0, plugin_arg, &b), .arg = "FILE.so",
	     .help = "passed to scalebench run (repeatable)"},
	    {OPT_FLAG("no-monitors", 0, &b.no_monitors), .help = "passed to scalebench run"},
	    {OPT_FLAG("dry-run", 0, &b.dry_run),
	     .help = "check everything and print the plan, run nothing"},
	    {OPT_END},
	};
	struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
	int first, rc = options_parse(&bisect_command, opts, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	if (first < argc) {
		msg("unexpected argument '%s'", argv[first]);
		return 2;
	}
	rc = preflight(&b);
	if (rc)
		return rc;
	if (b.dry_run) {
		char out[256], range[200];

		snprintf(range, sizeof(range), "%s..%s", b.good, b.bad);
		if (GIT(&b, out, sizeof(out), "rev-list", "--count", range))
			snprintf(out, sizeof(out), "?");
		chomp(out);
		printf("would bisect %s between good %.10s and bad %.10s in %s (%s commits)\n",
		       b.stat, b.good, b.bad, b.repo, out);
		printf("job: %s (%s), results under %s\n", b.job_path, b.path_params, b.results);
		printf("each commit: git checkout, then sh -c '%s' with SCALEBENCH_COMMIT set\n",
		       b.prepare);
		printf("endpoints: 3 runs each, up to %u, until the change is confirmed\n",
		       b.max_runs);
		printf("midpoints: SPRT at alpha = beta = %.3g, 3 to %u runs each\n",
		       1 - b.confidence, b.max_runs);
		return 0;
	}
	b.log = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:i}", "repo", b.repo, "good", b.good,
			  "bad", b.bad, "stat", b.stat, "job", b.path_params, "confidence",
			  b.confidence, "max_runs", (int)b.max_runs);
	b.steps = json_array();
	json_object_set(b.log, "steps", b.steps);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = bisect_run(&b);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	json_decref(b.steps);
	json_decref(b.log);
	free(b.order);
	free(b.spent);
	return rc;
}
