/* A growable string (git's strbuf is the model), for text built in pieces: a remote command,
 * a mail header, an expanded job file.  Out of memory is sticky: the first add that cannot
 * grow the buffer sets oom, and every later add does nothing and fails, so a caller builds the
 * whole string and checks once.
 *
 *	struct strbuf sb = STRBUF_INIT;
 *
 *	strbuf_addstr(&sb, "cd ");
 *	strbuf_addf(&sb, "%s && exec %s", dir, bin);
 *	if (sb.oom)
 *		return oom();
 *	use(sb.buf);
 *	strbuf_release(&sb);
 *
 * buf is NULL until the first add, then always NUL-terminated (buf[len] == '\0'). */
#ifndef SCALEBENCH_STRBUF_H
#define SCALEBENCH_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len, alloc;
	bool oom;
};
#define STRBUF_INIT {0}

/* Append n bytes of data: 0, or -1 when out of memory now or before (oom). */
int strbuf_add(struct strbuf *sb, const void *data, size_t n);
int strbuf_addstr(struct strbuf *sb, const char *s);
int strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* buf, or "" when nothing was added. */
const char *strbuf_str(const struct strbuf *sb);
/* Free the text; sb is empty again (STRBUF_INIT). */
void strbuf_release(struct strbuf *sb);

#endif
