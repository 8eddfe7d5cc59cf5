/* Two tasks hand one byte back and forth through a pair of pipes, so each hand-off blocks
 * one task and wakes the other.  The helper is a process in process mode and a thread in
 * thread mode, like will-it-scale's new_task().  It is not pinned explicitly: it inherits
 * its copy's affinity (fork and pthread_create both copy the creator's CPU mask), so with
 * the default placement both tasks share one CPU and every hand-off is a context switch. */
#include "testcase.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

struct context_switch1 {
	int to_helper[2]; /* [0] read end, [1] write end */
	int from_helper[2];
};

/* Echo every byte back; returns only when a pipe fails.  In thread mode the helper then
 * closes its write end, so the copy's next read sees EOF and reports it. */
static void echo(struct context_switch1 *cs)
{
	char c;

	while (read(cs->to_helper[0], &c, 1) == 1 && write(cs->from_helper[1], &c, 1) == 1)
		;
}

static void *helper_thread(void *arg)
{
	struct context_switch1 *cs = arg;

	echo(cs);
	close(cs->from_helper[1]);
	return NULL;
}

static int start_helper_process(struct tc_copy *copy, struct context_switch1 *cs)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0)
		return tc_error(copy, "fork of the helper process: %m");
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		close(cs->to_helper[1]);
		close(cs->from_helper[0]);
		echo(cs);
		_exit(1);
	}
	/* Only the helper holds these ends: if it dies, the copy reads EOF or writes EPIPE
	 * (SIGPIPE ignored; process mode, so the disposition is the copy's own). */
	close(cs->to_helper[0]);
	close(cs->from_helper[1]);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static int context_switch1_prepare(struct tc_copy *copy)
{
	struct context_switch1 *cs = malloc(sizeof(*cs));

	if (!cs)
		return tc_error(copy, "out of memory");
	if (pipe(cs->to_helper) || pipe(cs->from_helper))
		return tc_error(copy, "pipe: %m");
	copy->priv = cs;
	if (copy->mode == TC_MODE_PROCESS)
		return start_helper_process(copy, cs);

	pthread_t t;
	int err = pthread_create(&t, NULL, helper_thread, cs);

	if (err) {
		errno = err;
		return tc_error(copy, "pthread_create of the helper thread: %m");
	}
	pthread_detach(t);
	return 0;
}

static int context_switch1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	struct context_switch1 *cs = copy->priv;
	char c = 0;
	ssize_t ret;

	for (;;) {
		ret = write(cs->to_helper[1], &c, 1);
		if (ret != 1)
			break;
		ret = read(cs->from_helper[0], &c, 1);
		if (ret != 1)
			break;
		/* As will-it-scale: a round trip is two context switches, counted as two ops. */
		*iterations += 2;
	}
	if (ret == 0)
		return tc_error(copy, "the helper %s is gone (EOF on its pipe)",
				tc_mode_name(copy->mode));
	return tc_error(copy, "pipe ping-pong with the helper: %m");
}

const struct testcase tc_context_switch1 = {
    .name = "context_switch1",
    .description = "Context switch via pipes: 1-byte ping-pong with a helper task per copy",
    .suite = "will-it-scale",
    .op = "context switch",
    .prepare = context_switch1_prepare,
    .run = context_switch1_run,
};
