#!/usr/bin/env bash
# What going through Slurm costs per run: the same atomic job run N times locally (`scalebench
# run JOB -r N`) and as an N-task array on a one-node cluster started here
# (tests/e2e/slurm.sh: munged, slurmctld, slurmd on this host, stopped by pid at the end), at
# each array size (default 10 and 100), without and with the default monitors.  The job is the
# shortest a run can be (getppid1, 1 copy, runtime 1 s, no warmup), so Slurm's share is as
# large as it gets.
#
# Measured, in one run of this script (the machine is shared: only ratios within it count):
#   local    `scalebench run JOB -r N`: wall time L
#   submit   `scalebench submit JOB -r N` then `scalebench wait ID`: wall time S, from before
#            submit to wait's return (everything a user waits for), and to the last run stored
#            (its run directory renamed into place)
#   submit -P K  the same with `scalebench submit --runs-per-task K` (-b K): N/K tasks of K
#            runs each; target: at most 0.2 s per run over a local run at the largest size
#   sbatch   the same runs as a hand-written array (`sbatch --array` of a script that does
#            what submit's job script does, timed with ns resolution): Slurm without scalebench
#            submit/wait; and the same runs as N/K tasks of `scalebench run -r K` each (-b K,
#            default 5: what launching several runs per task would save)
#   floor    `sbatch --array --wrap` of an empty task: Slurm's own cost per task
# Per-run overhead = (S - L) / N, and (S - the runs' own time) / N where the runs' own time is
# the sum over tasks of the job script's start..end around `scalebench run` (done/<I>).
# From slurmctld's log (millisecond timestamps): submission to first allocation, each task's
# allocation to completion, and each completion to the next allocation (the scheduler's tick).
# Target: under 1 s per run at every size, and linear growth (the per-run overhead at the
# largest size at most 20% + 0.05 s above that at the smallest).
#
# usage: bench/slurm.sh [-n SIZES] [-s RUNTIME] [-M] [-j FILE] [-c SLURM.CONF-LINE]...
#   -n SIZES   array sizes, comma-separated (default 10,100)
#   -s RUNTIME the job's runtime (default 1s)
#   -M         no monitors only (skip the with-monitors rows)
#   -b K       runs per task in the several-runs-per-task row (default 5; sizes above K that
#              K divides)
#   -j FILE    also write the figures as JSON to FILE
#   -c LINE    an extra slurm.conf line (repeatable), e.g. -c SchedulerParameters=...
#   env SCALEBENCH_BIN: the scalebench to measure (default build/scalebench)
# Needs root, slurm-wlm and munge (as the Slurm tests do).  exit: 0 target met, 1 missed, 2
# could not measure.
set -eu
cd "$(dirname "$0")/.."
sizes=10,100
runtime=1s
monitors=1
batch=5
json=
conf=()
usage="usage: bench/slurm.sh [-n SIZES] [-s RUNTIME] [-M] [-b K] [-j FILE] [-c SLURM.CONF-LINE]..."
while getopts n:s:Mb:j:c:h opt; do
	case $opt in
	n) sizes=$OPTARG ;;
	s) runtime=$OPTARG ;;
	M) monitors=0 ;;
	b) batch=$OPTARG ;;
	j) json=$OPTARG ;;
	c) conf+=("$OPTARG") ;;
	h) echo "$usage"; exit 0 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
if ! [[ $sizes =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ && $batch =~ ^[1-9][0-9]*$ ]]; then
	echo "$usage" >&2
	exit 2
fi
# SCALEBENCH_BIN: another build to measure (an absolute path; the nodes run it too).
sb=${SCALEBENCH_BIN:-$PWD/build/scalebench}
[[ -x $sb ]] || { echo "slurm.sh: $sb missing; run 'make'" >&2; exit 2; }
[[ -z $json || $json = /* ]] || json=$PWD/$json

# tests/e2e/slurm.sh reports through the test library's pass/fail and keeps its files under
# $WORK (removed by slurm_stop); a benchmark has no test counts, so these just print.
WORK=$(mktemp -d /tmp/scalebench-bench-slurm.XXXXXX)
pass() { echo "$1"; }
fail() {
	echo "slurm.sh: $1" >&2
	shift
	for line in "$@"; do echo "  $line" >&2; done
}
. tests/e2e/slurm.sh
trap 'slurm_stop' EXIT
slurm_start "${conf[@]}" || exit 2

cat >"$WORK/job.yaml" <<YAML
runtime: $runtime
warmup: 0
nr_task: 1
will-it-scale: {mode: process, test: getppid1}
YAML

python3 - "$sb" "$WORK" "$sizes" "$monitors" "$json" "$SL/slurmctld.log" "$batch" "$*" <<'PY'
import datetime, glob, json, os, re, statistics as st, subprocess, sys, time

sb, work, sizes, monitors, json_path, ctld_log, batch, args = sys.argv[1:]
sizes = [int(x) for x in sizes.split(",")]
batch = int(batch)  # runs per task in the "several runs per task" row
job = work + "/job.yaml"
modes = [("no monitors", ["--no-monitors"])] + ([("monitors", [])] if monitors == "1" else [])
have_submit = all(subprocess.run([sb, c, "--help"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL).returncode == 0
                  for c in ("submit", "wait"))
have_per_task = have_submit and "--runs-per-task" in subprocess.run(
    [sb, "submit", "--help"], capture_output=True, text=True).stdout
seq = [0]


def fresh(kind):
    seq[0] += 1
    d = f"{work}/{kind}.{seq[0]}"
    os.makedirs(d)
    return d


def stored_runs(root):
    """Each stored run's directory (a numbered directory holding meta.json)."""
    return [os.path.dirname(m) for m in glob.glob(root + "/**/meta.json", recursive=True)
            if os.path.basename(os.path.dirname(m)).isdigit()]


def local(n, extra):
    root = fresh("local") + "/results"
    t = time.time()
    subprocess.run([sb, "run", job, "-r", str(n), "--results", root, "-q"] + extra,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.time() - t
    assert len(stored_runs(root)) == n, f"local: {len(stored_runs(root))} of {n} runs stored"
    return {"wall": wall}


def ctld_events(jobid):
    """slurmctld's log: submission time, and each array task's allocation and completion."""
    ev = {"alloc": {}, "done": {}}
    pat = re.compile(r"^\[([0-9T:.-]+)\] (.*)$")
    with open(ctld_log) as f:
        for line in f:
            m = pat.match(line)
            if not m:
                continue
            t = datetime.datetime.fromisoformat(m.group(1)).timestamp()
            msg = m.group(2)
            if msg.startswith(f"_slurm_rpc_submit_batch_job: JobId={jobid} "):
                ev["submit"] = t
            # The main scheduler's words, or the backfill scheduler's (it starts tasks too).
            m2 = re.match(rf"(?:sched: Allocate|sched/backfill: _start_job: Started) "
                          rf"JobId={jobid}_(\d+)\(", msg)
            if m2:
                ev["alloc"][int(m2.group(1))] = t
            m2 = re.match(rf"_job_complete: JobId={jobid}_(\d+)\(\d+\) done", msg)
            if m2:
                ev["done"][int(m2.group(1))] = t
    return ev


def breakdown(jobid, n, t0, local_per_run):
    """Where the time went, from slurmctld's log."""
    for _ in range(50):  # slurmctld writes its log asynchronously
        ev = ctld_events(jobid)
        if len(ev["done"]) == n and len(ev["alloc"]) == n and "submit" in ev:
            break
        time.sleep(0.1)
    else:
        return None
    order = sorted(range(n), key=lambda i: ev["alloc"][i])
    spans = [ev["done"][i] - ev["alloc"][i] for i in order]
    gaps = [ev["alloc"][b] - ev["done"][a] for a, b in zip(order, order[1:])]
    return {
        "submit_rpc": ev["submit"] - t0,  # sbatch (and submit's own work before it)
        "first_alloc": ev["alloc"][order[0]] - ev["submit"],
        "task_span_mean": st.mean(spans),  # allocation to completion, each task
        "task_extra_mean": st.mean(spans) - local_per_run,  # launch, start-up, teardown
        "gap_mean": st.mean(gaps) if gaps else 0.0,  # completion to next allocation
        "gap_max": max(gaps) if gaps else 0.0,
        "last_done": ev["done"][order[-1]] - t0,
    }


def wait_records(d, n, timeout):
    """Poll d/done/ until n records exist; the time the last one appeared."""
    end = time.time() + timeout
    while time.time() < end:
        if sum(not f.startswith(".") for f in os.listdir(d + "/done")) >= n:
            return time.time()
        time.sleep(0.02)
    raise SystemExit(f"slurm.sh: {d}: {len(os.listdir(d + '/done'))} of {n} tasks ended "
                     f"within {timeout} s")


def records(d):
    out = []
    for f in os.listdir(d + "/done"):
        if f.startswith("."):
            continue
        kv = dict(w.split("=", 1) for w in open(f"{d}/done/{f}").read().split())
        out.append(kv)
    return out


def sbatch_array(n, script, d):
    r = subprocess.run(["sbatch", "--parsable", f"--array=0-{n - 1}", "--exclusive", "--mem=0",
                        "--job-name=sb-bench", "-o", d + "/out/%a.out", script],
                       check=True, capture_output=True, text=True)
    return r.stdout.strip().split(";")[0]


def plain(n, extra, per_run, empty=False, k=1):
    """The array by hand: Slurm's cost without scalebench's submit and wait; k runs a task."""
    d = fresh("floor" if empty else "sbatch")
    os.makedirs(d + "/done")
    os.makedirs(d + "/out")
    root = d + "/results"
    body = ":" if empty else (f"'{sb}' run '{job}' --results '{root}' -r {k} -q "
                              + " ".join(extra))
    with open(d + "/job.sh", "w") as f:
        f.write("#!/bin/sh\ni=$SLURM_ARRAY_TASK_ID\nstart=$(date +%s.%N)\n"
                f"{body}\nrc=$?\nend=$(date +%s.%N)\n"
                f"printf 'exit=%s start=%s end=%s\\n' \"$rc\" \"$start\" \"$end\" "
                f">'{d}'/done/.$i.tmp && mv '{d}'/done/.$i.tmp '{d}'/done/$i\n")
    t0 = time.time()
    jobid = sbatch_array(n // k, d + "/job.sh", d)
    t1 = wait_records(d, n // k, 60 + n * (per_run + 10))
    recs = records(d)
    assert all(r["exit"] == "0" for r in recs), f"{d}: a task failed"
    if not empty:
        assert len(stored_runs(root)) == n, f"{d}: {len(stored_runs(root))} of {n} runs stored"
    own = sum(float(r["end"]) - float(r["start"]) for r in recs)
    return {"wall": t1 - t0, "own": own, "jobid": jobid, "t0": t0}


def submit(n, extra, per_run, k=1):
    """scalebench submit + wait; k runs a task (--runs-per-task)."""
    d = fresh("submit")
    root = d + "/results"
    t0 = time.time()
    per_task = ["--runs-per-task", str(k)] if k > 1 else []
    r = subprocess.run([sb, "submit", job, "-r", str(n), "--results", root, "-q"] + per_task
                       + extra, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"slurm.sh: scalebench submit: exit {r.returncode}: {r.stderr}")
    jobid = r.stdout.strip()
    t_sub = time.time()
    r = subprocess.run([sb, "wait", jobid, "--results", root, "-q",
                        "--timeout", str(int(60 + n * (per_run + 10)))],
                       capture_output=True, text=True)
    t1 = time.time()
    if r.returncode != 0:
        raise SystemExit(f"slurm.sh: scalebench wait {jobid}: exit {r.returncode}: {r.stderr}")
    runs = stored_runs(root)
    assert len(runs) == n, f"submit: {len(runs)} of {n} runs stored"
    last_stored = max(os.stat(p).st_ctime for p in runs)
    sub = glob.glob(root + "/.scalebench-slurm/*/done")[0][:-5]
    recs = records(sub)
    own = sum(int(r["end"]) - int(r["start"]) for r in recs)  # whole seconds: see below
    return {"wall": t1 - t0, "stored": last_stored - t0, "submit_s": t_sub - t0, "own": own,
            "jobid": jobid, "t0": t0}


rows = []
print(f"Slurm per-run overhead: getppid1, 1 copy, {open(job).read().split()[1]} runtime, "
      f"no warmup; one-node cluster ({os.cpu_count()} CPUs), exclusive node per task")
if not have_submit:
    print("(this scalebench has no submit/wait: measuring Slurm's floor and a hand-written "
          "array only)")
for n in sizes:
    fl = plain(n, [], 0, empty=True)
    bd = breakdown(fl["jobid"], n, fl["t0"], 0)
    rows.append({"n": n, "mode": "empty task", "kind": "floor", "wall": fl["wall"],
                 "per_task": fl["wall"] / n, "breakdown": bd})
    for label, extra in modes:
        lo = local(n, extra)
        per_run = lo["wall"] / n
        rows.append({"n": n, "mode": label, "kind": "local", "wall": lo["wall"],
                     "per_run": per_run})
        pl = plain(n, extra, per_run)
        rows.append({"n": n, "mode": label, "kind": "sbatch", "wall": pl["wall"],
                     "own": pl["own"], "overhead_vs_local": (pl["wall"] - lo["wall"]) / n,
                     "overhead_vs_own": (pl["wall"] - pl["own"]) / n,
                     "breakdown": breakdown(pl["jobid"], n, pl["t0"], per_run)})
        if n % batch == 0 and n > batch:
            pb = plain(n, extra, per_run, k=batch)
            rows.append({"n": n, "mode": label, "kind": f"sbatch -r {batch}",
                         "wall": pb["wall"], "own": pb["own"],
                         "overhead_vs_local": (pb["wall"] - lo["wall"]) / n,
                         "overhead_vs_own": (pb["wall"] - pb["own"]) / n,
                         "breakdown": breakdown(pb["jobid"], n // batch, pb["t0"],
                                                per_run * batch)})
        if have_submit:
            su = submit(n, extra, per_run)
            rows.append({"n": n, "mode": label, "kind": "submit", "wall": su["wall"],
                         "stored": su["stored"], "submit_s": su["submit_s"], "own": su["own"],
                         "overhead_vs_local": (su["wall"] - lo["wall"]) / n,
                         "overhead_vs_own": (su["wall"] - su["own"]) / n,
                         "overhead_stored_vs_local": (su["stored"] - lo["wall"]) / n,
                         "breakdown": breakdown(su["jobid"], n, su["t0"], per_run)})
        if have_submit and have_per_task and n > batch:
            sk = submit(n, extra, per_run, k=batch)
            rows.append({"n": n, "mode": label, "kind": f"submit -P {batch}", "wall": sk["wall"],
                         "stored": sk["stored"], "submit_s": sk["submit_s"], "own": sk["own"],
                         "overhead_vs_local": (sk["wall"] - lo["wall"]) / n,
                         "overhead_vs_own": (sk["wall"] - sk["own"]) / n,
                         "overhead_stored_vs_local": (sk["stored"] - lo["wall"]) / n,
                         "breakdown": breakdown(sk["jobid"], -(-n // batch), sk["t0"],
                                                per_run * batch)})
        print(".", end="", flush=True, file=sys.stderr)
print(file=sys.stderr)

print("\n| tasks | monitors | how | wall | per run | overhead per run vs local | "
      "vs the runs' own time |")
print("| ---: | --- | --- | ---: | ---: | ---: | ---: |")
for r in rows:
    if r["kind"] == "floor":
        print(f"| {r['n']} | | sbatch --array of an empty task | {r['wall']:.2f} s | "
              f"{r['per_task']:.3f} s | | |")
    elif r["kind"] == "local":
        print(f"| {r['n']} | {r['mode']} | scalebench run -r {r['n']} | {r['wall']:.2f} s | "
              f"{r['per_run']:.3f} s | | |")
    else:
        how = {"submit": "scalebench submit + wait", "sbatch": "sbatch --array of scalebench run",
               f"submit -P {batch}": f"scalebench submit --runs-per-task {batch} + wait"
               }.get(r["kind"], f"sbatch --array of {r['n'] // batch} tasks x scalebench run "
                                f"-r {batch}")
        extra = (f" ({r['overhead_stored_vs_local']:.3f} s to the last run stored)"
                 if r["kind"].startswith("submit") else "")
        print(f"| {r['n']} | {r['mode']} | {how} | {r['wall']:.2f} s | {r['wall'] / r['n']:.3f} s"
              f" | {r['overhead_vs_local']:.3f} s{extra} | {r['overhead_vs_own']:.3f} s |")

print("\nWhere the time goes (slurmctld's log):")
print("| tasks | monitors | how | submission to first allocation | allocation to completion"
      " (beyond a local run's time) | completion to next allocation (mean, max) |"
      " last completion to the end |")
print("| ---: | --- | --- | ---: | ---: | ---: | ---: |")
for r in rows:
    b = r.get("breakdown")
    if not b:
        continue
    print(f"| {r['n']} | {r['mode']} | {r['kind']} | {b['submit_rpc'] + b['first_alloc']:.2f} s"
          f" (accepted after {b['submit_rpc']:.3f} s) | {b['task_span_mean']:.3f} s"
          f" ({b['task_extra_mean']:+.3f} s) | {b['gap_mean']:.3f} s, {b['gap_max']:.3f} s |"
          f" {r['wall'] - b['last_done']:.2f} s |")

# The verdict: scalebench submit + wait when this scalebench has them, else the hand-written
# array (Slurm's floor with scalebench run in each task) -- said which.
kind = "submit" if have_submit else "sbatch"
verdict, ok = [], True
for label, _ in modes:
    ov = {r["n"]: r["overhead_vs_local"] for r in rows if r["kind"] == kind and r["mode"] == label}
    for n in sizes:
        good = ov[n] < 1.0
        ok &= good
        verdict.append(f"{'PASS' if good else 'FAIL'}: {kind}, {label}, {n} tasks: "
                       f"{ov[n]:.3f} s per run over a local run (target < 1 s)")
    lo, hi = min(sizes), max(sizes)
    if lo != hi:
        good = ov[hi] <= ov[lo] * 1.2 + 0.05
        ok &= good
        verdict.append(f"{'PASS' if good else 'FAIL'}: {kind}, {label}: per-run overhead "
                       f"{ov[lo]:.3f} s at {lo} tasks, {ov[hi]:.3f} s at {hi} (linear: at most "
                       f"20% + 0.05 s more)")
    # Several runs a task: at most 0.2 s per run over a local run at the largest size.
    pk = [r for r in rows if r["kind"] == f"submit -P {batch}" and r["mode"] == label
          and r["n"] == max(sizes)]
    if pk:
        good = pk[0]["overhead_vs_local"] <= 0.2
        ok &= good
        verdict.append(f"{'PASS' if good else 'FAIL'}: submit --runs-per-task {batch}, {label}, "
                       f"{max(sizes)} runs: {pk[0]['overhead_vs_local']:.3f} s per run over a "
                       f"local run (target <= 0.2 s)")
print(f"\nReproduce: bench/slurm.sh {args}".rstrip())
print()
print("\n".join(verdict))
if json_path:
    with open(json_path, "w") as f:
        json.dump({"sizes": sizes, "runtime": open(job).read().split()[1], "measured": kind,
                   "rows": [{k: v for k, v in r.items() if k not in ("jobid", "t0")}
                            for r in rows], "pass": ok}, f, indent=2)
sys.exit(0 if ok else 1)
PY
