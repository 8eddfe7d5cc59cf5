/* perf-profile's stats: a profile's chains reduced to the robot's
 * perf-profile.{self,children,calltrace}.<event>.* percentages. */
#include "profile_reduce.h"

#include <stdio.h>

/* counts[key] += n, unless this chain already counted key (seen holds its keys). */
static int count_once(json_t *counts, json_t *seen, const char *key, uint64_t n)
{
	json_t *v;

	if (json_object_get(seen, key))
		return 0;
	if (json_object_set_new(seen, key, json_true()))
		return -1;
	v = json_object_get(counts, key);
	if (v)
		return json_integer_set(v, json_integer_value(v) + (json_int_t)n);
	return json_object_set_new(counts, key, json_integer((json_int_t)n));
}

int profile_reduce(const struct profile *p, const char *event, double min_pct, json_t *stats)
{
	json_t *counts = json_object(), *seen = json_object(), *v;
	const char *key;
	char buf[2048];
	int rc = -1;

	if (!counts || !seen)
		goto out;
	for (size_t i = 0; i < p->n; i++) {
		const struct profile_chain *c = &p->chain[i];

		json_object_clear(seen);
		if (!c->depth)
			continue;
		snprintf(buf, sizeof(buf), "perf-profile.self.%s.%s", event, c->frames[0]);
		if (count_once(counts, seen, buf, c->count))
			goto out;
		for (size_t f = 0; f < c->depth; f++) {
			size_t end = f + PROFILE_CALLTRACE_DEPTH, len;

			snprintf(buf, sizeof(buf), "perf-profile.children.%s.%s", event,
				 c->frames[f]);
			if (count_once(counts, seen, buf, c->count))
				goto out;
			len =
			    (size_t)snprintf(buf, sizeof(buf), "perf-profile.calltrace.%s", event);
			for (size_t g = f; g < end && g < c->depth && len < sizeof(buf); g++)
				len += (size_t)snprintf(buf + len, sizeof(buf) - len, ".%s",
							c->frames[g]);
			if (count_once(counts, seen, buf, c->count))
				goto out;
		}
	}
	json_object_foreach (counts, key, v) {
		double pct =
		    p->samples ? 100.0 * (double)json_integer_value(v) / (double)p->samples : 0;

		if (pct >= min_pct && json_object_set_new(stats, key, json_real(pct)))
			goto out;
	}
	rc = 0;
out:
	json_decref(counts);
	json_decref(seen);
	return rc;
}
