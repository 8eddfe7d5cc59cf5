#!/usr/bin/env bash
# The results index: a generated tree of COMMITS commits x RUNS runs x STATS stats (one job;
# bench/gen_tree.c), measured in one run: a plain parse of every stats.json (what a reader
# without the index does), the full index build (`scalebench index --rebuild`), the incremental
# update after one new commit, and one stat's series from the index.
# Targets: build < 60 s, update < 1 s, query < 50 ms.
#
# usage: bench/index.sh [-c COMMITS] [-r RUNS] [-s STATS]   exit 1 when a target is missed
set -eu
cd "$(dirname "$0")/.."
commits=1000
runs=5
stats=2000
while getopts c:r:s:h opt; do
	case $opt in
	c) commits=$OPTARG ;;
	r) runs=$OPTARG ;;
	s) stats=$OPTARG ;;
	*) echo "usage: bench/index.sh [-c COMMITS] [-r RUNS] [-s STATS]" >&2; exit 2 ;;
	esac
done
sb=build/scalebench
for b in $sb build/bench/gen_tree build/bench/index_bench; do
	[[ -x $b ]] || { echo "index.sh: $b missing; run 'make bench'" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/results

t0=$(date +%s.%N)
build/bench/gen_tree "$root" "$commits" "$runs" "$stats"
t1=$(date +%s.%N)
gen=$(awk "BEGIN { printf \"%.0f\", $t1 - $t0 }")
# Cold caches are not what is measured: the tree was just written, as after a night's runs.
parse=$(build/bench/index_bench parse "$root")
build_out=$($sb index --results "$root" --rebuild)
build_s=$(sed -n 's/^seconds: //p' <<<"$build_out")
build/bench/gen_tree "$root" 1 "$runs" "$stats" 1 "$commits"
upd_out=$($sb index --results "$root")
upd_s=$(sed -n 's/^seconds: //p' <<<"$upd_out")
upd_added=$(sed -n 's/^runs added: //p' <<<"$upd_out")
job=process-1-page_fault1
query=$(build/bench/index_bench query "$root" "$job" will-it-scale.per_process_ops)
query_ms=$(sed -n 's/.* \([0-9.]*\) ms with the up-to-date check.*/\1/p' <<<"$query")
parse_s=$(sed -n 's/.*values, \([0-9.]*\) s$/\1/p' <<<"$parse")
size_mb=$(( $(stat -c %s "$root/.scalebench-index.sqlite") / 1048576 ))
tree_mb=$(du -sm "$root" | cut -f1)

pass() { awk "BEGIN { exit !($1) }" && echo PASS || echo FAIL; }
b_ok=$(pass "$build_s < 60")
u_ok=$(pass "$upd_s < 1 && $upd_added == $runs")
q_ok=$(pass "$query_ms < 50")
echo "Index: $commits commits x $runs runs x $stats stats, one job (tree ${tree_mb} MB, made in ${gen%.*} s; index ${size_mb} MB):"
echo "| plain parse of every stats.json | $parse_s s ($(sed -n 's/^parse: \(.*\), [0-9.]* s$/\1/p' <<<"$parse")) | for comparison | |"
echo "| full index build (index --rebuild) | $build_s s ($(awk "BEGIN { printf \"%.1f\", $build_s / $parse_s }") x the parse) | target < 60 s | $b_ok |"
echo "| incremental update, one new commit ($upd_added runs read) | $upd_s s | target < 1 s | $u_ok |"
echo "| one stat's series (${query#query: }) | $query_ms ms | target < 50 ms | $q_ok |"
[[ $b_ok == PASS && $u_ok == PASS && $q_ok == PASS ]]
