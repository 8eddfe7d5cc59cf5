/* Allocation that succeeds or ends the process: one out-of-memory policy for process-level
 * code (xalloc.h says who may call it). */
#include "xalloc.h"
#include "errors.h"
#include "exit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void xalloc_die(void)
{
	sb_error("out of memory");
	exit(SB_EXIT_ERROR);
}

/* malloc(0) and realloc(p, 0) may answer NULL, which is not a failure: a byte is asked for
 * instead, so that NULL always is one. */
void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		xalloc_die();
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = nmemb && size ? calloc(nmemb, size) : calloc(1, 1);

	if (!p)
		xalloc_die();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		xalloc_die();
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		xalloc_die();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		xalloc_die();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		xalloc_die();
	return s;
}
