/* scalebench run --target: the job on a remote machine over ssh, its runs brought back whole.
 *
 * Every remote command is `sh -c SCRIPT`, SCRIPT fixed text around words quoted by
 * sh_quote, so whatever the user's login shell is, nothing from the command line or
 * the target is parsed as shell syntax.  The steps, each a channel of one shared ssh connection
 * (ControlMaster, see master_start) or, when it cannot be had, a connection of its own:
 *   version  BIN --version, refused unless MAJOR.MINOR is ours
 *   setup    mktemp -d there, the job file written into it from our stdin
 *   plugins  each --plugin file written into it from our stdin, given to the run there
 *   run      cd TMP, its pid into TMP/pid, exec BIN run job.yaml --results results ARGS
 *   stop     the run ended (SIGTERM, then SIGKILL) if it still lives: after a lost connection
 *            or an interrupt; the pid is trusted only while its cwd is TMP
 *   fetch    each numbered run under TMP/results as `tar -cf - .`, unpacked as it comes
 *            (lib/untar.h: files and directories only, bounded in size and time) into a temp
 *            run directory of the store, checked as a local run and against what was asked
 *            (its commit, path_params), committed when whole
 *   remove   rm -rf TMP, whatever happened before
 * A run that was in progress when the connection went is a .tmp-run-* directory there and is
 * never fetched; its temp directory is removed with TMP. */
#include "target.h"
#include "../core/core.h"
#include "../lib/errors.h"
#include "../lib/file.h"
#include "../lib/run_command.h"
#include "../lib/strbuf.h"
#include "../lib/text.h"
#include "../lib/untar.h"
#include "../store/matrix.h"
#include "../store/run_read.h"
#include "../store/store.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#ifndef SCALEBENCH_VERSION
#define SCALEBENCH_VERSION "0.1"
#endif

/* Seconds a cleanup step may take once the run is over or we were interrupted. */
#define TARGET_CLEANUP_MS 60000
/* What one run's tar stream may be: a run with perf-profile samples is a few MB; a target
 * that sends more, or takes longer (a stream that never ends, one that stalls), has its run
 * refused, nothing of it stored (README: run --target). */
#define TARGET_FETCH_MAX_BYTES	 (1ull << 30)
#define TARGET_FETCH_TIMEOUT_MS	 600000u
#define TARGET_FETCH_MAX_MEMBERS 100000
/* ssh's own failures (connect, auth, a lost connection) exit 255. */
#define SSH_FAILED 255

static bool host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.';
}

static bool ipv6_char(char c)
{
	return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || (c >= '0' && c <= '9') ||
	       c == ':' || c == '.';
}

/* s[0..n) is made of ok characters, not empty, not starting with '-'. */
static bool word_ok(const char *s, size_t n, bool (*ok)(char), bool underscore)
{
	if (!n || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!ok(s[i]) && !(underscore && s[i] == '_'))
			return false;
	return true;
}

void target_free(struct target *t)
{
	free(t->user);
	free(t->host);
	free(t->url);
	*t = (struct target){0};
}

int target_parse(const char *url, struct target *t, char *err, size_t errlen)
{
	const char *p = url, *at, *host, *host_end, *port = NULL;
	static const char scheme[] = "ssh://";

	*t = (struct target){0};
	if (strncmp(p, scheme, strlen(scheme))) {
		snprintf(err, errlen, "--target '%s': expected ssh://[user@]host[:port]",
			 text_safe(url));
		return -1;
	}
	p += strlen(scheme);
	at = strchr(p, '@');
	if (at && !word_ok(p, (size_t)(at - p), host_char, true)) {
		snprintf(err, errlen,
			 "--target '%s': bad user '%.*s': expected letters, digits, '-', '.', "
			 "'_', not starting with '-'",
			 text_safe(url), (int)(at - p), p);
		return -1;
	}
	host = at ? at + 1 : p;
	if (*host == '[') {
		host_end = strchr(host, ']');
		if (!host_end ||
		    !word_ok(host + 1, (size_t)(host_end - host - 1), ipv6_char, false) ||
		    !memchr(host + 1, ':', (size_t)(host_end - host - 1))) {
			snprintf(err, errlen,
				 "--target '%s': bad IPv6 address: expected [hex digits and ':']",
				 text_safe(url));
			return -1;
		}
		if (host_end[1] == ':')
			port = host_end + 2;
		else if (host_end[1]) {
			snprintf(err, errlen,
				 "--target '%s': expected ':PORT' or nothing after ']'",
				 text_safe(url));
			return -1;
		}
		host++;
	} else {
		host_end = host + strcspn(host, ":");
		if (*host_end == ':')
			port = host_end + 1;
		if (!word_ok(host, (size_t)(host_end - host), host_char, false)) {
			snprintf(err, errlen,
				 "--target '%s': bad host '%.*s': expected a host name or address "
				 "(letters, digits, '-', '.', not starting with '-'; [IPv6])",
				 text_safe(url), (int)(host_end - host), host);
			return -1;
		}
	}
	if (port) {
		char *end;
		unsigned long n;

		errno = 0;
		n = *port >= '0' && *port <= '9' ? strtoul(port, &end, 10) : 0;
		if (!n || errno || *end || n > 65535) {
			snprintf(err, errlen, "--target '%s': bad port '%s': expected 1-65535",
				 text_safe(url), text_safe(port));
			return -1;
		}
		t->port = (unsigned)n;
	}
	t->user = at ? strndup(p, (size_t)(at - p)) : NULL;
	t->host = strndup(host, (size_t)(host_end - host));
	t->url = strdup(url);
	if ((at && !t->user) || !t->host || !t->url) {
		target_free(t);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int target_version_series(const char *line, char *out, size_t len)
{
	static const char name[] = "scalebench ";
	const char *v, *dot;
	size_t n;

	if (strncmp(line, name, strlen(name)))
		return -1;
	v = line + strlen(name);
	n = strspn(v, "0123456789");
	if (!n || v[n] != '.' || !strchr("0123456789", v[n + 1]) || !v[n + 1])
		return -1;
	dot = v + n + 1;
	n = (size_t)(dot - v) + strspn(dot, "0123456789");
	if (n >= len)
		return -1;
	/* Then nothing but an optional .PATCH and -SUFFIX (letters, digits, dots) and the line's
	 * end: "0.1garbage" or "0.1<ESC>..." is not a version. */
	const char *rest = v + n;

	if (*rest == '.' && strchr("0123456789", rest[1]) && rest[1])
		rest += 1 + strspn(rest + 1, "0123456789");
	if (*rest == '-' && rest[1]) {
		size_t k = strspn(rest + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					    "0123456789.");

		if (!k)
			return -1;
		rest += 1 + k;
	}
	if (*rest == '\n')
		rest++;
	if (*rest)
		return -1;
	memcpy(out, v, n);
	out[n] = '\0';
	return 0;
}

/* s quoted, as one word. */
static void str_word(struct strbuf *b, const char *s)
{
	char *q = sh_quote(s);

	if (!q)
		b->oom = true;
	strbuf_addstr(b, q ? q : "");
	free(q);
}

/* The state of one target_run. */
struct session {
	const struct target *t;
	const struct target_opts *o;
	char *dest; /* [user@]host as ssh takes it */
	char port[8];
	const char *bin; /* the remote scalebench */
	char *push_bin;	 /* push_dir/bin/scalebench, when pushed */
	char *tmp;	 /* the target's temp directory, once made */
	struct ssh_master {
		pid_t pid;    /* the master ssh, 0 when none */
		int lifeline; /* the write end of its stdin */
		char dir[80]; /* its private directory, "" when none */
		char opt[128]; /* "ControlPath=DIR/s" */
	} master;
};

static void master_stop(struct session *s);

/* The remote scalebench as a shell word for a script run in another directory than the home
 * directory: a name stays a name (PATH), a relative path becomes "$HOME"/PATH. */
static void str_bin(struct strbuf *b, const char *bin)
{
	if (strchr(bin, '/') && bin[0] != '/')
		strbuf_addstr(b, "\"$HOME\"/");
	str_word(b, bin);
}

/* ssh's argument vector for remote (the user's -o options first: ssh keeps the first value it
 * is given of an option, so --ssh-option ConnectTimeout=60 overrides ours), our own options,
 * then extra's (NULL-terminated).  argv holds at least ssh_argc(s) + the extras. */
static size_t ssh_argv(const struct session *s, const char **argv, const char *const *extra,
		       const char *remote)
{
	size_t n = 0;

	argv[n++] = "ssh";
	argv[n++] = "-T";
	for (size_t i = 0; i < s->o->n_ssh_options; i++) {
		argv[n++] = "-o";
		argv[n++] = s->o->ssh_options[i];
	}
	argv[n++] = "-o";
	argv[n++] = "BatchMode=yes";
	argv[n++] = "-o";
	argv[n++] = "ConnectTimeout=10";
	argv[n++] = "-o";
	argv[n++] = "ServerAliveInterval=5";
	argv[n++] = "-o";
	argv[n++] = "ServerAliveCountMax=3";
	for (; extra && *extra; extra++)
		argv[n++] = *extra;
	if (s->t->port) {
		argv[n++] = "-p";
		argv[n++] = s->port;
	}
	argv[n++] = "--";
	argv[n++] = s->dest;
	argv[n++] = remote;
	argv[n] = NULL;
	return n;
}

static size_t ssh_argc(const struct session *s)
{
	return 20 + 2 * s->o->n_ssh_options;
}

/* Run script on the target (`sh -c SCRIPT`) with c's input and output as set, through the
 * session's shared connection when it has one.  0 when ssh ran (see c's results), -1 with a
 * message when it could not be started. */
static int ssh_run(struct session *s, const char *script, struct child_process *c)
{
	const char *mux[] = {"-o", "ControlMaster=no", "-o", s->master.opt, NULL};
	const char **argv = malloc((ssh_argc(s) + 4) * sizeof(*argv));
	struct strbuf remote = {0};
	char err[512];
	int rc;

	strbuf_addstr(&remote, "sh -c ");
	str_word(&remote, script);
	if (!argv || remote.oom) {
		free(argv);
		strbuf_release(&remote);
		sb_error("out of memory");
		return -1;
	}
	ssh_argv(s, argv, s->master.pid > 0 ? mux : NULL, remote.buf);
	c->argv = argv;
	c->end_group = true;
	rc = child_run(c, err, sizeof(err));
	c->argv = NULL;
	free(argv);
	strbuf_release(&remote);
	if (rc)
		sb_error("cannot run ssh: %s", err);
	return rc;
}

/* Whether the user's ssh options already say how connections are shared (ControlMaster,
 * ControlPath, ControlPersist): then theirs is the policy and we start no master. */
static bool user_shares(const struct session *s)
{
	static const char *const keys[] = {"controlmaster", "controlpath", "controlpersist"};

	for (size_t i = 0; i < s->o->n_ssh_options; i++)
		for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
			size_t n = strlen(keys[k]);

			if (!strncasecmp(s->o->ssh_options[i], keys[k], n) &&
			    (s->o->ssh_options[i][n] == '=' || s->o->ssh_options[i][n] == ' '))
				return true;
		}
	return false;
}

/* Start the session's shared connection (OpenSSH's ControlMaster): every later step of the
 * session is a channel of it instead of a new connection, key exchange and login (~0.3 s
 * each here, five or more steps a run).  The master is our child in a process group of its
 * own (a terminal's ^C reaches us, and we end it), its socket in a private 0700 directory;
 * its remote command reads its stdin, a pipe only we hold, so it ends with us even when we
 * are killed.  When it cannot start (the target unreachable: the first step says so) the
 * session connects once per step. */
static void master_start(struct session *s)
{
	struct ssh_master *m = &s->master;
	const char *tmp = getenv("TMPDIR");
	const char *own[] = {"-o", "ControlMaster=yes", "-o", m->opt, "-o", "ControlPersist=no",
			     NULL};
	const char **argv = NULL;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	struct timespec nap = {0, 10 * 1000 * 1000};
	int fds[2] = {-1, -1};
	pid_t pid;

	if (user_shares(s))
		return;
	/* A socket's path is at most 107 bytes. */
	if (!tmp || !*tmp || strlen(tmp) > 60)
		tmp = "/tmp";
	snprintf(m->dir, sizeof(m->dir), "%s/scalebench-ssh.XXXXXX", tmp);
	if (!mkdtemp(m->dir)) {
		m->dir[0] = '\0';
		return;
	}
	snprintf(m->opt, sizeof(m->opt), "ControlPath=%s/s", m->dir);
	argv = malloc((ssh_argc(s) + 6) * sizeof(*argv));
	if (!argv || pipe2(fds, O_CLOEXEC))
		goto fail;
	ssh_argv(s, argv, own, "sh -c 'exec cat >/dev/null'");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGCHLD);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					  POSIX_SPAWN_SETSIGDEF);
	if (posix_spawnp(&pid, "ssh", &fa, &at, (char *const *)argv, environ))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(fds[0]);
	fds[0] = -1;
	free(argv);
	argv = NULL;
	if (pid < 0)
		goto fail;
	m->pid = pid;
	m->lifeline = fds[1];
	/* Ready once its socket is there (after the login); ConnectTimeout bounds the connect. */
	for (int i = 0; i < 1500 && !core_interrupted(); i++) {
		struct stat st;
		int status;

		if (!lstat(m->opt + strlen("ControlPath="), &st) && S_ISSOCK(st.st_mode))
			return;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			close(m->lifeline);
			m->pid = 0;
			break;
		}
		nanosleep(&nap, NULL);
	}
	master_stop(s);
	return;
fail:
	free(argv);
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	rmdir(m->dir);
	m->dir[0] = '\0';
}

/* End the session's shared connection, if any, and remove its directory. */
static void master_stop(struct session *s)
{
	struct ssh_master *m = &s->master;
	struct timespec nap = {0, 10 * 1000 * 1000};

	if (m->pid > 0) {
		int status;

		close(m->lifeline);
		kill(m->pid, SIGTERM);
		for (int i = 0; waitpid(m->pid, &status, WNOHANG) == 0; i++) {
			if (i == 200)
				kill(m->pid, SIGKILL);
			nanosleep(&nap, NULL);
		}
		m->pid = 0;
	}
	if (m->dir[0]) {
		unlink(m->opt + strlen("ControlPath="));
		rmdir(m->dir);
		m->dir[0] = '\0';
	}
}

/* The last non-empty line of captured output, escaped, for a message. */
static const char *last_line(const struct run_buf *b, char *out, size_t len)
{
	const char *p = b->p ? b->p : "", *end = p + strlen(p), *start;

	while (end > p && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	start = end;
	while (start > p && start[-1] != '\n')
		start--;
	snprintf(out, len, "%.*s", (int)(end - start), start);
	return *out ? text_safe(out) : "(no message)";
}

static void say_unreachable(struct session *s, const struct child_process *c)
{
	char line[512];

	sb_error("cannot reach %s: %s; expected an ssh server that lets this user in with a key "
		 "and no prompt (ssh -o BatchMode=yes; --ssh-option for ssh's options)",
		 text_safe(s->t->url), last_line(&c->err_text, line, sizeof(line)));
}

/* An ssh step's two common ends: interrupted (rc 128 + N) or the target unreachable (said,
 * rc left as it is).  true when the step ended in one of them. */
static bool ssh_step_ended(struct session *s, const struct child_process *c, int *rc)
{
	if (c->interrupted) {
		*rc = 128 + c->interrupted;
		return true;
	}
	if (c->exit_code == SSH_FAILED) {
		say_unreachable(s, c);
		return true;
	}
	return false;
}

/* Whether the target's scalebench is ours, MAJOR.MINOR: 0, else 2 after a message. */
static int check_version(struct session *s)
{
	struct child_process c = {.out = RUN_OUT_CAPTURE, .err = RUN_OUT_CAPTURE};
	char theirs[32], ours[32], line[512];
	struct strbuf script = {0};
	int rc = 2;

	c.out_text.max = c.err_text.max = 64 * 1024;
	str_bin(&script, s->bin);
	strbuf_addstr(&script, " --version");
	if (script.oom || ssh_run(s, script.buf, &c))
		goto out;
	if (ssh_step_ended(s, &c, &rc))
		goto out;
	if (c.exit_code == 127 || c.exit_code == 126) {
		sb_error(
		    "%s: scalebench '%s' not found or not executable there: %s; expected it on "
		    "the target's PATH, --target-bin PATH, or --push",
		    text_safe(s->t->url), text_safe(s->bin),
		    last_line(&c.err_text, line, sizeof(line)));
		goto out;
	}
	snprintf(line, sizeof(line), "scalebench %s", SCALEBENCH_VERSION);
	if (target_version_series(line, ours, sizeof(ours)))
		snprintf(ours, sizeof(ours), "%s", SCALEBENCH_VERSION);
	if (c.exit_code != 0 || !c.out_text.p ||
	    target_version_series(c.out_text.p, theirs, sizeof(theirs))) {
		sb_error("%s: '%s --version' did not answer 'scalebench MAJOR.MINOR' (exit %d): %s",
			 text_safe(s->t->url), text_safe(s->bin), c.exit_code,
			 last_line(c.exit_code ? &c.err_text : &c.out_text, line, sizeof(line)));
		goto out;
	}
	if (strcmp(theirs, ours)) {
		char shown[256];

		sb_error("%s runs %s, this is scalebench %s: versions %s and %s are not compatible "
			 "(MAJOR.MINOR must match); install this version there or use --push",
			 text_safe(s->t->url), last_line(&c.out_text, shown, sizeof(shown)),
			 SCALEBENCH_VERSION, theirs, ours);
		goto out;
	}
	rc = 0;
out:
	if (script.oom)
		sb_error("out of memory");
	strbuf_release(&script);
	child_release(&c);
	return rc;
}

/* The installed tree this binary belongs to: PREFIX of PREFIX/bin/NAME, with
 * PREFIX/libexec/scalebench and PREFIX/share/scalebench beside it.  0, or -1 after a message. */
static int installed_prefix(char *prefix, size_t len, char *name, size_t namelen)
{
	char exe[PATH_MAX], shown[PATH_MAX], probe[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	struct stat st;

	if (n <= 0) {
		sb_error("--push: cannot read /proc/self/exe: %s", strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	memcpy(shown, exe, (size_t)n + 1);
	slash = strrchr(exe, '/');
	if (!slash || snprintf(name, namelen, "%s", slash + 1) >= (int)namelen)
		return -1;
	*slash = '\0';
	slash = strrchr(exe, '/');
	if (!slash || strcmp(slash + 1, "bin"))
		goto not_installed;
	*slash = '\0';
	snprintf(prefix, len, "%s", *exe ? exe : "/");
	snprintf(probe, sizeof(probe), "%s/libexec/scalebench", prefix);
	if (stat(probe, &st) || !S_ISDIR(st.st_mode))
		goto not_installed;
	snprintf(probe, sizeof(probe), "%s/share/scalebench", prefix);
	if (stat(probe, &st) || !S_ISDIR(st.st_mode))
		goto not_installed;
	return 0;
not_installed:
	sb_error("--push: this scalebench (%s) is not an installed tree: expected PREFIX/bin/"
		 "scalebench with PREFIX/libexec/scalebench and PREFIX/share/scalebench ('make "
		 "install PREFIX=DIR' makes one)",
		 text_safe(shown));
	return -1;
}

/* Copy the installed tree to push_dir on the target; s->bin becomes its bin/NAME.  0, else 2
 * (or 128+N) after a message. */
static int push_tree(struct session *s)
{
	const char *dir = s->o->push_dir;
	char prefix[PATH_MAX], name[NAME_MAX + 1], bin_rel[NAME_MAX + 8], err[512], line[512];
	struct child_process tar = {.out = RUN_OUT_CAPTURE, .err = RUN_OUT_CAPTURE};
	struct child_process put = {
	    .in = RUN_IN_BUFFER, .out = RUN_OUT_CAPTURE, .err = RUN_OUT_CAPTURE};
	struct strbuf script = {0};
	int rc = 2;

	if (!strcmp(dir, "~"))
		dir = ".";
	else if (!strncmp(dir, "~/", 2))
		dir += 2;
	if (!*dir) {
		sb_error("--push '': expected a directory on the target");
		return 2;
	}
	if (installed_prefix(prefix, sizeof(prefix), name, sizeof(name)))
		return 2;
	snprintf(bin_rel, sizeof(bin_rel), "bin/%s", name);
	const char *argv[] = {
	    "tar", "-C", prefix, "-cf", "-", bin_rel, "libexec/scalebench", "share/scalebench",
	    NULL};

	tar.argv = argv;
	tar.err_text.max = put.out_text.max = put.err_text.max = 64 * 1024;
	if (child_run(&tar, err, sizeof(err)) || tar.exit_code != 0) {
		sb_error("--push: cannot pack %s: %s", text_safe(prefix),
			 tar.exit_code ? last_line(&tar.err_text, line, sizeof(line)) : err);
		goto out;
	}
	if (core_interrupted()) {
		rc = 128 + core_interrupt_signal();
		goto out;
	}
	strbuf_addstr(&script, "mkdir -p -- ");
	str_word(&script, dir);
	strbuf_addstr(&script, " && tar -C ");
	str_word(&script, dir);
	strbuf_addstr(&script, " --no-same-owner -xf -");
	s->push_bin = malloc(strlen(dir) + strlen(bin_rel) + 2);
	if (script.oom || !s->push_bin) {
		sb_error("out of memory");
		goto out;
	}
	sprintf(s->push_bin, "%s/%s", dir, bin_rel);
	put.in_buf = tar.out_text.p;
	put.in_len = tar.out_text.len;
	if (ssh_run(s, script.buf, &put))
		goto out;
	if (ssh_step_ended(s, &put, &rc))
		goto out;
	if (put.exit_code != 0) {
		sb_error("--push: cannot unpack into %s on %s (exit %d): %s", text_safe(dir),
			 text_safe(s->t->url), put.exit_code,
			 last_line(&put.err_text, line, sizeof(line)));
		goto out;
	}
	s->bin = s->push_bin;
	if (!s->o->quiet)
		printf("pushed %s to %s:%s\n", prefix, s->t->host, dir);
	rc = 0;
out:
	strbuf_release(&script);
	child_release(&tar);
	child_release(&put);
	return rc;
}

/* What mktemp -d printed: an absolute path of plain characters, no "..". */
static bool tmp_ok(const char *p)
{
	if (p[0] != '/' || !p[1] || strstr(p, ".."))
		return false;
	for (; *p; p++)
		if (!host_char(*p) && *p != '/' && *p != '_')
			return false;
	return true;
}

/* A temp directory on the target with the job file in it: s->tmp.  0, else 2 or 128+N. */
static int setup(struct session *s, const char *job_path)
{
	struct child_process c = {
	    .in = RUN_IN_BUFFER, .out = RUN_OUT_CAPTURE, .err = RUN_OUT_CAPTURE};
	char *job = NULL, err[512], line[512];
	size_t len;
	int rc = 2;

	if (file_read(job_path, 64 << 20, &job, &len, err, sizeof(err))) {
		sb_error("%s", err);
		return 2;
	}
	c.in_buf = job;
	c.in_len = len;
	c.out_text.max = c.err_text.max = 64 * 1024;
	/* The directory is named before the job is written: a failure after mktemp leaves
	 * nothing that target_run does not remove. */
	if (ssh_run(s, "d=$(mktemp -d) || exit 1; printf '%s\\n' \"$d\"; cat >\"$d/job.yaml\"", &c))
		goto out;
	if (c.out_text.p)
		c.out_text.p[strcspn(c.out_text.p, "\n")] = '\0';
	if (c.out_text.p && tmp_ok(c.out_text.p)) {
		s->tmp = strdup(c.out_text.p);
		if (!s->tmp) {
			sb_error("out of memory");
			goto out;
		}
	}
	if (ssh_step_ended(s, &c, &rc))
		goto out;
	if (c.exit_code != 0 || !s->tmp) {
		sb_error(
		    "%s: cannot make a temp directory with the job in it (mktemp -d, exit %d): "
		    "%s",
		    text_safe(s->t->url), c.exit_code,
		    last_line(c.exit_code ? &c.err_text : &c.out_text, line, sizeof(line)));
		goto out;
	}
	rc = 0;
out:
	free(job);
	child_release(&c);
	return rc;
}

/* The target's copy of plug-in i: TMP/plugin-I.so. */
static int plugin_there(const struct session *s, size_t i, char *out, size_t len)
{
	return snprintf(out, len, "%s/plugin-%zu.so", s->tmp, i) < (int)len ? 0 : -1;
}

/* Each plug-in copied into the target's temp directory (over ssh's stdin, as the job): 0,
 * else 2 (or 128+N) after a message naming it. */
static int send_plugins(struct session *s)
{
	int rc = 0;

	for (size_t i = 0; i < s->o->n_plugins && !rc; i++) {
		const char *path = s->o->plugins[i];
		struct child_process c = {
		    .in = RUN_IN_BUFFER, .out = RUN_OUT_CAPTURE, .err = RUN_OUT_CAPTURE};
		struct strbuf script = {0};
		char there[PATH_MAX], err[512], line[512];
		char *body = NULL;
		size_t len;

		rc = 2;
		if (file_read(path, 1 << 30, &body, &len, err, sizeof(err))) {
			sb_error("--plugin: %s", err);
			continue;
		}
		if (plugin_there(s, i, there, sizeof(there))) {
			sb_error("%s: the temp directory's name is too long", text_safe(s->t->url));
			free(body);
			continue;
		}
		c.in_buf = body;
		c.in_len = len;
		c.out_text.max = c.err_text.max = 64 * 1024;
		strbuf_addstr(&script, "cat >");
		str_word(&script, there);
		if (script.oom)
			sb_error("out of memory");
		else if (ssh_run(s, script.buf, &c) == 0) {
			if (c.interrupted)
				rc = 128 + c.interrupted;
			else if (c.exit_code == SSH_FAILED)
				say_unreachable(s, &c);
			else if (c.exit_code != 0 || c.in_written != len)
				sb_error("%s: cannot copy the plug-in %s to %s there (exit %d): %s",
					 text_safe(s->t->url), text_safe(path), text_safe(there),
					 c.exit_code, last_line(&c.err_text, line, sizeof(line)));
			else
				rc = 0;
		}
		strbuf_release(&script);
		free(body);
		child_release(&c);
	}
	return rc;
}

/* The job on the target, its output ours.  The remote run's exit status, SSH_FAILED when the
 * connection failed, -1 when ssh could not be run, 128+N when we were interrupted. */
static int remote_run(struct session *s)
{
	struct child_process c = {0};
	struct strbuf script = {0};
	int rc = -1;

	strbuf_addstr(&script, "cd ");
	str_word(&script, s->tmp);
	strbuf_addstr(&script, " && echo $$ >pid && exec ");
	str_bin(&script, s->bin);
	strbuf_addstr(&script, " run job.yaml --results results");
	for (size_t i = 0; i < s->o->n_plugins; i++) {
		char there[PATH_MAX];

		if (plugin_there(s, i, there, sizeof(there)))
			script.oom = true;
		strbuf_addstr(&script, " --plugin ");
		str_word(&script, there);
	}
	for (size_t i = 0; i < s->o->n_run_args; i++) {
		strbuf_addstr(&script, " ");
		str_word(&script, s->o->run_args[i]);
	}
	if (script.oom) {
		sb_error("out of memory");
		goto out;
	}
	if (ssh_run(s, script.buf, &c))
		goto out;
	if (c.interrupted || core_interrupted())
		rc = 128 + (c.interrupted ? c.interrupted : core_interrupt_signal());
	else
		rc = c.exit_code;
out:
	strbuf_release(&script);
	child_release(&c);
	return rc;
}

/* A cleanup script (the run stopped, TMP removed), bounded in time and run to its end even
 * after an interrupt.  0 when it ran and exited 0. */
static int cleanup_step(struct session *s, const char *before_tmp, const char *after_tmp,
			const char *what)
{
	struct child_process c = {.out = RUN_OUT_CAPTURE,
				  .err = RUN_OUT_CAPTURE,
				  .timeout_ms = TARGET_CLEANUP_MS,
				  .no_forward = true};
	struct strbuf script = {0};
	char line[512];
	int rc = -1;

	c.out_text.max = c.err_text.max = 64 * 1024;
	strbuf_addstr(&script, before_tmp);
	str_word(&script, s->tmp);
	strbuf_addstr(&script, after_tmp);
	if (script.oom)
		sb_error("out of memory");
	else if (ssh_run(s, script.buf, &c) == 0) {
		if (c.exit_code == 0)
			rc = 0;
		else
			sb_error("%s: cannot %s %s there%s: %s", text_safe(s->t->url), what,
				 text_safe(s->tmp), c.timed_out ? " (timed out)" : "",
				 last_line(&c.err_text, line, sizeof(line)));
	}
	strbuf_release(&script);
	child_release(&c);
	return rc;
}

/* The run there ended if it still lives (its pid file names it, its cwd says it is still
 * the run of TMP: a pid reused since is left alone).  SIGTERM lets it discard its run in
 * progress as on an interrupt; SIGKILL after 10 s. */
static int stop_remote(struct session *s)
{
	return cleanup_step(
	    s, "d=",
	    "; p=$(cat \"$d/pid\" 2>/dev/null) || exit 0; alive() { [ \"$(readlink "
	    "\"/proc/$p/cwd\" 2>/dev/null)\" = \"$d\" ]; }; alive || exit 0; kill -TERM \"$p\"; "
	    "i=0; while alive && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; "
	    "alive && kill -KILL \"$p\"; exit 0",
	    "stop the run in");
}

static int remove_tmp(struct session *s)
{
	return cleanup_step(s, "rm -rf ", "", "remove");
}

/* A run as the runner writes it holds regular files and directories only; the stream is
 * unpacked with nothing else (lib/untar.h) and the walk checks it again. */
static int plain_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	return (type == FTW_F && S_ISREG(st->st_mode)) || type == FTW_D ? 0 : 1;
}

/* Whether the value asked for (NULL: anything) is the one the target's path has. */
static bool asked(const char *want, const char *got)
{
	return !want || !strcmp(want, got);
}

/* Whether rel, below the target's results, is a run directory of the layout under the commit,
 * kconfig and path_params asked for, local its place under the local results root: 0, else -1
 * after a message.  *axes: its axes. */
static int check_run_rel(struct session *s, const char *rel, const char *local,
			 struct store_axes *axes)
{
	const struct target_opts *o = s->o;
	char err[1024];
	int slashes = 0;
	bool job = !o->n_path_params;

	for (const char *p = rel; *p; p++)
		slashes += *p == '/';
	/* Eight components (the layout's commit directory and run), none hidden or "..": the
	 * target's path cannot reach outside the local results root. */
	if (slashes != 7 || !text_is_clean(rel) ||
	    store_parse(local, STORE_RUN_DIR, axes, err, sizeof(err))) {
		sb_error(
		    "%s: '%s' in the target's results is not a run directory of the layout%s%s",
		    text_safe(s->t->url), text_safe(rel), slashes == 7 ? ": " : "",
		    slashes == 7 ? err : "");
		return -1;
	}
	for (size_t i = 0; i < o->n_path_params && !job; i++)
		job = !strcmp(o->path_params[i], axes->path_params);
	/* A target stores what it was asked to: the job's atomic jobs, at --commit (and
	 * --kconfig) when given; a run elsewhere is not taken for one of them. */
	const char *key = !job				      ? "path_params"
			  : !asked(o->commit, axes->commit)   ? "commit"
			  : !asked(o->kconfig, axes->kconfig) ? "kconfig"
							      : NULL;

	if (key) {
		const char *got = !job		? axes->path_params
				  : *key == 'c' ? axes->commit
						: axes->kconfig;
		const char *want = !job ? NULL : *key == 'c' ? o->commit : o->kconfig;
		char expected[300];

		if (want)
			snprintf(expected, sizeof(expected), "'%s'", text_safe(want));
		else
			snprintf(expected, sizeof(expected), "one of the job's atomic jobs");
		sb_error("%s: run '%s' is not one asked for (its %s is '%s', expected %s): it is "
			 "not stored here",
			 text_safe(s->t->url), text_safe(rel), key, text_safe(got), expected);
		return -1;
	}
	return 0;
}

/* What a fetch may take: the stream's bytes and how long (SCALEBENCH_TARGET_FETCH_MAX_BYTES
 * and SCALEBENCH_TARGET_FETCH_TIMEOUT_MS, test hooks, make them smaller). */
static uint64_t fetch_limit(const char *env, uint64_t def)
{
	const char *v = getenv(env);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return def;
	errno = 0;
	n = strtoull(v, &end, 10);
	return errno || *end || !n || n > def ? def : n;
}

/* The run directory rel of the target's results as a tar stream, unpacked into tmp as it
 * arrives (lib/untar.h: files and directories only, under TARGET_FETCH_MAX_BYTES, within
 * TARGET_FETCH_TIMEOUT_MS).  0, else -1, after a message unless we were interrupted. */
static int fetch_stream(void *ctx, const char *buf, size_t len)
{
	return untar_feed(ctx, buf, len);
}

static int untar_from_target(struct session *s, const char *rel, const char *tmp)
{
	uint64_t max = fetch_limit("SCALEBENCH_TARGET_FETCH_MAX_BYTES", TARGET_FETCH_MAX_BYTES);
	uint64_t ms = fetch_limit("SCALEBENCH_TARGET_FETCH_TIMEOUT_MS", TARGET_FETCH_TIMEOUT_MS);
	struct untar u;
	struct child_process get = {.out = RUN_OUT_STREAM,
				    .err = RUN_OUT_CAPTURE,
				    .out_stream = fetch_stream,
				    .out_ctx = &u,
				    .timeout_ms = (unsigned)ms};
	char *remote = malloc(strlen(s->tmp) + strlen(rel) + 16);
	struct strbuf script = {0};
	char line[512], err[1024];
	int rc = -1;

	get.err_text.max = 64 * 1024;
	if (untar_begin(&u, tmp, max, TARGET_FETCH_MAX_MEMBERS, err, sizeof(err))) {
		sb_error("%s", err);
		free(remote);
		return -1;
	}
	if (!remote) {
		sb_error("out of memory");
		goto out;
	}
	sprintf(remote, "%s/results/%s", s->tmp, rel);
	strbuf_addstr(&script, "tar -C ");
	str_word(&script, remote);
	strbuf_addstr(&script, " -cf - .");
	if (script.oom) {
		sb_error("out of memory");
		goto out;
	}
	if (ssh_run(s, script.buf, &get))
		goto out;
	if (get.interrupted || core_interrupted())
		goto out;
	if (get.stream_stopped)
		sb_error("%s: run %s refused: %s; it is not stored here", text_safe(s->t->url),
			 text_safe(rel), u.err);
	else if (get.timed_out)
		sb_error("%s: run %s took longer than %.0f s to come back (the stream stopped "
			 "after %" PRIu64 " bytes); it is not stored here",
			 text_safe(s->t->url), text_safe(rel), (double)ms / 1000, u.total);
	else if (get.exit_code != 0)
		sb_error("%s: cannot bring back run %s (%s, exit %d): %s; it is not stored here",
			 text_safe(s->t->url), text_safe(rel),
			 get.exit_code == SSH_FAILED ? "connection failed" : "tar", get.exit_code,
			 last_line(&get.err_text, line, sizeof(line)));
	else if (untar_finish(&u))
		sb_error("%s: run %s refused: %s; it is not stored here", text_safe(s->t->url),
			 text_safe(rel), u.err);
	else
		rc = 0;
out:
	untar_release(&u);
	child_release(&get);
	strbuf_release(&script);
	free(remote);
	return rc;
}

/* Whether the run rel unpacked in tmp is one as the runner writes it, held to what a local run
 * is (store_run_check: its stats.json and meta.json as every reader takes them): files and
 * directories only, and its meta.json naming the commit and path_params it is stored under.
 * 0, else -1 after a message. */
static int check_run_files(struct session *s, const char *rel, const char *tmp,
			   const struct store_axes *axes)
{
	const char *keys[] = {"commit", "path_params"}, *want[] = {axes->commit, axes->path_params};
	char why[PATH_MAX + 256];
	json_t *meta;
	int rc = 0;

	if (nftw(tmp, plain_entry, 16, FTW_PHYS) != 0) {
		sb_error("run %s from %s holds something other than files and directories (a "
			 "symlink, a device, a fifo): it is not stored here",
			 text_safe(rel), text_safe(s->t->url));
		return -1;
	}
	if (store_run_check(tmp, &meta, why, sizeof(why))) {
		sb_error("run %s from %s: %s: it is not stored here", text_safe(rel),
			 text_safe(s->t->url), text_safe(why));
		return -1;
	}
	for (size_t i = 0; i < 2 && !rc; i++) {
		const json_t *v = json_object_get(meta, keys[i]);

		if (!json_is_string(v) || strcmp(json_string_value(v), want[i])) {
			sb_error("run %s from %s: its meta.json's %s is %s%s%s, not '%s' as its "
				 "path says: it is not stored here",
				 text_safe(rel), text_safe(s->t->url), keys[i],
				 json_is_string(v) ? "'" : "",
				 json_is_string(v) ? text_safe(json_string_value(v)) : "missing",
				 json_is_string(v) ? "'" : "", text_safe(want[i]));
			rc = -1;
		}
	}
	json_decref(meta);
	return rc;
}

/* One run directory of the target's results, rel below TMP/results, into the local store
 * whole.  0, else -1 after a message. */
static int fetch_run(struct session *s, const char *rel)
{
	const char *root = s->o->results_root;
	size_t n = strlen(root) + strlen(rel) + 2;
	char *local = malloc(n), *commit_dir = malloc(n);
	char tmp[PATH_MAX], err[1024];
	struct store_axes axes = {0};
	int owner_fd = -1, rc = -1;
	bool begun = false;
	unsigned number;

	if (!local || !commit_dir) {
		sb_error("out of memory");
		goto out;
	}
	snprintf(local, n, "%s/%s", root, rel);
	if (check_run_rel(s, rel, local, &axes))
		goto out;
	snprintf(commit_dir, n, "%s", local);
	*strrchr(commit_dir, '/') = '\0';
	if (store_begin(commit_dir, tmp, sizeof(tmp), &owner_fd, err, sizeof(err))) {
		sb_error("%s", err);
		goto out;
	}
	begun = true;
	if (untar_from_target(s, rel, tmp) || check_run_files(s, rel, tmp, &axes))
		goto out;
	if (store_commit(commit_dir, tmp, &number, err, sizeof(err))) {
		sb_error("%s", err);
		goto out;
	}
	begun = false;
	if (store_matrix_write(commit_dir, err, sizeof(err)))
		sb_note("%s; 'scalebench lkp-matrix %s' rebuilds it", err, commit_dir);
	if (!s->o->quiet)
		printf("stored %s/%u (from %s)\n", commit_dir, number, s->t->host);
	rc = 0;
out:
	if (begun)
		store_abort(tmp);
	if (owner_fd >= 0)
		close(owner_fd);
	store_axes_free(&axes);
	free(local);
	free(commit_dir);
	return rc;
}

/* Every numbered run under TMP/results (a run in progress is a .tmp-run-* directory and is
 * passed over), each brought back.  0 when all were, -1 when one was not, 128+N. */
static int fetch_runs(struct session *s)
{
	struct child_process c = {.out = RUN_OUT_CAPTURE, .err = RUN_OUT_CAPTURE};
	static const char meta[] = "/" STORE_META_FILE;
	struct strbuf script = {0};
	char line[512];
	int rc = -1;

	c.err_text.max = 64 * 1024;
	strbuf_addstr(&script, "cd ");
	str_word(&script, s->tmp);
	strbuf_addstr(&script,
		" && { cd results 2>/dev/null || exit 0; } && find . -name '" STORE_TMP_PREFIX
		"*' -prune -o -type f -name " STORE_META_FILE " -print");
	if (script.oom) {
		sb_error("out of memory");
		goto out;
	}
	if (ssh_run(s, script.buf, &c))
		goto out;
	if (c.interrupted || core_interrupted()) {
		rc = 128 + (c.interrupted ? c.interrupted : core_interrupt_signal());
		goto out;
	}
	if (c.exit_code != 0) {
		sb_error("%s: cannot list the runs in %s (exit %d): %s; none is stored here",
			 text_safe(s->t->url), text_safe(s->tmp), c.exit_code,
			 last_line(&c.err_text, line, sizeof(line)));
		goto out;
	}
	rc = 0;
	for (char *p = c.out_text.p, *nl; p && *p; p = nl + 1) {
		size_t n;

		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p) - 1;
		else
			*nl = '\0';
		n = strlen(p);
		if (n > 2 + strlen(meta) && !strncmp(p, "./", 2) &&
		    !strcmp(p + n - strlen(meta), meta)) {
			p[n - strlen(meta)] = '\0';
			if (fetch_run(s, p + 2))
				rc = -1;
		} else {
			sb_error("%s: unexpected line in the list of runs: '%s'",
				 text_safe(s->t->url), text_safe(p));
			rc = -1;
		}
		if (core_interrupted()) {
			rc = 128 + core_interrupt_signal();
			break;
		}
	}
out:
	strbuf_release(&script);
	child_release(&c);
	return rc;
}

/* ssh's destination ([user@]host) and port for s's target: 0, or -1 when out of memory. */
static int session_dest(struct session *s)
{
	const struct target *t = s->t;

	snprintf(s->port, sizeof(s->port), "%u", t->port);
	s->dest = malloc(strlen(t->host) + (t->user ? strlen(t->user) : 0) + 2);
	if (!s->dest)
		return -1;
	sprintf(s->dest, "%s%s%s", t->user ? t->user : "", t->user ? "@" : "", t->host);
	return 0;
}

int target_run(const struct target *t, const char *job_path, const struct target_opts *o)
{
	struct session s = {.t = t, .o = o, .bin = o->bin ? o->bin : "scalebench"};
	int rc, run_rc, fetched;

	if (session_dest(&s)) {
		sb_error("out of memory");
		return 2;
	}
	master_start(&s);
	rc = o->push_dir ? push_tree(&s) : 0;
	if (!rc)
		rc = check_version(&s);
	if (!rc && core_interrupted())
		rc = 128 + core_interrupt_signal();
	if (!rc)
		rc = setup(&s, job_path);
	if (!rc)
		rc = send_plugins(&s);
	if (rc) {
		if (s.tmp)
			remove_tmp(&s);
		goto out;
	}
	run_rc = remote_run(&s);
	if (run_rc > 128 && run_rc < 128 + 65 && core_interrupted()) {
		sb_error("interrupted by signal %d: the run on %s is stopped, nothing of it is "
			 "stored here",
			 run_rc - 128, text_safe(t->url));
		stop_remote(&s);
		remove_tmp(&s);
		rc = run_rc;
		goto out;
	}
	if (run_rc == SSH_FAILED || run_rc < 0) {
		sb_error(
		    "%s: the connection was lost during the run (ssh exit %d): the run in "
		    "progress is not stored here; runs it had completed are brought back if the "
		    "target answers again",
		    text_safe(t->url), run_rc);
		if (stop_remote(&s)) {
			sb_error("%s: its temp directory %s is left there", text_safe(t->url),
				 text_safe(s.tmp));
			rc = 1;
			goto out;
		}
	} else if (run_rc != 0 && run_rc != 1 && run_rc != 2) {
		sb_error("%s: the remote 'scalebench run' ended with status %d", text_safe(t->url),
			 run_rc);
	}
	fetched = fetch_runs(&s);
	if (fetched > 128) {
		stop_remote(&s);
		remove_tmp(&s);
		rc = fetched;
		goto out;
	}
	if (remove_tmp(&s))
		sb_note("%s: its temp directory %s is left there", text_safe(t->url),
			text_safe(s.tmp));
	if (run_rc == 2)
		rc = 2;
	else
		rc = run_rc == 0 && fetched == 0 ? 0 : 1;
out:
	master_stop(&s);
	free(s.dest);
	free(s.push_bin);
	free(s.tmp);
	return rc;
}

int target_ssh_option_check(const char *arg, char *err, size_t errlen)
{
	if (!((*arg >= 'a' && *arg <= 'z') || (*arg >= 'A' && *arg <= 'Z')) ||
	    !strpbrk(arg, "= ")) {
		snprintf(err, errlen,
			 "--ssh-option '%s': expected KEYWORD=VALUE as for ssh -o "
			 "(IdentityFile=~/.ssh/id_ed25519, UserKnownHostsFile=FILE)",
			 text_safe(arg));
		return -1;
	}
	return 0;
}

int target_exec(const struct target *t, const struct target_opts *o, const char *const *argv,
		struct child_process *c)
{
	struct session s = {.t = t, .o = o};
	struct strbuf script = {0};
	int rc = -1;

	session_dest(&s);
	strbuf_addstr(&script, "exec");
	for (size_t i = 0; argv[i]; i++) {
		strbuf_addstr(&script, " ");
		str_word(&script, argv[i]);
	}
	if (!s.dest || script.oom)
		sb_error("out of memory");
	else
		rc = ssh_run(&s, script.buf, c);
	strbuf_release(&script);
	free(s.dest);
	return rc;
}
