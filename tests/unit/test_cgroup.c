/* core/cgroup: a job's cgroup2 map checked (each refusal names the key and the value), a
 * percentage of memory resolved to whole pages of MemTotal or, as LKP does, to bytes of the
 * job's memory: (checked against lkp-tests' own values), and the counters read from a
 * cgroup's files as the kernel writes them (a stand-in directory: on machines whose memory
 * controller is bound to cgroup v1, no real cgroup v2 has memory.stat). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../runner/cgroup.h"
#include "../../core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* spec from JSON text: 0 or -1, err checked to hold want (when refused). */
static int check(const char *text, const char *want)
{
	json_error_t je;
	json_t *spec = json_loads(text, JSON_DECODE_ANY, &je);
	char err[512] = "";
	int ret;

	assert_non_null(spec);
	ret = cgroup_spec_check(spec, err, sizeof(err));
	if (want && !strstr(err, want))
		fail_msg("%s: got '%s', want '%s'", text, err, want);
	json_decref(spec);
	return ret;
}

static void test_lkp_keys(void **state)
{
	(void)state;
	/* lkp-tests' jobs/cgroup2.yaml as the job loader gives it (scalars are strings). */
	assert_int_equal(check("{\"memory.high\": \"90%\", \"memory.low\": \"50%\", "
			       "\"memory.max\": \"max\", \"memory.swap.max\": null, "
			       "\"io.max\": null, \"io.weight\": null, \"rdma.max\": null, "
			       "\"pids.max\": \"10000\"}",
			       NULL),
			 0);
	assert_int_equal(check("null", NULL), 0);
	assert_int_equal(check("{\"cg_count\": \"1\", \"cg_bind\": \"1\"}", NULL), 0);
	assert_int_equal(check("{\"memory.high\": \"8G\", \"cpuset.mems\": \"1,3\", "
			       "\"cpu.max\": \"50000 100000\", \"cpu.weight\": \"100\", "
			       "\"hugetlb.2MB.max\": \"0\", \"hugetlb.1GB.rsvd.max\": \"max\", "
			       "\"memory.oom.group\": \"1\", \"cpuset.cpus.partition\": \"root\"}",
			       NULL),
			 0);
	assert_int_equal(check("{\"memory.high\": \"12.5%\", \"memory.max\": \"512m\"}", NULL), 0);
}

static void test_refusals(void **state)
{
	(void)state;
	assert_int_equal(check("{\"memory.hihg\": \"1G\"}",
			       "cgroup2.memory.hihg: not a cgroup v2 interface file"),
			 -1);
	assert_int_equal(check("{\"cgroup.procs\": \"1\"}", "cgroup2.cgroup.procs: not a"), -1);
	assert_int_equal(check("{\"memory.high\": \"lots\"}",
			       "cgroup2.memory.high 'lots': expected max, a size"),
			 -1);
	assert_int_equal(check("{\"memory.high\": \"150%\"}", "'150%'"), -1);
	assert_int_equal(check("{\"memory.max\": \"1Q\"}", "'1Q'"), -1);
	assert_int_equal(check("{\"memory.max\": \"99999999999999999999\"}", "expected max"), -1);
	assert_int_equal(check("{\"pids.max\": \"-1\"}", "cgroup2.pids.max '-1': expected max or"),
			 -1);
	assert_int_equal(check("{\"cpu.weight\": \"0\"}", "cgroup2.cpu.weight '0'"), -1);
	assert_int_equal(check("{\"cpu.max\": \"max 1 2\"}", "cgroup2.cpu.max 'max 1 2'"), -1);
	/* A value that would reach a shell in LKP is not run: refused as a cpu list. */
	assert_int_equal(check("{\"cpuset.cpus\": \"$(cat /sys/devices/system/node/node0/cpulist)\"}",
			       "expected a list of numbers and ranges"),
			 -1);
	assert_int_equal(check("{\"io.max\": \"8:0 rbps=1\\n\"}", "one line of printable text"),
			 -1);
	assert_int_equal(check("{\"cg_count\": \"2\"}", "cgroup2.cg_count '2'"), -1);
	assert_int_equal(check("{\"pids.max\": [\"1\", \"2\"]}", "cgroup2.pids.max: expected one"),
			 -1);
	assert_int_equal(check("[\"memory.high\"]", "cgroup2: expected a map"), -1);
	assert_int_equal(check("{\"hugetlb..max\": \"0\"}", "not a cgroup v2 interface"), -1);
}

/* 50% of memory: half of MemTotal, down to a whole page, whether or not the memory controller
 * can be enabled here (a controller that cannot is listed, its keys not applied). */
static void test_percentage(void **state)
{
	json_t *spec = json_pack("{s:s, s:s, s:n}", "memory.high", "50%", "memory.max", "1G",
				 "memory.low");
	struct cgroup_run cg;
	unsigned long long kb = 0, want;
	char err[512], line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	(void)state;
	assert_non_null(spec);
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	if (cgroup_plan(&cg, spec, NULL, err, sizeof(err))) {
		json_decref(spec);
		cgroup_free(&cg);
		if (strstr(err, "no cgroup v2 hierarchy"))
			skip();
		fail_msg("%s", err);
	}
	want = kb * 1024 / 2 / (unsigned long long)sysconf(_SC_PAGESIZE) *
	       (unsigned long long)sysconf(_SC_PAGESIZE);
	assert_int_equal(cg.n_set, 2); /* memory.low: empty, skipped as LKP skips it */
	for (size_t i = 0; i < cg.n_set; i++) {
		if (!strcmp(cg.set[i].key, "memory.high")) {
			assert_string_equal(cg.set[i].asked, "50%");
			assert_int_equal(strtoull(cg.set[i].value, NULL, 10), want);
		} else {
			assert_string_equal(cg.set[i].value, "1G"); /* written as asked */
		}
		assert_true(cg.set[i].applied == (cg.n_missing == 0));
	}
	assert_false(cg.created);
	assert_string_equal(cg.percent_of, "MemTotal");
	assert_int_equal(cg.percent_of_bytes, kb * 1024);
	cgroup_free(&cg);
	json_decref(spec);
}

/* Of a testbox's memory: (lkp-tests' hosts/ key), a percentage is what lkp-tests' own
 * params/memory.* maps give (tests/fixtures/lkp-jobs/cgroup2-memory/lkp.txt: MEMORY KEY ASKED
 * LKP's value), integer bytes, no page rounding, and what it was of is recorded; a size as
 * asked is the same number of bytes. */
static void test_percentage_of_memory(void **state)
{
	FILE *f = fopen("tests/fixtures/lkp-jobs/cgroup2-memory/lkp.txt", "r");
	char mem[32], key[64], asked[32], lkp[32], err[512];
	size_t n = 0;

	(void)state;
	assert_non_null(f);
	while (fscanf(f, "%31s %63s %31s %31s", mem, key, asked, lkp) == 4) {
		json_t *spec = json_pack("{s:s}", key, asked), *memory = json_string(mem);
		struct cgroup_run cg;
		uint64_t want, got;

		if (cgroup_plan(&cg, spec, memory, err, sizeof(err))) {
			json_decref(spec);
			json_decref(memory);
			cgroup_free(&cg);
			fclose(f);
			if (strstr(err, "no cgroup v2 hierarchy"))
				skip();
			fail_msg("%s", err);
		}
		assert_int_equal(cg.n_set, 1);
		if (!strcmp(lkp, "max")) {
			assert_string_equal(cg.set[0].value, "max");
		} else {
			json_t *a = json_string(lkp), *b = json_string(cg.set[0].value);

			assert_int_equal(cgroup_memory_bytes(a, &want), 0);
			assert_int_equal(cgroup_memory_bytes(b, &got), 0);
			if (want != got)
				fail_msg("%s of memory: %s: %s: LKP %s, scalebench %s", asked, mem, key,
					 lkp, cg.set[0].value);
			json_decref(a);
			json_decref(b);
		}
		if (strchr(asked, '%')) {
			assert_string_equal(cg.percent_of, "memory");
			assert_int_equal(cgroup_memory_bytes(memory, &want), 0);
			assert_int_equal(cg.percent_of_bytes, want);
		} else {
			assert_string_equal(cg.percent_of, "");
		}
		cgroup_free(&cg);
		json_decref(spec);
		json_decref(memory);
		n++;
	}
	fclose(f);
	assert_int_equal(n, 10);
}

/* memory: as lib/unit.rb's to_byte reads it; what LKP cannot read is refused. */
static void test_memory_bytes(void **state)
{
	static const struct {
		const char *text;
		uint64_t bytes; /* 0: refused */
	} cases[] = {{"8G", 8ULL << 30},	{"8gb", 8ULL << 30}, {"512M", 512ULL << 20},
		     {"3000m", 3000ULL << 20},	{"1T", 1ULL << 40},  {"2P", 2ULL << 50},
		     {"4096K", 4096ULL << 10},	{"8589934592", 8589934592ULL},
		     {"8.5G", 0},		{"8GiB", 0},	     {"lots", 0},
		     {"", 0},			{"0", 0},	     {"-8G", 0},
		     {"99999999999999999999", 0}, {"16385P", 0}};
	uint64_t b;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *v = json_string(cases[i].text);
		int r = cgroup_memory_bytes(v, &b);

		if (cases[i].bytes ? r || b != cases[i].bytes : r == 0)
			fail_msg("memory '%s': %d, %llu", cases[i].text, r, (unsigned long long)b);
		json_decref(v);
	}
	json_t *v = json_integer(8589934592LL);

	assert_int_equal(cgroup_memory_bytes(v, &b), 0);
	assert_int_equal(b, 8589934592ULL);
	json_decref(v);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A cgroup v2's memory.stat (abridged, in the kernel's order: keys that share a prefix with a
 * counted one come before and after it), memory.events and cpu.stat. */
static void put_files(const char *dir, unsigned long long pgfault, unsigned long long high,
		      unsigned long long usage)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "anon 1052672\nfile 268435456\nkernel 372736\nshmem 268435456\n"
		 "file_mapped 268435456\nworkingset_refault_anon 0\npgscan 17\npgsteal 9\n"
		 "pgfault %llu\npgmajfault 3\npgrefill 0\npglazyfree 0\nthp_fault_alloc 0\n",
		 pgfault);
	put(dir, "memory.stat", text);
	snprintf(text, sizeof(text),
		 "low 0\nhigh %llu\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n", high);
	put(dir, "memory.events", text);
	snprintf(text, sizeof(text),
		 "usage_usec %llu\nuser_usec 10\nsystem_usec 20\nnr_periods 0\n"
		 "nr_throttled 0\nthrottled_usec 0\n",
		 usage);
	put(dir, "cpu.stat", text);
}

static void test_counters(void **state)
{
	char dir[] = "/tmp/test_cgroup.XXXXXX", path[PATH_MAX + 64];
	struct cgroup_run cg;
	json_t *stats = json_object();
	const char *names[] = {"memory.stat", "memory.events", "cpu.stat"};

	(void)state;
	assert_non_null(mkdtemp(dir));
	memset(&cg, 0, sizeof(cg));
	snprintf(cg.path, sizeof(cg.path), "%s", dir);
	cg.created = true;
	put_files(dir, 1000, 0, 500);
	cgroup_count(&cg, CORE_WINDOW_START);
	put_files(dir, 66536, 41, 2500);
	cgroup_count(&cg, CORE_WINDOW_END);
	cgroup_stats(&cg, stats);
	assert_int_equal(json_integer_value(json_object_get(stats, "cgroup.memory.pgfault")), 65536);
	assert_int_equal(json_integer_value(json_object_get(stats, "cgroup.memory.pgmajfault")), 0);
	assert_int_equal(json_integer_value(json_object_get(stats, "cgroup.memory.events.high")),
			 41);
	assert_int_equal(json_integer_value(json_object_get(stats, "cgroup.memory.events.max")), 0);
	assert_int_equal(
	    json_integer_value(json_object_get(stats, "cgroup.memory.events.oom_kill")), 0);
	assert_int_equal(json_integer_value(json_object_get(stats, "cgroup.cpu.usage_usec")), 2000);
	assert_int_equal(json_object_size(stats), CGROUP_NR_COUNTERS);
	json_decref(stats);

	/* A file gone at the window's end (memory missing): its counters are left out. */
	memset(cg.have, 0, sizeof(cg.have));
	cgroup_count(&cg, CORE_WINDOW_START);
	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	assert_int_equal(unlink(path), 0);
	cgroup_count(&cg, CORE_WINDOW_END);
	stats = json_object();
	cgroup_stats(&cg, stats);
	assert_null(json_object_get(stats, "cgroup.memory.pgfault"));
	assert_null(json_object_get(stats, "cgroup.memory.pgmajfault"));
	assert_non_null(json_object_get(stats, "cgroup.memory.events.high"));
	json_decref(stats);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	assert_int_equal(rmdir(dir), 0);
	cgroup_free(&cg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lkp_keys),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_percentage),
	    cmocka_unit_test(test_percentage_of_memory),
	    cmocka_unit_test(test_memory_bytes),
	    cmocka_unit_test(test_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
