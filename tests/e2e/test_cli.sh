#!/bin/bash
# The command table, --help everywhere, list, and bad input through the real binary.
set -u
. "$(dirname "$0")/../lib.sh"

sb --help
check "scalebench --help lists the commands" [ $rc -eq 0 ]
check "--help names bench and list" grep -q "bench" "$WORK/out"
sb
check "no command: usage on stderr, exit 2" [ $rc -eq 2 ]
sb frobnicate
check "unknown command: exit 2 and named" bash -c "[ $rc -eq 2 ] && grep -q \"unknown command 'frobnicate'\" $WORK/err"
check "unknown command: one line, pointing to --help (not the list of commands)" \
	bash -c "[ \$(wc -l <$WORK/err) -eq 1 ] && grep -q \"(see 'scalebench --help')\" $WORK/err"
sb comapre a b
check "a mistyped command: did you mean the close one" bash -c \
	"[ $rc -eq 2 ] && grep -q \"unknown command 'comapre'; did you mean 'compare'?\" $WORK/err && [ \$(wc -l <$WORK/err) -eq 1 ]"
for cmd in bench list; do
	sb $cmd --help
	check "$cmd --help: usage, exit 0" bash -c "[ $rc -eq 0 ] && grep -q '^usage: scalebench $cmd' $WORK/out"
	sb help $cmd
	check "help $cmd" bash -c "[ $rc -eq 0 ] && grep -q '^usage: scalebench $cmd' $WORK/out"
done
sb bench --help
check "bench --help lists the testcases" out_has "page_fault3"

sb list
check "list: exit 0" [ $rc -eq 0 ]
for t in page_fault1 page_fault2 page_fault3 fallocate1 fallocate2 exec1 fork1 getppid1; do
	check "list shows $t with its description" grep -Eq "^$t +[A-Za-z]" "$WORK/out"
done
check "list hides test-only testcases" bash -c "! grep -q selftest $WORK/out"
sb list -l
check "list -l shows the suite and op" grep -Eq "^ +suite will-it-scale, op: page touched" "$WORK/out"

# Bad input: one-line message naming the value, non-zero exit.
sb bench nope
check "unknown testcase: exit 2" [ $rc -eq 2 ]
check "unknown testcase: named, 'scalebench list' pointed to, one line" bash -c \
	"grep -q \"unknown testcase 'nope'; 'scalebench list' shows the names\" $WORK/err && [ \$(wc -l <$WORK/err) -eq 1 ]"
sb bench getpid1
check "a mistyped testcase: did you mean getppid1" bash -c \
	"[ $rc -eq 2 ] && grep -q \"unknown testcase 'getpid1'; did you mean 'getppid1'?\" $WORK/err"
sb bench selftest-crash
check "test-only testcases need SCALEBENCH_SELFTEST=1" bash -c "[ $rc -eq 2 ] && grep -q \"unknown testcase 'selftest-crash'\" $WORK/err"
sb bench getppid1 --frobnicate
check "unknown option: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q \"unknown option '--frobnicate'\" $WORK/err"
sb bench getppid1 --secnods 1
check "a mistyped option: did you mean the close one" bash -c \
	"[ $rc -eq 2 ] && grep -q \"unknown option '--secnods'; did you mean '--seconds'?\" $WORK/err"
sb bench getppid1 -X
check "unknown short option: named" bash -c "[ $rc -eq 2 ] && grep -q \"unknown option '-X'\" $WORK/err"
sb bench getppid1 -t
check "option without value: named" bash -c "[ $rc -eq 2 ] && grep -q \"'-t' needs a value\" $WORK/err"
sb bench getppid1 -t 0
check "-t 0 rejected" bash -c "[ $rc -eq 2 ] && grep -q \"\\-t '0': expected at least 1 task\" $WORK/err"
sb bench getppid1 -t abc
check "-t abc rejected" bash -c "[ $rc -eq 2 ] && grep -q \"\\-t 'abc': expected a number of tasks\" $WORK/err"
sb bench getppid1 -t 1,0
check "-t 1,0 rejected, the part named" bash -c "[ $rc -eq 2 ] && grep -q \"'0': expected at least 1 task (in '1,0')\" $WORK/err"
sb bench getppid1 -t 3-1
check "-t 3-1 rejected" bash -c "[ $rc -eq 2 ] && grep -q \"backwards\" $WORK/err"
sb bench getppid1 -s 0
check "-s 0 rejected" bash -c "[ $rc -eq 2 ] && grep -q \"\\-s '0': expected a duration from 1us to 30d\" $WORK/err"
sb bench getppid1 -s -5
check "-s -5 rejected" bash -c "[ $rc -eq 2 ] && grep -q \"'-5'\" $WORK/err"
sb bench getppid1 -w -1
check "-w -1 rejected" bash -c "[ $rc -eq 2 ] && grep -q \"\\-w '-1': expected a duration from 0s to 30d\" $WORK/err"
sb bench getppid1 -s 2x
check "-s 2x rejected" bash -c "[ $rc -eq 2 ] && grep -q \"'2x'\" $WORK/err"
for v in nan inf 1e999 0x10 0.0000001 31d; do
	sb bench getppid1 --seconds $v
	check "--seconds $v rejected, named" bash -c "[ $rc -eq 2 ] && grep -q \"\\--seconds '$v': expected a duration\" $WORK/err"
done
sb bench getppid1 -m fibre
check "-m fibre rejected" bash -c "[ $rc -eq 2 ] && grep -q \"\\-m 'fibre': expected process, thread or both\" $WORK/err"
sb bench getppid1 page_fault3
check "two testcases rejected" bash -c "[ $rc -eq 2 ] && grep -q \"unexpected argument 'page_fault3'\" $WORK/err"

sb bench getppid1 --tmpdir "$WORK/missing" -s 1
check "missing temp dir rejected, named" bash -c "[ $rc -eq 2 ] && grep -q \"temp dir '$WORK/missing' is not usable\" $WORK/err"
touch "$WORK/afile"
rc=0; TMPDIR="$WORK/afile" "$SCALEBENCH" bench getppid1 -s 1 >"$WORK/out" 2>"$WORK/err" || rc=$?
check "TMPDIR naming a file rejected" bash -c "[ $rc -eq 2 ] && grep -q \"temp dir '$WORK/afile' is not usable\" $WORK/err"

sb bench getppid1 -s 1 -w 0 --json "$WORK/nodir/out.json"
check "unwritable JSON path rejected before running" bash -c "[ $rc -eq 2 ] && grep -q \"cannot write $WORK/nodir/out.json\" $WORK/err && ! grep -q min: $WORK/out"
check "nothing created for the unwritable JSON" [ ! -e "$WORK/nodir" ]

# help: the commands, or one command's help, from the same tables.
sb help
check "help: the commands, exit 0" bash -c "[ $rc -eq 0 ] && grep -q '^  compare ' $WORK/out && grep -q '^  bisect ' $WORK/out"
sb help nope
check "help nope: unknown command, exit 2" bash -c "[ $rc -eq 2 ] && grep -q \"unknown command 'nope'\" $WORK/err"
for cmd in bench bisect compare list plot profile report run split results index trend nightly html; do
	sb $cmd --help
	check "$cmd --help: exit 0, no line over 100 columns" bash -c "[ $rc -eq 0 ] && ! awk 'length > 100 {bad=1} END {exit !bad}' $WORK/out"
	cp "$WORK/out" "$WORK/help"
	sb help $cmd
	check "help $cmd is $cmd --help" cmp -s "$WORK/out" "$WORK/help"
done
sb bench --help
check "bench --help: defaults from the table, with units" bash -c "grep -q 'measurement window per task count (default 5 s)' $WORK/out && grep -q 'default 1%)' <(\"$SCALEBENCH\" compare --help)"

# README's usage blocks are the synopses --help prints (wrapped the same, "usage: " taken off).
if python3 - "$SCALEBENCH" >"$WORK/readme" 2>&1 <<'PY'
import re, subprocess, sys
text = open("README.md").read()
bad = 0
for cmd in ["bench", "list", "run", "split", "compare", "plot", "profile", "bisect", "report", "results", "index", "trend", "nightly", "html", "submit", "status", "wait"]:
    out = subprocess.run([sys.argv[1], cmd, "--help"], capture_output=True, text=True).stdout
    want = "\n".join(line[7:] for line in out.split("\n\n")[0].split("\n"))
    m = re.search(r"### scalebench " + cmd + r"\n\n```\n(.*?)\n```", text, re.S)
    if not m or m.group(1) != want:
        bad += 1
        print("README usage of %s:\n%s\n--help says:\n%s" % (cmd, m.group(1) if m else "(none)", want))
sys.exit(bad)
PY
then
	pass "README usage blocks match --help"
else
	fail "README usage blocks match --help" "$(head -20 "$WORK/readme")"
fi

# Numbers: one parser per kind, whatever the option.
sb compare --threshold 5s a b
check "compare --threshold 5s refused, option and value named" bash -c "[ $rc -eq 2 ] && grep -q \"\\--threshold '5s': expected a percentage\" $WORK/err"
sb profile --min nan "$WORK"
check "profile --min nan refused" bash -c "[ $rc -eq 2 ] && grep -q \"\\--min 'nan': expected a percentage from 0 to 100\" $WORK/err"
sb run --repeat 1e3 jobs/exec1.yaml
check "run --repeat 1e3 refused" bash -c "[ $rc -eq 2 ] && grep -q \"\\--repeat '1e3': expected a whole number\" $WORK/err"
printf 'runtime: 0.0000001\nwill-it-scale: {test: getppid1}\n' >"$WORK/tiny.yaml"
sb split "$WORK/tiny.yaml"
check "runtime: 0.0000001 refused" bash -c "[ $rc -eq 2 ] && grep -q \"runtime '0.0000001': expected a duration from 1us to 30d\" $WORK/err"

# One rule for a percentage of CPUs (rounded down, at least 1): bench -t and nr_task agree.
for pct in 1% 50% 100%; do
	sb bench getppid1 -t $pct -s 0.2 -w 0 -q --json "$WORK/pct.json"
	b=$(json "$WORK/pct.json" "d['nr_task'][0]" 2>/dev/null)
	getppid_job "$WORK/pct.yaml" "nr_task: $pct"
	sb run "$WORK/pct.yaml" --dry-run --results "$WORK/r"
	j=$(sed -n 's/.* mode, \([0-9]*\) cop.*/\1/p' "$WORK/out")
	check "bench -t $pct and nr_task: $pct agree ($b and $j copies)" [ -n "$b" -a "$b" = "$j" ]
done

# Standard output: what does not arrive is an error, exit 2 with a message.
"$SCALEBENCH" list >/dev/full 2>"$WORK/err"; rc=$?
check "list >/dev/full: exit 2, said" bash -c "[ $rc -eq 2 ] && grep -q 'scalebench list: cannot write to standard output: No space left on device' $WORK/err"
python3 - "$SCALEBENCH" >"$WORK/pipe" <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)  # nobody reads: every write fails
p = subprocess.run([sys.argv[1], "list"], stdout=w, stderr=subprocess.PIPE)
print(p.returncode)
print(p.stderr.decode())
PY
check "list into a closed pipe: exit 2, said" bash -c "[ \"\$(head -1 $WORK/pipe)\" = 2 ] && grep -q 'cannot write to standard output: Broken pipe' $WORK/pipe"

# A message quoting what the user or a results tree gave cannot drive the terminal: control
# characters come out escaped as every name on its way to a terminal is (text.h: ESC as \xNN,
# CR as \r, the C1 controls some terminals obey and bytes that are not UTF-8 as \xNN), newlines
# and UTF-8 stay.
sb report --base $'a\eZb\rc\xc2\x9bd\xc3\xa9\xff' --head x --results "$WORK/none"
check "control characters and bytes not UTF-8 in a message come out escaped" bash -c "[ $rc -eq 2 ] && grep -qF \"'a\\x1bZb\\rc\\xc2\\x9bdé\\xff'\" $WORK/err && ! grep -q \$'\\e' $WORK/err && ! grep -q \$'\\r' $WORK/err"
