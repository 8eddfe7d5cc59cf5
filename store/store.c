#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

int store_begin(const char *commit_dir, char *tmp, size_t tmplen, char *err, size_t errlen)
{
	if (store_mkdirs(commit_dir)) {
		snprintf(err, errlen, "cannot create %s: %s", commit_dir, strerror(errno));
		return -1;
	}
	if (snprintf(tmp, tmplen, "%s/.tmp-run-XXXXXX", commit_dir) >= (int)tmplen) {
		snprintf(err, errlen, "%s: path too long", commit_dir);
		return -1;
	}
	if (!mkdtemp(tmp)) {
		snprintf(err, errlen, "cannot create a run directory in %s: %s", commit_dir,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int store_commit(const char *commit_dir, const char *tmp, unsigned *run, char *err, size_t errlen)
{
	char path[4096];

	for (unsigned n = 0; n < 100000; n++) {
		snprintf(path, sizeof(path), "%s/%u", commit_dir, n);
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0) {
			*run = n;
			return 0;
		}
		if (errno != EEXIST && errno != ENOTEMPTY) {
			snprintf(err, errlen, "cannot move %s to %s: %s", tmp, path,
				 strerror(errno));
			return -1;
		}
	}
	snprintf(err, errlen, "%s: no free run number", commit_dir);
	return -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void store_abort(const char *tmp)
{
	if (tmp && tmp[0])
		nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
