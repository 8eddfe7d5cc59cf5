/* Job files: the whole load of a job file's bytes (YAML documents, merge, expansion, each
 * atomic job checked) and the YAML written back for each atomic job, as `run` and `split` do.
 * Corpus: tests/fuzz/corpus/job (the jobs/ and tests/fixtures/jobs files). */
#include "fuzz.h"
#include "../../runner/job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job_file job;
	char err[1024];

	/* job_load reads a path, as every caller has one: the input is handed over as a file. */
	if (job_load(fuzz_input_file(data, size), 8, &job, err, sizeof(err)))
		return 0;
	for (size_t i = 0; i < job.n_atomic; i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);

		if (!out)
			fuzz_die("open_memstream");
		job_write_yaml(job.atomic[i].tree, out);
		fclose(out);
		free(text);
	}
	job_free(&job);
	return 0;
}
