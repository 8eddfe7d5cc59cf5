/* Unit tests: the results tree honours the umask as other tools do (directories 0777, files
 * 0666, less the umask), so a web server running as another user can read it; a private umask
 * keeps it private. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/file.h"
#include "../../store/run_write.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void mode_is(const char *path, mode_t want)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	if ((st.st_mode & 0777) != want)
		fail_msg("%s: mode %03o, expected %03o", path, st.st_mode & 0777, want);
}

/* A run written whole under umask mask: every directory from the root down and every file. */
static void run_under(mode_t mask, mode_t dirs, mode_t files)
{
	char root[] = "/tmp/sb-umask-XXXXXX", commit[PATH_MAX], path[PATH_MAX + 64], err[256];
	struct store_run r;
	json_t *meta = json_pack("{s:s}", "status", "ok"), *stats = json_pack("{s:i}", "a.b", 1);
	json_t *raw = json_pack("[{s:f}]", "t_s", 1.0);
	mode_t old;
	FILE *fp;

	assert_non_null(mkdtemp(root));
	old = umask(mask);
	assert_int_equal(file_umask(), mask);
	snprintf(commit, sizeof(commit), "%s/tc/pp/box/rootfs/kconfig/gcc/c1", root);
	assert_int_equal(store_run_begin(&r, commit, err, sizeof(err)), 0);
	fp = store_run_create(&r, "output", err, sizeof(err));
	assert_non_null(fp);
	fputs("hello\n", fp);
	assert_int_equal(store_run_close(&r, fp, "output", err, sizeof(err)), 0);
	assert_int_equal(store_run_write_raw(&r, "vmstat", false, raw, err, sizeof(err)), 0);
	assert_int_equal(store_run_write_raw(&r, "perf-profile", true, raw, err, sizeof(err)), 0);
	assert_int_equal(store_run_finish(&r, meta, stats, err, sizeof(err)), 0);
	close(r.owner_fd);
	snprintf(path, sizeof(path), "%s/written.json", root);
	assert_int_equal(file_write(path, "{}", 2, err, sizeof(err)), 0);
	umask(old);

	mode_is(path, files);
	snprintf(path, sizeof(path), "%s/tc", root);
	mode_is(path, dirs);
	mode_is(commit, dirs);
	mode_is(r.dir, dirs);
	static const char *const names[] = {"output", "vmstat.samples.json",
					    "perf-profile.samples.json.gz", "meta.json",
					    "stats.json"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", r.dir, names[i]);
		mode_is(path, files);
	}
	json_decref(meta);
	json_decref(stats);
	json_decref(raw);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

static void test_umask_022(void **state)
{
	(void)state;
	run_under(022, 0755, 0644);
}

static void test_umask_077(void **state)
{
	(void)state;
	run_under(077, 0700, 0600);
}

static void test_umask_002(void **state)
{
	(void)state;
	run_under(002, 0775, 0664);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_umask_022),
	    cmocka_unit_test(test_umask_077),
	    cmocka_unit_test(test_umask_002),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
