/* As will-it-scale: each copy has its own semaphore (process-private, on the copy's stack),
 * so the op is the uncontended fast path of sem_wait + sem_post; nothing is shared. */
#include "testcase.h"

#include <semaphore.h>

static int posix_semaphore1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	sem_t sem;

	if (sem_init(&sem, 0, 1))
		return tc_error(copy, "sem_init: %m");
	while (sem_wait(&sem) == 0 && sem_post(&sem) == 0)
		(*iterations)++;
	return tc_error(copy, "sem_wait/sem_post: %m");
}

const struct testcase tc_posix_semaphore1 = {
    .name = "posix_semaphore1",
    .description = "POSIX semaphores: sem_wait + sem_post of a per-copy semaphore",
    .suite = "will-it-scale",
    .op = "sem_wait+sem_post",
    .run = posix_semaphore1_run,
};
