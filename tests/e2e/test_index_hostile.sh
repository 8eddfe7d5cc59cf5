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

# ---- a run's stats.json edited by hand, in place ---------------------------------------------
tsb 60 index --results "$R"
# c1's headline rewritten in place to a number of the same length, the file's and the run
# directory's mtimes put back: only the file's ctime tells (and, for the second edit, its size).
edit_stats() { # NEW-VALUE: c1/0's per_process_ops rewritten in place, mtimes kept
	python3 - "$STATS" "$1" <<'PY'
import os, re, sys
p, new = sys.argv[1], sys.argv[2]
d = os.path.dirname(p)
st, dst = os.stat(p), os.stat(d)
s = open(p).read()
old = re.search(r'"will-it-scale.per_process_ops": ([0-9.e+-]+)', s).group(1)
if new == "same-length":
    new = "1" * len(old)
s = s.replace(f'"will-it-scale.per_process_ops": {old}', f'"will-it-scale.per_process_ops": {new}')
with open(p, "r+") as f:
    f.write(s)
    f.truncate()
os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
os.utime(d, ns=(dst.st_atime_ns, dst.st_mtime_ns))
print(new)
PY
}
c1_mean() { # the trend's mean of c1 (one run: its value)
	tsb 60 trend --results "$R" --job "$PP" --json
	json "$WORK/out" "[p['mean'] for p in d['points'] if p['commit'] == 'c1'][0]"
}
new=$(edit_stats same-length)
got=$(c1_mean)
check "stats.json rewritten in place, same size and mtime: trend reads the new value ($new, got $got)" \
	python3 -c "import sys; sys.exit(abs(float('$got') - float('$new')) > 1e-6 * float('$new'))"
new=$(edit_stats 7)
tsb 60 index --results "$R"
check "edited in place: the update reads that run alone (runs added: 1)" grep -qx 'runs added: 1' "$WORK/out"
got=$(c1_mean)
check "stats.json rewritten in place, shorter, same mtime: trend reads the new value ($new, got $got)" \
	python3 -c "import sys; sys.exit(abs(float('$got') - float('$new')) > 1e-6)"
tsb 60 compare --results "$R" --commits c1,c2 --json
got_cmp=$(json "$WORK/out" "stats(d['jobs'][0])['will-it-scale.per_process_ops']['groups'][0]['summary']['mean']" 2>&1)
check "edited in place: compare and trend agree ($got_cmp, $got)" \
	python3 -c "import sys; sys.exit(abs(float('$got_cmp') - float('$got')) > 1e-6)"
tsb 60 index --results "$R"
check "edited in place, next update: nothing read" grep -qx 'runs added: 0' "$WORK/out"
