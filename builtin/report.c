/* scalebench report: the kernel test robot's email on two commits, from the results tree. */
#include "builtin.h"
#include "../analyze/report_mail.h"
#include "../lib/mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct command_def report_command = {
    .name = "report",
    .summary = "Write the kernel test robot's email on a significant change between two commits.",
    .details =
	"Every job of the results tree run at both commits is compared as 'compare' does.  The\n"
	"job's headline stat names the subject when it changed significantly (else the\n"
	"testcase's stat with the largest significant change); the other jobs that changed\n"
	"significantly go in the \"In addition to that\" box.  Without --mbox or\n"
	"--sendmail the message is printed.  With no significant change, says so and writes\n"
	"nothing.\n"
	"A prefix that starts several labels is an error naming them; a label given whole is\n"
	"always that label.\n"
	"\nexit status: 0 message written, 1 nothing to report (no significant change of a\n"
	"headline stat: nothing written), 2 error.\n",
    .rules = (const struct option_rule[]){{OPTION_CONFLICTS, "mbox", "sendmail", NULL},
					  {OPTION_RULES_END, NULL, NULL, NULL}},
};

int cmd_report(int argc, char **argv)
{
	const char *base = NULL, *head = NULL, *root, *job = NULL, *repo = NULL, *mbox = NULL,
		   *from, *to = NULL, *branch = NULL;
	bool sendmail = false;
	const struct option_def opts[] = {
	    {OPT_STRING("base", 0, &base), .arg = "A", .flags = OPTION_REQUIRED,
	     .help = "the commit compared against (the parent): a stored label, or a sha's first "
		     "4 or more hex digits that one label of the job(s) starts with"},
	    {OPT_STRING("head", 0, &head), .arg = "B", .flags = OPTION_REQUIRED,
	     .help = "the commit reported on, as --base"},
	    {OPT_RESULTS(&root), .help = "results root"},
	    {OPT_STRING("job", 0, &job), .arg = "PATH_PARAMS", .def_doc = "every job",
	     .help = "only this atomic job's path_params"},
	    {OPT_STRING("repo", 0, &repo), .arg = "DIR",
	     .help = "the git repository: commit subjects, subsystem, branch; --base and --head "
		     "may be any revision of it (a tag, a branch, HEAD~1)"},
	    {OPT_MAIL_MBOX(&mbox), .help = "append the message to an mbox file"},
	    {OPT_MAIL_SENDMAIL(&sendmail), .help = "pipe the message to sendmail -t"},
	    {OPT_MAIL_FROM(&from)},
	    {OPT_MAIL_TO(&to),
	     .def_doc = "the head commit's author with --repo, else root@localhost",
	     .help = "To: one address, as --from"},
	    {OPT_STRING("branch", 0, &branch), .arg = "NAME", .def_doc = "the repo's branch",
	     .help = "the [branch] of the subject"},
	    {OPT_END},
	};
	char err[1024];
	struct mail_addr from_addr = {0}, to_addr = {0};
	struct report_mail m = {0};
	const char *ctl;
	int first, rc = options_parse(&report_command, opts, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	rc = SB_EXIT_OK;
	if (first < argc) {
		sb_error("unexpected argument '%s' (see 'scalebench report --help')", argv[first]);
		return SB_EXIT_ERROR;
	}
	/* What the user gives that reaches a header is refused when it could break out of it;
	 * what comes from the results or the repository is made safe by the header writer. */
	ctl = branch ? mail_find_ctl(branch) : NULL;
	if (ctl) {
		sb_error(
		    "--branch: a control character (0x%02x, byte %zu) is not allowed in a mail "
		    "header",
		    (unsigned char)*ctl, (size_t)(ctl - branch) + 1);
		return SB_EXIT_ERROR;
	}
	if (mail_addr_parse(from, &from_addr, err, sizeof(err))) {
		sb_error("--from: %s", err);
		return SB_EXIT_ERROR;
	}
	if (to && mail_addr_parse(to, &to_addr, err, sizeof(err))) {
		sb_error("--to: %s", err);
		rc = SB_EXIT_ERROR;
		goto out;
	}

	const struct report_request rq = {.root = root,
					  .base = base,
					  .head = head,
					  .job = job,
					  .repo = repo,
					  .branch = branch,
					  .from = &from_addr,
					  .to = to ? &to_addr : NULL};

	switch (report_build(&rq, &m, err, sizeof(err))) {
	case 0:
		if (report_deliver(m.msg, m.len, mbox, sendmail, err, sizeof(err))) {
			sb_error("%s", err);
			rc = SB_EXIT_ERROR;
		}
		break;
	case 1:
		printf("no significant change of a headline stat between %s and %s in %zu job%s: "
		       "no report\n",
		       m.base, m.head, m.njobs, m.njobs == 1 ? "" : "s");
		rc = SB_EXIT_NOTHING;
		break;
	default:
		sb_error("%s", err);
		rc = SB_EXIT_ERROR;
	}
out:
	report_mail_free(&m);
	mail_addr_free(&from_addr);
	mail_addr_free(&to_addr);
	return rc;
}
