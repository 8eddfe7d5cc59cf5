/* lib/git: one way to run git, on a real repository made here: its output whole, its exit
 * status, one form of message when it fails, no cap on the arguments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/git.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char repo[64];

static int make_repo(void **state)
{
	char cmd[512];

	(void)state;
	snprintf(repo, sizeof(repo), "/tmp/scalebench-test-git.XXXXXX");
	if (!mkdtemp(repo))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "cd %s && git init -q -b main && git -c user.email=r@example.com -c user.name=R "
		 "commit -q --allow-empty -m 'first: a subject'",
		 repo);
	return system(cmd) == 0 ? 0 : -1;
}

static int remove_repo(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", repo);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_output_and_status(void **state)
{
	char *out, err[512];

	(void)state;
	assert_int_equal(git_run(repo, GIT_ARGS("rev-parse", "HEAD"), 0, &out, err, sizeof(err)),
			 0);
	assert_non_null(out);
	out[strcspn(out, "\n")] = '\0';
	assert_true(git_is_oid(out));
	free(out);
	/* A failure: git's status, the command and git's first line in err, out still given. */
	assert_int_equal(git_run(repo, GIT_ARGS("rev-parse", "--verify", "nosuch^{commit}"), 0,
				 &out, err, sizeof(err)),
			 128);
	assert_non_null(out);
	free(out);
	assert_non_null(strstr(err, "git -C "));
	assert_non_null(strstr(err, " rev-parse --verify failed: fatal: "));
	assert_null(strchr(err, '\n'));
	/* stderr into out (bisect's way). */
	assert_int_equal(git_run(repo, GIT_ARGS("rev-parse", "--verify", "nosuch^{commit}"),
				 GIT_STDERR_TO_OUT, &out, NULL, 0),
			 128);
	assert_non_null(strstr(out, "fatal: "));
	free(out);
	/* Not a repository: git's own status, not a start failure. */
	assert_true(git_run("/nonexistent", GIT_ARGS("status"), 0, NULL, err, sizeof(err)) > 0);
}

static void test_line_and_many_args(void **state)
{
	const char *args[80];
	char line[128];
	size_t n = 0;

	(void)state;
	assert_int_equal(git_line(repo, GIT_ARGS("log", "-1", "--format=%s"), line, sizeof(line)),
			 0);
	assert_string_equal(line, "first: a subject");
	assert_int_equal(git_line(repo, GIT_ARGS("log", "-1", "--format="), line, sizeof(line)),
			 -1);
	assert_string_equal(line, "");
	assert_int_equal(git_line(NULL, GIT_ARGS("status"), line, sizeof(line)), -1);
	/* More arguments than any of the old wrappers took (16, 32): all reach git. */
	args[n++] = "log";
	args[n++] = "-1";
	for (int i = 0; i < 70; i++)
		args[n++] = "--no-color";
	args[n++] = "--format=%s";
	args[n] = NULL;
	assert_int_equal(git_line(repo, args, line, sizeof(line)), 0);
	assert_string_equal(line, "first: a subject");
}

static void test_is_oid(void **state)
{
	(void)state;
	assert_true(git_is_oid("0123456789abcdef0123456789abcdef01234567"));
	assert_true(git_is_oid("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"));
	assert_false(git_is_oid("0123456789abcdef0123456789abcdef0123456"));
	assert_false(git_is_oid("0123456789ABCDEF0123456789abcdef01234567"));
	assert_false(git_is_oid("0123456789abcdef0123456789abcdef01234567\n"));
	assert_false(git_is_oid(""));
}

static void test_is_abbrev(void **state)
{
	(void)state;
	assert_true(git_is_abbrev("abcd", GIT_MIN_ABBREV));
	assert_true(git_is_abbrev("ABCD12", GIT_MIN_ABBREV)); /* git reads either case */
	assert_false(git_is_abbrev("abc", GIT_MIN_ABBREV));
	assert_false(git_is_abbrev("abcd123", 8));
	assert_false(git_is_abbrev("abcdefg", GIT_MIN_ABBREV));
	assert_true(git_is_abbrev("", 0));
	assert_true(git_is_abbrev(
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", GIT_MIN_ABBREV));
	assert_false(git_is_abbrev(
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0", GIT_MIN_ABBREV));
}

static void test_commit_oid(void **state)
{
	char head[72], oid[72];

	(void)state;
	assert_int_equal(git_line(repo, GIT_ARGS("rev-parse", "HEAD"), head, sizeof(head)), 0);
	assert_int_equal(git_commit_oid(repo, "main", oid, sizeof(oid)), 0);
	assert_string_equal(oid, head);
	head[7] = '\0';
	assert_int_equal(git_commit_oid(repo, head, oid, sizeof(oid)), 0); /* a short sha */
	assert_true(git_is_oid(oid));
	assert_int_equal(git_commit_oid(repo, "no-such-branch", oid, sizeof(oid)), -1);
	assert_string_equal(oid, "");
	/* an option, not a revision: never handed to git */
	assert_int_equal(git_commit_oid(repo, "--all", oid, sizeof(oid)), -1);
	assert_int_equal(git_commit_oid("/nonexistent/repo", "main", oid, sizeof(oid)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_output_and_status),
	    cmocka_unit_test(test_line_and_many_args),
	    cmocka_unit_test(test_is_oid),
	    cmocka_unit_test(test_is_abbrev),
	    cmocka_unit_test(test_commit_oid),
	};

	return cmocka_run_group_tests(tests, make_repo, remove_repo);
}
