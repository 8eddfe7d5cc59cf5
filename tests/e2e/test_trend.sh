#!/bin/bash
# scalebench trend: a stat's series over a branch and its change points, through the real
# binary on hand-made trees: a known step found at the right commit (time order and the
# branch's first-parent order), an A/A tree left alone, --json's fields, the plots, the exit
# status for bots, and the refusals (unknown stat, unknown job, bad --since, bad options).
set -u
. "$(dirname "$0")/../lib.sh"

# A git repository with 40 commits on main, one side commit that is never on the branch.
REPO="$WORK/repo"
git init -q -b main "$REPO"
gitc() { GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t git -C "$REPO" "$@"; }
for i in $(seq 0 39); do gitc commit -q --allow-empty -m "c$i"; done
git -C "$REPO" rev-list --first-parent --reverse main >"$WORK/shas"

# mk_tree ROOT STEP_AT STEP_PCT [ORDER]: 40 commits x 3 runs of the branch's shas, lognormal
# 2% noise around 1e6 ops/s, a step of STEP_PCT from commit STEP_AT on (-1: none).  ORDER
# "reverse" gives the runs start times in the opposite order of the branch, so only --repo
# puts them right.
mk_tree() {
	python3 - "$1" "$2" "$3" "${4:-forward}" "$WORK/shas" <<'PY'
import json, math, os, random, sys
root, at, pct, order, shas = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], open(sys.argv[5]).read().split()
rng = random.Random(42)
for i, sha in enumerate(shas):
    level = 1e6 * (1 + pct / 100 if at >= 0 and i >= at else 1)
    t = (len(shas) - i if order == "reverse" else i) * 86400 + 1767225600
    for run in range(3):
        d = f"{root}/will-it-scale/process-1-page_fault3/box/debian-12-x86_64/defconfig/gcc-12/{sha}/{run}"
        os.makedirs(d)
        v = level * math.exp(rng.gauss(0, 0.02))
        json.dump({"will-it-scale.per_process_ops": v, "will-it-scale.workload": v * 5,
                   "perf-stat.ps.cycles": v * 1000}, open(f"{d}/stats.json", "w"))
        json.dump({"started": t + run * 60, "status": "ok", "suite": "will-it-scale",
                   "headline": {"stat": "will-it-scale.per_process_ops", "direction": "higher"},
                   "families": {"will-it-scale": "headline", "perf-stat": "monitor"}},
                  open(f"{d}/meta.json", "w"))
PY
}
sha() { sed -n "$(($1 + 1))p" "$WORK/shas"; }
JOB=process-1-page_fault3
STAT=will-it-scale.per_process_ops

# A 6% drop at commit 20, runs in branch order.
mk_tree "$WORK/step" 20 -6
sb trend --results "$WORK/step" --job $JOB --stat $STAT
check "a regression step: exit 1" bash -c "[ $rc -eq 1 ]"
check "the step is found at its first commit" bash -c \
	"grep -q '^  $(sha 20) (commit 21 of 40): .*: regression$' $WORK/out"
check "one change point, 40 points listed" bash -c \
	"grep -q '^1 change point:' $WORK/out && [ \$(grep -c '^[0-9a-f]\{40\} ' $WORK/out) -eq 40 ]"
check "the header names stat, job and direction" bash -c \
	"head -1 $WORK/out | grep -q '^$STAT of will-it-scale/$JOB/box/debian-12-x86_64/defconfig/gcc-12: 40 commits, higher is better$'"

sb trend --results "$WORK/step" --job $JOB --stat $STAT --json
check "--json: exit 1 too, and it parses" bash -c "[ $rc -eq 1 ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' $WORK/out"
json_checks "$WORK/out" <<CHECKS
--json: job, stat, 40 points with commit, runs and mean	d['job'].endswith('$JOB/box/debian-12-x86_64/defconfig/gcc-12') and d['stat'] == '$STAT' and len(d['points']) == 40 and all(set(p) == {'commit', 'runs', 'mean'} and p['runs'] == 3 for p in d['points'])
--json: the change point's fields	len(d['change_points']) == 1 and set(d['change_points'][0]) == {'commit', 'index', 'before', 'after', 'change_pct', 'ci_pct', 'p', 'verdict'}
--json: at commit 20, -6% within its interval, a regression	[(c['commit'], c['index'], c['verdict']) for c in d['change_points']] == [('$(sha 20)', 20, 'regression')] and -8 < d['change_points'][0]['change_pct'] < -4 and d['change_points'][0]['ci_pct'][0] < d['change_points'][0]['change_pct'] < d['change_points'][0]['ci_pct'][1] < -1 and d['change_points'][0]['p'] <= 0.05 and d['change_points'][0]['before'] > d['change_points'][0]['after']
CHECKS

# Without --stat: the job's headline, as its runs' meta.json declares it (html's and nightly's
# default).
sb trend --results "$WORK/step" --job $JOB --json
check "no --stat: the headline followed, the same change point" json_true "$WORK/out" \
	"d['stat'] == '$STAT' and [c['commit'] for c in d['change_points']] == ['$(sha 20)']"
sb trend --results "$WORK/step" --job process-9-nosuch
check "no --stat, an unknown job: exit 2, the job named" bash -c \
	"[ $rc -eq 2 ] && grep -q \"no job 'process-9-nosuch'\" $WORK/err"

# Cycles fall with the ops here; lower is better for them (a perf-stat stat): an improvement.
sb trend --results "$WORK/step" --job $JOB --stat perf-stat.ps.cycles --json
check "a stat whose drop is good: exit 0" bash -c "[ $rc -eq 0 ]"
check "a stat whose drop is good: an improvement at commit 20" json_true "$WORK/out" \
	"[(c['index'], c['verdict']) for c in d['change_points']] == [(20, 'improvement')]"

# Runs recorded in the opposite order of the branch: time order puts the step elsewhere;
# --repo/--branch put it back at commit 20.
mk_tree "$WORK/rev" 20 -6 reverse
sb trend --results "$WORK/rev" --job $JOB --stat $STAT --repo "$REPO" --branch main --json
check "--repo --branch: first-parent order, step at commit 20" json_true "$WORK/out" \
	"[p['commit'] for p in d['points']] == open('$WORK/shas').read().split() and [(c['commit'], c['index']) for c in d['change_points']] == [('$(sha 20)', 20)]"
sb trend --results "$WORK/rev" --job $JOB --stat $STAT --json
check "time order without --repo: the newest run first in the list is the branch's oldest" json_true "$WORK/out" \
	"d['points'][0]['commit'] == '$(sha 39)' and [c['index'] for c in d['change_points']] == [20] and d['change_points'][0]['verdict'] == 'improvement'"

# --since: a commit and a date cut the series.
sb trend --results "$WORK/step" --job $JOB --stat $STAT --repo "$REPO" --since "$(sha 10)" --json
check "--since COMMIT: 30 points from it" json_true "$WORK/out" \
	"len(d['points']) == 30 and d['points'][0]['commit'] == '$(sha 10)' and [c['index'] for c in d['change_points']] == [10]"

# Commit i's runs start at midnight UTC on 2026-01-(i+1); noon local time is past commit 10's
# and before commit 11's in any zone within 12 h of UTC.
sb trend --results "$WORK/step" --job $JOB --stat $STAT --since 2026-01-11T12:00:00 --json
check "--since DATE: the commits from the next day on" json_true "$WORK/out" \
	"len(d['points']) == 29 and d['points'][0]['commit'] == '$(sha 11)'"

# A/A: no change point, exit 0.
mk_tree "$WORK/aa" -1 0
sb trend --results "$WORK/aa" --job $JOB --stat $STAT
check "A/A: no change point, exit 0" bash -c "[ $rc -eq 0 ] && grep -q '^no change point$' $WORK/out"
sb trend --results "$WORK/aa" --job $JOB --stat $STAT --json
check "A/A --json: an empty change_points list" json_true "$WORK/out" "d['change_points'] == [] and len(d['points']) == 40"

# Plots.
sb trend --results "$WORK/step" --job $JOB --stat $STAT --svg "$WORK/trend.svg"
check "--svg: a non-empty SVG with the change marked, exit 1 still" bash -c \
	"[ $rc -eq 1 ] && [ -s $WORK/trend.svg ] && grep -q '</svg>' $WORK/trend.svg && grep -q -- '-[0-9.]*%' $WORK/trend.svg"
sb trend --results "$WORK/step" --job $JOB --stat $STAT --png "$WORK/trend.png"
check "--png: a PNG" bash -c "head -c 4 $WORK/trend.png | grep -q PNG"
sb trend --results "$WORK/step" --job $JOB --stat $STAT --plot
check "--plot: the table, then an 80x20 text plot with the change" bash -c \
	"[ $rc -eq 1 ] && grep -q '^1 change point:' $WORK/out && grep -q '+------' $WORK/out && grep -q '|-[0-9.]*%' $WORK/out"

# Refusals: exit 2 and a message that says what is wrong.
sb trend --results "$WORK/step" --job $JOB --stat no.such.stat
check "unknown stat: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q \"no stat 'no.such.stat'\" $WORK/err"
sb trend --results "$WORK/step" --job no-such-job --stat $STAT
check "unknown job: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q \"no job 'no-such-job'\" $WORK/err"
sb trend --results "$WORK/step" --job $JOB --stat $STAT --since yesterday-ish
check "bad --since: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q 'yesterday-ish' $WORK/err"
sb trend --results "$WORK/step" --job $JOB --stat $STAT --repo "$REPO" --branch no-such-branch
check "unknown branch: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q 'no-such-branch' $WORK/err"
sb trend --results "$WORK/step" --job $JOB --stat $STAT --branch main
check "--branch without --repo: exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'needs --repo' $WORK/err"
sb trend --results "$WORK/step" --job $JOB --stat $STAT --permutations 5
check "--permutations below 19: exit 2" bash -c "[ $rc -eq 2 ] && grep -q -- '--permutations' $WORK/err"
sb trend --results "$WORK/step" --job $JOB --stat $STAT --plot --svg "$WORK/x.svg"
check "--plot and --svg: exit 2" bash -c "[ $rc -eq 2 ] && [ ! -e $WORK/x.svg ]"
sb trend --results "$WORK/nonexistent" --job $JOB --stat $STAT
check "no results root: exit 2" bash -c "[ $rc -eq 2 ] && grep -q nonexistent $WORK/err"
sb trend --help
check "--help: the options and the exit status" bash -c \
	"[ $rc -eq 0 ] && grep -q -- '--min-segment' $WORK/out && grep -q 'exit status: 0 no regression' $WORK/out"

# --svg interrupted while gnuplot writes (a gnuplot shim found first in PATH stalls once the
# plot sets its output): exit 128+N, said, neither the file nor a temp file left.
mkdir -p "$WORK/shim" "$WORK/tplot"
cat >"$WORK/shim/gnuplot" <<EOF2
#!/bin/sh
script=\$(cat)
case \$script in *"set output"*)
	: >"$WORK/gnuplot.started"
	sleep 30 ;;
esac
printf '%s\n' "\$script" | exec $(command -v gnuplot) "\$@"
EOF2
chmod +x "$WORK/shim/gnuplot"
for sig in TERM INT; do
	rm -f "$WORK/gnuplot.started"
	(
		set -m
		PATH="$WORK/shim:$PATH" SCALEBENCH_GNUPLOT= "$SCALEBENCH" trend --results "$WORK/step" \
			--job $JOB --stat $STAT --svg "$WORK/tplot/t.svg" >/dev/null 2>"$WORK/err.tplot" &
		pid=$!
		for _ in $(seq 1 200); do
			[ -e "$WORK/gnuplot.started" ] && break
			sleep 0.05
		done
		kill -$sig $pid
		rc=0
		wait $pid || rc=$?
		echo $rc >"$WORK/tplot.rc"
	) 2>/dev/null
	check "trend --svg, SIG$sig while gnuplot writes: exit $((128 + $(kill -l $sig))), said, nothing left" \
		bash -c "[ -e $WORK/gnuplot.started ] && [ \$(cat $WORK/tplot.rc) -eq $((128 + $(kill -l $sig))) ] &&
			grep -q 'interrupted by signal' $WORK/err.tplot && [ -z \"\$(ls -A $WORK/tplot)\" ]"
done
