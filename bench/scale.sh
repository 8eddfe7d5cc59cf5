#!/usr/bin/env bash
# Issue 26's scale: JOBS jobs x COMMITS commits x RUNS runs x STATS stats (bench/gen_tree), one
# night added (one more commit of every job), then timed: the index's update (--quick, as nightly
# and html make it; the full check of every run's files beside it), the nightly pass
# over every job's headline (its state from a --baseline pass before the night), nightly over
# every stat (--stats all --dry-run: the finding is the work, the mailing is not), and the site
# brought up to date (made whole before the night); each with its peak memory (max RSS).
#
# The issue's full size (100 jobs) needs ~80 GB of disk and ~20 minutes of index build here, so
# the tree is built at two sizes in jobs (-j A,B, full size per job) in the same run: the
# ratio of each time between them says how it scales, the larger's time x 100/B is the linear
# extrapolation to 100 jobs, printed beside the targets (index update < 1 s, nightly headline
# < 5 s, nightly --stats all < 60 s, site < 10 s).  Exit 1 when a step grows faster than
# linearly in jobs (its ratio above 1.25 x B/A): a property of the code, not of this machine's
# speed; the targets are reported, not judged (the machine is shared: absolute seconds vary).
#
# usage: bench/scale.sh [-j A,B] [-c COMMITS] [-r RUNS] [-s STATS] [-t TARGET_JOBS]
set -eu
cd "$(dirname "$0")/.."
sizes=2,4
commits=1000
runs=5
stats=2000
target=100
while getopts j:c:r:s:t:h opt; do
	case $opt in
	j) sizes=$OPTARG ;;
	c) commits=$OPTARG ;;
	r) runs=$OPTARG ;;
	s) stats=$OPTARG ;;
	t) target=$OPTARG ;;
	*) echo "usage: bench/scale.sh [-j A,B] [-c COMMITS] [-r RUNS] [-s STATS] [-t TARGET_JOBS]" >&2; exit 2 ;;
	esac
done
sb=build/scalebench
gen=build/bench/gen_tree
for f in $sb $gen /usr/bin/time; do
	[[ -x $f ]] || { echo "scale.sh: $f missing; run 'make bench' (and install time)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure NAME CMD...: CMD's wall seconds and max RSS (KB) appended to $tmp/m as "NAME s kb".
measure() {
	local name=$1
	shift
	/usr/bin/time -f "$name %e %M" -o "$tmp/t" "$@" >"$tmp/out" 2>"$tmp/err" ||
		{ [[ $name == nightly* ]] || { cat "$tmp/err" >&2; exit 2; }; }
	cat "$tmp/t" >>"$tmp/m"
}

IFS=, read -r small big <<<"$sizes"
for j in $small $big; do
	r=$tmp/r$j
	echo "size $j: generating $j jobs x $commits commits x $runs runs x $stats stats..." >&2
	$gen "$r" "$commits" "$runs" "$stats" "$j"
	measure "build.$j" $sb index --results "$r"
	$sb nightly --results "$r" --state "$tmp/state$j" --baseline >/dev/null
	measure "sitefull.$j" $sb html --results "$r" -o "$tmp/site$j"
	$gen "$r" 1 "$runs" "$stats" "$j" "$commits" >/dev/null # the night
	# the quick update nightly and html make (commit directories whose mtime changed), then
	# the full check of every run's files with nothing new, beside it
	measure "index.$j" $sb index --results "$r" --quick
	measure "indexfull.$j" $sb index --results "$r"
	measure "nightly.$j" $sb nightly --results "$r" --state "$tmp/state$j" --mbox "$tmp/mbox$j" --to b@example.org
	measure "nightlyall.$j" $sb nightly --results "$r" --stats all --dry-run
	measure "site.$j" $sb html --results "$r" -o "$tmp/site$j"
	du -sm "$r" | awk -v j="$j" '{print "disk." j, $1, 0}' >>"$tmp/m"
	rm -rf "$r" "$tmp/site$j"
done

python3 - "$tmp/m" "$small" "$big" "$target" "$commits" "$runs" "$stats" <<'PY'
import sys
m, a, b, target, commits, runs, stats = sys.argv[1], *map(int, sys.argv[2:])
v = {}
for line in open(m):
    name, s, kb = line.split()
    v[name] = (float(s), int(kb))
print(f"scale: {commits} commits x {runs} runs x {stats} stats per job, at {a} and {b} jobs, "
      f"extrapolated linearly to {target} jobs:")
print(f"| step | {a} jobs | {b} jobs | ratio ({b / a:g}x jobs) | {target} jobs, extrapolated | target | peak RSS at {b} jobs |")
print("|---|---|---|---|---|---|---|")
linear = True
for key, what, goal in [("build", "index build (once)", None), ("sitefull", "site made whole (once)", None),
                        ("index", "index update after one night (--quick)", 1),
                        ("indexfull", "full index check, nothing new", None), ("nightly", "nightly, every job's headline", 5),
                        ("nightlyall", "nightly --stats all", 60), ("site", "site after one night", 10)]:
    (sa, _), (sb_, kb) = v[f"{key}.{a}"], v[f"{key}.{b}"]
    ratio = sb_ / sa if sa > 0 else float("inf")
    ext = sb_ * target / b
    # (steps under 0.2 s are dominated by start-up: their ratio says little)
    if ratio > 1.25 * b / a and sb_ > 0.2:
        linear = False
    verdict = "" if goal is None else f"< {goal} s: {'PASS' if ext < goal else 'FAIL'}"
    print(f"| {what} | {sa:.2f} s | {sb_:.2f} s | {ratio:.2f} | {ext:.1f} s | {verdict} | {kb / 1024:.0f} MB |")
print(f"| disk (tree + index) | {v[f'disk.{a}'][0]:.0f} MB | {v[f'disk.{b}'][0]:.0f} MB | | "
      f"{v[f'disk.{b}'][0] * target / b / 1024:.0f} GB | | |")
print("scaling in jobs: " + ("linear or better" if linear else "FASTER THAN LINEAR"))
sys.exit(0 if linear else 1)
PY
