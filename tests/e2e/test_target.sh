#!/bin/bash
# lock: target-run: runs "run job.yaml --results results" (test_bisect_target.sh checks)
# run --target ssh://...: a job run on a remote machine over ssh, its runs brought back whole.
# The target is an sshd this test starts on a free loopback port, with a host key and a user
# key made for it; it is stopped by pid (its session children too) when the test ends.
set -u
. "$(dirname "$0")/../lib.sh"

. "$(dirname "$0")/sshd.sh"
# The target's sessions make their temp directories in a directory of this test's own, so
# that what another test (or another user of /tmp) leaves there is not counted as ours.
RTMP=$WORK/target-tmp
mkdir -p "$RTMP"
# The target's tar is tar, unless the run directory it is to send holds a crafted-stream
# script (a hostile target's, planted by a fake remote scalebench below): that is sent instead.
TBIN=$WORK/target-bin
mkdir -p "$TBIN"
cat >"$TBIN/tar" <<SH
#!/bin/sh
[ "\$1" = -C ] && [ -x "\$2/crafted-stream" ] && exec "\$2/crafted-stream"
exec $(command -v tar) "\$@"
SH
chmod +x "$TBIN/tar"
sshd_start "SetEnv TMPDIR=$RTMP PATH=$TBIN:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" || exit 0
trap sshd_stop EXIT
SB_ABS=$(readlink -f "$SCALEBENCH")
# A 0.25 s run of page_fault3 (one sample), one process, no monitors: the runs' transport is
# tested, not what they measure.
ONE_S=(jobs/page_fault3.yaml -q --no-monitors --runtime 0.25s --set interval=0.25s --set warmup=0
	--nr-task 1 --set mode=process)

# No remote temp directory left behind by a case: the target's mktemp dirs that hold job.yaml.
remote_tmps() {
	find "$RTMP" -maxdepth 2 -name job.yaml -path '*/tmp.*' 2>/dev/null | wc -l
}
tmps_before=$(remote_tmps)

logins() { grep -c 'Accepted publickey' "$T/sshd.log"; }
# One run through the target: stored here as a local run would be.
mkdir "$WORK/ltmp"
logins_before=$(logins)
TMPDIR=$WORK/ltmp sb run "${ONE_S[@]}" --commit tc1 --results "$WORK/r1" --target "$URL" \
	--target-bin "$SB_ABS" "${SSHOPTS[@]}"
[ $rc -eq 0 ] || cat "$WORK/err"
check "target run: exit 0" [ $rc -eq 0 ]
check "target run: its steps (version, setup, run, list, fetch, remove) share one ssh login" \
	[ "$(($(logins) - logins_before))" -eq 1 ]
check "target run: no ssh left" no_procs "ssh -T .*-p $PORT"
check "target run: the shared connection's directory removed (\$TMPDIR empty)" \
	[ -z "$(ls -A "$WORK/ltmp")" ]
runs=$(ls -d "$WORK"/r1/will-it-scale/*/*/*/*/*/tc1/[0-9]* 2>/dev/null)
check "target run: one run directory, numbered 0" bash -c \
	"[ \$(echo '$runs' | grep -c .) -eq 1 ] && [ \"\$(basename '$runs')\" = 0 ]"
check "target run: stats.json and meta.json" bash -c "[ -s '$runs/stats.json' ] && [ -s '$runs/meta.json' ]"
check "target run: job.yaml and output beside them" bash -c "[ -s '$runs/job.yaml' ] && [ -e '$runs/output' ]"
check "target run: meta.json carries the target's machine" json_true "$runs/meta.json" \
	"d.get('machine') and d.get('scalebench')"
check "target run: no temp run directory left" bash -c \
	"[ -z \"\$(find '$WORK/r1' -name '.tmp-run-*')\" ]"
check "target run: the target's temp directory is removed" [ "$(remote_tmps)" -eq "$tmps_before" ]
# The same job run locally lands at the same path but for the run number.
sb run "${ONE_S[@]}" --commit tc1 --results "$WORK/r1"
check "target run: a local run of the same job lands beside it (run 1)" bash -c \
	"[ $rc -eq 0 ] && [ -d \"$(dirname "$runs")/1\" ]"

# --repeat and --set are forwarded.
sb run "${ONE_S[@]}" --commit tc2 --repeat 2 --set mode=thread --results "$WORK/r2" \
	--target "$URL" --target-bin "$SB_ABS" "${SSHOPTS[@]}"
check "target run --repeat 2 --set mode=thread: two runs, thread mode" bash -c \
	"[ $rc -eq 0 ] && [ \$(ls -d $WORK/r2/will-it-scale/*thread*/*/*/*/*/tc2/[0-9]* | wc -l) -eq 2 ]"

# --push: this scalebench's installed tree copied into an empty directory of the target.
make -s install PREFIX=/opt/sb DESTDIR="$WORK/stage" >"$WORK/install.log" 2>&1
PUSHED="$WORK/pushed"
rc=0
"$WORK/stage/opt/sb/bin/scalebench" run "${ONE_S[@]}" --commit tp --results "$WORK/rp" \
	--target "$URL" --push-dir "$PUSHED" "${SSHOPTS[@]}" >"$WORK/out" 2>"$WORK/err" || rc=$?
[ $rc -eq 0 ] || cat "$WORK/err"
check "--push-dir: exit 0" [ $rc -eq 0 ]
check "--push-dir: bin, libexec and share in the target's directory" bash -c \
	"[ -x '$PUSHED/bin/scalebench' ] && [ -x '$PUSHED/libexec/scalebench/scalebench-exec-helper' ] && [ -f '$PUSHED/share/scalebench/jobs/page_fault3.yaml' ]"
check "--push-dir: the run is stored here" bash -c \
	"[ \$(ls -d $WORK/rp/will-it-scale/*/*/*/*/*/tp/0 | wc -l) -eq 1 ]"
rc=0
"$SB_ABS" run "${ONE_S[@]}" --push --target "$URL" "${SSHOPTS[@]}" --results "$WORK/rx" \
	>"$WORK/out" 2>"$WORK/err" || rc=$?
check "--push from a build tree: exit 2, says it is not an installed tree" bash -c \
	"[ $rc -eq 2 ] && grep -q 'not an installed tree' '$WORK/err' && [ ! -e '$WORK/rx/will-it-scale' ]"

# Bad URLs, an unknown host, a refused connection: a clear error, exit 2, nothing stored.
bad_url() {
	sb run "${ONE_S[@]}" --results "$WORK/rbad" --target "$1" "${SSHOPTS[@]}"
	check "bad --target '$1': exit 2 naming it" bash -c \
		"[ $rc -eq 2 ] && grep -qF -- \"$2\" '$WORK/err' && [ ! -e '$WORK/rbad/will-it-scale' ]"
}
bad_url "127.0.0.1" "expected ssh://[user@]host[:port]"
bad_url "ssh://-oProxyCommand=x" "bad host '-oProxyCommand=x'"
bad_url "ssh://a;b@host" "bad user 'a;b'"
bad_url "ssh://host:0" "bad port '0'"
bad_url "ssh://host:65536" "bad port '65536'"
bad_url "ssh://host:22x" "bad port '22x'"
bad_url "ssh://[::1" "bad IPv6 address"
bad_url "ssh://host/path" "bad host 'host/path'"
bad_url "ssh://ho\$(id)st" "bad host"
# A refused URL makes nothing, not even the results root; a control character is shown escaped.
sb run "${ONE_S[@]}" --results "$WORK/rnever" --target $'ssh://ro\x1bot@host' "${SSHOPTS[@]}"
check "refused --target URL: no results root made, the bad user shown escaped" bash -c \
	"[ $rc -eq 2 ] && [ ! -e '$WORK/rnever' ] && grep -qF 'bad user '\''ro\\x1bot'\' '$WORK/err'"
sb run "${ONE_S[@]}" --results "$WORK/rbad" --target "ssh://root@no-such-host.invalid" "${SSHOPTS[@]}"
check "unknown host: exit 2, 'cannot reach'" bash -c \
	"[ $rc -eq 2 ] && grep -q 'cannot reach ssh://root@no-such-host.invalid' '$WORK/err' && [ ! -e '$WORK/rbad/will-it-scale' ]"
FREE=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sb run "${ONE_S[@]}" --results "$WORK/rbad" --target "ssh://root@127.0.0.1:$FREE" "${SSHOPTS[@]}"
check "refused connection: exit 2, 'Connection refused'" bash -c \
	"[ $rc -eq 2 ] && grep -q 'cannot reach.*Connection refused' '$WORK/err' && [ ! -e '$WORK/rbad/will-it-scale' ]"
sb run "${ONE_S[@]}" --results "$WORK/rbad" --ssh-option "IdentityFile=x"
check "--ssh-option without --target: exit 2" bash -c "[ $rc -eq 2 ] && grep -q -- '--ssh-option needs --target' '$WORK/err'"
sb run "${ONE_S[@]}" --results "$WORK/rbad" --target "$URL" --ssh-option "-oProxyCommand=x"
check "--ssh-option '-o...': exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'expected KEYWORD=VALUE' '$WORK/err'"

# A target whose scalebench is another version, or missing: refused, both versions named.
printf '#!/bin/sh\necho "scalebench 7.3.1"\n' >"$WORK/fake-sb"
chmod +x "$WORK/fake-sb"
sb run "${ONE_S[@]}" --results "$WORK/rbad" --target "$URL" --target-bin "$WORK/fake-sb" \
	"${SSHOPTS[@]}"
ours=$("$SCALEBENCH" --version | cut -d' ' -f2)
check "version mismatch: exit 2 naming both versions" bash -c \
	"[ $rc -eq 2 ] && grep -q 'scalebench 7.3.1' '$WORK/err' && grep -q 'this is scalebench $ours' '$WORK/err' && [ ! -e '$WORK/rbad/will-it-scale' ]"
# Our MAJOR.MINOR with more after it is not our version: refused, and the answer shown escaped.
printf '#!/bin/sh\nprintf "scalebench %s\\033[2Jgarbage\\n"\n' "$ours" >"$WORK/garbled-sb"
chmod +x "$WORK/garbled-sb"
sb run "${ONE_S[@]}" --results "$WORK/rbad" --target "$URL" --target-bin "$WORK/garbled-sb" \
	"${SSHOPTS[@]}"
check "a target answering 'scalebench $ours<ESC>[2Jgarbage': refused (exit 2), shown escaped, nothing run" bash -c \
	"[ $rc -eq 2 ] && grep -q \"did not answer 'scalebench MAJOR.MINOR'\" '$WORK/err' && ! grep -q \$'\\033' '$WORK/err' && [ ! -e '$WORK/rbad/will-it-scale' ]"
sb run "${ONE_S[@]}" --results "$WORK/rbad" --target "$URL" --target-bin "$WORK/nope" \
	"${SSHOPTS[@]}"
check "missing scalebench there: exit 2, says so" bash -c \
	"[ $rc -eq 2 ] && grep -q 'not found or not executable there' '$WORK/err' && [ ! -e '$WORK/rbad/will-it-scale' ]"

# The connection cut mid-run (the session's sshd processes killed): no half run here, a clear
# failure, and the run there stopped and its temp directory removed by the next connection.
rc=0
"$SCALEBENCH" run jobs/page_fault3.yaml --no-monitors --runtime 30s --set warmup=0 --nr-task 1 \
	--set mode=process --commit cut --results "$WORK/rc" --target "$URL" \
	--target-bin "$SB_ABS" "${SSHOPTS[@]}" >"$WORK/out" 2>"$WORK/err" &
pid=$!
# (the run there under way: its temp run directory exists)
wait_until 30 bash -c "find '$RTMP' -path '*/cut/.tmp-run-*' -prune | grep -q ."
pkill -KILL -P "$SSHD_PID"
start=$SECONDS
timeout 60 tail --pid=$pid -f /dev/null || true
wait $pid || rc=$?
check "connection cut: exit 1 within 30 s" bash -c "[ $rc -eq 1 ] && [ $((SECONDS - start)) -le 30 ]"
check "connection cut: says the connection was lost" err_has "connection was lost during the run"
check "connection cut: no run directory, no temp run directory here" bash -c \
	"[ -z \"\$(find '$WORK/rc' -mindepth 8 -maxdepth 8 2>/dev/null)\" ] && [ -z \"\$(find '$WORK/rc' -name '.tmp-run-*' 2>/dev/null)\" ]"
wait_until 10 no_procs "run job.yaml --results results.*--commit cut"
check "connection cut: the run on the target is stopped" no_procs "run job.yaml --results results.*--commit cut"
check "connection cut: the target's temp directory is removed" [ "$(remote_tmps)" -eq "$tmps_before" ]
check "sshd still serves after the cut" kill -0 "$SSHD_PID"

# SIGTERM here mid-run: exit 143, nothing stored, the run there stopped, its directory removed.
rc=0
"$SCALEBENCH" run jobs/page_fault3.yaml --no-monitors --runtime 30s --set warmup=0 --nr-task 1 \
	--set mode=process --commit term --results "$WORK/rt" --target "$URL" \
	--target-bin "$SB_ABS" "${SSHOPTS[@]}" >"$WORK/out" 2>"$WORK/err" &
pid=$!
wait_until 30 bash -c "find '$RTMP' -path '*/term/.tmp-run-*' -prune | grep -q ."
kill -TERM $pid
start=$SECONDS
timeout 60 tail --pid=$pid -f /dev/null || true
wait $pid || rc=$?
check "SIGTERM: exit 143 within 30 s" bash -c "[ $rc -eq 143 ] && [ $((SECONDS - start)) -le 30 ]"
check "SIGTERM: says so" grep -q "interrupted by signal 15" "$WORK/err"
check "SIGTERM: nothing stored here" bash -c \
	"[ -z \"\$(find '$WORK/rt' -mindepth 8 -maxdepth 8 2>/dev/null)\" ] && [ -z \"\$(find '$WORK/rt' -name '.tmp-run-*' 2>/dev/null)\" ]"
check "SIGTERM: the run on the target is stopped" no_procs "run job.yaml --results results.*--commit term"
check "SIGTERM: no ssh left (the shared connection ended too)" no_procs "ssh -T .*-p $PORT"
check "SIGTERM: the target's temp directory is removed" [ "$(remote_tmps)" -eq "$tmps_before" ]

# SIGKILL here mid-run: nothing can clean up, yet the shared connection ends by itself (its
# remote command reads a pipe only the killed process held); the run there finishes alone.
rc=0
"$SCALEBENCH" run "${ONE_S[@]}" --commit kill --results "$WORK/rk" --target "$URL" \
	--target-bin "$SB_ABS" "${SSHOPTS[@]}" >"$WORK/out" 2>"$WORK/err" &
pid=$!
wait_until 30 pkill -0 -f -- "ControlMaster=yes.*-p $PORT"
kill -KILL $pid
wait $pid 2>/dev/null
wait_until 30 no_procs "ssh -T .*-p $PORT"
check "SIGKILL: the shared connection ends with the killed run" no_procs "ssh -T .*-p $PORT"
wait_until 30 no_procs "run job.yaml --results results.*--commit kill"

# A run that arrives incomplete (the target's scalebench lost its stats.json) is not stored;
# the whole one beside it is.
cat >"$WORK/breaks-run0" <<SH
#!/bin/sh
"$SB_ABS" "\$@" || exit \$?
[ "\$1" = run ] && rm -f results/*/*/*/*/*/*/*/0/stats.json
exit 0
SH
chmod +x "$WORK/breaks-run0"
sb run "${ONE_S[@]}" --commit broken --repeat 2 --results "$WORK/rb" --target "$URL" \
	--target-bin "$WORK/breaks-run0" "${SSHOPTS[@]}"
check "incomplete run: exit 1, says it is not stored" bash -c \
	"[ $rc -eq 1 ] && grep -q 'stats.json: missing: it is not stored here' '$WORK/err'"
check "incomplete run: only the whole run is stored, no temp run directory" bash -c \
	"[ \$(ls -d $WORK/rb/will-it-scale/*/*/*/*/*/broken/[0-9]* | wc -l) -eq 1 ] && [ -s \$(ls -d $WORK/rb/will-it-scale/*/*/*/*/*/broken/0)/stats.json ] && [ -z \"\$(find '$WORK/rb' -name '.tmp-run-*')\" ]"
check "incomplete run: the target's temp directory is removed" [ "$(remote_tmps)" -eq "$tmps_before" ]

# Cut after the first of three runs is stored there: that one comes back whole, the one in
# progress does not.
rc=0
"$SCALEBENCH" run jobs/page_fault3.yaml --no-monitors --runtime 4s --set warmup=0 --nr-task 1 \
	--set mode=process --repeat 3 --commit cut2 --results "$WORK/rc2" --target "$URL" \
	--target-bin "$SB_ABS" "${SSHOPTS[@]}" >"$WORK/out" 2>"$WORK/err" &
pid=$!
# (run 0 stored there, run 1 under way: its temp run directory exists; runs come back after
# the run, so run 1 must still be under way when the reconnection stops it: 4 s runs)
wait_until 60 bash -c "ls -d '$RTMP'/tmp.*/results/will-it-scale/*/*/*/*/*/cut2/0 >/dev/null 2>&1 &&
	ls -d '$RTMP'/tmp.*/results/will-it-scale/*/*/*/*/*/cut2/.tmp-run-* >/dev/null 2>&1"
pkill -KILL -P "$SSHD_PID"
timeout 60 tail --pid=$pid -f /dev/null || true
wait $pid || rc=$?
check "cut after run 1 of 3: exit 1, the connection was lost" bash -c \
	"[ $rc -eq 1 ] && grep -q 'connection was lost during the run' '$WORK/err'"
check "cut after run 1 of 3: run 0 brought back whole, nothing else, no temp run directory" bash -c \
	"[ \$(ls -d $WORK/rc2/will-it-scale/*/*/*/*/*/cut2/[0-9]* | wc -l) -eq 1 ] && [ -s \$(ls -d $WORK/rc2/will-it-scale/*/*/*/*/*/cut2/0)/stats.json ] && [ -z \"\$(find '$WORK/rc2' -name '.tmp-run-*')\" ]"
wait_until 10 no_procs "run job.yaml --results results.*--commit cut2"
check "cut after run 1 of 3: the run there is stopped" no_procs "run job.yaml --results results.*--commit cut2"
check "cut after run 1 of 3: the target's temp directory is removed" [ "$(remote_tmps)" -eq "$tmps_before" ]

# A run from the target holding a symlink (out of the tree) is not stored.
cat >"$WORK/symlinks-run0" <<SH
#!/bin/sh
"$SB_ABS" "\$@" || exit \$?
[ "\$1" = run ] && ln -sf /etc/passwd results/*/*/*/*/*/*/*/0/output
exit 0
SH
chmod +x "$WORK/symlinks-run0"
sb run "${ONE_S[@]}" --commit symlink --results "$WORK/rs" --target "$URL" \
	--target-bin "$WORK/symlinks-run0" "${SSHOPTS[@]}"
check "run holding a symlink: exit 1, not stored, no temp run directory" bash -c \
	"[ $rc -eq 1 ] && grep -q \"member './output' is a symbolic link: only regular files and directories are taken\" '$WORK/err' && [ -z \"\$(find '$WORK/rs' -mindepth 8 -maxdepth 8)\" ] && [ -z \"\$(find '$WORK/rs' -name '.tmp-run-*')\" ]"

# The target's scalebench refuses the job (exit 2): exit 2 here, nothing stored, its temp
# directory removed.
cat >"$WORK/refuses" <<SH
#!/bin/sh
[ "\$1" = --version ] && exec "$SB_ABS" --version
echo "scalebench run: job.yaml: refused for the test" >&2
exit 2
SH
chmod +x "$WORK/refuses"
sb run "${ONE_S[@]}" --results "$WORK/rr" --target "$URL" --target-bin "$WORK/refuses" \
	"${SSHOPTS[@]}"
check "job refused there: exit 2, its message shown, nothing stored" bash -c \
	"[ $rc -eq 2 ] && grep -q 'refused for the test' '$WORK/err' && [ ! -e '$WORK/rr/will-it-scale' ]"
check "job refused there: the target's temp directory is removed" [ "$(remote_tmps)" -eq "$tmps_before" ]

# A hostile target: a fake remote scalebench that runs the job, then changes what it stored.
# hostile NAME SCRIPT: $WORK/NAME runs scalebench there, then SCRIPT in its directory (RUN:
# the run directories' glob).
hostile() {
	cat >"$WORK/$1" <<SH
#!/bin/sh
"$SB_ABS" "\$@" || exit \$?
[ "\$1" = run ] || exit 0
RUN=results/*/*/*/*/*/*/*
$2
exit 0
SH
	chmod +x "$WORK/$1"
}
# Nothing of a refused run here: no run directory, no temp run directory.
nothing_stored() {
	[ -z "$(find "$1" -mindepth 8 -maxdepth 8 2>/dev/null)" ] && [ -z "$(find "$1" -name '.tmp-run-*' 2>/dev/null)" ]
}
export -f nothing_stored

# Of two runs: run 0 holds a device (/dev/mem's 1,1, 0666): refused at its header, before
# anything of it is made, nothing of it stored; run 1 has a setuid root file, world-writable
# files and a setgid directory: it comes back with a local run's modes (0644 and 0755 under
# umask 022), no set-id bit.
hostile modes 'for r in $RUN/0; do mknod -m 0666 $r/mem c 1 1; done
for r in $RUN/1; do chmod 4755 $r/output; chmod 0777 $r/job.yaml; mkdir $r/d; chmod 2777 $r/d; done'
umask 022
sb run "${ONE_S[@]}" --commit modes --repeat 2 --results "$WORK/rm" --target "$URL" \
	--target-bin "$WORK/modes" "${SSHOPTS[@]}"
run0=$(ls -d "$WORK"/rm/will-it-scale/*/*/*/*/*/modes/0 2>/dev/null)
check "a run holding a character device: refused at its header (exit 1, named), nothing stored" bash -c \
	"[ $rc -eq 1 ] && grep -q \"modes/0 refused: member './mem' is a character device: only regular files and directories are taken\" '$WORK/err' &&
	 [ \$(ls -d '$WORK'/rm/will-it-scale/*/*/*/*/*/modes/[0-9]* | wc -l) -eq 1 ] && [ -z \"\$(find '$WORK/rm' -name '.tmp-run-*' -o -type c)\" ]"
check "a target's setuid, 0777 and setgid modes: stored with a local run's (0644, 0755), no set-id bit" bash -c \
	"[ -n '$run0' ] && [ \$(stat -c %a '$run0/output') = 644 ] && [ \$(stat -c %a '$run0/job.yaml') = 644 ] &&
	 [ \$(stat -c %a '$run0/d') = 755 ] && [ -z \"\$(find '$WORK/rm' -perm /6022)\" ]"

# A run is checked as a local one: a stats.json or meta.json that does not parse is refused,
# and so is a run stored under another commit or path_params than asked, or whose meta.json
# names another commit than its path.  (Of five runs: 0's stats.json and 1's meta.json
# broken, 2 moved to commit "other", 3 to path_params process-9-page_fault3, 4's meta.json
# edited to name commit "another".)
hostile refusable 'c=$(dirname $(echo $RUN/0)); echo "{garbage" >$c/0/stats.json; echo "[1]" >$c/1/meta.json
mkdir $c/../other && mv $c/2 $c/../other/2
j=$(cd $c/../../../../.. && pwd); p=$(dirname $j)/process-9-page_fault3
cp -r $j $p && rm -rf $p/*/*/*/*/other $p/*/*/*/*/asked/[0124] $c/3
sed -i "s/\"commit\": *\"asked\"/\"commit\": \"another\"/" $c/4/meta.json'
sb run "${ONE_S[@]}" --commit asked --repeat 5 --results "$WORK/re" --target "$URL" \
	--target-bin "$WORK/refusable" "${SSHOPTS[@]}"
check "a target's run whose stats.json or meta.json does not parse: refused (exit 1, the file named), nothing stored" bash -c \
	"[ $rc -eq 1 ] && grep -q 'asked/0 from .*stats.json: line 1' '$WORK/err' && grep -q 'asked/1 from .*meta.json: not a JSON object' '$WORK/err'"
check "a target storing runs under another commit or path_params than asked: refused (exit 1), nothing stored" bash -c \
	"[ $rc -eq 1 ] && grep -q \"its commit is 'other', expected 'asked'\" '$WORK/err' &&
	 grep -q \"its path_params is 'process-9-page_fault3', expected one of the job's atomic jobs\" '$WORK/err' &&
	 grep -q \"meta.json's commit is 'another', not 'asked' as its path says\" '$WORK/err' && nothing_stored '$WORK/re'"

# The tar stream is bounded: an endless stream of valid members stops at the size cap, a
# member declaring more than the cap is refused at its header, a stream that trickles stops at
# the deadline (cap and deadline made small by the test hooks); each is cut off cleanly,
# nothing stored.  (timeout 15: a scalebench that buffered such a stream would fill memory.)
# Run N is sent as what $WORK/stream-N.py writes (then stream-0.py is made a trickle).
hostile streams "for r in \$RUN/[0-9]*; do printf '#!/bin/sh\\nexec python3 $WORK/stream-%s.py\\n' \${r##*/} >\$r/crafted-stream; chmod +x \$r/crafted-stream; done"
cat >"$WORK/stream-0.py" <<'PY'
import io, sys, tarfile
t = tarfile.open(fileobj=sys.stdout.buffer, mode="w|")
i = 0
while True:
    ti = tarfile.TarInfo("f%d" % i)
    ti.size = 65536
    t.addfile(ti, io.BytesIO(bytes(65536)))
    i += 1
PY
cat >"$WORK/stream-1.py" <<'PY'
import sys, tarfile
ti = tarfile.TarInfo("big")
ti.size = 1 << 31
sys.stdout.buffer.write(ti.tobuf(tarfile.GNU_FORMAT))
while True:
    sys.stdout.buffer.write(bytes(65536))
PY
rc=0
SCALEBENCH_TARGET_FETCH_MAX_BYTES=4000000 timeout 15 "$SCALEBENCH" run "${ONE_S[@]}" --commit streams \
	--repeat 2 --results "$WORK/rn" --target "$URL" --target-bin "$WORK/streams" "${SSHOPTS[@]}" \
	>"$WORK/out" 2>"$WORK/err" || rc=$?
check "an endless tar stream: stopped at the size cap (exit 1, said), nothing stored, the target's temp directory removed" bash -c \
	"[ $rc -eq 1 ] && grep -Eq 'streams/0 refused: (the stream holds more than 4000000 bytes|member .* declares 65536 bytes, more than the stream.s 4000000 bytes allow)' '$WORK/err' &&
	 nothing_stored '$WORK/rn' && [ $(remote_tmps) -eq $tmps_before ]"
check "a member declaring 2 GiB: refused at its header (more than the cap), nothing stored" \
	grep -q "streams/1 refused: member 'big' declares 2147483648 bytes, more than the stream's 4000000 bytes allow" "$WORK/err"
cat >"$WORK/stream-0.py" <<'PY'
import sys, time
while True:
    sys.stdout.buffer.write(bytes(1))
    sys.stdout.flush()
    time.sleep(0.2)
PY
rc=0
start=$SECONDS
SCALEBENCH_TARGET_FETCH_TIMEOUT_MS=2000 timeout 15 "$SCALEBENCH" run "${ONE_S[@]}" --commit trickle \
	--results "$WORK/rt2" --target "$URL" --target-bin "$WORK/streams" "${SSHOPTS[@]}" \
	>"$WORK/out" 2>"$WORK/err" || rc=$?
check "a trickling tar stream: stopped at the deadline (exit 1, said), nothing stored" bash -c \
	"[ $rc -eq 1 ] && [ $((SECONDS - start)) -lt 15 ] && grep -q 'trickle/0 took longer than 2 s to come back' '$WORK/err' &&
	 nothing_stored '$WORK/rt2'"
check "a trickling tar stream: no ssh left" no_procs "ssh -T .*-p $PORT"
