#include "testcase.h"

#include <errno.h>
#include <pthread.h>

static void *empty_thread(void *arg)
{
	return arg;
}

static int thread1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	for (;;) {
		pthread_t t;
		int err = pthread_create(&t, NULL, empty_thread, NULL);

		if (err) {
			errno = err;
			return tc_error(copy, "pthread_create: %m");
		}
		err = pthread_join(t, NULL);
		if (err) {
			errno = err;
			return tc_error(copy, "pthread_join: %m");
		}
		(*iterations)++;
	}
}

const struct testcase tc_thread1 = {
    .name = "thread1",
    .description = "pthread_create + join of an empty thread",
    .suite = "will-it-scale",
    .op = "thread",
    .run = thread1_run,
};
