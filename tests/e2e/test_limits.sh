#!/bin/bash
# Limits and up-front checks through the real binary: the atomic-job cap holds for the whole
# job file, nesting and aliases are refused while parsing (not after), a runtime too short to
# measure is refused, the duration maxima do not overflow the schedule, a list-valued monitor
# option stays one job, and an unusable --tmpdir, --results or --json is refused before any
# run starts.
set -u
. "$(dirname "$0")/../lib.sh"

# cpu_s CMD...: run CMD (stdout discarded, stderr passed on) and print the CPU seconds it
# used (user + system, its children included) and its exit status.
cpu_s() {
	python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.buffer.write(r.stderr)
print("%.3f %d" % (u.ru_utime + u.ru_stime, r.returncode))' "$@"
}

# timed CMD...: run CMD, leaving its CPU seconds in $cpu, its status in $rc and its
# stderr in $WORK/err.
timed() {
	local res
	res=$(cpu_s "$@" 2>"$WORK/err")
	cpu=${res% *}
	rc=${res#* }
}

# ---- the atomic-job cap holds for the whole file, refused before it is materialised ----

python3 - "$WORK/many.yaml" <<'P'
import sys
with open(sys.argv[1], "w") as f:
    f.write("runtime: 1s\nwarmup: 0\nwill-it-scale: {test: getppid1}\n")
    for d in range(150):
        f.write("---\nkconfig: k%d\nnr_task: [%s]\n" % (d, ", ".join(str(i) for i in range(1, 101))))
P
timed "$SCALEBENCH" split "$WORK/many.yaml" -o "$WORK/many-out"
check "150 documents x 100 atomic jobs: refused (exit 2)" [ "$rc" -eq 2 ]
check "150 x 100: the message names the file, the count (the header a job too) and the limit" grep -q \
	"$WORK/many.yaml: the job file expands to 15001 atomic jobs (151 documents); at most 10000" "$WORK/err"
check "150 x 100: nothing written" [ ! -e "$WORK/many-out" ]
# Materialising 15,000 atomic jobs took 4 s (plain build) before the check; counting them is a
# walk of 150 small documents.  3 s of CPU under ASan is a bound no busy machine should reach.
check "150 x 100: refused before materialising (${cpu} s CPU < 3 s)" \
	python3 -c "import sys; sys.exit(not $cpu < 3)"
timed "$SCALEBENCH" run "$WORK/many.yaml" --dry-run
check "run --dry-run: the same refusal" bash -c "[ $rc -eq 2 ] && grep -q '15001 atomic jobs' $WORK/err"

# A wide header over many documents: 10000 keys merged into 1000 documents took 60 s and 5 GB.
python3 -c "import sys; open(sys.argv[1],'w').write('test: getppid1\n' + ''.join('k%d: v\n' % i for i in range(10000)) + '---\n{}\n' * 1000)" "$WORK/wide.yaml"
timed "$SCALEBENCH" split "$WORK/wide.yaml"
check "a 10000-key header over 1000 documents: refused, with the count and the limit" bash -c \
	"[ $rc -eq 2 ] && grep -q 'wide.yaml: the job file.s 1000 documents, each merged with the header, hold 10003000 values together; at most 1000000' $WORK/err"
check "a 10000-key header over 1000 documents: refused in ${cpu} s of CPU (< 3 s)" \
	python3 -c "import sys; sys.exit(not $cpu < 3)"

# ---- nesting and aliases: refused while parsing ----

# deep FILE N OPEN CLOSE: "a: " then N times OPEN, a value, N times CLOSE.
deep() {
	python3 -c "import sys; n=int(sys.argv[2]); open(sys.argv[1],'w').write('a: ' + sys.argv[3]*n + 'x' + sys.argv[4]*n + '\n')" "$@"
}
deep "$WORK/deep1k.yaml" 1000 '[' ']'
deep "$WORK/deep100k.yaml" 100000 '[' ']'
deep "$WORK/map100k.yaml" 100000 '{a: ' '}'
timed "$SCALEBENCH" split "$WORK/deep1k.yaml"
small=$cpu
check "1k-deep list: refused, nested deeper than 64" bash -c \
	"[ $rc -eq 2 ] && grep -q 'deep1k.yaml:1:[0-9]*: nested deeper than 64 levels' $WORK/err"
# The parser stops at the first event deeper than the limit: a 100k-deep file costs what a
# 1k-deep one does (it took 14 s of CPU when depth was checked on the built tree).  The ratio
# allows for noise on a busy machine; the absolute bound is only a backstop.
for f in deep100k map100k; do
	timed "$SCALEBENCH" split "$WORK/$f.yaml"
	check "$f: refused at the 65th level (exit 2)" bash -c \
		"[ $rc -eq 2 ] && grep -q '$f.yaml:1:[0-9]*: nested deeper than 64 levels' $WORK/err"
	check "$f: refused in ${cpu} s of CPU, at most 5 x the 1k-deep file's ${small} s (and < 3 s)" \
		python3 -c "import sys; sys.exit(not ($cpu <= 5 * max($small, 0.05) and $cpu < 3))"
done
python3 - "$WORK/block.yaml" <<'P'
import sys
open(sys.argv[1], "w").write("a:\n" + "".join("  " * i + "- \n" for i in range(1, 3000)))
P
timed "$SCALEBENCH" split "$WORK/block.yaml"
check "3000-deep block list: refused, nested deeper than 64" bash -c \
	"[ $rc -eq 2 ] && grep -q 'nested deeper than 64 levels' $WORK/err"

# Billion laughs: 9 levels of 10 aliases would be 10^9 values.
python3 - "$WORK/laughs.yaml" <<'P'
import sys
lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
for i in range(1, 10):
    lines.append("l%d: &l%d [%s]" % (i, i, ", ".join(["*l%d" % (i - 1)] * 10)))
open(sys.argv[1], "w").write("\n".join(lines) + "\ntest: getppid1\n")
P
timed "$SCALEBENCH" split "$WORK/laughs.yaml"
check "billion laughs: refused, more than 100000 values" bash -c \
	"[ $rc -eq 2 ] && grep -q 'laughs.yaml:[0-9]*:[0-9]*: more than 100000 values' $WORK/err"
check "billion laughs: refused in ${cpu} s of CPU (< 3 s)" python3 -c "import sys; sys.exit(not $cpu < 3)"
python3 -c "import sys; open(sys.argv[1],'w').write('test: getppid1\nfoo: [' + 'x, ' * 1000000 + 'x]\n')" "$WORK/long.yaml"
timed "$SCALEBENCH" split "$WORK/long.yaml"
check "a million-value flow list: refused, more than 100000 values" bash -c \
	"[ $rc -eq 2 ] && grep -q 'more than 100000 values' $WORK/err"
check "a million-value flow list: refused in ${cpu} s of CPU (< 3 s)" python3 -c "import sys; sys.exit(not $cpu < 3)"
printf 'a: &a [x, *a]\ntest: getppid1\n' >"$WORK/self.yaml"
sb split "$WORK/self.yaml"
check "an alias inside its own anchor: refused, named" bash -c \
	"[ $rc -eq 2 ] && grep -q \"self.yaml:1:[0-9]*: .*'\\*a'\" $WORK/err"

# ---- durations ----

printf 'runtime: 0.001\nwarmup: 0\nwill-it-scale: {test: getppid1}\n' >"$WORK/tiny.yaml"
sb run "$WORK/tiny.yaml" --results "$WORK/tiny-results" -q
check "runtime: 0.001 refused before anything runs (exit 2)" bash -c \
	"[ $rc -eq 2 ] && [ ! -e $WORK/tiny-results ]"
check "runtime: 0.001: the message gives the minimum and why" bash -c \
	"grep -q \"tiny.yaml:1: runtime '0.001': expected at least 1s\" $WORK/err && grep -q 'once a second' $WORK/err"
printf 'runtime: 1\nwarmup: 0.000001\nnr_task: 1\nwill-it-scale: {test: getppid1}\n' >"$WORK/short.yaml"
sb run "$WORK/short.yaml" --results "$WORK/short-results" --no-monitors -q
check "runtime 1 s with a 1 us warmup: stored ok" bash -c \
	"[ $rc -eq 0 ] && [ \$(find $WORK/short-results -name stats.json | wc -l) -eq 1 ] && ! grep -rq '\"failure\": \"' $WORK/short-results"

# The maxima: 30 days of warmup and 30 of runtime, 100000 repeats of 10000 atomic jobs.  The
# schedule is built in ns at the start of the first run; UBSan (this binary) stops on any
# overflow.  SIGINT once the first run is under way.
{
	echo "runtime: 30d"
	echo "warmup: 30d"
	echo "nr_task: 1"
	echo "will-it-scale: {test: getppid1}"
	echo "aspm: [$(seq -s, 1 100)]"
	echo "chrt: [$(seq -s, 1 100)]"
} >"$WORK/max.yaml"
sb run "$WORK/max.yaml" --dry-run -r 100000 --results "$WORK/max-results"
check "maxima: 10000 atomic jobs x 100000 repeats accepted (dry run)" bash -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '2.59e+06 s + 2.59e+06 s warmup, 100000 runs' $WORK/out) -eq 10000 ]"
"$SCALEBENCH" run "$WORK/max.yaml" -r 100000 --no-monitors --results "$WORK/max-results" \
	--tmpdir "$WORK" >"$WORK/out" 2>"$WORK/err" &
pid=$!
# Under way: the run has begun and its copy is up and running (the copy host, the runner's
# child, is spawned once the schedule is built).
copy_released() {
	local host
	grep -q 'run 1/100000' "$WORK/out" && host=$(pgrep -d, -P $pid) &&
		ps -o stat= --ppid "$host" 2>/dev/null | grep -q '^R'
}
wait_until 60 copy_released
kill -INT $pid
rc=0
timeout 30 tail --pid=$pid -f /dev/null || true
wait $pid || rc=$?
check "maxima: the first run started, SIGINT ends it (exit 130)" bash -c \
	"grep -q 'run 1/100000' $WORK/out && [ $rc -eq 130 ]"
check "maxima: no sanitizer report" bash -c "! grep -q 'runtime error\|Sanitizer' $WORK/err"

# bench at its maxima, with the shortest sampling interval it takes.
"$SCALEBENCH" bench getppid1 -s 30d -w 30d --interval 0.01 --tmpdir "$WORK" >"$WORK/out" 2>"$WORK/err" &
pid=$!
# Under way as the run above: its copy up (5e8 sample times, counted, not listed: listing them
# took 4 GB and minutes, with the signal unanswered until it was done).
copy_up() {
	local host
	[ -s "$WORK/out" ] && host=$(pgrep -d, -P $pid) &&
		ps -o stat= --ppid "$host" 2>/dev/null | grep -q '^R'
}
wait_until 60 copy_up
kill -INT $pid
rc=0
timeout 30 tail --pid=$pid -f /dev/null || true
wait $pid || rc=$?
check "bench maxima: started, SIGINT ends it (exit 130)" bash -c "[ -s $WORK/out ] && [ $rc -eq 130 ]"
check "bench maxima: no sanitizer report" bash -c "! grep -q 'runtime error\|Sanitizer' $WORK/err"

# ---- a list-valued monitor option is a value, not a dimension ----

getppid_job "$WORK/events.yaml" "will-it-scale: {test: getppid1}" \
	"perf-stat:" "  events: [cpu-clock, task-clock]"
sb split "$WORK/events.yaml"
check "perf-stat events: [a, b]: one atomic job" bash -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^# ' $WORK/out) -eq 1 ] && grep -q '^# events-1-0.25s-getppid1.yaml' $WORK/out"
check "perf-stat events: [a, b]: the job keeps both events" bash -c \
	"grep -A2 '^  events:' $WORK/out | grep -q -- '- cpu-clock' && grep -A2 '^  events:' $WORK/out | grep -q -- '- task-clock'"
sb run "$WORK/events.yaml" --dry-run --results "$WORK/ev-results"
check "perf-stat events: [a, b]: run --dry-run shows one atomic job" bash -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^events-' $WORK/out) -eq 1 ]"
sb run "$WORK/events.yaml" --results "$WORK/ev-results" -q
run0=$(find "$WORK/ev-results" -name stats.json -printf '%h\n' | head -1)
check "perf-stat events: [a, b]: one run, both events recorded" bash -c \
	"[ $rc -eq 0 ] && [ \$(find $WORK/ev-results -name stats.json | wc -l) -eq 1 ]" &&
	check "perf-stat events: [a, b]: stats of both events" json_true "$run0/stats.json" \
		"'perf-stat.ps.cpu-clock' in d and 'perf-stat.ps.task-clock' in d and not any(k.startswith('perf-stat.ps.page-faults') for k in d)"
check "perf-stat events: [a, b]: job.yaml lists both" bash -c \
	"grep -q -- '- cpu-clock' $run0/job.yaml && grep -q -- '- task-clock' $run0/job.yaml"
# Testcase parameters and LKP's EXPAND_DIMS (kconfig) still expand.
printf 'nr_task: [1, 2]\nkconfig: [a, b]\nperf-stat: {events: [cpu-clock]}\ntest: getppid1\n' >"$WORK/dims.yaml"
sb split "$WORK/dims.yaml"
check "nr_task and kconfig lists are dimensions beside a monitor's list: 4 jobs" bash -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^# ' $WORK/out) -eq 4 ]"

# ---- output and temp paths: checked before any run ----

printf 'runtime: 1s\nwarmup: 0\nnr_task: [1, 2]\nwill-it-scale: {test: getppid1}\n' >"$WORK/two.yaml"
touch "$WORK/afile"
# Missing, a file, a directory where no file can be created even by root (a read-only
# mount; /proc).
dirs=(/nonexistent "$WORK/afile")
mountpoint -q /proc && dirs+=(/proc)
mkdir "$WORK/ro"
if mount -t tmpfs -o ro,size=1m tmpfs "$WORK/ro" 2>/dev/null; then
	trap 'umount "$WORK/ro" 2>/dev/null; work_remove' EXIT
	dirs+=("$WORK/ro")
fi
for t in "${dirs[@]}"; do
	sb run "$WORK/two.yaml" -r 3 --tmpdir "$t" --results "$WORK/tmp-results" -q
	check "run --tmpdir $t: refused up front (exit 2), one line naming it" bash -c \
		"[ $rc -eq 2 ] && grep -q \"temp dir '$t' is not usable\" $WORK/err && [ \$(grep -c . $WORK/err) -eq 1 ]"
	check "run --tmpdir $t: no run stored, no results root made" [ ! -e "$WORK/tmp-results" ]
done
mountpoint -q "$WORK/ro" && umount "$WORK/ro"
TMPDIR=/nonexistent sb run "$WORK/two.yaml" --results "$WORK/tmp-results" -q
check "run with TMPDIR=/nonexistent: refused up front, names TMPDIR" bash -c \
	"[ $rc -eq 2 ] && grep -q \"temp dir '/nonexistent' is not usable.*TMPDIR\" $WORK/err"
sb run "$WORK/two.yaml" --results "$WORK/afile" -q
check "run --results FILE: refused up front (exit 2)" bash -c \
	"[ $rc -eq 2 ] && grep -q \"results root '$WORK/afile' is not writable\" $WORK/err"

mkdir "$WORK/jsondir"
for j in "$WORK/jsondir" /nonexistent/b.json /proc/b.json; do
	timed "$SCALEBENCH" bench getppid1 -s 5 -w 0 -q --json "$j"
	check "bench --json $j: refused up front (exit 2), named" bash -c \
		"[ $rc -eq 2 ] && grep -q -- \"--json.*$j\" $WORK/err"
	check "bench --json $j: refused before the benchmark (${cpu} s CPU < 2 s)" \
		python3 -c "import sys; sys.exit(not $cpu < 2)"
done
check "bench --json DIR: the directory is left as it was" [ -z "$(ls -A "$WORK/jsondir")" ]
