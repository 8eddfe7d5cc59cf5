/* perf-profile's stats: a profile reduced to the robot's perf-profile.{self,children,
 * calltrace}.<event>.* percentages. */
#ifndef SCALEBENCH_PROFILE_REDUCE_H
#define SCALEBENCH_PROFILE_REDUCE_H

#include "profile.h"

#include <jansson.h>

/* Stats under this percentage of all samples are left out, as the robot does. */
#define PROFILE_MIN_PCT 0.05
/* How many frames a calltrace stat names, from its symbol outward. */
#define PROFILE_CALLTRACE_DEPTH 5

/* Add perf-profile.self.<event>.<sym> (leaf), .children.<event>.<sym> (anywhere in the chain,
 * once per sample) and .calltrace.<event>.<f>.<caller>... (each frame with up to
 * PROFILE_CALLTRACE_DEPTH - 1 callers, once per sample) as percentages of all samples, those
 * at least min_pct.  Returns 0, or -1 (out of memory). */
int profile_reduce(const struct profile *p, const char *event, double min_pct, json_t *stats);

#endif
