/* Runs on a remote target over ssh: `scalebench run JOB --target ssh://[user@]host[:port]`.
 *
 * The system's ssh client does the work (the user's keys, config and agent), always from an
 * argument vector; the one string that reaches a shell is the remote command, built from fixed
 * text and words quoted by sh_quote (lib/text.h).  The job runs there into a fresh temp directory
 * (mktemp -d on the target); each completed run comes back as a tar stream into a temp run
 * directory of the local store and is committed whole, so a run is here entirely or not at
 * all.  The target's temp directory is removed at the end, also after a failure or an
 * interrupt (its run, if still going, is ended first). */
#ifndef SCALEBENCH_TARGET_H
#define SCALEBENCH_TARGET_H

#include "job.h"

#include <stdbool.h>
#include <stddef.h>

struct target {
	char *user;    /* NULL: ssh's default (ssh_config, the local user) */
	char *host;    /* a name or an address; an IPv6 one without its [] */
	unsigned port; /* 0: ssh's default */
	char *url;     /* as given, for messages */
};

/* Parse ssh://[user@]host[:port] (host a name, an IPv4 address or [IPv6]).  A host or user
 * holds letters, digits, '-', '.' ('_' in a user too) and never starts with '-'; an IPv6
 * address holds hex digits, ':' and '.'; a port is 1-65535.  0, or -1 with err naming the
 * value and what was expected.  Free with target_free. */
int target_parse(const char *url, struct target *t, char *err, size_t errlen);
void target_free(struct target *t);

/* "MAJOR.MINOR" of a `scalebench --version` line ("scalebench 0.1.3" -> "0.1") into out;
 * 0, or -1 when the line is not one. */
int target_version_series(const char *line, char *out, size_t len);

struct target_opts {
	/* The remote scalebench: a name looked up on the target's PATH, an absolute path, or a
	 * path relative to the target user's home.  NULL: "scalebench". */
	const char *bin;
	/* Copy this scalebench's installed tree (bin, libexec, share) into this directory of the
	 * target first (relative: to the home directory) and run its bin/scalebench.  NULL: no. */
	const char *push_dir;
	const char *const *ssh_options; /* each passed as -o OPTION */
	size_t n_ssh_options;
	const char *const *run_args; /* forwarded to the remote `scalebench run` */
	size_t n_run_args;
	/* Plug-ins (local paths) copied into the target's temp directory and given to the
	 * remote `scalebench run` as --plugin, in this order. */
	const char *const *plugins;
	size_t n_plugins;
	const char *results_root; /* the local results root */
	/* What the target is asked to store: a run under another commit (--commit), kconfig
	 * (--kconfig) or path_params than these (NULL, 0: any) is refused. */
	const char *commit, *kconfig;
	const char *const *path_params; /* the job's atomic jobs' */
	size_t n_path_params;
	bool quiet;
};

/* Run the job file at job_path (its text sent as it is) on the target and store every run it
 * completes under o->results_root.  Returns run's exit status (lib/exit.h): SB_EXIT_OK when
 * every run was brought back and none failed, SB_EXIT_FAILED when a run failed, could not be
 * brought back, or the connection was lost during the run, SB_EXIT_ERROR when the target
 * could not be reached or used (a refused connection, an unknown host, an incompatible or
 * missing scalebench there, a job the target refused), SB_EXIT_SIGNAL_BASE + N when
 * interrupted by signal N.  Messages go through sb_error. */
int target_run(const struct target *t, const char *job_path, const struct target_opts *o);

/* Whether arg is an ssh -o option as --ssh-option takes it: an ssh_config keyword (a letter
 * first) then '=' or ' ' and its value, never something ssh would take for a flag.  0, or -1
 * with err naming the value and what was expected. */
int target_ssh_option_check(const char *arg, char *err, size_t errlen);

struct child_process;

/* Run one command on the target through the same ssh argument vector as target_run (o's
 * ssh_options, BatchMode, ConnectTimeout, keepalives): argv's words each quoted, so nothing
 * in them is shell syntax there.  c's input, output and timeout as the caller set them (its
 * argv is ours; its group is ended with it).  0 when ssh ran: c->exit_code is the command's,
 * 255 when ssh itself failed (unreachable, refused, the connection lost); -1 after a message
 * when ssh could not be started. */
int target_exec(const struct target *t, const struct target_opts *o, const char *const *argv,
		struct child_process *c);

#endif
