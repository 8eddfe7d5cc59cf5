/* The local executor: `scalebench run` here; every run it makes is stored (a failed run is
 * stored as failed), so nothing is lost on the way. */
#include "executor.h"

const struct executor_ops exec_local_ops = {.name = "run", .command = "run"};
