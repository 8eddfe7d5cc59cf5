/* A run directory: a temp directory whose files keep their names for the whole run (open1 opens a
 * file by name, so it can't be unlinked at once), removed when the run ends however it ends. */
#ifndef SCALEBENCH_TMPDIR_H
#define SCALEBENCH_TMPDIR_H

#include "../testcases/testcase.h"

#include <stddef.h>

/* From global_prepare: create <tmpdir>/scalebench-<tag>.XXXXXX and write its path to path. Copies
 * are SIGKILLed at the end with no cleanup hook, so a janitor process removes the directory and
 * everything in it when the copy host dies.  Returns 0, or -1 after tc_run_error(). */
int tc_run_dir(struct tc_run *run, const char *tag, char *path, size_t len);

#endif
