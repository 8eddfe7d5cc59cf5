/* Unit tests of analyze/nightly_state: the state file read back as written, refused with the
 * file named when it is not one, the Message-ID from the keys alone, the mbox look-up, the
 * lock, and a change recognised at its commit or the one next to it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../analyze/nightly.h"
#include "../../analyze/nightly_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/scalebench-nightly.XXXXXX";

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

static struct nightly_key key(const char *job, const char *stat, const char *commit,
			      const char *kind)
{
	return (struct nightly_key){(char *)job, (char *)stat, (char *)commit, (char *)kind, NULL, 0};
}

static void test_missing_is_empty(void **state)
{
	struct nightly_state st;
	char path[256], err[512];

	(void)state;
	path_of(path, sizeof(path), "none.json");
	assert_int_equal(nightly_state_load(path, &st, err, sizeof(err)), 0);
	assert_int_equal(st.n, 0);
	nightly_state_free(&st);
}

static void test_round_trip(void **state)
{
	struct nightly_state st, back;
	char path[256], err[512];
	struct nightly_key k[2] = {key("wis/a", "will-it-scale.per_process_ops", "c5", "regression"),
				   key("wis/b", "x\ny", "c5", "improvement")};

	(void)state;
	path_of(path, sizeof(path), "rt.json");
	assert_int_equal(nightly_state_load(path, &st, err, sizeof(err)), 0);
	assert_int_equal(nightly_state_add(&st, "<m1@h>", "Subject: x\n\nbody\n", k, 2, 100), 0);
	assert_int_equal(nightly_state_add(&st, "<m2@h>", "text 2", k, 1, 101), 1);
	nightly_state_mailed(&st, 1, 200);
	assert_int_equal(nightly_state_save(&st, err, sizeof(err)), 0);
	assert_int_equal(nightly_state_load(path, &back, err, sizeof(err)), 0);
	assert_int_equal(back.n, 2);
	assert_false(back.msgs[0].mailed);
	assert_string_equal(back.msgs[0].text, "Subject: x\n\nbody\n");
	assert_string_equal(back.msgs[0].message_id, "<m1@h>");
	assert_int_equal(back.msgs[0].nkeys, 2);
	assert_string_equal(back.msgs[0].keys[1].stat, "x\ny");
	assert_true(back.msgs[1].mailed);
	assert_null(back.msgs[1].text);
	assert_int_equal(back.msgs[1].time, 200);
	assert_ptr_equal(nightly_state_find(&back, "wis/b", "x\ny", "c5", "improvement"),
			 &back.msgs[0]);
	assert_null(nightly_state_find(&back, "wis/b", "x\ny", "c5", "regression"));
	assert_null(nightly_state_find(&back, "wis/a", "will-it-scale.per_process_ops", "c4",
				       "regression"));
	nightly_state_free(&st);
	nightly_state_free(&back);
	/* Names that are not UTF-8 (directory names are any bytes) are kept, byte for byte:
	 * a change left out of the file would be mailed again every night. */
	char *range[] = {"c4\xe9", "c5"};
	struct nightly_key latin1 = key("wis/caf\xe9", "s", "c5", "regression");

	latin1.range = range;
	latin1.nrange = 2;
	assert_int_equal(nightly_state_load(path, &st, err, sizeof(err)), 0);
	assert_int_equal(nightly_state_add(&st, "<m3@h>", "t", &latin1, 1, 102), 2);
	nightly_state_mailed(&st, 2, 300);
	assert_int_equal(nightly_state_save(&st, err, sizeof(err)), 0);
	assert_int_equal(nightly_state_load(path, &back, err, sizeof(err)), 0);
	assert_int_equal(back.n, 3);
	assert_string_equal(back.msgs[2].keys[0].job, "wis/caf\xe9");
	assert_string_equal(back.msgs[2].keys[0].range[0], "c4\xe9");
	assert_ptr_equal(nightly_state_find(&back, "wis/caf\xe9", "s", "c5", "regression"),
			 &back.msgs[2]);
	nightly_state_free(&st);
	nightly_state_free(&back);
}

/* Each bad file: -1, the message names the file, and says what is wrong. */
static void test_bad_files(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
	    {"not json", "not a nightly state file"},
	    {"[]", "no \"version\""},
	    {"{\"version\": 3, \"messages\": []}", "state version 3"},
	    {"{\"version\": 2}\n[1]\n", "line 2 is not an object"},
	    {"{\"version\": 2}\n\n", "line 2: empty"},
	    {"{\"version\": 2}\n{\"message_id\": \"<a@b>\"\n", "line 2:"},
	    {"{\"version\": 2}\n{\"message_id\": \"<a@b>\", \"status\": \"mailed\", \"time\": 1, "
	     "\"changes\": [{\"job\": {\"hex\": \"6a0\"}, \"stat\": \"s\", \"commit\": \"c\", "
	     "\"kind\": \"regression\"}]}\n",
	     "\"job\" is missing or not a string"},
	    {"{\"version\": 1}", "\"messages\""},
	    {"{\"version\": 1, \"messages\": [1]}", "messages[0] is not an object"},
	    {"{\"version\": 1, \"messages\": [{\"message_id\": \"<a@b>\", \"status\": \"sent\", "
	     "\"time\": 1, \"changes\": []}]}",
	     "expected pending or mailed"},
	    {"{\"version\": 1, \"messages\": [{\"message_id\": \"<a@b>\", \"status\": \"pending\", "
	     "\"time\": 1, \"changes\": [{\"job\": \"j\", \"stat\": \"s\", \"commit\": \"c\", "
	     "\"kind\": \"regression\"}]}]}",
	     "\"text\" is missing"},
	    {"{\"version\": 1, \"messages\": [{\"message_id\": \"<a@b>\", \"status\": \"mailed\", "
	     "\"time\": 1, \"changes\": [{\"job\": \"j\", \"stat\": 5, \"commit\": \"c\", "
	     "\"kind\": \"regression\"}]}]}",
	     "messages[0].changes[0]: \"stat\""},
	    {"{\"version\": 1, \"messages\": [{\"message_id\": \"<a@b>\", \"status\": \"mailed\", "
	     "\"time\": 1, \"changes\": [{\"job\": \"j\", \"stat\": \"s\", \"commit\": \"c\", "
	     "\"kind\": \"regression\", \"range\": [\"c\", 7]}]}]}",
	     "messages[0].changes[0]: \"range\"[1] is not a string"},
	    {"{\"version\": 1, \"messages\": [{\"message_id\": \"<a@b>\", \"status\": \"mailed\", "
	     "\"time\": 1, \"changes\": [{\"job\": \"j\", \"stat\": \"s\", \"commit\": \"c\", "
	     "\"kind\": \"regression\", \"range\": \"c\"}]}]}",
	     "\"range\" is not an array"},
	    {"{\"version\": 1, \"messages\": [{\"message_id\": \"<a@b>\", \"status\": \"mailed\", "
	     "\"time\": 1, \"follow_up_of\": 3, \"changes\": [{\"job\": \"j\", \"stat\": \"s\", "
	     "\"commit\": \"c\", \"kind\": \"regression\"}]}]}",
	     "\"follow_up_of\" is not a string"},
	};
	char path[256], err[512];

	(void)state;
	path_of(path, sizeof(path), "bad.json");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct nightly_state st;

		put(path, bad[i].text);
		err[0] = '\0';
		assert_int_equal(nightly_state_load(path, &st, err, sizeof(err)), -1);
		nightly_state_free(&st);
		if (!strstr(err, path) || !strstr(err, bad[i].why))
			fail_msg("%s: got '%s', expected the path and '%s'", bad[i].text, err,
				 bad[i].why);
	}
	/* A directory in its place: refused, named. */
	struct nightly_state st;

	path_of(path, sizeof(path), "adir");
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(nightly_state_load(path, &st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, path));
	nightly_state_free(&st);
}

static void test_msgid_from_keys(void **state)
{
	struct nightly_key a[2] = {key("j1", "s", "abcdef0123456789", "regression"),
				   key("j2", "s", "abcdef0123456789", "regression")};
	struct nightly_key b[2] = {a[1], a[0]};
	struct nightly_key c[1] = {a[0]};
	char x[128], y[128], z[128];

	(void)state;
	nightly_msgid_left(a, 2, x, sizeof(x));
	nightly_msgid_left(b, 2, y, sizeof(y));
	nightly_msgid_left(c, 1, z, sizeof(z));
	assert_string_equal(x, y);
	assert_string_not_equal(x, z);
	assert_memory_equal(x, "nightly.abcdef012345.", 21);
}

static void test_mbox_has(void **state)
{
	char path[256], err[512];
	bool found;

	(void)state;
	path_of(path, sizeof(path), "mbox");
	assert_int_equal(nightly_mbox_has(path, "<a@h>", &found, err, sizeof(err)), 0);
	assert_false(found);
	put(path, "From x Mon Nov 30 10:00:00 2026\nSubject: s\nMessage-ID: <a@h>\n\nbody\n\n"
		  "From x Mon Nov 30 10:00:00 2026\nSubject: s\nMessage-ID:\n <long.one@h>\n\n"
		  "Message-ID: <inbody@h>\n\n");
	assert_int_equal(nightly_mbox_has(path, "<a@h>", &found, err, sizeof(err)), 0);
	assert_true(found);
	assert_int_equal(nightly_mbox_has(path, "<long.one@h>", &found, err, sizeof(err)), 0);
	assert_true(found);
	/* A body line that looks like the header is not the message. */
	assert_int_equal(nightly_mbox_has(path, "<inbody@h>", &found, err, sizeof(err)), 0);
	assert_false(found);
	assert_int_equal(nightly_mbox_has(path, "<b@h>", &found, err, sizeof(err)), 0);
	assert_false(found);
}

/* A second holder waits for the first. */
static void test_lock_excludes(void **state)
{
	char path[256], err[512];
	int fd;
	pid_t pid;

	(void)state;
	path_of(path, sizeof(path), "locked.json");
	assert_int_equal(nightly_state_lock(path, &fd, err, sizeof(err)), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char lock[300];
		int other;

		snprintf(lock, sizeof(lock), "%s.lock", path);
		other = open(lock, O_RDWR);
		/* Held by the parent: not ours until it lets go. */
		_exit(other >= 0 && flock(other, LOCK_EX | LOCK_NB) == -1 ? 0 : 1);
	}
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fd);
	assert_int_equal(nightly_state_lock(path, &fd, err, sizeof(err)), 0);
	close(fd);
}

/* A change is the one mailed when it is at the recorded commit, of the same job, stat and
 * kind; a commit next to it is another change (a second step right after the mailed one). */
static void test_known_neighbours(void **state)
{
	struct nightly_state st = {0};
	struct nightly_key k = key("j", "s", "c5", "regression");
	struct nightly_change c = {.job = "j", .stat = "s", .verdict = V_REGRESSION};

	(void)state;
	assert_int_equal(nightly_state_add(&st, "<m@h>", "text", &k, 1, 1), 0);
#define AT(commit_, base_) (c.commit = commit_, c.base = base_, &c)
	assert_true(nightly_known(&st, AT("c5", "c4")));
	assert_false(nightly_known(&st, AT("c6", "c5")));
	assert_false(nightly_known(&st, AT("c4", "c3")));
	assert_false(nightly_known(&st, AT("c7", "c6")));
	c.verdict = V_IMPROVEMENT;
	assert_false(nightly_known(&st, AT("c5", "c4")));
	c.verdict = V_REGRESSION;
	c.stat = "other";
	assert_false(nightly_known(&st, AT("c5", "c4")));
#undef AT
	nightly_state_free(&st);
}

/* A change recorded with its range is met by a later one whose range shares a commit, of the
 * same job, stat and kind; the range and a follow-up's first mail are kept in the file. */
static void test_ranges(void **state)
{
	struct nightly_state st, back;
	char *range[] = {"c4", "c5", "c6"}, *later[] = {"c6", "c7"}, *away[] = {"c8", "c9"};
	struct nightly_key k = key("j", "s", "c5", "regression");
	const struct nightly_key *hit = NULL;
	char path[256], err[512];

	(void)state;
	k.range = range;
	k.nrange = 3;
	path_of(path, sizeof(path), "ranges.json");
	assert_int_equal(nightly_state_load(path, &st, err, sizeof(err)), 0);
	assert_int_equal(nightly_state_add(&st, "<m1@h>", "one", &k, 1, 1), 0);
	k.commit = "c7";
	k.range = later;
	k.nrange = 2;
	assert_int_equal(nightly_state_add(&st, "<m2@h>", "two", &k, 1, 2), 1);
	assert_non_null(st.msgs[1].follow_up_of = strdup("<m1@h>"));
	assert_int_equal(nightly_state_save(&st, err, sizeof(err)), 0);
	assert_int_equal(nightly_state_load(path, &back, err, sizeof(err)), 0);
	assert_int_equal(back.msgs[0].keys[0].nrange, 3);
	assert_string_equal(back.msgs[0].keys[0].range[2], "c6");
	assert_null(back.msgs[0].follow_up_of);
	assert_string_equal(back.msgs[1].follow_up_of, "<m1@h>");
	assert_true(nightly_state_followed(&back, "<m1@h>"));
	assert_false(nightly_state_followed(&back, "<m2@h>"));
	/* c6 is in the first's range: the first message, its key */
	assert_ptr_equal(nightly_state_meets(&back, "j", "s", "regression", later + 0, 1, &hit),
			 &back.msgs[0]);
	assert_string_equal(hit->commit, "c5");
	assert_null(nightly_state_meets(&back, "j", "s", "regression", away, 2, NULL));
	assert_null(nightly_state_meets(&back, "j", "s", "improvement", range, 3, NULL));
	assert_null(nightly_state_meets(&back, "j", "t", "regression", range, 3, NULL));
	/* nightly_known: a change whose range meets a recorded one */
	struct nightly_change c = {.job = "j", .stat = "s", .commit = "c9", .base = "c8x",
				   .verdict = V_REGRESSION, .range = later + 1,
				   .nrange = 1};
	assert_true(nightly_known(&back, &c)); /* c7: the second's commit */
	c.range = away;
	c.nrange = 2;
	assert_false(nightly_known(&back, &c));
	nightly_state_free(&st);
	nightly_state_free(&back);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_missing_is_empty), cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_bad_files),	     cmocka_unit_test(test_msgid_from_keys),
	    cmocka_unit_test(test_mbox_has),	     cmocka_unit_test(test_lock_excludes),
	    cmocka_unit_test(test_known_neighbours), cmocka_unit_test(test_ranges),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
