/* Job files: LKP-compatible YAML, parsed with libyaml into jansson trees and
 * expanded into atomic jobs.
 *
 * The tree keeps every scalar as the string it was written as (`~`, `null` and
 * nothing become JSON null), so a run's job.yaml says what the user wrote, and
 * LKP keys scalebench does not use survive the round trip.
 *
 * Every list is a dimension; the atomic jobs are the cartesian product of the
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
 * meaningful place.
 *
 * Errors name the file, the line of the value (the parser's marks are kept per
 * node while loading), the key path, the value, and what was expected. */
#include "job.h"
#include "../lib/file.h"
#include "../lib/num.h"
#include "../store/families.h"
#include "../core/core.h"
#include "../testcases/registry.h"
#include "../monitors/monitor.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define JOB_MAX_BYTES	(16u << 20)
#define JOB_MAX_DEPTH	64
#define JOB_MAX_ATOMIC	10000
#define JOB_MAX_NODES	100000
#define DEFAULT_MODE	"process"
#define DEFAULT_NR_TASK "100%"
#define DEFAULT_RUNTIME 300.0
#define DEFAULT_WARMUP	1.0

/* Keys scalebench itself reads. */
/* kconfig is the runner's kconfig axis of the results path (unless --kconfig says otherwise). */
static const char *const own_keys[] = {
    "suite", "testcase", "nr_task", "runtime", "warmup", "test", "mode", "will-it-scale", "kconfig",
    NULL,
};

static bool in_list(const char *const *list, const char *s)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

struct loader {
	const char *path;
	unsigned nr_online;
	char *err;
	size_t errlen;
	/* "%p" of a parsed node -> [node, line, column].  Holding the node keeps its
	 * address from being reused while the table lives; atomic trees share the
	 * parsed strings, so a value found in an atomic job still has its line. */
	json_t *marks;
	json_t *notes_seen; /* note text -> null, to give each note once */
	struct job_file *job;
	size_t nodes; /* values parsed: aliases of aliases must not eat the machine */
};

/* A parameter: where it is in a tree (key segments) and how it is shown. */
struct param {
	json_t *segs; /* array of key strings */
	char *shown;  /* "will-it-scale.mode" */
};

struct param_list {
	struct param *v;
	size_t n, cap;
};

static void params_free(struct param_list *pl)
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

static void mark_set(struct loader *l, json_t *node, const yaml_mark_t *m)
{
	char key[32];

	snprintf(key, sizeof(key), "%p", (void *)node);
	json_object_set_new(l->marks, key,
			    json_pack("[Oii]", node, (int)m->line + 1, (int)m->column + 1));
}

/* An error about a value: "FILE:LINE: message", or "FILE: message" when the
 * value has no line (a default, or a null). */
static int fail(struct loader *l, const json_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct loader *l, const json_t *at, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	int line;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (mark_get(l, at, &line, NULL))
		snprintf(l->err, l->errlen, "%s:%d: %s", l->path, line, msg);
	else
		snprintf(l->err, l->errlen, "%s: %s", l->path, msg);
	return -1;
}

static int fail_mark(struct loader *l, const yaml_mark_t *m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_mark(struct loader *l, const yaml_mark_t *m, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(l->err, l->errlen, "%s:%zu:%zu: %s", l->path, m->line + 1, m->column + 1, msg);
	return -1;
}

/* A value as a message shows it: 'text', or what it is when it is not text. */
static const char *describe(const json_t *v, char *buf, size_t len)
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

static int note(struct loader *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note(struct loader *l, const char *fmt, ...)
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

/* ---- Reading ---- */

static int read_whole(struct loader *l, char **buf, size_t *len)
{
	return file_read(l->path, JOB_MAX_BYTES, buf, len, l->err, l->errlen);
}

static bool is_yaml_directive(const char *p, const char *eol)
{
	size_t n = (size_t)(eol - p);

	return (n > 5 && !strncmp(p, "%YAML", 5) && (p[5] == ' ' || p[5] == '\t')) ||
	       (n > 4 && !strncmp(p, "%TAG", 4) && (p[4] == ' ' || p[4] == '\t'));
}

/* LKP runs job files through ERB before YAML; scalebench does not, and a
 * template line read as YAML would mean something else, so it is refused with
 * its line. */
static int check_erb(struct loader *l, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	for (size_t line = 1; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *open = memmem(p, (size_t)(eol - p), "<%", 2);
		bool erb = (*p == '%' && !is_yaml_directive(p, eol)) ||
			   (open && memmem(open + 2, (size_t)(eol - open - 2), "%>", 2));

		if (erb) {
			snprintf(
			    l->err, l->errlen,
			    "%s:%zu: ERB templates ('%%' lines, '<%% ... %%>') are not "
			    "supported; expand the template first (LKP's split-job writes plain "
			    "YAML)",
			    l->path, line);
			return -1;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

static bool is_null_word(const char *s, size_t n)
{
	return n == 0 || (n == 1 && s[0] == '~') ||
	       (n == 4 &&
		(!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) || !memcmp(s, "NULL", 4)));
}

static json_t *convert(struct loader *l, yaml_document_t *doc, yaml_node_t *node, int depth)
{
	json_t *v;

	if (depth > JOB_MAX_DEPTH) {
		fail_mark(l, &node->start_mark, "nested deeper than %d levels", JOB_MAX_DEPTH);
		return NULL;
	}
	if (++l->nodes > JOB_MAX_NODES) {
		fail_mark(l, &node->start_mark, "more than %d values (aliases of aliases?)",
			  JOB_MAX_NODES);
		return NULL;
	}
	switch (node->type) {
	case YAML_SCALAR_NODE: {
		const char *s = (const char *)node->data.scalar.value;
		size_t n = node->data.scalar.length;

		if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && is_null_word(s, n))
			return json_null();
		v = json_stringn(s, n);
		if (!v) {
			fail_mark(l, &node->start_mark, "value is not valid UTF-8 text");
			return NULL;
		}
		break;
	}
	case YAML_SEQUENCE_NODE:
		v = json_array();
		for (yaml_node_item_t *it = node->data.sequence.items.start;
		     it < node->data.sequence.items.top; it++) {
			json_t *child =
			    convert(l, doc, yaml_document_get_node(doc, *it), depth + 1);

			if (!child) {
				json_decref(v);
				return NULL;
			}
			json_array_append_new(v, child);
		}
		break;
	case YAML_MAPPING_NODE:
		v = json_object();
		for (yaml_node_pair_t *pr = node->data.mapping.pairs.start;
		     pr < node->data.mapping.pairs.top; pr++) {
			yaml_node_t *kn = yaml_document_get_node(doc, pr->key);
			const char *key = (const char *)kn->data.scalar.value;
			json_t *child;

			if (kn->type != YAML_SCALAR_NODE) {
				fail_mark(l, &kn->start_mark,
					  "a key must be a plain value, not a list or a map");
				json_decref(v);
				return NULL;
			}
			if (strlen(key) != kn->data.scalar.length) {
				fail_mark(l, &kn->start_mark, "a key contains a NUL character");
				json_decref(v);
				return NULL;
			}
			if (json_object_get(v, key)) {
				fail_mark(l, &kn->start_mark, "duplicate key '%s'", key);
				json_decref(v);
				return NULL;
			}
			child = convert(l, doc, yaml_document_get_node(doc, pr->value), depth + 1);
			if (!child) {
				json_decref(v);
				return NULL;
			}
			json_object_set_new(v, key, child);
		}
		break;
	default:
		fail_mark(l, &node->start_mark, "empty node");
		return NULL;
	}
	mark_set(l, v, &node->start_mark);
	return v;
}

static int syntax_error(struct loader *l, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "not valid YAML";

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return fail(l, NULL, "out of memory while parsing");
	case YAML_READER_ERROR:
		return fail(l, NULL, "%s at byte %zu", problem, p->problem_offset);
	default:
		if (p->context)
			return fail_mark(l, &p->problem_mark, "%s (%s at line %zu)", problem,
					 p->context, p->context_mark.line + 1);
		return fail_mark(l, &p->problem_mark, "%s", problem);
	}
}

/* Every document of the file, each an object, appended to docs. */
static int parse_documents(struct loader *l, const char *buf, size_t len, json_t *docs)
{
	yaml_parser_t parser;
	int ret = -1;

	if (!yaml_parser_initialize(&parser))
		return fail(l, NULL, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	for (;;) {
		yaml_document_t doc;
		yaml_node_t *root;
		json_t *v;

		if (!yaml_parser_load(&parser, &doc)) {
			syntax_error(l, &parser);
			goto out;
		}
		root = yaml_document_get_root_node(&doc);
		if (!root) {
			yaml_document_delete(&doc);
			break;
		}
		v = convert(l, &doc, root, 0);
		yaml_document_delete(&doc);
		if (!v)
			goto out;
		if (json_is_null(v)) {
			v = json_object(); /* an empty document: LKP takes it as {} */
		} else if (!json_is_object(v)) {
			char b[64];

			fail(l, v, "expected keys (key: value) at the top of the document, got %s",
			     describe(v, b, sizeof(b)));
			json_decref(v);
			goto out;
		}
		json_array_append_new(docs, v);
	}
	if (json_array_size(docs) == 0) {
		fail(l, NULL, "empty job file; expected keys such as 'will-it-scale: {test: ...}'");
		goto out;
	}
	ret = 0;
out:
	yaml_parser_delete(&parser);
	return ret;
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

static json_t *merge_revision(struct loader *l, json_t *header, json_t *rev)
{
	json_t *merged = json_copy(header), *v;
	const char *k;

	json_object_foreach(rev, k, v)
	{
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
	json_array_foreach(segs, i, s)
	{
		len += strlen(json_string_value(s)) + 1;
	}
	shown = malloc(len);
	if (!shown)
		return fail(l, NULL, "out of memory");
	shown[0] = '\0';
	json_array_foreach(segs, i, s)
	{
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

	json_array_foreach(segs, i, s)
	{
		if (!json_is_object(root))
			return NULL;
		root = json_object_get(root, json_string_value(s));
	}
	return root;
}

/* The dimensions of one document: every list, checked to be a non-empty list of
 * values. */
static int find_dims(struct loader *l, json_t *obj, const json_t *segs, struct param_list *dims)
{
	const char *k;
	json_t *v;

	json_object_foreach(obj, k, v)
	{
		json_t *path = segs_push(segs, k);
		int ret = 0;

		if (json_is_array(v)) {
			size_t i;
			json_t *e;

			ret = param_add(l, dims, path);
			if (!ret && json_array_size(v) == 0)
				ret = fail(l, v,
					   "%s: empty list; a list is a dimension and needs at "
					   "least one value",
					   dims->v[dims->n - 1].shown);
			json_array_foreach(v, i, e)
			{
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
	json_object_foreach((json_t *)v, k, c)
	{
		if (contains_list(c))
			return true;
	}
	return false;
}

/* The atomic tree for one choice per dimension.  Parts without a list are
 * shared with the document (and deep-copied once checked), so values keep their
 * lines. */
static json_t *instantiate(json_t *node, json_t *const *lists, const size_t *choice, size_t n)
{
	const char *k;
	json_t *o, *v;

	if (json_is_array(node)) {
		for (size_t i = 0; i < n; i++)
			if (lists[i] == node)
				return json_incref(json_array_get(node, choice[i]));
		return json_incref(json_array_get(node, 0));
	}
	if (!contains_list(node))
		return json_incref(node);
	o = json_object();
	json_object_foreach(node, k, v)
	{
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

	json_object_foreach(obj, k, v)
	{
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

static int doc_varying(struct loader *l, json_t *merged_docs, struct param_list *out)
{
	json_t *flats = json_array(), *all = json_object(), *f, *e;
	const char *k;
	size_t i;
	int ret = 0;

	json_array_foreach(merged_docs, i, f)
	{
		json_t *flat = json_object(), *root = json_array();

		flatten(f, root, flat);
		json_decref(root);
		json_array_append_new(flats, flat);
		json_object_update(all, flat);
	}
	json_object_foreach(all, k, e)
	{
		json_t *first = json_object_get(json_array_get(flats, 0), k);
		bool varies = false;

		json_array_foreach(flats, i, f)
		{
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

/* ---- Checking one atomic job ---- */

static bool known_suite(const char *s)
{
	if (!strcmp(s, "will-it-scale"))
		return true;
	for (size_t i = 0; testcase_table[i]; i++)
		if (testcase_listed(testcase_table[i]) && testcase_table[i]->suite &&
		    !strcmp(testcase_table[i]->suite, s))
			return true;
	for (size_t i = 0; i < plugin_count(); i++)
		if (plugin_testcase(i)->suite && !strcmp(plugin_testcase(i)->suite, s))
			return true;
	return false;
}

/* "8" or "50%" (of the online CPUs, rounded down, at least 1). */
static int parse_nr_task(const char *s, unsigned nr_online, unsigned *out)
{
	size_t n = strlen(s), digits = n;
	unsigned long long v = 0;

	if (n && s[n - 1] == '%')
		digits--;
	if (!digits || digits > 9)
		return -1;
	for (size_t i = 0; i < digits; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v == 0)
		return -2;
	if (digits < n) {
		v = v * nr_online / 100;
		if (v == 0)
			v = 1;
	}
	if (v > CORE_MAX_COPIES)
		return -3;
	*out = (unsigned)v;
	return 0;
}

static json_t *get_set(json_t *obj, const char *key)
{
	json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

	return json_is_null(v) ? NULL : v;
}

/* The value of a parameter read from will-it-scale.<key> or, as a shorthand,
 * the top-level <key>; both at once is ambiguous. */
static int block_or_top(struct loader *l, json_t *t, const char *key, json_t **v, char *shown,
			size_t len)
{
	json_t *inner = get_set(json_object_get(t, "will-it-scale"), key);
	json_t *top = get_set(t, key);

	if (inner && top)
		return fail(l, top, "%s and will-it-scale.%s are both set; give one", key, key);
	*v = inner ? inner : top;
	snprintf(shown, len, "%s%s", inner ? "will-it-scale." : "", key);
	return 0;
}

static int check_monitor(struct loader *l, const char *k, json_t *v, struct atomic_job *a)
{
	char b[256];

	if (monitor_find(k)) {
		if (!json_is_null(v) && !json_is_object(v))
			return fail(l, v,
				    "%s: expected a map of monitor options (or nothing), got %s", k,
				    describe(v, b, sizeof(b)));
		json_object_set_new(a->monitors, k,
				    json_is_null(v) ? json_null() : json_deep_copy(v));
		return 0;
	}
	return note(l,
		    "monitor '%s' is not available in scalebench; the key is kept "
		    "but not used",
		    k);
}

static int check_atomic(struct loader *l, json_t *t, struct atomic_job *a)
{
	json_t *wis = json_object_get(t, "will-it-scale"), *v;
	const struct testcase *tc;
	char key[64], b[256];
	const char *k, *s;

	if (wis && !json_is_null(wis) && !json_is_object(wis))
		return fail(l, wis, "will-it-scale: expected a map with test and mode, got %s",
			    describe(wis, b, sizeof(b)));
	for (int i = 0; i < 2; i++) {
		const char *sk = i ? "testcase" : "suite";

		v = get_set(t, sk);
		if (!v)
			continue;
		if (!json_is_string(v) || !known_suite(json_string_value(v)))
			return fail(l, v,
				    "%s %s: expected will-it-scale or the suite of a scalebench "
				    "testcase ('scalebench list -l' shows them)",
				    sk, describe(v, b, sizeof(b)));
	}

	if (block_or_top(l, t, "test", &v, key, sizeof(key)))
		return -1;
	if (!v)
		return fail(l, NULL,
			    "no testcase: expected will-it-scale.test (or test) naming one; "
			    "'scalebench list' shows the names");
	if (!json_is_string(v))
		return fail(l, v, "%s: expected a testcase name, got %s", key,
			    describe(v, b, sizeof(b)));
	tc = testcase_find(json_string_value(v));
	if (!tc)
		return fail(l, v, "%s '%s': unknown testcase; 'scalebench list' shows the names",
			    key, json_string_value(v));
	a->test = tc->name;

	if (block_or_top(l, t, "mode", &v, key, sizeof(key)))
		return -1;
	s = v ? json_string_value(v) : DEFAULT_MODE;
	if (s && !strcmp(s, "process"))
		a->mode = TC_MODE_PROCESS;
	else if (s && !strcmp(s, "thread"))
		a->mode = TC_MODE_THREAD;
	else
		return fail(l, v, "%s %s: expected process or thread", key,
			    describe(v, b, sizeof(b)));
	if (!testcase_supports(tc, a->mode))
		return fail(l, v, "%s '%s': testcase '%s' does not run in %s mode", key, s,
			    tc->name, s);

	v = get_set(t, "nr_task");
	s = v ? json_string_value(v) : DEFAULT_NR_TASK;
	switch (s ? parse_nr_task(s, l->nr_online, &a->nr_task) : -1) {
	case 0:
		break;
	case -2:
		return fail(l, v, "nr_task '%s': expected at least 1 task", s);
	case -3:
		return fail(l, v, "nr_task '%s': more than the maximum of %d tasks", s,
			    CORE_MAX_COPIES);
	default:
		return fail(l, v,
			    "nr_task %s: expected a number of tasks (at least 1) or a percentage "
			    "of online CPUs (50%%)",
			    describe(v, b, sizeof(b)));
	}

	a->runtime_s = DEFAULT_RUNTIME;
	v = get_set(t, "runtime");
	if (v && (!json_is_string(v) || num_parse_duration(json_string_value(v), &a->runtime_s) ||
		  a->runtime_s <= 0))
		return fail(l, v, "runtime %s: expected a duration above 0 (300, 300s, 5m)",
			    describe(v, b, sizeof(b)));
	a->warmup_s = DEFAULT_WARMUP;
	v = get_set(t, "warmup");
	if (v && (!json_is_string(v) || num_parse_duration(json_string_value(v), &a->warmup_s)))
		return fail(l, v, "warmup %s: expected a duration (0, 1, 1s, 0.5)",
			    describe(v, b, sizeof(b)));

	a->monitors = json_object();
	json_object_foreach(t, k, v)
	{
		int ret = 0;

		if (in_list(own_keys, k))
			continue;
		if (monitor_find(k) || family_is_lkp_monitor(k))
			ret = check_monitor(l, k, v, a);
		else
			ret = note(l, "key '%s' is kept but not used by scalebench", k);
		if (ret)
			return -1;
	}
	if (json_is_object(wis)) {
		json_t *iv;

		json_object_foreach(wis, k, iv)
		{
			if (strcmp(k, "test") && strcmp(k, "mode") &&
			    note(l, "key 'will-it-scale.%s' is kept but not used by scalebench", k))
				return -1;
		}
	}
	return 0;
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

static int expand_document(struct loader *l, json_t *doc, const struct param_list *varying,
			   json_t *names)
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
	for (size_t i = 0; i < dims.n; i++) {
		total *= json_array_size(walk(doc, dims.v[i].segs));
		if (total > JOB_MAX_ATOMIC) {
			fail(l, NULL, "the lists expand to more than %d atomic jobs",
			     JOB_MAX_ATOMIC);
			goto out;
		}
	}
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

int job_load(const char *path, unsigned nr_online, struct job_file *job, char *err, size_t errlen)
{
	struct loader l = {.path = path,
			   .nr_online = nr_online ? nr_online : 1,
			   .err = err,
			   .errlen = errlen,
			   .marks = json_object(),
			   .notes_seen = json_object(),
			   .job = job};
	struct param_list varying = {0};
	json_t *docs = json_array(), *merged = json_array(), *names = json_object(), *d;
	char *buf = NULL;
	size_t len = 0, i;
	int ret = -1;

	memset(job, 0, sizeof(*job));
	job->path = strdup(path);
	job->name = file_stem(path);
	if (!job->path || !job->name) {
		fail(&l, NULL, "out of memory");
		goto out;
	}
	if (read_whole(&l, &buf, &len) || check_erb(&l, buf, len) ||
	    parse_documents(&l, buf, len, docs))
		goto out;

	if (json_array_size(docs) == 1) {
		json_array_append(merged, json_array_get(docs, 0));
		job->tree = json_incref(json_array_get(docs, 0));
	} else {
		/* LKP: the first document is a header for each of the others. */
		json_array_foreach(docs, i, d)
		{
			json_t *m;

			if (i == 0)
				continue;
			m = merge_revision(&l, json_array_get(docs, 0), d);
			if (!m)
				goto out;
			json_array_append_new(merged, m);
		}
		job->tree = json_incref(docs);
		if (doc_varying(&l, merged, &varying))
			goto out;
	}
	json_array_foreach(merged, i, d)
	{
		if (expand_document(&l, d, &varying, names))
			goto out;
	}
	ret = 0;
out:
	if (ret)
		job_free(job);
	params_free(&varying);
	json_decref(docs);
	json_decref(merged);
	json_decref(names);
	json_decref(l.marks);
	json_decref(l.notes_seen);
	free(buf);
	return ret;
}

void job_free(struct job_file *job)
{
	for (size_t i = 0; i < job->n_atomic; i++) {
		free(job->atomic[i].name);
		free(job->atomic[i].path_params);
		json_decref(job->atomic[i].tree);
		json_decref(job->atomic[i].monitors);
	}
	for (size_t i = 0; i < job->n_notes; i++)
		free(job->notes[i]);
	free(job->atomic);
	free(job->notes);
	free(job->path);
	free(job->name);
	json_decref(job->tree);
	memset(job, 0, sizeof(*job));
}

/* ---- Writing ---- */

static int emit_scalar(yaml_emitter_t *e, const char *s, size_t n)
{
	yaml_event_t ev;
	/* Text that reads back as null must be quoted to stay text. */
	yaml_scalar_style_t style =
	    is_null_word(s, n) && s ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE;

	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)(s ? s : ""), (int)n, 1, 1,
				     style);
	return yaml_emitter_emit(e, &ev) ? 0 : -1;
}

static int emit_node(yaml_emitter_t *e, const json_t *v)
{
	yaml_event_t ev;
	char num[64];
	const char *k;
	json_t *c;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
		if (!yaml_emitter_emit(e, &ev))
			return -1;
		json_object_foreach((json_t *)v, k, c)
		{
			if (emit_scalar(e, k, strlen(k)) || emit_node(e, c))
				return -1;
		}
		yaml_mapping_end_event_initialize(&ev);
		return yaml_emitter_emit(e, &ev) ? 0 : -1;
	case JSON_ARRAY:
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
		if (!yaml_emitter_emit(e, &ev))
			return -1;
		json_array_foreach(v, i, c)
		{
			if (emit_node(e, c))
				return -1;
		}
		yaml_sequence_end_event_initialize(&ev);
		return yaml_emitter_emit(e, &ev) ? 0 : -1;
	case JSON_STRING:
		return emit_scalar(e, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return emit_scalar(e, num, strlen(num));
	case JSON_REAL:
		snprintf(num, sizeof(num), "%.17g", json_real_value(v));
		return emit_scalar(e, num, strlen(num));
	case JSON_TRUE:
		return emit_scalar(e, "true", 4);
	case JSON_FALSE:
		return emit_scalar(e, "false", 5);
	case JSON_NULL:
	default:
		return emit_scalar(e, NULL, 0);
	}
}

int job_write_yaml(const json_t *tree, FILE *out)
{
	yaml_emitter_t e;
	yaml_event_t ev;
	int ret = -1;

	if (!yaml_emitter_initialize(&e))
		return -1;
	yaml_emitter_set_output_file(&e, out);
	yaml_emitter_set_unicode(&e, 1);
	/* Never fold long values: a folded line could start with '%' and read as ERB.
	 */
	yaml_emitter_set_width(&e, -1);
	yaml_emitter_set_indent(&e, 2);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	if (!yaml_emitter_emit(&e, &ev) || emit_node(&e, tree))
		goto out;
	yaml_document_end_event_initialize(&ev, 1);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	yaml_stream_end_event_initialize(&ev);
	if (!yaml_emitter_emit(&e, &ev) || !yaml_emitter_flush(&e))
		goto out;
	ret = ferror(out) ? -1 : 0;
out:
	yaml_emitter_delete(&e);
	return ret;
}
