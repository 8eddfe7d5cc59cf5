#!/bin/bash
# bisect across reboots, locally, with a simulated kernel: prepare builds the commit's plug-in
# testcase and stages it; --reboot "boots" the staged one (installs it, writes the commit into
# a "booted" marker, counts its calls); --boot-check compares the marker with
# $SCALEBENCH_COMMIT.  One commit never boots.  The culprit is named exactly; a bisection
# SIGKILLed at several step boundaries (and SIGTERMed and killed inside its reboot, as a machine
# going down under a local controller) resumes to the same culprit with no run spent twice;
# --runs-per-boot 3 costs at most half the reboots of 1; exit statuses 0/1/3/130; the log is
# numbered, never overwritten; prepare's output goes to the .d directory, not stdout.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/bisect_history.sh"

SB=$(realpath "$SCALEBENCH")
NCOMMITS=9
GUILTY_AT=7
bisect_history $NCOMMITS $GUILTY_AT
NOBOOT=$(git -C "$REPO" rev-list --bisect "$BAD" "^$GOOD")
check "premise: git's first midpoint is neither the culprit nor its parent" \
	bash -c "[ $NOBOOT != $C7 ] && [ $NOBOOT != $C6 ]"

bisect_job "$WORK/job.yaml"
PLUGIN=$WORK/counter.so
$PLUGIN_CC -o "$PLUGIN" "$REPO/counter.c"
# The simulated kernel.  prepare: build and stage; reboot: install the staged one, mark it
# booted unless it is listed in noboot, count the call; the test hooks kill-term / kill-kill
# end the controller (its parent) from inside the reboot, as a machine going down would.
cat >"$WORK/prepare.sh" <<S
#!/bin/sh
echo "PREPARE-OUTPUT \$SCALEBENCH_COMMIT"
$PLUGIN_CC -o $WORK/staged.so counter.c || exit 1
echo "\$SCALEBENCH_COMMIT" >$WORK/staged
S
cat >"$WORK/reboot.sh" <<S
#!/bin/sh
echo "\$SCALEBENCH_COMMIT" >>$WORK/reboots
echo "REBOOT-OUTPUT"
rm -f $WORK/booted
cp $WORK/staged.so $PLUGIN.tmp && mv $PLUGIN.tmp $PLUGIN
grep -qx "\$SCALEBENCH_COMMIT" $WORK/noboot 2>/dev/null || cp $WORK/staged $WORK/booted
controller() { # the scalebench above us (sh -c may stand between)
	p=\$PPID
	while [ "\$(cat /proc/\$p/comm)" != scalebench ]; do p=\$(cut -d' ' -f4 /proc/\$p/stat); done
	echo \$p
}
if [ -e $WORK/kill-term ]; then rm -f $WORK/kill-term; kill -TERM \$(controller); fi
if [ -e $WORK/kill-kill ]; then rm -f $WORK/kill-kill; kill -KILL \$(controller); fi
exit 0
S
chmod +x "$WORK/prepare.sh" "$WORK/reboot.sh"
echo "$NOBOOT" >"$WORK/noboot"
CHECK='[ "$(cat '"$WORK"'/booted 2>/dev/null)" = "$SCALEBENCH_COMMIT" ] || { echo "booted: $(cat '"$WORK"'/booted 2>/dev/null || echo nothing)"; exit 1; }'
bisect() { # RESULTS ARGS...
	local res=$1
	shift
	sb bisect --repo "$REPO" --job "${JOB:-$WORK/job.yaml}" --stat plugin.per_thread_ops \
		--prepare "$WORK/prepare.sh" --plugin "$PLUGIN" --no-monitors --results "$res" \
		--reboot "$WORK/reboot.sh" --boot-check "$CHECK" --boot-timeout 1 --max-runs 4 "$@"
}
LOGNAME_=bisect-${GOOD:0:10}-${BAD:0:10}
nruns() { find "$1" -name meta.json -path "*/$2*" 2>/dev/null | wc -l; }
reboots_of() { grep -cx "$1" "$WORK/reboots" 2>/dev/null || true; }
T0=$SECONDS

# A: --runs-per-boot 3 (the default), uninterrupted.
: >"$WORK/reboots"
bisect "$WORK/rA" --good "$GOOD" --bad "$BAD"
LA=$WORK/rA/$LOGNAME_.json
check "A: exit 0, the culprit named exactly" \
	bash -c "[ $rc -eq 0 ] && grep -q '^$GUILTY is the first bad commit' $WORK/out" ||
	sed 's/^/     /' "$WORK/out" "$WORK/err"
check "A: the never-booting commit retried once (two reboots), then skipped, logged with the boot check's tail" \
	bash -c "[ $(reboots_of "$NOBOOT") -eq 2 ] && python3 -c '
import json,sys; d=json.load(open(\"$LA\"))
f=[e for e in d[\"events\"] if e[\"event\"]==\"boot-failed\"]
assert [e[\"attempt\"] for e in f]==[1,2] and all(e[\"commit\"]==\"$NOBOOT\" and \"booted:\" in e[\"tail\"] and e[\"reason\"] for e in f), f
assert [s[\"commit\"] for s in d[\"steps\"] if s[\"decision\"]==\"skip\"]==[\"$NOBOOT\"]'"
REBOOTS_A=$(wc -l <"$WORK/reboots")
check "A: reboots counted in the log as the reboot command saw them, and in the summary" \
	bash -c "json_true() { [ \"\$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(bool(eval(sys.argv[2])))' \"\$1\" \"\$2\")\" = True ]; }; json_true $LA \"d['total_reboots'] == $REBOOTS_A\" && grep -q 'reboots spent: $REBOOTS_A' $WORK/out"
check "A: every log entry timestamped (ISO 8601 UTC)" json_true "$LA" \
	"all(__import__('re').fullmatch(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z', e['time']) for e in d['events'] + d['steps'])"
check "A: prepare's and reboot's output in the .d/<commit>.log, not in the result" \
	bash -c "grep -q 'PREPARE-OUTPUT $GUILTY' $WORK/rA/$LOGNAME_.d/$GUILTY.log && grep -q 'REBOOT-OUTPUT' $WORK/rA/$LOGNAME_.d/$GUILTY.log && grep -q '^=== 20.*prepare:' $WORK/rA/$LOGNAME_.d/$GUILTY.log && ! grep -q 'PREPARE-OUTPUT\|REBOOT-OUTPUT' $WORK/out $WORK/err"
RUNS_A=$(json "$LA" "d['total_runs']")
check "A: runs in the log = runs stored" [ "$RUNS_A" = "$(nruns "$WORK/rA" "")" ]
echo "     A: $RUNS_A runs, $REBOOTS_A reboots, $((SECONDS - T0)) s"

# The log is never overwritten: the default name is numbered; an explicit --log that exists
# is refused.  (An absent stat ends both at once, on the runs A stored.)
bisect "$WORK/rA" --good "$GOOD" --bad "$BAD" --stat no.such_stat
check "a second bisection's default log is numbered (-2), the first intact" \
	bash -c "[ $rc -eq 2 ] && [ -f $WORK/rA/$LOGNAME_-2.json ] && [ -d $WORK/rA/$LOGNAME_-2.d ]" &&
	check "... the first log still A's" json_true "$LA" "d['status'] == 'found' and d['exit'] == 0"
bisect "$WORK/rA" --good "$GOOD" --bad "$BAD" --log "$LA"
check "--log naming an existing log: refused (exit 2), the log untouched" \
	bash -c "[ $rc -eq 2 ] && grep -q 'never overwritten' $WORK/err" &&
	check "... A's log intact" json_true "$LA" "d['status'] == 'found'"
sb bisect --resume "$LA"
check "--resume of a finished bisection: refused" bash -c "[ $rc -eq 2 ] && grep -q 'is over' $WORK/err"
sb bisect --resume "$LA" --stat other.stat
check "--resume with other options: refused (they come from the log)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'give it alone' $WORK/err"

# B: the same bisection killed at step boundaries (SIGKILL after the log records an event;
# SIGKILL and SIGTERM from inside the reboot command), resumed each time.
: >"$WORK/reboots"
LB=$WORK/rB/$LOGNAME_.json
step=0
resume_killed() { # how: KILL_AT value or a reboot hook file
	step=$((step + 1))
	local how=$1 cmd=(sb bisect --resume "$LB")
	[ $step -eq 1 ] && cmd=(bisect "$WORK/rB" --good "$GOOD" --bad "$BAD")
	case $how in
	kill-term | kill-kill) touch "$WORK/$how"; SCALEBENCH_BISECT_KILL_AT= "${cmd[@]}" ;;
	*) SCALEBENCH_BISECT_KILL_AT=$how "${cmd[@]}" ;;
	esac
	local want=137
	[ "$how" = kill-term ] && want=130
	check "B$step: killed at $how (exit $want)" [ $rc -eq $want ] || sed 's/^/     /' "$WORK/err" | tail -5
}
resume_killed start:1
check "B: a bisection started by someone else is still refused" bash -c "
	git -C $REPO bisect start $BAD $GOOD >/dev/null 2>&1
	$SB bisect --resume $LB >/dev/null 2>$WORK/err2; r=\$?
	git -C $REPO bisect reset >/dev/null 2>&1
	[ \$r -eq 2 ] && grep -q 'not by this log' $WORK/err2"
resume_killed bisect-start:1
resume_killed runs:2
resume_killed kill-term
check "B: SIGTERM written as such in the log, the bisect state kept for the awaited boot" \
	bash -c "[ -e $REPO/.git/BISECT_LOG ] && grep -q 'continue with scalebench bisect --resume' $WORK/err" &&
	check "... log: interrupted by SIGTERM" json_true "$LB" \
	"d['status'] == 'interrupted' and d['exit'] == 130 and d['signal'] == 'SIGTERM' and d['events'][-2]['event'] == 'interrupted'"
resume_killed model:1
resume_killed kill-kill
resume_killed decision:1
resume_killed booted:3
resume_killed culprit:1
sb bisect --resume "$LB"
check "B: resumed to the end: exit 0, the same culprit" \
	bash -c "[ $rc -eq 0 ] && grep -q '^$GUILTY is the first bad commit' $WORK/out" ||
	sed 's/^/     /' "$WORK/out" "$WORK/err"
# Killed and resumed, B measures on its own: where a verdict is inconclusive it asks for more
# runs, so its count may differ from A's.  What a kill must not do is spend a run or issue a
# reboot twice: every run stored is in the log once, every reboot issued is in it once.
RUNS_B=$(nruns "$WORK/rB" "")
check "B: no run spent twice: the runs stored are the log's total ($RUNS_B; A spent $RUNS_A)" \
	bash -c "[ \"\$(python3 -c 'import json; print(json.load(open(\"$LB\"))[\"total_runs\"])')\" = $RUNS_B ]"
check "B: no reboot issued twice: the reboot command's calls are the log's total (A: $REBOOTS_A)" \
	bash -c "[ \"\$(python3 -c 'import json; print(json.load(open(\"$LB\"))[\"total_reboots\"])')\" = \$(wc -l <$WORK/reboots) ]"
check "B: the same decisions as A" bash -c "[ \"\$(python3 -c 'import json; print([(s[\"commit\"], s[\"decision\"]) for s in json.load(open(\"$LA\"))[\"steps\"]])')\" = \"\$(python3 -c 'import json; print([(s[\"commit\"], s[\"decision\"]) for s in json.load(open(\"$LB\"))[\"steps\"]])')\" ]"
check "B: repository clean, back on main" \
	bash -c "[ ! -e $REPO/.git/BISECT_LOG ] && [ ! -e $REPO/.git/scalebench-bisect ] && [ \"\$(git -C $REPO symbolic-ref --short HEAD)\" = main ]"
echo "     B: $((SECONDS - T0)) s so far"

# SIGKILL in the middle of a batch of runs: the orphaned `scalebench run` (its own process
# group) is found by the log's token and ended by --resume before it measures anything.
LF=$WORK/rF/$LOGNAME_.json
"$SB" bisect --repo "$REPO" --job "$WORK/job.yaml" --stat plugin.per_thread_ops \
	--prepare "$WORK/prepare.sh" --plugin "$PLUGIN" --no-monitors --results "$WORK/rF" \
	--good "$GOOD" --bad "$BAD" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 300); do
	pgrep -f "^scalebench run $WORK/job.yaml" >/dev/null && break
	sleep 0.05
done
kill -KILL $pid
wait $pid 2>/dev/null
check "premise: the controller's scalebench run outlives its SIGKILL" \
	bash -c "pgrep -f '^scalebench run $WORK/job.yaml' >/dev/null"
SCALEBENCH_BISECT_KILL_AT=orphans-ended:1 sb bisect --resume "$LF"
check "--resume ends the killed controller's orphaned run first (logged)" \
	bash -c "[ $rc -eq 137 ] && ! pgrep -f '^scalebench run $WORK/job.yaml' >/dev/null" &&
	check "... log: orphans-ended" json_true "$LF" "d['events'][-1]['event'] == 'orphans-ended'"
pgrep -f "^scalebench run $WORK/job.yaml" | xargs -r kill -KILL # only when a check failed
git -C "$REPO" bisect reset >/dev/null 2>&1
rm -f "$REPO/.git/scalebench-bisect"

# C: --runs-per-boot 1: at least twice the reboots of 3.
: >"$WORK/reboots"
bisect "$WORK/rC" --good "$GOOD" --bad "$BAD" --runs-per-boot 1
REBOOTS_C=$(wc -l <"$WORK/reboots")
check "C: --runs-per-boot 1: same culprit; --runs-per-boot 3 spent at most half its reboots ($REBOOTS_A vs $REBOOTS_C)" \
	bash -c "[ $rc -eq 0 ] && grep -q '^$GUILTY is the first bad commit' $WORK/out && [ $((REBOOTS_A * 2)) -le $REBOOTS_C ]"

# Exit 3: the culprit and its parent never boot (their runs removed from a copy of A's tree):
# git is left with only skipped commits.
cp -r "$WORK/rA" "$WORK/rD"
rm -rf "$WORK"/rD/bisect-*
find "$WORK/rD" -type d \( -name "$GUILTY" -o -name "$C6" \) -prune -exec rm -rf {} +
printf '%s\n%s\n' "$GUILTY" "$C6" >"$WORK/noboot"
bisect "$WORK/rD" --good "$GOOD" --bad "$BAD"
check "exit 3: only skipped commits left, inconclusive, said and logged" \
	bash -c "[ $rc -eq 3 ] && grep -q 'inconclusive' $WORK/out" &&
	check "... log: inconclusive, exit 3" json_true "$WORK/rD/$LOGNAME_.json" "d['status'] == 'inconclusive' and d['exit'] == 3"

# Exit 1: no change between two good commits (the plug-in's op waits: its rate moves by far
# less than the 60% threshold between 0.25 s runs, even beside other work).
: >"$WORK/noboot"
bisect "$WORK/rE" --good "$GOOD" --bad "$C3" --max-runs 3 --threshold 60
check "exit 1: the change does not reproduce between the endpoints" \
	bash -c "[ $rc -eq 1 ] && grep -q 'does not reproduce' $WORK/out" &&
	check "... log: not-reproduced, exit 1" json_true "$WORK/rE/bisect-${GOOD:0:10}-${C3:0:10}.json" \
	"d['status'] == 'not-reproduced' and d['exit'] == 1"
echo "     all: $((SECONDS - T0)) s"
git -C "$REPO" bisect reset >/dev/null 2>&1 || true
