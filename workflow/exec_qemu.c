/* The QEMU executor: `scalebench run --kernel CACHE/<commit>/bzImage`, a fresh guest booting the
 * commit's kernel for each batch of runs (runner/vm.h): a bisection's reboot is a new VM.  The
 * runs come back over the guest's ssh as a target's do, so a guest that dies mid-run loses its
 * run in progress (ask again); one that never comes up (run's exit 3) is r->no_boot, its console
 * kept in console_dir/<commit>.console. */
#include "executor.h"
#include "../lib/strvec.h"

#include <stdio.h>

static int qemu_args(const struct executor *e, const struct exec_request *rq,
		     struct strvec *argv)
{
	const struct exec_settings *s = &e->set;
	int rc = strvec_pushf(argv, "--kernel=%s/%s/bzImage", s->kernel_cache, rq->commit);

	if (s->console_dir)
		rc |= strvec_pushf(argv, "--vm-console=%s/%s.console", s->console_dir, rq->commit);
	for (size_t i = 0; i < s->n_vm_args; i++)
		rc |= strvec_push(argv, s->vm_args[i]);
	return rc ? -1 : 0;
}

static void qemu_finish(const struct executor *e, const char *out, struct exec_result *r)
{
	(void)out;
	if (r->exit != SB_EXIT_NO_BOOT)
		return;
	r->no_boot = true;
	snprintf(r->why, sizeof(r->why), "the guest did not come up%s%s%s",
		 e->set.console_dir ? " (its console: " : "",
		 e->set.console_dir ? e->set.console_dir : "", e->set.console_dir ? ")" : "");
}

const struct executor_ops exec_qemu_ops = {.name = "run --kernel",
					   .command = "run",
					   .args = qemu_args,
					   .finish = qemu_finish,
					   .may_lose = true};
