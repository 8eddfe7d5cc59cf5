#!/bin/bash
# The monitors' LKP stats through the real binary: a short run gives the names LKP has
# (meminfo.Memused, .max_used_kB, slabinfo.*.active_slabs/.num_slabs, time.page_size,
# time.elapsed_time.max, perf-stat.i.metric.*), reduces softirqs and proc-vmstat.workingset_*
# to means as LKP does, and leaves out what read 0 throughout.  The values against LKP's own
# code are tests/unit/test_lkp_stats.c's.
set -u
. "$(dirname "$0")/../lib.sh"
export SCALEBENCH_SELFTEST=1

# Names and reductions, not rates: 0.25 s intervals over a 0.5 s window give each monitor
# the readings its reduction needs (a first, a last, and means between them).
getppid_job "$WORK/job.yaml" "runtime: 0.5s" "will-it-scale: {mode: process, test: page_fault1}" \
	"meminfo:" "proc-vmstat:" "softirqs:" "interrupts:" "slabinfo:" "time:" "perf-stat:"
sb run "$WORK/job.yaml" --results "$WORK/r" --commit c1 -q
check "run: exit 0" [ "$rc" -eq 0 ]
run=$(ls -d "$WORK"/r/will-it-scale/*/*/*/*/*/c1/0)
stats=$run/stats.json
# A mean of the cumulative counts lies between the first and the last reading (the raw
# samples): a delta over the window would be far below the count since boot.
check "softirqs: means of the cumulative counts (LKP's rule), not deltas" python3 -c "
import json, sys
raw = json.load(open('$run/softirqs.samples.json'))
keys = raw[0]['keys']
i = keys.index('TIMER')
first, last = raw[0]['values'][i], raw[-1]['values'][i]
mean = json.load(open('$stats'))['softirqs.TIMER']
sys.exit(0 if first > 0 and first <= mean <= last else 1)"
slab_check=
[ -r /proc/slabinfo ] && slab_check="slabinfo: active_slabs and num_slabs beside the objects	any(k.endswith('.active_slabs') for k in d) and any(k.endswith('.num_slabs') for k in d)"
# Means of readings that are never negative are 0 only when every reading was: left out.
# (A counter's delta can be 0 and is kept, as in LKP.)
json_checks "$stats" <<CHECKS
meminfo: Memused and max_used_kB, max_used_kB >= Memused	d['meminfo.Memused'] > 0 and d['meminfo.max_used_kB'] >= d['meminfo.Memused']
time: page_size and elapsed_time.max = elapsed_time	d['time.page_size'] >= 4096 and d['time.elapsed_time.max'] == d['time.elapsed_time']
$slab_check
proc-vmstat: pgfault a delta, page_fault1 faulted	d['proc-vmstat.pgfault'] > 0 and d['proc-vmstat.pgfault'] < 1e12
no mean that read 0 throughout	not [k for k, v in d.items() if v == 0 and k.split('.')[0] in ('meminfo', 'softirqs', 'slabinfo', 'time')]
perf-stat: LKP's i.metric.K/sec or M/sec from the software events	any(k.startswith('perf-stat.i.metric.') for k in d) or 'perf-stat.ps.page-faults' not in d
perf-stat: instructions per op under its own name, no path-length	'perf-stat.overall.path-length' not in d
CHECKS
