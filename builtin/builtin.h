/* The subcommands, one file each, dispatched from main.c's table. */
#ifndef SCALEBENCH_BUILTIN_H
#define SCALEBENCH_BUILTIN_H

#include "../lib/cli.h"

int cmd_list(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_split(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_report(int argc, char **argv);

extern const struct cli_command list_command, bench_command;

extern const struct cli_command split_command;
extern const struct cli_command run_command;
extern const struct cli_command compare_command;
extern const struct cli_command plot_command;
extern const struct cli_command profile_command;
extern const struct cli_command bisect_command;
extern const struct cli_command report_command;

#endif
