/* tlb_flush1..3: the same page-by-page write, MADV_DONTNEED, read back, over three kinds of
 * mapping. */
#ifndef SCALEBENCH_TLB_FLUSH_H
#define SCALEBENCH_TLB_FLUSH_H

#include "testcase.h"

/* Per-copy 128 MiB temp file for the file-backed variants; its fd goes to copy->priv. */
#define TLB_FLUSH_FILESIZE (128ul << 20)
int tlb_flush_file_prepare(struct tc_copy *copy);

/* Map size bytes (fd < 0: anonymous), and per page: write 1, MADV_DONTNEED, read it back,
 * expecting `expect` (what the zap left: 0 for private mappings, 1 for shared ones). */
int tlb_flush_run(struct tc_copy *copy, volatile uint64_t *iterations, int fd, size_t size,
		  int map_flags, char expect);

#endif
