/* perf-stat: hardware and software perf events counted on every CPU through the window,
 * reduced to the robot's perf-stat.{i,ps,total,overall}.* stats. */
#include "monitor.h"
#include "perf_events.h"
#include "perf_metrics.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The robot's perf-stat event list. */
static const char *const default_events[] = {
    "cpu-cycles",	   "instructions",	"cache-references", "cache-misses",
    "branch-instructions", "branch-misses",	"dTLB-loads",	    "dTLB-load-misses",
    "dTLB-stores",	   "dTLB-store-misses", "iTLB-loads",	    "iTLB-load-misses",
    "node-loads",	   "node-load-misses",	"node-stores",	    "node-store-misses",
    "cpu-clock",	   "task-clock",	"page-faults",	    "minor-faults",
    "major-faults",	   "context-switches",	"cpu-migrations",
};

/* Below this, enabled / running differs from 1 by timing noise, not by multiplexing. */
#define MUX_FACTOR_MIN 1.000001

struct perf_stat {
	struct perf_event_set set;
	char **names;
	size_t nr_names;
	double last_t_s;
	/* One row of set.nr_events deltas per interval (NaN: not counted), and its length. */
	double *deltas;
	double *dt_s;
	size_t nr_intervals, cap;
	double *factor_max; /* per event: the most any interval was scaled up */
	double *factor;	    /* scratch for one reading */
};

static int add_name(struct perf_stat *ps, const char *name, size_t len)
{
	char **grown;

	for (size_t i = 0; i < ps->nr_names; i++)
		if (strlen(ps->names[i]) == len && strncmp(ps->names[i], name, len) == 0)
			return 0;
	grown = realloc(ps->names, (ps->nr_names + 1) * sizeof(*grown));
	if (!grown)
		return -1;
	ps->names = grown;
	ps->names[ps->nr_names] = strndup(name, len);
	if (!ps->names[ps->nr_names])
		return -1;
	ps->nr_names++;
	return 0;
}

static int add_list(struct perf_stat *ps, const char *list)
{
	const char *p = list;

	while (*p) {
		const char *end = strchrnul(p, ','), *e = end;

		while (p < e && isspace((unsigned char)*p))
			p++;
		while (e > p && isspace((unsigned char)e[-1]))
			e--;
		if (e > p && add_name(ps, p, (size_t)(e - p)))
			return -1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* options "events": a list of names or one comma-separated string; default: the robot's. */
static int parse_events(struct monitor_ctx *ctx, struct perf_stat *ps)
{
	const json_t *events = ctx->options ? json_object_get(ctx->options, "events") : NULL;
	size_t i;
	json_t *v;

	if (!events || json_is_null(events)) {
		for (i = 0; i < sizeof(default_events) / sizeof(default_events[0]); i++)
			if (add_name(ps, default_events[i], strlen(default_events[i])))
				goto nomem;
		return 0;
	}
	if (json_is_string(events)) {
		if (add_list(ps, json_string_value(events)))
			goto nomem;
	} else if (json_is_array(events)) {
		json_array_foreach (events, i, v) {
			if (!json_is_string(v)) {
				snprintf(ctx->note, sizeof(ctx->note),
					 "perf-stat: option events[%zu]: expected an event name "
					 "(string)",
					 i);
				return -1;
			}
			if (add_list(ps, json_string_value(v)))
				goto nomem;
		}
	} else {
		snprintf(ctx->note, sizeof(ctx->note),
			 "perf-stat: option events: expected a list of event names or a "
			 "comma-separated string");
		return -1;
	}
	if (!ps->nr_names) {
		snprintf(ctx->note, sizeof(ctx->note),
			 "perf-stat: option events: expected at least one event name");
		return -1;
	}
	return 0;
nomem:
	snprintf(ctx->note, sizeof(ctx->note), "perf-stat: out of memory");
	return -1;
}

static int online_cpus(const struct monitor_ctx *ctx, int **cpus, size_t *nr_cpus)
{
	char path[4096], line[4096];
	FILE *f;
	unsigned n = ctx->nr_cpus;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/online",
		 ctx->sys_root ? ctx->sys_root : "/sys");
	f = fopen(path, "r");
	if (f) {
		bool ok =
		    fgets(line, sizeof(line), f) && perf_parse_cpu_list(line, cpus, nr_cpus) == 0;

		fclose(f);
		if (ok)
			return 0;
	}
	/* Without the list, assume the CPUs are numbered densely. */
	if (!n)
		return -1;
	*cpus = malloc(n * sizeof(**cpus));
	if (!*cpus)
		return -1;
	for (unsigned i = 0; i < n; i++)
		(*cpus)[i] = (int)i;
	*nr_cpus = n;
	return 0;
}

static void note_unsupported(struct monitor_ctx *ctx, const struct perf_event_set *set, bool tell)
{
	json_t *list = json_array();
	char line[4096];
	size_t len = 0;
	bool hw_failed = false, hw_works = false;

	if (!list)
		return;
	for (size_t i = 0; i < set->nr_events; i++) {
		const struct perf_counter *c = &set->ev[i];

		hw_works |= c->supported && c->hardware;
		if (c->supported)
			continue;
		json_array_append_new(
		    list, json_pack("{s:s, s:s}", "event", c->name, "reason", c->reason));
		if (len < sizeof(line))
			len += snprintf(line + len, sizeof(line) - len, "%s%s", len ? ", " : "",
					c->name);
		hw_failed |=
		    c->hardware && (c->err == ENOENT || c->err == ENODEV || c->err == EOPNOTSUPP);
	}
	if (!json_array_size(list)) {
		json_decref(list);
		return;
	}
	if (ctx->meta)
		json_object_set(ctx->meta, "unsupported", list);
	json_decref(list);
	/* Once per scalebench process, not once per run: a job of many runs on a machine
	 * without a PMU would otherwise repeat the same line every few seconds. */
	static char told[sizeof(line)];
	if (tell && strcmp(told, line)) {
		fprintf(stderr, "scalebench: perf-stat: not supported here: %s%s\n", line,
			hw_failed && !hw_works ? " (no hardware PMU?)" : "");
		snprintf(told, sizeof(told), "%s", line);
	}
}

static void note_nothing_counted(struct monitor_ctx *ctx, const struct perf_event_set *set)
{
	const struct perf_counter *first = NULL;
	char value[32];

	for (size_t i = 0; i < set->nr_events; i++) {
		const struct perf_counter *c = &set->ev[i];

		if (c->err == EACCES || c->err == EPERM)
			goto denied;
		if (!first)
			first = c;
	}
	snprintf(ctx->note, sizeof(ctx->note),
		 "perf-stat: no event can be counted here (%.100s: %s)", first ? first->name : "?",
		 first ? first->reason : "no events");
	return;
denied:
	perf_paranoid_value(ctx->proc_root, value, sizeof(value));
	snprintf(ctx->note, sizeof(ctx->note),
		 "perf-stat: perf_event_open: %s: counting on every CPU needs root, CAP_PERFMON "
		 "or %s/sys/kernel/perf_event_paranoid at 0 or below (it is %s)",
		 strerror(EACCES), ctx->proc_root ? ctx->proc_root : "/proc", value);
}

static int perf_stat_start(struct monitor_ctx *ctx)
{
	struct perf_stat *ps = calloc(1, sizeof(*ps));
	int *cpus = NULL;
	size_t nr_cpus = 0, n;
	int ret;

	ctx->priv = ps;
	if (!ps) {
		snprintf(ctx->note, sizeof(ctx->note), "perf-stat: out of memory");
		return -1;
	}
	if (parse_events(ctx, ps))
		return -1;
	if (perf_pfm_init(ctx->note, sizeof(ctx->note)))
		return MONITOR_UNAVAILABLE;
	if (online_cpus(ctx, &cpus, &nr_cpus)) {
		snprintf(ctx->note, sizeof(ctx->note),
			 "perf-stat: %s/devices/system/cpu/online: expected a CPU list",
			 ctx->sys_root ? ctx->sys_root : "/sys");
		return -1;
	}
	ret = perf_set_init(&ps->set, (const char *const *)ps->names, ps->nr_names, cpus, nr_cpus);
	free(cpus);
	if (ret) {
		snprintf(ctx->note, sizeof(ctx->note), "perf-stat: out of memory");
		return -1;
	}
	n = ps->set.nr_events;
	ps->factor_max = calloc(n, sizeof(*ps->factor_max));
	ps->factor = calloc(n, sizeof(*ps->factor));
	if (!ps->factor_max || !ps->factor) {
		snprintf(ctx->note, sizeof(ctx->note), "perf-stat: out of memory");
		return -1;
	}
	if (!perf_set_open(&ps->set)) {
		note_unsupported(ctx, &ps->set, false);
		note_nothing_counted(ctx, &ps->set);
		return MONITOR_UNAVAILABLE;
	}
	note_unsupported(ctx, &ps->set, true);
	perf_set_enable(&ps->set);
	return 0;
}

static json_t *json_count(double v)
{
	/* Unscaled counts stay integers in the raw file. */
	if (v > -9e15 && v < 9e15 && v == (double)(long long)v)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static int perf_stat_sample(struct monitor_ctx *ctx, double t_s)
{
	struct perf_stat *ps = ctx->priv;
	size_t n = ps->set.nr_events;
	double *row;
	json_t *obj = NULL, *scale = NULL;

	if (ps->nr_intervals == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 64;
		double *deltas = realloc(ps->deltas, cap * n * sizeof(*deltas));
		double *dt_s;

		if (!deltas)
			return -1;
		ps->deltas = deltas;
		dt_s = realloc(ps->dt_s, cap * sizeof(*dt_s));
		if (!dt_s)
			return -1;
		ps->dt_s = dt_s;
		ps->cap = cap;
	}
	row = &ps->deltas[ps->nr_intervals * n];
	perf_set_read(&ps->set, row, ps->factor);
	ps->dt_s[ps->nr_intervals++] = t_s - ps->last_t_s;
	ps->last_t_s = t_s;

	if (json_is_array(ctx->raw))
		obj = json_pack("{s:f}", "t_s", t_s);
	for (size_t i = 0; i < n; i++) {
		if (isnan(row[i]))
			continue;
		if (ps->factor[i] > ps->factor_max[i])
			ps->factor_max[i] = ps->factor[i];
		if (!obj)
			continue;
		json_object_set_new(obj, ps->set.ev[i].name, json_count(row[i]));
		if (ps->factor[i] > MUX_FACTOR_MIN) {
			if (!scale)
				scale = json_object();
			json_object_set_new(scale, ps->set.ev[i].name, json_real(ps->factor[i]));
		}
	}
	if (obj) {
		if (scale)
			json_object_set_new(obj, "scale", scale);
		json_array_append_new(ctx->raw, obj);
	}
	return 0;
}

static int perf_stat_stop(struct monitor_ctx *ctx, double t_s)
{
	return perf_stat_sample(ctx, t_s);
}

static void set_stat(json_t *stats, const char *kind, const char *name, double v)
{
	char key[256];

	if (!isfinite(v))
		return;
	snprintf(key, sizeof(key), "perf-stat.%s.%s", kind, name);
	json_object_set_new(stats, key, json_real(v));
}

/* An event's count per second (ps.*) and in all (total.*); the per-interval view (i.*) holds
 * metrics too (shares, ratios) and overall.* is per op: not declared. */
static bool perf_stat_is_rate(const char *stat)
{
	return !strncmp(stat, "perf-stat.ps.", 13) || !strncmp(stat, "perf-stat.total.", 16);
}

static bool wants_total(const struct perf_counter *c)
{
	uint64_t config = c->attr.config & 0xffffffff;

	return c->attr.type == PERF_TYPE_HARDWARE &&
	       (config == PERF_COUNT_HW_INSTRUCTIONS || config == PERF_COUNT_HW_CPU_CYCLES);
}

static int perf_stat_reduce(struct monitor_ctx *ctx, json_t *stats)
{
	struct perf_stat *ps = ctx->priv;
	double min_dt_s = (ctx->interval_s > 0 ? ctx->interval_s : 1) / 2;
	struct perf_metric m[PERF_MAX_METRICS];
	struct perf_count *totals;
	const char **names;
	double *column;
	json_t *mux;
	size_t n, nr_m;

	if (!ps)
		return -1;
	n = ps->set.nr_events;
	totals = calloc(n, sizeof(*totals));
	names = calloc(n, sizeof(*names));
	column = calloc(ps->nr_intervals ? ps->nr_intervals : 1, sizeof(*column));
	mux = json_object();
	if (!totals || !column || !names || !mux) {
		free(totals);
		free(column);
		free(names);
		json_decref(mux);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct perf_counter *c = &ps->set.ev[i];
		struct perf_series s;

		names[i] = totals[i].event = c->name;
		totals[i].value = NAN;
		for (size_t k = 0; k < ps->nr_intervals; k++)
			column[k] = ps->deltas[k * n + i];
		if (!c->supported ||
		    perf_reduce_series(ps->dt_s, column, ps->nr_intervals, min_dt_s, &s))
			continue;
		totals[i].value = s.total;
		set_stat(stats, "i", c->name, s.mean_rate);
		set_stat(stats, "ps", c->name, s.per_s);
		if (wants_total(c))
			set_stat(stats, "total", c->name, s.total);
		if (ps->factor_max[i] > MUX_FACTOR_MIN)
			json_object_set_new(mux, c->name, json_real(ps->factor_max[i]));
	}
	nr_m = perf_derive_metrics(totals, n, (double)ctx->window_ops, m);
	for (size_t j = 0; j < nr_m; j++)
		set_stat(stats, "overall", m[j].name, m[j].value);
	nr_m = perf_interval_metrics(names, n, ps->deltas, ps->dt_s, ps->nr_intervals, min_dt_s, m);
	for (size_t j = 0; j < nr_m; j++)
		set_stat(stats, "i", m[j].name, m[j].value);
	nr_m = perf_unit_metrics(names, n, ps->deltas, ps->dt_s, ps->nr_intervals, min_dt_s, m);
	for (size_t j = 0; j < nr_m; j++)
		set_stat(stats, "i", m[j].name, m[j].value);
	/* The most each event was scaled up in any interval: how much of it is estimate. */
	if (ctx->meta && json_object_size(mux))
		json_object_set(ctx->meta, "multiplexed", mux);
	json_decref(mux);
	free(totals);
	free(column);
	free(names);
	return 0;
}

static void perf_stat_cleanup(struct monitor_ctx *ctx)
{
	struct perf_stat *ps = ctx->priv;

	if (!ps)
		return;
	perf_set_free(&ps->set);
	for (size_t i = 0; i < ps->nr_names; i++)
		free(ps->names[i]);
	free(ps->names);
	free(ps->deltas);
	free(ps->dt_s);
	free(ps->factor_max);
	free(ps->factor);
	free(ps);
	ctx->priv = NULL;
}

const struct monitor mon_perf_stat = {
    .name = "perf-stat",
    .description = "perf events on every CPU (libpfm4): rates, ipc, cache/TLB/branch miss rates",
    .start = perf_stat_start,
    .sample = perf_stat_sample,
    .stop = perf_stat_stop,
    .reduce = perf_stat_reduce,
    .cleanup = perf_stat_cleanup,
    .is_default = true,
    .is_rate = perf_stat_is_rate,
};
