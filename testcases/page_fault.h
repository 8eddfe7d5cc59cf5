/* page_fault2 and page_fault3 differ only in how they map the file: private (copy-on-write
 * faults) or shared. */
#ifndef SCALEBENCH_PAGE_FAULT_H
#define SCALEBENCH_PAGE_FAULT_H

#include "testcase.h"

#define PAGE_FAULT_MEMSIZE (128ul << 20)

/* A per-copy 128 MiB temp file, its fd in copy->priv. */
int page_fault_file_prepare(struct tc_copy *copy);
/* Map the file with map_flags, write every page (one op per page), unmap; forever. */
int page_fault_file_run(struct tc_copy *copy, volatile uint64_t *iterations, int map_flags);

#endif
