/* pthread_mutex1 plus a global counter bumped under the mutex: in thread mode the
 * counter's cache line moves between CPUs with the lock.  As in will-it-scale, mutex and
 * counter are program data, so each process-mode copy has its own (see pthread_mutex1.c). */
#include "testcase.h"

#include <errno.h>
#include <pthread.h>

static pthread_mutex_t pthread_mutex3_mutex = PTHREAD_MUTEX_INITIALIZER;
/* External linkage: a static that is only written could be optimised away. */
unsigned long pthread_mutex3_counter;

static int pthread_mutex3_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	int err;

	for (;;) {
		err = pthread_mutex_lock(&pthread_mutex3_mutex);
		if (err)
			break;
		pthread_mutex3_counter++;
		err = pthread_mutex_unlock(&pthread_mutex3_mutex);
		if (err)
			break;
		(*iterations)++;
	}
	errno = err;
	return tc_error(copy, "pthread_mutex_lock/unlock: %m");
}

const struct testcase tc_pthread_mutex3 = {
    .name = "pthread_mutex3",
    .description = "Contended pthread mutex with global update",
    .suite = "will-it-scale",
    .op = "lock+update+unlock",
    .run = pthread_mutex3_run,
};
