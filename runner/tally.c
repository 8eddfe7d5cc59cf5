#include "tally.h"
#include "../store/sweep.h"
#include "../testcases/registry.h"

#include <stdio.h>
#include <stdlib.h>

/* One sweep's rows, its smallest task count with successful runs the base of linear
 * scaling. */
static void print_sweep(const struct job_file *job, const struct job_tally *t,
			const struct sweep *s)
{
	const struct job_tally *base = NULL;

	for (size_t i = 0; i < s->n; i++) {
		const struct atomic_job *x = &job->atomic[s->items[i].index];
		const struct job_tally *tx = &t[s->items[i].index];

		if (!tx->ok) {
			printf("%-14s %-8s %7u %5u %15s\n", x->test, tc_mode_name(x->mode), x->nr_task,
			       tx->ok + tx->failed, tx->failed ? "failed" : "-");
			continue;
		}
		if (!base)
			base = tx;
		double linear = base->per_copy_ops / base->ok * x->nr_task;
		double pct = linear > 0 ? 100.0 * (tx->total_ops / tx->ok) / linear : 0.0;

		printf("%-14s %-8s %7u %5u %15.0f %14.0f %11.1f%%\n", x->test, tc_mode_name(x->mode),
		       x->nr_task, tx->ok + tx->failed, tx->per_copy_ops / tx->ok,
		       tx->total_ops / tx->ok, pct);
		/* More than linear is not a kernel scaling well: the base was slowed (a busy
		 * machine) or the measure is broken.  A line of its own: scripts read the rows. */
		if (pct >= 100.5)
			printf("  note: %.1f%% is above linear: suspect (a busy machine at the "
			       "smallest count, or a broken measure)\n",
			       pct);
	}
}

void tally_print(const struct job_file *job, const struct job_tally *t)
{
	struct sweep_item *items = calloc(job->n_atomic ? job->n_atomic : 1, sizeof(*items));
	struct sweep *sweeps = NULL;
	ssize_t ns;

	if (!items)
		return;
	size_t n = 0;

	for (size_t a = 0; a < job->n_atomic; a++)
		if (!job->atomic[a].sweep)
			items[n++] = (struct sweep_item){.test = job->atomic[a].test,
							 .mode = tc_mode_name(job->atomic[a].mode),
							 .nr_task = job->atomic[a].nr_task,
							 .index = a};
	ns = sweep_group(items, n, &sweeps);
	free(items);
	if (ns < 0)
		return;
	printf("\n%-14s %-8s %7s %5s %15s %14s %12s\n", "test", "mode", "nr_task", "runs",
	       "ops/s per copy", "total ops/s", "scalability");
	for (ssize_t i = 0; i < ns; i++)
		print_sweep(job, t, &sweeps[i]);
	/* An LKP sweep is one atomic job: its row gives LKP's own figures (runner/lkp_sweep.h). */
	for (size_t a = 0; a < job->n_atomic; a++) {
		const struct job_tally *x = &t[a];

		if (!job->atomic[a].sweep)
			continue;
		if (!x->ok) {
			printf("%-14s %-8s %7s %5u %15s\n", job->atomic[a].test, "both", "sweep",
			       x->failed, x->failed ? "failed" : "-");
			continue;
		}
		printf("%-14s %-8s %7s %5u %15.0f %14.0f", job->atomic[a].test, "both", "sweep",
		       x->ok + x->failed, x->per_copy_ops / x->ok, x->total_ops / x->ok);
		if (x->n_scalability)
			printf(" %11.1f%%", 100.0 * x->scalability / x->n_scalability);
		printf("\n");
	}
	sweep_free(sweeps, (size_t)ns);
}
