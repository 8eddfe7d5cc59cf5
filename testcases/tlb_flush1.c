#include "tlb_flush.h"

#include <stdint.h>
#include <sys/mman.h>

static int tlb_flush1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	return tlb_flush_run(copy, iterations, (int)(intptr_t)copy->priv, TLB_FLUSH_FILESIZE,
			     MAP_PRIVATE, 0);
}

const struct testcase tc_tlb_flush1 = {
    .name = "tlb_flush1",
    .description = "TLB flush of separated file private mapping (128 MiB, page by page)",
    .suite = "will-it-scale",
    .op = "page write, zap and refault",
    .prepare = tlb_flush_file_prepare,
    .run = tlb_flush1_run,
};
