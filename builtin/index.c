/* scalebench index: bring the results index up to date, or make it anew, and say what was
 * done. */
#include "builtin.h"
#include "../lib/text.h"
#include "../store/index.h"

#include <stdio.h>
#include <string.h>

const struct command_def index_command = {
    .name = "index",
    .summary = "Bring the results tree's index up to date (or rebuild it) and say what changed.",
    .details =
	"The index (" INDEX_FILE " in the results root, SQLite) is a cache of the tree for\n"
	"series queries (results, trend, nightly, html); every one of them updates it first, so\n"
	"running this is never required.  Runs that appeared since the last update are read,\n"
	"those that disappeared dropped; an index that is missing, corrupt or of another schema\n"
	"is rebuilt from the tree.  nightly and html update it quickly (--quick): only commit\n"
	"directories whose mtime changed are read again, so a stats.json edited in place by\n"
	"hand is seen by the next plain update (this command, results, trend).  Incomplete or\n"
	"corrupt runs are skipped (-v names them) and tried again next time.  Deleting the\n"
	"index loses nothing.\n"
	"Exit status: 0 done, 2 error (no results directory, an index that cannot be written or\n"
	"read).\n",
};

int cmd_index(int argc, char **argv)
{
	const char *root = NULL;
	bool rebuild = false, quick = false, verbose = false;
	const struct option_def opts[] = {
	    {OPT_RESULTS(&root),
	     .help = "results root"},
	    {OPT_FLAG("rebuild", 0, &rebuild),
	     .help = "make the index anew from the tree, whatever its state"},
	    {OPT_FLAG("quick", 0, &quick),
	     .help = "read only commit directories whose mtime changed (as nightly, html)"},
	    {OPT_FLAG("verbose", 'v', &verbose), .help = "name each run skipped and why"},
	    {OPT_END},
	};
	struct results_index *ix;
	struct index_update u;
	char err[1024];
	int first, rc = options_parse(&index_command, opts, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	if (first < argc) {
		sb_error("unexpected argument '%s'", argv[first]);
		return SB_EXIT_ERROR;
	}
	if (rebuild && quick) {
		sb_error("--rebuild and --quick are exclusive");
		return SB_EXIT_ERROR;
	}
	if (index_open(root, rebuild ? INDEX_REBUILD : quick ? INDEX_QUICK : INDEX_UPDATE, &ix, &u,
		       err, sizeof(err))) {
		sb_error("%s", err);
		return SB_EXIT_ERROR;
	}
	if (u.read_only && !u.rebuilt)
		printf("%s/%s: not writable here, read as it was last updated\n", text_safe(root),
		       INDEX_FILE);
	else if (u.read_only && !strcmp(u.why_rebuilt, "not writable"))
		printf("%s/%s: not writable here, the tree indexed in memory\n", text_safe(root),
		       INDEX_FILE);
	else if (u.read_only)
		printf("%s/%s: not updated (%s), the tree indexed in memory\n", text_safe(root),
		       INDEX_FILE, text_safe(u.why_rebuilt));
	else if (u.rebuilt)
		printf("%s/%s: rebuilt (%s)\n", text_safe(root), INDEX_FILE,
		       text_safe(u.why_rebuilt));
	else
		printf("%s/%s: updated\n", text_safe(root), INDEX_FILE);
	printf("runs added: %zu\nruns removed: %zu\nruns skipped: %zu\nruns in all: %zu\n"
	       "seconds: %.3f\n",
	       u.runs_added, u.runs_removed, u.runs_skipped, u.runs_total, u.seconds);
	if (u.runs_skipped) {
		size_t n;
		const char *const *why = index_skipped(ix, &n);

		if (verbose)
			for (size_t i = 0; i < n; i++)
				printf("skipped: %s\n", text_safe(why[i]));
		else
			sb_note("%zu run%s skipped (incomplete or corrupt; -v names them)",
				u.runs_skipped, u.runs_skipped == 1 ? "" : "s");
	}
	index_close(ix);
	return SB_EXIT_OK;
}
