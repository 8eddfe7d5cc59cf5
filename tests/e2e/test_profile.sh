#!/bin/bash
# serial: perf-profile samples every CPU: the shares it checks are the machine's
# perf-profile on this machine: page_fault3's profile shows the kernel fault path and the
# testcase's own loop, getppid1's is dominated by the syscall path; `scalebench profile` prints
# the run's tree and refuses a run without a profile.  Samples are attributed: the run's own
# processes by default, every task with --all-tasks; exec1's short-lived helper processes
# have their user frames named; --diff prints the robot's perf-profile rows of two sides.
set -u
. "$(dirname "$0")/../lib.sh"

# --- Crafted profile files: refused as corrupt, named, before anything is printed. ---
# craft DIR CHAINS-JSON [RECORD-EXTRAS]: DIR/perf-profile.json holding one record.
craft() {
	mkdir -p "$WORK/$1"
	printf '[{"t_s": 1, "event": "cpu-clock"%s, "chains": %s}]\n' "${3:-}" "$2" \
		>"$WORK/$1/perf-profile.json"
}
big=9223372036854775807
craft wrap "[{\"count\": $big, \"chain\": [\"a\"]}, {\"count\": $big, \"chain\": [\"b\"]}, {\"count\": 4, \"chain\": [\"c\"]}]"
sb profile "$WORK/wrap" --min 0
check "profile: chain counts that overflow the total: refused as corrupt, file named, exit 1" \
	bash -c "[ $rc -eq 1 ] && grep -q '$WORK/wrap/perf-profile.json: corrupt' $WORK/err && ! grep -q '%' $WORK/out"
craft lost1 '[{"count": 3, "chain": ["a"]}]' ", \"samples\": 3, \"lost\": $big"
craft lost2 '[{"count": 3, "chain": ["a"]}]' ", \"samples\": 3, \"lost\": $big"
sb profile "$WORK/lost1" "$WORK/lost2"
check "profile: lost counts whose sum overflows: refused as corrupt, the second file named" \
	bash -c "[ $rc -eq 1 ] && grep -q '$WORK/lost2/perf-profile.json: corrupt' $WORK/err && ! grep -q Sanitizer $WORK/err"
craft neg '[{"count": 3, "chain": ["a"]}]' ', "samples": 3, "lost": -5'
sb profile "$WORK/neg"
check "profile: a negative lost count: refused as corrupt, exit 1" \
	bash -c "[ $rc -eq 1 ] && grep -q '$WORK/neg/perf-profile.json: corrupt' $WORK/err"
craft negc '[{"count": -3, "chain": ["a"]}]'
sb profile "$WORK/negc"
check "profile: a negative chain count: refused, file named, exit 1" \
	bash -c "[ $rc -eq 1 ] && grep -q '$WORK/negc/perf-profile.json' $WORK/err"
craft more '[{"count": 7, "chain": ["a"]}, {"count": 5, "chain": ["b", "a"]}]' ', "samples": 10, "lost": 0'
sb profile "$WORK/more"
check "profile: chains holding more samples than the record's total: refused as corrupt" \
	bash -c "[ $rc -eq 1 ] && grep -q '$WORK/more/perf-profile.json: corrupt' $WORK/err"
craft fine '[{"count": 7, "chain": ["a"]}, {"count": 3, "chain": ["b", "a"]}]' ', "samples": 10, "lost": 2'
sb profile "$WORK/fine" --min 0
check "profile: a consistent crafted file prints, children at most 100%" bash -c \
	"[ $rc -eq 0 ] && grep -q '^# event cpu-clock, 1 run, 2 lost' $WORK/out && grep -q '^   100.00%   70.00%  a$' $WORK/out"

# A gzip bomb: 16 members of 64 MiB of zeros, 1 GiB inflated from about 1 MB.  Refused
# before it is inflated into memory, the file and the limit named.
mkdir -p "$WORK/bomb"
python3 - "$WORK/bomb/perf-profile.json.gz" <<'PY'
import gzip, sys
member = gzip.compress(bytes(64 << 20), compresslevel=9)
with open(sys.argv[1], "wb") as f:
    for _ in range(16):
        f.write(member)
PY
cat >"$WORK/maxrss.py" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
p = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120)
sys.stderr.write(p.stderr)
print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024,
      round(time.monotonic() - t, 1))
PY
read -r rc rss_mb secs < <(python3 "$WORK/maxrss.py" "$SCALEBENCH" profile "$WORK/bomb" 2>"$WORK/err")
echo "     gzip bomb: exit $rc, peak RSS $rss_mb MB, $secs s"
check "profile of a gzip bomb: refused, naming the file and the limit, exit 1" bash -c \
	"[ $rc -eq 1 ] && grep -q '$WORK/bomb/perf-profile.json.gz: .*more than 256 MiB' $WORK/err"
check "profile of a gzip bomb: memory stays bounded (peak RSS under 200 MB)" [ "$rss_mb" -lt 200 ]

for v in nan inf -inf -1 101 1e1; do
	sb profile "$WORK/fine" --min "$v"
	check "profile --min $v: refused, exit 2" bash -c "[ $rc -eq 2 ] && grep -q -- \"--min '$v'\" $WORK/err"
done

# --- Stored profiles (tests/fixtures/profile/diff, regenerate.sh there): --diff and the
# attribution, deterministic. ---
fx=tests/fixtures/profile/diff
sb profile --diff "$fx/base" "$fx/head"
check "profile --diff (fixtures): exit 0, both sides and the attribution in the header" bash -c \
	"[ $rc -eq 0 ] && head -1 $WORK/out | grep -qx \"# event cpu-clock, 2 runs of $fx/base, 2 runs of $fx/head, the run's own processes\""
# base memcg 10% and 12% of the run's samples (11 +- 13%), head 40% and 44% (42 +- 7%).
cat >"$WORK/expect" <<'ROWS'
     11.00 ± 13%      +31.0      42.00 ±  7%  perf-profile.calltrace.cpu-clock.__mod_memcg_lruvec_state.do_fault.handle_mm_fault.exc_page_fault.asm_exc_page_fault
     59.00 ±  2%      -31.0      28.00 ± 10%  perf-profile.self.cpu-clock.clear_page_erms
    100.00             +0.0     100.00        perf-profile.children.cpu-clock.page_fault3_run
ROWS
check "profile --diff: the robot's rows (mean ± stddev over 2%, change in points, head)" bash -c \
	"[ \$(grep -cxF -f $WORK/expect $WORK/out) -eq 3 ]"
check "profile --diff: the largest absolute change first" bash -c \
	"sed -n 3p $WORK/out | grep -q '+31.0' && awk 'NR > 2 { c = \$0; sub(/^ *[0-9.]+ *(± *[0-9]+%)? */, \"\", c); split(c, f, \" \"); v = f[1] < 0 ? -f[1] : f[1]; if (NR > 3 && v > last + 1e-9) bad = 1; last = v } END { exit bad }' $WORK/out"
check "profile --diff: the foreign task (sh, not a run pid) left out" bash -c "! grep -qF '[unknown]' $WORK/out"
sb profile --diff "$fx/base" "$fx/head" --all-tasks
check "profile --diff --all-tasks: every task, the foreign one's 20% in" bash -c \
	"[ $rc -eq 0 ] && head -1 $WORK/out | grep -q ', all tasks\$' && grep -qF '     20.00             +0.0      20.00        perf-profile.self.cpu-clock.[unknown]' $WORK/out && grep -qF '     47.20 ±  2%      -24.8      22.40 ± 10%  perf-profile.self.cpu-clock.clear_page_erms' $WORK/out"
sb profile --diff "$fx/base"
check "profile --diff with one side: usage error, exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'BASE and HEAD' $WORK/err"
sb profile --diff "$fx/base" "$WORK/nonexistent"
check "profile --diff with a missing side: named, exit 1" bash -c "[ $rc -eq 1 ] && grep -q '$WORK/nonexistent' $WORK/err"
sb profile "$fx/base/0" --min 0
check "profile RUN: the run's own processes by default, saying so" bash -c \
	"[ $rc -eq 0 ] && head -1 $WORK/out | grep -q \"lost, the run's own processes\$\" && grep -q '^# 1000 samples' $WORK/out && ! grep -qF '[unknown]' $WORK/out"
sb profile "$fx/base/0" --min 0 --all-tasks
check "profile RUN --all-tasks: every task's samples" bash -c \
	"[ $rc -eq 0 ] && grep -q '^# 1250 samples' $WORK/out && grep -qF '[unknown]' $WORK/out"
# A profile stored before samples were attributed (no pid, comm, dsos, run_pids) still reads.
sb profile "$fx/old" --min 0
check "profile of an older profile (no attribution): read whole, the header says so" bash -c \
	"[ $rc -eq 0 ] && head -1 $WORK/out | grep -q 'all tasks (stored before samples were attributed)' && grep -q '^    70.00%   70.00%  clear_page_erms' $WORK/out"

cat >"$WORK/job.yaml" <<YAML
runtime: 2s
warmup: 0.5
nr_task: 100%
perf-profile:
will-it-scale:
  mode: process
  test: [page_fault3, getppid1]
YAML

sb run "$WORK/job.yaml" --results "$WORK/r" -q
check "a run with perf-profile: exit 0" [ $rc -eq 0 ]
[ $rc -eq 0 ] || head -5 "$WORK/err"
pf=$(ls -d "$WORK"/r/will-it-scale/process-*-page_fault3/*/*/*/*/*/0 2>/dev/null | head -1)
gp=$(ls -d "$WORK"/r/will-it-scale/process-*-getppid1/*/*/*/*/*/0 2>/dev/null | head -1)

if json_true "$pf/meta.json" "d['monitors']['perf-profile']['status'] == 'unavailable'"; then
	# Without permission the run goes on and says what would allow it.
	check "perf-profile unavailable: the note names perf_event_paranoid" json_true \
		"$pf/meta.json" "'perf_event_paranoid' in d['monitors']['perf-profile']['note']"
	exit 0
fi

check "page_fault3: perf-profile.json.gz keeps the chains" json_true "$pf/perf-profile.samples.json.gz" \
	"d[0]['samples'] > 500 and d[0]['chains'][0]['count'] > 0 and len(d[0]['chains'][0]['chain']) > 0"
check "page_fault3: meta has event, samples, lost, its own cpu_s" json_true "$pf/meta.json" \
	"set(d['monitors']['perf-profile']['profile']) == {'event', 'samples', 'run_samples', 'lost', 'cpu_s', 'from_s', 'to_s'}"
# The default slice: from half the 2 s window to its end, sampled at 1000 Hz on every online
# CPU (what the monitor opens: /sys/devices/system/cpu/online, not nproc, which is this
# shell's affinity).  from_s and to_s are when the monitor thread really switched sampling on
# and off: it wakes at 1 s or later, never before, and on a busy machine tens of milliseconds
# late (the monitors' clock also starts a little after the window's), so the rate is counted
# over the span it says it sampled, not over the nominal second; that span is most of it.
cat >"$WORK/slice.py" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))['monitors']['perf-profile']['profile']
cpus, span = int(sys.argv[2]), p['to_s'] - p['from_s']
rate = p['samples'] / (cpus * span) if span > 0 else 0
print(f"from {p['from_s']:.3f} s to {p['to_s']:.3f} s, {p['samples']} samples on {cpus} CPUs: {rate:.0f} per CPU-second", file=sys.stderr)
sys.exit(0 if p['from_s'] >= 1 - 1e-3 and span >= 0.5 and 700 < rate < 1100 else 1)
PY
check "page_fault3: sampled from 1 s to 2 s of the window, 1000 samples per CPU-second" \
	python3 "$WORK/slice.py" "$pf/meta.json" "$(getconf _NPROCESSORS_ONLN)"
check "page_fault3: stats named after the event" json_true "$pf/stats.json" \
	"any(k.startswith('perf-profile.self.' + ('cpu-clock' if json.load(gzip.open('$pf/perf-profile.samples.json.gz'))[0]['event'] == 'cpu-clock' else 'cycles')) for k in d)"
# The top 15 self or children entries.
top="sorted(((v, k.split('.', 3)[3]) for k, v in d.items() if k.startswith(('perf-profile.self.', 'perf-profile.children.'))), reverse=True)[:15]"
check "page_fault3: kernel fault path among the top entries" json_true "$pf/stats.json" \
	"any(('fault' in s or 'clear_page' in s or 'filemap' in s) for v, s in $top)"
# page_fault3_run tail-calls the shared loop page_fault_file_run (a jmp): that is its frame.
check "page_fault3: the testcase's loop in user space, by name" json_true "$pf/stats.json" \
	"any(k.split('.', 3)[3] in ('page_fault3_run', 'page_fault_file_run') and v > 5 for k, v in d.items() if k.startswith('perf-profile.children.'))"
check "page_fault3: calltrace callee first (a fault under the testcase loop)" json_true \
	"$pf/stats.json" \
	"any(k.startswith('perf-profile.calltrace.') and k.endswith('.page_fault_file_run') and 'fault' in k.split('.', 3)[3].rsplit('.', 1)[0] for k in d)"
# Sampling is system-wide: on a machine busy with other work the syscall path may fall under
# half of all samples, but it still leads every other way into the kernel (exceptions,
# interrupts, idle, new tasks).
cat >"$WORK/syscall.py" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
ch = {k.split('.', 3)[3]: v for k, v in d.items() if k.startswith('perf-profile.children.')}
sc = max([ch.get(s, 0) for s in ('do_syscall_64', 'entry_SYSCALL_64', 'entry_SYSCALL_64_after_hwframe')])
other = [v for s, v in ch.items() if re.match(r'(asm_exc_|asm_sysvec_|asm_common_interrupt|do_idle$|cpu_startup_entry$|ret_from_fork)', s)]
print(f"syscall path {sc:.1f}%, largest other kernel entry {max(other + [0]):.1f}%", file=sys.stderr)
sys.exit(0 if sc > 50 or (sc > 20 and sc > max(other + [0])) else 1)
PY
check "getppid1: the syscall path dominates (children > 50%, or the top kernel entry when busy)" \
	python3 "$WORK/syscall.py" "$gp/stats.json"

sb profile "$pf"
check "profile RUN_DIR: a tree, exit 0" bash -c \
	"[ $rc -eq 0 ] && grep -q '^# event ' $WORK/out && grep -q 'Children' $WORK/out && grep -q -- '|--[0-9.]*%--' $WORK/out"
check "profile RUN_DIR: the testcase loop in the report" out_has "page_fault_file_run"
sb profile "$pf" --self --min 5
check "profile --self --min 5: entries sorted by self, none under 5%" bash -c \
	"[ $rc -eq 0 ] && awk '/^  +[0-9.]+% +[0-9.]+%/ {gsub(\"%\",\"\"); if (\$2 < 5) bad=1; if (seen && \$2 > last) bad=1; last=\$2; seen=1} END {exit bad || !seen}' $WORK/out"
sb profile "$pf" --min abc
check "profile --min abc: refused, exit 2" bash -c "[ $rc -eq 2 ] && grep -q -- \"--min 'abc'\" $WORK/err"

# A FIFO as the profile file (profile waited on it forever).
mkdir -p "$WORK/fifo"
mkfifo "$WORK/fifo/perf-profile.json.gz"
rc=0
timeout 60 "$SCALEBENCH" profile "$WORK/fifo" >"$WORK/out" 2>"$WORK/err" || rc=$?
check "profile of a FIFO: refused at once, named" \
	bash -c "[ $rc -eq 1 ] && grep -q 'cannot read $WORK/fifo/perf-profile.json.gz: a FIFO' $WORK/err"

mkdir -p "$WORK/empty"
sb profile "$WORK/empty"
check "profile of a run without a profile: clear error, exit 1" bash -c \
	"[ $rc -eq 1 ] && grep -q 'no perf-profile.samples.json.gz' $WORK/err && grep -q \"perf-profile:\" $WORK/err"
sb profile "$WORK/nonexistent"
check "profile of a missing directory: error naming it" bash -c \
	"[ $rc -eq 1 ] && grep -q '$WORK/nonexistent' $WORK/err"
sb profile
check "profile without RUN_DIR: usage, exit 2" bash -c "[ $rc -eq 2 ] && grep -q usage $WORK/err"

# Runs stored before the profile was compressed (perf-profile.json) still print; a damaged
# file is named, nothing is written.
mkdir -p "$WORK/old" "$WORK/bad"
gunzip -c "$pf/perf-profile.samples.json.gz" >"$WORK/old/perf-profile.json"
sb profile "$WORK/old" --min 5
check "profile of an uncompressed perf-profile.json: the same tree" bash -c \
	"[ $rc -eq 0 ] && grep -q page_fault_file_run $WORK/out"
head -c 300 "$pf/perf-profile.samples.json.gz" >"$WORK/bad/perf-profile.json.gz"
sb profile "$WORK/bad"
check "profile of a truncated perf-profile.json.gz: error naming it, exit 1" bash -c \
	"[ $rc -eq 1 ] && grep -q '$WORK/bad/perf-profile.json.gz' $WORK/err"

# A slice past the window: the monitor is left out with a note, the run goes on.
getppid_job "$WORK/late.yaml" "perf-profile: {delay: 5}"
sb run "$WORK/late.yaml" --results "$WORK/late" -q
late=$(find "$WORK/late" -name meta.json | head -1)
check "perf-profile delay past the window: run stored, monitor unavailable with a note" \
	json_true "$late" \
	"d['status'] == 'ok' and d['monitors']['perf-profile']['status'] == 'unavailable' and 'delay 5 s starts after the 0.25 s measurement window' in d['monitors']['perf-profile']['note']"

# A testcase that dies in its warmup: the prepared monitor never starts, is closed (ASan's
# leak check passes) and meta.json says why it has nothing.
getppid_job "$WORK/crash.yaml" "warmup: 2" "nr_task: 2" "will-it-scale: {mode: process, test: selftest-crash}" \
	"perf-profile:"
SCALEBENCH_SELFTEST=1 sb run "$WORK/crash.yaml" --results "$WORK/crash" -q
crash=$(find "$WORK/crash" -name meta.json | head -1)
check "a run failing in its warmup: stored as failed, no leak, perf-profile 'not run'" bash -c \
	"[ $rc -eq 1 ] && ! grep -q Sanitizer $WORK/err && [ -n '$crash' ]"
[ -n "$crash" ] && check "meta.json: perf-profile not run, saying why" json_true "$crash" \
	"d['monitors']['perf-profile']['status'] == 'not run' and 'before its measurement window' in d['monitors']['perf-profile']['note']"

# The example job, shortened (one 1 s sample of each monitor): its monitors all run and the
# profile is there.
sed 's/^runtime: 300s$/runtime: 1s/' jobs/page_fault3-profile.yaml >"$WORK/example.yaml"
sb run "$WORK/example.yaml" --results "$WORK/example" -q
ex=$(ls -d "$WORK"/example/will-it-scale/*/*/*/*/*/*/0 2>/dev/null | head -1)
check "jobs/page_fault3-profile.yaml (runtime 1s): stored with its monitors' files" bash -c \
	"[ $rc -eq 0 ] && [ -n '$ex' ] && [ -s '$ex/perf-profile.samples.json.gz' ] && [ -s '$ex/perf-stat.samples.json' ] && [ -s '$ex/proc-vmstat.samples.json' ]"
check "jobs/page_fault3-profile.yaml: profile stats beside perf-stat's" json_true "$ex/stats.json" \
	"any(k.startswith('perf-profile.self.') for k in d) and any(k.startswith('perf-stat.') for k in d)"

# Several runs add up to one profile: a commit directory (its numbered runs), or run dirs.
getppid_job "$WORK/two.yaml" "perf-profile:"
sb run "$WORK/two.yaml" --results "$WORK/two" -r 2 -q
commit_dir=$(dirname "$(ls -d "$WORK"/two/will-it-scale/*/*/*/*/*/*/0 | head -1)")
# The report counts the run's own processes' samples (run_samples), not every task's.
sum=$(python3 -c 'import json,sys; print(sum(json.load(open(f"{sys.argv[1]}/{r}/meta.json"))["monitors"]["perf-profile"]["profile"]["run_samples"] for r in (0, 1)))' "$commit_dir")
sb profile "$commit_dir" --min 50
check "profile COMMIT_DIR: both runs, their samples summed" bash -c \
	"[ $rc -eq 0 ] && grep -q '^# event .*, 2 runs, ' $WORK/out && grep -q '^# $sum samples' $WORK/out"
cp "$WORK/out" "$WORK/commit.out"
sb profile "$commit_dir/0" "$commit_dir/1" --min 50
check "profile RUN0 RUN1: the same report as the commit directory" cmp -s "$WORK/out" "$WORK/commit.out"
mkdir -p "$WORK/other"
gunzip -c "$commit_dir/1/perf-profile.samples.json.gz" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); d[0]["event"]="cycles-pp"; json.dump(d, sys.stdout)' \
		>"$WORK/other/perf-profile.json"
sb profile "$commit_dir/0" "$WORK/other"
check "profile of runs with different events: refused, naming the file and both events" bash -c \
	"[ $rc -eq 1 ] && grep -q '$WORK/other/perf-profile.json: sampled cycles-pp, the runs before it' $WORK/err"

# --- Attribution, live: a process of "another user" spins through the run. ---
cat >"$WORK/spin.c" <<'C'
void spin_elsewhere(void)
{
	for (;;)
		__asm__ volatile("");
}

int main(void)
{
	spin_elsewhere();
	return 0;
}
C
cc -O0 -o "$WORK/spin-elsewhere" "$WORK/spin.c"
"$WORK/spin-elsewhere" &
busy=$!
trap 'kill "$busy" 2>/dev/null; work_remove' EXIT
# A 1 s window: its 0.5 s slice holds hundreds of the spinner's samples.
getppid_job "$WORK/attr.yaml" "interval: 1s" "runtime: 1s" "perf-profile:"
sb run "$WORK/attr.yaml" --results "$WORK/attr" -q
kill "$busy"
wait "$busy" 2>/dev/null
at=$(ls -d "$WORK"/attr/will-it-scale/*/*/*/*/*/*/0 2>/dev/null | head -1)
check "attribution run: exit 0" bash -c "[ $rc -eq 0 ] && [ -n '$at' ]"
check "raw profile keeps every task: the spinner's samples with its pid, comm and binary, not a run pid" \
	json_true "$at/perf-profile.samples.json.gz" \
	"any(c.get('pid') == $busy and c.get('comm') == 'spin-elsewhere' and 'spin_elsewhere' in c['chain'] and c['dsos'][c['chain'].index('spin_elsewhere')].endswith('/spin-elsewhere') for c in d[0]['chains']) and $busy not in d[0]['run_pids'] and len(d[0]['run_pids']) >= 2"
check "stats.json: the run's processes only (the spinner's loop is not there)" json_true \
	"$at/stats.json" \
	"not any('spin_elsewhere' in k for k in d) and any(k.startswith('perf-profile.self.') for k in d)"
check "meta: run_samples, the run's share of the samples" json_true "$at/meta.json" \
	"0 < d['monitors']['perf-profile']['profile']['run_samples'] < d['monitors']['perf-profile']['profile']['samples']"
sb profile "$at" --min 0
check "profile RUN: no frame of the other process" bash -c \
	"[ $rc -eq 0 ] && ! grep -q spin_elsewhere $WORK/out && grep -q getppid $WORK/out"
sb profile "$at" --min 0 --all-tasks
check "profile RUN --all-tasks: the other process's frames are there" bash -c \
	"[ $rc -eq 0 ] && grep -q spin_elsewhere $WORK/out && head -1 $WORK/out | grep -q 'all tasks'"

# --- exec1: each exec's helper lives for a fraction of a millisecond, gone before the ring is
# read; its user frames are named from the MMAP2/COMM/FORK records and its unlinked binary. ---
cat >"$WORK/exec1.yaml" <<YAML
runtime: 2s
warmup: 0.5
nr_task: 1
perf-profile:
will-it-scale: {mode: process, test: exec1}
YAML
sb run "$WORK/exec1.yaml" --results "$WORK/exec1" -q
e1=$(ls -d "$WORK"/exec1/will-it-scale/*/*/*/*/*/*/0 2>/dev/null | head -1)
check "exec1 run: exit 0" bash -c "[ $rc -eq 0 ] && [ -n '$e1' ]"
cat >"$WORK/exec1.py" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))[0]
run = set(d["run_pids"])
user = unknown = helper = 0
for c in d["chains"]:
    if c.get("pid") not in run:
        continue
    for name, dso in zip(c["chain"], c["dsos"]):
        if dso == "[kernel.kallsyms]":
            continue
        user += c["count"]
        unknown += c["count"] if name == "[unknown]" else 0
        if dso and "/scalebench-exec1." in dso and name != "[unknown]" and c.get("comm") == "scalebench-exec":
            helper += c["count"]
print(f"exec1: {user} user frames of the run, {unknown} [unknown], {helper} named in the helper", file=sys.stderr)
sys.exit(0 if user and unknown * 10 < user and helper > 0 else 1)
PY
check "exec1: the helper's user frames named from its binary, under 10% of the run's user frames [unknown]" \
	python3 "$WORK/exec1.py" "$e1/perf-profile.samples.json.gz"

# --- --diff, live: two commits' runs of getppid1. ---
for c in base head; do
	sb run "$WORK/two.yaml" --results "$WORK/diff" --commit "$c" -q
done
db=$(ls -d "$WORK"/diff/will-it-scale/*/*/*/*/*/base 2>/dev/null | head -1)
dh=$(ls -d "$WORK"/diff/will-it-scale/*/*/*/*/*/head 2>/dev/null | head -1)
sb profile --diff "$db" "$dh" --min 1
check "profile --diff of two commits' runs: exit 0, the robot's rows" bash -c \
	"[ $rc -eq 0 ] && head -1 $WORK/out | grep -q '^# event .*, 1 run of .*, 1 run of ' && grep -Eq '^ +[0-9]+\.[0-9]{2} .* [-+][0-9]+\.[0-9] +[0-9]+\.[0-9]{2} .* perf-profile\.children\.[a-z-]+\.' $WORK/out"
