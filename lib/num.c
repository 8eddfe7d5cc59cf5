#include "num.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* The length of the decimal number at the start of s: digits, optionally a fraction, and
 * with the flags a leading '-' and an exponent; 0 when s does not start with one.  strtod
 * alone would also take spaces, '+', hex, "inf" and "nan". */
enum { DEC_SIGN = 1, DEC_EXP = 2 };

static size_t scan_decimal(const char *s, unsigned flags)
{
	size_t i = 0, d;

	if ((flags & DEC_SIGN) && s[i] == '-')
		i++;
	d = strspn(s + i, "0123456789");
	if (!d)
		return 0;
	i += d;
	if (s[i] == '.') {
		d = strspn(s + i + 1, "0123456789");
		if (!d)
			return 0;
		i += 1 + d;
	}
	if ((flags & DEC_EXP) && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1;

		if (s[j] == '-' || s[j] == '+')
			j++;
		d = strspn(s + j, "0123456789");
		if (!d)
			return 0;
		i = j + d;
	}
	return i;
}

/* The first len characters of s as a finite double, or -1 (overflow, underflow). */
static int to_double(const char *s, size_t len, double *out)
{
	char buf[64], *copy = len < sizeof(buf) ? buf : malloc(len + 1), *end;
	int ret = -1;

	if (!copy)
		return -1;
	memcpy(copy, s, len);
	copy[len] = '\0';
	errno = 0;
	*out = strtod(copy, &end);
	if (!errno && end == copy + len && isfinite(*out))
		ret = 0;
	if (copy != buf)
		free(copy);
	return ret;
}

int num_parse_count(const char *s, unsigned long long min, unsigned long long max,
		    unsigned long long *out, char *err, size_t errlen)
{
	size_t len = strspn(s, "0123456789");
	unsigned long long v = 0;
	bool big = false;

	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (v > (ULLONG_MAX - d) / 10)
			big = true;
		else
			v = v * 10 + d;
	}
	if (!len || s[len] || big || v < min || v > max)
		return fail(err, errlen, "'%s': expected a whole number from %llu to %llu", s, min,
			    max);
	*out = v;
	return 0;
}

static void range_text(double min, double max, char *buf, size_t len)
{
	if (min <= -DBL_MAX && max >= DBL_MAX)
		buf[0] = '\0';
	else if (min <= -DBL_MAX)
		snprintf(buf, len, " up to %g", max);
	else if (max >= DBL_MAX)
		snprintf(buf, len, " of at least %g", min);
	else
		snprintf(buf, len, " from %g to %g", min, max);
}

int num_parse_float(const char *s, double min, double max, double *out, char *err, size_t errlen)
{
	size_t len = scan_decimal(s, DEC_SIGN | DEC_EXP);
	char range[128];
	double v;

	if (!len || s[len] || to_double(s, len, &v) || v < min || v > max) {
		range_text(min, max, range, sizeof(range));
		return fail(err, errlen, "'%s': expected a number%s", s, range);
	}
	*out = v;
	return 0;
}

/* Seconds as the duration syntax writes them: 30d, 1h, 5m, 0.01s, 1us. */
static void seconds_text(double v, char *buf, size_t len)
{
	if (v >= 86400 && fmod(v, 86400) == 0)
		snprintf(buf, len, "%gd", v / 86400);
	else if (v >= 3600 && fmod(v, 3600) == 0)
		snprintf(buf, len, "%gh", v / 3600);
	else if (v >= 60 && fmod(v, 60) == 0)
		snprintf(buf, len, "%gm", v / 60);
	else if (v == 0 || v >= 1e-3)
		snprintf(buf, len, "%gs", v);
	else
		snprintf(buf, len, "%gus", v * 1e6);
}

int num_parse_duration(const char *s, double min_s, double max_s, double *out, char *err,
		       size_t errlen)
{
	static const struct {
		char unit;
		double s;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
	size_t len = scan_decimal(s, 0);
	double scale = 1, v;
	bool ok = len > 0;

	if (ok && s[len]) {
		ok = false;
		for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
			if (s[len] == units[u].unit && !s[len + 1]) {
				scale = units[u].s;
				ok = true;
			}
	}
	ok = ok && to_double(s, len, &v) == 0 && isfinite(v *= scale);
	if (ok && v == 0)
		ok = min_s == 0;
	else if (ok)
		ok = v >= NUM_DURATION_MIN && v >= min_s && v <= max_s;
	if (!ok) {
		char lo[32], hi[32];

		seconds_text(min_s > 0 && min_s < NUM_DURATION_MIN ? NUM_DURATION_MIN : min_s, lo,
			     sizeof(lo));
		seconds_text(max_s, hi, sizeof(hi));
		return fail(err, errlen,
			    "'%s': expected a duration from %s to %s (300, 300s, 5m, 1.5h, 2d)", s,
			    lo, hi);
	}
	*out = v;
	return 0;
}

int num_parse_percent(const char *s, double max, double *out, char *err, size_t errlen)
{
	size_t len = scan_decimal(s, 0);
	double v;

	if (!len || (s[len] && strcmp(s + len, "%")) || to_double(s, len, &v) || v > max)
		return fail(err, errlen, "'%s': expected a percentage from 0 to %g (5 or 5%%)", s,
			    max);
	*out = v;
	return 0;
}

/* One task count in s[0..len): 0, or -1 not a count, -2 zero, -3 above max. */
enum { TASKS_OK = 0, TASKS_SYNTAX = -1, TASKS_ZERO = -2, TASKS_TOO_MANY = -3 };

static int task_count(const char *s, size_t len, unsigned nr_online, unsigned max, unsigned *out)
{
	size_t digits = len && s[len - 1] == '%' ? len - 1 : len;
	unsigned long long v = 0;
	bool big = false;

	if (!digits || strspn(s, "0123456789") < digits)
		return TASKS_SYNTAX;
	for (size_t i = 0; i < digits; i++) {
		if (v > ULLONG_MAX / 100)
			big = true;
		else
			v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (!big && v == 0)
		return TASKS_ZERO;
	if (digits < len && !big) {
		if (v > (unsigned long long)max * 100)
			big = true;
		else
			v = v * (nr_online ? nr_online : 1) / 100;
		if (v == 0)
			v = 1;
	}
	if (big || v > max)
		return TASKS_TOO_MANY;
	*out = (unsigned)v;
	return TASKS_OK;
}

int num_parse_tasks(const char *s, unsigned nr_online, unsigned max, unsigned *out, char *err,
		    size_t errlen)
{
	switch (task_count(s, strlen(s), nr_online, max, out)) {
	case TASKS_OK:
		return 0;
	case TASKS_ZERO:
		return fail(err, errlen, "'%s': expected at least 1 task", s);
	case TASKS_TOO_MANY:
		return fail(err, errlen, "'%s': more than the maximum of %u tasks (%u online CPUs)",
			    s, max, nr_online);
	default:
		return fail(err, errlen,
			    "'%s': expected a number of tasks (at least 1) or a percentage of "
			    "online CPUs (50%%)",
			    s);
	}
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* The error of one part of a task spec, naming the part (and the whole when they differ). */
static int part_fail(int code, const char *spec, const char *p, size_t len, unsigned nr_online,
		     unsigned max, char *err, size_t errlen)
{
	char in[64 + 4096];

	in[0] = '\0';
	if (len != strlen(spec))
		snprintf(in, sizeof(in), " (in '%s')", spec);
	switch (code) {
	case TASKS_ZERO:
		return fail(err, errlen, "'%.*s': expected at least 1 task%s", (int)len, p, in);
	case TASKS_TOO_MANY:
		return fail(err, errlen,
			    "'%.*s': more than the maximum of %u tasks (%u online CPUs)%s",
			    (int)len, p, max, nr_online, in);
	default:
		return fail(err, errlen,
			    "'%.*s': expected a number of tasks (4), a percentage of online CPUs "
			    "(50%%), a range (1-8) or a comma list of those (1,2,4)%s",
			    (int)len, p, in);
	}
}

int num_parse_taskspec(const char *s, unsigned nr_online, unsigned max, unsigned **out, size_t *n,
		       char *err, size_t errlen)
{
	unsigned *v = NULL;
	size_t nv = 0, cap = 0;
	const char *p = s;

	for (;;) {
		size_t len = strcspn(p, ",");
		const char *dash = memchr(p, '-', len);
		unsigned lo, hi;
		int code;

		if (dash) {
			code = task_count(p, (size_t)(dash - p), nr_online, max, &lo);
			if (code == TASKS_OK)
				code = task_count(dash + 1, len - (size_t)(dash - p) - 1, nr_online,
						  max, &hi);
		} else {
			code = task_count(p, len, nr_online, max, &lo);
			hi = lo;
		}
		if (code != TASKS_OK) {
			free(v);
			return part_fail(code, s, p, len, nr_online, max, err, errlen);
		}
		if (hi < lo) {
			free(v);
			return fail(err, errlen,
				    "'%.*s': the range runs backwards (%u-%u with %u online CPUs); "
				    "expected A-B with A <= B",
				    (int)len, p, lo, hi, nr_online);
		}
		if (nv + (hi - lo + 1) > cap) {
			unsigned *g;

			cap = 2 * cap + (hi - lo + 1);
			g = realloc(v, cap * sizeof(*v));
			if (!g) {
				free(v);
				return fail(err, errlen, "'%s': out of memory", s);
			}
			v = g;
		}
		for (unsigned t = lo;; t++) {
			v[nv++] = t;
			if (t == hi)
				break;
		}
		p += len;
		if (!*p)
			break;
		p++; /* the comma: a part must follow it */
	}
	qsort(v, nv, sizeof(*v), cmp_unsigned);
	size_t k = 0;
	for (size_t i = 0; i < nv; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	*out = v;
	*n = k;
	return 0;
}
