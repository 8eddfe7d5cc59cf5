/* Unit tests of the HTML report's names and text (analyze/site.c): file names from labels
 * stay inside the site and never collide; text from a tree cannot become markup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../analyze/site.h"

#include <stdlib.h>
#include <string.h>

static void slug_is(const char *label, const char *want)
{
	char out[SITE_SLUG_MAX];

	site_slug(label, out);
	assert_string_equal(out, want);
}

/* Only [A-Za-z0-9._-], never empty, never hidden, never longer than SITE_SLUG_MAX - 1. */
static void assert_safe(const char *s)
{
	assert_true(*s);
	assert_true(s[0] != '.');
	assert_true(strlen(s) < SITE_SLUG_MAX);
	for (; *s; s++)
		assert_non_null(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				       "0123456789._-~",
				       *s));
}

static void test_slug_plain_labels_kept(void **state)
{
	(void)state;
	slug_is("v6.8-rc1", "v6.8-rc1");
	slug_is("c001", "c001");
	slug_is("0123456789abcdef0123456789abcdef01234567",
		"0123456789abcdef0123456789abcdef01234567");
	/* LKP's task percentages read as such, not as a hash (a label spelling "pct" itself
	 * is hashed, below) */
	slug_is("process-100%-page_fault3", "process-100pct-page_fault3");
	slug_is("thread-50%-3s-fallocate1", "thread-50pct-3s-fallocate1");
	slug_is("100%%", "100pctpct");
}

static void test_slug_unsafe_labels(void **state)
{
	static const char *const hostile[] = {"",
					      ".",
					      "..",
					      ".hidden",
					      "../../etc/passwd",
					      "a/b",
					      "<script>alert(1)</script>",
					      "a b",
					      "x\ny",
					      "naïve",
					      "a-pct-100%",
					      "q&\"'",
					      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
					      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
	char out[SITE_SLUG_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(hostile) / sizeof(*hostile); i++) {
		site_slug(hostile[i], out);
		assert_safe(out);
		/* Changed: always marked with the hash, which no kept label can carry. */
		assert_non_null(strchr(out, '~'));
	}
}

static void test_slug_distinct(void **state)
{
	char a[SITE_SLUG_MAX], b[SITE_SLUG_MAX], c[SITE_SLUG_MAX];

	(void)state;
	/* The same after mapping, told apart by the hash. */
	site_slug("a/b", a);
	site_slug("a b", b);
	site_slug("a_b", c);
	assert_string_not_equal(a, b);
	assert_string_not_equal(a, c);
	assert_string_not_equal(b, c);
	/* '%' spelled pct, and a label that spells it itself. */
	site_slug("x-100%", a);
	site_slug("x-100pct", b);
	assert_string_equal(a, "x-100pct");
	assert_string_not_equal(a, b);
	assert_safe(b);
	/* Long labels alike in their first 60 bytes. */
	char l1[100], l2[100];
	memset(l1, 'x', 99);
	l1[99] = '\0';
	memcpy(l2, l1, sizeof(l2));
	l2[98] = 'y';
	site_slug(l1, a);
	site_slug(l2, b);
	assert_string_not_equal(a, b);
	assert_safe(a);
}

static void test_html_escape(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	site_html_escape("<script>alert(\"1\")</script>&'x'", f);
	site_html_escape(NULL, f);
	fclose(f);
	assert_string_equal(buf,
			    "&lt;script&gt;alert(&quot;1&quot;)&lt;/script&gt;&amp;&#39;x&#39;");
	free(buf);
}

static void csv_is(const char *v, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	site_csv_field(v, f);
	fclose(f);
	assert_string_equal(buf, want);
	free(buf);
}

static void test_csv_field(void **state)
{
	(void)state;
	csv_is("c001", "c001");
	csv_is("", "");
	csv_is("a,b", "\"a,b\"");
	csv_is("say \"hi\"", "\"say \"\"hi\"\"\"");
	csv_is("x\ny", "\"x\ny\"");
	/* OWASP's CSV injection: formulas become text */
	csv_is("=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\"");
	csv_is("+1", "\"'+1\"");
	csv_is("-2+3", "\"'-2+3\"");
	csv_is("@SUM(A1)", "\"'@SUM(A1)\"");
	csv_is("\tx", "\"'\tx\"");
	csv_is("\rx", "\"'\rx\"");
	csv_is("a=b", "a=b");
}

static void url_ok(const char *tmpl)
{
	char err[512] = "";

	assert_int_equal(site_commit_url_check(tmpl, err, sizeof(err)), 0);
}

/* Refused, the message holding want. */
static void url_bad(const char *tmpl, const char *want)
{
	char err[512] = "";

	assert_int_equal(site_commit_url_check(tmpl, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("'%s': '%s' does not say '%s'", tmpl, err, want);
}

static void test_commit_url_template(void **state)
{
	(void)state;
	url_ok("https://git.kernel.org/torvalds/c/%s");
	url_ok("http://cgit.example.org/linux.git/commit/?id=%s&h=master");
	url_ok("HTTPS://example.org/a%20b/%s");
	url_bad("ftp://example.org/%s", "not http:// or https://");
	url_bad("javascript:alert(1)//%s", "not http:// or https://");
	url_bad("https://example.org/c/", "no %s");
	url_bad("https://example.org/%s/%s", "neither its one %s");
	url_bad("https://example.org/%d/%s", "neither its one %s");
	url_bad("https://example.org/%s%", "neither its one %s");
	url_bad("https://%s.example.org/", "before the %s");
	url_bad("https://example.org%s", "before the %s");
	url_bad("https:///%s", "needs a host");
	url_bad("https://example.org/c/%s\"onclick=\"x", "byte 0x22 at offset 24");
	url_bad("https://example.org/ c/%s", "byte 0x20 at offset 20");
	url_bad("https://example.org/c/%s\n", "byte 0x0a");
	url_bad("https://exämple.org/%s", "not allowed in a URL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_slug_plain_labels_kept),
	    cmocka_unit_test(test_slug_unsafe_labels),
	    cmocka_unit_test(test_slug_distinct),
	    cmocka_unit_test(test_html_escape),
	    cmocka_unit_test(test_commit_url_template),
	    cmocka_unit_test(test_csv_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
