#!/bin/bash
# plot and compare on a results tree of plug-in runs without the plug-in (the runs' meta.json
# says what they are), plot's selection as compare's (--results, --commits, --job), and what
# the plots show: a PNG/SVG y axis from zero, each group's mean, the job and stat in titles,
# a text legend of the characters drawn.
set -u
. "$(dirname "$0")/../lib.sh"

mkdir -p "$WORK/include/scalebench"
cp testcases/testcase.h "$WORK/include/scalebench/"
cc -std=c11 -Wall -Wextra -Werror -O2 -I"$WORK/include" -shared -fPIC -o "$WORK/uname.so" \
	examples/plugin/uname_plugin.c 2>"$WORK/cc.err"
check "the example plug-in builds" [ -f "$WORK/uname.so" ]

cat >"$WORK/pf.yaml" <<'EOF'
suite: will-it-scale
testcase: will-it-scale
interval: 0.25s
runtime: 0.25s
warmup: 0
nr_task: [1, 2]
will-it-scale: {mode: thread, test: uname1}
EOF
R=$WORK/r
for c in a b; do
	"$SCALEBENCH" run "$WORK/pf.yaml" --plugin "$WORK/uname.so" --results "$R" --commit $c -q \
		2>/dev/null
done
check "a tree of plug-in runs at two commits" bash -c \
	"[ \$(ls -d $R/will-it-scale/thread-*-uname1/*/*/*/*/[ab] | wc -l) -eq 4 ]"

# Reading the runs needs no plug-in: the job file's unknown testcase is taken by name.
sb compare --format mmtests --results "$R" --job "$WORK/pf.yaml" --commits a,b
check "compare --format mmtests of plug-in runs, no --plugin: a table per task count" bash -c \
	"[ $rc -le 1 ] && grep -q '^uname1, thread mode: plugin.per_thread_ops' $WORK/out &&
	 grep -q '^Hmean  *1 ' $WORK/out && grep -q '^Hmean  *2 ' $WORK/out && ! grep -q 'unknown testcase' $WORK/err"
sb compare --results "$R" --job "$WORK/pf.yaml" --commits a,b
check "compare --job of plug-in runs, no --plugin: both atomic jobs compared" bash -c \
	"[ $rc -ne 2 ] && grep -q 'pf-thread-1-0.25s-uname1' $WORK/out && grep -q 'pf-thread-2-0.25s-uname1' $WORK/out"
sb plot --scalability "$WORK/pf.yaml" --results "$R" --commits a,b
check "plot --scalability of plug-in runs, no --plugin: a line per commit, job and stat titled" bash -c \
	"[ $rc -eq 0 ] && grep -q '^\[\*\] a$' $WORK/out && grep -q '^\[O\] b$' $WORK/out &&
	 grep -q 'scalability of pf: plugin.per_thread_ops' $WORK/out"

# plot takes compare's selection: the same plot as the path form.
P=$(ls -d "$R"/will-it-scale/thread-1-0.25s-uname1/*/*/*/*)
KEY=${P#"$R"/}
sb plot "$P/a" "$P/b"
cp "$WORK/out" "$WORK/path.txt"
sb plot --results "$R" --commits a,b --job thread-1-0.25s-uname1
check "plot --results --commits --job PATH_PARAMS: the path form's plot" bash -c \
	"[ $rc -eq 0 ] && [ -s $WORK/out ] && cmp -s $WORK/out $WORK/path.txt"
sb plot --results "$R" --commits a,b --job "$KEY"
check "plot --job KEY: the same plot" bash -c "[ $rc -eq 0 ] && cmp -s $WORK/out $WORK/path.txt"
sb plot --results "$R" --commits a,b --job "$WORK/pf.yaml"
check "plot --job JOB.yaml of plug-in runs: one plot per atomic job" bash -c \
	"[ $rc -eq 0 ] && grep -c 'thread-[12]-0.25s-uname1: plugin.per_thread_ops' $WORK/out | grep -qx 2"
sb plot --results "$R" --commits a,c --job thread-1-0.25s-uname1
check "plot --commits of a commit without runs: exit 2, named" bash -c \
	"[ $rc -eq 2 ] && grep -q \"at commit 'c'\" $WORK/err"

# The gnuplot script, kept by a gnuplot that saves it before running it.
cat >"$WORK/gp.sh" <<EOF
#!/bin/sh
cat >"$WORK/script.gp"
exec gnuplot -d "$WORK/script.gp"
EOF
chmod +x "$WORK/gp.sh"
gp() { rc=0; SCALEBENCH_GNUPLOT=$WORK/gp.sh "$SCALEBENCH" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?; }
gp plot "$P/a" "$P/b" --svg "$WORK/s.svg"
check "plot --svg: the y axis from zero, the means marked and keyed, below the frame" bash -c \
	"[ $rc -eq 0 ] && grep -q '^set yrange \[0:' $WORK/script.gp && grep -q '^\$mean << EOD' $WORK/script.gp &&
	 grep -q \"\\\$mean using 1:2 with lines .* title 'mean'\" $WORK/script.gp &&
	 grep -q '^set key outside below' $WORK/script.gp && grep -q '>mean<' $WORK/s.svg"
check "plot --svg: the title names the job and the stat" \
	grep -q 'thread-1-0.25s-uname1: plugin.per_thread_ops' "$WORK/s.svg"
gp plot "$P/a" "$P/b" --svg "$WORK/s.svg" --y-auto
check "plot --svg --y-auto: the y axis spans the data" bash -c \
	"[ $rc -eq 0 ] && grep -q '^set yrange \[' $WORK/script.gp && ! grep -q '^set yrange \[0:' $WORK/script.gp"
sb plot "$P/a" "$P/b" --y-auto
check "plot --y-auto without --png or --svg: refused" bash -c "[ $rc -eq 2 ] && grep -q -- '--y-auto needs' $WORK/err"
gp plot --scalability "$WORK/pf.yaml" --results "$R" --commits a,b --png "$WORK/s.png"
check "plot --scalability --png: y from zero, the job and stat in the title, the key below" bash -c \
	"[ $rc -eq 0 ] && grep -q '^set yrange \[0:' $WORK/script.gp &&
	 grep -q \"^set title 'scalability of pf: plugin.per_thread_ops'\" $WORK/script.gp &&
	 grep -q '^set key outside below' $WORK/script.gp && ! grep -q 'key top left' $WORK/script.gp"

# The text legend: every character drawn in the frame is in it, and every one in it is drawn.
G=tests/fixtures/compare/results/will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12
sb plot "$G/base" "$G/patched"
cat >"$WORK/glyphs.py" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().split('\n')
frame = [i for i, l in enumerate(lines) if re.match(r'^ *[0-9.kM]* *\+-{20,}\+$', l)]
drawn = set()
for l in lines[frame[0] + 1:frame[-1]]:
    inside = l[l.index('|') + 1:l.rindex('|')]
    inside = re.sub(r'^-\+', '', inside)
    inside = re.sub(r'\+-$', '', inside)
    drawn |= set(inside) - {' '}
legend = {m.group(1): m.group(2) for l in lines for m in re.finditer(r'\[(.)\] (\S+)', l)}
print('drawn', sorted(drawn), 'legend', legend)
sys.exit(0 if drawn == set(legend) and legend.get('.') == 'mean' else 1)
EOF
check "text plot: the legend's characters are those drawn, the mean's dots among them" \
	python3 "$WORK/glyphs.py" "$WORK/out"
sb compare --plot "$G/base" "$G/patched"
check "compare --plot: the same legend" bash -c "grep -q '^\[\.\] mean$' $WORK/out"
