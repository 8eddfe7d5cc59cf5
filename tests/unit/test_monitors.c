/* Unit tests of the procfs monitors: each one's start/sample/stop/reduce over captured fixture
 * trees (tests/fixtures/monitors: t0 captured from a real machine, t1 the same files with
 * known increments, bad with malformed lines), switching proc_root between readings so the
 * deltas and means are known exactly; LKP stat names; dmesg's failure ids on real warning
 * lines; missing files; and one short window over the real /proc and /sys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../monitors/mon_dmesg.h"
#include "../../monitors/monitor.h"
#include "../../monitors/procfs.h"
#include "../../monitors/scheduler.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char fixtures[4096];

/* tests/fixtures/monitors from the repository root (where tests/run.sh runs us), else found
 * from the binary's place in build/asan/tests/. */
static int find_fixtures(void **state)
{
	char exe[4096];
	ssize_t n;
	struct stat st;

	(void)state;
	if (stat("tests/fixtures/monitors/t0", &st) == 0) {
		snprintf(fixtures, sizeof(fixtures), "tests/fixtures/monitors");
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -1;
	exe[n] = '\0';
	snprintf(fixtures, sizeof(fixtures), "%s/../../../tests/fixtures/monitors", dirname(exe));
	return stat(fixtures, &st);
}

/* A fixture path; four rotating buffers so one call can take several. */
static const char *fx(const char *rel)
{
	static char buf[4][4200];
	static unsigned i;
	char *b = buf[i++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/%s", fixtures, rel);
	return b;
}

static void ctx_init(struct monitor_ctx *ctx, const struct monitor *m, const char *proc_root,
		     const char *sys_root)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->name = m->name;
	ctx->interval_s = 1;
	ctx->nr_cpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	ctx->proc_root = proc_root;
	ctx->sys_root = sys_root;
	ctx->raw = json_array();
	ctx->meta = json_object();
	assert_non_null(ctx->raw);
	assert_non_null(ctx->meta);
}

static void ctx_done(const struct monitor *m, struct monitor_ctx *ctx)
{
	m->cleanup(ctx);
	assert_null(ctx->priv);
	json_decref(ctx->raw);
	json_decref(ctx->meta);
}

static const struct monitor *find(const char *name)
{
	const struct monitor *m = monitor_find(name);

	if (!m)
		fail_msg("monitor %s is not registered", name);
	return m;
}

/* Readings t0 (start, 0 s), t1 (sample, 1 s), t1 (stop, 2 s): counters move by the t1 - t0
 * increments, gauges average to (g0 + 2 g1) / 3. */
static json_t *run_fixture(const struct monitor *m, struct monitor_ctx *ctx)
{
	json_t *stats = json_object();

	ctx_init(ctx, m, fx("t0/proc"), fx("t0/sys"));
	assert_int_equal(m->start(ctx), 0);
	ctx->proc_root = fx("t1/proc");
	ctx->sys_root = fx("t1/sys");
	assert_int_equal(m->sample(ctx, 1.0), 0);
	assert_int_equal(m->stop(ctx, 2.0), 0);
	assert_int_equal(m->reduce(ctx, stats), 0);
	return stats;
}

static double stat_of(const json_t *stats, const char *name)
{
	const json_t *v = json_object_get(stats, name);

	if (!json_is_number(v))
		fail_msg("stat %s is missing", name);
	return json_number_value(v);
}

static bool has(const json_t *stats, const char *name)
{
	return json_object_get(stats, name) != NULL;
}

static size_t count_prefix(const json_t *stats, const char *prefix)
{
	const char *key;
	json_t *v;
	size_t n = 0;

	json_object_foreach ((json_t *)stats, key, v)
		if (strncmp(key, prefix, strlen(prefix)) == 0)
			n++;
	return n;
}

static void test_proc_vmstat(void **state)
{
	const struct monitor *m = find("proc-vmstat");
	struct monitor_ctx ctx;
	json_t *stats, *s0, *s1;
	(void)state;

	assert_true(m->is_default);
	stats = run_fixture(m, &ctx);
	assert_float_equal(stat_of(stats, "proc-vmstat.pgfault"), 1000, 0);
	assert_float_equal(stat_of(stats, "proc-vmstat.numa_hit"), 500, 0);
	assert_float_equal(stat_of(stats, "proc-vmstat.pgpgout"), 4096, 0);
	/* 0 at every reading: left out, as LKP's dump-stat leaves it out */
	assert_false(has(stats, "proc-vmstat.pswpin"));
	/* A gauge: the mean of 1042844, 1042644, 1042644, not a delta. */
	assert_float_equal(stat_of(stats, "proc-vmstat.nr_free_pages"), 1042844 - 400.0 / 3, 1e-6);
	assert_true(json_is_integer(json_object_get(stats, "proc-vmstat.pgfault")));

	/* Raw: one sample per reading, the key list only in the first. */
	assert_int_equal(json_array_size(ctx.raw), 3);
	s0 = json_array_get(ctx.raw, 0);
	s1 = json_array_get(ctx.raw, 2);
	assert_float_equal(json_number_value(json_object_get(s0, "t_s")), 0, 0);
	assert_float_equal(json_number_value(json_object_get(s1, "t_s")), 2, 0);
	assert_non_null(json_object_get(s0, "keys"));
	assert_null(json_object_get(s1, "keys"));
	assert_int_equal(json_array_size(json_object_get(s0, "keys")),
			 json_array_size(json_object_get(s1, "values")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(s0, "keys"), 0)),
			    "nr_free_pages");
	assert_int_equal(json_integer_value(json_array_get(json_object_get(s1, "values"), 0)),
			 1042644);
	assert_string_equal(ctx.note, "");
	json_decref(stats);
	ctx_done(m, &ctx);
}

static void test_proc_stat(void **state)
{
	const struct monitor *m = find("proc-stat");
	struct monitor_ctx ctx;
	json_t *stats;
	(void)state;

	assert_false(m->is_default);
	stats = run_fixture(m, &ctx);
	assert_float_equal(stat_of(stats, "proc-stat.cpu.user"), 100, 0);
	assert_false(has(stats, "proc-stat.cpu.nice")); /* 0 throughout */
	assert_float_equal(stat_of(stats, "proc-stat.cpu.system"), 50, 0);
	assert_float_equal(stat_of(stats, "proc-stat.cpu.idle"), 40, 0);
	assert_float_equal(stat_of(stats, "proc-stat.cpu.iowait"), 10, 0);
	assert_false(has(stats, "proc-stat.cpu.guest_nice"));
	assert_float_equal(stat_of(stats, "proc-stat.ctxt"), 3000, 0);
	assert_float_equal(stat_of(stats, "proc-stat.intr"), 1000, 0);
	assert_float_equal(stat_of(stats, "proc-stat.softirq"), 700, 0);
	assert_float_equal(stat_of(stats, "proc-stat.processes"), 20, 0);
	assert_float_equal(stat_of(stats, "proc-stat.procs_running"), 11.0 / 3, 1e-12);
	assert_float_equal(stat_of(stats, "proc-stat.procs_blocked"), 2.0 / 3, 1e-12);
	assert_false(has(stats, "proc-stat.btime"));
	assert_false(has(stats, "proc-stat.cpu0.user"));
	json_decref(stats);
	ctx_done(m, &ctx);
}

static void test_vmstat(void **state)
{
	const struct monitor *m = find("vmstat");
	struct monitor_ctx ctx;
	json_t *stats, *row;
	(void)state;

	assert_true(m->is_default);
	stats = run_fixture(m, &ctx);
	/* /proc/stat moved user 100, system 50, idle 40, iowait 10 ticks: 200 in all. */
	assert_float_equal(stat_of(stats, "vmstat.cpu.us"), 50, 1e-9);
	assert_float_equal(stat_of(stats, "vmstat.cpu.sy"), 25, 1e-9);
	assert_float_equal(stat_of(stats, "vmstat.cpu.id"), 20, 1e-9);
	assert_float_equal(stat_of(stats, "vmstat.cpu.wa"), 5, 1e-9);
	assert_false(has(stats, "vmstat.cpu.st")); /* 0: left out, as LKP does */
	/* Over the 2 s window. */
	assert_float_equal(stat_of(stats, "vmstat.system.cs"), 1500, 1e-9);
	assert_float_equal(stat_of(stats, "vmstat.system.in"), 500, 1e-9);
	assert_float_equal(stat_of(stats, "vmstat.io.bi"), 1024, 1e-9);
	assert_float_equal(stat_of(stats, "vmstat.io.bo"), 2048, 1e-9);
	assert_false(has(stats, "vmstat.swap.si"));
	assert_float_equal(stat_of(stats, "vmstat.procs.r"), 11.0 / 3, 1e-9);
	assert_float_equal(stat_of(stats, "vmstat.procs.b"), 2.0 / 3, 1e-9);
	assert_float_equal(stat_of(stats, "vmstat.memory.free"), 24175488 + 2000.0 / 3, 1e-6);
	assert_float_equal(stat_of(stats, "vmstat.memory.buff"), 2540, 1e-9);
	assert_float_equal(stat_of(stats, "vmstat.memory.cache"), 309240 + 400.0 / 3 + 77388, 1e-6);
	assert_false(has(stats, "vmstat.memory.swpd"));

	/* Raw rows as vmstat(8) prints them: the first has no interval yet; the second is the
	 * 1 s interval in which everything moved. */
	assert_int_equal(json_array_size(ctx.raw), 3);
	row = json_array_get(ctx.raw, 0);
	assert_null(json_object_get(row, "cs"));
	assert_float_equal(json_number_value(json_object_get(row, "r")), 5, 0);
	row = json_array_get(ctx.raw, 1);
	assert_float_equal(json_number_value(json_object_get(row, "cs")), 3000, 1e-9);
	assert_float_equal(json_number_value(json_object_get(row, "us")), 50, 1e-9);
	assert_float_equal(json_number_value(json_object_get(row, "bo")), 4096, 1e-9);
	row = json_array_get(ctx.raw, 2);
	assert_float_equal(json_number_value(json_object_get(row, "cs")), 0, 0);
	json_decref(stats);
	ctx_done(m, &ctx);
}

static void test_meminfo(void **state)
{
	const struct monitor *m = find("meminfo");
	struct monitor_ctx ctx;
	json_t *stats;
	(void)state;

	stats = run_fixture(m, &ctx);
	assert_float_equal(stat_of(stats, "meminfo.MemTotal"), 24683620, 0);
	assert_float_equal(stat_of(stats, "meminfo.MemFree"), 24175488 + 2000.0 / 3, 1e-6);
	assert_float_equal(stat_of(stats, "meminfo.Active(anon)"), 1552 + 80.0 / 3, 1e-9);
	assert_false(has(stats, "meminfo.HugePages_Total")); /* 0 throughout */
	assert_false(has(stats, "meminfo.MemTotal:"));
	/* LKP's two: MemTotal - MemFree, and its running maximum, both means of the readings */
	assert_float_equal(stat_of(stats, "meminfo.Memused"), 24683620 - 24175488 - 2000.0 / 3,
			   1e-6);
	assert_float_equal(stat_of(stats, "meminfo.max_used_kB"), 24683620 - 24175488, 1e-6);
	json_decref(stats);
	ctx_done(m, &ctx);
}

static void test_interrupts(void **state)
{
	const struct monitor *m = find("interrupts");
	struct monitor_ctx ctx;
	json_t *stats, *s;
	(void)state;

	assert_true(m->is_default);
	stats = run_fixture(m, &ctx);
	assert_float_equal(stat_of(stats, "interrupts.LOC:Local_timer_interrupts"), 1500, 0);
	assert_float_equal(stat_of(stats, "interrupts.CPU0.LOC:Local_timer_interrupts"), 1000, 0);
	assert_float_equal(stat_of(stats, "interrupts.CPU1.LOC:Local_timer_interrupts"), 500, 0);
	assert_float_equal(stat_of(stats, "interrupts.CAL:Function_call_interrupts"), 7, 0);
	assert_float_equal(stat_of(stats, "interrupts.CPU1.CAL:Function_call_interrupts"), 7, 0);
	/* Unchanged but not zero at the ends: kept, as 0. */
	assert_float_equal(stat_of(stats, "interrupts.CPU0.CAL:Function_call_interrupts"), 0, 0);
	/* A numbered line: chip, hwirq-type and device joined by '.'. */
	assert_float_equal(stat_of(stats, "interrupts.44:PCI-MSI.26738689-edge.eth0-TxRx-0"), 25,
			   0);
	assert_float_equal(stat_of(stats, "interrupts.CPU1.44:PCI-MSI.26738689-edge.eth0-TxRx-0"),
			   25, 0);
	assert_false(has(stats, "interrupts.CPU0.44:PCI-MSI.26738689-edge.eth0-TxRx-0"));
	/* 0 on every CPU at every reading: left out, total included, as LKP leaves it out */
	assert_false(has(stats, "interrupts.28:PCI-MSIX-0000:00:01.0.0-edge.virtio0-config"));
	assert_true(has(stats, "interrupts.24:IO-APIC.5-edge.ACPI:Ged"));
	/* ERR has one system-wide count and no description. */
	assert_float_equal(stat_of(stats, "interrupts.ERR"), 3, 0);
	assert_false(has(stats, "interrupts.CPU0.ERR"));
	assert_false(has(stats, "interrupts.ERR:"));
	assert_false(has(stats, "interrupts.MIS"));
	assert_false(has(stats, "interrupts.NMI:Non-maskable_interrupts"));
	assert_false(has(stats, "interrupts.CPU0.NMI:Non-maskable_interrupts"));

	/* Raw: totals at every reading, per-CPU values at start and stop only. */
	assert_int_equal(json_array_size(ctx.raw), 3);
	s = json_array_get(ctx.raw, 0);
	assert_non_null(json_object_get(s, "percpu_keys"));
	assert_non_null(json_object_get(s, "percpu_values"));
	s = json_array_get(ctx.raw, 1);
	assert_non_null(json_object_get(s, "values"));
	assert_null(json_object_get(s, "percpu_values"));
	s = json_array_get(ctx.raw, 2);
	assert_non_null(json_object_get(s, "percpu_values"));
	assert_null(json_object_get(s, "percpu_keys"));
	json_decref(stats);
	ctx_done(m, &ctx);
}

static void test_softirqs(void **state)
{
	const struct monitor *m = find("softirqs");
	struct monitor_ctx ctx;
	json_t *stats;
	(void)state;

	assert_true(m->is_default);
	stats = run_fixture(m, &ctx);
	/* LKP's rule: softirqs are not event counters, so they are the means of the cumulative
	 * counts (t0, t1, t1), not deltas. */
	assert_float_equal(stat_of(stats, "softirqs.RCU"), 948889 + 800.0 / 3, 1e-6);
	assert_float_equal(stat_of(stats, "softirqs.CPU0.RCU"), 525498 + 200.0 / 3, 1e-6);
	assert_float_equal(stat_of(stats, "softirqs.CPU1.RCU"), 423391 + 200, 1e-6);
	assert_float_equal(stat_of(stats, "softirqs.TIMER"), 195972 + 100.0 / 3, 1e-6);
	assert_float_equal(stat_of(stats, "softirqs.CPU1.TIMER"), 115155, 0);
	/* 0 throughout: left out, totals too */
	assert_false(has(stats, "softirqs.HI"));
	assert_false(has(stats, "softirqs.CPU0.HI"));
	assert_int_equal(count_prefix(stats, "softirqs."), 7 + 12);
	json_decref(stats);
	ctx_done(m, &ctx);
}

static void test_numa(void **state)
{
	const struct monitor *m;
	struct monitor_ctx ctx;
	json_t *stats;
	(void)state;

	m = find("numa-meminfo");
	assert_false(m->is_default);
	stats = run_fixture(m, &ctx);
	assert_float_equal(stat_of(stats, "numa-meminfo.node0.MemTotal"), 4679456, 0);
	assert_float_equal(stat_of(stats, "numa-meminfo.node0.MemFree"), 4171376 + 1600.0 / 3,
			   1e-6);
	assert_false(has(stats, "numa-meminfo.node0.Node"));
	json_decref(stats);
	ctx_done(m, &ctx);

	m = find("numa-numastat");
	stats = run_fixture(m, &ctx);
	assert_float_equal(stat_of(stats, "numa-numastat.node0.numa_hit"), 500, 0);
	assert_float_equal(stat_of(stats, "numa-numastat.node0.local_node"), 500, 0);
	assert_false(has(stats, "numa-numastat.node0.numa_miss")); /* 0 throughout */
	json_decref(stats);
	ctx_done(m, &ctx);

	m = find("numa-vmstat");
	stats = run_fixture(m, &ctx);
	assert_float_equal(stat_of(stats, "numa-vmstat.node0.numa_hit"), 300, 0);
	assert_float_equal(stat_of(stats, "numa-vmstat.node0.nr_free_pages"), 1042844 - 400.0 / 3,
			   1e-6);
	json_decref(stats);
	ctx_done(m, &ctx);
}

static void test_slabinfo(void **state)
{
	const struct monitor *m = find("slabinfo");
	struct monitor_ctx ctx;
	json_t *stats;
	(void)state;

	stats = run_fixture(m, &ctx);
	assert_float_equal(stat_of(stats, "slabinfo.kmalloc-64.active_objs"), 2677 + 200.0 / 3,
			   1e-9);
	assert_float_equal(stat_of(stats, "slabinfo.kmalloc-64.num_objs"), 2880, 0);
	assert_float_equal(stat_of(stats, "slabinfo.bio-312.num_objs"), 12, 0);
	assert_false(has(stats, "slabinfo.slabinfo.active_objs"));
	assert_false(has(stats, "slabinfo.#.active_objs"));
	json_decref(stats);
	ctx_done(m, &ctx);
}

static void test_sched_debug(void **state)
{
	const struct monitor *m = find("sched_debug");
	struct monitor_ctx ctx;
	json_t *stats;
	(void)state;

	stats = run_fixture(m, &ctx);
	/* nr_switches counts: CPU0 +1000, CPU1 +3000. */
	assert_float_equal(stat_of(stats, "sched_debug.cpu.nr_switches.avg"), 2000, 1e-9);
	assert_float_equal(stat_of(stats, "sched_debug.cpu.nr_switches.max"), 3000, 0);
	assert_float_equal(stat_of(stats, "sched_debug.cpu.nr_switches.min"), 1000, 0);
	assert_float_equal(stat_of(stats, "sched_debug.cpu.nr_switches.stddev"), 1000, 1e-9);
	/* nr_running is a level: CPU0 reads 1, 3, 3 (mean 7/3), CPU1 0. */
	assert_float_equal(stat_of(stats, "sched_debug.cpu.nr_running.avg"), 7.0 / 6, 1e-9);
	assert_float_equal(stat_of(stats, "sched_debug.cpu.nr_running.max"), 7.0 / 3, 1e-9);
	assert_float_equal(stat_of(stats, "sched_debug.cpu.nr_running.stddev"), 7.0 / 6, 1e-9);
	assert_float_equal(stat_of(stats, "sched_debug.cpu.nr_uninterruptible.min"), -12, 0);
	/* The root cfs_rq only: user.slice's min_vruntime 61243 would pull this down. */
	assert_float_equal(stat_of(stats, "sched_debug.cfs_rq:/.min_vruntime.avg"), 2480600, 1e-6);
	assert_float_equal(stat_of(stats, "sched_debug.cfs_rq:/.util_avg.stddev"), 200, 1e-9);
	assert_float_equal(stat_of(stats, "sched_debug.cfs_rq:/.load_avg.min"), 0, 0);
	assert_false(has(stats, "sched_debug.rt_rq:.rt_runtime.avg"));
	assert_false(has(stats, "sched_debug.cpu.sysctl_sched_base_slice.avg"));
	json_decref(stats);
	ctx_done(m, &ctx);
}

/* Every procfs monitor, pointed at an empty tree, says it is unavailable and why. */
static void test_missing_files(void **state)
{
	static const char *const names[] = {
	    "proc-vmstat",   "vmstat",	    "meminfo",	   "proc-stat",
	    "interrupts",    "softirqs",    "slabinfo",	   "numa-meminfo",
	    "numa-numastat", "numa-vmstat", "sched_debug",
	};
	char dir[] = "/tmp/scalebench-monitors-XXXXXX";
	(void)state;

	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		const struct monitor *m = find(names[i]);
		struct monitor_ctx ctx;

		ctx_init(&ctx, m, dir, dir);
		assert_int_equal(m->start(&ctx), MONITOR_UNAVAILABLE);
		assert_true(ctx.note[0]);
		assert_non_null(strstr(ctx.note, dir));
		if (strcmp(names[i], "sched_debug") == 0)
			assert_non_null(strstr(ctx.note, "debugfs"));
		else
			assert_non_null(strstr(ctx.note, "No such file"));
		ctx_done(m, &ctx);
	}
	assert_int_equal(rmdir(dir), 0);
}

/* A file that goes away mid-window fails that sample; the window still reduces. */
static void test_file_vanishes(void **state)
{
	const struct monitor *m = find("proc-vmstat");
	char dir[] = "/tmp/scalebench-monitors-XXXXXX";
	struct monitor_ctx ctx;
	json_t *stats = json_object();
	(void)state;

	assert_non_null(mkdtemp(dir));
	ctx_init(&ctx, m, fx("t0/proc"), fx("t0/sys"));
	assert_int_equal(m->start(&ctx), 0);
	ctx.proc_root = dir;
	assert_int_equal(m->sample(&ctx, 1), -1);
	assert_non_null(strstr(ctx.note, "vmstat"));
	ctx.proc_root = fx("t1/proc");
	assert_int_equal(m->stop(&ctx, 2), 0);
	assert_int_equal(m->reduce(&ctx, stats), 0);
	assert_float_equal(stat_of(stats, "proc-vmstat.pgfault"), 1000, 0);
	assert_int_equal(json_array_size(ctx.raw), 2);
	json_decref(stats);
	ctx_done(m, &ctx);
	rmdir(dir);
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Whether path was read since st0 was taken (its access time moved). */
static bool read_since(const char *path, const struct stat *st0)
{
	struct stat st;

	return stat(path, &st) == 0 && (st.st_atim.tv_sec != st0->st_atim.tv_sec ||
					st.st_atim.tv_nsec != st0->st_atim.tv_nsec);
}

/* The scheduler over a meminfo that goes away mid-window (SCALEBENCH_PROCFS points the monitor
 * at dir): with back, it returns before the end; returns the monitor's meta entry and, in
 * *stats, what went to stats.json. */
static json_t *window_with_gap(bool back, json_t **stats)
{
	char dir[] = "/tmp/scalebench-monitors-XXXXXX", path[64], away[80], cmd[4300];
	struct monitor_set ms;
	struct monitor_window w = {.ops = 1, .window_s = 0.6, .run_elapsed_s = 0.6};
	json_t *wanted = json_pack("{s:{s:f}}", "meminfo", "interval", 0.05);
	json_t *meta = json_object(), *entry;
	struct stat st0;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/meminfo", dir);
	snprintf(away, sizeof(away), "%s.away", path);
	snprintf(cmd, sizeof(cmd), "cp %s %s", fx("t0/proc/meminfo"), path);
	assert_int_equal(system(cmd), 0);
	setenv("SCALEBENCH_PROCFS", dir, 1);
	assert_int_equal(monitor_set_init(&ms, wanted, false, 1, 0.6, 1), 0);
	unsetenv("SCALEBENCH_PROCFS");
	assert_int_equal(stat(path, &st0), 0);
	monitor_set_start(&ms);
	/* The start's reading shows in the access time (relatime: the first read after the
	 * copy's write); a busy machine may take a while to get there. */
	for (int i = 0; i < 1000 && !read_since(path, &st0); i++)
		sleep_s(0.01);
	sleep_s(0.1);
	assert_int_equal(rename(path, away), 0);
	sleep_s(0.4);
	if (back)
		assert_int_equal(rename(away, path), 0);
	sleep_s(0.2);
	monitor_set_stop(&ms);
	*stats = json_object();
	monitor_set_reduce(&ms, &w, *stats, meta);
	entry = json_incref(json_object_get(meta, "meminfo"));
	monitor_set_free(&ms);
	unlink(path);
	unlink(away);
	rmdir(dir);
	json_decref(wanted);
	json_decref(meta);
	assert_non_null(entry);
	return entry;
}

/* A file gone for part of the window and back by its end: the monitor stays ok (a counter
 * needs only the first and last readings), its stats are used, the note counts the failures. */
static void test_scheduler_file_back(void **state)
{
	json_t *stats, *m = window_with_gap(true, &stats);
	const char *note = json_string_value(json_object_get(m, "note"));
	(void)state;

	assert_string_equal(json_string_value(json_object_get(m, "status")), "ok");
	assert_non_null(note);
	assert_non_null(strstr(note, "failed, the first"));
	assert_non_null(json_object_get(stats, "meminfo.MemTotal"));
	assert_null(json_object_get(m, "partial_stats"));
	json_decref(m);
	json_decref(stats);
}

/* A file gone at the end: incomplete, its stats aside in partial_stats, none in stats. */
static void test_scheduler_file_gone(void **state)
{
	json_t *stats, *m = window_with_gap(false, &stats);
	const char *note = json_string_value(json_object_get(m, "note"));
	(void)state;

	assert_string_equal(json_string_value(json_object_get(m, "status")), "incomplete");
	assert_non_null(note);
	assert_non_null(strstr(note, "No such file"));
	assert_null(strstr(note, "not provided"));
	assert_non_null(strstr(note, "partial_stats"));
	assert_non_null(json_object_get(json_object_get(m, "partial_stats"), "meminfo.MemTotal"));
	assert_int_equal(json_object_size(stats), 0);
	json_decref(m);
	json_decref(stats);
}

/* Start on files with malformed lines, stop on clean ones: the bad lines are skipped and
 * counted, everything else is read. */
static json_t *run_bad(const struct monitor *m, struct monitor_ctx *ctx)
{
	json_t *stats = json_object();

	ctx_init(ctx, m, fx("bad/proc"), fx("t0/sys"));
	assert_int_equal(m->start(ctx), 0);
	ctx->proc_root = fx("t1/proc");
	assert_int_equal(m->stop(ctx, 2.0), 0);
	assert_int_equal(m->reduce(ctx, stats), 0);
	return stats;
}

static void test_malformed_lines(void **state)
{
	const struct monitor *m;
	struct monitor_ctx ctx;
	json_t *stats;
	(void)state;

	m = find("proc-vmstat");
	stats = run_bad(m, &ctx);
	assert_float_equal(stat_of(stats, "proc-vmstat.pgfault"), 1000, 0);
	assert_float_equal(stat_of(stats, "proc-vmstat.pgmajfault"), 0, 0);
	assert_false(has(stats, "proc-vmstat.numa_miss"));
	assert_false(has(stats, "proc-vmstat.this"));
	assert_false(has(stats, "proc-vmstat.\x01\x02\x7f"));
	assert_int_equal(json_integer_value(json_object_get(ctx.meta, "skipped_lines")), 6);
	assert_non_null(strstr(ctx.note, "skipped 6 malformed line(s) of vmstat"));
	assert_non_null(strstr(ctx.note, "pgmajfault"));
	json_decref(stats);
	ctx_done(m, &ctx);

	m = find("meminfo");
	stats = run_bad(m, &ctx);
	assert_true(has(stats, "meminfo.MemFree"));
	assert_false(has(stats, "meminfo.Bogus"));
	assert_int_equal(json_integer_value(json_object_get(ctx.meta, "skipped_lines")), 3);
	json_decref(stats);
	ctx_done(m, &ctx);

	m = find("proc-stat");
	stats = run_bad(m, &ctx);
	assert_float_equal(stat_of(stats, "proc-stat.ctxt"), 3000, 0);
	assert_float_equal(stat_of(stats, "proc-stat.processes"), 20, 0);
	assert_int_equal(json_integer_value(json_object_get(ctx.meta, "skipped_lines")), 2);
	json_decref(stats);
	ctx_done(m, &ctx);

	m = find("interrupts");
	stats = run_bad(m, &ctx);
	assert_float_equal(stat_of(stats, "interrupts.LOC:Local_timer_interrupts"), 1500, 0);
	assert_false(has(stats, "interrupts.XYZ:abc_def"));
	assert_int_equal(json_integer_value(json_object_get(ctx.meta, "skipped_lines")), 4);
	json_decref(stats);
	ctx_done(m, &ctx);

	/* No CPU header: nothing to read the columns by. */
	m = find("softirqs");
	ctx_init(&ctx, m, fx("bad/proc"), fx("t0/sys"));
	assert_int_equal(m->start(&ctx), MONITOR_UNAVAILABLE);
	assert_non_null(strstr(ctx.note, "expected a header of CPU<n> columns"));
	ctx_done(m, &ctx);
}

static void test_kv_and_table_parsers(void **state)
{
	char line1[] = "Active(anon):       1552 kB", line2[] = "pgfault 33852847",
	     line3[] = "Node 1 MemFree:   4171376 kB", line4[] = "pgfault 12 MB",
	     line5[] = "numa_hit -5";
	char table[] = "           CPU0       CPU2\n"
		       "  0:         37          5  IR-IO-APIC   2-edge      timer\n"
		       "NMI:        210         92   Non-maskable interrupts\n"
		       "ERR:          4\n";
	struct percpu_table t;
	char err[256];
	char *key;
	double v;
	(void)state;

	assert_int_equal(procfs_kv_line(line1, &key, &v), 0);
	assert_string_equal(key, "Active(anon)");
	assert_float_equal(v, 1552, 0);
	assert_int_equal(procfs_kv_line(line2, &key, &v), 0);
	assert_string_equal(key, "pgfault");
	assert_float_equal(v, 33852847, 0);
	assert_int_equal(procfs_kv_line(line3, &key, &v), 0);
	assert_string_equal(key, "MemFree");
	assert_int_equal(procfs_kv_line(line4, &key, &v), -1);
	assert_int_equal(procfs_kv_line(line5, &key, &v), 0);
	assert_float_equal(v, -5, 0);

	/* Offline CPUs have no column: the headers name the CPUs. */
	assert_int_equal(percpu_table_parse(&t, table, "interrupts", NULL, err, sizeof(err)), 0);
	assert_int_equal(t.nr_cpus, 2);
	assert_int_equal(t.cpus[1], 2);
	assert_int_equal(t.nr_rows, 3);
	assert_string_equal(t.rows[0].id, "0");
	assert_string_equal(t.rows[0].desc, "IR-IO-APIC   2-edge      timer");
	assert_float_equal(t.rows[1].counts[1], 92, 0);
	assert_string_equal(t.rows[1].desc, "Non-maskable interrupts");
	assert_int_equal(t.rows[2].nr_counts, 1);
	assert_string_equal(t.rows[2].desc, "");
	percpu_table_free(&t);
}

struct normalize_case {
	const char *line, *id;
};

static void test_dmesg_normalize(void **state)
{
	static const struct normalize_case cases[] = {
	    {"WARNING: CPU: 3 PID: 1234 at mm/page_alloc.c:4567 __alloc_pages+0x1a/0x340",
	     "WARNING:at_mm/page_alloc.c:#__alloc_pages"},
	    {"4,1234,5678901234,-;WARNING: CPU: 0 PID: 812 at "
	     "drivers/gpu/drm/i915/intel_pm.c:1234 intel_update_watermarks.isra.0+0x12/0x40 "
	     "[i915]",
	     "WARNING:at_drivers/gpu/drm/i915/intel_pm.c:#intel_update_watermarks[i915]"},
	    {"[  123.456789] BUG: kernel NULL pointer dereference, address: 0000000000000008",
	     "BUG:kernel_NULL_pointer_dereference,address:#"},
	    {"Oops: 0002 [#1] PREEMPT SMP PTI", "Oops:#[##]"},
	    {"general protection fault, probably for non-canonical address 0xdffffc0000000001: "
	     "0000 [#1] PREEMPT SMP KASAN PTI",
	     "general_protection_fault,probably_for_non-canonical_address#:#[##]"},
	    {"watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [will-it-scale:4321]",
	     "BUG:soft_lockup-CPU##stuck_for#s![will-it-scale:#]"},
	    {"INFO: task will-it-scale:4321 blocked for more than 122 seconds.",
	     "INFO:task_blocked_for_more_than#seconds"},
	    {"rcu: INFO: rcu_preempt self-detected stall on CPU",
	     "INFO:rcu_preempt_self-detected_stall_on_CPU"},
	    {"<4>kernel BUG at mm/slub.c:412!", "kernel_BUG_at_mm/slub.c:#!"},
	    {"Kernel panic - not syncing: Fatal exception",
	     "Kernel_panic-not_syncing:Fatal_exception"},
	    {"BUG: Bad page state in process will-it-scale  pfn:1a2b3c",
	     "BUG:Bad_page_state_in_process_will-it-scale_pfn:#"},
	    {"e1000e 0000:00:19.0 eth0: Detected Hardware Unit Hang",
	     "e1000e#:#:#.#eth0:Detected_Hardware_Unit_Hang"},
	    {"Call Trace:", "Call_Trace"},
	    {"UBSAN: shift-out-of-bounds in fs/ext4/super.c:4190:27",
	     "UBSAN:shift-out-of-bounds_in_fs/ext4/super.c:#:#"},
	};
	char out[256];
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		assert_int_equal(dmesg_normalize(cases[i].line, out, sizeof(out)), 0);
		if (strcmp(out, cases[i].id) != 0)
			fail_msg("'%s'\n  gave     '%s'\n  expected '%s'", cases[i].line, out,
				 cases[i].id);
	}
	/* Nothing left: an error, not an empty id. */
	assert_int_equal(dmesg_normalize("[    1.000000]   ", out, sizeof(out)), -1);
	assert_int_equal(dmesg_normalize("", out, sizeof(out)), -1);
	assert_int_equal(dmesg_normalize("WARNING", out, 0), -1);
	/* Truncated to fit, NUL included. */
	assert_int_equal(dmesg_normalize("WARNING: CPU: 3 PID: 1 at mm/page_alloc.c:1 f", out, 11),
			 0);
	assert_string_equal(out, "WARNING:at");
	/* Very long input is cut, not overrun. */
	{
		char big[4000];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		assert_int_equal(dmesg_normalize(big, out, sizeof(out)), 0);
		assert_int_equal(strlen(out), sizeof(out) - 1);
	}
}

static void test_dmesg_is_failure(void **state)
{
	(void)state;
	assert_true(dmesg_is_failure(4, "WARNING: CPU: 1 PID: 2 at mm/x.c:1 f+0x1/0x2"));
	assert_true(dmesg_is_failure(3, "blk_update_request: I/O error, dev sda, sector 2048"));
	assert_true(dmesg_is_failure(6, "BUG: Bad page state in process x  pfn:1a2b3c"));
	assert_true(dmesg_is_failure(6, "rcu: INFO: rcu_sched detected stalls on CPUs/tasks:"));
	assert_true(dmesg_is_failure(-1, "INFO: task a:1 blocked for more than 120 seconds."));
	assert_true(dmesg_is_failure(4, "Call Trace:"));
	assert_false(dmesg_is_failure(6, "virtio_net virtio2 eth0: renamed from eth0"));
	assert_false(dmesg_is_failure(5, "random: crng init done"));
	/* The rest of a dump repeats the headline's failure. */
	assert_false(dmesg_is_failure(4, " <TASK>"));
	assert_false(dmesg_is_failure(4, " ? __warn+0x89/0x140"));
	assert_false(dmesg_is_failure(4, "alloc_pages_mpol+0x95/0x1a0"));
	assert_false(dmesg_is_failure(4, "RIP: 0010:__alloc_pages_noprof+0x2f4/0x360"));
	assert_false(dmesg_is_failure(4, "RAX: 0000000000000000 RBX: 0000000000000cc0"));
	assert_false(dmesg_is_failure(4, "CR2: 00007f0e5c3b1000 CR3: 000000010a3e2000"));
	assert_false(dmesg_is_failure(4, "Code: 48 89 df e8 3c 2a ff ff"));
	assert_false(dmesg_is_failure(4, "Modules linked in: virtio_net"));
	assert_false(dmesg_is_failure(4, "---[ end trace 0000000000000000 ]---"));
	assert_false(dmesg_is_failure(4, "------------[ cut here ]------------"));
	assert_false(dmesg_is_failure(4, "CPU: 1 UID: 0 PID: 4021 Comm: x Not tainted 6.18 #1"));
	assert_false(dmesg_is_failure(4, ""));
}

static void append_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* The dmesg monitor (and kmsg, the same code under LKP's other name) over a file of
 * /dev/kmsg records: what was there before start is ignored, a record split across two
 * reads is put together, each distinct failure counts once. */
static void run_kmsg_file(const char *name)
{
	const struct monitor *m = find(name);
	char path[] = "/tmp/scalebench-kmsg-XXXXXX";
	char err[256], key[512];
	size_t before_len, new_len, split;
	char *before = procfs_read(fixtures, "kmsg/before", &before_len, err, sizeof(err));
	char *fresh = procfs_read(fixtures, "kmsg/new", &new_len, err, sizeof(err));
	json_t *options, *stats = json_object(), *records;
	struct monitor_ctx ctx;
	int fd;

	assert_non_null(before);
	assert_non_null(fresh);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, before, before_len), (ssize_t)before_len);
	close(fd);
	options = json_pack("{s:s}", "device", path);

	ctx_init(&ctx, m, "/nonexistent", "/nonexistent");
	ctx.options = options;
	assert_int_equal(m->start(&ctx), 0);
	split = (size_t)(strstr(fresh, "4,2110,") - fresh) + 9; /* inside a record */
	append_file(path, fresh, split);
	assert_int_equal(m->sample(&ctx, 1.0), 0);
	append_file(path, fresh + split, new_len - split);
	assert_int_equal(m->stop(&ctx, 2.0), 0);
	assert_int_equal(m->reduce(&ctx, stats), 0);

	snprintf(key, sizeof(key), "%s.", name);
	assert_int_equal(count_prefix(stats, key), 4);
	snprintf(key, sizeof(key), "%s.WARNING:at_mm/page_alloc.c:#__alloc_pages_noprof", name);
	assert_float_equal(stat_of(stats, key), 1, 0);
	snprintf(key, sizeof(key), "%s.BUG:soft_lockup-CPU##stuck_for#s![will-it-scale:#]", name);
	assert_float_equal(stat_of(stats, key), 1, 0);
	snprintf(key, sizeof(key), "%s.INFO:task_blocked_for_more_than#seconds", name);
	assert_float_equal(stat_of(stats, key), 1, 0);
	snprintf(key, sizeof(key), "%s.Call_Trace", name);
	assert_float_equal(stat_of(stats, key), 1, 0);
	snprintf(key, sizeof(key), "%s.WARNING:at_kernel/old.c:#old_function", name);
	assert_false(has(stats, key));

	/* Every new record in the raw samples, split by the reading that saw it. */
	assert_int_equal(json_integer_value(json_object_get(ctx.meta, "new_records")), 20);
	assert_int_equal(json_integer_value(json_object_get(ctx.meta, "skipped_lines")), 1);
	assert_int_equal(json_array_size(ctx.raw), 2);
	records = json_object_get(json_array_get(ctx.raw, 0), "records");
	assert_int_equal(json_array_size(records), 9);
	assert_string_equal(json_string_value(json_object_get(json_array_get(records, 2), "msg")),
			    "WARNING: CPU: 1 PID: 4021 at mm/page_alloc.c:4567 "
			    "__alloc_pages_noprof+0x2f4/0x360");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(records, 2), "level")),
			 4);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(records, 2), "seq")),
			 2103);
	records = json_object_get(json_array_get(ctx.raw, 1), "records");
	assert_int_equal(json_array_size(records), 11);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(records, 0), "seq")),
			 2110);

	json_decref(stats);
	ctx_done(m, &ctx);
	json_decref(options);
	unlink(path);
	free(before);
	free(fresh);
}

static void test_dmesg_records(void **state)
{
	(void)state;
	assert_true(find("dmesg")->is_default);
	assert_false(find("kmsg")->is_default);
	run_kmsg_file("dmesg");
	run_kmsg_file("kmsg");
}

/* A kernel message with a byte that is not UTF-8 (a Latin-1 byte, a sequence cut short) is
 * still a failure stat, with '?' for the byte, and its raw record keeps the message with
 * U+FFFD (stats_put refused the name: reduce failed and the warning was lost). */
static void test_dmesg_not_utf8(void **state)
{
	const struct monitor *m = find("dmesg");
	char path[] = "/tmp/scalebench-kmsg-XXXXXX";
	static const char rec[] = "4,3000,100,-;WARNING: CPU: 0 PID: 1 at drivers/caf\xe9.c:12 "
				  "f+0x1/0x2\n4,3001,101,-;BUG: r\xc3\n";
	json_t *options, *stats = json_object(), *records;
	struct monitor_ctx ctx;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	options = json_pack("{s:s}", "device", path);
	ctx_init(&ctx, m, "/nonexistent", "/nonexistent");
	ctx.options = options;
	assert_int_equal(m->start(&ctx), 0);
	append_file(path, rec, sizeof(rec) - 1);
	assert_int_equal(m->stop(&ctx, 1.0), 0);
	assert_int_equal(m->reduce(&ctx, stats), 0);
	assert_float_equal(stat_of(stats, "dmesg.WARNING:at_drivers/caf?.c:#f"), 1, 0);
	assert_float_equal(stat_of(stats, "dmesg.BUG:r?"), 1, 0);
	records = json_object_get(json_array_get(ctx.raw, 0), "records");
	assert_int_equal(json_array_size(records), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(records, 1), "msg")),
			    "BUG: r\xef\xbf\xbd");
	json_decref(stats);
	ctx_done(m, &ctx);
	json_decref(options);
	unlink(path);
}

static void test_dmesg_unavailable(void **state)
{
	const struct monitor *m = find("dmesg");
	json_t *options = json_pack("{s:s, s:i}", "device", "/nonexistent/kmsg", "unknown", 1);
	struct monitor_ctx ctx;
	(void)state;

	ctx_init(&ctx, m, "/proc", "/sys");
	ctx.options = options;
	assert_int_equal(m->start(&ctx), MONITOR_UNAVAILABLE);
	assert_non_null(strstr(ctx.note, "cannot open /nonexistent/kmsg"));
	ctx_done(m, &ctx);
	json_decref(options);
}

/* Every monitor over the real /proc and /sys for about a second. */
static void test_real_proc(void **state)
{
	static const char *const names[] = {
	    "proc-vmstat", "vmstat",	   "meminfo",	    "proc-stat",   "interrupts",
	    "softirqs",	   "numa-meminfo", "numa-numastat", "numa-vmstat", "slabinfo",
	    "sched_debug", "dmesg",	   "kmsg",
	};
	enum { N = sizeof(names) / sizeof(*names) };
	struct monitor_ctx ctx[N];
	int rc[N];
	json_t *stats = json_object();
	struct stat st;
	const char *key;
	json_t *v;
	double cpu = 0;
	bool irq_moved = false;
	(void)state;

	for (size_t i = 0; i < N; i++) {
		ctx_init(&ctx[i], find(names[i]), "/proc", "/sys");
		rc[i] = find(names[i])->start(&ctx[i]);
		if (rc[i] == MONITOR_UNAVAILABLE) {
			/* Only what this machine may lack: debugfs, NUMA sysfs, root. */
			if (strcmp(names[i], "sched_debug") && strncmp(names[i], "numa-", 5) &&
			    strcmp(names[i], "slabinfo") && strcmp(names[i], "dmesg") &&
			    strcmp(names[i], "kmsg"))
				fail_msg("%s unavailable: %s", names[i], ctx[i].note);
			assert_true(ctx[i].note[0]);
			print_message("%s unavailable here: %s\n", names[i], ctx[i].note);
			continue;
		}
		assert_int_equal(rc[i], 0);
	}
	usleep(500000);
	for (size_t i = 0; i < N; i++)
		if (!rc[i])
			assert_int_equal(find(names[i])->sample(&ctx[i], 0.5), 0);
	usleep(500000);
	for (size_t i = 0; i < N; i++)
		if (!rc[i]) {
			assert_int_equal(find(names[i])->stop(&ctx[i], 1.0), 0);
			assert_int_equal(find(names[i])->reduce(&ctx[i], stats), 0);
			assert_true(
			    json_array_size(ctx[i].raw) >=
			    (strcmp(names[i], "dmesg") && strcmp(names[i], "kmsg") ? 3u : 0u));
		}
	for (size_t i = 0; i < N; i++)
		ctx_done(find(names[i]), &ctx[i]);

	assert_true(stat_of(stats, "proc-vmstat.pgfault") >= 0);
	assert_true(stat_of(stats, "proc-vmstat.nr_free_pages") > 0);
	assert_true(stat_of(stats, "meminfo.MemTotal") > 0);
	assert_true(stat_of(stats, "meminfo.MemFree") <= stat_of(stats, "meminfo.MemTotal"));
	assert_true(stat_of(stats, "proc-stat.ctxt") > 0);
	assert_true(stat_of(stats, "proc-stat.procs_running") >= 1);
	assert_true(stat_of(stats, "vmstat.system.cs") > 0);
	assert_true(stat_of(stats, "vmstat.procs.r") >= 1);
	assert_true(stat_of(stats, "vmstat.memory.free") > 0);
	for (const char *const *c = (const char *const[]){"us", "sy", "id", "wa", "st", NULL}; *c;
	     c++) {
		char name[64];
		double x;

		snprintf(name, sizeof(name), "vmstat.cpu.%s", *c);
		if (!has(stats, name))
			continue; /* 0 over the window (no idle on a busy machine): left out */
		x = stat_of(stats, name);
		assert_true(x >= 0 && x <= 100);
		cpu += x;
	}
	assert_float_equal(cpu, 100, 1e-6);
	json_object_foreach (stats, key, v)
		if (strncmp(key, "interrupts.", 11) == 0 && strncmp(key, "interrupts.CPU", 14) &&
		    json_number_value(v) > 0)
			irq_moved = true;
	assert_true(irq_moved);
	assert_true(stat_of(stats, "softirqs.TIMER") >= 0);
	assert_true(has(stats, "softirqs.CPU0.TIMER") || stat_of(stats, "softirqs.TIMER") == 0);
	if (stat("/sys/devices/system/node/node0/meminfo", &st) == 0) {
		assert_true(stat_of(stats, "numa-meminfo.node0.MemTotal") > 0);
		assert_true(stat_of(stats, "numa-numastat.node0.numa_hit") >= 0);
		assert_true(has(stats, "numa-vmstat.node0.nr_free_pages"));
	}
	if (geteuid() == 0)
		assert_true(count_prefix(stats, "slabinfo.") > 0);
	json_decref(stats);
}

/* What each default monitor declares a rate (a count or rate over the window, the work it
 * held) and what not (levels, shares, values per op): compare's per-op rule reads it. */
static void test_declared_rates(void **state)
{
	static const struct {
		const char *monitor, *stat;
		bool rate;
	} cases[] = {
	    {"proc-vmstat", "proc-vmstat.pgfault", true},
	    {"proc-vmstat", "proc-vmstat.numa_hit", true},
	    {"proc-vmstat", "proc-vmstat.nr_free_pages", false},
	    {"proc-vmstat", "proc-vmstat.nr_file_pages", false},
	    {"vmstat", "vmstat.system.cs", true},
	    {"vmstat", "vmstat.io.bo", true},
	    {"vmstat", "vmstat.memory.cache", false},
	    {"vmstat", "vmstat.cpu.us", false},
	    {"vmstat", "vmstat.procs.r", false},
	    {"perf-stat", "perf-stat.ps.page-faults", true},
	    {"perf-stat", "perf-stat.total.instructions", true},
	    {"perf-stat", "perf-stat.i.metric.K/sec", false},
	    {"perf-stat", "perf-stat.overall.instructions-per-op", false},
	    {"time", "time.minor_page_faults", true},
	    {"time", "time.user_time", true},
	    {"time", "time.percent_of_cpu_this_job_got", false},
	    {"time", "time.maximum_resident_set_size", false},
	    {"interrupts", "interrupts.CPU0.LOC:Local_timer_interrupts", true},
	    {"softirqs", "softirqs.CPU0.RCU", false},
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const struct monitor *m = monitor_find(cases[i].monitor);

		assert_non_null(m);
		assert_non_null(m->is_rate);
		if (m->is_rate(cases[i].stat) != cases[i].rate)
			fail_msg("%s: is_rate(%s) should be %d", cases[i].monitor, cases[i].stat,
				 cases[i].rate);
	}
	/* meminfo holds levels only: nothing to declare */
	assert_null(monitor_find("meminfo")->is_rate);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_declared_rates),
	    cmocka_unit_test(test_proc_vmstat),
	    cmocka_unit_test(test_proc_stat),
	    cmocka_unit_test(test_vmstat),
	    cmocka_unit_test(test_meminfo),
	    cmocka_unit_test(test_interrupts),
	    cmocka_unit_test(test_softirqs),
	    cmocka_unit_test(test_numa),
	    cmocka_unit_test(test_slabinfo),
	    cmocka_unit_test(test_sched_debug),
	    cmocka_unit_test(test_missing_files),
	    cmocka_unit_test(test_file_vanishes),
	    cmocka_unit_test(test_malformed_lines),
	    cmocka_unit_test(test_kv_and_table_parsers),
	    cmocka_unit_test(test_dmesg_normalize),
	    cmocka_unit_test(test_dmesg_is_failure),
	    cmocka_unit_test(test_dmesg_records),
	    cmocka_unit_test(test_dmesg_not_utf8),
	    cmocka_unit_test(test_dmesg_unavailable),
	    cmocka_unit_test(test_real_proc),
	    cmocka_unit_test(test_scheduler_file_back),
	    cmocka_unit_test(test_scheduler_file_gone),
	};

	return cmocka_run_group_tests(tests, find_fixtures, NULL);
}
