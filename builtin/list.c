/* scalebench list: the testcases, generated from their descriptors. */
#include "builtin.h"
#include "../testcases/registry.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

enum { OPT_JSON = 256, OPT_PLUGIN };

static const struct cli_option list_options[] = {
    {"long", 'l', NULL, "also show the suite, the op counted and the headline stat"},
    {"json", OPT_JSON, NULL, "print a JSON array of testcases, for scripts"},
    {"plugin", OPT_PLUGIN, "FILE.so", "also list the testcases of a plug-in (repeatable)"},
    {NULL, 0, NULL, NULL},
};

const struct cli_command list_command = {
    .name = "list",
    .usage = "[-l] [--json] [--plugin FILE.so]",
    .summary = "List the testcases: name, modes, better direction, description.",
    .details = "modes: the modes a testcase runs in (process, thread).  better: which way its\n"
	       "headline stat improves (higher ops/s, or lower cost such as us_per_event).\n",
    .options = list_options,
};

static const char *headline_stat(const struct testcase *tc)
{
	return tc->cost_stat ? tc->cost_stat : "per_process_ops/per_thread_ops";
}

static json_t *testcase_json(const struct testcase *tc, bool plugin)
{
	json_t *o = json_object(), *modes = json_array();

	json_object_set_new(o, "name", json_string(tc->name));
	json_object_set_new(o, "description", json_string(tc->description));
	json_object_set_new(o, "suite", json_string(tc->suite ? tc->suite : "will-it-scale"));
	json_object_set_new(o, "op", json_string(tc->op ? tc->op : "op"));
	if (testcase_supports(tc, TC_MODE_PROCESS))
		json_array_append_new(modes, json_string("process"));
	if (testcase_supports(tc, TC_MODE_THREAD))
		json_array_append_new(modes, json_string("thread"));
	json_object_set_new(o, "modes", modes);
	json_object_set_new(o, "lower_is_better", json_boolean(tc->lower_is_better));
	if (tc->cost_stat)
		json_object_set_new(o, "cost_stat", json_string(tc->cost_stat));
	json_object_set_new(o, "plugin", json_boolean(plugin));
	return o;
}

static void print_one(const struct testcase *tc, bool lng, bool plugin)
{
	printf("%-18s %-15s %-7s %s%s\n", tc->name, testcase_modes_name(tc),
	       tc->lower_is_better ? "lower" : "higher", tc->description,
	       plugin ? " (plug-in)" : "");
	if (lng)
		printf("%-18s suite %s, op: %s, stat: %s\n", "",
		       tc->suite ? tc->suite : "will-it-scale", tc->op ? tc->op : "op",
		       headline_stat(tc));
}

int cmd_list(int argc, char **argv)
{
	const char *arg;
	char err[512];
	bool lng = false, json = false;
	int c;

	cli_reset();
	while ((c = cli_next(&list_command, argc, argv, &arg)) != -1) {
		switch (c) {
		case 'l':
			lng = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_PLUGIN:
			if (plugin_load(arg, err, sizeof(err)) < 0) {
				fprintf(stderr, "scalebench list: %s\n", err);
				return 2;
			}
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
	if (json) {
		json_t *all = json_array();

		for (size_t i = 0; testcase_table[i]; i++)
			if (testcase_listed(testcase_table[i]))
				json_array_append_new(all, testcase_json(testcase_table[i], false));
		for (size_t i = 0; i < plugin_count(); i++)
			json_array_append_new(all, testcase_json(plugin_testcase(i), true));
		json_dumpf(all, stdout, JSON_INDENT(1));
		putchar('\n');
		json_decref(all);
		return 0;
	}
	printf("%-18s %-15s %-7s %s\n", "NAME", "MODES", "BETTER", "DESCRIPTION");
	for (size_t i = 0; testcase_table[i]; i++)
		if (testcase_listed(testcase_table[i]))
			print_one(testcase_table[i], lng, false);
	for (size_t i = 0; i < plugin_count(); i++)
		print_one(plugin_testcase(i), lng, true);
	return 0;
}
