/* The results store: LKP's layout (layout.h), runs written whole or not at all (run_write.h
 * over these).
 *
 * A run is written in <commit>/.tmp-run-XXXXXX and renamed to the first free <run> number
 * with RENAME_NOREPLACE, so a crash never leaves a half run that looks whole and two runners
 * filling the same tree never take the same number.  Its writer holds a lock on it while it
 * lives; the temp directories of dead writers are swept by the next store_begin there.
 *
 * Network filesystems (NFS) and old kernels refuse RENAME_NOREPLACE (EINVAL, ENOSYS).  Then
 * the run is published with a plain rename(2) of its temp directory to <run>, which is as
 * atomic there: POSIX makes a rename onto an existing directory that is not empty fail
 * (ENOTEMPTY or EEXIST), and the NFS server carries out a RENAME as one operation on its own
 * filesystem, so of several writers renaming onto a free number exactly one succeeds and the
 * others go on to the next number.  The rename is at once the claim and the publication:
 * readers see the number absent or the run whole, and a writer killed at any point leaves
 * only its hidden temp directory, never a claimed but empty number (the mkdir-then-rename
 * claim would: a killed writer's empty <run> blocks its number and reads as an incomplete
 * run until something removes it).  What it costs: a plain rename replaces an empty
 * directory, so an empty <run> left by hand is filled rather than skipped, and a temp
 * directory must hold a file to be published (it always holds meta.json and stats.json; an
 * empty one is refused).  A retransmitted RENAME whose reply was lost fails with ENOENT
 * though it went through: the run found under the number (same inode) counts as moved.
 * SCALEBENCH_STORE_NO_RENAMEAT2=1 is a test hook: it takes the fallback on any filesystem.
 *
 * Locks over NFS: Linux emulates flock(2) with whole-file fcntl locks (NLM for v3, the
 * protocol's own for v4), which need a descriptor open for writing to lock exclusively, so
 * a lock on a directory is refused there (EBADF) and store_lock_commit_dir says *locked =
 * false: nothing
 * is swept, and the temp directories of killed writers stay (hidden; no reader takes them;
 * remove them by hand when no writer runs).  The run numbers stay unique and dense and no
 * half run shows without any lock.  Do not mount a shared results root with local_lock=flock,
 * local_lock=all or nolock: flock then works but only on its own node, and a writer on one
 * node could sweep a live writer's temp directory on another (that writer's run then fails
 * to be stored; it is still never half-stored). */
#ifndef SCALEBENCH_STORE_H
#define SCALEBENCH_STORE_H

#include "layout.h"

#include <dirent.h>
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
/* Rename tmp to the first free run number; *run gets the number.  Falls back to a plain
 * rename where RENAME_NOREPLACE is refused (see above). */
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
/* The entries of the directory dfd is open on, through a descriptor of its own (dfd stays
 * open and locked): for the sweeps done under that lock.  NULL when it cannot be read. */
DIR *store_opendir_locked(int dfd);

#endif
