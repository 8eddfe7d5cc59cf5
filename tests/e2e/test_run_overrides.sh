#!/bin/bash
# scalebench run --runtime, --nr-task, --set KEY=VALUE: applied to the job file before it is
# expanded (a list becomes the one value, path_params and job.yaml show it); jobs found by
# name (./NAME, then the installed share/scalebench/jobs/NAME.yaml: test_install.sh).
set -u
. "$(dirname "$0")/../lib.sh"
export SCALEBENCH_SELFTEST=1

cat >"$WORK/sweep.yaml" <<YAML
suite: will-it-scale
testcase: will-it-scale
runtime: 300s
warmup: 0
nr_task: [1, 2]
will-it-scale:
  mode: [process, thread]
  test: [page_fault3, getppid1]
YAML

sb run "$WORK/sweep.yaml" --dry-run
check "dry run of the file: 8 atomic jobs" [ $rc -eq 0 -a "$(grep -c '^sweep-' "$WORK/out")" -eq 8 ]

# --set on a key the file gives in the will-it-scale block replaces it there: one dimension
# fewer; --nr-task replaces the top-level list.
sb run "$WORK/sweep.yaml" --dry-run --set mode=thread --nr-task 1
check "--set mode=thread --nr-task 1: 2 atomic jobs, both thread, 1 copy" bash -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^sweep-' $WORK/out) -eq 2 ] && ! grep -q process $WORK/out && grep -q '^sweep-thread-1-300s-getppid1:' $WORK/out"
sb run "$WORK/sweep.yaml" --dry-run --set will-it-scale.test=getppid1 --runtime 20s
check "--set will-it-scale.test= and --runtime: 4 getppid1 jobs of 20 s" bash -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^sweep-.*: getppid1, .* 20 s ' $WORK/out) -eq 4 ]"
sb run "$WORK/sweep.yaml" --dry-run --runtime 20s --set runtime=30s
check "later override of a key wins" bash -c "[ $rc -eq 0 ] && grep -q ' 30 s ' $WORK/out && ! grep -q ' 20 s ' $WORK/out"

# A real run records the values in its job.yaml and meta.json (the logic tests' 0.25 s window:
# --set interval=0.25s, a key the file lacks, for --runtime 0.25s).
R="$WORK/results"
sb run "$WORK/sweep.yaml" --results "$R" --commit c1 -q --no-monitors --runtime 0.25s --nr-task 1 \
	--set mode=process --set test=getppid1 --set interval=0.25s
run0=$(ls -d "$R"/will-it-scale/*/*/*/*/*/c1/0 2>/dev/null | head -1)
check "overridden job runs: one run, exit 0" bash -c \
	"[ $rc -eq 0 ] && [ \$(ls -d $R/will-it-scale/*/*/*/*/*/c1/0 | wc -l) -eq 1 ]"
check "job.yaml records the overrides" bash -c \
	"grep -qx 'runtime: 0.25s' '$run0/job.yaml' && grep -qx 'interval: 0.25s' '$run0/job.yaml' && grep -qx 'nr_task: 1' '$run0/job.yaml' && grep -q 'mode: process' '$run0/job.yaml' && grep -q 'test: getppid1' '$run0/job.yaml'"
check "meta.json: runtime 0.25 s, 1 copy" json_true "$run0/meta.json" \
	"d['runtime_s'] == 0.25 and d['interval_s'] == 0.25 and d['nr_task'] == 1 and d['testcase'] == 'getppid1'"

# A key the file does not have is added (here to a block the file lacks).
sb run "$WORK/sweep.yaml" --dry-run --nr-task 1 --set perf-stat.interval=2 --set mode=thread \
	--set test=getppid1
check "--set BLOCK.KEY adds a block the file lacks" [ $rc -eq 0 ]

# Refusals name the option and what was expected; nothing runs.
sb run "$WORK/sweep.yaml" --dry-run --set mode
check "--set without '=': exit 2, says KEY=VALUE" bash -c "[ $rc -eq 2 ] && grep -q 'KEY=VALUE' $WORK/err"
sb run "$WORK/sweep.yaml" --dry-run --set =1
check "--set with an empty key: exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'KEY=VALUE' $WORK/err"
sb run "$WORK/sweep.yaml" --dry-run --runtime 0.5
check "--runtime 0.5: refused as the file's runtime would be" bash -c "[ $rc -eq 2 ] && grep -q 'runtime' $WORK/err"
sb run "$WORK/sweep.yaml" --dry-run --set mode=sideways
check "--set mode=sideways: refused naming mode" bash -c "[ $rc -eq 2 ] && grep -q 'mode' $WORK/err"
sb run "$WORK/sweep.yaml" --dry-run --set runtime.x=1
check "--set BLOCK.KEY on a scalar: exit 2, names the key" bash -c "[ $rc -eq 2 ] && grep -q 'runtime.x' $WORK/err"

# By name: ./NAME first, then the installed jobs; a miss says where it looked.
SB=$(realpath "$SCALEBENCH")
mkdir "$WORK/cwd"
cp "$WORK/sweep.yaml" "$WORK/cwd/myjob"
rc=0
(cd "$WORK/cwd" && "$SB" run myjob --dry-run >"$WORK/out" 2>"$WORK/err") || rc=$?
check "run NAME finds ./NAME" bash -c "[ $rc -eq 0 ] && grep -q '^myjob-' $WORK/out"
rc=0
(cd "$WORK/cwd" && "$SB" run no_such_job --dry-run >"$WORK/out" 2>"$WORK/err") || rc=$?
check "unknown job name: exit 2, says where it looked" bash -c \
	"[ $rc -eq 2 ] && grep -q './no_such_job' $WORK/err && grep -q 'share/scalebench/jobs/no_such_job.yaml' $WORK/err"
