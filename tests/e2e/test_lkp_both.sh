#!/bin/bash
# LKP reads scalebench trees: the matrix.json scalebench keeps in every commit directory is the
# one lkp-tests' unite-stats writes for the same runs (tests/fixtures/lkp-both: the runs,
# LKP's matrix.json files, its paths index and its compare tables, and regenerate.sh, which
# needs Ruby and lkp-tests; this test does not).  Compared as JSON values, with each value's
# type (an integer stays an integer: LKP's compare prints the two apart) and the stats' order;
# stats_source, the runs' real paths, is compared below the results root.  Where Ruby,
# lkp-tests (LKP_SRC, default /work/lkp-tests) and a mount namespace are at hand, lkp-tests'
# sbin/compare is also run on the tree scalebench made, and must print LKP's own tables.
set -u
. "$(dirname "$0")/../lib.sh"
export SCALEBENCH_SELFTEST=1

FIX=tests/fixtures/lkp-both

# same_matrices ROOT: every golden matrix.json equals ROOT's, as above; prints what differs.
same_matrices() {
	python3 - "$1" "$FIX/expected/matrix" <<'PY'
import glob, json, os, sys
root, golden = sys.argv[1], sys.argv[2]
real = os.path.realpath(root)
typed = lambda m: [(k, [(type(x).__name__, x) for x in v]) for k, v in m.items()]
bad = 0
files = sorted(glob.glob(golden + "/**/matrix.json", recursive=True))
for p in files:
    rel = os.path.relpath(p, golden)
    try:
        ours = json.load(open(os.path.join(root, rel)))
    except OSError as e:
        print(rel, e); bad += 1; continue
    ours["stats_source"] = [s.replace(real, "/lkp/result", 1) for s in ours.get("stats_source", [])]
    lkp = json.load(open(p))
    if typed(ours) != typed(lkp):
        bad += 1
        diff = [k for k in dict(ours).keys() | lkp.keys() if typed({k: ours.get(k, [])}) != typed({k: lkp.get(k, [])})]
        print(rel, "differs:", sorted(diff)[:5] or "in the order of the stats")
sys.exit(1 if bad or len(files) != 6 else 0)
PY
}

T="$WORK/tree"
mkdir "$T"
cp -r "$FIX/results" "$T/results"
sb lkp-matrix --paths "$T/results"
check "lkp-matrix on a results root: exit 0" [ $rc -eq 0 ]
if same_matrices "$T/results" >"$WORK/diff"; then
	pass "every commit directory: LKP's matrix.json, value for value, type and order (6 dirs)"
else
	fail "every commit directory: LKP's matrix.json, value for value, type and order (6 dirs)" \
		"$(head -10 "$WORK/diff")"
fi
sed "s|^$(realpath "$T/results")/|/lkp/result/|" "$WORK/out" >"$WORK/paths"
if diff -u "$FIX/expected/paths" "$WORK/paths" >"$WORK/diff"; then
	pass "--paths: the complete runs, as LKP's paths index lists them"
else
	fail "--paths: the complete runs, as LKP's paths index lists them" "$(head -10 "$WORK/diff")"
fi
G="$T/results/will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12"
check "the incomplete run (no stats.json) is not in the matrix" json_true "$G/base/matrix.json" \
	"len(d['stats_source']) == 4 and not any('/4/' in s for s in d['stats_source'])"

# The comparison is sensitive: a value moved, or an integer written as a float, differs.
python3 - "$G/patched/2/stats.json" <<'PY'
import json, sys
p = sys.argv[1]
s = json.load(open(p))
s["will-it-scale.per_process_ops"] += 1
s["meminfo.MemFree"] = float(s["meminfo.MemFree"])
json.dump(s, open(p, "w"))
PY
sb lkp-matrix "$G/patched"
check "lkp-matrix on one commit directory: exit 0" [ $rc -eq 0 ]
same_matrices "$T/results" >"$WORK/diff"
check "a value moved and an integer made a float: both differ from LKP's" bash -c \
	"grep -q 'meminfo.MemFree' $WORK/diff && grep -q 'will-it-scale.per_process_ops' $WORK/diff"

# A stale temp file of a killed writer is swept by the next rebuild; a run removed is gone
# from the matrix; no complete run left, no matrix.json.
touch "$G/base/matrix.json.tmp.AbC123"
rm -r "$G/base/3"
sb lkp-matrix "$G/base"
check "rebuild: stale matrix.json.tmp.* swept" [ ! -e "$G/base/matrix.json.tmp.AbC123" ]
check "rebuild: a removed run is no longer in the matrix" json_true "$G/base/matrix.json" \
	"len(d['stats_source']) == 3 and len(d['will-it-scale.per_process_ops']) == 3"
rm -r "$G"/base/[0-3]
sb lkp-matrix "$G/base"
check "rebuild: no complete run, no matrix.json" bash -c "[ $rc -eq 0 ] && [ ! -e $G/base/matrix.json ]"
mkdir "$WORK/empty"
sb lkp-matrix "$WORK/empty"
check "lkp-matrix on a directory without commit directories: exit 2, saying what it expected" \
	bash -c "[ $rc -eq 2 ] && grep -q 'no commit directory in it; expected a results root' $WORK/err"

# Storing a run writes it: two runners at once into one commit directory, two runs each;
# the matrix has all four, in run order, each value the run's stats.json value.
getppid_job "$WORK/job.yaml" "suite: will-it-scale" "testcase: will-it-scale"
R="$WORK/results"
"$SCALEBENCH" run "$WORK/job.yaml" --results "$R" --commit c1 --repeat 2 -q --no-monitors \
	>"$WORK/out1" 2>"$WORK/err1" &
p1=$!
"$SCALEBENCH" run "$WORK/job.yaml" --results "$R" --commit c1 --repeat 2 -q --no-monitors \
	>"$WORK/out2" 2>"$WORK/err2" &
p2=$!
rc1=0 rc2=0
wait $p1 || rc1=$?
wait $p2 || rc2=$?
C=$(ls -d "$R"/will-it-scale/*/*/*/*/*/c1 2>/dev/null)
check "two runners at once: both exit 0, 4 runs" bash -c \
	"[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ -d '$C/3' ] && [ ! -e '$C/4' ]"
check "stored runs: matrix.json has the 4 runs, in run order, by real path" json_true \
	"$C/matrix.json" "d['stats_source'] == ['$(realpath "$C")/%d/stats.json' % i for i in range(4)]"
check "stored runs: each value is the run's own" python3 -c '
import json, sys
c = sys.argv[1]
m = json.load(open(c + "/matrix.json"))
runs = [json.load(open("%s/%d/stats.json" % (c, i))) for i in range(4)]
sys.exit(0 if all(m[k][i] == r[k] for i, r in enumerate(runs) for k in r if k in m) and
	 "will-it-scale.per_process_ops" in m else 1)' "$C"
check "stored runs: no note about the matrix" bash -c "! grep -q matrix $WORK/err1 $WORK/err2"
# LKP takes a commit directory's axes from its runs' job.yaml (Job#axes): each run's carries
# its results path's tbox_group, rootfs, kconfig, compiler and commit, as LKP's runs do.
IFS=/ read -r tbox rootfs kconfig compiler commit <<<"$(echo "$C" | awk -F/ '{print $(NF-4) "/" $(NF-3) "/" $(NF-2) "/" $(NF-1) "/" $NF}')"
check "stored runs: job.yaml carries LKP's axes, its path's (tbox_group $tbox ... commit $commit)" bash -c \
	"grep -qx 'tbox_group: $tbox' $C/0/job.yaml && grep -qx 'rootfs: $rootfs' $C/0/job.yaml &&
	 grep -qx 'kconfig: $kconfig' $C/0/job.yaml && grep -qx 'compiler: $compiler' $C/0/job.yaml &&
	 grep -qx 'commit: $commit' $C/0/job.yaml"

# lkp-tests' sbin/ncompare on a tree scalebench's run wrote (results-run: regenerate.sh, its
# stats.json fixed) prints compare --rule lkp's table, axes line included; scalebench's notes
# on the runs follow it.
RR=$(ls -d $FIX/results-run/will-it-scale/*/*/*/*/*)
sb compare --rule lkp "$RR/ffc0268bbc9387abb50cd107d1c6375281d8fb1e" \
	"$RR/f8b4c0bf8e704eb5a6162ac20172de3d4a5152cd"
awk '/^note: /{exit} {print}' "$WORK/out" | sed '${/^$/d}' >"$WORK/table"
if diff -u "$FIX/expected/ncompare.txt" "$WORK/table" >"$WORK/diff"; then
	pass "scalebench's runs: LKP's ncompare prints compare --rule lkp's table, line for line"
else
	fail "scalebench's runs: LKP's ncompare prints compare --rule lkp's table, line for line" \
		"$(head -20 "$WORK/diff")"
fi
sb compare --rule lkp --all "$RR/ffc0268bbc9387abb50cd107d1c6375281d8fb1e" \
	"$RR/f8b4c0bf8e704eb5a6162ac20172de3d4a5152cd"
awk '/^note: /{exit} {print}' "$WORK/out" | sed '${/^$/d}' >"$WORK/table"
check "scalebench's runs: LKP's ncompare -a prints compare --rule lkp --all's table" \
	diff -u "$FIX/expected/ncompare-a.txt" "$WORK/table"

# A tree as LKP's runs leave it (results-lkp: job.yaml and stats.json, no meta.json; two jobs):
# compare --rule lkp over both jobs prints lkp-tests' ncompare's blocks, the header's axes
# (mode, nr_task, runtime and test too) from job.yaml, the jobs in the paths' order (issue 29
# item 4); scalebench names each job on a line of its own above its table.
sb compare --rule lkp --results "$FIX/results-lkp" \
	--commits ffc0268bbc9387abb50cd107d1c6375281d8fb1e,f8b4c0bf8e704eb5a6162ac20172de3d4a5152cd
check "LKP's runs (no meta.json): compare --rule lkp names the two jobs, nr_task 1 first" bash -c \
	"[ $rc -eq 1 ] && [ \"\$(grep '^thread-' $WORK/out | tr '\n' ' ')\" = 'thread-1-page_fault3 thread-16-page_fault3 ' ]"
grep -v '^thread-' "$WORK/out" | cat -s >"$WORK/table"
check "LKP's runs (no meta.json): LKP's ncompare prints compare --rule lkp's tables, header axes from job.yaml" \
	diff -u "$FIX/expected/ncompare-lkp.txt" "$WORK/table"

# Stats 0 in every run (results-zero: results-run with such stats added, regenerate.sh):
# LKP's matrix.json has none that is integer 0 in every run of a commit, so --all shows no
# such row, a family ranks by its other stats (meminfo before vmstat, its six integer zeros
# not counted), a real 0.0 is a row, and a stat the base has only as integer zeros is one the
# base lacks, not reported as changed (issue 29 item 5).
RZ=$(ls -d $FIX/results-zero/will-it-scale/*/*/*/*/*)
for all in "" -a; do
	sb compare --rule lkp ${all:+--all} "$RZ/ffc0268bbc9387abb50cd107d1c6375281d8fb1e" \
		"$RZ/f8b4c0bf8e704eb5a6162ac20172de3d4a5152cd"
	awk '/^note: /{exit} {print}' "$WORK/out" | sed '${/^$/d}' >"$WORK/table"
	check "stats 0 in every run: LKP's ncompare${all:+ $all} prints compare --rule lkp${all:+ --all}'s table" \
		diff -u "$FIX/expected/ncompare-zero$all.txt" "$WORK/table"
done

# lkp-tests' own compare on the tree scalebench made prints LKP's tables.
LKP=${LKP_SRC:-/work/lkp-tests}
if command -v ruby >/dev/null && [ -x "$LKP/sbin/compare" ] && [ "$(id -u)" = 0 ] &&
	command -v unshare >/dev/null && [ ! -e /lkp -o -d /lkp ]; then
	made=
	[ -e /lkp ] || { mkdir /lkp && made=1; }
	export LKP SCALEBENCH FIX
	unshare -m --propagation private bash -eu >"$WORK/live" 2>&1 <<'LIVE' || true
mount -t tmpfs lkp /lkp
mkdir -p /lkp/result /lkp/paths/2026-01-01 /lkp/out
cp -r "$FIX/results/." /lkp/result/
"$SCALEBENCH" lkp-matrix --paths /lkp/result >/lkp/paths/2026-01-01/2026-01-01-lkp
c=/lkp/result/will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12
LKP_LOCAL_RUN=1 LKP_SRC="$LKP" ruby "$LKP/sbin/compare" -c never -f will-it-scale.per_process_ops \
	"$c/base" "$c/patched" >/lkp/out/f.txt
LKP_LOCAL_RUN=0 LKP_SRC="$LKP" ruby "$LKP/sbin/compare" -c never -a \
	ffc0268bbc9387abb50cd107d1c6375281d8fb1e f8b4c0bf8e704eb5a6162ac20172de3d4a5152cd >/lkp/out/a.txt
diff -u "$FIX/expected/compare-f.txt" /lkp/out/f.txt
diff -u "$FIX/expected/compare-a.txt" /lkp/out/a.txt
echo LIVE-SAME
LIVE
	[ -z "$made" ] || rmdir /lkp
	if grep -q LIVE-SAME "$WORK/live"; then
		pass "lkp-tests' sbin/compare on scalebench's tree: LKP's tables (-f and -a)"
	else
		fail "lkp-tests' sbin/compare on scalebench's tree: LKP's tables (-f and -a)" \
			"$(head -20 "$WORK/live")"
	fi
else
	echo "skip lkp-tests' sbin/compare on scalebench's tree (needs Ruby, lkp-tests, root, unshare)"
fi
