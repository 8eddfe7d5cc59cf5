/* bare_getppid: getppid1's loop without scalebench around it, the baseline that
 * bench/overhead.sh compares the harness against.
 *
 * usage: bare_getppid SECONDS    prints "<ops/s>\n" on stdout
 *
 * It differs from scalebench's copy 0 only in what the harness adds: the count lives in a
 * register instead of a shared volatile slot, and no sampler or host process exists.  It is
 * pinned to CPU 0, where scalebench places copy 0. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Read the clock once per this many calls: its cost then disappears in the noise. */
#define CHECK_EVERY 4096

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	cpu_set_t set;
	char *end;
	double seconds, t0, t1;
	uint64_t n = 0;

	errno = 0;
	seconds = argc == 2 ? strtod(argv[1], &end) : 0;
	if (argc != 2 || errno || end == argv[1] || *end || !isfinite(seconds) || seconds <= 0 ||
	    seconds > 1e6) {
		fprintf(stderr,
			"usage: bare_getppid SECONDS\n"
			"  calls getppid on CPU 0 for SECONDS (a number > 0) and prints ops/s\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "bare_getppid: cannot pin to CPU 0: %s\n", strerror(errno));
		return 1;
	}

	t0 = now_s();
	t1 = t0;
	/* The same raw syscall and loop condition as testcases/getppid1.c. */
	while (syscall(SYS_getppid) >= 0) {
		if (++n % CHECK_EVERY == 0 && (t1 = now_s()) - t0 >= seconds)
			break;
	}
	if (t1 - t0 < seconds) {
		fprintf(stderr, "bare_getppid: getppid: %s\n", strerror(errno));
		return 1;
	}
	printf("%.0f\n", (double)n / (t1 - t0));
	return 0;
}
