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
