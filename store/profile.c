/* A profile: unique symbolized call chains with their sample counts, its JSON form, and the
 * records of a run's raw perf-profile file that hold it (written by the perf-profile monitor,
 * read by `scalebench profile`). */
#include "profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	p->index = json_object();
	return p->index ? 0 : -1;
}

/* Frames joined by a byte no symbol has: the chain's identity. */
static char *join(const char *const *frames, size_t depth, char sep)
{
	size_t len = 1;
	char *s, *q;

	for (size_t i = 0; i < depth; i++)
		len += strlen(frames[i]) + 1;
	s = q = malloc(len);
	if (!s)
		return NULL;
	*q = '\0';
	for (size_t i = 0; i < depth; i++) {
		size_t l = strlen(frames[i]);

		if (i)
			*q++ = sep;
		memcpy(q, frames[i], l);
		q += l;
		*q = '\0';
	}
	return s;
}

int profile_add(struct profile *p, const char *const *frames, size_t depth, uint64_t count)
{
	struct profile_chain *c;
	uint64_t total;
	char *key;
	json_t *idx;

	/* Every chain's count is at most the total: checking the total checks them all.  It
	 * stays a json_int_t so that the profile can be written back. */
	if (__builtin_add_overflow(p->samples, count, &total) || total > INT64_MAX)
		return -EOVERFLOW;
	key = join(frames, depth, '\x1f');
	if (!key)
		return -ENOMEM;
	idx = json_object_get(p->index, key);
	if (idx) {
		p->chain[json_integer_value(idx)].count += count;
		p->samples = total;
		free(key);
		return 0;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		struct profile_chain *g = realloc(p->chain, cap * sizeof(*g));

		if (!g)
			goto nomem;
		p->chain = g;
		p->cap = cap;
	}
	c = &p->chain[p->n];
	c->frames = calloc(depth ? depth : 1, sizeof(*c->frames));
	if (!c->frames)
		goto nomem;
	c->depth = depth;
	c->count = count;
	for (size_t i = 0; i < depth; i++)
		if (!(c->frames[i] = strdup(frames[i]))) {
			for (size_t j = 0; j < i; j++)
				free(c->frames[j]);
			free(c->frames);
			goto nomem;
		}
	if (json_object_set_new(p->index, key, json_integer((json_int_t)p->n))) {
		for (size_t j = 0; j < depth; j++)
			free(c->frames[j]);
		free(c->frames);
		goto nomem;
	}
	p->n++;
	p->samples = total;
	free(key);
	return 0;
nomem:
	free(key);
	return -ENOMEM;
}

void profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->n; i++) {
		for (size_t j = 0; j < p->chain[i].depth; j++)
			free(p->chain[i].frames[j]);
		free(p->chain[i].frames);
	}
	free(p->chain);
	json_decref(p->index);
	memset(p, 0, sizeof(*p));
}

static int by_count_desc(const void *a, const void *b)
{
	const struct profile_chain *const *x = a, *const *y = b;

	return (*x)->count < (*y)->count ? 1 : (*x)->count > (*y)->count ? -1 : 0;
}

json_t *profile_to_json(const struct profile *p)
{
	const struct profile_chain **order = malloc((p->n ? p->n : 1) * sizeof(*order));
	json_t *out = json_array();

	if (!order || !out)
		goto nomem;
	for (size_t i = 0; i < p->n; i++)
		order[i] = &p->chain[i];
	qsort(order, p->n, sizeof(*order), by_count_desc);
	for (size_t i = 0; i < p->n; i++) {
		json_t *frames = json_array();

		if (!frames)
			goto nomem;
		for (size_t j = 0; j < order[i]->depth; j++)
			json_array_append_new(frames, json_string(order[i]->frames[j]));
		if (json_array_append_new(out,
					  json_pack("{s:I,s:o}", "count",
						    (json_int_t)order[i]->count, "chain", frames)))
			goto nomem;
	}
	free(order);
	return out;
nomem:
	free(order);
	json_decref(out);
	return NULL;
}

int profile_add_json(const json_t *chains, struct profile *p, char *err, size_t errlen)
{
	const char **frames = NULL;
	size_t i;
	json_t *c;

	if (!json_is_array(chains)) {
		snprintf(err, errlen, "chains: expected a list of {\"count\", \"chain\"}");
		return -1;
	}
	json_array_foreach (chains, i, c) {
		const json_t *count = json_object_get(c, "count"),
			     *chain = json_object_get(c, "chain");
		size_t depth = json_array_size(chain), j;
		json_t *f;

		if (!json_is_integer(count) || json_integer_value(count) < 0 ||
		    !json_is_array(chain)) {
			snprintf(err, errlen,
				 "chains[%zu]: expected {\"count\": N, \"chain\": [names]}", i);
			goto fail;
		}
		free(frames);
		frames = malloc((depth ? depth : 1) * sizeof(*frames));
		if (!frames)
			goto nomem;
		json_array_foreach (chain, j, f) {
			if (!json_is_string(f)) {
				snprintf(err, errlen, "chains[%zu].chain[%zu]: expected a name", i,
					 j);
				goto fail;
			}
			frames[j] = json_string_value(f);
		}
		switch (profile_add(p, frames, depth, (uint64_t)json_integer_value(count))) {
		case 0:
			break;
		case -EOVERFLOW:
			snprintf(err, errlen,
				 "corrupt: chains[%zu]: the sample counts add up to more than %lld",
				 i, (long long)INT64_MAX);
			goto fail;
		default:
			goto nomem;
		}
	}
	free(frames);
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	free(frames);
	return -1;
}

int profile_from_json(const json_t *chains, struct profile *p, char *err, size_t errlen)
{
	if (profile_init(p)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (profile_add_json(chains, p, err, errlen)) {
		profile_free(p);
		return -1;
	}
	return 0;
}

json_t *profile_record_new(const struct profile *p, double t_s, const char *event, uint64_t samples,
			   uint64_t lost)
{
	json_t *chains = profile_to_json(p);

	if (!chains)
		return NULL;
	return json_pack("{s:f,s:s,s:I,s:I,s:o}", "t_s", t_s, "event", event, "samples",
			 (json_int_t)samples, "lost", (json_int_t)lost, "chains", chains);
}

int profile_record_find(const json_t *file, struct profile_record *r)
{
	const json_t *rec = NULL, *v, *lost, *samples;
	size_t i;

	json_array_foreach (file, i, v) {
		if (json_is_object(v) && json_object_get(v, "chains"))
			rec = v;
	}
	if (!rec)
		return -1;
	v = json_object_get(rec, "event");
	r->event = json_is_string(v) ? json_string_value(v) : "?";
	lost = json_object_get(rec, "lost");
	samples = json_object_get(rec, "samples");
	if ((lost && (!json_is_integer(lost) || json_integer_value(lost) < 0)) ||
	    (samples && (!json_is_integer(samples) || json_integer_value(samples) < 0)))
		return -2;
	r->lost = lost ? json_integer_value(lost) : 0;
	r->samples = samples ? json_integer_value(samples) : -1;
	r->chains = json_object_get(rec, "chains");
	return 0;
}
