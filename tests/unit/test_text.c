/* lib/text: names from a results tree reach the terminal with their control characters and
 * invalid bytes escaped, valid UTF-8 untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/json_text.h"
#include "../../lib/text.h"
#include "../../lib/utf8.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static void escaped(const char *in, const char *want)
{
	char *got = text_escape(in), *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);

	assert_non_null(got);
	assert_string_equal(got, want);
	assert_string_equal(text_safe(in), want);
	assert_int_equal(text_is_clean(in), strcmp(in, want) == 0);
	assert_non_null(f);
	fput_escaped(in, f);
	fclose(f);
	assert_string_equal(mem, want);
	free(mem);
	free(got);
}

static void test_escapes(void **state)
{
	(void)state;
	escaped("will-it-scale.per_process_ops", "will-it-scale.per_process_ops");
	escaped("", "");
	escaped("evil\nstat\x1b[2J", "evil\\nstat\\x1b[2J");
	escaped("a\tb\rc\x7f\x01", "a\\tb\\rc\\x7f\\x01");
	/* Valid UTF-8 stays, whatever its length. */
	escaped("\u00b1 caf\u00e9 \u20ac \U0001F600", "\u00b1 caf\u00e9 \u20ac \U0001F600");
	/* C1 controls (0x9b is CSI), lone continuation bytes, a cut sequence, an overlong '/',
	 * a surrogate, past U+10FFFF. */
	escaped("\xc2\x9b"
		"2J",
		"\\xc2\\x9b2J");
	escaped("a\x80z", "a\\x80z");
	escaped("\xe2\x82", "\\xe2\\x82");
	escaped("\xc0\xaf", "\\xc0\\xaf");
	escaped("\xed\xa0\x80", "\\xed\\xa0\\x80");
	escaped("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
}

/* text_safe's results stay valid for the arguments of one printf. */
static void test_safe_ring(void **state)
{
	const char *a, *b, *c = "clean";

	(void)state;
	a = text_safe("one\n");
	b = text_safe("two\x1b");
	assert_ptr_equal(text_safe(c), c);
	assert_string_equal(a, "one\\n");
	assert_string_equal(b, "two\\x1b");
	for (int i = 0; i < 100; i++)
		assert_string_equal(text_safe("x\ty"), "x\\ty");
}

/* Names that are not UTF-8: found, shown with U+FFFD, and kept in JSON with their bytes. */
static void test_not_utf8(void **state)
{
	const char *s = "caf\xe9-\xc3\xa9";
	char *r;
	json_t *o = json_object();

	(void)state;
	assert_null(utf8_first_bad("caf\xc3\xa9"));
	assert_ptr_equal(utf8_first_bad(s), s + 3);
	assert_non_null(r = utf8_replaced(s));
	assert_string_equal(r, "caf\xef\xbf\xbd-\xc3\xa9");
	free(r);
	assert_int_equal(json_set_text(o, "commit", s), 0);
	assert_string_equal(json_string_value(json_object_get(o, "commit")),
			    "caf\xef\xbf\xbd-\xc3\xa9");
	assert_string_equal(json_string_value(json_object_get(o, "commit_bytes")),
			    "636166e92dc3a9");
	assert_int_equal(json_set_text(o, "ok", "plain"), 0);
	assert_null(json_object_get(o, "ok_bytes"));
	json_decref(o);
	assert_non_null(o = json_text(s)); /* json_string(s) is NULL */
	assert_string_equal(json_string_value(o), "caf\xef\xbf\xbd-\xc3\xa9");
	json_decref(o);
	assert_true(json_is_null(o = json_text(NULL)));
	json_decref(o);
}

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(text_distance("list", "list"), 0);
	assert_int_equal(text_distance("lst", "list"), 1);	  /* a letter left out */
	assert_int_equal(text_distance("comapre", "compare"), 1); /* two letters swapped */
	assert_int_equal(text_distance("getpid1", "getppid1"), 1);
	assert_int_equal(text_distance("kitten", "sitting"), 3);
	assert_int_equal(text_distance("", "run"), 3);
	assert_true(
	    text_distance(
		"x", "0123456789012345678901234567890123456789012345678901234567890123456789") ==
	    UINT_MAX);
	assert_true(text_close(1, 4));	/* lst ~ list */
	assert_false(text_close(2, 4)); /* ab ~ list: too far */
	assert_true(text_close(2, 7));
	assert_false(text_close(3, 7));
	/* The closest of candidates: the first at the least distance, none when all are far. */
	struct text_closest c = TEXT_CLOSEST_INIT("comapre");

	text_closest_offer(&c, "bisect");
	assert_null(c.best);
	text_closest_offer(&c, "compare");
	text_closest_offer(&c, "compose");
	assert_string_equal(c.best, "compare");
	assert_int_equal(c.d, 1);
	text_closest_offer(&c, "comapre_");
	assert_string_equal(c.best, "compare"); /* a tie keeps the first */
	/* A message keeps its own lines; everything else escaped as text_escape does. */
	char *m = text_escape_message("a\tb\nc\r\x1b\xff");

	assert_string_equal(m, "a\tb\nc\\r\\x1b\\xff");
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escapes),
	    cmocka_unit_test(test_safe_ring),
	    cmocka_unit_test(test_distance),
	    cmocka_unit_test(test_not_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
