#!/bin/bash
# scalebench nightly through the real binary: a results tree with a known regression step at a
# known commit of a git branch is mailed once (one message naming the culprit, the other job
# that changed there in the "In addition to that" box); nothing is mailed twice, whether
# nightly runs again, a new night brings nothing, it is killed between recording and
# delivering a message or between delivering and marking it, or two run at once; a corrupt
# state file stops it before anything is mailed.
set -u
. "$(dirname "$0")/../lib.sh"

# state_doc STATE OUT: the state file (a header line, a message a line) as one document in OUT,
# {"version", "messages": [...]}, for json_later (nothing in OUT when it does not read).
state_doc() {
	python3 -c 'import json, sys
lines = open(sys.argv[1]).read().splitlines()
d = json.loads(lines[0])
d["messages"] = [json.loads(l) for l in lines[1:]]
json.dump(d, open(sys.argv[2], "w"))' "$1" "$2" 2>/dev/null || : >"$2"
}


SB=$(realpath "$SCALEBENCH")
REPO=$WORK/repo
mkdir -p "$REPO"
g() { git -C "$REPO" "$@" >/dev/null 2>&1; }
g init -q -b main
# commit N SUBJECT: a commit of the watched branch, its sha in $SHA
commit() {
	echo "$1" >"$REPO/f"
	g add f
	GIT_AUTHOR_NAME=Dev GIT_AUTHOR_EMAIL=dev@example.org GIT_COMMITTER_NAME=c \
		GIT_COMMITTER_EMAIL=c@example.org git -C "$REPO" commit -q -m "$2" >/dev/null 2>&1
	SHA=$(git -C "$REPO" rev-parse HEAD)
}

# night ROOT N SHA LEVEL1 LEVEL2 [N SHA LEVEL1 LEVEL2...]: 3 runs of each job at commit SHA,
# started on night N (several nights in one python start).  Jobs process-1 and process-2 at
# their LEVEL (1.0: as before), process-4 always at 1.0.  The files have a real run's shape
# (meta.json declaring the suite, headline and families).
night() {
	python3 - "$@" <<'PY'
import json, os, random, sys
root, nights = sys.argv[1], sys.argv[2:]
axes = "box/debian-12-x86_64/defconfig/gcc-12"
for i in range(0, len(nights), 4):
    n, sha, l1, l2 = int(nights[i]), nights[i + 1], float(nights[i + 2]), float(nights[i + 3])
    rng = random.Random(n)
    for tasks, level in ((1, l1), (2, l2), (4, 1.0)):
        pp = f"process-{tasks}-page_fault3"
        for run in range(3):
            d = f"{root}/will-it-scale/{pp}/{axes}/{sha}/{run}"
            os.makedirs(d)
            v = 100000 * level * (1 + rng.gauss(0, 0.003))
            json.dump({"will-it-scale.per_process_ops": v, "will-it-scale.workload": v * tasks * 3,
                       "proc-vmstat.pgfault": 1e6 * (1 + rng.gauss(0, 0.003))},
                      open(f"{d}/stats.json", "w"))
            json.dump({"scalebench": "0.1", "job": "jobs/page_fault3.yaml", "atomic_job": pp,
                       "path_params": pp, "commit": sha, "testcase": "page_fault3",
                       "mode": "process", "nr_task": tasks, "runtime_s": 3, "warmup_s": 1,
                       "status": "ok", "monitors": {}, "failure_stats": [],
                       "started": "2026-11-%02dT02:%02d:00+0000" % (n, 10 * tasks + run),
                       "machine": {"cpu_model": "Test CPU", "threads": 2, "memory_kib": 4194304,
                                   "tbox_group": "box"},
                       "suite": "will-it-scale",
                       "headline": {"stat": "will-it-scale.per_process_ops", "direction": "higher"},
                       "families": {"will-it-scale": "headline", "proc-vmstat": "monitor"}},
                      open(f"{d}/meta.json", "w"))
PY
}

# Ten nights; commit 6 ("mm: slow down") makes jobs process-1 and process-2 8% slower.
R=$WORK/results
nights=()
for n in 1 2 3 4 5 6 7 8 9 10; do
	subj="fs: change $n"
	[ $n -eq 6 ] && subj="mm: slow down"
	commit $n "$subj"
	lvl=1.0
	[ $n -ge 6 ] && lvl=0.92
	nights+=($n "$SHA" $lvl $lvl)
	[ $n -eq 6 ] && CULPRIT=$SHA
	[ $n -eq 5 ] && BASE=$SHA
	[ $n -eq 7 ] && AFTER=$SHA
done
night "$R" "${nights[@]}"
cp -r "$R" "$WORK/pristine"

# The mbox checks, run together at the end (mbox_run: one python start): mbox_ok NAME MBOX N
# [CULPRIT BASE] keeps a copy of MBOX as it is now.  It holds N whole messages, each parsed by
# Python's email package; with CULPRIT, the last one names it (Subject: the stat, the
# regression, the sha), its base, and the other job in the "In addition to that" box.
cat >"$WORK/mbox.py" <<'PY'
import email.policy, mailbox, re, sys

def check(path, n, culprit=None, base=None):
    box = mailbox.mbox(path, create=False)
    msgs = [box.get_bytes(k) for k in box.keys()]
    assert len(msgs) == int(n), ('messages', len(msgs), n)
    ids = []
    for raw in msgs:
        m = email.message_from_bytes(raw, policy=email.policy.default)
        assert not m.defects, m.defects
        ids.append(m['Message-ID'])
    assert len(set(ids)) == len(ids), ('Message-IDs repeated', ids)
    if culprit:
        m = email.message_from_bytes(msgs[-1], policy=email.policy.default)
        subj, body = m['Subject'], m.get_content()
        assert subj.startswith('[main] [mm] %s: will-it-scale.per_process_ops -8' % culprit[:10]), subj
        assert subj.endswith(' regression'), subj
        # One comparison's figure in the subject, the first line and the table (base against
        # head); the trend's own segment figure said in words beside it.
        sc = re.search(r'per_process_ops (-[0-9.]+%)', subj).group(1)
        assert 'noticed a %s regression of will-it-scale.per_process_ops' % sc in body, (sc, body[:300])
        rows = [l for l in body.splitlines() if re.search(r'%\s+\S+\s+will-it-scale\.per_process_ops ', l)]
        assert rows and sc in rows[0], (sc, rows)
        assert "over the branch's nightly series the mean of will-it-scale.per_process_ops moved by -" in body, body[:1200]
        assert 'commit: %s ("mm: slow down")' % culprit[:10] in body, body[:600]
        assert 'base: %s' % base[:10] in body, body[:600]
        assert 'In addition to that, the commit also has significant impact' in body, body[:1500]
        box_lines = [l for l in body.splitlines() if l.startswith('| test parameters')]
        # The two jobs that changed: one in the subject, the other in the box; process-4 in neither.
        assert len(box_lines) == 1, box_lines
        boxed = 1 if 'nr_task: 1 ' in box_lines[0] else 2
        assert 'nr_task: %d' % (3 - boxed) in body.split('In addition')[0], body[:600]
        assert 'nr_task: 4' not in body, 'process-4 did not change'

for line in open(sys.argv[1]).read().splitlines():
    name, *args = line.split('\t')
    try:
        check(*args)
        print(f'ok\t{name}')
    except Exception as e:
        print(f'FAIL\t{name}\t{type(e).__name__}: {str(e)[-300:]!r}')
PY
mbox_n=0
mbox_ok() { # NAME MBOX N [CULPRIT BASE]
	local name=$1 copy=$WORK/mboxes/$mbox_n
	mbox_n=$((mbox_n + 1))
	mkdir -p "$WORK/mboxes"
	[ -e "$2" ] && cp "$2" "$copy" # absent: absent in the copy too (a failure)
	shift 2
	printf '%s\t%s' "$name" "$copy" >>"$WORK/mboxes.spec"
	printf '\t%s' "$@" >>"$WORK/mboxes.spec"
	echo >>"$WORK/mboxes.spec"
}
mbox_run() {
	local status name detail n=0
	while IFS=$'\t' read -r status name detail; do
		n=$((n + 1))
		if [ "$status" = ok ]; then pass "$name"; else fail "$name" "$detail"; fi
	done < <(python3 "$WORK/mbox.py" "$WORK/mboxes.spec" 2>&1)
	[ $n -eq $mbox_n ] || fail "mbox checks: $n answers of $mbox_n"
}

N=(--results "$R" --repo "$REPO" --branch main --to 'Maintainer <mm@example.org>')
sb nightly "${N[@]}" --mbox "$WORK/mbox"
check "a step at commit 6 in two jobs: exit 1, says what it mailed" bash -c \
	"[ $rc -eq 1 ] && grep -q '^mailed <nightly\.${CULPRIT:0:12}\..*>: $CULPRIT ' $WORK/out"
mbox_ok "one message: the culprit, its base, the stat, the other job in the box" \
	"$WORK/mbox" 1 "$CULPRIT" "$BASE"
state_doc "$R/.scalebench-nightly.json" "$WORK/state.json"
json_later "the state file: in the results root, the change recorded as mailed" \
	"$WORK/state.json" \
	"d['version'] == 2 and len(d['messages']) == 1 and d['messages'][0]['status'] == 'mailed' and sorted(c['job'].split('/')[1] for c in d['messages'][0]['changes']) == ['process-1-page_fault3', 'process-2-page_fault3'] and all(c['commit'] == '$CULPRIT' and c['kind'] == 'regression' for c in d['messages'][0]['changes']) and 'text' not in d['messages'][0]"

sb nightly "${N[@]}" --mbox "$WORK/mbox" -v
check "second nightly: nothing new, exit 0" bash -c "[ $rc -eq 0 ] && [ ! -s $WORK/out ]"
check "second nightly -v: says the changes found and that none was mailed this time" \
	grep -q 'note: [0-9]* changes* found, 0 new messages mailed$' "$WORK/err"
mbox_ok "second nightly: still one message" "$WORK/mbox" 1

commit 11 "fs: change 11"
night "$R" 11 "$SHA" 0.92 0.92
sb nightly "${N[@]}" --mbox "$WORK/mbox"
check "a new night without a change: exit 0" [ $rc -eq 0 ]
mbox_ok "a new night without a change: still one message" "$WORK/mbox" 1

# A step on the last night: mailed at once (the previous-commit comparison), then not again
# when later nights make it a change point.
commit 12 "sched: slower again"
STEP=$SHA
night "$R" 12 "$SHA" 0.80 0.92
sb nightly "${N[@]}" --mbox "$WORK/mbox"
check "a step on the last night: mailed at once, exit 1" bash -c \
	"[ $rc -eq 1 ] && grep -q '^mailed .* $STEP will-it-scale.per_process_ops -13' $WORK/out"
mbox_ok "a step on the last night: two messages" "$WORK/mbox" 2
for n in 13 14 15 16; do
	commit $n "fs: change $n"
	night "$R" $n "$SHA" 0.80 0.92
	sb nightly "${N[@]}" --mbox "$WORK/mbox"
	check "night $n after the step: nothing mailed again, exit 0" bash -c \
		"[ $rc -eq 0 ] && [ ! -s $WORK/out ]"
done
mbox_ok "after four more nights: still two messages" "$WORK/mbox" 2

# Killed after the message is recorded as pending, before it is delivered: the next run
# delivers it; after it is delivered, before it is marked: the next run finds it in the mbox.
for at in pending append; do
	T=$WORK/kill-$at
	cp -r "$WORK/pristine" "$T"
	rc=0
	# In a subshell that reaps it, so bash's "Killed" notice stays out of the log.
	(
		SCALEBENCH_NIGHTLY_KILL_AFTER=$at "$SB" nightly --results "$T" --repo "$REPO" \
			--branch main --to mm@example.org --mbox "$T.mbox" >"$WORK/out" 2>"$WORK/err"
		exit $?
	) 2>/dev/null || rc=$?
	state_doc "$T/.scalebench-nightly.json" "$WORK/state.json"
	json_later "SIGKILL after $at: killed (137), the message pending in the state" \
		"$WORK/state.json" \
		"$rc == 137 and d['messages'][0]['status'] == 'pending' and d['messages'][0]['text']"
	want=0
	[ $at = append ] && want=1
	check "SIGKILL after $at: $want message(s) in the mbox" bash -c \
		"[ \$(grep -c '^From ' $T.mbox 2>/dev/null || echo 0) -eq $want ]"
	sb nightly --results "$T" --repo "$REPO" --branch main --to mm@example.org --mbox "$T.mbox"
	want=1
	[ $at = append ] && want=0
	state_doc "$T/.scalebench-nightly.json" "$WORK/state.json"
	json_later "SIGKILL after $at, rerun: exit $want, the message marked mailed" \
		"$WORK/state.json" \
		"$rc == $want and len(d['messages']) == 1 and d['messages'][0]['status'] == 'mailed'"
	mbox_ok "SIGKILL after $at, rerun: exactly one message" "$T.mbox" 1
	sb nightly --results "$T" --repo "$REPO" --branch main --to mm@example.org --mbox "$T.mbox"
	check "SIGKILL after $at, third run: nothing, exit 0" [ $rc -eq 0 ]
	mbox_ok "SIGKILL after $at, third run: still one message" "$T.mbox" 1
done

# --sendmail, killed after delivery: the rerun sends the same message again, with the same
# Message-ID (what receivers deduplicate by).
mkdir "$WORK/bin"
cat >"$WORK/bin/sendmail" <<SH
#!/bin/sh
cat >>"$WORK/sent"
SH
chmod +x "$WORK/bin/sendmail"
T=$WORK/kill-sendmail
cp -r "$WORK/pristine" "$T"
(
	PATH=$WORK/bin:$PATH SCALEBENCH_NIGHTLY_KILL_AFTER=append "$SB" nightly --results "$T" \
		--repo "$REPO" --branch main --to mm@example.org --sendmail >/dev/null 2>&1
	exit $?
) 2>/dev/null || true
rc=0
PATH=$WORK/bin:$PATH "$SB" nightly --results "$T" --repo "$REPO" --branch main \
	--to mm@example.org --sendmail >/dev/null 2>&1 || rc=$?
check "--sendmail, SIGKILL after delivery, rerun: sent again with the same Message-ID" bash -c \
	"[ $rc -eq 1 ] && [ \$(grep -c '^Message-ID: ' $WORK/sent) -eq 2 ] && [ \$(grep '^Message-ID: ' $WORK/sent | sort -u | wc -l) -eq 1 ]"

# A corrupt state file: exit 2 naming it, nothing mailed, the file left as it was.
T=$WORK/corrupt
cp -r "$WORK/pristine" "$T"
printf '{"version": 1, "messages": [' >"$T/.scalebench-nightly.json"
cp "$T/.scalebench-nightly.json" "$WORK/corrupt.before"
sb nightly --results "$T" --repo "$REPO" --branch main --to mm@example.org --mbox "$T.mbox"
check "corrupt state file: exit 2, the message names it" bash -c \
	"[ $rc -eq 2 ] && grep -q '$T/.scalebench-nightly.json: not a nightly state file' $WORK/err"
check "corrupt state file: nothing mailed, the file untouched" bash -c \
	"[ ! -e $T.mbox ] && cmp -s $WORK/corrupt.before $T/.scalebench-nightly.json"
sb nightly --results "$T" --state "$WORK/elsewhere.json" --repo "$REPO" --branch main \
	--to mm@example.org --mbox "$T.mbox"
check "--state elsewhere: used instead (exit 1, written there)" bash -c \
	"[ $rc -eq 1 ] && [ -s $WORK/elsewhere.json ] && cmp -s $WORK/corrupt.before $T/.scalebench-nightly.json"

# Two nightlies at once: one mails, the other waits for the lock and finds it mailed.
T=$WORK/twice
cp -r "$WORK/pristine" "$T"
for i in 1 2; do
	"$SB" nightly --results "$T" --repo "$REPO" --branch main --to mm@example.org \
		--mbox "$T.mbox" >"$WORK/twice.out.$i" 2>"$WORK/twice.err.$i" &
	eval "pid$i=$!"
done
rc1=0 rc2=0
wait $pid1 || rc1=$?
wait $pid2 || rc2=$?
check "two nightlies at once: one exits 1, the other 0" bash -c \
	"[ \$(( $rc1 + $rc2 )) -eq 1 ] && [ $rc1 -le 1 ] && [ $rc2 -le 1 ]"
mbox_ok "two nightlies at once: one message" "$T.mbox" 1

# --dry-run: says what it would mail, mails and records nothing.
T=$WORK/dry
cp -r "$WORK/pristine" "$T"
sb nightly --results "$T" --repo "$REPO" --branch main --dry-run
check "--dry-run: names the culprit, exit 0, no state, nothing printed as mail" bash -c \
	"[ $rc -eq 0 ] && grep -q '^would mail $CULPRIT (base $BASE): .*per_process_ops -8.* regression, and 1 more change' $WORK/out && [ ! -e $T/.scalebench-nightly.json ] && ! grep -q '^Subject:' $WORK/out"

# --baseline: a first pass over a tree with history records its changes and mails none; the
# next pass mails nothing either.
T=$WORK/baseline
cp -r "$WORK/pristine" "$T"
sb nightly --results "$T" --repo "$REPO" --branch main --baseline --mbox "$T.mbox"
check "--baseline: names the culprit as recorded, exit 0, nothing mailed, state written" bash -c \
	"[ $rc -eq 0 ] && grep -q '^baseline $CULPRIT: .*per_process_ops -8.* regression, and 1 more change (recorded, not mailed)' $WORK/out && [ ! -s $T.mbox ] && [ -s $T/.scalebench-nightly.json ]"
sb nightly --results "$T" --repo "$REPO" --branch main --mbox "$T.mbox"
check "after --baseline: the recorded change is not mailed (exit 0)" bash -c "[ $rc -eq 0 ] && [ ! -s $T.mbox ]"

# Without --repo: time order, labels as stored; printed when neither --mbox nor --sendmail.
T=$WORK/plain
cp -r "$WORK/pristine" "$T"
sb nightly --results "$T"
check "no --repo, no --mbox: the message printed (the label whole in the Subject), exit 1" \
	bash -c "[ $rc -eq 1 ] && python3 -c 'import email, sys; m = email.message_from_file(open(sys.argv[1])); s = str(m[\"Subject\"]).replace(\"\\n\", \"\"); sys.exit(not s.startswith(\"[unknown] $CULPRIT: will-it-scale.per_process_ops -8\"))' $WORK/out"

# A change mailed at the wrong commit (planted: the state says commit 7, its range 6..7): the
# change point at commit 6, whose range no longer holds 7, gets one follow-up, a reply to the
# first mail; the next pass sends nothing more.
T=$WORK/refine
cp -r "$WORK/pristine" "$T"
python3 - "$T/.scalebench-nightly.json" "$AFTER" "$CULPRIT" <<'PY'
import json, sys
path, after, culprit = sys.argv[1:]
key = "will-it-scale/process-1-page_fault3/box/debian-12-x86_64/defconfig/gcc-12"
json.dump({"version": 1, "messages": [{
    "message_id": "<nightly.planted@test>", "status": "mailed", "time": 1,
    "changes": [{"job": key, "stat": "will-it-scale.per_process_ops", "commit": after,
                 "kind": "regression", "range": [culprit, after]}]}]}, open(path, "w"))
PY
R1=(--results "$T" --repo "$REPO" --branch main --job process-1-page_fault3 --mbox "$T.mbox")
sb nightly "${R1[@]}"
check "a mailed change placed better: one follow-up naming the first mail, exit 1" bash -c \
	"[ $rc -eq 1 ] && grep -q '^mailed .*: follow-up of <nightly.planted@test>: .* refined to $CULPRIT' $WORK/out"
check "the follow-up: a reply to the first mail, where the change is now and where it was" \
	python3 -c "
import email, mailbox, sys
m = list(mailbox.mbox(sys.argv[1]))
assert len(m) == 1, len(m)
m = m[0]
s = str(m['Subject']).replace('\n', '')
assert m['In-Reply-To'] == '<nightly.planted@test>' and m['References'] == '<nightly.planted@test>', m
assert s.startswith('Re: [main] ') and s.endswith('culprit refined to ${CULPRIT:0:12}'), s
b = m.get_payload()
assert 'now at: ${CULPRIT:0:10} (\"mm: slow down\")' in b and 'was at: ${AFTER:0:10}' in b, b
" "$T.mbox"
sb nightly "${R1[@]}"
check "the follow-up once: the next pass sends nothing, exit 0" bash -c \
	"[ $rc -eq 0 ] && [ ! -s $WORK/out ] && [ \$(grep -c '^From ' $T.mbox) -eq 1 ]"

# One noisy night is not mailed: a job whose nights differ by some 3% (its runs by 0.3%), then
# a night 5% under the one before.  The two nights' runs alone call it a regression; the
# series' own night-to-night noise does not.
T=$WORK/noisy
nights=()
n=0
for lvl in 1.00 0.97 1.03 0.98 1.02 1.01 0.97 1.03 0.99 1.00 1.00; do
	n=$((n + 1))
	nights+=($n "$(printf 'night-%02d' $n)" $lvl 1.0)
done
night "$T" "${nights[@]}"
sb nightly --results "$T" --baseline
night "$T" 12 night-12 0.95 1.0
sb nightly --results "$T" --mbox "$T.mbox" -v
check "one noisy night: not mailed, exit 0" bash -c "[ $rc -eq 0 ] && [ ! -s $T.mbox ]" ||
	sed 's/^/     /' "$WORK/out" "$WORK/err" | tail -5

# A change found on runs measured on a busy machine is held back, not mailed: the step at
# commit 6 with the runs of commits 3-9 (what it rests on: 3-8) marked busy in meta.json, as run
# marks them.  Said on stderr (-v names the change); --busy-runs use mails it.  One busy commit
# among them (a minority of the runs) does not hold it.
# busy ROOT N...: mark every run of commits N... ("fs: change N", 6 "mm: slow down") busy
busy() {
	python3 - "$REPO" "$@" <<'PY'
import glob, json, subprocess, sys
repo, root, nights = sys.argv[1], sys.argv[2], [int(n) for n in sys.argv[3:]]
log = subprocess.run(["git", "-C", repo, "log", "--reverse", "--format=%H %s", "main"], capture_output=True,
                     text=True, check=True).stdout.splitlines()
by_night = {}
for line in log:
    sha, subject = line.split(" ", 1)
    if subject == "mm: slow down":
        by_night.setdefault(6, sha)
    elif subject.startswith("fs: change "):
        by_night.setdefault(int(subject[len("fs: change "):]), sha)
for n in nights:
    for m in glob.glob(f"{root}/will-it-scale/*/box/*/*/*/{by_night[n]}/*/meta.json"):
        d = json.load(open(m))
        d["machine_load"] = {"runnable_mean": 5.0, "runnable_max": 6, "steal_pct": 0,
                             "cpu_mhz_mean": None, "nr_cpus": 2, "nr_task": d["nr_task"],
                             "busy": True,
                             "reason": "5.0 runnable tasks on 2 CPUs besides the testcase's copies"}
        json.dump(d, open(m, "w"))
PY
}
T=$WORK/busy
cp -r "$WORK/pristine" "$T"
busy "$T" 3 4 5 6 7 8 9
sb nightly --results "$T" --repo "$REPO" --branch main --mbox "$T.mbox" -v
check "a step on runs measured busy: held back, nothing mailed, exit 0, said and named" bash -c \
	"[ $rc -eq 0 ] && [ ! -s $T.mbox ] && grep -q '^scalebench nightly: note: 2 changes held back: found on runs mostly measured on a busy machine' $WORK/err && grep -q 'process-1-page_fault3.* at ${CULPRIT:0:12} held back: 18 of the 18 runs it rests on were measured on a busy machine' $WORK/err" ||
	sed 's/^/     /' "$WORK/err" | tail -5
sb nightly --results "$T" --repo "$REPO" --branch main --mbox "$T.mbox" --busy-runs use
check "--busy-runs use: the same step mailed, the mail saying the runs were busy" bash -c \
	"[ $rc -eq 1 ] && [ \$(grep -c '^From ' $T.mbox) -eq 1 ] && grep -q '^Runs measured on a busy machine' $T.mbox"
T=$WORK/busy1
cp -r "$WORK/pristine" "$T"
busy "$T" 7
sb nightly --results "$T" --repo "$REPO" --branch main --mbox "$T.mbox"
check "one busy commit of the seven the step rests on: mailed as before" bash -c \
	"[ $rc -eq 1 ] && [ \$(grep -c '^From ' $T.mbox) -eq 1 ] && ! grep -q 'held back' $WORK/err"

# New failures are mailed, once: a kernel warning in 2 of 3 runs of one job and a copy that
# died in the third, at a commit whose history had neither (robot style: noticed "SIGNATURE").
T=$WORK/fail
cp -r "$WORK/pristine" "$T"
sb nightly --results "$T" --repo "$REPO" --branch main --baseline --mbox "$T.mbox"
commit 30 "mm: slab: free twice"
WARN=$SHA
night "$T" 30 "$SHA" 0.92 0.92
python3 - "$T/will-it-scale/process-4-page_fault3/box/debian-12-x86_64/defconfig/gcc-12/$SHA" <<'PY'
import json, sys
d = sys.argv[1]
for run, stat in ((0, "dmesg.WARNING:at_mm/slab.c:kfree"), (1, "dmesg.WARNING:at_mm/slab.c:kfree"),
                  (2, "stderr.copy_0_died_of_signal_11")):
    s = json.load(open(f"{d}/{run}/stats.json"))
    s[stat] = 1
    json.dump(s, open(f"{d}/{run}/stats.json", "w"))
    m = json.load(open(f"{d}/{run}/meta.json"))
    m["failure_stats"] = [stat]
    m["families"].update({"dmesg": "failure", "stderr": "failure"})
    if stat.startswith("stderr."):
        m["status"] = "failed"
    json.dump(m, open(f"{d}/{run}/meta.json", "w"))
PY
sb nightly --results "$T" --repo "$REPO" --branch main --to 'Maintainer <mm@example.org>' --mbox "$T.mbox"
check "a new kernel warning and a crashed copy: mailed, exit 1, worst news first" bash -c \
	"[ $rc -eq 1 ] && grep -q '^mailed .* $WARN dmesg.WARNING:at_mm/slab.c:kfree 2:3 new-failure, and 1 more change$' $WORK/out" ||
	sed 's/^/     /' "$WORK/out" "$WORK/err"
check "the failure mail: robot style subject and first line, the crash in the box, fail:runs in the table" \
	python3 -c '
import email, email.policy, mailbox, sys
box = mailbox.mbox(sys.argv[1], create=False)
msgs = [email.message_from_bytes(box.get_bytes(k), policy=email.policy.default) for k in box.keys()]
assert len(msgs) == 1, len(msgs)
m = msgs[0]; subj = str(m["Subject"]).replace("\n", ""); body = m.get_content()
assert subj == "[main] [mm] %s: WARNING:at_mm/slab.c:kfree" % sys.argv[2][:10], subj
assert "kernel test robot noticed \"WARNING:at_mm/slab.c:kfree\" on:" in body, body[:300]
assert "2:3 of its runs have it" in body, body[:1500]
assert "stderr.copy_0_died_of_signal_11 1:3 new failure" in body, body[:1500]
assert any(l.rstrip().endswith("dmesg.WARNING:at_mm/slab.c:kfree") and "2:3" in l for l in body.splitlines()), body
' "$T.mbox" "$WARN"
sb nightly --results "$T" --repo "$REPO" --branch main --mbox "$T.mbox"
check "the failures again the next night: nothing new, exit 0" bash -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^From ' $T.mbox) -eq 1 ]"

# Refused before anything runs.
sb nightly --results "$WORK/pristine" --mbox "$WORK/x" --sendmail
check "--mbox and --sendmail: refused, exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'one or the other' $WORK/err"
sb nightly --results "$WORK/pristine" --branch main
check "--branch without --repo: refused, exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'needs --repo' $WORK/err"
sb nightly --results "$WORK/pristine" --repo "$REPO" --branch $'main\nBcc: x@evil'
check "--branch with a newline: refused, exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'control character' $WORK/err"
sb nightly --results "$WORK/no-such-dir"
check "--results that does not exist: exit 2, named" bash -c \
	"[ $rc -eq 2 ] && grep -q 'no-such-dir' $WORK/err"
sb nightly --help
check "--help gives the exit statuses and the state file" bash -c \
	"[ $rc -eq 0 ] && grep -q '0 nothing new, 1 something mailed, 2 error' $WORK/out && grep -q '.scalebench-nightly.json' $WORK/out"

# The loop's example script parses (and passes shellcheck where it is installed).
check "jobs/nightly.sh: bash -n" bash -n jobs/nightly.sh
if command -v shellcheck >/dev/null; then
	check "jobs/nightly.sh: shellcheck" shellcheck jobs/nightly.sh
fi
# jobs/nightly.sh as a night runs it (BUILD_KERNEL=0: the running kernel, labelled
# COMMIT_LABEL): each job run once at the commit; run again, none; one job's runs gone (a
# night interrupted after the first job), that job alone runs again.
NL=$WORK/loop
mkdir -p "$NL"
git clone -q "$REPO" "$NL/kernel"
getppid_job "$NL/j1.yaml"
getppid_job "$NL/j2.yaml" "nr_task: 2"
loop() {
	KERNEL=$NL/kernel BRANCH=main RESULTS=$NL/results JOBS="$NL/j1.yaml $NL/j2.yaml" \
		BUILD_KERNEL=0 COMMIT_LABEL=night-1 RUNS=1 RUNTIME=0.25s MAIL="--mbox $NL/mbox" \
		SCALEBENCH=$SB bash jobs/nightly.sh >"$WORK/out" 2>"$WORK/err"
	rc=$?
}
runs_of() { find "$NL/results" -name meta.json -path "*/process-$1-*/night-1/*" | wc -l; }
loop
check "jobs/nightly.sh: a night runs each job once at the commit, exit 0" bash -c \
	"[ $rc -eq 0 ] && [ $(runs_of 1) -eq 1 ] && [ $(runs_of 2) -eq 1 ]" || tail -5 "$WORK/err"
loop
check "jobs/nightly.sh again: every job measured already, nothing run" bash -c \
	"[ $rc -eq 0 ] && [ $(runs_of 1) -eq 1 ] && [ $(runs_of 2) -eq 1 ] && [ \$(grep -c 'measured at night-1 already' $WORK/err) -eq 2 ]"
rm -rf "$(dirname "$(find "$NL/results" -name meta.json -path '*/process-2-*/night-1/*')")"
loop
check "jobs/nightly.sh after a night interrupted after its first job: the second alone runs" \
	bash -c "[ $rc -eq 0 ] && [ $(runs_of 1) -eq 1 ] && [ $(runs_of 2) -eq 1 ] && grep -q 'j1.yaml: measured' $WORK/err && ! grep -q 'j2.yaml: measured' $WORK/err" ||
	sed "s/^/     /" "$WORK/err" | tail -5
sb nightly --results "$WORK/pristine" --repo "$REPO" --branch no-such-branch
check "--branch unknown to --repo: exit 2, said once, naming both" bash -c \
	"[ $rc -eq 2 ] && [ \$(wc -l <$WORK/err) -eq 1 ] && grep -q 'no-such-branch.*$REPO' $WORK/err"

# The deferred checks: the mboxes and state files as they were.
mbox_run
json_later_run
