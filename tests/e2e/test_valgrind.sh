#!/bin/bash
# lock: selftest-procs: runs "bench selftest-crash" (test_failures.sh checks none is left)
# The main paths are valgrind-clean: no invalid access, no definite or indirect leak, in the
# uninstrumented build (the sanitizer build covers the rest of the tests).  Windows of 0.5 s
# at a 0.25 s interval: a warmup sample and two measured ones, every path of a longer run.
set -u
. "$(dirname "$0")/../lib.sh"
PLAIN=${SCALEBENCH_PLAIN:-build/scalebench}

if ! command -v valgrind >/dev/null; then
	fail "valgrind is installed (make setup)"
	exit 0
fi

# vg EXPECTED-EXIT NAME ARGS...
vg() {
	local want=$1 name=$2
	shift 2
	rc=0
	HWLOC_COMPONENTS=-x86 valgrind -q --fair-sched=yes --child-silent-after-fork=yes --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect "$PLAIN" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
	if [ $rc -eq "$want" ] && ! grep -q "^==[0-9]*== [A-Z]" "$WORK/err"; then
		pass "valgrind: $name"
	else
		fail "valgrind: $name (exit $rc, wanted $want)" "$(head -20 "$WORK/err")"
	fi
}

vg 0 "list" list
vg 0 "bench --help" bench --help
vg 0 "bench getppid1 sweep with JSON" bench getppid1 -t 1,2 -s 0.5 -w 0.25 --interval 0.25 --json "$WORK/vg.json"
# Valgrind runs one thread at a time: a thread-mode loop without syscalls (page_fault3) can
# starve its sibling there, so thread mode is checked with a syscall loop.  Forked copies
# are copies of the checked process: --child-silent-after-fork keeps their exits quiet.
vg 0 "bench getppid1 thread mode" bench getppid1 -m thread -t 2 -s 0.5 -w 0.25 --interval 0.25 -q
vg 0 "bench page_fault3 process mode" bench page_fault3 -t 2 -s 0.5 -w 0.25 --interval 0.25 -q
vg 2 "bad task count" bench getppid1 -t abc
vg 2 "unwritable JSON path" bench getppid1 --json /nonexistent/x.json
SCALEBENCH_SELFTEST=1 vg 1 "a crashing copy" bench selftest-crash -t 2 -s 2 -w 0 --interval 0.25

# The runner with monitors (their thread, perf-profile's ring buffers, symbolizing, the gzip
# writer), then the analyzer paths over what it stored and over the compare fixtures.
# Valgrind checks code paths, not rates: 0.25 s intervals over a 1 s window still sample
# every monitor several times and perf-profile over its slice (the second half).
getppid_job "$WORK/vg.yaml" "runtime: 1s" "warmup: 0.25" "nr_task: 2" "perf-profile:" "perf-stat:" \
	"proc-vmstat:" "meminfo:"
vg 0 "run with perf-profile, perf-stat, proc-vmstat, meminfo" run "$WORK/vg.yaml" \
	--results "$WORK/vgr" -q
run_dir=$(ls -d "$WORK"/vgr/will-it-scale/*/*/*/*/*/*/0 2>/dev/null | head -1)
if [ -f "$run_dir/perf-profile.samples.json.gz" ]; then
	vg 0 "profile RUN_DIR" profile "$run_dir" --min 5
else
	echo "skip: profile RUN_DIR (perf-profile unavailable here: $(cat "$run_dir/meta.json" 2>/dev/null | grep -o '"note": "[^"]*' | head -1))"
fi
G=tests/fixtures/compare/results/will-it-scale/process-100%-page_fault3/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12
vg 1 "compare (a regression: exit 1)" compare "$G/base" "$G/patched"
vg 1 "compare --json" compare --json "$G/base" "$G/patched"
