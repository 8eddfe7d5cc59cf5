/* scalebench: one binary, subcommands dispatched from a table (as git and perf do). */
#include "builtin/builtin.h"

#include <stdio.h>
#include <string.h>

#ifndef SCALEBENCH_VERSION
#define SCALEBENCH_VERSION "0.1"
#endif

struct command {
	const struct cli_command *cli;
	int (*fn)(int argc, char **argv);
};

static const struct command commands[] = {
    {&bench_command, cmd_bench},
    {&bisect_command, cmd_bisect},
    {&compare_command, cmd_compare},
    {&list_command, cmd_list},
    {&plot_command, cmd_plot},
    {&report_command, cmd_report},
    {&profile_command, cmd_profile},
    {&run_command, cmd_run},
    {&split_command, cmd_split},
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: scalebench COMMAND [options]\n\n"
		     "Scalability regression detection for the Linux kernel.\n\ncommands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].cli->name, commands[i].cli->summary);
	fprintf(out, "\n'scalebench COMMAND --help' shows a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("scalebench %s\n", SCALEBENCH_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help") && argc == 3) {
		for (size_t i = 0; i < NR_COMMANDS; i++)
			if (!strcmp(argv[2], commands[i].cli->name)) {
				cli_print_help(commands[i].cli, stdout);
				return 0;
			}
	}
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].cli->name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "scalebench: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
