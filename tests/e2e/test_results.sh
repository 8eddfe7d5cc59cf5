#!/bin/bash
# scalebench results: what a results tree holds, per job its commits in time order or in a
# branch's first-parent order, as a table or JSON; and its refusals.
set -u
. "$(dirname "$0")/../lib.sh"

R="$WORK/results"
mk_run() { # PATH_PARAMS TBOX COMMIT RUN STARTED STATUS [CPU]
	python3 - "$R" "$@" <<'PY'
import json, os, sys
root, pp, tbox, commit, run, started, status = sys.argv[1:8]
cpu = sys.argv[8] if len(sys.argv) > 8 else None
d = f"{root}/will-it-scale/{pp}/{tbox}/debian-12-x86_64/defconfig/gcc-12/{commit}/{run}"
os.makedirs(d)
json.dump({"will-it-scale.per_process_ops": 100.0 + int(run)}, open(f"{d}/stats.json", "w"))
meta = {"started": started, "status": status}
if cpu:
    meta["machine"] = {"cpu_model": cpu}
json.dump(meta, open(f"{d}/meta.json", "w"))
PY
}

sb results --results "$WORK/nonexistent"
check "no results directory: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q 'nonexistent: no such results directory' $WORK/err"
mkdir -p "$R"
sb results --results "$R"
check "an empty tree: exit 1, said" bash -c "[ $rc -eq 1 ] && grep -q 'holds no runs' $WORK/err"

# A git repository whose main branch is c0 - c1 - c2 (first parent), a side commit s.
REPO="$WORK/repo"
git init -q -b main "$REPO"
gitc() { GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t git -C "$REPO" "$@"; }
gitc commit -q --allow-empty -m c0
gitc commit -q --allow-empty -m c1
gitc checkout -q -b side
gitc commit -q --allow-empty -m s
gitc checkout -q main
gitc commit -q --allow-empty -m c2
c0=$(git -C "$REPO" rev-parse main~2) c1=$(git -C "$REPO" rev-parse main~1)
c2=$(git -C "$REPO" rev-parse main) s=$(git -C "$REPO" rev-parse side)

# Run in the opposite order of the branch: c2 first, then c1 (as a 12-digit label), then c0.
mk_run process-1-page_fault3 box "$c2" 0 2026-01-01T00:00:00+0000 ok "Test CPU"
mk_run process-1-page_fault3 box "$c2" 1 2026-01-01T00:10:00+0000 failed "Test CPU"
mk_run process-1-page_fault3 box "${c1:0:12}" 0 2026-01-02T00:00:00+0000 ok
mk_run process-1-page_fault3 box "$c0" 0 2026-01-03T00:00:00+0000 ok "Test CPU"
mk_run process-1-page_fault3 box "$s" 0 2026-01-04T00:00:00+0000 ok "Test CPU"
mk_run process-1-page_fault3 box local 0 2026-01-05T00:00:00+0000 ok "Test CPU"
mk_run thread-1-page_fault3 box "$c0" 0 2026-01-01T00:00:00+0000 ok "Test CPU"
KEY=will-it-scale/process-1-page_fault3/box/debian-12-x86_64/defconfig/gcc-12

sb results --results "$R"
check "a table: both jobs, each with its counts" bash -c \
	"[ $rc -eq 0 ] && grep -q '^$KEY  (5 commits, 6 runs)' $WORK/out && grep -q '^will-it-scale/thread-1-page_fault3/.*(1 commit, 1 run)' $WORK/out && grep -q 'COMMIT.*FIRST RUN.*LAST RUN.*RUNS.*FAILED.*MACHINE' $WORK/out"
check "a commit's row: its runs, its failures, its machine" bash -c \
	"grep -E '^  $c2 +[0-9-]+ [0-9:]+  [0-9-]+ [0-9:]+ +2 +1  Test CPU$' $WORK/out >/dev/null"
check "no cpu_model: the tbox_group is the machine" bash -c "grep -E '^  ${c1:0:12} .* box$' $WORK/out >/dev/null"

sb results --results "$R" --job process-1-page_fault3 --json
check "--json: time order, first and last run times in Unix seconds" json_true "$WORK/out" \
	"d['order'] == 'time' and [c['commit'] for c in d['jobs'][0]['commits']] == ['$c2', '${c1:0:12}', '$c0', '$s', 'local'] and d['jobs'][0]['commits'][0]['first_started'] == 1767225600 and d['jobs'][0]['commits'][0]['last_started'] == 1767226200"
check "--json: the schema" json_true "$WORK/out" \
	"set(d) == {'root', 'order', 'jobs'} and set(d['jobs'][0]) == {'key', 'testcase', 'path_params', 'tbox_group', 'rootfs', 'kconfig', 'compiler', 'runs', 'not_on_branch', 'commits'} and set(d['jobs'][0]['commits'][0]) == {'commit', 'first_started', 'last_started', 'runs', 'failed', 'machine', 'dir'} and d['jobs'][0]['key'] == '$KEY'"

sb results --results "$R" --job process-1-page_fault3 --repo "$REPO" --branch main --json
check "--repo --branch: first-parent order, labels as full shas or prefixes, others left out and counted" json_true "$WORK/out" \
	"d['order'] == 'branch' and [c['commit'] for c in d['jobs'][0]['commits']] == ['$c0', '${c1:0:12}', '$c2'] and d['jobs'][0]['not_on_branch'] == 2"
sb results --results "$R" --job process-1-page_fault3 --repo "$REPO"
check "--repo alone: HEAD's history, the left-out commits said" bash -c \
	"[ $rc -eq 0 ] && grep -q '2 commits not on HEAD' $WORK/out"
sb results --results "$R" --job "$KEY" --repo "$REPO" --branch side --json
check "--branch side: its own history" json_true "$WORK/out" \
	"[c['commit'] for c in d['jobs'][0]['commits']] == ['$c0', '${c1:0:12}', '$s']"

sb results --results "$R" --commit "$c0" --json
check "--commit: that commit of every job" json_true "$WORK/out" \
	"[len(j['commits']) for j in d['jobs']] == [1, 1]"
sb results --results "$R" --commit nothing-like-it
check "an unknown commit: exit 1, said" bash -c "[ $rc -eq 1 ] && grep -q \"no commit 'nothing-like-it'\" $WORK/err"
sb results --results "$R" --job no-such-job
check "an unknown job: exit 1, said" bash -c "[ $rc -eq 1 ] && grep -q \"no job 'no-such-job'\" $WORK/err"

mk_run process-1-page_fault3 other-box x 0 2026-01-01T00:00:00+0000 ok
sb results --results "$R" --job process-1-page_fault3
check "an ambiguous path_params: exit 2, naming the keys" bash -c \
	"[ $rc -eq 2 ] && grep -q 'ambiguous' $WORK/err && grep -q '$KEY' $WORK/err && grep -q 'process-1-page_fault3/other-box/' $WORK/err"
sb results --results "$R" --job "$KEY"
check "the key instead: listed" bash -c "[ $rc -eq 0 ] && grep -q '^$KEY ' $WORK/out"

sb results --results "$R" --branch main
check "--branch without --repo: exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'needs --repo' $WORK/err"
sb results --results "$R" --job "$KEY" --repo "$REPO" --branch --all
check "a branch starting with '-': refused (exit 2)" bash -c "[ $rc -eq 2 ] && grep -q \"does not start with '-'\" $WORK/err"
sb results --results "$R" --job "$KEY" --repo "$REPO" --branch no-such-branch
check "an unknown branch: exit 2, git's words" bash -c "[ $rc -eq 2 ] && grep -q 'rev-list' $WORK/err"

# Labels from the tree are text from outside: no control character reaches the terminal.
mk_run process-1-page_fault3 box $'evil\e[31m' 0 2026-01-06T00:00:00+0000 ok
sb results --results "$R" --job "$KEY"
check "a label with an escape character is printed escaped" bash -c "[ $rc -eq 0 ] && ! grep -q $'\e' $WORK/out && grep -q 'evil' $WORK/out"

# Names that are not UTF-8 (Latin-1 bytes in a directory name): --json drops none of them, each
# written with U+FFFD and its bytes beside it.
R=$WORK/latin1
mk_run $'process-1-caf\xe9' box c1 0 2026-01-01T00:00:00+0000 ok
mk_run process-2-page_fault3 box $'na\xefve' 0 2026-01-02T00:00:00+0000 ok
mk_run process-3-page_fault3 box c1 0 2026-01-03T00:00:00+0000 ok
sb results --results "$R" --json
check "--json, a path_params and a label in Latin-1: every job listed (exit 0, 3 jobs)" json_true \
	"$WORK/out" "len(d['jobs']) == 3"
check "--json, Latin-1 names: U+FFFD in the name, its bytes in hex beside it" json_true "$WORK/out" \
	"[(j['path_params'], bytes.fromhex(j.get('path_params_bytes', ''))) for j in d['jobs'] if j['path_params'].startswith('process-1-')] == [('process-1-caf\ufffd', b'process-1-caf\xe9')] and [(c['commit'], bytes.fromhex(c['commit_bytes'])) for j in d['jobs'] for c in j['commits'] if 'commit_bytes' in c] == [('na\ufffdve', b'na\xefve')]"

# One commit stored under its full sha and under a 7-digit prefix: with --repo, one point of
# trend's series (the runs of both, named by the full sha), both rows in results' listing,
# adjacent; without --repo labels are free-form: two points.
R=$WORK/alias
mk_run process-1-page_fault3 box "$c0" 0 2026-01-01T00:00:00+0000 ok
mk_run process-1-page_fault3 box "$c1" 0 2026-01-02T00:00:00+0000 ok
mk_run process-1-page_fault3 box "$c2" 0 2026-01-03T00:00:00+0000 ok
mk_run process-1-page_fault3 box "${c1:0:7}" 0 2026-01-04T00:00:00+0000 ok
mk_run process-1-page_fault3 box "${c1:0:7}" 1 2026-01-04T00:10:00+0000 ok
sb trend --results "$R" --job process-1-page_fault3 --stat will-it-scale.per_process_ops --repo "$REPO" --json
check "trend --repo, a commit under its sha and a prefix: one point, its 3 runs, the full sha" \
	json_true "$WORK/out" "[(p['commit'], p['runs']) for p in d['points']] == [('$c0', 1), ('$c1', 3), ('$c2', 1)]"
sb results --results "$R" --repo "$REPO" --json
check "results --repo, the same: both labels listed, adjacent, none off the branch" json_true \
	"$WORK/out" "[c['commit'] for c in d['jobs'][0]['commits']] == ['$c0', '$c1', '${c1:0:7}', '$c2'] and d['jobs'][0]['not_on_branch'] == 0"
sb trend --results "$R" --job process-1-page_fault3 --stat will-it-scale.per_process_ops --json
check "trend without --repo, the same: labels are free-form, two points for the commit" \
	json_true "$WORK/out" "len(d['points']) == 4"
