#include "spawn.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static char *const helper_envp[] = {NULL};

int spawn_helper_path(struct tc_copy *copy, const char *name, char *buf, size_t size)
{
	if (snprintf(buf, size, "%s/%s", copy->helper_dir, name) >= (int)size)
		return tc_error(copy, "helper path too long: %s/%s", copy->helper_dir, name);
	if (access(buf, X_OK))
		return tc_error(copy, "helper binary %s: %m (see SCALEBENCH_HELPER_DIR)", buf);
	return 0;
}

int spawn_prepare_static(struct tc_copy *copy)
{
	char path[PATH_MAX];

	if (spawn_helper_path(copy, EXEC_HELPER_STATIC, path, sizeof(path)))
		return -1;
	copy->priv = strdup(path);
	return copy->priv ? 0 : tc_error(copy, "out of memory");
}

pid_t spawn_fork_exec(struct tc_copy *copy, const char *path)
{
	pid_t pid = fork();

	if (pid < 0) {
		tc_error(copy, "fork: %m");
		return -1;
	}
	if (pid == 0) {
		char *argv[] = {(char *)path, NULL};

		execve(path, argv, helper_envp);
		_exit(127);
	}
	return pid;
}

int spawn_wait(struct tc_copy *copy, pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return tc_error(copy, "waitpid: %m");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return tc_error(copy, "the helper ended with status 0x%x%s", status,
				WIFEXITED(status) && WEXITSTATUS(status) == 127 ? " (exec failed)"
										: "");
	return 0;
}
