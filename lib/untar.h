/* A tar stream from a peer we do not trust (a --target's run), unpacked as it arrives.
 *
 * Only regular files and directories are taken: any other member (a symbolic or hard link, a
 * character or block device, a FIFO, a sparse or multi-volume member) is refused at its
 * header, before anything of it exists, and so is a name that is absolute, holds "..", holds a
 * control character, or repeats an earlier file's.  Members are made below the directory
 * through descriptors opened with O_NOFOLLOW, files exclusively (O_EXCL), owned by us and with
 * the modes a file or directory of a local run gets: 0666 and 0777 less the umask.  The
 * archive's own mode bits, setuid and setgid among them, are never applied.
 *
 * The stream is bounded: max_bytes in all (a member declaring more than is left is refused at
 * its header, the stream past it where it comes) and max_members members.  It must end with
 * the archive's end (a zero block): a stream cut short is an error, not a smaller run.
 * Formats: ustar, GNU tar's long names ('L') and pax extended headers' path and size, which
 * is what GNU tar and bsdtar write. */
#ifndef SCALEBENCH_UNTAR_H
#define SCALEBENCH_UNTAR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct untar {
	/* Set by untar_begin's caller through its arguments. */
	int root_fd;
	const char *root; /* for messages */
	uint64_t max_bytes;
	size_t max_members;
	/* The state of the stream. */
	uint64_t total; /* bytes taken so far */
	size_t members; /* members seen so far */
	int state;	/* what the next bytes are (untar.c) */
	unsigned char block[512];
	size_t have;	     /* bytes of block gathered */
	uint64_t left;	     /* bytes of the current member's data to come */
	size_t pad;	     /* then bytes of padding to its block's end */
	int fd;		     /* the regular file being written, or -1 */
	char name[PATH_MAX]; /* the member being unpacked, for messages */
	char ext_type;	     /* 'L', 'x' or 'g' while such a member's data is read */
	char *ext;	     /* its data, gathered */
	size_t ext_len;
	char next_name[PATH_MAX]; /* the name they give the next member, "" for none */
	int64_t next_size;	  /* pax's size for the next member, -1 for none */
	bool failed;
	char err[PATH_MAX + 256];
};

/* Unpack into the directory dir (which must exist).  0, or -1 with err. */
int untar_begin(struct untar *u, const char *dir, uint64_t max_bytes, size_t max_members, char *err,
		size_t errlen);

/* The next len bytes of the stream.  0, or -1 with u->err saying what was refused and why;
 * then nothing more is taken (what was unpacked stays, for the caller to remove). */
int untar_feed(struct untar *u, const char *buf, size_t len);

/* The stream is over: 0 when it ended at the archive's end, else -1 with u->err. */
int untar_finish(struct untar *u);

/* Close what is open (call it after untar_finish, or instead of it). */
void untar_release(struct untar *u);

#endif
