/* Job files: LKP-compatible YAML, parsed with libyaml into jansson trees and
 * expanded into atomic jobs.  Loading runs in three steps, one file each:
 * job_yaml.c (the file to one tree per document), job_expand.c (documents merged,
 * lists expanded, results-path names) and job_check.c (each atomic job checked);
 * job_emit.c writes a tree back.  This file holds the loader they share: its
 * messages and notes.
 *
 * Errors name the file, the line of the value (the parser's marks are kept per
 * node while loading), the key path, the value, and what was expected. */
#include "job_internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool mark_get(const struct loader *l, const json_t *node, int *line, int *col)
{
	char key[32];
	json_t *m;

	if (!node || json_is_null(node))
		return false;
	snprintf(key, sizeof(key), "%p", (const void *)node);
	m = json_object_get(l->marks, key);
	if (!m)
		return false;
	*line = (int)json_integer_value(json_array_get(m, 1));
	if (col)
		*col = (int)json_integer_value(json_array_get(m, 2));
	return true;
}

void mark_set(struct loader *l, json_t *node, const yaml_mark_t *m)
{
	char key[32];

	snprintf(key, sizeof(key), "%p", (void *)node);
	json_object_set_new(l->marks, key,
			    json_pack("[Oii]", node, (int)m->line + 1, (int)m->column + 1));
}

int mark_plain(struct loader *l, json_t *v)
{
	char key[32];

	snprintf(key, sizeof(key), "%p", (void *)v);
	return json_object_set(l->job->plain_values, key, v);
}

void mark_copy(struct loader *l, json_t *to, const json_t *from)
{
	yaml_mark_t m = {0};
	int line, col;

	if (!mark_get(l, from, &line, &col))
		return;
	m.line = (size_t)line - 1;
	m.column = (size_t)col - 1;
	mark_set(l, to, &m);
}

const char *where_line(const struct loader *l, size_t line, char *buf, size_t len)
{
	json_t *m = l->srcmap ? json_array_get(l->srcmap, line - 1) : NULL;

	if (m)
		snprintf(buf, len, "%s:%" JSON_INTEGER_FORMAT,
			 json_string_value(json_array_get(m, 0)),
			 json_integer_value(json_array_get(m, 1)));
	else
		snprintf(buf, len, "%s:%zu", l->path, line);
	return buf;
}

/* An error about a value: "FILE:LINE: message", or "FILE: message" when the
 * value has no line (a default, or a null). */
int fail(struct loader *l, const json_t *at, const char *fmt, ...)
{
	char msg[768], w[4200];
	va_list ap;
	int line;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (mark_get(l, at, &line, NULL))
		snprintf(l->err, l->errlen, "%s: %s", where_line(l, (size_t)line, w, sizeof(w)),
			 msg);
	else
		snprintf(l->err, l->errlen, "%s: %s", l->path, msg);
	return -1;
}

/* A value as a message shows it: 'text', or what it is when it is not text. */
const char *describe(const json_t *v, char *buf, size_t len)
{
	if (!v || json_is_null(v))
		return "nothing";
	if (json_is_object(v))
		return "a map";
	if (json_is_array(v))
		return "a list";
	if (json_is_string(v)) {
		snprintf(buf, len, "'%s'", json_string_value(v));
		return buf;
	}
	return "a value that is not text";
}

int note(struct loader *l, const char *fmt, ...)
{
	struct job_file *job = l->job;
	char msg[512], line[1024];
	char **notes;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "%s: %s", l->path, msg);
	if (json_object_get(l->notes_seen, line))
		return 0;
	json_object_set_new(l->notes_seen, line, json_null());
	notes = realloc(job->notes, (job->n_notes + 1) * sizeof(*notes));
	if (!notes)
		return fail(l, NULL, "out of memory");
	job->notes = notes;
	job->notes[job->n_notes] = strdup(line);
	if (!job->notes[job->n_notes])
		return fail(l, NULL, "out of memory");
	job->n_notes++;
	return 0;
}

static char *file_stem(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".yaml"))
		n -= 5;
	else if (n > 4 && !strcmp(base + n - 4, ".yml"))
		n -= 4;
	return strndup(base, n);
}

static size_t add_sat(size_t a, size_t b)
{
	return b > SIZE_MAX - a ? SIZE_MAX : a + b;
}

static size_t mul_sat(size_t a, size_t b)
{
	size_t r;

	return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

/* Each later document is merged with a copy of the header: the values those copies would
 * hold, counted before any is made. */
static int check_merge(struct loader *l, json_t *docs)
{
	size_t header = count_values(json_array_get(docs, 0)), total = 0, i;
	json_t *d;

	json_array_foreach (docs, i, d) {
		if (i)
			total = add_sat(total, add_sat(header, count_values(d)));
	}
	if (total > JOB_MAX_COPIED)
		return fail(l, NULL,
			    "the job file's %zu documents, each merged with the header, hold %zu "
			    "values together; at most %d (fewer documents, or a smaller header)",
			    json_array_size(docs) - 1, total, JOB_MAX_COPIED);
	return 0;
}

/* The caps hold for the whole file: every document's atomic jobs, and the values they would
 * hold, counted before any is built. */
static int check_expansion(struct loader *l, json_t *merged)
{
	size_t jobs = 0, values = 0, n, each, i;
	json_t *d;

	json_array_foreach (merged, i, d) {
		if (count_atomic(l, d, &n, &each))
			return -1;
		jobs = add_sat(jobs, n);
		values = add_sat(values, mul_sat(n, each));
	}
	if (jobs > JOB_MAX_ATOMIC)
		return fail(l, NULL,
			    "the job file expands to %s%zu atomic jobs (%zu document%s); at most %d",
			    jobs == SIZE_MAX ? "more than " : "", jobs, json_array_size(merged),
			    json_array_size(merged) == 1 ? "" : "s", JOB_MAX_ATOMIC);
	if (values > JOB_MAX_COPIED)
		return fail(l, NULL,
			    "the job file's %zu atomic jobs would hold %zu values together; at most "
			    "%d (fewer atomic jobs, or smaller ones)",
			    jobs, values, JOB_MAX_COPIED);
	return 0;
}

/* will-it-scale.test or test, set: the document names a testcase. */
static bool has_test(json_t *doc)
{
	return get_set(json_object_get(doc, "will-it-scale"), "test") || get_set(doc, "test");
}

/* The documents give more than one kconfig, a list's or each its own: LKP's names leave
 * kconfig out (its split-job writes such jobs to one file, the last one winning), so
 * scalebench's carry it (README, Job files). */
static bool several_kconfigs(json_t *merged)
{
	json_t *seen = json_object(), *d, *kc, *x;
	size_t i, j;
	bool several;

	json_array_foreach (merged, i, d) {
		kc = json_object_get(d, "kconfig");
		if (json_is_string(kc))
			json_object_set_new(seen, json_string_value(kc), json_null());
		else if (json_is_array(kc))
			json_array_foreach (kc, j, x) {
				if (json_is_string(x))
					json_object_set_new(seen, json_string_value(x), json_null());
			}
	}
	several = json_object_size(seen) > 1;
	json_decref(seen);
	return several;
}

static int load(const char *path, unsigned nr_online, const struct job_override *ov, size_t n_ov,
		bool results_only, struct job_file *job, char *err, size_t errlen);

int job_load(const char *path, unsigned nr_online, struct job_file *job, char *err, size_t errlen)
{
	return load(path, nr_online, NULL, 0, false, job, err, errlen);
}

int job_load_results(const char *path, unsigned nr_online, struct job_file *job, char *err,
		     size_t errlen)
{
	return load(path, nr_online, NULL, 0, true, job, err, errlen);
}

int job_load_overrides(const char *path, unsigned nr_online, const struct job_override *ov,
		       size_t n_ov, struct job_file *job, char *err, size_t errlen)
{
	return load(path, nr_online, ov, n_ov, false, job, err, errlen);
}

static int load(const char *path, unsigned nr_online, const struct job_override *ov, size_t n_ov,
		bool results_only, struct job_file *job, char *err, size_t errlen)
{
	struct loader l = {.path = path,
			   .nr_online = nr_online ? nr_online : 1,
			   .err = err,
			   .errlen = errlen,
			   .marks = json_object(),
			   .notes_seen = json_object(),
			   .job = job,
			   .results_only = results_only};
	json_t *docs = json_array(), *merged = json_array(), *names = json_object(), *d;
	json_t *header = NULL;
	bool kconfigs;
	char *buf = NULL;
	size_t len = 0, i;
	int ret = -1;

	memset(job, 0, sizeof(*job));
	job->nr_online = l.nr_online;
	job->path = strdup(path);
	job->name = file_stem(path);
	job->plain_values = json_object();
	job->plain_keys = json_object();
	if (!job->path || !job->name || !job->plain_values || !job->plain_keys) {
		fail(&l, NULL, "out of memory");
		goto out;
	}
	if (read_whole(&l, &buf, &len) || check_erb(&l, buf, len) ||
	    expand_includes(&l, &buf, &len) || check_erb(&l, buf, len) ||
	    parse_documents(&l, buf, len, docs) || apply_overrides(&l, docs, ov, n_ov))
		goto out;

	if (json_array_size(docs) == 1) {
		json_t *one = apply_revision_keys(&l, json_array_get(docs, 0));

		if (!one)
			goto out;
		json_array_append_new(merged, one);
		job->tree = json_incref(json_array_get(docs, 0));
	} else {
		if (check_merge(&l, docs))
			goto out;
		header = apply_revision_keys(&l, json_array_get(docs, 0));
		if (!header)
			goto out;
		/* LKP (Job#each_jobs): the first document is a job itself, and a header for
		 * each of the others.  A header naming no testcase would be LKP's
		 * '<job>-defaults', a job that runs no benchmark: scalebench has nothing to
		 * run for it. */
		if (has_test(header))
			json_array_append(merged, header);
		else if (note(&l,
			      "the first document names no testcase: LKP makes a '%s-defaults' "
			      "job of it that runs no benchmark; scalebench skips it",
			      job->name))
			goto out;
		json_array_foreach (docs, i, d) {
			json_t *m;

			if (i == 0)
				continue;
			m = merge_revision(&l, header, d);
			if (!m)
				goto out;
			json_array_append_new(merged, m);
		}
		job->tree = json_incref(docs);
	}
	if (check_expansion(&l, merged))
		goto out;
	kconfigs = several_kconfigs(merged);
	json_array_foreach (merged, i, d) {
		if (expand_document(&l, d, names, kconfigs))
			goto out;
	}
	ret = 0;
out:
	if (ret)
		job_free(job);
	json_decref(docs);
	json_decref(merged);
	json_decref(names);
	json_decref(header);
	json_decref(l.marks);
	json_decref(l.notes_seen);
	json_decref(l.srcmap);
	free(buf);
	return ret;
}

static void atomic_free(struct atomic_job *a)
{
	free(a->name);
	free(a->path_params);
	free(a->test_owned);
	json_decref(a->tree);
	json_decref(a->monitors);
}

void job_free(struct job_file *job)
{
	for (size_t i = 0; i < job->n_atomic; i++)
		atomic_free(&job->atomic[i]);
	for (size_t i = 0; i < job->n_notes; i++)
		free(job->notes[i]);
	free(job->atomic);
	free(job->notes);
	free(job->path);
	free(job->name);
	json_decref(job->tree);
	json_decref(job->plain_values);
	json_decref(job->plain_keys);
	memset(job, 0, sizeof(*job));
}

/* What atomic jobs coincide by: the tree but its nr_task, and the count nr_task resolved to.
 * NULL when the job gives no nr_task (a sweep, or the default: nothing to name in a note), or
 * out of memory (*oom). */
static char *coincide_key(const struct atomic_job *a, bool *oom)
{
	json_t *rest;
	char *tree = NULL, *key = NULL;

	if (!json_is_string(json_object_get(a->tree, "nr_task")))
		return NULL;
	rest = json_copy(a->tree); /* shallow: only the top level loses nr_task */
	if (rest && !json_object_del(rest, "nr_task"))
		tree = json_dumps(rest, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(rest);
	if (!tree || asprintf(&key, "%u %s", a->nr_task, tree) < 0) {
		key = NULL;
		*oom = true;
	}
	free(tree);
	return key;
}

/* "nr_task 1 and 50% are both 1 task on this machine's 2 CPUs: run once, as 1": the values
 * (each as written) of one group, the first of them the kept one. */
static char *coincide_note(const struct job_file *job, json_t *values, unsigned count)
{
	size_t n = json_array_size(values), len = 1;
	char *list, *p, *msg;
	json_t *v;
	size_t i;

	json_array_foreach (values, i, v) {
		len += json_string_length(v) + sizeof(" and");
	}
	list = p = malloc(len);
	if (!list)
		return NULL;
	json_array_foreach (values, i, v) {
		const char *sep = i + 1 < n ? ", " : " and ";

		p += sprintf(p, "%s%s", i ? sep : "", json_string_value(v));
	}
	if (asprintf(&msg,
		     "%s: nr_task %s are %s %u task%s on this machine's %u CPU%s: run once, as %s",
		     job->path, list, n == 2 ? "both" : "all", count, count == 1 ? "" : "s",
		     job->nr_online, job->nr_online == 1 ? "" : "s",
		     json_string_value(json_array_get(values, 0))) < 0)
		msg = NULL;
	free(list);
	return msg;
}

static bool has_note(const struct job_file *job, const char *text)
{
	for (size_t i = 0; i < job->n_notes; i++)
		if (!strcmp(job->notes[i], text))
			return true;
	return false;
}

int job_drop_coinciding(struct job_file *job)
{
	/* key -> the nr_task values of the atomic jobs that share it, in the file's order;
	 * order: [first atomic job, its values] of each key as first seen, so the notes come
	 * in the file's order too. */
	json_t *groups = json_object(), *order = json_array(), *values, *g;
	bool *drop = calloc(job->n_atomic + 1, sizeof(*drop)), oom = !groups || !order || !drop;
	size_t dropped = 0, kept = 0, i;
	int ret = -1;

	for (i = 0; !oom && i < job->n_atomic; i++) {
		const struct atomic_job *a = &job->atomic[i];
		char *key = coincide_key(a, &oom);
		json_t *v = json_object_get(a->tree, "nr_task");

		if (!key)
			continue;
		values = json_object_get(groups, key);
		if (values) {
			drop[i] = true;
			dropped++;
			oom |= json_array_append(values, v) != 0;
		} else {
			values = json_pack("[O]", v);
			oom |= json_object_set_new(groups, key, values) != 0 ||
			       json_array_append_new(order,
						     json_pack("[IO]", (json_int_t)i, values)) != 0;
		}
		free(key);
	}
	json_array_foreach (order, i, g) {
		const struct atomic_job *first =
		    &job->atomic[json_integer_value(json_array_get(g, 0))];
		char *msg, **notes;

		values = json_array_get(g, 1);
		if (oom || json_array_size(values) < 2)
			continue;
		msg = coincide_note(job, values, first->nr_task);
		if (msg && has_note(job, msg)) {
			free(msg); /* the same values in another mode or test: said once */
			continue;
		}
		notes = msg ? realloc(job->notes, (job->n_notes + 1) * sizeof(*notes)) : NULL;
		if (!notes) {
			free(msg);
			oom = true;
			continue;
		}
		job->notes = notes;
		job->notes[job->n_notes++] = msg;
	}
	if (oom)
		goto out;
	for (i = 0; i < job->n_atomic; i++) {
		if (drop[i])
			atomic_free(&job->atomic[i]);
		else
			job->atomic[kept++] = job->atomic[i];
	}
	job->n_atomic = kept;
	ret = (int)dropped;
out:
	free(drop);
	json_decref(groups);
	json_decref(order);
	return ret;
}
