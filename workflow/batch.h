/* k runs of atomic job J at commit C: here, on a --target or as a Slurm job array, in batches
 * of --runs-per-boot runs (one boot each, boot.h), until C has as many runs with the stat as
 * asked; runs already in the results root count. */
#ifndef SCALEBENCH_WORKFLOW_BATCH_H
#define SCALEBENCH_WORKFLOW_BATCH_H

#include <stddef.h>

struct bisect;

/* Runs are added in batches of this many: one boot each. */
unsigned batch_size(const struct bisect *b);
/* Make sure sha has at least want runs with the stat: the first want of them in vals (a
 * resumed bisection sees what the first saw at this point; free it).  0, 1 skip (sha cannot
 * be prepared or booted), -1 error (said), SB_EXIT_INTERRUPTED. */
int batch_ensure_runs(struct bisect *b, const char *sha, unsigned want, double **vals, size_t *n);

#endif
