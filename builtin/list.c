#include "builtin.h"
#include "../testcases/registry.h"

#include <stdio.h>
#include <string.h>

static const struct cli_option list_options[] = {
    {"long", 'l', NULL, "also show the suite, the op counted and the better direction"},
    {NULL, 0, NULL, NULL},
};

const struct cli_command list_command = {
    .name = "list",
    .usage = "[-l]",
    .summary = "List the testcases with a one-line description each.",
    .options = list_options,
};

int cmd_list(int argc, char **argv)
{
	const char *arg;
	bool lng = false;
	int c;

	cli_reset();
	while ((c = cli_next(&list_command, argc, argv, &arg)) != -1) {
		switch (c) {
		case 'l':
			lng = true;
			break;
		case 'h':
			cli_print_help(&list_command, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (cli_optind() < argc) {
		fprintf(stderr, "scalebench list: unexpected argument '%s'\n", argv[cli_optind()]);
		return 2;
	}
	for (size_t i = 0; testcase_table[i]; i++) {
		const struct testcase *tc = testcase_table[i];

		if (tc->flags & TC_HIDDEN)
			continue;
		if (lng)
			printf("%-20s %-14s %-12s %-7s %s\n", tc->name, tc->suite, tc->op,
			       tc->lower_is_better ? "lower" : "higher", tc->description);
		else
			printf("%-20s %s\n", tc->name, tc->description);
	}
	return 0;
}
