/* Memory for process-level code only: builtin/, workflow/ and main.c, which run inside the
 * scalebench command and whose callers, out of memory, could only say so and exit.  Each
 * function returns what it was asked for or does not return: it says "out of memory" through
 * sb_error (the command's prefix added) and exits SB_EXIT_ERROR, the status of any error.  (A
 * size of 0 gets a valid pointer, never a NULL to test.)
 *
 * The library layers (lib/ itself, store/, analyze/, runner/, monitors/, core/, testcases/)
 * never call them: they return the error, and the process that called them decides.  When
 * such a call fails for want of memory (a strvec_push, a strbuf's oom, a library's
 * allocation), process-level code ends as these do: xalloc_die(). */
#ifndef SCALEBENCH_XALLOC_H
#define SCALEBENCH_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
/* Zeroed, nmemb * size checked for overflow. */
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* At most n bytes of s, terminated. */
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "out of memory", and exit SB_EXIT_ERROR. */
_Noreturn void xalloc_die(void);

#endif
