/* The kernel test robot's email on two commits: comparing the jobs run at both, choosing the
 * headline, the headers (lib/mail.c's writer) and the body; and its delivery. */
#include "report_mail.h"
#include "compare.h"
#include "plot.h"
#include "results.h"
#include "select.h"
#include "../lib/errors.h"
#include "../lib/file.h"
#include "../lib/git.h"
#include "../lib/num.h"
#include "../lib/text.h"
#include "../lib/run_command.h"
#include "../store/layout.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct job_cmp {
	struct result_group g[2];
	struct comparison c;
	const struct stat_row *best; /* the headline stat with the largest significant change */
};

/* What the mail says changed: the subject's stat, or a line of the box. */
struct mail_change {
	const struct result_group *g; /* the job at head: testcase, machine, parameters */
	const char *stat;
	double change;
	bool absolute;
	enum verdict verdict;
	bool failure; /* a new failure: change runs of runs have it (report_change) */
	unsigned runs;
	/* nightly's: the change point's own figure (the means of the trend's segments before
	 * and after the commit), said in words beside the table's base-vs-head figure */
	bool has_segment;
	double segment;
};

#define GITL(repo, out, len, ...) git_line(repo, GIT_ARGS(__VA_ARGS__), out, len)

static bool changed(const struct stat_row *r)
{
	return !r->failure && r->has_change[1] &&
	       (r->verdict[1] == V_REGRESSION || r->verdict[1] == V_IMPROVEMENT);
}

/* The subject's stat: the headline the runs declare (or the old rule names: per_thread_ops in
 * thread mode) when it changed, even when a total beside it (workload) moved more; else the
 * testcase's stat with the largest significant change. */
static const struct stat_row *best_row(const struct comparison *c)
{
	const struct stat_row *best = NULL;

	for (size_t i = 0; i < c->nrows; i++)
		if (c->headline_stat && !strcmp(c->rows[i].name, c->headline_stat) &&
		    changed(&c->rows[i]))
			return &c->rows[i];
	for (size_t i = 0; i < c->nrows; i++) {
		const struct stat_row *r = &c->rows[i];

		if (!r->headline || !changed(r))
			continue;
		/* Equal as printed: the first one (the per-copy stat before the total). */
		if (!best || fabs(r->change[1]) > fabs(best->change[1]) + 0.05)
			best = r;
	}
	return best;
}

static struct mail_change row_change(const struct job_cmp *j)
{
	return (struct mail_change){.g = &j->g[1],
				    .stat = j->best->name,
				    .change = j->best->change[1],
				    .absolute = j->best->absolute,
				    .verdict = j->best->verdict[1]};
}

static const char *change_word(const struct mail_change *c)
{
	if (c->failure)
		return "new failure";
	/* --stats all mails a neutral stat's move too: it is a change, neither way better. */
	return c->verdict == V_REGRESSION    ? "regression"
	       : c->verdict == V_IMPROVEMENT ? "improvement"
					     : "change";
}

static void fmt_change(const struct mail_change *c, char *buf, size_t len)
{
	if (c->failure) /* LKP's fail:runs */
		snprintf(buf, len, "%.0f:%u", c->change, c->runs);
	else
		snprintf(buf, len, c->absolute ? "%+.1f" : "%+.1f%%", c->change);
}

/* A failure stat's signature as the robot quotes it: the name after its family
 * ("dmesg.WARNING:at_mm/x.c" -> "WARNING:at_mm/x.c"). */
static const char *signature(const char *stat)
{
	const char *dot = strchr(stat, '.');

	return dot && dot[1] ? dot + 1 : stat;
}

/* buf += printf(fmt, ...), cut at len. */
static void __attribute__((format(printf, 3, 4)))
append(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strnlen(buf, len);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* The robot's "192 threads 4 sockets Intel(R) Xeon(R) ... with 256G memory", each part left
 * out when the runs do not say it (meta.json, else an LKP job.yaml's host keys), the
 * machine's name (tbox_group) in place of the CPU when they name none; "" when nothing is
 * known. */
static void machine_line(const struct result_group *g, char *buf, size_t len)
{
	struct group_machine m;

	group_machine_of(g, &m);
	buf[0] = '\0';
	if (m.threads > 0)
		append(buf, len, "%lld threads", m.threads);
	if (m.sockets > 0)
		append(buf, len, "%s%lld sockets", buf[0] ? " " : "", m.sockets);
	if (m.cpu_model[0])
		append(buf, len, "%s%s", buf[0] ? " " : "", text_safe(m.cpu_model));
	else if (!buf[0] && g->axes[AX_TBOX_GROUP])
		append(buf, len, "%s", text_safe(g->axes[AX_TBOX_GROUP]));
	if (m.memory[0])
		append(buf, len, "%swith %s memory", buf[0] ? " " : "", text_safe(m.memory));
}

/* The job's parameters that the runs say (nr_task, mode, test, runtime), one per line; what
 * they do not say is left out. */
static void params(const struct result_group *g, FILE *f, const char *indent, const char *sep)
{
	json_t *m = g->nruns ? g->runs[0].meta : NULL, *rt = json_object_get(m, "runtime_s");
	const char *job_rt = json_string_value(json_object_get(g->job, "runtime"));
	static const struct {
		enum group_axis ax;
		const char *name;
	} shown[] = {{AX_NR_TASK, "nr_task"}, {AX_MODE, "mode"}, {AX_TEST, "test"}};
	double runtime_s;

	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		if (g->axes[shown[i].ax])
			fprintf(f, "%s%s: %s%s", indent, shown[i].name,
				text_safe(g->axes[shown[i].ax]), sep);
	if (json_is_number(rt))
		fprintf(f, "%sruntime: %gs%s", indent, json_number_value(rt), sep);
	else if (job_rt && !num_parse_duration(job_rt, NUM_DURATION_MIN, NUM_DURATION_MAX,
					       &runtime_s, NULL, 0))
		fprintf(f, "%sruntime: %gs%s", indent, runtime_s, sep);
}

/* The full sha and subject of commit `label` when repo knows it; both "" otherwise. */
static void commit_lookup(const char *repo, const char *label, char sha[65], char subj[512])
{
	sha[0] = subj[0] = '\0';
	if (repo && git_commit_oid(repo, label, sha, 65) == 0)
		GITL(repo, subj, 512, "log", "-1", "--format=%s", sha);
}

/* A commit line: sha10 ("subject") when the repo knows it, else the label whole: a name
 * someone chose ("nightly-2026-11-03") says nothing cut to ten characters. */
static void commit_line(const char *repo, const char *label, char *buf, size_t len)
{
	char sha[65], subj[512];

	commit_lookup(repo, label, sha, subj);
	if (subj[0])
		snprintf(buf, len, "%.10s (\"%s\")", sha, text_safe(subj));
	else if (sha[0])
		snprintf(buf, len, "%.10s", sha);
	else
		snprintf(buf, len, "%s", text_safe(label));
}

static void write_box(FILE *f, const struct mail_change *box, size_t nbox)
{
	const char *rule = "+------------------+----------------------------------------------"
			   "------------------------------+";
	char change[32], line[1024];

	fprintf(f,
		"In addition to that, the commit also has significant impact on the "
		"following tests:\n\n%s\n",
		rule);
	for (size_t i = 0; i < nbox; i++) {
		const struct result_group *g = box[i].g;
		char p[512];
		FILE *pf;

		fmt_change(&box[i], change, sizeof(change));
		snprintf(line, sizeof(line), "%s%s%s %s %s",
			 g->axes[AX_TESTCASE] ? text_safe(g->axes[AX_TESTCASE]) : "",
			 g->axes[AX_TESTCASE] ? ": " : "", text_safe(box[i].stat), change,
			 change_word(&box[i]));
		fprintf(f, "| testcase: change | %-75s |\n", line);
		machine_line(g, line, sizeof(line));
		fprintf(f, "| test machine     | %-75s |\n", line);
		pf = fmemopen(p, sizeof(p), "w");
		if (pf) {
			params(g, pf, "", " ");
			fclose(pf);
			p[sizeof(p) - 1] = '\0';
		} else {
			p[0] = '\0';
		}
		fprintf(f, "| test parameters  | %-75s |\n%s\n", p, rule);
	}
	fprintf(f, "\n\n");
}

/* Runs measured while the machine was busy (meta.json's machine_load): said before the
 * table, per commit, with the first run's reason, so a reader weighs the figures. */
static void busy_note(const struct job_cmp *j, FILE *f)
{
	const char *why[2];
	size_t n[2];

	for (int k = 0; k < 2; k++)
		n[k] = group_busy_runs(&j->g[k], &why[k]);
	if (!n[0] && !n[1])
		return;
	fprintf(f, "Runs measured on a busy machine (other work took CPU time the runs wanted):");
	for (int k = 0; k < 2; k++)
		if (n[k])
			fprintf(f, "%s %zu of %zu of %s (%s)", k && n[0] ? ";" : "", n[k],
				j->g[k].nruns, k ? "the commit's" : "the base's",
				why[k] ? text_safe(why[k]) : "no reason recorded");
	fprintf(f, ".  The comparison uses them; rerun them on an idle machine to be sure.\n\n");
}

/* The robot's "To reproduce" for scalebench: the commands that made and compared these runs,
 * and the job file as the head's first run stored it, inlined (a mail has no attachment
 * here).  Left out when the head's directory is not in a results tree. */
static void write_reproduce(FILE *f, const struct job_cmp *j)
{
	const struct result_group *head = &j->g[1], *base = &j->g[0];
	struct store_axes a;
	char why[256], path[PATH_MAX], *text = NULL, *safe;
	size_t len = 0;

	if (store_parse(head->dir, STORE_COMMIT_DIR, &a, why, sizeof(why)))
		return;
	char key[PATH_MAX], both[2 * NAME_MAX + 2];

	snprintf(key, sizeof(key), "%s/%s/%s/%s/%s/%s", a.testcase, a.path_params, a.tbox_group,
		 a.rootfs, a.kconfig, a.compiler);
	snprintf(both, sizeof(both), "%s,%s", base->commit, head->commit);
	store_axes_free(&a);
	char *w[4] = {sh_word(base->commit), sh_word(head->commit), sh_word(key), sh_word(both)};

	fprintf(f, "To reproduce:\n\n");
	fprintf(f, "        # on each kernel in turn (or: scalebench run --kernel BZIMAGE ...)\n");
	fprintf(f, "        scalebench run job.yaml --results RESULTS --commit %s --repeat %zu\n",
		text_safe(w[0] ? w[0] : "?"), base->nruns);
	fprintf(f, "        scalebench run job.yaml --results RESULTS --commit %s --repeat %zu\n",
		text_safe(w[1] ? w[1] : "?"), head->nruns);
	fprintf(f,
		"        scalebench compare --results RESULTS --job %s \\\n"
		"                --commits %s\n\n",
		text_safe(w[2] ? w[2] : "?"), text_safe(w[3] ? w[3] : "?"));
	for (int i = 0; i < 4; i++)
		free(w[i]);
	if (!head->nruns ||
	    path_fmt(path, sizeof(path), why, sizeof(why), "%s/job.yaml", head->runs[0].dir) ||
	    file_read(path, 64 * 1024, &text, &len, why, sizeof(why)))
		return;
	safe = text_escape_message(text);
	fprintf(f, "job.yaml, as the runs stored it:\n\n");
	for (const char *p = safe ? safe : ""; *p;) {
		size_t n = strcspn(p, "\n");

		fprintf(f, "        %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	fprintf(f, "\n");
	free(safe);
	free(text);
}

/* One plotted stat's runs, base's then head's. */
struct plot_values {
	const struct stat_row *row;
	double *v[2];
	size_t n[2];
	bool shown; /* plotted already, or in the plot of a stat with the same values */
};

static bool same_values(const struct plot_values *a, const struct plot_values *b)
{
	for (int k = 0; k < 2; k++)
		if (!a->v[k] || !b->v[k] || a->n[k] != b->n[k] ||
		    memcmp(a->v[k], b->v[k], a->n[k] * sizeof(double)))
			return false;
	return true;
}

/* The text plots: one per notable headline stat; stats whose runs have the same values
 * (per_process_ops and workload at nr_task 1) share one plot that names them all. */
static void write_plots(FILE *f, const struct job_cmp *j)
{
	struct plot_values *pv = calloc(j->c.nrows ? j->c.nrows : 1, sizeof(*pv));
	char err[512];
	size_t n = 0;

	if (!plot_available(err, sizeof(err))) {
		sb_error("no plots: %s", err);
		free(pv);
		return;
	}
	for (size_t i = 0; pv && i < j->c.nrows; i++) {
		const struct stat_row *r = &j->c.rows[i];

		if (!r->headline || !row_is_notable(r, 2))
			continue;
		pv[n].row = r;
		for (int k = 0; k < 2; k++) {
			pv[n].v[k] = calloc(j->g[k].nruns + 1, sizeof(double));
			pv[n].n[k] = pv[n].v[k] ? group_values(&j->g[k], r->name, pv[n].v[k]) : 0;
		}
		n++;
	}
	for (size_t i = 0; i < n; i++) {
		char names[1024], title[1200];
		struct plot_series s[2];
		size_t same = 0;

		if (pv[i].shown || !pv[i].v[0] || !pv[i].v[1])
			continue;
		snprintf(names, sizeof(names), "%s", text_safe(pv[i].row->name));
		for (size_t k = i + 1; k < n; k++)
			if (!pv[k].shown && same_values(&pv[i], &pv[k])) {
				pv[k].shown = true;
				same++;
				append(names, sizeof(names), ", %s", text_safe(pv[k].row->name));
			}
		/* The labels and the title (its path_params) as the body's other text: escaped. */
		char *label[2] = {text_escape(j->g[0].commit), text_escape(j->g[1].commit)}, *t;

		for (int k = 0; k < 2; k++)
			s[k] = (struct plot_series){
			    .label = label[k] ? label[k] : "?", .y = pv[i].v[k], .n = pv[i].n[k]};
		group_plot_title(&j->g[0], names, title, sizeof(title));
		t = text_escape(title);
		fprintf(f, "\n\n");
		if (same)
			fprintf(f, "%s: the same value in every run, one plot\n", names);
		if (plot_samples(t ? t : names, s, 2, PLOT_TEXT, 0, NULL, f, err, sizeof(err)))
			sb_error("plot of %s: %s", names, err);
		free(t);
		free(label[0]);
		free(label[1]);
	}
	for (size_t i = 0; i < n; i++) {
		free(pv[i].v[0]);
		free(pv[i].v[1]);
	}
	free(pv);
}

static void write_body(FILE *f, struct job_cmp *j, const struct mail_change *head_change,
		       const struct mail_change *box, size_t nbox, const char *repo,
		       const char *base, const char *head, const char *branch)
{
	const struct result_group *g = &j->g[1];
	char change[32], line[1024];

	fmt_change(head_change, change, sizeof(change));
	if (head_change->failure)
		fprintf(f, "Hello,\n\nkernel test robot noticed \"%s\" on:\n\n\n",
			text_safe(signature(head_change->stat)));
	else
		fprintf(f, "Hello,\n\nkernel test robot noticed a %s %s of %s on:\n\n\n", change,
			change_word(head_change), text_safe(head_change->stat));
	commit_line(repo, head, line, sizeof(line));
	fprintf(f, "commit: %s\n", line);
	fprintf(f, "branch: %s\n", text_safe(branch));
	commit_line(repo, base, line, sizeof(line));
	fprintf(f, "base: %s\n\n", line);
	if (g->axes[AX_TESTCASE])
		fprintf(f, "testcase: %s\n", text_safe(g->axes[AX_TESTCASE]));
	machine_line(g, line, sizeof(line));
	if (line[0])
		fprintf(f, "test machine: %s\n", line);
	fprintf(f, "parameters:\n\n");
	params(g, f, "\t", "\n");
	fprintf(f, "\n\n");
	if (nbox)
		write_box(f, box, nbox);
	fprintf(f, "Details are as below:\n"
		   "-------------------------------------------------------------------------------"
		   "------------------->\n\n");
	write_reproduce(f, j);
	if (head_change->failure)
		fprintf(f,
			"%s is new at this commit: %s of its runs have it (fail:runs), and no run "
			"of the commits before it in the series had it.  Its rows are under "
			"fail:runs in the table below.\n\n",
			text_safe(head_change->stat), change);
	if (head_change->has_segment) {
		char seg[32];
		struct mail_change sc = *head_change;

		sc.change = head_change->segment;
		fmt_change(&sc, seg, sizeof(seg));
		fprintf(f,
			"The %s above is this commit's runs against the base's, as in the table "
			"below; over the branch's nightly series the mean of %s moved by %s "
			"between the stretch of commits before this one and the stretch from it "
			"on.\n\n",
			change, text_safe(head_change->stat), seg);
	}
	busy_note(j, f);
	print_robot_table(&j->c, false, false, f);

	write_plots(f, j);
	fprintf(f, "\n\n\nDisclaimer:\nResults have been estimated based on internal scalebench "
		   "runs; please verify them on your own setup.\n\n-- \nscalebench\n");
}

/* The headers report and nightly write, in their order (a follow-up adds In-Reply-To and
 * References after the Message-ID): what a message must hold to be sent (mail_message_check),
 * when it is composed and when nightly delivers a pending one again. */
static const struct mail_want report_headers[] = {
    {"From", NULL},
    {"To", NULL},
    {"Subject", NULL},
    {"Date", NULL},
    {"Message-ID", NULL},
    {"In-Reply-To", NULL},
    {"References", NULL},
    {"MIME-Version", "MIME-Version: 1.0\n"},
    {"Content-Type", "Content-Type: text/plain; charset=utf-8\n"},
    {"Content-Transfer-Encoding", "Content-Transfer-Encoding: 8bit\n"},
};
#define REPORT_NHEADERS (sizeof(report_headers) / sizeof(report_headers[0]))

/* want[] for a report (reply false: without In-Reply-To and References) or a follow-up:
 * report_headers, with the values given (exact[i] for report_headers[i]) where not NULL; the
 * number of headers. */
static size_t headers_wanted(struct mail_want *want, bool reply,
			     const char *const exact[REPORT_NHEADERS])
{
	size_t n = 0;

	for (size_t i = 0; i < REPORT_NHEADERS; i++) {
		if (!reply && (i == 5 || i == 6))
			continue;
		want[n] = report_headers[i];
		if (exact && exact[i])
			want[n].exact = exact[i];
		n++;
	}
	return n;
}

/* A message just composed, checked as a pending one is before it is sent again: a body that
 * a name from the results broke is a bug here, never mail.  0, or -1 with err. */
static int check_composed(const char *msg, size_t len, bool reply, char *err, size_t errlen)
{
	struct mail_want want[REPORT_NHEADERS];
	size_t n = headers_wanted(want, reply, NULL);
	char why[512];

	if (!mail_message_check(msg, len, want, n, why, sizeof(why)))
		return 0;
	snprintf(err, errlen, "the message composed is not valid (%s): not sent", why);
	return -1;
}

/* "<left@right>" out of a Message-ID header line. */
static char *msgid_of(const char *hdr)
{
	const char *lt = strchr(hdr, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	return gt ? strndup(lt, (size_t)(gt - lt) + 1) : NULL;
}

/* The headers, each from lib/mail's writer (quoted, encoded, folded; a control character in
 * a stat name, commit subject or branch becomes a space there), then the body.  "From " lines
 * of the body are quoted by the mbox writer, not here.  -1 on ENOMEM. */
static int compose(struct job_cmp *j, const struct mail_change *head_change,
		   const struct mail_change *box, size_t nbox, const struct report_request *rq,
		   const char *base, const char *head, const char *branch,
		   const struct mail_addr *to, struct report_mail *m)
{
	char *buf = NULL, date[64], subj_pfx[300] = "", sha[65], subj[512], host[128], *subject;
	char *hdr[4] = {NULL}, *id_left = NULL;
	FILE *f;
	time_t now = time(NULL);
	struct tm tm;
	char change[32];
	size_t len = 0;
	bool ok;

	localtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S %z", &tm);
	commit_lookup(rq->repo, head, sha, subj);
	/* The subsystem: the commit subject's prefix, "mm: memcontrol: ..." -> "mm". */
	char *colon = strchr(subj, ':');

	if (colon && colon - subj < 40 && !memchr(subj, ' ', (size_t)(colon - subj)))
		snprintf(subj_pfx, sizeof(subj_pfx), "[%.*s] ", (int)(colon - subj), subj);
	fmt_change(head_change, change, sizeof(change));
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	if (head_change->failure
		? asprintf(&subject, "[%s] %s%.*s: %s", branch, subj_pfx, sha[0] ? 10 : INT_MAX,
			   sha[0] ? sha : head, signature(head_change->stat)) < 0
		: asprintf(&subject, "[%s] %s%.*s: %s %s %s", branch, subj_pfx,
			   sha[0] ? 10 : INT_MAX, sha[0] ? sha : head, head_change->stat, change,
			   change_word(head_change)) < 0)
		return -1;
	if (rq->msgid_left)
		id_left = strdup(rq->msgid_left);
	else if (asprintf(&id_left, "%lld.%d.%.10s", (long long)now, (int)getpid(),
			  sha[0] ? sha : head) < 0)
		id_left = NULL;
	hdr[0] = mail_header_addr("From", rq->from->name, rq->from->addr);
	hdr[1] = mail_header_addr("To", to->name, to->addr);
	hdr[2] = mail_header_text("Subject", subject);
	hdr[3] = id_left ? mail_header_msgid("Message-ID", id_left, host) : NULL;
	ok = hdr[0] && hdr[1] && hdr[2] && hdr[3];
	m->message_id = ok ? msgid_of(hdr[3]) : NULL;
	f = ok && m->message_id ? open_memstream(&buf, &len) : NULL;
	if (f) {
		fprintf(f, "%s%s%s", hdr[0], hdr[1], hdr[2]);
		fprintf(f, "Date: %s\n", date);
		fputs(hdr[3], f);
		fprintf(f, "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
			   "Content-Transfer-Encoding: 8bit\n\n");
		write_body(f, j, head_change, box, nbox, rq->repo, base, head, branch);
		if (fclose(f)) {
			free(buf);
			buf = NULL;
		}
	}
	for (size_t i = 0; i < 4; i++)
		free(hdr[i]);
	free(id_left);
	free(subject);
	m->msg = buf;
	m->len = buf ? len : 0;
	return buf ? 0 : -1;
}

/* The branch the mail names: given, else the repo's, else "unknown". */
static const char *branch_of(const char *repo, const char *branch, char *buf, size_t len)
{
	if (branch)
		return branch;
	buf[0] = '\0';
	if (repo)
		GITL(repo, buf, len, "rev-parse", "--abbrev-ref", "HEAD");
	return buf[0] && strcmp(buf, "HEAD") ? buf : "unknown";
}

/* The head commit's author into to (name and address apart, so a name "Doe, John" is quoted
 * as one display name, not read as two addresses); root@localhost without repo.  0, or -1
 * with err. */
static int author_of(const char *repo, const char *head, struct mail_addr *to, char *err,
		     size_t errlen)
{
	char name[512] = "", addr[512] = "";

	if (repo) {
		GITL(repo, name, sizeof(name), "log", "-1", "--format=%an", head);
		GITL(repo, addr, sizeof(addr), "log", "-1", "--format=%ae", head);
	}
	if (addr[0] && !mail_addr_spec_ok(addr)) {
		snprintf(err, errlen,
			 "the author of %s has the address '%s', not local@domain: give --to", head,
			 addr);
		return -1;
	}
	to->name = strdup(addr[0] ? name : "");
	to->addr = strdup(addr[0] ? addr : "root@localhost");
	if (!to->name || !to->addr) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static void dirs_free(char **dirs, ssize_t n)
{
	for (ssize_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
}

/* Whether job j is the job key at head: its head directory is ROOT/key/head. */
static bool is_job(const struct job_cmp *j, const char *key, const char *head)
{
	size_t dl = strlen(j->g[1].dir), kl = strlen(key), hl = strlen(head);

	return dl > kl + hl + 2 && !strcmp(j->g[1].dir + dl - hl, head) &&
	       j->g[1].dir[dl - hl - 1] == '/' &&
	       !strncmp(j->g[1].dir + dl - hl - kl - 1, key, kl) &&
	       j->g[1].dir[dl - hl - kl - 2] == '/';
}

/* Compare every job run at both commits; n in *n, the one with the largest significant
 * headline change in *main_job. */
static int compare_jobs(const char *root, const char *job, const char *base, const char *head,
			struct job_cmp **out, size_t *n, size_t *main_job, char *err, size_t errlen)
{
	char **dirs = NULL, msg[1024];
	ssize_t ndirs = select_job_dirs(root, job, base, &dirs);
	struct job_cmp *jobs;

	*out = NULL;
	*n = *main_job = 0;
	if (ndirs <= 0) {
		dirs_free(dirs, ndirs);
		snprintf(err, errlen, "no runs of commit '%s' under %s", base, root);
		return -1;
	}
	jobs = calloc((size_t)ndirs, sizeof(*jobs));
	for (size_t i = 0; jobs && i < (size_t)ndirs; i++) {
		char other[PATH_MAX];
		struct store_axes axes;
		struct job_cmp *j = &jobs[*n];
		struct compare_opts o = COMPARE_OPTS_DEFAULT;

		/* The same job at head: the commit directory beside base's. */
		if (store_parse(dirs[i], STORE_COMMIT_DIR, &axes, msg, sizeof(msg)))
			continue;
		axes.commit = head;
		if (store_path(&axes, other, sizeof(other)) || access(other, F_OK)) {
			store_axes_free(&axes);
			continue;
		}
		store_axes_free(&axes);
		if (group_load(dirs[i], &j->g[0], msg, sizeof(msg))) {
			sb_error("%s", msg);
			continue;
		}
		if (group_load(other, &j->g[1], msg, sizeof(msg))) {
			sb_error("%s", msg);
			group_free(&j->g[0]);
			continue;
		}
		if (compare_groups(j->g, 2, &o, &j->c, msg, sizeof(msg))) {
			sb_error("%s", msg);
			group_free(&j->g[0]);
			group_free(&j->g[1]);
			continue;
		}
		/* A note, not a refusal: the mail still goes out, saying so. */
		if (groups_mix_machines(j->g, 2, msg, sizeof(msg)))
			sb_note("%s against %s: runs measured on machines of different models: %s",
				other, dirs[i], msg);
		j->best = best_row(&j->c);
		if (j->best && (!jobs[*main_job].best ||
				fabs(j->best->change[1]) > fabs(jobs[*main_job].best->change[1])))
			*main_job = *n;
		(*n)++;
	}
	dirs_free(dirs, ndirs);
	*out = jobs;
	if (!jobs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!*n) {
		snprintf(err, errlen, "no job under %s was run at both '%s' and '%s'", root, base,
			 head);
		return -1;
	}
	return 0;
}

static void jobs_free(struct job_cmp *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		comparison_free(&jobs[i].c);
		group_free(&jobs[i].g[0]);
		group_free(&jobs[i].g[1]);
	}
	free(jobs);
}

/* The box from the caller's changes: each job's head group loaded for its machine and
 * parameters (a job not run at head is named and left out). */
static int box_of_changes(const struct report_request *rq, const char *head,
			  struct mail_change *box, struct result_group *groups, size_t *nbox)
{
	char dir[PATH_MAX], msg[1024];

	*nbox = 0;
	for (size_t i = 1; i < rq->nchanges; i++) {
		const struct report_change *c = &rq->changes[i];

		if ((size_t)snprintf(dir, sizeof(dir), "%s/%s/%s", rq->root, c->job, head) >=
		    sizeof(dir)) {
			sb_error("%s/%s/%s: path too long", rq->root, c->job, head);
			continue;
		}
		if (group_load(dir, &groups[*nbox], msg, sizeof(msg))) {
			sb_error("%s", msg);
			continue;
		}
		box[*nbox] = (struct mail_change){.g = &groups[*nbox],
						  .stat = c->stat,
						  .change = c->change,
						  .absolute = c->absolute,
						  .verdict = c->verdict,
						  .failure = c->failure,
						  .runs = c->runs};
		(*nbox)++;
	}
	return 0;
}

/* A change the caller found (nightly's change point) told with the table's own figure for
 * the same stat, base against head, so subject, first line and table agree; the caller's
 * figure is kept as the segment change the body states in words.  Unchanged when the
 * comparison has no figure for the stat. */
static void table_change(const struct comparison *c, struct mail_change *m)
{
	for (size_t i = 0; i < c->nrows; i++) {
		const struct stat_row *r = &c->rows[i];

		if (strcmp(r->name, m->stat) || !r->has_change[1])
			continue;
		m->has_segment = true;
		m->segment = m->change;
		m->change = r->change[1];
		return;
	}
}

int report_build(const struct report_request *rq, struct report_mail *m, char *err, size_t errlen)
{
	struct job_cmp *jobs = NULL;
	struct mail_change head_change, *box = NULL;
	struct result_group *box_groups = NULL;
	struct mail_addr to_addr = {0};
	size_t n = 0, main_job = 0, nbox = 0;
	char branch_buf[256];
	const char *branch = rq->branch;
	int rc = -1;

	memset(m, 0, sizeof(*m));
	/* Labels as stored: the label given, a short sha of one, or with a repo any revision
	 * (HEAD~1, a tag) naming one; several that a prefix names are an error. */
	if (select_commit(rq->root, rq->job ? &rq->job : NULL, rq->job != NULL, rq->repo, "--base",
			  rq->base, &m->base, err, errlen) != SELECT_OK ||
	    select_commit(rq->root, rq->job ? &rq->job : NULL, rq->job != NULL, rq->repo, "--head",
			  rq->head, &m->head, err, errlen) != SELECT_OK)
		return -1;
	/* A label names one directory: not a path, nor a pattern that the comparison's glob
	 * would take for others. */
	for (int k = 0; k < 2; k++) {
		const char *l = k ? m->head : m->base;

		if (strpbrk(l, "/*?[")) {
			snprintf(err, errlen,
				 "%s '%s': not a commit label report can compare (it holds '%c')",
				 k ? "--head" : "--base", text_safe(l), *strpbrk(l, "/*?["));
			return -1;
		}
	}
	if (compare_jobs(rq->root, rq->job, m->base, m->head, &jobs, &n, &main_job, err, errlen))
		goto out;
	m->njobs = n;
	if (rq->changes && rq->nchanges) {
		const struct report_change *c = &rq->changes[0];

		for (main_job = 0; main_job < n && !is_job(&jobs[main_job], c->job, m->head);
		     main_job++)
			;
		if (main_job == n) {
			snprintf(err, errlen, "job '%s' has no runs at both '%s' and '%s'", c->job,
				 m->base, m->head);
			goto out;
		}
		head_change = (struct mail_change){.g = &jobs[main_job].g[1],
						   .stat = c->stat,
						   .change = c->change,
						   .absolute = c->absolute,
						   .verdict = c->verdict,
						   .failure = c->failure,
						   .runs = c->runs};
		if (!c->failure)
			table_change(&jobs[main_job].c, &head_change);
		box = calloc(rq->nchanges, sizeof(*box));
		box_groups = calloc(rq->nchanges, sizeof(*box_groups));
		if (!box || !box_groups) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		box_of_changes(rq, m->head, box, box_groups, &nbox);
	} else {
		if (!jobs[main_job].best) {
			rc = 1;
			goto out;
		}
		head_change = row_change(&jobs[main_job]);
		box = calloc(n, sizeof(*box));
		if (!box) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			if (i != main_job && jobs[i].best)
				box[nbox++] = row_change(&jobs[i]);
	}
	branch = branch_of(rq->repo, branch, branch_buf, sizeof(branch_buf));
	if (!rq->to && author_of(rq->repo, m->head, &to_addr, err, errlen))
		goto out;
	if (compose(&jobs[main_job], &head_change, box, nbox, rq, m->base, m->head, branch,
		    rq->to ? rq->to : &to_addr, m)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (check_composed(m->msg, m->len, false, err, errlen))
		goto out;
	rc = 0;
out:
	for (size_t i = 0; box_groups && i < nbox; i++)
		group_free(&box_groups[i]);
	free(box_groups);
	free(box);
	jobs_free(jobs, n);
	mail_addr_free(&to_addr);
	return rc;
}

void report_mail_free(struct report_mail *m)
{
	free(m->msg);
	free(m->message_id);
	free(m->base);
	free(m->head);
	memset(m, 0, sizeof(*m));
}

int report_deliver(const char *msg, size_t len, const char *mbox, bool sendmail, char *err,
		   size_t errlen)
{
	if (mbox)
		return mail_mbox_append(mbox, msg, len, MAIL_LOCK_TIMEOUT_S, err, errlen);
	if (sendmail) {
		const char *argv[] = {"sendmail", "-t", NULL};
		struct child_process c = {
		    .argv = argv, .in = RUN_IN_BUFFER, .in_buf = msg, .in_len = len};
		char why[512];
		int rc = 0;

		if (child_run(&c, why, sizeof(why))) {
			snprintf(err, errlen, "sendmail -t failed: %s", why);
			rc = -1;
		} else if (c.exit_code) {
			snprintf(err, errlen, "sendmail -t failed (exit status %d)",
				 child_status(&c));
			rc = -1;
		}
		child_release(&c);
		return rc;
	}
	if (fwrite(msg, 1, len, stdout) != len) {
		snprintf(err, errlen, "cannot write the message to standard output");
		return -1;
	}
	return 0;
}

int report_follow_up_build(const struct report_follow_up *rq, struct report_mail *m, char *err,
			   size_t errlen)
{
	char branch_buf[256], now_line[700], was_line[700], first[700], last[700], date[64];
	char host[128], *subject = NULL, *hdr[6] = {NULL}, *buf = NULL, change[32];
	const char *branch = branch_of(rq->repo, rq->branch, branch_buf, sizeof(branch_buf));
	const char *at = strchr(rq->in_reply_to, '@');
	struct mail_addr to_addr = {0};
	time_t now = time(NULL);
	struct tm tm;
	size_t len = 0;
	FILE *f = NULL;
	int rc = -1;

	memset(m, 0, sizeof(*m));
	if (rq->in_reply_to[0] != '<' || !at || at[strlen(at) - 1] != '>') {
		snprintf(err, errlen, "follow-up of '%s': not a <left@right> Message-ID",
			 rq->in_reply_to);
		return -1;
	}
	if (!rq->to && author_of(rq->repo, rq->commit, &to_addr, err, errlen))
		goto out;
	commit_line(rq->repo, rq->commit, now_line, sizeof(now_line));
	commit_line(rq->repo, rq->was, was_line, sizeof(was_line));
	commit_line(rq->repo, rq->nrange ? rq->range[0] : rq->commit, first, sizeof(first));
	commit_line(rq->repo, rq->nrange ? rq->range[rq->nrange - 1] : rq->commit, last,
		    sizeof(last));
	snprintf(change, sizeof(change), rq->absolute ? "%+.1f" : "%+.1f%%", rq->change);
	localtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S %z", &tm);
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	if (asprintf(&subject, "Re: [%s] %s: %s %s: culprit refined to %.12s", branch, rq->job,
		     rq->stat, rq->kind, rq->commit) < 0)
		subject = NULL;
	/* In-Reply-To and References: the mailed id, split where mail_header_msgid takes it. */
	char *left = strndup(rq->in_reply_to + 1, (size_t)(at - rq->in_reply_to - 1));
	char *right = strndup(at + 1, strlen(at + 1) - 1);

	hdr[0] = mail_header_addr("From", rq->from->name, rq->from->addr);
	hdr[1] = rq->to ? mail_header_addr("To", rq->to->name, rq->to->addr)
			: mail_header_addr("To", to_addr.name, to_addr.addr);
	hdr[2] = subject ? mail_header_text("Subject", subject) : NULL;
	hdr[3] = mail_header_msgid("Message-ID", rq->msgid_left, host);
	hdr[4] = left && right ? mail_header_msgid("In-Reply-To", left, right) : NULL;
	hdr[5] = left && right ? mail_header_msgid("References", left, right) : NULL;
	free(left);
	free(right);
	for (size_t i = 0; i < 6; i++)
		if (!hdr[i]) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	if (!(m->message_id = msgid_of(hdr[3])) || !(f = open_memstream(&buf, &len))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	fprintf(f, "%s%s%s", hdr[0], hdr[1], hdr[2]);
	fprintf(f, "Date: %s\n", date);
	fprintf(f, "%s%s%s", hdr[3], hdr[4], hdr[5]);
	fprintf(f, "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
		   "Content-Transfer-Encoding: 8bit\n\n");
	fprintf(f,
		"Hello,\n\nThe %s of %s (%s) mailed in %s is placed better with the nights\n"
		"since:\n\n",
		text_safe(rq->kind), text_safe(rq->stat), text_safe(rq->job),
		text_safe(rq->in_reply_to));
	fprintf(f, "  now at: %s\n  was at: %s\n  change: %s (the segments around it)\n", now_line,
		was_line, change);
	if (rq->nrange > 1)
		fprintf(f, "  range:  %zu commits, %s .. %s\n", rq->nrange, first, last);
	fprintf(f, "\nThis is the one follow-up of that mail: a later move of the same change\n"
		   "updates scalebench's record and is not mailed.\n\n-- \nscalebench nightly\n");
	if (fclose(f)) {
		f = NULL;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	f = NULL;
	if (check_composed(buf, len, true, err, errlen))
		goto out;
	m->msg = buf;
	m->len = len;
	buf = NULL;
	rc = 0;
out:
	if (f)
		fclose(f);
	free(buf);
	for (size_t i = 0; i < 6; i++)
		free(hdr[i]);
	free(subject);
	mail_addr_free(&to_addr);
	return rc;
}

/* "<left@right>" split at its first '@' (as report_follow_up_build splits it): 0, or -1 when it
 * is not of that shape or memory runs out. */
static int msgid_split(const char *id, char **left, char **right)
{
	const char *at = strchr(id, '@');
	size_t n = strlen(id);

	*left = *right = NULL;
	if (id[0] != '<' || !at || at == id + 1 || n < 4 || id[n - 1] != '>' || at + 2 > id + n - 1)
		return -1;
	*left = strndup(id + 1, (size_t)(at - id - 1));
	*right = strndup(at + 1, (size_t)(id + n - 1 - (at + 1)));
	return *left && *right ? 0 : -1;
}

int report_check_pending(const struct report_pending *rq, char *err, size_t errlen)
{
	struct mail_want want[REPORT_NHEADERS];
	struct mail_addr to_addr = {0};
	const struct mail_addr *to = rq->to;
	char *hdr[REPORT_NHEADERS] = {NULL}, why[512], *left = NULL, *right = NULL, *id = NULL;
	size_t n;
	int rc = -1;

	if (msgid_split(rq->message_id, &left, &right)) {
		snprintf(err, errlen, "its Message-ID is not <left@right>");
		goto out;
	}
	if (!to && author_of(rq->repo, rq->commit, &to_addr, err, errlen))
		goto out;
	to = to ? to : &to_addr;
	/* The headers as the writer makes them: From and To this nightly's, the Message-ID of
	 * the recorded changes (on the host as recorded), a follow-up's reply to its first mail. */
	hdr[0] = mail_header_addr("From", rq->from->name, rq->from->addr);
	hdr[1] = mail_header_addr("To", to->name, to->addr);
	hdr[4] = mail_header_msgid("Message-ID", rq->msgid_left, right);
	if (rq->in_reply_to) {
		free(left);
		free(right);
		if (msgid_split(rq->in_reply_to, &left, &right)) {
			snprintf(err, errlen, "its first mail's Message-ID is not <left@right>");
			goto out;
		}
		hdr[5] = mail_header_msgid("In-Reply-To", left, right);
		hdr[6] = mail_header_msgid("References", left, right);
	}
	if (!hdr[0] || !hdr[1] || !hdr[4] || (rq->in_reply_to && (!hdr[5] || !hdr[6]))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	id = msgid_of(hdr[4]);
	if (!id || strcmp(id, rq->message_id)) {
		snprintf(err, errlen, "its Message-ID is not the one its recorded changes make");
		goto out;
	}
	n = headers_wanted(want, rq->in_reply_to != NULL, (const char *const *)hdr);
	if (mail_message_check(rq->text, strlen(rq->text), want, n, why, sizeof(why))) {
		snprintf(err, errlen,
			 "not the message nightly writes for its changes (From --from, To %s): %s",
			 rq->to	    ? "--to"
			 : rq->repo ? "the commit's author"
				    : "root@localhost",
			 why);
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; i < REPORT_NHEADERS; i++)
		free(hdr[i]);
	free(left);
	free(right);
	free(id);
	mail_addr_free(&to_addr);
	return rc;
}
