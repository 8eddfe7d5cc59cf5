#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fileio_shared {
	int fd;
	const char *tmpdir;
};

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static bool direct_unsupported(int flags)
{
	return (flags & O_DIRECT) && errno == EINVAL;
}

/* size bytes of zeros from offset 0, through a page-aligned buffer so that an O_DIRECT fd takes
 * them too (sizes here are multiples of 4 KiB).  Data, not ftruncate: a hole reads through another
 * path (tmpfs maps the zero page) than the page cache will-it-scale's tests read. */
static int fill(int fd, uint64_t size)
{
	const size_t chunk = 64 << 10;
	void *buf;
	int ret = 0;

	if (posix_memalign(&buf, page_size(), chunk)) {
		errno = ENOMEM;
		return -1;
	}
	memset(buf, 0, chunk);
	for (uint64_t off = 0; off < size && !ret;) {
		size_t n = size - off < chunk ? (size_t)(size - off) : chunk;
		ssize_t w = pwrite(fd, buf, n, (off_t)off);

		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;
			ret = -1;
		} else {
			off += (uint64_t)w;
		}
	}
	free(buf);
	return ret;
}

static int new_fileio(struct tc_copy *copy, int fd, off_t offset)
{
	struct fileio *f = malloc(sizeof(*f));
	void *buf = NULL;

	if (!f || posix_memalign(&buf, page_size(), FILEIO_BUFLEN)) {
		free(f);
		close(fd);
		return tc_error(copy, "out of memory");
	}
	memset(buf, 0, FILEIO_BUFLEN);
	*f = (struct fileio){.fd = fd, .offset = offset, .buf = buf};
	copy->priv = f;
	return 0;
}

int fileio_shared_file(struct tc_run *run, uint64_t size, int copy_flags)
{
	struct fileio_shared *s = malloc(sizeof(*s));

	if (!s)
		return tc_run_error(run, "out of memory");
	if (size == FILEIO_PER_COPY)
		size = (uint64_t)page_size() * run->nr_copies;
	s->tmpdir = run->tmpdir;
	s->fd = tc_tmpfile(run->tmpdir, "shared", 0);
	if (s->fd < 0)
		return tc_run_error(run, "cannot create a temp file in %s: %m", run->tmpdir);
	if (fill(s->fd, size))
		return tc_run_error(run, "cannot write %llu KiB to a temp file in %s: %m",
				    (unsigned long long)size >> 10, run->tmpdir);
	if (copy_flags & O_DIRECT) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", s->fd);
		fd = open(path, copy_flags | O_CLOEXEC);
		if (fd < 0 && direct_unsupported(copy_flags)) {
			tc_run_error(run, "O_DIRECT not supported on %s: %m", run->tmpdir);
			return TC_SKIP;
		}
		if (fd < 0)
			return tc_run_error(run, "cannot reopen a temp file in %s: %m",
					    run->tmpdir);
		close(fd);
	}
	run->shared = s;
	return 0;
}

int fileio_open_shared(struct tc_copy *copy, int flags, enum fileio_at at)
{
	const struct fileio_shared *s = copy->shared;
	char path[64];
	int fd;

	/* The unlinked file has no name left; its /proc link opens it again all the same. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", s->fd);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0 && direct_unsupported(flags)) {
		tc_error(copy, "O_DIRECT not supported on %s: %m", s->tmpdir);
		return TC_SKIP;
	}
	if (fd < 0)
		return tc_error(copy, "cannot reopen the shared temp file through %s: %m", path);
	return new_fileio(copy, fd,
			  at == FILEIO_AT_COPY_PAGE ? (off_t)page_size() * copy->index : 0);
}

int fileio_open_private(struct tc_copy *copy, uint64_t size, int extra_flags)
{
	int fd = tc_tmpfile(copy->tmpdir, "file", 0);

	if (fd < 0)
		return tc_error(copy, "cannot create a temp file in %s: %m", copy->tmpdir);
	if (extra_flags && fcntl(fd, F_SETFL, extra_flags)) {
		bool skip = direct_unsupported(extra_flags);

		close(fd);
		if (!skip)
			return tc_error(copy, "fcntl(F_SETFL, 0%o) on a temp file in %s: %m",
					extra_flags, copy->tmpdir);
		tc_error(copy, "O_DIRECT not supported on %s: %m", copy->tmpdir);
		return TC_SKIP;
	}
	if (fill(fd, size)) {
		close(fd);
		return tc_error(copy, "cannot write %llu KiB to a temp file in %s: %m",
				(unsigned long long)size >> 10, copy->tmpdir);
	}
	return new_fileio(copy, fd, 0);
}

/* Sequential reads through the file; the read that meets the end counts too and rewinds. */
int fileio_read_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	const struct fileio *f = copy->priv;

	for (;;) {
		ssize_t n = read(f->fd, f->buf, FILEIO_BUFLEN);

		if (n < 0)
			return tc_error(copy, "read: %m");
		if (n == 0 && lseek(f->fd, 0, SEEK_SET) < 0)
			return tc_error(copy, "lseek: %m");
		(*iterations)++;
	}
}

int fileio_pread_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	const struct fileio *f = copy->priv;

	while (pread(f->fd, f->buf, FILEIO_BUFLEN, f->offset) == FILEIO_BUFLEN)
		(*iterations)++;
	return tc_error(copy, "pread of %d bytes at %lld: %m", FILEIO_BUFLEN, (long long)f->offset);
}

int fileio_pwrite_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	const struct fileio *f = copy->priv;

	while (pwrite(f->fd, f->buf, FILEIO_BUFLEN, f->offset) == FILEIO_BUFLEN)
		(*iterations)++;
	return tc_error(copy, "pwrite of %d bytes at %lld: %m", FILEIO_BUFLEN,
			(long long)f->offset);
}

int fileio_readseek_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	const struct fileio *f = copy->priv;

	for (;;) {
		if (lseek(f->fd, f->offset, SEEK_SET) < 0)
			return tc_error(copy, "lseek to %lld: %m", (long long)f->offset);
		if (read(f->fd, f->buf, FILEIO_BUFLEN) != FILEIO_BUFLEN)
			return tc_error(copy, "read of %d bytes at %lld: %m", FILEIO_BUFLEN,
					(long long)f->offset);
		(*iterations)++;
	}
}

int fileio_writeseek_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	const struct fileio *f = copy->priv;

	for (;;) {
		if (lseek(f->fd, f->offset, SEEK_SET) < 0)
			return tc_error(copy, "lseek to %lld: %m", (long long)f->offset);
		if (write(f->fd, f->buf, FILEIO_BUFLEN) != FILEIO_BUFLEN)
			return tc_error(copy, "write of %d bytes at %lld: %m", FILEIO_BUFLEN,
					(long long)f->offset);
		(*iterations)++;
	}
}

int fileio_lseek_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	const struct fileio *f = copy->priv;

	while (lseek(f->fd, 0, SEEK_SET) == 0)
		(*iterations)++;
	return tc_error(copy, "lseek: %m");
}

/* A write lock on byte 0, then its unlock: two ops, as will-it-scale counts them. */
int fileio_lock_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	const struct fileio *f = copy->priv;
	struct flock lock = {.l_whence = SEEK_SET, .l_start = 0, .l_len = 1};

	for (;;) {
		lock.l_type = F_WRLCK;
		if (fcntl(f->fd, F_SETLKW, &lock))
			return tc_error(copy, "fcntl(F_SETLKW, F_WRLCK): %m");
		lock.l_type = F_UNLCK;
		if (fcntl(f->fd, F_SETLKW, &lock))
			return tc_error(copy, "fcntl(F_SETLKW, F_UNLCK): %m");
		*iterations += 2;
	}
}

/* ---- by name ------------------------------------------------------------------------ */

int fileio_run_dir(struct tc_run *run, const char *tag, bool shared_file)
{
	char *dir = malloc(PATH_MAX), path[PATH_MAX + 8];

	if (!dir)
		return tc_run_error(run, "out of memory");
	if (tc_run_dir(run, tag, dir, PATH_MAX))
		return -1;
	if (shared_file) {
		snprintf(path, sizeof(path), "%s/shared", dir);
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		if (fd < 0)
			return tc_run_error(run, "cannot create %s: %m", path);
		close(fd);
	}
	run->shared = dir;
	return 0;
}

int fileio_name_prepare(struct tc_copy *copy, enum fileio_name name, bool create)
{
	const char *dir = copy->shared;
	char *path = malloc(PATH_MAX);
	int len;

	if (!path)
		return tc_error(copy, "out of memory");
	switch (name) {
	case FILEIO_NAME_PER_COPY:
		len = snprintf(path, PATH_MAX, "%s/copy%u", dir, copy->index);
		break;
	case FILEIO_NAME_PER_COPY_DIR:
		len = snprintf(path, PATH_MAX, "%s/copy%u", dir, copy->index);
		if (len < PATH_MAX && mkdir(path, 0700)) {
			tc_error(copy, "cannot create the directory %s: %m", path);
			free(path);
			return -1;
		}
		len = snprintf(path, PATH_MAX, "%s/copy%u/file", dir, copy->index);
		break;
	default:
		len = snprintf(path, PATH_MAX, "%s/shared", dir);
		break;
	}
	if (len >= PATH_MAX) {
		free(path);
		return tc_error(copy, "path too long in %s", dir);
	}
	if (create) {
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		if (fd < 0) {
			tc_error(copy, "cannot create %s: %m", path);
			free(path);
			return -1;
		}
		close(fd);
	}
	copy->priv = path;
	return 0;
}

int fileio_open_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	const char *path = copy->priv;

	for (;;) {
		int fd = open(path, O_RDWR);

		if (fd < 0)
			return tc_error(copy, "open %s: %m", path);
		close(fd);
		(*iterations)++;
	}
}

int fileio_unlink_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	const char *path = copy->priv;

	for (;;) {
		int fd = open(path, O_RDWR | O_CREAT, 0600);

		if (fd < 0)
			return tc_error(copy, "create %s: %m", path);
		close(fd);
		if (unlink(path))
			return tc_error(copy, "unlink %s: %m", path);
		(*iterations)++;
	}
}
