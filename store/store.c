#include "store.h"

#include "../lib/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int store_mkdirs(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0777) && errno != EEXIST)
		return -1;
	return 0;
}

DIR *store_opendir_locked(int dfd)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0)
		close(fd);
	return d;
}

/* Every temp run directory of the commit directory whose writer is gone, removed.  Called with
 * the commit directory's lock held, so none is between its mkdtemp and its writer's lock: one
 * whose lock we can take has no writer (a SIGKILL'd one's lock went with it, whatever became
 * of its pid).  One we cannot lock or open is left alone. */
static void sweep_stale(int dfd, const char *commit_dir)
{
	DIR *d = store_opendir_locked(dfd);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		int run;

		if (strncmp(e->d_name, STORE_TMP_PREFIX, strlen(STORE_TMP_PREFIX)))
			continue;
		run = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (run < 0)
			continue;
		if (flock(run, LOCK_EX | LOCK_NB) == 0 &&
		    snprintf(path, sizeof(path), "%s/%s", commit_dir, e->d_name) < (int)sizeof(path))
			file_remove_tree(path);
		close(run);
	}
	closedir(d);
}

int store_lock_commit_dir(const char *commit_dir, bool *locked, char *err, size_t errlen)
{
	int dfd = open(commit_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", commit_dir, strerror(errno));
		return -1;
	}
	do
		*locked = flock(dfd, LOCK_EX) == 0;
	while (!*locked && errno == EINTR);
	return dfd;
}

int store_begin(const char *commit_dir, char *tmp, size_t tmplen, int *owner_fd, char *err,
		size_t errlen)
{
	int dfd, fd;
	bool locked;

	*owner_fd = -1;
	if (store_mkdirs(commit_dir)) {
		snprintf(err, errlen, "cannot create %s: %s", commit_dir, strerror(errno));
		return -1;
	}
	if (path_fmt(tmp, tmplen, err, errlen, "%s/" STORE_TMP_PREFIX "XXXXXX", commit_dir))
		return -1;
	dfd = store_lock_commit_dir(commit_dir, &locked, err, errlen);
	if (dfd < 0)
		return -1;
	/* Where locks do not work nothing is swept: no writer could be told from a dead one. */
	if (locked)
		sweep_stale(dfd, commit_dir);
	if (!mkdtemp(tmp)) {
		snprintf(err, errlen, "cannot create a run directory in %s: %s", commit_dir,
			 strerror(errno));
		close(dfd);
		return -1;
	}
	fd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* mkdtemp makes it 0700; the run it becomes is as readable as any directory made under
	 * this umask, so a web server running as another user can serve the tree. */
	if (fd >= 0 && fchmod(fd, 0777 & ~file_umask())) {
		snprintf(err, errlen, "cannot set the mode of %s: %s", tmp, strerror(errno));
		close(fd);
		rmdir(tmp);
		close(dfd);
		return -1;
	}
	if (fd < 0 || (locked && flock(fd, LOCK_EX | LOCK_NB))) {
		snprintf(err, errlen, "cannot lock the run directory %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		rmdir(tmp);
		close(dfd);
		return -1;
	}
	close(dfd); /* and with it the commit directory's lock */
	*owner_fd = fd;
	return 0;
}

/* Whether renameat2(RENAME_NOREPLACE) is pretended to fail with EINVAL, as on NFS: the test
 * hook SCALEBENCH_STORE_NO_RENAMEAT2=1 runs the fallback on a local filesystem. */
static bool noreplace_disabled(void)
{
	const char *v = getenv("SCALEBENCH_STORE_NO_RENAMEAT2");

	return v && !strcmp(v, "1");
}

/* An empty directory would be replaced by a plain rename onto it, and a plain rename of an
 * empty directory could replace one: the fallback publishes only a run that holds files. */
static int dir_has_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int found = 0;

	if (!d)
		return -1;
	while (!found && (e = readdir(d)))
		found = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return found;
}

int store_commit(const char *commit_dir, const char *tmp, unsigned *run, char *err, size_t errlen)
{
	char path[4096];
	bool plain = noreplace_disabled(), checked = false;
	struct stat before, after;

	if (lstat(tmp, &before)) {
		snprintf(err, errlen, "cannot read %s: %s", tmp, strerror(errno));
		return -1;
	}
	for (unsigned n = 0; n < 100000; n++) {
		int rc;

		snprintf(path, sizeof(path), "%s/%u", commit_dir, n);
		rc = -1;
		if (!plain) {
			rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE);
			plain = rc && (errno == EINVAL || errno == ENOSYS);
		}
		if (plain && !checked) {
			int has = dir_has_entries(tmp);

			if (has != 1) {
				snprintf(err, errlen, "cannot move %s to a run number: %s", tmp,
					 has ? strerror(errno) : "it is empty");
				return -1;
			}
			checked = true;
		}
		if (plain) {
			rc = rename(tmp, path);
			/* A retransmitted NFS RENAME whose first try went through fails with
			 * ENOENT: the run is there, under the number. */
			if (rc && errno == ENOENT && !lstat(path, &after) &&
			    after.st_dev == before.st_dev && after.st_ino == before.st_ino)
				rc = 0;
		}
		if (rc == 0) {
			*run = n;
			return 0;
		}
		/* A plain rename onto a run (never empty) fails: the number is taken. */
		if (errno != EEXIST && errno != ENOTEMPTY && !(plain && errno == ENOTDIR)) {
			snprintf(err, errlen, "cannot move %s to %s: %s", tmp, path,
				 strerror(errno));
			return -1;
		}
	}
	snprintf(err, errlen, "%s: no free run number", commit_dir);
	return -1;
}

void store_abort(const char *tmp)
{
	if (tmp && tmp[0])
		file_remove_tree(tmp);
}
