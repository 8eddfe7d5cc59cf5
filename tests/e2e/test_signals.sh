#!/bin/bash
# waits: for the moments it signals at and the teardowns it watches (12.6 s of CPU in 25 s
# alone)
# SIGINT/SIGTERM mid-run: scalebench tears everything down, leaves no copies and no temp
# files, writes no JSON and keeps an older one intact.
set -u
. "$(dirname "$0")/../lib.sh"

# run_group PID: the process group of the run bench PID started (its copy host leads it; the
# host is bench's child).
run_group() {
	ps -o pid=,pgid= --ppid "$1" | awk '$1 == $2 { print $1; exit }'
}

# copies_up PID N: bench PID's run has its host and N copies: N + 1 tasks (processes or
# threads) in the run's process group.
copies_up() {
	local g p n=0
	g=$(run_group "$1")
	[ -n "$g" ] || return 1
	for p in $(pgrep -g "$g"); do
		n=$((n + $(find /proc/"$p"/task -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)))
	done
	[ "$n" -gt "$2" ]
}

# interrupt SIG TESTCASE MODE: start a long run, signal it once its copies exist, check the
# aftermath.
interrupt() {
	local sig=$1 t=$2 mode=$3 pid start group
	local tmp="$WORK/tmp-$t-$mode" json="$WORK/$t-$mode.json"
	mkdir "$tmp"
	echo '{"old": true}' >"$json"
	"$SCALEBENCH" bench $t -m $mode -t 2 -s 60 -w 1 --tmpdir "$tmp" --json "$json" \
		>"$WORK/out" 2>"$WORK/err" &
	pid=$!
	wait_until 60 copies_up $pid 2 ||
		fail "$t $mode SIG$sig: premise: the copies start" "$(cat "$WORK/err")"
	# A testcase's temp files (tc_tmpfile) carry the run's process group in their names:
	# scalebench-TAG.PGID.XXXXXX.  Only this run's are counted: other work on the machine
	# comes and goes in /dev/shm.
	group=$(run_group $pid)
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
	check "$name: no new files in /dev/shm" \
		[ -z "$(find /dev/shm -maxdepth 1 -name "scalebench-*.${group:-nogroup}.*")" ]
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
wait_until 60 copies_up $pid 2 || fail "SIGKILL of scalebench: premise: the copies start"
kill -KILL $pid
wait $pid 2>/dev/null
wait_until 10 no_procs "bench getppid1 -t 2 -s 60 -w 0 --tmpdir $WORK"
check "SIGKILL of scalebench: copies die with it" no_procs "bench getppid1 -t 2 -s 60 -w 0 --tmpdir $WORK"

# SIGTERM to every process of a run, the copies a moment before the runner (Slurm's scancel,
# a ^C to a process group): the run was interrupted, not failed — nothing stored, exit 143.
# SIGTERM to a copy alone is a failure, stored as one, naming the signal.
getppid_job "$WORK/long.yaml" "runtime: 30s"
R="$WORK/race"
for who in all copy; do
	"$SCALEBENCH" run "$WORK/long.yaml" --results "$R" --commit $who --no-monitors -q \
		>"$WORK/out.$who" 2>"$WORK/err.$who" &
	pid=$!
	wait_until 60 copies_up $pid 1 || fail "SIGTERM race ($who): premise: the copies start"
	wait_until 30 bash -c "find '$R' -path '*/$who/.tmp-run-*' -prune | grep -q ."
	group=$(run_group $pid)
	pgrep -g "$group" | xargs -r kill -TERM
	if [ $who = all ]; then
		sleep 0.2
		kill -TERM $pid
	fi
	rc=0
	wait $pid || rc=$?
	if [ $who = all ]; then
		check "SIGTERM to the copies, then the runner: exit 143, nothing stored" bash -c \
			"[ $rc = 143 ] && ! find '$R' -path '*/all/*' -name stats.json | grep -q ."
	else
		check "SIGTERM to a copy alone: exit 1, the failed run stored, naming signal 15" \
			bash -c "[ $rc = 1 ] && grep -rq 'signal 15' \$(find '$R' -path '*/copy/0' -type d) \
				'$WORK/err.copy' '$WORK/out.copy'"
	fi
done

# A signal at any moment of `run`, from its very start (before 8a the handlers came only with
# the first run, ~70 ms in, and a signal before them left a .tmp-run-* behind): exit 128+N,
# no temp run directory, every numbered run whole.  Job control on: a background job of a
# script would otherwise start with SIGINT ignored.
# (A 1 s window: the run must outlast the latest signal, 300 ms in.)
getppid_job "$WORK/short.yaml" "runtime: 1s"
R="$WORK/early"
# One whole run first: the commit directory the inotify watch below needs exists however late
# (on a loaded machine) the interrupted runs would have made it.
"$SCALEBENCH" run "$WORK/short.yaml" --results "$R" --commit c1 --no-monitors -q >/dev/null 2>&1
# (A subshell: job control's "[1]+ Interrupt" notes go nowhere.)
bad=$(
	set -m
	for i in $(seq 0 19); do
		sig=INT
		[ $((i % 2)) -eq 1 ] && sig=TERM
		delay=$(printf '0.%03d' $((i * 16)))
		"$SCALEBENCH" run "$WORK/short.yaml" --results "$R" --commit c1 --no-monitors -q \
			>/dev/null 2>"$WORK/err.early" &
		pid=$!
		sleep "$delay"
		kill -$sig $pid
		rc=0
		wait $pid || rc=$?
		[ $rc -eq $((128 + $(kill -l $sig))) ] || echo -n " ${delay}s:SIG$sig:exit$rc"
	done 2>/dev/null
)
check "signal 0-300 ms into run: exits 128+N every time" [ -z "$bad" ] || echo "     $bad"
check "signal 0-300 ms into run: no .tmp-run-* left" \
	bash -c "! find $R -name '.tmp-run-*' | grep -q ."
check "signal 0-300 ms into run: every numbered run has stats.json and meta.json" bash -c \
	"for d in \$(find $R -regex '.*/c1/[0-9]+'); do [ -s \$d/stats.json ] && [ -s \$d/meta.json ] || exit 1; done"
check "signal 0-300 ms into run: no copies left" no_procs "--results $R"

# The moment the run's temp directory exists, the signal: the window that was open before the
# handlers (store_begin came first).  inotify, so it is hit every time, not by luck.
cat >"$WORK/watch.py" <<'PY'
# watch.py DIR PREFIX SIG CMD...: run CMD; the moment an entry named PREFIX* appears in DIR
# (inotify), send it SIG.  Prints its exit status the shell's way (128+N for a signal).
import ctypes, os, signal, struct, subprocess, sys
d, prefix, sig, cmd = sys.argv[1], sys.argv[2].encode(), getattr(signal, 'SIG' + sys.argv[3]), sys.argv[4:]
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init()
if fd < 0 or libc.inotify_add_watch(fd, d.encode(), 0x100) < 0:  # IN_CREATE
    sys.exit('inotify: ' + os.strerror(ctypes.get_errno()))
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
sent = False
while not sent:
    buf = os.read(fd, 65536)
    off = 0
    while off < len(buf):
        _, mask, _, n = struct.unpack_from('iIII', buf, off)
        name = buf[off + 16:off + 16 + n].rstrip(b'\0')
        off += 16 + n
        if name.startswith(prefix) and not sent:
            p.send_signal(sig)
            sent = True
rc = p.wait()
print(128 - rc if rc < 0 else rc)
PY
C=$(find "$R" -regex '.*/c1' -type d)
bad=""
for sig in INT TERM INT TERM; do
	got=$(python3 "$WORK/watch.py" "$C" .tmp-run- $sig "$SCALEBENCH" run "$WORK/short.yaml" \
		--results "$R" --commit c1 -q)
	[ "$got" = $((128 + $(kill -l $sig))) ] || bad="$bad SIG$sig:exit$got"
done
check "signal as the temp run directory appears: exits 128+N" [ -z "$bad" ] || echo "     $bad"
check "signal as the temp run directory appears: no .tmp-run-* left" \
	bash -c "! find $R -name '.tmp-run-*' | grep -q ."

# The same for bench --json: the signal the moment its temp file appears (it used to come
# before bench's handlers were installed, and the temp file stayed).
mkdir "$WORK/bj"
bad=""
for sig in INT TERM; do
	got=$(python3 "$WORK/watch.py" "$WORK/bj" out.json.tmp. $sig "$SCALEBENCH" bench getppid1 \
		-t 1 -s 5 -w 0 --json "$WORK/bj/out.json")
	[ "$got" = $((128 + $(kill -l $sig))) ] || bad="$bad SIG$sig:exit$got"
done
check "bench --json, signal as its temp file appears: exits 128+N" [ -z "$bad" ] || echo "     $bad"
check "bench --json, signal as its temp file appears: no file left" [ -z "$(ls -A "$WORK/bj")" ]

# plot --png interrupted while gnuplot runs (a gnuplot found first in PATH that stalls before
# the real one, and leaves a child that ignores SIGTERM): exit 128+N, the output's temp file
# removed, nothing of gnuplot's process group left.
mkdir -p "$WORK/shim" "$WORK/plot"
getppid_job "$WORK/quick.yaml"
"$SCALEBENCH" run "$WORK/quick.yaml" --results "$WORK/plotted" --commit p --no-monitors -q \
	>/dev/null 2>&1
P=$(find "$WORK/plotted" -type d -name p)
cat >"$WORK/shim/gnuplot" <<EOF2
#!/bin/sh
# plot_available's probe passes; the plot itself (it sets an output) stalls first.
script=\$(cat)
case \$script in *"set output"*)
	echo \$\$ >"$WORK/gnuplot.pgid"
	(trap '' TERM; sleep 30) &
	sleep 30 ;;
esac
printf '%s\n' "\$script" | exec $(command -v gnuplot) "\$@"
EOF2
chmod +x "$WORK/shim/gnuplot"
plot_interrupt() {
	local sig=$1 pid rc pgid
	rm -f "$WORK/gnuplot.pgid"
	(
		set -m
		PATH="$WORK/shim:$PATH" SCALEBENCH_GNUPLOT= "$SCALEBENCH" plot "$P" "$P" \
			--png "$WORK/plot/out.png" >/dev/null 2>"$WORK/err.plot" &
		pid=$!
		wait_until 10 test -s "$WORK/gnuplot.pgid"
		kill -$sig $pid
		rc=0
		wait $pid || rc=$?
		echo $rc >"$WORK/plot.rc"
	) 2>/dev/null
	rc=$(cat "$WORK/plot.rc")
	check "plot --png, SIG$sig while gnuplot runs: premise: gnuplot found through PATH" \
		[ -s "$WORK/gnuplot.pgid" ]
	pgid=$(cat "$WORK/gnuplot.pgid" 2>/dev/null)
	# (pgrep -g 0 would mean our own group)
	[ "${pgid:-0}" -gt 1 ] 2>/dev/null || pgid=999999999
	check "plot --png, SIG$sig while gnuplot runs: exits $((128 + $(kill -l $sig)))" \
		[ "$rc" -eq $((128 + $(kill -l $sig))) ]
	check "plot --png, SIG$sig while gnuplot runs: says so" grep -q "interrupted by signal" "$WORK/err.plot"
	check "plot --png, SIG$sig while gnuplot runs: no output, no temp file" \
		[ -z "$(ls -A "$WORK/plot")" ]
	check "plot --png, SIG$sig while gnuplot runs: gnuplot's whole group ended" \
		bash -c "! pgrep -g $pgid -r R,S,D,T,t >/dev/null"
	pgrep -g "$pgid" -r R,S,D,T,t | xargs -r kill -KILL # only when the check above failed
}
plot_interrupt TERM
plot_interrupt INT
