/* Slurm's words and the job script's records: slurm_parse_done, _squeue, _scontrol and _sacct
 * over one input, each report checked, and slurm_tail_lines over it.
 * Corpus: tests/fuzz/corpus/slurm (output captured from the one-node test cluster, records). */
#include "fuzz.h"
#include "../../runner/slurm_parse.h"

typedef int (*parse_fn)(const char *, struct slurm_reports *, char *, size_t);

static void check_reports(const struct slurm_reports *r)
{
	for (size_t i = 0; i < r->n; i++) {
		if (!r->v[i].state || !*r->v[i].state || r->v[i].task < -1 ||
		    r->v[i].task_last < r->v[i].task) {
			fprintf(stderr, "report %zu: no state or a bad task range\n", i);
			abort();
		}
		if (i < 16 && slurm_reports_find(r, r->v[i].task) == NULL)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const parse_fn parsers[] = {slurm_parse_squeue, slurm_parse_scontrol,
					   slurm_parse_sacct};
	char *text = strndup((const char *)data, size), err[256];
	struct slurm_done d;
	const char *tail;

	if (!text)
		fuzz_die("strndup");
	if (slurm_parse_done(text, &d, err, sizeof(err)) == 0) {
		if (!d.node || d.exit_code < 0 || d.exit_code > 255 || d.end < d.start)
			abort();
		slurm_done_free(&d);
	}
	for (size_t i = 0; i < sizeof(parsers) / sizeof(parsers[0]); i++) {
		struct slurm_reports r;

		if (parsers[i](text, &r, err, sizeof(err)) == 0) {
			check_reports(&r);
			slurm_reports_free(&r);
		} else if (!err[0]) {
			abort();
		}
	}
	tail = slurm_tail_lines(text, strlen(text), 3);
	if (tail < text || tail > text + strlen(text))
		abort();
	free(text);
	return 0;
}
