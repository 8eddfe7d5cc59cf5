#!/bin/bash
# The man pages (Documentation/, rendered by make into build/man): one per command and the
# format pages, each rendering without a warning at 80 columns; each command's page holds
# every option of its table, from parts that are the binary's own (stale parts fail); the
# build refuses a command without a page and a page without a command.  (The pages' examples
# are test_doc's doctests; help CMD on an installed page is test_install's.)
set -u
. "$(dirname "$0")/../lib.sh"

MAN=build/man
cmds=$("$SCALEBENCH" help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
check "the binary lists its commands" [ -n "$cmds" ]

# What the build rendered is what this binary's tables say now: the generated parts, as
# the binary prints them, are the ones the pages were made from.
stale=
for c in $cmds; do
	for part in head options; do
		"$SCALEBENCH" help --format=man-$part "$c" >"$WORK/part" 2>&1 || stale="$stale $c($part: exit)"
		cmp -s "$WORK/part" "$MAN/gen/scalebench-$c-$part.adoc" || stale="$stale $c($part)"
	done
done
check "the pages' generated parts are the binary's tables (no stale page)${stale:+:$stale}" [ -z "$stale" ]

# Every command's page, and every option of its table (as --help lists it) in the page's
# OPTIONS section as man shows it.
missing=
for c in $cmds; do
	page=$MAN/man1/scalebench-$c.1
	if [ ! -f "$page" ] || [ ! -f "$MAN/html/scalebench-$c.html" ]; then
		missing="$missing $c(no page)"
		continue
	fi
	MANWIDTH=80 man -l "$page" 2>/dev/null | col -b | sed -n '/^OPTIONS$/,/^[A-Z]/p' >"$WORK/opts"
	for o in $("$SCALEBENCH" "$c" --help | sed -n 's/^  \(-[a-zA-Z], \)\{0,1\} *\(--[a-z0-9-]*\).*/\2/p'); do
		grep -q -- "^ *\(-[a-zA-Z], \)\{0,1\}$o\( \|$\)" "$WORK/opts" || missing="$missing $c:$o"
	done
done
check "every command has a page (and its HTML), with every option of its table${missing:+:$missing}" \
	[ -z "$missing" ]
"$SCALEBENCH" bench --help | grep -c '^  -\|^      --' >"$WORK/n"
MANWIDTH=80 man -l $MAN/man1/scalebench-bench.1 2>/dev/null | col -b >"$WORK/bench"
check "bench's page: synopsis, an option's help with its default, the page's own words on it" \
	bash -c "grep -q '^SYNOPSIS' $WORK/bench && grep -q 'scalebench bench TESTCASE \[-m process|thread|both\]' $WORK/bench &&
		grep -q 'measurement window per task count (default 5 s)' $WORK/bench &&
		grep -q 'Sorted and deduplicated' $WORK/bench && [ \$(cat $WORK/n) -gt 10 ]"

# Every page renders without a warning at 80 columns, and has the sections a page has.
pages=$(ls $MAN/man1/*.1 $MAN/man5/*.5 $MAN/man7/*.7 2>/dev/null)
check "the format pages are built" bash -c "ls $MAN/man5/scalebench-job.5 $MAN/man5/scalebench-results.5 \
	$MAN/man7/scalebench-testcases.7 $MAN/man7/scalebench-monitors.7 $MAN/man1/scalebench.1 >/dev/null"
warned= sections=
for p in $pages; do
	MANWIDTH=80 man --warnings -l "$p" >"$WORK/page" 2>"$WORK/warn"
	[ -s "$WORK/warn" ] && warned="$warned $(basename "$p"): $(head -1 "$WORK/warn")"
	want="NAME DESCRIPTION SEE.ALSO"
	case $p in *.1) want="NAME SYNOPSIS DESCRIPTION OPTIONS EXIT.STATUS FILES ENVIRONMENT EXAMPLES SEE.ALSO" ;; esac
	for s in $want; do
		grep -q "^$s$" <(col -b <"$WORK/page") || sections="$sections $(basename "$p"):$s"
	done
done
check "every page renders without a warning (MANWIDTH=80 man --warnings)${warned:+:$warned}" [ -z "$warned" ]
check "every page has its sections${sections:+:$sections}" [ -z "$sections" ]
check "no page's source is left with a TODO" bash -c "! grep -l 'TODO' Documentation/*.txt"

# Every page a page names exists, and the HTML copy links to it.
dangling=
for ref in $(sed 's/\\-/-/g' $MAN/man*/* | grep -o 'scalebench\(-[a-z-]*\)\{0,1\}\\fP([157])' | sed 's/\\fP//' | sort -u); do
	name=${ref%(*} sec=${ref#*(}
	sec=${sec%)}
	[ -f "$MAN/man$sec/$name.$sec" ] || dangling="$dangling $ref"
done
for h in $(grep -ho '<a href="scalebench[^"]*"' $MAN/html/*.html | sed 's/<a href="//; s/"$//' | sort -u); do
	[ -f "$MAN/html/$h" ] || dangling="$dangling html:$h"
done
check "every page named in a page exists, and its HTML link too${dangling:+:$dangling}" [ -z "$dangling" ]
check "the HTML copy links the pages it names" grep -q '<a href="scalebench-results.5.html"><strong>scalebench-results</strong>(5)</a>' \
	$MAN/html/scalebench-run.html

# scalebench-testcases(7) is the registry's: every testcase scalebench list names.
MANWIDTH=80 man -l $MAN/man7/scalebench-testcases.7 2>/dev/null | col -b >"$WORK/tc"
absent=
for t in $("$SCALEBENCH" list | awk 'NR > 1 {print $1}'); do
	grep -q "^       $t$" "$WORK/tc" || absent="$absent $t"
done
check "scalebench-testcases(7) lists every testcase of the registry${absent:+:$absent}" [ -z "$absent" ]

# The hidden formats are the build's; a wrong one is refused.
sb help --format=man-options split
check "help --format=man-options: the OPTIONS part, in AsciiDoc" bash -c \
	"[ $rc -eq 0 ] && head -1 $WORK/out | grep -qx '== OPTIONS' && grep -qF '*pass:c[-o]*, *pass:c[--output]* _pass:c[DIR]_::' $WORK/out"
sb help --format=man-head
check "help --format=man-head: scalebench(1)'s NAME and SYNOPSIS" bash -c \
	"[ $rc -eq 0 ] && grep -qx 'scalebench - Scalability regression detection for the Linux kernel.' $WORK/out"
sb help --format=roff run
check "help --format=roff: unknown format, exit 2" bash -c "[ $rc -eq 2 ] && grep -q \"unknown format 'roff'\" $WORK/err"
sb help --format=text run
check "help --format=text run: the --help text" bash -c "[ $rc -eq 0 ] && head -1 $WORK/out | grep -q '^usage: scalebench run'"
sb help job
check "help job, not installed: exit 2, says where the page's source is" bash -c \
	"[ $rc -eq 2 ] && grep -q 'scalebench-job(5) is not installed' $WORK/err && grep -q 'Documentation/scalebench-job.5.txt' $WORK/err"

# The build's generator refuses a command without a page and a page without a command.
mkdir -p "$WORK/doc"
cp Documentation/gen.sh Documentation/testcases.py Documentation/*.txt "$WORK/doc/"
rm "$WORK/doc/scalebench-wait.txt"
printf '= scalebench-nope(1)\n' >"$WORK/doc/scalebench-nope.txt"
sed -i 's/^:opt-smt:/:opt-gone:/' "$WORK/doc/scalebench-bench.txt"
rc=0
"$WORK/doc/gen.sh" "$SCALEBENCH" "$WORK/gen" >"$WORK/out" 2>"$WORK/err" || rc=$?
check "gen.sh: a command without a page, a page of no command, more said of an option gone: each named, the build fails" bash -c \
	"[ $rc -ne 0 ] && grep -q \"command 'wait' has no page\" $WORK/err && grep -q \"documents 'nope', which is no command\" $WORK/err &&
	 grep -q 'says more about --gone, which bench has not' $WORK/err"
rm "$WORK/doc/scalebench-nope.txt"
cp Documentation/scalebench-bench.txt "$WORK/doc/"
cp Documentation/scalebench-wait.txt "$WORK/doc/"
rc=0
"$WORK/doc/gen.sh" "$SCALEBENCH" "$WORK/gen" >"$WORK/out" 2>"$WORK/err" || rc=$?
check "gen.sh: every command with its page: exit 0, the parts written" bash -c \
	"[ $rc -eq 0 ] && [ -s $WORK/gen/scalebench-wait-options.adoc ] && [ -s $WORK/gen/testcases-list.adoc ]"

# An option added to a table shows in its page with no edit of the page: the part is the
# table's (a stand-in binary whose table has one option more).
sed 's/^\*pass:c\[--json\]\*::$/*pass:c[--brand-new]*::\npass:c[a new option].\n\n&/' \
	"$MAN/gen/scalebench-list-options.adoc" >"$WORK/list-options.adoc"
check "(the stand-in table has --brand-new)" grep -q 'brand-new' "$WORK/list-options.adoc"
mkdir -p "$WORK/g2"
cp "$MAN"/gen/*.adoc "$WORK/g2/"
cp "$WORK/list-options.adoc" "$WORK/g2/scalebench-list-options.adoc"
asciidoctor -a gen="$WORK/g2" -b manpage -o "$WORK/list.1" Documentation/scalebench-list.txt 2>"$WORK/err"
check "a new option in the table is in the rendered page" bash -c \
	"MANWIDTH=80 man -l $WORK/list.1 2>/dev/null | col -b | grep -q '^       --brand-new$'"
