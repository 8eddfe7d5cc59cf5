/* meminfo: every /proc/meminfo field as the mean of the readings, LKP-named with the field
 * exactly as the kernel prints it (meminfo.MemFree, meminfo.Active(anon)); kB fields stay in
 * kB, HugePages_* are counts.  Fields that read 0 throughout are left out, as LKP does.
 *
 * Two more, as lkp-tests' programs/meminfo/parse makes them at every reading:
 * meminfo.Memused = MemTotal - MemFree (MemTotal as first read), and meminfo.max_used_kB, the
 * largest Memused so far; both reduce, like every field, to the mean of the readings (so
 * max_used_kB is the mean of a running maximum, not the maximum: that is what LKP's tables
 * show). */
#include "procfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static int meminfo_used(struct series *s)
{
	const struct series_key *total = series_find(s, "MemTotal");
	const struct series_key *free_kb = series_find(s, "MemFree");
	const struct series_key *max_used = series_find(s, "max_used_kB");
	double used, max;

	if (!total || !free_kb || !free_kb->have_cur)
		return 0;
	/* series_put sets first at a key's first reading: this is the MemTotal first read. */
	used = total->first - free_kb->cur;
	max = max_used && max_used->n && max_used->last > used ? max_used->last : used;
	/* (series_put may move the keys: no pointer into them is used after it) */
	if (series_put(s, "Memused", used))
		return -1;
	return series_put(s, "max_used_kB", max);
}

static int meminfo_read(struct monitor_ctx *ctx, struct series *s)
{
	char err[512];
	char *text = procfs_read(ctx->proc_root, "meminfo", NULL, err, sizeof(err));
	int rc;

	if (!text)
		return procfs_fail(ctx, err, errno);
	rc = procfs_parse_kv(s, text, "meminfo", "", NULL);
	free(text);
	if (!rc)
		rc = meminfo_used(s);
	if (rc)
		snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
	return rc;
}

static const struct series_source meminfo_source = {
    .read = meminfo_read,
    .lkp_rule = true, /* no meminfo field is an event counter: all means */
};

static int meminfo_start(struct monitor_ctx *ctx)
{
	return series_monitor_start(ctx, &meminfo_source);
}

const struct monitor mon_meminfo = {
    .name = "meminfo",
    .description = "/proc/meminfo: the mean of every field (kB), Memused, max_used_kB",
    .start = meminfo_start,
    .sample = series_monitor_sample,
    .stop = series_monitor_sample,
    .reduce = series_monitor_reduce,
    .cleanup = series_monitor_cleanup,
    .is_default = true,
};
