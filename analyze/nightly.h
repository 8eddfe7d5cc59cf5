/* nightly: the changes of a results tree that are new since the last pass (change points of
 * each job's series, and the latest commit against the one before it), mailed once each, one
 * robot email per culprit commit (report_mail.h), remembered in nightly_state.h's file. */
#ifndef SCALEBENCH_NIGHTLY_H
#define SCALEBENCH_NIGHTLY_H

#include "nightly_policy.h"
#include "nightly_state.h"
#include "stats.h"
#include "../lib/mail.h"
#include "../store/index.h"

#include <stdbool.h>
#include <stddef.h>

struct nightly_opts {
	const char *root;
	const char *repo, *branch; /* the series' order (else time order) and the mail's branch */
	const char *job;	   /* only this job (key or path_params), or NULL */
	bool all_stats;		   /* every stat of each job, not only its headline */
	const char *mbox;	   /* where mail goes: an mbox, */
	bool sendmail;		   /* sendmail -t, or else standard output */
	const struct mail_addr *from, *to; /* to NULL: the culprit's author / root@localhost */
	bool dry_run;			   /* say what would be mailed; mail and record nothing */
	bool baseline; /* record every change found as known and mail none: a first pass over a
			* tree with history, which would otherwise mail every change it ever had */
	bool verbose;
	/* Mail changes found on runs mostly measured on a busy machine (meta.json's
	 * machine_load.busy) too; else they are held back, counted, not mailed. */
	bool use_busy;
	struct nightly_policy policy; /* which changes are confirmed (nightly_policy_default) */
};

/* One change found: job's stat moved at commit (the first commit after the change), base is
 * the commit before it in the job's series. */
struct nightly_change {
	char *job, *stat, *commit, *base;
	double change; /* % (absolute stats: the delta) */
	bool absolute;
	enum verdict verdict;
	double p;
	bool from_cp; /* a change point (else the previous-commit comparison) */
	/* A new failure: stat (a failure family's: dmesg.*, kmsg.*, stderr.*, last_state.*)
	 * is in change of commit's runs of runs, and in no run of the commits before it in the
	 * series; kind "new-failure", verdict V_NONE. */
	bool failure;
	unsigned runs;
	/* The commits the change may be at (nightly_policy.h's range, commit among them; none
	 * for the one-night comparison and failures): a change recorded with a range that
	 * meets this one's is the same change. */
	char **range;
	size_t nrange;
};

/* The kind a change is recorded under: verdict_name, or "new-failure". */
const char *nightly_kind(const struct nightly_change *c);

/* Every change of every job of ix (opts->job: that one): change points of the headline stat
 * (all_stats: every stat) over each job's series, the latest commit against the one before
 * it, and each failure stat's first commit when commits before it had none (new failures:
 * a kernel warning's signature, a copy that crashed or got stuck, a run that failed).  Regressions
 * and improvements; with all_stats, neutral stats' moves too. *out is an array of *n (free with
 * nightly_changes_free); *held counts the changes held back (opts->use_busy).  A job that cannot be read is named on stderr and passed over (*job_errors
 * counts them); -1 with err when nothing could be looked at (no such job, an unknown branch, out of
 * memory). */
int nightly_find(struct results_index *ix, const struct nightly_opts *o,
		 struct nightly_change **out, size_t *n, size_t *held, size_t *job_errors,
		 char *err, size_t errlen);
void nightly_changes_free(struct nightly_change *c, size_t n);

/* The new failures of one job (key) over its series labels[0..nl-1], as nightly_find finds
 * them: each failure stat at the first commit whose runs have it, when commits before it had
 * none (not at labels[0]: no history).  *out an array of *n (nightly_changes_free); -1 with
 * err when the index cannot say or memory runs out. */
int nightly_failures(struct results_index *ix, const char *key, char **labels, size_t nl,
		     struct nightly_change **out, size_t *n, char *err, size_t errlen);

/* Whether st records the change already: the same job, stat and kind at its commit, or with a
 * range that meets its range (its commit alone when it has none).  A commit next to a recorded
 * one is not enough: a second step right after a mailed one is a change of its own. */
bool nightly_known(const struct nightly_state *st, const struct nightly_change *c);

/* Deliver every message st holds as pending (a run killed between recording and marking
 * it): with an mbox that already has its Message-ID it is only marked mailed; otherwise it
 * is delivered again, with the same Message-ID.  *mailed counts those delivered.  0, or -1
 * with err (the state saved as far as it got). */
int nightly_settle(struct nightly_state *st, const struct nightly_opts *o, size_t *mailed,
		   char *err, size_t errlen);

/* Mail the changes not yet known, one message per culprit commit: each recorded as pending
 * (and the state saved) before it is delivered and marked mailed after.  *mailed counts the
 * messages.  A message that cannot be made or delivered (a culprit's label or author that
 * report refuses, a failed delivery) is said on stderr, naming its change, and counted in
 * *failed; the others are still mailed.  0, or -1 with err when nothing more may be mailed
 * (the state cannot be saved, memory runs out). */
int nightly_mail(struct nightly_state *st, const struct nightly_opts *o,
		 const struct nightly_change *c, size_t n, size_t *mailed, size_t *failed,
		 char *err, size_t errlen);

#endif
