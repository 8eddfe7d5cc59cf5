/* Command-line plumbing shared by every subcommand: one option table per command, from which
 * both getopt_long's table and the --help text are derived, so they cannot drift apart. */
#ifndef SCALEBENCH_CLI_H
#define SCALEBENCH_CLI_H

#include <stdbool.h>
#include <stdio.h>

struct cli_option {
	const char *long_name; /* without the leading "--" */
	int short_name;	       /* a character, or a value >= 256 for long-only options */
	const char *arg_name;  /* NULL for a flag */
	const char *help;
};

struct cli_command {
	const char *name;		  /* "bench" */
	const char *usage;		  /* "TESTCASE [options]" */
	const char *summary;		  /* one line, also shown by "scalebench --help" */
	const char *details;		  /* paragraphs after the option list, may be NULL */
	const struct cli_option *options; /* terminated by an entry with long_name == NULL */
};

/* Parse the next option of argv for cmd. Returns the option's short_name, -1 at the end of
 * the options, or '?' after printing a one-line error naming the bad option to stderr.
 * "--help"/"-h" are handled here: the return value is 'h' and the caller prints the help. */
int cli_next(const struct cli_command *cmd, int argc, char **argv, const char **optarg_out);
int cli_optind(void);
void cli_reset(void);

void cli_print_help(const struct cli_command *cmd, FILE *out);

/* Strict number parsing for option values: the whole string must be the number. */
int cli_parse_uint(const char *s, unsigned long max, unsigned long *out);
int cli_parse_seconds(const char *s, double *out);

#endif
