#!/bin/bash
# Every catalogue testcase, in every mode it supports, at 1 and 2 copies, 1 s warmup + 1 s
# window: a positive rate (or a clear skip), and a clean teardown (no temp files, no strays).
# Two testcases run at a time to keep CI time down; only ratios are ever asserted.
set -u
. "$(dirname "$0")/../lib.sh"

names=$("$SCALEBENCH" list --json | python3 -c 'import json,sys; print(" ".join(t["name"] for t in json.load(sys.stdin)))')
check "list --json names the catalogue" [ -n "$names" ]

run_one() {
	local t=$1 dir="$WORK/$1"
	mkdir -p "$dir/tmp"
	"$SCALEBENCH" bench "$t" -m both -t 1,2 -s 1 -w 1 -q --tmpdir "$dir/tmp" \
		--json "$dir/out.json" >"$dir/stdout" 2>"$dir/stderr"
	echo $? >"$dir/rc"
}
export -f run_one
export SCALEBENCH WORK

start=$SECONDS
printf '%s\n' $names | xargs -P 2 -I{} bash -c 'run_one {}'
echo "     (smoke: $(wc -w <<<"$names") testcases in $((SECONDS - start)) s)"

for t in $names; do
	dir="$WORK/$t"
	rc=$(cat "$dir/rc")
	if [ "$rc" -ne 0 ]; then
		fail "$t: bench exit $rc" "$(head -5 "$dir/stderr")"
		continue
	fi
	want=$("$SCALEBENCH" list --json | python3 -c "import json,sys; print(len([t for t in json.load(sys.stdin) if t['name'] == '$t'][0]['modes']) * 2)")
	if json_true "$dir/out.json" "len(d['runs']) == $want and all(r['status'] == 'skipped' or (r['status'] == 'ok' and r['workload'] > 0 and min(r['per_copy_ops']) > 0) for r in d['runs'])"; then
		pass "$t: every mode at 1 and 2 copies, positive rates"
	else
		fail "$t: runs" "$(json "$dir/out.json" "[(r['mode'], r['nr_task'], r['status'], r.get('failure', ''), r.get('workload')) for r in d['runs']]")"
	fi
	if json_true "$dir/out.json" "any(r['status'] == 'skipped' for r in d['runs'])"; then
		check "$t: a skip says why" grep -q "skipped: ." "$dir/stderr"
	fi
	check "$t: no temp files left" [ -z "$(ls -A "$dir/tmp")" ]
done
sleep 0.5
check "no process of any smoke run left" no_procs "--tmpdir $WORK/"
