/* Unit tests of LKP's per-commit matrix.json (store/matrix.c): lkp-tests' unite-stats rules
 * case by case.  tests/e2e/test_lkp_both.sh checks whole files against LKP's own output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../store/matrix.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fixture {
	char dir[64];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/sb-matrix-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd))
		return -1;
	free(f);
	return 0;
}

/* run N of the commit directory with stats.json text (NULL: an incomplete run, no stats). */
static void add_run(const struct fixture *f, unsigned n, const char *stats)
{
	char path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%u", f->dir, n);
	assert_int_equal(mkdir(path, 0755), 0);
	if (!stats)
		return;
	strcat(path, "/stats.json");
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(stats, fp);
	assert_int_equal(fclose(fp), 0);
}

static json_t *rebuild(const struct fixture *f)
{
	char path[PATH_MAX], err[PATH_MAX + 256];
	json_error_t e;

	assert_int_equal(store_matrix_write(f->dir, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/%s", f->dir, STORE_MATRIX_FILE);
	return json_load_file(path, 0, &e);
}

/* The matrix's keys in order, joined by ' '. */
static void keys_of(const json_t *m, char *out, size_t len)
{
	const char *k;
	json_t *v;

	out[0] = '\0';
	json_object_foreach ((json_t *)m, k, v) {
		strncat(out, k, len - strlen(out) - 1);
		strncat(out, " ", len - strlen(out) - 1);
	}
}

static void test_padding_and_order(void **state)
{
	const struct fixture *f = *state;
	char keys[512], real[PATH_MAX], want[PATH_MAX + 32];
	json_t *m, *src;

	add_run(f, 0, "{\"b\": 1, \"a\": 2.5, \"gone\": 7}");
	add_run(f, 1, "{\"a\": 3}");
	add_run(f, 2, NULL); /* incomplete: left out */
	add_run(f, 10, "{\"a\": 4, \"late\": 9}");
	m = rebuild(f);
	assert_non_null(m);
	keys_of(m, keys, sizeof(keys));
	/* first seen first; stats_source after run 0's stats; a stat new in a later run last */
	assert_string_equal(keys, "b a gone stats_source late ");
	/* a stat a run lacks is padded only before a later value: "b" and "gone" end early */
	assert_int_equal(json_array_size(json_object_get(m, "b")), 1);
	assert_int_equal(json_array_size(json_object_get(m, "gone")), 1);
	assert_int_equal(json_array_size(json_object_get(m, "a")), 3);
	assert_int_equal(json_array_size(json_object_get(m, "late")), 3);
	assert_true(json_is_integer(json_array_get(json_object_get(m, "late"), 0)));
	assert_int_equal(json_integer_value(json_array_get(json_object_get(m, "late"), 2)), 9);
	/* types kept: 2.5 a real, 3 an integer */
	assert_true(json_is_real(json_array_get(json_object_get(m, "a"), 0)));
	assert_true(json_is_integer(json_array_get(json_object_get(m, "a"), 1)));
	/* runs by number (10 after 1), each by its real path */
	src = json_object_get(m, "stats_source");
	assert_int_equal(json_array_size(src), 3);
	assert_non_null(realpath(f->dir, real));
	snprintf(want, sizeof(want), "%s/10/stats.json", real);
	assert_string_equal(json_string_value(json_array_get(src, 2)), want);
	json_decref(m);
}

static void test_pruned(void **state)
{
	const struct fixture *f = *state;
	char keys[512];
	json_t *m;

	/* integer zeros dropped, float zeros kept; sched_debug per-CPU stats dropped; a stat
	 * dropped after run 0 and seen again in run 1 comes back last, as after LKP's unite_to */
	add_run(f, 0, "{\"z\": 0, \"zf\": 0.0, \"sched_debug.cpu.nr_running.3\": 2, "
		      "\"sched_debug.cfs_rq:/.load.avg\": 5, \"back\": 0, \"x\": 1}");
	add_run(f, 1, "{\"z\": 0, \"back\": 0.0, \"x\": 1}");
	m = rebuild(f);
	assert_non_null(m);
	keys_of(m, keys, sizeof(keys));
	assert_string_equal(keys, "zf sched_debug.cfs_rq:/.load.avg x stats_source back ");
	json_decref(m);
}

static void test_no_runs_no_file(void **state)
{
	const struct fixture *f = *state;
	char path[PATH_MAX], err[PATH_MAX + 256], tmp[PATH_MAX + 32];
	FILE *fp;

	add_run(f, 0, "{\"x\": 1}");
	json_decref(rebuild(f));
	snprintf(path, sizeof(path), "%s/%s", f->dir, STORE_MATRIX_FILE);
	assert_int_equal(access(path, F_OK), 0);
	/* a killed writer's temp file is swept by the next rebuild */
	snprintf(tmp, sizeof(tmp), "%s.tmp.XyZ123", path);
	fp = fopen(tmp, "w");
	assert_non_null(fp);
	fclose(fp);
	snprintf(tmp, sizeof(tmp), "%s/0/stats.json", f->dir);
	assert_int_equal(unlink(tmp), 0);
	assert_int_equal(store_matrix_write(f->dir, err, sizeof(err)), 0);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(tmp, sizeof(tmp), "%s.tmp.XyZ123", path);
	assert_int_equal(access(tmp, F_OK), -1);
}

static void test_bad_stats_keeps_old(void **state)
{
	const struct fixture *f = *state;
	char path[PATH_MAX], err[PATH_MAX + 256];
	json_t *m;

	add_run(f, 0, "{\"x\": 1}");
	json_decref(rebuild(f));
	add_run(f, 1, "{\"x\": ");
	assert_int_equal(store_matrix_write(f->dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "1/stats.json"));
	snprintf(path, sizeof(path), "%s/%s", f->dir, STORE_MATRIX_FILE);
	m = json_load_file(path, 0, NULL);
	assert_int_equal(json_array_size(json_object_get(m, "x")), 1);
	json_decref(m);
	assert_int_equal(store_matrix_write("/nonexistent/sb-matrix", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/sb-matrix"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_padding_and_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pruned, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_runs_no_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_stats_keeps_old, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
