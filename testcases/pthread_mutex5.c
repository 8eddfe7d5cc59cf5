/* pthread_mutex1 plus an update of a thread-local variable under the mutex: the update
 * goes through TLS addressing but touches only the copy's own data. */
#include "testcase.h"

#include <errno.h>
#include <pthread.h>

static pthread_mutex_t pthread_mutex5_mutex = PTHREAD_MUTEX_INITIALIZER;
/* External linkage: a static that is only written could be optimised away. */
_Thread_local unsigned long pthread_mutex5_counter;

static int pthread_mutex5_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	int err;

	for (;;) {
		err = pthread_mutex_lock(&pthread_mutex5_mutex);
		if (err)
			break;
		pthread_mutex5_counter++;
		err = pthread_mutex_unlock(&pthread_mutex5_mutex);
		if (err)
			break;
		(*iterations)++;
	}
	errno = err;
	return tc_error(copy, "pthread_mutex_lock/unlock: %m");
}

const struct testcase tc_pthread_mutex5 = {
    .name = "pthread_mutex5",
    .description = "Contended pthread mutex with TLS update",
    .suite = "will-it-scale",
    .op = "lock+update+unlock",
    .run = pthread_mutex5_run,
};
