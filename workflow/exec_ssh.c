/* The ssh executor: `scalebench run --target URL`, which runs each run on the target (the
 * plug-ins sent along) and stores it here; a run whose connection was lost is not stored. */
#include "executor.h"
#include "../lib/strvec.h"

static int ssh_args(const struct executor *e, const struct exec_request *rq,
		     struct strvec *argv)
{
	(void)rq;
	const struct exec_settings *s = &e->set;
	int rc = strvec_pushf(argv, "--target=%s", s->target);

	if (s->target_bin)
		rc |= strvec_pushf(argv, "--target-bin=%s", s->target_bin);
	for (size_t i = 0; i < s->n_ssh_options; i++)
		rc |= strvec_pushf(argv, "--ssh-option=%s", s->ssh_options[i]);
	return rc ? -1 : 0;
}

const struct executor_ops exec_ssh_ops = {
    .name = "run --target", .command = "run", .args = ssh_args, .may_lose = true};
