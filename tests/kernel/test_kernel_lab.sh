#!/bin/bash
# make check-kernel: the kernel lab end to end on this machine (TCG when there is no /dev/kvm).
# Debian's linux-source-6.1 imported into a 10-commit history whose sixth commit plants a sum
# over every possible CPU in getppid, followed by a commit that does not build and one that
# panics at boot (make-history.sh); each commit built with the shipped guest fragment
# (scalebench-kernel-build, ccache); then
#   A  boot to first run per mode (TCG, TCG icount) and the run-to-run spread of getppid1
#   B  bisect --kernel-tree --vm-icount --vm-max-cpus 8 names the planted commit, verified,
#      skipping the commit that does not build (its build log's tail logged) and the one that
#      panics (booted twice, the console's tail logged); --qemu-arg reaches QEMU
#   C  what the timed mode (multi-threaded TCG) shows on the same two commits
#   D  perf-profile in the guest names the planted function (the guest's kallsyms), and
#      compare's robot table and report's robot mail show the headline change and that row
#   E  page_fault3 in a cgroup2 memory cgroup of the guest, its limit applied
# Every figure is printed (the README's and bench/'s numbers come from here).  The lab (source,
# history, build directory, ccache'd objects) is kept in $SCALEBENCH_KERNEL_LAB (default
# /var/tmp/scalebench-kernel-lab) for the next run: a second run builds nothing.
set -u
. "$(dirname "$0")/../lib.sh"

LAB=${SCALEBENCH_KERNEL_LAB:-/var/tmp/scalebench-kernel-lab}
BUILD=$(dirname "$(readlink -f "$SCALEBENCH_PLAIN")")
SB=$(readlink -f "$SCALEBENCH_PLAIN") # the guest's runs are timed: the plain build
T0=$SECONDS
stage() { echo "     [$((SECONDS - T0)) s] $*"; }

sh "$(dirname "$0")/make-history.sh" "$LAB" >"$WORK/history" 2>&1 ||
	{ fail "premise: the lab's history" "$(tail -5 "$WORK/history")"; exit 0; }
REPO=$LAB/linux
CACHE=$LAB/cache
GOOD=$(git -C "$REPO" rev-list --max-parents=0 master)
BAD=$(git -C "$REPO" rev-parse master)
PLANTED=$(git -C "$REPO" log master --format=%H --grep='count getppid calls per CPU')
PARENT=$(git -C "$REPO" rev-parse "$PLANTED^")
NOBUILD=$(git -C "$REPO" log master --format=%H --grep='(does not build)')
NOBOOT=$(git -C "$REPO" log master --format=%H --grep='(does not boot)')
stage "history: $(git -C "$REPO" rev-list --count master) commits, planted ${PLANTED:0:12}"
check "premise: git's first midpoint is the planted commit's parent" \
	[ "$(git -C "$REPO" rev-list --bisect "$BAD" "^$GOOD")" = "$PARENT" ]

# Both endpoints built (the bisection would build them first anyway); the first build is the
# long one, each later one is incremental.
build() {
	local sha=$1 start=$SECONDS
	git -C "$REPO" checkout -q --detach "$sha" &&
		(cd "$REPO" && "$BUILD/scalebench-kernel-build" "$CACHE" "$BUILD/kernel-guest.config") \
			>>"$WORK/build.log" 2>&1
	local rc=$?
	stage "build ${sha:0:12}: exit $rc, $((SECONDS - start)) s"
	return $rc
}
for sha in "$PARENT" "$PLANTED"; do
	build "$sha" || { fail "premise: ${sha:0:12} builds" "$(tail -20 "$WORK/build.log")"; exit 0; }
done
git -C "$REPO" checkout -q master
check "the guest's release names the commit (LOCALVERSION -g<sha12>)" bash -c \
	"strings '$CACHE/$PLANTED/bzImage' | grep -q -- '-g${PLANTED:0:12}'"

getppid_job "$WORK/getppid.yaml" "runtime: 2s" "interval: 0.5s" "warmup: 0.5s"

# A: boot to first run and spread, per mode, on the parent (8 possible CPUs, 1 online).
for mode in tcg icount; do
	R=$WORK/a-$mode
	start=$SECONDS
	sb run "$WORK/getppid.yaml" --results "$R" --kernel "$CACHE/$PARENT/bzImage" \
		--vm-accel $mode --vm-max-cpus 8 --no-monitors -r 3
	boot=$(sed -n 's/.*booted in \([0-9.]*\) s.*/\1/p' "$WORK/out" | head -1)
	check "A $mode: 3 runs in the guest, exit 0" [ "$rc" = 0 ] || echo "     $(tail -5 "$WORK/err")"
	python3 - "$R" "$mode" "$boot" "$((SECONDS - start))" <<'PY'
import glob, json, statistics as st, sys
v = [json.load(open(f))["will-it-scale.per_process_ops"] for f in sorted(glob.glob(sys.argv[1] + "/**/stats.json", recursive=True))]
if v:
    cv = st.pstdev(v) / st.mean(v) * 100
    print("     A %s: boot to ssh %s s; 3 runs in %s s; getppid1 %s ops/s, CV %.3f%%" % (sys.argv[2], sys.argv[3], sys.argv[4], ", ".join("%.0f" % x for x in v), cv))
PY
done

# B: the bisection, in instruction-count mode.
start=$SECONDS
R=$WORK/b
"$SB" bisect --repo "$REPO" --kernel-tree --kernel-cache "$CACHE" --job "$WORK/getppid.yaml" \
	--stat will-it-scale.per_process_ops --good "$GOOD" --bad "$BAD" --results "$R" \
	--vm-icount --vm-max-cpus 8 --no-monitors --qemu-arg=-name --qemu-arg=scalebench-lab \
	>"$WORK/out.b" 2>"$WORK/err.b"
rc=$?
LOG=$(ls "$R"/bisect-*.json 2>/dev/null | head -1)
check "B: bisect --kernel-tree --vm-icount names the planted commit, verified (exit 0)" bash -c \
	"[ $rc = 0 ] && grep -q '^$PLANTED is the first bad commit' '$WORK/out.b'" ||
	echo "     $(tail -15 "$WORK/err.b")"
[ -n "$LOG" ] && python3 - "$LOG" "$((SECONDS - start))" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["events"]
runs = sum(e.get("runs", 0) for e in ev if e["event"] == "runs")
boots = sum(1 for e in ev if e["event"] == "runs")
builds = sum(1 for e in ev if e["event"] == "prepare")
print("     B: %s s in all, %d runs, %d boots, %d prepare steps (builds or cache hits)" % (sys.argv[2], runs, boots, builds))
for e in ev:
    if e["event"] in ("endpoints", "verify"):
        print("     B: %s: %s" % (e["event"], json.dumps({k: v for k, v in e.items() if k not in ("event", "t", "time")})[:400]))
PY
grep -E "^ *(good|bad|culprit|parent|change)" "$WORK/out.b" | head -8 | sed 's/^/     B: /'
check "B: the commit that does not build skipped, its build log's tail in the log" \
	json_true "${LOG:-/nonexistent}" "
[s['commit'] for s in d['steps'] if s['decision'] == 'skip'].count('$NOBUILD') == 1 and
any(e['event'] == 'prepare' and e['commit'] == '$NOBUILD' and e['exit'] != 0 and
    'lab_does_not_build' in e.get('tail', '') for e in d['events'])"
check "B: the commit that panics booted twice, then skipped, the console's tail in the log" \
	json_true "${LOG:-/nonexistent}" "
[s['commit'] for s in d['steps'] if s['decision'] == 'skip'].count('$NOBOOT') == 1 and
[e['attempt'] for e in d['events'] if e['event'] == 'boot-failed' and e['commit'] == '$NOBOOT'] == [1, 2] and
all('Kernel panic - not syncing: lab: this commit does not boot' in e['tail'] for e in d['events'] if e['event'] == 'boot-failed')"
meta=$(find "$R" -name meta.json -path "*/$PLANTED/*" | head -1)
check "B: --qemu-arg reached QEMU (meta.json's vm.qemu)" json_true "${meta:-/nonexistent}" \
	"d['vm']['qemu'][-2:] == ['-name', 'scalebench-lab']"

# C: the timed mode (multi-threaded TCG, 2 vCPUs of 8 possible) on the planted commit and its
# parent: 3 runs each, compared.
R=$WORK/c
for sha in "$PARENT" "$PLANTED"; do
	sb run "$WORK/getppid.yaml" --results "$R" --kernel "$CACHE/$sha/bzImage" --commit "$sha" \
		--vm-accel tcg --vm-cpus 2 --vm-max-cpus 8 --no-monitors -r 3 -q
done
sb compare "$(find "$R" -type d -name "$PARENT")" "$(find "$R" -type d -name "$PLANTED")" \
	--stat '^will-it-scale.per_process_ops$'
check "C: the timed mode's runs stored and compared" [ "$rc" != 2 ] || echo "     $(cat "$WORK/err")"
grep -E 'per_process_ops' "$WORK/out" | sed 's/^/     C: /'

# D: perf-profile in the guest, on the planted kernel: its rows name the guest's functions.
cat >"$WORK/profile.yaml" <<'EOF'
suite: will-it-scale
testcase: will-it-scale
runtime: 3s
interval: 0.5s
warmup: 0.5s
nr_task: 1
perf-profile:
  freq: 1000
will-it-scale:
  mode: process
  test: getppid1
EOF
R=$WORK/d
for sha in "$PARENT" "$PLANTED"; do
	sb run "$WORK/profile.yaml" --results "$R" --kernel "$CACHE/$sha/bzImage" --commit "$sha" \
		--vm-icount --vm-max-cpus 8 -r 2 -q
done
pdir=$(find "$R" -type d -name "$PLANTED")
check "D: perf-profile in the guest names getppid_calls_sum (the guest's kallsyms)" bash -c \
	"zcat '$pdir'/*/perf-profile.json.gz | grep -q getppid_calls_sum" ||
	echo "     $(find "$pdir" -name meta.json | head -1 | xargs -r python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("monitors"))')"
sb compare "$(find "$R" -type d -name "$PARENT")" "$pdir" --all
check "D: compare's table: the headline change and a perf-profile row naming the planted function" \
	bash -c "grep -q 'will-it-scale.per_process_ops' '$WORK/out' && grep -q 'perf-profile.*getppid_calls_sum' '$WORK/out'"
grep -E "per_process_ops|getppid_calls_sum" "$WORK/out" | head -6 | sed 's/^/     D: /'
# The robot's mail on the same runs, as a CI bot would send it after the bisection.
sb report --base "$PARENT" --head "$PLANTED" --results "$R" --repo "$REPO" --mbox "$WORK/d.mbox"
check "D: report's mail: a regression of per_process_ops in the subject, the perf-profile row naming getppid_calls_sum in the body" \
	bash -c "[ $rc = 0 ] && python3 -c \"import mailbox, re, sys
m = mailbox.mbox(sys.argv[1])[0]
subject = re.sub(r'\\s+', ' ', str(m['Subject']))
body = m.get_payload(decode=True).decode()
assert re.search(r'per_process_ops -[0-9.]+% regression', subject), subject
assert re.search(r'perf-profile.*getppid_calls_sum', body)\" '$WORK/d.mbox'" ||
	echo "     $(head -c 600 "$WORK/d.mbox" 2>/dev/null; tail -3 "$WORK/err")"
grep -E '^Subject:|getppid_calls_sum' "$WORK/d.mbox" 2>/dev/null | head -4 | sed 's/^/     D mail: /'

# E: page_fault3 in a cgroup2 memory cgroup of the guest (its cgroup2 has the memory
# controller), the limit applied.
cat >"$WORK/memcg.yaml" <<'EOF'
suite: will-it-scale
testcase: will-it-scale
runtime: 2s
interval: 0.5s
warmup: 0
nr_task: 1
will-it-scale:
  mode: process
  test: page_fault3
cgroup2:
  memory.max: 256M
EOF
R=$WORK/e
sb run "$WORK/memcg.yaml" --results "$R" --kernel "$CACHE/$PLANTED/bzImage" --vm-icount -q
meta=$(find "$R" -name meta.json | head -1)
check "E: page_fault3 in the guest's memory cgroup: stored, memory.max 256M applied" bash -c \
	"[ $rc = 0 ] && [ -n '$meta' ] && python3 -c \"import json,sys; c=json.load(open('$meta'))['cgroup2']; print(c); assert '268435456' in json.dumps(c) or '256M' in json.dumps(c)\"" ||
	echo "     $(tail -5 "$WORK/err")"
stage "done"
