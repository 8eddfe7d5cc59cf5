#!/bin/bash
# report's email: headers that no value can add to, RFC 5322/2047-correct (quoted display
# names, encoded non-ASCII, folded lines) as Python's email package reads them; and --mbox
# appending all or nothing, under a lock, on a full disk and with concurrent writers.
set -u
. "$(dirname "$0")/../lib.sh"

FIX=tests/fixtures/compare/results
SB=$(realpath "$SCALEBENCH")

# The messages' checker: mail.py MODE FILE [ARGS]; prints "ok" or why not.
cat >"$WORK/mail.py" <<'PY'
import email, email.header, email.policy, email.utils, mailbox, sys

HEADERS = ['From', 'To', 'Subject', 'Date', 'Message-ID', 'MIME-Version', 'Content-Type',
           'Content-Transfer-Encoding']

def decoded(v):
    # Unfolding removes the line breaks only: the space after each stays.
    return str(email.header.make_header(email.header.decode_header(v.replace('\n', ''))))

def raw_header(raw, name):
    return email.message_from_bytes(raw, policy=email.policy.compat32)[name]

def check_message(raw):
    """One message's bytes: exactly our headers, no defects, ASCII, lines of <= 78."""
    head = raw.split(b'\n\n', 1)[0]
    for line in head.split(b'\n'):
        assert len(line) <= 78, 'header line of %d: %r' % (len(line), line)
        assert all(32 <= c < 127 or c == 9 for c in line), 'not ASCII: %r' % line
        assert b'\r' not in line
    m = email.message_from_bytes(raw, policy=email.policy.default)
    assert m.keys() == HEADERS, m.keys()
    assert not m.defects, m.defects
    for k in HEADERS:
        assert not m[k].defects, (k, m[k].defects)
    assert m.get_content().endswith('-- \nscalebench\n'), m.get_content()[-100:]
    return m

mode, path = sys.argv[1], sys.argv[2]
raw = open(path, 'rb').read()
if mode == 'one':                       # a printed message
    m = check_message(raw)
    if len(sys.argv) > 3:               # the Subject and To as decoded
        subject = decoded(raw_header(raw, 'Subject'))
        assert subject == sys.argv[3], (subject, sys.argv[3])
        assert m['Subject'] == sys.argv[3], (m['Subject'], sys.argv[3])
        want = [tuple(sys.argv[4:6])]
        to = [(a.display_name, a.addr_spec) for a in m['To'].addresses]
        assert to == want, (to, want)
        to = email.utils.getaddresses([decoded(raw_header(raw, 'To'))])
        assert to == want, (to, want)
elif mode == 'raw-to':                  # the To line as written
    m = check_message(raw)
    line = [l for l in raw.split(b'\n') if l.startswith(b'To:')][0].decode()
    assert line == sys.argv[3], line
    assert len(email.utils.getaddresses([raw_header(raw, 'To')])) == 1
elif mode.startswith('mbox'):           # mbox N: N whole messages
    want = int(sys.argv[3])
    box = mailbox.mbox(path, create=False)
    keys = box.keys()
    assert len(keys) == want, (len(keys), want)
    for k in keys[int(sys.argv[4]) if len(sys.argv) > 4 else 0:]:
        check_message(box.get_bytes(k))
print('ok')
PY
mailpy() { # NAME MODE FILE ARGS...: a check by mail.py
	local name=$1
	shift
	if python3 "$WORK/mail.py" "$@" >"$WORK/py.out" 2>&1; then
		pass "$name"
	else
		fail "$name" "$(tail -3 "$WORK/py.out")"
	fi
}

# A results tree whose headline stat's name carries a header: the fixture with
# will-it-scale.workload renamed in every run (still an *_ops stat, higher is better) and
# declared the headline in its meta.json.
EVIL=$'will-it-scale.x\nBcc: x@evil\ny_ops'
cp -r "$FIX" "$WORK/evil"
find "$WORK/evil" -name stats.json | while read -r f; do
	python3 - "$f" "$EVIL" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
d[sys.argv[2]] = d.pop('will-it-scale.workload')
json.dump(d, open(sys.argv[1], 'w'))
meta = os.path.join(os.path.dirname(sys.argv[1]), 'meta.json')
m = json.load(open(meta))
m['headline'] = {'stat': sys.argv[2], 'direction': 'higher'}
json.dump(m, open(meta, 'w'))
PY
done
sb report --results "$WORK/evil" --base base --head patched
cp "$WORK/out" "$WORK/evil.eml"
check "stat name with a newline: exit 0" [ $rc -eq 0 ]
mailpy "stat name with '\\nBcc:': no Bcc header, the message parses without defects" \
	one "$WORK/evil.eml" "[unknown] patched: will-it-scale.x Bcc: x@evil y_ops -26.1% regression" \
	"" root@localhost

# Options carrying a header are refused, naming the option; nothing is written.
for opt in from to branch; do
	val=$'Robot <robot@example.com>\nBcc: x@evil'
	[ $opt = branch ] && val=$'main\nBcc: x@evil'
	sb report --results "$FIX" --base base --head patched --mbox "$WORK/refused" --$opt "$val"
	check "--$opt with a newline: exit 2, one line naming the option, writes nothing" bash -c \
		"[ $rc -eq 2 ] && [ \$(wc -l <$WORK/err) -eq 1 ] && grep -q -- '^scalebench report: --$opt: a control character (0x0a, byte [0-9]*) is not allowed' $WORK/err && [ ! -e $WORK/refused ]"
done
for val in 'Doe, John <john@example.org>' 'a@example.org, b@example.org' 'not an address' \
	'John <john at example.org>' '<>' ''; do
	sb report --results "$FIX" --base base --head patched --to "$val"
	check "--to '$val': refused (one address), exit 2" bash -c \
		"[ $rc -eq 2 ] && grep -q -- '--to' $WORK/err && [ ! -s $WORK/out ]"
done
sb report --results "$FIX" --base base --head patched --to '"Doe, John" <john@example.org>' \
	--from 'bot@example.org'
cp "$WORK/out" "$WORK/quoted.eml"
mailpy "--to '\"Doe, John\" <john@example.org>': one recipient, quoted as given" \
	raw-to "$WORK/quoted.eml" 'To: "Doe, John" <john@example.org>'

# A repository that knows the labels: the head commit's author is the default To:.
REPO=$WORK/repo
mkdir -p "$REPO"
g() { git -C "$REPO" "$@" >/dev/null 2>&1; }
g init -q -b main
commit() { # NAME EMAIL SUBJECT TAG
	echo "$3" >"$REPO/f"
	g add f
	GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2 GIT_COMMITTER_NAME=c GIT_COMMITTER_EMAIL=c@example.org \
		git -C "$REPO" commit -q -m "$3" >/dev/null 2>&1
	g tag -f "$4"
}
commit "Base Author" base@example.org "mm: the base" base
commit "Doe, John" john@example.org "mm: a change" patched
SHA=$(git -C "$REPO" rev-parse patched)
sb report --results "$FIX" --base base --head patched --repo "$REPO"
cp "$WORK/out" "$WORK/doe.eml"
mailpy "author 'Doe, John': To is one address, the display name quoted" \
	raw-to "$WORK/doe.eml" 'To: "Doe, John" <john@example.org>'

# Non-ASCII: the author's name, the subsystem and the branch, RFC 2047-encoded and back.
commit "Jöhn Døe" jd@example.org "nét: ünïcode everywhere" patched
SHA=$(git -C "$REPO" rev-parse patched)
sb report --results "$FIX" --base base --head patched --repo "$REPO" --branch "fëature-ß"
cp "$WORK/out" "$WORK/utf8.eml"
mailpy "non-ASCII author, subsystem and branch: encoded words that decode back" \
	one "$WORK/utf8.eml" "[fëature-ß] [nét] ${SHA:0:10}: will-it-scale.per_process_ops -25.8% regression" \
	"Jöhn Døe" jd@example.org

# A long Subject is folded at 78 columns and unfolds to the same text.
LONG="release-candidate tree of the memory management maintainers for the next merge window"
sb report --results "$FIX" --base base --head patched --repo "$REPO" --branch "$LONG"
cp "$WORK/out" "$WORK/long.eml"
check "long Subject: folded over several lines" bash -c \
	"sed -n '/^Subject:/,/^[^ ]/p' $WORK/long.eml | grep -c '^ ' | grep -qv '^0\$'"
mailpy "long Subject: every header line <= 78, unfolds to the whole subject" \
	one "$WORK/long.eml" "[$LONG] [nét] ${SHA:0:10}: will-it-scale.per_process_ops -25.8% regression" \
	"Jöhn Døe" jd@example.org

# --- mbox ---
R=(--results "$FIX" --base base --head patched)

# A message is never glued onto a partial line.
printf 'From someone Mon Nov 30 10:00:00 2026\nSubject: old\n\nno final newline' >"$WORK/glued"
sb report "${R[@]}" --mbox "$WORK/glued"
check "mbox ending in a partial line: exit 0" [ $rc -eq 0 ]
mailpy "mbox ending in a partial line: the old message and one more whole one" \
	mbox "$WORK/glued" 2 1
printf 'From someone Mon Nov 30 10:00:00 2026\nSubject: old\n\nfinal newline\n' >"$WORK/glued1"
sb report "${R[@]}" --mbox "$WORK/glued1"
mailpy "mbox ending in one newline: the old message and one more whole one" \
	mbox "$WORK/glued1" 2 1

# A stale dotlock (an hour old) is removed; a fresh one and an fcntl lock are waited for.
touch -d '1 hour ago' "$WORK/locked.lock"
sb report "${R[@]}" --mbox "$WORK/locked"
check "stale dotlock: removed, the message appended" bash -c \
	"[ $rc -eq 0 ] && [ ! -e $WORK/locked.lock ]"
mailpy "stale dotlock: one whole message" mbox "$WORK/locked" 1
# The other tool lets go once report has found the lock taken and waits for it: report polls
# the lock, napping 50 ms between tries (in nanosleep; or it is gone, having not waited).
waiting() {
	case $(cat "/proc/$1/wchan" 2>/dev/null) in *nanosleep*) return 0 ;; esac
	! kill -0 "$1" 2>/dev/null
}
# report_bg ARGS...: sb in the background ($rep); report_wait: its exit status in $rc.
report_bg() {
	"$SCALEBENCH" report "$@" >"$WORK/out" 2>"$WORK/err" &
	rep=$!
}
report_wait() {
	rc=0
	wait $rep || rc=$?
}
touch "$WORK/locked.lock"
report_bg "${R[@]}" --mbox "$WORK/locked"
wait_until 60 waiting $rep
grep -c '^From ' "$WORK/locked" >"$WORK/during"
rm -f "$WORK/locked.lock"
report_wait
check "fresh dotlock held by another tool: nothing written while it is held" \
	[ "$(cat "$WORK/during")" = 1 ]
mailpy "fresh dotlock: two whole messages" mbox "$WORK/locked" 2
python3 -c 'import fcntl, os, sys, time
f = open(sys.argv[1], "r+"); fcntl.lockf(f, fcntl.LOCK_EX); open(sys.argv[2], "w").close()
while not os.path.exists(sys.argv[3]):
    time.sleep(0.05)
print(open(sys.argv[1], "rb").read().count(b"\nFrom "), flush=True)' \
	"$WORK/locked" "$WORK/held" "$WORK/release" >"$WORK/during" &
holder=$!
wait_until 60 test -e "$WORK/held"
report_bg "${R[@]}" --mbox "$WORK/locked"
wait_until 60 waiting $rep
touch "$WORK/release"
wait $holder
report_wait
check "fcntl lock held by another tool: nothing written while it is held" \
	[ "$(cat "$WORK/during")" = 1 ]
mailpy "fcntl lock: three whole messages once released" mbox "$WORK/locked" 3

# Not a regular file: refused, naming it.
mkdir "$WORK/adir"
sb report "${R[@]}" --mbox "$WORK/adir"
check "--mbox a directory: exit 2, names it" bash -c "[ $rc -eq 2 ] && grep -q '$WORK/adir' $WORK/err"

# Eight writers at once: eight whole messages.
for i in 1 2 3 4 5 6 7 8; do
	"$SB" report "${R[@]}" --mbox "$WORK/busy" >/dev/null 2>"$WORK/busy.err.$i" &
done
wait
check "8 concurrent writers: all exit 0" bash -c "! grep -q . $WORK/busy.err.*"
mailpy "8 concurrent writers: 8 whole messages" mbox "$WORK/busy" 8

# A full disk mid-message: exit 2 naming the mbox and ENOSPC, the mbox byte-identical; the
# next report, with space, appends one more whole message.
MNT=$WORK/tmpfs
mkdir "$MNT"
if mount -t tmpfs -o size=64k tmpfs "$MNT" 2>"$WORK/mount.err"; then
	trap 'umount "$MNT" 2>/dev/null; rm -rf "$WORK"' EXIT
	sb report "${R[@]}" --mbox "$MNT/mbox"
	check "tmpfs: the first message appended" [ $rc -eq 0 ]
	cp "$MNT/mbox" "$WORK/mbox.before"
	size=$(stat -c %s "$MNT/mbox")
	dd if=/dev/zero of="$MNT/fill" bs=4096 >/dev/null 2>&1 || true
	check "premise: the disk is full and the mbox's last page has room for part of a message" \
		bash -c "! echo x >>$MNT/other 2>/dev/null && [ $((size % 4096)) -ne 0 ]"
	rm -f "$MNT/other"
	sb report "${R[@]}" --mbox "$MNT/mbox"
	check "full disk: exit 2, names the mbox and 'No space left on device'" bash -c \
		"[ $rc -eq 2 ] && grep -q 'cannot append to $MNT/mbox: No space left on device' $WORK/err"
	check "full disk: the mbox is byte-identical to before" cmp -s "$WORK/mbox.before" "$MNT/mbox"
	check "full disk: no dotlock left" [ ! -e "$MNT/mbox.lock" ]
	rm -f "$MNT/fill"
	sb report "${R[@]}" --mbox "$MNT/mbox"
	check "space again: exit 0" [ $rc -eq 0 ]
	mailpy "space again: two whole messages" mbox "$MNT/mbox" 2
	umount "$MNT"
	trap 'rm -rf "$WORK"' EXIT
else
	echo "skip full-disk checks: cannot mount a tmpfs ($(cat "$WORK/mount.err"))"
fi

# Runs measured on a busy machine are said before the table, with how many and why; a mail
# of idle runs says nothing of it.
check "idle runs: no busy-machine line" bash -c "! grep -q 'busy machine' '$WORK/out'"
cp -r "$FIX" "$WORK/busytree"
for m in "$WORK"/busytree/will-it-scale/*/*/*/*/*/patched/[01]/meta.json; do
	python3 - "$m" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['machine_load'] = {'busy': True, 'reason': 'load 3.2 on 2 CPUs from other work'}
json.dump(d, open(sys.argv[1], 'w'))
PY
done
sb report --results "$WORK/busytree" --base base --head patched
check "busy runs: the mail says how many of the commit's and why, before the table" bash -c \
	"[ $rc = 0 ] && grep -q \"^Runs measured on a busy machine .*: 2 of [0-9]* of the commit's (load 3.2 on 2 CPUs from other work)\" '$WORK/out' &&
	 [ \$(grep -n 'busy machine' '$WORK/out' | cut -d: -f1) -lt \$(grep -n '%change' '$WORK/out' | head -1 | cut -d: -f1) ]" ||
	grep -n 'busy\|%change' "$WORK/out" | head -5

# "To reproduce": the commands that made and compare these runs, the job file inlined; the
# compare line, RESULTS filled in, runs as printed and finds the change.
cp -r "$FIX" "$WORK/repro"
P1=$(ls -d "$WORK"/repro/will-it-scale/*/*/*/*/*/patched/0)
printf 'suite: will-it-scale\nruntime: 300s\nnr_task: 100%%\nwill-it-scale:\n  mode: process\n  test: page_fault3\n' >"$P1/job.yaml"
sb report --results "$WORK/repro" --base base --head patched
check "the mail's To reproduce: the run and compare commands, the head's job.yaml inlined" bash -c \
	"[ $rc = 0 ] && grep -q '^To reproduce:' '$WORK/out' &&
	 grep -q '^        scalebench run job.yaml --results RESULTS --commit patched --repeat 5$' '$WORK/out' &&
	 grep -q '^        job.yaml, as the runs stored it:\|^job.yaml, as the runs stored it:' '$WORK/out' &&
	 grep -q '^          test: page_fault3$' '$WORK/out'" || sed -n '/To reproduce/,/====/p' "$WORK/out"
sed -n '/^        scalebench compare /,/--commits/p' "$WORK/out" | sed 's/^ *//; s/\\$//' | tr '\n' ' ' |
	sed "s|RESULTS|$WORK/repro|; s|^scalebench|\"$SCALEBENCH\"|" >"$WORK/repro.sh"
rc=0
bash "$WORK/repro.sh" >"$WORK/repro.out" 2>&1 || rc=$?
check "the mail's compare command runs as printed: the regression again (exit 1)" bash -c \
	"[ $rc = 1 ] && grep -q 'will-it-scale.per_process_ops' '$WORK/repro.out'" || cat "$WORK/repro.sh"
