/* lib/xalloc: the copies and formats, a size of 0, and an allocation that fails: a child
 * (this binary again) says "out of memory" with the command's prefix and exits 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/errors.h"
#include "../../lib/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_xstrdup(void **state)
{
	char word[] = "page_fault3", *p, *q;

	(void)state;
	p = xstrdup(word);
	word[0] = 'X'; /* a copy was made */
	assert_string_equal(p, "page_fault3");
	q = xstrndup(p, 4);
	assert_string_equal(q, "page");
	free(q);
	q = xstrndup(p, 100);
	assert_string_equal(q, "page_fault3");
	free(q);
	free(p);
	p = xstrdup("");
	assert_string_equal(p, "");
	free(p);
}

static void test_xasprintf(void **state)
{
	char *s, big[5000];

	(void)state;
	s = xasprintf("%s=%d%%", "nr_task", 50);
	assert_string_equal(s, "nr_task=50%");
	free(s);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	s = xasprintf("[%s]", big);
	assert_int_equal(strlen(s), sizeof(big) + 1);
	assert_int_equal(s[0], '[');
	assert_int_equal(s[sizeof(big)], ']');
	free(s);
	s = xasprintf("%s", "");
	assert_string_equal(s, "");
	free(s);
}

static void test_sizes(void **state)
{
	int *v;
	char *p;

	(void)state;
	/* 0 is a size like any other: a pointer to free, never a NULL that would read as
	 * failure. */
	p = xmalloc(0);
	assert_non_null(p);
	free(p);
	p = xcalloc(0, 8);
	assert_non_null(p);
	free(p);
	p = xrealloc(NULL, 0);
	assert_non_null(p);
	free(p);
	v = xcalloc(100, sizeof(*v));
	for (int i = 0; i < 100; i++)
		assert_int_equal(v[i], 0);
	for (int i = 0; i < 100; i++)
		v[i] = i;
	v = xrealloc(v, 1000 * sizeof(*v));
	for (int i = 0; i < 100; i++)
		assert_int_equal(v[i], i);
	free(v);
}

/* This binary run again as "oom WHAT [COMMAND]": WHAT fails, with COMMAND as the command
 * named in messages.  ASan's allocator is told to return NULL as libc's does (by default it
 * would report the size and abort); it still warns on stderr. */
/* What realloc was given stays reachable (volatile: its stores are kept): not a leak at exit. */
static void *volatile kept;

static void oom_child(const char *what, const char *command)
{
	if (command)
		sb_set_command(command);
	if (!strcmp(what, "malloc"))
		free(xmalloc(SIZE_MAX));
	else if (!strcmp(what, "calloc"))
		free(xcalloc(SIZE_MAX / 2, 4)); /* the product overflows */
	else if (!strcmp(what, "realloc")) {
		kept = xmalloc(16);
		kept = xrealloc(kept, SIZE_MAX - 8);
	}
	exit(0); /* not reached */
}

static void expect_oom_exit(const char *what, const char *command, const char *message)
{
	char opts[1024], out[512];
	const char *asan = getenv("ASAN_OPTIONS");
	int fds[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	snprintf(opts, sizeof(opts), "%s%sallocator_may_return_null=1", asan ? asan : "",
		 asan && *asan ? ":" : "");
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		setenv("ASAN_OPTIONS", opts, 1);
		execl("/proc/self/exe", "test_xalloc", "oom", what, command, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], out + len, sizeof(out) - 1 - len)) > 0 ||
	       (n < 0 && errno == EINTR))
		len += n > 0 ? (size_t)n : 0;
	out[len] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 2)
		fail_msg("%s: status %#x, expected exit 2; stderr: %s", what, status, out);
	/* The message is the last line; ASan may have warned of the size before it. */
	size_t mlen = strlen(message);

	if (len < mlen || strcmp(out + len - mlen, message) ||
	    (len > mlen && out[len - mlen - 1] != '\n'))
		fail_msg("%s: stderr '%s', expected its last line '%s'", what, out, message);
}

static void test_oom_exits_2(void **state)
{
	(void)state;
	expect_oom_exit("malloc", NULL, "scalebench: out of memory\n");
	expect_oom_exit("calloc", "compare", "scalebench compare: out of memory\n");
	expect_oom_exit("realloc", "bisect", "scalebench bisect: out of memory\n");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_xstrdup),
	    cmocka_unit_test(test_xasprintf),
	    cmocka_unit_test(test_sizes),
	    cmocka_unit_test(test_oom_exits_2),
	};

	if (argc >= 3 && !strcmp(argv[1], "oom"))
		oom_child(argv[2], argc > 3 ? argv[3] : NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
