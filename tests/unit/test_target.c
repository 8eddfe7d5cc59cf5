/* Unit tests of runner/target: the ssh:// URL's validation, the one quoting function every
 * remote word goes through (checked against a real sh), and the version series. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/run_command.h"
#include "../../runner/target.h"
#include "../../lib/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct url_row {
	const char *url;
	const char *user, *host; /* NULL host: refused */
	unsigned port;
	const char *says; /* for a refused one: in the message */
};

static const struct url_row urls[] = {
    {"ssh://host", NULL, "host", 0, NULL},
    {"ssh://root@127.0.0.1:2222", "root", "127.0.0.1", 2222, NULL},
    {"ssh://a.b-c@x-1.example.org:65535", "a.b-c", "x-1.example.org", 65535, NULL},
    {"ssh://user_1@h:1", "user_1", "h", 1, NULL},
    {"ssh://[::1]", NULL, "::1", 0, NULL},
    {"ssh://me@[fe80::1:2]:22", "me", "fe80::1:2", 22, NULL},
    {"ssh://[::ffff:127.0.0.1]:9", NULL, "::ffff:127.0.0.1", 9, NULL},
    {"host", NULL, NULL, 0, "expected ssh://"},
    {"ssh:/host", NULL, NULL, 0, "expected ssh://"},
    {"ssh://", NULL, NULL, 0, "bad host ''"},
    {"ssh://-oProxyCommand=sh", NULL, NULL, 0, "bad host '-oProxyCommand=sh'"},
    {"ssh://-l@host", NULL, NULL, 0, "bad user '-l'"},
    {"ssh://@host", NULL, NULL, 0, "bad user ''"},
    {"ssh://a b@host", NULL, NULL, 0, "bad user 'a b'"},
    {"ssh://u@h@x", NULL, NULL, 0, "bad host 'h@x'"},
    {"ssh://h;reboot", NULL, NULL, 0, "bad host 'h;reboot'"},
    {"ssh://h$(id)", NULL, NULL, 0, "bad host"},
    {"ssh://h_x", NULL, NULL, 0, "bad host 'h_x'"},
    {"ssh://h/x", NULL, NULL, 0, "bad host 'h/x'"},
    {"ssh://h:", NULL, NULL, 0, "bad port ''"},
    {"ssh://h:0", NULL, NULL, 0, "bad port '0'"},
    {"ssh://h:65536", NULL, NULL, 0, "bad port '65536'"},
    {"ssh://h:-1", NULL, NULL, 0, "bad port '-1'"},
    {"ssh://h:+22", NULL, NULL, 0, "bad port '+22'"},
    {"ssh://h:22 ", NULL, NULL, 0, "bad port '22 '"},
    {"ssh://h:99999999999999999999", NULL, NULL, 0, "bad port"},
    {"ssh://[::1", NULL, NULL, 0, "bad IPv6"},
    {"ssh://[]", NULL, NULL, 0, "bad IPv6"},
    {"ssh://[1.2.3.4]", NULL, NULL, 0, "bad IPv6"},
    {"ssh://[::g]", NULL, NULL, 0, "bad IPv6"},
    {"ssh://[::1]x", NULL, NULL, 0, "after ']'"},
    {"ssh://[::1]:0", NULL, NULL, 0, "bad port '0'"},
};

static void test_target_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		const struct url_row *r = &urls[i];
		struct target t;
		char err[512] = "";
		int rc = target_parse(r->url, &t, err, sizeof(err));

		if (r->host) {
			if (rc)
				fail_msg("%s: refused: %s", r->url, err);
			assert_string_equal(t.host, r->host);
			if (r->user)
				assert_string_equal(t.user, r->user);
			else
				assert_null(t.user);
			assert_int_equal(t.port, r->port);
			assert_string_equal(t.url, r->url);
			target_free(&t);
		} else {
			if (rc != -1)
				fail_msg("%s: accepted", r->url);
			if (!strstr(err, r->says))
				fail_msg("%s: message '%s' lacks '%s'", r->url, err, r->says);
		}
	}
}

/* What sh makes of the quoted word: printf '%s' WORD, captured. */
static char *through_sh(const char *word)
{
	char *q = sh_quote(word), *cmd, err[256], *out;
	struct child_process c = {.out = RUN_OUT_CAPTURE};

	assert_non_null(q);
	assert_true(asprintf(&cmd, "printf '%%s' %s", q) > 0);
	c.shell = cmd;
	assert_int_equal(child_run(&c, err, sizeof(err)), 0);
	assert_int_equal(c.exit_code, 0);
	out = strdup(c.out_text.p ? c.out_text.p : "");
	child_release(&c);
	free(cmd);
	free(q);
	return out;
}

static void test_sh_quote(void **state)
{
	static const char *const words[] = {
	    "",		 "plain", "two words", "it's",	   "''",	  "'\\''",
	    "$(id)",	 "`id`",  "$HOME",     "a;b&&c|d", "back\\slash", "tab\there",
	    "new\nline", "*?[a]", "~root",     "-n",	   "--set=x=y",	  "\"dq\"",
	    "!event",	 "{a,b}", "#hash",     "trail\\",  "a'b'c'",
	};
	char *q;

	(void)state;
	q = sh_quote("a'b");
	assert_string_equal(q, "'a'\\''b'");
	free(q);
	q = sh_quote("");
	assert_string_equal(q, "''");
	free(q);
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		char *got = through_sh(words[i]);

		if (strcmp(got, words[i]))
			fail_msg("word '%s' came out of sh as '%s'", words[i], got);
		free(got);
	}
}

static void test_version_series(void **state)
{
	char s[32];

	(void)state;
	assert_int_equal(target_version_series("scalebench 0.1", s, sizeof(s)), 0);
	assert_string_equal(s, "0.1");
	assert_int_equal(target_version_series("scalebench 12.34.5-rc1\n", s, sizeof(s)), 0);
	assert_string_equal(s, "12.34");
	assert_int_equal(target_version_series("scalebench 7.3.1", s, sizeof(s)), 0);
	assert_string_equal(s, "7.3");
	assert_int_equal(target_version_series("scalebench 1", s, sizeof(s)), -1);
	assert_int_equal(target_version_series("scalebench 1.", s, sizeof(s)), -1);
	assert_int_equal(target_version_series("scalebench .1", s, sizeof(s)), -1);
	assert_int_equal(target_version_series("bash: scalebench: not found", s, sizeof(s)), -1);
	assert_int_equal(target_version_series("", s, sizeof(s)), -1);
	assert_int_equal(target_version_series("scalebench 123456.7", s, 4), -1);
	/* MAJOR.MINOR, then only .PATCH, -SUFFIX and the line's end (a Hardening defect: these
	 * were taken as 0.1) */
	assert_int_equal(target_version_series("scalebench 0.1garbage", s, sizeof(s)), -1);
	assert_int_equal(target_version_series("scalebench 0.1\x1b[2J", s, sizeof(s)), -1);
	assert_int_equal(target_version_series("scalebench 0.1 extra", s, sizeof(s)), -1);
	assert_int_equal(target_version_series("scalebench 0.1\nscalebench 9.9", s, sizeof(s)), -1);
	assert_int_equal(target_version_series("scalebench 0.1-", s, sizeof(s)), -1);
	assert_int_equal(target_version_series("scalebench 0.1.2-rc1.3\n", s, sizeof(s)), 0);
	assert_string_equal(s, "0.1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_target_parse),
	    cmocka_unit_test(test_sh_quote),
	    cmocka_unit_test(test_version_series),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
