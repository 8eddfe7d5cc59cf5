#!/bin/sh
# The layer rule (README, Layout), checked on every build:
#   builtin -> workflow -> {runner, analyze} -> {store, core, monitors} -> lib
#   core -> testcases -> lib (the plug-in API, testcases/api.c, knows nothing of the core)
# (workflow/ is what needs both the runner and the analyzer: bisect's loop, boots, batches of
# runs; builtin/ may call every layer, workflow/ every layer but builtin/.)
# A file may include headers of its own layer and of the layers this table allows it;
# anything else fails the build with the file, the line and the rule it breaks.  One grep
# over every layer's files, one awk over its matches.
set -eu
cd "$(dirname "$0")/.."

# LAYER: the layers its files may include (its own first); the only list of layers.
rules='
builtin: builtin workflow runner analyze store core monitors testcases lib
workflow: workflow runner analyze store core monitors testcases lib
runner: runner store core monitors testcases lib
analyze: analyze store lib
store: store lib
core: core testcases lib
testcases: testcases lib
monitors: monitors store lib
lib: lib
'

# --print: the table as the README shows it (test_layers checks that the two agree).
if [ "${1:-}" = --print ]; then
	printf '%s\n' "$rules" | sed '/^$/d'
	exit 0
fi

files=$(printf '%s\n' "$rules" | awk -F: 'NF > 1 { printf "%s/*.c %s/*.h ", $1, $1 }')
# (grep -H -n: FILE:LINE:#include "../TARGET/..."; a pattern matching no file stays itself and
# grep -s says nothing of it.)
# shellcheck disable=SC2086
violations=$(grep -H -n -s '^#include "\.\./' $files | awk -v rules="$rules" '
BEGIN {
	n = split(rules, line, "\n")
	for (i = 1; i <= n; i++) {
		if (split(line[i], kv, ": ") == 2)
			ok[kv[1]] = kv[2]
	}
}
{
	f = $0
	sub(/:.*/, "", f)
	rest = substr($0, length(f) + 2)
	lineno = rest
	sub(/:.*/, "", lineno)
	layer = f
	sub(/\/.*/, "", layer)
	target = rest
	sub(/^[0-9]*:#include "\.\.\//, "", target)
	sub(/\/.*/, "", target)
	if (index(" " ok[layer] " ", " " target " ") == 0)
		printf "%s:%s: %s/ may not include %s/ (allowed: %s)\n", f, lineno, layer, target, ok[layer]
}')
if [ -n "$violations" ]; then
	printf '%s\n' "$violations" >&2
	echo "check-layers: the layer rule is broken (see README, Layout)" >&2
	exit 1
fi
exit 0
