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

# A 0.5 s window sampled every 0.05 s after a 0.1 s warmup, except where one op of a copy can
# take longer than that on a loaded machine (a window with no op of some copy is a stuck copy,
# and the run fails):
#   malloc1   under ASan a 128 MiB malloc+free poisons 16 MiB of shadow: ~0.13 s of CPU per
#             op, over 1 s of wall time per op at a load of 12 on 2 CPUs;
#   launch1   in thread mode the copies' forks take glibc's fork lock, which is not fair: one
#             copy's whole batch of 100 launches can pass while the other launches none.
window() {
	case $1 in
	malloc1 | launch1) echo "-s 4 -w 0.1 --interval 0.5" ;;
	*) echo "-s 0.5 -w 0.1 --interval 0.05" ;;
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

start=$SECONDS
printf '%s\n' $names | xargs -P 2 -I{} bash -c 'run_one {}'
echo "     (smoke: $(wc -w <<<"$names") testcases in $((SECONDS - start)) s)"

while read -r t nmodes; do
	dir="$WORK/$t"
	rc=$(cat "$dir/rc")
	if [ "$rc" -ne 0 ]; then
		fail "$t: bench exit $rc" "$(head -5 "$dir/stderr")"
		continue
	fi
	want=$((nmodes * 2))
	if json_true "$dir/out.json" "len(d['runs']) == $want and all(r['status'] == 'skipped' or (r['status'] == 'ok' and r['workload'] > 0 and min(r['per_copy_ops']) > 0) for r in d['runs'])"; then
		pass "$t: every mode at 1 and 2 copies, positive rates"
	else
		fail "$t: runs" "$(json "$dir/out.json" "[(r['mode'], r['nr_task'], r['status'], r.get('failure', ''), r.get('workload')) for r in d['runs']]")"
	fi
	if json_true "$dir/out.json" "any(r['status'] == 'skipped' for r in d['runs'])"; then
		check "$t: a skip says why" grep -q "skipped: ." "$dir/stderr"
	fi
	check "$t: no temp files left" [ -z "$(ls -A "$dir/tmp")" ]
done <"$WORK/catalogue"
wait_until 10 no_procs "--tmpdir $WORK/"
check "no process of any smoke run left" no_procs "--tmpdir $WORK/"
