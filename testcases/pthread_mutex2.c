#include "testcase.h"

#include <errno.h>
#include <pthread.h>

static int pthread_mutex2_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	/* Each copy's own mutex, on its own stack: never contended, in either mode. */
	pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
	int err;

	while (!(err = pthread_mutex_lock(&mutex)) && !(err = pthread_mutex_unlock(&mutex)))
		(*iterations)++;
	errno = err;
	return tc_error(copy, "pthread_mutex_lock/unlock: %m");
}

const struct testcase tc_pthread_mutex2 = {
    .name = "pthread_mutex2",
    .description = "Uncontended pthread mutex (one per copy)",
    .suite = "will-it-scale",
    .op = "lock+unlock",
    .run = pthread_mutex2_run,
};
