/* proc-vmstat, vmstat and proc-stat: the system-wide counters of /proc/vmstat and /proc/stat.
 *
 * proc-vmstat.<key>: every /proc/vmstat key that is not 0 throughout, reduced by LKP's rule
 * (procfs_lkp_event_counter): pg*, pswp*, numa_*, thp_*, compact_*, nr_dirtied, nr_written and
 * the few others lkp-tests lists count events (end - start over the window); every other key,
 * workingset_* and oom_kill included, is the mean of the readings, as in LKP's tables.
 *
 * proc-stat.<key>: /proc/stat's all-CPU time as deltas in USER_HZ ticks (proc-stat.cpu.user,
 * .nice, .system, .idle, .iowait, .irq, .softirq, .steal, .guest, .guest_nice), the ctxt,
 * intr, softirq and processes deltas, procs_running and procs_blocked means.
 *
 * vmstat.<group>.<column>: what vmstat(8) prints, over the window.  Rates and CPU shares are
 * time-weighted (the window's deltas over its length, which is the mean of the per-interval
 * values weighted by interval length, so a short last interval weighs little): cpu.us (user +
 * nice), cpu.sy (system + irq + softirq), cpu.id, cpu.wa, cpu.st as percent of CPU time;
 * system.in, system.cs, io.bi, io.bo (KiB), swap.si, swap.so (KiB) per second.  procs.r
 * (procs_running) and procs.b, memory.swpd, .free, .buff and .cache (Cached + SReclaimable, as
 * procps counts it), all KiB, are means of the readings.  The raw samples are vmstat(8)'s rows:
 * one per reading, the rates over the interval before it. */
#include "procfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int read_kv(struct monitor_ctx *ctx, struct series *s, const char *rel, const char *prefix,
		   const char *const *only)
{
	char err[512];
	char *text = procfs_read(ctx->proc_root, rel, NULL, err, sizeof(err));
	int rc;

	if (!text)
		return procfs_fail(ctx, err, errno);
	rc = procfs_parse_kv(s, text, rel, prefix, only);
	free(text);
	if (rc)
		snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
	return rc;
}

static int read_stat(struct monitor_ctx *ctx, struct series *s)
{
	char err[512];
	char *text = procfs_read(ctx->proc_root, "stat", NULL, err, sizeof(err));
	int rc;

	if (!text)
		return procfs_fail(ctx, err, errno);
	rc = procfs_parse_stat(s, text, "stat");
	free(text);
	if (rc)
		snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
	return rc;
}

static int proc_vmstat_read(struct monitor_ctx *ctx, struct series *s)
{
	return read_kv(ctx, s, "vmstat", "", NULL);
}

static const struct series_source proc_vmstat_source = {
    .read = proc_vmstat_read,
    .lkp_rule = true,
};

static int proc_vmstat_start(struct monitor_ctx *ctx)
{
	return series_monitor_start(ctx, &proc_vmstat_source);
}

/* LKP's event counters, reduced to their deltas over the window. */
static bool proc_vmstat_is_rate(const char *stat)
{
	return procfs_lkp_event_counter("proc-vmstat", stat + sizeof("proc-vmstat"));
}

const struct monitor mon_proc_vmstat = {
    .name = "proc-vmstat",
    .description = "/proc/vmstat: LKP's event counters as deltas, the rest as means",
    .start = proc_vmstat_start,
    .sample = series_monitor_sample,
    .stop = series_monitor_sample,
    .reduce = series_monitor_reduce,
    .cleanup = series_monitor_cleanup,
    .is_default = true,
    .is_rate = proc_vmstat_is_rate,
};

static bool proc_stat_is_gauge(const char *key)
{
	return strncmp(key, "procs_", 6) == 0;
}

static const struct series_source proc_stat_source = {
    .read = read_stat,
    .is_gauge = proc_stat_is_gauge,
};

static int proc_stat_start(struct monitor_ctx *ctx)
{
	return series_monitor_start(ctx, &proc_stat_source);
}

static bool proc_stat_is_rate(const char *stat)
{
	return !proc_stat_is_gauge(stat + sizeof("proc-stat"));
}

const struct monitor mon_proc_stat = {
    .name = "proc-stat",
    .description = "/proc/stat: CPU time (ticks), ctxt, intr, processes deltas; procs means",
    .start = proc_stat_start,
    .sample = series_monitor_sample,
    .stop = series_monitor_sample,
    .reduce = series_monitor_reduce,
    .cleanup = series_monitor_cleanup,
    .is_default = false,
    .is_rate = proc_stat_is_rate,
};

static const char *const vmstat_vm_keys[] = {"pgpgin", "pgpgout", "pswpin", "pswpout", NULL};
static const char *const vmstat_mem_keys[] = {"MemFree",   "Buffers",  "Cached", "SReclaimable",
					      "SwapTotal", "SwapFree", NULL};

/* vmstat(8)'s CPU columns, each the sum of these /proc/stat fields. */
static const struct {
	const char *column;
	const char *fields[4];
} vmstat_cpu[] = {
    {"us", {"cpu.user", "cpu.nice"}},
    {"sy", {"cpu.system", "cpu.irq", "cpu.softirq"}},
    {"id", {"cpu.idle"}},
    {"wa", {"cpu.iowait"}},
    {"st", {"cpu.steal"}},
};

#define NR_VMSTAT_CPU (sizeof(vmstat_cpu) / sizeof(*vmstat_cpu))

struct vmstat_priv {
	struct series s;
	long page_kib;
};

/* The value of key as the reducer wants it: this interval's delta, the window's delta, the
 * current reading or the mean.  Missing keys read as 0 (vmstat prints 0 for what the kernel
 * lacks, such as swap counters without CONFIG_SWAP). */
enum vmstat_view { VIEW_INTERVAL, VIEW_WINDOW, VIEW_CUR, VIEW_MEAN };

static double vmstat_value(const struct series *s, const char *key, enum vmstat_view view)
{
	const struct series_key *k = series_find(s, key);

	if (!k)
		return 0;
	switch (view) {
	case VIEW_INTERVAL:
		return k->have_cur ? k->cur - k->prev : 0;
	case VIEW_WINDOW:
		return series_delta(k);
	case VIEW_CUR:
		return k->have_cur ? k->cur : 0;
	case VIEW_MEAN:
		return series_mean(k);
	}
	return 0;
}

/* The CPU shares, rates and memory columns under one view (interval or window). */
struct vmstat_row {
	double cpu[NR_VMSTAT_CPU];
	bool have_cpu;
	double in, cs, bi, bo, si, so;
	bool have_rates;
	double r, b, swpd, free, buff, cache;
};

static void vmstat_compute(const struct vmstat_priv *p, enum vmstat_view deltas, double dt,
			   enum vmstat_view gauges, struct vmstat_row *row)
{
	const struct series *s = &p->s;
	double total = 0;

	memset(row, 0, sizeof(*row));
	for (size_t i = 0; i < NR_VMSTAT_CPU; i++) {
		for (size_t j = 0; j < 4 && vmstat_cpu[i].fields[j]; j++)
			row->cpu[i] += vmstat_value(s, vmstat_cpu[i].fields[j], deltas);
		total += row->cpu[i];
	}
	if (total > 0) {
		for (size_t i = 0; i < NR_VMSTAT_CPU; i++)
			row->cpu[i] = 100.0 * row->cpu[i] / total;
		row->have_cpu = true;
	}
	if (dt > 0) {
		row->in = vmstat_value(s, "intr", deltas) / dt;
		row->cs = vmstat_value(s, "ctxt", deltas) / dt;
		row->bi = vmstat_value(s, "pgpgin", deltas) / dt;
		row->bo = vmstat_value(s, "pgpgout", deltas) / dt;
		row->si = vmstat_value(s, "pswpin", deltas) * p->page_kib / dt;
		row->so = vmstat_value(s, "pswpout", deltas) * p->page_kib / dt;
		row->have_rates = true;
	}
	row->r = vmstat_value(s, "procs_running", gauges);
	row->b = vmstat_value(s, "procs_blocked", gauges);
	row->swpd = vmstat_value(s, "SwapTotal", gauges) - vmstat_value(s, "SwapFree", gauges);
	row->free = vmstat_value(s, "MemFree", gauges);
	row->buff = vmstat_value(s, "Buffers", gauges);
	row->cache = vmstat_value(s, "Cached", gauges) + vmstat_value(s, "SReclaimable", gauges);
}

static int vmstat_raw_row(struct monitor_ctx *ctx, const struct vmstat_row *row, double t_s)
{
	json_t *o = json_object();
	int rc = 0;

	if (!o)
		return -1;
	rc |= json_object_set_new(o, "t_s", json_real(t_s));
	rc |= json_object_set_new(o, "r", json_real(row->r));
	rc |= json_object_set_new(o, "b", json_real(row->b));
	rc |= json_object_set_new(o, "swpd", json_real(row->swpd));
	rc |= json_object_set_new(o, "free", json_real(row->free));
	rc |= json_object_set_new(o, "buff", json_real(row->buff));
	rc |= json_object_set_new(o, "cache", json_real(row->cache));
	if (row->have_rates) {
		rc |= json_object_set_new(o, "si", json_real(row->si));
		rc |= json_object_set_new(o, "so", json_real(row->so));
		rc |= json_object_set_new(o, "bi", json_real(row->bi));
		rc |= json_object_set_new(o, "bo", json_real(row->bo));
		rc |= json_object_set_new(o, "in", json_real(row->in));
		rc |= json_object_set_new(o, "cs", json_real(row->cs));
	}
	if (row->have_cpu)
		for (size_t i = 0; i < NR_VMSTAT_CPU; i++)
			rc |= json_object_set_new(o, vmstat_cpu[i].column, json_real(row->cpu[i]));
	if (rc) {
		json_decref(o);
		return -1;
	}
	return json_array_append_new(ctx->raw, o);
}

static int vmstat_read(struct monitor_ctx *ctx, double t_s)
{
	struct vmstat_priv *p = ctx->priv;
	struct vmstat_row row;
	int rc;

	series_begin(&p->s);
	rc = read_stat(ctx, &p->s);
	if (!rc)
		rc = read_kv(ctx, &p->s, "vmstat", "", vmstat_vm_keys);
	if (!rc)
		rc = read_kv(ctx, &p->s, "meminfo", "", vmstat_mem_keys);
	if (rc)
		return p->s.nr_readings ? -1 : rc; /* unavailable only decides at start */
	series_end(&p->s, t_s);
	if (!ctx->raw)
		return 0;
	vmstat_compute(p, VIEW_INTERVAL, p->s.nr_readings > 1 ? t_s - p->s.prev_t_s : 0, VIEW_CUR,
		       &row);
	if (p->s.nr_readings == 1)
		row.have_cpu = false; /* no interval yet */
	if (vmstat_raw_row(ctx, &row, t_s)) {
		snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
		return -1;
	}
	return 0;
}

static int vmstat_start(struct monitor_ctx *ctx)
{
	struct vmstat_priv *p = calloc(1, sizeof(*p));

	if (!p) {
		snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
		return -1;
	}
	series_init(&p->s);
	p->page_kib = sysconf(_SC_PAGESIZE) / 1024;
	ctx->priv = p;
	return vmstat_read(ctx, 0);
}

static int vmstat_sample(struct monitor_ctx *ctx, double t_s)
{
	return vmstat_read(ctx, t_s);
}

/* A column that is 0 is left out: its rows were all 0 (the columns are never negative), and
 * LKP's dump-stat drops such a stat. */
static int vmstat_put(json_t *stats, const char *monitor, const char *column, double v)
{
	if (v == 0)
		return 0;
	if (strchr(column, '.'))
		return stats_put(stats, v, "%s.%s", monitor, column);
	return stats_put(stats, v, "%s.cpu.%s", monitor, column);
}

static int vmstat_reduce(struct monitor_ctx *ctx, json_t *stats)
{
	struct vmstat_priv *p = ctx->priv;
	struct vmstat_row w;
	int rc = 0;

	if (!p || !p->s.nr_readings)
		return 0;
	vmstat_compute(p, VIEW_WINDOW, p->s.last_t_s - p->s.first_t_s, VIEW_MEAN, &w);
	rc |= vmstat_put(stats, ctx->name, "procs.r", w.r);
	rc |= vmstat_put(stats, ctx->name, "procs.b", w.b);
	rc |= vmstat_put(stats, ctx->name, "memory.swpd", w.swpd);
	rc |= vmstat_put(stats, ctx->name, "memory.free", w.free);
	rc |= vmstat_put(stats, ctx->name, "memory.buff", w.buff);
	rc |= vmstat_put(stats, ctx->name, "memory.cache", w.cache);
	if (w.have_rates) {
		rc |= vmstat_put(stats, ctx->name, "swap.si", w.si);
		rc |= vmstat_put(stats, ctx->name, "swap.so", w.so);
		rc |= vmstat_put(stats, ctx->name, "io.bi", w.bi);
		rc |= vmstat_put(stats, ctx->name, "io.bo", w.bo);
		rc |= vmstat_put(stats, ctx->name, "system.in", w.in);
		rc |= vmstat_put(stats, ctx->name, "system.cs", w.cs);
	}
	if (w.have_cpu)
		for (size_t i = 0; i < NR_VMSTAT_CPU; i++)
			rc |= vmstat_put(stats, ctx->name, vmstat_cpu[i].column, w.cpu[i]);
	series_report_bad(&p->s, ctx);
	return rc ? -1 : 0;
}

static void vmstat_cleanup(struct monitor_ctx *ctx)
{
	struct vmstat_priv *p = ctx->priv;

	if (!p)
		return;
	series_release(&p->s);
	free(p);
	ctx->priv = NULL;
}

/* vmstat(8)'s rates: in, cs, bi, bo, si, so per second; the CPU shares, procs and memory are
 * levels. */
static bool vmstat_is_rate(const char *stat)
{
	return !strncmp(stat, "vmstat.system.", 14) || !strncmp(stat, "vmstat.io.", 10) ||
	       !strncmp(stat, "vmstat.swap.", 12);
}

const struct monitor mon_vmstat = {
    .name = "vmstat",
    .description = "vmstat(8)'s columns: CPU shares, in/cs, bi/bo, procs, memory (KiB)",
    .start = vmstat_start,
    .sample = vmstat_sample,
    .stop = vmstat_sample,
    .reduce = vmstat_reduce,
    .cleanup = vmstat_cleanup,
    .is_default = true,
    .is_rate = vmstat_is_rate,
};
