/* interrupts and softirqs: the per-CPU tables /proc/interrupts and /proc/softirqs.
 *
 * Names follow LKP (programs/interrupts/parse, programs/softirqs/parse).  An interrupts line
 * gives interrupts.<irq>:<description> for the all-CPU total and
 * interrupts.CPU<n>.<irq>:<description> per CPU; a named line's description has its spaces
 * turned into '_' (interrupts.CAL:Function_call_interrupts), a numbered line's fields (chip,
 * hwirq-type, devices) are joined by '.', a '.' after a ',' dropped
 * (interrupts.32:PCI-MSI.26738689-edge.eth0-TxRx-0).  A line with a single count and no
 * description (ERR, MIS) is system-wide: interrupts.ERR only.  softirqs gives softirqs.RCU and
 * softirqs.CPU1.RCU.
 *
 * Values follow LKP's rule (procfs_lkp_event_counter): interrupts.* count events, reduced to
 * end - start over the window; softirqs.* are not in lkp-tests' event-counter list, so, as in
 * the robot's tables, they are the mean of the readings of the cumulative counts.  A key that
 * reads 0 throughout is left out, as LKP's dump-stat leaves it out, which also keeps
 * stats.json small on machines with hundreds of CPUs.  The raw samples carry the per-line
 * totals at every reading; the per-CPU values ("percpu_keys", "percpu_values") at start and
 * stop for interrupts (the readings its deltas use), at every reading for softirqs. */
#include "procfs.h"
#include "../lib/text.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct percpu_priv {
	bool interrupts; /* else softirqs */
	struct series total, percpu;
};

static void irq_stat_name(const struct percpu_row *row, bool interrupts, char *out, size_t len)
{
	char sep = text_is_digits(row->id) ? '.' : '_';
	size_t n;
	bool space = false;

	n = (size_t)snprintf(out, len, "%s%s", row->id, interrupts && *row->desc ? ":" : "");
	if (!interrupts || n >= len)
		return;
	for (const char *p = row->desc; *p && n + 1 < len; p++) {
		if (isspace((unsigned char)*p)) {
			space = true;
			continue;
		}
		/* LKP joins a numbered line's fields by '.', then turns ",." into "," */
		if (space && !(sep == '.' && n > 0 && out[n - 1] == ','))
			out[n++] = sep;
		space = false;
		if (n + 1 < len)
			out[n++] = *p;
	}
	out[n] = '\0';
}

static int percpu_read(struct monitor_ctx *ctx, double t_s, bool with_percpu)
{
	struct percpu_priv *p = ctx->priv;
	bool interrupts = p->interrupts;
	const char *file = interrupts ? "interrupts" : "softirqs";
	struct percpu_table table;
	char err[512];
	char *text = procfs_read(ctx->proc_root, file, NULL, err, sizeof(err));
	json_t *obj = NULL;
	int rc = 0;

	if (!text) {
		rc = procfs_fail(ctx, err, errno);
		return p->total.nr_readings ? -1 : rc; /* unavailable only decides at start */
	}
	if (percpu_table_parse(&table, text, file, &p->total, err, sizeof(err))) {
		free(text);
		snprintf(ctx->note, sizeof(ctx->note), "%s", err);
		return p->total.nr_readings ? -1 : MONITOR_UNAVAILABLE;
	}
	series_begin(&p->total);
	series_begin(&p->percpu);
	for (size_t i = 0; i < table.nr_rows && !rc; i++) {
		const struct percpu_row *row = &table.rows[i];
		char name[256];
		double sum = 0;

		irq_stat_name(row, interrupts, name, sizeof(name));
		for (unsigned c = 0; c < row->nr_counts; c++)
			sum += row->counts[c];
		rc = series_put(&p->total, name, sum);
		if (row->nr_counts < table.nr_cpus)
			continue; /* ERR, MIS: one system-wide count */
		for (unsigned c = 0; c < row->nr_counts && !rc; c++)
			rc = series_putf(&p->percpu, row->counts[c], "CPU%u.%s", table.cpus[c],
					 name);
	}
	percpu_table_free(&table);
	free(text);
	if (!rc) {
		series_end(&p->total, t_s);
		series_end(&p->percpu, t_s);
	}
	if (!rc && ctx->raw) {
		obj = json_object();
		rc = !obj || json_object_set_new(obj, "t_s", json_real(t_s)) ||
		     series_raw_values(&p->total, obj, "keys", "values") ||
		     (with_percpu &&
		      series_raw_values(&p->percpu, obj, "percpu_keys", "percpu_values")) ||
		     json_array_append_new(ctx->raw, obj);
		if (rc)
			json_decref(obj);
	}
	if (rc) {
		snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
		return -1;
	}
	return 0;
}

static int percpu_start(struct monitor_ctx *ctx, bool interrupts)
{
	struct percpu_priv *p = calloc(1, sizeof(*p));

	if (!p) {
		snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
		return -1;
	}
	series_init(&p->total);
	series_init(&p->percpu);
	p->interrupts = interrupts;
	ctx->priv = p;
	return percpu_read(ctx, 0, true);
}

static int interrupts_start(struct monitor_ctx *ctx)
{
	return percpu_start(ctx, true);
}

static int softirqs_start(struct monitor_ctx *ctx)
{
	return percpu_start(ctx, false);
}

static int percpu_sample(struct monitor_ctx *ctx, double t_s)
{
	const struct percpu_priv *p = ctx->priv;

	/* means use every reading, deltas only the first and the last */
	return percpu_read(ctx, t_s, !p->interrupts);
}

static int percpu_stop(struct monitor_ctx *ctx, double t_s)
{
	return percpu_read(ctx, t_s, true);
}

static int percpu_reduce_series(struct monitor_ctx *ctx, const struct series *s, json_t *stats)
{
	for (size_t i = 0; i < s->nr_keys; i++) {
		const struct series_key *k = &s->keys[i];
		bool counter = procfs_lkp_event_counter(ctx->name, k->name);

		if (series_all_zero(k))
			continue;
		if (stats_put(stats, counter ? series_delta(k) : series_mean(k), "%s.%s", ctx->name,
			      k->name))
			return -1;
	}
	return 0;
}

static int percpu_reduce(struct monitor_ctx *ctx, json_t *stats)
{
	struct percpu_priv *p = ctx->priv;

	if (!p)
		return 0;
	if (percpu_reduce_series(ctx, &p->total, stats) ||
	    percpu_reduce_series(ctx, &p->percpu, stats))
		return -1;
	series_report_bad(&p->total, ctx);
	return 0;
}

static void percpu_cleanup(struct monitor_ctx *ctx)
{
	struct percpu_priv *p = ctx->priv;

	if (!p)
		return;
	series_release(&p->total);
	series_release(&p->percpu);
	free(p);
	ctx->priv = NULL;
}

/* LKP's event counters (every interrupts.* line), reduced to their deltas; softirqs.* are
 * means of since-boot counts by LKP's rule: levels, not rates. */
static bool percpu_is_rate(const char *stat)
{
	const char *dot = strchr(stat, '.');
	char family[32];

	if (!dot || (size_t)(dot - stat) >= sizeof(family))
		return false;
	memcpy(family, stat, (size_t)(dot - stat));
	family[dot - stat] = '\0';
	return procfs_lkp_event_counter(family, dot + 1);
}

const struct monitor mon_interrupts = {
    .name = "interrupts",
    .description = "/proc/interrupts: per-CPU and total deltas of every line",
    .start = interrupts_start,
    .sample = percpu_sample,
    .stop = percpu_stop,
    .reduce = percpu_reduce,
    .cleanup = percpu_cleanup,
    .is_default = true,
    .is_rate = percpu_is_rate,
};

const struct monitor mon_softirqs = {
    .name = "softirqs",
    .description = "/proc/softirqs: per-CPU and total means of every softirq's count (LKP's rule)",
    .start = softirqs_start,
    .sample = percpu_sample,
    .stop = percpu_stop,
    .reduce = percpu_reduce,
    .cleanup = percpu_cleanup,
    .is_default = true,
    .is_rate = percpu_is_rate,
};
