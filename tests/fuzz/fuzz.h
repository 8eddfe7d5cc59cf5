/* What the libFuzzer harnesses share: a file holding the input for code that reads a path, and
 * a scratch directory for harnesses that build trees.  Header-only, so that a harness stays one
 * file that the Makefile picks up by its name (tests/fuzz/fuzz_NAME.c). */
#ifndef SCALEBENCH_FUZZ_H
#define SCALEBENCH_FUZZ_H

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A harness that cannot set itself up has nothing to test: stop loudly, not fuzz nothing. */
static inline void fuzz_die(const char *what)
{
	perror(what);
	abort();
}

static inline int fuzz_rm_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st, (void)type, (void)f;
	return remove(path);
}

/* path and everything below it; symbolic links are removed, not followed. */
static inline void fuzz_rm_tree(const char *path)
{
	nftw(path, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* What dir holds, leaving dir itself. */
static inline void fuzz_rm_children(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fuzz_rm_tree(path);
	}
	closedir(d);
}

static char fuzz_scratch_dir[PATH_MAX];

static inline void fuzz_scratch_remove(void)
{
	if (fuzz_scratch_dir[0])
		fuzz_rm_tree(fuzz_scratch_dir);
}

/* A private directory for the whole fuzzing process, removed at exit: under $TMPDIR (the
 * runner script points it at a directory it removes, which also covers a crash), else in
 * /dev/shm, which keeps the per-input file churn off the disk. */
static inline const char *fuzz_scratch(void)
{
	const char *base = getenv("TMPDIR");

	if (fuzz_scratch_dir[0])
		return fuzz_scratch_dir;
	if (!base || !*base)
		base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(fuzz_scratch_dir, sizeof(fuzz_scratch_dir), "%s/scalebench-fuzz.XXXXXX", base);
	if (!mkdtemp(fuzz_scratch_dir))
		fuzz_die(fuzz_scratch_dir);
	atexit(fuzz_scratch_remove);
	return fuzz_scratch_dir;
}

/* path (relative to dir) holding exactly len bytes of data. */
static inline int fuzz_write(const char *dir, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path))
		return -1;
	/* O_NONBLOCK: a FIFO the input made at this path refuses us instead of waiting. */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
	if (fd < 0)
		return -1;
	if (len && write(fd, data, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* The input as a regular file, for readers that take a path (the scratch directory is on
 * tmpfs when the machine has one); its path. */
static inline const char *fuzz_input_file(const uint8_t *data, size_t size)
{
	static char path[PATH_MAX];

	if (!path[0] && snprintf(path, sizeof(path), "%s/input", fuzz_scratch()) >= (int)sizeof(path))
		fuzz_die("the scratch directory's name is too long");
	if (fuzz_write(fuzz_scratch(), "input", data, size))
		fuzz_die(path);
	return path;
}

/* A reader that cannot open the input file tests nothing: stop instead of passing.  err is
 * the reader's message; file_read's own start "cannot read PATH:", dmesg's "cannot open PATH:"
 * (the input's words never come first). */
static inline void fuzz_check_opened(const char *err)
{
	if (!strncmp(err, "cannot read ", 12) || !strncmp(err, "cannot open ", 12)) {
		fprintf(stderr, "the harness's input file cannot be read: %s\n", err);
		abort();
	}
}

#endif
