#!/bin/bash
# On a terminal, run redraws a progress line in place on stdout ("\r\033[K[1/1] ... ops/s");
# a message on stderr while it is shown must start a line of its own, not land inside it.
# The terminal is script(1)'s pty; the message is a monitor's whose /proc file (a copy the
# test owns, SCALEBENCH_PROCFS) vanishes once the progress line is up.
set -u
. "$(dirname "$0")/../lib.sh"

PROCFS=$WORK/procfs
mkdir -p "$PROCFS"
cp /proc/meminfo /proc/vmstat "$PROCFS/"
cat >"$WORK/v.yaml" <<YAML
runtime: 3s
warmup: 0
nr_task: 1
will-it-scale: {mode: process, test: getppid1}
meminfo: {interval: 0.2s}
proc-vmstat: {interval: 0.2s}
YAML
SB=$(realpath "$SCALEBENCH")
(cd "$WORK" && SCALEBENCH_PROCFS=$PROCFS script -qfec \
	"$SB run v.yaml --results r --starved-tries 1 --commit c1" "$WORK/ts" >/dev/null 2>&1) &
pid=$!
wait_until 60 grep -q 'measuring, ' "$WORK/ts"
rm "$PROCFS/meminfo"
wait $pid
check "premise: the progress line was drawn, then the monitor's message said" bash -c \
	"grep -q 'measuring, ' $WORK/ts && grep -q 'scalebench run: monitor meminfo incomplete' $WORK/ts"
check "the message starts a line of its own: the progress line is cleared first" python3 -c "
import re, sys
ts = open('$WORK/ts', 'rb').read().decode('utf-8', 'replace')
# every message begins after a newline or after the line was cleared (CR, ESC [K)
bad = [m.start() for m in re.finditer('scalebench run: ', ts)
       if not (ts[:m.start()].endswith('\n') or ts[:m.start()].endswith('\r\x1b[K'))]
sys.exit(1 if bad else 0)"
check "and the run is stored" bash -c "ls $WORK/r/will-it-scale/*/*/*/*/*/c1/0/stats.json >/dev/null"
