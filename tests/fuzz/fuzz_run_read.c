/* A run's stats.json and meta.json: the fast stats.json reader checked against jansson (it
 * promises never to accept what jansson rejects and to give jansson's values), and both files
 * read from a run directory as compare reads them, with the answers of the text itself.
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
		if (!later && v[i].integer != json_is_integer(x))
			mismatch("a value's type (integer or real) differs:", v[i].name);
	}
	free(v);
	json_decref(tree);
	free(text);
}

/* stats.json read from the run directory: the answers of the text itself. */
static void check_stats_file(const char *dir, const uint8_t *data, size_t size)
{
	struct store_stats s, t;
	char why[512], *text = malloc(size + 1);
	int from_file = store_read_stats(dir, &s, why, sizeof(why)), from_text;

	if (from_file)
		fuzz_check_opened(why);
	if (!text)
		fuzz_die("malloc");
	memcpy(text, data, size);
	text[size] = '\0';
	from_text = store_parse_stats(text, size, &t, why, sizeof(why));
	if (from_file != from_text)
		mismatch("store_read_stats and store_parse_stats disagree", NULL);
	if (!from_file) {
		if (s.n != t.n)
			mismatch("store_read_stats and store_parse_stats count differently", NULL);
		for (size_t i = 0; i < s.n; i++)
			if (strlen(s.v[i].name) != s.v[i].len)
				mismatch("a name's length is wrong:", s.v[i].name);
		store_stats_free(&s);
		store_stats_free(&t);
	}
	free(text);
}

/* meta.json: an object exactly when jansson reads the text as one. */
static void check_meta_file(const char *dir, const uint8_t *data, size_t size)
{
	char why[PATH_MAX + 512], unreadable[PATH_MAX + 64];
	json_t *want = json_loadb((const char *)data, size, 0, NULL), *meta;

	snprintf(unreadable, sizeof(unreadable), "%s/" STORE_META_FILE ": cannot read: ", dir);
	meta = store_read_meta(dir, why, sizeof(why));
	if (!meta && !strncmp(why, unreadable, strlen(unreadable)))
		fuzz_check_opened("cannot read meta.json");
	if (!meta != !json_is_object(want))
		mismatch("store_read_meta and jansson disagree on an object", NULL);
	json_decref(meta);
	json_decref(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_scratch();

	check_fast(data, size);
	if (fuzz_write(dir, STORE_STATS_FILE, data, size) ||
	    fuzz_write(dir, STORE_META_FILE, data, size))
		fuzz_die("writing the run's files");
	check_stats_file(dir, data, size);
	check_meta_file(dir, data, size);
	return 0;
}
