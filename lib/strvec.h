/* A growable, NULL-terminated vector of strings it owns (git's strvec is the model): an argv
 * built without counting its words first, or a list of option values.
 *
 *	struct strvec argv = STRVEC_INIT;
 *
 *	if (strvec_push(&argv, "ssh") || strvec_pushf(&argv, "-p%u", port))
 *		goto oom;
 *	child.argv = argv.v;
 *	...
 *	strvec_clear(&argv);
 *
 * v is NULL until the first push, then always NULL-terminated (v[n] == NULL). */
#ifndef SCALEBENCH_STRVEC_H
#define SCALEBENCH_STRVEC_H

#include <stddef.h>

struct strvec {
	const char **v;
	size_t n, alloc;
};
#define STRVEC_INIT {0}

/* Append a copy of s: 0, or -1 (out of memory, errno ENOMEM) with v unchanged. */
int strvec_push(struct strvec *sv, const char *s);
/* Append a printf-formatted string: 0, or -1 as strvec_push. */
int strvec_pushf(struct strvec *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Free every string and the vector; sv is empty again (STRVEC_INIT). */
void strvec_clear(struct strvec *sv);

#endif
