#include "tlb_flush.h"

#include <stdint.h>
#include <sys/mman.h>

static int tlb_flush3_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	return tlb_flush_run(copy, iterations, (int)(intptr_t)copy->priv, TLB_FLUSH_FILESIZE,
			     MAP_SHARED, 1);
}

const struct testcase tc_tlb_flush3 = {
    .name = "tlb_flush3",
    .description = "TLB flush of separated file shared mapping (128 MiB, page by page)",
    .suite = "will-it-scale",
    .op = "page write, zap and refault",
    .prepare = tlb_flush_file_prepare,
    .run = tlb_flush3_run,
};
