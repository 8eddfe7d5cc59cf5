/* scalebench: one binary, subcommands dispatched from a table (as git and perf do). */
#include "builtin/builtin.h"
#include "lib/exit.h"
#include "lib/text.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#ifndef SCALEBENCH_VERSION
#define SCALEBENCH_VERSION "0.1"
#endif

struct command {
	const struct command_def *def;
	int (*fn)(int argc, char **argv);
};

static const struct command commands[] = {
    {&bench_command, cmd_bench},     {&bisect_command, cmd_bisect},
    {&compare_command, cmd_compare}, {&list_command, cmd_list},
    {&plot_command, cmd_plot},	     {&report_command, cmd_report},
    {&profile_command, cmd_profile}, {&run_command, cmd_run},
    {&split_command, cmd_split},     {&lkp_matrix_command, cmd_lkp_matrix},
    {&trend_command, cmd_trend},     {&index_command, cmd_index},
    {&results_command, cmd_results}, {&nightly_command, cmd_nightly},
    {&html_command, cmd_html},	     {&status_command, cmd_status},
    {&wait_command, cmd_wait},	     {&submit_command, cmd_submit},
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: scalebench COMMAND [options]\n\n"
		     "Scalability regression detection for the Linux kernel.\n\ncommands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].def->name, commands[i].def->summary);
	fprintf(out, "\n'scalebench COMMAND --help' (or 'scalebench help COMMAND') shows a "
		     "command's options.\n");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(name, commands[i].def->name))
			return &commands[i];
	return NULL;
}

/* An unknown command: the closest ones named (git's "did you mean"), else a pointer to the
 * list, not the list itself. */
static void unknown_command(const char *name)
{
	struct text_closest c = TEXT_CLOSEST_INIT(name);
	char list[256] = "";
	size_t len = 0;

	for (size_t i = 0; i < NR_COMMANDS; i++)
		text_closest_offer(&c, commands[i].def->name);
	for (size_t i = 0; i < NR_COMMANDS && c.best; i++) /* every one as close */
		if (text_distance(name, commands[i].def->name) == c.d && len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s'%s'",
						len ? " or " : "", commands[i].def->name);
	if (len)
		sb_error("unknown command '%s'; did you mean %s?", name, list);
	else
		sb_error("unknown command '%s' (see 'scalebench --help')", name);
}

/* Nothing to do: a write to a closed pipe then fails with EPIPE instead of killing us, so
 * a pager that quits early costs neither the benchmark in progress nor its results, and the
 * lost output is said at exit.  A handler, unlike SIG_IGN, is reset by exec: the programs
 * we start (gnuplot, git, a bisect's build) get the default back. */
static void on_sigpipe(int sig)
{
	(void)sig;
}

static int dispatch(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		usage(stderr);
		return SB_EXIT_ERROR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return SB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("scalebench %s\n", SCALEBENCH_VERSION);
		return SB_EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		char help[] = "--help", *args[] = {argv[2], help, NULL};

		if (argc == 2) {
			usage(stdout);
			return SB_EXIT_OK;
		}
		cmd = find_command(argv[2]);
		if (!cmd) {
			unknown_command(argv[2]);
			return SB_EXIT_ERROR;
		}
		if (argc > 3) {
			sb_error("help: one command at a time");
			usage(stderr);
			return SB_EXIT_ERROR;
		}
		sb_set_command(cmd->def->name);
		return cmd->fn(2, args);
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		unknown_command(argv[1]);
		return SB_EXIT_ERROR;
	}
	sb_set_command(cmd->def->name);
	return cmd->fn(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_sigpipe, .sa_flags = SA_RESTART};
	int rc;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
	rc = dispatch(argc, argv);
	/* Whatever the command did, output that did not arrive is an error. */
	if (sb_close_stdout() && rc < SB_EXIT_ERROR)
		rc = SB_EXIT_ERROR;
	return rc;
}
