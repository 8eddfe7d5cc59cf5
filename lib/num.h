/* Numbers from text: one parser per kind, the same rules wherever a kind is read (options,
 * job files, monitor options).  Every parser takes the whole string or nothing: no sign where
 * none belongs, no spaces, no hex, no nan or inf, nothing out of range or beyond a double.
 * Each returns 0, or -1 with err (may be NULL) saying "'VALUE': expected ...", so a caller
 * prefixes the option or key: "--threshold '5s': expected a percentage from 0 to 1000". */
#ifndef SCALEBENCH_NUM_H
#define SCALEBENCH_NUM_H

#include <stddef.h>

/* The durations a benchmark can mean: at least 1 us when not 0, at most 30 days. */
#define NUM_DURATION_MIN 1e-6
#define NUM_DURATION_MAX (30 * 86400.0)

/* A whole number in decimal digits, min <= n <= max. */
int num_parse_count(const char *s, unsigned long long min, unsigned long long max,
		    unsigned long long *out, char *err, size_t errlen);

/* A finite decimal number (-2.5, 0.99, 1e3), min <= x <= max. */
int num_parse_float(const char *s, double min, double max, double *out, char *err, size_t errlen);

/* Seconds: "300", "300s", "5m", "1.5h", "2d", "0.5"; min_s <= x <= max_s.  0 is taken only
 * when min_s is 0, and nothing between 0 and NUM_DURATION_MIN ever is. */
int num_parse_duration(const char *s, double min_s, double max_s, double *out, char *err,
		       size_t errlen);

/* A percentage, "5" or "5%", 0 <= x <= max (100 for a share of something). */
int num_parse_percent(const char *s, double max, double *out, char *err, size_t errlen);

/* One task count: "8", or "50%" of nr_online rounded down but never below 1 (LKP rounds a
 * percentage of CPUs down; a count of 0 would run nothing).  1 <= n <= max. */
int num_parse_tasks(const char *s, unsigned nr_online, unsigned max, unsigned *out, char *err,
		    size_t errlen);

/* Task counts: counts as num_parse_tasks reads them, ranges of them ("1-8", "1-100%") and
 * comma lists of both ("1,2,4", "1,50%,100%").  *out (allocated, free() it) holds them sorted
 * and deduplicated, *n of them. */
int num_parse_taskspec(const char *s, unsigned nr_online, unsigned max, unsigned **out, size_t *n,
		       char *err, size_t errlen);

#endif
