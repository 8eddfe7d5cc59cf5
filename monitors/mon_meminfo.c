/* meminfo: every /proc/meminfo field as the mean of the readings, LKP-named with the field
 * exactly as the kernel prints it (meminfo.MemFree, meminfo.Active(anon)); kB fields stay in
 * kB, HugePages_* are counts. */
#include "procfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static int meminfo_read(struct monitor_ctx *ctx, struct series *s)
{
	char err[512];
	char *text = procfs_read(ctx->proc_root, "meminfo", NULL, err, sizeof(err));
	int rc;

	if (!text)
		return procfs_fail(ctx, err, errno);
	rc = procfs_parse_kv(s, text, "meminfo", "", NULL);
	free(text);
	if (rc)
		snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
	return rc;
}

static const struct series_source meminfo_source = {
    .read = meminfo_read, .is_gauge = NULL, /* every field is a level */
};

static int meminfo_start(struct monitor_ctx *ctx)
{
	return series_monitor_start(ctx, &meminfo_source);
}

const struct monitor mon_meminfo = {
    .name = "meminfo",
    .description = "/proc/meminfo: the mean of every field (kB)",
    .start = meminfo_start,
    .sample = series_monitor_sample,
    .stop = series_monitor_sample,
    .reduce = series_monitor_reduce,
    .cleanup = series_monitor_cleanup,
    .is_default = true,
};
