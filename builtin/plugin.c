/* --plugin, as bench, list, run and split take it. */
#include "builtin.h"
#include "../lib/strvec.h"
#include "../lib/xalloc.h"
#include "../testcases/registry.h"

#include <stddef.h>
#include <stdio.h>

int plugin_option(const struct option_def *opt, const char *arg, char *err, size_t errlen)
{
	size_t *loaded = opt->value;

	if (plugin_load(arg, err, errlen) < 0)
		return -1;
	if (loaded)
		(*loaded)++;
	return 0;
}

int plugin_list_option(const struct option_def *opt, const char *arg, char *err,
		       size_t errlen)
{
	if (plugin_load(arg, err, errlen) < 0)
		return -1;
	if (strvec_push(opt->value, arg))
		xalloc_die();
	return 0;
}
