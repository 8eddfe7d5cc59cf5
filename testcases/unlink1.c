/* A copy killed between create and unlink would leave its file: the files live in a run directory
 * (tc_run_dir, testcase.h) that a janitor removes when the run ends. */
#include "fileio.h"

static int unlink1_global_prepare(struct tc_run *run)
{
	return fileio_run_dir(run, "unlink1", false);
}

static int unlink1_prepare(struct tc_copy *copy)
{
	return fileio_name_prepare(copy, FILEIO_NAME_PER_COPY, false);
}

const struct testcase tc_unlink1 = {
    .name = "unlink1",
    .description = "Separate file open/close/unlink (one directory for all copies)",
    .suite = "will-it-scale",
    .op = "create+close+unlink",
    .global_prepare = unlink1_global_prepare,
    .prepare = unlink1_prepare,
    .run = fileio_unlink_run,
};
