/* Unit tests of lib/file: whole-file reads of every kind of path, whole-or-nothing writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/scalebench-file.XXXXXX";

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The names in d, other than . and .., joined by spaces. */
static void listing(const char *d, char *out, size_t len)
{
	DIR *dp = opendir(d);
	struct dirent *e;

	out[0] = '\0';
	assert_non_null(dp);
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " " : "",
				 e->d_name);
	closedir(dp);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_path_fmt(void **state)
{
	char out[16], err[128];

	(void)state;
	assert_int_equal(path_fmt(out, sizeof(out), err, sizeof(err), "%s/%s", "a", "b.json"), 0);
	assert_string_equal(out, "a/b.json");
	/* 16 bytes hold 15 and the NUL: one more is refused, nothing cut is left in out */
	assert_int_equal(
	    path_fmt(out, sizeof(out), err, sizeof(err), "%s/%s", "results", "12345678"), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_string_equal(out, "");
	assert_string_equal(err, "results/1234567...: path too long");
	assert_int_equal(path_fmt(out, sizeof(out), err, sizeof(err), "%s", "exactly-15-char"), 0);
}

static void test_read_regular_and_empty(void **state)
{
	char path[300], err[512], *buf;
	size_t len;
	(void)state;

	path_of(path, sizeof(path), "regular");
	put(path, "hello\nworld\n");
	assert_int_equal(file_read(path, 1 << 20, &buf, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 12);
	assert_string_equal(buf, "hello\nworld\n");
	free(buf);
	/* Exactly at the limit is fine; one byte over is not. */
	assert_int_equal(file_read(path, 12, &buf, NULL, err, sizeof(err)), 0);
	free(buf);
	assert_int_equal(file_read(path, 11, &buf, &len, err, sizeof(err)), -1);
	assert_int_equal(errno, EFBIG);
	assert_null(buf);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "larger than 11 bytes"));

	path_of(path, sizeof(path), "empty");
	put(path, "");
	assert_int_equal(file_read(path, 100, &buf, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 0);
	assert_string_equal(buf, "");
	free(buf);
}

/* /proc files say their size is 0: they are read to their end all the same. */
static void test_read_proc(void **state)
{
	char err[512], *buf;
	size_t len;
	(void)state;

	assert_int_equal(file_read("/proc/self/status", 1 << 20, &buf, &len, err, sizeof(err)), 0);
	assert_true(len > 100);
	assert_int_equal(strncmp(buf, "Name:", 5), 0);
	assert_int_equal(strlen(buf), len);
	free(buf);
	/* Larger than the first buffer: it grows. */
	assert_int_equal(file_read("/proc/self/maps", 64 << 20, &buf, &len, err, sizeof(err)), 0);
	assert_true(len > 0 && buf[len - 1] == '\n');
	free(buf);
	/* The limit holds where the size is not known beforehand. */
	assert_int_equal(file_read("/proc/self/status", 10, &buf, &len, err, sizeof(err)), -1);
	assert_int_equal(errno, EFBIG);
}

static void test_read_refuses_what_is_not_a_file(void **state)
{
	char path[300], err[512], *buf = (char *)1;
	(void)state;

	assert_int_equal(file_read(dir, SIZE_MAX, &buf, NULL, err, sizeof(err)), -1);
	assert_int_equal(errno, EINVAL);
	assert_null(buf);
	assert_non_null(strstr(err, dir));
	assert_non_null(strstr(err, "a directory"));

	/* A FIFO nobody writes: refused at once, not waited on (SIGALRM ends a hang). */
	path_of(path, sizeof(path), "fifo");
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10);
	assert_int_equal(file_read(path, SIZE_MAX, &buf, NULL, err, sizeof(err)), -1);
	alarm(0);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "a FIFO"));

	assert_int_equal(file_read("/dev/null", SIZE_MAX, &buf, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/dev/null: a character device"));

	path_of(path, sizeof(path), "missing");
	assert_int_equal(file_read(path, SIZE_MAX, &buf, NULL, err, sizeof(err)), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, "cannot read "));
	assert_non_null(strstr(err, "missing: No such file or directory"));
	/* Silent callers pass no message buffer. */
	assert_int_equal(file_read(path, SIZE_MAX, &buf, NULL, NULL, 0), -1);
}

static void test_write_whole(void **state)
{
	char path[300], err[512], names[1024], *buf;
	struct stat st;
	(void)state;

	path_of(path, sizeof(path), "w");
	mkdir(path, 0700);
	path_of(path, sizeof(path), "w/out.json");
	/* A new file, then replaced. */
	assert_int_equal(file_write(path, "first", 5, err, sizeof(err)), 0);
	assert_int_equal(file_write(path, "second", 6, err, sizeof(err)), 0);
	assert_int_equal(file_read(path, 100, &buf, NULL, err, sizeof(err)), 0);
	assert_string_equal(buf, "second");
	free(buf);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	path_of(path, sizeof(path), "w");
	listing(path, names, sizeof(names));
	assert_string_equal(names, "out.json");

	/* A missing directory: nothing is created, the message names the file. */
	path_of(path, sizeof(path), "nodir/out.json");
	assert_int_equal(file_write(path, "x", 1, err, sizeof(err)), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, path));
}

/* The temp file of a write: a new random name each time, created exclusively, so what sits at
 * the fixed name PATH.tmp (here a symlink to a file that must not be written) is never used. */
static void test_temp_names(void **state)
{
	char path[300], tmp1[400], tmp2[400], trap[400], victim[300], err[512], *buf;
	struct stat st;
	int a, b;
	(void)state;

	path_of(path, sizeof(path), "t.json");
	a = file_tmp_create(path, tmp1, sizeof(tmp1), err, sizeof(err));
	b = file_tmp_create(path, tmp2, sizeof(tmp2), err, sizeof(err));
	assert_true(a >= 0 && b >= 0);
	assert_string_not_equal(tmp1, tmp2);
	assert_int_equal(strncmp(tmp1, path, strlen(path)), 0);
	assert_int_equal(strncmp(tmp2 + strlen(path), ".tmp.", 5), 0);
	assert_int_equal(fstat(a, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size == 0);
	assert_true(fcntl(a, F_GETFD) & FD_CLOEXEC);
	close(a);
	close(b);
	/* The name is taken: a third call gets another. */
	assert_int_equal(file_tmp_rename(tmp1, path, err, sizeof(err)), 0);
	unlink(tmp2);

	path_of(victim, sizeof(victim), "victim");
	put(victim, "untouched");
	snprintf(trap, sizeof(trap), "%s.tmp", path);
	assert_int_equal(symlink(victim, trap), 0);
	assert_int_equal(file_write(path, "new", 3, err, sizeof(err)), 0);
	assert_int_equal(file_read(victim, 100, &buf, NULL, err, sizeof(err)), 0);
	assert_string_equal(buf, "untouched");
	free(buf);
	assert_int_equal(lstat(trap, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	unlink(trap);
	unlink(victim);
	unlink(path);
}

/* A write that fails half way (the file size limit, which binds root too): the old file is
 * left as it was and no temp file stays behind. */
static void test_write_failure_leaves_target(void **state)
{
	const size_t n = 1 << 20;
	char path[300], sub[300], err[512], names[1024], *data = calloc(1, n), *buf;
	struct rlimit old, small;
	(void)state;

	assert_non_null(data);
	path_of(sub, sizeof(sub), "fail");
	assert_int_equal(mkdir(sub, 0700), 0);
	path_of(path, sizeof(path), "fail/target");
	put(path, "old");
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = (struct rlimit){.rlim_cur = 65536, .rlim_max = old.rlim_max};
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	assert_int_equal(file_write(path, data, n, err, sizeof(err)), -1);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_non_null(strstr(err, path));
	assert_int_equal(file_read(path, 100, &buf, NULL, err, sizeof(err)), 0);
	assert_string_equal(buf, "old");
	free(buf);
	listing(sub, names, sizeof(names));
	assert_string_equal(names, "target");
	free(data);
}

/* The same on a full file system: a tiny tmpfs, mounted in a mount namespace of a child
 * process so that nothing outlives the test.  Needs root (skipped without). */
static void test_write_full_filesystem(void **state)
{
	char sub[300];
	pid_t pid;
	int status;
	(void)state;

	path_of(sub, sizeof(sub), "full");
	assert_int_equal(mkdir(sub, 0700), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const size_t n = 1 << 20;
		char path[400], err[512], names[1024], *data = calloc(1, n), *buf;

		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("none", sub, "tmpfs", 0, "size=64k"))
			_exit(77);
		snprintf(path, sizeof(path), "%s/target", sub);
		put(path, "old");
		if (!data || file_write(path, data, n, err, sizeof(err)) != -1 || errno != ENOSPC)
			_exit(1);
		if (file_read(path, 100, &buf, NULL, err, sizeof(err)) || strcmp(buf, "old"))
			_exit(2);
		listing(sub, names, sizeof(names));
		_exit(strcmp(names, "target") ? 3 : 0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		print_message("(no mount namespace here: full file system not tried)\n");
		return;
	}
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* file_tail: the last lines, trailing newlines dropped, control characters as spaces; "" for
 * a missing file; a symlink is not followed. */
static void test_tail(void **state)
{
	char path[300], link[300], *t;
	(void)state;

	path_of(path, sizeof(path), "console");
	put(path, "one\ntwo\nthree\x1b[2J\nfour\n\n");
	t = file_tail(path, 2);
	assert_string_equal(t, "three [2J\nfour");
	free(t);
	t = file_tail(path, 10);
	assert_string_equal(t, "one\ntwo\nthree [2J\nfour");
	free(t);
	path_of(link, sizeof(link), "console-link");
	assert_int_equal(symlink(path, link), 0);
	t = file_tail(link, 2);
	assert_string_equal(t, "");
	free(t);
	path_of(path, sizeof(path), "missing");
	t = file_tail(path, 2);
	assert_string_equal(t, "");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_path_fmt),
	    cmocka_unit_test(test_read_regular_and_empty),
	    cmocka_unit_test(test_read_proc),
	    cmocka_unit_test(test_read_refuses_what_is_not_a_file),
	    cmocka_unit_test(test_write_whole),
	    cmocka_unit_test(test_temp_names),
	    cmocka_unit_test(test_write_failure_leaves_target),
	    cmocka_unit_test(test_write_full_filesystem),
	    cmocka_unit_test(test_tail),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
