#!/bin/bash
# lock: slurm: starts a one-node Slurm cluster of this host (slurm.sh)
# waits: Slurm schedules once a second: most of its time is spent waiting for that
# scalebench submit on a one-node Slurm cluster: a 2 x 2 matrix, 2 repeats, for two commits,
# stored whole into a shared root through the store's NFS fallback; the job script kept is the
# one Slurm ran; --json, --dry-run, --then; sbatch refusing leaves nothing; bad options are
# exit 2 with nothing written; quotes and spaces in the commit and the results path reach run
# intact (no shell injection).
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/slurm.sh"

export SCALEBENCH_STORE_NO_RENAMEAT2=1
SB=$(realpath "$SCALEBENCH")
slurm_start || exit 0
trap slurm_stop EXIT

# The array's tasks run the binary we name; a results root with a space and a quote.
R="$WORK/shared root's"
mkdir -p "$R"
getppid_job "$WORK/job.yaml" "will-it-scale: {mode: [process, thread], test: [getppid1, dup1]}"

# Every job of this test's cluster gone (bounded by 120 s).
wait_gone() {
	local id
	for id in "$@"; do
		for _ in $(seq 1 600); do
			[ -z "$(squeue -h -j "$id" -o %i 2>/dev/null)" ] && break
			sleep 0.2
		done
	done
}

# (4) --dry-run: the tasks and the sbatch argv, nothing written, no sbatch called.
sb submit "$WORK/job.yaml" --results "$R" -r 2 --dry-run --sbatch-arg=--nice=5
check "dry-run: exit 0" [ "$rc" = 0 ]
check "dry-run: 8 tasks in order" [ "$(grep -c '^task ' "$WORK/out")" = 8 ]
check "dry-run: the sbatch argv" grep -q "^'sbatch' '--parsable' '--array=0-7' '--exclusive' '--mem=0' .*'--nice=5' '.*/job.sh'$" "$WORK/out"
check "dry-run: nothing written" [ ! -e "$R/.scalebench-slurm" ]
check "dry-run: no job submitted" [ -z "$(squeue -h -o %i)" ]
# Names every task's run would refuse (not UTF-8: job.yaml and meta.json cannot hold them) are
# refused before the array: no task is spent on a run that cannot be stored.
sb submit "$WORK/job.yaml" --results "$R" --commit "caf"$'\xe9' --dry-run
made=$([ -e "$R/.scalebench-slurm" ] && echo made || echo nothing)
check "a --commit with a Latin-1 byte: refused (exit 2), naming the byte, nothing written ($made)" \
	bash -c "[ $rc -eq 2 ] && grep -q -- '--commit: byte 0xe9 at 4 is not UTF-8 text' $WORK/err && [ $made = nothing ]"
cp "$WORK/job.yaml" "$WORK/job"$'\xe9'".yaml"
sb submit "$WORK/job"$'\xe9'".yaml" --results "$R" --dry-run
check "a job file name with a Latin-1 byte: refused (exit 2)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'byte 0xe9 at .* is not UTF-8 text' $WORK/err"

# (7) bad options: exit 2, the value named, nothing written.
bad() { # NAME PATTERN ARGS...
	local name=$1 pat=$2
	shift 2
	sb submit "$@"
	if [ "$rc" = 2 ] && err_has "$pat" && [ ! -e "$R/.scalebench-slurm" ]; then
		pass "bad: $name"
	else
		fail "bad: $name" "rc=$rc" "$(cat "$WORK/err")"
	fi
}
bad "--repeat 0" "repeat" "$WORK/job.yaml" --results "$R" --repeat 0
bad "empty --partition" "partition" "$WORK/job.yaml" --results "$R" --partition ''
bad "control character in --constraint" "constraint" "$WORK/job.yaml" --results "$R" \
	--constraint "$(printf 'a\tb')"
bad "two-line --then" "then" "$WORK/job.yaml" --results "$R" --then "$(printf 'a\nb')"
bad "missing job file" "nosuch.yaml" "$WORK/nosuch.yaml" --results "$R"
bad "no --results" "results" "$WORK/job.yaml"
mkdir -p "$WORK/ro"
touch "$WORK/ro/file"
sb submit "$WORK/job.yaml" --results "$WORK/ro/file/sub"
check "bad: unwritable results root is exit 2 naming it" \
	bash -c "[ $rc = 2 ] && grep -q 'ro/file/sub' '$WORK/err'"

# (5) sbatch refusing: its own words, exit 2, no submission directory left.
sb submit "$WORK/job.yaml" --results "$R" --partition nosuch
check "refused: exit 2" [ "$rc" = 2 ]
check "refused: sbatch's message" err_has "nosuch\|invalid partition\|Invalid partition"
check "refused: nothing left" [ -z "$(ls -A "$R/.scalebench-slurm" 2>/dev/null)" ]

# (1) two commits, one with a quote and shell words in its label.
A="x'; touch /tmp/pwned-$$; '"
B="commit b"
sb submit "$WORK/job.yaml" --results "$R" --commit "$A" -r 2 --no-monitors --bin "$SB" -q
IDA=$(cat "$WORK/out")
check "submit A: exit 0 and a job id" bash -c "[ $rc = 0 ] && [[ '$IDA' =~ ^[0-9]+$ ]]"
sb submit "$WORK/job.yaml" --results "$R" --commit "$B" -r 2 --no-monitors --interleave \
	--json --then 'scalebench_then=1; ls -A . > then.txt; date +%s.%N >> then.txt'
check "submit B --json: exit 0" [ "$rc" = 0 ]
cp "$WORK/out" "$WORK/b.json"
IDB=$(json "$WORK/b.json" 'd["id"]')
THEN=$(json "$WORK/b.json" 'd["then"]')
DB=$(json "$WORK/b.json" 'd["dir"]')
check "submit B: human note on stderr" err_has "scalebench status $IDB"
check "--json: fields" json_true "$WORK/b.json" \
	"d['tasks'] == 8 and d['script'] == d['dir'] + '/job.sh' and d['dir'].endswith('/' + d['name']) and d['then'].isdigit()"
sb wait "$IDA" --results "$R" --timeout 300 -q
check "scalebench wait A: exit 0" [ "$rc" = 0 ]
sb wait "$IDB" --results "$R" --timeout 300 -q
check "scalebench wait B: exit 0" [ "$rc" = 0 ]
wait_gone "$THEN"

DA=$(readlink -f "$R/.scalebench-slurm/$IDA")
check "symlink ID -> NAME" [ -d "$DA" -a "$(readlink "$R/.scalebench-slurm/$IDA")" = "$(basename "$DA")" ]
check "no shell injection through --commit" [ ! -e "/tmp/pwned-$$" ]
rm -f "/tmp/pwned-$$"

count_runs() { # commit label: complete runs (meta.json and stats.json)
	local n=0 d
	while IFS= read -r -d '' d; do
		[ -f "$d/meta.json" ] && [ -f "$d/stats.json" ] && n=$((n + 1))
	done < <(find "$R" -path "$R/.scalebench-slurm" -prune -o -type d -path "*/$1/[0-9]*" -print0)
	echo "$n"
}
check "8 complete runs for commit A" [ "$(count_runs "${A//\//_}")" = 8 ]
check "8 complete runs for commit B" [ "$(count_runs "$B")" = 8 ]
for d in "$DA" "$DB"; do
	n=$(grep -l '^exit=0 node=' "$d"/done/* 2>/dev/null | wc -l)
	check "every task's done record says exit=0 ($(basename "$d"))" [ "$n" = 8 ]
done
# Run numbers per atomic job and commit: 0 and 1 each.
# Every run directory is RESULTS/.../<commit>/<run>: 16 distinct directories, and per
# atomic job and commit the run numbers are distinct.
runs=$(find "$R" -path "$R/.scalebench-slurm" -prune -o -name meta.json -printf '%h\n' | sort)
check "16 runs, none lost" [ "$(printf '%s\n' "$runs" | grep -c .)" = 16 ]
check "run numbers unique per atomic job and commit" \
	[ "$(printf '%s\n' "$runs" | sort -u | grep -c .)" = 16 -a \
	"$(printf '%s\n' "$runs" | sed 's|/[^/]*$||' | sort | uniq -c | awk '{print $1}' | sort -u)" = 2 ]
sb compare --results "$R" --commits "$A,$B"
# Two runs a group: compare may well call it inconclusive (3); it must compare, not fail.
check "compare of the two commits from the shared root compares them" \
	[ "$rc" != 2 -a -s "$WORK/out" ]
[ "$rc" != 2 ] || cat "$WORK/err"

# (2) the script Slurm ran is job.sh; the manifest.
scontrol write batch_script "$IDA" "$WORK/ran.sh" >/dev/null 2>&1
check "job.sh is what Slurm ran" cmp -s "$WORK/ran.sh" "$DA/job.sh"
check "submission.json: back-to-back order, id" json_true "$DA/submission.json" \
	"d['id'] == '$IDA' and d['sbatch'][-1].endswith('/job.sh') and [(t['task'], t['repeat']) for t in d['tasks']] == [(i, i % 2) for i in range(8)] and d['tasks'][0]['name'] == d['tasks'][1]['name'] != d['tasks'][2]['name'] and d['sbatch'][0] == 'sbatch' and d['then'] is None"
check "submission.json: --interleave round robin, then id" json_true "$DB/submission.json" \
	"[t['repeat'] for t in d['tasks']] == [0]*4 + [1]*4 and len({t['name'] for t in d['tasks'][:4]}) == 4 and d['then']['id'] == '$THEN' and d['commit'] == '$B'"
check "commit A recorded intact" python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["commit"] != sys.argv[2])' "$DA/submission.json" "$A"

# (6) --then ran after the array, in the results root.
check "--then ran in the results root" grep -qx '.scalebench-slurm' "$R/then.txt"
last_end=$(cat "$DB"/done/* | sed 's/.*end=//' | sort -n | tail -1)
then_t=$(tail -1 "$R/then.txt" | cut -d. -f1)
check "--then ran after the array ended" [ "$then_t" -ge "$last_end" ]

# A --then job sbatch refuses (a stand-in sbatch that takes the array only): exit 1, the
# refusal said, the array's submission kept with its id and "then": {"id": null}.
mkdir -p "$WORK/fakebin"
cat >"$WORK/fakebin/sbatch" <<'S'
#!/bin/sh
for a; do
	case "$a" in --dependency=*) echo "sbatch: error: Job dependency problem" >&2; exit 1 ;; esac
done
echo 777
S
chmod +x "$WORK/fakebin/sbatch"
R2="$WORK/r2"
rc=0
PATH="$WORK/fakebin:$PATH" "$SCALEBENCH" submit "$WORK/job.yaml" --results "$R2" --json \
	--then 'true' >"$WORK/out" 2>"$WORK/err" || rc=$?
check "--then refused: exit 1" [ "$rc" = 1 ]
check "--then refused: sbatch's words" err_has "Job dependency problem"
check "--then refused: the array's submission kept" json_true "$R2/.scalebench-slurm/777/submission.json" \
	"d['id'] == '777' and d['then'] == {'command': 'true', 'id': None}"
check "--then refused: --json says then null" json_true "$WORK/out" "d['id'] == '777' and d['then'] is None"

# SIGTERM while sbatch is asked (a stand-in that hangs): sbatch ended, exit 143, the submission
# directory removed.
cat >"$WORK/fakebin/sbatch" <<'S'
#!/bin/sh
touch "$SB_STARTED"
sleep 60
echo 778
S
R3="$WORK/r3"
export SB_STARTED="$WORK/sbatch-started"
PATH="$WORK/fakebin:$PATH" "$SCALEBENCH" submit "$WORK/job.yaml" --results "$R3" \
	>"$WORK/out" 2>"$WORK/err" &
pid=$!
wait_until 10 test -e "$SB_STARTED"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
check "SIGTERM during sbatch: exit 143" [ "$rc" = 143 ]
check "SIGTERM during sbatch: no submission left" [ -z "$(ls -A "$R3/.scalebench-slurm" 2>/dev/null)" ]
check "SIGTERM during sbatch: the stand-in sbatch ended" no_procs "$WORK/fakebin/sbatch"

# --wait: the id on stdout at once, then wait's exit status.
getppid_job "$WORK/one.yaml"
R4="$WORK/r4"
sb submit "$WORK/one.yaml" --results "$R4" -r 2 --no-monitors --bin "$SB" --commit w --wait
check "--wait: exit 0 once both runs are stored" bash -c \
	"[ $rc = 0 ] && [ \$(find '$R4' -path '*/w/[0-9]*/stats.json' | wc -l) = 2 ] && grep -qx '[0-9]*' '$WORK/out'"
# A results root with '%' in it (sbatch's filename patterns: %a is the task id): each '%' goes
# to --output as "%%", so the tasks' output lands where it should and the runs are stored.
R5="$WORK/res%a-100%x"
sb submit "$WORK/one.yaml" --results "$R5" --no-monitors --bin "$SB" --commit p --dry-run
check "results root with '%': --output escapes it as '%%' (dry run)" \
	grep -qF -- "'--output=$WORK/res%%a-100%%x/.scalebench-slurm/<NAME>/out/%a.out'" "$WORK/out"
sb submit "$WORK/one.yaml" --results "$R5" -r 2 --no-monitors --bin "$SB" --commit p --wait
check "results root with '%': both runs stored, the tasks' output in out/" bash -c \
	"[ $rc = 0 ] && [ \$(find '$R5' -path '*/p/[0-9]*/stats.json' | wc -l) = 2 ] && [ \$(ls '$R5'/.scalebench-slurm/*/out/*.out | wc -l) -ge 2 ]" ||
	{ cat "$WORK/err"; ls -R "$R5/.scalebench-slurm" | head -20; }
sb submit "$WORK/one.yaml" --results "$R4" --timeout 5
check "--timeout without --wait: exit 2" bash -c "[ $rc = 2 ] && grep -q -- '--wait' '$WORK/err'"

# --wait interrupted while a task runs: the array is cancelled (the second task never runs),
# exit 143, and no half run is left.
getppid_job "$WORK/long.yaml" "runtime: 30s"
"$SCALEBENCH" submit "$WORK/long.yaml" --results "$R4" -r 2 --no-monitors --bin "$SB" \
	--commit c --wait >"$WORK/out.c" 2>"$WORK/err.c" &
pid=$!
id=
for _ in $(seq 1 300); do
	id=$(head -1 "$WORK/out.c" 2>/dev/null)
	[ -n "$id" ] && [ "$(squeue -h -r -j "$id" -t R -o %i 2>/dev/null | wc -l)" -ge 1 ] && break
	sleep 0.2
done
# (the task's run under way: its temp run directory exists)
wait_until 60 bash -c "find '$R4' -path '*/c/.tmp-run-*' -prune | grep -q ."
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
check "--wait, SIGTERM: exit 143, says the array was cancelled" bash -c \
	"[ $rc = 143 ] && grep -q 'job array $id.* cancelled' '$WORK/err.c'"
wait_gone "$id"
check "--wait, SIGTERM: Slurm has no task of it left" [ -z "$(squeue -h -j "$id" -o %i 2>/dev/null)" ]
check "--wait, SIGTERM: no run of the cancelled array stored, no visible half run" bash -c \
	"[ -z \"\$(find '$R4' -path '*/c/*' -not -name '.*' -not -path '*/c/.*' -print -quit)\" ]"
check "--wait, SIGTERM: the task's run ended" no_procs "$R4/.scalebench-slurm/.*/tasks/0.yaml"

# --runs-per-task: several repeats of one atomic job in one array task (`run -r P`), each run
# stored whole on its own; the last task of a job makes what is left; a failed task costs its
# own runs only.
sb submit "$WORK/job.yaml" --results "$R" -r 5 --runs-per-task 2 --interleave --dry-run
check "--runs-per-task --dry-run: 12 tasks of 4 jobs, round robin by chunk, the last chunks one run" \
	bash -c "[ $rc = 0 ] && [ \$(grep -c '^task ' '$WORK/out') = 12 ] &&
		[ \$(grep -c '(repeats 0-1)' '$WORK/out') = 4 ] && [ \$(grep -c '(repeat 4)' '$WORK/out') = 4 ] &&
		grep -q '^task 11: .*(repeat 4)' '$WORK/out' && grep -q \"'--array=0-11'\" '$WORK/out'"
R5="$WORK/r5"
sb submit "$WORK/one.yaml" --results "$R5" -r 5 --runs-per-task 2 --no-monitors --bin "$SB" \
	--commit p --wait --json
D5=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dir"])' "$WORK/out" 2>/dev/null)
check "--runs-per-task 2, -r 5: exit 0, 5 runs stored, run numbers 0-4" bash -c \
	"[ $rc = 0 ] && [ \"\$(find '$R5' -path '*/p/[0-9]*/stats.json' | sed 's|.*/p/\([0-9]*\)/.*|\1|' | sort -n | tr '\n' ' ')\" = '0 1 2 3 4 ' ]"
check "--runs-per-task: 3 tasks of 2, 2 and 1 runs in the manifest" json_true "$D5/submission.json" \
	"d['runs_per_task'] == 2 and [(t['repeat'], t['runs']) for t in d['tasks']] == [(0, 2), (2, 2), (4, 1)]"
check "--runs-per-task: the job script runs -r \"\$runs\", the last task 1" bash -c \
	"grep -q -- ' -r \"\$runs\" -q\$' '$D5/job.sh' && grep -q '^2) runs=1 ;;\$' '$D5/job.sh'"
sb status "$(basename "$D5")" --results "$R5" --json
check "--runs-per-task: status counts 3 tasks, 5 runs" json_true "$WORK/out" \
	"d['n_tasks'] == 3 and d['n_runs'] == 5 and [t['runs'] for t in d['tasks']] == [2, 2, 1]"
# A node that fails task 1 (a wrapper as the nodes' scalebench): tasks 0 and 2 keep their runs.
cat >"$WORK/failing-sb" <<EOS
#!/bin/sh
case "\$2" in */tasks/1.yaml) echo "node lost" >&2; exit 1 ;; esac
exec '$SB' "\$@"
EOS
chmod +x "$WORK/failing-sb"
sb submit "$WORK/one.yaml" --results "$R5" -r 5 --runs-per-task 2 --no-monitors \
	--bin "$WORK/failing-sb" --commit f --wait --json
D6=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dir"])' "$WORK/out" 2>/dev/null)
check "--runs-per-task, task 1 failed: exit 1, the other tasks' 3 runs stored" bash -c \
	"[ $rc = 1 ] && [ \$(find '$R5' -path '*/f/[0-9]*/stats.json' | wc -l) = 3 ]"
sb status "$(basename "$D6")" --results "$R5" --json
check "--runs-per-task, task 1 failed: status names task 1 failed, 2 done" json_true "$WORK/out" \
	"[t['state'] for t in d['tasks']] == ['done', 'failed', 'done'] and d['n_runs'] == 5"
