/* The results index's sum (index_sum.h): chunk CRCs, and the VFS that notes which chunks the
 * index's writer wrote. */
#include "index_sum.h"

#include "../lib/file.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* ---- the chunks written ---- */

void index_writes_clear(struct index_writes *w)
{
	if (w->chunk)
		memset(w->chunk, 0, w->n);
	w->failed = false;
}

void index_writes_free(struct index_writes *w)
{
	free(w->chunk);
	memset(w, 0, sizeof(*w));
}

static void note_chunks(struct index_writes *w, sqlite3_int64 off, sqlite3_int64 len)
{
	size_t first, last;

	if (off < 0 || len <= 0)
		return;
	first = (size_t)(off / INDEX_SUM_CHUNK);
	last = (size_t)((off + len - 1) / INDEX_SUM_CHUNK);
	if (last >= w->n) {
		size_t n = w->n ? w->n : 1024;
		unsigned char *c;

		while (n <= last)
			n *= 2;
		c = realloc(w->chunk, n);
		if (!c) {
			w->failed = true;
			return;
		}
		memset(c + w->n, 0, n - w->n);
		w->chunk = c;
		w->n = n;
	}
	memset(w->chunk + first, 1, last - first + 1);
}

/* ---- the VFS: the system's, with the main database's writes noted ---- */

struct track_file {
	sqlite3_file base;
	struct index_writes *w; /* NULL: not noted (a journal, or no one asked) */
	sqlite3_file *real;	/* the system VFS's file, allocated right after this */
};

static sqlite3_vfs *real_vfs;
static struct index_writes *armed; /* for the next main database opened */

#define REAL(f) (((struct track_file *)(f))->real)

static int t_close(sqlite3_file *f)
{
	return REAL(f)->pMethods->xClose(REAL(f));
}

static int t_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	return REAL(f)->pMethods->xRead(REAL(f), buf, n, off);
}

static int t_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
	struct track_file *t = (struct track_file *)f;

	/* Noted before: a write that fails half-way has changed what it may have. */
	if (t->w)
		note_chunks(t->w, off, n);
	return t->real->pMethods->xWrite(t->real, buf, n, off);
}

static int t_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	struct track_file *t = (struct track_file *)f;

	if (t->w) /* the chunk the new end falls in is shorter (or longer) now */
		note_chunks(t->w, size, 1);
	return t->real->pMethods->xTruncate(t->real, size);
}

static int t_sync(sqlite3_file *f, int flags)
{
	return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int t_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int t_lock(sqlite3_file *f, int level)
{
	return REAL(f)->pMethods->xLock(REAL(f), level);
}

static int t_unlock(sqlite3_file *f, int level)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), level);
}

static int t_check_reserved(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int t_file_control(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int t_sector_size(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int t_device(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

/* No shared memory (the index is never in WAL mode: index.c) and no memory mapping (mmap_size
 * stays 0): iVersion 1. */
static const sqlite3_io_methods track_io = {
    .iVersion = 1,
    .xClose = t_close,
    .xRead = t_read,
    .xWrite = t_write,
    .xTruncate = t_truncate,
    .xSync = t_sync,
    .xFileSize = t_file_size,
    .xLock = t_lock,
    .xUnlock = t_unlock,
    .xCheckReservedLock = t_check_reserved,
    .xFileControl = t_file_control,
    .xSectorSize = t_sector_size,
    .xDeviceCharacteristics = t_device,
};

static int v_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	struct track_file *t = (struct track_file *)f;
	int rc;

	(void)vfs;
	t->real = (sqlite3_file *)(t + 1);
	t->w = NULL;
	rc = real_vfs->xOpen(real_vfs, name, t->real, flags, out);
	if (!t->real->pMethods) {
		f->pMethods = NULL;
		return rc;
	}
	if (flags & SQLITE_OPEN_MAIN_DB) {
		t->w = armed;
		armed = NULL;
	}
	f->pMethods = &track_io;
	return rc;
}

static int v_delete(sqlite3_vfs *vfs, const char *name, int sync)
{
	(void)vfs;
	return real_vfs->xDelete(real_vfs, name, sync);
}

static int v_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	(void)vfs;
	return real_vfs->xAccess(real_vfs, name, flags, out);
}

static int v_full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	(void)vfs;
	return real_vfs->xFullPathname(real_vfs, name, n, out);
}

static void *v_dlopen(sqlite3_vfs *vfs, const char *name)
{
	(void)vfs;
	return real_vfs->xDlOpen(real_vfs, name);
}

static void v_dlerror(sqlite3_vfs *vfs, int n, char *msg)
{
	(void)vfs;
	real_vfs->xDlError(real_vfs, n, msg);
}

static void (*v_dlsym(sqlite3_vfs *vfs, void *h, const char *sym))(void)
{
	(void)vfs;
	return real_vfs->xDlSym(real_vfs, h, sym);
}

static void v_dlclose(sqlite3_vfs *vfs, void *h)
{
	(void)vfs;
	real_vfs->xDlClose(real_vfs, h);
}

static int v_randomness(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return real_vfs->xRandomness(real_vfs, n, out);
}

static int v_sleep(sqlite3_vfs *vfs, int us)
{
	(void)vfs;
	return real_vfs->xSleep(real_vfs, us);
}

static int v_current_time(sqlite3_vfs *vfs, double *t)
{
	(void)vfs;
	return real_vfs->xCurrentTime(real_vfs, t);
}

static int v_last_error(sqlite3_vfs *vfs, int n, char *msg)
{
	(void)vfs;
	return real_vfs->xGetLastError ? real_vfs->xGetLastError(real_vfs, n, msg) : 0;
}

static int v_current_time64(sqlite3_vfs *vfs, sqlite3_int64 *t)
{
	(void)vfs;
	if (real_vfs->iVersion >= 2 && real_vfs->xCurrentTimeInt64)
		return real_vfs->xCurrentTimeInt64(real_vfs, t);
	double d;
	int rc = real_vfs->xCurrentTime(real_vfs, &d);

	*t = (sqlite3_int64)(d * 86400000.0);
	return rc;
}

static sqlite3_vfs track_vfs = {
    .iVersion = 2,
    .mxPathname = 0, /* the system's, at registration */
    .zName = "scalebench-index",
    .xOpen = v_open,
    .xDelete = v_delete,
    .xAccess = v_access,
    .xFullPathname = v_full_pathname,
    .xDlOpen = v_dlopen,
    .xDlError = v_dlerror,
    .xDlSym = v_dlsym,
    .xDlClose = v_dlclose,
    .xRandomness = v_randomness,
    .xSleep = v_sleep,
    .xCurrentTime = v_current_time,
    .xGetLastError = v_last_error,
    .xCurrentTimeInt64 = v_current_time64,
};

const char *index_sum_vfs(struct index_writes *w)
{
	if (!real_vfs) {
		sqlite3_vfs *sys = sqlite3_vfs_find(NULL);

		if (!sys)
			return NULL;
		track_vfs.szOsFile = (int)sizeof(struct track_file) + sys->szOsFile;
		track_vfs.mxPathname = sys->mxPathname;
		real_vfs = sys;
		if (sqlite3_vfs_register(&track_vfs, 0) != SQLITE_OK) {
			real_vfs = NULL;
			return NULL;
		}
	}
	armed = w;
	return track_vfs.zName;
}

/* ---- sums ---- */

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

void index_sum_of_stat(const struct stat *st, struct index_sum *s)
{
	s->ino = (int64_t)st->st_ino;
	s->size = (int64_t)st->st_size;
	s->mtime_ns = ts_ns(&st->st_mtim);
	s->ctime_ns = ts_ns(&st->st_ctim);
}

bool index_sum_same_file(const struct index_sum *a, const struct index_sum *b)
{
	return a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns &&
	       a->ctime_ns == b->ctime_ns;
}

bool index_sum_same_bytes(const struct index_sum *a, const struct index_sum *b)
{
	return a->size == b->size && a->ncrc == b->ncrc && a->crc && b->crc &&
	       !memcmp(a->crc, b->crc, a->ncrc * sizeof(*a->crc));
}

static size_t chunks_of(int64_t size)
{
	return (size_t)((size + INDEX_SUM_CHUNK - 1) / INDEX_SUM_CHUNK);
}

static int64_t chunk_len(int64_t size, size_t i)
{
	int64_t left = size - (int64_t)i * INDEX_SUM_CHUNK;

	return left < INDEX_SUM_CHUNK ? left : INDEX_SUM_CHUNK;
}

static int read_at(int fd, unsigned char *buf, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

int index_sum_compute(const char *path, const struct stat *st, const struct index_sum *base,
		      const struct index_writes *w, struct index_sum *s)
{
	unsigned char *buf = NULL;
	struct stat now;
	size_t n = chunks_of(st->st_size);
	int fd, ret = -1;

	memset(s, 0, sizeof(*s));
	index_sum_of_stat(st, s);
	/* Only a base of this very file, with every write since noted, spares a read. */
	if (base && (!w || w->failed || !base->crc || base->ino != s->ino))
		base = NULL;
	s->crc = malloc((n ? n : 1) * sizeof(*s->crc));
	buf = malloc(INDEX_SUM_CHUNK);
	fd = s->crc && buf ? open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	if (fd < 0 || fstat(fd, &now) || !S_ISREG(now.st_mode) || now.st_ino != st->st_ino ||
	    now.st_size != st->st_size)
		goto out;
	for (size_t i = 0; i < n; i++) {
		int64_t len = chunk_len(st->st_size, i);

		if (base && i < base->ncrc && chunk_len(base->size, i) == len &&
		    !(i < w->n && w->chunk[i])) {
			s->crc[i] = base->crc[i];
			continue;
		}
		if (read_at(fd, buf, (size_t)len, (off_t)i * INDEX_SUM_CHUNK))
			goto out;
		s->crc[i] = (uint32_t)crc32(crc32(0, Z_NULL, 0), buf, (uInt)len);
	}
	s->ncrc = n;
	/* Read whole: the file is still as long as it was. */
	ret = fstat(fd, &now) || now.st_size != st->st_size ? -1 : 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	if (ret)
		index_sum_free(s);
	return ret;
}

#define SUM_HEADER "scalebench index sum 2 ino %lld size %lld mtime_ns %lld ctime_ns %lld chunk %lld crc32\n"

/* A sum file is its header and 8 hex digits a chunk: at most this much (a 2 TB index). */
#define SUM_FILE_MAX ((size_t)256 << 20)

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

bool index_sum_read(const char *sum_path, struct index_sum *s)
{
	struct stat st;
	char *text = NULL, *p;
	long long ino, size, mtime, ctime, chunk;
	size_t got = 0, n;
	int used = 0;
	bool ok = false;
	int fd = open(sum_path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	memset(s, 0, sizeof(*s));
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (size_t)st.st_size > SUM_FILE_MAX || !(text = malloc((size_t)st.st_size + 1)))
		goto out;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, text + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			goto out;
		got += (size_t)r;
	}
	text[got] = '\0';
	if (sscanf(text, SUM_HEADER "%n", &ino, &size, &mtime, &ctime, &chunk, &used) != 5 ||
	    !used || chunk != INDEX_SUM_CHUNK || size < 0)
		goto out;
	n = chunks_of(size);
	p = text + used;
	if (got - (size_t)used != 8 * n + 1 || p[8 * n] != '\n')
		goto out;
	s->crc = malloc((n ? n : 1) * sizeof(*s->crc));
	if (!s->crc)
		goto out;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = 0;

		for (int k = 0; k < 8; k++) {
			int d = hex_digit(p[8 * i + k]);

			if (d < 0)
				goto out;
			v = v << 4 | (uint32_t)d;
		}
		s->crc[i] = v;
	}
	s->ncrc = n;
	s->ino = ino;
	s->size = size;
	s->mtime_ns = mtime;
	s->ctime_ns = ctime;
	ok = true;
out:
	close(fd);
	free(text);
	if (!ok)
		index_sum_free(s);
	return ok;
}

int index_sum_write(const char *sum_path, const struct index_sum *s, char *err, size_t errlen)
{
	char head[256];
	int hl = snprintf(head, sizeof(head), SUM_HEADER, (long long)s->ino, (long long)s->size,
			  (long long)s->mtime_ns, (long long)s->ctime_ns,
			  (long long)INDEX_SUM_CHUNK);
	size_t len = (size_t)hl + 8 * s->ncrc + 1;
	char *text = malloc(len + 1);
	int rc;

	if (!text) {
		snprintf(err, errlen, "%s: %s", sum_path, strerror(ENOMEM));
		return -1;
	}
	memcpy(text, head, (size_t)hl);
	/* (by hand: snprintf's 1,700 instructions a chunk were most of a night's sum) */
	for (size_t i = 0; i < s->ncrc; i++)
		for (int k = 0; k < 8; k++)
			text[hl + 8 * i + k] = "0123456789abcdef"[(s->crc[i] >> (28 - 4 * k)) & 15];
	text[len - 1] = '\n';
	rc = file_write(sum_path, text, len, err, errlen);
	free(text);
	return rc;
}

void index_sum_free(struct index_sum *s)
{
	free(s->crc);
	memset(s, 0, sizeof(*s));
}

int index_sum_copy(struct index_sum *dst, const struct index_sum *src)
{
	*dst = *src;
	dst->crc = NULL;
	if (!src->crc)
		return 0;
	dst->crc = malloc((src->ncrc ? src->ncrc : 1) * sizeof(*dst->crc));
	if (!dst->crc) {
		memset(dst, 0, sizeof(*dst));
		return -1;
	}
	memcpy(dst->crc, src->crc, src->ncrc * sizeof(*dst->crc));
	return 0;
}
