/* What the procfs monitors share: reading a file under ctx->proc_root or ctx->sys_root,
 * parsing "key value" files and per-CPU tables, and a series of readings that keeps, per key,
 * only what the reduction needs (first, last, sum, count) while every reading goes to the
 * monitor's raw samples.
 *
 * Values are doubles: procfs counters stay far below 2^53 and some files (sched_debug) print
 * fractions.  Counters reduce to last - first over the window, gauges to the mean of the
 * readings.
 *
 * Raw samples of a series are {"t_s": t, "keys": [...], "values": [...]}, where "keys" (the
 * whole key list) appears only in the first sample and again whenever a key was added, so the
 * values of a sample belong to the keys of the latest sample that carried them; a key missing
 * from a reading is null. */
#ifndef SCALEBENCH_PROCFS_H
#define SCALEBENCH_PROCFS_H

#include "monitor.h"

#include <stdbool.h>
#include <stddef.h>

/* The whole of root/rel, NUL-terminated, malloc'd (procfs files report size 0, so it is read
 * until EOF).  NULL with errno set and err naming the path and the reason. */
char *procfs_read(const char *root, const char *rel, size_t *len, char *err, size_t errlen);

/* Fill ctx->note for a file that cannot be read; MONITOR_UNAVAILABLE when it is missing or
 * not readable by this user (errno ENOENT, ENOTDIR, EACCES, EPERM), else -1. */
int procfs_fail(struct monitor_ctx *ctx, const char *err, int errnum);

/* The next line of *cursor (modified in place: the newline becomes NUL), NULL at the end. */
char *procfs_next_line(char **cursor);

/* Split one "Key: value [kB]", "key value" or "Node N Key: value kB" line.  key points into
 * line (its trailing ':' removed).  -1 when the line has no key or no number after it. */
int procfs_kv_line(char *line, char **key, double *value);

/* A whole number, or a decimal one, making up the whole token [s, end). */
bool procfs_number(const char *s, const char *end, double *value);

struct series_key {
	char *name;
	double first, last, prev; /* prev: the reading before last (rates per interval) */
	double sum;		  /* of the readings, for gauge means */
	unsigned n;
	double cur;
	bool have_cur; /* read in the current reading */
};

struct series {
	struct series_key *keys;
	size_t nr_keys, cap_keys;
	size_t *index;	    /* hash of the names: key number + 1, 0 for a free slot */
	size_t index_size;  /* a power of two */
	size_t hint;	    /* files list their keys in the same order every time */
	size_t nr_raw_keys; /* keys the raw samples have announced so far */
	unsigned nr_readings;
	double first_t_s, prev_t_s, last_t_s;
	unsigned nr_bad;     /* malformed lines skipped */
	char first_bad[96];  /* the first of them, for the note */
	const char *bad_src; /* and the file it was in */
};

void series_init(struct series *s);
void series_release(struct series *s);
/* A reading: series_begin, series_put for each value, series_end. */
void series_begin(struct series *s);
/* -1 only when out of memory. */
int series_put(struct series *s, const char *name, double value);
int series_putf(struct series *s, double value, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void series_end(struct series *s, double t_s);
/* Count a malformed line of src, remembering the first for the note. */
void series_bad(struct series *s, const char *src, const char *line);
struct series_key *series_find(const struct series *s, const char *name);

static inline double series_delta(const struct series_key *k)
{
	return k->last - k->first;
}

static inline double series_mean(const struct series_key *k)
{
	return k->n ? k->sum / k->n : 0;
}

/* lkp-tests' sbin/dump-stat leaves out a stat whose readings are all 0 (first, last and sum),
 * whether it counts or not, and LKP's tables never show it: nor does scalebench. */
static inline bool series_all_zero(const struct series_key *k)
{
	return k->first == 0 && k->last == 0 && k->sum == 0;
}

/* Add the current reading's "keys" (when new keys came) and "values" to obj under the given
 * member names. */
int series_raw_values(struct series *s, json_t *obj, const char *keys_member,
		      const char *values_member);
/* Append {"t_s": t_s, "keys"?, "values"} to raw (skipped when raw is NULL). */
int series_raw_append(struct series *s, json_t *raw, double t_s);
/* When lines were skipped: ctx->note (if still empty) and meta "skipped_lines". */
void series_report_bad(const struct series *s, struct monitor_ctx *ctx);

/* Parse a "key value" / "Key: value kB" file into s, keys prefixed by prefix (may be "");
 * with only non-NULL, just those keys (NULL-terminated list).  Malformed lines are skipped
 * and counted.  -1 when out of memory. */
int procfs_parse_kv(struct series *s, char *text, const char *src, const char *prefix,
		    const char *const *only);

/* /proc/stat: the all-CPU "cpu" line as cpu.user, cpu.nice, cpu.system, cpu.idle, cpu.iowait,
 * cpu.irq, cpu.softirq, cpu.steal, cpu.guest, cpu.guest_nice (USER_HZ ticks), then ctxt,
 * intr and softirq (their totals), processes, procs_running, procs_blocked. */
int procfs_parse_stat(struct series *s, char *text, const char *src);

/* A per-CPU table (/proc/interrupts, /proc/softirqs): a header of CPU<n> columns, then rows
 * "ID: count count ... [description]".  A row with fewer counts than columns (ERR, MIS) has
 * a single system-wide count. */
struct percpu_row {
	char *id;   /* "LOC", "32", "RCU" */
	char *desc; /* the text after the counts, whitespace trimmed, "" when none */
	double *counts;
	unsigned nr_counts;
};

struct percpu_table {
	unsigned *cpus; /* the column headers' CPU numbers (offline CPUs have no column) */
	unsigned nr_cpus;
	struct percpu_row *rows;
	size_t nr_rows;
};

/* Parse text (modified in place; rows point into it).  Malformed rows are skipped and
 * counted in s (when s is non-NULL).  -1 when the header is missing (err set) or out of
 * memory. */
int percpu_table_parse(struct percpu_table *t, char *text, const char *src, struct series *s,
		       char *err, size_t errlen);
void percpu_table_free(struct percpu_table *t);

/* stats[name] = value, name from fmt; whole numbers as JSON integers.  Non-finite values are
 * left out.  -1 when out of memory. */
int stats_put(json_t *stats, double value, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A monitor that is one series read from files: start, sample and stop take a reading and
 * append it to the raw samples; reduce gives each key as "<monitor name>.<key>", a gauge's
 * mean or a counter's delta, leaving out the keys that read 0 throughout. */
struct series_source {
	/* One reading into s: 0, or MONITOR_UNAVAILABLE / -1 with ctx->note set. */
	int (*read)(struct monitor_ctx *ctx, struct series *s);
	/* Gauges reduce to means, the rest to deltas; NULL: everything is a gauge. */
	bool (*is_gauge)(const char *key);
	/* Instead of is_gauge: LKP's rule (procfs_lkp_event_counter) on "<monitor>.<key>". */
	bool lkp_rule;
};

int series_monitor_start(struct monitor_ctx *ctx, const struct series_source *src);
int series_monitor_sample(struct monitor_ctx *ctx, double t_s);
int series_monitor_reduce(struct monitor_ctx *ctx, json_t *stats);
void series_monitor_cleanup(struct monitor_ctx *ctx);
/* The series of a started series monitor (for a monitor with its own reduce), else NULL. */
struct series *series_monitor_series(struct monitor_ctx *ctx);

/* LKP's rule for the stat <family>.<key>: the names lkp-tests' etc/event-counter-prefixes and
 * etc/event-counter-patterns match are event counters, reduced to last - first; every other
 * stat is a level, reduced to the mean of its readings, even where the kernel counts up
 * (softirqs.*, proc-vmstat.workingset_*): LKP's tables compare those means. */
bool procfs_lkp_event_counter(const char *family, const char *key);

#endif
