/* A run's stats.json and meta.json: the fast stats.json reader checked against jansson (it
 * promises never to accept what jansson rejects and to give jansson's values), the whole
 * reader, and both files read from a run directory as compare reads them.
 * Corpus: tests/fuzz/corpus/run_read (stats.json and meta.json files of real runs). */
#include "fuzz.h"
#include "../../store/run_read.h"

#include <errno.h>

static void mismatch(const char *what, const char *name)
{
	fprintf(stderr, "fast stats.json reader disagrees with jansson: %s '%s'\n", what,
		name ? name : "");
	abort();
}

/* Every value the fast path gave must be jansson's, the later one for a repeated name. */
static void check_fast(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct store_stat *v = NULL;
	json_error_t e;
	json_t *tree;
	long n;

	if (!text)
		fuzz_die("malloc");
	memcpy(text, data, size);
	text[size] = '\0';
	n = store_stats_parse_fast(text, size, &v);
	if (n < 0) {
		free(text);
		return;
	}
	tree = json_loadb((const char *)data, size, 0, &e);
	if (!tree || !json_is_object(tree))
		mismatch("accepted text jansson refuses:", e.text);
	for (long i = 0; i < n; i++) {
		json_t *x = json_object_get(tree, v[i].name);
		double want;
		bool later = false;

		if (strlen(v[i].name) != v[i].len)
			mismatch("a name's length is wrong:", v[i].name);
		if (!json_is_number(x))
			mismatch("a stat jansson has not as a number:", v[i].name);
		for (long j = i + 1; j < n && !later; j++)
			later = !strcmp(v[j].name, v[i].name);
		want = json_number_value(x);
		if (!later && memcmp(&want, &v[i].value, sizeof(want)))
			mismatch("a value differs:", v[i].name);
	}
	free(v);
	json_decref(tree);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_scratch();
	struct store_stats s;
	char why[512];
	json_t *meta;

	check_fast(data, size);

	if (fuzz_write(dir, STORE_STATS_FILE, data, size) ||
	    fuzz_write(dir, STORE_META_FILE, data, size))
		fuzz_die("writing the run's files");
	if (store_read_stats(dir, &s, why, sizeof(why)) == 0) {
		for (size_t i = 0; i < s.n; i++)
			if (strlen(s.v[i].name) != s.v[i].len)
				mismatch("a name's length is wrong:", s.v[i].name);
		store_stats_free(&s);
	}
	meta = store_read_meta(dir, why, sizeof(why));
	json_decref(meta);
	return 0;
}
