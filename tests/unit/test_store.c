/* Unit tests of the results store and the machine axes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../runner/machine.h"
#include "../../store/families.h"
#include "../../store/layout.h"
#include "../../store/run_read.h"
#include "../../store/run_write.h"
#include "../../store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

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

/* Runs take the first free number, and two writers at once never take the same one: with
 * renameat2(RENAME_NOREPLACE) and with the plain-rename fallback NFS gets (forced). */
static void commit_first_free_concurrent(bool forced)
{
	char root[] = "/tmp/scalebench-store.XXXXXX", dir[256], tmp[512], err[256], path[600];
	unsigned run;
	struct stat st;
	int fd;

	if (forced)
		assert_int_equal(setenv("SCALEBENCH_STORE_NO_RENAMEAT2", "1", 1), 0);
	else
		unsetenv("SCALEBENCH_STORE_NO_RENAMEAT2");

	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/a/b/commit", root);
	assert_int_equal(store_begin(dir, tmp, sizeof(tmp), &fd, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/who", tmp);
	assert_int_equal(close(open(path, O_CREAT | O_WRONLY, 0644)), 0);
	assert_int_equal(store_commit(dir, tmp, &run, err, sizeof(err)), 0);
	close(fd);
	assert_int_equal(run, 0);
	/* A hole at 1 is taken before 3 (2 holds a run: the fallback fills an empty one). */
	snprintf(path, sizeof(path), "%s/2", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/2/stats.json", dir);
	assert_int_equal(close(open(path, O_CREAT | O_WRONLY, 0644)), 0);
	assert_int_equal(store_begin(dir, tmp, sizeof(tmp), &fd, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/who", tmp);
	assert_int_equal(close(open(path, O_CREAT | O_WRONLY, 0644)), 0);
	assert_int_equal(store_commit(dir, tmp, &run, err, sizeof(err)), 0);
	close(fd);
	assert_int_equal(run, 1);

	/* 8 processes x 5 runs at once: 40 distinct numbers, no temp left over. */
	for (int p = 0; p < 8; p++) {
		if (fork() == 0) {
			for (int i = 0; i < 5; i++) {
				char t[512], e[256], f[600];
				unsigned r;
				FILE *fp;
				int o;

				if (store_begin(dir, t, sizeof(t), &o, e, sizeof(e)))
					_exit(1);
				snprintf(f, sizeof(f), "%s/who", t);
				fp = fopen(f, "w");
				fprintf(fp, "%d.%d\n", p, i);
				fclose(fp);
				if (store_commit(dir, t, &r, e, sizeof(e)))
					_exit(1);
				close(o);
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
	snprintf(path, sizeof(path), "%s/2/stats.json", dir);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
	unsetenv("SCALEBENCH_STORE_NO_RENAMEAT2");
}

static void test_commit_first_free_concurrent(void **state)
{
	(void)state;
	commit_first_free_concurrent(false);
}

static void test_commit_first_free_concurrent_fallback(void **state)
{
	(void)state;
	commit_first_free_concurrent(true);
}

/* renameat2 refusing RENAME_NOREPLACE with EINVAL (NFS; forced by the test hook) takes the
 * plain rename: seen by what only it does, filling an empty directory where the other skips
 * it.  A file or a run under a number is never replaced, and an empty temp directory is
 * refused (a plain rename of it could replace an empty number). */
static void test_commit_fallback_on_einval(void **state)
{
	char root[] = "/tmp/scalebench-store.XXXXXX", dir[256], tmp[512], err[256], path[600];
	unsigned run;
	struct stat st;
	int fd;
	(void)state;

	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/commit", root);
	assert_int_equal(store_mkdirs(dir), 0);
	snprintf(path, sizeof(path), "%s/0", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/1", dir);
	assert_int_equal(close(open(path, O_CREAT | O_WRONLY, 0644)), 0);
	for (int forced = 0; forced < 2; forced++) {
		if (forced)
			assert_int_equal(setenv("SCALEBENCH_STORE_NO_RENAMEAT2", "1", 1), 0);
		else
			unsetenv("SCALEBENCH_STORE_NO_RENAMEAT2");
		assert_int_equal(store_begin(dir, tmp, sizeof(tmp), &fd, err, sizeof(err)), 0);
		snprintf(path, sizeof(path), "%s/meta.json", tmp);
		assert_int_equal(close(open(path, O_CREAT | O_WRONLY, 0644)), 0);
		assert_int_equal(store_commit(dir, tmp, &run, err, sizeof(err)), 0);
		close(fd);
		/* renameat2 skips the empty 0 and the file 1; the fallback fills the empty 0. */
		assert_int_equal(run, forced ? 0u : 2u);
	}
	snprintf(path, sizeof(path), "%s/0/meta.json", dir);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/1", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));

	/* With the fallback, an empty temp directory is not published. */
	assert_int_equal(store_begin(dir, tmp, sizeof(tmp), &fd, err, sizeof(err)), 0);
	assert_int_equal(store_commit(dir, tmp, &run, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "empty"));
	store_abort(tmp);
	close(fd);
	snprintf(path, sizeof(path), "%s/3", dir);
	assert_int_not_equal(stat(path, &st), 0);
	unsetenv("SCALEBENCH_STORE_NO_RENAMEAT2");
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

static void test_abort_removes_everything(void **state)
{
	char root[] = "/tmp/scalebench-store.XXXXXX", tmp[512], err[256], path[600];
	struct stat st;
	FILE *fp;
	int fd;
	(void)state;

	assert_non_null(mkdtemp(root));
	assert_int_equal(store_begin(root, tmp, sizeof(tmp), &fd, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/stats.json", tmp);
	fp = fopen(path, "w");
	fputs("{}", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/sub", tmp);
	mkdir(path, 0755);
	store_abort(tmp);
	close(fd);
	assert_int_not_equal(stat(tmp, &st), 0);
	assert_int_equal(rmdir(root), 0); /* empty: nothing left */
	/* An unwritable place is an error naming it. */
	assert_int_equal(store_begin("/proc/nope/x", tmp, sizeof(tmp), &fd, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/proc/nope/x"));
}

/* A temp run directory whose writer died is removed by the next store_begin in its commit
 * directory; a live writer's (its lock held), a symlink, and what a link points to are not. */
static void test_begin_sweeps_stale(void **state)
{
	char root[] = "/tmp/scalebench-store.XXXXXX", dir[256], tmp[512], err[256], path[600];
	char child_tmp[512] = "";
	struct stat st;
	int fd, live_fd, p[2], status;
	pid_t child;
	FILE *fp;
	(void)state;

	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/commit", root);
	assert_int_equal(store_mkdirs(dir), 0);
	/* dead: never locked (a writer SIGKILL'd between mkdtemp and its lock, or long ago) */
	snprintf(path, sizeof(path), "%s/.tmp-run-dead", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.tmp-run-dead/stats.json", dir);
	fp = fopen(path, "w");
	fputs("{\"half\":", fp);
	fclose(fp);
	/* live: its lock is held (by another open file description, as another writer's) */
	snprintf(path, sizeof(path), "%s/.tmp-run-live", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	live_fd = open(path, O_RDONLY | O_DIRECTORY);
	assert_true(live_fd >= 0);
	assert_int_equal(flock(live_fd, LOCK_EX), 0);
	/* a link to somewhere else: neither it nor its target is ours */
	snprintf(path, sizeof(path), "%s/outside", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/outside/keep", root);
	fp = fopen(path, "w");
	fclose(fp);
	snprintf(path, sizeof(path), "%s/.tmp-run-link", dir);
	snprintf(tmp, sizeof(tmp), "%s/outside", root);
	assert_int_equal(symlink(tmp, path), 0);
	/* a writer in another process, alive, then SIGKILL'd */
	assert_int_equal(pipe(p), 0);
	child = fork();
	if (child == 0) {
		char t[512], e[256];
		int o;

		if (store_begin(dir, t, sizeof(t), &o, e, sizeof(e)) ||
		    write(p[1], t, strlen(t) + 1) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_true(read(p[0], child_tmp, sizeof(child_tmp)) > 0);
	close(p[0]);

	assert_int_equal(store_begin(dir, tmp, sizeof(tmp), &fd, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/.tmp-run-dead", dir);
	assert_int_not_equal(lstat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/.tmp-run-live", dir);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/.tmp-run-link", dir);
	assert_int_equal(lstat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/outside/keep", root);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(stat(child_tmp, &st), 0); /* its writer is alive */
	assert_int_equal(stat(tmp, &st), 0);
	store_abort(tmp);
	close(fd);

	/* The writer dies (its pid may be anyone's next): its directory goes with the next run;
	 * the live one stays until its lock is let go. */
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(store_begin(dir, tmp, sizeof(tmp), &fd, err, sizeof(err)), 0);
	assert_int_not_equal(stat(child_tmp, &st), 0);
	snprintf(path, sizeof(path), "%s/.tmp-run-live", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(store_commit(dir, tmp, &(unsigned){0}, err, sizeof(err)), 0);
	close(fd);
	close(live_fd);
	assert_int_equal(store_begin(dir, tmp, sizeof(tmp), &fd, err, sizeof(err)), 0);
	assert_int_not_equal(stat(path, &st), 0);
	store_abort(tmp);
	close(fd);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

/* A run's files are created exclusively: a symlink found in the temp run directory (only one
 * who can write there could plant it) is refused, never written through. */
static void test_run_files_exclusive(void **state)
{
	char root[] = "/tmp/scalebench-store.XXXXXX", dir[256], err[PATH_MAX + 256];
	char path[PATH_MAX + 64], target[300], buf[16] = "";
	struct store_run r;
	FILE *fp;
	json_t *v = json_object();
	(void)state;

	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/commit", root);
	snprintf(target, sizeof(target), "%s/target", root);
	fp = fopen(target, "w");
	fputs("precious", fp);
	fclose(fp);
	assert_int_equal(store_run_begin(&r, dir, err, sizeof(err)), 0);
	const char *names[] = {"output", "perf-stat.samples.json", "perf-profile.samples.json.gz"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", r.dir, names[i]);
		assert_int_equal(symlink(target, path), 0);
	}
	assert_null(store_run_create(&r, "output", err, sizeof(err)));
	assert_non_null(strstr(err, "output"));
	assert_int_equal(store_run_write_raw(&r, "perf-stat", false, v, err, sizeof(err)), -1);
	assert_int_equal(store_run_write_raw(&r, "perf-profile", true, v, err, sizeof(err)), -1);
	fp = fopen(target, "r");
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, "precious");
	store_run_abort(&r);
	json_decref(v);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

static char *make_root(void)
{
	char *root = strdup("/tmp/scalebench-store.XXXXXX");

	assert_non_null(mkdtemp(root));
	return root;
}

static void remove_root(char *root)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	free(root);
}

static void mkdirs_or_fail(const char *path)
{
	assert_int_equal(store_mkdirs(path), 0);
}

/* Awkward values build a path that parses back to their components, and that path again. */
static void test_layout_round_trip(void **state)
{
	char long_value[301], v255[256], path[PATH_MAX], again[PATH_MAX], err[PATH_MAX + 256];
	(void)state;

	memset(long_value, 'x', 300);
	long_value[300] = '\0';
	memset(v255, 'y', 255);
	v255[255] = '\0';
	const char *values[] = {"a/b",	     "..",	  ".hidden",   "%2F%",	    "with space",
				"",	     long_value,  v255,	       "-",	    "x%y z/..",
				"6.1.0-rc1", "100%-tput", "nr_task=1", "..hidden/x"};
	size_t nv = sizeof(values) / sizeof(values[0]);

	for (size_t i = 0; i < nv; i++) {
		const char *v = values[i], *w = values[(i + 3) % nv];
		struct store_axes a = {.root = "/tmp/r",
				       .testcase = v,
				       .path_params = w,
				       .tbox_group = v,
				       .rootfs = w,
				       .kconfig = v,
				       .compiler = w,
				       .commit = v},
				  p;
		char cv[NAME_MAX + 1], cw[NAME_MAX + 1];

		store_component(v, cv, sizeof(cv));
		store_component(w, cw, sizeof(cw));
		assert_true(strlen(cv) <= NAME_MAX && cv[0] != '.' && !strchr(cv, '/') && cv[0]);
		assert_int_equal(store_path(&a, path, sizeof(path)), 0);
		assert_int_equal(store_parse(path, STORE_COMMIT_DIR, &p, err, sizeof(err)), 0);
		assert_string_equal(p.root, "/tmp/r");
		assert_string_equal(p.testcase, cv);
		assert_string_equal(p.path_params, cw);
		assert_string_equal(p.tbox_group, cv);
		assert_string_equal(p.rootfs, cw);
		assert_string_equal(p.kconfig, cv);
		assert_string_equal(p.compiler, cw);
		assert_string_equal(p.commit, cv);
		assert_false(p.has_run);
		assert_int_equal(store_path(&p, again, sizeof(again)), 0);
		assert_string_equal(again, path);
		store_axes_free(&p);

		/* The same with a run number. */
		a.has_run = true;
		a.run = (unsigned)i * 1000;
		assert_int_equal(store_path(&a, path, sizeof(path)), 0);
		assert_int_equal(store_parse(path, STORE_RUN_DIR, &p, err, sizeof(err)), 0);
		assert_true(p.has_run);
		assert_int_equal(p.run, i * 1000);
		assert_string_equal(p.commit, cv);
		assert_int_equal(store_path(&p, again, sizeof(again)), 0);
		assert_string_equal(again, path);
		store_axes_free(&p);
	}
	/* 255 bytes is a whole component; longer values are cut to it. */
	store_component(long_value, path, NAME_MAX + 1);
	assert_int_equal(strlen(path), 255);
	/* Too small a buffer is an error, not a cut path. */
	struct store_axes a = {.root = "r",
			       .testcase = "t",
			       .path_params = "p",
			       .tbox_group = "b",
			       .rootfs = "f",
			       .kconfig = "k",
			       .compiler = "c",
			       .commit = "m"};
	assert_int_equal(store_path(&a, path, 10), -1);
	assert_int_equal(store_path(&a, path, 16), 0);
	assert_string_equal(path, "r/t/p/b/f/k/c/m");
}

static void test_layout_parse(void **state)
{
	struct store_axes a;
	char err[PATH_MAX + 256];
	(void)state;

	/* Roots: relative, absolute, none; extra slashes are no components. */
	assert_int_equal(store_parse("res//t/p/b/f/k/c/m/", STORE_COMMIT_DIR, &a, err, sizeof(err)),
			 0);
	assert_string_equal(a.root, "res");
	assert_string_equal(a.testcase, "t");
	assert_string_equal(a.commit, "m");
	store_axes_free(&a);
	assert_int_equal(store_parse("/t/p/b/f/k/c/m", STORE_COMMIT_DIR, &a, err, sizeof(err)), 0);
	assert_string_equal(a.root, "/");
	store_axes_free(&a);
	assert_int_equal(store_parse("t/p/b/f/k/c/m", STORE_COMMIT_DIR, &a, err, sizeof(err)), 0);
	assert_string_equal(a.root, ".");
	store_axes_free(&a);
	assert_int_equal(store_parse("/a/b/t/p/b/f/k/c/m/12", STORE_RUN_DIR, &a, err, sizeof(err)),
			 0);
	assert_string_equal(a.root, "/a/b");
	assert_string_equal(a.commit, "m");
	assert_int_equal(a.run, 12);
	store_axes_free(&a);
	/* A numeric commit label is a commit when a commit directory is asked for. */
	assert_int_equal(store_parse("r/t/p/b/f/k/c/123", STORE_COMMIT_DIR, &a, err, sizeof(err)),
			 0);
	assert_string_equal(a.commit, "123");
	store_axes_free(&a);

	/* Refused, each with a message naming the path. */
	const char *commit_bad[] = {
	    "t/p/b/f/k/c", "", "/", "r/t/p/b/f/k/.tmp/m", "r/t/p/../f/k/c/m", "r/t/p/b/f/k/c/."};
	for (size_t i = 0; i < sizeof(commit_bad) / sizeof(*commit_bad); i++) {
		err[0] = '\0';
		assert_int_equal(store_parse(commit_bad[i], STORE_COMMIT_DIR, &a, err, sizeof(err)),
				 -1);
		assert_non_null(strstr(err, commit_bad[i]));
		assert_null(a.storage_);
	}
	const char *run_bad[] = {
	    "r/t/p/b/f/k/c/m",	  "r/t/p/b/f/k/c/m/007",	"r/t/p/b/f/k/c/m/1a",
	    "r/t/p/b/f/k/c/m/-1", "r/t/p/b/f/k/c/m/4294967296", "r/t/p/b/f/k/c/m/.tmp-run-x",
	    "t/p/b/f/k/c/0"};
	for (size_t i = 0; i < sizeof(run_bad) / sizeof(*run_bad); i++) {
		err[0] = '\0';
		assert_int_equal(store_parse(run_bad[i], STORE_RUN_DIR, &a, err, sizeof(err)), -1);
		assert_non_null(strstr(err, run_bad[i]));
	}
	char longc[300];
	memset(longc, 'z', 299);
	longc[299] = '\0';
	char path[400];
	snprintf(path, sizeof(path), "r/t/p/b/f/k/c/%s", longc);
	assert_int_equal(store_parse(path, STORE_COMMIT_DIR, &a, err, sizeof(err)), -1);
}

static void test_run_number(void **state)
{
	static const struct {
		const char *name;
		int ok;
		unsigned run;
	} cases[] = {
	    {"0", 0, 0},
	    {"7", 0, 7},
	    {"10", 0, 10},
	    {"2147483647", 0, 2147483647u},
	    {"2147483648", 0, 2147483648u},
	    {"4294967295", 0, 4294967295u},
	    {"4294967296", -1, 0},
	    {"99999999999999999999999", -1, 0},
	    {"007", -1, 0},
	    {"00", -1, 0},
	    {"1a", -1, 0},
	    {"a1", -1, 0},
	    {"", -1, 0},
	    {"-1", -1, 0},
	    {"+1", -1, 0},
	    {" 1", -1, 0},
	    {"1 ", -1, 0},
	    {"0x10", -1, 0},
	    {"1.0", -1, 0},
	    {"1e3", -1, 0},
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		unsigned run = 12345;

		assert_int_equal(store_run_number(cases[i].name, &run), cases[i].ok);
		if (!cases[i].ok)
			assert_int_equal(run, cases[i].run);
	}
}

static void test_list_runs(void **state)
{
	char *root = make_root(), path[PATH_MAX], **runs;
	const char *names[] = {"10",	     "2",	    "0", "007",		"1a",
			       "2147483648", "99999999999", "1", ".tmp-run-abc"};
	ssize_t n;
	(void)state;

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, names[i]);
		mkdirs_or_fail(path);
	}
	n = store_list_runs(root, &runs);
	assert_int_equal(n, 5);
	const char *want[] = {"0", "1", "2", "10", "2147483648"};
	for (ssize_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, want[i]);
		assert_string_equal(runs[i], path);
		free(runs[i]);
	}
	free(runs);
	snprintf(path, sizeof(path), "%s/nonexistent", root);
	assert_int_equal(store_list_runs(path, &runs), -1);
	assert_int_equal(errno, ENOENT);
	remove_root(root);
}

/* Find matches path_params and commit exactly, at their places in the layout only. */
static void test_find(void **state)
{
	char *root = make_root(), path[PATH_MAX], **found;
	const char *dirs[] = {
	    "wis/process-1-getppid1/box/deb/defconfig/gcc-12/base",
	    "wis/process-1-getppid1/box/deb/defconfig/gcc-12/head",
	    "wis/thread-1-getppid1/box/deb/defconfig/gcc-12/base",
	    "wis/process-1-getppid1/box2/deb/other/clang-17/base",
	    "other/process-1-getppid1/b/r/k/c/base",
	    "wis/process-100%-x/box/deb/defconfig/gcc-12/base",
	    "wis/process-1-getppid1/box/deb/defconfig/gcc-12/_dot",
	    /* The right names at the wrong depth. */
	    "wis/base/box/deb/defconfig/gcc-12/process-1-getppid1",
	    "process-1-getppid1/base/x/y/z/w/v",
	    "wis/process-1-getppid1/box/deb/defconfig/gcc-12/deeper/base",
	    /* Hidden directories are not searched, as glob does not. */
	    "wis/process-1-getppid1/.hidden/deb/defconfig/gcc-12/base",
	    "wis/*/box/deb/defconfig/gcc-12/base",
	};
	(void)state;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		mkdirs_or_fail(path);
	}
	/* A file where a commit directory would be is none. */
	snprintf(path, sizeof(path), "%s/wis/thread-1-getppid1/box/deb/defconfig/gcc-12/head",
		 root);
	fclose(fopen(path, "w"));
	/* A symbolic link to a commit directory's parent counts, like glob's. */
	snprintf(path, sizeof(path), "%s/wis/process-1-getppid1/box/deb/linked", root);
	assert_int_equal(symlink("defconfig", path), 0);

	struct {
		const char *pp, *commit;
		size_t n;
		const char *first;
	} q[] = {
	    {"process-1-getppid1", "base", 4, "other/process-1-getppid1/b/r/k/c/base"},
	    {"process-1-getppid1", "head", 2,
	     "wis/process-1-getppid1/box/deb/defconfig/gcc-12/head"},
	    {"thread-1-getppid1", "head", 0, NULL},
	    {"thread-1-getppid1", NULL, 1, "wis/thread-1-getppid1/box/deb/defconfig/gcc-12/base"},
	    {NULL, "base", 7, "other/process-1-getppid1/b/r/k/c/base"},
	    {"*", "base", 1, "wis/*/box/deb/defconfig/gcc-12/base"},
	    {"process-1-*", "base", 0, NULL},
	    {"process-1-getppid1", "*", 0, NULL},
	    {"process-1-getppid1", "[bh]*", 0, NULL},
	    {"process-100%-x", "base", 1, "wis/process-100%-x/box/deb/defconfig/gcc-12/base"},
	    /* Values are matched as the layout stores them: ".dot" is "_dot". */
	    {"process-1-getppid1", ".dot", 2,
	     "wis/process-1-getppid1/box/deb/defconfig/gcc-12/_dot"},
	    {"nothing", "base", 0, NULL},
	};
	for (size_t i = 0; i < sizeof(q) / sizeof(*q); i++) {
		ssize_t n = store_find(root, q[i].pp, q[i].commit, &found);

		assert_int_equal(n, q[i].n);
		if (n) {
			snprintf(path, sizeof(path), "%s/%s", root, q[i].first);
			assert_string_equal(found[0], path);
		}
		for (ssize_t j = 0; j < n; j++) {
			struct store_axes a;
			char err[PATH_MAX + 256];

			/* Sorted, and each one a commit directory of the tree. */
			if (j)
				assert_true(strcmp(found[j - 1], found[j]) < 0);
			assert_int_equal(
			    store_parse(found[j], STORE_COMMIT_DIR, &a, err, sizeof(err)), 0);
			assert_string_equal(a.root, root);
			if (q[i].pp)
				assert_string_equal(a.path_params, q[i].pp);
			store_axes_free(&a);
		}
		for (ssize_t j = 0; j < n; j++)
			free(found[j]);
		free(found);
	}
	/* Through the link: process-1-getppid1/base is found under both names. */
	assert_int_equal(store_find(root, "process-1-getppid1", "base", &found), 4);
	bool linked = false;
	for (int j = 0; j < 4; j++) {
		linked |= strstr(found[j], "/linked/") != NULL;
		free(found[j]);
	}
	free(found);
	assert_true(linked);
	/* Links to the directory they are in or one above are loops, not followed: eight of them
	 * in the root and one deeper change nothing (followed, 9^7 paths). */
	ssize_t all = store_find(root, NULL, NULL, &found);

	assert_true(all > 0);
	for (ssize_t j = 0; j < all; j++)
		free(found[j]);
	free(found);
	for (int i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "%s/loop%d", root, i);
		assert_int_equal(symlink(".", path), 0);
	}
	snprintf(path, sizeof(path), "%s/wis/process-1-getppid1/box/deb/up", root);
	assert_int_equal(symlink("../..", path), 0);
	assert_int_equal(store_find(root, NULL, NULL, &found), all);
	for (ssize_t j = 0; j < all; j++)
		free(found[j]);
	free(found);
	/* A root with a trailing slash, and a missing root. */
	snprintf(path, sizeof(path), "%s/", root);
	assert_int_equal(store_find(path, "thread-1-getppid1", "base", &found), 1);
	free(found[0]);
	free(found);
	snprintf(path, sizeof(path), "%s/missing", root);
	assert_int_equal(store_find(path, NULL, NULL, &found), 0);
	free(found);
	remove_root(root);
}

/* ---- stats.json: the fast path against jansson ------------------------------------------ */

/* jansson's verdict on a stats.json: a flat object of numbers, or not. */
static json_t *jansson_stats(const char *text, size_t len)
{
	json_error_t e;
	json_t *t = json_loadb(text, len, 0, &e), *v;
	const char *k;

	if (t && !json_is_object(t)) {
		json_decref(t);
		return NULL;
	}
	json_object_foreach (t, k, v)
		if (!json_is_number(v)) {
			json_decref(t);
			return NULL;
		}
	return t;
}

static bool same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

/* The pairs say what the tree says: every name of the tree, with its value (the last one
 * given for a name listed twice), and nothing else. */
static bool pairs_match(const struct store_stat *v, size_t n, const json_t *t)
{
	const char *k;
	json_t *x;

	for (size_t i = 0; i < n; i++)
		if (strlen(v[i].name) != v[i].len || !json_object_get(t, v[i].name))
			return false;
	json_object_foreach ((json_t *)t, k, x) {
		const struct store_stat *last = NULL;

		for (size_t i = 0; i < n; i++)
			if (!strcmp(v[i].name, k))
				last = &v[i];
		if (!last || !same_double(last->value, json_number_value(x)) ||
		    last->integer != json_is_integer(x))
			return false;
	}
	return true;
}

static long fast_accepted, fast_deferred;

/* Both paths over one text: the fast path never accepts what jansson rejects and gives the
 * same values; the reader as a whole accepts exactly what jansson accepts. */
static void check_agree(const char *text, size_t len)
{
	char *a = malloc(len + 1), *b = malloc(len + 1), why[256];
	struct store_stat *v = NULL;
	struct store_stats s;
	json_t *t = jansson_stats(text, len);
	long n;

	memcpy(a, text, len);
	a[len] = '\0';
	memcpy(b, text, len);
	b[len] = '\0';
	n = store_stats_parse_fast(a, len, &v);
	if (n >= 0) {
		fast_accepted++;
		if (!t || !pairs_match(v, (size_t)n, t))
			fail_msg("fast path accepted what jansson %s: '%.*s'",
				 t ? "reads otherwise" : "rejects", (int)len, text);
	} else {
		fast_deferred++;
	}
	int r = store_parse_stats(b, len, &s, why, sizeof(why));
	if ((r == 0) != (t != NULL))
		fail_msg("reader %s what jansson %s: '%.*s'", r ? "rejects" : "accepts",
			 t ? "accepts" : "rejects", (int)len, text);
	if (r == 0) {
		assert_true(pairs_match(s.v, s.n, t));
		store_stats_free(&s);
	}
	free(v);
	free(a);
	free(b);
	json_decref(t);
}

#define TEXT(s)                                                                                    \
	{                                                                                          \
		s, sizeof(s) - 1                                                                   \
	}
static const struct {
	const char *text;
	size_t len;
} stats_corpus[] = {
    /* good */
    TEXT("{}"),
    TEXT(" \n{ }\r\n\t"),
    TEXT("{\"a\":1}"),
    TEXT("{\"will-it-scale.per_process_ops\": 123456.789, \"proc-vmstat.pgfault\": 42}\n"),
    TEXT("{\n \"a\": 1,\n \"b\": -2.5e-3,\n \"c\": 0\n}\n"),
    TEXT("{\"a\":-0}"),
    TEXT("{\"a\":-0.0}"),
    TEXT("{\"a\":0.1,\"b\":1E+2,\"c\":1e-2,\"d\":0e0,\"e\":123.456e-7}"),
    TEXT("{\"a\":9223372036854775807}"),
    TEXT("{\"a\":-9223372036854775808}"),
    TEXT("{\"a\":9007199254740993}"),
    TEXT("{\"a\":12345678901234567890.0}"),
    TEXT("{\"a\":1e-400}"),
    TEXT("{\"a\":2.2250738585072011e-308}"),
    TEXT("{\"a\":1.7976931348623157e308}"),
    TEXT("{\"a\":1,\"a\":2}"),
    TEXT("{\"\":1}"),
    TEXT("{\"x.y-z:w%/ ~\x7f\":3}"),
    TEXT("{\"a\\\"b\":1}"),
    TEXT("{\"a\\u00e9\":1}"),
    TEXT("{\"\xc3\xa9t\xc3\xa9\":1}"),
    TEXT("{\"a\\/b\":1,\"c\\n\":2}"),
    TEXT("{\"a\" : 1 , \"b\" :2}"),
    /* bad */
    TEXT("{\"a\":0x10}"),
    TEXT("{\"a\":-nan}"),
    TEXT("{\"a\":nan}"),
    TEXT("{\"a\":NaN}"),
    TEXT("{\"a\":inf}"),
    TEXT("{\"a\":-inf}"),
    TEXT("{\"a\":Infinity}"),
    TEXT("{\"a\":1e999}"),
    TEXT("{\"a\":-1e999}"),
    TEXT("{\"a\":1.7976931348623159e308}"),
    TEXT("{\"a\":01}"),
    TEXT("{\"a\":-01}"),
    TEXT("{\"a\":00}"),
    TEXT("{\"a\":1.}"),
    TEXT("{\"a\":.5}"),
    TEXT("{\"a\":+1}"),
    TEXT("{\"a\":1e}"),
    TEXT("{\"a\":1e+}"),
    TEXT("{\"a\":-}"),
    TEXT("{\"a\":- 1}"),
    TEXT("{\"a\":9223372036854775808}"),
    TEXT("{\"a\":-9223372036854775809}"),
    TEXT("{\"a\":99999999999999999999999}"),
    TEXT("{\"a\":1,}"),
    TEXT("{,}"),
    TEXT("{\"a\":1}x"),
    TEXT("{\"a\":1}{}"),
    TEXT("{\"a\":\"1\"}"),
    TEXT("{\"a\":true}"),
    TEXT("{\"a\":null}"),
    TEXT("{\"a\":[1]}"),
    TEXT("{\"a\":{\"b\":1}}"),
    TEXT("[1]"),
    TEXT("1"),
    TEXT(""),
    TEXT(" "),
    TEXT("{\"a\":1"),
    TEXT("{\"a\" 1}"),
    TEXT("{a:1}"),
    TEXT("{'a':1}"),
    TEXT("{\"a\tb\":1}"),
    TEXT("{\"a\nb\":1}"),
    TEXT("{\"a\":1}\0"),
    TEXT("{\"a\0\":1}"),
    TEXT("{\"\xff\":1}"),
    TEXT("{\"\xc3\":1}"),
    TEXT("{\"\xed\xa0\x80\":1}"),
    TEXT("\xef\xbb\xbf{\"a\":1}"),
    TEXT("{\"a\\u0000b\":1}"),
    TEXT("{\"a\\x\":1}"),
    TEXT("{\"a\":1 2}"),
    TEXT("{\"a\":0.1.2}"),
    TEXT("{\"a\":1e5e3}"),
    TEXT("{\"a\":1_000}"),
    TEXT("{\"a\":1,,\"b\":2}"),
    TEXT("{\"a\":\v1}"),
    TEXT("{\"a\":1\f}"),
};

static void test_stats_corpus(void **state)
{
	(void)state;

	fast_accepted = fast_deferred = 0;
	for (size_t i = 0; i < sizeof(stats_corpus) / sizeof(*stats_corpus); i++)
		check_agree(stats_corpus[i].text, stats_corpus[i].len);
	/* The corpus exercises the fast path both ways. */
	assert_true(fast_accepted >= 15);
	assert_true(fast_deferred >= 40);

	/* What scalebench writes takes the fast path. */
	char text[] = "{\n \"a.b\": 1.5,\n \"c\": 2\n}\n";
	struct store_stat *v;
	assert_int_equal(store_stats_parse_fast(text, strlen(text), &v), 2);
	assert_string_equal(v[0].name, "a.b");
	assert_true(v[0].value == 1.5 && v[1].value == 2);
	free(v);
}

/* Random edits of good texts (bytes that matter to the grammar): still the same verdicts. */
static void test_stats_mutations(void **state)
{
	static const char bytes[] = "0123456789-+.eE,:{}\"\\ \t\nxnu\xff\x7f";
	const char *seeds[] = {
	    "{\"a\":1,\"bb.c\":-2.5e-3,\"d\":0}",
	    "{\n \"will-it-scale.per_process_ops\": 1234567.12345,\n \"x\": "
	    "9223372036854775807\n}\n",
	    "{\"a\":1e308,\"b\":-0.0,\"c\":1E-5}",
	};
	unsigned seed = 11;
	(void)state;

	fast_accepted = fast_deferred = 0;
	for (int it = 0; it < 30000; it++) {
		char buf[256];
		const char *s = seeds[it % 3];
		size_t len = strlen(s);

		memcpy(buf, s, len);
		for (int edits = 1 + rand_r(&seed) % 3; edits; edits--) {
			size_t at = (size_t)rand_r(&seed) % (len + 1);
			char c = bytes[rand_r(&seed) % (sizeof(bytes) - 1)];
			int op = rand_r(&seed) % 3;

			if (op == 0 && at < len) {
				buf[at] = c;
			} else if (op == 1 && len + 1 < sizeof(buf)) {
				memmove(buf + at + 1, buf + at, len - at);
				buf[at] = c;
				len++;
			} else if (at < len) {
				memmove(buf + at, buf + at + 1, len - at - 1);
				len--;
			}
		}
		check_agree(buf, len);
	}
	assert_true(fast_accepted > 1000 && fast_deferred > 1000);
}

/* Reals as strtod rounds them, bit for bit, whichever way the fast path takes: random
 * significands of 1 to 20 digits at every scale, and the halfway cases that need strtod. */
static void test_stats_reals(void **state)
{
	static const char *const tricky[] = {
	    "9007199254740993.0",
	    "9007199254740992.5",
	    "0.1",
	    "0.2",
	    "0.3",
	    "1e23",
	    "8.3e-1",
	    "2.2250738585072014e-308",
	    "4.9e-324",
	    "1.7976931348623157e308",
	    "123456789012345678e2",
	    "1844674407370955161.5",
	    "9999999999999999999.0",
	    "0.0000000000000000000000000001",
	    "7.038531e-26",
	    "1e-27",
	    "1e27",
	    "1e28",
	    "99999999999999999999e-1",
	    "-0.0",
	    "0.0e99",
	    "5e-324",
	    "2.4703282292062327e-324",
	    "1.00000000000000011102230246251565e0",
	    "1.0000000000000002220446049250313e0",
	    "3.4028234663852886e38",
	    "0.30000000000000004",
	};
	unsigned seed = 7;
	char text[128];
	(void)state;

	for (int it = 0; it < 200000 + (int)(sizeof(tricky) / sizeof(*tricky)); it++) {
		char num[64];

		if (it < (int)(sizeof(tricky) / sizeof(*tricky))) {
			snprintf(num, sizeof(num), "%s", tricky[it]);
		} else {
			int nd = 1 + rand_r(&seed) % 20, dot = rand_r(&seed) % (nd + 1), n = 0;

			if (rand_r(&seed) % 4 == 0)
				num[n++] = '-';
			for (int d = 0; d < nd; d++) {
				if (d == dot && d)
					num[n++] = '.';
				num[n++] = (char)('0' + (d == 0 ? 1 + rand_r(&seed) % 9
								: rand_r(&seed) % 10));
			}
			num[n] = '\0';
			if (dot == 0 || dot == nd)
				n += snprintf(num + n, sizeof(num) - (size_t)n, ".%d",
					      rand_r(&seed) % 10);
			if (rand_r(&seed) % 2)
				n += snprintf(num + n, sizeof(num) - (size_t)n, "e%d",
					      rand_r(&seed) % 70 - 35);
		}
		int len = snprintf(text, sizeof(text), "{\"x\":%s}", num);
		struct store_stat *v;
		char *end;

		errno = 0;
		double want = strtod(num, &end);
		bool overflow = isinf(want);
		long n = store_stats_parse_fast(text, (size_t)len, &v);

		if (overflow) {
			assert_int_equal(n, -1);
			continue;
		}
		if (n != 1 || !same_double(v[0].value, want))
			fail_msg("'%s': %.17g, strtod says %.17g", num, n == 1 ? v[0].value : NAN,
				 want);
		free(v);
	}
}

static void write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* Only regular files, of a bounded size, and what is wrong said without the path. */
static void test_read_stats_files(void **state)
{
	char *root = make_root(), path[PATH_MAX], why[256];
	struct store_stats s;
	json_t *meta;
	(void)state;

	assert_int_equal(store_read_stats(root, &s, why, sizeof(why)), -1);
	assert_int_equal(errno, ENOENT);
	snprintf(path, sizeof(path), "%s/stats.json", root);
	write_text(path, "{\"a\": 1, \"b\": 2.5}");
	assert_int_equal(store_read_stats(root, &s, why, sizeof(why)), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[1].name, "b");
	assert_true(s.v[1].value == 2.5);
	store_stats_free(&s);
	write_text(path, "{\"a\": 0x10}");
	assert_int_equal(store_read_stats(root, &s, why, sizeof(why)), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(why, "line 1"));
	write_text(path, "{\"a\": \"x\"}");
	assert_int_equal(store_read_stats(root, &s, why, sizeof(why)), -1);
	assert_string_equal(why, "stat 'a' is not a number");
	/* A FIFO is refused at once, not waited on; so is a directory. */
	unlink(path);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(store_read_stats(root, &s, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a regular file"));
	unlink(path);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(store_read_stats(root, &s, why, sizeof(why)), -1);
	rmdir(path);
	/* Beyond the cap: refused without reading (a sparse file costs no disk). */
	FILE *fp = fopen(path, "w");
	assert_int_equal(ftruncate(fileno(fp), (off_t)STORE_FILE_MAX + 1), 0);
	fclose(fp);
	assert_int_equal(store_read_stats(root, &s, why, sizeof(why)), -1);
	assert_int_equal(errno, EFBIG);
	unlink(path);

	/* meta.json: an object, or NULL with the reason naming the file. */
	assert_null(store_read_meta(root, why, sizeof(why)));
	assert_non_null(strstr(why, "meta.json"));
	snprintf(path, sizeof(path), "%s/meta.json", root);
	write_text(path, "[1]");
	assert_null(store_read_meta(root, why, sizeof(why)));
	write_text(path, "{\"suite\": \"x\"}");
	meta = store_read_meta(root, why, sizeof(why));
	assert_non_null(meta);
	assert_string_equal(json_string_value(json_object_get(meta, "suite")), "x");
	json_decref(meta);
	remove_root(root);
}

/* job.yaml: the first document as a tree of strings, a bare key null, an alias null; what is
 * not a mapping, not YAML or too deep is NULL with the file named. */
static void test_read_job(void **state)
{
	char *root = make_root(), path[PATH_MAX], why[256], deep[200] = "";
	json_t *job, *wis;
	(void)state;

	assert_null(store_read_job(root, why, sizeof(why)));
	assert_non_null(strstr(why, "job.yaml"));
	snprintf(path, sizeof(path), "%s/job.yaml", root);
	write_text(path, "suite: will-it-scale\nnr_task: 100%\nruntime: 300s\nperf-stat:\n"
			 "will-it-scale:\n  mode: thread\n  test: page_fault3\nlist: [1, a]\n"
			 "anchor: &a x\nalias: *a\n---\nsecond: document\n");
	job = store_read_job(root, why, sizeof(why));
	assert_non_null(job);
	assert_string_equal(json_string_value(json_object_get(job, "nr_task")), "100%");
	assert_string_equal(json_string_value(json_object_get(job, "runtime")), "300s");
	assert_true(json_is_null(json_object_get(job, "perf-stat")));
	wis = json_object_get(job, "will-it-scale");
	assert_string_equal(json_string_value(json_object_get(wis, "mode")), "thread");
	assert_string_equal(json_string_value(json_object_get(wis, "test")), "page_fault3");
	assert_string_equal(json_string_value(json_array_get(json_object_get(job, "list"), 1)),
			    "a");
	assert_true(json_is_null(json_object_get(job, "alias")));
	assert_null(json_object_get(job, "second"));
	json_decref(job);
	write_text(path, "- a\n- b\n");
	assert_null(store_read_job(root, why, sizeof(why)));
	assert_non_null(strstr(why, "not a mapping"));
	write_text(path, "a: [b\n");
	assert_null(store_read_job(root, why, sizeof(why)));
	assert_non_null(strstr(why, "job.yaml: line"));
	write_text(path, "? {a: b}\n: c\n");
	assert_null(store_read_job(root, why, sizeof(why)));
	assert_non_null(strstr(why, "not a scalar"));
	for (int i = 0; i < 40; i++)
		strcat(deep, "[");
	write_text(path, deep);
	assert_null(store_read_job(root, why, sizeof(why)));
	assert_non_null(strstr(why, "deeper than"));
	remove_root(root);
}

/* ---- writing a run ---------------------------------------------------------------------- */

static json_t *load_json(const char *dir, const char *name)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return json_load_file(path, 0, NULL);
}

static void test_run_write(void **state)
{
	char *root = make_root(), dir[PATH_MAX], err[PATH_MAX + 256], path[PATH_MAX + 64], buf[64];
	struct store_run r;
	struct stat st;
	FILE *fp;
	(void)state;

	snprintf(dir, sizeof(dir), "%s/t/p/b/f/k/c/m", root);
	assert_int_equal(store_run_begin(&r, dir, err, sizeof(err)), 0);
	assert_non_null(strstr(r.dir, "/.tmp-run-"));
	fp = store_run_create(&r, "output", err, sizeof(err));
	assert_non_null(fp);
	fputs("hello\n", fp);
	assert_int_equal(store_run_close(&r, fp, "output", err, sizeof(err)), 0);
	json_t *raw = json_pack("[{s:f}]", "t_s", 1.5);
	assert_int_equal(store_run_write_raw(&r, "perf-stat", false, raw, err, sizeof(err)), 0);
	assert_int_equal(store_run_write_raw(&r, "perf-profile", true, raw, err, sizeof(err)), 0);
	json_t *stats = json_pack("{s:f, s:f, s:i, s:i, s:i, s:f}", "will-it-scale.per_process_ops",
				  10.0, "proc-vmstat.pgfault", 2.0, "stderr.copy_1_failed", 1,
				  "dmesg.WARNING:at_x", 1, "cpu", 3, "perf-stat.ps.ipc", 1.0);
	json_t *meta =
	    json_pack("{s:s, s:[s]}", "testcase", "x", "failure_stats", "stderr.copy_1_failed");
	const struct store_headline h = {.suite = "will-it-scale",
					 .stat = "will-it-scale.per_process_ops"};
	assert_int_equal(store_meta_declare(meta, &h, stats), 0);
	assert_int_equal(store_run_finish(&r, meta, stats, err, sizeof(err)), 0);
	assert_int_equal(r.number, 0);
	snprintf(path, sizeof(path), "%s/0", dir);
	assert_string_equal(r.dir, path);
	store_run_abort(&r); /* finished: nothing to do */
	assert_int_equal(stat(path, &st), 0);

	json_t *m = load_json(r.dir, "meta.json");
	assert_non_null(m);
	assert_string_equal(json_string_value(json_object_get(m, "suite")), "will-it-scale");
	json_t *want =
	    json_pack("{s:s, s:s}", "stat", "will-it-scale.per_process_ops", "direction", "higher");
	assert_true(json_equal(json_object_get(m, "headline"), want));
	json_decref(want);
	want = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "will-it-scale", "headline",
			 "proc-vmstat", "monitor", "stderr", "failure", "dmesg", "failure", "cpu",
			 "monitor", "perf-stat", "monitor");
	assert_true(json_equal(json_object_get(m, "families"), want));
	json_decref(want);
	json_decref(m);
	m = load_json(r.dir, "stats.json");
	assert_true(json_equal(m, stats));
	json_decref(m);
	m = load_json(r.dir, "perf-stat.samples.json");
	assert_true(json_equal(m, raw));
	json_decref(m);
	char raw_path[PATH_MAX];
	assert_int_equal(store_raw_path(r.dir, "perf-stat", raw_path, sizeof(raw_path)), 0);
	snprintf(path, sizeof(path), "%s/perf-stat.samples.json", r.dir);
	assert_string_equal(raw_path, path);
	/* not LKP's <monitor>.json (its create-stats-matrix would read a map there) */
	snprintf(path, sizeof(path), "%s/perf-stat.json", r.dir);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(store_raw_path(r.dir, "perf-profile", raw_path, sizeof(raw_path)), 0);
	snprintf(path, sizeof(path), "%s/perf-profile.samples.json.gz", r.dir);
	assert_string_equal(raw_path, path);
	assert_int_equal(store_raw_path(r.dir, "meminfo", raw_path, sizeof(raw_path)), -1);
	{
		/* a run stored before: <monitor>.json, found when no .samples.json is there */
		char old[PATH_MAX + 32], found[PATH_MAX];
		FILE *o;

		snprintf(old, sizeof(old), "%s/meminfo.json", r.dir);
		o = fopen(old, "w");
		assert_non_null(o);
		fputs("[]\n", o);
		fclose(o);
		assert_int_equal(store_raw_path(r.dir, "meminfo", found, sizeof(found)), 0);
		assert_string_equal(found, old);
		unlink(old);
	}
	gzFile gz = gzopen(path, "rb");
	assert_non_null(gz);
	int got = gzread(gz, buf, sizeof(buf) - 1);
	gzclose(gz);
	assert_true(got > 0);
	buf[got] = '\0';
	assert_string_equal(buf, "[{\"t_s\":1.5}]\n");
	json_decref(meta);

	/* A cost testcase: lower is better; a suite with dots is one family. */
	meta = json_object();
	json_decref(stats);
	stats = json_pack("{s:f, s:f}", "phoronix-test-suite.osbench.LaunchPrograms.us_per_event",
			  1.0, "time.user_time", 0.5);
	const struct store_headline cost = {
	    .suite = "phoronix-test-suite.osbench.LaunchPrograms",
	    .stat = "phoronix-test-suite.osbench.LaunchPrograms.us_per_event",
	    .lower_is_better = true};
	assert_int_equal(store_meta_declare(meta, &cost, stats), 0);
	want = json_pack("{s:s, s:s}", "phoronix-test-suite", "headline", "time", "monitor");
	assert_true(json_equal(json_object_get(meta, "families"), want));
	json_decref(want);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(meta, "headline"), "direction")),
	    "lower");

	/* An aborted run leaves nothing; the next one takes number 1. */
	assert_int_equal(store_run_begin(&r, dir, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s", r.dir);
	store_run_abort(&r);
	assert_int_not_equal(stat(path, &st), 0);
	assert_int_equal(store_run_begin(&r, dir, err, sizeof(err)), 0);
	assert_int_equal(store_run_finish(&r, meta, stats, err, sizeof(err)), 0);
	assert_int_equal(r.number, 1);
	/* An unwritable place: the error names it. */
	assert_int_equal(store_run_begin(&r, "/proc/nope/x", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/proc/nope/x"));
	store_run_abort(&r);
	json_decref(meta);
	json_decref(stats);
	json_decref(raw);
	remove_root(root);
}

/* Two writers through the whole API at once: every run whole, no number taken twice; with
 * renameat2 and with the fallback (forced). */
static void run_write_concurrent(bool forced)
{
	char *root = make_root(), dir[PATH_MAX];

	if (forced)
		assert_int_equal(setenv("SCALEBENCH_STORE_NO_RENAMEAT2", "1", 1), 0);
	else
		unsetenv("SCALEBENCH_STORE_NO_RENAMEAT2");

	snprintf(dir, sizeof(dir), "%s/t/p/b/f/k/c/m", root);
	for (int p = 0; p < 2; p++) {
		if (fork() == 0) {
			for (int i = 0; i < 20; i++) {
				char err[PATH_MAX + 256];
				struct store_run r;
				json_t *stats = json_pack("{s:i, s:i}", "w.writer", p, "w.i", i);
				json_t *meta = json_object();

				if (store_run_begin(&r, dir, err, sizeof(err)) ||
				    store_run_finish(&r, meta, stats, err, sizeof(err)))
					_exit(1);
				json_decref(stats);
				json_decref(meta);
			}
			_exit(0);
		}
	}
	for (int p = 0; p < 2; p++) {
		int status;

		wait(&status);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	char **runs;
	ssize_t n = store_list_runs(dir, &runs);
	bool seen[2][20] = {{false}};
	assert_int_equal(n, 40);
	for (ssize_t i = 0; i < n; i++) {
		struct store_stats s;
		char why[256], want[PATH_MAX + 32];

		snprintf(want, sizeof(want), "%s/%zd", dir, i);
		assert_string_equal(runs[i], want);
		assert_int_equal(store_read_stats(runs[i], &s, why, sizeof(why)), 0);
		assert_int_equal(s.n, 2);
		int w = (int)s.v[1].value, k = (int)s.v[0].value;
		if (!strcmp(s.v[0].name, "w.writer"))
			w = (int)s.v[0].value, k = (int)s.v[1].value;
		assert_false(seen[w][k]);
		seen[w][k] = true;
		store_stats_free(&s);
		free(runs[i]);
	}
	free(runs);
	remove_root(root);
	unsetenv("SCALEBENCH_STORE_NO_RENAMEAT2");
}

static void test_run_write_concurrent(void **state)
{
	(void)state;
	run_write_concurrent(false);
}

static void test_run_write_concurrent_fallback(void **state)
{
	(void)state;
	run_write_concurrent(true);
}

static void test_failure_names(void **state)
{
	char out[256];
	(void)state;

	failure_stat_name("copy 1 of 2 (process 1234) killed by signal 6", out, sizeof(out));
	assert_string_equal(out, "stderr.copy_killed_by_signal_6");
	failure_stat_name("crash1: copy 0 of 1 (thread 9123) killed by signal 11 (Segmentation fault)",
			  out, sizeof(out));
	assert_string_equal(out, "stderr.crash1__copy_killed_by_signal_11");
	failure_stat_name("crash1: copy 7 of 100 (thread 1) killed by signal 11 (Segmentation fault)",
			  out, sizeof(out));
	assert_string_equal(out, "stderr.crash1__copy_killed_by_signal_11");
	failure_stat_name("copy 2 of 4 (process 9) stuck (no progress for 3 s)", out, sizeof(out));
	assert_string_equal(out, "stderr.copy_stuck");
	failure_stat_name("a copy (unterminated", out, sizeof(out));
	assert_string_equal(out, "stderr.a_copy");
	failure_stat_name("copy 3 killed", out, sizeof(out));
	assert_string_equal(out, "stderr.copy_3_killed");
	failure_stat_name("setup: timed out", out, sizeof(out));
	assert_string_equal(out, "stderr.setup__timed_out");
	failure_stat_name("", out, sizeof(out));
	assert_string_equal(out, "stderr.");
	failure_stat_name("abcdefghij", out, 12);
	assert_string_equal(out, "stderr.abcd");
	assert_true(family_is_failure("stderr") && family_is_failure("dmesg") &&
		    family_is_failure("kmsg") && family_is_failure("last_state"));
	assert_false(family_is_failure("will-it-scale") || family_is_failure("perf-stat") ||
		     family_is_failure("stderrx"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tbox_group),
	    cmocka_unit_test(test_compiler),
	    cmocka_unit_test(test_rootfs),
	    cmocka_unit_test(test_component),
	    cmocka_unit_test(test_commit_first_free_concurrent),
	    cmocka_unit_test(test_commit_first_free_concurrent_fallback),
	    cmocka_unit_test(test_commit_fallback_on_einval),
	    cmocka_unit_test(test_begin_sweeps_stale),
	    cmocka_unit_test(test_run_files_exclusive),
	    cmocka_unit_test(test_abort_removes_everything),
	    cmocka_unit_test(test_layout_round_trip),
	    cmocka_unit_test(test_layout_parse),
	    cmocka_unit_test(test_run_number),
	    cmocka_unit_test(test_list_runs),
	    cmocka_unit_test(test_find),
	    cmocka_unit_test(test_stats_corpus),
	    cmocka_unit_test(test_stats_mutations),
	    cmocka_unit_test(test_stats_reals),
	    cmocka_unit_test(test_read_stats_files),
	    cmocka_unit_test(test_read_job),
	    cmocka_unit_test(test_run_write),
	    cmocka_unit_test(test_run_write_concurrent),
	    cmocka_unit_test(test_run_write_concurrent_fallback),
	    cmocka_unit_test(test_failure_names),
	};

	return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
