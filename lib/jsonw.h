/* A streaming JSON writer: each value goes to the stream as it comes, escaped and in order.
 * For documents too large to build as a jansson tree first: compare --json writes thousands
 * of stats, and building, dumping and freeing the tree cost more than the statistics.
 *
 * Strings are escaped as JSON requires; bytes that are not UTF-8 become U+FFFD, so any name
 * read from a file makes a valid document.  Numbers that are not finite become null (JSON has
 * no NaN or infinity).  Containers nested up to pretty_depth deep (the outermost is depth 1)
 * put each member on its own line, indented one space per level; deeper ones stay on one
 * line, as {"a": 1, "b": [2, 3]}.  pretty_depth 0 writes one line.
 *
 * Misuse (a key outside an object, a value in an object without its key, closing what is not
 * open, a second top-level value) is not written and fails the document at jsonw_finish. */
#ifndef SCALEBENCH_JSONW_H
#define SCALEBENCH_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct jsonw_frame {
	bool object, nonempty;
};

struct jsonw {
	FILE *out;
	unsigned pretty_depth;
	struct jsonw_frame *stack; /* the open containers, innermost last */
	size_t depth, cap;
	bool after_key, done, failed;
};

void jsonw_init(struct jsonw *w, FILE *out, unsigned pretty_depth);
void jsonw_begin_object(struct jsonw *w);
void jsonw_end_object(struct jsonw *w);
void jsonw_begin_array(struct jsonw *w);
void jsonw_end_array(struct jsonw *w);
void jsonw_key(struct jsonw *w, const char *key);
void jsonw_string(struct jsonw *w, const char *s);
void jsonw_double(struct jsonw *w, double v); /* 10 significant digits */
void jsonw_uint(struct jsonw *w, unsigned long long v);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);
/* key and its string value, or null when v is NULL. */
void jsonw_key_string_or_null(struct jsonw *w, const char *key, const char *v);

/* Ends the document with a newline and frees the writer's memory.  0 when one complete value
 * was written; -1 after misuse, running out of memory, or a write error on the stream. */
int jsonw_finish(struct jsonw *w);

#endif
