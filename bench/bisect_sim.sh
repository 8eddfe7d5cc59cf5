#!/usr/bin/env bash
# Bisection decisions on synthetic runs (bench/bisect_sim.c): at 2%, 3% and 5% shifts with 2%
# noise, 1,000 trials each, the wrong-classification rate and the runs per midpoint of the
# SPRT that scalebench bisect uses, beside the robot's fixed 4 runs + LKP rule.  Target: at a
# 5% shift, under 1% wrong with under 5 runs per midpoint on average.
#
# usage: bench/bisect_sim.sh [TRIALS [NOISE_PCT [SHIFT_PCT...]]]   exit 1 when the target is missed
set -eu
cd "$(dirname "$0")/.."
for o in build/analyze/bisect.o build/analyze/stats.o; do
	[[ -f $o ]] || { echo "bisect_sim.sh: $o missing; run 'make'" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$tmp/bisect_sim" bench/bisect_sim.c \
	build/analyze/bisect.o build/analyze/stats.o -lRmath -lm
"$tmp/bisect_sim" "${1:-1000}" "${2:-2}" "${@:3}" | tee "$tmp/out"
# The 5% row: SPRT wrong (%) and runs per midpoint.
awk '$1 == "5%" { gsub("%", "", $4); if ($4 + 0 >= 1 || $5 + 0 >= 5) bad = 1; seen = 1 }
     END { if (!seen) exit 0; if (bad) { print "target missed at 5%" > "/dev/stderr"; exit 1 } }' "$tmp/out"
