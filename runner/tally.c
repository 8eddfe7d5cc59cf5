#include "tally.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tally_print(const struct job_file *job, const struct job_tally *t)
{
	bool *shown = calloc(job->n_atomic, sizeof(*shown));

	if (!shown)
		return;
	printf("\n%-14s %-8s %7s %5s %15s %14s %12s\n", "test", "mode", "nr_task", "runs",
	       "ops/s per copy", "total ops/s", "scalability");
	for (size_t a = 0; a < job->n_atomic; a++) {
		const struct atomic_job *base = NULL;

		if (shown[a])
			continue;
		/* This group, smallest task count first. */
		for (;;) {
			size_t best = job->n_atomic;

			for (size_t b = 0; b < job->n_atomic; b++) {
				const struct atomic_job *x = &job->atomic[b];

				if (shown[b] || strcmp(x->test, job->atomic[a].test) ||
				    x->mode != job->atomic[a].mode)
					continue;
				if (best == job->n_atomic || x->nr_task < job->atomic[best].nr_task)
					best = b;
			}
			if (best == job->n_atomic)
				break;
			shown[best] = true;
			const struct atomic_job *x = &job->atomic[best];
			const struct job_tally *tx = &t[best];

			if (!tx->ok) {
				printf("%-14s %-8s %7u %5u %15s\n", x->test,
				       x->mode == TC_MODE_PROCESS ? "process" : "thread",
				       x->nr_task, tx->ok + tx->failed,
				       tx->failed ? "failed" : "-");
				continue;
			}
			if (!base)
				base = x;
			size_t bi = (size_t)(base - job->atomic);
			double linear = t[bi].per_copy_ops / t[bi].ok * x->nr_task;
			printf("%-14s %-8s %7u %5u %15.0f %14.0f %11.1f%%\n", x->test,
			       x->mode == TC_MODE_PROCESS ? "process" : "thread", x->nr_task,
			       tx->ok + tx->failed, tx->per_copy_ops / tx->ok,
			       tx->total_ops / tx->ok,
			       linear > 0 ? 100.0 * (tx->total_ops / tx->ok) / linear : 0.0);
		}
	}
	free(shown);
}
