/* The file keeps its name for the whole run: it lives in a run directory
 * (tc_run_dir, testcase.h) that a janitor removes when the run ends. */
#include "fileio.h"

static int open2_global_prepare(struct tc_run *run)
{
	return fileio_run_dir(run, "open2", false);
}

static int open2_prepare(struct tc_copy *copy)
{
	return fileio_name_prepare(copy, FILEIO_NAME_PER_COPY_DIR, true);
}

const struct testcase tc_open2 = {
    .name = "open2",
    .description = "Separate file open/close in different directories",
    .suite = "will-it-scale",
    .op = "open+close",
    .global_prepare = open2_global_prepare,
    .prepare = open2_prepare,
    .run = fileio_open_run,
};
