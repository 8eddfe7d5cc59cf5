/* Unit tests of lib/mail: header lines no value breaks out of, RFC 2047 encoding that decodes
 * back, folding, address parsing, and mbox appending that is all or nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/mail.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* RFC 2047's limit for a line that holds an encoded word. */
#define EW_LINE_MAX_FOR_TESTS 76

static char dir[] = "/tmp/scalebench-mail.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Checks every line of header h (ends in "\n", LF only, no bare CR, lines of <= 78 unless a
 * single word is longer, never > 998, continuation lines start with a space and hold more
 * than white space) and returns its value unfolded and decoded (RFC 2047 Q, the white space
 * between two encoded words dropped), malloc'd. */
static char *decode(const char *h, size_t soft)
{
	char *out = calloc(1, strlen(h) + 1), *o = out;
	const char *p = strchr(h, ':');
	bool prev_ew = false;

	assert_non_null(out);
	assert_non_null(p);
	assert_int_equal(h[strlen(h) - 1], '\n');
	assert_null(strchr(h, '\r'));
	for (const char *l = h; *l;) {
		size_t n = strcspn(l, "\n");

		assert_true(n <= MAIL_LINE_MAX);
		assert_true(n <= soft);
		if (l != h) {
			assert_int_equal(l[0], ' ');
			assert_true(strspn(l, " ") < n);
		}
		l += n + 1;
	}
	p++;
	while (*p) {
		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			break;
		if (!strncmp(p, "=?UTF-8?Q?", 10)) {
			const char *e = strstr(p + 10, "?=");

			assert_non_null(e);
			if (!prev_ew && o != out)
				*o++ = ' ';
			for (const char *q = p + 10; q < e; q++) {
				if (*q == '_') {
					*o++ = ' ';
				} else if (*q == '=') {
					assert_true(hexval(q[1]) >= 0 && hexval(q[2]) >= 0);
					*o++ = (char)(hexval(q[1]) * 16 + hexval(q[2]));
					q += 2;
				} else {
					*o++ = *q;
				}
			}
			assert_true(e + 2 - p <= 75);
			p = e + 2;
			prev_ew = true;
		} else {
			size_t n = strcspn(p, " \n");

			if (o != out)
				*o++ = ' ';
			memcpy(o, p, n);
			o += n;
			p += n;
			prev_ew = false;
		}
	}
	return out;
}

static void text_is(const char *value, const char *want_header, const char *want_decoded)
{
	char *h = mail_header_text("Subject", value), *d;

	assert_non_null(h);
	if (want_header)
		assert_string_equal(h, want_header);
	d = decode(h, MAIL_LINE_SOFT);
	assert_string_equal(d, want_decoded);
	free(d);
	free(h);
}

static void test_text_plain_and_cleaned(void **state)
{
	(void)state;
	text_is("hello world", "Subject: hello world\n", "hello world");
	text_is("", "Subject:\n", "");
	/* A line break cannot start a header: it is a space, runs of spaces one. */
	text_is("stat\r\nBcc: x@evil", "Subject: stat Bcc: x@evil\n", "stat Bcc: x@evil");
	text_is("  a\t\tb\x7f c  \n", "Subject: a b c\n", "a b c");
	/* Not UTF-8 (a lone continuation byte, an overlong '/', a surrogate): '?' each byte. */
	text_is("a\x80 b\xc0\xaf c\xed\xa0\x80", "Subject: a? b?? c???\n", "a? b?? c???");
}

static void test_text_encoded(void **state)
{
	(void)state;
	text_is("café au lait", "Subject: =?UTF-8?Q?caf=C3=A9?= au lait\n", "café au lait");
	/* Words that need encoding together: one run, its spaces inside it. */
	text_is("[fëature-ß] ünï x", "Subject: =?UTF-8?Q?=5Bf=C3=ABature-=C3=9F=5D_=C3=BCn=C3=AF?= x\n",
		"[fëature-ß] ünï x");
	/* Something a reader would decode is encoded, so it reads back as written. */
	text_is("=?UTF-8?Q?evil?=", NULL, "=?UTF-8?Q?evil?=");
	char *h = mail_header_text("Subject", "=?UTF-8?Q?evil?=");

	assert_non_null(strstr(h, "=3D=3F"));
	free(h);
}

static void test_text_folded(void **state)
{
	char v[4096] = "", *h, *d;

	(void)state;
	for (int i = 0; i < 100; i++)
		strcat(v, i % 3 ? "word " : "wörd ");
	v[strlen(v) - 1] = '\0';
	h = mail_header_text("Subject", v);
	assert_non_null(h);
	assert_true(strchr(h, '\n') < h + strlen(h) - 1); /* more than one line */
	d = decode(h, MAIL_LINE_SOFT);
	assert_string_equal(d, v);
	free(d);
	free(h);
}

/* Long runs of multi-byte characters: encoded words of <= 75, never a character cut in two
 * (each word decodes to whole UTF-8 on its own: checked by decoding word by word). */
static void test_text_long_words(void **state)
{
	char v[3000], *h, *d;
	size_t n = 0;

	(void)state;
	for (int i = 0; i < 700; i++)
		n += (size_t)snprintf(v + n, sizeof(v) - n, "%s", i % 2 ? "é" : "€");
	h = mail_header_text("Subject", v);
	d = decode(h, EW_LINE_MAX_FOR_TESTS);
	assert_string_equal(d, v);
	for (char *w = strstr(h, "=?UTF-8?Q?"); w; w = strstr(w + 1, "=?UTF-8?Q?")) {
		char *e = strstr(w + 10, "?=");

		/* Each word ends after a whole character, and starts with one. */
		assert_true(!strncmp(e - 6, "=C3=A9", 6) || !strncmp(e - 9, "=E2=82=AC", 9));
		assert_true(!strncmp(w + 10, "=C3=A9", 6) || !strncmp(w + 10, "=E2=82=AC", 9));
	}
	free(d);
	free(h);

	/* A plain word longer than any line may be: encoded, so it can be folded. */
	memset(v, 'x', 2000);
	v[2000] = '\0';
	h = mail_header_text("Subject", v);
	d = decode(h, EW_LINE_MAX_FOR_TESTS);
	assert_string_equal(d, v);
	free(d);
	free(h);
	/* A word of 200: on a line of its own, as it is (lines may pass 78, never 998). */
	v[200] = '\0';
	h = mail_header_text("Subject", v);
	assert_null(strstr(h, "=?"));
	d = decode(h, MAIL_LINE_MAX);
	assert_string_equal(d, v);
	free(d);
	free(h);
}

static void addr_is(const char *name, const char *addr, const char *want)
{
	char *h = mail_header_addr("To", name, addr);

	assert_non_null(h);
	assert_string_equal(h, want);
	free(decode(h, MAIL_LINE_SOFT));
	free(h);
}

static void test_addr_header(void **state)
{
	(void)state;
	addr_is("Test Robot", "robot@example.com", "To: Test Robot <robot@example.com>\n");
	addr_is("Doe, John", "john@example.org", "To: \"Doe, John\" <john@example.org>\n");
	addr_is("J. \"Q\" \\o/", "j@x.org", "To: \"J. \\\"Q\\\" \\\\o/\" <j@x.org>\n");
	addr_is("Jöhn Døe", "jd@x.org", "To: =?UTF-8?Q?J=C3=B6hn_D=C3=B8e?= <jd@x.org>\n");
	addr_is("", "root@localhost", "To: root@localhost\n");
	addr_is(NULL, "root@localhost", "To: root@localhost\n");
	addr_is("\n\t", "root@localhost", "To: root@localhost\n");
	addr_is("x\nBcc: y@evil", "a@b", "To: \"x Bcc: y@evil\" <a@b>\n");
	addr_is("=?UTF-8?Q?x?=", "a@b", "To: =?UTF-8?Q?=3D=3FUTF-8=3FQ=3Fx=3F=3D?= <a@b>\n");
	errno = 0;
	assert_null(mail_header_addr("To", "x", "a@b\nBcc: y@evil"));
	assert_int_equal(errno, EINVAL);
	assert_null(mail_header_addr("To", "x", "a@b, c@d"));
	assert_null(mail_header_addr("Bad Field", "x", "a@b"));
	assert_null(mail_header_text("To:", "x"));
	assert_null(mail_header_text("", "x"));
}

static void test_msgid(void **state)
{
	char *h;

	(void)state;
	h = mail_header_msgid("Message-ID", "1.2.label with>\n", "host..name.");
	assert_string_equal(h, "Message-ID: <1.2.label-with--@host.-name->\n");
	free(h);
	h = mail_header_msgid("Message-ID", "", "");
	assert_string_equal(h, "Message-ID: <-@->\n");
	free(h);
}

static void parse_ok(const char *s, const char *name, const char *addr)
{
	struct mail_addr a;
	char err[256];

	assert_int_equal(mail_addr_parse(s, &a, err, sizeof(err)), 0);
	assert_string_equal(a.name, name);
	assert_string_equal(a.addr, addr);
	mail_addr_free(&a);
}

static void parse_bad(const char *s, const char *says)
{
	struct mail_addr a;
	char err[256];

	assert_int_equal(mail_addr_parse(s, &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, says));
	assert_null(a.name);
	assert_null(a.addr);
}

static void test_addr_parse(void **state)
{
	(void)state;
	parse_ok("scalebench robot <scalebench@localhost>", "scalebench robot",
		 "scalebench@localhost");
	parse_ok("  root@localhost ", "", "root@localhost");
	parse_ok("<root@localhost>", "", "root@localhost");
	parse_ok("\"Doe, John\" <john@example.org>", "Doe, John", "john@example.org");
	parse_ok("\"a \\\"b\\\" <c>\" <x@y>", "a \"b\" <c>", "x@y");
	parse_ok("J. R. Tolkien <j.r.r+t@mail.example.org>", "J. R. Tolkien",
		 "j.r.r+t@mail.example.org");
	parse_ok("Jöhn <j@x>", "Jöhn", "j@x");
	parse_bad("Doe, John <john@example.org>", "expected one address");
	parse_bad("a@example.org, b@example.org", "expected one address");
	parse_bad("a@b\nBcc: c@d", "control character (0x0a, byte 4)");
	parse_bad("x\r <a@b>", "control character (0x0d, byte 2)");
	parse_bad("", "expected one address");
	parse_bad("<>", "expected one address");
	parse_bad("John <john at example.org>", "expected one address");
	parse_bad("John <j@x> <k@y>", "expected one address");
	parse_bad("\"a\" \"b\" <a@b>", "expected one address");
	parse_bad("a@b@c", "expected one address");
	parse_bad("a..b@c", "expected one address");
	parse_bad(".a@c", "expected one address");
	parse_bad("a@c.", "expected one address");
	parse_bad("jö@x", "expected one address");
	parse_bad("John <john@example.org", "expected one address");
}

static void test_addr_spec(void **state)
{
	char local[80], domain[300];

	(void)state;
	assert_true(mail_addr_spec_ok("a@b"));
	assert_true(mail_addr_spec_ok("first.last+tag@sub.example.org"));
	assert_false(mail_addr_spec_ok("a b@c"));
	assert_false(mail_addr_spec_ok("a@b c"));
	assert_false(mail_addr_spec_ok("a,b@c"));
	assert_false(mail_addr_spec_ok("a@"));
	assert_false(mail_addr_spec_ok("@b"));
	assert_false(mail_addr_spec_ok("ab"));
	assert_false(mail_addr_spec_ok("\"a\"@b"));
	assert_false(mail_addr_spec_ok("=?UTF-8?Q?x?=@b"));
	memset(local, 'l', 65);
	local[65] = '\0';
	snprintf(domain, sizeof(domain), "%s@x", local);
	assert_false(mail_addr_spec_ok(domain));
	local[64] = '\0';
	snprintf(domain, sizeof(domain), "%s@x", local);
	assert_true(mail_addr_spec_ok(domain));
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = calloc(1, 1 << 16);

	assert_non_null(f);
	*len = fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	return buf;
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The From_ lines' dates vary: compare with them blanked. */
static void blank_from_dates(char *s)
{
	for (char *p = s; (p = strstr(p, "From scalebench@localhost ")); p++) {
		char *nl = strchr(p, '\n');

		memset(p + 26, '#', (size_t)(nl - (p + 26)));
	}
}

static void test_mbox_append(void **state)
{
	char path[256], err[512], *got;
	const char *from = "From scalebench@localhost ########################\n";
	char want[1024];
	size_t len;

	(void)state;
	snprintf(path, sizeof(path), "%s/box", dir);
	/* New file; "From " lines of the body quoted, ">From " once more (mboxrd). */
	assert_int_equal(mail_mbox_append(path, "S: 1\n\nFrom here\n>From there\nFrom\n", 33, 5, err,
					  sizeof(err)),
			 0);
	/* No final newline in the message: one added, then the blank line. */
	assert_int_equal(mail_mbox_append(path, "S: 2\n\nbody", 10, 5, err, sizeof(err)), 0);
	got = slurp(path, &len);
	blank_from_dates(got);
	snprintf(want, sizeof(want), "%sS: 1\n\n>From here\n>>From there\nFrom\n\n%sS: 2\n\nbody\n\n",
		 from, from);
	assert_string_equal(got, want);
	free(got);

	/* An mbox cut mid-line, or ending in one newline: a blank line first. */
	put_file(path, "From x\n\npartial");
	assert_int_equal(mail_mbox_append(path, "S: 3\n\nb\n", 8, 5, err, sizeof(err)), 0);
	got = slurp(path, &len);
	blank_from_dates(got);
	snprintf(want, sizeof(want), "From x\n\npartial\n\n%sS: 3\n\nb\n\n", from);
	assert_string_equal(got, want);
	free(got);
	put_file(path, "From x\n\nline\n");
	assert_int_equal(mail_mbox_append(path, "S: 4\n\nb\n", 8, 5, err, sizeof(err)), 0);
	got = slurp(path, &len);
	blank_from_dates(got);
	snprintf(want, sizeof(want), "From x\n\nline\n\n%sS: 4\n\nb\n\n", from);
	assert_string_equal(got, want);
	free(got);
	assert_int_equal(access(strcat(strcpy(want, path), ".lock"), F_OK), -1);
}

/* Past the file size limit mid-message: -1, EFBIG named with the file, the mbox as it was. */
static void test_mbox_all_or_nothing(void **state)
{
	char path[256], err[512], *msg, *before, *after;
	struct rlimit old, small;
	size_t n = 100000, blen, alen;

	(void)state;
	snprintf(path, sizeof(path), "%s/full", dir);
	put_file(path, "From x\n\nold message\n\n");
	before = slurp(path, &blen);
	msg = malloc(n);
	memset(msg, 'm', n);
	msg[n - 1] = '\n';
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = (struct rlimit){.rlim_cur = 16384, .rlim_max = old.rlim_max};
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	errno = 0;
	assert_int_equal(mail_mbox_append(path, msg, n, 5, err, sizeof(err)), -1);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, strerror(EFBIG)));
	after = slurp(path, &alen);
	assert_int_equal(alen, blen);
	assert_memory_equal(after, before, blen);
	free(after);
	free(before);
	free(msg);
}

static void test_mbox_locks(void **state)
{
	char path[256], lock[300], err[512], want[1024];
	struct timespec old[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};
	int fd;

	(void)state;
	/* A dotlock older than MAIL_DOTLOCK_STALE_S: a dead writer's, removed. */
	snprintf(path, sizeof(path), "%s/locked", dir);
	snprintf(lock, sizeof(lock), "%s.lock", path);
	fd = open(lock, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(utimensat(AT_FDCWD, lock, old, 0), 0);
	assert_int_equal(mail_mbox_append(path, "S: 1\n\nb\n", 8, 5, err, sizeof(err)), 0);
	assert_int_equal(access(lock, F_OK), -1);

	/* Someone else's fresh dotlock: waited for, then a clear refusal; theirs is left. */
	fd = open(lock, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
	errno = 0;
	assert_int_equal(mail_mbox_append(path, "S: 2\n\nb\n", 8, 1, err, sizeof(err)), -1);
	assert_int_equal(errno, ETIMEDOUT);
	snprintf(want, sizeof(want),
		 "cannot append to %s: still locked after 1 s (another process holds its dotlock "
		 "%s)",
		 path, lock);
	assert_string_equal(err, want);
	assert_int_equal(access(lock, F_OK), 0);
	assert_int_equal(unlink(lock), 0);

	/* Another process's fcntl lock, likewise. */
	int ready[2], done[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(done), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
		int f = open(path, O_RDWR);

		if (f < 0 || fcntl(f, F_SETLK, &fl) || write(ready[1], "x", 1) != 1)
			_exit(1);
		_exit(read(done[0], &c, 1) == 1 ? 0 : 1);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(mail_mbox_append(path, "S: 2\n\nb\n", 8, 1, err, sizeof(err)), -1);
	assert_int_equal(errno, ETIMEDOUT);
	assert_non_null(strstr(err, "still locked after 1 s (another process holds its fcntl lock)"));
	assert_int_equal(write(done[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	for (int i = 0; i < 2; i++) {
		close(ready[i]);
		close(done[i]);
	}
	assert_int_equal(access(lock, F_OK), -1);

	/* Not a regular file: refused, named. */
	assert_int_equal(mail_mbox_append("/dev/null", "S: 1\n\nb\n", 8, 5, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot append to /dev/null: "));
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(mail_mbox_append(dir, "S: 1\n\nb\n", 8, 5, err, sizeof(err)), -1);
	assert_non_null(strstr(err, dir));
	assert_non_null(strstr(err, strerror(EISDIR)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text_plain_and_cleaned),
	    cmocka_unit_test(test_text_encoded),
	    cmocka_unit_test(test_text_folded),
	    cmocka_unit_test(test_text_long_words),
	    cmocka_unit_test(test_addr_header),
	    cmocka_unit_test(test_msgid),
	    cmocka_unit_test(test_addr_parse),
	    cmocka_unit_test(test_addr_spec),
	    cmocka_unit_test(test_mbox_append),
	    cmocka_unit_test(test_mbox_all_or_nothing),
	    cmocka_unit_test(test_mbox_locks),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
