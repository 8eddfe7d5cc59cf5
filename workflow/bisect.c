/* The bisection's loop: git bisect started in the repository (a token file in its git dir
 * names the log that started it), the endpoints run until the change is confirmed, each
 * midpoint classified, the culprit verified against its parent, the repository reset at the
 * end; for --resume, the logged decisions git lacks replayed and the processes a killed
 * controller left ended first.  The decisions are analyze/bisect.c's, the runs batch.c's, the
 * boots boot.c's, the state bisect_log.c's; this file owns the repository's git and the
 * signal flag. */
#include "bisect_internal.h"
#include "batch.h"
#include "boot.h"
#include "../analyze/bisect.h"
#include "../analyze/compare.h"
#include "../analyze/report_mail.h"
#include "../analyze/results.h"
#include "../analyze/select.h"
#include "../lib/errors.h"
#include "../lib/text.h"
#include "../lib/file.h"
#include "../lib/git.h"
#include "../lib/mail.h"
#include "../lib/run_command.h"
#include "../lib/xalloc.h"
#include "../runner/job.h"
#include "../runner/target.h"
#include "../testcases/registry.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static bool resetting; /* git bisect reset runs to the end, whatever comes */

int bisect_git(const struct bisect *b, char *out, size_t outlen, const char *const *args)
{
	char *text = NULL;
	int rc = git_run(b->repo, args, GIT_STDERR_TO_OUT | (resetting ? GIT_NO_FORWARD : 0),
			 out ? &text : NULL, NULL, 0);

	if (out && outlen)
		snprintf(out, outlen, "%s", text ? text : "");
	free(text);
	return rc;
}

/* A commit's full sha, or -1 when the repo does not know it. */
static int resolve(const struct bisect *b, const char *rev, char *sha)
{
	char spec[300], out[512];

	snprintf(spec, sizeof(spec), "%s^{commit}", rev);
	if (GIT(b, out, sizeof(out), "rev-parse", "--verify", "--quiet", spec))
		return -1;
	text_chomp(out);
	if (!git_is_oid(out))
		return -1;
	if (strlen(out) != 40) {
		sb_error("%s: a SHA-256 repository; bisect's log and state take SHA-1 names only",
			 b->repo);
		return -1;
	}
	strcpy(sha, out);
	return 0;
}

static void subject(const struct bisect *b, const char *sha, char *out, size_t len)
{
	if (GIT(b, out, len, "log", "-1", "--format=%s", sha))
		snprintf(out, len, "?");
	text_chomp(out);
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A duration as "1:05" or "2:03:10". */
static void duration(double secs, char *out, size_t len)
{
	long s = secs < 0 ? 0 : (long)(secs + 0.5);

	if (s >= 3600)
		snprintf(out, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(out, len, "%ld:%02ld", s / 60, s % 60);
}

/* "[14:02:11 +3:25]": the time of day, then the time since this process started. */
static void progress_stamp(const struct bisect *b, char *out, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	char since[32];

	localtime_r(&now, &tm);
	duration(floor(mono_now() - b->t_start), since, sizeof(since));
	snprintf(out, len, "[%02d:%02d:%02d +%s]", tm.tm_hour, tm.tm_min, tm.tm_sec, since);
}

/* The endpoints' means of the stat, from the log (so a resumed bisection has them too):
 * false when the log has none. */
static bool endpoint_means(const struct bisect *b, double *good, double *bad)
{
	json_t *e = json_object_get(b->log, "endpoints");
	json_t *side[2] = {json_object_get(e, "good_values"), json_object_get(e, "bad_values")};
	double *out[2] = {good, bad};

	for (int i = 0; i < 2; i++) {
		size_t k;
		json_t *x;
		double s = 0;

		if (!json_is_array(side[i]) || !json_array_size(side[i]))
			return false;
		json_array_foreach (side[i], k, x)
			s += json_number_value(x);
		*out[i] = s / (double)json_array_size(side[i]);
	}
	return true;
}

/* Which way b's stat is better: as the runs declare it, else by its name. */
static enum stat_direction bisect_direction(const struct bisect *b)
{
	return b->dir_known ? b->dir : stat_direction(b->stat, stat_role_undeclared(b->stat));
}

void bisect_nap(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	if (!interrupt_caught)
		nanosleep(&ts, NULL);
}

static struct bisect_policy policy_of(const struct bisect *b)
{
	return (struct bisect_policy){.max_runs = b->max_runs,
				      .batch = batch_size(b),
				      .confidence = b->confidence,
				      .threshold_pct = b->threshold,
				      .dir = bisect_direction(b)};
}

/* When the endpoints did not show the change: how many of their runs were measured on a busy
 * machine (meta.json), said with what to do, and kept in the log's endpoints. */
static void busy_note(struct bisect *b)
{
	const char *labels[2] = {b->good, b->bad}, *reason = NULL;
	size_t busy = 0, all = 0;
	char err[1024];

	for (int i = 0; i < 2; i++) {
		struct result_group *g = NULL;
		size_t ng = 0;

		if (select_groups(b->results, b->path_params, labels[i],
				  b->slurm ? SELECT_NODES : 0, &g, &ng, err, sizeof(err)))
			continue;
		for (size_t k = 0; k < ng; k++) {
			const char *why = NULL;

			busy += group_busy_runs(&g[k], &why);
			all += g[k].nruns;
			if (why && !reason)
				reason = xstrdup(why);
		}
		select_groups_free(g, ng);
	}
	json_object_set_new(json_object_get(b->log, "endpoints"), "busy_runs",
			    json_integer((json_int_t)busy));
	if (busy)
		printf("%zu of the endpoints' %zu runs were measured on a busy machine (%s): other "
		       "work's noise may hide the change.  Bisect on an idle machine (or one whose "
		       "other work is pinned away from the runs' CPUs), or give --max-runs more.\n",
		       busy, all, reason ? text_safe(reason) : "other tasks runnable");
	free((char *)reason);
}

/* The endpoints until the change is confirmed.  0 confirmed, 1 not within budget, else err. */
static int endpoints(struct bisect *b, struct sprt_model *m)
{
	const struct bisect_policy pol = policy_of(b);
	double *gv = NULL, *bv = NULL;
	size_t ng, nb;
	unsigned want = BISECT_FIRST_RUNS, had;
	struct endpoint_check ec;
	enum bisect_next next;
	const char *why;
	int rc;

	for (;;) {
		free(gv);
		free(bv);
		gv = bv = NULL;
		const char *side = "good";

		if ((rc = batch_ensure_runs(b, b->good, want, &gv, &ng)) == 0) {
			side = "bad";
			rc = batch_ensure_runs(b, b->bad, want, &bv, &nb);
		}
		if (rc) {
			if (rc == 1) {
				sb_error("the %s endpoint cannot be prepared", side);
				rc = -1;
			}
			goto out;
		}
		had = want;
		next = bisect_endpoints_next(&pol, gv, ng, bv, nb, &want, &ec, &why);
		if (next == BISECT_ERROR) {
			sb_error("cannot compare the endpoints: %s", why);
			rc = -1;
			goto out;
		}
		char stamp[48];

		progress_stamp(b, stamp, sizeof(stamp));
		fprintf(stderr,
			"%s endpoints: %zu vs %zu runs, mean %.4g vs %.4g: %s %+.1f%% [%+.1f%%, "
			"%+.1f%%] p=%.3g: %s\n",
			stamp, ng, nb, stat_mean(gv, ng), stat_mean(bv, nb), b->stat, ec.change_pct,
			ec.w.lo_pct, ec.w.hi_pct, ec.w.p, verdict_name(ec.verdict));
		if (next != BISECT_MORE)
			break;
	}
	json_object_set_new(b->log, "endpoints",
			    json_pack("{s:s, s:s, s:o, s:o, s:f, s:f, s:f, s:f, s:s, s:s, s:b}",
				      "good", b->good, "bad", b->bad, "good_values",
				      bisect_values_json(gv, ng), "bad_values",
				      bisect_values_json(bv, nb), "change_pct", ec.change_pct,
				      "lo_pct", ec.w.lo_pct, "hi_pct", ec.w.hi_pct, "p", ec.w.p,
				      "test", ec.trimmed ? "yuen-log" : "welch-log", "verdict",
				      verdict_name(ec.verdict), "confirmed", ec.confirmed));
	bisect_event(b, "endpoints", json_pack("{s:b}", "confirmed", ec.confirmed));
	if (!ec.confirmed) {
		printf("The change does not reproduce: %s %+.1f%% [%+.1f%%, %+.1f%%] (p=%.3g, %s) "
		       "between %.10s (%zu runs) and %.10s (%zu runs) within the budget of %u "
		       "runs; nothing bisected.\n",
		       b->stat, ec.change_pct, ec.w.lo_pct, ec.w.hi_pct, ec.w.p,
		       verdict_name(ec.verdict), b->good, ng, b->bad, nb, b->max_runs);
		busy_note(b);
		rc = SB_EXIT_NOTHING;
		goto out;
	}
	/* The SPRT is only as good as its model of the endpoints. */
	unsigned model = bisect_model_runs(&pol, had);

	if (had < model) {
		free(gv);
		free(bv);
		gv = bv = NULL;
		if ((rc = batch_ensure_runs(b, b->good, model, &gv, &ng)) ||
		    (rc = batch_ensure_runs(b, b->bad, model, &bv, &nb))) {
			if (rc == 1) {
				sb_error("an endpoint cannot be prepared");
				rc = -1;
			}
			goto out;
		}
		json_object_set_new(json_object_get(b->log, "endpoints"), "model_good_values",
				    bisect_values_json(gv, ng));
		json_object_set_new(json_object_get(b->log, "endpoints"), "model_bad_values",
				    bisect_values_json(bv, nb));
	}
	if (sprt_init(m, gv, ng, bv, nb, b->confidence, &why)) {
		sb_error("endpoints: %s", why);
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
	const struct bisect_policy pol = policy_of(b);
	double *v = NULL;
	size_t n;
	unsigned want = BISECT_FIRST_RUNS;
	struct midpoint_call call;
	enum bisect_next next;
	double t0 = mono_now();
	int rc;

	for (;;) {
		free(v);
		v = NULL;
		rc = batch_ensure_runs(b, sha, want, &v, &n);
		if (rc == 1) {
			bisect_log_step(b, sha, "midpoint", NULL, 0, "skip", NULL);
			return 1;
		}
		if (rc)
			return rc;
		next = bisect_classify_next(&pol, m, v, n, &call);
		if (next != BISECT_MORE)
			break;
		want = call.want;
	}
	n = call.used;
	if (call.fallback) {
		b->fallback = true;
		sb_error(
		    "warning: %.10s: undecided after %zu runs (llr %.2f, thresholds %.2f/%.2f); "
		    "classified by the closer endpoint",
		    sha, n, call.llr, m->lower, m->upper);
	}
	*bad = next == BISECT_BAD;
	b->t_midpoints += mono_now() - t0;
	b->n_midpoints++;

	char stamp[48], subj[256], left[96] = "", eta[32];
	double mg, mb;

	progress_stamp(b, stamp, sizeof(stamp));
	subject(b, sha, subj, sizeof(subj));
	if (b->steps_known) {
		/* git's count, read when this commit was checked out, is of the steps after
		 * it; each is taken to cost what the ones so far did */
		unsigned after = b->steps_left;

		duration(b->t_midpoints / b->n_midpoints * after, eta, sizeof(eta));
		if (after)
			snprintf(left, sizeof(left), "; about %u step%s left, ~%s", after,
				 after == 1 ? "" : "s", eta);
		else
			snprintf(left, sizeof(left), "; about the last step");
	}
	if (endpoint_means(b, &mg, &mb))
		fprintf(stderr,
			"%s %.10s (\"%s\"): %zu runs, mean %.4g (good %.4g, bad %.4g), llr %+.2f: "
			"%s%s%s\n",
			stamp, sha, text_safe(subj), n, stat_mean(v, n), mg, mb, call.llr,
			*bad ? "bad" : "good", call.fallback ? " (closer endpoint)" : "", left);
	else
		fprintf(stderr, "%s %.10s (\"%s\"): %zu runs, llr %+.2f: %s%s%s\n", stamp, sha,
			text_safe(subj), n, call.llr, *bad ? "bad" : "good",
			call.fallback ? " (closer endpoint)" : "", left);
	bisect_log_step(b, sha, "midpoint", v, n, *bad ? "bad" : "good",
			json_pack("{s:f, s:b}", "llr", call.llr, "fallback", call.fallback));
	free(v);
	return 0;
}

/* After git bisect good/bad/skip: the next commit in next, or the culprit in culprit. */
static int bisect_step(struct bisect *b, const char *verb, const char *sha, char *next,
		       char *culprit)
{
	char out[16384], *p;

	next[0] = culprit[0] = '\0';
	int rc = !verb			 ? 0
		 : !strcmp(verb, "next") ? GIT(b, out, sizeof(out), "bisect", "next")
					 : GIT(b, out, sizeof(out), "bisect", verb, sha);

	if (!verb)
		snprintf(out, sizeof(out), "%s", sha); /* the start's output */
	/* git exits non-zero when only skipped commits are left: an answer, not a failure. */
	if (strstr(out, "only 'skip'ped commits left")) {
		printf("The bisection is inconclusive: the first bad commit could be any of the "
		       "commits git names:\n%s",
		       out);
		return SB_EXIT_INCONCLUSIVE;
	}
	if (rc) {
		sb_error("git bisect %s %s failed: %s", verb, sha ? sha : "", out);
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
		return SB_EXIT_INCONCLUSIVE;
	}
	/* "Bisecting: 5 revisions left to test after this (roughly 3 steps)" */
	if ((p = strstr(out, "(roughly ")) && sscanf(p, "(roughly %u step", &b->steps_left) == 1)
		b->steps_known = true;
	if (GIT(b, out, sizeof(out), "rev-parse", "HEAD"))
		return -1;
	text_chomp(out);
	snprintf(next, 41, "%.40s", out); /* a SHA-1 name: 40 hex digits */
	return 0;
}

/* The report command that mails parent against culprit, as a user copies it (malloc'd). */
static char *report_command_line(const struct bisect *b, const char *parent, const char *culprit)
{
	char *w[5] = {sh_word(b->results), sh_word(parent), sh_word(culprit),
		      sh_word(b->path_params), sh_word(b->repo ? b->repo : ".")};
	char *line;

	for (int i = 0; i < 5; i++)
		if (!w[i])
			xalloc_die();
	line = xasprintf("scalebench report --results %s --base %s --head %s --job %s --repo %s",
			 w[0], w[1], w[2], w[3], w[4]);
	for (int i = 0; i < 5; i++)
		free(w[i]);
	return line;
}

/* The hand-off to whoever reports the culprit: with --mbox and a verified culprit, the
 * robot's mail of it against its parent appended there (report's, from the same runs);
 * else the report command that writes it.  The log says which.  0, or SB_EXIT_ERROR when
 * the mail asked for could not be written. */
static int hand_off(struct bisect *b, const char *parent, const char *culprit, bool confirmed)
{
	char err[2048];
	char *cmd = report_command_line(b, parent, culprit);
	int rc = 0;

	if (b->mbox && confirmed) {
		struct mail_addr from = {0};
		struct report_mail m = {0};
		int built = -1;

		/* The branch bisected: git keeps it in BISECT_START while HEAD is detached. */
		char path[PATH_MAX + 16], *branch = NULL;
		size_t len;

		snprintf(path, sizeof(path), "%s/BISECT_START", b->gitdir);
		if (file_read(path, 256, &branch, &len, err, sizeof(err)) == 0) {
			text_chomp(branch);
			if (!branch[0] || git_is_oid(branch)) {
				free(branch);
				branch = NULL;
			}
		}
		if (mail_addr_parse(MAIL_FROM_DEFAULT, &from, err,
				    sizeof(err)) == 0) {
			const struct report_request rq = {.root = b->results,
							  .base = parent,
							  .head = culprit,
							  .job = b->path_params,
							  .repo = b->repo,
							  .branch = branch,
							  .from = &from};

			built = report_build(&rq, &m, err, sizeof(err));
			if (built == 1)
				snprintf(err, sizeof(err),
					 "report finds no significant change of a "
					 "headline stat");
		}
		if (built == 0 && report_deliver(m.msg, m.len, b->mbox, false, err, sizeof(err)))
			built = -1;
		if (built == 0) {
			printf("the robot's mail of %.10s against its parent: appended to %s\n",
			       culprit, b->mbox);
		} else {
			sb_error("--mbox %s: no mail written: %s; the culprit is verified (see the "
				 "log); to write it: %s --mbox %s",
				 b->mbox, err, cmd, b->mbox);
			rc = SB_EXIT_ERROR;
		}
		json_object_set_new(b->log, "report",
				    json_pack("{s:s, s:b, s:s}", "mbox", b->mbox, "written",
					      built == 0, "command", cmd));
		report_mail_free(&m);
		mail_addr_free(&from);
		free(branch);
	} else {
		printf("%s it as the robot does:\n  %s\n", confirmed ? "To mail" : "To look at",
		       cmd);
		if (b->mbox)
			printf("(no mail to %s: the culprit is not verified)\n", b->mbox);
		json_object_set_new(b->log, "report",
				    json_pack("{s:s, s:b, s:s}", "mbox", b->mbox ? b->mbox : "",
					      "written", false, "command", cmd));
	}
	free(cmd);
	return rc;
}

/* The culprit against its parent (the analyzer's check), then the report on stdout: 0
 * verified, 3 not (or it could not be), 130 interrupted. */
static int verify(struct bisect *b, const char *culprit)
{
	char parent[64], spec[80], subj[512], err[2048];
	double *pv = NULL, *cv = NULL;
	size_t np, nc;
	struct endpoint_check ec;
	const char *why;
	int rc;

	snprintf(spec, sizeof(spec), "%s^", culprit);
	if (resolve(b, spec, parent)) {
		sb_error("%.10s has no parent to verify against", culprit);
		return SB_EXIT_INCONCLUSIVE;
	}
	const struct bisect_policy pol = policy_of(b);
	unsigned want = BISECT_VERIFY_RUNS;
	enum bisect_next next;

	do {
		free(pv);
		free(cv);
		pv = cv = NULL;
		if ((rc = batch_ensure_runs(b, parent, want, &pv, &np)) ||
		    (rc = batch_ensure_runs(b, culprit, want, &cv, &nc))) {
			if (rc == 1)
				sb_error("cannot verify: %.10s cannot be prepared",
					 pv ? culprit : parent);
			free(pv);
			return rc == SB_EXIT_INTERRUPTED ? SB_EXIT_INTERRUPTED
							 : SB_EXIT_INCONCLUSIVE;
		}
		next = bisect_verify(&pol, pv, np, cv, nc, &want, &ec, &why);
		if (next == BISECT_ERROR) {
			sb_error("cannot verify: %s", why);
			free(pv);
			free(cv);
			return SB_EXIT_INCONCLUSIVE;
		}
		if (next == BISECT_MORE)
			fprintf(stderr,
				"verify: %zu vs %zu runs: %s %+.1f%% [%+.1f%%, %+.1f%%]: %s, "
				"%u runs each\n",
				np, nc, b->stat, ec.change_pct, ec.w.lo_pct, ec.w.hi_pct,
				verdict_name(ec.verdict), want);
	} while (next == BISECT_MORE);
	json_object_set_new(b->log, "verify",
			    json_pack("{s:s, s:s, s:o, s:o, s:f, s:f, s:f, s:f, s:s, s:s, s:b}",
				      "parent", parent, "culprit", culprit, "parent_values",
				      bisect_values_json(pv, np), "culprit_values",
				      bisect_values_json(cv, nc), "change_pct", ec.change_pct,
				      "lo_pct", ec.w.lo_pct, "hi_pct", ec.w.hi_pct, "p", ec.w.p,
				      "test", ec.trimmed ? "yuen-log" : "welch-log", "verdict",
				      verdict_name(ec.verdict), "confirmed", ec.confirmed));
	bisect_event(b, "verify",
		     json_pack("{s:s, s:b}", "culprit", culprit, "confirmed", ec.confirmed));
	free(pv);
	free(cv);

	subject(b, culprit, subj, sizeof(subj));
	printf("%s is the first bad commit\n    %s\n\n", culprit, subj);
	printf("%s %+.1f%% [%+.1f%%, %+.1f%%] against its parent %.10s: %s\n\n", b->stat,
	       ec.change_pct, ec.w.lo_pct, ec.w.hi_pct, parent,
	       ec.confirmed ? "verified" : "NOT verified");
	printf("runs per commit:\n");
	unsigned tr = 0, tb = 0;

	for (size_t i = 0; i < b->norder; i++) {
		tr += b->spent[i];
		tb += b->reboots[i];
		if (boot_reboots(b))
			printf("  %.10s %3u runs %3u reboots\n", b->order[i], b->spent[i],
			       b->reboots[i]);
		else
			printf("  %.10s %3u\n", b->order[i], b->spent[i]);
	}
	printf("runs spent: %u, reboots spent: %u\n\n", tr, tb);

	/* The full comparison, parent vs culprit, as the robot prints it: each side's runs as
	 * the batches took them (select.h), machines of one class together under --slurm. */
	struct result_group *g[2] = {NULL, NULL}, both[2];
	const char *labels[2] = {parent, culprit};
	size_t ng[2] = {0, 0};

	for (int i = 0; i < 2; i++)
		if (select_groups(b->results, b->path_params, labels[i],
				  b->slurm ? SELECT_NODES : 0, &g[i], &ng[i], err, sizeof(err)))
			sb_note("no closing table: %s", err);
	if (ng[0] > 1 || ng[1] > 1)
		sb_note("no closing table: the runs are on %zu and %zu machines of one class; "
			"`compare --results %s --job KEY` compares one machine's",
			ng[0], ng[1], b->results);
	if (ng[0] == 1 && ng[1] == 1) {
		struct compare_opts o = COMPARE_OPTS_DEFAULT;
		struct comparison c;

		both[0] = g[0][0];
		both[1] = g[1][0];
		if (compare_groups(both, 2, &o, &c, err, sizeof(err)) == 0) {
			print_robot_table(&c, false, false, stdout);
			comparison_free(&c);
		}
	}
	for (int i = 0; i < 2; i++)
		select_groups_free(g[i], ng[i]);
	printf("\n");
	if (hand_off(b, parent, culprit, ec.confirmed))
		return SB_EXIT_ERROR;
	return ec.confirmed ? SB_EXIT_OK : SB_EXIT_INCONCLUSIVE;
}

/* The token file in the git dir: the bisection it holds was started by the log naming the
 * same token. */
static void token_path(const struct bisect *b, char *path, size_t len)
{
	snprintf(path, len, "%s/scalebench-bisect", b->gitdir);
}

static int token_write(struct bisect *b)
{
	char path[PATH_MAX + 32], text[PATH_MAX + 64], err[PATH_MAX + 64];

	token_path(b, path, sizeof(path));
	snprintf(text, sizeof(text), "%s %s\n", b->token, b->log_file);
	if (file_write(path, text, strlen(text), err, sizeof(err))) {
		sb_error("%s", err);
		return -1;
	}
	return 0;
}

/* Does the git bisection in progress belong to this log? */
static bool token_ours(const struct bisect *b)
{
	char path[PATH_MAX + 32], *text = NULL;
	bool ours;

	token_path(b, path, sizeof(path));
	if (file_read(path, 1 << 16, &text, NULL, NULL, 0))
		return false;
	ours = b->token[0] && !strncmp(text, b->token, strlen(b->token)) &&
	       text[strlen(b->token)] == ' ';
	free(text);
	return ours;
}

static bool bisecting(const struct bisect *b)
{
	char path[PATH_MAX + 32];
	struct stat st;

	snprintf(path, sizeof(path), "%s/BISECT_LOG", b->gitdir);
	return stat(path, &st) == 0;
}

/* A resumed bisection: the decisions the log holds that git's bisect state lacks (killed
 * between the two), applied. */
static int replay(struct bisect *b)
{
	char *out = NULL, line[200], err[512];
	size_t i;
	json_t *s;

	if (git_run(b->repo, GIT_ARGS("bisect", "log"), 0, &out, err, sizeof(err))) {
		sb_error("%s", err[0] ? err : "git bisect log failed");
		free(out);
		return -1;
	}
	json_array_foreach (b->steps, i, s) {
		const char *sha = json_string_value(json_object_get(s, "commit"));
		const char *d = json_string_value(json_object_get(s, "decision"));
		char o[4096];

		if (!sha || !d)
			continue;
		snprintf(line, sizeof(line), "git bisect %s %s", d, sha);
		if (strstr(out, line))
			continue;
		if (GIT(b, o, sizeof(o), "bisect", d, sha)) {
			sb_error("git bisect %s %s failed: %s", d, sha, o);
			free(out);
			return -1;
		}
		fprintf(stderr, "resume: applied the logged decision %s for %.10s\n", d, sha);
	}
	free(out);
	return 0;
}

/* The processes a SIGKILLed controller of this log left running (a `scalebench run` in its
 * own process group goes on without it; a `scalebench submit --wait`, whose SIGTERM cancels its
 * array): found by the token in their environment, ended before the resumed bisection measures
 * anything beside them.  How many were found. */
static size_t end_orphans(const struct bisect *b)
{
	pid_t *pids = NULL;
	size_t n = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[300], *env = NULL;
		size_t len = 0;
		pid_t pid = (pid_t)strtol(de->d_name, NULL, 10);

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
		if (file_read(path, 1 << 20, &env, &len, NULL, 0))
			continue;
		if (memmem(env, len, b->env_token, strlen(b->env_token) + 1)) {
			pids = xrealloc(pids, (n + 1) * sizeof(*pids));
			pids[n++] = pid;
		}
		free(env);
	}
	closedir(d);
	for (size_t i = 0; i < n; i++)
		kill(pids[i], SIGTERM);
	/* SIGTERM first: a run removes its half run; then, after a grace, SIGKILL. */
	for (int t = 0; t < 100; t++) {
		bool alive = false;

		for (size_t i = 0; i < n; i++)
			if (kill(pids[i], 0) == 0)
				alive = true;
		if (!alive)
			break;
		bisect_nap(50);
	}
	for (size_t i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	free(pids);
	return n;
}

static const char *status_name(int rc, bool culprit)
{
	switch (rc) {
	case SB_EXIT_OK:
		return "found";
	case SB_EXIT_NOTHING:
		return "not-reproduced";
	case SB_EXIT_INCONCLUSIVE:
		return culprit ? "not-verified" : "inconclusive";
	case SB_EXIT_INTERRUPTED:
		return "interrupted";
	default:
		return "failed";
	}
}

static int bisect_loop(struct bisect *b)
{
	char out[16384], next[64], culprit[64] = "";
	struct sprt_model m;
	json_t *sprt = json_object_get(b->log, "sprt");
	int rc;

	if (!b->resume || !bisecting(b)) {
		if (token_write(b))
			return SB_EXIT_ERROR;
		if (GIT(b, out, sizeof(out), "bisect", "start", b->bad, b->good)) {
			sb_error("git bisect start failed: %s", out);
			return SB_EXIT_ERROR;
		}
		bisect_event(b, "bisect-start",
			     json_pack("{s:s, s:s}", "good", b->good, "bad", b->bad));
	}
	if (b->resume) {
		size_t orphans = end_orphans(b);

		if (orphans)
			bisect_event(b, "orphans-ended",
				     json_pack("{s:I}", "processes", (json_int_t)orphans));
		if ((rc = replay(b)))
			goto out;
		rc = bisect_step(b, "next", NULL, next, culprit);
	} else {
		rc = bisect_step(b, NULL, out, next, culprit);
	}
	if (rc)
		goto out;
	if (sprt) {
		/* Decided before the kill: not redone. */
		m.mu_good = json_real_value(json_object_get(sprt, "mu_good"));
		m.mu_bad = json_real_value(json_object_get(sprt, "mu_bad"));
		m.sd = json_real_value(json_object_get(sprt, "sd"));
		m.upper = json_real_value(json_object_get(sprt, "upper"));
		m.lower = json_real_value(json_object_get(sprt, "lower"));
	} else {
		rc = endpoints(b, &m);
		if (rc)
			goto out;
		json_object_set_new(b->log, "sprt",
				    json_pack("{s:f, s:f, s:f, s:f, s:f}", "mu_good", m.mu_good,
					      "mu_bad", m.mu_bad, "sd", m.sd, "upper", m.upper,
					      "lower", m.lower));
		bisect_event(b, "model", NULL);
	}
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
	bisect_event(b, "culprit", json_pack("{s:s}", "commit", culprit));
	rc = verify(b, culprit);
	if (rc == SB_EXIT_OK && b->fallback) {
		sb_error(
		    "inconclusive: a midpoint was classified by the closer endpoint at --max-runs");
		rc = SB_EXIT_INCONCLUSIVE;
	}
out:
	if (interrupt_caught) {
		rc = SB_EXIT_INTERRUPTED;
		b->signal = interrupt_caught;
	}
	rc = rc < 0 ? SB_EXIT_ERROR : rc;
	json_object_set_new(b->log, "status", json_string(status_name(rc, culprit[0])));
	json_object_set_new(b->log, "exit", json_integer(rc));
	if (b->signal)
		json_object_set_new(b->log, "signal",
				    json_string(b->signal == SIGINT ? "SIGINT" : "SIGTERM"));
	/* The repository as it was, whatever happened; but a reboot we issued and await is the
	 * machine going down under us (the local recipe): the state stays for --resume. */
	b->prepared[0] = '\0';
	resetting = true;
	if (rc == SB_EXIT_INTERRUPTED && b->booted[0]) {
		fprintf(stderr,
			"interrupted while awaiting the boot of %.10s: the bisect state is "
			"kept; continue with scalebench bisect --resume %s\n",
			b->booted, b->log_file);
	} else {
		char tp[PATH_MAX + 32];

		if (GIT(b, out, sizeof(out), "bisect", "reset")) {
			sb_error("git bisect reset failed: %s", out);
			rc = rc ? rc : SB_EXIT_ERROR;
		}
		token_path(b, tp, sizeof(tp));
		unlink(tp);
		if (rc == SB_EXIT_INTERRUPTED)
			fprintf(stderr,
				"interrupted (%s): the runs so far are kept; continue with "
				"scalebench bisect --resume %s\n",
				b->signal == SIGINT ? "SIGINT" : "SIGTERM", b->log_file);
	}
	if (rc == SB_EXIT_INTERRUPTED)
		bisect_event(
		    b, "interrupted",
		    json_pack("{s:s}", "signal", b->signal == SIGINT ? "SIGINT" : "SIGTERM"));
	if (bisect_event(
		b, "end",
		json_pack("{s:s, s:i}", "status", status_name(rc, culprit[0]), "exit", rc)) &&
	    !rc)
		rc = SB_EXIT_ERROR;
	fprintf(stderr, "bisect log: %s\n", b->log_file);
	return rc;
}

/* --kernel-tree: the prepare step is scalebench-kernel-build CACHE CONFIG (absolute paths: it
 * runs in the repository), the config found; the threshold capped in icount mode.  0, or 2
 * after a message. */
static int kernel_tree_setup(struct bisect *b)
{
	char *cache_buf = b->kernel_cache_abs, *config_buf = b->kernel_config_abs;
	char helper_dir[PATH_MAX], script[PATH_MAX + 32], def_config[PATH_MAX + 32];
	char *qs, *qc, *qk;
	int n;

	if (!b->kernel_tree)
		return SB_EXIT_OK;
	testcase_helper_dir(helper_dir, sizeof(helper_dir));
	snprintf(script, sizeof(script), "%s/scalebench-kernel-build", helper_dir);
	if (access(script, X_OK)) {
		sb_error("%s: %s; --kernel-tree needs scalebench's kernel build step (make, or "
			 "make install)",
			 script, strerror(errno));
		return SB_EXIT_ERROR;
	}
	if (!b->kernel_config) {
		snprintf(def_config, sizeof(def_config), "%s/kernel-guest.config", helper_dir);
		path_absolute(def_config, config_buf, sizeof(b->kernel_config_abs));
	} else {
		path_absolute(b->kernel_config, config_buf, sizeof(b->kernel_config_abs));
	}
	if (access(config_buf, R_OK)) {
		sb_error("--kernel-config '%s': %s; expected a .config or a config fragment",
			 config_buf, strerror(errno));
		return SB_EXIT_ERROR;
	}
	if (b->kernel_cache)
		path_absolute(b->kernel_cache, cache_buf, sizeof(b->kernel_cache_abs));
	else {
		char def[PATH_MAX + 16];

		snprintf(def, sizeof(def), "%s/kernels", b->results);
		path_absolute(def, cache_buf, sizeof(b->kernel_cache_abs));
	}
	b->kernel_config = config_buf;
	b->kernel_cache = cache_buf;
	qs = sh_quote(script);
	qc = sh_quote(cache_buf);
	qk = sh_quote(config_buf);
	n = qs && qc && qk
		? snprintf(b->kernel_prepare, sizeof(b->kernel_prepare), "%s %s %s", qs, qc, qk)
		: -1;
	free(qs);
	free(qc);
	free(qk);
	if (n < 0 || n >= (int)sizeof(b->kernel_prepare)) {
		sb_error("--kernel-cache and --kernel-config: paths too long");
		return SB_EXIT_ERROR;
	}
	b->prepare = b->kernel_prepare;
	/* Instruction counts: their spread is ~0.01%; compare's threshold for them, here too. */
	if ((b->vm_icount || (b->vm_accel && !strcmp(b->vm_accel, "icount"))) &&
	    b->threshold > COMPARE_ICOUNT_THRESHOLD)
		b->threshold = COMPARE_ICOUNT_THRESHOLD;
	return SB_EXIT_OK;
}

int bisect_preflight(struct bisect *b)
{
	char out[4096], bisect_log[PATH_MAX + 32], err[1024];
	struct job_file job;
	struct stat st;

	if (kernel_tree_setup(b))
		return SB_EXIT_ERROR;
	if (!b->good_arg || !b->bad_arg || !b->job_path || !b->stat || !b->prepare) {
		sb_error("--good, --bad, --job, --stat and --prepare (or --kernel-tree) are "
			 "required");
		return SB_EXIT_ERROR;
	}
	if (GIT(b, out, sizeof(out), "rev-parse", "--absolute-git-dir")) {
		sb_error("%s is not a git repository: %s", b->repo, out);
		return SB_EXIT_ERROR;
	}
	text_chomp(out);
	snprintf(b->gitdir, sizeof(b->gitdir), "%s", out);
	snprintf(bisect_log, sizeof(bisect_log), "%s/BISECT_LOG", b->gitdir);
	if (stat(bisect_log, &st) == 0 && !(b->resume && token_ours(b))) {
		sb_error("%s is already being bisected (%s exists)%s; finish it or run 'git bisect "
			 "reset' first",
			 b->repo, bisect_log, b->resume ? ", not by this log" : "");
		return SB_EXIT_ERROR;
	}
	if (resolve(b, b->good_arg, b->good)) {
		sb_error("--good '%s': unknown commit in %s", b->good_arg, b->repo);
		return SB_EXIT_ERROR;
	}
	if (resolve(b, b->bad_arg, b->bad)) {
		sb_error("--bad '%s': unknown commit in %s", b->bad_arg, b->repo);
		return SB_EXIT_ERROR;
	}
	if (!strcmp(b->good, b->bad) ||
	    GIT(b, NULL, 0, "merge-base", "--is-ancestor", b->good, b->bad)) {
		sb_error("--good %s is not an ancestor of --bad %s", b->good_arg, b->bad_arg);
		return SB_EXIT_ERROR;
	}
	if (GIT(b, out, sizeof(out), "status", "--porcelain", "--untracked-files=no") || out[0]) {
		sb_error("the work tree of %s is dirty; commit or stash first:\n%s", b->repo, out);
		return SB_EXIT_ERROR;
	}
	/* The job names the plug-in's testcases: load what is built already (the prepare
	 * command rebuilds it per commit, each run loads its own). */
	for (size_t i = 0; i < b->nplugins; i++)
		if (access(b->plugins[i], F_OK) == 0 &&
		    plugin_load(b->plugins[i], err, sizeof(err)) < 0) {
			sb_error("%s", err);
			return SB_EXIT_ERROR;
		}
	if (job_load_overrides(b->job_path, (unsigned)sysconf(_SC_NPROCESSORS_ONLN),
			       b->overrides.v, b->overrides.n, &job, err, sizeof(err))) {
		sb_error("%s", err);
		for (size_t i = 0; i < b->nplugins; i++)
			if (access(b->plugins[i], F_OK))
				sb_error(
				    "note: plug-in %s does not exist yet: build it once so that "
				    "the "
				    "job's testcase is known",
				    b->plugins[i]);
		return SB_EXIT_ERROR;
	}
	/* Runs made here run the job as `run` does, task counts that coincide on this
	 * machine's CPUs once; a target's, a guest's or a node's CPUs are not this machine's. */
	if (!b->target && !b->slurm && !b->kernel_tree) {
		size_t had = job.n_notes;

		if (job_drop_coinciding(&job) < 0)
			xalloc_die();
		for (size_t i = had; i < job.n_notes; i++)
			sb_note("%s", job.notes[i]);
	}
	if (job.n_atomic != 1) {
		sb_error("%s expands to %zu atomic jobs; bisect runs exactly one (narrow it with "
			 "--set, --nr-task or --runtime, or split it first)",
			 b->job_path, job.n_atomic);
		job_free(&job);
		return SB_EXIT_ERROR;
	}
	snprintf(b->path_params, sizeof(b->path_params), "%s", job.atomic[0].path_params);
	b->run_secs = job.atomic[0].runtime_s + job.atomic[0].warmup_s;
	job_free(&job);
	if (access(b->results, F_OK) && mkdir(b->results, 0777)) {
		sb_error("results root %s: %s", b->results, strerror(errno));
		return SB_EXIT_ERROR;
	}
	return SB_EXIT_OK;
}

void bisect_plan_print(const struct bisect *b)
{
	char out[256], range[200];

	snprintf(range, sizeof(range), "%s..%s", b->good, b->bad);
	if (GIT(b, out, sizeof(out), "rev-list", "--count", range))
		snprintf(out, sizeof(out), "?");
	text_chomp(out);
	printf("would bisect %s between good %.10s and bad %.10s in %s (%s commits)\n", b->stat,
	       b->good, b->bad, b->repo, out);
	printf("job: %s (%s), results under %s\n", b->job_path, b->path_params, b->results);
	printf("each commit: git checkout, then sh -c '%s' with SCALEBENCH_COMMIT set\n",
	       b->prepare);
	if (b->target)
		printf("runs on %s through scalebench run --target\n", b->target);
	if (b->slurm)
		printf("each batch of runs: one Slurm job array through scalebench submit "
		       "--wait%s%s%s%s, into %s\n",
		       b->partition ? ", partition " : "", b->partition ? b->partition : "",
		       b->constraint ? ", constraint " : "", b->constraint ? b->constraint : "",
		       b->results);
	if (boot_reboots(b))
		printf("each batch of %u runs: %s%s%s, then the boot check (%s) within %.0f s\n",
		       b->runs_per_boot, b->reboot ? "sh -c '" : "ssh TARGET reboot",
		       b->reboot ? b->reboot : "", b->reboot ? "'" : "",
		       b->boot_check ? b->boot_check : "a new boot_id and uname -r there",
		       b->boot_timeout);
	printf("endpoints: 3 runs each, up to %u, until the change is confirmed\n", b->max_runs);
	printf("midpoints: SPRT at alpha = beta = %.3g, 3 to %u runs each\n", 1 - b->confidence,
	       b->max_runs);
	printf("verification: the culprit against its parent, 3 runs each, up to %u, until "
	       "there is a verdict\n",
	       b->max_runs);
	/* The fewest runs a clear change takes: both endpoints as the model wants them, one
	 * batch per step of a binary search over the commits; the verification reuses the last
	 * two steps' runs. */
	unsigned long n = strtoul(out, NULL, 10);
	unsigned steps = 0;

	while (n > 1 && (1ul << steps) < n)
		steps++;
	if (n > 1) {
		const struct bisect_policy pol = policy_of(b);
		unsigned runs = 2 * bisect_model_runs(&pol, BISECT_FIRST_RUNS) +
				steps * BISECT_FIRST_RUNS;
		char t[32];

		duration(runs * b->run_secs, t, sizeof(t));
		printf("estimate: about %u steps; a clear change takes about %u runs of %.3g s "
		       "(%s of runs), plus each commit's prepare%s; noise adds runs, up to %u per "
		       "commit\n",
		       steps, runs, b->run_secs, t, boot_reboots(b) ? " and reboot" : "",
		       b->max_runs);
	}
}

int bisect_run(struct bisect *b)
{
	struct sigaction sa = {.sa_handler = interrupt_handler}, old_int, old_term;
	int rc;

	bisect_kill_hook(b);
	b->t_start = mono_now();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if (bisect_event(b, b->resume ? "resume" : "start",
			 json_pack("{s:i}", "pid", (int)getpid())))
		rc = SB_EXIT_ERROR;
	else
		rc = bisect_loop(b);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return rc;
}

void bisect_free(struct bisect *b)
{
	json_decref(b->steps);
	json_decref(b->events);
	json_decref(b->log);
	free(b->order);
	free(b->spent);
	free(b->reboots);
	free(b->ssh_options);
	strvec_clear(&b->said);
	for (size_t i = 0; i < b->overrides.n; i++)
		free((char *)b->overrides.v[i].key);
	free(b->overrides.v);
	target_free(&b->tgt);
}
