#!/bin/bash
# Out-of-tree plug-in testcases: the example builds against the header alone and runs like a
# built-in one; broken plug-ins are refused with the file and the reason named.
set -u
. "$(dirname "$0")/../lib.sh"

# The header as installed: <scalebench/testcase.h>, nothing else of the tree.
mkdir -p "$WORK/include/scalebench"
cp testcases/testcase.h "$WORK/include/scalebench/"
cc_plugin() {
	cc -std=c11 -Wall -Wextra -Werror -O2 -I"$WORK/include" -shared -fPIC -o "$@" 2>"$WORK/cc.err"
}

cc_plugin "$WORK/uname.so" examples/plugin/uname_plugin.c
check "example plug-in builds against the installed header alone" [ -f "$WORK/uname.so" ]

sb bench --plugin "$WORK/uname.so" -m both -t 1,2 -s 0.25 -w 0 --interval 0.25 --json "$WORK/p.json"
check "plug-in runs without naming its only testcase" [ $rc -eq 0 ]
check "plug-in testcase measured in both modes at 1 and 2 copies" json_true "$WORK/p.json" \
	"d['testcase'] == 'uname1' and [(r['mode'], r['nr_task'], r['status']) for r in d['runs']] == [('process', 1, 'ok'), ('process', 2, 'ok'), ('thread', 1, 'ok'), ('thread', 2, 'ok')]"
check "plug-in rates positive, stats under its suite" json_true "$WORK/p.json" \
	"all(r['stats']['plugin.workload'] > 0 for r in d['runs'])"
sb bench --plugin "$WORK/uname.so" uname1 -t 1 -s 0.25 -w 0 --interval 0.25
check "plug-in testcase by name" [ $rc -eq 0 ]
sb list --plugin "$WORK/uname.so"
check "list --plugin shows the plug-in's testcase" grep -q "^uname1 .*(plug-in)$" "$WORK/out"
sb list --json --plugin "$WORK/uname.so"
check "list --json marks plug-in testcases" json_true "$WORK/out" \
	"[t['name'] for t in d if t['plugin']] == ['uname1']"

# The plug-in API's run directory (tc_run_dir): a file by name in it for the whole run, the
# directory gone when the run ends (its janitor).
cat >"$WORK/rundir.c" <<'C'
#define _GNU_SOURCE
#include <scalebench/testcase.h>
#include <fcntl.h>
#include <stdlib.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
static char dir[PATH_MAX];
static int rd_global(struct tc_run *run)
{
	const char *note = getenv("RUNDIR_NOTE");
	FILE *f;

	if (tc_run_dir(run, "plugin", dir, sizeof(dir)))
		return -1;
	if (note && (f = fopen(note, "w"))) {
		fprintf(f, "%s\n", dir);
		fclose(f);
	}
	return 0;
}
static int rd_prepare(struct tc_copy *copy)
{
	char path[PATH_MAX + 32];
	int fd;

	snprintf(path, sizeof(path), "%s/f%u", dir, copy->index);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	return fd < 0 ? tc_error(copy, "cannot create %s: %m", path) : close(fd);
}
static int rd_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	char path[PATH_MAX + 32];
	struct stat st;

	snprintf(path, sizeof(path), "%s/f%u", dir, copy->index);
	for (;;) {
		if (stat(path, &st))
			return tc_error(copy, "%s is gone: %m", path);
		(*iterations)++;
	}
	return 0;
}
static const struct testcase tc_rd = {
	.name = "rundir1", .description = "stat a file in the run directory", .suite = "plugin",
	.global_prepare = rd_global, .prepare = rd_prepare, .run = rd_run,
};
SCALEBENCH_PLUGIN(&tc_rd);
C
cc_plugin "$WORK/rundir.so" "$WORK/rundir.c"
mkdir -p "$WORK/tmp"
RUNDIR_NOTE=$WORK/rundir.note sb bench --plugin "$WORK/rundir.so" -t 2 -s 0.25 -w 0 \
	--interval 0.25 --tmpdir "$WORK/tmp"
check "plug-in using tc_run_dir: runs (the binary exports it)" [ $rc -eq 0 ] || cat "$WORK/err"
rundir=$(cat "$WORK/rundir.note" 2>/dev/null)
check "its run directory was made under --tmpdir, and is gone after the run" \
	bash -c "[[ '$rundir' == $WORK/tmp/scalebench-plugin.* ]] && for i in \$(seq 50); do [ ! -e '$rundir' ] && [ -z \"\$(ls -A $WORK/tmp)\" ] && exit 0; sleep 0.1; done; exit 1"

# A copy of a plug-in that crashes is reported like any other.
cat >"$WORK/crash.c" <<'C'
#include <scalebench/testcase.h>
#include <stdlib.h>
static int crash_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	(*iterations)++;
	if (copy->index == 0)
		abort();
	for (;;)
		(*iterations)++;
	return 0;
}
static const struct testcase tc_crash = {
	.name = "crashy", .description = "aborts", .suite = "plugin", .run = crash_run,
};
SCALEBENCH_PLUGIN(&tc_crash);
C
cc_plugin "$WORK/crash.so" "$WORK/crash.c"
sb bench --plugin "$WORK/crash.so" -t 2 -s 2 -w 0 --interval 0.25
check "crashing plug-in copy: reported, exit 1" bash -c "[ $rc -eq 1 ] && grep -q 'crashy: copy 0 of 2 (process [0-9]*) killed by signal 6' $WORK/err"

# Broken plug-ins: each refused before anything runs, naming the file and the reason.
cat >"$WORK/nosym.c" <<'C'
#include <scalebench/testcase.h>
static int run(struct tc_copy *c, volatile uint64_t *it) { (void)c; (*it)++; return 0; }
const struct testcase tc_x = { .name = "x", .description = "x", .run = run };
C
cc_plugin "$WORK/nosym.so" "$WORK/nosym.c"
sb bench --plugin "$WORK/nosym.so"
check "plug-in without SCALEBENCH_PLUGIN: refused" bash -c "[ $rc -eq 2 ] && grep -q \"plug-in '$WORK/nosym.so' has no scalebench_plugin_abi\" $WORK/err"

cat >"$WORK/badabi.c" <<'C'
#include <scalebench/testcase.h>
static int run(struct tc_copy *c, volatile uint64_t *it) { (void)c; (*it)++; return 0; }
static const struct testcase tc_x = { .name = "x", .description = "x", .run = run };
const unsigned scalebench_plugin_abi = 999;
const struct testcase *const scalebench_plugin_testcases[] = { &tc_x, NULL };
C
cc_plugin "$WORK/badabi.so" "$WORK/badabi.c"
sb bench --plugin "$WORK/badabi.so"
check "plug-in of another ABI version: refused, versions named" bash -c "[ $rc -eq 2 ] && grep -q \"plug-in '$WORK/badabi.so' was built for testcase ABI 999, this scalebench has ABI 1\" $WORK/err"

cat >"$WORK/norun.c" <<'C'
#include <scalebench/testcase.h>
static const struct testcase tc_x = { .name = "x", .description = "no loop" };
SCALEBENCH_PLUGIN(&tc_x);
C
cc_plugin "$WORK/norun.so" "$WORK/norun.c"
sb bench --plugin "$WORK/norun.so"
check "plug-in testcase without run: refused" bash -c "[ $rc -eq 2 ] && grep -q \"plug-in '$WORK/norun.so': testcase 0 needs a name\" $WORK/err"

echo "not an ELF file" >"$WORK/text.so"
sb bench --plugin "$WORK/text.so"
check "not a shared object: refused" bash -c "[ $rc -eq 2 ] && grep -q \"plug-in '$WORK/text.so' does not load: .*\(invalid ELF header\|file too short\)\" $WORK/err"
sb bench --plugin "$WORK/missing.so"
check "missing plug-in file: refused" bash -c "[ $rc -eq 2 ] && grep -q \"plug-in '$WORK/missing.so': No such file or directory\" $WORK/err"
sb list --plugin "$WORK/text.so"
check "list --plugin with a bad plug-in: refused" [ $rc -eq 2 ]

# scalebench run takes plug-in testcases too: the job names them like built-in ones.
getppid_job "$WORK/pjob.yaml" "will-it-scale: {mode: thread, test: uname1}"
sb run "$WORK/pjob.yaml" --plugin "$WORK/uname.so" --results "$WORK/pr" --commit c1 -q
check "run --plugin: the plug-in's testcase stored like a built-in" bash -c \
	"[ $rc -eq 0 ] && ls $WORK/pr/plugin/thread-1-0.25s-uname1/*/*/*/*/c1/0/stats.json >/dev/null"
sb run "$WORK/pjob.yaml" --results "$WORK/pr"
check "run without the plug-in: the job's testcase is unknown" bash -c "[ $rc -eq 2 ] && grep -q uname1 $WORK/err"

# A plug-in's results compare and plot without the plug-in: what the analyzer needs (suite,
# headline stat, its direction, each stat family's role) is in the runs' meta.json.
sb run "$WORK/pjob.yaml" --plugin "$WORK/uname.so" --results "$WORK/pr" --commit c1 -q --repeat 2
sb run "$WORK/pjob.yaml" --plugin "$WORK/uname.so" --results "$WORK/pr" --commit c2 -q --repeat 3
c1=$(echo "$WORK"/pr/plugin/thread-1-0.25s-uname1/*/*/*/*/c1)
c2=$(echo "$WORK"/pr/plugin/thread-1-0.25s-uname1/*/*/*/*/c2)
sb compare "$c1" "$c2" --json
check "compare of a plug-in's runs, no --plugin: succeeds" bash -c "[ $rc -ne 2 ] && [ -s $WORK/out ]"
check "compare: the plug-in's headline stat and direction, from meta.json" json_true "$WORK/out" \
	"{k: d['jobs'][0]['headline'][k] for k in ('stat', 'direction')} == {'stat': 'plugin.per_thread_ops', 'direction': 'higher'} and stats(d['jobs'][0])['plugin.per_thread_ops']['headline'] and stats(d['jobs'][0])['plugin.per_thread_ops']['direction'] == 'higher' and not stats(d['jobs'][0])['proc-vmstat.pgfault']['headline']"
sb compare "$c1" "$c2" --all
check "compare table: the plug-in's headline row" bash -c "[ $rc -ne 2 ] && grep -q 'plugin.per_thread_ops' $WORK/out && ! grep -q 'expected will-it-scale' $WORK/err"
sb compare --results "$WORK/pr" --job thread-1-0.25s-uname1 --commits c1,c2 --all
check "compare --job PATH_PARAMS of a plug-in: no --plugin needed" bash -c "[ $rc -ne 2 ] && grep -q 'plugin.per_thread_ops' $WORK/out"
sb plot "$c1" "$c2"
check "plot of a plug-in's runs, no --plugin: the headline stat" bash -c "[ $rc -eq 0 ] && grep -q 'plugin.per_thread_ops' $WORK/out"
sb plot "$c1" "$c2" --svg "$WORK/p.svg"
check "plot --svg of a plug-in's runs" bash -c "[ $rc -eq 0 ] && grep -q '<svg' $WORK/p.svg"
