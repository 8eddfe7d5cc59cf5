# lock: slurm: starts a one-node Slurm cluster of this host (slurm.sh)
# waits: Slurm schedules once a second: most of its time is spent waiting for that
# (It ran alone, "# serial", while its tasks' copies were pinned to CPU 0 with every other
# run's copy 0: beside the parallel batch one stayed runnable with no CPU time for over 1.5 s
# and its run failed "made no progress" (3 of 3 clean-clone runs on 2026-12-03).  Its tasks
# run will-it-scale's no_affinity: 1 now, which leaves them to the scheduler: a status test,
# not a placement one.)
# scalebench status and wait on a one-node Slurm cluster (tests/e2e/slurm.sh): submissions made
# by `scalebench submit` waited on, failed, cancelled, timed out, listed; bad and unknown ids
# refused.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/slurm.sh"
export SCALEBENCH_SELFTEST=1

slurm_start || exit 0
trap slurm_stop EXIT

SB=$(realpath "$SCALEBENCH")
R="$WORK/results"
S="$R/.scalebench-slurm"
mkdir -p "$S"
seq_no=0

# mk_sub RUNTIME NTASKS [SBATCH-ARG...]: `scalebench submit` of NTASKS getppid1 runs of
# RUNTIME seconds each; sets NAME, ID, D (and THEN_ID with WITH_THEN=1).
mk_sub() {
	local runtime=$1 n=$2 a args=()
	shift 2
	seq_no=$((seq_no + 1))
	getppid_job "$WORK/job$seq_no.yaml" "runtime: ${runtime}s" "warmup: 0.2" \
		"will-it-scale: {mode: process, test: getppid1, no_affinity: 1}"
	for a in "$@"; do args+=("--sbatch-arg=$a"); done
	[ -n "${WITH_THEN:-}" ] && args+=(--then true)
	ID=$("$SB" submit "$WORK/job$seq_no.yaml" --results "$R" --repeat "$n" --no-monitors \
		--commit "c$seq_no" -q "${args[@]}")
	case "$ID" in '' | *[!0-9]*) fail "submit $seq_no: job id '$ID'" ;; esac
	NAME=$(readlink "$S/$ID")
	D="$S/$NAME"
	THEN_ID=$(json "$D/submission.json" "(d['then'] or {}).get('id') or ''")
}

# (1) four quick tasks: wait exits 0, status says 4 done
mk_sub 1 4
ID1=$ID NAME1=$NAME
sb wait "$ID1" --results "$R" --timeout 150
check "wait: 4 quick tasks -> exit 0" [ $rc -eq 0 ]
[ $rc -eq 0 ] || { cat "$WORK/err"; tail -5 "$D"/out/*.out; }
check "wait: progress on stderr" err_has "4/4 done, 0 running, 0 pending"
sb status "$ID1" --results "$R"
check "status: exit 0" [ $rc -eq 0 ]
check "status: 4 done" out_has "tasks: 4: 4 done, 0 running, 0 pending, 0 failed (ended)"
check "status: 4 runs stored" [ "$(ls -d "$R"/will-it-scale/*/*/*/*/*/c1/[0-9]* | wc -l)" -eq 4 ]
sb status "$NAME1" --results "$R" --json
check "status NAME --json: the same submission" json_true "$WORK/out" \
	"d['id'] == '$ID1' and d['done'] == 4 and d['ended'] and [t['state'] for t in d['tasks']] == ['done'] * 4 and d['tasks'][2]['node'] and d['tasks'][2]['exit_code'] == 0"
# Without the results tree: found through scontrol's Command= (DIR/job.sh).
mkdir -p "$WORK/elsewhere"
sb status "$ID1" --results "$WORK/elsewhere"
check "status: found through Slurm when not under --results" \
	bash -c "[ $rc -eq 0 ] && grep -q 'tasks: 4: 4 done' '$WORK/out'"

# A malformed task record is an error naming the file, not a guess.
cp "$S/$NAME1/done/3" "$WORK/done3"
printf 'exit=zero node=x\n' >"$S/$NAME1/done/3"
sb status "$ID1" --results "$R"
check "status: a malformed done/ record -> exit 2 naming it" \
	bash -c "[ $rc -eq 2 ] && grep -q 'done/3: malformed task record' '$WORK/err'"
cp "$WORK/done3" "$S/$NAME1/done/3"

# (2) a task that fails: held, its atomic job replaced by one naming an unknown testcase
WITH_THEN=1 mk_sub 1 2 --hold
ID2=$ID NAME2=$NAME THEN2=$THEN_ID
sb status "$ID2" --results "$R"
check "status: held tasks pending, with squeue's reason" \
	bash -c "grep -q '2 pending' '$WORK/out' && grep -q 'tasks 0-1: pending, reason JobHeldUser' '$WORK/out'"
check "status: the --then job's state (pending on its dependency)" \
	out_has "then: Slurm job $THEN2, PENDING"
cat >"$D/tasks/1.yaml" <<YAML
suite: will-it-scale
testcase: will-it-scale
runtime: 1s
will-it-scale:
  mode: process
  test: no_such_testcase_here
YAML
scontrol release "$ID2"
sb wait "$ID2" --results "$R" --timeout 150
check "wait: a failed task -> exit 1" [ $rc -eq 1 ]
check "wait: names task 1" err_has "task 1: failed"
sb status "$ID2" --results "$R"
check "status: 1 done, 1 failed" out_has "tasks: 2: 1 done, 0 running, 0 pending, 1 failed"
check "status: task 1's atomic job, node and exit code" \
	out_has "task 1: failed (FAILED), [^ ]* (tasks/1.yaml), node $SLURM_NODE, exit 2"
check "status: the tail of its output has run's message" out_has "| .*unknown testcase"
sb status "$ID2" --results "$R" --json
check "status --json: the same" json_true "$WORK/out" \
	"d['then']['id'] == '$THEN2' and d['then']['state'] in ('PENDING', 'RUNNING', 'COMPLETING', 'COMPLETED') and d['failed'] == 1 and d['tasks'][1]['state'] == 'failed' and d['tasks'][1]['atomic'] == 'tasks/1.yaml' and d['tasks'][1]['exit_code'] == 2 and d['tasks'][1]['node'] == '$SLURM_NODE' and 'unknown testcase' in d['tasks'][1]['output_tail'] and d['tasks'][0]['state'] == 'done'"

# (3, 4) a long one: wait --timeout 2 gives up; scancel while task 0 runs leaves no half run
mk_sub 20 2
ID3=$ID NAME3=$NAME
# (task 0's run under way: its temp run directory exists)
wait_until 60 bash -c "squeue -h -r -j '$ID3' -o '%K %T' | grep -qx '0 RUNNING' &&
	find '$R' -path '*/c$seq_no/.tmp-run-*' -prune | grep -q ."
t0=$(date +%s)
sb wait "$ID3" --results "$R" --timeout 2 -q
t1=$(date +%s)
check "wait --timeout 2: exit 2 quickly" bash -c "[ $rc -eq 2 ] && [ $((t1 - t0)) -lt 15 ]"
check "wait --timeout: says how many tasks had not ended" \
	err_has "timed out after 2 s with 2 of 2 tasks not ended (1 pending, 1 running)"
check "wait -q: no progress lines" bash -c "! grep -q 'done,' '$WORK/err'"
sb status "$ID3" --results "$R"
check "status: the running task with its node, the pending one with its reason" \
	bash -c "grep -q 'task 0: running, node $SLURM_NODE' '$WORK/out' && grep -q 'task 1: pending, reason' '$WORK/out'"
# SIGTERM ends a wait (128+15) and cancels nothing.
"$SB" wait "$ID3" --results "$R" >/dev/null 2>"$WORK/err.wait" &
wpid=$!
# (wait under way: it has polled Slurm at least once, its progress line says so)
wait_until 30 grep -q 'running' "$WORK/err.wait"
kill -TERM $wpid
wrc=0
wait $wpid || wrc=$?
check "wait: SIGTERM -> exit 143, said" \
	bash -c "[ $wrc -eq 143 ] && grep -q 'nothing cancelled' '$WORK/err.wait'"
check "wait: SIGTERM cancels nothing" bash -c "squeue -h -r -j $ID3 -o %T | grep -q RUNNING"
scancel "$ID3"
sb wait "$ID3" --results "$R" --timeout 60
check "wait: a cancelled submission -> exit 1" [ $rc -eq 1 ]
sb status "$ID3" --results "$R"
check "status: both tasks failed, task 0 CANCELLED" \
	bash -c "grep -q '2 failed' '$WORK/out' && grep -q 'task 0: failed (CANCELLED)' '$WORK/out'"
half=0
for run in $(find "$R/will-it-scale" -mindepth 7 -maxdepth 7 -type d -not -name '.*'); do
	[ -s "$run/meta.json" ] && [ -s "$run/stats.json" ] || half=$((half + 1))
done
check "scancel: no half run left (every run directory complete)" [ $half -eq 0 ]
check "scancel: no visible temp directory" \
	[ -z "$(find "$R/will-it-scale" -mindepth 7 -maxdepth 7 -not -name '.*' -not -name '[0-9]*' -not -name matrix.json)" ]

# (5) unknown and garbage ids, a results root without submissions
sb status 99999999 --results "$R"
check "status: unknown id -> exit 2, naming it and where it was looked for" \
	bash -c "[ $rc -eq 2 ] && grep -q '99999999' '$WORK/err' && grep -q '.scalebench-slurm' '$WORK/err' && grep -q 'Slurm' '$WORK/err'"
sb wait 99999999 --results "$R"
check "wait: unknown id -> exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'no submission 99999999' '$WORK/err'"
for bad in '1;rm' '-x' '../x' ''; do
	sb status "$bad" --results "$R"
	check "status '$bad': refused, exit 2" [ $rc -eq 2 ]
	sb wait "$bad" --results "$R"
	check "wait '$bad': refused, exit 2" [ $rc -eq 2 ]
done
sb status '1;rm' --results "$R"
check "status: a garbage id is named and what was expected said" err_has "'1;rm': expected a Slurm job id"
mkdir -p "$WORK/empty"
sb status --results "$WORK/empty"
check "status: no submissions -> exit 0, said" bash -c "[ $rc -eq 0 ] && grep -q 'no submissions' '$WORK/out'"
sb status --results "$WORK/no-such-dir"
check "status: a missing results root -> exit 2" [ $rc -eq 2 ]

# (6) every submission, newest first
sb status --results "$R"
check "status: lists the 3 submissions newest first" \
	bash -c "[ $rc -eq 0 ] && [ \"\$(cut -d' ' -f1 '$WORK/out' | tr '\n' ' ')\" = '$NAME3 $NAME2 $NAME1 ' ]"
check "status: one summary line each" \
	bash -c "grep -q '^$NAME1  job $ID1 .*4 tasks: 4 done' '$WORK/out'"
sb status --results "$R" --json
check "status --json (all): the submissions newest first" json_true "$WORK/out" \
	"[s['name'] for s in d['submissions']] == ['$NAME3', '$NAME2', '$NAME1']"
