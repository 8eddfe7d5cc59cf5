#!/usr/bin/env bash
# Issue 26's real series: NIGHTS nights of jobs/nightly.sh on this machine (BUILD_KERNEL=0), each
# night one new commit of a plug-in repository built and measured, then `scalebench nightly`
# (as the script runs it: --repo, the mbox).  Two jobs, one thread each, RUNS runs of RUNTIME:
#   spin1   spins a fixed loop per op; from commit STEP on the loop is 10% longer, a step of
#           about -9% in plugin.per_thread_ops (the other commits only change a comment);
#   crash1  the same loop; from commit FAIL on its copy dies of SIGSEGV after 0.2 s, a new
#           failure (stderr.copy_0_died_of_signal_11, the run failed).
# Wanted, and checked at the end (exit 1 when not): exactly one regression mail for spin1 with
# the step's commit in its recorded range, at most one follow-up, exactly one failure mail for
# crash1 naming commit FAIL, and no other mail: no noise mail in NIGHTS nights of real runs on
# whatever this machine is doing.  Prints a line per night (its mails) and the summary.
#
# usage: bench/nightly_real.sh [-n NIGHTS] [-s STEP] [-f FAIL] [-r RUNS] [-t RUNTIME] [-k DIR]
#   -k DIR keeps the repository, the results and the mbox in DIR (a new directory)
set -eu
cd "$(dirname "$0")/.."
top=$PWD
nights=24 step=12 fail=18 runs=3 runtime=1s keep=
while getopts n:s:f:r:t:k:h opt; do
	case $opt in
	n) nights=$OPTARG ;;
	s) step=$OPTARG ;;
	f) fail=$OPTARG ;;
	r) runs=$OPTARG ;;
	t) runtime=$OPTARG ;;
	k) keep=$OPTARG ;;
	*) echo "usage: bench/nightly_real.sh [-n NIGHTS] [-s STEP] [-f FAIL] [-r RUNS] [-t RUNTIME] [-k DIR]" >&2; exit 2 ;;
	esac
done
case $nights$step$fail$runs in *[!0-9]*) echo "nightly_real.sh: -n, -s, -f, -r take numbers" >&2; exit 2 ;; esac
[ "$step" -ge 2 ] && [ "$step" -le "$nights" ] && [ "$fail" -ge 2 ] && [ "$fail" -le "$nights" ] ||
	{ echo "nightly_real.sh: need 2 <= STEP, FAIL <= NIGHTS" >&2; exit 2; }
sb=$top/build/scalebench
[ -x "$sb" ] || { echo "nightly_real.sh: $sb missing; run 'make'" >&2; exit 2; }
if [ -n "$keep" ]; then
	[ ! -e "$keep" ] || { echo "nightly_real.sh: $keep exists; give a new directory" >&2; exit 2; }
	mkdir -p "$keep"
	w=$(cd "$keep" && pwd)
else
	w=$(mktemp -d)
	trap 'rm -rf "$w"' EXIT
fi

# The developer's repository (the plug-in, its Makefile, the two job files), pushed each night
# to upstream, which the measured tree (kernel) fetches as origin, as a kernel tree would.
repo=$w/repo upstream=$w/upstream.git kernel=$w/kernel
git init -q --bare -b main "$upstream"
mkdir -p "$repo/include/scalebench"
cp testcases/testcase.h "$repo/include/scalebench/"
git -C "$repo" init -q -b main
git -C "$repo" config user.email dev@example.com
git -C "$repo" config user.name "Plug-in Developer"
cat >"$repo/Makefile" <<'MK'
plug.so: plug.c include/scalebench/testcase.h
	$(CC) -std=gnu11 -O2 -Iinclude -shared -fPIC -o $@ plug.c
MK
printf 'plug.so\n' >"$repo/.gitignore"
for t in spin1 crash1; do
	cat >"$repo/$t.yaml" <<YAML
suite: will-it-scale
testcase: will-it-scale
nr_task: 1
will-it-scale:
  mode: thread
  test: $t
YAML
done
write_plug() { # $1: spins per op; $2: 1 = crash1 dies; $3: the revision
	cat >"$repo/plug.c" <<C
#include <scalebench/testcase.h>
#include <signal.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void spin(void)
{
	for (volatile unsigned i = 0; i < $1; i++)
		;
}

static int spin_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	(void)copy;
	for (;;) {
		spin();
		(*iterations)++;
	}
	return 0;
}

static int crash_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	double start = now();

	(void)copy;
	for (uint64_t n = 0;; n++) {
		spin();
		(*iterations)++;
		if ($2 && (n & 1023) == 0 && now() - start > 0.2)
			raise(SIGSEGV);
	}
	return 0;
}

static const struct testcase tc_spin = {
	.name = "spin1", .description = "a fixed loop per op", .suite = "plugin",
	.op = "spin", .run = spin_run,
};
static const struct testcase tc_crash = {
	.name = "crash1", .description = "a fixed loop per op", .suite = "plugin",
	.op = "spin", .run = crash_run,
};
SCALEBENCH_PLUGIN(&tc_spin, &tc_crash); /* revision $3 */
C
}

echo "nightly_real: $nights nights, spin1 -9% from commit $step, crash1 dies from commit $fail," \
	"$runs runs of $runtime a job a night, in $w" >&2
mbox=$w/mbox
results=$w/results
: >"$w/nights"
start=$(date +%s)
for i in $(seq 1 "$nights"); do
	spins=1000 dies=0 msg="docs: revision $i"
	[ "$i" -ge "$step" ] && spins=1100
	[ "$i" -ge "$fail" ] && dies=1
	[ "$i" -eq "$step" ] && msg="spin: a longer loop per op"
	[ "$i" -eq "$fail" ] && msg="crash: fault after 0.2 s"
	write_plug "$spins" "$dies" "$i"
	git -C "$repo" add -A
	git -C "$repo" commit -q -m "$msg"
	sha=$(git -C "$repo" rev-parse HEAD)
	echo "$i $sha $msg" >>"$w/commits"
	git -C "$repo" push -q "$upstream" main
	[ -d "$kernel" ] || git clone -q "$upstream" "$kernel"
	git -C "$kernel" fetch -q origin main
	git -C "$kernel" checkout -q --detach "$sha"
	make -s -C "$kernel" >/dev/null
	before=0
	[ -f "$mbox" ] && before=$(grep -c '^From ' "$mbox" || true)
	rc=0
	KERNEL=$kernel BRANCH=main RESULTS=$results JOBS="$kernel/spin1.yaml $kernel/crash1.yaml" \
		BUILD_KERNEL=0 COMMIT_LABEL=$sha RUNS=$runs RUNTIME=$runtime MAIL="--mbox $mbox" \
		RUN_ARGS="--plugin $kernel/plug.so" TO="Dev <dev@example.com>" SCALEBENCH=$sb \
		bash jobs/nightly.sh >"$w/night$i.out" 2>"$w/night$i.err" || rc=$?
	after=0
	[ -f "$mbox" ] && after=$(grep -c '^From ' "$mbox" || true)
	echo "night $i ${sha:0:12} exit $rc, $((after - before)) mail(s), load $(cut -d' ' -f1 /proc/loadavg): $msg" >&2
	[ "$rc" -eq 0 ] || sed 's/^/    /' "$w/night$i.err" | tail -3 >&2
	echo "$i $rc $((after - before))" >>"$w/nights"
done
echo "nightly_real: $(($(date +%s) - start)) s" >&2

python3 - "$mbox" "$w/commits" "$results/.scalebench-nightly.json" "$step" "$fail" <<'PY'
import email, email.policy, json, mailbox, os, sys
mbox, commits, state, step, fail = sys.argv[1:]
shas = {}
for line in open(commits):
    i, sha, _ = line.split(" ", 2)
    shas[int(i)] = sha
step_sha, fail_sha = shas[int(step)], shas[int(fail)]
msgs = []
if os.path.exists(mbox):
    box = mailbox.mbox(mbox, create=False)
    msgs = [email.message_from_bytes(box.get_bytes(k), policy=email.policy.default) for k in box.keys()]
reg, fails, follow, other = [], [], [], []
for m in msgs:
    s = str(m["Subject"]).replace("\n", "")
    body = m.get_content()
    if s.startswith("Re:") and "culprit refined" in s:
        follow.append(s)
    elif "kernel test robot noticed" in body:
        fails.append((s, body))
    elif "regression" in s or "improvement" in s or "%" in s:
        reg.append((s, body))
    else:
        other.append(s)
print("mails: %d (regression/improvement %d, failure %d, follow-up %d, other %d)"
      % (len(msgs), len(reg), len(fails), len(follow), len(other)))
for m in msgs:
    print("  " + str(m["Subject"]).replace("\n", ""))
ranges = []
if os.path.exists(state):
    def walk(x):
        if isinstance(x, dict):
            if "range" in x:
                ranges.append((x.get("kind"), x.get("stat"), x["range"]))
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    for line in open(state):  # a journal: one record a line
        if line.strip():
            walk(json.loads(line))
for kind, stat, r in ranges:
    print("  recorded: %s %s range %s" % (kind, stat, " .. ".join(c[:12] for c in r)))
order = {sha: i for i, sha in shas.items()}
ok = True
spin_reg = [s for s, b in reg if "spin1" in b]
if len(spin_reg) != 1:
    print("FAIL: %d regression mails for spin1 (want 1)" % len(spin_reg)); ok = False
if len(reg) != len(spin_reg):
    print("FAIL: %d regression/improvement mails for other jobs (want 0)" % (len(reg) - len(spin_reg))); ok = False
if len(follow) > 1:
    print("FAIL: %d follow-ups (want at most 1)" % len(follow)); ok = False
fail_mails = [s for s, b in fails if "crash1" in b and fail_sha[:10] in s + b]
if len(fails) != 1 or len(fail_mails) != 1:
    print("FAIL: %d failure mails, %d for crash1 at commit %s (want 1, 1)" % (len(fails), len(fail_mails), fail)); ok = False
if other:
    print("FAIL: %d other mails" % len(other)); ok = False
inside = [r for k, s, r in ranges if s and "per_thread_ops" in s and len(r) == 2 and
          r[0] in order and r[1] in order and order[r[0]] <= int(step) <= order[r[1]]]
if spin_reg and not inside:
    print("FAIL: no recorded range of per_thread_ops holds commit %s" % step); ok = False
print("nightly_real: " + ("ok" if ok else "FAILED"))
sys.exit(0 if ok else 1)
PY
