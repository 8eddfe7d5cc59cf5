/* The results store: LKP's layout (layout.h), runs written whole or not at all (run_write.h
 * over these).
 *
 * A run is written in <commit>/.tmp-run-XXXXXX and renamed to the first free <run> number
 * with RENAME_NOREPLACE, so a crash never leaves a half run that looks whole and two runners
 * filling the same tree never take the same number.  Its writer holds a lock on it while it
 * lives; the temp directories of dead writers are swept by the next store_begin there. */
#ifndef SCALEBENCH_STORE_H
#define SCALEBENCH_STORE_H

#include "layout.h"

#include <stdbool.h>
#include <stddef.h>

/* The temp run directories' prefix.  Hidden: no reader takes them for runs. */
#define STORE_TMP_PREFIX ".tmp-run-"

/* Create (mkdir -p) the commit directory and a temp run directory inside it (tmp).  *owner_fd
 * holds an exclusive flock on the temp directory: it says its writer is alive.  Keep it open
 * until the run is committed or aborted, then close it.  On the way, every temp run directory
 * of the commit directory whose writer died (SIGKILL, a crash, a power cut) is removed: one
 * whose lock is free; a live writer's is never touched, whatever its pid became. */
int store_begin(const char *commit_dir, char *tmp, size_t tmplen, int *owner_fd, char *err,
		size_t errlen);
/* Rename tmp to the first free run number; *run gets the number. */
int store_commit(const char *commit_dir, const char *tmp, unsigned *run, char *err, size_t errlen);
/* Remove a temp run directory and everything in it. */
void store_abort(const char *tmp);
/* mkdir -p; 0 or -1 with errno. */
int store_mkdirs(const char *path);

/* The commit directory's lock, which writers of a commit directory take one at a time (the
 * temp-run sweep, matrix.json's rebuild): its descriptor (closing it unlocks), or -1 with err
 * saying why it could not be opened.  *locked is false where locks do not work (the
 * descriptor is still open): the caller decides what is safe then. */
int store_lock_commit_dir(const char *commit_dir, bool *locked, char *err, size_t errlen);

#endif
