#!/bin/bash
# make install honours PREFIX and DESTDIR, and the installed binary finds its helper.
set -u
. "$(dirname "$0")/../lib.sh"

rc=0
make -s install PREFIX=/opt/sb DESTDIR="$WORK/stage" >"$WORK/out" 2>&1 || rc=$?
check "make install DESTDIR= PREFIX=: exit 0" [ $rc -eq 0 ]
check "binary under DESTDIR/PREFIX/bin" [ -x "$WORK/stage/opt/sb/bin/scalebench" ]
check "helper under libexec/scalebench" [ -x "$WORK/stage/opt/sb/libexec/scalebench/scalebench-exec-helper" ]
check "job files under share/scalebench/jobs" [ -f "$WORK/stage/opt/sb/share/scalebench/jobs/default.yaml" ]
check "nothing installed outside DESTDIR" [ ! -e /opt/sb ]
check "man pages under share/man (a command's, scalebench(1), the format pages) and their HTML" bash -c \
	"cd $WORK/stage/opt/sb/share && [ -f man/man1/scalebench.1 ] && [ -f man/man1/scalebench-run.1 ] &&
	 [ -f man/man5/scalebench-job.5 ] && [ -f man/man5/scalebench-results.5 ] &&
	 [ -f man/man7/scalebench-testcases.7 ] && [ -f man/man7/scalebench-monitors.7 ] &&
	 [ -f doc/scalebench/html/scalebench-run.html ] &&
	 [ \$(ls man/man1 | wc -l) -eq \$((\$($(realpath "$SCALEBENCH") help | grep -c '^  [a-z]') + 1)) ]"

# help CMD shows the installed page (man), --help where there is none (the build tree's, test_cli).
sbi=$WORK/stage/opt/sb/bin/scalebench
rc=0
"$sbi" help run >"$WORK/out" 2>"$WORK/err" || rc=$?
check "installed: help run shows scalebench-run(1)" bash -c \
	"[ $rc -eq 0 ] && grep -q '^SCALEBENCH-RUN(1)' $WORK/out && grep -q '^DESCRIPTION' $WORK/out && grep -q -- '--dry-run' $WORK/out"
rc=0
"$sbi" help job >"$WORK/out" 2>"$WORK/err" || rc=$?
check "installed: help job shows scalebench-job(5)" bash -c "[ $rc -eq 0 ] && grep -q '^SCALEBENCH-JOB(5)' $WORK/out"
rc=0
"$sbi" help --format=text run >"$WORK/out" 2>"$WORK/err" || rc=$?
check "installed: help --format=text run is run --help" bash -c \
	"[ $rc -eq 0 ] && cmp -s $WORK/out <(\"$sbi\" run --help)"
rc=0
PATH=/nonexistent "$sbi" help list >"$WORK/out" 2>"$WORK/err" || rc=$?
check "installed, no man on PATH: help list falls back to list --help" bash -c \
	"[ $rc -eq 0 ] && head -1 $WORK/out | grep -q '^usage: scalebench list'"

# The installed tree is relocatable: exec1 finds ../libexec/scalebench from bin/.
rc=0
"$WORK/stage/opt/sb/bin/scalebench" bench exec1 -t 1 -s 1 -w 0 -q >"$WORK/out" 2>"$WORK/err" || rc=$?
check "installed scalebench runs exec1 with its helper" bash -c "[ $rc -eq 0 ] && grep -q 'per_process_ops [1-9]' $WORK/out"

# Shipped jobs by name, from anywhere: bin/../share/scalebench/jobs/NAME.yaml.
mkdir -p "$WORK/elsewhere"
rc=0
(cd "$WORK/elsewhere" && "$WORK/stage/opt/sb/bin/scalebench" run page_fault3 --dry-run \
	>"$WORK/out" 2>"$WORK/err") || rc=$?
check "installed: run page_fault3 by name from another directory (dry run)" bash -c \
	"[ $rc -eq 0 ] && grep -q '^page_fault3-.*page_fault3' $WORK/out"
rc=0
(cd "$WORK/elsewhere" && "$WORK/stage/opt/sb/bin/scalebench" run page_fault3 -q --no-monitors \
	--runtime 0.25s --set interval=0.25s --set warmup=0 --nr-task 1 --set mode=process --results "$WORK/r" \
	--commit c1 >"$WORK/out" 2>"$WORK/err") || rc=$?
check "installed: run page_fault3 by name, with overrides, stores one run" bash -c \
	"[ $rc -eq 0 ] && [ \$(ls -d $WORK/r/will-it-scale/*/*/*/*/*/c1/0 | wc -l) -eq 1 ]"
# The build tree's binary (build/ or build/asan/) finds the source tree's jobs/ before
# 'make install', and the shipped default job says nothing about itself (category: benchmark).
rc=0
bt=$(realpath "$SCALEBENCH")
(cd "$WORK/elsewhere" && "$bt" run page_fault3 --dry-run >"$WORK/out" 2>"$WORK/err") || rc=$?
check "build tree: run page_fault3 by name from another directory (dry run)" bash -c \
	"[ $rc -eq 0 ] && grep -q '^page_fault3-.*page_fault3' $WORK/out"
rc=0
(cd "$WORK/elsewhere" && "$bt" run default --dry-run >"$WORK/out" 2>"$WORK/err") || rc=$?
# (On 1 CPU its nr_task 1 and 100% coincide: that note is about the machine, not a key.)
check "build tree: run default (dry run), no note on its own keys" bash -c \
	"[ $rc -eq 0 ] && grep -q 'default-.*exec1' $WORK/out && ! grep 'note:' $WORK/err | grep -qv ': run once, as '"
rc=0
(cd "$WORK/elsewhere" && "$WORK/stage/opt/sb/bin/scalebench" run nope --dry-run \
	>"$WORK/out" 2>"$WORK/err") || rc=$?
check "installed: unknown name says it looked in the installed jobs" bash -c \
	"[ $rc -eq 2 ] && grep -q 'stage/opt/sb/share/scalebench/jobs/nope.yaml' $WORK/err"
