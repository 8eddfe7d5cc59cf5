/* A harness's inputs replayed without libFuzzer: what make check runs.  Linked with a harness
 * (tests/fuzz/fuzz_NAME.c) and the sanitizer build's archives by gcc, it saves make check a
 * third, coverage-instrumented build of every layer by clang; make fuzz still explores with
 * libFuzzer.  It takes libFuzzer's command line as tests/fuzz/run.sh --replay gives it and
 * behaves as libFuzzer's -runs=0 does for what that script reads:
 *
 *   fuzz_NAME [-timeout=S] [-artifact_prefix=P] [-FLAG=VALUE...] DIR|FILE...
 *
 * runs the empty input, then every file (directories recursively, in name order) once.  Each
 * input is written to P"crash-replay" before it runs and removed after, so whatever ends the
 * process on it (a sanitizer's report, an abort, a signal) leaves it there; one that leaks is
 * left as P"leak-replay" (checked after each input whose mallocs and frees do not balance, as
 * libFuzzer does), one that runs over S seconds as P"timeout-replay"; the exit status is then
 * non-zero.  Other flags (-runs, -rss_limit_mb, -dict, ...) are accepted and ignored.  The last
 * line on success is "Done N runs". */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_CLOEXEC, scandir when built alone (test_fuzz.sh) */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The sanitizers' interface (sanitizer/common_interface_defs.h, lsan_interface.h). */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
					      void (*free_hook)(const volatile void *));
int __lsan_do_recoverable_leak_check(void);

static char crash_path[PATH_MAX], leak_path[PATH_MAX], timeout_path[PATH_MAX];
static unsigned timeout_s = 1200;
static volatile size_t mallocs, frees;
static size_t runs;

static void on_malloc(const volatile void *p, size_t n)
{
	(void)p, (void)n;
	mallocs++;
}

static void on_free(const volatile void *p)
{
	if (p)
		frees++;
}

/* The input about to run, at crash_path. */
static void keep_input(const uint8_t *data, size_t len)
{
	int fd = open(crash_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0) {
		fprintf(stderr, "replay: %s: %s\n", crash_path, strerror(errno));
		exit(1);
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, data + off, len - off);

		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd);
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "ALARM: working on the last Unit for too long\n"
				  "==replay== ERROR: libFuzzer: timeout (replay)\n";

	(void)!write(2, msg, sizeof(msg) - 1);
	(void)!rename(crash_path, timeout_path);
	_exit(70);
}

/* Zeroes the stack below the caller: a pointer the harness left in a dead frame would make
 * its leak look reachable to LeakSanitizer, which scans the whole stack. */
static __attribute__((noinline)) void clear_stack(void)
{
	volatile char pad[64 << 10];

	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = 0;
}

static void run_one(const char *name, const uint8_t *data, size_t len)
{
	size_t live = mallocs - frees;

	keep_input(data, len);
	alarm(timeout_s);
	LLVMFuzzerTestOneInput(data ? data : (const uint8_t *)"", len);
	alarm(0);
	runs++;
	if (mallocs - frees != live && (clear_stack(), __lsan_do_recoverable_leak_check())) {
		fprintf(stderr, "==replay== ERROR: %s leaks\nTest unit written to %s\n", name,
			leak_path);
		(void)!rename(crash_path, leak_path);
		_exit(1); /* not exit: LeakSanitizer's check at exit would say it all again */
	}
	unlink(crash_path);
}

static void run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 4096;
			buf = realloc(buf, cap);
			if (!buf) {
				fprintf(stderr, "replay: %s: out of memory\n", path);
				exit(1);
			}
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	run_one(path, buf, len);
	free(buf);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void run_path(const char *path)
{
	struct stat st;
	struct dirent **ents;
	int n;

	if (stat(path, &st)) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (!S_ISDIR(st.st_mode)) {
		run_file(path);
		return;
	}
	n = scandir(path, &ents, NULL, by_name);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (int i = 0; i < n; i++) {
		char sub[PATH_MAX];

		if (ents[i]->d_name[0] != '.' &&
		    snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name) < (int)sizeof(sub))
			run_path(sub);
		free(ents[i]);
	}
	free(ents);
}

int main(int argc, char **argv)
{
	const char *prefix = "./";

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "-timeout=", 9))
			timeout_s = (unsigned)strtoul(argv[i] + 9, NULL, 10);
		else if (!strncmp(argv[i], "-artifact_prefix=", 17))
			prefix = argv[i] + 17;
	}
	if (!timeout_s)
		timeout_s = 1200;
	snprintf(crash_path, sizeof(crash_path), "%scrash-replay", prefix);
	snprintf(leak_path, sizeof(leak_path), "%sleak-replay", prefix);
	snprintf(timeout_path, sizeof(timeout_path), "%stimeout-replay", prefix);
	__sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
	signal(SIGALRM, on_alarm);
	run_one("the empty input", NULL, 0);
	for (int i = 1; i < argc; i++)
		if (argv[i][0] != '-')
			run_path(argv[i]);
	fprintf(stderr, "stat::number_of_executed_units: %zu\nDone %zu runs\n", runs, runs);
	return 0;
}
