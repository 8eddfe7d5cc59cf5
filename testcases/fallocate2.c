#include "fallocate.h"

static int fallocate2_prepare(struct tc_copy *copy)
{
	return fallocate_prepare_in(copy, copy->tmpdir);
}

const struct testcase tc_fallocate2 = {
    .name = "fallocate2",
    .description = "Separate file fallocate 8 KiB at a time in the temp dir's filesystem",
    .suite = "will-it-scale",
    .op = "fallocate",
    .prepare = fallocate2_prepare,
    .run = fallocate_run,
};
