#!/usr/bin/env bash
# scalebench html's cost on a generated tree (build/bench/gen_tree: COMMITS commits x RUNS runs
# x STATS stats per job, JOBS jobs): the results index brought up to date first (its own
# benchmark measures that), then the full site, a second run with nothing new (every file
# kept), and the regeneration after one new commit of every job, the index's incremental
# update included.  Target: the regeneration under 10 s.
#
# usage: bench/html.sh [-c COMMITS] [-r RUNS] [-s STATS] [-j JOBS] [-k DIR]
#   -k DIR: keep the tree and the site in DIR (made by an earlier call when it holds one)
#   exit 1 when the target is missed
set -eu
cd "$(dirname "$0")/.."
commits=1000
runs=5
stats=2000
jobs=1
keep=
while getopts c:r:s:j:k:h opt; do
	case $opt in
	c) commits=$OPTARG ;;
	r) runs=$OPTARG ;;
	s) stats=$OPTARG ;;
	j) jobs=$OPTARG ;;
	k) keep=$OPTARG ;;
	*) echo "usage: bench/html.sh [-c COMMITS] [-r RUNS] [-s STATS] [-j JOBS] [-k DIR]" >&2; exit 2 ;;
	esac
done
sb=build/scalebench
gen=build/bench/gen_tree
[[ -x $sb && -x $gen ]] || { echo "html.sh: $sb or $gen missing; run 'make bench'" >&2; exit 2; }
if [[ -n $keep ]]; then
	tmp=$keep
	mkdir -p "$tmp"
else
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
fi

# seconds CMD...: run it, print its wall time in seconds; its output goes to $tmp/out.
seconds() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 2; }
	t1=$(date +%s.%N)
	awk "BEGIN { printf \"%.2f\", $t1 - $t0 }"
}

if [[ ! -d $tmp/r ]]; then
	echo "generating $jobs job(s) x $commits commits x $runs runs x $stats stats..."
	t=$(seconds "$gen" "$tmp/r" "$commits" "$runs" "$stats" "$jobs")
	echo "  $t s"
fi
rm -rf "$tmp/site"
t_index=$(seconds "$sb" index --results "$tmp/r")
t_full=$(seconds "$sb" html --results "$tmp/r" -o "$tmp/site")
full_out=$(cat "$tmp/out")
t_noop=$(seconds "$sb" html --results "$tmp/r" -o "$tmp/site")
noop_out=$(cat "$tmp/out")
"$gen" "$tmp/r" 1 "$runs" "$stats" "$jobs" "$commits" >/dev/null
t_regen=$(seconds "$sb" html --results "$tmp/r" -o "$tmp/site")
regen_out=$(cat "$tmp/out")

ok=$(awk "BEGIN { print ($t_regen < 10) }")
echo "html: $jobs job(s) x $commits commits x $runs runs x $stats stats"
echo "| index brought up to date first | ${t_index} s | |"
echo "| full site | ${t_full} s: ${full_out#*: } | |"
echo "| again, nothing new | ${t_noop} s: ${noop_out#*: } | |"
echo "| after one new commit per job (index update included) | ${t_regen} s: ${regen_out#*: } | target < 10 s | $([[ $ok = 1 ]] && echo PASS || echo FAIL) |"
[[ $ok = 1 ]]
