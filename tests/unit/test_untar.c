/* Unit tests of lib/untar: real archives from GNU tar (ustar, GNU long names, pax) unpacked
 * whole whichever way the stream is cut, and crafted hostile streams (devices, links, FIFOs,
 * '..', sizes past the cap, streams cut short) refused before anything of them exists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/untar.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char work[] = "/tmp/scalebench-untar.XXXXXX";
static char out[256];

static int setup(void **state)
{
	(void)state;
	umask(022);
	return mkdtemp(work) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
	return system(cmd);
}

/* A fresh, empty directory to unpack into. */
static void fresh_out(const char *name)
{
	char cmd[1024];

	snprintf(out, sizeof(out), "%s/%s", work, name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir '%s'", out, out);
	assert_int_equal(system(cmd), 0);
}

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

/* The output of a shell command, malloc'd, in *len. */
static char *run_out(const char *cmd, size_t *len)
{
	FILE *p = popen(cmd, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	assert_non_null(p);
	do {
		if (cap - n < 65536) {
			cap = cap ? 2 * cap : 1 << 20;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		r = fread(buf + n, 1, cap - n, p);
		n += r;
	} while (r);
	assert_int_equal(pclose(p), 0);
	*len = n;
	return buf;
}

/* Unpack tar's bytes into out, fed chunk bytes at a time: untar_feed's and untar_finish's
 * result (-1 at the first refusal), u's message in err. */
static int unpack(const char *tar, size_t len, size_t chunk, uint64_t max, char *err, size_t errlen)
{
	struct untar u;
	char e[256];
	int rc = 0;

	assert_int_equal(untar_begin(&u, out, max, 1000, e, sizeof(e)), 0);
	for (size_t off = 0; off < len && !rc; off += chunk)
		rc = untar_feed(&u, tar + off, len - off < chunk ? len - off : chunk);
	if (!rc)
		rc = untar_finish(&u);
	snprintf(err, errlen, "%s", u.err);
	untar_release(&u);
	return rc;
}

static mode_t mode_of(const char *rel)
{
	char path[2 * PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", out, rel);
	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode;
}

/* A tree as a run holds it, with a setuid file, a world-writable one, a long name: GNU tar's
 * default (GNU) format and pax, unpacked whole, byte by byte too, with a local run's modes. */
static void test_real_archives(void **state)
{
	static const char *const formats[] = {"gnu", "posix", "ustar"};
	char cmd[4 * PATH_MAX], src[PATH_MAX + 8], err[1024];
	const char *longdir = "a-directory-name-long-enough-that-the-path-is-past-a-hundred-bytes-"
			      "which-needs-a-long-name";

	(void)state;
	snprintf(src, sizeof(src), "%s/src", work);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/sub/%s' && cd '%s' && echo '{\"a\": 1}' >stats.json && "
		 "head -c 100000 /dev/urandom >sub/big && chmod 4755 sub/big && "
		 "echo x >open && chmod 0777 open && echo y >'sub/%s/file-with-a-long-name' && "
		 "chmod 0700 sub",
		 src, longdir, src, longdir);
	assert_int_equal(system(cmd), 0);
	for (size_t f = 0; f < sizeof(formats) / sizeof(*formats); f++) {
		size_t chunks[] = {1, 511, 512, 65536, 1 << 30};

		for (size_t c = 0; c < sizeof(chunks) / sizeof(*chunks); c++) {
			size_t len;
			char *tar;

			snprintf(cmd, sizeof(cmd), "tar -C '%s' --format=%s -cf - .", src,
				 formats[f]);
			tar = run_out(cmd, &len);
			fresh_out("real");
			assert_int_equal(unpack(tar, len, chunks[c], 1 << 30, err, sizeof(err)), 0);
			free(tar);
			snprintf(cmd, sizeof(cmd), "diff -r '%s' '%s'", src, out);
			assert_int_equal(system(cmd), 0);
			/* a local run's modes: no setuid, the umask (022) applied */
			assert_int_equal(mode_of("sub/big") & 07777, 0644);
			assert_int_equal(mode_of("open") & 07777, 0644);
			assert_int_equal(mode_of("sub") & 07777, 0755);
		}
	}
}

/* A header block for name, type and size (mode 0644), checksummed. */
static void header(char *b, const char *name, char type, size_t size)
{
	unsigned sum = 0;

	memset(b, 0, 512);
	snprintf(b, 100, "%s", name);
	snprintf(b + 100, 8, "%07o", 0644);
	snprintf(b + 108, 8, "%07o", 0);
	snprintf(b + 116, 8, "%07o", 0);
	snprintf(b + 124, 12, "%011zo", size);
	snprintf(b + 136, 12, "%011o", 0);
	b[156] = type;
	memcpy(b + 257,
	       "ustar\0"
	       "00",
	       8);
	memset(b + 148, ' ', 8);
	for (size_t i = 0; i < 512; i++)
		sum += (unsigned char)b[i];
	snprintf(b + 148, 8, "%06o", sum);
}

/* Crafted streams: a regular file, then one member of each refused kind.  Each is refused
 * at its header, naming it, and nothing of it exists; the file before it was made. */
static void test_refused_members(void **state)
{
	static const struct {
		const char *name;
		char type;
		size_t size;
		const char *says;
	} bad[] = {
	    {"mem", '3', 0, "member 'mem' is a character device"},
	    {"sda", '4', 0, "member 'sda' is a block device"},
	    {"fifo", '6', 0, "member 'fifo' is a FIFO"},
	    {"link", '2', 0, "member 'link' is a symbolic link"},
	    {"hard", '1', 0, "member 'hard' is a hard link"},
	    {"sparse", 'S', 0, "member 'sparse' is a sparse file"},
	    {"../escape", '0', 4, "member '../escape': an absolute name, '..'"},
	    {"sub/../../escape", '0', 4, "member 'sub/../../escape': an absolute name, '..'"},
	    {"/tmp/escape", '0', 4, "member '/tmp/escape': an absolute name"},
	    {"a\033[2Jb", '0', 4, "member 'a\\x1b[2Jb': an absolute name, '..' or a control"},
	    {"ok", '0', 4, "member 'ok': cannot create"}, /* twice in the stream */
	    {"huge", '0', (size_t)1 << 32, "member 'huge' declares 4294967296 bytes"},
	};
	char tar[4 * 512], err[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		memset(tar, 0, sizeof(tar));
		header(tar, "ok", '0', 4);
		memcpy(tar + 512, "data", 4);
		header(tar + 1024, bad[i].name, bad[i].type, bad[i].size);
		fresh_out("bad");
		assert_int_equal(unpack(tar, sizeof(tar), 700, 1 << 20, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].says))
			fail_msg("%s: '%s' does not say '%s'", bad[i].name, err, bad[i].says);
		/* nothing but the file before it: no device, no link, nothing outside */
		assert_int_equal(entries(out), 1);
		assert_true(S_ISREG(mode_of("ok")));
		assert_int_equal(access("/tmp/escape", F_OK), -1);
	}
}

/* The stream's bounds: past max_bytes, too many members, cut short, not tar at all. */
static void test_bounds(void **state)
{
	char *tar = calloc(1, 8 * 512), err[1024];
	struct untar u;
	size_t n = 0;

	(void)state;
	/* a stream past the cap (the member's size within it): refused where it goes past, also
	 * after the archive's end */
	header(tar, "big", '0', 1000);
	fresh_out("cap");
	assert_int_equal(unpack(tar, 8 * 512, 512, 2048, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 2048 bytes"));

	/* members past max_members */
	fresh_out("members");
	assert_int_equal(untar_begin(&u, out, 1 << 20, 3, err, sizeof(err)), 0);
	for (int i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		header(tar, name, '0', 0);
		n = (size_t)untar_feed(&u, tar, 512);
	}
	assert_int_equal((int)n, -1);
	assert_non_null(strstr(u.err, "more than 3 members"));
	untar_release(&u);

	/* cut short: inside a member, and between members without the end */
	memset(tar, 0, 8 * 512);
	header(tar, "f", '0', 600);
	fresh_out("cut");
	assert_int_equal(unpack(tar, 700, 512, 1 << 20, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ended before the archive's end"));
	fresh_out("cut2");
	assert_int_equal(unpack(tar, 1536, 512, 1 << 20, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ended before the archive's end (after 1 members)"));
	fresh_out("whole");
	assert_int_equal(unpack(tar, 8 * 512, 512, 1 << 20, err, sizeof(err)), 0);

	/* not tar */
	memset(tar, 'y', 8 * 512);
	fresh_out("garbage");
	assert_int_equal(unpack(tar, 8 * 512, 512, 1 << 20, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a tar header"));
	assert_int_equal(entries(out), 0);
	free(tar);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_real_archives),
	    cmocka_unit_test(test_refused_members),
	    cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
