#!/bin/bash
# compare --rule lkp against tables printed by lkp-tests itself (tests/fixtures/lkp: the trees,
# the generator, lkp-tests' outputs and regenerate.sh, which needs Ruby and lkp-tests; this
# test does not), and against its table of the compare tests' tree (tests/fixtures/compare).  Nothing is normalised: the commit labels are the directory names, which is
# also what lkp-tests prints when it has no linux git tree to turn a commit into a tag
# (lkp_compare.rb runs it that way), and no other part of the table depends on the machine.
set -u
. "$(dirname "$0")/../lib.sh"

FIX=tests/fixtures/lkp

# golden TREE_DIR EXPECTED NAME: scalebench's table for the tree's commits, diffed.
golden() {
	local t=$1 expected=$2 name=$3 dirs=()

	while read -r c; do dirs+=("$t/$c"); done <"$t/commits"
	sb compare --rule lkp "${dirs[@]}"
	if [ $rc -gt 1 ]; then
		fail "$name: compare --rule lkp ran (exit $rc)" "$(head -5 "$WORK/err")"
		return 1
	fi
	diff -u "$expected" "$WORK/out" >"$WORK/diff"
}

n=0
for t in "$FIX"/trees/*/; do
	t=${t%/}
	name=$(basename "$t")
	n=$((n + 1))
	if golden "$t" "$FIX/expected/$name.txt" "$name"; then
		pass "$name: the table lkp-tests prints, line for line"
	else
		fail "$name: the table lkp-tests prints, line for line" "$(head -40 "$WORK/diff")"
	fi
done
check "every tree has its golden table (6 trees)" [ $n -eq 6 -a "$(ls $FIX/trees | wc -l)" -eq 6 ]

# The compare tests' own tree (an incomplete run, 4 vs 5 runs): lkp-tests divides the head's
# failures by the base's run count, 2/4 - 0/4 = 50% (compare.rb calc_failure_change).
G=tests/fixtures/compare/results/will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12
sb compare --rule lkp "$G/base" "$G/patched"
if diff -u "$FIX/expected/compare-fixture.txt" "$WORK/out" >"$WORK/diff"; then
	pass "compare fixture: the table lkp-tests prints, line for line"
else
	fail "compare fixture: the table lkp-tests prints, line for line" "$(head -40 "$WORK/diff")"
fi

# The diff is sensitive: one run's value moved by 0.3% changes the printed mean, and a
# stat made to move in the head adds a row lkp-tests did not print.
# Both trees edited in one python start: sha3's head run 0 moved, sha3b's head runs 0-2 with
# meminfo.Active 20% up.
cp -r "$FIX/trees/sha3" "$WORK/sha3"
cp -r "$FIX/trees/sha3" "$WORK/sha3b"
head=$(sed -n 2p "$WORK/sha3/commits")
python3 - "$WORK/sha3/$head" "$WORK/sha3b/$head" <<'PY'
import json, sys
def edit(p, f):
    s = json.load(open(p))
    f(s)
    json.dump(s, open(p, "w"))
edit(f"{sys.argv[1]}/0/stats.json", lambda s: s.update({"will-it-scale.per_process_ops": s["will-it-scale.per_process_ops"] + 1200}))
for r in 0, 1, 2:
    edit(f"{sys.argv[2]}/{r}/stats.json", lambda s: s.update({"meminfo.Active": s["meminfo.Active"] * 1.2}))
PY
if golden "$WORK/sha3" "$FIX/expected/sha3.txt" "sha3 with one value moved"; then
	fail "a number that differs fails the diff"
else
	check "a number that differs fails the diff" grep -q '^+ *[0-9]* *-7.[0-9]% *[0-9]* *will-it-scale.per_process_ops' "$WORK/diff"
fi
if golden "$WORK/sha3b" "$FIX/expected/sha3.txt" "sha3 with a row added"; then
	fail "a row lkp-tests did not print fails the diff"
else
	check "a row lkp-tests did not print fails the diff" grep -q '^+.*meminfo.Active$' "$WORK/diff"
fi

# -v gives LKP's reasons, never p or q values
dirs=()
while read -r c; do dirs+=("$FIX/trees/sha3/$c"); done <"$FIX/trees/sha3/commits"
sb compare --rule lkp --all -v "${dirs[@]}"
check "-v: LKP's reason for a kept row" grep -q 'will-it-scale.per_process_ops  (lkp: min_base > median_head && median_base > max_head; ratio' "$WORK/out"
check "-v: LKP's reason for a dropped row (denylist, thresholds)" bash -c \
	"grep -q 'interrupts.CPU0.LOC:Local_timer_interrupts  (lkp: on lkp-tests. stat-denylist' $WORK/out && grep -q 'proc-vmstat.pgreuse  (lkp: .*max <= 1000' $WORK/out"
check "-v: no p or q values under --rule lkp" bash -c "! grep -Eq ' p=| q=' $WORK/out"

# Commit directories given relative to the working directory (as a user in the tree types
# them): the same tables.
SB=$(realpath "$SCALEBENCH")
for t in "$FIX"/trees/*/; do
	name=$(basename "$t")
	mapfile -t rel <"$t/commits"
	rc=0
	(cd "$t" && "$SB" compare --rule lkp "${rel[@]}") >"$WORK/out" 2>"$WORK/err" || rc=$?
	if [ $rc -le 1 ] && diff -u "$FIX/expected/$name.txt" "$WORK/out" >"$WORK/diff"; then
		pass "$name, relative commit directories: the table lkp-tests prints"
	else
		fail "$name, relative commit directories: the table lkp-tests prints" \
			"exit $rc" "$(head -20 "$WORK/diff" "$WORK/err")"
	fi
done

# --job with an LKP job file whose mode, nr_task and test are in its header (LKP's will-it-scale
# jobs put nr_task there, and mode/test under will-it-scale:, or all in the header), with atomic
# jobs that have no runs in the tree: the ones that have are compared (the table lkp-tests
# prints), each of the others named in a note, and the status is the compared ones'.
T3="$FIX/trees/sha3"
C3=$(while read -r c; do basename "$c"; done <"$T3/commits" | paste -sd,)
cat >"$WORK/header.yaml" <<'Y'
suite: will-it-scale
testcase: will-it-scale
nr_task: 16
mode: process
test:
- page_fault2
- page_fault3
- page_fault1
Y
cat >"$WORK/nested.yaml" <<'Y'
suite: will-it-scale
testcase: will-it-scale
nr_task: 16
will-it-scale:
  mode: process
  test:
  - page_fault2
  - page_fault3
Y
for j in header nested; do
	sb compare --rule lkp --results "$T3/results" --job "$WORK/$j.yaml" --commits "$C3"
	tail -n +2 "$WORK/out" >"$WORK/table"
	check "--job, $j: the job with runs compared, exit 1 (its regression)" bash -c \
		"[ $rc -eq 1 ] && [ \"\$(head -1 $WORK/out)\" = '$j-process-16-page_fault3' ] &&
		 diff -q $FIX/expected/sha3.txt $WORK/table >/dev/null"
	check "--job, $j: the jobs without runs named in a note, not compared" bash -c \
		"grep -q \"note: no directory holds runs of job 'process-16-page_fault2' at commit .*: not compared\" $WORK/err &&
		 ! grep -q 'page_fault2' $WORK/out && ! grep -q 'scalebench compare: [^n]' $WORK/err"
	[ $j = nested ] ||
		check "--job, $j: page_fault1 named too" grep -q "job 'process-16-page_fault1' at commit" "$WORK/err"
done
printf 'suite: will-it-scale\nnr_task: 16\nmode: process\ntest: [page_fault1, page_fault2]\n' \
	>"$WORK/none.yaml"
sb compare --rule lkp --results "$T3/results" --job "$WORK/none.yaml" --commits "$C3"
check "--job, no atomic job has runs: exit 2, said" bash -c \
	"[ $rc -eq 2 ] && grep -q 'none of the 2 atomic jobs has runs at every commit' $WORK/err"
