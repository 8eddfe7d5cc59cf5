#!/bin/bash
# lock: slurm: starts a one-node Slurm cluster of this host (slurm.sh)
# waits: Slurm schedules once a second: most of its time is spent waiting for that
# bench/slurm.sh keeps measuring what it says: at 2 and 4 tasks (2 runs per task in the
# several-runs row), no monitor rows, through the binary under test.  Its targets are timings
# and are not checked here (exit 0 or 1 both mean it measured); its one-node cluster and temp
# directory are gone afterwards.
set -u
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	# tests/e2e/slurm.sh's rule: the one-node cluster needs root (the bench says so, exit 2).
	fail "bench/slurm.sh: needs root for its one-node cluster"
	exit 0
fi
ls -d /tmp/scalebench-bench-slurm.* >"$WORK/before" 2>/dev/null
rc=0
SCALEBENCH_BIN=$(realpath "$SCALEBENCH") timeout 900 bench/slurm.sh -n 2,4 -M -b 2 \
	-j "$WORK/b.json" >"$WORK/out" 2>"$WORK/err" || rc=$?
check "bench/slurm.sh -n 2,4 -M -b 2: measured (exit 0 or 1, got $rc)" [ $rc -le 1 ]
[ $rc -le 1 ] || { cat "$WORK/out" "$WORK/err"; exit 0; }

check "JSON: scalebench submit measured, 2 and 4 tasks" json_true "$WORK/b.json" \
	"d['measured'] == 'submit' and d['sizes'] == [2, 4]"
check "JSON: floor, local, sbatch, submit at each size; 2 runs per task at 4 (by hand, and submit --runs-per-task)" json_true \
	"$WORK/b.json" "sorted((r['n'], r['kind']) for r in d['rows']) == sorted([(n, k) for n in (2, 4) for k in ('floor', 'local', 'sbatch', 'submit')] + [(4, 'sbatch -r 2'), (4, 'submit -P 2')])"
check "the verdict judges submit --runs-per-task 2 at 4 runs against 0.2 s per run" \
	grep -q "^\(PASS\|FAIL\): submit --runs-per-task 2, no monitors, 4 runs: .* (target <= 0.2 s)" "$WORK/out"
check "JSON: every wall time above the runs' nominal time (1 s each)" json_true "$WORK/b.json" \
	"all(r['wall'] >= (0 if r['kind'] == 'floor' else r['n']) for r in d['rows'])"
check "JSON: the overhead is wall minus the local wall, per run" json_true "$WORK/b.json" \
	"all(abs(r['overhead_vs_local'] - (r['wall'] - l['wall']) / r['n']) < 1e-9 for r in d['rows'] if r['kind'] == 'submit' for l in d['rows'] if l['kind'] == 'local' and l['n'] == r['n'])"
check "JSON: slurmctld's log broken down for every Slurm row" json_true "$WORK/b.json" \
	"all(r['breakdown'] and r['breakdown']['task_span_mean'] > 0 and r['breakdown']['gap_mean'] >= 0 for r in d['rows'] if r['kind'] != 'local')"
check "the table and a verdict per size printed" bash -c \
	"grep -q '^| 4 | no monitors | scalebench submit + wait |' '$WORK/out' && [ \$(grep -cE '^(PASS|FAIL): submit, no monitors' '$WORK/out') -eq 3 ]"
check "the bench's temp directory is gone" bash -c \
	"[ \"\$(ls -d /tmp/scalebench-bench-slurm.* 2>/dev/null)\" = \"\$(cat '$WORK/before')\" ]"
check "its cluster is stopped" no_procs "scalebench-bench-slurm\.[^/]*/slurm/slurm.conf"
