#!/usr/bin/env bash
# Issue 26's scale as instruction counts (valgrind --tool=callgrind: the same on a loaded
# machine as on an idle one), at two tree sizes in one run: JOBS jobs x C and 2C commits x 5
# runs x STATS stats (bench/gen_tree), one night added (one more commit of every job), then
# counted: the index's quick update after the night (`index --quick`, what nightly and html
# make) and nightly's pass over every job's headline (`nightly --dry-run`).
#
# Judged by ratios between the two sizes, never by absolute counts: the night's update must
# follow the night, not the tree (at twice the commits at most 1.5x the instructions: a whole
# file read back, or a value's insert that seeks through the whole table, fails it); the
# nightly pass at most linear in the commits (1.3 x 2).  Exit 1 when either is exceeded.
#
# usage: bench/scale_count.sh [-j JOBS] [-c COMMITS] [-s STATS]
set -eu
cd "$(dirname "$0")/.."
jobs=2
commits=200
stats=500
runs=5
while getopts j:c:s:h opt; do
	case $opt in
	j) jobs=$OPTARG ;;
	c) commits=$OPTARG ;;
	s) stats=$OPTARG ;;
	*) echo "usage: bench/scale_count.sh [-j JOBS] [-c COMMITS] [-s STATS]" >&2; exit 2 ;;
	esac
done
sb=${SB:-build/scalebench} # SB: another binary, to compare
gen=build/bench/gen_tree
for f in $sb $gen; do
	[[ -x $f ]] || { echo "scale_count.sh: $f missing; run 'make bench'" >&2; exit 2; }
done
command -v valgrind >/dev/null || { echo "scale_count.sh: valgrind missing" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count NAME CMD...: CMD's instructions appended to $tmp/m as "NAME N".
count() {
	local name=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$@" >"$tmp/out" 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; exit 2; }
	echo "$name $(sed -n 's/^summary: //p' "$tmp/cg")" >>"$tmp/m"
}

for c in $commits $((2 * commits)); do
	r=$tmp/r$c
	echo "$jobs jobs x $c commits x $runs runs x $stats stats..." >&2
	$gen "$r" "$c" "$runs" "$stats" "$jobs"
	$sb index --results "$r" >/dev/null
	$gen "$r" 1 "$runs" "$stats" "$jobs" "$c" >/dev/null # the night
	count "index.$c" $sb index --results "$r" --quick
	count "nightly.$c" $sb nightly --results "$r" --dry-run
	rm -rf "$r"
done

python3 - "$tmp/m" "$commits" "$jobs" "$runs" "$stats" <<'PY'
import sys
m, c, jobs, runs, stats = sys.argv[1], *map(int, sys.argv[2:])
v = dict((k, int(n)) for k, n in (line.split() for line in open(m)))
night = jobs * runs * stats
print(f"instructions (callgrind), {jobs} jobs x {runs} runs x {stats} stats, at {c} and {2 * c} commits:")
print(f"| step | {c} commits | {2 * c} commits | ratio | limit |")
print("|---|---|---|---|---|")
ok = True
for key, what, limit in [("index", f"index --quick after one night ({night:,} values)", 1.5),
                         ("nightly", "nightly, every job's headline", 2.6)]:
    a, b = v[f"{key}.{c}"], v[f"{key}.{2 * c}"]
    ratio = b / a
    ok &= ratio <= limit
    print(f"| {what} | {a / 1e6:.1f} M | {b / 1e6:.1f} M | {ratio:.2f} | {limit} {'PASS' if ratio <= limit else 'FAIL'} |")
a = v[f"index.{2 * c}"]
print(f"the night's update at {2 * c} commits: {a / night:,.0f} instructions a value")
sys.exit(0 if ok else 1)
PY
