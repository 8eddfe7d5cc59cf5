/* A generated results tree for the index and nightly benchmarks:
 *
 *   gen_tree ROOT COMMITS RUNS STATS [JOBS [FIRST]]
 *
 * JOBS atomic jobs (default 1) x COMMITS commits x RUNS runs, each run a stats.json of STATS
 * stats with LKP's names (will-it-scale.per_process_ops the headline, then proc-vmstat,
 * perf-stat, meminfo, vmstat, interrupts, softirqs, sched_debug, perf-profile, ...) and a
 * meta.json shaped as the runner writes it.  Commits are numbered from FIRST (default 0), so a
 * second call with FIRST = COMMITS adds one more commit to the same series.  Values: a base per
 * stat with 2% run noise; the headline steps down 5% from commit 600 on, so a trend has a change
 * to find.  Labels are 40-hex names derived from the commit number; runs start an hour apart per
 * commit.  Deterministic: same arguments, same tree. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64*: enough for noise, same everywhere. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static double gauss(void)
{
	double u = ((rng() >> 11) + 0.5) / 9007199254740992.0;
	double v = ((rng() >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

static const char *const vmstat[] = {
    "pgfault",	  "pgalloc_normal", "pgfree",	  "numa_hit",	     "numa_local",
    "pgactivate", "nr_free_pages",  "pgmajfault", "thp_fault_alloc", "nr_anon_pages"};
static const char *const events[] = {"page-faults", "context-switches", "cpu-migrations",
				     "task-clock",  "cpu-clock",	"minor-faults",
				     "major-faults"};
static const char *const syms[] = {"do_user_addr_fault",
				   "handle_mm_fault",
				   "__do_fault",
				   "shmem_fault",
				   "filemap_map_pages",
				   "clear_page_erms",
				   "native_irq_return_iret",
				   "_raw_spin_lock",
				   "lru_add_fn",
				   "folio_add_lru",
				   "release_pages",
				   "unmap_page_range"};

/* The name of stat i (0: the headline). */
static void stat_name(int i, char *out, size_t len)
{
	int k = i - 2;

	if (i == 0) {
		snprintf(out, len, "will-it-scale.per_process_ops");
		return;
	}
	if (i == 1) {
		snprintf(out, len, "will-it-scale.workload");
		return;
	}
	switch (k % 8) {
	case 0:
		snprintf(out, len, "proc-vmstat.%s.%d", vmstat[(k / 8) % 10], k / 80);
		break;
	case 1:
		snprintf(out, len, "perf-stat.ps.%s.%d", events[(k / 8) % 7], k / 56);
		break;
	case 2:
		snprintf(out, len, "meminfo.Field%d", k / 8);
		break;
	case 3:
		snprintf(out, len, "interrupts.CPU%d.LOC:Local_timer_interrupts", k / 8);
		break;
	case 4:
		snprintf(out, len, "softirqs.CPU%d.RCU", k / 8);
		break;
	case 5:
		snprintf(out, len, "sched_debug.cpu.nr_switches.avg.%d", k / 8);
		break;
	case 6:
		snprintf(out, len, "perf-profile.self.cycles-pp.%s.%d", syms[(k / 8) % 12], k / 96);
		break;
	default:
		snprintf(out, len, "perf-profile.calltrace.cycles-pp.%s.%s.%d", syms[(k / 8) % 12],
			 syms[(k / 96) % 12], k / 1152);
		break;
	}
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: gen_tree ROOT COMMITS RUNS STATS [JOBS [FIRST]]\n");
		return 2;
	}
	const char *root = argv[1];
	int commits = atoi(argv[2]), runs = atoi(argv[3]), nstats = atoi(argv[4]);
	int jobs = argc > 5 ? atoi(argv[5]) : 1, first = argc > 6 ? atoi(argv[6]) : 0;
	char **names = calloc((size_t)nstats, sizeof(*names));
	double *base = calloc((size_t)nstats, sizeof(*base));
	const time_t t0 = 1767225600; /* 2026-01-01 */
	static char buf[1 << 16];

	if (commits < 0 || runs < 1 || nstats < 2 || jobs < 1 || !names || !base) {
		fprintf(stderr, "gen_tree: bad sizes\n");
		return 2;
	}
	rng_state = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < nstats; i++) {
		char n[160];

		stat_name(i, n, sizeof(n));
		names[i] = strdup(n);
		base[i] = i == 0 ? 100000 : exp(3 + 12 * ((rng() >> 11) / 9007199254740992.0));
	}
	for (int j = 0; j < jobs; j++) {
		char pp[64];

		snprintf(pp, sizeof(pp), "process-%d-page_fault%d", 1 << (j % 6), 1 + j / 6);
		for (int c = first; c < first + commits; c++) {
			char label[48];

			rng_state = 0x2545f4914f6cdd1dull ^ (uint64_t)c * 0x9e3779b97f4a7c15ull;
			snprintf(label, sizeof(label), "%016llx%016llx%08x",
				 (unsigned long long)rng(), (unsigned long long)rng(),
				 (unsigned)rng());
			for (int r = 0; r < runs; r++) {
				char dir[4096], path[4200], when[64];
				time_t t = t0 + (time_t)c * 3600 + r * 60 + j;
				FILE *f;

				snprintf(dir, sizeof(dir),
					 "%s/will-it-scale/%s/lkp-bench/debian-12-x86_64/defconfig/"
					 "gcc-12/%s/%d",
					 root, pp, label, r);
				if (mkdirs(dir)) {
					perror(dir);
					return 1;
				}
				rng_state = (uint64_t)(j + 1) * 0x100000001b3ull ^
					    (uint64_t)c * 0x9e3779b97f4a7c15ull ^ (uint64_t)(r + 7);
				snprintf(path, sizeof(path), "%s/stats.json", dir);
				f = fopen(path, "w");
				if (!f) {
					perror(path);
					return 1;
				}
				setvbuf(f, buf, _IOFBF, sizeof(buf));
				fputs("{\n", f);
				for (int i = 0; i < nstats; i++) {
					double v = base[i] * (1 + 0.02 * gauss());

					if (i == 0 && c >= 600)
						v *= 0.95;
					fprintf(f, " \"%s\": %.12g%s\n", names[i], v,
						i + 1 < nstats ? "," : "");
				}
				fputs("}\n", f);
				if (fclose(f)) {
					perror(path);
					return 1;
				}
				strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S+0000", gmtime(&t));
				snprintf(path, sizeof(path), "%s/meta.json", dir);
				f = fopen(path, "w");
				if (!f) {
					perror(path);
					return 1;
				}
				fprintf(
				    f,
				    "{\n \"atomic_job\": \"bench-%s\",\n \"commit\": \"%s\",\n"
				    " \"failure_stats\": [],\n \"families\": {\n"
				    "  \"interrupts\": \"monitor\",\n  \"meminfo\": \"monitor\",\n"
				    "  \"perf-profile\": \"monitor\",\n"
				    "  \"perf-stat\": \"monitor\",\n  \"proc-vmstat\": "
				    "\"monitor\",\n"
				    "  \"sched_debug\": \"monitor\",\n  \"softirqs\": "
				    "\"monitor\",\n"
				    "  \"will-it-scale\": \"headline\"\n },\n"
				    " \"headline\": {\n  \"direction\": \"higher\",\n"
				    "  \"stat\": \"will-it-scale.per_process_ops\"\n },\n"
				    " \"job\": \"bench.yaml\",\n \"machine\": {\n"
				    "  \"arch\": \"x86_64\",\n  \"compiler\": \"gcc-12\",\n"
				    "  \"cores\": 2,\n  \"cpu_model\": \"Bench CPU\",\n"
				    "  \"hostname\": \"lkp-bench-1\",\n  \"kconfig\": "
				    "\"defconfig\",\n"
				    "  \"rootfs\": \"debian-12-x86_64\",\n  \"tbox_group\": "
				    "\"lkp-bench\",\n"
				    "  \"threads\": 2\n },\n \"mode\": \"process\",\n"
				    " \"nr_task\": %d,\n \"path_params\": \"%s\",\n"
				    " \"runtime_s\": 300.0,\n \"started\": \"%s\",\n"
				    " \"status\": \"ok\",\n \"suite\": \"will-it-scale\",\n"
				    " \"testcase\": \"page_fault%d\"\n}\n",
				    pp, label, 1 << (j % 6), pp, when, 1 + j / 6);
				if (fclose(f)) {
					perror(path);
					return 1;
				}
			}
		}
	}
	for (int i = 0; i < nstats; i++)
		free(names[i]);
	free(names);
	free(base);
	return 0;
}
