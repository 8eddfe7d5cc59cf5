/* Job files written back: an atomic job's tree as YAML (the run's job.yaml, split's output),
 * read back by job_load as the same tree, and by LKP's Ruby as the job file it came from. */
#include "job_internal.h"

#include <regex.h>
#include <stdio.h>
#include <string.h>

/* ---- what LKP's Ruby reads a plain scalar as ---------------------------------------------
 *
 * LKP loads job files with Psych (YAML.unsafe_load), which types a plain scalar by
 * Psych::ScalarScanner#tokenize (psych 4.0, Ruby 3.1): YAML 1.1's null, booleans, integers
 * (0x28, 010, 1_000), floats, base-60 numbers ('12:30' is 45000), timestamps, dates, and
 * symbols (:x).  The patterns below are tokenize's, in POSIX form.  Where this says "not text"
 * and Psych would still read text (a date that is no day, a time Ruby cannot make) the value
 * is merely quoted; the reverse, which would change a type, must not happen: the golden
 * tests check these against Psych itself (tests/fixtures/lkp-jobs/psych-plain.txt). */

static const char *const typed_patterns[] = {
    /* TIME */
    "^-?[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[[:space:]]+)[0-9]{1,2}:[0-9][0-9]:[0-9][0-9]"
    "(\\.[0-9]*)?([[:space:]]*(Z|[-+][0-9]{1,2}:?([0-9][0-9])?))?$",
    /* a date */
    "^[0-9]{4}-(1[012]|0[0-9]|[0-9])-([12][0-9]|3[01]|0[0-9]|[0-9])$",
    /* infinities and NaN (case ignored) */
    "^(\\+?\\.[Ii][Nn][Ff]|-\\.[Ii][Nn][Ff]|\\.[Nn][Aa][Nn])$",
    /* a symbol */
    "^:.",
    /* base 60, integer and float */
    "^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}(\\.[0-9_]*)?$",
    /* FLOAT (but a lone "." or "-.", which tokenize keeps as text) */
    "^[-+]?([0-9][0-9_,]*)?\\.[0-9]*([eE][-+][0-9]+)?$",
    /* INTEGER: base 2, 8, 10, 16 */
    "^([-+]?0b[0-1_,]+|[-+]?0[0-7_,]+|[-+]?(0|[1-9]([0-9]|,[0-9]|_[0-9])*)|"
    "[-+]?0x[0-9a-fA-F_,]+)$",
};
#define N_TYPED (sizeof(typed_patterns) / sizeof(typed_patterns[0]))

/* tokenize's first test: text that begins like a word ([[:alpha:]_\s!@#$%^&*(){}<>|/\\~;=],
 * after at most one character that is not [0-9.:-]).  Only ASCII is looked at: text whose
 * first characters are not ASCII matches none of the later patterns either. */
static bool word_char(unsigned char c)
{
	return (c && c < 0x80 && (c == '_' || strchr(" \t\n\v\f\r!@#$%^&*(){}<>|/\\~;=", c))) ||
	       (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool begins_like_word(const char *s, size_t n)
{
	unsigned char c0 = (unsigned char)s[0];

	if (c0 && word_char(c0))
		return true;
	return n > 1 && c0 < 0x80 && !strchr("0123456789.:-", c0) && word_char((unsigned char)s[1]);
}

static bool word_is(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && !strncasecmp(s, word, n);
}

bool job_plain_is_text(const char *s, size_t n)
{
	static regex_t re[N_TYPED];
	static int compiled; /* 1 compiled, -1 failed */
	static const char *const typed_words[] = {"null", "yes",   "true", "on",
						  "no",	  "false", "off",  NULL};
	size_t chars = 0;

	if (n == 0 || memchr(s, '\0', n))
		return false;
	if ((n == 1 && s[0] == '~') || (n == 2 && !memcmp(s, "<<", 2))) /* null; a merge key */
		return false;
	for (size_t i = 0; typed_words[i]; i++)
		if (word_is(s, n, typed_words[i]))
			return false;
	if (memchr(s, '\n', n)) {
		/* tokenize's word tests then apply line by line: short text may still read as
		 * a boolean ("no\nx"); longer text is text. */
		for (size_t i = 0; i < n; i++)
			chars += ((unsigned char)s[i] & 0xc0) != 0x80;
		return chars > 5;
	}
	if (begins_like_word(s, n))
		return true;
	if (!compiled) {
		compiled = 1;
		for (size_t i = 0; i < N_TYPED; i++)
			if (regcomp(&re[i], typed_patterns[i], REG_EXTENDED | REG_NOSUB))
				compiled = -1;
	}
	if (compiled < 0)
		return false; /* quoted, then: text either way */
	for (size_t i = 0; i < N_TYPED; i++) {
		if (regexec(&re[i], s, 0, NULL, 0))
			continue;
		/* FLOAT's own exception */
		return i == 5 && (n == 1 || (n == 2 && (s[0] == '-' || s[0] == '+')));
	}
	return true;
}

/* ---- the writer ---------------------------------------------------------------------------- */

/* What the file wrote plain (job_file's plain_values and plain_keys); NULL for a tree made
 * in code, whose text is all text. */
struct plain_sets {
	const json_t *values, *keys;
};

/* Text is written plain when YAML and Psych read it back as that text, or when the job file
 * wrote it plain (then it reads back as the job file's own value, typed as LKP typed it);
 * quoted otherwise ('0x28' stays text, not 40). */
static int emit_text(yaml_emitter_t *e, const char *s, size_t n, bool was_plain)
{
	yaml_event_t ev;
	yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;

	if (!was_plain && !job_plain_is_text(s, n))
		style = YAML_SINGLE_QUOTED_SCALAR_STYLE; /* libyaml's double where it must */
	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)n, 1, 1, style);
	return yaml_emitter_emit(e, &ev) ? 0 : -1;
}

/* A value that is not text: written plain, it reads back as what it is. */
static int emit_plain(yaml_emitter_t *e, const char *s)
{
	yaml_event_t ev;

	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
				     YAML_PLAIN_SCALAR_STYLE);
	return yaml_emitter_emit(e, &ev) ? 0 : -1;
}

static bool in_set(const json_t *set, const char *key)
{
	return set && json_object_get(set, key);
}

static int emit_node(yaml_emitter_t *e, const json_t *v, const struct plain_sets *ps)
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
		json_object_foreach ((json_t *)v, k, c) {
			if (emit_text(e, k, strlen(k), in_set(ps->keys, k)) || emit_node(e, c, ps))
				return -1;
		}
		yaml_mapping_end_event_initialize(&ev);
		return yaml_emitter_emit(e, &ev) ? 0 : -1;
	case JSON_ARRAY:
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
		if (!yaml_emitter_emit(e, &ev))
			return -1;
		json_array_foreach (v, i, c) {
			if (emit_node(e, c, ps))
				return -1;
		}
		yaml_sequence_end_event_initialize(&ev);
		return yaml_emitter_emit(e, &ev) ? 0 : -1;
	case JSON_STRING:
		snprintf(num, sizeof(num), "%p", (const void *)v);
		return emit_text(e, json_string_value(v), json_string_length(v),
				 in_set(ps->values, num));
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return emit_plain(e, num);
	case JSON_REAL:
		snprintf(num, sizeof(num), "%.17g", json_real_value(v));
		return emit_plain(e, num);
	case JSON_TRUE:
		return emit_plain(e, "true");
	case JSON_FALSE:
		return emit_plain(e, "false");
	case JSON_NULL:
	default:
		return emit_plain(e, "");
	}
}

static int write_tree(const json_t *tree, const struct plain_sets *ps, FILE *out)
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
	if (!yaml_emitter_emit(&e, &ev) || emit_node(&e, tree, ps))
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

int job_write_yaml(const json_t *tree, FILE *out)
{
	const struct plain_sets none = {0};

	return write_tree(tree, &none, out);
}

int job_write_atomic(const struct job_file *job, const struct atomic_job *a, FILE *out)
{
	const struct plain_sets ps = {job->plain_values, job->plain_keys};

	return write_tree(a->tree, &ps, out);
}
