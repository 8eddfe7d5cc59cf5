/* The plug-in API: every function testcase.h declares, for the built-in testcases and for
 * plug-ins alike (testcases/plugin-exports.list exports them from the binary).  Nothing here
 * knows the core: a copy's or a run's error buffer is filled, files and directories made.
 *
 * tc_run_dir's janitor is forked by the copy host in global_prepare, before any copy exists:
 *
 *   - PR_SET_PDEATHSIG(SIGTERM) tells it when the host dies, however the host dies (end of run, a
 *     failed copy, SIGKILL of scalebench, which takes the host down by its own PDEATHSIG);
 *   - it leaves the host's process group (setsid), because the teardown SIGKILLs that whole group
 *     and would kill the janitor before it cleans;
 *   - it creates the directory itself, after the above, so there is no moment in which the
 *     directory exists and nobody is left to remove it.
 *
 * The host waits for the janitor's report, so the janitor is out of the group before the run
 * starts.  Once orphaned, the janitor is reaped by scalebench (a child subreaper) or by init. */
#include "testcase.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- errors --------------------------------------------------------------------------- */

int tc_error(struct tc_copy *copy, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(copy->errbuf, copy->errbuf_size, fmt, ap);
	va_end(ap);
	return -1;
}

int tc_run_error(struct tc_run *run, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(run->errbuf, run->errbuf_size, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- temp files ----------------------------------------------------------------------- */

int tc_tmpfile(const char *dir, const char *tag, uint64_t size)
{
	char path[4096];
	int fd;

	/* The process group in the name is the run's (the copy host leads one): a file a
	 * killed run left in a shared directory (/dev/shm) says whose it was. */
	if (snprintf(path, sizeof(path), "%s/scalebench-%s.%d.XXXXXX", dir, tag, (int)getpgrp()) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Unlinked at once: a killed run leaves nothing behind. */
	unlink(path);
	if (size && ftruncate(fd, (off_t)size)) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/* ---- run directories ------------------------------------------------------------------ */

/* Our layout is at most <run dir>/<copy dir>/<file>; the limit only stops a runaway. */
#define MAX_DEPTH 8

/* Remove everything inside the directory dfd (closed on return). */
static void remove_contents(int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;

	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!unlinkat(dirfd(d), e->d_name, 0) || errno != EISDIR || depth >= MAX_DEPTH)
			continue;
		int sub =
		    openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			remove_contents(sub, depth + 1);
		unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

/* The copies got their SIGKILL with the host's but may still be finishing a syscall that creates a
 * file: retry until the directory itself is gone, for at most about 5 s. */
static void remove_tree(const char *path)
{
	const struct timespec pause_10ms = {.tv_nsec = 10 * 1000 * 1000};

	for (int tries = 0; tries < 500; tries++) {
		int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (dfd >= 0)
			remove_contents(dfd, 0);
		if (!rmdir(path) || errno == ENOENT)
			return;
		nanosleep(&pause_10ms, NULL);
	}
}

static _Noreturn void janitor(pid_t host, char *path, size_t len, int report)
{
	sigset_t term;
	int err = 0;

	/* SIGTERM is only ever taken by sigwaitinfo; SIGPIPE must not kill us if the host is gone
	 * before it reads the report. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	setsid();
	if (getppid() != host)
		_exit(0); /* the host died before we were armed: nothing was created */
	prctl(PR_SET_NAME, "sb-janitor");
	if (!mkdtemp(path)) {
		err = errno;
		(void)!write(report, &err, sizeof(err));
		_exit(1);
	}
	/* A failed report means the host is gone: the loop below ends at once and cleans. */
	if (write(report, &err, sizeof(err)) == sizeof(err))
		(void)!write(report, path, len);
	close(report);

	/* Hold nothing of scalebench's: a pipe on stdout must see EOF when scalebench exits. */
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0)
		for (int fd = 0; fd < 3; fd++)
			dup2(null, fd);
	closefrom(3);

	/* A SIGTERM from anyone else while the host lives is not the end of the run. */
	while (getppid() == host)
		sigwaitinfo(&term, NULL);
	remove_tree(path);
	_exit(0);
}

int tc_run_dir(struct tc_run *run, const char *tag, char *path, size_t len)
{
	pid_t host = getpid(), pid;
	int pipefd[2], err = 0;

	if (snprintf(path, len, "%s/scalebench-%s.XXXXXX", run->tmpdir, tag) >= (int)len) {
		errno = ENAMETOOLONG;
		return tc_run_error(run, "cannot create a directory in %s: %m", run->tmpdir);
	}
	if (pipe2(pipefd, O_CLOEXEC))
		return tc_run_error(run, "pipe: %m");
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return tc_run_error(run, "fork of the run directory's janitor: %m");
	}
	if (pid == 0) {
		close(pipefd[0]);
		janitor(host, path, len, pipefd[1]);
	}
	close(pipefd[1]);

	ssize_t got = read(pipefd[0], &err, sizeof(err));
	size_t off = 0;

	while (got == sizeof(err) && !err && off < len) {
		ssize_t n = read(pipefd[0], path + off, len - off);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(pipefd[0]);
	if (got != sizeof(err) || err || off != len) {
		/* Reaped here: the host of a process-mode run treats any child's exit as a copy's.
		 */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		errno = got != sizeof(err) ? EPIPE : err ? err : EPROTO;
		return tc_run_error(run, "cannot create a directory in %s: %m", run->tmpdir);
	}
	return 0;
}
