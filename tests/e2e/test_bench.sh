#!/bin/bash
# bench through the real binary: JSON with positive rates and the right number of samples
# for the seed workloads, in both modes, at 1 and 2 copies.
set -u
. "$(dirname "$0")/../lib.sh"

# check_json NAME FILE MODE: every run has positive rates, one delta per copy per sample,
# warmup 0.25 s + window 0.5 s at a 0.25 s interval => 1 warmup sample + 2 measured samples
# (the sampler's structure and the rates' arithmetic; the default 1 s interval is checked on
# the placement run below).  One python start for all of a file's checks.
check_json() {
	local name=$1 f=$2 mode=$3 stat
	[ "$mode" = process ] && stat=per_process_ops || stat=per_thread_ops
	json_checks "$f" <<CHECKS
$name: JSON names testcase, mode and task counts	d['testcase'] == '${name%% *}' and d['mode'] == '$mode' and d['modes'] == ['$mode'] and d['nr_task'] == [1, 2]
$name: one run per task count, all ok	[r['nr_task'] for r in d['runs']] == [1, 2] and all(r['status'] == 'ok' for r in d['runs'])
$name: positive $stat and workload	all(r['$stat'] > 0 and r['workload'] > 0 and r['window_ops'] > 0 for r in d['runs'])
$name: workload = copies x $stat	all(abs(r['workload'] - r['nr_task'] * r['$stat']) <= 1e-6 * r['workload'] for r in d['runs'])
$name: 1 warmup + 2 measured samples	all([s['phase'] for s in r['samples']] == ['warmup', 'measure', 'measure'] for r in d['runs'])
$name: one delta per copy in every sample	all(len(s['deltas']) == r['nr_task'] for r in d['runs'] for s in r['samples'])
$name: timestamps increase	all(s['interval_s'] > 0 for r in d['runs'] for s in r['samples'])
$name: window at least the 0.5 s asked, the sum of its measured intervals	all(r['window_s'] > 0.45 and abs(r['window_s'] - sum(s['interval_s'] for s in r['samples'] if s['phase'] == 'measure')) < 1e-3 for r in d['runs'])
$name: rate = measured deltas / measured time	all(abs(sum(sum(s['deltas']) for s in r['samples'] if s['phase'] == 'measure') / r['window_s'] - r['workload']) <= 1e-6 * r['workload'] for r in d['runs'])
$name: sweep has a scalability figure and table	d['scalability']['$mode'] > 0 and [row['nr_task'] for row in d['scalability_table']] == [1, 2]
$name: LKP stat names	all('${suite:-will-it-scale}.$stat' in r['stats'] for r in d['runs'])
CHECKS
}

for t in page_fault3 exec1 fallocate1; do
	for mode in process thread; do
		sb bench $t -m $mode -t 1,2 -s 0.5 -w 0.25 --interval 0.25 --json "$WORK/$t-$mode.json"
		check "$t $mode: exit 0" [ $rc -eq 0 ]
		[ $rc -eq 0 ] || cat "$WORK/err"
		check "$t $mode: will-it-scale lines printed" bash -c \
			"[ \$(grep -c '^min:[0-9]* max:[0-9]* total:[0-9]*$' $WORK/out) -eq 6 ]"
		check "$t $mode: scalability table printed" grep -Eq "^ +2 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+%$" "$WORK/out"
		check_json "$t $mode" "$WORK/$t-$mode.json" $mode
	done
done

# Placement: one copy per core by default, none with --no-affinity.  This run keeps the
# default interval and a 1 s window.
online=$(nproc)
sb bench getppid1 -t 2 -s 1 -w 0 -v --json "$WORK/aff.json"
if [ "$online" -ge 2 ]; then
	check "copies pinned to distinct CPUs" json_true "$WORK/aff.json" \
		"len(set(d['runs'][0]['cpus'])) == 2 and min(d['runs'][0]['cpus']) >= 0"
fi
check "-v prints each copy's CPU" grep -q "^copy 1: cpu [0-9]" "$WORK/out"
check "the default interval: one 1 s sample over a 1 s window" json_true "$WORK/aff.json" \
	"[s['phase'] for s in d['runs'][0]['samples']] == ['measure'] and all(0.5 < s['interval_s'] < 3 for s in d['runs'][0]['samples'])"
sb bench getppid1 -t 2 -s 0.25 -w 0 --interval 0.25 --no-affinity --json "$WORK/noaff.json"
check "--no-affinity leaves copies unpinned" json_true "$WORK/noaff.json" \
	"d['runs'][0]['cpus'] == [-1, -1] and d['affinity'] is False"

# -t 100% is every online CPU; fork1 and getppid1 run too.
sb bench getppid1 -t 100% -s 0.25 -w 0 --interval 0.25 --json "$WORK/all.json"
check "-t 100% = online CPUs" json_true "$WORK/all.json" "d['nr_task'] == [$online]"
sb bench fork1 -t 1 -s 0.25 -w 0 --interval 0.25 --json "$WORK/fork1.json"
check "fork1 counts forks" json_true "$WORK/fork1.json" "d['runs'][0]['per_process_ops'] > 0"

# Temp files are unlinked at once: nothing is left in the temp dir after a run.
mkdir "$WORK/tmp"
sb bench page_fault3 -t 2 -s 0.25 -w 0 --interval 0.25 --tmpdir "$WORK/tmp"
check "page_fault3 leaves no temp files" [ -z "$(ls -A "$WORK/tmp")" ]
sb bench exec1 -t 2 -s 0.25 -w 0 --interval 0.25 --tmpdir "$WORK/tmp"
check "exec1 leaves no helper copies" [ -z "$(ls -A "$WORK/tmp")" ]

# exec1 needs an executable temp dir, and says so when it is not.
if mkdir "$WORK/noexec" && mount -t tmpfs -o noexec,size=16m tmpfs "$WORK/noexec" 2>/dev/null; then
	sb bench exec1 -t 1 -s 0.25 -w 0 --interval 0.25 --tmpdir "$WORK/noexec"
	check "exec1 on a noexec temp dir fails with a reason" bash -c \
		"[ $rc -eq 1 ] && grep -q 'mounted noexec' $WORK/err"
	umount "$WORK/noexec"
fi

# -m both: process then thread, each with its own table and scalability figure; a cost
# testcase (launch1) reports microseconds per op under the robot's stat name.  A launch takes
# tens of milliseconds on a busy machine: a shorter window can catch a copy between two
# (no progress: failed as stuck), so this one keeps its 1 s window and warmup.
sb bench launch1 -m both -t 1,2 -s 1 -w 0.5 -q --json "$WORK/both.json"
check "-m both: exit 0" [ $rc -eq 0 ]
check "-m both: runs in process then thread order" json_true "$WORK/both.json" \
	"[(r['mode'], r['nr_task']) for r in d['runs']] == [('process', 1), ('process', 2), ('thread', 1), ('thread', 2)]"
check "-m both: a scalability figure per mode" json_true "$WORK/both.json" \
	"d['mode'] == 'both' and sorted(d['scalability']) == ['process', 'thread'] and len(d['scalability_table']) == 4"
check "-m both: two tables printed" bash -c "[ \$(grep -c '^launch1, .* mode (ops/s)' $WORK/out) -eq 2 ]"
check "launch1: us_per_event = 1e6 / per-copy ops, lower is better" json_true "$WORK/both.json" \
	"d['lower_is_better'] and all(abs(r['stats']['phoronix-test-suite.osbench.LaunchPrograms.us_per_event'] * r.get('per_process_ops', r.get('per_thread_ops')) - 1e6) < 1 for r in d['runs'])"
