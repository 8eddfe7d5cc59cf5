/* scalebench report: the kernel test robot's email on two commits, from the results tree. */
#include "builtin.h"
#include "../analyze/compare.h"
#include "../analyze/plot.h"
#include "../analyze/results.h"
#include "../lib/run_command.h"
#include "../store/layout.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const struct command_def report_command = {
    .name = "report",
    .summary = "Write the kernel test robot's email on a significant change between two commits.",
    .details =
	"Every job of the results tree run at both commits is compared as 'compare' does.  The\n"
	"headline stat with the largest significant change names the subject; the other jobs\n"
	"that changed significantly go in the \"In addition to that\" box.  Without --mbox or\n"
	"--sendmail the message is printed.  With no significant change, says so and writes\n"
	"nothing.\n"
	"\nexit status: 0 message written or nothing to report, 2 error.\n",
};

struct job_cmp {
	struct result_group g[2];
	struct comparison c;
	const struct stat_row *best; /* the headline stat with the largest significant change */
};

/* git -C repo ARGS: its first line of output, or "" when it fails. */
static void git_line(const char *repo, const char *const *args, char *out, size_t len)
{
	const char *argv[16] = {"git", "-C", repo};
	struct child_process git = {
	    .argv = argv, .out = RUN_OUT_CAPTURE, .err = RUN_OUT_NULL, .end_group = true};
	char err[512];
	size_t n = 3;

	out[0] = '\0';
	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (!repo)
		return;
	if (!child_run(&git, err, sizeof(err)) && git.exit_code == 0 && git.out_text.p)
		snprintf(out, len, "%.*s", (int)strcspn(git.out_text.p, "\n"), git.out_text.p);
	child_release(&git);
}

#define GITL(repo, out, len, ...) git_line(repo, (const char *const[]){__VA_ARGS__, NULL}, out, len)

static const struct stat_row *best_row(const struct comparison *c)
{
	const struct stat_row *best = NULL;

	for (size_t i = 0; i < c->nrows; i++) {
		const struct stat_row *r = &c->rows[i];

		if (!r->headline || r->failure || !r->has_change[1] ||
		    (r->verdict[1] != V_REGRESSION && r->verdict[1] != V_IMPROVEMENT))
			continue;
		/* Equal as printed: the first one (the per-copy stat before the total). */
		if (!best || fabs(r->change[1]) > fabs(best->change[1]) + 0.05)
			best = r;
	}
	return best;
}

static const char *change_word(const struct stat_row *r)
{
	return r->verdict[1] == V_REGRESSION ? "regression" : "improvement";
}

static void fmt_change(const struct stat_row *r, char *buf, size_t len)
{
	snprintf(buf, len, r->absolute ? "%+.1f" : "%+.1f%%", r->change[1]);
}

static void machine_line(const struct result_group *g, char *buf, size_t len)
{
	json_t *m =
	    g->nruns && g->runs[0].meta ? json_object_get(g->runs[0].meta, "machine") : NULL;
	json_int_t threads = json_integer_value(json_object_get(m, "threads"));
	json_int_t sockets = json_integer_value(json_object_get(m, "sockets"));
	json_int_t mem = json_integer_value(json_object_get(m, "memory_kib"));
	const char *model = json_string_value(json_object_get(m, "cpu_model"));
	int n = snprintf(buf, len, "%lld threads ", (long long)threads);

	if (sockets && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "%lld sockets ", (long long)sockets);
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s with %.0fG memory", model ? model : "?",
			 (double)mem / (1024.0 * 1024.0));
}

static void params(const struct result_group *g, FILE *f, const char *indent, const char *sep)
{
	json_t *m = g->nruns ? g->runs[0].meta : NULL;
	json_t *nr = json_object_get(m, "nr_task"), *rt = json_object_get(m, "runtime_s");

	fprintf(f, "%snr_task: %lld%s", indent, (long long)json_integer_value(nr), sep);
	fprintf(f, "%smode: %s%s", indent, g->axes[AX_MODE] ? g->axes[AX_MODE] : "?", sep);
	fprintf(f, "%stest: %s%s", indent, g->axes[AX_TEST] ? g->axes[AX_TEST] : "?", sep);
	if (rt)
		fprintf(f, "%sruntime: %gs%s", indent, json_number_value(rt), sep);
}

/* The full sha and subject of commit `label` when repo knows it; both "" otherwise. */
static void commit_lookup(const char *repo, const char *label, char sha[64], char subj[512])
{
	char spec[300];

	sha[0] = subj[0] = '\0';
	if (!repo)
		return;
	snprintf(spec, sizeof(spec), "%s^{commit}", label);
	GITL(repo, sha, 64, "rev-parse", "--verify", "--quiet", spec);
	if (sha[0])
		GITL(repo, subj, 512, "log", "-1", "--format=%s", sha);
}

/* A commit line: sha10 ("subject") when the repo knows it, else the label whole: a name
 * someone chose ("nightly-2026-11-03") says nothing cut to ten characters. */
static void commit_line(const char *repo, const char *label, char *buf, size_t len)
{
	char sha[64], subj[512];

	commit_lookup(repo, label, sha, subj);
	if (subj[0])
		snprintf(buf, len, "%.10s (\"%s\")", sha, subj);
	else if (sha[0])
		snprintf(buf, len, "%.10s", sha);
	else
		snprintf(buf, len, "%s", label);
}

static void write_body(FILE *f, struct job_cmp *jobs, size_t n, size_t main_job, const char *repo,
		       const char *base, const char *head, const char *branch)
{
	struct job_cmp *j = &jobs[main_job];
	const struct result_group *g = &j->g[1];
	char change[32], line[1024];
	const char *testcase = g->axes[AX_TESTCASE] ? g->axes[AX_TESTCASE] : "?";

	fmt_change(j->best, change, sizeof(change));
	fprintf(f, "Hello,\n\nkernel test robot noticed a %s %s of %s on:\n\n\n", change,
		change_word(j->best), j->best->name);
	commit_line(repo, head, line, sizeof(line));
	fprintf(f, "commit: %s\n", line);
	fprintf(f, "branch: %s\n", branch);
	commit_line(repo, base, line, sizeof(line));
	fprintf(f, "base: %s\n\n", line);
	fprintf(f, "testcase: %s\n", testcase);
	machine_line(g, line, sizeof(line));
	fprintf(f, "test machine: %s\n", line);
	fprintf(f, "parameters:\n\n");
	params(g, f, "\t", "\n");
	fprintf(f, "\n\n");

	bool other = false;

	for (size_t i = 0; i < n; i++)
		if (i != main_job && jobs[i].best)
			other = true;
	if (other) {
		const char *rule =
		    "+------------------+----------------------------------------------"
		    "------------------------------+";

		fprintf(f,
			"In addition to that, the commit also has significant impact on the "
			"following tests:\n\n%s\n",
			rule);
		for (size_t i = 0; i < n; i++) {
			char p[512];
			FILE *pf;

			if (i == main_job || !jobs[i].best)
				continue;
			fmt_change(jobs[i].best, change, sizeof(change));
			snprintf(line, sizeof(line), "%s: %s %s %s",
				 jobs[i].g[1].axes[AX_TESTCASE] ? jobs[i].g[1].axes[AX_TESTCASE]
								: "?",
				 jobs[i].best->name, change, change_word(jobs[i].best));
			fprintf(f, "| testcase: change | %-75s |\n", line);
			machine_line(&jobs[i].g[1], line, sizeof(line));
			fprintf(f, "| test machine     | %-75s |\n", line);
			pf = fmemopen(p, sizeof(p), "w");
			if (pf) {
				params(&jobs[i].g[1], pf, "", " ");
				fclose(pf);
				p[sizeof(p) - 1] = '\0';
			} else {
				p[0] = '\0';
			}
			fprintf(f, "| test parameters  | %-75s |\n%s\n", p, rule);
		}
		fprintf(f, "\n\n");
	}
	fprintf(f, "Details are as below:\n"
		   "-------------------------------------------------------------------------------"
		   "------------------->\n\n");
	print_robot_table(&j->c, false, false, f);

	char err[512];

	if (plot_available(err, sizeof(err))) {
		for (size_t i = 0; i < j->c.nrows; i++) {
			const struct stat_row *r = &j->c.rows[i];
			struct plot_series s[2];
			double *v[2];

			if (!r->headline || !row_is_notable(r, 2))
				continue;
			for (int k = 0; k < 2; k++) {
				v[k] = calloc(j->g[k].nruns + 1, sizeof(double));
				s[k] = (struct plot_series){
				    .label = j->g[k].commit,
				    .y = v[k],
				    .n = v[k] ? group_values(&j->g[k], r->name, v[k]) : 0};
			}
			char title[1024];

			group_plot_title(&j->g[0], r->name, title, sizeof(title));
			fprintf(f, "\n\n");
			if (v[0] && v[1] &&
			    plot_samples(title, s, 2, PLOT_TEXT, NULL, f, err, sizeof(err)))
				sb_error("plot of %s: %s", r->name, err);
			free(v[0]);
			free(v[1]);
		}
	} else {
		sb_error("no plots: %s", err);
	}
	fprintf(f, "\n\n\nDisclaimer:\nResults have been estimated based on internal scalebench "
		   "runs; please verify them on your own setup.\n\n-- \nscalebench\n");
}

/* The whole message: headers, blank line, body.  "From " lines of the body are quoted by the
 * mbox writer, not here. */
static char *compose(struct job_cmp *jobs, size_t n, size_t main_job, const char *repo,
		     const char *base, const char *head, const char *branch, const char *from,
		     const char *to, size_t *len)
{
	char *buf = NULL, date[64], subj_pfx[300] = "", sha[64], subj[512], host[128];
	FILE *f = open_memstream(&buf, len);
	time_t now = time(NULL);
	struct tm tm;
	char change[32];
	struct job_cmp *j = &jobs[main_job];

	if (!f)
		return NULL;
	localtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S %z", &tm);
	commit_lookup(repo, head, sha, subj);
	/* The subsystem: the commit subject's prefix, "mm: memcontrol: ..." -> "mm". */
	char *colon = strchr(subj, ':');

	if (colon && colon - subj < 40 && !memchr(subj, ' ', (size_t)(colon - subj)))
		snprintf(subj_pfx, sizeof(subj_pfx), "[%.*s] ", (int)(colon - subj), subj);
	fmt_change(j->best, change, sizeof(change));
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	fprintf(f, "From: %s\n", from);
	fprintf(f, "To: %s\n", to);
	fprintf(f, "Subject: [%s] %s%.*s: %s %s %s\n", branch, subj_pfx, sha[0] ? 10 : INT_MAX,
		sha[0] ? sha : head, j->best->name, change, change_word(j->best));
	fprintf(f, "Date: %s\n", date);
	fprintf(f, "Message-ID: <%lld.%d.%.10s@%s>\n", (long long)now, (int)getpid(),
		sha[0] ? sha : head, host);
	fprintf(f, "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
		   "Content-Transfer-Encoding: 8bit\n\n");
	write_body(f, jobs, n, main_job, repo, base, head, branch);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Append as one mboxrd message: a From_ line, ">From " quoting, a blank line after. */
static int write_mbox(const char *path, const char *msg, size_t len)
{
	char *buf = NULL, date[64];
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	time_t now = time(NULL);
	struct tm tm;
	int fd, rc = 0;

	if (!f)
		return -1;
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y", &tm);
	fprintf(f, "From scalebench@localhost %s\n", date);
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(msg + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (msg + i)) + 1 : len - i;
		size_t k = i;

		while (k < i + l && msg[k] == '>')
			k++;
		if (len - k >= 5 && !strncmp(msg + k, "From ", 5))
			fputc('>', f);
		fwrite(msg + i, 1, l, f);
		i += l;
	}
	if (len && msg[len - 1] != '\n')
		fputc('\n', f);
	fputc('\n', f);
	if (fclose(f))
		return -1;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0 || write(fd, buf, blen) != (ssize_t)blen)
		rc = -1;
	if (fd >= 0 && close(fd))
		rc = -1;
	free(buf);
	return rc;
}

static int run_sendmail(const char *msg, size_t len)
{
	const char *argv[] = {"sendmail", "-t", NULL};
	struct child_process sendmail = {
	    .argv = argv, .in = RUN_IN_BUFFER, .in_buf = msg, .in_len = len};
	char err[512];

	if (child_run(&sendmail, err, sizeof(err))) {
		sb_error("%s", err);
		return -1;
	}
	return sendmail.exit_code == 0 ? 0 : -1;
}

/* Whether runs of label exist under root; when not and the repo resolves label to a
 * commit, its full sha in sha (returns false then, true otherwise). */
static bool label_stored(const char *root, const char *job, const char *label, const char *repo,
			 char *sha, size_t len)
{
	char spec[300], **dirs;
	ssize_t found = store_find(root, job, label, &dirs);

	for (ssize_t i = 0; i < found; i++)
		free(dirs[i]);
	free(dirs);
	if (found > 0 || !repo)
		return true;
	snprintf(spec, sizeof(spec), "%s^{commit}", label);
	GITL(repo, sha, len, "rev-parse", "--verify", "--quiet", spec);
	return !(strlen(sha) == 40);
}

int cmd_report(int argc, char **argv)
{
	const char *base = NULL, *head = NULL, *root, *job = NULL, *repo = NULL, *mbox = NULL,
		   *from, *to = NULL, *branch = NULL;
	bool sendmail = false;
	const struct option_def opts[] = {
	    {OPT_STRING("base", 0, &base), .arg = "A", .flags = OPTION_REQUIRED,
	     .help = "the commit label compared against (the parent)"},
	    {OPT_STRING("head", 0, &head), .arg = "B", .flags = OPTION_REQUIRED,
	     .help = "the commit label reported on"},
	    {OPT_STRING("results", 0, &root), .arg = "DIR", .def = "results",
	     .help = "results root"},
	    {OPT_STRING("job", 0, &job), .arg = "PATH_PARAMS", .def_doc = "every job",
	     .help = "only this atomic job's path_params"},
	    {OPT_STRING("repo", 0, &repo), .arg = "DIR",
	     .help = "the git repository: commit subjects, subsystem, branch"},
	    {OPT_STRING("mbox", 0, &mbox), .arg = "FILE",
	     .help = "append the message to an mbox file"},
	    {OPT_FLAG("sendmail", 0, &sendmail), .help = "pipe the message to sendmail -t"},
	    {OPT_STRING("from", 0, &from), .arg = "ADDR",
	     .def = "scalebench robot <scalebench@localhost>", .help = "From:"},
	    {OPT_STRING("to", 0, &to), .arg = "ADDR",
	     .def_doc = "the head commit's author with --repo, else root@localhost", .help = "To:"},
	    {OPT_STRING("branch", 0, &branch), .arg = "NAME", .def_doc = "the repo's branch",
	     .help = "the [branch] of the subject"},
	    {OPT_END},
	};
	char err[1024], branch_buf[256], to_buf[512], base_buf[64], head_buf[64];
	struct job_cmp *jobs = NULL;
	size_t n = 0, main_job = 0;
	char **dirs = NULL;
	ssize_t ndirs;
	int first, rc = options_parse(&report_command, opts, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	rc = 0;
	if (first < argc) {
		sb_error("unexpected argument '%s' (see 'scalebench report --help')", argv[first]);
		return 2;
	}
	if (mbox && sendmail) {
		sb_error("--mbox and --sendmail: one or the other");
		return 2;
	}
	/* Labels as stored; with --repo, revisions (HEAD~1, a short sha) name the full sha
	 * that bisect labels runs with. */
	if (!label_stored(root, job, base, repo, base_buf, sizeof(base_buf)))
		base = base_buf;
	if (!label_stored(root, job, head, repo, head_buf, sizeof(head_buf)))
		head = head_buf;
	if (strchr(base, '/') || strchr(head, '/') || strpbrk(base, "*?[") ||
	    strpbrk(head, "*?[")) {
		sb_error("--base/--head: expected commit labels");
		return 2;
	}
	ndirs = store_find(root, job, base, &dirs);
	if (ndirs <= 0) {
		sb_error("no runs of commit '%s' under %s", base, root);
		return 2;
	}
	jobs = calloc((size_t)ndirs, sizeof(*jobs));
	for (size_t i = 0; jobs && i < (size_t)ndirs; i++) {
		char other[PATH_MAX];
		struct store_axes axes;
		struct job_cmp *j = &jobs[n];
		struct compare_opts o = {.rule = RULE_STATS,
					 .threshold_pct = 1,
					 .threshold_abs = 0.1,
					 .q_max = 0.05,
					 .alpha = 0.05};

		/* The same job at head: the commit directory beside base's. */
		if (store_parse(dirs[i], STORE_COMMIT_DIR, &axes, err, sizeof(err)))
			continue;
		axes.commit = head;
		if (store_path(&axes, other, sizeof(other)) || access(other, F_OK)) {
			store_axes_free(&axes);
			continue;
		}
		store_axes_free(&axes);
		if (group_load(dirs[i], &j->g[0], err, sizeof(err))) {
			sb_error("%s", err);
			continue;
		}
		if (group_load(other, &j->g[1], err, sizeof(err))) {
			sb_error("%s", err);
			group_free(&j->g[0]);
			continue;
		}
		if (compare_groups(j->g, 2, &o, &j->c, err, sizeof(err))) {
			sb_error("%s", err);
			group_free(&j->g[0]);
			group_free(&j->g[1]);
			continue;
		}
		j->best = best_row(&j->c);
		if (j->best && (!jobs[main_job].best ||
				fabs(j->best->change[1]) > fabs(jobs[main_job].best->change[1])))
			main_job = n;
		n++;
	}
	for (size_t i = 0; i < (size_t)ndirs; i++)
		free(dirs[i]);
	free(dirs);
	if (!n) {
		sb_error("no job under %s was run at both '%s' and '%s'", root, base, head);
		rc = 2;
		goto out;
	}
	if (!jobs[main_job].best) {
		printf("no significant change of a headline stat between %s and %s in %zu job%s: "
		       "no report\n",
		       base, head, n, n == 1 ? "" : "s");
		goto out;
	}
	if (!branch) {
		branch_buf[0] = '\0';
		if (repo)
			GITL(repo, branch_buf, sizeof(branch_buf), "rev-parse", "--abbrev-ref",
			     "HEAD");
		branch = branch_buf[0] && strcmp(branch_buf, "HEAD") ? branch_buf : "unknown";
	}
	if (!to) {
		to_buf[0] = '\0';
		if (repo)
			GITL(repo, to_buf, sizeof(to_buf), "log", "-1", "--format=%an <%ae>", head);
		to = to_buf[0] ? to_buf : "root@localhost";
	}
	size_t len = 0;
	char *msg = compose(jobs, n, main_job, repo, base, head, branch, from, to, &len);

	if (!msg) {
		sb_error("out of memory");
		rc = 2;
	} else if (mbox) {
		if (write_mbox(mbox, msg, len)) {
			sb_error("cannot append to %s: %s", mbox, strerror(errno));
			rc = 2;
		}
	} else if (sendmail) {
		if (run_sendmail(msg, len)) {
			sb_error("sendmail -t failed");
			rc = 2;
		}
	} else {
		fwrite(msg, 1, len, stdout);
	}
	free(msg);
out:
	for (size_t i = 0; i < n; i++) {
		comparison_free(&jobs[i].c);
		group_free(&jobs[i].g[0]);
		group_free(&jobs[i].g[1]);
	}
	free(jobs);
	return rc;
}
