/* Unit tests of the results store and the machine axes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../runner/machine.h"
#include "../../store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_tbox_group(void **state)
{
	char out[64];
	(void)state;

	machine_tbox_group("lkp-skl-4sp1", out, sizeof(out));
	assert_string_equal(out, "lkp-skl-4sp1");
	machine_tbox_group("vm-snb-4G-12", out, sizeof(out));
	assert_string_equal(out, "vm-snb-4G");
	machine_tbox_group("lkp-csl-2sp7", out, sizeof(out));
	assert_string_equal(out, "lkp-csl-2sp7");
	machine_tbox_group("box-3", out, sizeof(out));
	assert_string_equal(out, "box");
	machine_tbox_group("vm", out, sizeof(out));
	assert_string_equal(out, "vm");
	machine_tbox_group("-7", out, sizeof(out));
	assert_string_equal(out, "-7");
}

static void test_compiler(void **state)
{
	char out[64];
	(void)state;

	machine_compiler("Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12 "
			 "(Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP",
			 out, sizeof(out));
	assert_string_equal(out, "gcc-12");
	machine_compiler("Linux version 6.18.44 (builder@x) (gcc (GCC) 15.3.0, GNU ld 2.46) #1",
			 out, sizeof(out));
	assert_string_equal(out, "gcc-15");
	machine_compiler("Linux version 5.4.0 (buildd@lcy01) (gcc version 9.2.1 20191008 (Ubuntu "
			 "9.2.1-9ubuntu2)) #30",
			 out, sizeof(out));
	assert_string_equal(out, "gcc-9");
	machine_compiler("Linux version 6.6.0 (user@host) (Debian clang version 17.0.6 (5), "
			 "Debian LLD 17.0.6) #1",
			 out, sizeof(out));
	assert_string_equal(out, "clang-17");
	machine_compiler("garbage", out, sizeof(out));
	assert_string_equal(out, "unknown");
}

static void test_rootfs(void **state)
{
	char out[64];
	(void)state;

	machine_rootfs("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\n"
		       "VERSION_ID=\"12\"\nID=debian\n",
		       "x86_64", out, sizeof(out));
	assert_string_equal(out, "debian-12-x86_64");
	machine_rootfs("ID=arch\n", "x86_64", out, sizeof(out));
	assert_string_equal(out, "arch-x86_64");
	machine_rootfs(NULL, "aarch64", out, sizeof(out));
	assert_string_equal(out, "unknown-aarch64");
}

static void test_component(void **state)
{
	char out[64];
	(void)state;

	store_component("6.1.0-18-amd64", out, sizeof(out));
	assert_string_equal(out, "6.1.0-18-amd64");
	store_component("a/b", out, sizeof(out));
	assert_string_equal(out, "a_b");
	store_component("..", out, sizeof(out));
	assert_string_equal(out, "__");
	store_component(".hidden", out, sizeof(out));
	assert_string_equal(out, "_hidden");
	store_component("", out, sizeof(out));
	assert_string_equal(out, "_");
}

/* Runs take the first free number, and two writers at once never take the same one. */
static void test_commit_first_free_concurrent(void **state)
{
	char root[] = "/tmp/scalebench-store.XXXXXX", dir[256], tmp[512], err[256], path[600];
	unsigned run;
	struct stat st;
	(void)state;

	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/a/b/commit", root);
	assert_int_equal(store_begin(dir, tmp, sizeof(tmp), err, sizeof(err)), 0);
	assert_int_equal(store_commit(dir, tmp, &run, err, sizeof(err)), 0);
	assert_int_equal(run, 0);
	/* A hole at 1 is taken before 3. */
	snprintf(path, sizeof(path), "%s/2", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(store_begin(dir, tmp, sizeof(tmp), err, sizeof(err)), 0);
	assert_int_equal(store_commit(dir, tmp, &run, err, sizeof(err)), 0);
	assert_int_equal(run, 1);

	/* 8 processes x 5 runs at once: 40 distinct numbers, no temp left over. */
	for (int p = 0; p < 8; p++) {
		if (fork() == 0) {
			for (int i = 0; i < 5; i++) {
				char t[512], e[256], f[600];
				unsigned r;
				FILE *fp;

				if (store_begin(dir, t, sizeof(t), e, sizeof(e)))
					_exit(1);
				snprintf(f, sizeof(f), "%s/who", t);
				fp = fopen(f, "w");
				fprintf(fp, "%d.%d\n", p, i);
				fclose(fp);
				if (store_commit(dir, t, &r, e, sizeof(e)))
					_exit(1);
			}
			_exit(0);
		}
	}
	for (int p = 0; p < 8; p++) {
		int status;

		wait(&status);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	for (int n = 3; n < 3 + 40; n++) {
		snprintf(path, sizeof(path), "%s/%d/who", dir, n);
		assert_int_equal(stat(path, &st), 0);
	}
	snprintf(path, sizeof(path), "%s/43", dir);
	assert_int_not_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

static void test_abort_removes_everything(void **state)
{
	char root[] = "/tmp/scalebench-store.XXXXXX", tmp[512], err[256], path[600];
	struct stat st;
	FILE *fp;
	(void)state;

	assert_non_null(mkdtemp(root));
	assert_int_equal(store_begin(root, tmp, sizeof(tmp), err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/stats.json", tmp);
	fp = fopen(path, "w");
	fputs("{}", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/sub", tmp);
	mkdir(path, 0755);
	store_abort(tmp);
	assert_int_not_equal(stat(tmp, &st), 0);
	assert_int_equal(rmdir(root), 0); /* empty: nothing left */
	/* An unwritable place is an error naming it. */
	assert_int_equal(store_begin("/proc/nope/x", tmp, sizeof(tmp), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/proc/nope/x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tbox_group),
	    cmocka_unit_test(test_compiler),
	    cmocka_unit_test(test_rootfs),
	    cmocka_unit_test(test_component),
	    cmocka_unit_test(test_commit_first_free_concurrent),
	    cmocka_unit_test(test_abort_removes_everything),
	};

	return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
