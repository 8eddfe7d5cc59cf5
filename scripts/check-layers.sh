#!/bin/sh
# The layer rule (README, Layout), checked on every build:
#   builtin -> {runner, analyze} -> {store, core, monitors, testcases} -> lib
# A file may include headers of its own layer and of the layers this table allows it;
# anything else fails the build with the file, the line and the rule it breaks.
set -eu
cd "$(dirname "$0")/.."

allowed() {
	case $1 in
	builtin) echo "builtin runner analyze store core monitors testcases lib" ;;
	runner) echo "runner store core monitors testcases lib" ;;
	analyze) echo "analyze store lib" ;;
	store) echo "store lib" ;;
	core) echo "core testcases lib" ;;
	testcases) echo "testcases core lib" ;;
	monitors) echo "monitors store lib" ;;
	lib) echo "lib" ;;
	esac
}

violations=$(for layer in builtin runner analyze store core testcases monitors lib; do
	ok=$(allowed "$layer")
	for f in "$layer"/*.c "$layer"/*.h; do
		[ -e "$f" ] || continue
		grep -n '^#include "\.\./' "$f" | while IFS= read -r line; do
			target=$(printf '%s' "$line" | sed 's|^[0-9]*:#include "\.\./\([a-z]*\)/.*|\1|')
			case " $ok " in
			*" $target "*) ;;
			*)
				echo "$f:${line%%:*}: $layer/ may not include $target/ (allowed: $ok)"
				;;
			esac
		done
	done
done)
if [ -n "$violations" ]; then
	printf '%s\n' "$violations" >&2
	echo "check-layers: the layer rule is broken (see README, Layout)" >&2
	exit 1
fi
exit 0
