#!/usr/bin/env bash
# What the harness costs the copies it measures, on getppid1 (the cheapest op, so any
# harness cost shows most there):
#   1. throughput: bare getppid loop (A) vs scalebench's copy 0 (B), ABAB... in one run,
#      because this machine swings 10-50% between minutes: only adjacent runs compare.
#      Reported: the median of the per-round B/A ratios.  Target: overhead under 1%.
#   2. the sampler's own CPU time over a 10 s measurement.  Target: under 0.5% of one CPU.
#
# usage: bench/overhead.sh [-r ROUNDS] [-s SECONDS_PER_ROUND]   (or env ROUNDS, ROUND_S)
# exit: 0 both targets met, 1 a target missed (after printing everything), 2 bad usage.
set -eu

. "$(dirname "$0")/rounds.sh"
bare=build/bench/bare_getppid
[[ -x $bare ]] || { echo "overhead.sh: $bare missing; run 'make bench'" >&2; exit 2; }

# jq may be missing; python3 is there.
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]; print($2)" "$1"; }

harness_ops() {
	$sb bench getppid1 -t 1 -s "$round_s" -w 1 -q --json "$tmp/b.json" >/dev/null
	[[ $(json "$tmp/b.json" "r['cpus'][0]") == 0 ]] ||
		echo "overhead.sh: warning: copy 0 not on CPU 0, the pair is not like for like" >&2
	json "$tmp/b.json" "r['per_process_ops']"
}

# Discarded: the first A would otherwise run on a cold CPU (frequency, caches).
$bare 1 >/dev/null

echo "getppid1, 1 copy on CPU 0: bare loop (A) vs scalebench (B), $rounds rounds of $round_s s"
printf '%5s %14s %14s %9s\n' round "A bare ops/s" "B sb ops/s" "B/A"
as=() bs=()
for ((i = 1; i <= rounds; i++)); do
	a=$($bare "$round_s")
	b=$(harness_ops)
	as+=("$a") bs+=("$b")
	printf '%5d %14.0f %14.0f %9.4f\n' "$i" "$a" "$b" "$(python3 -c "print($b/$a)")"
done

$sb bench getppid1 -t 1 -s 10 -w 1 -q --json "$tmp/s.json" >/dev/null
# sampler_cpu_s spans warmup + window, so dividing by window_s alone is an upper bound.
sampler_cpu=$(json "$tmp/s.json" "r['sampler_cpu_s']")
sampler_win=$(json "$tmp/s.json" "r['window_s']")

python3 - "$rounds" "$round_s" "${as[*]}" "${bs[*]}" "$sampler_cpu" "$sampler_win" <<'EOF'
import statistics as st, sys
rounds, round_s, a, b, cpu, win = sys.argv[1:]
a = [float(x) for x in a.split()]
b = [float(x) for x in b.split()]
ratios = [y / x for x, y in zip(a, b)]
over = 100 * (1 - st.median(ratios))
over_mean = 100 * (1 - st.mean(ratios))
lo, hi = 100 * (1 - max(ratios)), 100 * (1 - min(ratios))
# The round-to-round spread is the noise floor: an overhead below it is not resolved.
noise = 100 * st.stdev(ratios) if len(ratios) > 1 else float("nan")
sampler = 100 * float(cpu) / float(win)
ok1, ok2 = over < 1, sampler < 0.5
verdict = lambda ok: "PASS" if ok else "FAIL"
rows = [
    ("measure", "value", "target", "result"),
    ("bare getppid loop", f"{st.median(a):,.0f} ops/s (median)", "", ""),
    ("scalebench copy 0", f"{st.median(b):,.0f} ops/s (median)", "", ""),
    ("harness overhead", f"{over:.2f}% (median; mean {over_mean:.2f}%, rounds {lo:.2f}% to {hi:.2f}%)",
     "< 1%", verdict(ok1)),
    ("noise (stdev of round ratios)", f"{noise:.2f}%", "", ""),
    ("sampler CPU, 10 s window", f"{sampler:.3f}% of one CPU ({float(cpu) * 1e3:.1f} ms in {float(win):.2f} s)",
     "< 0.5%", verdict(ok2)),
]
w = [max(len(r[i]) for r in rows) for i in range(4)]
line = lambda r: "| " + " | ".join(c.ljust(w[i]) for i, c in enumerate(r)) + " |"
print(f"\nHarness overhead (getppid1, 1 copy pinned to CPU 0, {rounds} interleaved rounds of {round_s} s):\n")
print(line(rows[0]))
print("|" + "|".join("-" * (n + 2) for n in w) + "|")
for r in rows[1:]:
    print(line(r))
cmd = "make bench" if (rounds, round_s) == ("5", "5") else f"ROUNDS={rounds} ROUND_S={round_s} make bench"
print(f"\nReproduce: {cmd}   (runs bench/overhead.sh -r {rounds} -s {round_s})\n")
print(f"{verdict(ok1)}: harness costs under 1% of the copies' throughput ({over:.2f}%)")
print(f"{verdict(ok2)}: sampler uses under 0.5% of one CPU ({sampler:.3f}%)")
sys.exit(0 if ok1 and ok2 else 1)
EOF
