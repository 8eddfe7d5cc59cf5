/* The file keeps its name for the whole run: it lives in a run directory (tc_run_dir,
 * testcase.h) that a janitor removes when the run ends. */
#include "fileio.h"

static int open1_global_prepare(struct tc_run *run)
{
	return fileio_run_dir(run, "open1", false);
}

static int open1_prepare(struct tc_copy *copy)
{
	return fileio_name_prepare(copy, FILEIO_NAME_PER_COPY, true);
}

const struct testcase tc_open1 = {
    .name = "open1",
    .description = "Separate file open/close (one directory for all copies)",
    .suite = "will-it-scale",
    .op = "open+close",
    .global_prepare = open1_global_prepare,
    .prepare = open1_prepare,
    .run = fileio_open_run,
};
