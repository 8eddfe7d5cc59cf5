/* Job files: the whole load of a job file's bytes (YAML documents, merge, expansion, each
 * atomic job checked) and the YAML written back for each atomic job, as `run` and `split` do.
 * What a loaded job promises (job.h, README "Job files") is checked: at most 10,000 atomic
 * jobs in all, unique names, path_params in the results path's alphabet, nr_task 1..4096,
 * durations finite and within 30 days, runtime above 0.
 * Corpus: tests/fuzz/corpus/job (the jobs/ and tests/fixtures/jobs files). */
#include "fuzz.h"
#include "../../core/core.h"
#include "../../lib/num.h"
#include "../../runner/job.h"

#include <math.h>

static void broken(const struct atomic_job *a, const char *what)
{
	fprintf(stderr, "job_load kept atomic job '%s' with %s\n", a->name ? a->name : "", what);
	abort();
}

static void check_atomic(const struct job_file *job, size_t i, json_t *seen)
{
	const struct atomic_job *a = &job->atomic[i];

	if (!a->name || !*a->name || !a->path_params || !a->tree || !a->test || !*a->test)
		broken(a, "a missing name, path_params, tree or test");
	if (strspn(a->path_params, "-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789+=:.%_") != strlen(a->path_params))
		broken(a, "path_params outside [-a-zA-Z0-9+=:.%_]");
	if (a->mode != TC_MODE_PROCESS && a->mode != TC_MODE_THREAD)
		broken(a, "a mode that is neither process nor thread");
	if (a->nr_task < 1 || a->nr_task > CORE_MAX_COPIES)
		broken(a, "nr_task outside 1..CORE_MAX_COPIES");
	if (!(a->runtime_s >= NUM_DURATION_MIN && a->runtime_s <= NUM_DURATION_MAX))
		broken(a, "a runtime outside (0, 30 days]");
	if (!(a->warmup_s >= 0 && a->warmup_s <= NUM_DURATION_MAX))
		broken(a, "a warmup outside [0, 30 days]");
	if (!(a->interval_s >= 0.05 && a->interval_s <= CORE_MAX_INTERVAL_S))
		broken(a, "an interval outside [0.05 s, CORE_MAX_INTERVAL_S]");
	if (!(a->runtime_s >= a->interval_s))
		broken(a, "a runtime shorter than its sampling interval");
	if (json_object_get(seen, a->name))
		broken(a, "the name of an earlier atomic job");
	json_object_set_new(seen, a->name, json_null());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job_file job;
	char err[1024];
	json_t *seen;

	/* job_load reads a path, as every caller has one: the input is handed over as a file. */
	if (job_load(fuzz_input_file(data, size), 8, &job, err, sizeof(err))) {
		fuzz_check_opened(err);
		return 0;
	}
	/* The cap holds for the whole file, not per document (issue 13). */
	if (job.n_atomic < 1 || job.n_atomic > 10000) {
		fprintf(stderr, "job_load gave %zu atomic jobs\n", job.n_atomic);
		abort();
	}
	seen = json_object();
	for (size_t i = 0; i < job.n_atomic; i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);

		check_atomic(&job, i, seen);
		if (!out)
			fuzz_die("open_memstream");
		job_write_yaml(job.atomic[i].tree, out);
		fclose(out);
		free(text);
	}
	json_decref(seen);
	job_free(&job);
	return 0;
}
