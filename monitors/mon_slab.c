/* slabinfo: /proc/slabinfo (readable by root only) as slabinfo.<cache>.active_objs and
 * slabinfo.<cache>.num_objs, means of the readings. */
#include "procfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int slabinfo_parse(struct series *s, char *text)
{
	char *cursor = text, *line;

	while ((line = procfs_next_line(&cursor))) {
		char copy[96], *tok[3], *save = NULL;
		double active, total;
		int n = 0;

		/* "slabinfo - version: 2.1" and the "# name <active_objs> ..." header. */
		if (strncmp(line, "slabinfo -", 10) == 0 || line[0] == '#')
			continue;
		snprintf(copy, sizeof(copy), "%s", line);
		for (char *t = strtok_r(line, " \t", &save); t && n < 3;
		     t = strtok_r(NULL, " \t", &save))
			tok[n++] = t;
		if (!n)
			continue;
		if (n < 3 || !procfs_number(tok[1], tok[1] + strlen(tok[1]), &active) ||
		    !procfs_number(tok[2], tok[2] + strlen(tok[2]), &total)) {
			series_bad(s, "slabinfo", copy);
			continue;
		}
		if (series_putf(s, active, "%s.active_objs", tok[0]) ||
		    series_putf(s, total, "%s.num_objs", tok[0]))
			return -1;
	}
	return 0;
}

static int slabinfo_read(struct monitor_ctx *ctx, struct series *s)
{
	char err[512];
	char *text = procfs_read(ctx->proc_root, "slabinfo", NULL, err, sizeof(err));
	int rc;

	if (!text)
		return procfs_fail(ctx, err, errno);
	rc = slabinfo_parse(s, text);
	free(text);
	if (rc)
		snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
	return rc;
}

static const struct series_source slabinfo_source = {.read = slabinfo_read};

static int slabinfo_start(struct monitor_ctx *ctx)
{
	return series_monitor_start(ctx, &slabinfo_source);
}

const struct monitor mon_slabinfo = {
    .name = "slabinfo",
    .description = "/proc/slabinfo (root): active_objs and num_objs of every cache, means",
    .start = slabinfo_start,
    .sample = series_monitor_sample,
    .stop = series_monitor_sample,
    .reduce = series_monitor_reduce,
    .cleanup = series_monitor_cleanup,
    .is_default = false,
};
