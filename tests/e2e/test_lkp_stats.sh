#!/bin/bash
# The monitors' LKP stats through the real binary: a short run gives the names LKP has
# (meminfo.Memused, .max_used_kB, slabinfo.*.active_slabs/.num_slabs, time.page_size,
# time.elapsed_time.max, perf-stat.i.metric.*), reduces softirqs and proc-vmstat.workingset_*
# to means as LKP does, and leaves out what read 0 throughout.  The values against LKP's own
# code are tests/unit/test_lkp_stats.c's.
set -u
. "$(dirname "$0")/../lib.sh"
export SCALEBENCH_SELFTEST=1

cat >"$WORK/job.yaml" <<YAML
runtime: 2s
warmup: 0
nr_task: 1
will-it-scale: {mode: process, test: page_fault1}
meminfo:
proc-vmstat:
softirqs:
interrupts:
slabinfo:
time:
perf-stat:
YAML
sb run "$WORK/job.yaml" --results "$WORK/r" --commit c1 -q
check "run: exit 0" [ "$rc" -eq 0 ]
run=$(ls -d "$WORK"/r/will-it-scale/*/*/*/*/*/c1/0)
stats=$run/stats.json
check "meminfo: Memused and max_used_kB, max_used_kB >= Memused" json_true "$stats" \
	"d['meminfo.Memused'] > 0 and d['meminfo.max_used_kB'] >= d['meminfo.Memused']"
check "time: page_size and elapsed_time.max = elapsed_time" json_true "$stats" \
	"d['time.page_size'] >= 4096 and d['time.elapsed_time.max'] == d['time.elapsed_time']"
if [ -r /proc/slabinfo ]; then
	check "slabinfo: active_slabs and num_slabs beside the objects" json_true "$stats" \
		"any(k.endswith('.active_slabs') for k in d) and any(k.endswith('.num_slabs') for k in d)"
fi
# A mean of the cumulative counts lies between the first and the last reading (the raw
# samples): a delta over 2 s would be far below the count since boot.
check "softirqs: means of the cumulative counts (LKP's rule), not deltas" python3 -c "
import json, sys
raw = json.load(open('$run/softirqs.json'))
keys = raw[0]['keys']
i = keys.index('TIMER')
first, last = raw[0]['values'][i], raw[-1]['values'][i]
mean = json.load(open('$stats'))['softirqs.TIMER']
sys.exit(0 if first > 0 and first <= mean <= last else 1)"
check "proc-vmstat: pgfault a delta, page_fault1 faulted" json_true "$stats" \
	"d['proc-vmstat.pgfault'] > 0 and d['proc-vmstat.pgfault'] < 1e12"
# Means of readings that are never negative are 0 only when every reading was: left out.
# (A counter's delta can be 0 and is kept, as in LKP.)
check "no mean that read 0 throughout" json_true "$stats" \
	"not [k for k, v in d.items() if v == 0 and k.split('.')[0] in ('meminfo', 'softirqs', 'slabinfo', 'time')]"
check "perf-stat: LKP's i.metric.K/sec or M/sec from the software events" json_true "$stats" \
	"any(k.startswith('perf-stat.i.metric.') for k in d) or 'perf-stat.ps.page-faults' not in d"
check "perf-stat: instructions per op under its own name, no path-length" json_true "$stats" \
	"'perf-stat.overall.path-length' not in d"
