/* The closing summary of `scalebench run`: per atomic job, the mean over its successful runs,
 * and the scalability table of the whole job. */
#ifndef SCALEBENCH_TALLY_H
#define SCALEBENCH_TALLY_H

#include "job.h"

struct job_tally {
	unsigned ok, failed;
	double per_copy_ops, total_ops; /* sums over ok runs */
	/* An LKP sweep (atomic_job.sweep): per_copy_ops sums LKP's per_process_ops, total_ops
	 * its workload, and these its scalability where the run had one. */
	double scalability;
	unsigned n_scalability;
};

/* Atomic jobs of one testcase and mode by task count (the sweeps of store/sweep.h), against
 * linear scaling from the smallest count; t[i] is the tally of job->atomic[i]. */
void tally_print(const struct job_file *job, const struct job_tally *t);

#endif
