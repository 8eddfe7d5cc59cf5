#!/bin/bash
# scalebench plot and compare --plot through gnuplot: the robot's text plot, files, the
# scalability plot of a sweep, and a clear message without gnuplot.
set -u
. "$(dirname "$0")/../lib.sh"

G=tests/fixtures/compare/results/will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12

sb plot "$G/base" "$G/patched"
check "plot: exit 0, every group named in the legend, no bisect words" bash -c \
	"[ $rc -eq 0 ] && grep -q '^\[\*\] base$' $WORK/out && grep -q '^\[O\] patched$' $WORK/out && ! grep -q bisect $WORK/out"
check "plot: the title names the job and the stat" \
	grep -q 'process-100%-page_fault3: will-it-scale.per_process_ops' "$WORK/out"
check "plot: the commits along the x axis, each group's points in its own columns" bash -c \
	"grep -q '^ *base  *patched$' $WORK/out && awk -F'|' '/\\|.*[*O]/ { for (i = 1; i <= length(\$2); i++) { c = substr(\$2, i, 1); if (c == \"*\" && i > s) s = i; if (c == \"O\" && (o == 0 || i < o)) o = i } } END { exit !(s > 0 && o > s) }' $WORK/out"
check "plot: default stat is the headline, both groups' points" bash -c \
	"grep -q 'will-it-scale.per_process_ops' $WORK/out && grep -q '|.*\*' $WORK/out && grep -q '|.*O' $WORK/out"
check "plot: 80 columns at most" bash -c "[ \$(awk '{ if (length > m) m = length } END { print m }' $WORK/out) -le 80 ]"
sb plot "$G/base" "$G/patched" --stat proc-vmstat.pgfault --svg "$WORK/p.svg"
check "plot --svg writes an SVG" bash -c "[ $rc -eq 0 ] && grep -q '<svg' $WORK/p.svg"
sb plot "$G/base" "$G/patched" --png "$WORK/p.png"
check "plot --png writes a PNG" bash -c "[ $rc -eq 0 ] && [ \"\$(head -c 4 $WORK/p.png | tail -c 3)\" = PNG ]"
sb plot "$G/base" "$G/patched" --stat no.such.stat
check "plot of a stat no run has: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q \"no run has the stat 'no.such.stat'\" $WORK/err"
sb compare --plot "$G/base" "$G/patched"
check "compare --plot: table then plots, the commits named" bash -c \
	"[ $rc -eq 1 ] && grep -q '%change' $WORK/out && grep -q '^\[O\] patched$' $WORK/out && ! grep -q bisect $WORK/out"

# Labels of 20 characters, alike in their first 10: whole in the legend, the x tics, the SVG.
mkdir -p "$WORK/long"
cp -r tests/fixtures/compare/results "$WORK/long/"
L="$WORK/long/results/will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12"
mv "$L/base" "$L/nightly-2026-11-03-a"
mv "$L/patched" "$L/nightly-2026-11-04-b"
sb plot "$L/nightly-2026-11-03-a" "$L/nightly-2026-11-04-b"
check "plot, 20-character labels: whole in the legend and under the points" bash -c \
	"[ $rc -eq 0 ] && grep -q '^\[\*\] nightly-2026-11-03-a$' $WORK/out && grep -q '^\[O\] nightly-2026-11-04-b$' $WORK/out &&
	 grep -q 'nightly-2026-11-03-a .*nightly-2026-11-04-b' $WORK/out"
sb plot "$L/nightly-2026-11-03-a" "$L/nightly-2026-11-04-b" --svg "$WORK/long.svg"
check "plot --svg, 20-character labels: both named, the job and stat in the title" bash -c \
	"[ $rc -eq 0 ] && grep -q 'nightly-2026-11-03-a' $WORK/long.svg && grep -q 'nightly-2026-11-04-b' $WORK/long.svg &&
	 grep -q 'process-100%-page_fault3: will-it-scale.per_process_ops' $WORK/long.svg && ! grep -q bisect $WORK/long.svg"

rc=0
SCALEBENCH_GNUPLOT=/nonexistent/gnuplot "$SCALEBENCH" plot "$G/base" "$G/patched" >"$WORK/out" 2>"$WORK/err" || rc=$?
check "no gnuplot: plot says so clearly" bash -c "[ $rc -eq 2 ] && grep -q 'gnuplot' $WORK/err && grep -q '/nonexistent/gnuplot' $WORK/err"
rc=0
SCALEBENCH_GNUPLOT=/nonexistent/gnuplot "$SCALEBENCH" compare --plot "$G/base" "$G/patched" >"$WORK/out" 2>"$WORK/err" || rc=$?
check "no gnuplot: compare still prints its table" bash -c "[ $rc -eq 1 ] && grep -q 'will-it-scale.per_process_ops' $WORK/out && grep -q 'no plots' $WORK/err"

# A sweep at two commits: ops/s against nr_task, one line per commit.
getppid_job "$WORK/sweep.yaml" "nr_task: [1, 2]"
for c in v1 v2; do "$SCALEBENCH" run "$WORK/sweep.yaml" --results "$WORK/r" --commit $c -q 2>/dev/null; done
sb plot --scalability "$WORK/sweep.yaml" --results "$WORK/r" --commits v1,v2
check "scalability plot: both commits as lines" bash -c "[ $rc -eq 0 ] && grep -q 'v1' $WORK/out && grep -q 'v2' $WORK/out && grep -q 'scalability' $WORK/out"
sb plot --scalability "$WORK/sweep.yaml" --results "$WORK/r" --commits v1,v2 --svg "$WORK/s.svg"
check "scalability plot as SVG" bash -c "[ $rc -eq 0 ] && grep -q '<svg' $WORK/s.svg"
sb plot --scalability "$WORK/sweep.yaml" --results "$WORK/r" --commits v9
check "scalability plot of a missing commit: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q \"commit 'v9'\" $WORK/err"
# The runs of one task count on two machines: the point is ambiguous (select.h), said, not
# dropped in silence.
cp -r "$WORK/r" "$WORK/r2"
P1=$(ls -d "$WORK"/r2/*/*-1-*/*)
cp -r "$P1" "$(dirname "$P1")/other-box"
sb plot --scalability "$WORK/sweep.yaml" --results "$WORK/r2" --commits v1,v2
check "scalability plot, one point on two machines: exit 2, 'ambiguous', both keys" bash -c \
	"[ $rc -eq 2 ] && grep -q 'is ambiguous: it is the path_params of .*/other-box/.*; name one of them' $WORK/err"

# The headline from the runs' meta.json: a suite of its own, and a job whose runs declare one.
python3 tests/fixtures/compare/make-trees.py "$WORK/lat" lat
L=$WORK/lat/lat/process-1-ping/box/debian-12-x86_64/defconfig/gcc-12
sb plot "$L/fast" "$L/slow"
check "plot: the default stat is the headline the runs declare" bash -c \
	"[ $rc -eq 0 ] && grep -q 'lat.p99_us' $WORK/out && grep -q '\[O\] slow' $WORK/out"
sb plot "$L/fast" "$L/slow" --stat custommon.wait_latency
check "plot --stat still picks any stat" bash -c "[ $rc -eq 0 ] && grep -q 'custommon.wait_latency' $WORK/out"
mkdir -p "$WORK/none/a/0" "$WORK/none/b/0"
echo '{"x.y": 1}' >"$WORK/none/a/0/stats.json"
echo '{"x.y": 2}' >"$WORK/none/b/0/stats.json"
sb plot "$WORK/none/a" "$WORK/none/b"
check "plot without a declared headline: exit 2, asks for --stat" bash -c \
	"[ $rc -eq 2 ] && grep -q 'declares no headline stat; name one with --stat' $WORK/err"
python3 tests/fixtures/compare/make-trees.py "$WORK/ls" latsweep
sb plot --scalability tests/fixtures/compare/sweep.yaml --results "$WORK/ls" --commits v1,v2
check "scalability plot of the declared headline" bash -c \
	"[ $rc -eq 0 ] && grep -q 'lat.p99_us' $WORK/out && grep -q 'v1' $WORK/out && grep -q 'v2' $WORK/out"
python3 tests/fixtures/compare/make-trees.py "$WORK/modes" modes
printf 'nr_task: [1, 2]\nwill-it-scale: {mode: [process, thread], test: page_fault3}\n' >"$WORK/modes.yaml"
sb plot --scalability "$WORK/modes.yaml" --results "$WORK/modes" --commits v1,v2
check "scalability plot of a job in two modes: a line per commit and mode" bash -c \
	"[ $rc -eq 0 ] && grep -q 'v1 page_fault3 process' $WORK/out && grep -q 'v2 page_fault3 thread' $WORK/out"
