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
cp -r "$FIX/trees/sha3" "$WORK/sha3"
head=$(sed -n 2p "$WORK/sha3/commits")
python3 - "$WORK/sha3/$head/0/stats.json" <<'PY'
import json, sys
p = sys.argv[1]
s = json.load(open(p))
s["will-it-scale.per_process_ops"] += 1200
json.dump(s, open(p, "w"))
PY
if golden "$WORK/sha3" "$FIX/expected/sha3.txt" "sha3 with one value moved"; then
	fail "a number that differs fails the diff"
else
	check "a number that differs fails the diff" grep -q '^+ *[0-9]* *-7.[0-9]% *[0-9]* *will-it-scale.per_process_ops' "$WORK/diff"
fi
cp -r "$FIX/trees/sha3" "$WORK/sha3b"
for r in 0 1 2; do
	python3 - "$WORK/sha3b/$head/$r/stats.json" <<'PY'
import json, sys
p = sys.argv[1]
s = json.load(open(p))
s["meminfo.Active"] *= 1.2
json.dump(s, open(p, "w"))
PY
done
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
