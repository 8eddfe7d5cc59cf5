#!/bin/bash
# The README's testcase table, generated from `scalebench list --json` so it cannot drift:
#   scripts/readme-testcases.sh [SCALEBENCH]            print the table
#   scripts/readme-testcases.sh --update [SCALEBENCH]   rewrite it in README.md
# tests/e2e/test_readme.sh fails when README.md and the descriptors disagree.
set -eu
cd "$(dirname "$0")/.."
update=false
if [ "${1:-}" = --update ]; then
	update=true
	shift
fi
sb=${1:-build/scalebench}

table=$("$sb" list --json | python3 -c '
import json, sys
print("| testcase | modes | one op | better | description |")
print("| --- | --- | --- | --- | --- |")
for t in json.load(sys.stdin):
    better = "lower (%s)" % t.get("cost_stat", "cost") if t["lower_is_better"] else "higher"
    print("| `%s` | %s | %s | %s | %s |" % (t["name"], ", ".join(t["modes"]), t["op"], better,
                                            t["description"].replace("|", "\\|")))
')

if ! $update; then
	printf '%s\n' "$table"
	exit 0
fi
python3 - "$table" <<'PY'
import sys
table = sys.argv[1]
text = open("README.md").read()
begin, end = "<!-- testcases:begin -->", "<!-- testcases:end -->"
a, b = text.index(begin) + len(begin), text.index(end)
open("README.md.tmp", "w").write(text[:a] + "\n" + table + "\n" + text[b:])
PY
mv README.md.tmp README.md
