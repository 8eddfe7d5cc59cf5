#include "run_read.h"
#include "../lib/file.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

/* A cap on one file of a run, so that a stray huge file (or a device someone linked in) is
 * refused instead of eating memory: a stats.json of 100,000 stats is about 5 MB. */
char *store_read_file(const char *path, size_t *len)
{
	char *buf;

	return file_read(path, STORE_FILE_MAX, &buf, len, NULL, 0) ? NULL : buf;
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* m * 10^e10 as strtod would round it, when that is cheap to get right: m and 10^|e10| are
 * exact in x87's 64-bit significand (m below 10^19, |e10| <= 27), so the product or quotient is
 * rounded once to 64 bits; rounding that to double's 53 gives strtod's answer unless it sits
 * exactly halfway between two doubles (the 11 dropped bits 0x400), where the first rounding may
 * have decided the second.  Returns false when the caller must ask strtod (Clinger's fast path,
 * widened by the extra bits). */
static bool decimal_to_double(uint64_t m, int e10, bool neg, double *out)
{
#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
	static const long double pow10[] = {
	    1e0L,  1e1L,  1e2L,	 1e3L,	1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
	    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
	    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L,
	};
	long double r;
	uint64_t significand;

	if (e10 < -27 || e10 > 27)
		return false;
	if (m == 0) {
		*out = neg ? -0.0 : 0.0;
		return true;
	}
	r = e10 >= 0 ? (long double)m * pow10[e10] : (long double)m / pow10[-e10];
	/* x87's layout: the 64-bit significand first, its integer bit explicit. */
	memcpy(&significand, &r, sizeof(significand));
	if ((significand & 0x7ff) == 0x400)
		return false;
	*out = neg ? -(double)r : (double)r;
	return true;
#else
	(void)m, (void)e10, (void)neg, (void)out;
	return false;
#endif
}

/* A JSON number at p, jansson's grammar and values: an integer (no fraction, no exponent) is
 * a json_int_t, refused beyond its range, and becomes the double that json_number_value
 * gives ("-0" is 0); a real is strtod's, refused when it overflows.  Returns the end of the
 * number, or NULL when p holds none (then jansson decides); *integer says which it was. */
static const char *scan_number(const char *p, double *value, bool *integer)
{
	const char *start = p;
	bool neg = false, real = false, big = false;
	int digits = 0, e10 = 0; /* significant digits in m; m's scale */
	uint64_t m = 0;

	if (*p == '-') {
		neg = true;
		p++;
	}
	if (*p == '0') {
		if (is_digit(*++p))
			return NULL;
	} else if (is_digit(*p)) {
		for (; is_digit(*p); p++) {
			if (digits < 19) {
				m = m * 10 + (uint64_t)(*p - '0');
				digits++;
			} else {
				big = true;
			}
		}
	} else {
		return NULL;
	}
	if (*p == '.') {
		if (!is_digit(*++p))
			return NULL;
		for (; is_digit(*p); p++) {
			if (digits < 19) {
				m = m * 10 + (uint64_t)(*p - '0');
				digits += m != 0; /* leading zeros are no significant digits */
				e10--;
			} else {
				big = true;
			}
		}
		real = true;
	}
	if (*p == 'e' || *p == 'E') {
		bool eneg = false;
		int x = 0;

		p++;
		if (*p == '+' || *p == '-')
			eneg = *p++ == '-';
		if (!is_digit(*p))
			return NULL;
		for (; is_digit(*p); p++)
			if (x < 100000)
				x = x * 10 + (*p - '0');
		e10 += eneg ? -x : x;
		real = true;
	}
	*integer = !real;
	if (!real) {
		/* Up to 19 digits, all of them in m: at most 10^19 - 1, below 2^64. */
		if (big || m > (uint64_t)LLONG_MAX + neg)
			return NULL; /* jansson: "too big integer" */
		*value = neg ? (double)(m == (uint64_t)LLONG_MAX + 1 ? LLONG_MIN : -(long long)m)
			     : (double)(long long)m;
		return p;
	}
	if (!big && decimal_to_double(m, e10, neg, value))
		return p;
	char *end;

	errno = 0;
	*value = strtod(start, &end);
	if (end != p || ((*value == HUGE_VAL || *value == -HUGE_VAL) && errno == ERANGE))
		return NULL; /* jansson: "real number overflow" */
	return p;
}

long store_stats_parse_fast(char *text, size_t len, struct store_stat **out)
{
	const char *p = text, *end = text + len;
	struct store_stat *v = NULL;
	size_t n = 0, cap = 0;

	/* Everything stops at the '\0' after the text: it is no token and no key byte, and
	 * one inside the text ends the parse short of end. */
	p = skip_ws(p);
	if (*p++ != '{')
		goto no;
	p = skip_ws(p);
	if (*p == '}')
		goto done;
	for (;;) {
		const char *name;
		double d;
		bool integer;

		if (*p++ != '"')
			goto no;
		name = p;
		/* Printable ASCII only: escapes, control characters and UTF-8 (which jansson
		 * checks) go to jansson. */
		while ((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x80 && *p != '"' &&
		       *p != '\\')
			p++;
		if (*p != '"')
			goto no;
		size_t nlen = (size_t)(p - name);
		p = skip_ws(p + 1);
		if (*p++ != ':')
			goto no;
		p = scan_number(skip_ws(p), &d, &integer);
		if (!p)
			goto no;
		p = skip_ws(p);
		if (n == cap) {
			struct store_stat *nv =
			    realloc(v, (cap = cap ? cap * 2 : 256) * sizeof(*nv));

			if (!nv)
				goto no;
			v = nv;
		}
		v[n++] = (struct store_stat){name, nlen, d, integer};
		if (*p == ',') {
			p = skip_ws(p + 1);
			continue;
		}
		if (*p == '}')
			break;
		goto no;
	}
done:
	p = skip_ws(p + 1);
	if (p != end)
		goto no;
	/* Whole: the closing quotes become the names' ends. */
	for (size_t i = 0; i < n; i++)
		((char *)v[i].name)[v[i].len] = '\0';
	*out = v;
	return (long)n;
no:
	free(v);
	return -1;
}

int store_parse_stats(char *text, size_t len, struct store_stats *s, char *why, size_t whylen)
{
	json_error_t e;
	const char *k;
	json_t *x;
	long n;

	memset(s, 0, sizeof(*s));
	n = store_stats_parse_fast(text, len, &s->v);
	if (n >= 0) {
		s->n = (size_t)n;
		return 0;
	}
	s->tree_ = json_loadb(text, len, 0, &e);
	if (!s->tree_) {
		snprintf(why, whylen, "line %d: %s", e.line, e.text);
		goto fail;
	}
	if (!json_is_object(s->tree_)) {
		snprintf(why, whylen, "not a JSON object");
		goto fail;
	}
	s->v = calloc(json_object_size(s->tree_) + 1, sizeof(*s->v));
	if (!s->v) {
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		goto fail;
	}
	json_object_foreach (s->tree_, k, x) {
		if (!json_is_number(x)) {
			snprintf(why, whylen, "stat '%s' is not a number", k);
			goto fail;
		}
		s->v[s->n++] = (struct store_stat){k, strlen(k), json_number_value(x),
						   json_is_integer(x)};
	}
	return 0;
fail:
	store_stats_free(s);
	errno = EINVAL;
	return -1;
}

void store_stats_free(struct store_stats *s)
{
	free(s->v);
	free(s->text_);
	json_decref(s->tree_);
	memset(s, 0, sizeof(*s));
}

int store_read_stats(const char *run_dir, struct store_stats *s, char *why, size_t whylen)
{
	char path[PATH_MAX];
	size_t len;
	char *text;

	memset(s, 0, sizeof(*s));
	if (snprintf(path, sizeof(path), "%s/" STORE_STATS_FILE, run_dir) >= (int)sizeof(path)) {
		snprintf(why, whylen, "cannot read: %s", strerror(ENAMETOOLONG));
		errno = ENAMETOOLONG;
		return -1;
	}
	text = store_read_file(path, &len);
	if (!text) {
		int saved = errno;

		snprintf(why, whylen, "cannot read: %s",
			 saved == EINVAL ? "not a regular file" : strerror(saved));
		errno = saved;
		return -1;
	}
	if (store_parse_stats(text, len, s, why, whylen)) {
		free(text);
		return -1;
	}
	s->text_ = text;
	return 0;
}

int store_run_check(const char *run_dir, json_t **meta, char *why, size_t whylen)
{
	struct store_stats s;
	char reason[512];
	json_t *m;

	if (meta)
		*meta = NULL;
	if (store_read_stats(run_dir, &s, reason, sizeof(reason))) {
		snprintf(why, whylen, "%s/" STORE_STATS_FILE ": %s", run_dir,
			 errno == ENOENT ? "missing" : reason);
		return -1;
	}
	store_stats_free(&s);
	m = store_read_meta(run_dir, why, whylen);
	if (!m)
		return -1;
	if (meta)
		*meta = m;
	else
		json_decref(m);
	return 0;
}

json_t *store_read_meta(const char *run_dir, char *why, size_t whylen)
{
	char path[PATH_MAX];
	json_error_t e;
	json_t *meta;
	size_t len;
	char *text;

	snprintf(path, sizeof(path), "%s/" STORE_META_FILE, run_dir);
	text = store_read_file(path, &len);
	if (!text) {
		snprintf(why, whylen, "%s: cannot read: %s", path,
			 errno == EINVAL ? "not a regular file" : strerror(errno));
		return NULL;
	}
	meta = json_loadb(text, len, 0, &e);
	free(text);
	if (!meta) {
		snprintf(why, whylen, "%s: line %d: %s", path, e.line, e.text);
		return NULL;
	}
	if (!json_is_object(meta)) {
		snprintf(why, whylen, "%s: not a JSON object", path);
		json_decref(meta);
		return NULL;
	}
	return meta;
}

/* ---- job.yaml ---- */

#define JOB_MAX_DEPTH 32

/* The tree being built: the open containers (borrowed: the root owns them), and per mapping
 * the key read whose value has not come yet. */
struct job_builder {
	json_t *root;
	json_t *open[JOB_MAX_DEPTH];
	char *key[JOB_MAX_DEPTH];
	int depth;
};

/* v (taken) where the document has it: the root, an item of the innermost sequence, or in the
 * innermost mapping its key (key_text, a scalar's) or the value of the key before it. */
static int job_place(struct job_builder *b, json_t *v, const char *key_text, char *why,
		     size_t whylen)
{
	json_t *top = b->depth ? b->open[b->depth - 1] : NULL;
	char **key = b->depth ? &b->key[b->depth - 1] : NULL;
	const char *problem = NULL;

	if (!top) {
		if (b->root)
			problem = "more than one node at the top";
		else
			b->root = json_incref(v);
	} else if (json_is_array(top)) {
		if (json_array_append(top, v))
			problem = "out of memory";
	} else if (!*key) {
		/* A key: its value comes next. */
		if (!key_text)
			problem = "a key that is not a scalar";
		else if (!(*key = strdup(key_text)))
			problem = "out of memory";
	} else {
		if (json_object_set(top, *key, v))
			problem = "out of memory";
		free(*key);
		*key = NULL;
	}
	json_decref(v);
	if (problem)
		snprintf(why, whylen, "%s", problem);
	return problem ? -1 : 0;
}

static int job_event(struct job_builder *b, const yaml_event_t *ev, char *why, size_t whylen)
{
	json_t *v;

	switch (ev->type) {
	case YAML_SCALAR_EVENT: {
		const char *text = (const char *)ev->data.scalar.value;
		size_t len = ev->data.scalar.length;
		bool null = ev->data.scalar.plain_implicit &&
			    (!len || !strcmp(text, "~") || !strcmp(text, "null") ||
			     !strcmp(text, "Null") || !strcmp(text, "NULL"));

		v = null ? json_null() : json_stringn(text, len);
		if (!v) {
			snprintf(why, whylen, "a scalar that is not UTF-8");
			return -1;
		}
		return job_place(b, v, strlen(text) == len ? text : NULL, why, whylen);
	}
	case YAML_ALIAS_EVENT:
		return job_place(b, json_null(), NULL, why, whylen);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (b->depth == JOB_MAX_DEPTH) {
			snprintf(why, whylen, "nested deeper than %d levels", JOB_MAX_DEPTH);
			return -1;
		}
		v = ev->type == YAML_MAPPING_START_EVENT ? json_object() : json_array();
		if (!v || job_place(b, json_incref(v), NULL, why, whylen)) {
			json_decref(v);
			return -1;
		}
		b->key[b->depth] = NULL;
		b->open[b->depth++] = v;
		json_decref(v); /* its parent (or the root) holds it */
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth) {
			free(b->key[b->depth - 1]);
			b->key[--b->depth] = NULL;
		}
		return 0;
	default:
		return 0;
	}
}

json_t *store_read_job(const char *run_dir, char *why, size_t whylen)
{
	struct job_builder b = {0};
	char path[PATH_MAX];
	yaml_parser_t parser;
	yaml_event_t ev;
	bool done = false;
	int rc = 0;
	size_t len;
	char *text;

	snprintf(path, sizeof(path), "%s/" STORE_JOB_FILE, run_dir);
	text = store_read_file(path, &len);
	if (!text) {
		snprintf(why, whylen, "%s: cannot read: %s", path,
			 errno == EINVAL ? "not a regular file" : strerror(errno));
		return NULL;
	}
	if (!yaml_parser_initialize(&parser)) {
		free(text);
		snprintf(why, whylen, "%s: out of memory", path);
		return NULL;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done && !rc) {
		char msg[200] = "";

		if (!yaml_parser_parse(&parser, &ev)) {
			snprintf(why, whylen, "%s: line %zu: %s", path,
				 parser.problem_mark.line + 1,
				 parser.problem ? parser.problem : "not YAML");
			rc = -1;
			break;
		}
		done = ev.type == YAML_DOCUMENT_END_EVENT || ev.type == YAML_STREAM_END_EVENT;
		if (job_event(&b, &ev, msg, sizeof(msg))) {
			snprintf(why, whylen, "%s: line %zu: %s", path, ev.start_mark.line + 1,
				 msg);
			rc = -1;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	free(text);
	while (b.depth)
		free(b.key[--b.depth]);
	if (!rc && !json_is_object(b.root)) {
		snprintf(why, whylen, "%s: not a mapping", path);
		rc = -1;
	}
	if (rc) {
		json_decref(b.root);
		return NULL;
	}
	return b.root;
}

int store_raw_path(const char *run_dir, const char *monitor, char *path, size_t len)
{
	/* The names store_run_write_raw gives, compressed first, then those of runs stored
	 * before the raw samples left LKP's <monitor>.json names. */
	static const char *const suffixes[] = {".samples.json.gz", ".samples.json", ".json.gz",
					       ".json"};

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++)
		if (snprintf(path, len, "%s/%s%s", run_dir, monitor, suffixes[i]) < (int)len &&
		    access(path, F_OK) == 0)
			return 0;
	return -1;
}
