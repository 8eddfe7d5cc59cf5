#!/bin/bash
# The mem testcases behave as their names say: page faults per op where the kernel must
# fault (page_fault1, tlb_flush*, malloc1's header page) and none where nothing is touched
# (mmap1, mmap2, malloc2, the numa sweeps over memory faulted in by prepare); brk1 and brk2
# count two calls per loop on the one break, even with threads sharing it, and give the VMA
# shapes their descriptions promise; file-backed ones leave no temp file behind.
set -u
. "$(dirname "$0")/../lib.sh"
# The JSON checks (json_later, per_op) print at the end, all from one python start.

# mem NAME EXPR ARGS...: page faults and context switches per op (pf, cs: the run's own
# tasks, tests/lib.sh per_op) of one copy in process mode over half a second, after a quarter
# second's warmup that keeps the copy's first faults out of the ratio.  The slowest of these
# (malloc1, tlb_flush1) still make hundreds of ops in it.
mem() {
	local name=$1 cond=$2
	shift 2
	per_op "$name" "$WORK/$name.json" "$cond" "$name" -m process -t 1 -s 0.5 -w 0.25 \
		--interval 0.25 "$@"
}

# page_fault1 touches each page of fresh anonymous memory once: one fault per op, unless
# THP is [always] and the 128 MiB mapping gets huge pages.
if grep -q '\[always\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
	echo "skip page_fault1 faults per op: transparent huge pages are [always]"
else
	mem page_fault1 "0.8 <= pf <= 1.8"
fi

# mmap1/mmap2 never touch their mapping: a touched one would fault 32768 times per op.
mkdir "$WORK/tmp"
mem mmap1 "pf < 0.5"
mem mmap2 "pf < 0.5" --tmpdir "$WORK/tmp"
check "mmap2 leaves no temp file" [ -z "$(ls -A "$WORK/tmp")" ]

# malloc1 goes to mmap every time: glibc writes the chunk header into the fresh mapping, one
# fault per op (a recycled heap chunk would fault none).  malloc2 stays in the allocator's
# caches: no fault, no syscall that could block.
mem malloc1 "0.8 <= pf <= 3"
mem malloc2 "pf < 0.05 and cs < 0.05"

# tlb_flush: the write faults the page in, MADV_DONTNEED zaps it, the read-back faults it in
# again (the zero page for anonymous memory): two faults per op.  The counts are the copy's
# own, so other work on the machine adds none; the upper bound leaves room for a kernel that
# retries a fault.
mem tlb_flush2 "1.6 <= pf <= 3"
mem tlb_flush1 "1.2 <= pf <= 3" --tmpdir "$WORK/tmp"
check "tlb_flush1 leaves no temp file" [ -z "$(ls -A "$WORK/tmp")" ]
mem tlb_flush3 "1.0 <= pf <= 3" --tmpdir "$WORK/tmp"
check "tlb_flush3 leaves no temp file" [ -z "$(ls -A "$WORK/tmp")" ]

# numa01/numa02: prepare faulted the buffers in (numa01's is shared with forked copies, whose
# page tables start empty), so the sweep never faults.
for tc in numa01 numa02; do
	per_op "$tc process+thread: no faults per op" "$WORK/$tc.json" "pf < 0.001" \
		$tc -m both -t 1 -s 0.5 -w 0.25 --interval 0.25
	check "$tc: exit 0" [ $rc -eq 0 ]
	json_later "$tc process+thread: positive rate" "$WORK/$tc.json" \
		"len(d['runs']) == 2 and all(r['workload'] > 0 for r in d['runs'])"
done

# brk1/brk2 count both calls of a loop at once, so every sampled delta is even; two threads
# move the one break of their process, and both make progress (in one half-second sample).
for tc in brk1 brk2; do
	sb bench $tc -m thread -t 2 -s 0.5 -w 0.25 --interval 0.5 --json "$WORK/$tc.json"
	check "$tc thread x2: exit 0" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || cat "$WORK/err"
	json_later "$tc thread x2: both copies progress, two brk calls per loop" \
		"$WORK/$tc.json" \
		"all(x > 0 and x % 2 == 0 for r in d['runs'] for s in r['samples'] if s['phase'] == 'measure' for x in s['deltas'])"
done

# brk_shape TESTCASE EXPR: run the testcase (process mode, one copy), sample its copy's
# [heap] VMAs above the guard page, and test the set `s` of shapes seen: tuples of VMA sizes
# in pages, (), (1,), (2,), (1, 1), ...  /proc/PID/maps comes a page of text per read(), so
# a sample may mix two moments; those show as overlapping ranges and are dropped.
brk_shape() {
	local tc=$1 expr=$2 pid host copy out
	"$SCALEBENCH" bench $tc -m process -t 1 -s 60 -w 0 --interval 0.25 >"$WORK/brk.out" 2>&1 &
	pid=$!
	# The copy is in its loop once an interval's line shows it made progress.
	wait_until 30 grep -q '^min:[1-9]' "$WORK/brk.out"
	host=$(pgrep -P $pid | head -1)
	copy=$(pgrep -P "${host:-0}" | head -1)
	out=$(python3 - "${copy:-0}" "$expr" <<'EOF' 2>&1
import os, sys, time
pid, page, s, valid = sys.argv[1], os.sysconf('SC_PAGESIZE'), set(), 0
# At least 60 samples; up to 600 (6 s) while the shapes expected have not all been seen: on
# a loaded machine the copy may not be running its loop for the first of them.
for i in range(600):
    heap = [l.split()[:2] for l in open(f'/proc/{pid}/maps') if l.rstrip().endswith('[heap]')]
    guard = max(i for i, (_, prot) in enumerate(heap) if prot.startswith('---'))
    ranges = [[int(x, 16) for x in r.split('-')] for r, _ in heap[guard:]]
    if all(a[1] <= b[0] for a, b in zip(ranges, ranges[1:])):
        s.add(tuple((end - start) // page for start, end in ranges[1:]))
        valid += 1
    if i >= 60 and valid >= 30 and eval(sys.argv[2]):
        break
    time.sleep(0.01)
print(sorted(s), valid, 'consistent samples')
sys.exit(0 if valid >= 30 and eval(sys.argv[2]) else 1)
EOF
	)
	local ok=$?
	kill -INT $pid
	wait $pid
	if [ $ok -eq 0 ]; then
		pass "$tc: VMA shapes $expr"
	else
		fail "$tc: VMA shapes $expr" "seen: $out"
	fi
}

# brk1: the page above the guard is a VMA of its own that comes and goes.  brk2: one VMA
# above the guard, one page or two, never a second VMA.
brk_shape brk1 "s <= {(), (1,)} and () in s and (1,) in s"
brk_shape brk2 "s <= {(1,), (2,)} and (2,) in s"
