/* A growable string with a sticky out-of-memory flag. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(struct strbuf *sb, size_t more)
{
	size_t alloc = sb->alloc ? sb->alloc : 64;
	char *p;

	if (sb->oom || more > (size_t)-1 / 2 - sb->len - 1) {
		sb->oom = true;
		return -1;
	}
	if (sb->len + more + 1 <= sb->alloc)
		return 0;
	while (alloc < sb->len + more + 1)
		alloc *= 2;
	p = realloc(sb->buf, alloc);
	if (!p) {
		sb->oom = true;
		return -1;
	}
	sb->buf = p;
	sb->alloc = alloc;
	return 0;
}

int strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	if (grow(sb, n))
		return -1;
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
	return 0;
}

int strbuf_addstr(struct strbuf *sb, const char *s)
{
	return strbuf_add(sb, s, strlen(s));
}

int strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || grow(sb, (size_t)n)) {
		sb->oom = true;
		return -1;
	}
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
	return 0;
}

const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	*sb = (struct strbuf)STRBUF_INIT;
}
