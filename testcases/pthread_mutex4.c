/* pthread_mutex1 plus an update of per-copy data under the mutex: only the lock's cache
 * line is shared.  will-it-scale keeps the value on the copy's stack; here it gets a cache
 * line of its own from the heap, which is the same thing without relying on stack layout. */
#include "testcase.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#define CACHE_LINE 64

static pthread_mutex_t pthread_mutex4_mutex = PTHREAD_MUTEX_INITIALIZER;

static int pthread_mutex4_prepare(struct tc_copy *copy)
{
	unsigned long *val = aligned_alloc(CACHE_LINE, CACHE_LINE);

	if (!val)
		return tc_error(copy, "out of memory");
	*val = 0;
	copy->priv = val;
	return 0;
}

static int pthread_mutex4_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	unsigned long *val = copy->priv;
	int err;

	for (;;) {
		err = pthread_mutex_lock(&pthread_mutex4_mutex);
		if (err)
			break;
		(*val)++;
		err = pthread_mutex_unlock(&pthread_mutex4_mutex);
		if (err)
			break;
		(*iterations)++;
	}
	errno = err;
	return tc_error(copy, "pthread_mutex_lock/unlock: %m");
}

const struct testcase tc_pthread_mutex4 = {
    .name = "pthread_mutex4",
    .description = "Contended pthread mutex with local update",
    .suite = "will-it-scale",
    .op = "lock+update+unlock",
    .prepare = pthread_mutex4_prepare,
    .run = pthread_mutex4_run,
};
