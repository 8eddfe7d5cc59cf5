/* As will-it-scale: one mutex in the program's data, not in shared memory.  Thread-mode
 * copies all take the same mutex (contended); each process-mode copy has its own copy of
 * it after fork (uncontended), which is will-it-scale's process/thread contrast. */
#include "testcase.h"

#include <errno.h>
#include <pthread.h>

static pthread_mutex_t pthread_mutex1_mutex = PTHREAD_MUTEX_INITIALIZER;

static int pthread_mutex1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	int err;

	while (!(err = pthread_mutex_lock(&pthread_mutex1_mutex)) &&
	       !(err = pthread_mutex_unlock(&pthread_mutex1_mutex)))
		(*iterations)++;
	errno = err;
	return tc_error(copy, "pthread_mutex_lock/unlock: %m");
}

const struct testcase tc_pthread_mutex1 = {
    .name = "pthread_mutex1",
    .description = "Contended pthread mutex (one per process: shared by threads only)",
    .suite = "will-it-scale",
    .op = "lock+unlock",
    .run = pthread_mutex1_run,
};
