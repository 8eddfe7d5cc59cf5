/* One way to run a child process.
 *
 * The child runs in a process group of its own, so that everything it starts can be ended
 * together: `sh -c 'make ...'` and make's compilers.  While it runs, a SIGINT or SIGTERM sent to
 * us is passed on to that whole group; when the child has exited after such a signal (or after
 * its timeout), whatever is left of its group gets SIGTERM and, after a grace period, SIGKILL.
 * A signal whose disposition was the default is raised again once the group is gone, so we still
 * die of it; a handler the caller had installed is called as well (bisect's sets a flag).
 *
 * Input and output run through one poll loop, so a child that prints while it reads never
 * deadlocks against us, and stdin is a socket, so a child that stops reading gives EPIPE rather
 * than a SIGPIPE that would kill us.  Captured output grows as needed.
 *
 * Commands run one at a time (a second thread waits): the signal handlers serve one group.
 *
 *	const char *argv[] = {"git", "-C", repo, "rev-parse", "HEAD", NULL};
 *	struct child_process git = {.argv = argv, .out = RUN_OUT_CAPTURE};
 *
 *	if (child_run(&git, err, sizeof(err)) == 0 && git.exit_code == 0)
 *		use(git.out_text.p);
 *	child_release(&git);
 */
#ifndef SCALEBENCH_RUN_COMMAND_H
#define SCALEBENCH_RUN_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum run_in {
	/* The default: a child outside the terminal's foreground group that read the terminal
	 * would be stopped by SIGTTIN. */
	RUN_IN_NULL,
	RUN_IN_BUFFER, /* in_buf, in_len bytes, then end of file */
	RUN_IN_INHERIT,
};

enum run_out {
	RUN_OUT_INHERIT, /* the default: ours */
	RUN_OUT_CAPTURE, /* into out_text / err_text */
	RUN_OUT_FD,	 /* to out_fd / err_fd (our descriptor, duplicated) */
	RUN_OUT_NULL,
	RUN_OUT_STDOUT, /* stderr only: wherever stdout goes (2>&1) */
	/* stdout only: each chunk handed to out_stream as it comes, never held in memory (a tar
	 * stream unpacked while it arrives).  When out_stream returns nonzero the pipe is closed
	 * and the group ended as after a timeout (stream_stopped says so). */
	RUN_OUT_STREAM,
};

/* Captured output, NUL-terminated and malloc'd (NULL or "" when nothing came). */
struct run_buf {
	char *p;
	size_t len;
	size_t max;	/* set by the caller: keep at most this much (0: all of it); the rest is */
	bool truncated; /* read and dropped, and truncated says so */
};

struct child_process {
	/* What to run: argv, argv[0] looked up in PATH unless it has a '/' (or `path` executed
	 * instead, argv[0] then only naming it); or a command line for /bin/sh -c. */
	const char *const *argv;
	const char *path;
	const char *shell;
	const char *dir;	/* the child's working directory (default: ours) */
	const char *const *env; /* "NAME=value" entries added to ours, replacing the same NAME */

	enum run_in in;
	const char *in_buf;
	size_t in_len;
	enum run_out out, err;
	int out_fd, err_fd;
	struct run_buf out_text, err_text;
	int (*out_stream)(void *ctx, const char *buf, size_t len);
	void *out_ctx;

	unsigned timeout_ms; /* 0: none; else the group is ended when it runs longer */
	unsigned grace_ms;   /* between SIGTERM and SIGKILL (0: 5000) */
	bool end_group;	     /* when the child exits, end the rest of its group too */
	bool no_forward;     /* our SIGINT/SIGTERM are not passed on: a cleanup that must finish */

	/* Results. */
	pid_t pid;
	int exit_code;	     /* its exit status, -1 when a signal ended it */
	int term_signal;     /* the signal that ended it, 0 when it exited */
	bool timed_out;	     /* ended by timeout_ms */
	bool stream_stopped; /* ended because out_stream refused more */
	int interrupted;     /* SIGINT or SIGTERM we received while it ran, else 0 */
	size_t in_written; /* bytes of in_buf the child took before it exited or stopped reading */
};

/* Run cmd to its end.  0 when it ran (whatever its exit: see the results), -1 with errno set and
 * err naming the command when it could not be started or watched.  cmd is zero-initialised or
 * released before; captured output is in cmd->out_text / err_text even on failure. */
int child_run(struct child_process *cmd, char *err, size_t errlen);

/* The shell's view of the result: the exit status, 128 + the signal, -1 if it never ran. */
int child_status(const struct child_process *cmd);

/* Frees the captured output. */
void child_release(struct child_process *cmd);

/* What our signal handler does, for a caller's own handler or another thread: pass sig to the
 * running command's group (if any, and unless no_forward) and end it as for a received signal.
 * Async-signal-safe. */
void child_interrupt(int sig);

#endif
