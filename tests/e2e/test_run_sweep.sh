#!/bin/bash
# scalebench run of an atomic job without mode and nr_task: LKP's sweep inside one run (both
# modes over the task counts setup_threads_to_iterate picks here), runtest.py's table in the
# output, LKP parse's stats in stats.json (their values against lkp-tests' own parse:
# tests/unit/test_lkp_sweep.c), the sweep in meta.json; an interrupted sweep is discarded.
set -u
. "$(dirname "$0")/../lib.sh"
export SCALEBENCH_SELFTEST=1

cat >"$WORK/sweep.yaml" <<YAML
suite: will-it-scale
testcase: will-it-scale
runtime: 1s
warmup: 0
will-it-scale:
  test: getppid1
YAML

sb run "$WORK/sweep.yaml" --dry-run
check "dry run says: LKP sweep, both modes, 5 s points (LKP's minimum)" bash -c \
	"[ $rc -eq 0 ] && grep -q '^sweep-.*: getppid1, LKP sweep, both modes at 1[0-9,]* tasks, 5 s + 0 s warmup each' $WORK/out"

R="$WORK/results"
sb run "$WORK/sweep.yaml" --results "$R" --commit c1
[ $rc -eq 0 ] || head -5 "$WORK/err"
check "sweep run: exit 0, one run stored" bash -c \
	"[ $rc -eq 0 ] && [ \$(ls -d $R/will-it-scale/*/*/*/*/*/c1/[0-9]* | wc -l) -eq 1 ]"
run=$(ls -d "$R"/will-it-scale/*/*/*/*/*/c1/0 2>/dev/null | head -1)
check "tally: one row, both modes, sweep" grep -q '^getppid1 *both *sweep *1 ' "$WORK/out"
check "meta.json: mode both, the sweep's task counts (1 first, sorted, at most nproc), idle read" \
	json_true "$run/meta.json" \
	"d['mode'] == 'both' and d['sweep']['tasks'][0] == 1 and d['sweep']['tasks'] == sorted(set(d['sweep']['tasks'])) and d['sweep']['tasks'][-1] <= $(nproc) and d['sweep']['idle_complete'] and d['sweep']['point_runtime_s'] == 5 and len(d['sweep']['points']) == 2 * len(d['sweep']['tasks'])"
check "output: runtest.py's table, one line per task count" python3 - "$run" <<'PY'
import json, sys
run = sys.argv[1]
meta = json.load(open(run + "/meta.json"))
lines = open(run + "/output").read().splitlines()
i = lines.index("tasks,processes,processes_idle,threads,threads_idle,linear")
assert lines[i + 1] == "0,0,100,0,100,0"
rows = [l.split(",") for l in lines[i + 2:]]
assert [int(r[0]) for r in rows] == meta["sweep"]["tasks"], rows
PY
check "stats.json: LKP's names and the table's values, headline stats, monitors" python3 - "$run" <<'PY'
import json, sys
run = sys.argv[1]
st = json.load(open(run + "/stats.json"))
lines = open(run + "/output").read().splitlines()
i = lines.index("tasks,processes,processes_idle,threads,threads_idle,linear")
names = ["processes", "processes_idle", "threads", "threads_idle", "linear"]
for r in lines[i + 2:]:
    v = r.split(",")
    for n, x in zip(names, v[1:]):
        assert st["will-it-scale.%s.%s" % (v[0], n)] == float(x), (v[0], n)
for k in ["per_process_ops", "per_thread_ops", "workload"]:
    assert st["will-it-scale." + k] > 0, k
if len(lines) - i - 2 > 1:
    assert "will-it-scale.scalability" in st
assert "proc-vmstat.pgfault" in st and "time.user_time" in st
PY

# A testcase whose headline is a cost (launch1: us_per_event, lower is better) has none in a
# sweep: the sweep's headline is LKP's per_process_ops, higher is better, a stat it stores.
# Every point takes LKP's 5 s at least (lkp_sweep_point_runtime, as LKP computes it); on one
# CPU (the sweep's task counts follow the CPUs the runner may use, as LKP's nproc does) the
# sweep is its 2 points at 1 task, which is all this headline check needs.
cpu0=$(awk '/^Cpus_allowed_list/ {split($2, a, "[,-]"); print a[1]}' /proc/self/status)
R4="$WORK/r4"
rc=0
taskset -c "$cpu0" "$SCALEBENCH" run "$WORK/sweep.yaml" --results "$R4" --commit c1 \
	--set test=launch1 --no-monitors -q >"$WORK/out" 2>"$WORK/err" || rc=$?
run=$(ls -d "$R4"/will-it-scale/*/*/*/*/*/c1/0 2>/dev/null | head -1)
pps=phoronix-test-suite.osbench.LaunchPrograms.per_process_ops
check "cost-stat testcase swept: exit 0, headline per_process_ops, higher is better" json_true \
	"$run/meta.json" "$rc == 0 and d['headline'] == {'stat': '$pps', 'direction': 'higher'}"
check "cost-stat testcase swept: its headline stat is stored" json_true "$run/stats.json" \
	"d['$pps'] > 0"

# A job that gives mode (or nr_task) is one mode at one task count, as before.
sb run "$WORK/sweep.yaml" --dry-run --set mode=thread
check "mode given: no sweep" bash -c "[ $rc -eq 0 ] && ! grep -q 'LKP sweep' $WORK/out && grep -q 'thread mode' $WORK/out"
sb run "$WORK/sweep.yaml" --dry-run --nr-task 1
check "nr_task given: no sweep" bash -c "[ $rc -eq 0 ] && ! grep -q 'LKP sweep' $WORK/out && grep -q 'process mode, 1 copy,' $WORK/out"

# ... and, as LKP's runtest.py at that one count, in that one mode, its output ends with the
# table (the other mode's cells 0, linear 0 but at 1 task) and stats.json has parse's N.*
# family of it beside scalebench's headline stats (issue 29 item 8).
R5="$WORK/r5"
{ cat "$WORK/sweep.yaml"; printf '  mode: [process, thread]\n  nr_task: [1, 2]\n'; } >"$WORK/plain.yaml"
sb run "$WORK/plain.yaml" --results "$R5" --commit c1 --no-monitors -q
check "one count, one mode: 4 runs stored" bash -c \
	"[ $rc -eq 0 ] && [ \$(ls -d $R5/will-it-scale/*/*/*/*/*/c1/0 | wc -l) -eq 4 ]"
for run in "$R5"/will-it-scale/*/*/*/*/*/c1/0; do
	job=${run#"$R5"/will-it-scale/}
	check "one count, one mode (${job%%/*}): runtest.py's table, parse's family" \
		python3 - "$run" <<'PY'
import json, sys
run = sys.argv[1]
meta = json.load(open(run + "/meta.json"))
st = json.load(open(run + "/stats.json"))
lines = open(run + "/output").read().splitlines()
i = lines.index("tasks,processes,processes_idle,threads,threads_idle,linear")
assert lines[i + 1] == "0,0,100,0,100,0"
assert len(lines) == i + 4 and lines[-1].startswith("getppid1: per_"), lines[i:]
v = lines[i + 2].split(",")
n, mode = meta["nr_task"], meta["mode"]
assert int(v[0]) == n, v
ops = int(st["will-it-scale.workload"])
on, off = (1, 3) if mode == "process" else (3, 1)
assert int(v[on]) == ops > 0 and v[off] == "0" and v[off + 1] == "0.00", (mode, v)
assert 0 <= float(v[on + 1]) <= 100, v
assert int(v[5]) == (ops if n == 1 else 0), v
names = ["processes", "processes_idle", "threads", "threads_idle", "linear"]
for name, x in zip(names, v[1:]):
    assert st["will-it-scale.%d.%s" % (n, name)] == float(x), (name, x)
fam = [k for k in st if k.split(".")[1].isdigit()]
assert len(fam) == 5, fam
assert "will-it-scale.per_%s_ops" % mode in st
assert "will-it-scale.scalability" not in st
PY
done

# Interrupted in the middle of the sweep: exit 130, nothing stored, no copy left.
R2="$WORK/r2"
"$SCALEBENCH" run "$WORK/sweep.yaml" --results "$R2" --commit c1 --runtime 300 -q \
	>"$WORK/out" 2>"$WORK/err" &
pid=$!
# Once the sweep's run has begun and its first point's copy is up (the copy host's child; the
# first point is 32 s long).
sweep_begun() {
	local host
	ls -d "$R2"/will-it-scale/*/*/*/*/*/c1/.tmp-run-* >/dev/null 2>&1 &&
		host=$(pgrep -d, -P $pid) && pgrep -P "$host" >/dev/null
}
wait_until 60 sweep_begun
kill -INT $pid
rc=0
wait $pid || rc=$?
check "interrupted sweep: exit 130" [ $rc -eq 130 ]
check "interrupted sweep: no run stored" bash -c "[ -z \"\$(ls -A $R2/will-it-scale/*/*/*/*/*/c1 2>/dev/null)\" ]"
check "interrupted sweep: no copy left" no_procs "sweep.yaml --results $R2"

# A point that fails (selftest-crash: its second copy aborts) is a zero in the table, as
# runtest.py writes it; parse then leaves it out; the run is stored as failed (exit 1).  The
# stats carry the testcase's suite as prefix (selftest), as every run's do.
if [ "$(nproc)" -ge 2 ]; then
	R3="$WORK/r3"
	sb run "$WORK/sweep.yaml" --results "$R3" --commit c1 --set test=selftest-crash --no-monitors -q
	run=$(ls -d "$R3"/will-it-scale/*/*/*/*/*/c1/0 2>/dev/null | head -1)
	check "failing point: exit 1, the run stored" bash -c "[ $rc -eq 1 ] && [ -s '$run/stats.json' ]"
	check "failing point: 2-task line is zeros, no 2.* stats, 1.* kept, a failure stat" \
		json_true "$run/stats.json" \
		"'selftest.2.processes' not in d and d['selftest.1.processes'] > 0 and any(k.startswith('stderr.') for k in d)"
	check "failing point: meta.json says failed, the point's failure" json_true "$run/meta.json" \
		"d['status'] == 'failed' and any('failure' in p for p in d['sweep']['points'])"
	check "failing point: table line '2,0,...,0,...'" grep -q '^2,0,[0-9.]*,0,' "$run/output"
fi
