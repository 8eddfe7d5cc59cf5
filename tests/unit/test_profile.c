// serial: perf-profile's live window samples every CPU; a busy machine fills its ring buffers
/* Unit tests of the perf-profile monitor: the chain -> self/children/calltrace reduction,
 * clone suffixes, kallsyms (a capture from this machine, and the same with kptr_restrict's
 * zeroed addresses), ELF symbols of this very binary, and a live window sampling a busy child
 * through a ring buffer small enough to wrap many times.  The raw file and the report:
 * test_profile_report.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../monitors/monitor.h"
#include "../../store/profile_reduce.h"
#include "../../monitors/symbols.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FIXTURES "tests/fixtures/profile"

extern const struct monitor mon_perf_profile;

static double stat_of(const json_t *stats, const char *key)
{
	const json_t *v = json_object_get(stats, key);

	return v ? json_real_value(v) : NAN;
}

static void add(struct profile *p, uint64_t count, size_t n, ...)
{
	const char *frames[16];
	va_list ap;

	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		frames[i] = va_arg(ap, const char *);
	va_end(ap);
	assert_int_equal(profile_add(p, frames, n, count), 0);
}

static void test_strip_suffix(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(symbol_strip_suffix("shmem_fault.isra.0", buf, sizeof(buf)),
			    "shmem_fault");
	assert_string_equal(symbol_strip_suffix("kzalloc_noprof.constprop.0", buf, sizeof(buf)),
			    "kzalloc_noprof");
	assert_string_equal(symbol_strip_suffix("do_wp_page.part.12", buf, sizeof(buf)),
			    "do_wp_page");
	assert_string_equal(symbol_strip_suffix("wait_for_initramfs.cold", buf, sizeof(buf)),
			    "wait_for_initramfs");
	assert_string_equal(symbol_strip_suffix("f.constprop.0.isra.0", buf, sizeof(buf)), "f");
	assert_string_equal(symbol_strip_suffix("handle_mm_fault", buf, sizeof(buf)),
			    "handle_mm_fault");
	/* Only a suffix: a name that is nothing else is kept. */
	assert_string_equal(symbol_strip_suffix(".cold", buf, sizeof(buf)), ".cold");
}

static void test_reduce(void **state)
{
	struct profile p;
	json_t *stats = json_object();

	(void)state;
	assert_int_equal(profile_init(&p), 0);
	/* 60: a fault under the testcase; 30: a syscall; 10: recursion, f three times. */
	add(&p, 40, 4, "clear_page", "do_fault", "exc_page_fault", "testcase");
	add(&p, 20, 3, "do_fault", "exc_page_fault", "testcase");
	add(&p, 30, 3, "getppid", "do_syscall_64", "testcase");
	add(&p, 10, 4, "f", "f", "f", "main");
	assert_int_equal(p.n, 4);
	add(&p, 0, 4, "f", "f", "f", "main"); /* the same chain again: no new entry */
	assert_int_equal(p.n, 4);
	assert_int_equal(p.samples, 100);
	assert_int_equal(profile_reduce(&p, "cycles-pp", PROFILE_MIN_PCT, stats), 0);

	assert_true(fabs(stat_of(stats, "perf-profile.self.cycles-pp.clear_page") - 40) < 1e-9);
	assert_true(fabs(stat_of(stats, "perf-profile.self.cycles-pp.do_fault") - 20) < 1e-9);
	assert_true(isnan(stat_of(stats, "perf-profile.self.cycles-pp.testcase")));
	assert_true(fabs(stat_of(stats, "perf-profile.children.cycles-pp.do_fault") - 60) < 1e-9);
	assert_true(fabs(stat_of(stats, "perf-profile.children.cycles-pp.testcase") - 90) < 1e-9);
	/* Recursion: once per sample, not three times. */
	assert_true(fabs(stat_of(stats, "perf-profile.children.cycles-pp.f") - 10) < 1e-9);
	assert_true(fabs(stat_of(stats, "perf-profile.self.cycles-pp.f") - 10) < 1e-9);
	/* Calltrace: a frame and its callers, callee first, as the robot names them. */
	assert_true(fabs(stat_of(stats, "perf-profile.calltrace.cycles-pp.clear_page.do_fault."
					"exc_page_fault.testcase") -
			 40) < 1e-9);
	assert_true(
	    fabs(stat_of(stats,
			 "perf-profile.calltrace.cycles-pp.do_fault.exc_page_fault.testcase") -
		 60) < 1e-9);
	assert_true(fabs(stat_of(stats, "perf-profile.calltrace.cycles-pp.testcase") - 90) < 1e-9);
	assert_true(fabs(stat_of(stats, "perf-profile.calltrace.cycles-pp.f.f.f.main") - 10) <
		    1e-9);
	assert_true(fabs(stat_of(stats, "perf-profile.calltrace.cycles-pp.f.f.main") - 10) < 1e-9);
	json_decref(stats);
	profile_free(&p);
}

static void test_calltrace_depth_and_cut(void **state)
{
	struct profile p;
	json_t *stats = json_object();

	(void)state;
	assert_int_equal(profile_init(&p), 0);
	add(&p, 9990, 7, "a", "b", "c", "d", "e", "f", "g");
	add(&p, 5, 1, "exactly_cut"); /* 0.05%: kept */
	add(&p, 4, 1, "under_cut");   /* 0.04%: left out */
	add(&p, 1, 1, "rare");
	assert_int_equal(profile_reduce(&p, "cpu-clock", PROFILE_MIN_PCT, stats), 0);
	assert_true(fabs(stat_of(stats, "perf-profile.calltrace.cpu-clock.a.b.c.d.e") - 99.9) <
		    1e-9);
	assert_true(isnan(stat_of(stats, "perf-profile.calltrace.cpu-clock.a.b.c.d.e.f")));
	assert_true(fabs(stat_of(stats, "perf-profile.calltrace.cpu-clock.c.d.e.f.g") - 99.9) <
		    1e-9);
	assert_true(fabs(stat_of(stats, "perf-profile.self.cpu-clock.exactly_cut") - 0.05) < 1e-9);
	assert_true(isnan(stat_of(stats, "perf-profile.self.cpu-clock.under_cut")));
	assert_true(isnan(stat_of(stats, "perf-profile.children.cpu-clock.rare")));
	json_decref(stats);
	profile_free(&p);
}

static void test_kallsyms(void **state)
{
	struct ksyms k;
	char err[512];

	(void)state;
	assert_int_equal(ksyms_load(FIXTURES "/kallsyms", &k, err, sizeof(err)), 0);
	assert_false(k.zeroed);
	assert_string_equal(ksyms_lookup(&k, 0xffffffff81605710ULL), "handle_mm_fault");
	assert_string_equal(ksyms_lookup(&k, 0xffffffff81605780ULL), "handle_mm_fault");
	assert_string_equal(ksyms_lookup(&k, 0xffffffff8160570fULL), "__handle_mm_fault");
	assert_string_equal(ksyms_lookup(&k, 0xffffffff81200120ULL),
			    "class_preempt_notrace_destructor");
	assert_string_equal(ksyms_lookup(&k, 0xffffffff8120020dULL), "wait_for_initramfs");
	assert_string_equal(ksyms_lookup(&k, 0xffffffff82256070ULL), "clear_page_erms");
	assert_null(ksyms_lookup(&k, 0xffffffff80000000ULL));
	ksyms_free(&k);

	assert_int_equal(ksyms_load(FIXTURES "/kallsyms-zeroed", &k, err, sizeof(err)), 0);
	assert_true(k.zeroed);
	assert_null(ksyms_lookup(&k, 0xffffffff81605710ULL));
	ksyms_free(&k);

	assert_int_equal(ksyms_load(FIXTURES "/missing", &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, FIXTURES "/missing"));
}

__attribute__((noinline)) static uint64_t spin_here(double seconds)
{
	struct timespec t0, t;
	volatile uint64_t x = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i * 7;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	return x;
}

/* The mapping of this process that holds addr: its start and file offset. */
static int mapping_of(uintptr_t addr, uint64_t *start, uint64_t *pgoff, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int rc = -1;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, o;
		int off = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &o, &off) < 3 || !off)
			continue;
		if (addr >= s && addr < e) {
			line[strcspn(line, "\n")] = '\0';
			*start = s;
			*pgoff = o;
			snprintf(path, len, "%s", line + off);
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

static void test_elf_symbols(void **state)
{
	uintptr_t addr = (uintptr_t)spin_here + 4;
	uint64_t start, pgoff;
	struct elf_syms es;
	char path[4096], err[512];

	(void)state;
	assert_int_equal(mapping_of(addr, &start, &pgoff, path, sizeof(path)), 0);
	assert_int_equal(elf_syms_load(path, &es, err, sizeof(err)), 0);
	assert_true(es.n > 10);
	assert_true(es.nr_seg >= 1);
	/* A PIE: the load bias comes from the mapping, the segment from the program headers. */
	assert_string_equal(elf_syms_lookup_offset(&es, addr - start + pgoff), "spin_here");
	assert_string_equal(
	    elf_syms_lookup_offset(&es, (uintptr_t)test_elf_symbols - start + pgoff),
	    "test_elf_symbols");
	elf_syms_free(&es);

	assert_int_equal(elf_syms_load(FIXTURES "/kallsyms", &es, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not an ELF file"));
	assert_int_equal(elf_syms_load(FIXTURES "/missing", &es, err, sizeof(err)), -1);
}

/* A monitor context on this machine's /proc and /sys with these options. */
static struct monitor_ctx live_ctx(json_t *opts, double interval_s, double runtime_s)
{
	return (struct monitor_ctx){.name = "perf-profile",
				    .options = opts,
				    .interval_s = interval_s,
				    .nr_cpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN),
				    .proc_root = "/proc",
				    .sys_root = "/sys",
				    .runtime_s = runtime_s,
				    .raw = json_array(),
				    .meta = json_object()};
}

static void live_free(struct monitor_ctx *ctx)
{
	mon_perf_profile.cleanup(ctx);
	json_decref(ctx->raw);
	json_decref(ctx->meta);
}

/* prepare and start, or skip the test where only a permission problem (and a note saying
 * so) may stop the monitor. */
static void start_or_skip(struct monitor_ctx *ctx, json_t *opts)
{
	int rc = mon_perf_profile.prepare(ctx);

	if (rc == MONITOR_UNAVAILABLE) {
		assert_non_null(strstr(ctx->note, "perf_event_paranoid"));
		live_free(ctx);
		json_decref(opts);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(mon_perf_profile.start(ctx), 0);
}

/* Every record parsed whole (across the ring's end too): each chain has a frame, and the
 * chains add up to the samples. */
static void assert_chains_add_up(const json_t *run)
{
	json_int_t total = 0;
	const json_t *c;
	size_t i;

	json_array_foreach (json_object_get(run, "chains"), i, c) {
		assert_true(json_array_size(json_object_get(c, "chain")) > 0);
		total += json_integer_value(json_object_get(c, "count"));
	}
	assert_int_equal(total, json_integer_value(json_object_get(run, "samples")));
}

/* A whole window on this machine: a child spinning in spin_here must be the top self entry,
 * read through a 2-page ring drained every 50 ms, so records wrap its end again and again. */
static void test_live_window(void **state)
{
	json_t *opts = json_pack("{s:i,s:i}", "pages", 2, "freq", 1000);
	struct monitor_ctx ctx = live_ctx(opts, 0.05, 0);
	json_t *stats, *run;
	const char *event;
	char key[256];
	pid_t child;
	int status;

	(void)state;
	start_or_skip(&ctx, opts);
	child = fork();
	assert_true(child >= 0);
	if (!child)
		_exit(spin_here(1.0) == 1);
	for (int i = 1; i <= 24; i++) {
		usleep(50000);
		assert_int_equal(mon_perf_profile.sample(&ctx, i * 0.05), 0);
	}
	waitpid(child, &status, 0);
	stats = json_object();
	assert_int_equal(mon_perf_profile.stop(&ctx, 1.25), 0);
	assert_int_equal(mon_perf_profile.reduce(&ctx, stats), 0);

	run = json_array_get(ctx.raw, 0);
	assert_non_null(run);
	event = json_string_value(json_object_get(run, "event"));
	assert_non_null(event);
	assert_true(!strcmp(event, "cpu-clock") || !strncmp(event, "cycles", 6));
	assert_true(json_integer_value(json_object_get(run, "samples")) > 300);
	assert_true(json_array_size(json_object_get(run, "chains")) > 0);
	assert_chains_add_up(run);
	snprintf(key, sizeof(key), "perf-profile.self.%s.spin_here", event);
	/* The child spun for a second, by name; how much of all samples depends on what else
	 * this machine runs, so only "well above noise" is asked. */
	assert_true(stat_of(stats, key) > 1);
	assert_non_null(json_object_get(json_object_get(ctx.meta, "profile"), "lost"));
	/* The child is below this process: one of the run's, its samples named by pid and
	 * comm, its spin_here frame by the binary it is in. */
	{
		const json_t *pids = json_object_get(run, "run_pids"), *c, *p;
		bool listed = false, named = false;
		size_t i, j;

		json_array_foreach (pids, i, p)
			listed |= json_integer_value(p) == child;
		assert_true(listed);
		json_array_foreach (json_object_get(run, "chains"), i, c) {
			const json_t *f, *dsos = json_object_get(c, "dsos");

			if (json_integer_value(json_object_get(c, "pid")) != child)
				continue;
			assert_non_null(json_string_value(json_object_get(c, "comm")));
			json_array_foreach (json_object_get(c, "chain"), j, f)
				if (!strcmp(json_string_value(f), "spin_here"))
					named |= strstr(json_string_value(json_array_get(dsos, j)),
							"test_profile") != NULL;
		}
		assert_true(named);
	}
	live_free(&ctx);
	json_decref(opts);
	json_decref(stats);
}

/* A one-page ring never drained while a child spins: it overflows.  No crash, the lost
 * samples are counted, and what was kept parses whole (the chains add up to the samples). */
static void test_overflow(void **state)
{
	json_t *opts = json_pack("{s:i,s:i}", "pages", 1, "freq", 1000);
	struct monitor_ctx ctx = live_ctx(opts, 1, 0);
	json_t *stats, *run;
	json_int_t samples, lost;
	pid_t child;
	int status;

	(void)state;
	start_or_skip(&ctx, opts);
	child = fork();
	assert_true(child >= 0);
	if (!child)
		_exit(spin_here(0.5) == 1);
	waitpid(child, &status, 0);
	stats = json_object();
	assert_int_equal(mon_perf_profile.stop(&ctx, 0.5), 0);
	assert_int_equal(mon_perf_profile.reduce(&ctx, stats), 0);
	run = json_array_get(ctx.raw, 0);
	assert_non_null(run);
	samples = json_integer_value(json_object_get(run, "samples"));
	lost = json_integer_value(json_object_get(run, "lost"));
	/* 4 KiB holds a few dozen chains of the ~500 a CPU takes in 0.5 s. */
	print_message("one page: %lld samples kept, %lld lost\n", (long long)samples,
		      (long long)lost);
	assert_true(samples > 0);
	assert_true(lost > samples);
	assert_non_null(strstr(ctx.note, "raise pages (now 1 per CPU)"));
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(ctx.meta, "profile"), "lost")),
	    lost);
	assert_chains_add_up(run);
	live_free(&ctx);
	json_decref(opts);
	json_decref(stats);
}

/* Not root, and perf_event_paranoid above 0: unavailable, saying what would allow it. */
static void test_no_permission(void **state)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int paranoid = 2, status;
	pid_t child;

	(void)state;
	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	if (getuid() != 0 || paranoid <= 0)
		skip();
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		struct monitor_ctx ctx = {
		    .name = "perf-profile", .nr_cpus = 1, .proc_root = "/proc", .sys_root = "/sys"};
		char want[64];
		int rc;

		if (setgid(65534) || setuid(65534))
			_exit(3);
		rc = mon_perf_profile.prepare(&ctx);
		snprintf(want, sizeof(want), "(it is %d)", paranoid);
		mon_perf_profile.cleanup(&ctx);
		if (rc != MONITOR_UNAVAILABLE)
			_exit(4);
		_exit(strstr(ctx.note, "/proc/sys/kernel/perf_event_paranoid <= 0") &&
			      strstr(ctx.note, want)
			  ? 0
			  : 5);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_bad_options(void **state)
{
	json_t *opts = json_pack("{s:i}", "pages", 3);
	struct monitor_ctx ctx = {.name = "perf-profile", .options = opts, .nr_cpus = 1};

	(void)state;
	assert_int_equal(mon_perf_profile.prepare(&ctx), -1);
	assert_non_null(strstr(ctx.note, "pages (a power of 2)"));
	mon_perf_profile.cleanup(&ctx);
	json_decref(opts);

	/* A job file's options are strings: each one that is not a number is named. */
	static const char *const bad[][3] = {
	    {"freq", "1k", "option freq: expected a number, got '1k'"},
	    {"freq", "inf", "option freq: expected a number, got 'inf'"},
	    {"delay", "soon", "option delay: expected seconds (e.g. 10 or 10s), got 'soon'"},
	    {"pages", "", "option pages: expected a number, got ''"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct monitor_ctx c = {.name = "perf-profile", .nr_cpus = 1};

		c.options = opts = json_pack("{s:s}", bad[i][0], bad[i][1]);
		assert_int_equal(mon_perf_profile.prepare(&c), -1);
		if (!strstr(c.note, bad[i][2]))
			fail_msg("%s: '%s': note \"%s\"", bad[i][0], bad[i][1], c.note);
		mon_perf_profile.cleanup(&c);
		json_decref(opts);
	}
}

/* One slice of a window of runtime_s (0: unknown) with these options; returns prepare's
 * result, and the wake hints after start and after a sample at each hint, until none. */
static int slice(double runtime_s, json_t *opts, double *wakes, size_t nwakes, json_t **meta,
		 char *note, size_t notelen)
{
	struct monitor_ctx ctx = live_ctx(opts, 1, runtime_s);
	json_t *stats = json_object();
	int rc = mon_perf_profile.prepare(&ctx);
	size_t i = 0;

	snprintf(note, notelen, "%s", ctx.note);
	if (rc == 0) {
		assert_int_equal(mon_perf_profile.start(&ctx), 0);
		while (i < nwakes && ctx.wake_s > 0) {
			double t = wakes[i++] = ctx.wake_s;

			ctx.wake_s = 0;
			assert_int_equal(mon_perf_profile.sample(&ctx, t), 0);
		}
		assert_int_equal(mon_perf_profile.stop(&ctx, runtime_s), 0);
		assert_int_equal(mon_perf_profile.reduce(&ctx, stats), 0);
		*meta = json_incref(json_object_get(ctx.meta, "profile"));
	}
	for (; i < nwakes; i++)
		wakes[i] = 0;
	live_free(&ctx);
	json_decref(stats);
	return rc;
}

static double meta_num(const json_t *meta, const char *key)
{
	return json_number_value(json_object_get(meta, key));
}

/* The default slice starts at half the window and lasts 10 s or what is left; the monitor
 * asks to be called at both ends, and meta.json says when sampling really ran. */
static void test_default_slice(void **state)
{
	double w[3];
	json_t *meta = NULL, *opts;
	char note[512];
	int rc;

	(void)state;
	rc = slice(6, NULL, w, 3, &meta, note, sizeof(note));
	if (rc == MONITOR_UNAVAILABLE) {
		assert_non_null(strstr(note, "perf_event_paranoid"));
		skip();
	}
	assert_int_equal(rc, 0);
	assert_float_equal(w[0], 3, 1e-9); /* from half of 6 s to its end */
	assert_float_equal(w[1], 6, 1e-9);
	assert_float_equal(meta_num(meta, "from_s"), 3, 1e-9);
	assert_float_equal(meta_num(meta, "to_s"), 6, 1e-9);
	json_decref(meta);

	assert_int_equal(slice(300, NULL, w, 3, &meta, note, sizeof(note)), 0);
	assert_float_equal(w[0], 150, 1e-9); /* LKP's 300 s: 150 s to 160 s */
	assert_float_equal(w[1], 160, 1e-9);
	assert_float_equal(w[2], 0, 1e-9);
	assert_float_equal(meta_num(meta, "to_s"), 160, 1e-9);
	json_decref(meta);

	opts = json_pack("{s:s}", "delay", "1s"); /* as a job file gives it */
	assert_int_equal(slice(4, opts, w, 3, &meta, note, sizeof(note)), 0);
	assert_float_equal(w[0], 1, 1e-9); /* a delay alone: to the end of a short window */
	assert_float_equal(w[1], 4, 1e-9);
	json_decref(meta);
	json_decref(opts);

	assert_int_equal(slice(0, NULL, w, 3, &meta, note, sizeof(note)), 0);
	assert_float_equal(meta_num(meta, "from_s"), 0, 1e-9); /* window unknown: from the start */
	assert_float_equal(w[0], 10, 1e-9);
	json_decref(meta);

	opts = json_pack("{s:i}", "delay", 7);
	assert_int_equal(slice(6, opts, w, 3, &meta, note, sizeof(note)), -1);
	assert_non_null(strstr(note, "delay 7 s starts after the 6 s measurement window"));
	json_decref(opts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_strip_suffix),
	    cmocka_unit_test(test_reduce),
	    cmocka_unit_test(test_calltrace_depth_and_cut),
	    cmocka_unit_test(test_kallsyms),
	    cmocka_unit_test(test_elf_symbols),
	    cmocka_unit_test(test_live_window),
	    cmocka_unit_test(test_overflow),
	    cmocka_unit_test(test_no_permission),
	    cmocka_unit_test(test_bad_options),
	    cmocka_unit_test(test_default_slice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
