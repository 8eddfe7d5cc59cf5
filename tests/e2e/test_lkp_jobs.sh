#!/bin/bash
# lkp-tests' own will-it-scale job files (tests/fixtures/lkp-jobs/jobs, copied from
# lkp-tests), and scalebench's (jobs/scalebench: two shipped jobs and a robot-style one with
# commits, a rootfs, setup programs and a long value), split into the atomic jobs LKP's
# split-job makes of them, with LKP's names
# (FILE.yaml.names, printed by LKP's split-job: tests/fixtures/lkp-jobs/regenerate.sh):
# multi-document files (the header is a job too), `<<:` includes, path_params with every
# program option (runtime, cgroup2's values), and LKP's own split-job output loading back.
set -u
. "$(dirname "$0")/../lib.sh"

FIX=tests/fixtures/lkp-jobs/jobs

# Where scalebench differs on purpose, by file: the names LKP makes that scalebench does
# not, each with the reason (README, Job files).
#   will-it-scale-largemem-defaults: LKP makes a job of the header document, which names no
#     testcase (LKP runs it with no benchmark); scalebench skips it, with a note.
skipped_on_purpose() {
	case $1 in
	will-it-scale-largemem.yaml) echo will-it-scale-largemem-defaults ;;
	esac
}

for f in "$FIX"/*/*.yaml; do
	base=$(basename "$f")
	sb split "$f"
	sed -n 's/^# \(.*\)\.yaml$/\1/p' "$WORK/out" >"$WORK/got"
	skip=$(skipped_on_purpose "$base")
	grep -vxF "${skip:-/}" "$f.names" >"$WORK/want"
	# Documents giving several kconfigs: LKP's names leave kconfig out (both of
	# kconfig-docs.yaml's are one file); scalebench's add each job's kconfig.
	if [ "$base" = kconfig-docs.yaml ]; then
		grep '^kconfig: ' "$f" | sed 's/^kconfig: //' | paste -d- "$WORK/want" - >"$WORK/want2"
		mv "$WORK/want2" "$WORK/want"
	fi
	check "$base: exit 0" [ $rc -eq 0 ]
	check "LKP's atomic job names, in LKP's order: $base ($(wc -l <"$WORK/want") jobs)" \
		diff "$WORK/want" "$WORK/got"
	if [ -n "$skip" ]; then
		check "$base: the job skipped on purpose is noted" \
			grep -q "LKP makes a '$skip' job of it that runs no benchmark; scalebench skips it" "$WORK/err"
	fi
done

# The values LKP's split-job wrote (FILE.yaml.split) for the revised keys, job by job:
# top-level KEY's block in each "# NAME.yaml" section, quotes dropped.
blocks() { # FILE KEY
	awk -v k="$2" '/^# /{name=$2} /^---/{on = 0; next} /^[^ -]/{on = ($0 ~ "^" k ":")} on{gsub(/"/, ""); print name ": " $0}' "$1"
}
for f in revkeys need-merge; do
	sb split "$FIX/scalebench/$f.yaml"
	for key in nr_task will-it-scale need_kconfig need_memory; do
		blocks "$FIX/scalebench/$f.yaml.split" "$key" >"$WORK/want"
		blocks "$WORK/out" "$key" >"$WORK/got"
		check "$f.yaml: LKP's values of $key in each atomic job" diff "$WORK/want" "$WORK/got"
	done
done
check "need-merge: the later document's need_kconfig is added to the header's" \
	grep -qx 'need-merge-page_fault2.yaml: - TRANSPARENT_HUGEPAGE: y' <(blocks "$WORK/out" need_kconfig)
sb split "$FIX/scalebench/kconfig-docs.yaml"
check "kconfig-docs: each job keeps its own kconfig" bash -c \
	"grep -qx 'kconfig: x86_64-rhel-9.4' $WORK/out && grep -qx 'kconfig: x86_64-rhel-9.4-debug' $WORK/out"

# The header of will-it-scale-part2.yaml is a job (22), and so is its malloc1 document (1).
sb split "$FIX/will-it-scale/will-it-scale-part2.yaml"
check "part2: 23 atomic jobs, not 1" [ "$(grep -c '^# ' "$WORK/out")" -eq 23 ]

# The cgroup2 job includes cgroup2.yaml (from the jobs/ directory above it) and
# will-it-scale.yaml: both applied, cgroup2's values in path_params and in each atomic job.
sb split "$FIX/will-it-scale/will-it-scale-cgroup2.yaml"
check "cgroup2: both includes applied" bash -c \
	"grep -qx '  memory.high: 90%' $WORK/out && grep -qx 'kernel_cmdline: systemd.unified_cgroup_hierarchy=1' $WORK/out && [ \$(grep -c '^  test: ' $WORK/out) -eq 60 ]"

# cgroup2.yaml alone (no testcase) is an include: LKP's split-job makes a job of it,
# cgroup2-90%-50%-max-10000 (lkp-tests bbbc29c49, split-job -t lkp-hsw-d01), that runs no
# benchmark; scalebench refuses it, saying so and naming that job (issue 29 item 3).
sb split "$FIX/cgroup2.yaml"
cat >"$WORK/want" <<'W'
a job of cgroup2 keys alone, as lkp-tests' jobs/cgroup2.yaml, is an include; LKP would run it as a job of its own, cgroup2-90%-50%-max-10000, that sets up the cgroup and runs no benchmark
include it from a job that names a testcase ('<<: cgroup2.yaml'
W
check "cgroup2.yaml alone: refused, naming the job LKP would run and what to do" bash -c \
	"[ $rc -eq 2 ] && [ \$(grep -cFf $WORK/want $WORK/err) -eq 1 ] && grep -qF \"\$(sed -n 1p $WORK/want)\" $WORK/err && grep -qF \"\$(sed -n 2p $WORK/want)\" $WORK/err"

# run --dry-run names the same atomic jobs as split.
sb run --dry-run "$FIX/local-tests/will-it-scale-local-test.yaml" --results "$WORK/r"
check "run --dry-run: LKP's names" bash -c \
	"[ $rc -eq 0 ] && grep -q 'will-it-scale-local-test-process-50%-20s-page_fault1' $WORK/out && grep -q 'will-it-scale-local-test-thread-50%-20s-page_fault1' $WORK/out"

# LKP's split-job output (as LKP writes an atomic job: its hosts/ keys, need_kconfig_hw as a
# list of maps, the include/category/benchmark monitors) loads, and keeps its name.
mkdir -p "$WORK/atomic"
cat >"$WORK/atomic/will-it-scale-local-test-process-50%-20s-page_fault1.yaml" <<'YAML'
---

#! jobs/local-tests/will-it-scale-local-test.yaml
suite: will-it-scale
testcase: will-it-scale
category: benchmark
perf-profile:
  delay: 1
runtime: 20s
nr_task: 50%
will-it-scale:
  mode: process
  test: page_fault1
job_origin: "/lkp/jobs/local-tests/will-it-scale-local-test.yaml"
testbox: lkp-hsw-d01
arch: unknown
tbox_group: lkp-hsw-d01

#! hosts/lkp-hsw-d01
model: Haswell
nr_cpu: 8
memory: 8G
swap_partitions:
need_kconfig_hw:
- PTP_1588_CLOCK: "y"
- E1000E: "y"
- ATA_PIIX
need_kconfig:
- XFS_DEBUG: "n"
- PREEMPT_DYNAMIC: "n"
kmsg:
proc-vmstat:
perf-sched:
  lite_mode: 1
perf-stat:
perf-c2c:
  debug_mode: 0
YAML
sb split "$WORK/atomic/will-it-scale-local-test-process-50%-20s-page_fault1.yaml"
check "LKP's split-job output loads, one job, its own name" bash -c \
	"[ $rc -eq 0 ] && [ \"\$(grep '^# ' $WORK/out)\" = '# will-it-scale-local-test-process-50%-20s-page_fault1.yaml' ]"
check "LKP's split-job output: lists of maps kept as values" bash -c \
	"grep -qx -- '- E1000E: y' $WORK/out && grep -qx -- '- ATA_PIIX' $WORK/out"

# An include that is missing is refused with the file and the line.
printf 'suite: will-it-scale\n<<: nowhere.yaml\nwill-it-scale: {test: getppid1}\n' >"$WORK/missing.yaml"
sb split "$WORK/missing.yaml"
check "missing include: refused with file:line" bash -c \
	"[ $rc -eq 2 ] && grep -q \"$WORK/missing.yaml:2: included file 'nowhere.yaml' not found\" $WORK/err"
# An include loop is refused, not followed.
printf '<<: b.yaml\n' >"$WORK/a.yaml"
printf 'test: getppid1\n<<: a.yaml\n' >"$WORK/b.yaml"
sb split "$WORK/a.yaml"
check "include loop: refused" bash -c "[ $rc -eq 2 ] && grep -q 'include loop' $WORK/err"

# Job values keep their types as LKP's Ruby reads them (tests/fixtures/lkp-jobs/psych: Psych
# read the source and scalebench's split of it alike when the golden was made): quoted
# '0x28', 'yes', '010', '12:30', '100' stay quoted, plain 0x28, yes, 010 stay plain.
P=tests/fixtures/lkp-jobs/psych
sb split "$P/types.yaml"
check "types.yaml: split writes each value as Ruby read it (types.yaml.split)" \
	diff -u "$P/types.yaml.split" "$WORK/out"
"$SCALEBENCH" run "$P/types.yaml" --results "$WORK/types" --commit c1 -q --no-monitors \
	>"$WORK/out" 2>"$WORK/err"
check "types.yaml: a run's job.yaml writes them so too (every line of types.yaml.split)" \
	bash -c "f=\$(ls $WORK/types/will-it-scale/*/*/*/*/*/c1/0/job.yaml) && ! grep -vxFf \"\$f\" <(sed 1d $P/types.yaml.split)"
