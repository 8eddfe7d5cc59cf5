#!/bin/bash
# Regenerate the seed corpora of tests/fuzz/corpus/ from the repository's fixtures and this
# machine's /proc.  Seeds are small real inputs, one per file; the crash-* regression inputs
# beside them are kept.  The corpus of a harness another file owns (mail) is left alone.
#
#   tests/fuzz/make-corpus.sh
set -eu
cd "$(dirname "$0")/../.."
C=tests/fuzz/corpus

seeds() { # NAME: empty the seeds of corpus NAME, keep its regression inputs
	mkdir -p "$C/$1"
	find "$C/$1" -type f ! -name 'crash-*' -delete
}

# --- job: every job file of the repository, the README's example, an LKP job -------------
seeds job
for f in jobs/*.yaml; do cp "$f" "$C/job/jobs-$(basename "$f")"; done
for f in tests/fixtures/jobs/*.yaml; do cp "$f" "$C/job/fixture-$(basename "$f")"; done
cp tests/fixtures/run/lkp-will-it-scale.yaml "$C/job/run-lkp-will-it-scale.yaml"
sed -n '/^### Job files/,/^### Monitors/p' README.md | sed -n '/^```yaml/,/^```/p' | sed '1d;$d' \
	>"$C/job/readme-example.yaml"
cat >"$C/job/perf-stat-events.yaml" <<'YAML'
will-it-scale:
  test: page_fault3
perf-stat:
  events: [cpu-clock, task-clock]
  interval: 0.5
runtime: 5m
nr_task: [1, 50%]
YAML
[ -f ../lkp-tests/jobs/will-it-scale/will-it-scale-part1.yaml ] &&
	cp ../lkp-tests/jobs/will-it-scale/will-it-scale-part1.yaml "$C/job/lkp-will-it-scale-part1.yaml"

# --- run_read: stats.json and meta.json of fixture runs, and the numbers issue 13 named ----
seeds run_read
R=tests/fixtures/compare/results/will-it-scale/process-100%-page_fault3/lkp-skl-4sp1
R=$R/debian-12-x86_64/defconfig/gcc-12
cp "$R/base/0/stats.json" "$C/run_read/compare-base-0-stats.json"
cp "$R/patched/1/stats.json" "$C/run_read/compare-patched-1-stats.json"
cp "$R/base/0/meta.json" "$C/run_read/compare-base-0-meta.json"
S=tests/fixtures/compare/results-sweep/will-it-scale/process-2-page_fault3/box
S=$S/debian-12-x86_64/defconfig/gcc-12
cp "$S/base/0/stats.json" "$C/run_read/sweep-base-0-stats.json"
printf '{"a": 0x10, "b": 1}\n' >"$C/run_read/hex.json"
printf '{"a": -nan}\n' >"$C/run_read/nan.json"
printf '{"a": 1e999, "b": -1e-999, "c": 9223372036854775808, "d": -0, "e": 0.1e-30}\n' \
	>"$C/run_read/range.json"
printf '{"a": 1, "a": 2.5, "b\\u00e9": 3}\n' >"$C/run_read/repeat-escape.json"
# A real run of this machine, when the binary is built: every default monitor's stats.
if [ -x build/scalebench ]; then
	T=$(mktemp -d)
	printf 'will-it-scale:\n  test: getppid1\nnr_task: 1\nruntime: 1\nwarmup: 0.2\n' >"$T/seed.yaml"
	if build/scalebench run "$T/seed.yaml" --results "$T/results" --commit seed >/dev/null 2>&1; then
		run=$(dirname "$(find "$T/results" -name stats.json | head -1)")
		cp "$run/stats.json" "$C/run_read/machine-run-stats.json"
		cp "$run/meta.json" "$C/run_read/machine-run-meta.json"
	fi
	rm -rf "$T"
fi

# --- results: fixture trees as the harness's entry lists (see fuzz_results.c) ---------------
seeds results
python3 - "$C/results" <<'PY'
import json, os, sys
out = sys.argv[1]

def tree(root, limit=None):
    lines = []
    for d, subdirs, files in sorted(os.walk(root)):
        subdirs.sort()
        rel = os.path.relpath(d, root)
        if rel != "." and not subdirs and not files:
            lines.append("d " + rel)
        for f in sorted(files):
            p = os.path.join(d, f)
            text = open(p).read()
            if f.endswith(".json"):
                text = json.dumps(json.loads(text))
            lines.append("f %s\t%s" % (os.path.relpath(p, root), text.replace("\n", " ")))
    return lines[:limit]

def write(name, lines):
    open(os.path.join(out, name), "w").write("\n".join(lines) + "\n")

fix = "tests/fixtures/compare/results"
write("compare-tree", tree(fix))
c = "will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12"
write("compare-query", ["q process-100%-page_fault3\tbase"] + tree(fix, 6))
write("sweep-tree", tree("tests/fixtures/compare/results-sweep", 12))
# What issue 13 found in corrupt trees: a directory or FIFO stats.json, run numbers past
# INT_MAX and UINT_MAX, a run spelled with a leading zero, a symlinked run.
write("corrupt-tree", [
    "d %s/base/0/stats.json" % c,
    "p %s/base/1/stats.json" % c,
    "p %s/base/1/meta.json" % c,
    "f %s/base/2147483648/stats.json\t{\"a\": 1}" % c,
    "f %s/base/4294967296/stats.json\t{\"a\": 1}" % c,
    "f %s/base/007/stats.json\t{\"a\": 1}" % c,
    "l %s/base/3\t2147483648" % c,
    "f %s/base/5\tnot a directory" % c,
    "l %s/patched\tbase" % c,
])
PY

# --- procfs: "MONITOR\n" + first reading [+ NUL + later reading] ----------------------------
seeds procfs
M=tests/fixtures/monitors
pair() { # SEED MONITOR FILE0 FILE1
	{ printf '%s\n' "$2"; cat "$3"; printf '\0'; cat "$4"; } >"$C/procfs/$1"
}
one() { # SEED MONITOR FILE...
	local seed=$1 mon=$2
	shift 2
	{ printf '%s\n' "$mon"; cat "$@"; } >"$C/procfs/$seed"
}
small() { head -c 6000 "$1"; } # keeps seeds (and so libFuzzer's max_len) small
for f in meminfo:meminfo vmstat:proc-vmstat stat:proc-stat interrupts:interrupts \
	softirqs:softirqs; do
	file=${f%%:*} mon=${f#*:}
	pair "fixture-$mon" "$mon" "$M/t0/proc/$file" "$M/t1/proc/$file"
	[ -f "$M/bad/proc/$file" ] && one "fixture-bad-$mon" "$mon" "$M/bad/proc/$file"
	one "machine-$mon" "$mon" "/proc/$file"
done
pair fixture-slabinfo slabinfo <(head -40 "$M/t0/proc/slabinfo") <(head -40 "$M/t1/proc/slabinfo")
[ -r /proc/slabinfo ] && one machine-slabinfo slabinfo <(head -40 /proc/slabinfo)
pair fixture-sched_debug sched_debug "$M/t0/sys/kernel/debug/sched/debug" \
	"$M/t1/sys/kernel/debug/sched/debug"
N=sys/devices/system/node/node0
for f in meminfo numastat vmstat; do
	pair "fixture-numa-$f" "numa-$f" "$M/t0/$N/$f" "$M/t1/$N/$f"
	[ -r "/$N/$f" ] && one "machine-numa-$f" "numa-$f" "/$N/$f"
done
one machine-vmstat vmstat /proc/vmstat /proc/stat /proc/meminfo
pair fixture-dmesg dmesg "$M/kmsg/before" "$M/kmsg/new"
for f in "$C"/procfs/*; do # no seed above 12 KB
	[ "$(stat -c %s "$f")" -le 12288 ] || { head -c 12288 "$f" >"$f.cut" && mv "$f.cut" "$f"; }
done

# --- kallsyms: the fixtures and an excerpt of this machine's (text, data, modules, clones) --
seeds kallsyms
cp tests/fixtures/profile/kallsyms "$C/kallsyms/fixture-kallsyms"
cp tests/fixtures/profile/kallsyms-zeroed "$C/kallsyms/fixture-kallsyms-zeroed"
if [ -r /proc/kallsyms ]; then
	{ head -60 /proc/kallsyms; grep -m 20 -E '\.(isra|constprop|part|cold)' /proc/kallsyms
	  grep -m 20 '\[' /proc/kallsyms; } >"$C/kallsyms/machine-kallsyms"
fi
# --- index: edit lists for a valid index (see fuzz_index.c): 16-bit offset, length, bytes ---
seeds index
: >"$C/index/no-edit"
python3 - "$C/index" <<'PY'
import random, struct, sys
out = sys.argv[1]
def edit(off, b): return struct.pack('<HB', off, len(b)) + b
seeds = {  # the header's fields (sqlite.org/fileformat.html), page 1's schema, table pages
 'header-magic': edit(0, b'SQLite format 4'),
 'header-page-size': edit(16, b'\x02\x00'),
 'header-page-count': edit(28, b'\x00\x00\x01\x00'),
 'header-freelist': edit(32, b'\x00\x00\x00\x07\x00\x00\x00\x03'),
 'header-schema-cookie': edit(40, b'\x00\x00\x00\x63'),
 'header-encoding': edit(56, b'\x00\x00\x00\x02'),
 'header-user-version': edit(60, b'\x00\x00\x00\x01'),
 'header-application-id': edit(68, b'\x00\x00\x00\x00'),
 'schema-page-type': edit(100, b'\x05'),
 'schema-cell-count': edit(103, b'\x00\x40'),
 'schema-text-not-null': edit(3700, b' NULL   ') + edit(3900, b'INTEGER'),
 'table-page-type': edit(4096, b'\x02'),
 'table-cell-pointer': edit(4096 + 8, b'\xff\xf0'),
 'table-row-bytes': edit(4096 + 3000, b'\x00' * 6),
 'index-page-bytes': edit(8192 + 2000, b'\x7f\xff\xff\xff'),
 'late-pages': edit(12288 + 100, b'\x0d\x00\x00\x00\x09') + edit(16384 + 3500, b'\x01\x02\x03\x04'),
}
r = random.Random(28)
for k in range(4):
    seeds['random-%d' % k] = b''.join(
        edit(r.randrange(65536), bytes(r.randrange(256) for _ in range(r.randrange(1, 5))))
        for _ in range(6))
for name, b in seeds.items():
    open(f'{out}/{name}', 'wb').write(b)
PY

echo "seeds written under $C"
