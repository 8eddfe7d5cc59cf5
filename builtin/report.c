/* scalebench report: the kernel test robot's email on two commits, from the results tree. */
#include "builtin.h"
#include "../analyze/compare.h"
#include "../analyze/plot.h"
#include "../analyze/results.h"
#include "../lib/mail.h"
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

/* The headers, each from lib/mail's writer (quoted, encoded, folded; a control character in
 * a stat name, commit subject or branch becomes a space there), then the body.  "From " lines
 * of the body are quoted by the mbox writer, not here.  NULL on ENOMEM. */
static char *compose(struct job_cmp *jobs, size_t n, size_t main_job, const char *repo,
		     const char *base, const char *head, const char *branch,
		     const struct mail_addr *from, const struct mail_addr *to, size_t *len)
{
	char *buf = NULL, date[64], subj_pfx[300] = "", sha[64], subj[512], host[128], *subject;
	char *hdr[4] = {NULL}, *id_left = NULL;
	FILE *f;
	time_t now = time(NULL);
	struct tm tm;
	char change[32];
	struct job_cmp *j = &jobs[main_job];
	bool ok;

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
	if (asprintf(&subject, "[%s] %s%.*s: %s %s %s", branch, subj_pfx, sha[0] ? 10 : INT_MAX,
		     sha[0] ? sha : head, j->best->name, change, change_word(j->best)) < 0)
		return NULL;
	if (asprintf(&id_left, "%lld.%d.%.10s", (long long)now, (int)getpid(),
		     sha[0] ? sha : head) < 0)
		id_left = NULL;
	hdr[0] = mail_header_addr("From", from->name, from->addr);
	hdr[1] = mail_header_addr("To", to->name, to->addr);
	hdr[2] = mail_header_text("Subject", subject);
	hdr[3] = id_left ? mail_header_msgid("Message-ID", id_left, host) : NULL;
	ok = hdr[0] && hdr[1] && hdr[2] && hdr[3];
	f = ok ? open_memstream(&buf, len) : NULL;
	if (f) {
		fprintf(f, "%s%s%s", hdr[0], hdr[1], hdr[2]);
		fprintf(f, "Date: %s\n", date);
		fputs(hdr[3], f);
		fprintf(f, "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
			   "Content-Transfer-Encoding: 8bit\n\n");
		write_body(f, jobs, n, main_job, repo, base, head, branch);
		if (fclose(f)) {
			free(buf);
			buf = NULL;
		}
	}
	for (size_t i = 0; i < 4; i++)
		free(hdr[i]);
	free(id_left);
	free(subject);
	return buf;
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
	     .def = "scalebench robot <scalebench@localhost>",
	     .help = "From: one address, 'Name <local@domain>' or 'local@domain'"},
	    {OPT_STRING("to", 0, &to), .arg = "ADDR",
	     .def_doc = "the head commit's author with --repo, else root@localhost",
	     .help = "To: one address, as --from"},
	    {OPT_STRING("branch", 0, &branch), .arg = "NAME", .def_doc = "the repo's branch",
	     .help = "the [branch] of the subject"},
	    {OPT_END},
	};
	char err[1024], branch_buf[256], base_buf[64], head_buf[64];
	struct mail_addr from_addr = {0}, to_addr = {0};
	const char *ctl;
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
	/* What the user gives that reaches a header is refused when it could break out of it;
	 * what comes from the results or the repository is made safe by the header writer. */
	ctl = branch ? mail_find_ctl(branch) : NULL;
	if (ctl) {
		sb_error("--branch: a control character (0x%02x, byte %zu) is not allowed in a mail "
			 "header",
			 (unsigned char)*ctl, (size_t)(ctl - branch) + 1);
		return 2;
	}
	if (mail_addr_parse(from, &from_addr, err, sizeof(err))) {
		sb_error("--from: %s", err);
		return 2;
	}
	if (to && mail_addr_parse(to, &to_addr, err, sizeof(err))) {
		sb_error("--to: %s", err);
		rc = 2;
		goto out;
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
		rc = 2;
		goto out;
	}
	ndirs = store_find(root, job, base, &dirs);
	if (ndirs <= 0) {
		sb_error("no runs of commit '%s' under %s", base, root);
		rc = 2;
		goto out;
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
	/* The head commit's author: name and address apart, so a name "Doe, John" is quoted
	 * as one display name, not read as two addresses. */
	if (!to) {
		char name[512] = "", addr[512] = "";

		if (repo) {
			GITL(repo, name, sizeof(name), "log", "-1", "--format=%an", head);
			GITL(repo, addr, sizeof(addr), "log", "-1", "--format=%ae", head);
		}
		if (addr[0] && !mail_addr_spec_ok(addr)) {
			sb_error("the author of %s has the address '%s', not local@domain: give --to",
				 head, addr);
			rc = 2;
			goto out;
		}
		to_addr.name = strdup(addr[0] ? name : "");
		to_addr.addr = strdup(addr[0] ? addr : "root@localhost");
	}
	size_t len = 0;
	char *msg = to_addr.name && to_addr.addr ? compose(jobs, n, main_job, repo, base, head,
							   branch, &from_addr, &to_addr, &len)
						 : NULL;

	if (!msg) {
		sb_error("out of memory");
		rc = 2;
	} else if (mbox) {
		if (mail_mbox_append(mbox, msg, len, MAIL_LOCK_TIMEOUT_S, err, sizeof(err))) {
			sb_error("%s", err);
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
	mail_addr_free(&from_addr);
	mail_addr_free(&to_addr);
	return rc;
}
