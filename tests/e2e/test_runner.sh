#!/bin/bash
# tests/run.sh's selection (--list runs nothing): patterns, kinds, overlaps and misses.
set -u
. "$(dirname "$0")/../lib.sh"

tests/run.sh --list test_mail test_mail_lkp >"$WORK/out" 2>"$WORK/err"
rc=$?
check "a pattern whose files an earlier one took is not a miss: both listed once, exit 0" bash -c \
	"[ $rc -eq 0 ] && [ \$(grep -c 'tests/e2e/test_mail_lkp.sh$' $WORK/out) -eq 1 ] && [ \$(grep -c 'tests/e2e/test_mail.sh$' $WORK/out) -eq 1 ]"
tests/run.sh --list test_nosuchthing >"$WORK/out" 2>"$WORK/err"
rc=$?
check "a pattern that matches nothing: exit 2, named" bash -c \
	"[ $rc -eq 2 ] && grep -q \"no test file matches 'test_nosuchthing'\" $WORK/err"
tests/run.sh --list --kind unit test_mail_lkp >"$WORK/out" 2>"$WORK/err"
rc=$?
check "--kind: a pattern with no file of that kind is a miss" bash -c \
	"[ $rc -eq 2 ] && grep -q \"no test file of kind unit matches 'test_mail_lkp'\" $WORK/err"
tests/run.sh --list --kind e2e test_mail >"$WORK/out" 2>&1
check "--kind e2e test_mail: the e2e files only" bash -c \
	"grep -q 'tests/e2e/test_mail.sh$' $WORK/out && ! grep -q '^unit' $WORK/out"

# The loads: CPU s per wall s of the times file, clamped to 0.15..2, 1 when unknown; a line
# that is not "WALL FILE [CPU]" is named and ignored.
printf '10.0 tests/e2e/test_prefix.sh 3.0\n4 tests/e2e/test_results.sh\n1.0 tests/e2e/test_mail.sh 9\n2.0 tests/e2e/test_trend.sh 0.01\nbad line\n' >"$WORK/times"
tests/run.sh --times "$WORK/times" --list test_prefix test_results test_mail.sh test_trend >"$WORK/out" 2>"$WORK/err"
check "--times: each file's last wall time and load listed (0.30; 1.00 without CPU; 2.00 and 0.15 clamped)" bash -c \
	"grep -Eq ' 10.0 s 0.30 tests/e2e/test_prefix.sh$' $WORK/out && grep -Eq ' 4 s 1.00 tests/e2e/test_results.sh$' $WORK/out &&
	 grep -Eq ' 1.0 s 2.00 tests/e2e/test_mail.sh$' $WORK/out && grep -Eq ' 2.0 s 0.15 tests/e2e/test_trend.sh$' $WORK/out"
check "--times: the slowest first" bash -c "head -1 $WORK/out | grep -q test_prefix.sh"
check "--times: a bad line is named, and ignored" grep -q "$WORK/times: line 'bad line': expected 'WALL FILE \[CPU\]'" "$WORK/err"

# A real run with its own times and log (not build/'s, which the suite around this one writes):
# two files side by side, both pass, and the times file gains each one's CPU (an old
# two-column line is rewritten with three).
printf '5 tests/e2e/test_results.sh\n' >"$WORK/times2"
tests/run.sh -q -j 2 --times "$WORK/times2" --log "$WORK/log" test_prefix test_results >"$WORK/out" 2>&1
rc=$?
check "a run of two files: exit 0, both passed, the closing line" bash -c \
	"[ $rc -eq 0 ] && tail -1 $WORK/out | grep -Eq '^[1-9][0-9]* passed, 0 failed$' && grep -q 'ok   tests/e2e/test_prefix.sh' $WORK/log"
check "the times file: 'WALL FILE CPU' for both files" bash -c \
	"[ \$(grep -Ec '^[0-9.]+ tests/e2e/test_(prefix|results).sh [0-9.]+$' $WORK/times2) -eq 2 ]"
