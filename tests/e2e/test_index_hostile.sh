#!/bin/bash
# The results index against a hostile or broken results root: a symlink, FIFO, directory or
# device planted at the index or its lock is never opened through nor written through, readers
# set it aside or index in memory and never fail or hang; a stats.json edited in place is read
# again; symlink loops in the tree do not multiply the walk; a full disk or an index of other
# tables is no failure.  Every reader runs under `timeout`, so a hang fails instead of hanging.
set -u
. "$(dirname "$0")/../lib.sh"
export SCALEBENCH_SELFTEST=1

R="$WORK/results"
IDX="$R/.scalebench-index.sqlite"
LOCK="$IDX.lock"
getppid_job "$WORK/tiny.yaml" "suite: will-it-scale" "testcase: will-it-scale"
sb run "$WORK/tiny.yaml" --results "$R" --commit c1
sb run "$WORK/tiny.yaml" --results "$R" --commit c2
check "two short real runs, exit 0" [ $rc -eq 0 ]
JOB=$(cd "$R" && ls -d will-it-scale/*/*/*/*/*)
PP=$(basename "$(dirname "$(dirname "$(dirname "$(dirname "$JOB")")")")")
STATS=$(ls "$R/$JOB"/c1/0/stats.json)

# tsb SECONDS ARGS...: sb under a timeout (rc 124 when it ran out)
tsb() {
	local t=$1
	shift
	rc=0
	timeout -k 5 "$t" "$SCALEBENCH" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
}
sb results --results "$R" --json
cp "$WORK/out" "$WORK/before.json"
# same_results: results --json, within 60 s, exit 0 and what the tree says
same_results() {
	tsb 60 results --results "$R" --json
	[ $rc -eq 0 ] && cmp -s "$WORK/out" "$WORK/before.json"
}

# ---- symlink loops in the tree ---------------------------------------------------------------
# Followed, 10 links make 11^7 walks of the tree (minutes); not followed, one.
for i in 0 1 2 3 4 5 6 7 8 9; do ln -s . "$R/loop$i"; done
ln -s ../.. "$R/will-it-scale/$PP/up"
start=$SECONDS
tsb 20 results --results "$R" --json
check "10 'loopN -> .' links in the root and one '../..': results within 20 s (rc $rc, $((SECONDS - start)) s)" \
	[ $rc -eq 0 ]
check "symlink loops: results --json the same as without them" cmp -s "$WORK/out" "$WORK/before.json"
tsb 20 compare --results "$R" --commits c1,c2 --json
check "symlink loops: compare --commits c1,c2 within 20 s, one job compared" bash -c \
	"[ $rc -ne 124 ] && [ $rc -ne 2 ] && grep -c '\"job\": ' $WORK/out | grep -qx 1"
rm -f "$R"/loop? "$R/will-it-scale/$PP/up"
