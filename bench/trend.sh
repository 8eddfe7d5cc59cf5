#!/usr/bin/env bash
# Change points on synthetic series with known truth (bench/trend_sim.c, the defaults of
# `scalebench trend`): the detection rate within +-1 commit per step size (-2% .. -10% at 2%
# run noise, 3 runs per commit, 60-200 commits), A/A series of 200 commits, two changes 5-8
# commits apart, one outlier commit, and the time of one detection over 1,000 commits x 5 runs.
# Targets: no change point in >= 99% of A/A series; a detection over 1,000 x 5 (with 3 steps)
# under 50 ms of CPU.
#
# usage: bench/trend.sh [SEEDS [NOISE_PCT [RUNS]]]   (make builds build/bench/trend_sim)
#        exit 1 when a target is missed
set -eu
cd "$(dirname "$0")/.."
sim=build/bench/trend_sim
[[ -x $sim ]] || { echo "trend.sh: $sim missing; run 'make bench' or 'make $sim'" >&2; exit 2; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
nice "$sim" "${1:-1000}" "${2:-2}" "${3:-3}" | tee "$tmp"
awk '/^A\/A/ { sub("%.*", "", $NF); for (i = 1; i <= NF; i++) if ($i == "in") aa = $(i + 1) + 0 }
     /^1,000 commits/ { for (i = 1; i <= NF; i++) if ($i == "ms") t = $(i - 1) }
     END {
	bad = 0
	if (aa < 99) { printf "target missed: A/A clean in %.1f%% < 99%%\n", aa > "/dev/stderr"; bad = 1 }
	if (t + 0 >= 50) { printf "target missed: %s ms >= 50 ms\n", t > "/dev/stderr"; bad = 1 }
	exit bad
     }' "$tmp"
