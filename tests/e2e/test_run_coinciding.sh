#!/bin/bash
# Task counts that coincide on this machine (`nr_task: [N, 100%]` on N CPUs, `[1, 50%]` on 2)
# run once, with one note naming the values and the count: run --dry-run's listing and total,
# a real run's run directories, run -q, bisect's job check; split (LKP's) still writes each.
set -u
. "$(dirname "$0")/../lib.sh"
export SCALEBENCH_SELFTEST=1

n=$(nproc)
[ "$n" -eq 1 ] && tasks="task" cpus="CPU" || tasks="tasks" cpus="CPUs"
note="nr_task $n and 100% are both $n $tasks on this machine's $n $cpus: run once, as $n"
# The logic tests' job (getppid_job) with a 0.5 s window, two 0.25 s samples.
getppid_job "$WORK/same.yaml" "suite: will-it-scale" "testcase: will-it-scale" \
	"runtime: 0.5s" "nr_task: [$n, 100%]" "will-it-scale: {mode: thread, test: getppid1}"

sb run "$WORK/same.yaml" --dry-run
check "dry run of nr_task [$n, 100%] on $n CPUs: one atomic job, listed as $n" bash -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^same-' $WORK/out) -eq 1 ] && grep -q '^same-thread-$n-0.5s-getppid1: ' $WORK/out && grep -q '^in all: 1 atomic job, 1 run,' $WORK/out"
check "dry run: the note, once, naming both values and the count" \
	[ "$(grep -cF "same.yaml: $note" "$WORK/err")" -eq 1 ]

# Every test and mode that coincides is run once; the note is said once for them all.
getppid_job "$WORK/modes.yaml" "runtime: 0.5s" "nr_task: [$n, 100%]" \
	"will-it-scale: {mode: [process, thread], test: [getppid1, page_fault3]}"
sb run "$WORK/modes.yaml" --dry-run
check "dry run, 2 tests x 2 modes x [$n, 100%]: 4 atomic jobs, one note" bash -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^modes-' $WORK/out) -eq 4 ] && ! grep -q '100%' $WORK/out && [ \$(grep -c 'nr_task $n and 100%' $WORK/err) -eq 1 ]"

# The issue's case: [1, 50%] coincide on 1 to 3 CPUs, not on more.
getppid_job "$WORK/half.yaml" "nr_task: [1, 50%]" "will-it-scale: {mode: thread, test: getppid1}"
sb run "$WORK/half.yaml" --dry-run
if [ "$n" -le 3 ]; then
	check "dry run of nr_task [1, 50%] on $n CPUs: one atomic job, the note" bash -c \
		"[ $rc -eq 0 ] && [ \$(grep -c '^half-' $WORK/out) -eq 1 ] && grep -qF \"nr_task 1 and 50% are both 1 task on this machine's $n $cpus: run once, as 1\" $WORK/err"
else
	check "dry run of nr_task [1, 50%] on $n CPUs: two atomic jobs, no note" bash -c \
		"[ $rc -eq 0 ] && [ \$(grep -c '^half-' $WORK/out) -eq 2 ] && ! grep -q 'nr_task' $WORK/err"
fi

# A real run stores one run directory, recorded as written, the note in meta.json; -q keeps
# the note on stderr, as every job-file note.
R="$WORK/results"
sb run "$WORK/same.yaml" --results "$R" --commit c1 -q --no-monitors
runs=$(ls -d "$R"/will-it-scale/*/*/*/*/*/c1/[0-9]* 2>/dev/null)
check "run -q of nr_task [$n, 100%]: exit 0, one run directory, under thread-$n-0.5s-getppid1" \
	bash -c "[ $rc -eq 0 ] && [ \$(echo '$runs' | grep -c .) -eq 1 ] && echo '$runs' | grep -q '/will-it-scale/thread-$n-0.5s-getppid1/'"
check "run -q: the note on stderr, once" [ "$(grep -cF "$note" "$WORK/err")" -eq 1 ]
run0=$(echo "$runs" | head -1)
check "the run: job.yaml records nr_task $n, meta.json $n copies and the note" bash -c \
	"grep -qx 'nr_task: $n' '$run0/job.yaml' && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d[\"nr_task\"] == $n and any(sys.argv[2] in x for x in d[\"notes\"])))' '$run0/meta.json' \"$note\""

# split is LKP's split-job: the machine does not enter it, every atomic job is written.
sb split "$WORK/same.yaml"
check "split still writes both atomic jobs, no note" bash -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^# same-' $WORK/out) -eq 2 ] && grep -q '^# same-thread-100%-0.5s-getppid1.yaml' $WORK/out && ! grep -q 'nr_task' $WORK/err"

# bisect's job check runs exactly one atomic job: [N, 100%] is one here.
REPO=$WORK/repo
git init -q "$REPO"
for i in 1 2; do
	echo "$i" >"$REPO/f"
	git -C "$REPO" add f
	git -C "$REPO" -c user.name=t -c user.email=t@t commit -q -m "c$i"
done
sb bisect --repo "$REPO" --job "$WORK/same.yaml" --stat will-it-scale.per_thread_ops \
	--prepare true --results "$WORK/bisect" --good HEAD~1 --bad HEAD --dry-run
check "bisect --dry-run of nr_task [$n, 100%]: one atomic job, the plan, the note" bash -c \
	"[ $rc -eq 0 ] && grep -q 'would bisect' $WORK/out && grep -q '(thread-$n-0.5s-getppid1)' $WORK/out && [ \$(grep -cF \"$note\" $WORK/err) -eq 1 ]"
