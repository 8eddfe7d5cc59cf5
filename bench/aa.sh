#!/usr/bin/env bash
# A real A/A and a real A/B with a known -5%, as issue 27's done-when asks: page_fault3
# (jobs/page_fault3.yaml, its 4 atomic jobs on 2 CPUs) 4 v 4 runs of 3 s, the default
# monitors, every run of aa-A before every run of aa-B (not interleaved); and a plug-in that
# spins 100 iterations per op against one that spins 105 (-4.8%), 5 v 5 runs, not
# interleaved.  Then compare both and count the rows called a change in the A/A ([changed],
# and a headline's [regression] or [improvement]; target: at most 1) and the A/B's headline
# verdict (target: regression).
#
# usage: bench/aa.sh DIR [--compare-only]
#   DIR holds the runs (DIR/aa, DIR/ab) and the tables (DIR/aa.txt, DIR/ab.txt).
#   --compare-only compares the runs already in DIR again (another binary: env SB).
# env: SB (default build/scalebench), RUNTIME (3s), REPEAT (4).
# exit: 0 targets met, 1 missed, 2 bad usage.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
sb=${SB:-$top/build/scalebench}
dir=${1:?usage: bench/aa.sh DIR [--compare-only]}
only=${2:-}
runtime=${RUNTIME:-3s}
repeat=${REPEAT:-4}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

if [ "$only" != --compare-only ]; then
	rm -rf "$dir/aa" "$dir/ab"
	uptime >"$dir/load.txt"
	for side in aa-A aa-B; do
		"$sb" run "$top/jobs/page_fault3.yaml" --runtime "$runtime" -r "$repeat" \
			--commit "$side" --results "$dir/aa" -q 2>>"$dir/run.log"
		uptime >>"$dir/load.txt"
	done
	cat >"$dir/spin.yaml" <<YAML
suite: will-it-scale
testcase: will-it-scale
runtime: $runtime
nr_task: 1
will-it-scale: {mode: thread, test: spin1}
YAML
	cat >"$dir/spin.c" <<'C'
#include <scalebench/testcase.h>
static int spin_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	(void)copy;
	for (;;) {
		for (volatile int k = 0; k < SPIN; k++)
			;
		(*iterations)++;
	}
	return 0;
}
static const struct testcase tc_spin = {
	.name = "spin1", .description = "SPIN iterations per op", .suite = "plugin",
	.op = "spin", .run = spin_run,
};
SCALEBENCH_PLUGIN(&tc_spin);
C
	for spin in 100 105; do
		cc -std=c11 -O2 -DSPIN=$spin -I"$top/build/include" -shared -fPIC \
			-o "$dir/spin$spin.so" "$dir/spin.c"
		"$sb" run "$dir/spin.yaml" --plugin "$dir/spin$spin.so" -r 5 --commit "spin$spin" \
			--results "$dir/ab" -q 2>>"$dir/run.log"
		uptime >>"$dir/load.txt"
	done
fi

st=0
"$sb" compare --results "$dir/aa" --commits aa-A,aa-B >"$dir/aa.txt" 2>&1 || st=$?
echo "aa exit $st" >>"$dir/aa.txt"
st=0
"$sb" compare --results "$dir/ab" --commits spin100,spin105 >"$dir/ab.txt" 2>&1 || st=$?
echo "ab exit $st" >>"$dir/ab.txt"

changed=$(grep -c '\[changed\]' "$dir/aa.txt" || true)
# every row called a change, the headlines' [regression] and [improvement] too
moved=$(grep -cE '  \[(changed|regression|improvement)\]$' "$dir/aa.txt" || true)
headlines=$(grep -E '^will-it-scale\.per_(process|thread)_ops, ' "$dir/aa.txt" |
	sed -E 's/^([^,]*), .*: ([a-z-]+) .*/\2/' | sort | uniq -c | tr -s ' \n' ' ')
verdict=$(sed -nE 's/^plugin\.per_thread_ops, .*: ([a-z-]+) \(([^,]*),.*/\1 \2/p' "$dir/ab.txt")
echo "load: $(tr '\n' ';' <"$dir/load.txt" | sed -E 's/ +/ /g')"
echo "A/A: $moved rows called a change ($changed [changed]; target <= 1); headline verdicts:$headlines"
echo "A/B -5%: $verdict (target: regression)"
[ "$moved" -le 1 ] && [ "${verdict%% *}" = regression ]
