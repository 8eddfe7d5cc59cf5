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

/* The chain's identity: task, then frames and their binaries joined by a byte no name has. */
static char *chain_key(const struct profile_task *task, const char *const *frames,
		       const char *const *dsos, size_t depth)
{
	char *names = join(frames, depth, '\x1f'), *bins = NULL, *key = NULL;
	size_t len;

	if (!names)
		return NULL;
	if (!task && !dsos)
		return names;
	if (dsos) {
		const char **d = malloc((depth ? depth : 1) * sizeof(*d));

		if (!d)
			goto out;
		for (size_t i = 0; i < depth; i++)
			d[i] = dsos[i] ? dsos[i] : "\x1d";
		bins = join(d, depth, '\x1f');
		free(d);
		if (!bins)
			goto out;
	}
	len = strlen(names) + (bins ? strlen(bins) : 0) +
	      (task && task->comm ? strlen(task->comm) : 0) + 64;
	key = malloc(len);
	if (key)
		snprintf(key, len, "%s\x1e%s\x1e%d\x1e%d\x1e%s", names, bins ? bins : "",
			 task ? task->pid : -1, task ? task->tid : -1,
			 task && task->comm ? task->comm : "\x1d");
out:
	free(names);
	free(bins);
	return key;
}

static void chain_free(struct profile_chain *c)
{
	for (size_t j = 0; j < c->depth; j++) {
		free(c->frames[j]);
		if (c->dsos)
			free(c->dsos[j]);
	}
	free(c->frames);
	free(c->dsos);
	free(c->comm);
}

int profile_add_task(struct profile *p, const struct profile_task *task, const char *const *frames,
		     const char *const *dsos, size_t depth, uint64_t count)
{
	struct profile_chain *c;
	uint64_t total;
	char *key;
	json_t *idx;

	/* Every chain's count is at most the total: checking the total checks them all.  It
	 * stays a json_int_t so that the profile can be written back. */
	if (__builtin_add_overflow(p->samples, count, &total) || total > INT64_MAX)
		return -EOVERFLOW;
	key = chain_key(task, frames, dsos, depth);
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
	memset(c, 0, sizeof(*c));
	c->pid = task ? task->pid : -1;
	c->tid = task ? task->tid : -1;
	c->count = count;
	c->frames = calloc(depth ? depth : 1, sizeof(*c->frames));
	if (!c->frames)
		goto nomem;
	c->depth = depth;
	if (dsos && !(c->dsos = calloc(depth ? depth : 1, sizeof(*c->dsos))))
		goto undo;
	if (task && task->comm && !(c->comm = strdup(task->comm)))
		goto undo;
	for (size_t i = 0; i < depth; i++)
		if (!(c->frames[i] = strdup(frames[i])) ||
		    (dsos && dsos[i] && !(c->dsos[i] = strdup(dsos[i]))))
			goto undo;
	if (json_object_set_new(p->index, key, json_integer((json_int_t)p->n)))
		goto undo;
	p->n++;
	p->samples = total;
	free(key);
	return 0;
undo:
	chain_free(c);
nomem:
	free(key);
	return -ENOMEM;
}

int profile_add(struct profile *p, const char *const *frames, size_t depth, uint64_t count)
{
	return profile_add_task(p, NULL, frames, NULL, depth, count);
}

void profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->n; i++)
		chain_free(&p->chain[i]);
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
		const struct profile_chain *c = order[i];
		json_t *frames = json_array(), *o;

		if (!frames)
			goto nomem;
		for (size_t j = 0; j < c->depth; j++)
			json_array_append_new(frames, json_string(c->frames[j]));
		o = json_pack("{s:I,s:o}", "count", (json_int_t)c->count, "chain", frames);
		if (o && c->pid >= 0) {
			json_object_set_new(o, "pid", json_integer(c->pid));
			json_object_set_new(o, "tid", json_integer(c->tid));
		}
		if (o && c->comm)
			json_object_set_new(o, "comm", json_string(c->comm));
		if (o && c->dsos) {
			json_t *d = json_array();

			for (size_t j = 0; d && j < c->depth; j++)
				json_array_append_new(d, c->dsos[j] ? json_string(c->dsos[j])
								    : json_null());
			json_object_set_new(o, "dsos", d);
		}
		if (json_array_append_new(out, o))
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
	return profile_add_json_pids(chains, NULL, p, err, errlen);
}

int profile_add_json_pids(const json_t *chains, const json_t *pids, struct profile *p, char *err,
			  size_t errlen)
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
			     *chain = json_object_get(c, "chain"), *pid = json_object_get(c, "pid");
		size_t depth = json_array_size(chain), j;
		json_t *f;

		if (!json_is_integer(count) || json_integer_value(count) < 0 ||
		    !json_is_array(chain)) {
			snprintf(err, errlen,
				 "chains[%zu]: expected {\"count\": N, \"chain\": [names]}", i);
			goto fail;
		}
		if (pid && (!json_is_integer(pid) || json_integer_value(pid) < 0)) {
			snprintf(err, errlen, "chains[%zu]: \"pid\": expected a whole number >= 0", i);
			goto fail;
		}
		if (pids) {
			char key[32];

			snprintf(key, sizeof(key), "%lld",
				 pid ? (long long)json_integer_value(pid) : -1LL);
			if (!json_object_get(pids, key))
				continue;
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

/* A list of pids as a set (decimal pid -> true), or NULL when it is not a list of whole
 * numbers >= 0 (or out of memory). */
static json_t *pid_set(const json_t *list)
{
	json_t *set = json_object();
	size_t i;

	if (!set || !json_is_array(list))
		goto bad;
	for (i = 0; i < json_array_size(list); i++) {
		const json_t *x = json_array_get(list, i);
		char key[32];

		if (!json_is_integer(x) || json_integer_value(x) < 0)
			goto bad;
		snprintf(key, sizeof(key), "%lld", (long long)json_integer_value(x));
		if (json_object_set_new(set, key, json_true()))
			goto bad;
	}
	return set;
bad:
	json_decref(set);
	return NULL;
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
	v = json_object_get(rec, "run_pids");
	r->run_pids = NULL;
	if (v && !(r->run_pids = pid_set(v)))
		return -2;
	r->lost = lost ? json_integer_value(lost) : 0;
	r->samples = samples ? json_integer_value(samples) : -1;
	r->chains = json_object_get(rec, "chains");
	return 0;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int profile_record_set_run_pids(json_t *record, int *pids, size_t n)
{
	json_t *list = json_array();

	if (!list)
		return -1;
	if (n)
		qsort(pids, n, sizeof(*pids), int_cmp);
	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(list, json_integer(pids[i]))) {
			json_decref(list);
			return -1;
		}
	return json_object_set_new(record, "run_pids", list);
}
