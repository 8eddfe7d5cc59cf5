/* Job files, second step: LKP's documents merged and each expanded into atomic jobs, as
 * lkp-tests' lib/job.rb (Job#each_jobs, #each_job, #path_params) does.
 *
 * Dimensions: a list is a dimension only where LKP expands it: under a key in its EXPAND_DIMS
 * (kconfig, commit, rootfs, the *_commit keys), a key naming a program the job uses (LKP's
 * setup, run and daemon scripts: will-it-scale, cgroup2, cpufreq_governor...), or a key naming
 * an option of one of those programs (will-it-scale's runtime, test, mode, nr_task...), at any
 * depth.  Every other list is a value, kept whole: `perf-stat: {events: [a, b]}` is one job,
 * and split-job's `need_kconfig_hw: [{E1000E: y}]` loads.  The atomic jobs are the cartesian
 * product of the dimensions, first dimension outermost.  A file of several YAML documents
 * follows LKP: the first document is a job of its own and a header for each later one, which
 * updates a copy of it key by key (a later value replaces the header's; a dotted key
 * `will-it-scale.test: x` sets a nested key).
 *
 * path_params (the results directory, and the atomic job's name after the file's): every
 * option of the programs the job uses, varying or not, wherever it sits (except inside a
 * monitor's options), and every program given a plain value (`cpufreq_governor: performance`),
 * sorted by key; each value cut to 31 characters, absent (null) ones left out, joined by '-',
 * characters outside [-a-zA-Z0-9+=:.%] mapped to '_'; "defaults" when nothing is left.
 * scalebench runs will-it-scale's testcases whatever the job says, so will-it-scale's options
 * count even in a job without a will-it-scale block (LKP's would then name no program).
 * Which programs and options LKP has is job_lkp_programs.c, generated from lkp-tests. */
#include "job_internal.h"

#include <ctype.h>
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

/* LKP's accumulative keys (lib/hash.rb, accumulative_key?): a later document adds to the
 * header's value instead of replacing it. */
static bool accumulative_key(const char *k)
{
	if (!strcmp(k, "mail_to") || !strcmp(k, "mail_cc") || !strcmp(k, "constraints"))
		return true;
	return !strncmp(k, "need_", 5) && strcmp(k, "need_memory") && strcmp(k, "need_cpu") &&
	       strcmp(k, "need_modules");
}

static bool revision_key(const char *k)
{
	size_t n = strlen(k);

	return n > 1 && (k[n - 1] == '+' || k[n - 1] == '-');
}

/* b added to a, as LKP's merge_accumulative: lists concatenated, a map updated (a name added
 * to a map is a key of it), two scalars a list of both.  A new reference; a and b are left
 * as they are. */
static json_t *accumulate(struct loader *l, const char *key, json_t *a, json_t *b)
{
	json_t *r;

	if (!b || json_is_null(b))
		return json_incref(a);
	if (!a || json_is_null(a))
		return json_incref(b);
	if (json_is_object(a) || json_is_object(b)) {
		json_t *map = json_is_object(a) ? a : b, *other = map == a ? b : a;

		r = json_copy(map);
		if (r && json_is_object(other)) {
			json_object_update(r, other);
		} else if (r && json_is_string(other)) {
			if (!json_object_get(r, json_string_value(other)))
				json_object_set_new(r, json_string_value(other), json_null());
		} else if (r) {
			json_decref(r);
			fail(l, b, "key '%s': expected a map or a name to add to the map", key);
			return NULL;
		}
	} else {
		if (json_is_array(a)) {
			r = json_copy(a);
		} else {
			r = json_array();
			json_array_append(r, a);
		}
		if (r && json_is_array(b))
			json_array_extend(r, b);
		else if (r)
			json_array_append(r, b);
	}
	if (!r)
		fail(l, NULL, "out of memory");
	return r;
}

/* The object holding the dotted path's last segment (*last), each object on the way copied
 * into its parent: the header is shared by every document.  create: missing objects are
 * made (`key+:`); else NULL when the path is not there (`key-:`). */
static json_t *path_parent(json_t *doc, char *path, char **last, bool create)
{
	char *seg = path, *dot;

	while ((dot = strchr(seg, '.'))) {
		json_t *child;

		*dot = '\0';
		child = json_object_get(doc, seg);
		if (!json_is_object(child) && !create)
			return NULL;
		child = json_is_object(child) ? json_copy(child) : json_object();
		if (!child || json_object_set_new(doc, seg, child))
			return NULL;
		doc = child;
		seg = dot + 1;
	}
	*last = seg;
	return doc;
}

/* `key+: v` (lib/hash.rb, revise_hash): v added to key's value, a list keeping each value
 * once. */
static int plus_key(struct loader *l, json_t *doc, const char *k, json_t *v)
{
	char *path = strndup(k, strlen(k) - 1), *last;
	json_t *parent, *r;
	int ret = -1;

	if (!path)
		return fail(l, NULL, "out of memory");
	parent = path_parent(doc, path, &last, true);
	if (!parent) {
		fail(l, NULL, "out of memory");
		goto out;
	}
	r = accumulate(l, k, json_object_get(parent, last), v);
	if (!r)
		goto out;
	if (json_is_array(r)) {
		json_t *u = json_array(), *x, *y;
		size_t i, j;

		json_array_foreach (r, i, x) {
			bool seen = false;

			json_array_foreach (u, j, y) {
				seen |= json_equal(x, y);
			}
			if (!seen)
				json_array_append(u, x);
		}
		json_decref(r);
		r = u;
	}
	json_object_set_new(parent, last, r ? r : json_null());
	ret = 0;
out:
	free(path);
	return ret;
}

/* `key-: v` (lib/hash.rb, handle_minus_key): the values v names (a list's items, a map's
 * keys, or v itself) removed from the list or map at key, which is null when nothing is
 * left; `key-:` with no value removes key. */
static int minus_key(struct loader *l, json_t *doc, const char *k, json_t *v)
{
	char *path = strndup(k, strlen(k) - 1), *last;
	json_t *parent, *cur, *r, *del, *x, *y;
	const char *dk;
	size_t i, j;
	int ret = 0;

	if (!path)
		return fail(l, NULL, "out of memory");
	parent = path_parent(doc, path, &last, false);
	if (!parent || !json_object_get(parent, last))
		goto out;
	if (!v || json_is_null(v)) {
		json_object_del(parent, last);
		goto out;
	}
	cur = json_object_get(parent, last);
	if (!json_is_array(cur) && !json_is_object(cur)) {
		ret = fail(l, v, "key '%s': expected '%.*s' to hold a list or a map to remove from",
			   k, (int)strlen(k) - 1, k);
		goto out;
	}
	del = json_array();
	if (json_is_object(v))
		json_object_foreach (v, dk, x) {
			json_array_append_new(del, json_string(dk));
		}
	else if (json_is_array(v))
		json_array_extend(del, v);
	else
		json_array_append(del, v);
	if (json_is_array(cur)) {
		r = json_array();
		json_array_foreach (cur, i, x) {
			bool drop = false;

			json_array_foreach (del, j, y) {
				drop |= json_equal(x, y);
			}
			if (!drop)
				json_array_append(r, x);
		}
	} else {
		r = json_copy(cur);
		json_array_foreach (del, j, y) {
			if (json_is_string(y))
				json_object_del(r, json_string_value(y));
		}
	}
	json_decref(del);
	if (!json_array_size(r) && !json_object_size(r)) {
		json_decref(r);
		r = json_null();
	}
	json_object_set_new(parent, last, r);
out:
	free(path);
	return ret;
}

json_t *apply_revision_keys(struct loader *l, json_t *doc)
{
	json_t *out = json_copy(doc), *v;
	const char *k;
	void *tmp;

	if (!out) {
		fail(l, NULL, "out of memory");
		return NULL;
	}
	/* In the document's order, as LKP revises: a `+` or `-` key, once applied, is gone. */
	json_object_foreach_safe (doc, tmp, k, v) {
		size_t n = strlen(k);

		if (!revision_key(k))
			continue;
		json_incref(v);
		json_object_del(out, k);
		if (k[n - 1] == '+' ? plus_key(l, out, k, v) : minus_key(l, out, k, v)) {
			json_decref(v);
			json_decref(out);
			return NULL;
		}
		json_decref(v);
	}
	return out;
}

json_t *merge_revision(struct loader *l, json_t *header, json_t *rev)
{
	json_t *merged = json_copy(header), *v, *r;
	const char *k;

	json_object_foreach (rev, k, v) {
		json_t *old = json_object_get(merged, k);

		/* As LKP's revise_hash: a `+`/`-` key given in both, or an accumulative key
		 * (need_kconfig...), adds the document's value to the header's. */
		if (old && (revision_key(k) || accumulative_key(k))) {
			r = accumulate(l, k, old, v);
			if (!r) {
				json_decref(merged);
				return NULL;
			}
			json_object_set_new(merged, k, r);
		} else if (!revision_key(k) && strchr(k, '.')) {
			if (set_dotted(l, merged, k, v)) {
				json_decref(merged);
				return NULL;
			}
		} else {
			json_object_set(merged, k, v);
		}
	}
	r = apply_revision_keys(l, merged);
	json_decref(merged);
	return r;
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

/* node with every map and list copied, its scalars shared. */
static json_t *copy_maps_and_lists(json_t *node)
{
	const char *k;
	json_t *c, *v;
	size_t i;

	if (json_is_object(node)) {
		c = json_object();
		json_object_foreach (node, k, v) {
			if (!c || json_object_set_new(c, k, copy_maps_and_lists(v)))
				goto fail;
		}
	} else if (json_is_array(node)) {
		c = json_array();
		json_array_foreach (node, i, v) {
			if (!c || json_array_append_new(c, copy_maps_and_lists(v)))
				goto fail;
		}
	} else {
		return json_incref(node);
	}
	return c;
fail:
	json_decref(c);
	return NULL;
}

/* ---- LKP's programs and options ---- */

/* lib/job.rb's EXPAND_DIMS: expanded whatever programs the job uses. */
static const char *const expand_dims[] = {
    "kconfig",	       "commit",      "rootfs",		  "ltp_commit",	  "nvml_commit",
    "blktests_commit", "qemu_commit", "perf_test_commit", "linux_commit", NULL,
};

/* The EXPAND_DIMS that split-job adds to an atomic job's file name after its path_params. */
static const char *const name_commits[] = {
    "commit",	   "ltp_commit",       "nvml_commit",  "blktests_commit",
    "qemu_commit", "perf_test_commit", "linux_commit", NULL,
};

static bool in_names(const char *const *list, const char *s)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/* A workload program (setup, run or daemon script); the wrappers' options are always the
 * job's, but they are not programs a job names. */
static const struct lkp_program *program_find(const char *name)
{
	if (!strcmp(name, "wrapper") || !strcmp(name, "dwrapper"))
		return NULL;
	for (size_t i = 0; lkp_programs[i].name; i++)
		if (!strcmp(lkp_programs[i].name, name))
			return &lkp_programs[i];
	return NULL;
}

static void add_options(json_t *opts, const char *program)
{
	for (size_t i = 0; lkp_programs[i].name; i++) {
		if (strcmp(lkp_programs[i].name, program))
			continue;
		for (const char *const *o = lkp_programs[i].options; *o; o++) {
			size_t n = strlen(*o);

			json_object_setn_new(opts, *o, n - 1, json_stringn(*o + n - 1, 1));
		}
	}
}

/* The programs a tree names, at any depth (LKP's for_each_in), with their options. */
static void find_programs(json_t *obj, json_t *opts, json_t *progs)
{
	const char *k;
	json_t *v;

	json_object_foreach (obj, k, v) {
		if (program_find(k)) {
			json_object_set_new(progs, k, json_null());
			add_options(opts, k);
		}
		if (json_is_object(v))
			find_programs(v, opts, progs);
	}
}

/* LKP's Job#init_program_options: option name -> its type ("-" or "="), and the keys whose
 * lists are dimensions (each_job_init). */
static void job_programs(json_t *tree, json_t **opts, json_t **dims)
{
	json_t *progs = json_object();
	const char *k;
	json_t *v;

	*opts = json_pack("{ss}", "cluster", "-");
	*dims = json_object();
	find_programs(tree, *opts, progs);
	add_options(*opts, "will-it-scale");
	add_options(*opts, "wrapper");
	add_options(*opts, "dwrapper");
	json_object_set_new(progs, "will-it-scale", json_null());
	for (size_t i = 0; expand_dims[i]; i++)
		json_object_set_new(*dims, expand_dims[i], json_null());
	json_object_foreach (progs, k, v) {
		json_object_set_new(*dims, k, json_null());
	}
	json_object_foreach (*opts, k, v) {
		json_object_set_new(*dims, k, json_null());
	}
	json_decref(progs);
}

/* LKP's {{ }} values are Ruby expressions, evaluated while expanding. */
static bool is_template(const json_t *v)
{
	const char *s = json_string_value(v), *open;

	return s && (open = strstr(s, "{{")) && strstr(open + 2, "}}");
}

/* The dimensions of one document: every list under a key LKP expands, checked to be a
 * non-empty list of values; dims_set: those keys. */
static int find_dims(struct loader *l, json_t *obj, const json_t *segs, json_t *dims_set,
		     struct param_list *dims)
{
	const char *k;
	json_t *v;

	json_object_foreach (obj, k, v) {
		json_t *path = segs_push(segs, k);
		int ret = 0;

		if (is_template(v)) {
			json_decref(path);
			return fail(l, v,
				    "%s: LKP's '{{ ... }}' expressions are Ruby and are not "
				    "supported; expand the job first (lkp split-job)",
				    k);
		}
		if (json_is_array(v) && json_object_get(dims_set, k)) {
			size_t i;
			json_t *e;

			ret = param_add(l, dims, path);
			if (!ret && json_array_size(v) == 0)
				ret = fail(l, v,
					   "%s: empty list; a list under '%s' is a dimension and "
					   "needs at least one value",
					   dims->v[dims->n - 1].shown, k);
			json_array_foreach (v, i, e) {
				const char *what = json_is_object(e)  ? "a list of maps"
						   : json_is_array(e) ? "a list of lists"
								      : NULL;

				if (ret)
					break;
				if (what)
					ret =
					    fail(l, e,
						 "%s[%zu]: %s is not supported (a list under '%s' "
						 "is a dimension: give a list of values)",
						 dims->v[dims->n - 1].shown, i, what, k);
				else if (json_is_null(e))
					ret =
					    fail(l, v, "%s[%zu]: empty list item; expected a value",
						 dims->v[dims->n - 1].shown, i);
				else if (is_template(e))
					ret =
					    fail(l, e,
						 "%s[%zu]: LKP's '{{ ... }}' expressions are Ruby "
						 "and are not supported; expand the job first (lkp "
						 "split-job)",
						 dims->v[dims->n - 1].shown, i);
			}
		} else if (json_is_object(v)) {
			ret = find_dims(l, v, path, dims_set, dims);
		}
		json_decref(path);
		if (ret)
			return -1;
	}
	return 0;
}

/* ---- Names ---- */

struct pp_entry {
	const char *key;
	json_t *value;
	char type; /* '-', '=', or 0: a program given a plain value */
	size_t order;
};

static int cmp_pp(const void *a, const void *b)
{
	const struct pp_entry *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* LKP's each_param: (key, value) of every option and program at any depth, except in a
 * monitor's options. */
static int collect_params(json_t *obj, const char *parent, json_t *opts, struct pp_entry **e,
			  size_t *n, size_t *cap)
{
	const char *k;
	json_t *v;

	json_object_foreach (obj, k, v) {
		json_t *type = json_object_get(opts, k);

		if ((type || program_find(k)) && !json_is_object(v) &&
		    !(parent && in_names(lkp_monitor_names, parent))) {
			if (*n == *cap) {
				size_t c = *cap ? 2 * *cap : 16;
				struct pp_entry *g = realloc(*e, c * sizeof(*g));

				if (!g)
					return -1;
				*e = g;
				*cap = c;
			}
			(*e)[*n] =
			    (struct pp_entry){k, v, type ? json_string_value(type)[0] : 0, *n};
			(*n)++;
		}
		if (json_is_object(v) && collect_params(v, k, opts, e, n, cap))
			return -1;
	}
	return 0;
}

int yaml_bool(const char *s)
{
	static const char *const t[] = {"true", "True", "TRUE", "yes", "Yes",
					"YES",	"on",	"On",	"ON",  NULL};
	static const char *const f[] = {"false", "False", "FALSE", "no",  "No",
					"NO",	 "off",	  "Off",   "OFF", NULL};

	return in_names(t, s) ? 1 : in_names(f, s) ? 0 : -1;
}

/* Ruby's value.to_s[0..30]: the first 31 characters (UTF-8), appended to out. */
static void put_cut(char **out, const char *s)
{
	size_t chars = 0;

	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if ((*c & 0xc0) != 0x80 && chars++ == 31)
			break;
		*(*out)++ = (char)*c;
	}
}

static bool pp_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("-+=:.%", c);
}

char *job_path_params(json_t *tree)
{
	struct pp_entry *e = NULL;
	size_t n = 0, cap = 0, len = sizeof("defaults");
	json_t *opts, *dims;
	char *out = NULL, *p;

	job_programs(tree, &opts, &dims);
	if (collect_params(tree, NULL, opts, &e, &n, &cap))
		goto out;
	if (n)
		qsort(e, n, sizeof(e[0]), cmp_pp);
	for (size_t i = 0; i < n; i++)
		len += strlen(e[i].key) + 2 +
		       (json_is_string(e[i].value) ? json_string_length(e[i].value) : 0);
	out = p = malloc(len);
	if (!out)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(e[i].value);
		int b = s ? yaml_bool(s) : -1;

		if (b == 1)
			s = "true";
		if (e[i].type == '=') {
			put_cut(&p, e[i].key);
			if (s && *s && b != 0) {
				*p++ = '=';
				put_cut(&p, s);
			}
		} else if (s && b != 0) {
			put_cut(&p, s);
		} else {
			continue; /* nothing (null), false, or a list LKP would not expand */
		}
		*p++ = '-';
	}
	if (p == out) {
		strcpy(out, "defaults");
	} else {
		*--p = '\0';
		for (p = out; *p; p++)
			if (!pp_char_ok(*p))
				*p = '_';
	}
out:
	free(e);
	json_decref(opts);
	json_decref(dims);
	return out;
}

/* lib/job.rb's rootfs_filename: the last run of [a-zA-Z0-9._-]. */
static void rootfs_filename(const char *rootfs, char *out, size_t len)
{
	const char *end = rootfs + strlen(rootfs), *start;

	while (end > rootfs && !(isalnum((unsigned char)end[-1]) || strchr("._-", end[-1])))
		end--;
	start = end;
	while (start > rootfs && (isalnum((unsigned char)start[-1]) || strchr("._-", start[-1])))
		start--;
	snprintf(out, len, "%.*s", (int)(end - start), start);
}

/* stem ends with "-<suffix>-<kconfig>" (the kconfig's characters mapped as path_params'). */
static bool ends_with_kconfig(const char *stem, const char *suffix, const char *kc)
{
	size_t ls = strlen(stem), lp = strlen(suffix), lk = strlen(kc);
	const char *p;

	if (ls < lp + lk + 2)
		return false;
	p = stem + ls - lp - lk - 2;
	if (p[0] != '-' || strncmp(p + 1, suffix, lp) || p[lp + 1] != '-')
		return false;
	p += lp + 2;
	for (size_t i = 0; i < lk; i++)
		if (p[i] != (pp_char_ok(kc[i]) ? kc[i] : '_'))
			return false;
	return true;
}

/* split-job's file name: <job>-<path_params>, then each commit of the job and its rootfs.  An
 * atomic job file already named so (split's own output, or LKP's) keeps its name, so
 * splitting it again gives the same file.  with_kconfig: the file gives several kconfigs,
 * which LKP's names leave out (its split-job writes them all to one file): the kconfig is
 * added after path_params, so each atomic job has a name of its own. */
static char *atomic_name(const char *stem, const char *pp, json_t *t, bool with_kconfig)
{
	const char *kc = json_string_value(json_object_get(t, "kconfig"));
	size_t ls = strlen(stem), lp;
	char *suffix = NULL, *name, *next;

	if (asprintf(&suffix, "%s", pp) < 0)
		return NULL;
	if (with_kconfig && kc) {
		if (asprintf(&next, "%s-%s", suffix, kc) < 0)
			next = NULL;
		free(suffix);
		if (!(suffix = next))
			return NULL;
		for (char *c = suffix + strlen(pp); *c; c++)
			if (!pp_char_ok(*c))
				*c = '_';
	}
	for (size_t i = 0; name_commits[i]; i++) {
		const char *c = json_string_value(json_object_get(t, name_commits[i]));

		if (!c)
			continue;
		if (asprintf(&next, "%s-%s", suffix, c) < 0)
			next = NULL;
		free(suffix);
		if (!(suffix = next))
			return NULL;
	}
	if (json_is_string(json_object_get(t, "rootfs"))) {
		char r[256];

		rootfs_filename(json_string_value(json_object_get(t, "rootfs")), r, sizeof(r));
		if (asprintf(&next, "%s-%s", suffix, r) < 0)
			next = NULL;
		free(suffix);
		if (!(suffix = next))
			return NULL;
	}
	lp = strlen(suffix);
	if (ls > lp && stem[ls - lp - 1] == '-' && !strcmp(stem + ls - lp, suffix))
		name = strdup(stem);
	else if (!with_kconfig && kc && ends_with_kconfig(stem, suffix, kc))
		name = strdup(stem); /* split's own file of one of several kconfigs */
	else if (asprintf(&name, "%s-%s", stem, suffix) < 0)
		name = NULL;
	free(suffix);
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
	json_t *root = json_array(), *opts, *dims_set;
	int ret;

	job_programs(doc, &opts, &dims_set);
	ret = find_dims(l, doc, root, dims_set, &dims);
	json_decref(opts);
	json_decref(dims_set);

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

int expand_document(struct loader *l, json_t *doc, json_t *names, bool kconfigs)
{
	struct job_file *job = l->job;
	struct param_list dims = {0};
	json_t *root = json_array(), *opts, *dims_set;
	size_t total = 1, *choice = NULL;
	struct atomic_job *grown;
	json_t **lists = NULL;
	bool kconfig_dim = kconfigs;
	int ret = -1;

	job_programs(doc, &opts, &dims_set);
	if (find_dims(l, doc, root, dims_set, &dims))
		goto out;
	for (size_t i = 0; i < dims.n; i++)
		kconfig_dim |=
		    json_array_size(dims.v[i].segs) == 1 &&
		    !strcmp(json_string_value(json_array_get(dims.v[i].segs, 0)), "kconfig");
	/* Bounded: job_load counted every document's atomic jobs first (count_atomic). */
	for (size_t i = 0; i < dims.n; i++)
		total *= json_array_size(walk(doc, dims.v[i].segs));
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
		a->path_params = job_path_params(t);
		a->name =
		    a->path_params ? atomic_name(job->name, a->path_params, t, kconfig_dim) : NULL;
		/* Independent of the document and of the other atomic jobs: a caller may
		 * add keys to one before writing it.  Its text is the file's own (shared): the
		 * writer finds what was written plain by it. */
		a->tree = copy_maps_and_lists(t);
		json_decref(t);
		if (!a->name || !a->tree) {
			fail(l, NULL, "out of memory");
			goto out;
		}
		if (json_object_get(names, a->name)) {
			fail(l, NULL,
			     "two atomic jobs have the same name (%s): they differ only in values "
			     "LKP leaves out of path_params (kconfig?), or a list repeats a value",
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
	json_decref(opts);
	json_decref(dims_set);
	params_free(&dims);
	return ret;
}
