/* scalebench nightly: mail each new change of a results tree once, one robot email per
 * culprit commit. */
#include "builtin.h"
#include "../analyze/nightly.h"
#include "../analyze/nightly_state.h"
#include "../lib/mail.h"
#include "../lib/git.h"
#include "../store/index.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const struct command_def nightly_command = {
    .name = "nightly",
    .summary = "Mail each new change of a results tree once: one robot email per culprit commit.",
    .details =
	"For every job of the results tree (--job: one), the change points of its headline stat\n"
	"(--stats all: of every stat) over its series of commits, in the branch's first-parent\n"
	"order with --repo, else in time order, and the latest commit against the one before it\n"
	"(so a step on the last night is mailed at once).  The changes not mailed before are\n"
	"grouped by culprit commit (the first commit after the change) and each group is mailed\n"
	"as `report` writes it: base the commit before the culprit, the \"In addition to that\"\n"
	"box listing the other jobs and stats that changed at that commit.\n"
	"\n"
	"What was mailed is kept in the state file, replaced whole each time and locked for the\n"
	"whole pass (a second nightly waits).  A message is recorded as pending, with a\n"
	"Message-ID made from its changes, before it is delivered, and marked mailed after; a\n"
	"nightly killed in between is finished by the next one: with --mbox a message already\n"
	"in the mbox is only marked, otherwise it is delivered again with the same Message-ID\n"
	"(receivers drop a duplicate Message-ID).  Without --mbox or --sendmail the messages are\n"
	"printed.\n"
	"\n"
	"What is confirmed (bench/nightly_sim.sh measures it): a change point once\n"
	"--confirm-commits commits follow it; the latest commit against the one before only\n"
	"when it moved --night-sigma times the series' own night-to-night noise (measured on\n"
	"at least 8 commits of its history) and the analyzer calls it a change: a one-night\n"
	"comparison of two commits' runs alone mails the noise between nights.  Each change is\n"
	"recorded with the commits it may be at (its range); a later change of the same stat\n"
	"and kind whose range meets a mailed one is that change, not a new one, and when a\n"
	"change point places it at another commit, one follow-up (\"culprit refined to ...\", a\n"
	"reply to the first mail) is sent, never a second report.\n"
	"\n"
	"A change whose runs were mostly measured on a busy machine (meta.json's machine_load:\n"
	"more than half of the runs of its commits and --confirm-commits commits on each side;\n"
	"for the one-night check, of the two commits) is held back: said, not mailed, found\n"
	"again each night until the commits are measured on an idle machine (--busy-runs use:\n"
	"mailed, the mail saying how many runs were busy).  New failures are mailed either way.\n"
	"\nexit status: 0 nothing new, 1 something mailed, 2 error (nothing is mailed when the\n"
	"state file cannot be read).\n",
    .rules = (const struct option_rule[]){{OPTION_CONFLICTS, "mbox", "sendmail", NULL},
					  {OPTION_NEEDS, "branch", "repo",
					   "the branch's order comes from the repository"},
					  {OPTION_RULES_END, NULL, NULL, NULL}},
};

#define STR_(x) #x
#define STR(x)	STR_(x)

/* Whether repo has the revision rev: a wrong --repo or --branch is said once, up front, not
 * once per job. */
static bool has_revision(const char *repo, const char *rev)
{
	char spec[512];

	if ((size_t)snprintf(spec, sizeof(spec), "%s^{commit}", rev) >= sizeof(spec) ||
	    rev[0] == '-')
		return false;
	return git_run(repo, GIT_ARGS("rev-parse", "--verify", "--quiet", spec), 0, NULL, NULL,
		       0) == 0;
}

/* nightly's command line: its options, the addresses parsed and the state file's path. */
struct nightly_args {
	const char *root, *repo, *branch, *job, *stats, *mbox, *from, *to, *state_path;
	bool sendmail, dry_run, verbose, baseline;
	const char *busy_runs;
	unsigned confirm;
	double night_sigma;
	struct mail_addr from_addr, to_addr;
	char state_buf[PATH_MAX];  /* DIR/NIGHTLY_STATE_FILE, when state_path is not given */
	char state_real[PATH_MAX]; /* the file a symlink at state_path names */
};

/* The options into a, checked (--branch in --repo, the addresses parsed, the state file's
 * path, the results root there): -1 to go on, else the exit status.  a's addresses are
 * mail_addr_free's to free either way. */
static int parse_nightly_args(int argc, char **argv, struct nightly_args *a)
{
	const struct option_def opts[] = {
	    {OPT_RESULTS(&a->root), .help = "results root"},
	    {OPT_STRING("repo", 0, &a->repo), .arg = "DIR",
	     .help = "the git repository: series in its branch's first-parent order, commit "
		     "subjects, authors"},
	    {OPT_STRING("branch", 0, &a->branch), .arg = "B", .def_doc = "the repo's HEAD",
	     .help = "the branch watched (with --repo), the [branch] of the subject"},
	    {OPT_STRING("job", 0, &a->job), .arg = "PATH_PARAMS", .def_doc = "every job",
	     .help = "only this job (its path_params, or its key testcase/.../compiler)"},
	    {OPT_CHOICE("stats", 0, &a->stats), .choices = "headline|all", .def = "headline",
	     .help = "the stats watched: each job's headline stat, or every stat"},
	    {OPT_MAIL_MBOX(&a->mbox), .help = "append the messages to an mbox file"},
	    {OPT_MAIL_SENDMAIL(&a->sendmail), .help = "pipe each message to sendmail -t"},
	    {OPT_MAIL_FROM(&a->from)},
	    {OPT_MAIL_TO(&a->to),
	     .def_doc = "the culprit commit's author with --repo, else root@localhost",
	     .help = "To: one address, as --from"},
	    {OPT_STRING("state", 0, &a->state_path), .arg = "FILE",
	     .def_doc = "DIR/" NIGHTLY_STATE_FILE, .help = "what was mailed, kept between runs"},
	    {OPT_FLAG("dry-run", 0, &a->dry_run),
	     .help = "say what would be mailed; mail nothing, record nothing"},
	    {OPT_FLAG("baseline", 0, &a->baseline),
	     .help = "record every change found as already reported and mail none (a first pass "
		     "over a tree with history)"},
	    {OPT_COUNT("confirm-commits", 0, &a->confirm), .arg = "K",
	     .def = STR(NIGHTLY_CONFIRM_COMMITS), .min = 1, .max = 100,
	     .help = "a change point is mailed once K commits follow it"},
	    {OPT_FLOAT("night-sigma", 0, &a->night_sigma), .arg = "Z", .def = STR(NIGHTLY_NIGHT_Z),
	     .min = 1, .max = 100,
	     .help = "the latest commit against the one before is mailed when it moved Z "
		     "times the series' night-to-night noise"},
	    {OPT_CHOICE("busy-runs", 0, &a->busy_runs), .choices = "hold|use", .def = "hold",
	     .help = "a change whose runs were mostly measured on a busy machine: held back "
		     "(counted, not mailed), or mailed as found"},
	    {OPT_FLAG("verbose", 'v', &a->verbose), .help = "say what was looked at and why"},
	    {OPT_END},
	};
	char err[PATH_MAX + 1024];
	const char *ctl;
	struct stat sb;
	int first, rc;

	*a = (struct nightly_args){0};
	rc = options_parse(&nightly_command, opts, argc, argv, &first, NULL);
	if (rc >= 0)
		return rc;
	if (first < argc) {
		sb_error("unexpected argument '%s' (see 'scalebench nightly --help')", argv[first]);
		return SB_EXIT_ERROR;
	}
	ctl = a->branch ? mail_find_ctl(a->branch) : NULL;
	if (ctl) {
		sb_error(
		    "--branch: a control character (0x%02x, byte %zu) is not allowed in a mail "
		    "header",
		    (unsigned char)*ctl, (size_t)(ctl - a->branch) + 1);
		return SB_EXIT_ERROR;
	}
	if (a->repo && !has_revision(a->repo, a->branch ? a->branch : "HEAD")) {
		sb_error("--branch %s: no such branch or commit in --repo %s",
			 a->branch ? a->branch : "HEAD", a->repo);
		return SB_EXIT_ERROR;
	}
	if (mail_addr_parse(a->from, &a->from_addr, err, sizeof(err))) {
		sb_error("--from: %s", err);
		return SB_EXIT_ERROR;
	}
	if (a->to && mail_addr_parse(a->to, &a->to_addr, err, sizeof(err))) {
		sb_error("--to: %s", err);
		return SB_EXIT_ERROR;
	}
	if (!a->state_path) {
		if ((size_t)snprintf(a->state_buf, sizeof(a->state_buf), "%s/%s", a->root,
				     NIGHTLY_STATE_FILE) >= sizeof(a->state_buf)) {
			sb_error("%s: path too long", a->root);
			return SB_EXIT_ERROR;
		}
		a->state_path = a->state_buf;
	}
	/* A symlink is the file it names, locked and replaced there: a save would replace the
	 * link by a file, and a lock taken by the link's name would not exclude a nightly given
	 * the file's, so both would mail the same change. */
	if (!lstat(a->state_path, &sb) && S_ISLNK(sb.st_mode)) {
		if (!realpath(a->state_path, a->state_real)) {
			sb_error("--state %s: a symlink to nothing (%s): give the file itself",
				 a->state_path, strerror(errno));
			return SB_EXIT_ERROR;
		}
		a->state_path = a->state_real;
	}
	if (access(a->root, F_OK)) {
		sb_error("--results %s: no such directory", a->root);
		return SB_EXIT_ERROR;
	}
	return -1;
}

/* One pass over o->root: the state file locked (unless a dry run) and read, what a pass
 * killed before left finished, the changes found and the new ones mailed.  The exit status:
 * 0 nothing new, 1 something mailed, 2 error. */
static int nightly_pass(const struct nightly_opts *o, const char *state_path)
{
	char err[PATH_MAX + 1024];
	struct nightly_state st = {0};
	struct results_index *ix = NULL;
	struct nightly_change *changes = NULL;
	size_t nchanges = 0, held = 0, job_errors = 0, resent = 0, mailed = 0, failed = 0;
	struct index_update u;
	int lock_fd = -1;
	int rc = SB_EXIT_ERROR;

	/* The lock first, then the state as the last holder left it: two nightlies at once
	 * never both mail a change.  A dry run only reads. */
	if (!o->dry_run && nightly_state_lock(state_path, &lock_fd, err, sizeof(err))) {
		sb_error("%s", err);
		goto out;
	}
	if (nightly_state_load(state_path, &st, err, sizeof(err))) {
		sb_error("%s (nothing mailed; fix or remove it)", err);
		goto out;
	}
	if (nightly_settle(&st, o, &resent, err, sizeof(err))) {
		sb_error("%s", err);
		goto out;
	}
	if (index_open(o->root, INDEX_QUICK, &ix, &u, err, sizeof(err))) {
		sb_error("%s", err);
		goto out;
	}
	if (o->verbose && u.rebuilt)
		sb_note("index of %s rebuilt (%s): %zu runs", o->root, u.why_rebuilt, u.runs_total);
	if (nightly_find(ix, o, &changes, &nchanges, &held, &job_errors, err, sizeof(err))) {
		sb_error("%s", err);
		goto out;
	}
	/* Said whatever -v: a change the pass saw and chose not to mail. */
	if (held)
		sb_note("%zu change%s held back: found on runs mostly measured on a busy machine "
			"(meta.json's machine_load), not mailed; measure those commits again on an "
			"idle machine, or --busy-runs use mails them (-v names them)",
			held, held == 1 ? "" : "s");
	if (nightly_mail(&st, o, changes, nchanges, &mailed, &failed, err, sizeof(err))) {
		sb_error("%s", err);
		goto out;
	}
	/* What happened, not what was meant to: a dry run or a known change mails nothing. */
	if (o->verbose && o->dry_run)
		sb_note("%zu change%s found; a dry run: nothing mailed", nchanges,
			nchanges == 1 ? "" : "s");
	else if (o->verbose)
		sb_note("%zu change%s found, %zu new message%s %s", nchanges,
			nchanges == 1 ? "" : "s", mailed, mailed == 1 ? "" : "s",
			o->mbox || o->sendmail ? "mailed" : "printed (no --mbox or --sendmail)");
	rc = job_errors || failed ? SB_EXIT_ERROR : mailed + resent ? SB_EXIT_FOUND : SB_EXIT_OK;
out:
	nightly_changes_free(changes, nchanges);
	if (ix)
		index_close(ix);
	nightly_state_free(&st);
	if (lock_fd >= 0)
		close(lock_fd);
	return rc;
}

int cmd_nightly(int argc, char **argv)
{
	struct nightly_args a;
	int rc = parse_nightly_args(argc, argv, &a);

	if (rc < 0) {
		struct nightly_opts o = {.root = a.root,
					 .repo = a.repo,
					 .branch = a.branch,
					 .job = a.job,
					 .all_stats = !strcmp(a.stats, "all"),
					 .mbox = a.mbox,
					 .sendmail = a.sendmail,
					 .from = &a.from_addr,
					 .to = a.to ? &a.to_addr : NULL,
					 .dry_run = a.dry_run,
					 .baseline = a.baseline,
					 .verbose = a.verbose,
					 .use_busy = !strcmp(a.busy_runs, "use")};

		nightly_policy_default(&o.policy);
		o.policy.confirm_commits = a.confirm;
		o.policy.night_z = a.night_sigma;
		rc = nightly_pass(&o, a.state_path);
	}
	mail_addr_free(&a.from_addr);
	mail_addr_free(&a.to_addr);
	return rc;
}
