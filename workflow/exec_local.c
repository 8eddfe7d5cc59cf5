/* The local executor: `scalebench run` here; every run it makes is stored (a failed run is
 * stored as failed), so nothing is lost on the way. */
#include "executor.h"
#include "../lib/strvec.h"

static int local_args(const struct executor *e, struct strvec *argv)
{
	(void)e;
	return strvec_push(argv, "run");
}

const struct executor_ops exec_local_ops = {.name = "run", .args = local_args};
