/* Unit tests of lib/run_command: real children (sh, sleep, cat, yes), real signals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/run_command.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/scalebench-run-command.XXXXXX";
static char pidfile[256];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* No longer running: absent, or dead and waiting for its parent (init here) to reap it. */
static bool gone(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && (p[2] == 'Z' || p[2] == 'X');
}

/* The pids a command wrote to pidfile (written whole by a rename); 0 if not there yet. */
static int read_pids(pid_t *pids, int max)
{
	FILE *f = fopen(pidfile, "r");
	int n = 0, v;

	if (!f)
		return 0;
	while (n < max && fscanf(f, "%d", &v) == 1)
		pids[n++] = v;
	fclose(f);
	return n;
}

static void assert_no_children(void)
{
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(pidfile, sizeof(pidfile), "%s/pids", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[400];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A shell that starts two background sleeps (which ignore SIGINT, as a non-interactive shell
 * makes them) and waits for them, after writing its pid and theirs. */
static const char *two_sleeps(char *buf, size_t len, const char *prefix)
{
	unlink(pidfile);
	snprintf(buf, len,
		 "%s sleep 60 & a=$!; sleep 60 & echo $$ $a $! >'%s.new' && mv '%s.new' '%s'; "
		 "wait",
		 prefix, pidfile, pidfile, pidfile);
	return buf;
}

static volatile sig_atomic_t caller_saw;

static void caller_handler(int sig)
{
	caller_saw = sig;
}

struct signaller {
	int sig;
	bool by_call; /* child_interrupt instead of kill() */
};

/* Another thread: once the command has written its pids, interrupt. */
static void *signal_when_started(void *arg)
{
	const struct signaller *s = arg;
	pid_t pids[3];

	for (int i = 0; i < 1000 && read_pids(pids, 3) < 3; i++)
		usleep(10000);
	if (s->by_call)
		child_interrupt(s->sig);
	else
		kill(getpid(), s->sig);
	return NULL;
}

static void run_interrupted(const char *prefix, struct signaller s, unsigned grace_ms, double max_s)
{
	char line[1024], err[512];
	struct child_process cmd = {.shell = two_sleeps(line, sizeof(line), prefix),
				    .grace_ms = grace_ms};
	struct sigaction sa = {.sa_handler = caller_handler}, old;
	pthread_t t;
	pid_t pids[3];
	double t0 = now_s();

	caller_saw = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(s.sig, &sa, &old);
	assert_int_equal(pthread_create(&t, NULL, signal_when_started, &s), 0);
	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	pthread_join(t, NULL);
	sigaction(s.sig, &old, NULL);
	assert_int_equal(read_pids(pids, 3), 3);
	assert_int_equal(cmd.interrupted, s.sig);
	/* The caller's own handler still ran (bisect's sets its flag there). */
	assert_int_equal(caller_saw, s.by_call ? 0 : s.sig);
	assert_true(now_s() - t0 < max_s);
	for (int i = 0; i < 3; i++)
		if (!gone(pids[i]))
			fail_msg("process %d of the interrupted group still runs", (int)pids[i]);
	assert_no_children();
	child_release(&cmd);
}

static void test_interrupt_ends_grandchildren(void **state)
{
	(void)state;
	/* SIGINT to ourselves: the shell dies of the forwarded one, the sleeps ignore it and
	 * get SIGTERM once the shell is gone. */
	run_interrupted("", (struct signaller){SIGINT, false}, 5000, 4);
	run_interrupted("", (struct signaller){SIGTERM, false}, 5000, 4);
}

static void test_cancel_stubborn_group(void **state)
{
	(void)state;
	/* Everything ignores INT and TERM: KILL after the grace ends it. */
	run_interrupted("trap '' INT TERM;", (struct signaller){SIGTERM, true}, 300, 3);
}

/* The default disposition: the group is ended first, then we die of the signal as we would
 * have.  In a child process, since that is the end of it. */
static void test_default_disposition_dies_after_group(void **state)
{
	char line[1024];
	pid_t pids[3], pid;
	int status;
	(void)state;

	two_sleeps(line, sizeof(line), "");
	/* The command signals its parent, our child, once its pids are written. */
	snprintf(strstr(line, "wait"), 64, "kill -INT $PPID; wait");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct child_process cmd = {.shell = line};
		char err[512];

		signal(SIGINT, SIG_DFL);
		child_run(&cmd, err, sizeof(err));
		_exit(3); /* not reached: SIGINT is raised again */
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGINT);
	assert_int_equal(read_pids(pids, 3), 3);
	for (int i = 0; i < 3; i++)
		if (!gone(pids[i]))
			fail_msg("process %d outlived the signal", (int)pids[i]);
}

/* Several MB each way at once: the child echoes stdin to stdout while a background job fills
 * stderr.  Writing all of stdin before reading would deadlock on the full pipes. */
static void test_large_output_both_streams(void **state)
{
	const size_t n = 6 << 20;
	char *in = malloc(n), err[512];
	struct child_process cmd = {
	    .shell = "head -c 6291456 /dev/zero | tr '\\0' e >&2 & cat; wait",
	    .in = RUN_IN_BUFFER,
	    .out = RUN_OUT_CAPTURE,
	    .err = RUN_OUT_CAPTURE,
	    .timeout_ms = 120000,
	};
	(void)state;

	assert_non_null(in);
	for (size_t i = 0; i < n; i++)
		in[i] = (char)('a' + i % 23);
	cmd.in_buf = in;
	cmd.in_len = n;
	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	assert_int_equal(cmd.exit_code, 0);
	assert_false(cmd.timed_out);
	assert_int_equal(cmd.in_written, n);
	assert_int_equal(cmd.out_text.len, n);
	assert_memory_equal(cmd.out_text.p, in, n);
	assert_int_equal(cmd.err_text.len, n);
	for (size_t i = 0; i < n; i++)
		if (cmd.err_text.p[i] != 'e')
			fail_msg("stderr byte %zu is %d", i, cmd.err_text.p[i]);
	assert_false(cmd.out_text.truncated || cmd.err_text.truncated);
	child_release(&cmd);
	free(in);
	assert_no_children();
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* A signal every millisecond, without SA_RESTART, while a few MB go each way: every read, write,
 * poll and wait is interrupted many times, and nothing is lost. */
static void test_eintr(void **state)
{
	const size_t out_n = 4000000, in_n = 2 << 20;
	struct sigaction sa = {.sa_handler = on_alarm}, old;
	struct itimerval every_ms = {{0, 1000}, {0, 1000}}, off = {{0, 0}, {0, 0}};
	char *in = calloc(1, in_n), err[512];
	struct child_process cmd = {
	    /* Paced, so that it lasts long enough for many alarms on a fast machine. */
	    .shell = "cat >/dev/null; for i in 1 2 3 4 5; do yes 0123456789abcde | "
		     "head -c 800000; sleep 0.02; done",
	    .in = RUN_IN_BUFFER,
	    .in_len = in_n,
	    .out = RUN_OUT_CAPTURE,
	};
	int rc;
	(void)state;

	assert_non_null(in);
	cmd.in_buf = in;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	alarms = 0;
	setitimer(ITIMER_REAL, &every_ms, NULL);
	rc = child_run(&cmd, err, sizeof(err));
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	assert_int_equal(rc, 0);
	assert_int_equal(cmd.exit_code, 0);
	assert_true(alarms > 20);
	assert_int_equal(cmd.in_written, in_n);
	assert_int_equal(cmd.out_text.len, out_n);
	for (size_t i = 0; i < out_n; i += 16)
		if (memcmp(cmd.out_text.p + i, "0123456789abcde\n", 16))
			fail_msg("output corrupt at byte %zu", i);
	child_release(&cmd);
	free(in);
	assert_no_children();
}

static void test_timeout(void **state)
{
	const char *const sleep60[] = {"sleep", "60", NULL};
	struct child_process cmd = {.argv = sleep60, .timeout_ms = 200};
	char line[1024], err[512];
	pid_t pids[3];
	double t0 = now_s();
	(void)state;

	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	assert_true(cmd.timed_out);
	assert_int_equal(cmd.term_signal, SIGTERM);
	assert_int_equal(cmd.exit_code, -1);
	assert_int_equal(child_status(&cmd), 128 + SIGTERM);
	assert_true(now_s() - t0 < 3);

	/* A group: the shell and both of its sleeps. */
	cmd = (struct child_process){
	    .shell = two_sleeps(line, sizeof(line), ""), .timeout_ms = 300, .grace_ms = 1000};
	t0 = now_s();
	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	assert_true(cmd.timed_out);
	assert_int_equal(cmd.interrupted, 0);
	assert_true(now_s() - t0 < 3);
	assert_int_equal(read_pids(pids, 3), 3);
	for (int i = 0; i < 3; i++)
		if (!gone(pids[i]))
			fail_msg("process %d outlived the timeout", (int)pids[i]);
	assert_no_children();
}

static void test_exit_status_and_signal(void **state)
{
	const char *const missing[] = {"/nonexistent/scalebench-no-such-program", NULL};
	const char *const unknown[] = {"scalebench-no-such-command", NULL};
	struct child_process cmd = {.shell = "exit 3"};
	char err[512];
	(void)state;

	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	assert_int_equal(cmd.exit_code, 3);
	assert_null(cmd.out_text.p);

	/* Captured but empty: "" (not NULL, and terminated). */
	cmd = (struct child_process){.shell = "true", .out = RUN_OUT_CAPTURE};
	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	assert_true(!cmd.out_text.p || !cmd.out_text.p[0]);
	assert_int_equal(cmd.out_text.len, 0);
	child_release(&cmd);

	cmd = (struct child_process){.shell = "exit 3"};
	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	assert_int_equal(cmd.term_signal, 0);
	assert_int_equal(child_status(&cmd), 3);
	assert_false(cmd.timed_out);

	cmd = (struct child_process){.shell = "kill -USR1 $$"};
	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	assert_int_equal(cmd.exit_code, -1);
	assert_int_equal(cmd.term_signal, SIGUSR1);
	assert_int_equal(child_status(&cmd), 128 + SIGUSR1);

	cmd = (struct child_process){.argv = missing};
	assert_int_equal(child_run(&cmd, err, sizeof(err)), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, missing[0]));
	assert_int_equal(child_status(&cmd), -1);
	cmd = (struct child_process){.argv = unknown};
	assert_int_equal(child_run(&cmd, err, sizeof(err)), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, unknown[0]));
	assert_no_children();
}

/* A child that stops reading early: EPIPE for us, not a SIGPIPE that would kill the test. */
static void test_child_stops_reading(void **state)
{
	const char *const head[] = {"head", "-c", "10", NULL};
	const size_t n = 4 << 20;
	char *in = calloc(1, n), err[512];
	struct child_process cmd = {.argv = head, .in = RUN_IN_BUFFER, .out = RUN_OUT_NULL};
	(void)state;

	assert_non_null(in);
	cmd.in_buf = in;
	cmd.in_len = n;
	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	assert_int_equal(cmd.exit_code, 0);
	assert_true(cmd.in_written >= 10 && cmd.in_written < n);
	free(in);
}

static void test_env_dir_and_streams(void **state)
{
	const char *const env[] = {"SB_TEST_VAR=x=y", "HOME=/nowhere", NULL};
	struct child_process cmd = {
	    .shell = "echo \"$SB_TEST_VAR|$(pwd)|$HOME\"; echo oops >&2; cat; echo end",
	    .env = env,
	    .dir = dir,
	    .out = RUN_OUT_CAPTURE,
	    .err = RUN_OUT_STDOUT,
	};
	char want[512], err[512], path[300], buf[64] = "";
	int fd;
	(void)state;

	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "x=y|%s|/nowhere\noops\nend\n", dir);
	assert_string_equal(cmd.out_text.p, want);
	assert_non_null(getenv("HOME"));
	assert_null(getenv("SB_TEST_VAR"));
	child_release(&cmd);

	/* To a descriptor of ours; stderr discarded; nothing captured. */
	snprintf(path, sizeof(path), "%s/out", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	cmd = (struct child_process){.shell = "echo to-file; echo hidden >&2",
				     .out = RUN_OUT_FD,
				     .out_fd = fd,
				     .err = RUN_OUT_NULL};
	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	close(fd);
	assert_null(cmd.out_text.p);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 8);
	close(fd);
	assert_string_equal(buf, "to-file\n");

	/* A limit on what is kept: the rest is read (the child is not blocked) and dropped. */
	cmd = (struct child_process){.shell = "yes | head -c 1000000; echo done >&2",
				     .out = RUN_OUT_CAPTURE,
				     .err = RUN_OUT_CAPTURE,
				     .out_text.max = 10};
	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	assert_int_equal(cmd.out_text.len, 10);
	assert_true(cmd.out_text.truncated);
	assert_string_equal(cmd.out_text.p, "y\ny\ny\ny\ny\n");
	assert_string_equal(cmd.err_text.p, "done\n");
	child_release(&cmd);
	assert_no_children();
}

/* Nothing of ours but stdin, stdout and stderr reaches the child, and nothing is left open. */
static void test_no_fd_leaks(void **state)
{
	struct child_process cmd = {.shell = "ls /proc/$$/fd", .out = RUN_OUT_CAPTURE};
	int leaky = dup(2), before;
	char err[512];
	(void)state;

	assert_true(leaky > 2);
	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0); /* the first makes its pipe */
	assert_string_equal(cmd.out_text.p, "0\n1\n2\n");
	before = count_fds();
	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	assert_int_equal(count_fds(), before);
	child_release(&cmd);
	close(leaky);
	assert_no_children();
}

/* A command that leaves a background job: kept by default (a daemon it starts is its
 * business), ended with end_group. */
static void test_end_group(void **state)
{
	char line[1024], err[512];
	struct child_process cmd;
	pid_t pids[3];
	(void)state;

	unlink(pidfile);
	snprintf(line, sizeof(line), "sleep 60 & echo $$ $! >'%s'", pidfile);
	cmd = (struct child_process){.shell = line, .end_group = true};
	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	assert_int_equal(cmd.exit_code, 0);
	assert_int_equal(read_pids(pids, 2), 2);
	assert_true(gone(pids[0]) && gone(pids[1]));

	unlink(pidfile);
	cmd = (struct child_process){.shell = line};
	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	assert_int_equal(read_pids(pids, 2), 2);
	assert_false(gone(pids[1]));
	kill(pids[1], SIGKILL);
	assert_no_children();
}

struct stream_count {
	size_t bytes, calls, stop_after;
	bool bad_byte;
};

static int count_stream(void *ctx, const char *buf, size_t len)
{
	struct stream_count *c = ctx;

	for (size_t i = 0; i < len; i++)
		c->bad_byte |= buf[i] != 'y' && buf[i] != '\n';
	c->bytes += len;
	c->calls++;
	return c->stop_after && c->bytes >= c->stop_after;
}

/* RUN_OUT_STREAM: every byte handed over as it comes, none kept; a consumer that wants no more
 * ends an endless writer at once (its group ended as after a timeout). */
static void test_out_stream(void **state)
{
	(void)state;
	struct stream_count c = {0};
	struct child_process cmd = {.shell = "yes | head -c 3000000",
				    .out = RUN_OUT_STREAM,
				    .out_stream = count_stream,
				    .out_ctx = &c};
	char err[256];
	double t0;

	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	assert_int_equal(cmd.exit_code, 0);
	assert_int_equal(c.bytes, 3000000);
	assert_false(c.bad_byte);
	assert_false(cmd.stream_stopped);
	assert_null(cmd.out_text.p);

	c = (struct stream_count){.stop_after = 1 << 20};
	cmd = (struct child_process){.shell = "exec yes",
				     .out = RUN_OUT_STREAM,
				     .out_stream = count_stream,
				     .out_ctx = &c,
				     .end_group = true};
	t0 = now_s();
	assert_int_equal(child_run(&cmd, err, sizeof(err)), 0);
	assert_true(cmd.stream_stopped);
	assert_false(cmd.timed_out);
	assert_true(c.bytes >= 1 << 20 && c.bytes < (1 << 20) + 65536);
	assert_true(now_s() - t0 < 5);
	assert_true(gone(cmd.pid));

	/* stderr cannot be streamed */
	cmd = (struct child_process){
	    .shell = "true", .err = RUN_OUT_STREAM, .out_stream = count_stream, .out_ctx = &c};
	assert_int_equal(child_run(&cmd, err, sizeof(err)), -1);
	assert_no_children();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_interrupt_ends_grandchildren),
	    cmocka_unit_test(test_cancel_stubborn_group),
	    cmocka_unit_test(test_default_disposition_dies_after_group),
	    cmocka_unit_test(test_large_output_both_streams),
	    cmocka_unit_test(test_eintr),
	    cmocka_unit_test(test_timeout),
	    cmocka_unit_test(test_exit_status_and_signal),
	    cmocka_unit_test(test_child_stops_reading),
	    cmocka_unit_test(test_env_dir_and_streams),
	    cmocka_unit_test(test_no_fd_leaks),
	    cmocka_unit_test(test_end_group),
	    cmocka_unit_test(test_out_stream),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
