#!/bin/bash
# SIGKILL of `run` at 20 fixed points spread over its phases (before the temp run directory,
# while the copies run, while the run's files are written, at the rename): after each, no half
# run is visible, the run numbers stay dense and nothing stored is lost, and no copy outlives
# it.  Then a normal run sweeps every stale temp directory and compare reads the tree.
set -u
. "$(dirname "$0")/../lib.sh"

getppid_job "$WORK/job.yaml"
R="$WORK/crash-results"

# kill.py COMMIT_DIR WHEN CMD...: run CMD and SIGKILL it WHEN: "delay:MS" after its start,
# "tmp:MS" that long after its temp run directory appears, "create:NAME" / "closed:NAME" the
# moment NAME in the temp directory is created / written and closed, "renamed" the moment the
# temp directory is moved to its number.  inotify, so the phases are hit every time, not by
# luck.  Prints "hit" or "missed" (the run ended first).
cat >"$WORK/kill.py" <<'PY'
import ctypes, os, select, signal, struct, subprocess, sys, time
IN_CLOSE_WRITE, IN_MOVED_FROM, IN_CREATE = 0x8, 0x40, 0x100
d, when, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
kind, _, arg = when.partition(':')
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init()
top = libc.inotify_add_watch(fd, d.encode(), IN_CREATE | IN_MOVED_FROM)
if fd < 0 or top < 0:
    sys.exit('inotify: ' + os.strerror(ctypes.get_errno()))
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
deadline = time.monotonic() + int(arg) / 1000 if kind == 'delay' else None
hit = False
while not hit and p.poll() is None:
    wait = 0.05 if deadline is None else max(0, min(0.05, deadline - time.monotonic()))
    if deadline is not None and time.monotonic() >= deadline:
        hit = True
        break
    if not select.select([fd], [], [], wait)[0]:
        continue
    buf = os.read(fd, 65536)
    off = 0
    while off < len(buf) and not hit:
        wd, mask, _, n = struct.unpack_from('iIII', buf, off)
        name = buf[off + 16:off + 16 + n].rstrip(b'\0').decode()
        off += 16 + n
        tmp = wd == top and name.startswith('.tmp-run-')
        if tmp and mask & IN_CREATE:
            libc.inotify_add_watch(fd, os.path.join(d, name).encode(), IN_CREATE | IN_CLOSE_WRITE)
            if kind == 'tmp':
                deadline = time.monotonic() + int(arg) / 1000
        elif tmp and mask & IN_MOVED_FROM:
            hit = kind == 'renamed'
        elif wd != top and name == arg:
            hit = (kind == 'create' and mask & IN_CREATE) or \
                  (kind == 'closed' and mask & IN_CLOSE_WRITE)
if hit:
    p.kill()
p.wait()
print('hit' if hit else 'missed')
PY

# Every numbered run of the commit directory whole (stats.json and meta.json parse), the
# numbers 0..N-1 (dense: first free), and N printed.
cat >"$WORK/runs.py" <<'PY'
import json, os, sys
d = sys.argv[1]
nums = sorted(int(e) for e in os.listdir(d) if e.isdigit())
assert nums == list(range(len(nums))), nums
for n in nums:
    for f in ('stats.json', 'meta.json'):
        with open(os.path.join(d, str(n), f)) as fp:
            assert isinstance(json.load(fp), dict), (n, f)
print(len(nums))
PY

sb run "$WORK/job.yaml" --results "$R" --commit base -q
check "premise: a normal run of the short job works" [ $rc -eq 0 ]
sb run "$WORK/job.yaml" --results "$R" --commit crash -q
C=$(find "$R" -type d -name crash)
check "premise: the commit directory exists" [ -d "$C" ]

# 20 seeds: 8 plain delays from the start (spread over startup, the copies, the end), 12 at
# events of the temp directory's life.  The last ones leave a temp directory behind for the
# final run to sweep.
points="delay:0 delay:20 delay:50 delay:100 delay:150 delay:250 delay:350 delay:500
renamed renamed closed:stats.json tmp:5 tmp:0 tmp:2 tmp:50 tmp:150
create:proc-vmstat.samples.json create:stats.json closed:meta.json create:meta.json"
had=$(python3 "$WORK/runs.py" "$C")
half="" lost="" left="" piled="" missed="" seed=0
for when in $points; do
	seed=$((seed + 1))
	got=$(python3 "$WORK/kill.py" "$C" "$when" "$SCALEBENCH" run "$WORK/job.yaml" \
		--results "$R" --commit crash -q)
	[ "$got" = hit ] || missed="$missed $when"
	wait_until 5 no_procs "--results $R"
	pgrep -f -- "--results $R" >/dev/null && left="$left $seed:$when"
	if now=$(python3 "$WORK/runs.py" "$C" 2>"$WORK/py.err"); then
		# A kill after the rename keeps its run; nothing else may add or take one.
		[ "$now" -ge "$had" ] && [ "$now" -le $((had + 1)) ] || lost="$lost $seed:$when:$had->$now"
		had=$now
	else
		half="$half $seed:$when:$(tail -1 "$WORK/py.err")"
	fi
	# Each run swept the temp directories of those killed before it: at most its own is left.
	stale=$(find "$C" -maxdepth 1 -name '.tmp-run-*' | wc -l)
	[ "$stale" -le 1 ] || piled="$piled $seed:$when:$stale"
done
echo "     kill points missed (the run ended first):${missed:- none}"
check "SIGKILL at 20 points: no half run visible (every numbered run's stats.json and meta.json parse)" \
	[ -z "$half" ] || echo "    $half"
check "SIGKILL at 20 points: run numbers dense and unique, no stored run lost" [ -z "$lost" ] ||
	echo "    $lost"
check "SIGKILL at 20 points: no copy outlives run (PR_SET_PDEATHSIG)" [ -z "$left" ] ||
	echo "    $left"
check "SIGKILL at 20 points: each run sweeps the temp directories of the killed ones before it" \
	[ -z "$piled" ] || echo "    $piled"
check "premise: the last kill left a stale temp run directory" \
	bash -c "find $C -maxdepth 1 -name '.tmp-run-*' | grep -q ."

sb run "$WORK/job.yaml" --results "$R" --commit crash -q
check "after the kills: a normal run succeeds" [ $rc -eq 0 ]
check "after the kills: the normal run swept every stale .tmp-run-*" \
	bash -c "! find $R -name '.tmp-run-*' | grep -q ."
check "after the kills: every run whole, numbers dense" bash -c "python3 $WORK/runs.py $C >/dev/null"
# A live runner's temp directory is never taken for stale: a second runner on the same commit
# directory runs (and sweeps) while the first one's run is in progress.
# (longer by its warmup, not its runtime: the runtime is in path_params, so a longer one would
# be another atomic job, in another directory)
# (3 s: as long as the second runner's whole run takes on a loaded machine, and more.)
getppid_job "$WORK/long.yaml" "warmup: 3"
"$SCALEBENCH" run "$WORK/long.yaml" --results "$R" --commit crash -q >/dev/null 2>&1 &
long=$!
wait_until 5 bash -c "find '$C' -maxdepth 1 -name '.tmp-run-*' | grep -q ."
live=$(find "$C" -maxdepth 1 -name '.tmp-run-*')
sb run "$WORK/job.yaml" --results "$R" --commit crash -q
check "concurrent runners: the second runs while the first's run is in progress" \
	bash -c "[ $rc -eq 0 ] && [ -n '$live' ] && [ -d '$live' ]"
rc=0
wait $long || rc=$?
check "concurrent runners: the first one's run was not swept, it is stored whole" \
	bash -c "[ $rc -eq 0 ] && python3 $WORK/runs.py $C >/dev/null && ! find $R -name '.tmp-run-*' | grep -q ."

sb compare "$(find "$R" -type d -name base)" "$C" --all --stat '^will-it-scale'
check "after the kills: compare reads the tree" \
	bash -c "[ $rc -ne 2 ] && grep -q 'will-it-scale.per_process_ops' $WORK/out"
pgrep -f -- "--results $R" | xargs -r kill -KILL # only when a check above failed
