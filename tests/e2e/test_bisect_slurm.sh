#!/bin/bash
# lock: slurm: starts a one-node Slurm cluster of this host (slurm.sh)
# waits: Slurm schedules once a second: most of its time is spent waiting for that
# bisect --slurm on a one-node Slurm cluster (tests/e2e/slurm.sh), on the plug-in history of
# test_bisect.sh (bisect_history.sh: 20 commits, the culprit at 14, an unbuildable one at 10):
# prepare builds the plug-in here (the "shared filesystem" is this host's), each batch of runs
# is one job array through scalebench submit --wait, its runs stored by the Slurm tasks into
# the results root.  The bisection, SIGKILLed after its second batch and resumed, names the
# culprit test_bisect names; every batch was one array of the runs it asked for, on the
# partition and constraint given; the log keeps --slurm for --resume.  Refused: --slurm with
# --target or --reboot, --partition/--constraint without --slurm.  Runs of a commit on
# another machine model than the endpoints' stop the bisection, naming both; runs of one
# commit under two tbox_groups (nodes named apart) count as one commit's.  SIGINT while an
# array is waited for cancels it; --resume after a SIGKILL mid-wait ends the killed
# controller's submit --wait, which cancels its array.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/slurm.sh"
. "$(dirname "$0")/bisect_history.sh"

if ! "$SCALEBENCH" submit --help >/dev/null 2>&1; then
	echo "     scalebench submit is not built: the Slurm bisection is not tested"
	SUBMIT=
else
	SUBMIT=1
fi
slurm_start || exit 0
trap slurm_stop EXIT

SB=$(realpath "$SCALEBENCH")
bisect_history 20 14 10
bisect_job "$WORK/job.yaml"
PLUGIN=$WORK/counter.so
PREP="$PLUGIN_CC -o $PLUGIN counter.c"
$PLUGIN_CC -o "$PLUGIN" "$REPO/counter.c"
bisect() { # RESULTS ARGS...
	local res=$1
	shift
	sb bisect --repo "$REPO" --job "$WORK/job.yaml" --stat plugin.per_thread_ops \
		--prepare "$PREP" --plugin "$PLUGIN" --no-monitors --results "$res" "$@"
}
LOGNAME_=bisect-${GOOD:0:10}-${BAD:0:10}
nruns() { find "$1" -name meta.json -path "*/will-it-scale/*" 2>/dev/null | wc -l; }
T0=$SECONDS

# Refused before anything runs (no log, no submission).
bisect "$WORK/r0" --good "$GOOD" --bad "$BAD" --slurm --target ssh://localhost
check "--slurm with --target: refused, exit 2, said why" \
	bash -c "[ $rc -eq 2 ] && grep -q -- '--slurm and --target' $WORK/err && [ ! -e $WORK/r0 ]"
bisect "$WORK/r0" --good "$GOOD" --bad "$BAD" --slurm --reboot true
check "--slurm with --reboot: refused (site-specific), exit 2" \
	bash -c "[ $rc -eq 2 ] && grep -q 'site-specific' $WORK/err && [ ! -e $WORK/r0 ]"
bisect "$WORK/r0" --good "$GOOD" --bad "$BAD" --constraint sbtest
check "--constraint without --slurm: refused, exit 2" \
	bash -c "[ $rc -eq 2 ] && grep -q -- '--constraint needs --slurm' $WORK/err"
bisect "$WORK/r0" --good "$GOOD" --bad "$BAD" --slurm --constraint "a b"
check "--constraint with a space: refused, exit 2" \
	bash -c "[ $rc -eq 2 ] && grep -q 'without spaces' $WORK/err && [ ! -e $WORK/r0 ]"
bisect "$WORK/r0" --good "$GOOD" --bad "$BAD" --slurm --partition sbtest --dry-run
check "--slurm --dry-run: the plan says Slurm, runs nothing" \
	bash -c "[ $rc -eq 0 ] && grep -q 'one Slurm job array' $WORK/out && grep -q 'partition sbtest' $WORK/out && [ ! -e $WORK/r0/.scalebench-slurm ]"

# B: the endpoints' runs (3 each, run here) from machines of different models (GOOD's with
# another CPU model planted in meta.json): refused at the first endpoint, before any array,
# naming both models.
RB=$WORK/rB
for c in "$GOOD" "$BAD"; do
	git -C "$REPO" show "$c:counter.c" >"$WORK/c.c"
	$PLUGIN_CC -o "$WORK/c.so" "$WORK/c.c"
	"$SB" run "$WORK/job.yaml" --plugin "$WORK/c.so" --commit "$c" --results "$RB" -r 3 -q \
		--no-monitors 2>>"$WORK/runs.err"
done
for m in $(find "$RB" -name meta.json -path "*/$GOOD/*"); do
	python3 - "$m" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['machine']['cpu_model'] = 'Planted CPU 9000'
json.dump(d, open(sys.argv[1], 'w'))
PY
done
bisect "$RB" --good "$GOOD" --bad "$BAD" --slurm
check "B: endpoints on machines of different models: exit 2, both named, --constraint advised" \
	bash -c "[ $rc -eq 2 ] && grep -q 'machines of different models' $WORK/err && grep -q 'Planted CPU 9000' $WORK/err && grep -q -- '--constraint' $WORK/err && [ ! -e $RB/.scalebench-slurm ]" ||
	tail -5 "$WORK/err"
check "B: logged as machines-differ, no run spent" json_true "$RB/$LOGNAME_.json" \
	"any(e['event'] == 'machines-differ' for e in d['events']) and d['exit'] == 2 and d['total_runs'] == 0"

if [ -z "$SUBMIT" ]; then
	exit 0
fi

# A: the bisection through Slurm, SIGKILLed after its second batch, then resumed to the end.
RA=$WORK/rA
LA=$RA/$LOGNAME_.json
SCALEBENCH_BISECT_KILL_AT=runs:2 bisect "$RA" --good "$GOOD" --bad "$BAD" --slurm \
	--partition sbtest --constraint sbtest
check "A: killed after the second batch (exit 137)" [ $rc -eq 137 ] || tail -5 "$WORK/err"
sb bisect --resume "$LA" --slurm
check "A: --resume with --slurm: refused (the log has it)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'give it alone' $WORK/err"
sb bisect --resume "$LA"
echo "     A: $((SECONDS - T0)) s, exit $rc"
check "A: resumed to the end: exit 0, the culprit test_bisect names" \
	bash -c "[ $rc -eq 0 ] && grep -q '^$GUILTY is the first bad commit' $WORK/out" ||
	sed 's/^/     /' "$WORK/out" "$WORK/err" | tail -30
check "A: the unbuildable commit skipped (prepare ran here)" json_true "$LA" \
	"[s['commit'] for s in d['steps'] if s['decision'] == 'skip'] == ['$BROKEN']"
check "A: the log's args keep --slurm, the partition and the constraint" json_true "$LA" \
	"d['args']['slurm'] is True and d['args']['partition'] == 'sbtest' and d['args']['constraint'] == 'sbtest'"
check "A: runs in the log = runs stored in the results root" \
	[ "$(json "$LA" "d['total_runs']")" = "$(nruns "$RA")" ]
# Every batch one array: each runs event names its Slurm job, whose submission (the id's
# symlink under .scalebench-slurm) is of that commit, with one task per run asked, every task
# done (exit 0) on the cluster's node; as many submissions as batches.
cat >"$WORK/arrays.py" <<'PY'
import json, os, sys
res, log, node = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open(log))
sub = os.path.join(res, '.scalebench-slurm')
runs = [e for e in d['events'] if e['event'] == 'runs']
assert runs and all(e['exit'] == 0 for e in runs), runs
names = [n for n in os.listdir(sub) if not os.path.islink(os.path.join(sub, n))]
assert len(names) == len(runs), (len(names), len(runs))
tasks = 0
for e in runs:
    assert e.get('slurm_job') and e['slurm_job'].isdigit(), e
    m = json.load(open(os.path.join(sub, e['slurm_job'], 'submission.json')))
    assert m['id'] == e['slurm_job'] and m['commit'] == e['commit'], (m['id'], m['commit'], e)
    assert len(m['tasks']) == e['asked'] == e['runs'], (len(m['tasks']), e)
    assert m['partition'] == 'sbtest' and m['constraint'] == 'sbtest', m
    for t in m['tasks']:
        rec = open(os.path.join(sub, e['slurm_job'], 'done', str(t['task']))).read()
        assert 'exit=0 ' in rec and ('node=%s ' % node) in rec, rec
    tasks += len(m['tasks'])
assert tasks == d['total_runs'], (tasks, d['total_runs'])
print(len(runs), 'arrays', tasks, 'tasks')
PY
name="A: every batch was one job array of its runs, each task done on the node; tasks = runs"
if python3 "$WORK/arrays.py" "$RA" "$LA" "$SLURM_NODE" >"$WORK/py.out" 2>&1; then
	pass "$name ($(cat "$WORK/py.out"))"
else
	fail "$name" "$(tail -3 "$WORK/py.out")"
	# What the failed tasks said (their output and end record), and the commits' runs.
	for f in "$RA"/.scalebench-slurm/*/done/*; do
		grep -q 'exit=0 ' "$f" && continue
		echo "     $f: $(cat "$f")"
		sed 's/^/       /' "${f%/done/*}/out/${f##*/}.out" | tail -20
	done
	find "$RA" -name meta.json -path "*/will-it-scale/*" | sed 's/^/     /'
fi
check "A: repository clean, back on main" \
	bash -c "[ ! -e $REPO/.git/BISECT_LOG ] && [ \"\$(git -C $REPO symbolic-ref --short HEAD)\" = main ]"
check "A: nothing left in the queue" bash -c "[ -z \"\$(squeue -h -o %i)\" ]"

# C: nodes of one class named apart (tbox_group node-a and vm): A's runs of GOOD split
# between two commit directories that differ in tbox_group alone are one commit's runs; the
# bisection on A's runs spends nothing and names the same culprit.
RC=$WORK/rC
mkdir -p "$RC"
cp -r "$RA/will-it-scale" "$RC/"
gdir=$(find "$RC" -type d -name "$GOOD" | head -1)
odir=$(echo "$gdir" | sed "s|/will-it-scale/\([^/]*\)/[^/]*/|/will-it-scale/\1/node-a/|")
mkdir -p "$odir"
for r in "$gdir"/[13579]; do mv "$r" "$odir/"; done
bisect "$RC" --good "$GOOD" --bad "$BAD" --slurm --log "$WORK/c.json"
check "C: runs of a commit under two tbox_groups: same culprit, nothing spent, no array" \
	bash -c "[ $rc -eq 0 ] && grep -q '^$GUILTY is the first bad commit' $WORK/out && [ ! -e $RC/.scalebench-slurm ]" ||
	tail -5 "$WORK/err"
check "C: the log says nothing was spent" json_true "$WORK/c.json" "d['runs_spent'] == {} and d['culprit'] == '$GUILTY'"
# D: SIGINT while an array is waited for: the array cancelled, exit 130, the log says so.
queued() { [ -n "$(squeue -h -o %i 2>/dev/null)" ]; }
await_queued() {
	for _ in $(seq 1 600); do
		queued && return 0
		sleep 0.05
	done
	return 1
}
"$SB" bisect --repo "$REPO" --job "$WORK/job.yaml" --stat plugin.per_thread_ops \
	--prepare "$PREP" --plugin "$PLUGIN" --no-monitors --results "$WORK/rD" --slurm \
	--good "$GOOD" --bad "$BAD" >"$WORK/out" 2>"$WORK/err" &
pid=$!
await_queued || fail "D: premise: an array in the queue" "$(tail -3 "$WORK/err")"
kill -INT $pid
rc=0
wait $pid || rc=$?
for _ in $(seq 1 100); do queued || break; sleep 0.1; done
check "D: SIGINT while waiting: exit 130, the array cancelled (queue empty), bisect state reset" \
	bash -c "[ $rc -eq 130 ] && [ -z \"\$(squeue -h -o %i)\" ] && [ ! -e $REPO/.git/BISECT_LOG ]" ||
	tail -5 "$WORK/err"
check "D: log: interrupted by SIGINT" json_true "$WORK/rD/$LOGNAME_.json" \
	"d['status'] == 'interrupted' and d['signal'] == 'SIGINT' and d['exit'] == 130"

# E: SIGKILL while an array is waited for: --resume ends the orphaned submit --wait (found by
# the log's token), which cancels its array, before anything else (the hook stops it there).
"$SB" bisect --repo "$REPO" --job "$WORK/job.yaml" --stat plugin.per_thread_ops \
	--prepare "$PREP" --plugin "$PLUGIN" --no-monitors --results "$WORK/rE" --slurm \
	--good "$GOOD" --bad "$BAD" >/dev/null 2>&1 &
pid=$!
await_queued || fail "E: premise: an array in the queue"
JOB=$(squeue -h -o %F | head -1)
kill -KILL $pid
wait $pid 2>/dev/null
LE=$WORK/rE/$LOGNAME_.json
check "premise: the killed controller's submit --wait outlives it" \
	bash -c "pgrep -f '^scalebench submit $WORK/job.yaml' >/dev/null"
SCALEBENCH_BISECT_KILL_AT=orphans-ended:1 sb bisect --resume "$LE"
for _ in $(seq 1 100); do queued || break; sleep 0.1; done
check "E: --resume ends the killed controller's submit --wait, its array ($JOB) cancelled" \
	bash -c "[ $rc -eq 137 ] && [ -z \"\$(squeue -h -o %i)\" ] && ! pgrep -f '^scalebench submit $WORK/job.yaml' >/dev/null" ||
	tail -5 "$WORK/err"
check "E: log: orphans-ended" json_true "$LE" "d['events'][-1]['event'] == 'orphans-ended'"
pgrep -f "^scalebench submit $WORK/job.yaml" | xargs -r kill -KILL # only when a check failed
git -C "$REPO" bisect reset >/dev/null 2>&1
rm -f "$REPO/.git/scalebench-bisect"
echo "     all: $((SECONDS - T0)) s"
git -C "$REPO" bisect reset >/dev/null 2>&1 || true
