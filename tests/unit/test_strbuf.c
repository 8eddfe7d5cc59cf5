/* lib/strbuf and lib/strvec: growth past the first allocation, formatting, the terminator,
 * release back to empty, the sticky out-of-memory flag. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/strbuf.h"
#include "../../lib/strvec.h"

#include <string.h>

static void test_strbuf_grows(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char big[1000];

	(void)state;
	assert_string_equal(strbuf_str(&sb), "");
	memset(big, 'x', sizeof(big));
	assert_int_equal(strbuf_add(&sb, big, sizeof(big)), 0);
	assert_int_equal(strbuf_addstr(&sb, "-"), 0);
	assert_int_equal(strbuf_addf(&sb, "%d:%s", 42, "end"), 0);
	assert_int_equal(sb.len, 1000 + 1 + 6);
	assert_string_equal(sb.buf + 1000, "-42:end");
	assert_int_equal(sb.buf[sb.len], '\0');
	assert_false(sb.oom);
	strbuf_release(&sb);
	assert_null(sb.buf);
	assert_int_equal(sb.len, 0);
}

static void test_strbuf_oom_sticky(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_addstr(&sb, "kept");
	/* A size no allocator grants: the add fails, the text so far stays, and so do later
	 * adds fail. */
	assert_int_equal(strbuf_add(&sb, "", (size_t)-1 / 2), -1);
	assert_true(sb.oom);
	assert_int_equal(strbuf_addstr(&sb, "more"), -1);
	assert_string_equal(sb.buf, "kept");
	strbuf_release(&sb);
	assert_false(sb.oom);
}

static void test_strvec(void **state)
{
	struct strvec sv = STRVEC_INIT;
	char word[] = "ssh";

	(void)state;
	assert_int_equal(strvec_push(&sv, word), 0);
	word[0] = 'X'; /* a copy was pushed */
	for (int i = 0; i < 20; i++)
		assert_int_equal(strvec_pushf(&sv, "-o%d", i), 0);
	assert_int_equal(sv.n, 21);
	assert_string_equal(sv.v[0], "ssh");
	assert_string_equal(sv.v[20], "-o19");
	assert_null(sv.v[21]);
	strvec_clear(&sv);
	assert_null(sv.v);
	assert_int_equal(sv.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_strbuf_grows),
	    cmocka_unit_test(test_strbuf_oom_sticky),
	    cmocka_unit_test(test_strvec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
