/* scalebench lkp-matrix: what lkp-tests' compare reads, rebuilt from a tree's runs. */
#include "builtin.h"
#include "../store/layout.h"
#include "../store/matrix.h"
#include "../lib/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct command_def lkp_matrix_command = {
    .name = "lkp-matrix",
    .args = "DIR...",
    .summary = "Rebuild the matrix.json LKP's compare reads in each commit directory.",
    .details =
	"Each DIR is a results root or one commit directory.  Every commit directory's\n"
	"matrix.json is rebuilt from its complete runs, as lkp-tests' unite-stats would have\n"
	"left it (storing a run already does this; run this after copying, moving or pruning\n"
	"runs, or on a tree stored before scalebench wrote it).  With --paths, the complete\n"
	"runs are also printed as the lines of LKP's paths index, which `compare -a` greps:\n"
	"  scalebench lkp-matrix --paths /lkp/result >/lkp/paths/$(date +%F)/$(date +%F)-$USER\n"
	"\nexit status: 0 done, 1 a matrix.json could not be written (the message names it),\n"
	"2 bad usage or a DIR holding no commit directory.\n",
};

/* DIR's commit directories: DIR itself when it holds runs, else those below it as a root. */
static ssize_t commit_dirs(const char *dir, char ***out)
{
	char **runs = NULL;
	ssize_t n = store_list_runs(dir, &runs);

	for (ssize_t i = 0; i < n; i++)
		free(runs[i]);
	free(runs);
	if (n > 0) {
		*out = xmalloc(sizeof(**out));
		(*out)[0] = xstrdup(dir);
		return 1;
	}
	return store_find(dir, NULL, NULL, out);
}

int cmd_lkp_matrix(int argc, char **argv)
{
	bool paths = false;
	const struct option_def opts[] = {
	    {OPT_FLAG("paths", 0, &paths),
	     .help = "print the complete runs' directories as LKP's paths index lists them"},
	    {OPT_END},
	};
	int first, ret = options_parse(&lkp_matrix_command, opts, argc, argv, &first, NULL);

	if (ret >= 0)
		return ret;
	if (first >= argc) {
		sb_error("which results root or commit directory? (see 'scalebench lkp-matrix "
			 "--help')");
		return SB_EXIT_ERROR;
	}
	ret = SB_EXIT_OK;
	for (int a = first; a < argc; a++) {
		char **dirs = NULL, err[PATH_MAX + 256];
		ssize_t n = commit_dirs(argv[a], &dirs);

		if (n <= 0) {
			if (n < 0)
				sb_error("%s: %s", argv[a], strerror(errno));
			else
				sb_error("%s: no commit directory in it; expected a results root or "
					 "a commit directory holding runs",
					 argv[a]);
			free(dirs);
			return SB_EXIT_ERROR;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (store_matrix_write(dirs[i], err, sizeof(err)) ||
			    (paths && store_matrix_paths(dirs[i], stdout, err, sizeof(err)))) {
				sb_error("%s", err);
				ret = SB_EXIT_FAILED;
			}
			free(dirs[i]);
		}
		free(dirs);
	}
	return ret;
}
