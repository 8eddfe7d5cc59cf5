#!/usr/bin/env bash
# What a QEMU guest can tell (run --kernel): for getppid1, page_fault3 and exec1 (1 copy,
# process mode, RUNTIME each, no monitors), R runs on this machine and R runs in a guest per
# mode (TCG multi-threaded, TCG icount: -accel tcg,thread=single -icount shift=0), each mode's
# runs of a testcase in one boot.  Printed per testcase and mode: the ops/s of every run, the
# run-to-run CV, the guest/host ratio; per mode: boot to the guest answering ssh (run --kernel's
# "booted in" line) and to the first run's start.  Target (issue 25): boot to first run < 15 s;
# icount CV < 0.1%.  The machine is shared: compare ratios within one run of this script.
#
# usage: bench/vm.sh -k BZIMAGE [-m MODULES_DIR] [-r RUNS] [-s RUNTIME] [-c MAX_CPUS]
#   -k BZIMAGE   the guest kernel (a scalebench-kernel-build image, or a distribution's
#                vmlinuz with -m its lib/modules/RELEASE)
#   -r RUNS      runs per testcase and mode (default 3)
#   -s RUNTIME   each run's window (default 2s)
#   -c MAX_CPUS  the guest's possible CPUs (default 8; one online)
set -u
cd "$(dirname "$0")/.."
kernel= modules= runs=3 runtime=2s maxcpus=8
while getopts "k:m:r:s:c:h" o; do
	case $o in
	k) kernel=$OPTARG ;;
	m) modules=$OPTARG ;;
	r) runs=$OPTARG ;;
	s) runtime=$OPTARG ;;
	c) maxcpus=$OPTARG ;;
	*)
		sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 2
		;;
	esac
done
[ -n "$kernel" ] || { echo "bench/vm.sh: -k BZIMAGE is required" >&2; exit 2; }
SB=${SCALEBENCH:-build/scalebench}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
vmargs=(--kernel "$kernel" --vm-max-cpus "$maxcpus")
[ -n "$modules" ] && vmargs+=(--vm-modules "$modules")

ops() {
	python3 - "$1" <<'PY'
import glob, json, statistics as st, sys
v = [json.load(open(f))["will-it-scale.per_process_ops"] for f in sorted(glob.glob(sys.argv[1] + "/**/stats.json", recursive=True))]
if not v:
    print("- - -")
else:
    print("%.0f %.4f %s" % (st.mean(v), st.pstdev(v) / st.mean(v) * 100 if len(v) > 1 else 0, ",".join("%.0f" % x for x in v)))
PY
}

printf '%-12s %-7s %12s %9s %7s %8s %8s  %s\n' testcase mode "ops/s" "CV %" "/host" "boot s" "first s" runs
for t in getppid1 page_fault3 exec1; do
	cat >"$W/$t.yaml" <<EOF
suite: will-it-scale
testcase: will-it-scale
runtime: $runtime
interval: 0.5s
warmup: 0.5s
nr_task: 1
will-it-scale:
  mode: process
  test: $t
EOF
	"$SB" run "$W/$t.yaml" --results "$W/host-$t" --no-monitors -q -r "$runs"
	read -r host cv list < <(ops "$W/host-$t")
	printf '%-12s %-7s %12s %9s %7s %8s %8s  %s\n' "$t" host "$host" "$cv" 1 - - "$list"
	for mode in tcg icount; do
		start=$(date +%s.%N)
		# (each line of its output stamped as it comes: the first run's start is seen)
		"$SB" run "$W/$t.yaml" --results "$W/$mode-$t" --no-monitors "${vmargs[@]}" \
			--vm-accel "$mode" -r "$runs" 2>"$W/err" |
			while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done >"$W/out"
		[ -s "$W/err" ] && sed 's/^/  /' "$W/err"
		boot=$(sed -n 's/.*booted in \([0-9.]*\) s.*/\1/p' "$W/out" | head -1)
		first=$(awk -v s="$start" '/run 1\// { printf "%.1f", $1 - s; exit }' "$W/out")
		read -r m c list < <(ops "$W/$mode-$t")
		ratio=$(python3 -c "print('%.2f' % ($m / $host))" 2>/dev/null || echo -)
		printf '%-12s %-7s %12s %9s %7s %8s %8s  %s\n' "$t" "$mode" "$m" "$c" "$ratio" "${boot:--}" "${first:--}" "$list"
	done
done
