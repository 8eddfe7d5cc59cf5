/* scalebench list: the testcases, generated from their descriptors. */
#include "builtin.h"
#include "../testcases/registry.h"
#include "../lib/text.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

const struct command_def list_command = {
    .name = "list",
    .summary = "List the testcases: name, modes, better direction, description.",
    .details = "modes: the modes a testcase runs in (process, thread).  better: which way its\n"
	       "headline stat improves (higher ops/s, or lower cost such as us_per_event).\n",
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
	for (enum tc_mode m = TC_MODE_PROCESS; m <= TC_MODE_THREAD; m++)
		if (testcase_supports(tc, m))
			json_array_append_new(modes, json_string(tc_mode_name(m)));
	json_object_set_new(o, "modes", modes);
	json_object_set_new(o, "lower_is_better", json_boolean(tc->lower_is_better));
	if (tc->cost_stat)
		json_object_set_new(o, "cost_stat", json_string(tc->cost_stat));
	json_object_set_new(o, "plugin", json_boolean(plugin));
	return o;
}

static void print_one(const struct testcase *tc, bool lng, bool plugin)
{
	/* A plug-in's descriptor is text from outside: escaped for the terminal. */
	printf("%-18s %-15s %-7s %s%s\n", text_safe(tc->name), testcase_modes_name(tc),
	       tc->lower_is_better ? "lower" : "higher", text_safe(tc->description),
	       plugin ? " (plug-in)" : "");
	if (lng)
		printf("%-18s suite %s, op: %s, stat: %s\n", "",
		       text_safe(tc->suite ? tc->suite : "will-it-scale"),
		       text_safe(tc->op ? tc->op : "op"), text_safe(headline_stat(tc)));
}

int cmd_list(int argc, char **argv)
{
	bool lng = false, json = false;
	const struct option_def opts[] = {
	    {OPT_FLAG("long", 'l', &lng),
	     .help = "also show the suite, the op counted and the headline stat"},
	    {OPT_FLAG("json", 0, &json), .help = "print a JSON array of testcases, for scripts"},
	    {OPT_CALLBACK("plugin", 0, plugin_option, NULL), .arg = "FILE.so",
	     .help = "also list the testcases of a plug-in (repeatable)"},
	    {OPT_END},
	};
	int first, rc = options_parse(&list_command, opts, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	if (first < argc) {
		sb_error("unexpected argument '%s'", argv[first]);
		return SB_EXIT_ERROR;
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
		return SB_EXIT_OK;
	}
	printf("%-18s %-15s %-7s %s\n", "NAME", "MODES", "BETTER", "DESCRIPTION");
	for (size_t i = 0; testcase_table[i]; i++)
		if (testcase_listed(testcase_table[i]))
			print_one(testcase_table[i], lng, false);
	for (size_t i = 0; i < plugin_count(); i++)
		print_one(plugin_testcase(i), lng, true);
	return SB_EXIT_OK;
}
