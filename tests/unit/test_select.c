/* Unit tests of the one policy for "the runs of job J at commit C" (analyze/select.c), on a
 * results tree made here: one directory, a key among several, nodes of one class merged only
 * when asked, another rootfs never merged, none, and the ambiguity message's wording. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../analyze/select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[64];

static void sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/* One complete run of job pp at commit on a machine (tbox_group) and rootfs. */
static void put_run(const char *pp, const char *box, const char *rootfs, const char *commit,
		    unsigned run, double value)
{
	sh("d='%s/will-it-scale/%s/%s/%s/defconfig/gcc-12/%s/%u' && mkdir -p \"$d\" && "
	   "printf '{\"will-it-scale.per_process_ops\": %g}' > \"$d/stats.json\"",
	   root, pp, box, rootfs, commit, run, value);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_select.XXXXXX");
	assert_non_null(mkdtemp(root));
	put_run("process-1-x", "box", "debian", "c1", 0, 100);
	put_run("process-1-x", "box", "debian", "c1", 1, 102);
	/* two nodes of one class at c2 */
	put_run("process-1-x", "node-01", "debian", "c2", 0, 90);
	put_run("process-1-x", "node-02", "debian", "c2", 0, 91);
	put_run("process-1-x", "node-02", "debian", "c2", 1, 92);
	/* c3: another rootfs on one node */
	put_run("process-1-x", "node-01", "debian", "c3", 0, 90);
	put_run("process-1-x", "node-02", "centos", "c3", 0, 91);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf '%s'", root);
	return 0;
}

static void test_one_directory(void **state)
{
	struct result_group *g;
	size_t n;
	char err[512];

	(void)state;
	assert_int_equal(select_groups(root, "process-1-x", "c1", 0, &g, &n, err, sizeof(err)),
			 SELECT_OK);
	assert_int_equal(n, 1);
	assert_int_equal(g[0].nruns, 2);
	assert_string_equal(g[0].commit, "c1");
	select_groups_free(g, n);
}

static void test_none(void **state)
{
	char **d, err[512];
	size_t n;

	(void)state;
	assert_int_equal(select_dirs(root, "process-1-x", "c9", 0, &d, &n, err, sizeof(err)),
			 SELECT_NONE);
	assert_null(d);
	assert_non_null(strstr(err, "no directory holds runs of job 'process-1-x' at commit 'c9'"));
	assert_int_equal(
	    select_dirs(root, "process-2-x", "c1", SELECT_NODES, &d, &n, err, sizeof(err)),
	    SELECT_NONE);
}

static void test_nodes_ambiguous_unless_asked(void **state)
{
	char **d, err[1024];
	size_t n;

	(void)state;
	assert_int_equal(select_dirs(root, "process-1-x", "c2", 0, &d, &n, err, sizeof(err)),
			 SELECT_AMBIGUOUS);
	assert_string_equal(err, "job 'process-1-x' is ambiguous: it is the path_params of "
				 "will-it-scale/process-1-x/node-01/debian/defconfig/gcc-12, "
				 "will-it-scale/process-1-x/node-02/debian/defconfig/gcc-12; name "
				 "one of them");
	assert_int_equal(
	    select_dirs(root, "process-1-x", "c2", SELECT_NODES, &d, &n, err, sizeof(err)),
	    SELECT_OK);
	assert_int_equal(n, 2);
	assert_non_null(strstr(d[0], "/node-01/"));
	assert_non_null(strstr(d[1], "/node-02/"));
	for (size_t i = 0; i < n; i++)
		free(d[i]);
	free(d);
}

static void test_other_rootfs_never_merged(void **state)
{
	char **d, err[1024];
	size_t n;

	(void)state;
	assert_int_equal(
	    select_dirs(root, "process-1-x", "c3", SELECT_NODES, &d, &n, err, sizeof(err)),
	    SELECT_AMBIGUOUS);
	assert_non_null(strstr(err, "node-02/centos/defconfig/gcc-12"));
}

static void test_key_names_one(void **state)
{
	struct result_group *g;
	size_t n;
	char err[512];

	(void)state;
	assert_int_equal(select_groups(root,
				       "will-it-scale/process-1-x/node-02/debian/defconfig/gcc-12",
				       "c2", 0, &g, &n, err, sizeof(err)),
			 SELECT_OK);
	assert_int_equal(n, 1);
	assert_int_equal(g[0].nruns, 2);
	assert_non_null(strstr(g[0].dir, "/node-02/"));
	select_groups_free(g, n);
	/* a key that is no directory's: none, though its path_params has runs */
	assert_int_equal(select_groups(root,
				       "will-it-scale/process-1-x/node-09/debian/defconfig/gcc-12",
				       "c2", 0, &g, &n, err, sizeof(err)),
			 SELECT_NONE);
}

static void test_unloadable_is_an_error(void **state)
{
	struct result_group *g;
	size_t n;
	char err[512];

	(void)state;
	sh("mkdir -p '%s/will-it-scale/process-4-x/box/debian/defconfig/gcc-12/c1/0'", root);
	assert_int_equal(select_groups(root, "process-4-x", "c1", 0, &g, &n, err, sizeof(err)),
			 SELECT_ERROR);
	assert_null(g);
	assert_non_null(strstr(err, "no complete run"));
}

#define ABCD1	    "abcd1234ef0123456789abcdef0123456789abcd"
#define ABCD5	    "abcd5678ab0123456789abcdef0123456789abcd"
#define ABCD1_OTHER "abcd1234ff0123456789abcdef0123456789abcd"

/* A commit named by its label whole, a prefix of 4 hex digits or more among the labels of the
 * jobs selected, or as given when nothing matches; several labels are ambiguous. */
static void test_commit_prefix(void **state)
{
	const char *two[] = {"process-2-x"};
	char *label, err[1024];

	(void)state;
	put_run("process-2-x", "box", "debian", "abcd", 0, 1);
	put_run("process-2-x", "box", "debian", ABCD1, 0, 1);
	put_run("process-2-x", "box", "debian", ABCD5, 0, 1);
	put_run("process-3-x", "box", "debian", ABCD1_OTHER, 0, 1);
	put_run("process-3-x", "box", "debian", "abce-nightly", 0, 1);

	assert_int_equal(
	    select_commit(root, two, 1, NULL, "--base", "abcd5", &label, err, sizeof(err)),
	    SELECT_OK);
	assert_string_equal(label, ABCD5);
	free(label);
	/* the label whole wins over the labels it starts */
	assert_int_equal(
	    select_commit(root, two, 1, NULL, "--base", "abcd", &label, err, sizeof(err)),
	    SELECT_OK);
	assert_string_equal(label, "abcd");
	free(label);
	/* ABCD1_OTHER is another job's: not a candidate here, a candidate over every job */
	assert_int_equal(
	    select_commit(root, two, 1, NULL, "--base", "ABCD1234", &label, err, sizeof(err)),
	    SELECT_OK);
	assert_string_equal(label, ABCD1);
	free(label);
	assert_int_equal(
	    select_commit(root, NULL, 0, NULL, "--commits", "abcd1234", &label, err, sizeof(err)),
	    SELECT_AMBIGUOUS);
	assert_null(label);
	assert_non_null(strstr(err, "--commits 'abcd1234' is ambiguous"));
	assert_non_null(
	    strstr(err, ABCD1 " (in will-it-scale/process-2-x/box/debian/defconfig/gcc-12)"));
	assert_non_null(
	    strstr(err, ABCD1_OTHER " (in will-it-scale/process-3-x/box/debian/defconfig/gcc-12)"));
	/* nothing matches: as given; fewer than 4 digits, or a label that is not a sha */
	assert_int_equal(
	    select_commit(root, two, 1, NULL, "--base", "abc", &label, err, sizeof(err)),
	    SELECT_OK);
	assert_string_equal(label, "abc");
	free(label);
	assert_int_equal(
	    select_commit(root, NULL, 0, NULL, "--base", "abce", &label, err, sizeof(err)),
	    SELECT_OK);
	assert_string_equal(label, "abce");
	free(label);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_directory),
	    cmocka_unit_test(test_none),
	    cmocka_unit_test(test_nodes_ambiguous_unless_asked),
	    cmocka_unit_test(test_other_rootfs_never_merged),
	    cmocka_unit_test(test_key_names_one),
	    cmocka_unit_test(test_unloadable_is_an_error),
	    cmocka_unit_test(test_commit_prefix),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
