/* lib/jsonw: what it writes parses back (jansson) to what was written, strings escaped and
 * made valid UTF-8, the layout by depth, and misuse and write errors reported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/jsonw.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What a writer put in memory, and whether it finished cleanly. */
struct doc {
	char *text;
	size_t len;
	int rc;
	FILE *f;
	struct jsonw w;
};

static void doc_open(struct doc *d, unsigned pretty)
{
	d->text = NULL;
	d->f = open_memstream(&d->text, &d->len);
	assert_non_null(d->f);
	jsonw_init(&d->w, d->f, pretty);
}

static void doc_close(struct doc *d)
{
	d->rc = jsonw_finish(&d->w);
	fclose(d->f);
}

static void test_round_trip(void **state)
{
	struct doc d;
	json_error_t e;
	json_t *j;

	(void)state;
	doc_open(&d, 1);
	jsonw_begin_object(&d.w);
	jsonw_key(&d.w, "n");
	jsonw_uint(&d.w, 9007199254740993ULL); /* exact, where a double is not */
	jsonw_key(&d.w, "x");
	jsonw_double(&d.w, -1.5e-300);
	jsonw_key(&d.w, "nan");
	jsonw_double(&d.w, NAN);
	jsonw_key(&d.w, "inf");
	jsonw_double(&d.w, -INFINITY);
	jsonw_key(&d.w, "list");
	jsonw_begin_array(&d.w);
	jsonw_bool(&d.w, true);
	jsonw_bool(&d.w, false);
	jsonw_null(&d.w);
	jsonw_begin_object(&d.w);
	jsonw_end_object(&d.w);
	jsonw_begin_array(&d.w);
	jsonw_end_array(&d.w);
	jsonw_end_array(&d.w);
	jsonw_end_object(&d.w);
	doc_close(&d);
	assert_int_equal(d.rc, 0);
	j = json_loads(d.text, 0, &e);
	if (!j)
		fail_msg("%s: %s", d.text, e.text);
	assert_true(json_integer_value(json_object_get(j, "n")) == 9007199254740993LL);
	assert_true(fabs(json_real_value(json_object_get(j, "x")) + 1.5e-300) < 1e-309);
	assert_true(json_is_null(json_object_get(j, "nan")));
	assert_true(json_is_null(json_object_get(j, "inf")));
	assert_int_equal(json_array_size(json_object_get(j, "list")), 5);
	assert_true(json_is_true(json_array_get(json_object_get(j, "list"), 0)));
	json_decref(j);
	free(d.text);
}

static void test_strings(void **state)
{
	static const struct {
		const char *in, *decoded;
	} cases[] = {
	    {"plain", "plain"},
	    {"q\"b\\s/", "q\"b\\s/"},
	    {"\b\f\n\r\t\x01\x1f", "\b\f\n\r\t\x01\x1f"},
	    {"numa-meminfo.node1.Inactive(anon)", "numa-meminfo.node1.Inactive(anon)"},
	    {"\xc2\xb1 \xe2\x82\xac \xf0\x9f\x98\x80", "\xc2\xb1 \xe2\x82\xac \xf0\x9f\x98\x80"},
	    /* not UTF-8: a lone continuation, a truncated sequence, an overlong '/', a
	     * surrogate, past U+10FFFF, 0xff */
	    {"a\x80z", "a\xef\xbf\xbdz"},
	    {"a\xe2\x82", "a\xef\xbf\xbd\xef\xbf\xbd"},
	    {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},
	    {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
	    {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
	    {"\xff", "\xef\xbf\xbd"},
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct doc d;
		json_error_t e;
		json_t *j;

		doc_open(&d, 0);
		jsonw_begin_object(&d.w);
		jsonw_key(&d.w, cases[i].in);
		jsonw_string(&d.w, cases[i].in);
		jsonw_end_object(&d.w);
		doc_close(&d);
		assert_int_equal(d.rc, 0);
		j = json_loads(d.text, 0, &e);
		if (!j)
			fail_msg("case %zu: %s: %s", i, d.text, e.text);
		assert_string_equal(json_string_value(json_object_get(j, cases[i].decoded)),
				    cases[i].decoded);
		json_decref(j);
		free(d.text);
	}
}

static void test_layout(void **state)
{
	struct doc d;

	(void)state;
	/* depth 1 and 2 one member a line, depth 3 on one line */
	doc_open(&d, 2);
	jsonw_begin_object(&d.w);
	jsonw_key(&d.w, "a");
	jsonw_begin_object(&d.w);
	jsonw_key(&d.w, "b");
	jsonw_begin_array(&d.w);
	jsonw_uint(&d.w, 1);
	jsonw_begin_object(&d.w);
	jsonw_key(&d.w, "c");
	jsonw_double(&d.w, 0.25);
	jsonw_end_object(&d.w);
	jsonw_end_array(&d.w);
	jsonw_key(&d.w, "e");
	jsonw_begin_array(&d.w);
	jsonw_end_array(&d.w);
	jsonw_end_object(&d.w);
	jsonw_key(&d.w, "f");
	jsonw_string(&d.w, "g");
	jsonw_end_object(&d.w);
	doc_close(&d);
	assert_int_equal(d.rc, 0);
	assert_string_equal(d.text, "{\n \"a\": {\n  \"b\": [1, {\"c\": 0.25}],\n  \"e\": []\n },\n"
				    " \"f\": \"g\"\n}\n");
	free(d.text);

	doc_open(&d, 0);
	jsonw_begin_array(&d.w);
	jsonw_uint(&d.w, 1);
	jsonw_uint(&d.w, 2);
	jsonw_end_array(&d.w);
	doc_close(&d);
	assert_string_equal(d.text, "[1, 2]\n");
	free(d.text);
}

static void test_misuse(void **state)
{
	struct doc d;

	(void)state;
	doc_open(&d, 0); /* a value in an object without its key */
	jsonw_begin_object(&d.w);
	jsonw_uint(&d.w, 1);
	jsonw_end_object(&d.w);
	doc_close(&d);
	assert_int_equal(d.rc, -1);
	free(d.text);

	doc_open(&d, 0); /* a key in an array */
	jsonw_begin_array(&d.w);
	jsonw_key(&d.w, "k");
	jsonw_end_array(&d.w);
	doc_close(&d);
	assert_int_equal(d.rc, -1);
	free(d.text);

	doc_open(&d, 0); /* a key without its value */
	jsonw_begin_object(&d.w);
	jsonw_key(&d.w, "k");
	jsonw_end_object(&d.w);
	doc_close(&d);
	assert_int_equal(d.rc, -1);
	free(d.text);

	doc_open(&d, 0); /* unclosed, mismatched, two top-level values, nothing */
	jsonw_begin_array(&d.w);
	doc_close(&d);
	assert_int_equal(d.rc, -1);
	free(d.text);
	doc_open(&d, 0);
	jsonw_begin_array(&d.w);
	jsonw_end_object(&d.w);
	doc_close(&d);
	assert_int_equal(d.rc, -1);
	free(d.text);
	doc_open(&d, 0);
	jsonw_null(&d.w);
	jsonw_null(&d.w);
	doc_close(&d);
	assert_int_equal(d.rc, -1);
	free(d.text);
	doc_open(&d, 0);
	doc_close(&d);
	assert_int_equal(d.rc, -1);
	free(d.text);
}

static void test_deep_and_write_error(void **state)
{
	struct jsonw w;
	FILE *full = fopen("/dev/full", "w");
	struct doc d;

	(void)state;
	/* no cap on nesting */
	doc_open(&d, 3);
	for (int i = 0; i < 10000; i++)
		jsonw_begin_array(&d.w);
	for (int i = 0; i < 10000; i++)
		jsonw_end_array(&d.w);
	doc_close(&d);
	assert_int_equal(d.rc, 0);
	free(d.text);

	assert_non_null(full);
	jsonw_init(&w, full, 1);
	jsonw_begin_array(&w);
	jsonw_string(&w, "x");
	jsonw_end_array(&w);
	assert_int_equal(jsonw_finish(&w), -1);
	fclose(full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_strings),
	    cmocka_unit_test(test_layout),
	    cmocka_unit_test(test_misuse),
	    cmocka_unit_test(test_deep_and_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
