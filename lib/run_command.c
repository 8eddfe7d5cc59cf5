#include "run_command.h"
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_GRACE_MS 5000
/* How often leftovers of a group are looked for while it is being ended: nothing wakes us
 * when a process that is not our child dies. */
#define GROUP_POLL_MS 20
#define READ_CHUNK    65536

extern char **environ;

/* ---- the signals: what the handler and the loop share ---- */

static const int forwarded[] = {SIGINT, SIGTERM};
#define NFORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))

static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction saved[NFORWARDED];
static bool installed[NFORWARDED];
static volatile sig_atomic_t live_pgid;	 /* the running command's group, 0 when none */
static volatile sig_atomic_t forward_ok; /* !no_forward */
static volatile sig_atomic_t got_signal; /* the last SIGINT/SIGTERM (or interrupt call) */
static volatile sig_atomic_t reraise;	 /* a received signal whose old disposition was SIG_DFL */
static int wake_fds[2] = {-1, -1};	 /* the handler's write wakes the loop's poll */

void child_interrupt(int sig)
{
	int saved_errno = errno;
	pid_t pgid = live_pgid;

	got_signal = sig;
	if (forward_ok && pgid > 0)
		kill(-pgid, sig);
	if (wake_fds[1] >= 0)
		(void)!write(wake_fds[1], "", 1);
	errno = saved_errno;
}

static void on_signal(int sig, siginfo_t *info, void *uc)
{
	for (size_t i = 0; i < NFORWARDED; i++) {
		if (forwarded[i] != sig)
			continue;
		child_interrupt(sig);
		if (saved[i].sa_flags & SA_SIGINFO)
			saved[i].sa_sigaction(sig, info, uc);
		else if (saved[i].sa_handler == SIG_DFL)
			reraise = sig;
		else if (saved[i].sa_handler != SIG_IGN)
			saved[i].sa_handler(sig);
	}
}

/* Ours in front of the caller's, except for a signal the caller ignores: nobody is meant to stop
 * us with it, so nothing is forwarded either. */
static void install_handlers(void)
{
	struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART};

	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < NFORWARDED; i++) {
		installed[i] = false;
		if (sigaction(forwarded[i], NULL, &saved[i]) ||
		    (!(saved[i].sa_flags & SA_SIGINFO) && saved[i].sa_handler == SIG_IGN))
			continue;
		installed[i] = !sigaction(forwarded[i], &sa, NULL);
	}
}

static void restore_handlers(void)
{
	for (size_t i = 0; i < NFORWARDED; i++)
		if (installed[i])
			sigaction(forwarded[i], &saved[i], NULL);
}

/* ---- small helpers ---- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static const char *cmd_name(const struct child_process *cmd)
{
	if (cmd->shell)
		return "/bin/sh";
	return cmd->path ? cmd->path : cmd->argv[0];
}

/* One captured stream: our end of its pipe and the buffer it grows into. */
struct sink {
	int fd;
	struct run_buf *b;
	size_t cap;
	bool oom;
};

/* Take what the pipe has; at end of file (or an error) the pipe is closed. */
static void sink_read(struct sink *s)
{
	char drop[READ_CHUNK], *to = drop;
	struct run_buf *b = s->b;
	size_t room = sizeof(drop);
	ssize_t n;

	if ((!b->max || b->len < b->max) && !s->oom) {
		if (s->cap - b->len < READ_CHUNK + 1) {
			size_t cap = s->cap ? s->cap : READ_CHUNK;
			char *p;

			while (cap - b->len < READ_CHUNK + 1)
				cap *= 2;
			p = realloc(b->p, cap);
			if (p) {
				b->p = p;
				b->p[b->len] = '\0';
				s->cap = cap;
			} else {
				s->oom = true;
			}
		}
		if (!s->oom) {
			to = b->p + b->len;
			room = s->cap - b->len - 1;
			if (b->max && room > b->max - b->len)
				room = b->max - b->len;
		}
	}
	n = read(s->fd, to, room);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close_fd(&s->fd);
		return;
	}
	if (to == drop) {
		b->truncated = true;
		return;
	}
	b->len += (size_t)n;
	b->p[b->len] = '\0';
}

static bool same_name(const char *a, const char *b)
{
	size_t n = strcspn(a, "=");

	return !strncmp(a, b, n) && (b[n] == '=' || !b[n]);
}

/* Our environment with the additions, which win over a variable of the same name. */
static char **build_env(const char *const *add)
{
	size_t n = 0, k = 0, m = 0;
	char **env;

	for (char **e = environ; e && *e; e++)
		n++;
	while (add && add[k])
		k++;
	env = malloc((n + k + 1) * sizeof(*env));
	if (!env)
		return NULL;
	for (char **e = environ; e && *e; e++) {
		bool replaced = false;

		for (size_t i = 0; i < k && !replaced; i++)
			replaced = same_name(add[i], *e);
		if (!replaced)
			env[m++] = *e;
	}
	for (size_t i = 0; i < k; i++)
		env[m++] = (char *)add[i];
	env[m] = NULL;
	return env;
}

/* Whether a process of group pgid still runs.  Members that died but are not reaped yet do not
 * count: an orphan waits for init, which here can take seconds.  Those that are our children
 * (when we are a subreaper) are reaped on the way, so no zombie of the group is left to us. */
static bool group_alive(pid_t pgid)
{
	struct dirent *e;
	bool alive = false;
	DIR *d;

	while (waitpid(-pgid, NULL, WNOHANG) > 0)
		;
	if (kill(-pgid, 0) && errno == ESRCH)
		return false;
	d = opendir("/proc");
	if (!d)
		return true;
	while (!alive && (e = readdir(d))) {
		struct proc_stat st;

		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && !proc_stat_read(e->d_name, &st) &&
		    st.pgrp == pgid && st.state != 'Z' && st.state != 'X')
			alive = true;
	}
	closedir(d);
	return alive;
}

static int spawn(struct child_process *cmd, const char *const *argv, const int fds[3], char **envp,
		 pid_t *pid)
{
	const char *file = cmd->shell ? "/bin/sh" : cmd->path ? cmd->path : argv[0];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dflt;
	int rc = 0;

	if (posix_spawn_file_actions_init(&fa))
		return ENOMEM;
	if (posix_spawnattr_init(&attr)) {
		posix_spawn_file_actions_destroy(&fa);
		return ENOMEM;
	}
	for (int i = 0; i < 3 && !rc; i++) {
		if (fds[i] >= 0)
			rc = posix_spawn_file_actions_adddup2(&fa, fds[i], i);
		else if (fds[i] == -2)
			rc = posix_spawn_file_actions_addopen(&fa, i, "/dev/null",
							      i ? O_WRONLY : O_RDONLY, 0);
		else if (fds[i] == -3)
			rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
	}
	if (!rc && cmd->dir)
		rc = posix_spawn_file_actions_addchdir_np(&fa, cmd->dir);
	/* Nothing of ours but 0, 1 and 2 reaches the child, CLOEXEC or not. */
	if (!rc)
		rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	sigemptyset(&none);
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGPIPE);
	sigaddset(&dflt, SIGINT);
	sigaddset(&dflt, SIGTERM);
	/* A group of its own; no signal blocked; ours caught or ignored become the default. */
	if (!rc &&
	    (posix_spawnattr_setpgroup(&attr, 0) || posix_spawnattr_setsigmask(&attr, &none) ||
	     posix_spawnattr_setsigdefault(&attr, &dflt) ||
	     posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
						 POSIX_SPAWN_SETSIGDEF)))
		rc = EINVAL;
	if (!rc)
		rc = strchr(file, '/')
			 ? posix_spawn(pid, file, &fa, &attr, (char *const *)argv, envp)
			 : posix_spawnp(pid, file, &fa, &attr, (char *const *)argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return rc;
}

static void reset_results(struct child_process *cmd)
{
	struct run_buf *bufs[] = {&cmd->out_text, &cmd->err_text};

	cmd->pid = -1;
	cmd->exit_code = -1;
	cmd->term_signal = 0;
	cmd->timed_out = false;
	cmd->stream_stopped = false;
	cmd->interrupted = 0;
	cmd->in_written = 0;
	for (size_t i = 0; i < 2; i++) {
		free(bufs[i]->p);
		bufs[i]->p = NULL;
		bufs[i]->len = 0;
		bufs[i]->truncated = false;
	}
}

/* The child's stdin, stdout and stderr as spawn() takes them: our descriptor to put there, -1
 * ours (inherited), -2 /dev/null, -3 stderr to stdout; and the pipes our side reads or writes. */
static int plumb(struct child_process *cmd, int fds[3], int *in_w, int *out_r, int *err_r,
		 int close_later[6])
{
	int p[2];

	fds[0] = cmd->in == RUN_IN_NULL ? -2 : -1;
	/* A pipe, not a socket: a child can open it again by name (/dev/stdin), which gnuplot
	 * needs to read its script a buffer at a time instead of a byte per read(2). */
	if (cmd->in == RUN_IN_BUFFER) {
		if (pipe2(p, O_CLOEXEC))
			return -1;
		*in_w = p[1];
		fds[0] = close_later[0] = p[0];
		if (fcntl(p[1], F_SETFL, O_NONBLOCK))
			return -1;
	}
	for (int i = 1; i < 3; i++) {
		enum run_out how = i == 1 ? cmd->out : cmd->err;
		int fd = i == 1 ? cmd->out_fd : cmd->err_fd;

		fds[i] = -1;
		switch (how) {
		case RUN_OUT_INHERIT:
			break;
		case RUN_OUT_STREAM:
		case RUN_OUT_CAPTURE:
			if (how == RUN_OUT_STREAM && (i == 2 || !cmd->out_stream)) {
				errno = EINVAL;
				return -1;
			}
			if (pipe2(p, O_CLOEXEC))
				return -1;
			*(i == 1 ? out_r : err_r) = p[0];
			fds[i] = close_later[i] = p[1];
			break;
		case RUN_OUT_FD:
			/* A copy above 2, so that setting up one stream cannot clobber the
			 * descriptor another is to be copied from. */
			fds[i] = close_later[i + 2] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
			if (fds[i] < 0)
				return -1;
			break;
		case RUN_OUT_NULL:
			fds[i] = -2;
			break;
		case RUN_OUT_STDOUT:
			if (i == 1) {
				errno = EINVAL;
				return -1;
			}
			fds[i] = -3;
			break;
		}
	}
	return 0;
}

/* Made once and kept: closing it could race with a handler running in another thread.  What
 * an earlier signal left in it is drained. */
static int wake_pipe(int *read_end)
{
	char drain[64];

	if (wake_fds[0] < 0 && pipe2(wake_fds, O_CLOEXEC | O_NONBLOCK))
		return -1;
	while (read(wake_fds[0], drain, sizeof(drain)) > 0)
		;
	*read_end = wake_fds[0];
	return 0;
}

/* The state of one run while its loop turns. */
struct run {
	struct child_process *cmd;
	pid_t pid;
	int in_fd, pidfd, wake_r;
	size_t in_off;
	struct sink sink[2];
	unsigned grace_ms;
	int64_t timeout_at, escalate_at;
	int sent;	  /* the last signal we sent the group: 0, the forwarded one, TERM, KILL */
	bool ending;	  /* the group is being ended: interrupt or timeout */
	bool leader_done; /* the child itself is reaped */
	bool group_done;  /* nothing of its group runs any more (or we gave up waiting) */
};

static void signal_group(struct run *r, int sig, int64_t now)
{
	kill(-r->pid, sig);
	r->sent = sig;
	r->escalate_at = now + r->grace_ms;
}

/* Ending the group, one step at a time: TERM after whatever was forwarded, KILL after TERM, and
 * after KILL a last grace for the group to go, then we stop waiting for it. */
static void escalate(struct run *r, int64_t now)
{
	if (r->sent == SIGKILL) {
		r->group_done = true;
		r->escalate_at = INT64_MAX;
	} else {
		signal_group(r, r->sent == SIGTERM ? SIGKILL : SIGTERM, now);
	}
}

static void reap_leader(struct run *r, int status)
{
	struct child_process *cmd = r->cmd;

	r->leader_done = true;
	close_fd(&r->in_fd);
	close_fd(&r->pidfd);
	if (WIFEXITED(status)) {
		cmd->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		cmd->term_signal = WTERMSIG(status);
	}
}

static void write_stdin(struct run *r)
{
	struct child_process *cmd = r->cmd;
	ssize_t n;
	sigset_t sigpipe, old, pending;
	int saved;

	/* SIGPIPE blocked while we write, and one our write raised taken back, so a child
	 * that stops reading is EPIPE here whatever the process does with the signal. */
	sigemptyset(&sigpipe);
	sigaddset(&sigpipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &sigpipe, &old);
	sigpending(&pending);
	n = write(r->in_fd, cmd->in_buf + r->in_off, cmd->in_len - r->in_off);
	saved = errno;
	if (n < 0 && saved == EPIPE && !sigismember(&pending, SIGPIPE)) {
		const struct timespec now = {0, 0};

		while (sigtimedwait(&sigpipe, NULL, &now) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;

	if (n > 0)
		r->in_off += (size_t)n;
	cmd->in_written = r->in_off;
	/* EPIPE: the child stopped reading; what it does about that is its exit status. */
	if (r->in_off == cmd->in_len || (n < 0 && errno != EAGAIN && errno != EINTR))
		close_fd(&r->in_fd);
}

/* What the stdout pipe has, to the caller's out_stream; when it wants no more, the pipe is
 * closed (a writer gets EPIPE) and the group ended as after a timeout. */
static void stream_read(struct run *r, int64_t now)
{
	struct child_process *cmd = r->cmd;
	char buf[READ_CHUNK];
	ssize_t n = read(r->sink[0].fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close_fd(&r->sink[0].fd);
		return;
	}
	if (cmd->out_stream(cmd->out_ctx, buf, (size_t)n)) {
		close_fd(&r->sink[0].fd);
		cmd->stream_stopped = true;
		if (!r->ending) {
			r->ending = true;
			signal_group(r, SIGTERM, now);
		}
	}
}

static int poll_timeout(const struct run *r, int64_t now, bool need_group_end)
{
	int64_t until = r->timeout_at < r->escalate_at ? r->timeout_at : r->escalate_at;
	int64_t ms = until == INT64_MAX ? -1 : until > now ? until - now : 0;

	/* Nothing wakes us when a process that is not our child dies. */
	if ((r->leader_done && need_group_end && !r->group_done) ||
	    (!r->leader_done && r->pidfd < 0))
		if (ms < 0 || ms > GROUP_POLL_MS)
			ms = GROUP_POLL_MS;
	return ms < 0 ? -1 : ms > INT32_MAX ? INT32_MAX : (int)ms;
}

static int watch(struct run *r, char *err, size_t errlen)
{
	struct child_process *cmd = r->cmd;
	int handled = 0;

	for (;;) {
		struct pollfd pfd[5];
		int idx[5], np = 0, status, n;
		int64_t now = now_ms();
		bool need_group_end = r->ending || cmd->end_group;
		bool pipes_open = r->sink[0].fd >= 0 || r->sink[1].fd >= 0;

		if (!r->leader_done) {
			pid_t w = waitpid(r->pid, &status, WNOHANG);

			if (w == r->pid)
				reap_leader(r, status);
			else if (w < 0 && errno != EINTR) {
				snprintf(err, errlen, "waiting for %s: %s", cmd_name(cmd),
					 strerror(errno));
				return -1;
			}
		}
		if (got_signal && !handled) {
			handled = got_signal;
			cmd->interrupted = handled;
			/* The handler has passed it on already. */
			if (forward_ok && !r->ending) {
				r->ending = true;
				r->sent = handled;
				r->escalate_at = now + r->grace_ms;
			}
		}
		if (!cmd->timed_out && now >= r->timeout_at) {
			cmd->timed_out = true;
			r->ending = true;
			r->timeout_at = INT64_MAX;
			signal_group(r, SIGTERM, now);
		}
		need_group_end = r->ending || cmd->end_group;
		if (r->leader_done && need_group_end && !r->group_done) {
			if (!group_alive(r->pid)) {
				r->group_done = true;
			} else if (r->sent != SIGTERM && r->sent != SIGKILL) {
				/* What is left after the child: background jobs of a shell ignore
				 * SIGINT, so the forwarded one did not end them. */
				signal_group(r, SIGTERM, now);
			}
		}
		if (now >= r->escalate_at && !(r->leader_done && r->group_done))
			escalate(r, now);
		if (r->leader_done && (!need_group_end || r->group_done) && !pipes_open)
			return 0;

		if (r->in_fd >= 0)
			pfd[np] = (struct pollfd){.fd = r->in_fd, .events = POLLOUT}, idx[np++] = 0;
		for (int i = 0; i < 2; i++)
			if (r->sink[i].fd >= 0)
				pfd[np] = (struct pollfd){.fd = r->sink[i].fd, .events = POLLIN},
				idx[np++] = 1 + i;
		if (r->pidfd >= 0)
			pfd[np] = (struct pollfd){.fd = r->pidfd, .events = POLLIN}, idx[np++] = 3;
		pfd[np] = (struct pollfd){.fd = r->wake_r, .events = POLLIN}, idx[np++] = 4;
		/* Once the whole group is gone, what the pipes still hold is all there is: a
		 * writer outside the group (a daemon that kept them) is not waited for. */
		n = poll(pfd, (nfds_t)np,
			 r->leader_done && need_group_end && r->group_done
			     ? 0
			     : poll_timeout(r, now, need_group_end));
		if (n < 0 && errno != EINTR) {
			snprintf(err, errlen, "poll on %s's pipes: %s", cmd_name(cmd),
				 strerror(errno));
			return -1;
		}
		if (n == 0 && r->leader_done && need_group_end && r->group_done) {
			close_fd(&r->sink[0].fd);
			close_fd(&r->sink[1].fd);
		}
		for (int i = 0; n > 0 && i < np; i++) {
			if (!pfd[i].revents)
				continue;
			if (idx[i] == 0)
				write_stdin(r);
			else if (idx[i] == 1 && cmd->out == RUN_OUT_STREAM)
				stream_read(r, now);
			else if (idx[i] == 1 || idx[i] == 2)
				sink_read(&r->sink[idx[i] - 1]);
			else if (idx[i] == 4) {
				char drain[64];

				while (read(r->wake_r, drain, sizeof(drain)) > 0)
					;
			}
		}
	}
}

int child_run(struct child_process *cmd, char *err, size_t errlen)
{
	const char *sh_argv[] = {"sh", "-c", cmd->shell, NULL};
	const char *const *argv = cmd->shell ? sh_argv : cmd->argv;
	int fds[3], close_later[6] = {-1, -1, -1, -1, -1, -1};
	struct run r = {.cmd = cmd, .pid = -1, .in_fd = -1, .pidfd = -1, .wake_r = -1};
	char **envp = NULL;
	int rc = -1, sp, saved_errno = 0, sig;

	reset_results(cmd);
	r.sink[0] = (struct sink){.fd = -1, .b = &cmd->out_text};
	r.sink[1] = (struct sink){.fd = -1, .b = &cmd->err_text};
	r.grace_ms = cmd->grace_ms ? cmd->grace_ms : DEFAULT_GRACE_MS;
	r.escalate_at = INT64_MAX;
	if (!argv || !argv[0] || (cmd->in == RUN_IN_BUFFER && !cmd->in_buf && cmd->in_len)) {
		snprintf(err, errlen, "child_run: no command to run");
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&one_at_a_time);
	got_signal = 0;
	reraise = 0;
	if (plumb(cmd, fds, &r.in_fd, &r.sink[0].fd, &r.sink[1].fd, close_later) ||
	    wake_pipe(&r.wake_r)) {
		saved_errno = errno;
		snprintf(err, errlen, "cannot create pipes to run %s: %s", cmd_name(cmd),
			 strerror(errno));
		goto out;
	}
	envp = cmd->env ? build_env(cmd->env) : environ;
	if (!envp) {
		saved_errno = ENOMEM;
		snprintf(err, errlen, "cannot run %s: %s", cmd_name(cmd), strerror(ENOMEM));
		goto out;
	}
	forward_ok = !cmd->no_forward;
	install_handlers();
	sp = spawn(cmd, argv, fds, envp, &r.pid);
	if (sp) {
		saved_errno = sp;
		snprintf(err, errlen, "cannot run %s: %s", cmd_name(cmd), strerror(sp));
		goto restore;
	}
	cmd->pid = r.pid;
	live_pgid = r.pid;
	/* A signal that came before the group existed. */
	if ((sig = got_signal) && forward_ok)
		kill(-r.pid, sig);
	for (int i = 0; i < 6; i++)
		close_fd(&close_later[i]);
#ifdef SYS_pidfd_open
	r.pidfd = (int)syscall(SYS_pidfd_open, r.pid, 0);
#endif
	if (!cmd->in_len)
		close_fd(&r.in_fd);
	r.timeout_at = cmd->timeout_ms ? now_ms() + cmd->timeout_ms : INT64_MAX;
	rc = watch(&r, err, errlen);
	if (rc) {
		/* We cannot watch it any more: it must not outlive us unwatched. */
		saved_errno = errno;
		kill(-r.pid, SIGKILL);
		while (!r.leader_done && waitpid(r.pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (!rc && (r.sink[0].oom || r.sink[1].oom)) {
		saved_errno = ENOMEM;
		snprintf(err, errlen, "output of %s: %s", cmd_name(cmd), strerror(ENOMEM));
		rc = -1;
	}
	cmd->in_written = r.in_off;
restore:
	live_pgid = 0;
	restore_handlers();
out:
	for (int i = 0; i < 6; i++)
		close_fd(&close_later[i]);
	close_fd(&r.in_fd);
	close_fd(&r.sink[0].fd);
	close_fd(&r.sink[1].fd);
	close_fd(&r.pidfd);
	if (envp && envp != environ)
		free(envp);
	sig = reraise;
	pthread_mutex_unlock(&one_at_a_time);
	/* We were to die of it: now that the group is gone, do. */
	if (sig)
		raise(sig);
	errno = saved_errno;
	return rc;
}

int child_status(const struct child_process *cmd)
{
	if (cmd->term_signal)
		return 128 + cmd->term_signal;
	return cmd->exit_code;
}

void child_release(struct child_process *cmd)
{
	free(cmd->out_text.p);
	free(cmd->err_text.p);
	cmd->out_text.p = cmd->err_text.p = NULL;
	cmd->out_text.len = cmd->err_text.len = 0;
}
