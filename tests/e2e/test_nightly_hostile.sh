#!/bin/bash
# report and nightly on hostile input, through the real binary: control characters in stat
# names and commit labels reach neither a mail body raw nor the terminal raw; one culprit that
# cannot be mailed (a label with '[', an author address report refuses) does not keep the
# other jobs' changes from being mailed; a tampered state file's pending text is never sent;
# an --mbox FIFO is refused at once; a --state symlink is the file it names.
set -u
. "$(dirname "$0")/../lib.sh"

SB=$(realpath "$SCALEBENCH")

# job ROOT PP STAT NIGHT0 LABEL LEVEL [LABEL LEVEL...]: 3 runs of job PP at each LABEL (one
# night each from NIGHT0 on), its headline stat STAT at LEVEL times 100000.
job() {
	python3 - "$@" <<'PY'
import json, os, random, sys
root, pp, stat, n0, rest = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
axes = "box/debian-12-x86_64/defconfig/gcc-12"
for i in range(0, len(rest), 2):
    label, level, n = rest[i], float(rest[i + 1]), n0 + i // 2
    rng = random.Random(hash((pp, n)))
    for run in range(3):
        d = f"{root}/will-it-scale/{pp}/{axes}/{label}/{run}"
        os.makedirs(d)
        v = 100000 * level * (1 + rng.gauss(0, 0.003))
        json.dump({stat: v}, open(f"{d}/stats.json", "w"))
        json.dump({"scalebench": "0.1", "job": "jobs/page_fault3.yaml", "atomic_job": pp,
                   "path_params": pp, "commit": label, "testcase": "page_fault3",
                   "mode": "process", "nr_task": 1, "runtime_s": 3, "warmup_s": 1,
                   "status": "ok", "monitors": {}, "failure_stats": [],
                   "started": "2026-11-%02dT02:%02d:00+0000" % (n, run),
                   "machine": {"cpu_model": "Test CPU", "threads": 2, "memory_kib": 4194304,
                               "tbox_group": "box"},
                   "suite": "will-it-scale",
                   "headline": {"stat": stat, "direction": "higher"},
                   "families": {"will-it-scale": "headline"}},
                  open(f"{d}/meta.json", "w"))
PY
}
# series PREFIX STEP [LABEL_AT_STEP]: into S, 12 labels PREFIX-01..12 each with its level, 8%
# down from STEP on; the label at STEP replaced by LABEL_AT_STEP when given.
series() {
	local n l
	S=()
	for n in 01 02 03 04 05 06 07 08 09 10 11 12; do
		l=$1-$n
		[ $((10#$n)) -eq "$2" ] && [ -n "${3:-}" ] && l=$3
		if [ $((10#$n)) -ge "$2" ]; then S+=("$l" 0.92); else S+=("$l" 1.0); fi
	done
}
STAT=will-it-scale.per_process_ops

# A body holding nothing a reader takes for a header: no CR, no control character but tab and
# newline, no line from the data starting a header (body_ok FILE: the message, or an mbox).
cat >"$WORK/body.py" <<'PY'
import re, sys
raw = open(sys.argv[1], 'rb').read()
for msg in re.split(rb'\n(?=From )', raw):
    head, _, body = msg.partition(b'\n\n')
    assert b'\r' not in msg, 'a CR: %r' % msg[max(msg.find(b'\r') - 60, 0):msg.find(b'\r') + 20]
    bad = [c for c in body if c < 32 and c not in (9, 10) or c == 127]
    assert not bad, 'control characters in the body: %r' % bad[:5]
    for line in body.split(b'\n'):
        assert not re.match(rb'(Bcc|Subject|To|Cc):', line), 'a header-like body line: %r' % line
print('ok')
PY
body_ok() { # NAME FILE
	if python3 "$WORK/body.py" "$2" >"$WORK/py.out" 2>&1; then pass "$1"; else fail "$1" "$(tail -2 "$WORK/py.out")"; fi
}

# 16. A stat name with CR and LF: report's and nightly's bodies escape it.
EVIL=$'will-it-scale.x\r\nBcc: x@evil\r\nSubject: y\rz_ops'
T=$WORK/evil
series n 6
job "$T" process-1-page_fault3 "$EVIL" 1 "${S[@]}"
sb report --results "$T" --base n-05 --head n-06
cp "$WORK/out" "$WORK/evil-report.eml"
check "report, a stat name with CR/LF: the mail written (exit 0)" [ $rc -eq 0 ]
body_ok "report, a stat name with CR/LF: no CR, no control character, no header-like line in the body" \
	"$WORK/evil-report.eml"
sb nightly --results "$T" --mbox "$T.mbox"
check "nightly, a stat name with CR/LF: mailed (exit 1)" [ $rc -eq 1 ]
body_ok "nightly, a stat name with CR/LF: no CR, no control character, no header-like line in the body" \
	"$T.mbox"

# 13. Commit labels and stat names with ESC, BEL and a newline: nightly's lines escape them.
T=$WORK/term
BAD=$'n-06\e]0;x\a\nmailed <fake>'
TSTAT=$'will-it-scale.\e]2;t\a_ops'
series n 6 "$BAD"
job "$T" process-1-page_fault3 "$TSTAT" 1 "${S[@]}"
# raw_free FILE: no ESC, no BEL, and no line a label's newline began
printf '#!/bin/sh\n! grep -q "$(printf "[\\033\\007]")" "$1" && ! grep -q "^mailed <fake>" "$1"\n' \
	>"$WORK/raw_free"
chmod +x "$WORK/raw_free"
sb nightly --results "$T" --dry-run
check "nightly --dry-run, ESC/BEL/newline in a label and a stat: 'would mail' escaped, one line" \
	bash -c "grep -q '^would mail n-06' $WORK/out && [ \$(wc -l <$WORK/out) -eq 1 ] && $WORK/raw_free $WORK/out"
cp -r "$T" "$T.b"
sb nightly --results "$T.b" --baseline
check "nightly --baseline, the same: 'baseline' escaped, one line" \
	bash -c "grep -q '^baseline n-06' $WORK/out && [ \$(wc -l <$WORK/out) -eq 1 ] && $WORK/raw_free $WORK/out"
sb nightly --results "$T" --mbox "$T.mbox"
check "nightly --mbox, the same: 'mailed' escaped, one line" \
	bash -c "[ $rc -eq 1 ] && grep -q '^mailed <nightly' $WORK/out && [ \$(wc -l <$WORK/out) -eq 1 ] && $WORK/raw_free $WORK/out"

# 10. One culprit that cannot be mailed does not starve the others: a label with '['.
T=$WORK/starve
series a 6 'a-06[x]'
job "$T" process-1-page_fault3 "$STAT" 1 "${S[@]}"
series b 6
job "$T" process-2-page_fault3 "$STAT" 1 "${S[@]}"
sb nightly --results "$T" --mbox "$T.mbox"
check "a culprit labelled 'a-06[x]': exit 2, named, the other job's change mailed" bash -c \
	"[ $rc -eq 2 ] && grep -q 'a-06\\[x\\]' $WORK/err && grep -q '^mailed .* b-06 ' $WORK/out && [ \$(grep -c '^From ' $T.mbox) -eq 1 ]"
# ... and an author address report refuses, with --repo.
REPO=$WORK/repo
mkdir -p "$REPO"
git -C "$REPO" init -q -b main
shas=()
for n in 01 02 03 04 05 06 07 08 09 10 11 12; do
	email=dev@example.org
	[ $n = 05 ] && email=john.@example.org
	echo $n >"$REPO/f"
	git -C "$REPO" add f
	GIT_AUTHOR_NAME=Dev GIT_AUTHOR_EMAIL=$email GIT_COMMITTER_NAME=c GIT_COMMITTER_EMAIL=c@example.org \
		git -C "$REPO" commit -q -m "mm: change $n"
	shas+=("$(git -C "$REPO" rev-parse HEAD)")
done
T=$WORK/author
args1=() args2=()
for i in $(seq 0 11); do
	l1=1.0 l2=1.0
	[ $i -ge 4 ] && l1=0.92 # the culprit: commit 05, authored by john.@example.org
	[ $i -ge 7 ] && l2=0.92 # commit 08, by dev@example.org
	args1+=("${shas[$i]}" $l1)
	args2+=("${shas[$i]}" $l2)
done
job "$T" process-1-page_fault3 "$STAT" 1 "${args1[@]}"
job "$T" process-2-page_fault3 "$STAT" 1 "${args2[@]}"
sb nightly --results "$T" --repo "$REPO" --branch main --mbox "$T.mbox"
check "a culprit whose author is john.@example.org: exit 2, named, the other culprit mailed" bash -c \
	"[ $rc -eq 2 ] && grep -q 'john\\.@example.org' $WORK/err && grep -q '^mailed .* ${shas[7]} ' $WORK/out && [ \$(grep -c '^From ' $T.mbox) -eq 1 ]"

# 7. A tampered state file's pending text is never piped to sendmail.
mkdir -p "$WORK/bin"
printf '#!/bin/sh\ncat >>"%s"\n' "$WORK/sent" >"$WORK/bin/sendmail"
chmod +x "$WORK/bin/sendmail"
T=$WORK/tamper
series n 6
job "$T" process-1-page_fault3 "$STAT" 1 "${S[@]}"
KEY=will-it-scale/process-1-page_fault3/box/debian-12-x86_64/defconfig/gcc-12
python3 - "$T/.scalebench-nightly.json" "$KEY" <<'PY'
import json, sys
path, key = sys.argv[1:]
text = ("From: scalebench <root@localhost>\nTo: root@localhost\nBcc: victim@evil.example\n"
        "Subject: hi\nMessage-ID: <nightly.n-06.0000000000000000@host>\n\nplanted\n")
json.dump({"version": 1, "messages": [{
    "message_id": "<nightly.n-06.0000000000000000@host>", "status": "pending", "time": 1,
    "text": text,
    "changes": [{"job": key, "stat": "will-it-scale.per_process_ops", "commit": "n-06",
                 "kind": "regression", "range": ["n-06"]}]}]}, open(path, "w"))
PY
cp "$T/.scalebench-nightly.json" "$WORK/tamper.before"
rc=0
PATH=$WORK/bin:$PATH "$SB" nightly --results "$T" --sendmail >"$WORK/out" 2>"$WORK/err" || rc=$?
check "a pending text with a Bcc: in the state file: not sent, exit 2, the message named" bash -c \
	"[ $rc -eq 2 ] && [ ! -e $WORK/sent ] && grep -q 'nightly.n-06.0000000000000000' $WORK/err"
check "a tampered pending text: the state file left as it was" cmp -s "$WORK/tamper.before" \
	"$T/.scalebench-nightly.json"

# ... nor a pending message of its own whose text gained a Bcc: (its Message-ID the right one).
T=$WORK/tamper2
series n 6
job "$T" process-1-page_fault3 "$STAT" 1 "${S[@]}"
(
	SCALEBENCH_NIGHTLY_KILL_AFTER=pending "$SB" nightly --results "$T" --sendmail >/dev/null 2>&1
	exit $?
) 2>/dev/null || true
python3 - "$T/.scalebench-nightly.json" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()  # a header line, then a message a line
m = json.loads(lines[1])
m['text'] = m['text'].replace('\nSubject:', '\nBcc: victim@evil.example\nSubject:', 1)
lines[1] = json.dumps(m)
open(sys.argv[1], 'w').write('\n'.join(lines) + '\n')
PY
rc=0
PATH=$WORK/bin:$PATH "$SB" nightly --results "$T" --sendmail >"$WORK/out" 2>"$WORK/err" || rc=$?
check "a pending message of its own with a Bcc: added: not sent, exit 2, the header named" bash -c \
	"[ $rc -eq 2 ] && [ ! -e $WORK/sent ] && grep -q \"header 'Bcc'\" $WORK/err"

# 9. --mbox naming a FIFO, a message pending: refused at once, not a hang holding the lock.
T=$WORK/fifo
series n 6
job "$T" process-1-page_fault3 "$STAT" 1 "${S[@]}"
(
	SCALEBENCH_NIGHTLY_KILL_AFTER=pending "$SB" nightly --results "$T" --sendmail >/dev/null 2>&1
	exit $?
) 2>/dev/null || true
mkfifo "$WORK/fifo.mbox"
rc=0
timeout 20 "$SB" nightly --results "$T" --mbox "$WORK/fifo.mbox" >"$WORK/out" 2>"$WORK/err" || rc=$?
check "--mbox a FIFO, a message pending: exit 2 at once (no hang), 'not a regular file'" bash -c \
	"[ $rc -eq 2 ] && grep -q 'fifo.mbox.*not a regular file' $WORK/err"

# 8. --state through a symlink: the real file is locked and written; the link stays.
T=$WORK/link
series n 6
job "$T" process-1-page_fault3 "$STAT" 1 "${S[@]}"
echo '{"version": 1, "messages": []}' >"$WORK/real.json"
ln -s real.json "$WORK/link.json"
sb nightly --results "$T" --state "$WORK/link.json" --mbox "$T.mbox"
check "--state a symlink: mailed (exit 1), the link kept, its target written" bash -c \
	"[ $rc -eq 1 ] && [ -L $WORK/link.json ] && grep -q mailed $WORK/real.json"
sb nightly --results "$T" --state "$WORK/real.json" --mbox "$T.mbox"
check "--state the link's target next: nothing mailed again (exit 0, one message)" bash -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^From ' $T.mbox) -eq 1 ]"
ln -s no-such.json "$WORK/dangling.json"
sb nightly --results "$T" --state "$WORK/dangling.json" --mbox "$T.mbox"
check "--state a dangling symlink: refused (exit 2), said, nothing mailed" bash -c \
	"[ $rc -eq 2 ] && grep -q 'dangling.json.*symlink' $WORK/err && [ \$(grep -c '^From ' $T.mbox) -eq 1 ] && [ ! -e $WORK/no-such.json ]"

# 11. A second regression at the commit right after a mailed one is a change of its own: only
# the same stat, kind and an overlapping range is the mailed change.  Night 1: n-12 drops 8%
# (the one-night comparison mails it); night 2: n-13 drops 8% more.
T=$WORK/second
series n 12
job "$T" process-1-page_fault3 "$STAT" 1 "${S[@]}"
sb nightly --results "$T" --mbox "$T.mbox"
check "a step at the latest commit n-12: mailed (exit 1)" bash -c \
	"[ $rc -eq 1 ] && grep -q '^mailed .* n-12 .* regression' $WORK/out"
job "$T" process-1-page_fault3 "$STAT" 13 n-13 0.8464
sb nightly --results "$T" --mbox "$T.mbox"
check "a second step at n-13, the commit after the mailed n-12: mailed too (exit 1, two messages)" \
	bash -c "[ $rc -eq 1 ] && grep -q '^mailed .* n-13 .* regression' $WORK/out && [ \$(grep -c '^From ' $T.mbox) -eq 2 ]"
sb nightly --results "$T" --mbox "$T.mbox"
check "the second step the next night: the same change, not mailed again (exit 0)" bash -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^From ' $T.mbox) -eq 2 ]"

# 12. A commit stored under its full sha and under a prefix is one commit of the series with
# --repo: the change at it is mailed against the commit before it, never against itself.
T=$WORK/alias
args1=()
for i in $(seq 0 11); do
	l1=1.0
	[ $i -ge 6 ] && l1=0.92
	args1+=("${shas[$i]}" $l1)
done
job "$T" process-1-page_fault3 "$STAT" 1 "${args1[@]}"
job "$T" process-1-page_fault3 "$STAT" 20 "${shas[6]:0:7}" 0.92
sb nightly --results "$T" --repo "$REPO" --branch main --dry-run
check "--repo, the culprit stored under its sha and a prefix: one change, against the commit before" \
	bash -c "[ $rc -eq 0 ] && [ \$(wc -l <$WORK/out) -eq 1 ] && grep -q '^would mail ${shas[6]} (base ${shas[5]}): ' $WORK/out"

# 23. A job whose directory name is not UTF-8 (a Latin-1 byte): its change is recorded in the
# state file byte for byte, so it is mailed once, not again every night; the file is version 2,
# a header line and a message a line.
T=$WORK/latin1
series n 6
job "$T" process-1-cafe "$STAT" 1 "${S[@]}"
mv "$T/will-it-scale/process-1-cafe" "$T/will-it-scale/"$'process-1-caf\xe9'
sb nightly --results "$T" --mbox "$T.mbox"
check "a Latin-1 path_params: its change mailed (exit 1)" bash -c "[ $rc -eq 1 ] && [ \$(grep -c '^From ' $T.mbox) -eq 1 ]"
sb nightly --results "$T" --mbox "$T.mbox"
check "a Latin-1 path_params, the next night: recorded, not mailed again (exit 0, one message)" \
	bash -c "[ $rc -eq 0 ] && [ \$(grep -c '^From ' $T.mbox) -eq 1 ]"
check "the state file: version 2, a header line and one message a line, the name's bytes kept" \
	python3 -c "import json, sys
lines = open('$T/.scalebench-nightly.json', 'rb').read().split(b'\n')
assert json.loads(lines[0]) == {'version': 2} and lines[-1] == b'' and len(lines) == 3, lines[:1]
job = json.loads(lines[1])['changes'][0]['job']
assert bytes.fromhex(job['hex']).endswith(b'/process-1-caf\xe9/box/debian-12-x86_64/defconfig/gcc-12'), job"
# The site of that tree, its commit labels made Latin-1 too: every name kept (jansson gives NULL
# for a string that is not UTF-8: html failed, "out of memory", exit 2), and a second html run
# finds the job's row in its manifest (nothing written).
cp -a "$T" "$T-site"
for d in "$T-site"/will-it-scale/*/*/*/*/*/*/; do mv "$d" "${d%/}"$'\xe9'; done
sb html --results "$T-site" -o "$WORK/site-latin1"
check "html, a Latin-1 path_params and commit labels: exit 0 (rc $rc)" [ $rc -eq 0 ]
check "html, Latin-1 names: changes.json has the change, U+FFFD shown and the bytes beside" \
	python3 -c "import json, sys
c = json.load(open('$WORK/site-latin1/changes.json'))['changes']
assert len(c) == 1, c
c = c[0]
assert c['path_params'] == 'process-1-caf\ufffd' and bytes.fromhex(c['path_params_bytes']) == b'process-1-caf\xe9', c
assert bytes.fromhex(c['commit_bytes']).endswith(b'\xe9') and c['commit'].endswith('\ufffd'), c
assert bytes.fromhex(c['job_bytes']).endswith(b'/process-1-caf\xe9/box/debian-12-x86_64/defconfig/gcc-12'), c
assert all(r.endswith('\ufffd') for r in c['range']), c"
check "html, Latin-1 names: the index page lists the job" grep -q 'process-1-caf' "$WORK/site-latin1/index.html"
sb html --results "$T-site" -o "$WORK/site-latin1"
check "html, Latin-1 names, again: the job's row found in the manifest, nothing written" \
	bash -c "[ $rc -eq 0 ] && grep -q ' 0 files written' $WORK/out"
