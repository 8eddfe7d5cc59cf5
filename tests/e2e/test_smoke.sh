#!/bin/bash
# Every catalogue testcase, in every mode it supports, at 1 and 2 copies: a positive rate per
# copy (or a clear skip), and a clean teardown (no temp files, no strays).  Sub-second windows:
# this is about every testcase running and ending cleanly, not about its rate (only ratios are
# ever asserted).  Two testcases run at a time.
set -u
. "$(dirname "$0")/../lib.sh"

# One listing: every testcase with the number of modes it supports.
"$SCALEBENCH" list --json | python3 -c 'import json,sys
for t in json.load(sys.stdin): print(t["name"], len(t["modes"]))' >"$WORK/catalogue"
names=$(cut -d' ' -f1 "$WORK/catalogue")
check "list --json names the catalogue" [ -n "$names" ]

# A 0.1 s window sampled every 0.02 s after a 0.02 s warmup, except where one op of a copy
# can take longer than that on a loaded machine (a window with no op of some copy is a stuck
# copy, and the run fails):
#   malloc1   under ASan a 128 MiB malloc+free poisons 16 MiB of shadow: ~0.13 s of CPU per
#             op (3.5 ops/s idle), over 1 s of wall time per op at a load of 12 on 2 CPUs;
#   launch1   in thread mode the copies' forks take glibc's fork lock, which is not fair: one
#             copy's whole batch of 100 launches (~2.5 s) can pass while the other launches none.
window() {
	[ -n "${SMOKE_WINDOW:-}" ] && { echo "$SMOKE_WINDOW"; return; }
	case $1 in
	launch1) echo "-s 4 -w 0.1 --interval 0.5" ;;
	malloc1) echo "-s 2 -w 0.1 --interval 0.25" ;;
	*) echo "-s 0.1 -w 0.02 --interval 0.02" ;;
	esac
}

run_one() {
	local t=$1 dir="$WORK/$1"
	mkdir -p "$dir/tmp"
	# shellcheck disable=SC2046 # the window's options are words
	"$SCALEBENCH" bench "$t" -m both -t 1,2 $(window "$t") -q --tmpdir "$dir/tmp" \
		--json "$dir/out.json" >"$dir/stdout" 2>"$dir/stderr"
	echo $? >"$dir/rc"
}
export -f run_one window
export SCALEBENCH WORK

# The longest first (a 256 MiB buffer to fault in per run, or the long windows above), so
# that none of them is the last one running.
start=$SECONDS
slow="numa01 launch1 malloc1 numa02"
printf '%s\n' $slow $names | awk '!seen[$0]++' | xargs -P 2 -I{} bash -c 'run_one {}'
echo "     (smoke: $(wc -w <<<"$names") testcases in $((SECONDS - start)) s)"
# A copy that made no op in a 0.25 s window is a stuck copy to the core, and the run fails;
# on a loaded machine a copy can simply get no CPU for that long (another test's QEMU guest, a
# build).  Such a testcase runs once more with a window of 2 s: a copy that is really stuck
# fails again, one that was starved does not.  The rerun is named, never silent.
for t in $names; do
	dir="$WORK/$t"
	if [ "$(cat "$dir/rc")" != 0 ] && grep -q "made no progress in the" "$dir/stderr"; then
		echo "     $t: a copy made no op in the 0.25 s window; again with a 2 s window"
		rm -rf "$dir"
		SMOKE_WINDOW="-s 2 -w 0.1 --interval 0.25" run_one "$t"
	fi
done

# Every testcase's runs judged in one python start: "NAME<TAB>ok|FAIL<TAB>skipped<TAB>detail".
python3 - "$WORK" >"$WORK/verdicts" <<'PY'
import json, os, sys
work = sys.argv[1]
for line in open(os.path.join(work, "catalogue")):
    t, nmodes = line.split()
    try:
        runs = json.load(open(os.path.join(work, t, "out.json")))["runs"]
        good = len(runs) == int(nmodes) * 2 and all(
            r["status"] == "skipped" or (r["status"] == "ok" and r["workload"] > 0 and min(r["per_copy_ops"]) > 0)
            for r in runs)
        skipped = any(r["status"] == "skipped" for r in runs)
        detail = [(r["mode"], r["nr_task"], r["status"], r.get("failure", ""), r.get("workload")) for r in runs]
    except Exception as e:
        good, skipped, detail = False, False, repr(e)
    print(t, "ok" if good else "FAIL", int(skipped), detail, sep="\t")
PY
while IFS=$'\t' read -r t verdict skipped detail; do
	dir="$WORK/$t"
	rc=$(cat "$dir/rc")
	if [ "$rc" -ne 0 ]; then
		fail "$t: bench exit $rc" "$(head -5 "$dir/stderr")"
		continue
	fi
	if [ "$verdict" = ok ]; then
		pass "$t: every mode at 1 and 2 copies, positive rates"
	else
		fail "$t: runs" "$detail"
	fi
	if [ "$skipped" = 1 ]; then
		check "$t: a skip says why" grep -q "skipped: ." "$dir/stderr"
	fi
	check "$t: no temp files left" [ -z "$(ls -A "$dir/tmp")" ]
done <"$WORK/verdicts"
check "every testcase judged" [ "$(wc -l <"$WORK/verdicts")" -eq "$(wc -l <"$WORK/catalogue")" ]
wait_until 10 no_procs "--tmpdir $WORK/"
check "no process of any smoke run left" no_procs "--tmpdir $WORK/"
