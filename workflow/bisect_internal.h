/* What workflow/'s bisect files (bisect.c, bisect_log.c, boot.c, batch.c) share, and nothing
 * outside workflow/ uses: the interrupt flag, git in the repository, the bisection's log and
 * its events.  Not in bisect.h, which is the
 * command's view of a bisection (what builtin/bisect.c calls); each function here has one
 * owner, named above its declarations. */
#ifndef SCALEBENCH_WORKFLOW_BISECT_INTERNAL_H
#define SCALEBENCH_WORKFLOW_BISECT_INTERNAL_H

#include "bisect.h"
#include "../lib/interrupt.h"

#include <jansson.h>
#include <signal.h>
#include <stddef.h>

/* bisect.c: the loop, which catches the signals, and the repository's git. */

/* SIGINT or SIGTERM, once caught while bisect_run runs, is lib/interrupt.h's interrupt_caught
 * (child_run has passed the signal on to the running child's process group by then): every
 * step stops and says 130. */
/* Run git in the repo with args; its stdout (and stderr) into out when given.  Its exit
 * status, 128+N on a signal, -1 when it could not be run. */
int bisect_git(const struct bisect *b, char *out, size_t outlen, const char *const *args);
#define GIT(b, out, len, ...) bisect_git(b, out, len, (const char *const[]){__VA_ARGS__, NULL})
/* Sleep ms, cut short by a signal. */
void bisect_nap(unsigned ms);

/* bisect_log.c: the log, the bisection's state. */

/* One change of the bisection's state: timestamped into the log's events (fields added to it,
 * their reference taken), the log written.  0, or -1 after a message (b->log_lost set). */
int bisect_event(struct bisect *b, const char *name, json_t *fields);
/* A decision about sha (role, its n values) appended to the log's steps, and its event. */
void bisect_log_step(struct bisect *b, const char *sha, const char *role, const double *v, size_t n,
		     const char *decision, json_t *extra);
json_t *bisect_values_json(const double *v, size_t n);
/* The commit's own log in the .d directory, for appending: its descriptor with a header line
 * written, or -1 after a message. */
int bisect_commit_log_open(struct bisect *b, const char *sha, const char *what, const char *cmd);
/* sha's slot in b's runs and reboots spent (a new one at the end: the arrays may move). */
size_t bisect_commit_slot(struct bisect *b, const char *sha);
/* Printable ASCII of s, at most len - 1 bytes, without the trailing newline: what the target
 * printed, fit for the log's JSON and for messages. */
void bisect_plain_copy(char *out, size_t len, const char *s);
/* SCALEBENCH_BISECT_KILL_AT=EVENT:N into b (the test hook bisect_event acts on). */
void bisect_kill_hook(struct bisect *b);

#endif
