#!/bin/bash
# SIGINT/SIGTERM mid-run: scalebench tears everything down, leaves no copies and no temp
# files, writes no JSON and keeps an older one intact.
set -u
. "$(dirname "$0")/../lib.sh"

# interrupt SIG TESTCASE MODE: start a long run, signal it after 2.5 s, check the aftermath.
interrupt() {
	local sig=$1 t=$2 mode=$3 pid start
	local tmp="$WORK/tmp-$t-$mode" json="$WORK/$t-$mode.json"
	mkdir "$tmp"
	echo '{"old": true}' >"$json"
	shm_before=$(ls /dev/shm | grep -c '^scalebench-' || true)
	"$SCALEBENCH" bench $t -m $mode -t 2 -s 60 -w 1 --tmpdir "$tmp" --json "$json" \
		>"$WORK/out" 2>"$WORK/err" &
	pid=$!
	sleep 2.5
	start=$SECONDS
	kill -$sig $pid
	rc=0
	timeout 20 tail --pid=$pid -f /dev/null || true
	wait $pid || rc=$?
	local name="$t $mode SIG$sig"
	local want=$((128 + $(kill -l $sig)))
	check "$name: exits $want promptly" bash -c "[ $rc -eq $want ] && [ $((SECONDS - start)) -le 5 ]"
	check "$name: says it was interrupted" grep -q "interrupted by signal" "$WORK/err"
	check "$name: no copies left" no_procs "--tmpdir $tmp"
	check "$name: no temp files left" [ -z "$(ls -A "$tmp")" ]
	check "$name: no new files in /dev/shm" [ "$(ls /dev/shm | grep -c '^scalebench-' || true)" -le "$shm_before" ]
	check "$name: older JSON untouched, no temp JSON" bash -c \
		"[ \"\$(cat $json)\" = '{\"old\": true}' ] && [ \$(ls $WORK | grep -c '\.json\.tmp') -eq 0 ]"
}

interrupt INT page_fault3 process
interrupt TERM page_fault3 thread
interrupt INT exec1 process
interrupt TERM fallocate1 thread

# SIGKILL can't be caught: the copies still die with their parent (PR_SET_PDEATHSIG).
"$SCALEBENCH" bench getppid1 -t 2 -s 60 -w 0 --tmpdir "$WORK" >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -KILL $pid
wait $pid 2>/dev/null
sleep 1
check "SIGKILL of scalebench: copies die with it" no_procs "bench getppid1 -t 2 -s 60 -w 0 --tmpdir $WORK"
