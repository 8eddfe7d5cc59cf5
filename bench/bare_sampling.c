/* What the kernel alone charges a busy CPU for cpu-clock sampling at a frequency: the floor
 * under perf-profile's cost, with nothing of scalebench in it.
 *
 * A loop of arithmetic pinned to CPU 0 counts its iterations in 250 ms phases while a
 * cpu-clock event on CPU 0 (IP only: no call chain, a ring buffer nobody reads) is switched
 * on and off every phase; the cost is 1 - (iterations per on phase / per off phase).  Adjacent
 * phases compare, so the machine's drift cancels.  Needs root or perf_event_paranoid <= 0.
 *
 * usage: bare_sampling [FREQ_HZ]   (default 1000); prints "bare sampling at F Hz: X.XX%" */
#include <linux/perf_event.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PHASES	   40
#define PHASE_S	   0.25
#define RING_PAGES 512 /* 2 MiB: every sample of the on phases fits, unread */

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	double freq = argc > 1 ? atof(argv[1]) : 1000, on = 0, off = 0;
	volatile unsigned long x = 0;
	long page = sysconf(_SC_PAGESIZE);
	cpu_set_t cpus;
	int fd;

	if (freq < 1) {
		fprintf(stderr, "usage: bare_sampling [FREQ_HZ]  (>= 1, default 1000)\n");
		return 2;
	}
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		perror("bare_sampling: sched_setaffinity CPU 0");
		return 1;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = (unsigned long)freq;
	a.sample_type = PERF_SAMPLE_IP;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		perror("bare_sampling: perf_event_open cpu-clock on CPU 0");
		return 1;
	}
	if (mmap(NULL, (size_t)page * (RING_PAGES + 1), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0) == MAP_FAILED) {
		perror("bare_sampling: mmap of the ring buffer");
		return 1;
	}
	for (int phase = 0; phase < PHASES; phase++) {
		bool sampling = phase & 1;
		unsigned long it = 0;
		double t0;

		ioctl(fd, sampling ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
		t0 = now_s();
		while (now_s() - t0 < PHASE_S) {
			for (unsigned k = 0; k < 1000; k++)
				x = x * 31 + k;
			it++;
		}
		if (phase < 2) /* the first pair warms up */
			continue;
		if (sampling)
			on += (double)it;
		else
			off += (double)it;
	}
	printf("bare sampling at %g Hz: %.2f%%\n", freq, 100 * (1 - on / off));
	return 0;
}
