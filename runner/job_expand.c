/* Job files, second step: LKP's documents merged and each expanded into atomic jobs.
 *
 * A list is a dimension, as in LKP, except in a monitor's options: LKP
 * (lib/job.rb) expands only its EXPAND_DIMS (kconfig, commit, rootfs, ...), the
 * programs a job runs and those programs' options, never a monitor's, so
 * `perf-stat: {events: [cycles, instructions]}` is one job counting both events.
 * scalebench cannot tell an LKP setup program (cpufreq_governor, fs) from any
 * other key it does not use, so a list anywhere else stays a dimension, as LKP's
 * would be for those.  The atomic jobs are the cartesian product of the
 * dimensions, first dimension outermost.  A file of several YAML documents
 * follows LKP: the first document is a header, and each later one updates a
 * copy of it key by key (a later value replaces the header's; a dotted key
 * `will-it-scale.test: x` sets a nested key), each giving its own set of atomic
 * jobs.
 *
 * path_params: the values of mode, nr_task and test (as written; defaults when
 * absent), plus those of every key that varies (a list value, or a value that
 * differs between documents), sorted by leaf key name and joined by '-'.  LKP
 * puts every parameter of the testcase in the results path, not only the
 * varying ones; always including mode, nr_task and test does the same for
 * scalebench's parameters, so page_fault3.yaml and fallocate1.yaml never share
 * a results directory, and a job with no list at all still lands in a
 * meaningful place. */
#include "job_internal.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void params_free(struct param_list *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		json_decref(pl->v[i].segs);
		free(pl->v[i].shown);
	}
	free(pl->v);
	memset(pl, 0, sizeof(*pl));
}

static const char *leaf_of(const struct param *p)
{
	return json_string_value(json_array_get(p->segs, json_array_size(p->segs) - 1));
}

/* ---- Documents and dimensions ---- */

/* "a.b.c: v" in a later document: set the nested key in the merged copy,
 * copying each object on the way so the header (shared by every document) is
 * left as it was. */
static int set_dotted(struct loader *l, json_t *merged, const char *key, json_t *v)
{
	char *dup = strdup(key), *save = NULL, *seg, *next;
	json_t *parent = merged;

	if (!dup)
		return fail(l, NULL, "out of memory");
	seg = strtok_r(dup, ".", &save);
	if (!seg || key[0] == '.' || key[strlen(key) - 1] == '.' || strstr(key, "..")) {
		free(dup);
		return fail(l, v, "key '%s': expected a dotted path such as will-it-scale.test",
			    key);
	}
	while ((next = strtok_r(NULL, ".", &save))) {
		json_t *child = json_object_get(parent, seg);

		child = json_is_object(child) ? json_copy(child) : json_object();
		json_object_set_new(parent, seg, child);
		parent = child;
		seg = next;
	}
	json_object_set(parent, seg, v);
	free(dup);
	return 0;
}

json_t *merge_revision(struct loader *l, json_t *header, json_t *rev)
{
	json_t *merged = json_copy(header), *v;
	const char *k;

	json_object_foreach (rev, k, v) {
		size_t n = strlen(k);

		if (n && (k[n - 1] == '+' || k[n - 1] == '-')) {
			fail(l, v,
			     "key '%s': LKP's '+'/'-' revision keys are not supported; give the "
			     "whole value",
			     k);
			json_decref(merged);
			return NULL;
		}
		if (strchr(k, '.')) {
			if (set_dotted(l, merged, k, v)) {
				json_decref(merged);
				return NULL;
			}
		} else {
			json_object_set(merged, k, v);
		}
	}
	return merged;
}

static int param_add(struct loader *l, struct param_list *pl, json_t *segs)
{
	size_t len = 1;
	char *shown;
	json_t *s;
	size_t i;

	for (i = 0; i < pl->n; i++)
		if (json_equal(pl->v[i].segs, segs))
			return 0;
	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? 2 * pl->cap : 8;
		struct param *nv = realloc(pl->v, cap * sizeof(*nv));

		if (!nv)
			return fail(l, NULL, "out of memory");
		pl->v = nv;
		pl->cap = cap;
	}
	json_array_foreach (segs, i, s) {
		len += strlen(json_string_value(s)) + 1;
	}
	shown = malloc(len);
	if (!shown)
		return fail(l, NULL, "out of memory");
	shown[0] = '\0';
	json_array_foreach (segs, i, s) {
		if (i)
			strcat(shown, ".");
		strcat(shown, json_string_value(s));
	}
	pl->v[pl->n++] = (struct param){json_incref(segs), shown};
	return 0;
}

static json_t *segs_push(const json_t *segs, const char *key)
{
	json_t *s = json_copy((json_t *)segs);

	json_array_append_new(s, json_string(key));
	return s;
}

static json_t *walk(json_t *root, const json_t *segs)
{
	size_t i;
	json_t *s;

	json_array_foreach (segs, i, s) {
		if (!json_is_object(root))
			return NULL;
		root = json_object_get(root, json_string_value(s));
	}
	return root;
}

/* The dimensions of one document: every list outside the monitors' options, checked to be a
 * non-empty list of values. */
static int find_dims(struct loader *l, json_t *obj, const json_t *segs, struct param_list *dims)
{
	const char *k;
	json_t *v;

	json_object_foreach (obj, k, v) {
		json_t *path;
		int ret = 0;

		if (json_array_size(segs) == 0 && is_monitor_key(k))
			continue; /* its lists are values: the monitor checks them */
		path = segs_push(segs, k);
		if (json_is_array(v)) {
			size_t i;
			json_t *e;

			ret = param_add(l, dims, path);
			if (!ret && json_array_size(v) == 0)
				ret = fail(l, v,
					   "%s: empty list; a list is a dimension and needs at "
					   "least one value",
					   dims->v[dims->n - 1].shown);
			json_array_foreach (v, i, e) {
				const char *what = json_is_object(e)  ? "a list of maps"
						   : json_is_array(e) ? "a list of lists"
								      : NULL;

				if (ret)
					break;
				if (what)
					ret = fail(l, e,
						   "%s[%zu]: %s is not supported (a list is a "
						   "dimension: give a list of values)",
						   dims->v[dims->n - 1].shown, i, what);
				else if (json_is_null(e))
					ret =
					    fail(l, v, "%s[%zu]: empty list item; expected a value",
						 dims->v[dims->n - 1].shown, i);
			}
		} else if (json_is_object(v)) {
			ret = find_dims(l, v, path, dims);
		}
		json_decref(path);
		if (ret)
			return -1;
	}
	return 0;
}

static bool contains_list(const json_t *v)
{
	const char *k;
	json_t *c;

	if (json_is_array(v))
		return true;
	if (!json_is_object(v))
		return false;
	json_object_foreach ((json_t *)v, k, c) {
		if (contains_list(c))
			return true;
	}
	return false;
}

/* The atomic tree for one choice per dimension.  Parts without a list are
 * shared with the document (and deep-copied once checked), so values keep their
 * lines; a list that is not a dimension is a value, kept whole. */
static json_t *instantiate(json_t *node, json_t *const *lists, const size_t *choice, size_t n)
{
	const char *k;
	json_t *o, *v;

	if (json_is_array(node)) {
		for (size_t i = 0; i < n; i++)
			if (lists[i] == node)
				return json_incref(json_array_get(node, choice[i]));
		return json_incref(node);
	}
	if (!contains_list(node))
		return json_incref(node);
	o = json_object();
	json_object_foreach (node, k, v) {
		json_object_set_new(o, k, instantiate(v, lists, choice, n));
	}
	return o;
}

/* Scalar leaves by path, to find the keys whose values differ between
 * documents. */
static void flatten(json_t *obj, const json_t *segs, json_t *flat)
{
	const char *k;
	json_t *v;

	json_object_foreach (obj, k, v) {
		json_t *path = segs_push(segs, k);

		if (json_is_object(v) && json_object_size(v)) {
			flatten(v, path, flat);
		} else {
			char *key = json_dumps(path, JSON_COMPACT);

			if (key)
				json_object_set_new(flat, key, json_pack("[OO]", path, v));
			free(key);
		}
		json_decref(path);
	}
}

int doc_varying(struct loader *l, json_t *merged_docs, struct param_list *out)
{
	json_t *flats = json_array(), *all = json_object(), *f, *e;
	const char *k;
	size_t i;
	int ret = 0;

	json_array_foreach (merged_docs, i, f) {
		json_t *flat = json_object(), *root = json_array();

		flatten(f, root, flat);
		json_decref(root);
		json_array_append_new(flats, flat);
		json_object_update(all, flat);
	}
	json_object_foreach (all, k, e) {
		json_t *first = json_object_get(json_array_get(flats, 0), k);
		bool varies = false;

		json_array_foreach (flats, i, f) {
			json_t *mine = json_object_get(f, k);

			if (!mine || !first ||
			    !json_equal(json_array_get(mine, 1), json_array_get(first, 1)))
				varies = true;
		}
		if (varies && param_add(l, out, json_array_get(e, 0))) {
			ret = -1;
			break;
		}
	}
	json_decref(flats);
	json_decref(all);
	return ret;
}

/* ---- Names ---- */

struct pp_entry {
	const char *leaf, *shown, *value;
};

static int cmp_pp(const void *a, const void *b)
{
	const struct pp_entry *x = a, *y = b;
	int c = strcmp(x->leaf, y->leaf);

	return c ? c : strcmp(x->shown, y->shown);
}

static bool pp_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("-+=:.%", c);
}

static char *path_params(json_t *t, const struct param_list *pl)
{
	/* mode and test may sit in the will-it-scale block or at the top; nr_task at
	 * the top. */
	static const struct {
		const char *leaf, *block_shown, *dflt;
	} always[] = {
	    {"mode", "will-it-scale.mode", DEFAULT_MODE},
	    {"nr_task", NULL, DEFAULT_NR_TASK},
	    {"test", "will-it-scale.test", NULL},
	};
	struct pp_entry *e = calloc(pl->n + 3, sizeof(*e));
	size_t n = 0, len = 1;
	char *out = NULL, *p;

	if (!e)
		return NULL;
	for (size_t i = 0; i < pl->n; i++) {
		json_t *v = walk(t, pl->v[i].segs);

		if (json_is_string(v))
			e[n++] = (struct pp_entry){leaf_of(&pl->v[i]), pl->v[i].shown,
						   json_string_value(v)};
	}
	for (size_t i = 0; i < 3; i++) {
		const char *leaf = always[i].leaf, *shown = leaf;
		json_t *v = NULL;
		bool dup = false;

		if (always[i].block_shown)
			v = get_set(json_object_get(t, "will-it-scale"), leaf);
		if (v)
			shown = always[i].block_shown;
		else
			v = get_set(t, leaf);
		for (size_t j = 0; j < n; j++)
			dup |= !strcmp(e[j].shown, shown);
		if (dup)
			continue;
		if (json_is_string(v))
			e[n++] = (struct pp_entry){leaf, shown, json_string_value(v)};
		else if (!v && always[i].dflt)
			e[n++] = (struct pp_entry){leaf, shown, always[i].dflt};
	}
	qsort(e, n, sizeof(e[0]), cmp_pp);
	for (size_t i = 0; i < n; i++)
		len += strlen(e[i].value) + 1;
	out = p = malloc(len);
	if (out) {
		for (size_t i = 0; i < n; i++) {
			if (i)
				*p++ = '-';
			for (const char *c = e[i].value; *c; c++)
				*p++ = pp_char_ok(*c) ? *c : '_';
		}
		*p = '\0';
	}
	free(e);
	return out;
}

/* <job>-<path_params>; an atomic job file already named so (split's own output)
 * keeps its name, so splitting it again gives the same file. */
static char *atomic_name(const char *stem, const char *pp)
{
	size_t ls = strlen(stem), lp = strlen(pp);
	char *name;

	if (ls > lp && stem[ls - lp - 1] == '-' && !strcmp(stem + ls - lp, pp))
		return strdup(stem);
	if (asprintf(&name, "%s-%s", stem, pp) < 0)
		return NULL;
	return name;
}

/* ---- Loading ---- */

size_t count_values(const json_t *v)
{
	size_t n = 1, i;
	const char *k;
	json_t *c;

	if (json_is_array(v))
		json_array_foreach (v, i, c) {
			n += count_values(c);
		}
	else if (json_is_object(v))
		json_object_foreach ((json_t *)v, k, c) {
			n += count_values(c);
		}
	return n;
}

int count_atomic(struct loader *l, json_t *doc, size_t *n, size_t *values)
{
	struct param_list dims = {0};
	json_t *root = json_array();
	int ret = find_dims(l, doc, root, &dims);

	*n = 1;
	/* An atomic job holds one value where the document holds a list of k. */
	*values = count_values(doc);
	for (size_t i = 0; !ret && i < dims.n; i++) {
		size_t k = json_array_size(walk(doc, dims.v[i].segs));

		if (__builtin_mul_overflow(*n, k, n))
			*n = SIZE_MAX;
		*values -= k;
	}
	json_decref(root);
	params_free(&dims);
	return ret;
}

int expand_document(struct loader *l, json_t *doc, const struct param_list *varying, json_t *names)
{
	struct job_file *job = l->job;
	struct param_list dims = {0}, params = {0};
	json_t *root = json_array();
	size_t total = 1, *choice = NULL;
	struct atomic_job *grown;
	json_t **lists = NULL;
	int ret = -1;

	if (find_dims(l, doc, root, &dims))
		goto out;
	/* Bounded: job_load counted every document's atomic jobs first (count_atomic). */
	for (size_t i = 0; i < dims.n; i++)
		total *= json_array_size(walk(doc, dims.v[i].segs));
	for (size_t i = 0; i < dims.n; i++)
		if (param_add(l, &params, dims.v[i].segs))
			goto out;
	for (size_t i = 0; i < varying->n; i++)
		if (param_add(l, &params, varying->v[i].segs))
			goto out;
	choice = calloc(dims.n + 1, sizeof(*choice));
	lists = calloc(dims.n + 1, sizeof(*lists));
	if (!choice || !lists) {
		fail(l, NULL, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < dims.n; i++)
		lists[i] = walk(doc, dims.v[i].segs);
	grown = realloc(job->atomic, (job->n_atomic + total) * sizeof(*job->atomic));
	if (!grown) {
		fail(l, NULL, "out of memory");
		goto out;
	}
	job->atomic = grown;

	for (size_t k = 0; k < total; k++) {
		struct atomic_job *a = &job->atomic[job->n_atomic];
		json_t *t = instantiate(doc, lists, choice, dims.n);

		memset(a, 0, sizeof(*a));
		job->n_atomic++;
		if (check_atomic(l, t, a)) {
			json_decref(t);
			goto out;
		}
		a->path_params = path_params(t, &params);
		a->name = a->path_params ? atomic_name(job->name, a->path_params) : NULL;
		/* Independent of the document and of the other atomic jobs: a caller may
		 * add keys to one before writing it. */
		a->tree = json_deep_copy(t);
		json_decref(t);
		if (!a->name || !a->tree) {
			fail(l, NULL, "out of memory");
			goto out;
		}
		if (json_object_get(names, a->name)) {
			fail(l, NULL,
			     "two atomic jobs have the same parameters (%s); does a list repeat a "
			     "value?",
			     a->name);
			goto out;
		}
		json_object_set_new(names, a->name, json_null());
		/* Next combination, last dimension fastest. */
		for (size_t d = dims.n; d-- > 0;) {
			if (++choice[d] < json_array_size(lists[d]))
				break;
			choice[d] = 0;
		}
	}
	ret = 0;
out:
	free(choice);
	free(lists);
	json_decref(root);
	params_free(&dims);
	params_free(&params);
	return ret;
}
