/* A growable, NULL-terminated vector of owned strings. */
#include "strvec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int push_owned(struct strvec *sv, char *s)
{
	if (!s)
		return -1;
	if (sv->n + 2 > sv->alloc) {
		size_t alloc = sv->alloc ? 2 * sv->alloc : 8;
		const char **v = realloc(sv->v, alloc * sizeof(*v));

		if (!v) {
			free(s);
			errno = ENOMEM;
			return -1;
		}
		sv->v = v;
		sv->alloc = alloc;
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
	return 0;
}

int strvec_push(struct strvec *sv, const char *s)
{
	return push_owned(sv, strdup(s));
}

int strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return push_owned(sv, n < 0 ? NULL : s);
}

void strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free((char *)sv->v[i]);
	free(sv->v);
	*sv = (struct strvec)STRVEC_INIT;
}
