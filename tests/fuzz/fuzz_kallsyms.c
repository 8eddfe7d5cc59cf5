/* Kernel symbols: ksyms_load over a kallsyms text, lookups around every symbol it kept, and
 * symbol_strip_suffix over each line with buffers of every small size.
 * Corpus: tests/fuzz/corpus/kallsyms (an excerpt of this machine's, tests/fixtures/profile). */
#include "fuzz.h"
#include "../../monitors/symbols.h"

static void check_lookup(const struct ksyms *k)
{
	for (size_t i = 0; i < k->n; i++) {
		if (i && k->addr[i - 1] > k->addr[i]) {
			fprintf(stderr, "ksyms not sorted at %zu\n", i);
			abort();
		}
		if (!k->zeroed && !ksyms_lookup(k, k->addr[i])) {
			fprintf(stderr, "ksyms_lookup misses symbol %zu (%s)\n", i, k->name[i]);
			abort();
		}
		ksyms_lookup(k, k->addr[i] - 1);
		ksyms_lookup(k, k->addr[i] + 1);
	}
	ksyms_lookup(k, 0);
	ksyms_lookup(k, UINT64_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksyms k;
	char err[512], name[64], *text;

	if (ksyms_load(fuzz_input_file(data, size), &k, err, sizeof(err)) == 0) {
		check_lookup(&k);
		ksyms_free(&k);
	} else {
		fuzz_check_opened(err);
	}

	text = strndup((const char *)data, size < 256 ? size : 256);
	if (!text)
		fuzz_die("strndup");
	for (size_t len = 0; len <= sizeof(name); len++) {
		symbol_strip_suffix(text, name, len);
		if (len && strlen(name) >= len)
			abort();
	}
	free(text);
	return 0;
}
