#!/bin/bash
# report's mail on trees without meta.json (as LKP makes them, or by hand): the job's
# parameters and machine from each run's job.yaml, nothing unknown printed as '?' or 0; the
# subject names the headline stat, not a total that moved more; the plots' x tics are short
# shas that do not run together, and stats of identical runs share one plot naming them all.
set -u
. "$(dirname "$0")/../lib.sh"

# Two commits whose shas share their first ten digits, as a tree's often do.
BASE=1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c
HEAD=1f2e3d4c5b0123456789abcdef0123456789abcd

# tree DIR [HOST_KEYS]: two jobs of five runs per commit, stats.json and job.yaml alone (no
# meta.json).  thread-1: workload equals per_thread_ops run by run, both -23%; thread-16:
# per_thread_ops -23.1%, workload -25.2%.  With HOST_KEYS the job.yaml carries LKP's host
# file keys (nr_cpu, memory, model, brand).
tree() {
	python3 - "$1" "$BASE" "$HEAD" "${2:-}" <<'PY'
import json, os, random, sys
out, base, head, host = sys.argv[1:5]
random.seed(7)
for nr, per, work, drop in ((1, 400000, None, (0.23, 0.23)), (16, 25000, 400000, (0.231, 0.252))):
    for commit, k in ((base, 0), (head, 1)):
        d = f"{out}/will-it-scale/thread-{nr}-page_fault3/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12/{commit}"
        for i in range(5):
            os.makedirs(f"{d}/{i}")
            p = round(per * (1 + random.uniform(-0.004, 0.004)) * (1 - k * drop[0]))
            w = p * nr if work is None else round(work * (1 + random.uniform(-0.004, 0.004)) * (1 - k * drop[1]))
            json.dump({"will-it-scale.per_thread_ops": p, "will-it-scale.workload": w},
                      open(f"{d}/{i}/stats.json", "w"))
            with open(f"{d}/{i}/job.yaml", "w") as f:
                f.write("suite: will-it-scale\ntestcase: will-it-scale\ncategory: benchmark\n"
                        f"nr_task: {nr}\nruntime: 300s\nwill-it-scale:\n  mode: thread\n"
                        "  test: page_fault3\ntestbox: lkp-skl-4sp1\ntbox_group: lkp-skl-4sp1\n")
                if host:
                    f.write("nr_cpu: 192\nmemory: 256G\nmodel: Skylake\n"
                            "brand: Intel(R) Xeon(R) Platinum 8160 CPU @ 2.10GHz\n")
PY
}
tree "$WORK/lkp" host
tree "$WORK/bare"

# head_of FILE: the mail's lines from testcase: to "Details are as below:".
head_of() {
	sed -n '/^testcase:/,/^Details are as below/p' "$1"
}

# --- the parameters and the machine from job.yaml ---
sb report --results "$WORK/lkp" --job thread-1-page_fault3 --base "$BASE" --head "$HEAD"
cp "$WORK/out" "$WORK/lkp1.eml"
head_of "$WORK/lkp1.eml" >"$WORK/lkp1.head"
check "no meta.json: exit 0, a mail" [ $rc -eq 0 ]
check "no meta.json: the parameters are job.yaml's nr_task, mode, test and runtime" bash -c \
	"grep -qx \$'\tnr_task: 1' '$WORK/lkp1.head' && grep -qx \$'\tmode: thread' '$WORK/lkp1.head' &&
	 grep -qx \$'\ttest: page_fault3' '$WORK/lkp1.head' && grep -qx \$'\truntime: 300s' '$WORK/lkp1.head'" ||
	cat "$WORK/lkp1.head"
check "no meta.json: the test machine from job.yaml's host keys, as the robot words it" \
	grep -qx 'test machine: 192 threads Intel(R) Xeon(R) Platinum 8160 CPU @ 2.10GHz (Skylake) with 256G memory' \
	"$WORK/lkp1.head" || grep 'test machine' "$WORK/lkp1.head"
check "no meta.json: no '?' and no 0 threads or 0G in the head of the mail" bash -c \
	"! grep -q '?\| 0 threads\|^test machine: 0\| 0G memory\|nr_task: 0' '$WORK/lkp1.head'"
check "no meta.json: the table's header names mode, nr_task, runtime and test too, as LKP's" \
	bash -c "grep -q '^compiler/kconfig/mode/nr_task/rootfs/runtime/tbox_group/test/testcase:$' '$WORK/lkp1.eml' &&
	grep -q '^  gcc-12/defconfig/thread/1/debian-12-x86_64/300s/lkp-skl-4sp1/page_fault3/will-it-scale$' '$WORK/lkp1.eml'"

# A job.yaml without the host keys: the machine is named by its tbox_group, nothing made up.
sb report --results "$WORK/bare" --job thread-1-page_fault3 --base "$BASE" --head "$HEAD"
head_of "$WORK/out" >"$WORK/bare.head"
check "no host keys: 'test machine: lkp-skl-4sp1', no '?' or 0 in the head of the mail" bash -c \
	"[ $rc -eq 0 ] && grep -qx 'test machine: lkp-skl-4sp1' '$WORK/bare.head' &&
	 grep -qx \$'\tmode: thread' '$WORK/bare.head' && ! grep -q '?\| 0 threads\| 0G memory\|nr_task: 0' '$WORK/bare.head'" ||
	cat "$WORK/bare.head"

# What job.yaml says reaches the body escaped, as everything else from the results does.
cp -r "$WORK/bare" "$WORK/hostile"
for f in "$WORK"/hostile/will-it-scale/thread-1-*/*/*/*/*/*/*/job.yaml; do
	sed -i 's/^  test: page_fault3$/  test: "page_fault3\\e[2J\\nBcc: x@evil"/' "$f"
done
sb report --results "$WORK/hostile" --job thread-1-page_fault3 --base "$BASE" --head "$HEAD"
check "job.yaml's test with ESC and a newline: escaped in the body (\\x1b, \\n), no ESC byte" bash -c \
	"[ $rc -eq 0 ] && grep -qF \$'\ttest: page_fault3\\\\x1b[2J\\\\nBcc: x@evil' '$WORK/out' &&
	 ! grep -q \$'\x1b' '$WORK/out' && ! grep -q '^Bcc:' '$WORK/out'" || grep -a 'test:' "$WORK/out"

# --- the plots ---
# tics LINE: the x tic line of the mail's first plot (the line under its frame).
tics() {
	awk '/^ *[0-9.e+]* *\+-+\+$/ { n++; if (n == 2) { getline; print; exit } }' "$1"
}
tics "$WORK/lkp1.eml" >"$WORK/tics"
check "x tics: the shortest prefixes (>= 10) that tell the shas apart, with blanks between" \
	grep -qE '^ +1f2e3d4c5b6 +1f2e3d4c5b0$' "$WORK/tics" || cat "$WORK/tics"
check "legend: the commits' shas whole" bash -c \
	"grep -qx '\[\*\] $BASE' '$WORK/lkp1.eml' && grep -qx '\[O\] $HEAD' '$WORK/lkp1.eml'"
check "identical series (per_thread_ops = workload at nr_task 1): one plot naming both" bash -c \
	"[ \$(grep -c '^ *[0-9.e+]* *+-*+$' '$WORK/lkp1.eml') = 2 ] &&
	 grep -q 'thread-1-page_fault3: will-it-scale.per_thread_ops, will-it-scale.workload$' '$WORK/lkp1.eml'" ||
	grep -n 'page_fault3:\|+---' "$WORK/lkp1.eml"
sb report --results "$WORK/lkp" --job thread-16-page_fault3 --base "$BASE" --head "$HEAD"
cp "$WORK/out" "$WORK/lkp16.eml"
check "series that differ (nr_task 16): a plot each" bash -c \
	"[ \$(grep -c '^ *[0-9.e+]* *+-*+$' '$WORK/lkp16.eml') = 4 ] &&
	 grep -q 'page_fault3: will-it-scale.per_thread_ops$' '$WORK/lkp16.eml' &&
	 grep -q 'page_fault3: will-it-scale.workload$' '$WORK/lkp16.eml'" ||
	grep -n 'page_fault3:\|+---' "$WORK/lkp16.eml"

# --- the subject ---
check "subject: the headline per_thread_ops -23.x%, not workload's larger -25.x%" bash -c \
	"sed -n '/^Subject:/,/^Date:/p' '$WORK/lkp16.eml' | tr -d '\n' |
	 grep -q 'will-it-scale.per_thread_ops -23\.[0-9]% regression'" ||
	sed -n '/^Subject:/,/^Date:/p' "$WORK/lkp16.eml"
check "the first line names the headline too" \
	grep -q '^kernel test robot noticed a -23\.[0-9]% regression of will-it-scale.per_thread_ops on:$' \
	"$WORK/lkp16.eml"
# Both jobs at once: the main job's subject is still a headline stat.
sb report --results "$WORK/lkp" --base "$BASE" --head "$HEAD"
check "every job: the subject's stat is per_thread_ops; the other job in the box" bash -c \
	"[ $rc -eq 0 ] && sed -n '/^Subject:/,/^Date:/p' '$WORK/out' | tr -d '\n' | grep -q 'per_thread_ops -2[0-9.]*% regression' &&
	 grep -q '^| testcase: change | will-it-scale: will-it-scale.per_thread_ops -2[0-9.]*% regression' '$WORK/out'" ||
	sed -n '/^Subject:/,/^Date:/p;/^| /p' "$WORK/out"
