/* Job files, first step: the file's bytes to one jansson tree per YAML document.
 *
 * The tree keeps every scalar as the string it was written as (`~`, `null` and
 * nothing become JSON null), so a run's job.yaml says what the user wrote, and
 * LKP keys scalebench does not use survive the round trip.  Every value's line
 * and column are kept (mark_set) for the messages of the later steps. */
#include "job_internal.h"
#include "../lib/file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOB_MAX_BYTES (16u << 20)
#define JOB_MAX_DEPTH 64
#define JOB_MAX_NODES 100000

static int fail_mark(struct loader *l, const yaml_mark_t *m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_mark(struct loader *l, const yaml_mark_t *m, const char *fmt, ...)
{
	char msg[768], w[4200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(l->err, l->errlen, "%s:%zu: %s", where_line(l, m->line + 1, w, sizeof(w)),
		 m->column + 1, msg);
	return -1;
}

int read_whole(struct loader *l, char **buf, size_t *len)
{
	return file_read_input(l->path, JOB_MAX_BYTES, buf, len, l->err, l->errlen);
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
int check_erb(struct loader *l, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	for (size_t line = 1; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *open = memmem(p, (size_t)(eol - p), "<%", 2);
		bool erb = (*p == '%' && !is_yaml_directive(p, eol)) ||
			   (open && memmem(open + 2, (size_t)(eol - open - 2), "%>", 2));

		if (erb) {
			char w[4200];

			snprintf(
			    l->err, l->errlen,
			    "%s: ERB templates ('%%' lines, '<%% ... %%>') are not "
			    "supported; expand the template first (LKP's split-job writes plain "
			    "YAML)",
			    where_line(l, line, w, sizeof(w)));
			return -1;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

bool is_null_word(const char *s, size_t n)
{
	return n == 0 || (n == 1 && s[0] == '~') ||
	       (n == 4 &&
		(!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) || !memcmp(s, "NULL", 4)));
}

/* ---- Events to trees ----
 *
 * The tree is built from libyaml's events, not from a loaded document, so every limit holds
 * while parsing: the first value nested deeper than JOB_MAX_DEPTH, or past JOB_MAX_NODES
 * values (aliases counted at their full size), stops the parser there.  A loaded document
 * would have cost the whole file first (a 100k-deep list took 14 s of CPU). */

/* A list or map being filled. */
struct frame {
	json_t *v;	   /* owned by its parent (or the builder's root) */
	char *key;	   /* a map's key waiting for its value; NULL: a key comes next */
	char *anchor;	   /* registered with the value when it ends */
	size_t nodes0;	   /* l->nodes before it: its size, for its aliases */
	int depth, deepest; /* its depth, and its deepest value's */
	json_t *merged;	    /* keys a YAML merge (`<<: *ref`) set: the map's own may override */
};

/* One document being built. */
struct builder {
	struct loader *l;
	struct frame *stack;
	size_t n, cap;
	json_t *root;
	/* name -> [value, values in it, levels below it, its text as written (scalars, for keys)];
	 * name -> null while its list or map is still open. */
	json_t *anchors;
};

static void builder_reset(struct builder *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->stack[i].key);
		free(b->stack[i].anchor);
		json_decref(b->stack[i].merged);
	}
	b->n = 0;
	json_decref(b->root);
	b->root = NULL;
	json_object_clear(b->anchors);
}

/* Room for one more value at depth, of height levels below it, counting nodes values. */
static int check_limits(struct builder *b, const yaml_mark_t *m, int depth, int height,
			size_t nodes)
{
	struct loader *l = b->l;

	if (depth + height > JOB_MAX_DEPTH)
		return fail_mark(l, m, "nested deeper than %d levels", JOB_MAX_DEPTH);
	if (nodes > JOB_MAX_NODES - l->nodes)
		return fail_mark(l, m, "more than %d values (aliases of aliases?)", JOB_MAX_NODES);
	l->nodes += nodes;
	return 0;
}

/* An anchor's entry (takes it); ends: the list or map it was opened with is complete. */
static int add_anchor(struct builder *b, const char *name, json_t *entry, bool ends,
		      const yaml_mark_t *m)
{
	/* libyaml's loader refused a second anchor of one name; so does this. */
	if (!ends && json_object_get(b->anchors, name)) {
		json_decref(entry);
		return fail_mark(b->l, m, "anchor '&%s' is defined twice", name);
	}
	if (json_object_set_new(b->anchors, name, entry))
		return fail_mark(b->l, m, "out of memory");
	return 0;
}

/* A map, or a list of maps: what YAML's merge key `<<` takes. */
static bool merge_value(const json_t *v)
{
	size_t i;
	json_t *e;

	if (json_is_object(v))
		return true;
	if (!json_is_array(v) || !json_array_size(v))
		return false;
	json_array_foreach (v, i, e) {
		if (!json_is_object(e))
			return false;
	}
	return true;
}

/* A value in its place: the document's root, the next item of a list, or the value of the
 * pending key of a map.  Takes v. */
static int place(struct builder *b, json_t *v, int depth, int height, const yaml_mark_t *m)
{
	struct frame *top = b->n ? &b->stack[b->n - 1] : NULL;
	int bad;

	if (!v)
		return fail_mark(b->l, m, "out of memory");
	if (!top) {
		b->root = v;
		return 0;
	}
	if (json_is_array(top->v)) {
		bad = json_array_append_new(top->v, v);
	} else if (!strcmp(top->key, "<<") && merge_value(v)) {
		/* YAML's merge key (LKP's `<<: *REF`): the maps' keys, the map's own first, then
		 * the earlier of the merged maps. */
		json_t *one, *e;
		const char *k;
		size_t i;

		bad = !top->merged && !(top->merged = json_object());
		for (i = 0; !bad && i < (json_is_array(v) ? json_array_size(v) : 1); i++) {
			one = json_is_array(v) ? json_array_get(v, i) : v;
			json_object_foreach (one, k, e) {
				if (json_object_get(top->v, k))
					continue;
				bad |= json_object_set(top->v, k, e) ||
				       json_object_set_new(top->merged, k, json_null());
			}
		}
		json_decref(v);
		free(top->key);
		top->key = NULL;
	} else {
		bad = json_object_set_new(top->v, top->key, v);
		free(top->key);
		top->key = NULL;
	}
	if (depth + height > top->deepest)
		top->deepest = depth + height;
	return bad ? fail_mark(b->l, m, "out of memory") : 0;
}

/* A map's key: plain text, unique in its map. */
static int take_key(struct builder *b, const char *text, size_t len, const yaml_mark_t *m)
{
	struct frame *top = &b->stack[b->n - 1];

	if (!text)
		return fail_mark(b->l, m, "a key must be a plain value, not a list or a map");
	if (strlen(text) != len)
		return fail_mark(b->l, m, "a key contains a NUL character");
	/* Included text may set a key again: the last value wins, as in LKP. */
	if (json_object_get(top->v, text) && !b->l->included && !json_object_get(top->merged, text))
		return fail_mark(b->l, m, "duplicate key '%s'", text);
	top->key = strndup(text, len);
	return top->key ? 0 : fail_mark(b->l, m, "out of memory");
}

static bool wants_key(const struct builder *b)
{
	return b->n && json_is_object(b->stack[b->n - 1].v) && !b->stack[b->n - 1].key;
}

static int on_scalar(struct builder *b, const yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value, *anchor;
	size_t n = ev->data.scalar.length;
	int depth = (int)b->n;
	bool typed;
	json_t *v;

	anchor = (const char *)ev->data.scalar.anchor;
	/* Plain text LKP's Ruby types (0x28 is 40 there) is recorded, to be written plain
	 * again; quoted text and text anyway are written as text (job_write_atomic). */
	typed = ev->data.scalar.plain_implicit && !job_plain_is_text(s, n);
	if (wants_key(b)) {
		if (typed && json_object_set_new(b->l->job->plain_keys, s, json_null()))
			return fail_mark(b->l, &ev->start_mark, "out of memory");
		if (anchor && add_anchor(b, anchor, json_pack("[s%iis%]", s, n, 1, 0, s, n), false,
					 &ev->start_mark))
			return -1;
		return take_key(b, s, n, &ev->start_mark);
	}
	if (check_limits(b, &ev->start_mark, depth, 0, 1))
		return -1;
	if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && is_null_word(s, n)) {
		v = json_null();
	} else {
		v = json_stringn(s, n);
		if (!v)
			return fail_mark(b->l, &ev->start_mark, "value is not valid UTF-8 text");
		mark_set(b->l, v, &ev->start_mark);
		if (typed && mark_plain(b->l, v)) {
			json_decref(v);
			return fail_mark(b->l, &ev->start_mark, "out of memory");
		}
	}
	if (anchor &&
	    add_anchor(b, anchor, json_pack("[Oiis%]", v, 1, 0, s, n), false, &ev->start_mark)) {
		json_decref(v);
		return -1;
	}
	return place(b, v, depth, 0, &ev->start_mark);
}

/* A copy of an anchored value for one of its aliases: lists and maps copied (a list is a
 * dimension by where it is, so one list must not sit in two places), with the anchor's
 * lines; text shared. */
static json_t *copy_marked(struct loader *l, json_t *v)
{
	const char *k;
	json_t *c, *e;
	size_t i;

	if (json_is_array(v)) {
		c = json_array();
		json_array_foreach (v, i, e) {
			if (json_array_append_new(c, copy_marked(l, e)))
				goto fail;
		}
	} else if (json_is_object(v)) {
		c = json_object();
		json_object_foreach (v, k, e) {
			if (json_object_set_new(c, k, copy_marked(l, e)))
				goto fail;
		}
	} else {
		return json_incref(v);
	}
	if (c)
		mark_copy(l, c, v);
	return c;
fail:
	json_decref(c);
	return NULL;
}

static int on_alias(struct builder *b, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	json_t *a = json_object_get(b->anchors, name);
	int depth = (int)b->n, height;

	if (!a)
		return fail_mark(b->l, &ev->start_mark, "alias '*%s' names no anchor before it",
				 name);
	if (json_is_null(a))
		return fail_mark(b->l, &ev->start_mark,
				 "alias '*%s' is inside the value it names (a value cannot contain "
				 "itself)",
				 name);
	if (wants_key(b))
		return take_key(b, json_string_value(json_array_get(a, 3)),
				json_string_length(json_array_get(a, 3)), &ev->start_mark);
	height = (int)json_integer_value(json_array_get(a, 2));
	if (check_limits(b, &ev->start_mark, depth, height,
			 (size_t)json_integer_value(json_array_get(a, 1))))
		return -1;
	return place(b, copy_marked(b->l, json_array_get(a, 0)), depth, height, &ev->start_mark);
}

static int on_start(struct builder *b, const yaml_event_t *ev)
{
	bool map = ev->type == YAML_MAPPING_START_EVENT;
	const char *anchor = (const char *)(map ? ev->data.mapping_start.anchor
					       : ev->data.sequence_start.anchor);
	int depth = (int)b->n;
	struct frame *f;
	json_t *v;

	if (wants_key(b))
		return take_key(b, NULL, 0, &ev->start_mark);
	if (check_limits(b, &ev->start_mark, depth, 0, 1))
		return -1;
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		struct frame *st = realloc(b->stack, cap * sizeof(*st));

		if (!st)
			return fail_mark(b->l, &ev->start_mark, "out of memory");
		b->stack = st;
		b->cap = cap;
	}
	v = map ? json_object() : json_array();
	if (!v)
		return fail_mark(b->l, &ev->start_mark, "out of memory");
	mark_set(b->l, v, &ev->start_mark);
	if (anchor && add_anchor(b, anchor, json_null(), false, &ev->start_mark)) {
		json_decref(v);
		return -1;
	}
	if (place(b, json_incref(v), depth, 0, &ev->start_mark)) {
		json_decref(v);
		return -1;
	}
	f = &b->stack[b->n++];
	*f = (struct frame){.v = v, .nodes0 = b->l->nodes - 1, .depth = depth, .deepest = depth};
	json_decref(v); /* its parent (or root) holds it */
	if (anchor && !(f->anchor = strdup(anchor)))
		return fail_mark(b->l, &ev->start_mark, "out of memory");
	return 0;
}

static int on_end(struct builder *b, const yaml_event_t *ev)
{
	struct frame f = b->stack[--b->n];
	int ret = 0;

	if (f.anchor)
		ret = add_anchor(b, f.anchor,
				 json_pack("[OIin]", f.v, (json_int_t)(b->l->nodes - f.nodes0),
					   f.deepest - f.depth),
				 true, &ev->start_mark);
	if (b->n && f.deepest > b->stack[b->n - 1].deepest)
		b->stack[b->n - 1].deepest = f.deepest;
	free(f.anchor);
	free(f.key);
	json_decref(f.merged);
	return ret;
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
int parse_documents(struct loader *l, const char *buf, size_t len, json_t *docs)
{
	struct builder b = {.l = l, .anchors = json_object()};
	yaml_parser_t parser;
	bool done = false;
	int ret = -1;

	if (!b.anchors || !yaml_parser_initialize(&parser)) {
		json_decref(b.anchors);
		return fail(l, NULL, "out of memory");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	while (!done) {
		yaml_event_t ev;
		int bad = 0;

		if (!yaml_parser_parse(&parser, &ev)) {
			syntax_error(l, &parser);
			goto out;
		}
		switch (ev.type) {
		case YAML_SCALAR_EVENT:
			bad = on_scalar(&b, &ev);
			break;
		case YAML_ALIAS_EVENT:
			bad = on_alias(&b, &ev);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			bad = on_start(&b, &ev);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			bad = on_end(&b, &ev);
			break;
		case YAML_DOCUMENT_START_EVENT:
			builder_reset(&b); /* anchors are the document's own */
			break;
		case YAML_DOCUMENT_END_EVENT:
			if (json_is_null(b.root) || !b.root) {
				/* an empty document: LKP takes it as {} */
				json_decref(b.root);
				b.root = json_object();
			} else if (!json_is_object(b.root)) {
				char d[64];

				bad = fail(l, b.root,
					   "expected keys (key: value) at the top of the document, "
					   "got %s",
					   describe(b.root, d, sizeof(d)));
			}
			if (!bad && json_array_append(docs, b.root))
				bad = fail(l, NULL, "out of memory");
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
		if (bad)
			goto out;
	}
	if (json_array_size(docs) == 0) {
		fail(l, NULL, "empty job file; expected keys such as 'will-it-scale: {test: ...}'");
		goto out;
	}
	ret = 0;
out:
	builder_reset(&b);
	free(b.stack);
	json_decref(b.anchors);
	yaml_parser_delete(&parser);
	return ret;
}
