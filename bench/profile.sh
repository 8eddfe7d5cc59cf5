#!/usr/bin/env bash
# What perf-profile's sampling costs the workload it watches: page_fault3 at every online CPU,
# with the perf-profile monitor alone at 1000 Hz per CPU (A) and with no monitor (B), ABAB...
# in one run, because this machine swings 10-50% between minutes and only adjacent runs
# compare.  Reported: the median of the per-round A/B ratios.  Target: under 3%.
#
# usage: bench/profile.sh [-r ROUNDS] [-s SECONDS_PER_RUN]   (or env ROUNDS, ROUND_S)
# exit: 0 target met, 1 missed (after printing everything), 2 bad usage.
set -eu

. "$(dirname "$0")/rounds.sh"

cat >"$tmp/job.yaml" <<YAML
runtime: ${round_s}s
warmup: 1
nr_task: 100%
perf-profile: {freq: 1000}
will-it-scale: {mode: process, test: page_fault3}
YAML

# One run into its own results root; prints per_process_ops.  A run that fails (a shared
# machine: the binary rebuilt under it, a full disk) is tried again, twice at most.
one_run() {
	local root=$tmp/$1 try
	for try in 1 2 3; do
		rm -rf "$root"
		if $sb run "$tmp/job.yaml" --results "$root" -q "${@:2}" 2>"$tmp/err" &&
			python3 -c 'import json,glob,sys; print(json.load(open(glob.glob(sys.argv[1] + "/**/stats.json", recursive=True)[0]))["will-it-scale.per_process_ops"])' "$root" 2>>"$tmp/err"; then
			return 0
		fi
		echo "profile.sh: run $1 failed (try $try):" >&2
		sed 's/^/  /' "$tmp/err" | head -5 >&2
	done
	return 1
}

echo "page_fault3, $(nproc) copies: perf-profile at 1000 Hz (A) vs no monitor (B), $rounds rounds of $round_s s"
printf '%5s %16s %16s %9s\n' round "A profile" "B none" "A/B"
as=() bs=()
for ((i = 1; i <= rounds; i++)); do
	a=$(one_run a)
	b=$(one_run b --no-monitors)
	as+=("$a") bs+=("$b")
	printf '%5d %16.0f %16.0f %9.4f\n' "$i" "$a" "$b" "$(python3 -c "print($a/$b)")"
done

python3 - "$rounds" "$round_s" "${as[*]}" "${bs[*]}" <<'PY'
import statistics as st, sys
rounds, round_s, a, b = sys.argv[1:]
a = [float(x) for x in a.split()]
b = [float(x) for x in b.split()]
ratios = [x / y for x, y in zip(a, b)]
cost = 100 * (1 - st.median(ratios))
noise = 100 * st.stdev(ratios) if len(ratios) > 1 else float("nan")
ok = cost < 3
print(f"\nperf-profile cost (page_fault3, per_process_ops, {rounds} interleaved rounds of {round_s} s):")
print(f"| with perf-profile     | {st.median(a):,.0f} ops/s per copy (median) |")
print(f"| no monitors           | {st.median(b):,.0f} ops/s per copy (median) |")
print(f"| profile cost          | {cost:.2f}% (median of round ratios; rounds {100 * (1 - max(ratios)):.2f}% to {100 * (1 - min(ratios)):.2f}%) |")
print(f"| noise                 | {noise:.2f}% (stdev of round ratios) |")
print(f"\nReproduce: bench/profile.sh -r {rounds} -s {round_s}\n")
print(f"{'PASS' if ok else 'FAIL'}: perf-profile costs under 3% of the throughput ({cost:.2f}%)")
sys.exit(0 if ok else 1)
PY
