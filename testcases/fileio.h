/* The file patterns of will-it-scale's file testcases, shared so that readN, preadN, pwriteN,
 * readseekN, writeseekN, lseekN, lockN, openN and unlinkN differ only in which file they use:
 *
 *   - a per-copy file: a temp file of the copy, unlinked at once;
 *   - a shared file: one temp file for the run, made in global_prepare, which each copy opens again
 *     for its own open file description (will-it-scale opens it by name in every task: copies share
 *     the inode, not the file position or the struct file's refcount);
 *   - the shared file at an offset of its own: copy i works on page i;
 *   - by name, in a run directory (tc_run_dir, testcase.h) that is removed when the run ends. */
#ifndef SCALEBENCH_FILEIO_H
#define SCALEBENCH_FILEIO_H

#include "testcase.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define FILEIO_BUFLEN	4096	    /* bytes per read or write */
#define FILEIO_FILESIZE (1ul << 20) /* the read/write testcases' file */
#define FILEIO_PER_COPY UINT64_MAX  /* shared file size: one page per copy */

enum fileio_at { FILEIO_AT_ZERO, FILEIO_AT_COPY_PAGE };

/* A copy's file, in copy->priv. */
struct fileio {
	int fd;
	off_t offset; /* where pread/pwrite/readseek/writeseek go */
	char *buf;    /* FILEIO_BUFLEN bytes of zeros, page-aligned as O_DIRECT needs */
};

/* global_prepare: the shared file, size bytes of data (FILEIO_PER_COPY: a page per copy).
 * copy_flags are the flags the copies will open it with: O_DIRECT is tried here, so that a
 * filesystem without it skips the run once. */
int fileio_shared_file(struct tc_run *run, uint64_t size, int copy_flags);

/* prepare: open the shared file again with flags (O_RDONLY, O_RDWR, | O_DIRECT). */
int fileio_open_shared(struct tc_copy *copy, int flags, enum fileio_at at);

/* prepare: a per-copy temp file of size bytes of data, O_RDWR | extra_flags (O_DIRECT). */
int fileio_open_private(struct tc_copy *copy, uint64_t size, int extra_flags);

/* The loops; each counts one op per syscall named, as will-it-scale does. */
int fileio_read_run(struct tc_copy *copy, volatile uint64_t *iterations);
int fileio_pread_run(struct tc_copy *copy, volatile uint64_t *iterations);
int fileio_pwrite_run(struct tc_copy *copy, volatile uint64_t *iterations);
int fileio_readseek_run(struct tc_copy *copy, volatile uint64_t *iterations);
int fileio_writeseek_run(struct tc_copy *copy, volatile uint64_t *iterations);
int fileio_lseek_run(struct tc_copy *copy, volatile uint64_t *iterations);
int fileio_lock_run(struct tc_copy *copy, volatile uint64_t *iterations);

/* By name.  The run directory's path goes in run->shared; with shared_file, a file "shared" is
 * created in it for every copy to open. */
enum fileio_name {
	FILEIO_NAME_PER_COPY,	  /* <run dir>/copy<i> */
	FILEIO_NAME_PER_COPY_DIR, /* <run dir>/copy<i>/file: a directory per copy */
	FILEIO_NAME_SHARED,	  /* <run dir>/shared */
};
int fileio_run_dir(struct tc_run *run, const char *tag, bool shared_file);
/* prepare: the copy's name in copy->priv; with create, the file is created empty. */
int fileio_name_prepare(struct tc_copy *copy, enum fileio_name name, bool create);
int fileio_open_run(struct tc_copy *copy, volatile uint64_t *iterations);
int fileio_unlink_run(struct tc_copy *copy, volatile uint64_t *iterations);

#endif
