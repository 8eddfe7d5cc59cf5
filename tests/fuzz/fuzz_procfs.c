/* The /proc and /sys monitors: a monitor's whole life (start, sample, stop, reduce, cleanup)
 * over a fixture tree holding the input, the way the unit tests point them at captured files.
 *
 * The input is "MONITOR\n" then the files' text at the first reading, and after a NUL byte
 * (when there is one) their text at the later readings, so deltas, keys that come and go and
 * changed tables are reached.  A monitor that reads several files (vmstat) gets the same text
 * in each; dmesg gets the text appended to its log after start, as the kernel would.
 * Corpus: tests/fuzz/corpus/procfs (this machine's /proc and the tests/fixtures/monitors trees). */
#include "fuzz.h"
#include "../../monitors/monitor.h"

#include <math.h>
#include <sys/stat.h>

static const struct target {
	const char *monitor;
	const char *files[4]; /* below the fixture root; proc_root is proc/, sys_root sys/ */
} targets[] = {
    {"meminfo", {"proc/meminfo"}},
    {"proc-vmstat", {"proc/vmstat"}},
    {"proc-stat", {"proc/stat"}},
    {"vmstat", {"proc/vmstat", "proc/stat", "proc/meminfo"}},
    {"interrupts", {"proc/interrupts"}},
    {"softirqs", {"proc/softirqs"}},
    {"slabinfo", {"proc/slabinfo"}},
    {"sched_debug", {"sys/kernel/debug/sched/debug"}},
    {"numa-meminfo", {"sys/devices/system/node/node0/meminfo"}},
    {"numa-numastat", {"sys/devices/system/node/node0/numastat"}},
    {"numa-vmstat", {"sys/devices/system/node/node0/vmstat"}},
    {"dmesg", {"kmsg"}},
};

static char root[PATH_MAX], proc_root[PATH_MAX], sys_root[PATH_MAX], kmsg[PATH_MAX];

static void mkdirs(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static void setup(void)
{
	snprintf(root, sizeof(root), "%s/tree", fuzz_scratch());
	mkdir(root, 0755);
	mkdirs("proc");
	mkdirs("sys/kernel/debug/sched");
	mkdirs("sys/devices/system/node/node0");
	snprintf(proc_root, sizeof(proc_root), "%s/proc", root);
	snprintf(sys_root, sizeof(sys_root), "%s/sys", root);
	snprintf(kmsg, sizeof(kmsg), "%s/kmsg", root);
}

static void put_files(const struct target *t, const uint8_t *text, size_t len, bool append)
{
	for (size_t i = 0; i < 4 && t->files[i]; i++) {
		char path[PATH_MAX];
		int fd;

		snprintf(path, sizeof(path), "%s/%s", root, t->files[i]);
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC),
			  0644);
		if (fd < 0 || (len && write(fd, text, len) != (ssize_t)len) || close(fd))
			fuzz_die(path);
	}
}

/* What reduce gives goes into stats.json: numbers, and finite ones. */
static void check_stats(const json_t *stats, const char *monitor)
{
	const char *k;
	json_t *v;

	json_object_foreach ((json_t *)stats, k, v) {
		if (!json_is_number(v) || !isfinite(json_number_value(v))) {
			fprintf(stderr, "%s: stat '%s' is not a finite number\n", monitor, k);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size), *second, *end = data + size;
	const struct target *t = NULL;
	const struct monitor *m;
	struct monitor_ctx ctx;
	json_t *options = NULL;
	int rc;

	if (!root[0])
		setup();
	if (!nl)
		return 0;
	for (size_t i = 0; i < sizeof(targets) / sizeof(*targets); i++)
		if ((size_t)(nl - data) == strlen(targets[i].monitor) &&
		    !memcmp(data, targets[i].monitor, (size_t)(nl - data)))
			t = &targets[i];
	if (!t || !(m = monitor_find(t->monitor)))
		return 0;
	data = nl + 1;
	second = memchr(data, '\0', (size_t)(end - data));
	size = (size_t)((second ? second : end) - data);

	if (!strcmp(t->monitor, "dmesg")) {
		options = json_pack("{s:s}", "device", kmsg);
		put_files(t, data, 0, false); /* the log before start: what the monitor skips */
	} else {
		put_files(t, data, size, false);
	}
	ctx = (struct monitor_ctx){.name = m->name,
				   .options = options,
				   .interval_s = 1,
				   .nr_cpus = 2,
				   .proc_root = proc_root,
				   .sys_root = sys_root,
				   .runtime_s = 2,
				   .raw = json_array(),
				   .meta = json_object()};
	rc = m->prepare ? m->prepare(&ctx) : 0;
	if (!rc)
		rc = m->start(&ctx);
	if (rc)
		fuzz_check_opened(ctx.note);
	if (!rc) {
		if (options)
			put_files(t, data, size, true);
		m->sample(&ctx, 1.0);
		if (second) {
			second++;
			put_files(t, second, (size_t)(end - second), options != NULL);
		}
		m->sample(&ctx, 1.5);
		m->stop(&ctx, 2.0);
		ctx.window_ops = 1000;
		ctx.window_s = 2;
		ctx.run_elapsed_s = 2.5;

		json_t *stats = json_object();

		if (m->reduce(&ctx, stats) == 0)
			check_stats(stats, m->name);
		free(json_dumps(stats, JSON_COMPACT));
		free(json_dumps(ctx.raw, JSON_COMPACT));
		json_decref(stats);
	}
	m->cleanup(&ctx);
	json_decref(ctx.raw);
	json_decref(ctx.meta);
	json_decref(options);
	return 0;
}
