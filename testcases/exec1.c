/* doexec style: every copy execs its own copy of a small static binary, so copies share no
 * inode and the kernel's exec path itself (mm setup and teardown, per-CPU counters) is what
 * scales or not. */
#include "testcase.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define HELPER "scalebench-exec-helper"

static char *const helper_argv[] = {HELPER, NULL};
static char *const helper_envp[] = {NULL};

/* Copy the helper into an unlinked temp file and return an fd to exec it through: by fd, so
 * nothing is left on disk, and through a separate read-only open, because exec refuses a
 * file that is still open for writing (ETXTBSY). */
static int copy_helper(struct tc_copy *copy)
{
	char src_path[4096];
	struct stat st;
	int src, dst, exe;

	snprintf(src_path, sizeof(src_path), "%s/%s", copy->helper_dir, HELPER);
	src = open(src_path, O_RDONLY | O_CLOEXEC);
	if (src < 0)
		return tc_error(copy, "cannot open the exec helper %s: %m", src_path);
	if (fstat(src, &st)) {
		close(src);
		return tc_error(copy, "cannot stat %s: %m", src_path);
	}

	char path[4096];
	snprintf(path, sizeof(path), "%s/scalebench-exec1.XXXXXX", copy->tmpdir);
	dst = mkostemp(path, O_CLOEXEC);
	if (dst < 0) {
		close(src);
		return tc_error(copy, "cannot create the helper copy in %s: %m", copy->tmpdir);
	}
	off_t off = 0;
	while (off < st.st_size) {
		ssize_t n = sendfile(dst, src, &off, (size_t)(st.st_size - off));

		if (n <= 0) {
			tc_error(copy, "cannot copy %s to %s: %m", src_path, copy->tmpdir);
			goto fail;
		}
	}
	if (fchmod(dst, 0700)) {
		tc_error(copy, "cannot make %s executable: %m", path);
		goto fail;
	}
	exe = open(path, O_RDONLY | O_CLOEXEC);
	if (exe < 0) {
		tc_error(copy, "cannot reopen %s: %m", path);
		goto fail;
	}
	unlink(path);
	close(dst);
	close(src);
	return exe;
fail:
	unlink(path);
	close(dst);
	close(src);
	return -1;
}

/* One fork + exec + wait; returns 0, or -1 after tc_error.  With report_errno, an exec
 * failure is sent back through a pipe so the message can say why (noexec mounts). */
static int exec_once(struct tc_copy *copy, int exe, bool report_errno)
{
	int pipefd[2] = {-1, -1}, status, child_errno = 0;
	pid_t pid;

	if (report_errno && pipe2(pipefd, O_CLOEXEC))
		return tc_error(copy, "pipe: %m");
	pid = fork();
	if (pid < 0)
		return tc_error(copy, "fork: %m");
	if (pid == 0) {
		syscall(SYS_execveat, exe, "", helper_argv, helper_envp, AT_EMPTY_PATH);
		int e = errno;
		if (report_errno)
			(void)!write(pipefd[1], &e, sizeof(e));
		_exit(127);
	}
	if (report_errno) {
		close(pipefd[1]);
		if (read(pipefd[0], &child_errno, sizeof(child_errno)) != sizeof(child_errno))
			child_errno = 0;
		close(pipefd[0]);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return tc_error(copy, "waitpid: %m");
	if (child_errno) {
		errno = child_errno;
		return tc_error(copy, "cannot exec the helper copy from %s: %m%s", copy->tmpdir,
				child_errno == EACCES ? " (mounted noexec? use --tmpdir)" : "");
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		return tc_error(copy, "the exec helper ended with status 0x%x", status);
	}
	return 0;
}

/* In thread mode a child forked by one copy's trial exec inherits the descriptor another
 * copy is still writing its helper copy through, and that copy's exec then fails with
 * ETXTBSY: the copies prepare one at a time.  (In process mode the lock is per copy.) */
static pthread_mutex_t prepare_lock = PTHREAD_MUTEX_INITIALIZER;

static int exec1_prepare(struct tc_copy *copy)
{
	int exe, ret = -1;

	pthread_mutex_lock(&prepare_lock);
	exe = copy_helper(copy);
	if (exe >= 0) {
		copy->priv = (void *)(intptr_t)exe;
		ret = exec_once(copy, exe, true);
	}
	pthread_mutex_unlock(&prepare_lock);
	return ret;
}

static int exec1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	int exe = (int)(intptr_t)copy->priv;

	for (;;) {
		if (exec_once(copy, exe, false))
			return -1;
		(*iterations)++;
	}
}

const struct testcase tc_exec1 = {
    .name = "exec1",
    .description = "fork + execve of a per-copy static binary + wait (doexec)",
    .suite = "will-it-scale",
    .op = "exec",
    .prepare = exec1_prepare,
    .run = exec1_run,
};
