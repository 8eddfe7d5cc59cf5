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
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(l->err, l->errlen, "%s:%zu:%zu: %s", l->path, m->line + 1, m->column + 1, msg);
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

bool is_null_word(const char *s, size_t n)
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
int parse_documents(struct loader *l, const char *buf, size_t len, json_t *docs)
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
