/* Helpers of the exec/spawn family: the helper binaries' paths, and fork + exec + wait. */
#ifndef SCALEBENCH_SPAWN_H
#define SCALEBENCH_SPAWN_H

#include "testcase.h"

#include <sys/types.h>

#define EXEC_HELPER_STATIC  "scalebench-exec-helper"
#define EXEC_HELPER_DYNAMIC "scalebench-exec-helper-dyn"

/* helper_dir/name into buf; -1 after tc_error() when missing or not executable. */
int spawn_helper_path(struct tc_copy *copy, const char *name, char *buf, size_t size);

/* prepare for testcases that launch the static helper by path: its path in copy->priv. */
int spawn_prepare_static(struct tc_copy *copy);

/* fork, exec path in the child, return the child's pid (or -1 after tc_error()). */
pid_t spawn_fork_exec(struct tc_copy *copy, const char *path);

/* Wait for pid; 0 when it exited with status 0, else -1 after tc_error(). */
int spawn_wait(struct tc_copy *copy, pid_t pid);

#endif
