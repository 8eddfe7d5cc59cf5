/* The results index's sum (index.h, INDEX_SUM_FILE): what its last writer left the index file
 * as, its identity (inode, size, mtime, ctime) and a CRC-32 of each INDEX_SUM_CHUNK bytes of
 * it, so that a reader can tell the file from one changed by anything but scalebench.
 *
 * One CRC per chunk, not one of the whole file: a writer that added a night's runs to a large
 * index changed a few of its pages, and reads back only the chunks it wrote (a SQLite VFS
 * that passes every call to the system's and notes the offsets of the index's writes), not
 * the whole file (at 100 jobs, gigabytes every night). */
#ifndef SCALEBENCH_INDEX_SUM_H
#define SCALEBENCH_INDEX_SUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define INDEX_SUM_CHUNK ((int64_t)65536)

struct index_sum {
	int64_t ino, size, mtime_ns, ctime_ns;
	uint32_t *crc; /* ncrc of them: chunk i is bytes [i, i + 1) x INDEX_SUM_CHUNK, the last
			* one what is left */
	size_t ncrc;
};

/* The chunks of a file written since they were summed. */
struct index_writes {
	unsigned char *chunk; /* by chunk: 1 when written */
	size_t n;	      /* entries of chunk */
	bool failed;	      /* a write could not be noted (no memory): every chunk is suspect */
};
void index_writes_clear(struct index_writes *w);
void index_writes_free(struct index_writes *w);

/* The VFS to open the index through (sqlite3_open_v2's zVfs) so that the writes to the main
 * database file opened next are noted in *w, until it is closed: its name, or NULL when it
 * cannot be registered. */
const char *index_sum_vfs(struct index_writes *w);

/* The identity of the file st describes. */
void index_sum_of_stat(const struct stat *st, struct index_sum *s);
/* Whether a and b are the same file, unchanged (st_dev is left out: an NFS client numbers its
 * mounts as it likes). */
bool index_sum_same_file(const struct index_sum *a, const struct index_sum *b);
/* Whether a and b hold the same bytes (size and every chunk's CRC). */
bool index_sum_same_bytes(const struct index_sum *a, const struct index_sum *b);

/* The CRCs of the regular file at path, which must be the file st describes and hold
 * st->st_size bytes, into s (its identity too).  base (may be NULL): the sum of the same file
 * before the writes in w, whose chunks are the only ones read again (with those beyond base's
 * size).  0, or -1 (it could not be read whole, it is another file now, no memory). */
int index_sum_compute(const char *path, const struct stat *st, const struct index_sum *base,
		      const struct index_writes *w, struct index_sum *s);

/* The sum file's record, never through a link or from anything but a regular file: false
 * when there is none or it is not whole. */
bool index_sum_read(const char *sum_path, struct index_sum *s);
/* Written whole (file_write).  0, or -1 with err. */
int index_sum_write(const char *sum_path, const struct index_sum *s, char *err, size_t errlen);

void index_sum_free(struct index_sum *s);
/* dst made a copy of src: 0, or -1 (no memory; dst then empty). */
int index_sum_copy(struct index_sum *dst, const struct index_sum *src);

#endif
