#!/bin/bash
# scalebench compare through the real binary: the robot's table on a fixed results tree
# (golden output), verdicts, the exit status, JSON, selection by name, and bad input.
set -u
. "$(dirname "$0")/../lib.sh"
# The --json documents' checks are json_later ones: all evaluated at the end, in one python
# start (on a busy machine each start costs seconds).

FIX=tests/fixtures/compare
G=$FIX/results/will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12

sb compare "$G/base" "$G/patched"
check "regression of a headline stat: exit 1" [ $rc -eq 1 ]
if diff -u "$FIX/expected-robot.txt" "$WORK/out" >"$WORK/diff"; then
	pass "robot table matches the golden output"
else
	fail "robot table matches the golden output" "$(head -30 "$WORK/diff")"
fi
check "the incomplete run is skipped with a note naming it" grep -q "base/4: incomplete run (no stats.json), skipped" "$WORK/err"
check "robot layout: column titles 16 and 27 wide, name at column 47" bash -c \
	"grep -q '^---------------- ---------------------------$' $WORK/out && grep -q '^    [0-9]\{6\}           -2[0-9].[0-9]%     [0-9]\{6\}        will-it-scale.per_process_ops' $WORK/out"
check "± shown above 2%, absolute delta for perf-profile" bash -c \
	"grep -q '± 2[0-9]%.*numa-meminfo.node1.Inactive(anon)' $WORK/out && grep -q ' +3.7 .*perf-profile.self.cycles-pp.__count_memcg_events' $WORK/out"
check "fail:runs and %reproduction" grep -q "^           :4          +40%           2:5     dmesg.WARNING" "$WORK/out"
check "unchanged stats hidden by default" bash -c "! grep -q 'meminfo.MemFree' $WORK/out"

sb compare --all -v "$G/base" "$G/patched"
check "--all shows every stat, -v the test columns" bash -c \
	"grep -q 'meminfo.MemFree.*p=.* q=.* welch-log' $WORK/out && grep -q 'vmstat.cpu.sy.*no-change' $WORK/out"

sb compare --json "$G/base" "$G/patched"
json_later "--json: verdicts, intervals and q-values per stat" "$WORK/out" \
	"stats(d['jobs'][0])['will-it-scale.per_process_ops']['groups'][1]['verdict'] == 'regression' and d['jobs'][0]['regression'] and stats(d['jobs'][0])['will-it-scale.per_process_ops']['groups'][1]['interval'][1] < -20 and stats(d['jobs'][0])['meminfo.MemFree']['groups'][1]['verdict'] in ('no-change', 'inconclusive')"
json_later "--json: stats in the table's order: failures, the headline family, then the monitors" "$WORK/out" \
	"(lambda k: k == sorted(k) and 0 in k and 1 in k and d['jobs'][0]['stats'][k.index(1)]['name'].startswith('will-it-scale.'))([0 if s['failure'] else 1 if s['headline'] else 2 for s in d['jobs'][0]['stats']])"
json_later "--json: runs per group and the skipped run" "$WORK/out" \
	"[g['runs'] for g in d['jobs'][0]['groups']] == [4, 5] and 'incomplete' in d['jobs'][0]['groups'][0]['notes'][0]"
# time.user_time has no direction: the copies run the whole window whatever the kernel does
# (it was 'lower' by its name, an [improvement] or [regression] in every A/B).
json_later "--json: direction from the name; the time monitor's times neutral" "$WORK/out" \
	"stats(d['jobs'][0])['will-it-scale.per_process_ops']['direction'] == 'higher' and stats(d['jobs'][0])['time.user_time']['direction'] == 'neutral' and stats(d['jobs'][0])['proc-vmstat.pgfault']['direction'] == 'neutral'"

# A/A: the same group against itself, and against a copy of itself, changes nothing.
mkdir -p "$WORK/aa/will-it-scale/p/t/r/k/c"
cp -r "$G/patched" "$WORK/aa/will-it-scale/p/t/r/k/c/a"
cp -r "$G/patched" "$WORK/aa/will-it-scale/p/t/r/k/c/b"
sb compare "$WORK/aa/will-it-scale/p/t/r/k/c/a" "$WORK/aa/will-it-scale/p/t/r/k/c/b"
check "A/A: exit 0, nothing flagged" bash -c "[ $rc -eq 0 ] && grep -q 'no stat changed significantly' $WORK/out"

# The lkp rule (needs 3 runs a side: the fixture has 4 and 5).
sb compare --rule lkp --json "$G/base" "$G/patched"
# One definition under one rule: under lkp, --json's stddev is the table's, LKP's population
# stddev (statistics.rb), not the sample stddev of the stats rule.
python3 -c "import glob, json, statistics
print(statistics.pstdev([json.load(open(f))['will-it-scale.per_process_ops'] for f in sorted(glob.glob('$G/base/*/stats.json'))]))" >"$WORK/pstdev"
json_later "--rule lkp --json: a group's stddev is LKP's population stddev, as its table's" "$WORK/out" \
	"abs(stats(d['jobs'][0])['will-it-scale.per_process_ops']['groups'][0]['summary']['stddev'] - $(cat "$WORK/pstdev")) < 1e-3"
json_later "--rule lkp: the robot's rule flags the -26% drop" "$WORK/out" \
	"d['jobs'][0]['rule'] == 'lkp' and stats(d['jobs'][0])['will-it-scale.per_process_ops']['groups'][1]['verdict'] == 'regression'"

# Picking groups by name from a results root.
sb compare --results "$FIX/results" --job 'process-100%-page_fault3' --commits base,patched
check "--results/--job/--commits picks the same groups" bash -c "[ $rc -eq 1 ] && diff -q $FIX/expected-robot.txt $WORK/out >/dev/null"
sb compare --stat '^will-it-scale\.' --all "$G/base" "$G/patched"
check "--stat restricts the stats" bash -c "[ \$(grep -c '^ .*  [a-z]' $WORK/out) -ge 2 ] && ! grep -q 'proc-vmstat' $WORK/out"

# Groups that differ in more than the commit: the header says in what.
mkdir -p "$WORK/other/will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/x86_64-rhel/gcc-12"
cp -r "$G/patched" "$WORK/other/will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/x86_64-rhel/gcc-12/"
sb compare "$G/base" "$WORK/other/will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/x86_64-rhel/gcc-12/patched"
check "differing axes named in the header" bash -c "grep -q '^the groups also differ in:' $WORK/out && grep -q '^  kconfig: defconfig | x86_64-rhel' $WORK/out"

# Bad input: a message naming the file, and the rest still used.
sb compare "$WORK" "$G/patched"
check "not a results group: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q \"$WORK is not a results group\" $WORK/err"
sb compare "$G/base"
check "one group: exit 2" [ $rc -eq 2 ]
cp -r "$G/patched" "$WORK/corrupt"
head -c 40 "$G/patched/0/stats.json" >"$WORK/corrupt/0/stats.json"
sb compare "$G/base" "$WORK/corrupt"
check "truncated stats.json: named, the other runs still used" bash -c \
	"grep -q '$WORK/corrupt/0/stats.json: corrupt' $WORK/err && [ $rc -eq 1 ]"
# A FIFO (it hung compare forever) and a directory (a 2^63-byte allocation) as run files.
cp -r "$G/patched" "$WORK/odd"
rm "$WORK/odd/0/stats.json" "$WORK/odd/1/stats.json" "$WORK/odd/2/meta.json"
mkfifo "$WORK/odd/0/stats.json" "$WORK/odd/2/meta.json"
mkdir "$WORK/odd/1/stats.json"
rc=0
timeout 60 "$SCALEBENCH" compare "$G/base" "$WORK/odd" >"$WORK/out" 2>"$WORK/err" || rc=$?
check "FIFO and directory as stats.json: refused at once, named, the other runs used" bash -c \
	"grep -q '$WORK/odd/0/stats.json: corrupt (cannot read: not a regular file), run skipped' $WORK/err && grep -q '$WORK/odd/1/stats.json: corrupt (cannot read: not a regular file)' $WORK/err && [ $rc -eq 1 ]"
# Run directories whose numbers overflow an int (UBSan: signed overflow) or any integer.
cp -r "$G/patched" "$WORK/bignum"
mv "$WORK/bignum/1" "$WORK/bignum/2147483648"
mv "$WORK/bignum/2" "$WORK/bignum/99999999999999999999"
sb compare "$G/base" "$WORK/bignum"
check "run directories 2147483648 and 10^20: no sanitizer report, the group still compared" bash -c \
	"[ $rc -eq 1 ] && ! grep -q 'runtime error\|Sanitizer' $WORK/err"
mkdir -p "$WORK/bigroot"
cp -r "$FIX/results/." "$WORK/bigroot/"
B=$(find "$WORK/bigroot" -type d -name base)
mv "$B/1" "$B/2147483648"
sb compare --results "$WORK/bigroot" --commits base,patched
check "--results with a run directory 2147483648: no sanitizer report" bash -c \
	"[ $rc -eq 1 ] && ! grep -q 'runtime error\|Sanitizer' $WORK/err"
# A monitor leaves out stats that stayed zero (as LKP's dump-stat does): in a run whose
# monitor ran (meta.json: status ok) the missing stat is a 0, as LKP's matrix fills it; in a
# run whose monitor did not run it is no value at all.
for g in a b; do
	for r in 0 1 2; do
		mkdir -p "$WORK/zf/$g/$r"
		echo '{"will-it-scale.per_process_ops": 100}' >"$WORK/zf/$g/$r/stats.json"
		echo '{"monitors": {"softirqs": {"status": "ok"}}}' >"$WORK/zf/$g/$r/meta.json"
	done
done
echo '{"will-it-scale.per_process_ops": 100, "softirqs.NET_RX": 6}' >"$WORK/zf/a/0/stats.json"
echo '{"monitors": {"softirqs": {"status": "failed"}}}' >"$WORK/zf/b/2/meta.json"
for r in 0 1; do echo '{"will-it-scale.per_process_ops": 100, "softirqs.NET_RX": 3}' >"$WORK/zf/b/$r/stats.json"; done
sb compare --all --json "$WORK/zf/a" "$WORK/zf/b"
json_later "a stat an ok monitor left out counts 0 (mean 2 of 6,0,0), not where it failed (3 of 3,3)" \
	"$WORK/out" "[(g['summary']['n'], g['summary']['mean']) for g in stats(d['jobs'][0])['softirqs.NET_RX']['groups']] == [(3, 2), (2, 3)]"
# A function in no base run's profile (a new one, as a planted kernel function is): 0% in each
# base run whose profiler ran, so its row is tested and flagged, not "missing on one side".
# Other monitors' stats absent from every run of a side stay missing (softirqs.NEW).
for g in a b; do
	for r in 0 1 2; do
		mkdir -p "$WORK/pf/$g/$r"
		echo '{"will-it-scale.per_process_ops": 100, "perf-profile.self.cpu-clock.old_fn": 40}' >"$WORK/pf/$g/$r/stats.json"
		echo '{"monitors": {"perf-profile": {"status": "ok"}, "softirqs": {"status": "ok"}}}' >"$WORK/pf/$g/$r/meta.json"
	done
done
for r in 0 1 2; do
	echo "{\"will-it-scale.per_process_ops\": 100, \"perf-profile.self.cpu-clock.old_fn\": 40, \"perf-profile.self.cpu-clock.new_fn\": 5$r, \"softirqs.NEW\": 7}" >"$WORK/pf/b/$r/stats.json"
done
sb compare --all --json "$WORK/pf/a" "$WORK/pf/b"
json_later "a perf-profile stat in no base run: 0 in each (3 runs, mean 0), the row tested and changed" \
	"$WORK/out" "[(g['summary']['n'], g['summary']['mean']) for g in stats(d['jobs'][0])['perf-profile.self.cpu-clock.new_fn']['groups']] == [(3, 0), (3, 51)] and stats(d['jobs'][0])['perf-profile.self.cpu-clock.new_fn']['groups'][1]['verdict'].startswith('changed')"
json_later "... another monitor's stat in no base run stays missing on that side" \
	"$WORK/out" "stats(d['jobs'][0])['softirqs.NEW']['groups'][0]['summary'] is None"
mkdir -p "$WORK/one/a/0" "$WORK/one/b/0"
cp "$G/base/0/stats.json" "$WORK/one/a/0/"
cp "$G/patched/0/stats.json" "$WORK/one/b/0/"
sb compare "$WORK/one/a" "$WORK/one/b" -v
check "one run per side: says no test is possible, shows means, inconclusive (exit 3)" bash -c \
	"grep -q 'no significance test is possible' $WORK/err && grep -q 'will-it-scale.per_process_ops.*needs at least 2 runs' $WORK/out && [ $rc -eq 3 ]"
mkdir -p "$WORK/disjoint/a/0" "$WORK/disjoint/b/0"
echo '{"x.a": 1}' >"$WORK/disjoint/a/0/stats.json"
echo '{"y.b": 1}' >"$WORK/disjoint/b/0/stats.json"
sb compare "$WORK/disjoint/a" "$WORK/disjoint/b" --stat '^z'
check "no common stats: exit 2 with a message" bash -c "[ $rc -eq 2 ] && grep -q 'no stat in common' $WORK/err"
mkdir -p "$WORK/zero/a/0" "$WORK/zero/a/1" "$WORK/zero/b/0" "$WORK/zero/b/1"
for d in a/0 a/1; do echo '{"x.ops": 0}' >"$WORK/zero/$d/stats.json"; done
echo '{"x.ops": 5}' >"$WORK/zero/b/0/stats.json"
echo '{"x.ops": 6}' >"$WORK/zero/b/1/stats.json"
sb compare --all -v "$WORK/zero/a" "$WORK/zero/b"
check "zero base mean: %change undefined, said so" grep -q "x.ops.*%change undefined for a zero or negative mean" "$WORK/out"
sb compare --rule nope "$G/base" "$G/patched"
check "bad --rule: exit 2" bash -c "[ $rc -eq 2 ] && grep -q \"rule 'nope'\" $WORK/err"
sb compare --stat '(' "$G/base" "$G/patched"
check "bad --stat regex: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q \"stat '('\" $WORK/err"

# MMTests' side-by-side layout: three commits across two task counts.
sb compare --format mmtests --results "$FIX/results-sweep" --job "$FIX/sweep.yaml" --commits base,patched,fixed
check "mmtests: a headline regression: exit 1" [ $rc -eq 1 ]
if diff -u "$FIX/expected-mmtests.txt" "$WORK/out" >"$WORK/diff"; then
	pass "mmtests table matches the golden output"
else
	fail "mmtests table matches the golden output" "$(head -30 "$WORK/diff")"
fi
check "mmtests: significant cells starred, the baseline at 0.00%" bash -c \
	"grep -q '^Hmean *1 .*(  0.00%) .* \*-2[0-9].[0-9][0-9]%\* .*(  0.[0-9][0-9]%)$' $WORK/out"
sb compare --format mmtests "$G/base" "$G/patched"
check "mmtests without a job: exit 2, says what it needs" bash -c "[ $rc -eq 2 ] && grep -q 'needs --results, --job JOB.yaml' $WORK/err"

# No cap on groups: 12 commits (9 overflowed a stack array in --format mmtests).
# The generated trees this test uses (make-trees.py, deterministic), in one python start:
# r12 and gaps (twelve commits), lat (a declared lower-is-better headline), ls (its sweep).
python3 - "$FIX/make-trees.py" "$WORK/r12" twelve "$WORK/gaps" twelve "$WORK/lat" lat \
	"$WORK/ls" latsweep <<'PY'
import runpy, sys
script, args = sys.argv[1], sys.argv[2:]
for root, kind in zip(args[::2], args[1::2]):
    sys.argv = [script, root, kind]
    runpy.run_path(script, run_name="__main__")
PY
C12=c01,c02,c03,c04,c05,c06,c07,c08,c09,c10,c11,c12
sb compare --format mmtests --results "$WORK/r12" --job "$FIX/sweep.yaml" --commits $C12
check "mmtests, 12 commits: regressions found (exit 1), no sanitizer report" bash -c \
	"[ $rc -eq 1 ] && ! grep -q Sanitizer $WORK/err"
check "mmtests, 12 commits: every commit a column, every task count its rows" bash -c \
	"grep -q '^ *c01 .* c12\$' $WORK/out && [ \$(grep -c '^Hmean ' $WORK/out) -eq 2 ] && \
	 [ \$(grep '^Hmean *2 ' $WORK/out | grep -o '%' | wc -l) -eq 12 ]"
check "mmtests, 12 commits: the last commit's 22% drop starred" \
	grep -q '^Hmean *1 .* \*-2[12]\.[0-9][0-9]%\*$' "$WORK/out"
G12=$WORK/r12/will-it-scale/process-1-page_fault3/box/debian-12-x86_64/defconfig/gcc-12
sb compare $(for c in ${C12//,/ }; do echo "$G12/$c"; done)
check "robot table, 12 commits: exit 1, all named, 11 changes on the headline row" bash -c \
	"[ $rc -eq 1 ] && ! grep -q Sanitizer $WORK/err && grep -q '^  c12\$' $WORK/out && \
	 [ \$(grep '^ .*will-it-scale.per_process_ops' $WORK/out | grep -o '%' | wc -l) -eq 11 ]"
sb compare --json $(for c in ${C12//,/ }; do echo "$G12/$c"; done)
json_later "--json, 12 commits: 12 groups, the last a regression" "$WORK/out" \
	"len(d['jobs'][0]['groups']) == 12 and stats(d['jobs'][0])['will-it-scale.per_process_ops']['groups'][11]['verdict'] == 'regression'"

# --json over a job whose first atomic job has no runs: still one valid document.
printf 'nr_task: [4, 1, 2]\nwill-it-scale: {mode: process, test: page_fault3}\n' >"$WORK/gap.yaml"
sb compare --json --results "$WORK/r12" --job "$WORK/gap.yaml" --commits c01,c12
json_later "--json, a job without runs: valid JSON (json.tool), exit 1 (the compared jobs' regression)" "$WORK/out" \
	"$rc == 1"
json_later "--json, a job without runs: its entry says why, the others compared" "$WORK/out" \
	"[e['job'] for e in d['jobs']] == ['gap-process-4-page_fault3', 'gap-process-1-page_fault3', 'gap-process-2-page_fault3'] and 'no directory holds' in d['jobs'][0]['error'] and d['jobs'][1]['regression'] and stats(d['jobs'][2])['will-it-scale.per_process_ops']['groups'][1]['verdict'] == 'regression'"
check "--json, a job without runs: named on stderr" \
	grep -q "no directory holds runs of job 'process-4-page_fault3' at commit 'c01'" "$WORK/err"

# A suite of its own whose runs declare a lower-is-better headline in meta.json.
L=$WORK/lat/lat/process-1-ping/box/debian-12-x86_64/defconfig/gcc-12
sb compare "$L/fast" "$L/slow"
check "declared headline: a slower latency is a regression (exit 1)" bash -c \
	"[ $rc -eq 1 ] && grep -q 'lat.p99_us  \[regression\]' $WORK/out"
check "declared roles: a monitor of its own neutral, a failure family as fail:runs" bash -c \
	"grep -q 'custommon.wait_latency  \[changed\]' $WORK/out && grep -q '^ *:5 *+40% *2:5 *oops.BUG' $WORK/out"
sb compare "$L/slow" "$L/fast"
check "declared headline: a faster latency is an improvement (exit 0)" bash -c \
	"[ $rc -eq 0 ] && grep -q 'lat.p99_us  \[improvement\]' $WORK/out"
sb compare --json --results "$WORK/lat" --job process-1-ping --commits fast,slow
json_later "declared headline in JSON: stat, direction, and its verdict, change and interval as its row has them" "$WORK/out" \
	"{k: d['jobs'][0]['headline'][k] for k in ('stat', 'direction', 'verdict')} == {'stat': 'lat.p99_us', 'direction': 'lower', 'verdict': 'regression'} and d['jobs'][0]['headline']['change'] == stats(d['jobs'][0])['lat.p99_us']['groups'][1]['change'] and d['jobs'][0]['headline']['interval'] == stats(d['jobs'][0])['lat.p99_us']['groups'][1]['interval'] and d['jobs'][0]['headline']['interval'][0] <= d['jobs'][0]['headline']['change'] <= d['jobs'][0]['headline']['interval'][1] and stats(d['jobs'][0])['lat.p99_us']['direction'] == 'lower' and stats(d['jobs'][0])['lat.p99_us']['headline'] and stats(d['jobs'][0])['lat.p99_us']['groups'][1]['verdict'] == 'regression' and not stats(d['jobs'][0])['custommon.wait_latency']['headline'] and stats(d['jobs'][0])['oops.BUG']['failure'] and d['jobs'][0]['regression']"
sb compare --format mmtests --results "$WORK/ls" --job "$FIX/sweep.yaml" --commits v1,v2
check "mmtests of a lower-is-better headline: the arithmetic mean, +50% latency shown as -50%" \
	bash -c "[ $rc -eq 1 ] && grep -q 'page_fault3, process mode: lat.p99_us\$' $WORK/out && \
		 grep -q '^Amean *1 .* \*-[45][0-9].[0-9][0-9]%\*\$' $WORK/out"
sb compare --json "$G/base" "$G/patched"
json_later "runs stored before meta.json declared: will-it-scale's headline, higher is better" \
	"$WORK/out" \
	"{k: d['jobs'][0]['headline'][k] for k in ('stat', 'direction')} == {'stat': 'will-it-scale.per_process_ops', 'direction': 'higher'} and 'verdict' in d['jobs'][0]['headline']"

# The headline always speaks (issue 12): 3 vs 3 runs, -44% in big noise, is inconclusive,
# shown in the default table with the runs that would decide it, and exit 3; a clear
# regression exits 1; no change exits 0.
python3 - "$WORK/hv" <<'PY'
import json, os, sys
root = sys.argv[1]
groups = {
    "base": [1000, 1450, 640],
    "noisy": [560, 900, 300],
    "quiet": [1000, 1002, 999],
    "down": [800, 802, 799],
    "same": [1001, 1000, 1002],
}
for commit, ops in groups.items():
    for r, v in enumerate(ops):
        d = os.path.join(root, "will-it-scale/process-1-page_fault3/box/debian-12-x86_64/defconfig/gcc-12", commit, str(r))
        os.makedirs(d)
        stats = {"will-it-scale.per_process_ops": v, "will-it-scale.workload": v,
                 "meminfo.MemFree": 1000000 + 1000 * r,
                 "interrupts.CPU0.virtio0-stats": 0 if commit == "noisy" else 1}
        json.dump(stats, open(os.path.join(d, "stats.json"), "w"))
PY
H=$WORK/hv/will-it-scale/process-1-page_fault3/box/debian-12-x86_64/defconfig/gcc-12
sb compare "$H/base" "$H/noisy"
check "inconclusive headline: exit 3" [ $rc -eq 3 ]
check "inconclusive headline: its row in the default table with the runs that decide" \
	grep -q '^ .*will-it-scale.per_process_ops  \[inconclusive: ~[0-9]* runs/side\]' "$WORK/out"
check "inconclusive headline: the closing lines say what to type" bash -c \
	"grep -q 'per_process_ops, noisy against base: inconclusive (-4[0-9].[0-9]%' $WORK/out && \
	 grep -q '^  scalebench run JOB.yaml --commit base --repeat [0-9]*\$' $WORK/out && \
	 grep -q '^  scalebench run JOB.yaml --commit noisy --repeat [0-9]*\$' $WORK/out && \
	 grep -q 'the job file that ran process-1-page_fault3' $WORK/out"
check "a count 1 -> 0 in every run is not flagged" bash -c "! grep -q 'virtio0-stats' $WORK/out"
sb compare -v --all "$H/base" "$H/noisy"
check "-v says why a row was kept or dropped" bash -c \
	"grep -q 'virtio0-stats.*dropped: the means differ by fewer than 100 events per run' $WORK/out && \
	 grep -q 'per_process_ops.*dropped: ' $WORK/out"
sb compare "$H/quiet" "$H/down"
check "clear regression of the headline: exit 1" bash -c \
	"[ $rc -eq 1 ] && grep -q 'per_process_ops  \[regression\]' $WORK/out"
sb compare "$H/quiet" "$H/same"
check "headline without change: exit 0, its row shown" bash -c \
	"[ $rc -eq 0 ] && grep -q 'per_process_ops  \[no-change\]' $WORK/out"
sb compare --help
check "--help gives the exit statuses" bash -c \
	"grep -q '3 inconclusive' $WORK/out && grep -q '1 regression' $WORK/out"

# Labels that are not shas are shown whole: 20 characters alike in their first 10 (cut to 10,
# every night read "nightly-20").
cp -r "$FIX/results-sweep" "$WORK/nights"
for d in "$WORK"/nights/will-it-scale/*/*/*/*/*; do
	mv "$d/base" "$d/nightly-2026-11-03-aa"
	mv "$d/patched" "$d/nightly-2026-11-04-bb"
	mv "$d/fixed" "$d/nightly-2026-11-05-cc"
done
N=nightly-2026-11-03-aa,nightly-2026-11-04-bb,nightly-2026-11-05-cc
sb compare --results "$WORK/nights" --job process-1-page_fault3 --commits $N
check "robot table, 21-character labels: whole in the column titles, cells under them" bash -c \
	"[ $rc -eq 1 ] && grep -q '^nightly-2026-11-03-aa nightly-2026-11-04-bb       *nightly-2026-11-05-cc\$' $WORK/out &&
	 grep -q '^--------------------- ---------------------------' $WORK/out &&
	 awk '/per_process_ops/ { print index(\$0, \"will-it-scale\") }' $WORK/out | grep -qx 80"
sb compare --format mmtests --results "$WORK/nights" --job "$FIX/sweep.yaml" --commits $N
check "mmtests, 21-character labels: whole, the cells as wide" bash -c \
	"[ $rc -eq 1 ] && grep -q '^ *nightly-2026-11-03-aa  *nightly-2026-11-04-bb  *nightly-2026-11-05-cc\$' $WORK/out &&
	 [ \$(grep '^Hmean *1 ' $WORK/out | awk '{ print length }') -eq \$(grep 'nightly-2026-11-05-cc\$' $WORK/out | head -1 | awk '{ print length }') ]"
sb report --results "$WORK/nights" --job process-1-page_fault3 --base nightly-2026-11-03-aa \
	--head nightly-2026-11-04-bb
check "report email, 21-character labels: whole in the Subject, commit and base lines" bash -c \
	"[ $rc -eq 0 ] && grep -q '^Subject: .* nightly-2026-11-04-bb: ' $WORK/out &&
	 grep -q '^commit: nightly-2026-11-04-bb\$' $WORK/out && grep -q '^base: nightly-2026-11-03-aa\$' $WORK/out"

# compare --results R --commits A,B without --job: every atomic job both commits have.
sb compare --results "$FIX/results-sweep" --commits base,patched
check "no --job: every atomic job compared, one table each, headed by its name" bash -c \
	"[ $rc -eq 1 ] && grep -q '^process-1-page_fault3\$' $WORK/out && grep -q '^process-2-page_fault3\$' $WORK/out &&
	 [ \$(grep -c '^commit:\$' $WORK/out) -eq 2 ]"
sb compare --json --results "$FIX/results-sweep" --commits base,patched
json_later "no --job, --json: {jobs: [...]}, one entry per job, named" "$WORK/out" \
	"[e['job'] for e in d['jobs']] == ['process-1-page_fault3', 'process-2-page_fault3'] and all(e['stats'] for e in d['jobs'])"
sb compare --json --results "$FIX/results-sweep" --job process-2-page_fault3 --commits base,patched
json_later "--json of one job: the same {jobs: [...]} shape, the job named" "$WORK/out" \
	"list(d) == ['jobs'] and len(d['jobs']) == 1 and d['jobs'][0]['job'] == 'process-2-page_fault3'"
rm -r "$WORK/nights/will-it-scale/process-2-page_fault3"/*/*/*/*/nightly-2026-11-04-bb
sb compare --results "$WORK/nights" --commits nightly-2026-11-03-aa,nightly-2026-11-04-bb
check "no --job: a job one commit lacks is named and left out, the others compared" bash -c \
	"[ $rc -le 1 ] && grep -q '^commit:\$' $WORK/out && ! grep -q '^process-2-page_fault3\$' $WORK/out &&
	 grep -q \"job 'process-2-page_fault3' has runs at commit 'nightly-2026-11-03-aa' but none at 'nightly-2026-11-04-bb'\" $WORK/err"
sb compare --results "$WORK/nights" --commits nightly-2026-11-03-aa,no-such-commit
check "no --job, no job at every commit: exit 2, says so" bash -c \
	"[ $rc -eq 2 ] && grep -q 'no atomic job has runs at every commit' $WORK/err"

# Runs whose meta.json says the machine was busy: compare names the group and the reason under
# the table; a scalability above 100% is flagged as suspect.
cp -r "$FIX/results" "$WORK/busy"
B="$WORK/busy/will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12"
python3 - "$B" <<'PY'
import glob, json, sys
for meta in glob.glob(sys.argv[1] + '/patched/*/meta.json'):
    d = json.load(open(meta))
    d['machine_load'] = {'runnable_mean': 5.6, 'runnable_max': 7, 'samples': 5, 'steal_pct': 0.0,
                         'cpu_mhz_mean': None, 'nr_cpus': 2, 'nr_task': 2, 'busy': True,
                         'reason': "5.6 runnable tasks on 2 CPUs besides the testcase's 2 copies"}
    json.dump(d, open(meta, 'w'))
for stats in glob.glob(sys.argv[1] + '/*/*/stats.json'):
    d = json.load(open(stats))
    d['will-it-scale.scalability'] = 196.0 if '/patched/' in stats else 98.0
    json.dump(d, open(stats, 'w'))
PY
sb compare "$B/base" "$B/patched"
check "busy machine: a note under the table names the group and the reason" bash -c \
	"[ $rc -eq 1 ] && grep -q \"^note: patched: 5 of 5 runs measured on a busy machine: 5.6 runnable tasks on 2 CPUs besides the testcase's 2 copies\" $WORK/out &&
	 ! grep -q '^note: base:.*busy' $WORK/out"
check "scalability above 100%: flagged as suspect, the group named" bash -c \
	"grep -q '^note: patched: will-it-scale.scalability 196% is above linear: suspect' $WORK/out && ! grep -q '^note: base: will-it-scale.scalability' $WORK/out"
sb compare --json "$B/base" "$B/patched"
json_later "busy machine in JSON: busy runs and the reason per group" "$WORK/out" \
	"[g['busy_runs'] for g in d['jobs'][0]['groups']] == [0, 5] and 'runnable' in d['jobs'][0]['groups'][1]['busy_reason']"
sb compare "$G/base" "$G/patched"
check "runs without machine_load (stored before it): no busy note" bash -c "! grep -q 'busy machine' $WORK/out"

# --json over a tree whose first job (in listing order) has no runs at one commit: every
# --job form and none, the commit directory gone, empty, or holding only incomplete runs.
# Each output is one valid JSON document; the other job is still compared.
P1=will-it-scale/process-1-page_fault3/box/debian-12-x86_64/defconfig/gcc-12
for shape in gone empty incomplete; do
	cp -r "$WORK/gaps" "$WORK/gap-$shape"
	case $shape in
	gone) rm -r "$WORK/gap-$shape/$P1/c12" ;;
	empty) rm -r "$WORK/gap-$shape/$P1/c12"/* ;;
	incomplete) rm "$WORK/gap-$shape/$P1/c12"/*/stats.json ;;
	esac
	for form in none name file; do
		case $form in
		none) jobarg=() ;;
		name) jobarg=(--job process-1-page_fault3) ;;
		file) jobarg=(--job "$FIX/sweep.yaml") ;;
		esac
		sb compare --json --results "$WORK/gap-$shape" "${jobarg[@]}" --commits c01,c12
		json_later "--json, first job without runs at c12 ($shape, --job $form): one valid document" \
			"$WORK/out" "$rc <= 2"
		[ $form = name ] && continue
		json_later "--json, first job without runs at c12 ($shape, --job $form): the second job compared" \
			"$WORK/out" \
			"[e['job'].split('-', 1)[-1] if e['job'].startswith('sweep-') else e['job'] for e in d['jobs'] if 'stats' in e] == ['process-2-page_fault3'] and d['jobs'][-1]['regression']"
	done
done

# Names from the tree reach the terminal escaped: a stat named with a newline and a terminal
# escape, a commit label with a tab, a headline declared with both.  No raw ESC, no row split.
python3 - "$WORK/evil" <<'PY'
import json, os, sys
evil = "evil\nstat\x1b[2J"
meta = {"suite": "ev", "testcase": "page_fault3", "mode": "process",
        "headline": {"stat": "ev." + evil, "direction": "higher"}, "families": {"ev": "headline"}}
for commit, v in (("base", 1000), ("lab\tel", 700)):
    for tasks in (1, 2):
        for run in range(3):
            d = f"{sys.argv[1]}/will-it-scale/process-{tasks}-page_fault3/box/debian-12-x86_64/defconfig/gcc-12/{commit}/{run}"
            os.makedirs(d)
            json.dump({"ev." + evil: v * tasks + run, "will-it-scale.workload": v * tasks + run,
                       "x." + evil: 5 * run + (50 if commit == "base" else 0)},
                      open(f"{d}/stats.json", "w"))
            json.dump(dict(meta, nr_task=tasks), open(f"{d}/meta.json", "w"))
PY
E=$WORK/evil/will-it-scale/process-1-page_fault3/box/debian-12-x86_64/defconfig/gcc-12
# escaped_out NAME: stdout holds no ESC, no line starting with the name's second half, and
# the escaped forms of the names it shows.
escaped_out() {
	check "$1: no raw ESC or control character, no row split" bash -c \
		"! grep -q \$'[\x01-\x08\x0b-\x1f\x7f]' $WORK/out && ! grep -q '^stat' $WORK/out && ! grep -q \$'\t' $WORK/out"
	check "$1: the names shown escaped" bash -c \
		"grep -qF 'evil\\nstat\\x1b[2J' $WORK/out && grep -qF 'lab\\tel' $WORK/out"
}
sb compare --all -v "$E/base" "$E/lab	el"
check "escaping: compare of the evil tree runs (exit 1)" [ $rc -eq 1 ]
escaped_out "compare table"
sb compare --rule lkp --all "$E/base" "$E/lab	el"
escaped_out "compare --rule lkp table"
sb compare --format mmtests --results "$WORK/evil" --job "$FIX/sweep.yaml" --commits "base,lab	el"
escaped_out "compare --format mmtests"
sb compare --results "$WORK/evil" --commits "base,lab	el"
escaped_out "compare without --job (job headings)"
sb compare --json "$E/base" "$E/lab	el"
json_later "compare --json: the names exact (JSON escapes them itself)" "$WORK/out" \
	"d['jobs'][0]['groups'][1]['commit'] == 'lab\tel' and 'x.evil\nstat\x1b[2J' in stats(d['jobs'][0])"

# Runs of machines of different models: in one group (one commit directory) or across the
# groups, compare refuses them naming both machines and a run of each; --mix-machines compares
# them with a note.  The same model with a little less memory (another kernel) is one machine.
# The trees of the steps below, each a copy of the fixture's tree with the machine facts of its
# runs set (one python start for all): same (base Xeon 192 threads 400000000 KiB, patched the
# same model with 396000000), mixed (same, patched runs 3 and 4 an AMD EPYC 128 500000000),
# amd (mixed without base/4, every patched run AMD), xeon96 (amd, patched Xeon 96 400000000).
P="will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12"
python3 - "$FIX/results" "$WORK" "$P" <<'PY'
import glob, json, os, shutil, sys
fix, work, p = sys.argv[1:]
xeon, amd = ("Intel(R) Xeon(R) Platinum 8160", 192, 400000000), ("AMD EPYC 7763 64-Core Processor", 128, 500000000)
def machine(root, commit, facts, runs=None):
    for meta in glob.glob(f"{root}/{p}/{commit}/*/meta.json"):
        if runs and os.path.basename(os.path.dirname(meta)) not in runs:
            continue
        m = json.load(open(meta))
        m["machine"].update(cpu_model=facts[0], threads=facts[1], memory_kib=facts[2])
        json.dump(m, open(meta, "w"))
prev = None
for state in ("same", "mixed", "amd", "xeon96"):
    root = f"{work}/mix-{state}"
    shutil.copytree(prev or fix, root)
    if state == "same":
        machine(root, "base", xeon)
        machine(root, "patched", (xeon[0], 192, 396000000))
    elif state == "mixed":
        machine(root, "patched", amd, ("3", "4"))
    elif state == "amd":
        shutil.rmtree(f"{root}/{p}/base/4")
        machine(root, "patched", amd)
    else:
        machine(root, "patched", (xeon[0], 96, 400000000))
    prev = root
PY
M=$WORK/mix-same/$P
sb compare "$M/base" "$M/patched"
check "one machine model (memory 1% apart): compared, no machine note" bash -c \
	"[ $rc -eq 1 ] && ! grep -q 'different models' $WORK/err"
M=$WORK/mix-mixed/$P
sb compare "$M/base" "$M/patched"
check "two machine models in one commit directory: exit 2 naming both and where each was seen" \
	bash -c "[ $rc -eq 2 ] && grep -q \"different models: 'Intel(R) Xeon(R) Platinum 8160', 192 threads, 381.5 GiB (seen in $M/base/0) and 'AMD EPYC 7763 64-Core Processor', 128 threads, 476.8 GiB (seen in $M/patched/3)\" $WORK/err && grep -q -- '--mix-machines' $WORK/err"
sb compare --json "$M/base" "$M/patched"
json_later "two machine models, --json: the error in the job's entry" "$WORK/out" \
	"'different models' in d['jobs'][0]['error'] and 'AMD EPYC' in d['jobs'][0]['error']"
sb compare --mix-machines "$M/base" "$M/patched"
check "--mix-machines: compared, a note names both machines" bash -c \
	"[ $rc -eq 1 ] && grep -q 'per_process_ops' $WORK/out && grep -q \"note: runs measured on machines of different models are compared (--mix-machines): 'Intel.*(seen in $M/base/0) and 'AMD EPYC.*(seen in $M/patched/3)\" $WORK/err"
M=$WORK/mix-amd/$P
sb compare "$M/base" "$M/patched"
check "groups each of one machine, of two models: exit 2" bash -c \
	"[ $rc -eq 2 ] && grep -q \"Xeon.*(seen in $M/base/0) and 'AMD EPYC.*(seen in $M/patched/0)\" $WORK/err"
M=$WORK/mix-xeon96/$P
sb compare "$M/base" "$M/patched"
check "same CPU model, other thread count: another machine, exit 2" bash -c \
	"[ $rc -eq 2 ] && grep -q '96 threads' $WORK/err"
sb compare --results "$WORK/mix-xeon96" --commits base,patched
check "--results --commits: the same refusal" bash -c "[ $rc -eq 2 ] && grep -q 'different models' $WORK/err"
# report (and nightly, html: the same check) only notes it: the mail still goes out.
M=$WORK/mix-amd/$P
sb report --base base --head patched --results "$WORK/mix-amd" --mbox "$WORK/mix.mbox"
check "report over two machine models: a note naming both, the mail written" bash -c \
	"[ $rc -ne 2 ] && grep -q \"runs measured on machines of different models: 'Intel.*(seen in $M/base/0) and 'AMD EPYC.*(seen in $M/patched/0)\" $WORK/err && [ -s $WORK/mix.mbox ]"

json_later_run

# Instruction-count runs (meta.json vm.icount): a 0.5% path-length change at a 0.01% spread is
# a change (the noise threshold is 0.1% there, not 1%), said as a path-length change; the
# same numbers from timed runs are below the threshold.  A 0.05% one is no change either way.
python3 - "$WORK/ic" <<'PY'
import json, os, sys
root = sys.argv[1]
for mode in ("icount", "timed"):
    for commit, base in (("a", 4000000.0), ("b", 4000000.0 * 0.995), ("c", 4000000.0 * 0.9995)):
        for r in range(3):
            d = os.path.join(root, mode, "will-it-scale/process-1-getppid1/vm/debian-12-x86_64/defconfig/gcc-12", commit, str(r))
            os.makedirs(d)
            v = base * (1 + (r - 1) * 0.0001)
            json.dump({"will-it-scale.per_process_ops": v, "will-it-scale.workload": v}, open(d + "/stats.json", "w"))
            meta = {"suite": "will-it-scale", "headline": {"stat": "will-it-scale.per_process_ops", "direction": "higher"},
                    "families": {"will-it-scale": "headline"}}
            if mode == "icount":
                meta["vm"] = {"icount": True, "accelerator": "tcg"}
            json.dump(meta, open(d + "/meta.json", "w"))
PY
IC=will-it-scale/process-1-getppid1/vm/debian-12-x86_64/defconfig/gcc-12
sb compare "$WORK/ic/icount/$IC/a" "$WORK/ic/icount/$IC/b"
check "icount runs: a 0.5% change at 0.01% spread is a regression (exit 1), said as path length" \
	bash -c "[ $rc = 1 ] && grep -q 'path-length changes' '$WORK/out' && grep -q 'noise threshold is 0.1%' '$WORK/out'" ||
	sed 's/^/     /' "$WORK/out"
sb compare "$WORK/ic/timed/$IC/a" "$WORK/ic/timed/$IC/b"
check "timed runs: the same 0.5% is below the 1% threshold (exit 0), no path-length note" \
	bash -c "[ $rc = 0 ] && ! grep -q 'path-length' '$WORK/out'"
sb compare "$WORK/ic/icount/$IC/a" "$WORK/ic/icount/$IC/c"
check "icount runs: a 0.05% change is below the 0.1% threshold (exit 0)" [ $rc = 0 ]
sb compare --json "$WORK/ic/icount/$IC/a" "$WORK/ic/icount/$IC/b"
json_later "icount runs: --json says icount, threshold 0.1" "$WORK/out" \
	"d['jobs'][0]['icount'] is True and d['jobs'][0]['threshold_pct'] == 0.1"

# One policy for "the runs of job J at commit C" (analyze/select.h): a path_params that two
# machines ran is ambiguous, the error names both keys, and a key picks one machine.
mkdir -p "$WORK/two"
cp -r "$FIX/results/will-it-scale" "$WORK/two/"
T=$WORK/two/will-it-scale/process-100%-page_fault3
cp -r "$T/lkp-skl-4sp1" "$T/lkp-icl-2sp2"
K1=will-it-scale/process-100%-page_fault3/lkp-icl-2sp2/debian-12-x86_64/defconfig/gcc-12
K2=will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12
sb compare --results "$WORK/two" --job 'process-100%-page_fault3' --commits base,patched
check "a path_params two machines ran: exit 2, both keys named, 'name one of them'" \
	bash -c "[ $rc = 2 ] && grep -qF \"job 'process-100%-page_fault3' is ambiguous: it is the path_params of $K1, $K2; name one of them\" '$WORK/err'"
sb compare --results "$WORK/two" --job "$K2" --commits base,patched
check "--job KEY compares that machine's runs: the regression, exit 1" \
	bash -c "[ $rc = 1 ] && grep -q 'will-it-scale.per_process_ops' '$WORK/out'"
sb compare --results "$WORK/two" --job "$K1/x" --commits base,patched
check "--job with a key no directory has: exit 2, 'no directory holds'" \
	bash -c "[ $rc = 2 ] && grep -q 'no directory holds runs of job' '$WORK/err'"

# Runs not interleaved (each commit one window, one after the other): a since-boot counter's
# mean (softirqs.*, LKP's rule) rises run after run on a machine that does not reboot, the
# page cache grows with some noise, and a quiet level (meminfo.Slab) steps by 10%.  With no
# batches of the job at one commit in the tree to say how much two windows differ, none of
# them is a change (the default margin); with the history of commit H, 4 windows in which
# Slab stayed put and the page cache and the counter moved with time, the Slab step is found
# and the others still are not.  And a rate that is the throughput times a constant
# (perf-stat.ps.page-faults) moved with the headline: not changed per op.
python3 - "$WORK/drift" <<'PY'
import json, os, sys
root = sys.argv[1]
wiggle = [300, -200, 100, -200]
job = "will-it-scale/process-1-getppid1/box/debian-12-x86_64/defconfig/gcc-12"
def put(tree, commit, r, t, ops, step):
    d = os.path.join(root, tree, job, commit, str(r))
    os.makedirs(d)
    stats = {"will-it-scale.per_process_ops": ops,
             "softirqs.CPU0.RCU": 600000.0 + 5000 * t,
             "meminfo.Cached": 1000000.0 + 2000 * t + wiggle[r % 4],
             "meminfo.Slab": 300000.0 * step + wiggle[r % 4] / 10,
             "perf-stat.ps.page-faults": ops * 0.25 + wiggle[r % 4] / 100}
    json.dump(stats, open(d + "/stats.json", "w"))
    json.dump({"suite": "will-it-scale", "started": "2026-12-01T%02d:%02d:%02d+0000" % (10 + t // 3600, t // 60 % 60, t % 60),
               "headline": {"stat": "will-it-scale.per_process_ops", "direction": "higher"},
               "families": {"will-it-scale": "headline", "softirqs": "monitor",
                            "meminfo": "monitor", "perf-stat": "monitor"}},
              open(d + "/meta.json", "w"))
for tree, offsets in (("apart", {"A": 0, "B": 30}), ("hist", {"A": 0, "B": 30}),
                      ("mixed", {"A": 0, "B": 1}), ("perop", {"A": 0, "B": 1})):
    for commit, t0 in offsets.items():
        for r in range(4):
            ops = 4000000.0 + 1000 * (r % 2)
            if tree == "perop" and commit == "B":
                ops *= 0.9
            put(tree, commit, r, t0 + 5 * r, ops, 1.1 if commit == "B" and tree in ("apart", "hist") else 1)
# H: 4 windows of 3 runs, 10 minutes apart
for w in range(4):
    for k in range(3):
        put("hist", "H", 3 * w + k, 600 * (w + 1) + 5 * k, 4000000.0 + 1000 * (k % 2), 1)
PY
sb compare --results "$WORK/drift/apart" --commits A,B
check "runs not interleaved, no history: a rising counter, a noisy page-cache trend and a 10% step of a level are not [changed]; one note above the table says the sides were not interleaved, the margin, and how to interleave" \
	python3 -c "
import sys
out = open('$WORK/out').read()
note = out.find(\"note: the commits' runs were not interleaved in time\")
sys.exit(not ($rc == 0 and 0 < note < out.find('%stddev') and 'a margin of 4 times the runs' in out
              and '(run -r 1 --commit A, then --commit B, and again)' in out
              and '[changed]' not in out))" ||
	sed 's/^/     /' "$WORK/out"
sb compare --results "$WORK/drift/hist" --commits A,B
check "runs not interleaved, 4 windows of history at commit H: the 10% step of the quiet level is [changed], the counter and the page cache that move between windows are not; the note names the history" \
	python3 -c "
import sys
out = open('$WORK/out').read()
sys.exit(not ($rc == 0 and 'estimated from\n4 batches of this job at one commit' in out
              and 'meminfo.Slab  [changed]' in out and 'Cached  [' not in out and 'RCU  [' not in out))" ||
	sed 's/^/     /' "$WORK/out"
sb compare --results "$WORK/drift/hist" --commits A,B --all --json
json_later "history: --json gives each stat's batch noise and the batches it came from" "$WORK/out" \
	"[(stats(d['jobs'][0])[k]['groups'][1]['verdict'], stats(d['jobs'][0])[k]['groups'][1]['batch_noise']['batches']) for k in ('meminfo.Slab', 'will-it-scale.per_process_ops')] == [('changed-up', 4), ('no-change', 4)] and stats(d['jobs'][0])['meminfo.Cached']['groups'][1]['verdict'] not in ('changed-up', 'changed-down')"
sb compare --results "$WORK/drift/apart" --commits A,B --all --json
json_later "no history: --json gives the default margin (batches 0), the level not changed" "$WORK/out" \
	"stats(d['jobs'][0])['meminfo.Slab']['groups'][1]['batch_noise']['batches'] == 0 and stats(d['jobs'][0])['meminfo.Slab']['groups'][1]['verdict'] not in ('changed-up', 'changed-down')"

# A batch shift against a real step, sides not interleaved and no history: the headline of
# one window 20% above the other's, its runs spread by 5%, is not called a change (the
# margin: 4 times the spread), the closing lines say why and to interleave; a -5% step of a
# stable testcase (runs spread by 0.1%, as a CPU-bound loop on a quiet machine) still is a
# regression, exit 1.
python3 - "$WORK/batch" <<'PY'
import json, os, sys
root = sys.argv[1]
job = "will-it-scale/thread-1-spin1/box/debian-12-x86_64/defconfig/gcc-12"
for tree, spread, b in (("shift", 0.05, 1.2), ("step", 0.001, 0.95)):
    for commit, t0, level in (("A", 0, 1.0), ("B", 60, b)):
        for r in range(5):
            d = os.path.join(root, tree, job, commit, str(r))
            os.makedirs(d)
            ops = 1e6 * level * (1 + spread * (-1, 1, 0, 1, -1)[r])
            json.dump({"plugin.per_thread_ops": ops}, open(d + "/stats.json", "w"))
            json.dump({"suite": "plugin", "runtime_s": 3.0, "warmup_s": 1.0,
                       "started": "2026-12-01T10:%02d:%02d+0000" % divmod(t0 + 4 * r, 60),
                       "headline": {"stat": "plugin.per_thread_ops", "direction": "higher"},
                       "families": {"plugin": "headline"}}, open(d + "/meta.json", "w"))
PY
sb compare --results "$WORK/batch/shift" --commits A,B
check "a 20% batch shift at 5% spread, not interleaved: inconclusive (exit 3), not an improvement; the closing lines say to interleave, not to add runs" \
	bash -c "[ $rc = 3 ] && grep -q 'per_thread_ops, B against A: inconclusive' '$WORK/out' && grep -q 'Interleave the' '$WORK/out' && grep -q 'for i in 1 2 3 4 5; do scalebench run JOB.yaml --commit A -r 1' '$WORK/out' && ! grep -q 'runs per side would' '$WORK/out'" ||
	sed 's/^/     /' "$WORK/out"
sb compare --results "$WORK/batch/step" --commits A,B
check "a -5% step at 0.1% spread, not interleaved: still a regression (exit 1)" \
	bash -c "[ $rc = 1 ] && grep -q 'per_thread_ops, B against A: regression' '$WORK/out'" ||
	sed 's/^/     /' "$WORK/out"
sb compare --results "$WORK/drift/mixed" --commits A,B
check "the same counter, runs interleaved: no drift note (the means agree)" \
	bash -c "[ $rc = 0 ] && ! grep -q 'drift' '$WORK/out'"
sb compare --results "$WORK/drift/perop" --commits A,B
check "a rate that only follows the headline (-10%) is not [changed]: a note says its value per op did not change" \
	bash -c "[ $rc = 1 ] && ! grep -q 'page-faults  \[' '$WORK/out' && grep -q 'note: 1 monitor stat (perf-stat.ps.page-faults) moved with the headline (will-it-scale.per_process_ops) but not per op' '$WORK/out'" ||
	sed 's/^/     /' "$WORK/out"
sb compare --results "$WORK/drift/perop" --commits A,B --all --json
json_later "per op: --json says verdict per-op-unchanged" "$WORK/out" \
	"stats(d['jobs'][0])['perf-stat.ps.page-faults']['groups'][1]['verdict'] == 'per-op-unchanged'"

# One estimator per verdict: the verdict line's change is the test's own estimate, inside its
# interval (a trimmed test leaves the outlier out; the table's %change is of the means, and
# said when it reads otherwise).  5 v 5 runs, one outlier at the head: means +21%, trimmed +2%.
python3 - "$WORK/est" <<'PY'
import json, os, sys
for side, vs in {"base": [100, 100.5, 101, 101.5, 102], "head": [102, 102.5, 103, 103.5, 200]}.items():
    for i, v in enumerate(vs):
        d = os.path.join(sys.argv[1], side, str(i))
        os.makedirs(d)
        json.dump({"will-it-scale.per_process_ops": v}, open(d + "/stats.json", "w"))
PY
sb compare "$WORK/est/base" "$WORK/est/head"
check "verdict line: the test's estimate inside its own interval, the table's change named" python3 -c "
import re, sys
m = re.search(r'head against base: \w+ \(([-+][0-9.]+)%, 95% interval \[([-+][0-9.]+)%, ([-+][0-9.]+)%\]; the table.s \+21.0% is of the means', open('$WORK/out').read())
sys.exit(not (m and float(m.group(2)) <= float(m.group(1)) <= float(m.group(3))))"
sb compare --json "$WORK/est/base" "$WORK/est/head"
json_later "--json: each group's estimate lies inside its interval (change stays the means')" "$WORK/out" \
	"all(g['interval'][0] <= g['estimate'] <= g['interval'][1] for s in d['jobs'][0]['stats'] for g in s['groups'][1:] if g.get('estimate') is not None) and [g['change'] for s in d['jobs'][0]['stats'] for g in s['groups'][1:]][0] > 20"
