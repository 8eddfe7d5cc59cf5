#include "file.h"

#include <errno.h>
#include <stdarg.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file that cannot be read whole is. */
static const char *not_regular(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory, not a regular file";
	if (S_ISFIFO(mode))
		return "a FIFO, not a regular file";
	if (S_ISCHR(mode))
		return "a character device, not a regular file";
	if (S_ISBLK(mode))
		return "a block device, not a regular file";
	if (S_ISSOCK(mode))
		return "a socket, not a regular file";
	return "not a regular file";
}

static int read_whole(const char *path, bool allow_pipe, size_t max_bytes, char **buf, size_t *len,
		      char *err, size_t errlen)
{
	/* Room for one byte past the limit, to tell a file of max_bytes from a longer one. */
	size_t limit = max_bytes > SIZE_MAX - 2 ? SIZE_MAX : max_bytes + 2;
	size_t cap = 16384, n = 0;
	char *b = NULL, why[64] = "";
	struct stat st;
	int fd, saved;

	*buf = NULL;
	if (len)
		*len = 0;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer before we can refuse it. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		goto fail;
	if (allow_pipe && S_ISFIFO(st.st_mode)) {
		/* Named by the user (`run <(gen-job)`): wait for the writer, read to its end. */
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
			goto fail;
	} else if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		snprintf(why, sizeof(why), "%s", not_regular(st.st_mode));
		goto fail;
	}
	if ((uintmax_t)st.st_size > max_bytes) {
		errno = EFBIG;
		goto fail;
	}
	if (st.st_size > 0 && (uintmax_t)st.st_size < limit - 1)
		cap = (size_t)st.st_size + 2;
	if (cap > limit)
		cap = limit;
	b = malloc(cap);
	if (!b)
		goto fail;
	for (;;) {
		ssize_t r;

		if (cap - n < 2) {
			size_t grown = cap > limit / 2 ? limit : cap * 2;
			char *nb = realloc(b, grown);

			if (!nb)
				goto fail;
			b = nb;
			cap = grown;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max_bytes) {
			errno = EFBIG;
			goto fail;
		}
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	if (len)
		*len = n;
	return 0;
fail:
	saved = errno;
	if (saved == EFBIG)
		snprintf(why, sizeof(why), "larger than %zu bytes", max_bytes);
	if (err && errlen)
		snprintf(err, errlen, "cannot read %s: %s", path, why[0] ? why : strerror(saved));
	if (fd >= 0)
		close(fd);
	free(b);
	errno = saved;
	return -1;
}

int file_read(const char *path, size_t max_bytes, char **buf, size_t *len, char *err, size_t errlen)
{
	return read_whole(path, false, max_bytes, buf, len, err, errlen);
}

int file_read_input(const char *path, size_t max_bytes, char **buf, size_t *len, char *err,
		    size_t errlen)
{
	return read_whole(path, true, max_bytes, buf, len, err, errlen);
}

int file_tmp_create(const char *path, char *tmp, size_t tmplen, char *err, size_t errlen)
{
	int fd, saved;

	if (snprintf(tmp, tmplen, "%s.tmp.XXXXXX", path) >= (int)tmplen) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
		tmp[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	/* mkostemp: a random name, created with O_EXCL, so no file or symlink that is there
	 * already (a fixed PATH.tmp could be one) is ever written through. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(saved));
		tmp[0] = '\0';
		errno = saved;
		return -1;
	}
	fchmod(fd, 0666 & ~file_umask());
	return fd;
}

mode_t file_umask(void)
{
	static const char key[] = "Umask:";
	char *text = NULL, *p;
	size_t len;
	mode_t m;

	/* Linux 4.7 and later say it in /proc/self/status. */
	if (file_read("/proc/self/status", 1 << 16, &text, &len, NULL, 0) == 0 &&
	    (p = strstr(text, key))) {
		m = (mode_t)strtoul(p + sizeof(key) - 1, NULL, 8);
		free(text);
		return m & 0777;
	}
	free(text);
	m = umask(022);
	umask(m);
	return m;
}

int file_tmp_rename(const char *tmp, const char *path, char *err, size_t errlen)
{
	int saved;

	if (!rename(tmp, path))
		return 0;
	saved = errno;
	snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(saved));
	unlink(tmp);
	errno = saved;
	return -1;
}

int file_write(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
	size_t tmplen = strlen(path) + sizeof(".tmp.XXXXXX");
	char *tmp = malloc(tmplen);
	const char *p = data;
	size_t off = 0;
	int fd, saved;

	if (!tmp) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(ENOMEM));
		errno = ENOMEM;
		return -1;
	}
	fd = file_tmp_create(path, tmp, tmplen, err, errlen);
	if (fd < 0) {
		saved = errno;
		free(tmp);
		errno = saved;
		return -1;
	}
	while (off < len) {
		ssize_t w = write(fd, p + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = EIO;
			goto fail;
		}
		off += (size_t)w;
	}
	if (fsync(fd))
		goto fail;
	saved = close(fd);
	fd = -1;
	if (saved)
		goto fail;
	saved = file_tmp_rename(tmp, path, err, errlen) ? errno : 0;
	free(tmp);
	errno = saved;
	return saved ? -1 : 0;
fail:
	saved = errno;
	snprintf(err, errlen, "cannot write %s: %s", path, strerror(saved));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	errno = saved;
	return -1;
}

static int remove_failed_errno;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) && errno != ENOENT && !remove_failed_errno)
		remove_failed_errno = errno;
	return 0;
}

int file_remove_tree(const char *path)
{
	remove_failed_errno = 0;
	if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT &&
	    !remove_failed_errno)
		remove_failed_errno = errno;
	if (remove_failed_errno) {
		errno = remove_failed_errno;
		return -1;
	}
	return 0;
}

void path_absolute(const char *path, char *out, size_t len)
{
	char cwd[PATH_MAX];
	int n;

	if (realpath(path, out) && strlen(out) < len)
		return;
	n = path[0] == '/' || !getcwd(cwd, sizeof(cwd)) ? snprintf(out, len, "%s", path)
							 : snprintf(out, len, "%s/%s", cwd, path);
	if (n < 0 || (size_t)n >= len)
		snprintf(out, len, "%s", path);
}

int path_fmt(char *out, size_t len, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < len)
		return 0;
	size_t shown = len > 80 ? 80 : len ? len - 1 : 0; /* what vsnprintf kept, up to 80 */

	snprintf(err, errlen, "%.*s...: path too long", (int)shown, len ? out : "");
	if (len)
		out[0] = '\0';
	errno = ENAMETOOLONG;
	return -1;
}

char *file_tail(const char *path, unsigned max_lines)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char *text = malloc(65537), *p;
	off_t size;
	ssize_t n = 0;
	unsigned lines = 0;

	if (!text) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (fd >= 0) {
		size = lseek(fd, 0, SEEK_END);
		n = pread(fd, text, 65536, size > 65536 ? size - 65536 : 0);
		close(fd);
	}
	text[n > 0 ? n : 0] = '\0';
	p = text + strlen(text);
	while (p > text && (p[-1] == '\n' || p[-1] == '\r'))
		*--p = '\0';
	while (p > text && lines < max_lines)
		if (*--p == '\n')
			lines++;
	if (*p == '\n')
		p++;
	memmove(text, p, strlen(p) + 1);
	for (p = text; *p; p++)
		if (((unsigned char)*p < ' ' && *p != '\n' && *p != '\t') || *p == 0x7f)
			*p = ' ';
	return text;
}
