/* Boot commit C for a batch of runs: check it out and prepare it (--prepare), reboot (--reboot,
 * or `reboot` on the --target over ssh), and wait until C is up (--boot-check, or the target
 * answering with a new boot_id and kernel release).  Each step's output goes to C's own log in
 * the bisect log's .d directory, each step is an event of the log, so that a bisection killed
 * while a reboot is awaited waits for that boot instead of issuing another. */
#include "boot.h"
#include "bisect_internal.h"
#include "../lib/errors.h"
#include "../lib/file.h"
#include "../lib/run_command.h"
#include "../runner/target.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void target_env(const struct bisect *b, const char *sha, char *commit, size_t clen,
		       char *target, size_t tlen)
{
	snprintf(commit, clen, "SCALEBENCH_COMMIT=%s", sha);
	snprintf(target, tlen, "SCALEBENCH_TARGET=%s", b->target ? b->target : "");
}

static struct target_opts target_opts_of(const struct bisect *b)
{
	return (struct target_opts){
	    .bin = b->target_bin, .ssh_options = b->ssh_options, .n_ssh_options = b->n_ssh_options};
}

bool boot_reboots(const struct bisect *b)
{
	return b->reboot || b->target;
}

/* The target's boot id and kernel release (`cat boot_id; uname -r` there), each line into
 * its buffer.  The command's status (255: ssh failed), -1 when ssh could not be run, 130. */
static int target_identity(struct bisect *b, int log_fd, unsigned timeout_ms, char *boot_id,
			   size_t idlen, char *release, size_t rellen, char *tail, size_t taillen)
{
	static const char *const argv[] = {"sh", "-c",
					   "cat /proc/sys/kernel/random/boot_id && uname -r", NULL};
	const char *env[] = {b->env_token, NULL};
	struct target_opts o = target_opts_of(b);
	struct child_process c = {
	    .env = env, .out = RUN_OUT_CAPTURE, .err = RUN_OUT_CAPTURE, .timeout_ms = timeout_ms};
	int rc;

	boot_id[0] = release[0] = '\0';
	c.out_text.max = c.err_text.max = 1 << 16;
	if (target_exec(&b->tgt, &o, argv, &c)) {
		child_release(&c);
		return -1;
	}
	rc = child_status(&c);
	if (c.out_text.p) {
		char *nl = strchr(c.out_text.p, '\n');

		bisect_plain_copy(boot_id, idlen, c.out_text.p);
		if (nl)
			bisect_plain_copy(release, rellen, nl + 1);
		if (log_fd >= 0)
			dprintf(log_fd, "%s", c.out_text.p);
	}
	if (log_fd >= 0 && c.err_text.p)
		dprintf(log_fd, "%s", c.err_text.p);
	if (tail)
		snprintf(tail, taillen, "%s",
			 c.err_text.p && *c.err_text.p ? c.err_text.p
			 : c.out_text.p		       ? c.out_text.p
						       : "");
	if (rc == 0 && (!boot_id[0] || !release[0]))
		rc = 1; /* it answered, not with both lines */
	child_release(&c);
	return interrupt_caught ? SB_EXIT_INTERRUPTED : rc;
}

/* Run a user's command (prepare, reboot) with its output appended to the commit's log: its
 * exit status, -1 when it could not be run, 130 interrupt_caught. */
static int user_command(struct bisect *b, const char *sha, const char *what, const char *cmd,
			const char *dir)
{
	char env_commit[80], env_target[PATH_MAX], err[512];
	const char *env[] = {env_commit, env_target, b->env_token, NULL};
	int fd = bisect_commit_log_open(b, sha, what, cmd), rc;

	if (fd < 0)
		return -1;
	target_env(b, sha, env_commit, sizeof(env_commit), env_target, sizeof(env_target));
	/* What it leaves running in its group (a build's background job) is ended with it:
	 * nothing of it may go on while the next commit is checked out or the repository reset
	 * under it. */
	struct child_process c = {.shell = cmd,
				  .dir = dir,
				  .env = env,
				  .out = RUN_OUT_FD,
				  .out_fd = fd,
				  .err = RUN_OUT_STDOUT,
				  .end_group = true};

	if (child_run(&c, err, sizeof(err))) {
		sb_error("%s", err);
		close(fd);
		return -1;
	}
	rc = child_status(&c);
	dprintf(fd, "=== %s exited with %d\n", what, rc);
	close(fd);
	return interrupt_caught ? SB_EXIT_INTERRUPTED : rc;
}

/* Check out and prepare sha unless it is what was prepared last (or force).  0, 1 prepare
 * failed (skip), -1 error, 130 interrupt_caught. */
static int prepare(struct bisect *b, const char *sha, bool force)
{
	char out[4096];
	int rc;

	if (!force && !strcmp(b->prepared, sha))
		return 0;
	b->prepared[0] = '\0';
	if (interrupt_caught)
		return SB_EXIT_INTERRUPTED;
	if (GIT(b, out, sizeof(out), "checkout", "-q", "--detach", sha)) {
		if (interrupt_caught)
			return SB_EXIT_INTERRUPTED;
		sb_error("git checkout %s in %s failed: %s", sha, b->repo, out);
		return -1;
	}
	/* A signal during the checkout: child_run forgets it once the next command starts. */
	if (interrupt_caught)
		return SB_EXIT_INTERRUPTED;
	rc = user_command(b, sha, "prepare", b->prepare, b->repo);
	if (rc == SB_EXIT_INTERRUPTED || rc < 0)
		return rc;
	json_t *f = json_pack("{s:s, s:i}", "commit", sha, "exit", rc);

	if (rc) {
		/* What the build said last: the log's tail, in the bisection's log. */
		char path[PATH_MAX + 64];
		char *tail;

		snprintf(path, sizeof(path), "%s/%s.log", b->dir_d, sha);
		tail = file_tail(path, 20);
		json_object_set_new(f, "tail", json_string(tail ? tail : ""));
		free(tail);
	}
	bisect_event(b, "prepare", f);
	if (rc) {
		sb_error("%.10s: prepare command exited with %d: skipping the commit (output in "
			 "%s/%s.log)",
			 sha, rc, b->dir_d, sha);
		return 1;
	}
	snprintf(b->prepared, sizeof(b->prepared), "%s", sha);
	return 0;
}

/* The wait before the boot check's try number tries + 1: a quarter of a second, doubling to
 * 5 s (a VM is up in seconds, a machine takes minutes). */
static unsigned boot_backoff_ms(unsigned tries)
{
	return tries >= 5 ? 5000 : 250u << (tries - 1);
}

/* One try of the default boot check (the target's boot_id and kernel release over ssh,
 * bounded by left seconds), its answer into the commit's log fd, which it closes: 0 up, 1
 * not (why in tail), -1 error, 130. */
static int check_identity(struct bisect *b, const char *sha, int fd, double left, char *tail,
			  size_t taillen)
{
	/* ssh's ConnectTimeout (10 s) and this bound: a dead target is a failed check, never a
	 * hang. */
	char id[64], rel[256];
	int rc = target_identity(b, fd, left > 1 ? (unsigned)(left * 1000) : 1000, id, sizeof(id),
				 rel, sizeof(rel), tail, taillen);

	if (rc == 0 && b->boot_id_before[0] && !strcmp(id, b->boot_id_before)) {
		snprintf(tail, taillen, "not rebooted: boot_id still %s", id);
		rc = 1;
	} else if (rc == 0 && strcmp(b->last_up, sha) && !strcmp(rel, b->uname_before)) {
		snprintf(tail, taillen, "booted the kernel it ran before: uname -r still '%s'", rel);
		rc = 1;
	}
	dprintf(fd, "=== boot check: %s\n", rc == 0 ? "up" : tail);
	close(fd);
	return rc == SB_EXIT_INTERRUPTED || rc <= 0 ? rc : 1;
}

/* One try of --boot-check COMMAND (bounded by left seconds), its output into the commit's
 * log fd, which it closes, and its tail into tail: 0 up, 1 not, -1 error, 130. */
static int check_command(struct bisect *b, const char *const *env, int fd, double left,
			 char *tail, size_t taillen)
{
	struct child_process c = {.shell = b->boot_check,
				  .env = env,
				  .out = RUN_OUT_CAPTURE,
				  .err = RUN_OUT_STDOUT,
				  .end_group = true,
				  .timeout_ms = left > 1 ? (unsigned)(left * 1000) : 1000};
	char err[512];
	int rc;

	c.out_text.max = 1 << 16;
	if (child_run(&c, err, sizeof(err))) {
		sb_error("%s", err);
		close(fd);
		return -1;
	}
	rc = child_status(&c);
	if (c.out_text.p) {
		size_t n = strlen(c.out_text.p);

		if (write(fd, c.out_text.p, n) < 0) {
			/* the commit's log is a courtesy; the boot check's answer counts */
		}
		snprintf(tail, taillen, "%s",
			 n >= taillen ? c.out_text.p + n - (taillen - 1) : c.out_text.p);
	}
	dprintf(fd, "=== boot check exited with %d%s\n", rc, c.timed_out ? " (timed out)" : "");
	close(fd);
	child_release(&c);
	if (interrupt_caught)
		return SB_EXIT_INTERRUPTED;
	return rc != 0;
}

/* Poll the boot check until it exits 0 within the boot timeout: 0 booted, 1 not, -1 error,
 * 130.  The tail of its last output in tail. */
static int boot_wait(struct bisect *b, const char *sha, char *tail, size_t taillen, bool once)
{
	struct timespec t0, t;
	char env_commit[80], env_target[PATH_MAX];
	const char *env[] = {env_commit, env_target, b->env_token, NULL};
	unsigned tries = 0;
	char what[PATH_MAX + 512];

	tail[0] = '\0';
	if (!b->boot_check && !b->target)
		return 0;
	if (!b->boot_check)
		snprintf(what, sizeof(what), "ssh %s: a new boot_id (not %s)%s%s%s", b->target,
			 b->boot_id_before[0] ? b->boot_id_before : "known",
			 strcmp(b->last_up, sha) ? " and uname -r not '" : "",
			 strcmp(b->last_up, sha) ? b->uname_before : "",
			 strcmp(b->last_up, sha) ? "'" : "");
	target_env(b, sha, env_commit, sizeof(env_commit), env_target, sizeof(env_target));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		double left;
		int fd = bisect_commit_log_open(b, sha, "boot check",
						b->boot_check ? b->boot_check : what),
		    rc;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = b->boot_timeout - (double)(t.tv_sec - t0.tv_sec) -
		       (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
		if (fd < 0)
			return -1;
		rc = b->boot_check ? check_command(b, env, fd, left, tail, taillen)
				   : check_identity(b, sha, fd, left, tail, taillen);
		tries++;
		if (rc != 1)
			return rc;
		if (left <= 1 || once)
			return 1;
		bisect_nap(boot_backoff_ms(tries));
		if (interrupt_caught)
			return SB_EXIT_INTERRUPTED;
	}
}

/* The default boot check's reference, read just before the reboot (into the commit's log):
 * 0, -1, 130.  A target that does not answer leaves it empty: the check then waits for any
 * answer with a kernel release other than the empty one. */
static int identity_before(struct bisect *b, const char *sha)
{
	char tail[512];
	int fd = bisect_commit_log_open(b, sha, "before the reboot", "cat boot_id && uname -r"), rc;

	if (fd < 0)
		return -1;
	rc = target_identity(b, fd, 60000, b->boot_id_before, sizeof(b->boot_id_before),
			     b->uname_before, sizeof(b->uname_before), tail, sizeof(tail));
	dprintf(fd, "=== exited with %d\n", rc);
	close(fd);
	if (rc == SB_EXIT_INTERRUPTED || rc < 0)
		return rc;
	if (rc) {
		b->boot_id_before[0] = b->uname_before[0] = '\0';
		sb_error(
		    "%.10s: cannot read %s's boot_id and uname -r before the reboot (exit %d); "
		    "the boot check waits for it to answer",
		    sha, b->target, rc);
	}
	return 0;
}

/* The default --reboot: `reboot` run there over ssh (the connection may drop as the machine
 * goes down: ssh's 255 is expected).  0, -1, 130. */
static int target_reboot(struct bisect *b, const char *sha)
{
	static const char *const argv[] = {"reboot", NULL};
	const char *env[] = {b->env_token, NULL};
	struct target_opts o = target_opts_of(b);
	int fd = bisect_commit_log_open(b, sha, "reboot", "ssh TARGET reboot"), rc;

	if (fd < 0)
		return -1;
	struct child_process c = {.env = env,
				  .out = RUN_OUT_FD,
				  .out_fd = fd,
				  .err = RUN_OUT_STDOUT,
				  .timeout_ms = 60000};

	if (target_exec(&b->tgt, &o, argv, &c)) {
		close(fd);
		return -1;
	}
	rc = child_status(&c);
	dprintf(fd, "=== reboot exited with %d%s\n", rc,
		rc == 255 ? " (ssh: the connection went down with the machine, or never came)"
			  : "");
	close(fd);
	if (interrupt_caught)
		return SB_EXIT_INTERRUPTED;
	return rc == 255 ? 0 : rc;
}

int boot_commit(struct bisect *b, const char *sha)
{
	char tail[1024];
	int rc;

	if (!boot_reboots(b))
		return prepare(b, sha, false);
	if (b->up && !strcmp(b->booted, sha)) {
		/* Killed after its boot was checked, before its runs: if it is still up (the
		 * controller died, not the machine), the boot is not spent again. */
		b->up = false;
		b->booted[0] = '\0';
		rc = boot_wait(b, sha, tail, sizeof(tail), true);
		if (rc == SB_EXIT_INTERRUPTED || rc < 0)
			return rc;
		if (rc == 0) {
			snprintf(b->last_up, sizeof(b->last_up), "%s", sha);
			bisect_event(b, "booted",
				     json_pack("{s:s, s:b}", "commit", sha, "resumed", 1));
			return 0;
		}
	}
	b->up = false;
	for (int attempt = 1; attempt <= 2; attempt++) {
		/* A reboot issued before we were killed (or rebooted with the machine): its
		 * boot is awaited, not issued again. */
		bool pending = !strcmp(b->booted, sha) && attempt == 1;

		if (!pending) {
			rc = prepare(b, sha, true);
			if (rc)
				return rc;
			snprintf(b->booted, sizeof(b->booted), "%s", sha);
			size_t slot = bisect_commit_slot(b, sha); /* it may move the arrays */

			b->reboots[slot]++;
			json_t *f = json_pack("{s:s, s:i}", "commit", sha, "attempt", attempt);

			if (b->target && !b->boot_check) {
				rc = identity_before(b, sha);
				if (rc == SB_EXIT_INTERRUPTED || rc < 0) {
					json_decref(f);
					return rc;
				}
				json_object_set_new(f, "boot_id_before",
						    json_string(b->boot_id_before));
				json_object_set_new(f, "uname_before",
						    json_string(b->uname_before));
				json_object_set_new(f, "last_up", json_string(b->last_up));
			}
			bisect_event(b, "reboot", f);
			rc = b->reboot ? user_command(b, sha, "reboot", b->reboot, b->repo)
				       : target_reboot(b, sha);
			if (rc == SB_EXIT_INTERRUPTED || rc < 0)
				return rc;
			if (rc)
				sb_error("%.10s: reboot command exited with %d", sha, rc);
		}
		rc = boot_wait(b, sha, tail, sizeof(tail), false);
		if (rc == SB_EXIT_INTERRUPTED || rc < 0)
			return rc;
		if (rc == 0) {
			snprintf(b->last_up, sizeof(b->last_up), "%s", sha);
			bisect_event(b, "booted", json_pack("{s:s}", "commit", sha));
			b->booted[0] = '\0';
			return 0;
		}
		b->booted[0] = '\0';
		b->prepared[0] = '\0';
		bisect_event(
		    b, "boot-failed",
		    json_pack("{s:s, s:i, s:s, s:s}", "commit", sha, "attempt", attempt, "reason",
			      "boot check did not exit 0 within the boot timeout", "tail", tail));
		sb_error(
		    "%.10s: did not come up within %.0f s (attempt %d of 2); boot check said: %s",
		    sha, b->boot_timeout, attempt, tail[0] ? tail : "(nothing)");
	}
	return 1;
}
