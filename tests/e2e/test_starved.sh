#!/bin/bash
# serial
# A starved run is measured again: a busy loop at nice -20 on CPU 0 (where every run places
# copy 0) leaves the copy a few percent of the window while it wants all of it; run says so,
# discards the starved measurement and measures again, RUN_STARVED_TRIES (3) times in all,
# then keeps the last as it is.  Without the loop, nothing is said.  Serial: it takes CPU 0
# from everything else for a second or two.  And a busy machine under -q: the warning is
# left out (a bisection's batches repeated it every time), the run's meta.json keeps it.
set -u
. "$(dirname "$0")/../lib.sh"

getppid_job "$WORK/job.yaml"
sb run "$WORK/job.yaml" --results "$WORK/calm" --commit c
check "an unhindered run: stored at once, no 'starved' note" bash -c \
	"[ $rc = 0 ] && ! grep -q starved '$WORK/err' && [ -d $WORK/calm/will-it-scale/*/*/*/*/*/c/0 ]"

if ! command -v taskset >/dev/null || ! nice -n -20 true 2>/dev/null; then
	pass "skipped: no taskset, or nice -20 not allowed here"
	exit 0
fi
taskset -c 0 nice -n -20 sh -c 'while :; do :; done' &
hog=$!
# the loop holds CPU 0 once it runs there
wait_until 5 sh -c "[ \"\$(ps -o psr= -p $hog | tr -d ' ')\" = 0 ]"
sb run "$WORK/job.yaml" --results "$WORK/hogged" --commit c
cp "$WORK/err" "$WORK/err.hogged"
rc_hogged=$rc
sb run "$WORK/job.yaml" --results "$WORK/hogged" --commit once --starved-tries 1
check "--starved-tries 1: the first measurement kept, starved or not (one run, no 'measured again')" \
	bash -c "[ $rc -le 1 ] && ! grep -q 'measured again' '$WORK/err' &&
	 [ \$(ls -d $WORK/hogged/will-it-scale/*/*/*/*/*/once/[0-9]* | wc -l) = 1 ]" ||
	sed 's/^/     /' "$WORK/err"
cp "$WORK/err.hogged" "$WORK/err"
rc=$rc_hogged
kill "$hog"
wait "$hog" 2>/dev/null
# The third is kept as it came: a rate, or (starved to nothing) a run that made no progress.
check "copy 0 starved on CPU 0: said twice, measured again, the third kept (one run stored)" bash -c \
	"[ $rc -le 1 ] && [ \$(grep -c 'starved by other tasks: measured again' '$WORK/err') = 2 ] &&
	 [ \$(ls -d $WORK/hogged/will-it-scale/*/*/*/*/*/c/[0-9]* | wc -l) = 1 ]" ||
	sed 's/^/     /' "$WORK/err"
check "the discarded measurements left no temp run directory" bash -c \
	"[ -z \"\$(find $WORK/hogged -name '.tmp*' -o -name '*.tmp.*')\" ]"
check "the busy loop is gone" bash -c "! kill -0 $hog 2>/dev/null"

# Two busy loops beside a run: without -q the busy warning; with -q none, meta.json says busy.
sh -c 'while :; do :; done' &
b1=$!
sh -c 'while :; do :; done' &
b2=$!
sb run "$WORK/job.yaml" --results "$WORK/busy" --commit loud
cp "$WORK/err" "$WORK/err.loud"
sb run "$WORK/job.yaml" --results "$WORK/busy" --commit quiet -q
kill "$b1" "$b2"
wait "$b1" "$b2" 2>/dev/null
check "busy machine: the warning without -q" grep -q 'measured on a busy machine' "$WORK/err.loud"
check "busy machine, -q: no warning on stderr, meta.json's machine_load says busy" bash -c \
	"! grep -q 'busy machine' '$WORK/err' && python3 -c 'import json, sys; sys.exit(not json.load(open(sys.argv[1]))[\"machine_load\"][\"busy\"])' $WORK/busy/will-it-scale/*/*/*/*/*/quiet/0/meta.json"
