/* numa-meminfo, numa-numastat, numa-vmstat: the per-node files under
 * /sys/devices/system/node/node<N>/, named numa-meminfo.node0.MemFree (means),
 * numa-numastat.node0.numa_hit (deltas) and numa-vmstat.node0.nr_free_pages (LKP's rule:
 * nr_dirtied, nr_written, nr_vmscan_immediate_reclaim, numa_* and pg* deltas, the rest means).  Nodes are listed again at every reading, so a node that comes online
 * mid-window simply starts its keys there. */
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE_DIR "devices/system/node"

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* The node numbers under sys_root, sorted; *nr = 0 when there are none. */
static int list_nodes(struct monitor_ctx *ctx, unsigned **nodes, size_t *nr)
{
	char path[4096];
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	*nodes = NULL;
	*nr = 0;
	snprintf(path, sizeof(path), "%s/%s", ctx->sys_root, NODE_DIR);
	d = opendir(path);
	if (!d) {
		char err[4200];
		int e = errno;

		snprintf(err, sizeof(err), "cannot list %s: %s", path, strerror(e));
		return procfs_fail(ctx, err, e);
	}
	while ((de = readdir(d))) {
		char *end;
		unsigned long n;

		if (strncmp(de->d_name, "node", 4) != 0 || !de->d_name[4])
			continue;
		n = strtoul(de->d_name + 4, &end, 10);
		if (*end || n > 1u << 20)
			continue;
		if (*nr == cap) {
			unsigned *nn = realloc(*nodes, (cap ? 2 * cap : 8) * sizeof(*nn));

			if (!nn) {
				closedir(d);
				snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory",
					 ctx->name);
				return -1;
			}
			*nodes = nn;
			cap = cap ? 2 * cap : 8;
		}
		(*nodes)[(*nr)++] = (unsigned)n;
	}
	closedir(d);
	if (!*nr) {
		snprintf(ctx->note, sizeof(ctx->note), "no node<N> directories in %.400s", path);
		return MONITOR_UNAVAILABLE;
	}
	qsort(*nodes, *nr, sizeof(**nodes), cmp_unsigned);
	return 0;
}

static int read_nodes(struct monitor_ctx *ctx, struct series *s, const char *file)
{
	unsigned *nodes;
	size_t nr;
	int rc = list_nodes(ctx, &nodes, &nr);

	for (size_t i = 0; !rc && i < nr; i++) {
		char rel[128], prefix[32], err[512];
		char *text;

		snprintf(rel, sizeof(rel), NODE_DIR "/node%u/%s", nodes[i], file);
		snprintf(prefix, sizeof(prefix), "node%u.", nodes[i]);
		text = procfs_read(ctx->sys_root, rel, NULL, err, sizeof(err));
		if (!text) {
			rc = procfs_fail(ctx, err, errno);
			break;
		}
		rc = procfs_parse_kv(s, text, file, prefix, NULL);
		free(text);
		if (rc)
			snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
	}
	free(nodes);
	return rc;
}

static int numa_meminfo_read(struct monitor_ctx *ctx, struct series *s)
{
	return read_nodes(ctx, s, "meminfo");
}

static int numa_numastat_read(struct monitor_ctx *ctx, struct series *s)
{
	return read_nodes(ctx, s, "numastat");
}

static int numa_vmstat_read(struct monitor_ctx *ctx, struct series *s)
{
	return read_nodes(ctx, s, "vmstat");
}

static const struct series_source numa_meminfo_source = {
    .read = numa_meminfo_read,
    .lkp_rule = true,
};
static const struct series_source numa_numastat_source = {
    .read = numa_numastat_read,
    .lkp_rule = true,
};
static const struct series_source numa_vmstat_source = {
    .read = numa_vmstat_read,
    .lkp_rule = true,
};

static int numa_meminfo_start(struct monitor_ctx *ctx)
{
	return series_monitor_start(ctx, &numa_meminfo_source);
}

static int numa_numastat_start(struct monitor_ctx *ctx)
{
	return series_monitor_start(ctx, &numa_numastat_source);
}

static int numa_vmstat_start(struct monitor_ctx *ctx)
{
	return series_monitor_start(ctx, &numa_vmstat_source);
}

const struct monitor mon_numa_meminfo = {
    .name = "numa-meminfo",
    .description = "per-node meminfo: the mean of every field (kB)",
    .start = numa_meminfo_start,
    .sample = series_monitor_sample,
    .stop = series_monitor_sample,
    .reduce = series_monitor_reduce,
    .cleanup = series_monitor_cleanup,
    .is_default = false,
};

const struct monitor mon_numa_numastat = {
    .name = "numa-numastat",
    .description = "per-node numastat: numa_hit, numa_miss, local_node ... deltas",
    .start = numa_numastat_start,
    .sample = series_monitor_sample,
    .stop = series_monitor_sample,
    .reduce = series_monitor_reduce,
    .cleanup = series_monitor_cleanup,
    .is_default = false,
};

const struct monitor mon_numa_vmstat = {
    .name = "numa-vmstat",
    .description = "per-node vmstat: LKP's event counters as deltas, the rest as means",
    .start = numa_vmstat_start,
    .sample = series_monitor_sample,
    .stop = series_monitor_sample,
    .reduce = series_monitor_reduce,
    .cleanup = series_monitor_cleanup,
    .is_default = false,
};
