#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One count: "8" or "50%" (of nr_online, rounded down). */
static int parse_count(const char *s, size_t len, unsigned nr_online, unsigned *out)
{
	char buf[32];
	unsigned long v = 0;
	bool percent = false;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (buf[len - 1] == '%') {
		percent = true;
		buf[--len] = '\0';
	}
	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(buf[i] - '0');
		if (v > 1000000)
			return -1;
	}
	if (percent)
		v = v * nr_online / 100;
	*out = (unsigned)v;
	return 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

int taskspec_parse(const char *spec, unsigned nr_online, unsigned *out, size_t max, char *err,
		   size_t errlen)
{
	size_t n = 0;
	const char *p = spec;

	if (!spec || !*spec) {
		snprintf(err, errlen, "empty task count; expected N, N,M,..., A-B or P%%");
		return -1;
	}
	while (*p) {
		size_t len = strcspn(p, ",");
		const char *dash = memchr(p, '-', len);
		unsigned lo, hi;

		if (dash) {
			if (parse_count(p, (size_t)(dash - p), nr_online, &lo) ||
			    parse_count(dash + 1, len - (size_t)(dash - p) - 1, nr_online, &hi))
				goto bad;
		} else {
			if (parse_count(p, len, nr_online, &lo))
				goto bad;
			hi = lo;
		}
		if (lo == 0 || hi == 0) {
			snprintf(
			    err, errlen,
			    "task count '%.*s' is 0 (with %u online CPUs); expected at least 1",
			    (int)len, p, nr_online);
			return -1;
		}
		if (hi < lo) {
			snprintf(err, errlen,
				 "task range '%.*s' runs backwards; expected A-B with A <= B",
				 (int)len, p);
			return -1;
		}
		if (hi > CORE_MAX_COPIES) {
			snprintf(err, errlen, "task count '%.*s' is above the maximum of %d",
				 (int)len, p, CORE_MAX_COPIES);
			return -1;
		}
		for (unsigned v = lo; v <= hi; v++) {
			if (n == max) {
				snprintf(err, errlen, "more than %zu task counts in '%s'", max,
					 spec);
				return -1;
			}
			out[n++] = v;
		}
		p += len;
		if (*p == ',') {
			p++;
			if (!*p)
				goto bad_end;
		}
	}
	qsort(out, n, sizeof(*out), cmp_unsigned);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (k == 0 || out[k - 1] != out[i])
			out[k++] = out[i];
	return (int)k;
bad:
	snprintf(err, errlen,
		 "bad task count '%.*s'; expected a number, a percentage of online CPUs (50%%), a "
		 "range (1-8) or a comma list of those",
		 (int)strcspn(p, ","), p);
	return -1;
bad_end:
	snprintf(err, errlen, "bad task count '%s': trailing comma", spec);
	return -1;
}
