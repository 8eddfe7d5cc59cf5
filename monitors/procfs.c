/* Reading and parsing procfs/sysfs files for the monitors; see procfs.h. */
#include "procfs.h"
#include "../lib/file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Larger than any procfs file we read; guards against a runaway file in a fixture tree. */
#define PROCFS_MAX_BYTES (64u << 20)

char *procfs_read(const char *root, const char *rel, size_t *len, char *err, size_t errlen)
{
	char path[4096], *buf;
	size_t n;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >= sizeof(path)) {
		snprintf(err, errlen, "path too long: %s/%s", root, rel);
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (file_read(path, PROCFS_MAX_BYTES, &buf, &n, err, errlen))
		return NULL;
	/* A NUL inside would silently cut the text short; make it visible as a bad line. */
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = '?';
	if (len)
		*len = n;
	return buf;
}

int procfs_fail(struct monitor_ctx *ctx, const char *err, int errnum)
{
	bool absent = errnum == ENOENT || errnum == ENOTDIR;
	bool denied = errnum == EACCES || errnum == EPERM;

	/* Once started the file was there: its kernel does provide it. */
	snprintf(ctx->note, sizeof(ctx->note), "%s%s", err,
		 ctx->started ? ""
		 : denied     ? " (needs root)"
		 : absent     ? " (not provided by this kernel)"
			      : "");
	return absent || denied ? MONITOR_UNAVAILABLE : -1;
}

char *procfs_next_line(char **cursor)
{
	char *line = *cursor, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*cursor = nl + 1;
	} else {
		*cursor = line + strlen(line);
	}
	return line;
}

bool procfs_number(const char *s, const char *end, double *value)
{
	const char *p = s;
	bool digits = false;

	if (p < end && (*p == '-' || *p == '+'))
		p++;
	for (; p < end && isdigit((unsigned char)*p); p++)
		digits = true;
	if (p < end && *p == '.')
		for (p++; p < end && isdigit((unsigned char)*p); p++)
			digits = true;
	if (!digits || p != end)
		return false;
	/* Whole numbers through strtoull keep full precision up to 2^53; strtod for the rest. */
	if (!memchr(s, '.', (size_t)(end - s)) && *s != '-')
		*value = (double)strtoull(s, NULL, 10);
	else
		*value = strtod(s, NULL);
	return true;
}

static char *skip_space(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static char *token_end(char *p)
{
	while (*p && *p != ' ' && *p != '\t')
		p++;
	return p;
}

int procfs_kv_line(char *line, char **key, double *value)
{
	char *p = skip_space(line), *k, *kend, *v, *vend;

	/* Node meminfo prefixes every line with "Node <n> "; the node is in the path already. */
	if (strncmp(p, "Node ", 5) == 0) {
		char *q = skip_space(p + 5);

		if (isdigit((unsigned char)*q)) {
			while (isdigit((unsigned char)*q))
				q++;
			p = skip_space(q);
		}
	}
	k = p;
	kend = token_end(k);
	if (kend == k)
		return -1;
	v = skip_space(kend);
	vend = token_end(v);
	if (kend[-1] == ':')
		kend--;
	if (kend == k || !procfs_number(v, vend, value))
		return -1;
	if (!isalnum((unsigned char)*k))
		return -1;
	for (const char *c = k; c < kend; c++)
		if (!isgraph((unsigned char)*c) || *c == ':')
			return -1;
	/* Anything after the value must be a unit. */
	v = skip_space(vend);
	if (*v && strcmp(v, "kB") != 0)
		return -1;
	*kend = '\0';
	*key = k;
	return 0;
}

void series_init(struct series *s)
{
	memset(s, 0, sizeof(*s));
}

void series_release(struct series *s)
{
	for (size_t i = 0; i < s->nr_keys; i++)
		free(s->keys[i].name);
	free(s->keys);
	free(s->index);
	series_init(s);
}

void series_begin(struct series *s)
{
	for (size_t i = 0; i < s->nr_keys; i++)
		s->keys[i].have_cur = false;
	s->hint = 0;
}

static size_t name_hash(const char *name)
{
	size_t h = 14695981039346656037ull; /* FNV-1a */

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	return h;
}

struct series_key *series_find(const struct series *s, const char *name)
{
	if (!s->index_size)
		return NULL;
	for (size_t i = name_hash(name) & (s->index_size - 1);; i = (i + 1) & (s->index_size - 1)) {
		size_t k = s->index[i];

		if (!k)
			return NULL;
		if (strcmp(s->keys[k - 1].name, name) == 0)
			return &s->keys[k - 1];
	}
}

/* Keep the hash index at most half full: per-CPU tables of big machines have tens of
 * thousands of keys, too many to look up by scanning. */
static int series_index_add(struct series *s, size_t key)
{
	size_t i;

	if (2 * s->nr_keys > s->index_size) {
		size_t size = s->index_size ? 2 * s->index_size : 256;
		size_t *index = calloc(size, sizeof(*index));

		if (!index)
			return -1;
		free(s->index);
		s->index = index;
		s->index_size = size;
		for (size_t k = 0; k < s->nr_keys; k++)
			if (k != key)
				series_index_add(s, k);
	}
	for (i = name_hash(s->keys[key].name) & (s->index_size - 1); s->index[i];
	     i = (i + 1) & (s->index_size - 1))
		;
	s->index[i] = key + 1;
	return 0;
}

static struct series_key *series_lookup(struct series *s, const char *name)
{
	struct series_key *k;

	if (s->hint < s->nr_keys && strcmp(s->keys[s->hint].name, name) == 0)
		return &s->keys[s->hint++];
	k = series_find(s, name);
	if (k) {
		s->hint = (size_t)(k - s->keys) + 1;
		return k;
	}
	if (s->nr_keys == s->cap_keys) {
		size_t cap = s->cap_keys ? 2 * s->cap_keys : 64;
		struct series_key *nk = realloc(s->keys, cap * sizeof(*nk));

		if (!nk)
			return NULL;
		s->keys = nk;
		s->cap_keys = cap;
	}
	k = &s->keys[s->nr_keys];
	memset(k, 0, sizeof(*k));
	k->name = strdup(name);
	if (!k->name)
		return NULL;
	s->nr_keys++;
	if (series_index_add(s, s->nr_keys - 1)) {
		free(k->name);
		s->nr_keys--;
		return NULL;
	}
	s->hint = s->nr_keys;
	return k;
}

int series_put(struct series *s, const char *name, double value)
{
	struct series_key *k = series_lookup(s, name);

	if (!k)
		return -1;
	if (k->have_cur) {
		/* The same key twice in one reading: keep the later value, count it once. */
		k->sum += value - k->cur;
		k->last = k->cur = value;
		return 0;
	}
	if (!k->n)
		k->first = k->prev = value;
	else
		k->prev = k->last;
	k->last = k->cur = value;
	k->sum += value;
	k->n++;
	k->have_cur = true;
	return 0;
}

int series_putf(struct series *s, double value, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	return series_put(s, name, value);
}

void series_end(struct series *s, double t_s)
{
	if (!s->nr_readings)
		s->first_t_s = s->prev_t_s = t_s;
	else
		s->prev_t_s = s->last_t_s;
	s->last_t_s = t_s;
	s->nr_readings++;
}

void series_bad(struct series *s, const char *src, const char *line)
{
	if (!s->nr_bad++) {
		snprintf(s->first_bad, sizeof(s->first_bad), "%s", line);
		s->bad_src = src;
	}
}

static json_t *json_number(double v)
{
	/* Whole numbers within 2^53 are exact as integers; no libm (the build links none). */
	if (v > -9007199254740992.0 && v < 9007199254740992.0 && v == (double)(json_int_t)v)
		return json_integer((json_int_t)v);
	return json_real(v);
}

int series_raw_values(struct series *s, json_t *obj, const char *keys_member,
		      const char *values_member)
{
	json_t *values = json_array();

	if (!values)
		return -1;
	if (s->nr_raw_keys < s->nr_keys) {
		json_t *keys = json_array();

		if (!keys || json_object_set_new(obj, keys_member, keys)) {
			json_decref(values);
			return -1;
		}
		for (size_t i = 0; i < s->nr_keys; i++)
			if (json_array_append_new(keys, json_string(s->keys[i].name))) {
				json_decref(values);
				return -1;
			}
		s->nr_raw_keys = s->nr_keys;
	}
	for (size_t i = 0; i < s->nr_keys; i++) {
		const struct series_key *k = &s->keys[i];

		if (json_array_append_new(values, k->have_cur && isfinite(k->cur)
						      ? json_number(k->cur)
						      : json_null())) {
			json_decref(values);
			return -1;
		}
	}
	return json_object_set_new(obj, values_member, values);
}

int series_raw_append(struct series *s, json_t *raw, double t_s)
{
	json_t *obj;

	if (!raw)
		return 0;
	obj = json_object();
	if (!obj || json_object_set_new(obj, "t_s", json_real(t_s)) ||
	    series_raw_values(s, obj, "keys", "values")) {
		json_decref(obj);
		return -1;
	}
	return json_array_append_new(raw, obj);
}

void series_report_bad(const struct series *s, struct monitor_ctx *ctx)
{
	if (!s->nr_bad)
		return;
	if (!ctx->note[0])
		snprintf(ctx->note, sizeof(ctx->note),
			 "skipped %u malformed line(s) of %s, first: '%s'", s->nr_bad,
			 s->bad_src ? s->bad_src : "?", s->first_bad);
	if (ctx->meta)
		json_object_set_new(ctx->meta, "skipped_lines", json_integer(s->nr_bad));
}

static bool key_wanted(const char *key, const char *const *only)
{
	if (!only)
		return true;
	for (; *only; only++)
		if (strcmp(*only, key) == 0)
			return true;
	return false;
}

int procfs_parse_kv(struct series *s, char *text, const char *src, const char *prefix,
		    const char *const *only)
{
	char *cursor = text, *line;

	while ((line = procfs_next_line(&cursor))) {
		char *key;
		double v;

		if (!*skip_space(line))
			continue;
		if (procfs_kv_line(line, &key, &v)) {
			series_bad(s, src, line);
			continue;
		}
		if (!key_wanted(key, only))
			continue;
		if (series_putf(s, v, "%s%s", prefix, key))
			return -1;
	}
	return 0;
}

/* The fields of /proc/stat's cpu lines, in the order proc(5) gives them. */
static const char *const stat_cpu_fields[] = {
    "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice",
};

int procfs_parse_stat(struct series *s, char *text, const char *src)
{
	static const char *const single[] = {
	    "ctxt", "intr", "softirq", "processes", "procs_running", "procs_blocked", NULL};
	char *cursor = text, *line;

	while ((line = procfs_next_line(&cursor))) {
		char *name = skip_space(line), *end = token_end(name), *p;
		bool cpu_total = end - name == 3 && strncmp(name, "cpu", 3) == 0;
		double v;

		if (end == name)
			continue;
		if (!cpu_total) {
			char saved = *end;

			*end = '\0';
			p = saved ? skip_space(end + 1) : end;
			if (!key_wanted(name, single))
				continue; /* btime, per-CPU lines */
			if (!procfs_number(p, token_end(p), &v)) {
				*end = saved;
				series_bad(s, src, line);
				continue;
			}
			if (series_put(s, name, v))
				return -1;
			continue;
		}
		p = end;
		for (size_t i = 0; i < sizeof(stat_cpu_fields) / sizeof(*stat_cpu_fields); i++) {
			char *t = skip_space(p);

			p = token_end(t);
			if (p == t)
				break; /* old kernels print fewer fields */
			if (!procfs_number(t, p, &v)) {
				series_bad(s, src, line);
				break;
			}
			if (series_putf(s, v, "cpu.%s", stat_cpu_fields[i]))
				return -1;
		}
	}
	return 0;
}

void percpu_table_free(struct percpu_table *t)
{
	for (size_t i = 0; i < t->nr_rows; i++)
		free(t->rows[i].counts);
	free(t->rows);
	free(t->cpus);
	memset(t, 0, sizeof(*t));
}

static int percpu_header(struct percpu_table *t, char *line)
{
	char *p = line;

	for (;;) {
		char *tok = skip_space(p), *end = token_end(tok);
		unsigned *nc;
		double v;

		if (end == tok)
			break;
		p = end;
		if (end - tok < 4 || strncmp(tok, "CPU", 3) != 0 ||
		    !procfs_number(tok + 3, end, &v) || v < 0 || v > 1e7)
			return -1;
		nc = realloc(t->cpus, (t->nr_cpus + 1) * sizeof(*nc));
		if (!nc)
			return -1;
		t->cpus = nc;
		t->cpus[t->nr_cpus++] = (unsigned)v;
	}
	return t->nr_cpus ? 0 : -1;
}

static int percpu_row(struct percpu_table *t, char *line)
{
	struct percpu_row row = {0};
	char *p = skip_space(line), *colon = strchr(p, ':'), *desc, *end;

	/* The id is one token ending in ':' ("LOC:", "32:", "TIMER:"). */
	if (!colon || colon == p || token_end(p) < colon)
		return 1;
	*colon = '\0';
	row.id = p;
	row.counts = calloc(t->nr_cpus, sizeof(*row.counts));
	if (!row.counts)
		return -1;
	p = colon + 1;
	while (row.nr_counts < t->nr_cpus) {
		char *tok = skip_space(p);

		end = token_end(tok);
		if (end == tok || !procfs_number(tok, end, &row.counts[row.nr_counts]) ||
		    row.counts[row.nr_counts] < 0)
			break;
		row.nr_counts++;
		p = end;
	}
	desc = skip_space(p);
	end = desc + strlen(desc);
	while (end > desc && isspace((unsigned char)end[-1]))
		*--end = '\0';
	row.desc = desc;
	if (!row.nr_counts) {
		free(row.counts);
		return 1;
	}
	if (t->nr_rows % 64 == 0) {
		struct percpu_row *nr = realloc(t->rows, (t->nr_rows + 64) * sizeof(*nr));

		if (!nr) {
			free(row.counts);
			return -1;
		}
		t->rows = nr;
	}
	t->rows[t->nr_rows++] = row;
	return 0;
}

int percpu_table_parse(struct percpu_table *t, char *text, const char *src, struct series *s,
		       char *err, size_t errlen)
{
	char *cursor = text, *line;

	memset(t, 0, sizeof(*t));
	while ((line = procfs_next_line(&cursor)) && !*skip_space(line))
		;
	if (!line || percpu_header(t, line)) {
		snprintf(err, errlen, "%s: expected a header of CPU<n> columns, got '%.60s'", src,
			 line ? line : "");
		percpu_table_free(t);
		return -1;
	}
	while ((line = procfs_next_line(&cursor))) {
		char copy[96];
		int rc;

		if (!*skip_space(line))
			continue;
		snprintf(copy, sizeof(copy), "%s", line);
		rc = percpu_row(t, line);
		if (rc < 0) {
			snprintf(err, errlen, "%s: out of memory", src);
			percpu_table_free(t);
			return -1;
		}
		if (rc > 0 && s)
			series_bad(s, src, copy);
	}
	return 0;
}

int stats_put(json_t *stats, double value, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	if (!isfinite(value))
		return 0;
	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	return json_object_set_new(stats, name, json_number(value));
}

/* lkp-tests' etc/event-counter-prefixes: a stat whose name starts with one of these counts
 * events.  Note "softirq.": no softirqs.* stat matches it, so LKP reduces softirqs to means. */
static const char *const lkp_event_counter_prefixes[] = {
    "cpuidle.",
    "diskstats.io_ticks.",
    "diskstats.read_ios.",
    "diskstats.read_merges.",
    "diskstats.read_sectors.",
    "diskstats.read_ticks.",
    "diskstats.write_ios.",
    "diskstats.write_merges.",
    "diskstats.write_sectors.",
    "diskstats.write_ticks.",
    "energy.",
    "ethtool.",
    "interrupts.",
    "numa-numastat.",
    "numa-vmstat.nr_dirtied",
    "numa-vmstat.nr_vmscan_immediate_reclaim",
    "numa-vmstat.nr_written",
    "numa-vmstat.numa_",
    "pmu-numa.total_moved",
    "proc-vmstat.allocstall",
    "proc-vmstat.compact_",
    "proc-vmstat.htlb_buddy_alloc_",
    "proc-vmstat.kswapd_",
    "proc-vmstat.nr_dirtied",
    "proc-vmstat.nr_promoted",
    "proc-vmstat.nr_promote_fail",
    "proc-vmstat.nr_promote_isolate_fail",
    "proc-vmstat.nr_promote_ratelimit",
    "proc-vmstat.nr_vmscan_immediate_reclaim",
    "proc-vmstat.nr_written",
    "proc-vmstat.numa_",
    "proc-vmstat.pageoutrun",
    "proc-vmstat.pg",
    "proc-vmstat.pswp",
    "proc-vmstat.slabs_scanned",
    "proc-vmstat.thp_",
    "proc-vmstat.unevictable_pgs_",
    "proc-vmstat.zone_reclaim_failed",
    "softirq.",
};

/* etc/event-counter-patterns: numa-vmstat.node[0-9]+.<one of these>... */
static const char *const lkp_numa_vmstat_node_counters[] = {
    "nr_dirtied", "nr_vmscan_immediate_reclaim", "nr_written", "numa_", "pg",
};

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Whether prefix starts "<family>.<key>", without building that string. */
static bool prefix_of_stat(const char *prefix, const char *family, const char *key)
{
	for (; *family; family++, prefix++) {
		if (!*prefix)
			return true;
		if (*prefix != *family)
			return false;
	}
	if (!*prefix)
		return true;
	return *prefix == '.' && starts_with(key, prefix + 1);
}

bool procfs_lkp_event_counter(const char *family, const char *key)
{
	for (size_t i = 0; i < sizeof(lkp_event_counter_prefixes) / sizeof(char *); i++)
		if (prefix_of_stat(lkp_event_counter_prefixes[i], family, key))
			return true;
	if (strcmp(family, "numa-vmstat") == 0 && starts_with(key, "node")) {
		const char *p = key + 4;

		if (*p < '0' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p++ == '\0')
			return false;
		for (size_t i = 0; i < sizeof(lkp_numa_vmstat_node_counters) / sizeof(char *); i++)
			if (starts_with(p, lkp_numa_vmstat_node_counters[i]))
				return true;
	}
	return false;
}

struct series_monitor {
	const struct series_source *src;
	struct series s;
};

static int series_monitor_read(struct monitor_ctx *ctx, double t_s)
{
	struct series_monitor *m = ctx->priv;
	int rc;

	series_begin(&m->s);
	rc = m->src->read(ctx, &m->s);
	if (rc)
		return m->s.nr_readings ? -1 : rc; /* unavailable only decides at start */
	series_end(&m->s, t_s);
	if (series_raw_append(&m->s, ctx->raw, t_s)) {
		snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
		return -1;
	}
	return 0;
}

int series_monitor_start(struct monitor_ctx *ctx, const struct series_source *src)
{
	struct series_monitor *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
		return -1;
	}
	m->src = src;
	series_init(&m->s);
	ctx->priv = m;
	return series_monitor_read(ctx, 0);
}

int series_monitor_sample(struct monitor_ctx *ctx, double t_s)
{
	return series_monitor_read(ctx, t_s);
}

int series_monitor_reduce(struct monitor_ctx *ctx, json_t *stats)
{
	struct series_monitor *m = ctx->priv;

	if (!m)
		return 0;
	for (size_t i = 0; i < m->s.nr_keys; i++) {
		const struct series_key *k = &m->s.keys[i];
		bool gauge;

		if (series_all_zero(k))
			continue;
		if (m->src->lkp_rule)
			gauge = !procfs_lkp_event_counter(ctx->name, k->name);
		else
			gauge = !m->src->is_gauge || m->src->is_gauge(k->name);

		if (stats_put(stats, gauge ? series_mean(k) : series_delta(k), "%s.%s", ctx->name,
			      k->name))
			return -1;
	}
	series_report_bad(&m->s, ctx);
	return 0;
}

void series_monitor_cleanup(struct monitor_ctx *ctx)
{
	struct series_monitor *m = ctx->priv;

	if (!m)
		return;
	series_release(&m->s);
	free(m);
	ctx->priv = NULL;
}

struct series *series_monitor_series(struct monitor_ctx *ctx)
{
	struct series_monitor *m = ctx->priv;

	return m ? &m->s : NULL;
}
