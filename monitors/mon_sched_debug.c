/* sched_debug: the scheduler's per-CPU debug counters, from debugfs (sched/debug) or, on old
 * kernels, /proc/sched_debug.
 *
 * Modest on purpose: only the numeric fields of the cpu#<n> sections (sched_debug.cpu.<field>)
 * and of each CPU's root cfs_rq (cfs_rq[<n>]:/, sched_debug.cfs_rq:/.<field>).  Per CPU a field
 * is a delta over the window when it counts events (nr_switches, ttwu_count, ...) and the
 * mean of the readings otherwise; the stats are LKP's summaries across CPUs: <name>.avg,
 * .max, .min and .stddev (population, the spread of the CPUs themselves). */
#include "procfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEBUGFS_FILE "kernel/debug/sched/debug"

static const char *const sched_counters[] = {
    "nr_switches", "nr_load_updates", "sched_count", "sched_goidle",
    "ttwu_count",  "ttwu_local",      "yld_count",   "exec_clock",
};

static bool sched_is_counter(const char *base)
{
	const char *field = strrchr(base, '.');

	field = field ? field + 1 : base;
	for (size_t i = 0; i < sizeof(sched_counters) / sizeof(*sched_counters); i++)
		if (strcmp(field, sched_counters[i]) == 0)
			return true;
	return false;
}

enum sched_section { SECTION_OTHER, SECTION_CPU, SECTION_CFS_ROOT };

/* A section header: "cpu#3, 2400.000 MHz", "cfs_rq[3]:/" (the root group; child groups such
 * as "cfs_rq[3]:/user.slice" are left out). */
static enum sched_section sched_header(const char *line, unsigned long *cpu)
{
	char *end;

	if (strncmp(line, "cpu#", 4) == 0) {
		*cpu = strtoul(line + 4, &end, 10);
		if (end != line + 4 && (!*end || *end == ','))
			return SECTION_CPU;
	} else if (strncmp(line, "cfs_rq[", 7) == 0) {
		*cpu = strtoul(line + 7, &end, 10);
		if (end != line + 7 && strncmp(end, "]:/", 3) == 0 && !end[3])
			return SECTION_CFS_ROOT;
	}
	return SECTION_OTHER;
}

static int sched_parse(struct series *s, char *text, const char *src)
{
	enum sched_section section = SECTION_OTHER;
	unsigned long cpu = 0;
	char *cursor = text, *line;

	while ((line = procfs_next_line(&cursor))) {
		char *p = line, *name, *colon, *end, *v, *vend;
		double value;

		if (!*line)
			continue;
		if (*line != ' ' && *line != '\t') {
			section = sched_header(line, &cpu);
			continue;
		}
		if (section == SECTION_OTHER)
			continue;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '.')
			continue;
		name = p + 1;
		colon = strchr(name, ':');
		if (!colon || colon == name) {
			series_bad(s, src, line);
			continue;
		}
		for (end = colon; end > name && (end[-1] == ' ' || end[-1] == '\t'); end--)
			;
		*end = '\0';
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		for (vend = v; *vend && *vend != ' ' && *vend != '\t'; vend++)
			;
		if (!procfs_number(v, vend, &value))
			continue; /* text-valued fields */
		if (series_putf(s, value, "%s.%s@%lu", section == SECTION_CPU ? "cpu" : "cfs_rq:/",
				name, cpu))
			return -1;
	}
	return 0;
}

static int sched_read(struct monitor_ctx *ctx, struct series *s)
{
	char err[512], err2[512];
	char *text = procfs_read(ctx->sys_root, DEBUGFS_FILE, NULL, err, sizeof(err));
	const char *src = "sched/debug";
	int e = errno, rc;

	if (!text) {
		text = procfs_read(ctx->proc_root, "sched_debug", NULL, err2, sizeof(err2));
		src = "sched_debug";
	}
	if (!text) {
		snprintf(ctx->note, sizeof(ctx->note),
			 "%.200s; %.200s: mount debugfs (mount -t debugfs none /sys/kernel/debug) "
			 "and run as "
			 "root",
			 err, err2);
		return e == ENOENT || e == ENOTDIR || e == EACCES || e == EPERM
			   ? MONITOR_UNAVAILABLE
			   : -1;
	}
	rc = sched_parse(s, text, src);
	free(text);
	if (rc)
		snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
	return rc;
}

static const struct series_source sched_source = {.read = sched_read};

static int sched_start(struct monitor_ctx *ctx)
{
	int rc = series_monitor_start(ctx, &sched_source);

	if (!rc && !series_monitor_series(ctx)->nr_keys) {
		snprintf(ctx->note, sizeof(ctx->note),
			 "sched_debug: no cpu#<n> or cfs_rq[<n>]:/ fields found (unknown format)");
		return MONITOR_UNAVAILABLE;
	}
	return rc;
}

struct sched_group {
	char *base;
	double *values; /* one per CPU */
	size_t n, cap;
};

static int group_add(struct sched_group **groups, size_t *nr, const char *name, double value)
{
	const char *at = strrchr(name, '@');
	size_t len = at ? (size_t)(at - name) : strlen(name);
	struct sched_group *g = NULL;

	for (size_t i = *nr; i-- > 0;)
		if (strlen((*groups)[i].base) == len && !strncmp((*groups)[i].base, name, len)) {
			g = &(*groups)[i];
			break;
		}
	if (!g) {
		struct sched_group *ng = realloc(*groups, (*nr + 1) * sizeof(*ng));

		if (!ng)
			return -1;
		*groups = ng;
		g = &ng[(*nr)++];
		memset(g, 0, sizeof(*g));
		g->base = strndup(name, len);
		if (!g->base)
			return -1;
	}
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16;
		double *nv = realloc(g->values, cap * sizeof(*nv));

		if (!nv)
			return -1;
		g->values = nv;
		g->cap = cap;
	}
	g->values[g->n++] = value;
	return 0;
}

/* Newton's square root: the build links no libm. */
static double root(double x)
{
	double r = x > 1 ? x : 1;

	if (!(x > 0))
		return 0;
	for (int i = 0; i < 200; i++) {
		double next = (r + x / r) / 2;

		if (next >= r)
			break;
		r = next;
	}
	return r;
}

static int sched_put_summary(json_t *stats, const char *prefix, const struct sched_group *g)
{
	double sum = 0, sq = 0, min = g->values[0], max = g->values[0], mean;
	int rc = 0;

	for (size_t i = 0; i < g->n; i++) {
		sum += g->values[i];
		min = g->values[i] < min ? g->values[i] : min;
		max = g->values[i] > max ? g->values[i] : max;
	}
	mean = sum / g->n;
	for (size_t i = 0; i < g->n; i++)
		sq += (g->values[i] - mean) * (g->values[i] - mean);
	rc |= stats_put(stats, mean, "%s.%s.avg", prefix, g->base);
	rc |= stats_put(stats, max, "%s.%s.max", prefix, g->base);
	rc |= stats_put(stats, min, "%s.%s.min", prefix, g->base);
	rc |= stats_put(stats, root(sq / g->n), "%s.%s.stddev", prefix, g->base);
	return rc ? -1 : 0;
}

static int sched_reduce(struct monitor_ctx *ctx, json_t *stats)
{
	const struct series *s = series_monitor_series(ctx);
	struct sched_group *groups = NULL;
	size_t nr = 0;
	int rc = 0;

	if (!s)
		return 0;
	for (size_t i = 0; i < s->nr_keys && !rc; i++) {
		const struct series_key *k = &s->keys[i];
		char base[512];
		const char *at = strrchr(k->name, '@');

		snprintf(base, sizeof(base), "%.*s",
			 (int)(at ? at - k->name : (long)strlen(k->name)), k->name);
		rc = group_add(&groups, &nr, k->name,
			       sched_is_counter(base) ? series_delta(k) : series_mean(k));
	}
	for (size_t i = 0; i < nr; i++) {
		if (!rc && groups[i].n)
			rc = sched_put_summary(stats, ctx->name, &groups[i]);
		free(groups[i].base);
		free(groups[i].values);
	}
	free(groups);
	series_report_bad(s, ctx);
	return rc;
}

const struct monitor mon_sched_debug = {
    .name = "sched_debug",
    .description = "scheduler debug (debugfs): per-CPU fields as avg/max/min/stddev across CPUs",
    .start = sched_start,
    .sample = series_monitor_sample,
    .stop = series_monitor_sample,
    .reduce = sched_reduce,
    .cleanup = series_monitor_cleanup,
    .is_default = false,
};
