#!/bin/bash
# lock: selftest-procs: no "bench selftest-" left, machine-wide (test_valgrind.sh runs one)
# waits: for copies that hang or never finish their setup, to the core's time limits (1.6 s of
# CPU in 8 s)
# A copy that crashes, fails, gets stuck or never finishes its setup is reported (which copy,
# which signal or status) and fails the run within a bounded time; nothing is left behind.
set -u
. "$(dirname "$0")/../lib.sh"
export SCALEBENCH_SELFTEST=1

# timed LIMIT ARGS...: run scalebench under a hard time limit, record the seconds taken.  Its
# --tmpdir marks this test's processes (and their copies, forks with the same command line).
timed() {
	local start=$SECONDS
	rc=0
	timeout -s KILL "$1" "$SCALEBENCH" "${@:2}" --tmpdir "$WORK" >"$WORK/out" 2>"$WORK/err" || rc=$?
	took=$((SECONDS - start))
}

for mode in process thread; do
	timed 60 bench selftest-crash -m $mode -t 2 -s 5 -w 0 --json "$WORK/crash.json"
	check "crash ($mode): exit 1, not a hang" [ $rc -eq 1 ]
	check "crash ($mode): reported within a few seconds" [ $took -le 4 ]
	check "crash ($mode): names copy 1 and SIGABRT" grep -q "copy 1 of 2 ($mode [0-9]*) killed by signal 6 (Aborted)" "$WORK/err"
	check "crash ($mode): JSON marks the run failed" json_true "$WORK/crash.json" \
		"d['status'] == 'failed' and d['runs'][0]['status'] == 'failed' and 'signal 6' in d['runs'][0]['failure']"

	timed 60 bench selftest-exit -m $mode -t 2 -s 5 -w 0
	check "error exit ($mode): exit 1" [ $rc -eq 1 ]
	check "error exit ($mode): names the copy and its message" grep -q "copy 1 of 2 ($mode [0-9]*) failed: deliberate failure of copy 1$" "$WORK/err"

	timed 60 bench selftest-stuck -m $mode -t 2 -s 1 -w 0
	check "stuck copy ($mode): exit 1" [ $rc -eq 1 ]
	check "stuck copy ($mode): named" grep -q "copy 1 of 2 ($mode [0-9]*) made no progress" "$WORK/err"

	timed 60 bench selftest-setup-hang -m $mode -t 2 -s 2 -w 0 --setup-timeout 1
	check "setup hang ($mode): exit 1 after the setup timeout" bash -c "[ $rc -eq 1 ] && [ $took -le 4 ]"
	check "setup hang ($mode): names the copy" grep -q "only 1 of 2 copies finished their setup within 1 s; copy 1" "$WORK/err"
done

# A failed task count doesn't stop the sweep: the next one runs and the run is still failed.
timed 60 bench selftest-crash -t 1,2 -s 1 -w 0 --json "$WORK/sweep.json"
check "sweep with a failing count: exit 1" [ $rc -eq 1 ]
check "sweep: both counts recorded" json_true "$WORK/sweep.json" \
	"[r['status'] for r in d['runs']] == ['ok', 'failed'] and 'scalability' not in d"

# No copy survives any of this.
wait_until 1 no_procs "bench selftest-.* --tmpdir $WORK\$"
check "no copies left behind" no_procs "bench selftest-.* --tmpdir $WORK\$"
