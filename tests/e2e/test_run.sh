#!/bin/bash
# scalebench run: atomic jobs into the LKP results tree, monitors and their stats, failures
# stored, interrupted and unwritable runs removed whole, bad job files refused.
set -u
. "$(dirname "$0")/../lib.sh"
export SCALEBENCH_SELFTEST=1

online=$(nproc)
# The logic job: 2 testcases x 2 modes at the 0.25 s window (interval: 0.25s).
getppid_job "$WORK/small.yaml" "suite: will-it-scale" "testcase: will-it-scale" \
	"will-it-scale: {mode: [process, thread], test: [page_fault3, getppid1]}"
# What a run measures, with the default interval: its monitors' values over a 1 s window
# (proc-vmstat and perf-stat must agree on it), the per-interval output lines.
cat >"$WORK/default.yaml" <<YAML
suite: will-it-scale
testcase: will-it-scale
runtime: 1s
warmup: 0.5
nr_task: 1
will-it-scale: {mode: process, test: page_fault3}
YAML

R="$WORK/results"
sb run "$WORK/small.yaml" --results "$R" --repeat 2 --interleave --commit base
check "small job: 2 testcases x 2 modes x 2 runs, exit 0" [ $rc -eq 0 ]
cp "$WORK/err" "$WORK/err.small"
busy_runs=$(grep -l '"busy": true' "$R"/will-it-scale/*/*/*/*/*/base/*/meta.json 2>/dev/null | wc -l)
[ $rc -eq 0 ] || head -5 "$WORK/err"
tree=$(ls -d "$R"/will-it-scale/*/*/*/*/*/base 2>/dev/null | wc -l)
check "results tree: will-it-scale/<path_params>/<tbox>/<rootfs>/<kconfig>/<compiler>/<commit>" [ "$tree" -eq 4 ]
for pp in process-1-0.25s-page_fault3 thread-1-0.25s-page_fault3 process-1-0.25s-getppid1 thread-1-0.25s-getppid1; do
	check "$pp: runs 0 and 1, nothing else" bash -c "[ \"\$(ls -A $R/will-it-scale/$pp/*/*/defconfig/*/base | grep -vx matrix.json | tr '\n' ' ')\" = '0 1 ' ]"
done
check "interleaved: the runs alternate between atomic jobs" bash -c \
	"[ \$(grep -c '^\[[0-9]/8\] small-' $WORK/out) -ge 8 ] && grep -q '^\[2/8\] small-process-1-0.25s-getppid1 run 1/2' $WORK/out && grep -q '^\[5/8\] small-process-1-0.25s-page_fault3 run 2/2' $WORK/out"
small0=$(ls -d "$R"/will-it-scale/process-1-0.25s-page_fault3/*/*/defconfig/*/base/0)
check "interval: 0.25s with runtime: 0.25s: stored, meta.json interval_s 0.25" json_true \
	"$small0/meta.json" "d['status'] == 'ok' and d['interval_s'] == 0.25 and d['runtime_s'] == 0.25"

sb run "$WORK/default.yaml" --results "$WORK/rd" --commit base
check "default job (1 s window, default interval): exit 0" [ $rc -eq 0 ]
[ $rc -eq 0 ] || head -5 "$WORK/err"
run0=$(ls -d "$WORK"/rd/will-it-scale/process-1-1s-page_fault3/*/*/defconfig/*/base/0)
for f in job.yaml output stats.json meta.json; do
	check "a run holds $f" [ -s "$run0/$f" ]
done
check "stats: testcase stats" json_true "$run0/stats.json" "d['will-it-scale.per_process_ops'] > 0 and d['will-it-scale.workload'] > 0"
check "stats: default monitors (proc-vmstat, vmstat, perf-stat, meminfo, time)" json_true "$run0/stats.json" \
	"all(k in d for k in ['proc-vmstat.pgfault', 'vmstat.system.cs', 'perf-stat.ps.page-faults', 'meminfo.MemFree', 'time.user_time'])"
# A real run with the default interval is what it was before `interval` existed: 1 s in
# meta.json, the same stat families, and the testcase's and time's stats by the same names
# (the testcase's with LKP's N.* family of runtest.py's table since issue 29's item 8).
check "default interval: meta.json interval_s 1, the same stats names as before" json_true "$run0/meta.json" \
	"d['interval_s'] == 1 and (lambda s: {k.split('.')[0] for k in s} <= {'will-it-scale', 'proc-vmstat', 'vmstat', 'perf-stat', 'meminfo', 'time', 'interrupts', 'softirqs'} and {'will-it-scale', 'proc-vmstat', 'vmstat', 'perf-stat', 'meminfo', 'time'} <= {k.split('.')[0] for k in s} and sorted(k for k in s if k.startswith('will-it-scale.')) == ['will-it-scale.1.' + n for n in ['linear', 'processes', 'processes_idle', 'threads', 'threads_idle']] + ['will-it-scale.per_process_ops', 'will-it-scale.workload'] and sorted(k for k in s if k.startswith('time.')) == ['time.' + n for n in ['elapsed_time', 'elapsed_time.max', 'file_system_outputs', 'involuntary_context_switches', 'major_page_faults', 'maximum_resident_set_size', 'minor_page_faults', 'page_size', 'percent_of_cpu_this_job_got', 'system_time', 'user_time', 'voluntary_context_switches']])(__import__('json').load(open('$run0/stats.json')))"
# Two monitors, two sources of the same system-wide count: they must agree.
check "stats: proc-vmstat.pgfault agrees with perf-stat page-faults over the 1 s window" json_true "$run0/stats.json" \
	"d['proc-vmstat.pgfault'] > 0 and abs(d['perf-stat.ps.page-faults'] * 1.0 - d['proc-vmstat.pgfault']) <= 0.25 * d['proc-vmstat.pgfault'] + 200"
check "stats: every value a number" json_true "$run0/stats.json" \
	"all(isinstance(v, (int, float)) for v in d.values())"
check "raw monitor samples kept with timestamps" json_true "$run0/perf-stat.samples.json" "len(d) >= 1 and 't_s' in d[0]"
# lkp-tests' create-stats-matrix reads every <name>.json[.gz] of a run whose name is a monitor
# of its own as dump-stat's map (lib/matrix.rb: each_value on it), and a list of samples
# crashes it: the samples are under <monitor>.samples.json, which it skips (issue 29 item 7).
check "raw samples: <monitor>.samples.json[.gz], no other .json than stats.json and meta.json" \
	bash -c "cd '$run0' && [ -s perf-stat.samples.json ] && [ -s proc-vmstat.samples.json ] &&
		[ \"\$(ls *.json *.json.gz 2>/dev/null | grep -v '\.samples\.json\(\.gz\)\?\$' | sort | tr '\n' ' ')\" = 'meta.json stats.json ' ]"
check "meta: machine, commit, job, status" json_true "$run0/meta.json" \
	"d['machine']['threads'] == $online and d['commit'] == 'base' and d['status'] == 'ok' and d['atomic_job'] == 'default-process-1-1s-page_fault3'"
if ! perf stat -e instructions true >/dev/null 2>&1 && [ ! -e /sys/bus/event_source/devices/cpu/events/instructions ]; then
	check "no hardware PMU: unsupported events in meta.json, not fatal" json_true "$run0/meta.json" \
		"'cpu-cycles' in [u['event'] for u in d['monitors']['perf-stat']['unsupported']]"
	check "no hardware PMU: said once on stderr" bash -c "[ \$(grep -c 'perf-stat: not supported here: cpu-cycles' $WORK/err.small) -eq 1 ]"
fi
# meta.json declares what the analyzer needs: the suite, the headline stat and its direction,
# and the role of every stat family that stats.json holds (and of no other).
roles_ok() { # RUN SUITE HEADLINE DIRECTION
	python3 - "$@" <<'PY'
import json, sys
run, suite, stat, direction = sys.argv[1:]
m = json.load(open(run + '/meta.json'))
s = json.load(open(run + '/stats.json'))
failures = {f.split('.')[0] for f in m['failure_stats']} | {'stderr', 'dmesg', 'kmsg', 'last_state'}
want = {}
for k in s:
	f = k.split('.')[0]
	want[f] = 'failure' if f in failures else 'headline' if f == suite.split('.')[0] else 'monitor'
ok = (m['suite'] == suite and m['headline'] == {'stat': stat, 'direction': direction}
      and m['families'] == want and (m['status'] != 'ok' or stat in s))
if not ok:
	print(json.dumps({k: m.get(k) for k in ('suite', 'headline', 'families')}), sorted(want.items()))
sys.exit(0 if ok else 1)
PY
}
thread0=$(ls -d "$R"/will-it-scale/thread-1-0.25s-getppid1/*/*/defconfig/*/base/0)
check "meta: roles of a process-mode run" roles_ok "$run0" will-it-scale will-it-scale.per_process_ops higher
check "meta: roles of a thread-mode run" roles_ok "$thread0" will-it-scale will-it-scale.per_thread_ops higher
check "meta: the testcase's family is the headline, the monitors' are monitors" json_true "$run0/meta.json" \
	"d['families']['will-it-scale'] == 'headline' and d['families']['proc-vmstat'] == 'monitor' and d['families']['perf-stat'] == 'monitor'"
check "job.yaml is the atomic job" bash -c "grep -q '^  mode: process' $run0/job.yaml && grep -q '^  test: page_fault3' $run0/job.yaml"
check "output holds the testcase's per-interval lines" grep -q "^min:[0-9]* max:[0-9]* total:[0-9]*$" "$run0/output"
check "no temp run directory left" bash -c "! find $R -name '.tmp-run-*' | grep -q ."

# A second invocation takes the next free numbers.
sb run "$WORK/small.yaml" --results "$R" --commit base -q
check "second run of the job: runs 2 and 3... no, one more each: run 2" bash -c \
	"[ -d $R/will-it-scale/thread-1-0.25s-getppid1/*/*/defconfig/*/base/2 ] && [ ! -e $R/will-it-scale/thread-1-0.25s-getppid1/*/*/defconfig/*/base/3 ]"

# Two runners filling the same tree at once never collide.
getppid_job "$WORK/one.yaml"
"$SCALEBENCH" run "$WORK/one.yaml" --results "$WORK/r2" -r 2 -q 2>/dev/null &
"$SCALEBENCH" run "$WORK/one.yaml" --results "$WORK/r2" -r 2 -q 2>/dev/null
wait
check "two runners at once: four distinct runs 0-3" bash -c \
	"[ \"\$(ls $WORK/r2/will-it-scale/*/*/*/*/*/* | grep -vx matrix.json | sort -n | tr '\n' ' ')\" = '0 1 2 3 ' ]"

# An LKP job file runs unchanged; the LKP keys are kept and noted.
sb run tests/fixtures/run/lkp-will-it-scale.yaml --results "$WORK/lkp" --kconfig lkp-test --dry-run
check "LKP job: dry run lists 4 atomic jobs" bash -c "[ $rc -eq 0 ] && [ \$(grep -c '^lkp-will-it-scale-' $WORK/out) -eq 4 ]"
check "dry run: the total, 4 runs of 2 s + 1 s warmup = 12 s" \
	grep -q '^in all: 4 atomic jobs, 4 runs, 12 s of warmups and windows' "$WORK/out"
sb run tests/fixtures/run/lkp-will-it-scale.yaml --results "$WORK/lkp" -q
check "LKP job runs unchanged" [ $rc -eq 0 ]
check "LKP job: unused keys noted, once each" bash -c "[ \$(grep -c \"note: .*key 'testbox' is kept\" $WORK/err) -eq 1 ]"
lkprun=$(ls -d "$WORK"/lkp/will-it-scale/performance-thread-100%-2s-page_fault3/*/*/*/*/*/0)
check "LKP job: the job's kconfig is the kconfig axis, not noted as unused" bash -c \
	"[[ '$lkprun' == */x86_64-rhel-8.3/* ]] && ! grep -q \"key 'kconfig' is kept\" $WORK/err"
check "LKP job: its monitors and only those" json_true "$lkprun/meta.json" \
	"sorted(d['monitors']) == ['interrupts', 'meminfo', 'perf-stat', 'proc-vmstat', 'softirqs', 'vmstat']"
check "LKP job: per_thread_ops, interrupts and softirqs stats" json_true "$lkprun/stats.json" \
	"d['will-it-scale.per_thread_ops'] > 0 and any(k.startswith('interrupts.') for k in d) and any(k.startswith('softirqs.') for k in d)"
check "LKP job: kept keys in job.yaml" grep -q "^testbox: lkp-skl-4sp1" "$lkprun/job.yaml"

# A failing copy: the run is stored with a failure stat; the exit status says so.
# (runtime 2s: copy 1 aborts after its 300th 1 ms sleep, which must fall in the window on a
# busy machine; the run ends at the crash.)
getppid_job "$WORK/crash.yaml" "runtime: 2s" "nr_task: 2" \
	"will-it-scale: {mode: process, test: selftest-crash}"
sb run "$WORK/crash.yaml" --results "$WORK/rc" -q
crun=$(ls -d "$WORK"/rc/selftest/*/*/*/*/*/*/0 2>/dev/null)
check "crashing copy: exit 1, run stored" bash -c "[ $rc -eq 1 ] && [ -n '$crun' ]"
check "crashing copy: failure stat and meta" json_true "$crun/meta.json" \
	"d['status'] == 'failed' and 'signal 6' in d['failure'] and len(d['failure_stats']) == 1"
check "crashing copy: the failure stat is in stats.json" json_true "$crun/stats.json" \
	"any(k.startswith('stderr.') and v == 1 for k, v in d.items())"

check "crashing copy: meta.json names stderr a failure family" roles_ok "$crun" selftest \
	selftest.per_process_ops higher
check "crashing copy: its failure family declared" json_true "$crun/meta.json" "d['families']['stderr'] == 'failure'"

# A cost testcase: its headline is the cost, lower is better; its suite has dots.
getppid_job "$WORK/cost.yaml" "will-it-scale: {mode: process, test: launch1}"
sb run "$WORK/cost.yaml" --results "$WORK/rcost" -q --no-monitors
costrun=$(ls -d "$WORK"/rcost/*/*/*/*/*/*/*/0 2>/dev/null)
check "cost testcase: stored" bash -c "[ $rc -eq 0 ] && [ -n '$costrun' ]"
check "cost testcase: headline is the cost, direction lower" roles_ok "$costrun" \
	phoronix-test-suite.osbench.LaunchPrograms phoronix-test-suite.osbench.LaunchPrograms.us_per_event lower

# A plug-in testcase: its own suite and headline.
plugin=build/examples/uname_plugin.so
[ -f "$plugin" ] || make -s plugin-example >/dev/null 2>&1
getppid_job "$WORK/pjob.yaml" "will-it-scale: {mode: [process, thread], test: uname1}"
sb run "$WORK/pjob.yaml" --plugin "$plugin" --results "$WORK/rp" --commit c1 -q
prun=$(ls -d "$WORK"/rp/*/process-1-0.25s-uname1/*/*/*/*/c1/0 2>/dev/null)
ptrun=$(ls -d "$WORK"/rp/*/thread-1-0.25s-uname1/*/*/*/*/c1/0 2>/dev/null)
check "plug-in job: both modes stored" bash -c "[ $rc -eq 0 ] && [ -n '$prun' ] && [ -n '$ptrun' ]"
check "plug-in: meta.json declares its suite and headline (process)" roles_ok "$prun" plugin plugin.per_process_ops higher
check "plug-in: meta.json declares its suite and headline (thread)" roles_ok "$ptrun" plugin plugin.per_thread_ops higher
check "plug-in: its family is the headline" json_true "$prun/meta.json" "d['families']['plugin'] == 'headline'"

# SIGINT mid-run: the run in progress is discarded, completed runs stay.  The signal goes once
# run 0 is stored and run 1 has begun (its temp directory exists): 2 s is the time the kill
# has to land in run 1, on a busy machine too.
getppid_job "$WORK/long.yaml" "runtime: 2s"
"$SCALEBENCH" run "$WORK/long.yaml" --results "$WORK/ri" -r 3 >"$WORK/out" 2>"$WORK/err" &
pid=$!
run1_begun() {
	[ -d "$(ls -d "$WORK"/ri/will-it-scale/*/*/*/*/*/*/0 2>/dev/null | head -1)" ] &&
		ls -d "$WORK"/ri/will-it-scale/*/*/*/*/*/*/.tmp-run-* >/dev/null 2>&1
}
wait_until 60 run1_begun
kill -INT $pid
rc=0
wait $pid || rc=$?
check "SIGINT: exit 130" [ $rc -eq 130 ]
check "SIGINT: says what was kept" grep -q "interrupted by signal 2; the run in progress was discarded, 1 completed run kept" "$WORK/err"
check "SIGINT: only the complete run is left" bash -c \
	"[ \"\$(ls -A $WORK/ri/will-it-scale/*/*/*/*/*/* | grep -vx matrix.json | tr '\n' ' ')\" = '0 ' ] && [ -s $WORK/ri/will-it-scale/*/*/*/*/*/*/0/stats.json ]"
check "SIGINT: no copies left" no_procs "results $WORK/ri"

# A full disk while writing: the partial run is removed, earlier runs untouched.
if mkdir "$WORK/full" && mount -t tmpfs -o size=2m tmpfs "$WORK/full" 2>/dev/null; then
	sb run "$WORK/one.yaml" --results "$WORK/full" -q
	first=$(ls -d "$WORK"/full/will-it-scale/*/*/*/*/*/*/0)
	before=$(cat "$first/stats.json")
	# Leave a few KiB free: enough to start a run, not to finish it.
	dd if=/dev/zero of="$WORK/full/filler" bs=1k count=4096 2>/dev/null
	rm -f "$WORK/full/filler"
	avail=$(df --output=avail -k "$WORK/full" | tail -1)
	dd if=/dev/zero of="$WORK/full/filler" bs=1k count=$((avail - 8)) 2>/dev/null
	sb run "$WORK/one.yaml" --results "$WORK/full" -q
	check "full disk: exit 1 with the file and the reason" bash -c \
		"[ $rc -eq 1 ] && grep -q 'No space left on device; the run was discarded' $WORK/err"
	check "full disk: no partial run left" bash -c "[ \"\$(ls -A $(dirname "$first") | grep -vx matrix.json | tr '\n' ' ')\" = '0 ' ]"
	check "full disk: the earlier run is untouched" bash -c "[ \"\$(cat $first/stats.json)\" = '$before' ]"
	umount "$WORK/full"
fi

# Bad input: one message naming the file and what was wrong, nothing written.
printf 'nr_task: [1\nwill-it-scale: {test: getppid1}\n' >"$WORK/bad.yaml"
sb run "$WORK/bad.yaml" --results "$WORK/rb"
check "malformed YAML: file:line:column" bash -c "[ $rc -eq 2 ] && grep -q '$WORK/bad.yaml:[0-9]*:[0-9]*:' $WORK/err"
printf 'nr_task: 0\nwill-it-scale: {test: getppid1}\n' >"$WORK/bad.yaml"
sb run "$WORK/bad.yaml" --results "$WORK/rb"
check "nr_task: 0 refused" bash -c "[ $rc -eq 2 ] && grep -q 'nr_task' $WORK/err"
printf 'runtime: abc\nwill-it-scale: {test: getppid1}\n' >"$WORK/bad.yaml"
sb run "$WORK/bad.yaml" --results "$WORK/rb"
check "runtime: abc refused" bash -c "[ $rc -eq 2 ] && grep -q \"runtime.*'abc'\" $WORK/err"
printf 'interval: 0.5s\nruntime: 0.25s\nwill-it-scale: {test: getppid1}\n' >"$WORK/bad.yaml"
sb run "$WORK/bad.yaml" --results "$WORK/rb"
check "runtime shorter than the interval: exit 2, the file, the line and both values" bash -c \
	"[ $rc -eq 2 ] && grep -q \"$WORK/bad.yaml:2: runtime '0.25s': expected at least 0.5s: .* every 0.5s (interval)\" $WORK/err"
printf 'will-it-scale: {test: nosuchtest}\n' >"$WORK/bad.yaml"
sb run "$WORK/bad.yaml" --results "$WORK/rb"
check "unknown testcase refused" bash -c "[ $rc -eq 2 ] && grep -q 'nosuchtest' $WORK/err"
check "nothing written for bad job files" [ ! -e "$WORK/rb" ]
touch "$WORK/afile"
sb run "$WORK/one.yaml" --results "$WORK/afile/results"
check "unwritable results root refused before running" bash -c \
	"[ $rc -eq 2 ] && grep -q \"results root '$WORK/afile/results' is not writable\" $WORK/err"
sb run "$WORK/missing.yaml"
check "missing job file: named" bash -c "[ $rc -eq 2 ] && grep -q '$WORK/missing.yaml' $WORK/err"
sb run "$WORK/one.yaml" --repeat 0
check "--repeat 0 refused" bash -c "[ $rc -eq 2 ] && grep -q \"repeat '0'\" $WORK/err"
# A run's job.yaml and meta.json are UTF-8: a --commit, --kconfig or job file name that is not
# is refused before anything runs (it ran, then was discarded: "Input/output error", "Cannot
# allocate memory").
for what in commit kconfig file; do
	rm -rf "$WORK/rl"
	case $what in
	file) cp "$WORK/one.yaml" "$WORK/one"$'\xe9'".yaml" && sb run "$WORK/one"$'\xe9'".yaml" --results "$WORK/rl" ;;
	*) sb run "$WORK/one.yaml" --results "$WORK/rl" --$what "caf"$'\xe9' ;;
	esac
	check "run, a $what with a Latin-1 byte: refused before running (exit 2), naming it and the byte, nothing made" \
		bash -c "[ $rc -eq 2 ] && grep -q 'byte 0xe9 at .* is not UTF-8 text' $WORK/err && [ ! -e $WORK/rl ]"
done
sb run "$WORK/one.yaml" --results "$WORK/rl" --commit "caf"$'\xc3\xa9'
check "run, a --commit in UTF-8 (café): stored" bash -c "[ $rc -eq 0 ] && ls -d $WORK/rl/*/*/*/*/*/*/café/0 >/dev/null"

# Progress on a terminal: redrawn in place with the time left and the live rate.
if command -v script >/dev/null; then
	script -qec "$SCALEBENCH run $WORK/one.yaml --results $WORK/rt" /dev/null >"$WORK/tty" 2>&1
	check "terminal progress: seconds left and live ops/s, redrawn" bash -c \
		"grep -q 's left, [0-9]* ops/s' $WORK/tty && grep -q \$'\r' $WORK/tty"
fi

# A monitor's interval is a duration like any other: a bad one leaves that monitor out with a
# note naming the value (it used to become 1 s silently); a good one is used.
# (The job's default interval, 1 s: a monitor's own option is what differs from it.)
getppid_job "$WORK/iv.yaml" "interval: 1s" "runtime: 2s" "proc-vmstat: {interval: nan}" \
	"meminfo: {interval: 0.5s}"
sb run "$WORK/iv.yaml" --results "$WORK/riv" --commit c -q
meta=$(echo "$WORK"/riv/will-it-scale/*/*/*/*/*/c/0/meta.json)
check "interval: nan leaves proc-vmstat out, run stored" bash -c \
	"[ $rc -eq 0 ] && grep -q \"proc-vmstat left out: option interval 'nan'\" $WORK/err"
check "meta.json: proc-vmstat unavailable, the note names the value" json_true "$meta" \
	"d['monitors']['proc-vmstat']['status'] == 'unavailable' and \"'nan'\" in d['monitors']['proc-vmstat']['note']"
check "interval: 0.5s used: meminfo sampled about twice a second" json_true \
	"$(dirname "$meta")/meminfo.samples.json" "len(d) >= 5"  # 1 s gives 4 (keys + 3 samples)

# What else the machine did over the window, recorded on every run (not whether it was busy:
# that is the machine's business, not the test's).
check "meta.json: machine_load with the runnable tasks, steal, CPUs and the decision" \
	json_true "$run0/meta.json" \
	"set(['runnable_mean', 'runnable_max', 'samples', 'steal_pct', 'cpu_mhz_mean', 'nr_cpus', 'nr_task', 'busy']) <= set(d['machine_load']) and d['machine_load']['samples'] >= 1 and d['machine_load']['runnable_mean'] >= 0 and d['machine_load']['nr_cpus'] == $online and d['machine_load']['nr_task'] == 1 and isinstance(d['machine_load']['busy'], bool) and (d['machine_load']['steal_pct'] is None or 0 <= d['machine_load']['steal_pct'] <= 100) and (not d['machine_load']['busy'] or d['machine_load']['reason'])"
check "run: a warning at the end exactly when some run was measured on a busy machine" bash -c \
	"if [ $busy_runs -gt 0 ]; then grep -q 'measured on a busy machine' $WORK/err.small; else ! grep -q 'busy machine' $WORK/err.small; fi"

# A job file's name is part of every progress line: a control character in it is written as
# \xNN, never raw (ESC would drive the terminal).
esc_job="$WORK/"$'esc\x1b[2J'".yaml"
getppid_job "$esc_job" "suite: will-it-scale" "testcase: will-it-scale"
sb run "$esc_job" --results "$WORK/esc" --no-monitors --commit e
check "a job name with ESC: stored, progress lines show it as \\x1b, no raw ESC" bash -c \
	"[ $rc -eq 0 ] && grep -qF 'esc\\x1b[2J' $WORK/out && ! grep -q \$'\\x1b' $WORK/out"

# will-it-scale's no_affinity and smt (LKP's runtest.py: 0 or 1): no_affinity: 1 leaves the
# copies unpinned (meta.json's cpus -1), the default pins each to its own CPU.
getppid_job "$WORK/noaff.yaml" "nr_task: 2" "will-it-scale: {mode: process, test: getppid1, no_affinity: 1, smt: 0}"
sb run "$WORK/noaff.yaml" --results "$WORK/noaff" --no-monitors --commit n
check "no_affinity: 1: the copies unpinned (meta.json's cpus), no note on the key" bash -c \
	"[ $rc -eq 0 ] && ! grep -q 'kept but not used' $WORK/err && [ \"\$(find $WORK/noaff -name meta.json | xargs python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"cpus\"])')\" = '[-1, -1]' ]"
getppid_job "$WORK/aff.yaml" "nr_task: 2" "will-it-scale: {mode: process, test: getppid1, no_affinity: 0}"
sb run "$WORK/aff.yaml" --results "$WORK/aff" --no-monitors --commit a
check "no_affinity: 0: each copy pinned to a CPU of its own" bash -c \
	"[ $rc -eq 0 ] && find $WORK/aff -name meta.json | xargs python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))[\"cpus\"]; sys.exit(not (len(set(c)) == 2 and min(c) >= 0))'"
getppid_job "$WORK/badaff.yaml" "will-it-scale: {mode: process, test: getppid1, no_affinity: maybe}"
sb run "$WORK/badaff.yaml" --results "$WORK/badaff" --no-monitors
check "no_affinity: maybe: refused, naming the key, the value and what runtest.py reads" bash -c \
	"[ $rc -eq 2 ] && grep -q \"will-it-scale.no_affinity 'maybe': expected 0 or 1\" $WORK/err && [ ! -e $WORK/badaff ]"
