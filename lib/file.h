/* Whole files: read in one piece, or written whole or not at all. */
#ifndef SCALEBENCH_FILE_H
#define SCALEBENCH_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* path made absolute against the working directory (symlinks resolved when it exists; as
 * given when too long for out, where the kernel will say ENAMETOOLONG). */
void path_absolute(const char *path, char *out, size_t len);

/* A path formatted into out (len bytes): 0, or -1 with errno ENAMETOOLONG and err saying
 * "<the path as far as it fits>...: path too long" when it does not fit, never a cut path. */
int path_fmt(char *out, size_t len, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* All of path, NUL-terminated and malloc'd, in *buf; its length in *len (len may be NULL).
 * Only a regular file is read: a directory, FIFO, device or socket is refused at once (a FIFO
 * would block us forever, a directory reports a size no allocation can meet).  The size the file
 * reports is only a hint: it is read to its end, as procfs and sysfs files report 0, and refused
 * when it holds more than max_bytes.  -1 with errno set (EINVAL: not a regular file, EFBIG:
 * over max_bytes) and err (may be NULL) saying "cannot read PATH: what was wrong". */
int file_read(const char *path, size_t max_bytes, char **buf, size_t *len, char *err,
	      size_t errlen);

/* The same for a file the user named (a job file): a pipe is read too, to its end
 * (`scalebench run <(make-job)`); directories and devices are still refused. */
int file_read_input(const char *path, size_t max_bytes, char **buf, size_t *len, char *err,
		    size_t errlen);

/* Replace path with len bytes of data, whole or not at all: they go to a temp file beside it,
 * which is synced and renamed over it.  On any failure path is untouched and the temp file
 * removed.  A new file gets mode 0666 less the umask, as open(2) would give it (mkostemp's
 * temp file is 0600).  -1 with errno set and err naming the file. */
int file_write(const char *path, const void *data, size_t len, char *err, size_t errlen);

/* The two ends of such a write, for writers that stream (outfile.h):
 * file_tmp_create makes the temp file for path, exclusively and under a random name
 * (PATH.tmp.XXXXXX, in tmp of tmplen bytes): its descriptor, or -1 with err naming path.
 * file_tmp_rename puts the written, synced and closed temp file in place of path; on failure
 * it removes the temp file.  0, or -1 with err. */
int file_tmp_create(const char *path, char *tmp, size_t tmplen, char *err, size_t errlen);
int file_tmp_rename(const char *tmp, const char *path, char *err, size_t errlen);

/* The process's umask, read without changing it (umask(2) can only set it, and setting it
 * back and forth races with threads creating files meanwhile). */
mode_t file_umask(void);

/* The last max_lines lines of the file at path (at most its last 64 KiB), trailing newlines
 * dropped, control characters but tab and newline as spaces: text fit for a message or a log.
 * malloc'd; "" when the file is empty or unreadable, NULL when memory runs out. */
char *file_tail(const char *path, unsigned max_lines);

/* Remove a directory tree, not following symlinks (what a link in it points to is not ours to
 * remove); an entry already gone is fine.  0, or -1 with errno set by the first removal that
 * failed (the rest is still tried). */
int file_remove_tree(const char *path);

#endif
