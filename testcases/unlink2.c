/* A copy killed between create and unlink would leave its file: the files live
 * in a run directory (tc_run_dir, testcase.h) that a janitor removes when the run ends. */
#include "fileio.h"

static int unlink2_global_prepare(struct tc_run *run)
{
	return fileio_run_dir(run, "unlink2", false);
}

static int unlink2_prepare(struct tc_copy *copy)
{
	return fileio_name_prepare(copy, FILEIO_NAME_PER_COPY_DIR, false);
}

const struct testcase tc_unlink2 = {
    .name = "unlink2",
    .description = "Separate file open/close/unlink in different directories",
    .suite = "will-it-scale",
    .op = "create+close+unlink",
    .global_prepare = unlink2_global_prepare,
    .prepare = unlink2_prepare,
    .run = fileio_unlink_run,
};
