#!/bin/sh
# The man pages' generated parts, into DIR: from the binary's own tables, so a page and the
# command it documents cannot disagree (Documentation/*.txt include them).
#
#   Documentation/gen.sh BINARY DIR
#
#   DIR/scalebench-CMD-head.adoc     NAME, SYNOPSIS   scalebench help --format=man-head CMD
#   DIR/scalebench-CMD-options.adoc  OPTIONS          scalebench help --format=man-options CMD
#   DIR/scalebench-head.adoc, DIR/scalebench-commands.adoc
#                                    scalebench(1): its synopsis, the commands
#   DIR/testcases-list.adoc          the registry     scalebench list --json
# (.adoc: asciidoctor reads the directives of an included file, ifdef::[], only in AsciiDoc
# files, as their names say.)
#   DIR/ALL                     all of them; rewritten only when one changed (make renders the
#                               pages again only then)
#
# Fails when a command has no page (Documentation/scalebench-CMD.txt), a section-1 page
# names no command, or a page says more about an option (":opt-NAME: TEXT", shown under the
# option) that its command no longer has.
set -eu
bin=$1
dir=$2
src=$(dirname "$0")
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmds=$("$bin" help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$cmds" ] || { echo "gen.sh: $bin help lists no command" >&2; exit 1; }
status=0
for c in $cmds; do
	if [ ! -f "$src/scalebench-$c.txt" ]; then
		echo "gen.sh: command '$c' has no page: write $src/scalebench-$c.txt" >&2
		status=1
	fi
	"$bin" help --format=man-head "$c" >"$tmp/scalebench-$c-head.adoc"
	"$bin" help --format=man-options "$c" >"$tmp/scalebench-$c-options.adoc"
	[ -f "$src/scalebench-$c.txt" ] || continue
	for o in $(sed -n 's/^:opt-\([a-z0-9-]*\):.*/\1/p' "$src/scalebench-$c.txt"); do
		if ! grep -qxF "ifdef::opt-$o[]" "$tmp/scalebench-$c-options.adoc"; then
			echo "gen.sh: $src/scalebench-$c.txt says more about --$o, which $c has not" >&2
			status=1
		fi
	done
done
for t in "$src"/scalebench-*.txt; do
	head -1 "$t" | grep -q '(1)$' || continue
	c=$(basename "$t" .txt)
	c=${c#scalebench-}
	if ! printf '%s\n' $cmds | grep -qx "$c"; then
		echo "gen.sh: $t documents '$c', which is no command of $bin" >&2
		status=1
	fi
done
[ $status -eq 0 ] || exit 1
"$bin" help --format=man-head >"$tmp/scalebench-head.adoc"
"$bin" help --format=man-options >"$tmp/scalebench-commands.adoc"
"$bin" list --json | python3 "$src/testcases.py" >"$tmp/testcases-list.adoc"

cat "$tmp"/* >"$tmp/ALL.new"
for f in "$tmp"/*; do
	name=$(basename "$f")
	[ "$name" = ALL.new ] && continue
	cmp -s "$f" "$dir/$name" 2>/dev/null || cp "$f" "$dir/$name"
done
cmp -s "$tmp/ALL.new" "$dir/ALL" 2>/dev/null || cp "$tmp/ALL.new" "$dir/ALL"
