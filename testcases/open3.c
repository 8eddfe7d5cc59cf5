/* The file keeps its name for the whole run: it lives in a run directory
 * (tc_run_dir, testcase.h) that a janitor removes when the run ends. */
#include "fileio.h"

static int open3_global_prepare(struct tc_run *run)
{
	return fileio_run_dir(run, "open3", true);
}

static int open3_prepare(struct tc_copy *copy)
{
	return fileio_name_prepare(copy, FILEIO_NAME_SHARED, false);
}

const struct testcase tc_open3 = {
    .name = "open3",
    .description = "Same file open/close",
    .suite = "will-it-scale",
    .op = "open+close",
    .global_prepare = open3_global_prepare,
    .prepare = open3_prepare,
    .run = fileio_open_run,
};
