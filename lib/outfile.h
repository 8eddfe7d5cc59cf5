/* Files written whole or not at all, streamed through a FILE: lib/file.h's temp file beside the
 * target, renamed over it only when complete, so an error or a signal never leaves half a file.
 * (file_write does the same for data already in memory.) */
#ifndef SCALEBENCH_OUTFILE_H
#define SCALEBENCH_OUTFILE_H

#include <stdio.h>

struct outfile {
	char path[4096];
	char tmp[4096];
	FILE *fp;
};

/* Create the temp file now, so an unwritable path fails before any work is done.
 * Returns 0, or -1 with a message naming the path in err. */
int outfile_open(struct outfile *of, const char *path, char *err, size_t errlen);
int outfile_commit(struct outfile *of, char *err, size_t errlen);
void outfile_abort(struct outfile *of);

#endif
