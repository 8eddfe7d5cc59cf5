/* What `nightly` has mailed: a JSON file (default <results>/NIGHTLY_STATE_FILE), one entry per
 * message with the changes it reported, so each change is mailed once across runs.
 *
 * Exactly once, even when killed: a message is recorded as pending, with its whole text and a
 * Message-ID derived from its changes, before it is delivered, and marked mailed after.  A
 * later run that finds it pending looks for its Message-ID in the mbox (there: mark it mailed;
 * not there: append it) or, for sendmail, sends the same text again (receivers drop a second
 * copy with the same Message-ID).  The file is replaced whole (lib/file.h) and held under a
 * flock on FILE.lock for the whole pass, so two nightlies at once never both mail. */
#ifndef SCALEBENCH_NIGHTLY_STATE_H
#define SCALEBENCH_NIGHTLY_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NIGHTLY_STATE_FILE ".scalebench-nightly.json"
/* Version 2 is JSON Lines: {"version": 2} on the first line, then one message a line (an
 * object as version 1's "messages" held), so that neither reading nor writing ever holds the
 * whole file as one JSON tree; names that are not UTF-8 are {"hex": "..."} (their bytes).
 * Version 1, {"version": 1, "messages": [...]}, is still read; it is written as 2. */
#define NIGHTLY_STATE_VERSION 2

/* One change: the job's key, the stat, the culprit commit (the first after the change), its
 * kind (verdict_name: "regression", "improvement", "changed-up", ...) and the commits it may
 * be at (nightly_policy.h's range; none recorded before ranges were, or for one night). */
struct nightly_key {
	char *job, *stat, *commit, *kind;
	char **range;
	size_t nrange;
};

struct nightly_message {
	char *message_id; /* "<left@right>" */
	bool mailed;
	int64_t time; /* when recorded (pending) or delivered (mailed), Unix seconds */
	char *text;   /* the whole message while pending (to send again), NULL once mailed */
	struct nightly_key *keys;
	size_t nkeys;
	char *follow_up_of; /* a follow-up ("culprit refined"): the Message-ID it follows, else NULL
			     */
};

struct nightly_state {
	char *path;
	struct nightly_message *msgs;
	size_t n;
};

/* Take the state's lock (flock on PATH.lock, created when missing), waiting for another
 * nightly that holds it.  The descriptor in *fd (close it to release), or -1 with err. */
int nightly_state_lock(const char *path, int *fd, char *err, size_t errlen);

/* Read the state at path; a missing file is an empty state.  -1 with err naming the file and
 * what is wrong (not JSON, another version, a key missing or of the wrong type). */
int nightly_state_load(const char *path, struct nightly_state *st, char *err, size_t errlen);
/* Replace the file whole.  -1 with err naming it. */
int nightly_state_save(const struct nightly_state *st, char *err, size_t errlen);
void nightly_state_free(struct nightly_state *st);

/* Record a pending message (copies of every string): its index, or -1 on ENOMEM. */
ssize_t nightly_state_add(struct nightly_state *st, const char *message_id, const char *text,
			  const struct nightly_key *keys, size_t nkeys, int64_t time);
/* The message is delivered: mailed, its text dropped. */
void nightly_state_mailed(struct nightly_state *st, size_t i, int64_t time);

/* The message recording a change of job's stat of this kind at commit, or NULL. */
const struct nightly_message *nightly_state_find(const struct nightly_state *st, const char *job,
						 const char *stat, const char *commit,
						 const char *kind);
/* The first message recording a change of job's stat of this kind whose commit or range holds
 * one of commits[0..n), or NULL; *key (when not NULL) the key that matched. */
const struct nightly_message *nightly_state_meets(const struct nightly_state *st, const char *job,
						  const char *stat, const char *kind,
						  char *const *commits, size_t n,
						  const struct nightly_key **key);
/* Whether some message follows up message_id. */
bool nightly_state_followed(const struct nightly_state *st, const char *message_id);

/* A Message-ID left part from the keys alone ("nightly.<commit12>.<hash16>"): the same changes
 * give the same Message-ID, whichever run composes them and in whichever order. */
void nightly_msgid_left(const struct nightly_key *keys, size_t nkeys, char *out, size_t len);

/* Whether the mbox at path has a message with this Message-ID ("<...>") in its headers; a
 * missing mbox has none.  0 with *found, or -1 with err naming the file. */
int nightly_mbox_has(const char *path, const char *message_id, bool *found, char *err,
		     size_t errlen);

#endif
