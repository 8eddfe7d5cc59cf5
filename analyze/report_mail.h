/* The kernel test robot's email on two commits, from the results tree: composed once here for
 * `report` (a pair of commits the user names) and `nightly` (each culprit commit a change
 * point names), delivered to an mbox, sendmail or standard output. */
#ifndef SCALEBENCH_REPORT_MAIL_H
#define SCALEBENCH_REPORT_MAIL_H

#include "stats.h"
#include "../lib/mail.h"

#include <stdbool.h>
#include <stddef.h>

/* One line of the "In addition to that" box given by the caller (nightly's change points at
 * the same commit) instead of the jobs whose comparison changed: the job's key (its commit
 * directory's parent below root), the stat, its change (% or, absolute, a delta) and which
 * way it went. */
struct report_change {
	const char *job;
	const char *stat;
	double change;
	bool absolute;
	enum verdict verdict; /* V_REGRESSION, V_IMPROVEMENT; V_CHANGED_*: "change" */
	/* A new failure (nightly): stat is its failure stat (dmesg.WARNING:..., stderr.*),
	 * change the number of head's runs that have it, of runs; verdict unused. */
	bool failure;
	unsigned runs;
};

struct report_request {
	const char *root;
	const char *base, *head; /* labels as stored; with repo, any revision naming one */
	/* Only this job: a path_params, or a key (testcase/path_params/.../compiler, with a '/')
	 * for exactly one job.  NULL: every job run at both commits. */
	const char *job;
	const char *repo;   /* commit subjects, subsystem, branch, author; may be NULL */
	const char *branch; /* NULL: the repo's branch, else "unknown" */
	const struct mail_addr *from;
	const struct mail_addr *to; /* NULL: the head commit's author with repo, root@localhost */
	/* The Message-ID's left part; NULL: time.pid.sha (a new one each time).  A fixed one
	 * lets a resent message be recognised as the same one. */
	const char *msgid_left;
	/* When not NULL: the subject and "noticed a ..." line are changes[0] (its job must be
	 * among those compared) and the box lists changes[1..nchanges-1], whatever the
	 * comparison of base and head says; the mail is written even when it finds nothing. */
	const struct report_change *changes;
	size_t nchanges;
};

struct report_mail {
	char *msg; /* headers, blank line, body; LF line ends */
	size_t len;
	char *message_id; /* "<left@right>" as in the header */
	char *base, *head; /* the labels compared (revisions resolved to stored labels) */
	size_t njobs;	   /* jobs compared */
};

/* Compose the email.  0 with m filled; 1 when no headline stat changed significantly in any
 * job (m->njobs, base and head set, no message); -1 with err (no runs of a commit, no job at
 * both, a bad author address, out of memory).  A job that cannot be read or compared is
 * named on stderr and left out.  Free m with report_mail_free in every case. */
int report_build(const struct report_request *rq, struct report_mail *m, char *err,
		 size_t errlen);
void report_mail_free(struct report_mail *m);

/* The one follow-up nightly sends when a change it mailed is placed better later ("culprit
 * refined to ..."), a reply to the first mail. */
struct report_follow_up {
	const char *job, *stat, *kind;
	const char *commit, *was; /* labels: where the change is now, where the mail put it */
	char *const *range;	  /* the commits it may be at, in order */
	size_t nrange;
	double change; /* %, or a delta when absolute */
	bool absolute;
	const char *in_reply_to; /* the first mail's "<left@right>" */
	const char *repo, *branch;
	const struct mail_addr *from, *to; /* to NULL: commit's author with repo, else root@localhost */
	const char *msgid_left;
};
/* Compose it.  0 with m's msg and message_id, or -1 with err. */
int report_follow_up_build(const struct report_follow_up *rq, struct report_mail *m, char *err,
			   size_t errlen);

/* A message nightly recorded as pending, before it is delivered again: the state file holds
 * its text, and nothing is sent only because a file holds it. */
struct report_pending {
	const char *text;	/* as recorded */
	const char *message_id; /* "<left@right>" as recorded */
	const char *msgid_left; /* what the recorded changes make of it (nightly_msgid_left) */
	const char *in_reply_to; /* a follow-up's first mail, or NULL */
	const char *commit;	 /* the changes' commit: its author is the To without to */
	const char *repo;
	const struct mail_addr *from, *to; /* this nightly's, as report_request's */
};
/* Whether rq->text is the message this nightly would write for those changes: exactly
 * report's headers (a follow-up's with In-Reply-To and References to its first mail), From
 * and To as from and to (or the commit's author) make them, the Message-ID made of msgid_left
 * and the recorded id's host, and a body of text (lib/mail.h's mail_message_check).  0, or -1
 * with err saying what is not. */
int report_check_pending(const struct report_pending *rq, char *err, size_t errlen);

/* Deliver one message: appended to the mbox at mbox (lib/mail.h's all-or-nothing append)
 * when not NULL, else piped to `sendmail -t` when sendmail, else written to stdout.  0, or
 * -1 with err naming the mbox or sendmail and what failed. */
int report_deliver(const char *msg, size_t len, const char *mbox, bool sendmail, char *err,
		   size_t errlen);

#endif
