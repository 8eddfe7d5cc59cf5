#include "jsonw.h"
#include "utf8.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void jsonw_init(struct jsonw *w, FILE *out, unsigned pretty_depth)
{
	*w = (struct jsonw){.out = out, .pretty_depth = pretty_depth};
}

static void newline(struct jsonw *w, size_t indent)
{
	putc('\n', w->out);
	for (size_t i = 0; i < indent; i++)
		putc(' ', w->out);
}

/* Before a member of the innermost container: its separator and layout. */
static void member(struct jsonw *w)
{
	struct jsonw_frame *f = &w->stack[w->depth - 1];

	if (f->nonempty)
		putc(',', w->out);
	if (w->depth <= w->pretty_depth)
		newline(w, w->depth);
	else if (f->nonempty)
		putc(' ', w->out);
	f->nonempty = true;
}

/* Whether a value may come now; writes what goes before it. */
static bool value_begins(struct jsonw *w)
{
	if (w->failed)
		return false;
	if (!w->depth) {
		w->failed = w->done;
		return !w->failed;
	}
	if (w->stack[w->depth - 1].object) {
		w->failed = !w->after_key;
		w->after_key = false;
		return !w->failed;
	}
	member(w);
	return true;
}

static void value_ends(struct jsonw *w)
{
	if (!w->depth)
		w->done = true;
}

static void put_string(struct jsonw *w, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	putc('"', w->out);
	while (*s) {
		size_t plain = 0, n;

		while (s[plain] >= 0x20 && s[plain] < 0x80 && s[plain] != '"' && s[plain] != '\\')
			plain++;
		fwrite(s, 1, plain, w->out);
		s += plain;
		if (!*s)
			break;
		if (*s == '"' || *s == '\\') {
			putc('\\', w->out);
			putc(*s++, w->out);
		} else if (*s < 0x20) {
			static const char short_escape[] = {
			    ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't'};

			if (*s < sizeof(short_escape) && short_escape[*s])
				fprintf(w->out, "\\%c", short_escape[*s]);
			else
				fprintf(w->out, "\\u%04x", *s);
			s++;
		} else if ((n = utf8_seq_len(s, SIZE_MAX))) {
			fwrite(s, 1, n, w->out);
			s += n;
		} else {
			fputs("\\ufffd", w->out);
			s++;
		}
	}
	putc('"', w->out);
}

static void begin(struct jsonw *w, bool object)
{
	if (!value_begins(w))
		return;
	if (w->depth == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 8;
		struct jsonw_frame *v = realloc(w->stack, cap * sizeof(*v));

		if (!v) {
			w->failed = true;
			return;
		}
		w->stack = v;
		w->cap = cap;
	}
	w->stack[w->depth++] = (struct jsonw_frame){.object = object};
	putc(object ? '{' : '[', w->out);
}

static void end(struct jsonw *w, bool object)
{
	if (w->failed || !w->depth || w->stack[w->depth - 1].object != object || w->after_key) {
		w->failed = true;
		return;
	}
	if (w->stack[--w->depth].nonempty && w->depth < w->pretty_depth)
		newline(w, w->depth);
	putc(object ? '}' : ']', w->out);
	value_ends(w);
}

void jsonw_begin_object(struct jsonw *w)
{
	begin(w, true);
}

void jsonw_end_object(struct jsonw *w)
{
	end(w, true);
}

void jsonw_begin_array(struct jsonw *w)
{
	begin(w, false);
}

void jsonw_end_array(struct jsonw *w)
{
	end(w, false);
}

void jsonw_key(struct jsonw *w, const char *key)
{
	if (w->failed || !w->depth || !w->stack[w->depth - 1].object || w->after_key) {
		w->failed = true;
		return;
	}
	member(w);
	put_string(w, key);
	fputs(": ", w->out);
	w->after_key = true;
}

void jsonw_string(struct jsonw *w, const char *s)
{
	if (!value_begins(w))
		return;
	put_string(w, s);
	value_ends(w);
}

void jsonw_double(struct jsonw *w, double v)
{
	if (!value_begins(w))
		return;
	if (isfinite(v))
		fprintf(w->out, "%.10g", v);
	else
		fputs("null", w->out);
	value_ends(w);
}

void jsonw_uint(struct jsonw *w, unsigned long long v)
{
	if (!value_begins(w))
		return;
	fprintf(w->out, "%llu", v);
	value_ends(w);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	if (!value_begins(w))
		return;
	fputs(v ? "true" : "false", w->out);
	value_ends(w);
}

void jsonw_null(struct jsonw *w)
{
	if (!value_begins(w))
		return;
	fputs("null", w->out);
	value_ends(w);
}

void jsonw_key_string_or_null(struct jsonw *w, const char *key, const char *v)
{
	jsonw_key(w, key);
	if (v)
		jsonw_string(w, v);
	else
		jsonw_null(w);
}

int jsonw_finish(struct jsonw *w)
{
	bool ok = !w->failed && w->done && !w->depth;

	if (ok)
		putc('\n', w->out);
	free(w->stack);
	w->stack = NULL;
	w->depth = w->cap = 0;
	/* A full disk or a closed pipe shows only when the buffer goes out. */
	if (fflush(w->out))
		ok = false;
	return ok && !ferror(w->out) ? 0 : -1;
}
