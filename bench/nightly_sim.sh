#!/usr/bin/env bash
# nightly's confirmation policy on synthetic nights (bench/nightly_sim.c, the policy's own code,
# analyze/nightly_policy.c): 1,000 series each, 3 runs a night, 30 commits of history.
# Targets (the defaults): A/A at 2% and 10% run noise: <= 1% of job-nights mail anything; a
# -5% step at 2% noise mailed within 3 nights in >= 95% of series, a -2% step within 10 nights
# in >= 70%; 0 duplicates; the culprit inside the recorded range in >= 95% of those mailed.
# Then the same at other --confirm-commits values (K), for the choice of the default.
#
# usage: bench/nightly_sim.sh [SERIES]   exit 1 when a target is missed
set -eu
cd "$(dirname "$0")/.."
for o in build/analyze/nightly_policy.o build/analyze/changepoint.o build/analyze/stats.o; do
	[[ -f $o ]] || { echo "nightly_sim.sh: $o missing; run 'make'" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$tmp/nightly_sim" bench/nightly_sim.c \
	build/analyze/nightly_policy.o build/analyze/changepoint.o build/analyze/stats.o -lRmath -lm
n=${1:-1000}
"$tmp/nightly_sim" "$n" | tee "$tmp/out"
for k in 2 4; do
	echo
	"$tmp/nightly_sim" "$n" 3 "$k" | sed 1d
done
awk '
/^A\/A/ { gsub("%", "", $4); if ($4 + 0 > 1) bad = bad " A/A at " $3 }
/^step  -5% noise  2.0%/ { gsub("[%,]", "", $9); if ($9 + 0 < 95) bad = bad " -5%-in-3" }
/^step  -2% noise  2.0%/ { gsub("[%;]", "", $12); if ($12 + 0 < 70) bad = bad " -2%-in-10" }
/noise  2.0%/ && /^step/ { for (i = 1; i <= NF; i++) { if ($i == "duplicates" && $(i + 1) + 0 > 0) bad = bad " duplicates"
	if ($i == "range") { v = $(i + 1); gsub("%", "", v); if (v + 0 < 95) bad = bad " range" } } }
END { if (bad != "") { print "target missed:" bad > "/dev/stderr"; exit 1 } }' "$tmp/out"
