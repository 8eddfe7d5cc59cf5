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
check "list -l shows the suite and op" grep -Eq "^ +suite will-it-scale, op: page fault" "$WORK/out"

# Bad input: one-line message naming the value, non-zero exit.
sb bench nope
check "unknown testcase: exit 2" [ $rc -eq 2 ]
check "unknown testcase: named, with the list" bash -c "grep -q \"unknown testcase 'nope'\" $WORK/err && grep -q page_fault3 $WORK/err"
sb bench selftest-crash
check "test-only testcases need SCALEBENCH_SELFTEST=1" bash -c "[ $rc -eq 2 ] && grep -q \"unknown testcase 'selftest-crash'\" $WORK/err"
sb bench getppid1 --frobnicate
check "unknown option: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q \"unknown option '--frobnicate'\" $WORK/err"
sb bench getppid1 -X
check "unknown short option: named" bash -c "[ $rc -eq 2 ] && grep -q \"unknown option '-X'\" $WORK/err"
sb bench getppid1 -t
check "option without value: named" bash -c "[ $rc -eq 2 ] && grep -q \"'-t' needs a value\" $WORK/err"
sb bench getppid1 -t 0
check "-t 0 rejected" bash -c "[ $rc -eq 2 ] && grep -q \"task count '0' is 0\" $WORK/err"
sb bench getppid1 -t abc
check "-t abc rejected" bash -c "[ $rc -eq 2 ] && grep -q \"bad task count 'abc'\" $WORK/err"
sb bench getppid1 -t 1%
check "-t 1% (rounds to 0) rejected" bash -c "[ $rc -eq 2 ] && grep -q \"task count '1%' is 0\" $WORK/err"
sb bench getppid1 -t 3-1
check "-t 3-1 rejected" bash -c "[ $rc -eq 2 ] && grep -q \"backwards\" $WORK/err"
sb bench getppid1 -s 0
check "-s 0 rejected" bash -c "[ $rc -eq 2 ] && grep -q \"\\-s '0': expected a number of seconds > 0\" $WORK/err"
sb bench getppid1 -s -5
check "-s -5 rejected" bash -c "[ $rc -eq 2 ] && grep -q \"'-5'\" $WORK/err"
sb bench getppid1 -w -1
check "-w -1 rejected" bash -c "[ $rc -eq 2 ] && grep -q \"\\-w '-1': expected a number of seconds >= 0\" $WORK/err"
sb bench getppid1 -s 2x
check "-s 2x rejected" bash -c "[ $rc -eq 2 ] && grep -q \"'2x'\" $WORK/err"
sb bench getppid1 -m fibre
check "-m fibre rejected" bash -c "[ $rc -eq 2 ] && grep -q \"mode 'fibre': expected process, thread or both\" $WORK/err"
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
