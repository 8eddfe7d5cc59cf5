#!/bin/bash
# perf-profile on this machine: page_fault3's profile shows the kernel fault path and the
# testcase's own loop, getppid1's is dominated by the syscall path; `scalebench profile` prints
# the run's tree and refuses a run without a profile.
set -u
. "$(dirname "$0")/../lib.sh"

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

check "page_fault3: perf-profile.json keeps the chains" json_true "$pf/perf-profile.json" \
	"d[0]['samples'] > 500 and d[0]['chains'][0]['count'] > 0 and len(d[0]['chains'][0]['chain']) > 0"
check "page_fault3: meta has event, samples, lost, its own cpu_s" json_true "$pf/meta.json" \
	"set(d['monitors']['perf-profile']['profile']) == {'event', 'samples', 'lost', 'cpu_s'}"
check "page_fault3: stats named after the event" json_true "$pf/stats.json" \
	"any(k.startswith('perf-profile.self.' + ('cpu-clock' if json.load(open('$pf/perf-profile.json'))[0]['event'] == 'cpu-clock' else 'cycles')) for k in d)"
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
check "profile --min abc: refused, exit 2" bash -c "[ $rc -eq 2 ] && grep -q -- '--min abc' $WORK/err"

mkdir -p "$WORK/empty"
sb profile "$WORK/empty"
check "profile of a run without a profile: clear error, exit 1" bash -c \
	"[ $rc -eq 1 ] && grep -q 'no perf-profile.json' $WORK/err && grep -q \"perf-profile:\" $WORK/err"
sb profile "$WORK/nonexistent"
check "profile of a missing directory: error naming it" bash -c \
	"[ $rc -eq 1 ] && grep -q '$WORK/nonexistent' $WORK/err"
sb profile
check "profile without RUN_DIR: usage, exit 2" bash -c "[ $rc -eq 2 ] && grep -q usage $WORK/err"
