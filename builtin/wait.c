/* scalebench wait: block until a Slurm submission has ended. */
#include "builtin.h"
#include "../runner/slurm.h"

#include <stdio.h>

const struct command_def wait_command = {
    .name = "wait",
    .args = "ID|NAME",
    .summary = "Wait until a Slurm submission's tasks have all ended; say whether they failed.",
    .details =
	"Polls the submission's state as `scalebench status` reads it (every 0.5 s at first,\n"
	"backing off to 5 s) until no task is pending or running, printing progress on stderr\n"
	"when it changes.  A failed task is listed as status lists it.  SIGINT or SIGTERM ends\n"
	"the wait (exit 128+N) and cancels nothing: waiting is not owning.\n"
	"Exit status: 0 every task done (its run stored), 1 some failed, 2 error or timed out\n"
	"(the message says how many tasks had not ended), 128+N ended by signal N.\n",
};

int cmd_wait(int argc, char **argv)
{
	const char *root = NULL;
	double timeout_s = 0;
	bool quiet = false;
	const struct option_def opts[] = {
	    {OPT_RESULTS(&root),
	     .help = "results root the submission was made into"},
	    {OPT_DURATION("timeout", 0, &timeout_s), .def = "0", .max = 1e9,
	     .help = "give up after this long (0: never)"},
	    {OPT_FLAG("quiet", 'q', &quiet), .help = "no progress lines"},
	    {OPT_END},
	};
	int first, rc = options_parse(&wait_command, opts, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	if (first >= argc) {
		sb_error("which submission? (give its ID or NAME)");
		return SB_EXIT_ERROR;
	}
	if (argc - first > 1) {
		sb_error("unexpected argument '%s'", argv[first + 1]);
		return SB_EXIT_ERROR;
	}
	rc = slurm_wait(root, argv[first], timeout_s, quiet);
	if (rc > SB_EXIT_SIGNAL_BASE)
		sb_error("interrupted (signal %d): nothing cancelled, the submission goes on",
			 rc - SB_EXIT_SIGNAL_BASE);
	if (rc == SB_EXIT_FAILED) {
		struct slurm_status st;

		if (slurm_status_get(root, argv[first], &st) == 0) {
			fprintf(stderr, "submission %s: %zu of %zu tasks failed:\n", st.name,
				st.n_failed, st.n_tasks);
			slurm_status_print(&st, stderr, true);
			slurm_status_free(&st);
		}
	}
	return rc;
}
